"""The compiled rules engine of the gap game: B games as NumPy arrays, stepped by Numba kernels.

The core knows seats (0..P-1), not agent names. A game's whole state is one row of the arrays below;
:meth:`GapCore.step` applies one decision per game (a hidden card, a pile for a turned-up card, a play
or a pass) and resolves everything automatic: the forced turn-up when a turn starts with no gap (it
waits for the pile choice), reshuffles, the end of a round and its scoring, the next round's deal and
the end of the game. The rules are written once, as per-game functions compiled with Numba
(``kernels.py``) run over the games of a batch in a ``prange``; they mirror ``reference.py`` (the
readable pure-Python engine, same random stream), which is checked against this core step by step on
many random games. ``RULES.md`` states the rules and every choice made where the rulebook is silent.

State arrays (B games, P players, 66 cards, A = 201 actions); every one is a plain attribute with a
row per game:

| name         | shape     | dtype   | meaning                                                          |
|--------------|-----------|---------|------------------------------------------------------------------|
| card_loc     | [B, 66]   | int8    | LOC_* code of each card: draw pile, hand, hidden, pile top, below  |
|              |           |         | a top, turned up (pending)                                        |
| card_owner   | [B, 66]   | int8    | seat (hand, hidden) or pile 0/1 (top, below a top); -1 otherwise  |
| card_seen    | [B, 66]   | bool    | the card was face up this round (starting card, played, turned up)|
| card_pool    | [B, 66]   | int8    | pool label of a card shuffled back into the draw pile this round  |
|              |           |         | and not laid since (in the draw pile or a hand): 1 = the latest   |
|              |           |         | reshuffle's pool, 2, 3, ... older pools that still have a card in |
|              |           |         | a hand, renumbered at each reshuffle; 0 otherwise (stale on cards |
|              |           |         | laid since: only labels of draw-pile and hand cards are read)     |
| draw_cards   | [B, 66]   | int8    | draw pile card ids; the top is ``draw_cards[b, draw_pos[b]]``     |
| draw_pos     | [B]       | int16   | index of the top draw card                                        |
| draw_len     | [B]       | int16   | the pile is empty when ``draw_pos == draw_len``                   |
| pile_top     | [B, 2]    | int8    | the top card of the left and right discard piles                  |
| hand_count   | [B, P]    | int16   | cards in each seat's hand                                         |
| hidden_count | [B, P]    | int8    | hidden cards each seat has laid this round (0-2)                  |
| pending      | [B]       | int8    | the turned-up draw card awaiting a pile (FLIP), -1 = none         |
| phase        | [B]       | int8    | :class:`~.actions.Phase` of the decision pending                  |
| current      | [B]       | int8    | seat to act                                                       |
| dealer       | [B]       | int8    | this round's dealer (the seat to its left starts)                 |
| round        | [B]       | int16   | rounds completed                                                  |
| extra_turn   | [B]       | bool    | the turn under way is an extra turn after a gap play              |
| dry_passes   | [B]       | int8    | passes in a row that took nothing (nothing left to draw)          |
| score        | [B, P]    | int32   | running totals (plus and minus points of the rounds played)       |
| went_out     | [B, P]    | int16   | rounds each seat ended by laying its last card                    |
| turn         | [B]       | int32   | turns taken in the game (plays and passes)                        |
| terminated   | [B]       | bool    | the last round is over                                            |
| truncated    | [B]       | bool    | ``max_turns`` turns were taken first                              |
| rewards      | [B, P]    | float32 | rewards of the last step                                          |
| legal_mask   | [B, A]    | bool    | legal actions of the seat to act (all False when over)            |
| rng_state    | [B, 4]    | uint64  | the game's xoshiro256** stream (``keine_ahnung_env/rng.py``)          |

There are no hidden caches: code outside the core may read and write these arrays in place between
calls (then call :meth:`GapCore.refresh_masks`). Game b draws only from ``rng_state[b]`` (each round's
deal, each reshuffle), seeded from ``(seed, game id)``, so game i's course is the same whatever the
batch size, the other games and the number of threads.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ...engine import CompiledCore
from . import kernels as K
from .actions import NUM_ACTIONS, Phase, action_name
from .config import Rules
from .deck import CARD_COLOUR, CARD_NUMBER, CARD_STARS, HIDDEN_PER_PLAYER, NUM_CARDS, stars
from .kernels import LOC_DRAW, LOC_HAND, LOC_HIDDEN, LOC_PENDING, LOC_TOP, LOC_UNDER  # noqa: F401 (re-exported)
from .observation import ObservationLayout

__all__ = ["GapCore", "STATE_ARRAYS", "LOC_DRAW", "LOC_HAND", "LOC_HIDDEN", "LOC_TOP", "LOC_UNDER", "LOC_PENDING"]

STATE_ARRAYS = tuple(name for name in K.STATE_FIELDS if name != "rng_state")
"""The arrays that hold a position (every state array but the random stream)."""
_REWARD_CODES = {"win": K.REWARD_WIN, "score": K.REWARD_SCORE, "rank": K.REWARD_RANK}


def _tables() -> tuple[np.ndarray, np.ndarray]:
    """The gap table [a, b, c] (card c fits the gap between tops a and b) and the match table [t, c]."""
    colour, number = CARD_COLOUR.astype(np.int64), CARD_NUMBER.astype(np.int64)
    a, b, c = np.ix_(np.arange(NUM_CARDS), np.arange(NUM_CARDS), np.arange(NUM_CARDS))
    lo, hi = np.minimum(number[a], number[b]), np.maximum(number[a], number[b])
    gap = (colour[c] != colour[a]) & (colour[c] != colour[b]) & (lo < number[c]) & (number[c] < hi)
    match = (colour[:, None] == colour[None, :]) | (number[:, None] == number[None, :])
    return np.ascontiguousarray(gap), np.ascontiguousarray(match)


GAP_TABLE, MATCH_TABLE = _tables()
"""``GAP_TABLE[a, b, c]``: card c fits the gap between tops a and b; ``MATCH_TABLE[t, c]``: c matches top t."""

def make_consts(rules: Rules, layout: ObservationLayout) -> K.Consts:
    off = layout.offsets()
    return K.Consts(
        colour=CARD_COLOUR.copy(), number=CARD_NUMBER.copy(), stars=CARD_STARS.copy(),
        num_players=int(rules.num_players), rounds=int(rules.rounds),
        flip_on_extra_turns=bool(rules.flip_on_extra_turns), reward_mode=_REWARD_CODES[rules.reward],
        round_reward_scale=float(rules.round_reward_scale), max_turns=int(rules.max_turns),
        obs_size=int(layout.size), off_phase=off["phase"], off_acting=off["acting_seat"], off_hand=off["hand"],
        off_hidden=off["hidden"], off_pile_tops=off["pile_tops"], off_flip_card=off["flip_card"],
        off_discards=off["discards"], off_seen=off["seen"], off_hand_sizes=off["hand_sizes"],
        off_hidden_sizes=off["hidden_sizes"], off_table=off["table"], off_dealer=off["dealer"],
        off_scores=off["scores"], off_pool=off["pool"], off_pool_holdings=off["pool_holdings"])


class GapCore(CompiledCore):
    """B gap games as arrays (see the module docstring for every field); the ``BatchedCore`` protocol,
    with argument checks, seeding and kernel dispatch from :class:`~keine_ahnung_env.engine.CompiledCore`."""

    kernels = K

    def action_label(self, action: int) -> str:
        return action_name(action)

    def __init__(self, num_envs: int, rules: Rules | None = None, seed: int | None = None):
        """Allocates and deals ``num_envs`` games (default rules when ``rules`` is None)."""
        super().__init__(num_envs, rules if rules is not None else Rules(), seed)

    def _allocate(self, B: int, rules: Rules) -> None:
        self.rules = rules
        self.num_envs = B
        self.num_players = P = rules.num_players
        self.obs_layout = ObservationLayout.make(P, rules.rounds)
        self._k = make_consts(rules, self.obs_layout)
        self._all_active = np.ones(B, bool)
        N = NUM_CARDS
        self.card_loc = np.zeros((B, N), np.int8)
        self.card_owner = np.full((B, N), -1, np.int8)
        self.card_seen = np.zeros((B, N), bool)
        self.card_pool = np.zeros((B, N), np.int8)
        self.draw_cards = np.zeros((B, N), np.int8)
        self.draw_pos = np.zeros(B, np.int16)
        self.draw_len = np.zeros(B, np.int16)
        self.pile_top = np.zeros((B, 2), np.int8)
        self.hand_count = np.zeros((B, P), np.int16)
        self.hidden_count = np.zeros((B, P), np.int8)
        self.pending = np.full(B, -1, np.int8)
        self.phase = np.full(B, Phase.OVER, np.int8)
        self.current = np.zeros(B, np.int8)
        self.dealer = np.zeros(B, np.int8)
        self.round = np.zeros(B, np.int16)
        self.extra_turn = np.zeros(B, bool)
        self.dry_passes = np.zeros(B, np.int8)
        self.score = np.zeros((B, P), np.int32)
        self.went_out = np.zeros((B, P), np.int16)
        self.turn = np.zeros(B, np.int32)
        self.terminated = np.zeros(B, bool)
        self.truncated = np.zeros(B, bool)
        self.rewards = np.zeros((B, P), np.float32)
        self.legal_mask = np.zeros((B, NUM_ACTIONS), bool)
        self.rng_state = np.zeros((B, 4), np.uint64)

    # ------------------------------------------------------------ positions

    def refresh_masks(self, games=None) -> None:
        """Recomputes the legal masks (after the state arrays were edited from outside)."""
        g = np.arange(self.num_envs) if games is None else np.asarray(games, np.intp).reshape(-1)
        K.mask_kernel(self._state(), self._k, g)

    def load(self, b: int, *, hands, hidden=None, piles, draw=(), current: int = 0, dealer: int | None = None,
             round: int = 0, scores=None, extra_turn: bool = False, start_turn: bool = True) -> None:
        """Puts game ``b`` in an exact position mid-round (scripted deals, tests). Card ids throughout.

        Args:
          hands: per seat, the cards in hand.
          hidden: per seat, its hidden cards (default none); every seat counts as having chosen.
          piles: the left and right discard piles, each listed bottom to top (at least the top).
          draw: the top of the draw pile, top first; every card not placed elsewhere follows in
            ascending id order, so all 66 cards stay accounted for.
          current: the seat whose turn it is; dealer: this round's dealer (default: the seat before
            ``current``); round: rounds completed; scores: running totals (default 0).
          extra_turn: the turn is an extra turn after a gap play.
          start_turn: begin ``current``'s turn now (the forced turn-up when there is no gap), or
            (False) leave it at its play decision as it is.
        """
        P = self.num_players
        hidden = hidden if hidden is not None else [[] for _ in range(P)]
        if len(hands) != P or len(hidden) != P or len(piles) != 2 or any(len(p) == 0 for p in piles):
            raise ValueError(f"load: {P} hands, {P} hidden lists and two non-empty piles needed")
        placed = [c for h in hands for c in h] + [c for h in hidden for c in h] + [c for p in piles for c in p] \
            + list(draw)
        if len(set(placed)) != len(placed) or any(not 0 <= c < NUM_CARDS for c in placed):
            raise ValueError("load: every card id must be in 0..65 and appear at most once")
        if any(len(h) > HIDDEN_PER_PLAYER for h in hidden):
            raise ValueError(f"load: at most {HIDDEN_PER_PLAYER} hidden cards per seat")
        rest = sorted(set(range(NUM_CARDS)) - set(placed))
        order = list(draw) + rest
        self.card_loc[b], self.card_owner[b], self.card_seen[b] = LOC_DRAW, -1, False
        self.card_pool[b] = 0
        self.draw_cards[b] = 0
        self.draw_cards[b, :len(order)] = order
        self.draw_pos[b], self.draw_len[b] = 0, len(order)
        for seat in range(P):
            for c in hands[seat]:
                self.card_loc[b, c], self.card_owner[b, c] = LOC_HAND, seat
            for c in hidden[seat]:
                self.card_loc[b, c], self.card_owner[b, c] = LOC_HIDDEN, seat
            self.hand_count[b, seat] = len(hands[seat])
            self.hidden_count[b, seat] = HIDDEN_PER_PLAYER
        for k, pile in enumerate(piles):
            for c in pile:
                self.card_loc[b, c], self.card_owner[b, c], self.card_seen[b, c] = LOC_UNDER, k, True
            self.card_loc[b, pile[-1]] = LOC_TOP
            self.pile_top[b, k] = pile[-1]
        self.pending[b] = -1
        self.current[b] = current
        self.dealer[b] = (current - 1) % P if dealer is None else dealer
        self.round[b] = round
        self.extra_turn[b] = extra_turn
        self.dry_passes[b] = 0
        self.score[b] = 0 if scores is None else scores
        self.went_out[b] = 0
        self.turn[b] = 0
        self.terminated[b] = self.truncated[b] = False
        self.rewards[b] = 0
        self.phase[b] = Phase.PLAY
        if start_turn:
            K.begin_turn_kernel(self._state(), self._k, np.array([b], np.intp), bool(extra_turn))
        else:
            self.refresh_masks([b])

    # ------------------------------------------------------------ queries

    @property
    def scores(self) -> np.ndarray:
        """[B, P] int32: running totals (final once a game is over)."""
        return self.score

    @classmethod
    def from_state_arrays(cls, rules: Rules, arrays: dict[str, np.ndarray], seeds: Sequence[int],
                          rng_state: np.ndarray | None = None) -> "GapCore":
        """A core holding the given positions (as :meth:`state_arrays` returns them, possibly edited);
        game i draws from a stream seeded by ``np.random.SeedSequence(seeds[i])``, or, given ``rng_state``
        ([len(seeds), 4] uint64, no row all zero), from that stream state. Nothing is dealt."""
        return cls._from_arrays(rules, arrays, seeds, rng_state)

    # ------------------------------------------------------------ views of one game

    def hand(self, b: int, seat: int) -> list[int]:
        """The cards in ``seat``'s hand, ascending id."""
        return np.flatnonzero((self.card_loc[b] == LOC_HAND) & (self.card_owner[b] == seat)).tolist()

    def hidden(self, b: int, seat: int) -> list[int]:
        return np.flatnonzero((self.card_loc[b] == LOC_HIDDEN) & (self.card_owner[b] == seat)).tolist()

    def hand_stars(self, b: int, seat: int) -> int:
        return stars(self.hand(b, seat))

    def snapshot(self, b: int) -> dict:
        """Game b's state in the canonical form of ``GapReference.snapshot``."""
        P = self.num_players
        loc, owner = self.card_loc[b], self.card_owner[b]
        return {
            "draw_pile": self.draw_cards[b, self.draw_pos[b]:self.draw_len[b]].tolist(),
            "tops": self.pile_top[b].tolist(),
            "under": sorted(np.flatnonzero(loc == LOC_UNDER).tolist()),
            "hands": [self.hand(b, p) for p in range(P)],
            "hidden": [self.hidden(b, p) for p in range(P)],
            "hidden_count": self.hidden_count[b].tolist(),
            "seen": np.flatnonzero(self.card_seen[b]).tolist(),
            "pending": int(self.pending[b]),
            "phase": int(self.phase[b]),
            "current": int(self.current[b]),
            "dealer": int(self.dealer[b]),
            "round": int(self.round[b]),
            "extra_turn": bool(self.extra_turn[b]),
            "dry_passes": int(self.dry_passes[b]),
            "scores": self.score[b].tolist(),
            "went_out": self.went_out[b].tolist(),
            "turn": int(self.turn[b]),
            "terminated": bool(self.terminated[b]),
            "truncated": bool(self.truncated[b]),
        }
