"""The compiled rules engine of dnp: B games as NumPy arrays, stepped by Numba kernels (``kernels.py``).

A game's whole state is one row of the arrays below; :meth:`DnpCore.step` applies one decision per
game (a card selection or a move A-D of the seat to act) and resolves everything automatic: discards
at the start of a move, beaten sets returning, finishers, the end of a round and the next deal, the
end of the game. The rules are written once in ``kernels.py`` and mirror ``reference.py``, the
readable engine this core is tested against; ``RULES.md`` states them and every choice made where
the rulebook is silent.

State arrays (B games, P players, N cards of the deck (those of the groups removed at this player
count lie LOC_OUT for the whole game), T = P * areas table positions, A actions;
areas = 2 with two players, else 1; position ``seat * areas + area``):

| name          | shape     | dtype   | meaning                                                          |
|---------------|-----------|---------|------------------------------------------------------------------|
| card_loc      | [B, N]    | int8    | LOC_HAND, LOC_TABLE, LOC_DISCARD or LOC_OUT (not in this game)   |
| card_where    | [B, N]    | int8    | the holding seat (hand) or the position (table); 0 if discarded  |
| card_rot      | [B, N]    | int8    | 1: the card lies rotated (its second value is active), 0 upright |
| card_public   | [B, N]    | bool    | a hand card the whole table knows (taken back or picked up)      |
| card_selected | [B, N]    | bool    | in the mover's selection in progress                             |
| deal_order    | [B, N]    | int16   | the round's deal: the k-th card went to seat ``k % P`` (-1 pads) |
| set_size      | [B, T]    | int8    | cards in the set at each position (0: none); kept with the cards |
| set_value     | [B, T]    | int8    | that set's value (0: none)                                       |
| hand_count    | [B, P]    | int8    | cards in each hand (kept with the cards)                         |
| sel_count     | [B]       | int8    | cards selected so far (0: no selection in progress)              |
| sel_value     | [B]       | int8    | their active value                                               |
| points        | [B, P]    | int16   | points (3-5 players) or round wins (2 players)                   |
| out           | [B, P]    | bool    | the first finisher of the round (takes no more turns)            |
| finishers     | [B]       | int8    | players who emptied their hand this round                        |
| current       | [B]       | int8    | seat to act                                                      |
| area          | [B]       | int8    | area of the current move (two players; else 0)                   |
| turn          | [B]       | int32   | moves (A-D) played in this game                                  |
| rounds        | [B]       | int16   | rounds completed                                                 |
| terminated    | [B]       | bool    | somebody reached the target                                      |
| truncated     | [B]       | bool    | ``max_turns`` moves were played first                            |
| rewards       | [B, P]    | float32 | rewards of the last step                                         |
| legal_mask    | [B, A]    | bool    | legal actions of the seat to act (all False when over)           |
| rng_state     | [B, 4]    | uint64  | the game's xoshiro256** stream (``rng.py``)                      |

``set_size``, ``set_value`` and ``hand_count`` are derived from the card arrays and kept in step with
them by every kernel (code that edits the cards in place must update them; :meth:`DnpCore.load` does).

Randomness: game b draws only from ``rng_state[b]`` (each round's deal and the cards' orientations),
seeded from ``(seed, game id)``, so game i's course is the same whatever the batch size.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ...engine import CompiledCore
from . import kernels as K
from .actions import ActionLayout
from .config import Rules
from .kernels import LOC_DISCARD, LOC_HAND, LOC_OUT, LOC_TABLE  # noqa: F401 (re-exported)
from .observation import ObservationLayout

PARALLEL_MIN_GAMES = 64
STATE_ARRAYS = tuple(name for name in K.STATE_FIELDS if name != "rng_state")
"""The arrays that hold a position (every state array but the random stream)."""
_REWARD_CODES = {"win": K.REWARD_WIN, "score": K.REWARD_SCORE, "rank": K.REWARD_RANK}


def _consts(rules: Rules, actions: ActionLayout, layout: ObservationLayout) -> K.Consts:
    t = rules.tables()
    off = {name: layout.slice(name).start for name, _ in layout.sections}
    return K.Consts(
        values=np.ascontiguousarray(t.values), value_up=np.ascontiguousarray(t.values[:, 0]),
        value_flip=np.ascontiguousarray(t.values[:, 0] ^ t.values[:, 1]),
        in_play=np.ascontiguousarray(t.in_play), star=int(t.star),
        num_players=int(rules.num_players),
        areas=int(rules.areas), target=int(rules.target), max_turns=int(rules.max_turns),
        reward_mode=_REWARD_CODES[rules.reward], finisher_closed=rules.finisher_set == "closed",
        num_targets=actions.used_targets, play=actions.play, add_base=actions.add_base,
        take_base=actions.take_base, turn_action=actions.turn, obs_size=layout.size, card_width=layout.card_width,
        off_acting=off["acting"], off_area=off["area"], off_selection=off["selection"], off_players=off["players"],
        off_table=off["table"], off_hand_values=off["hand_values"], off_cards=off["cards"])


class DnpCore(CompiledCore):
    """B dnp games as arrays (the module docstring documents every field); argument checks, seeding
    and the protocol's methods from :class:`~keine_ahnung_env.engine.CompiledCore`."""

    parallel_min_games = PARALLEL_MIN_GAMES
    kernels = K

    def action_label(self, action: int) -> str:
        return self.actions.names()[int(action)]

    def _allocate(self, B: int, rules: Rules) -> None:
        self.rules = rules
        self.tables = rules.tables()
        self.num_envs = B
        self.num_players = P = rules.num_players
        N, T = self.tables.num_cards, P * rules.areas
        self.actions = ActionLayout(N, P)
        self.obs_layout = ObservationLayout.make(P, N)
        self._k = _consts(rules, self.actions, self.obs_layout)
        self._all_active = np.ones(B, bool)
        self.card_loc = np.zeros((B, N), np.int8)
        self.card_where = np.zeros((B, N), np.int8)
        self.card_rot = np.zeros((B, N), np.int8)
        self.card_public = np.zeros((B, N), bool)
        self.card_selected = np.zeros((B, N), bool)
        self.deal_order = np.zeros((B, N), np.int16)
        self.set_size = np.zeros((B, T), np.int8)
        self.set_value = np.zeros((B, T), np.int8)
        self.hand_count = np.zeros((B, P), np.int8)
        self.sel_count = np.zeros(B, np.int8)
        self.sel_value = np.zeros(B, np.int8)
        self.points = np.zeros((B, P), np.int16)
        self.out = np.zeros((B, P), bool)
        self.finishers = np.zeros(B, np.int8)
        self.current = np.zeros(B, np.int8)
        self.area = np.zeros(B, np.int8)
        self.turn = np.zeros(B, np.int32)
        self.rounds = np.zeros(B, np.int16)
        self.terminated = np.zeros(B, bool)
        self.truncated = np.zeros(B, bool)
        self.rewards = np.zeros((B, P), np.float32)
        self.legal_mask = np.zeros((B, self.actions.num_actions), bool)
        self.rng_state = np.zeros((B, 4), np.uint64)

    # ------------------------------------------------------------ positions

    def load(self, b: int, *, hands, table=None, rotated=(), public=(), discard=(), points=None, out=None,
             current: int = 0, area: int | None = None, finishers: int | None = None) -> None:
        """Puts game ``b`` in an exact position (scripted rulebook examples, tests). Card ids throughout.

        Args:
          hands: per seat, the card ids in hand.
          table: per position (``seat * areas + area``), the card ids of the set there (one value).
          rotated: the cards that lie rotated (second value active); every other card lies upright.
          public: hand cards the table knows.
          discard: discarded cards; every card in play must be in exactly one place.
          points, out: per seat (default zeros, nobody out); ``finishers`` defaults to ``sum(out)``.
          current, area: the seat to move and its area (default: the last area, as at a round's start
            with two players, else 0). No discard happens: the position is the mover's decision.
        """
        P, A = self.num_players, self.rules.areas
        table = table if table is not None else [[] for _ in range(P * A)]
        if len(hands) != P or len(table) != P * A:
            raise ValueError(f"load: {len(hands)} hands and {len(table)} table positions; allowed: {P} and {P * A}")
        placed = [c for h in hands for c in h] + [c for st in table for c in st] + list(discard)
        in_play = np.flatnonzero(self.tables.in_play).tolist()
        if sorted(placed) != in_play:
            raise ValueError(f"load: every card in play ({in_play}) must be placed exactly once")
        self.card_loc[b], self.card_where[b] = LOC_OUT, 0
        self.card_rot[b] = 0
        self.card_rot[b, list(rotated)] = 1
        self.card_public[b], self.card_selected[b] = False, False
        self.hand_count[b], self.set_size[b], self.set_value[b] = 0, 0, 0
        for seat, hand in enumerate(hands):
            for c in hand:
                self.card_loc[b, c], self.card_where[b, c] = LOC_HAND, seat
            self.hand_count[b, seat] = len(hand)
        for pos, cards in enumerate(table):
            values = {int(self.tables.values[c, self.card_rot[b, c]]) for c in cards}
            if len(values) > 1:
                raise ValueError(f"load: the set at position {pos} mixes values {sorted(values)}")
            for c in cards:
                self.card_loc[b, c], self.card_where[b, c] = LOC_TABLE, pos
            self.set_size[b, pos] = len(cards)
            self.set_value[b, pos] = values.pop() if cards else 0
        for c in discard:
            self.card_loc[b, c], self.card_where[b, c] = LOC_DISCARD, 0
        self.card_public[b, list(public)] = True
        self.points[b] = 0 if points is None else points
        self.out[b] = False if out is None else out
        self.finishers[b] = int(self.out[b].sum()) if finishers is None else finishers
        self.current[b] = current
        self.area[b] = (A - 1) if area is None else area
        self.sel_count[b] = self.sel_value[b] = 0
        self.turn[b], self.rounds[b] = 0, 0
        self.terminated[b] = self.truncated[b] = False
        self.rewards[b] = 0
        K.mask_kernel(self._state(), self._k, np.array([b], np.intp))

    @classmethod
    def from_state_arrays(cls, rules: Rules, arrays: dict[str, np.ndarray], seeds: Sequence[int],
                          rng_state: np.ndarray | None = None) -> "DnpCore":
        """A core holding the given positions (as :meth:`state_arrays` returns them, possibly edited;
        ``set_size``, ``set_value`` and ``hand_count`` must agree with the cards); game i draws its later
        chance events (the next rounds' deals) from a stream seeded by ``np.random.SeedSequence(seeds[i])``,
        or, given ``rng_state`` ([len(seeds), 4] uint64, no row all zero), from that stream state.
        Nothing is dealt; the legal masks are computed."""
        core = cls._from_arrays(rules, arrays, seeds, rng_state)
        K.mask_kernel(core._state(), core._k, np.arange(len(seeds)))
        return core

    @classmethod
    def from_positions(cls, rules: Rules, rng_state: np.ndarray, **fields) -> "DnpCore":
        """A core of ``len(rng_state)`` positions at a decision, built from the state arrays that are not
        empty there: each given field (a state array's name) is broadcast to its ``[n, ...]`` shape (one
        value, one row for every game, or a row per game); every other field keeps its empty value
        (zero, False, the deal order unknown: -1). Game i draws its later chance events from
        ``rng_state[i]``; the legal masks are computed. The belief's samples and the play reading's
        rewound states are built with it."""
        n = len(rng_state)
        empty = cls.__new__(cls)
        empty._allocate(n, rules)
        arrays = {name: getattr(empty, name) for name in cls.state_array_names()}
        arrays["deal_order"][...] = -1
        for name, value in fields.items():
            if name not in arrays:
                raise ValueError(f"from_positions: no state array {name!r}; allowed: {', '.join(arrays)}")
            arrays[name][...] = value
        return cls.from_state_arrays(rules, arrays, range(n), rng_state=rng_state)

    # ------------------------------------------------------------ queries

    @property
    def scores(self) -> np.ndarray:
        """[B, P] points (3-5 players) or round wins (2 players)."""
        return self.points

    def hand(self, b: int, seat: int) -> list[int]:
        """The card ids in ``seat``'s hand in game ``b``."""
        return np.flatnonzero((self.card_loc[b] == LOC_HAND) & (self.card_where[b] == seat)).tolist()

    def active_values(self, b: int) -> np.ndarray:
        """[N] the active value of every card of game ``b``."""
        return self.tables.values[np.arange(self.tables.num_cards), self.card_rot[b]].astype(np.int64)

    def snapshot(self, b: int) -> dict:
        """Game b's state in the canonical form of ``ReferenceGame.snapshot``."""
        P, T = self.num_players, self.num_players * self.rules.areas
        loc, where = self.card_loc[b], self.card_where[b]
        return {
            "hands": [self.hand(b, p) for p in range(P)],
            "table": [np.flatnonzero((loc == LOC_TABLE) & (where == pos)).tolist() for pos in range(T)],
            "discard": np.flatnonzero(loc == LOC_DISCARD).tolist(),
            "rot": self.card_rot[b].tolist(),
            "public": np.flatnonzero(self.card_public[b]).tolist(),
            "selection": np.flatnonzero(self.card_selected[b]).tolist(),
            "points": self.points[b].tolist(),
            "out": self.out[b].tolist(),
            "current": int(self.current[b]),
            "area": int(self.area[b]),
            "turn": int(self.turn[b]),
            "rounds": int(self.rounds[b]),
            "terminated": bool(self.terminated[b]),
            "truncated": bool(self.truncated[b]),
        }
