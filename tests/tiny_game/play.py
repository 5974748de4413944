"""Reading the play in tiny_v0 (``GameHooks.play``): every action is public (a played card is seen, a pass
is a pass) and a round has no chance event, so a sampled state goes back to the round's start by
returning each card on the table to the hand slot its player played it from."""

from __future__ import annotations

import numpy as np

from .core import TinyCore
from .deck import HAND


class TinyPlay:
    """The play hooks of tiny_v0 (every variant alike)."""

    reveals_nothing = False

    def round_index(self, core: TinyCore) -> np.ndarray:
        return core.round.copy()

    def game_start(self, core: TinyCore) -> np.ndarray:
        return core.turn == 0

    def restarts(self, before: np.ndarray, after: np.ndarray) -> bool:
        return False  # every step replays: nothing happens that the log does not say

    def public_action(self, action: int) -> int:
        return int(action)

    def rewind(self, states: TinyCore, log) -> TinyCore:
        P = states.num_players
        start = TinyCore.gather([(states, np.arange(states.num_envs))])
        reader = states.current.astype(np.int64)
        for relative, action in zip(log.actors.tolist(), log.actions.tolist()):
            if action >= HAND:
                continue
            seat = (reader + relative) % P
            for i in range(states.num_envs):
                s = int(seat[i])
                card = start.table[i, s]
                if card <= 0:
                    raise ValueError(f"the log has seat +{relative} play, but the state shows no card of it")
                rest = [c for c in start.hands[i, s] if c > 0]
                if len(rest) >= HAND:
                    raise ValueError("the log plays a card from a full hand")
                slots = [k for k in range(HAND) if k != action]
                start.hands[i, s] = 0
                start.hands[i, s, action] = card
                start.hands[i, s, slots[: len(rest)]] = rest
                start.table[i, s] = 0
        start.acted[:] = 0
        start.current[:] = start.round % P
        start.turn[:] = start.round * P
        return start
