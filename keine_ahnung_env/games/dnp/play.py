"""Reading the play in dnp: the :class:`~keine_ahnung_env.game_spec.PlayHooks` (``GameSpec.play``).

What the other players did this round says something about the cards they still hold unseen (a
player who turns its whole hand, or takes a set instead of playing one, probably had no good set).
``keine_ahnung_env.play_reading`` weighs the belief's states by it; what it needs of dnp is here.

**Every action is public.** The cards a player selects are played face up when its move completes
(a selection cannot be taken back), TAKE and TURN are seen by all: the replay steps the real
actions. Only the order in which a player selected its cards is not seen; a position after a whole
move does not depend on it, and the reading compares positions after whole runs of moves only.

**Rewinding a sampled state to the round's start** (every rule here follows from what the seat saw):

* the seat's own hand at the start is in its observation then (cards and orientations);
* a card some opponent played this round was dealt to the first player who selected it: a card
  reaches a hand from the table only after being played, and the seat's own cards are known;
  it lay the way it was seen on the table, turned back once for every whole-hand turn its holder
  made before playing it (hand cards keep their orientation otherwise);
* every other card is still unseen in the hand it was dealt to: the sampled state says whose and
  which way it lies now, turned back once for every whole-hand turn its holder made this round.

Nothing else is left in a hand at the start of a round: no set on the table, nothing discarded,
nothing known in another hand.
"""

from __future__ import annotations

import numpy as np

from .actions import ActionLayout
from .config import Rules
from .core import DnpCore
from .kernels import LOC_HAND, LOC_OUT
from .observation import ObservationLayout


class DnpPlay:
    """The play hooks of one dnp variant (see the module docstring)."""

    reveals_nothing = False

    def __init__(self, rules: Rules):
        self.rules = rules
        self.tables = rules.tables()
        self.num_players = rules.num_players
        self.layout = ObservationLayout.make(rules.num_players, self.tables.num_cards)
        self.actions = ActionLayout(self.tables.num_cards, rules.num_players)

    def round_index(self, core: DnpCore) -> np.ndarray:
        return np.asarray(core.rounds).copy()

    def game_start(self, core: DnpCore) -> np.ndarray:
        return (np.asarray(core.turn) == 0) & (np.asarray(core.sel_count) == 0)

    def restarts(self, before: np.ndarray, after: np.ndarray) -> bool:
        return False  # every step replays: nothing happens that the log does not say

    def public_action(self, action: int) -> int:
        return int(action)

    def rewind(self, states: DnpCore, log) -> DnpCore:
        P, N, L = self.num_players, self.tables.num_cards, self.layout
        T, F = L.positions, L.card_width
        start = L.split(np.rint(np.asarray(log.start, np.float64)).astype(np.int64))
        cards = start["cards"].reshape(N, F)
        flags = cards[:, 4:]
        if flags[:, 1:3 + T + P].any() or start["table"].any():  # selected .. discarded: all empty
            raise ValueError("the log's start is not a dnp round's start (cards on the table, discarded, selected or "
                             "known in a hand)")
        players = start["players"].reshape(P, 4)
        sizes, points = players[:, 0], players[:, 1]
        acting = np.flatnonzero(start["acting"])
        if acting.size != 1:
            raise ValueError("the log's start has no seat to act")
        own = flags[:, 0] > 0
        in_play = self.tables.in_play
        holder = np.full(N, -1, np.int64)
        rot = np.zeros(N, np.int64)
        holder[own] = 0
        rot[own] = cards[own, 3]
        # The first player to select a card the seat was not dealt was dealt it.
        turn_id = self.actions.turn
        turns = np.zeros(P, np.int64)
        for t, (actor, action) in enumerate(zip(log.actors.tolist(), log.actions.tolist())):
            if action == turn_id:
                turns[actor] += 1
            elif action < N and holder[action] < 0:
                holder[action] = actor
                value = self._played_value(log, t, actor, action)
                matches = np.flatnonzero(self.tables.values[action] == value)
                if matches.size != 1:
                    raise ValueError(f"the log plays card {action} to a set of value {value}, which it cannot show")
                rot[action] = int(matches[0]) ^ (int(turns[actor]) & 1)
        played = holder >= 0
        unseen = in_play & ~played
        n = states.num_envs
        card_where = np.asarray(states.card_where).astype(np.int64)
        card_loc = np.asarray(states.card_loc)
        # Every card neither dealt to the seat nor played this round is unseen in an opponent's hand.
        ok = (card_loc[:, unseen] == LOC_HAND).all() and (card_where[:, unseen] > 0).all() and \
            not np.asarray(states.card_public)[:, unseen].any()
        if not ok:
            raise ValueError("the sampled states hold a card the log never showed outside an opponent's hand")
        where = np.broadcast_to(holder, (n, N)).copy()
        where[:, unseen] = card_where[:, unseen]
        rots = np.broadcast_to(rot, (n, N)).copy()
        rots[:, unseen] = np.asarray(states.card_rot)[:, unseen].astype(np.int64) ^ (turns[card_where[:, unseen]] & 1)
        counts = np.stack([(where[:, in_play] == r).sum(axis=1) for r in range(P)], axis=1)
        if not (counts == sizes[None, :]).all():
            raise ValueError(f"the rewound hands hold {counts[0].tolist()} cards; the round began with "
                             f"{sizes.tolist()}")

        return DnpCore.from_positions(
            self.rules, np.asarray(states.rng_state).copy(), card_loc=np.where(in_play, LOC_HAND, LOC_OUT),
            card_where=np.where(in_play[None, :], where, 0), card_rot=np.where(in_play[None, :], rots, 0),
            hand_count=counts, points=points, current=int(acting[0]), area=int(np.argmax(start["area"])))

    def _played_value(self, log, first: int, actor: int, card: int) -> int:
        """The active value ``card`` had when ``actor`` played it, its selection starting at step ``first``:
        the value of the set it joined (a played set is seen in front of its player after the move; a
        card added to another set takes that set's value, seen before the move, since the set may be
        discarded before the seat's next look)."""
        L, N = self.layout, self.tables.num_cards
        stop = next((m for m in range(first, len(log)) if log.actors[m] == actor and log.actions[m] >= N
                     and log.actions[m] < self.actions.take_base), None)
        if stop is None:
            raise ValueError(f"the log selects card {card} but never completes the move")
        action = int(log.actions[stop])
        if action == self.actions.play:
            row = L.split(log.seen[stop])["cards"].reshape(N, L.card_width)[card]
            if not row[7:7 + L.positions].any():
                raise ValueError(f"the log plays card {card} but does not show it on the table")
            return int(row[2])
        position = self.actions.target_position(actor, action - self.actions.add_base)
        before = log.start if stop == 0 else log.seen[stop - 1]
        return int(L.split(before)["table"].reshape(L.positions, 2)[position, 0])
