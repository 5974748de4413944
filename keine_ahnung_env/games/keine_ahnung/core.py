"""The compiled rules engine of Keine Ahnung: B games as NumPy arrays, stepped by Numba kernels.

The core knows seats (0..P-1), not agent names. A game's whole state is one row of the arrays below;
:meth:`KeineAhnungCore.step` applies one action per game (the decision of the seat to act) and
resolves everything that is not a decision: the turn's draw-pile card, automatic placements, extra
functions and their chains, consolation prizes, clearing, refills, reshuffles and the end of the game.
The rules are written once, as per-game functions compiled with Numba (``kernels.py``), run over the
games of a batch in a ``prange``; they mirror ``reference.py`` (the readable pure-Python engine), which
uses the same random stream (``rng.py``) and is checked against this core step by step on thousands
of random games. ``RULES.md`` states the rules and the choices made where the rulebook is silent;
``docs/engine_pattern.md`` the pattern every game of the library follows.

State arrays (B games, P players, N cards, K = the most piles possible = number cards in the deck,
T trophies, A actions); every one is a plain attribute with a row per game:

| name          | shape     | dtype   | meaning                                                         |
|---------------|-----------|---------|-----------------------------------------------------------------|
| draw_cards    | [B, N]    | int16   | draw pile card ids; the top is ``draw_cards[b, draw_pos[b]]``   |
| draw_pos      | [B]       | int16   | index of the top draw-pile card                                 |
| draw_len      | [B]       | int16   | the pile is empty when ``draw_pos == draw_len``                 |
| card_loc      | [B, N]    | int8    | LOC_* code: where each card is                                  |
| card_where    | [B, N]    | int8    | pile index (LOC_PILE) or seat (LOC_LAYOUT, LOC_PRIZE); else 0   |
| card_known    | [B, N]    | bool    | revealed to the table and not shuffled into the draw pile since |
| layout        | [B, P, 6] | int16   | card id in each layout slot, -1 = empty                         |
| pile_top      | [B, K]    | int16   | top card of each discard pile (oldest first), -1 = no pile      |
| pile_face     | [B, K]    | int16   | face of each pile top, 36 = no pile                             |
| pile_count    | [B]       | int16   | number of discard piles                                         |
| top_count     | [B, 36]   | int16   | number of piles whose top shows each face                       |
| trophy_order  | [B, T]    | int16   | trophy values in pile order (top first)                         |
| trophy_owner  | [B, T]    | int8    | seat that won each trophy, -1 = still in the pile               |
| trophy_pos    | [B]       | int16   | trophies won so far (index of the top trophy)                   |
| trophy_count  | [B, P]    | int16   | trophies won per seat                                           |
| trophy_points | [B, P]    | int16   | trophy points per seat                                          |
| prize_count   | [B, P]    | int16   | consolation prizes per seat                                     |
| prize_points  | [B, P]    | int16   | consolation-prize points per seat                               |
| current       | [B]       | int8    | seat to act                                                     |
| phase         | [B]       | int8    | :class:`Phase` of the decision pending                          |
| pending       | [B]       | int16   | card awaiting a pile choice, -1 = none                          |
| pending_slot  | [B]       | int8    | its layout slot (PLACE_REVEALED), -1 = from the draw pile        |
| clear_pending | [B]       | bool    | the seat to act has emptied its layout this turn                |
| turn          | [B]       | int32   | turns completed                                                 |
| terminated    | [B]       | bool    | the last trophy has been won                                    |
| truncated     | [B]       | bool    | ``max_turns`` turns were played first                           |
| rewards       | [B, P]    | float32 | rewards of the last step                                        |
| legal_mask    | [B, A]    | bool    | legal actions of the seat to act (all False when over)          |
| card_epoch    | [B, N]    | int32   | value of ``reshuffles`` when the card was last shuffled into the |
|               |           |         | draw pile (0: the deal): which pool a face-down card came from  |
| reshuffles    | [B]       | int32   | reshuffles of the draw pile so far                              |
| rng_state     | [B, 4]    | uint64  | the game's xoshiro256** stream (``rng.py``)                     |

There are no hidden caches: every kernel derives what it needs (the faces a card fits, the oldest
pile showing a face, a layout's occupancy) from these arrays, so code outside the core may read and
write them in place, or replace them by arrays of the same shape and dtype, between calls.

Randomness: game b draws only from ``rng_state[b]`` (when it is dealt and when its draw pile is
reshuffled), seeded from ``(seed, game id)`` (:meth:`KeineAhnungCore.seed`), so game i's course is the
same whatever the batch size, the other games and the number of threads.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from ...engine import CompiledCore
from . import kernels as K
from .actions import NUM_ACTIONS, Phase, action_name
from .config import SLOTS, Rules
from .deck import NO_FACE, NUM_FACES
from .kernels import LOC_ASIDE, LOC_DRAW, LOC_LAYOUT, LOC_PENDING, LOC_PILE, LOC_PRIZE  # noqa: F401 (re-exported)
from .observation import ObservationLayout, card_feature_table
from ...rng import game_rng_states, game_seed_sequences, state_from_seed_sequence  # noqa: F401 (re-exported)

__all__ = ["KeineAhnungCore", "LOC_ASIDE", "LOC_DRAW", "LOC_LAYOUT", "LOC_PENDING", "LOC_PILE", "LOC_PRIZE",
           "STATE_ARRAYS", "game_seed_sequences"]


STATE_ARRAYS = tuple(name for name in K.STATE_FIELDS if name != "rng_state")
"""The arrays that hold a position (every state array but the random stream): what
:meth:`KeineAhnungCore.state_arrays` copies."""
_STATE_ARRAYS = STATE_ARRAYS  # the former private name


_REWARD_CODES = {"win": K.REWARD_WIN, "score": K.REWARD_SCORE, "rank": K.REWARD_RANK}


def _slot_and_type_tables(tables, features: np.ndarray) -> dict:
    """``slot_rows`` and ``type_masks`` of the kernels' constants (``_observe_layouts``,
    ``_observe_card_counts``); ``features``: the card encodings (``card_feature_table``)."""
    N = tables.num_cards
    slot_rows = np.zeros((N + 2, K.SLOT_WIDTH), np.float32)
    slot_rows[:N, 2] = 1.0  # face down, known: the card's features follow
    slot_rows[:N, 3:] = features[:N]
    slot_rows[N, 1] = 1.0  # face down, unknown
    slot_rows[N + 1, 0] = 1.0  # empty
    words = (N + 63) // 64
    card_type = np.asarray(tables.card_type, np.int64)
    type_masks = np.zeros((words, int(card_type.max()) + 1), np.uint64)
    for w in range(words):
        cards = np.arange(w * 64, min(N, w * 64 + 64))
        np.bitwise_or.at(type_masks[w], card_type[cards], np.uint64(1) << (cards - w * 64).astype(np.uint64))
    return {"slot_rows": slot_rows, "type_masks": type_masks}


def _consts(rules: Rules, layout: ObservationLayout) -> K.Consts:
    t = rules.tables()
    off = {name: layout.slice(name).start for name, _ in layout.sections}
    features = card_feature_table(t)
    return K.Consts(
        face=np.append(t.face, NO_FACE).astype(np.int16),
        fit_faces=(t.compat[:, :NUM_FACES].astype(np.int64) << np.arange(NUM_FACES, dtype=np.int64)).sum(axis=1),
        is_prize=np.ascontiguousarray(t.is_prize),
        function=np.ascontiguousarray(t.function),
        prize_value=np.ascontiguousarray(t.prize_value),
        trophies=np.ascontiguousarray(t.trophies),
        card_type=np.ascontiguousarray(t.card_type),
        type_total=np.ascontiguousarray(t.type_total),
        features=features,
        trophy_value_index=np.searchsorted(t.trophy_values, np.arange(int(t.trophies.max()) + 1)).astype(np.int16),
        **_slot_and_type_tables(t, features),
        num_players=int(rules.num_players),
        allow_keep=bool(rules.allow_keep),
        reshuffle_discards=bool(rules.reshuffle_discards),
        max_turns=int(rules.max_turns),
        reward_mode=_REWARD_CODES[rules.reward],
        perfect_memory=rules.memory == "perfect",
        obs_size=int(layout.size),
        off_phase=off["phase"], off_acting=off["acting_seat"], off_pending_card=off["pending_card"],
        off_pending_slot=off["pending_slot"], off_pile_tops=off["pile_tops"], off_layouts=off["layouts"],
        off_table_counts=off["table_counts"], off_players=off["players"],
        off_own_trophy_points=off["own_trophy_points"], off_unknown_cards=off["unknown_cards"],
        off_own_trophies=off["own_trophies"], off_set_aside_cards=off["set_aside_cards"],
        off_covered_cards=off["covered_cards"], off_earlier_pool=off["earlier_pool"],
        off_earlier_pool_cards=off["earlier_pool_cards"],
    )


class KeineAhnungCore(CompiledCore):
    """B Keine Ahnung games as arrays (see the module docstring for every field). Argument checks,
    seeding, ``step``, ``reset_games`` and ``observe`` come from :class:`~keine_ahnung_env.engine.CompiledCore`;
    this class holds the arrays and runs the Keine Ahnung kernels."""

    def _allocate(self, B: int, rules: Rules) -> None:
        self.rules = rules
        self.tables = t = rules.tables()
        self.num_envs = B
        self.num_players = P = rules.num_players
        N, T = t.num_cards, t.num_trophies
        self.pile_capacity = max(1, int((~t.is_prize).sum()))  # every pile holds a number card
        self.obs_layout = ObservationLayout.for_tables(P, t)
        self._k = _consts(rules, self.obs_layout)
        self._all_active = np.ones(B, bool)
        self.draw_cards = np.zeros((B, N), np.int16)
        self.draw_pos = np.zeros(B, np.int16)
        self.draw_len = np.zeros(B, np.int16)
        self.card_loc = np.zeros((B, N), np.int8)
        self.card_where = np.zeros((B, N), np.int8)
        self.card_known = np.zeros((B, N), bool)
        self.layout = np.full((B, P, SLOTS), -1, np.int16)
        self.pile_top = np.full((B, self.pile_capacity), -1, np.int16)
        self.pile_face = np.full((B, self.pile_capacity), NO_FACE, np.int16)
        self.pile_count = np.zeros(B, np.int16)
        self.top_count = np.zeros((B, NUM_FACES), np.int16)
        self.trophy_order = np.zeros((B, T), np.int16)
        self.trophy_owner = np.full((B, T), -1, np.int8)
        self.trophy_pos = np.zeros(B, np.int16)
        self.trophy_count = np.zeros((B, P), np.int16)
        self.trophy_points = np.zeros((B, P), np.int16)
        self.prize_count = np.zeros((B, P), np.int16)
        self.prize_points = np.zeros((B, P), np.int16)
        self.current = np.zeros(B, np.int8)
        self.phase = np.full(B, Phase.OVER, np.int8)
        self.pending = np.full(B, -1, np.int16)
        self.pending_slot = np.full(B, -1, np.int8)
        self.clear_pending = np.zeros(B, bool)
        self.turn = np.zeros(B, np.int32)
        self.terminated = np.zeros(B, bool)
        self.truncated = np.zeros(B, bool)
        self.rewards = np.zeros((B, P), np.float32)
        self.legal_mask = np.zeros((B, NUM_ACTIONS), bool)
        self.card_epoch = np.zeros((B, N), np.int32)
        self.reshuffles = np.zeros(B, np.int32)
        self.rng_state = np.zeros((B, 4), np.uint64)

    # ------------------------------------------------------------ kernels

    kernels = K

    def action_label(self, action: int) -> str:
        return action_name(action)

    def load(self, b: int, *, layouts, piles=(), draw=(), set_aside=(), prizes=None, trophies=None,
             won_trophies=(), current: int = 0, known=(), start_turn: bool = True) -> None:
        """Puts game ``b`` in an exact position (scripted deals, tests, research). Card ids throughout.

        Args:
          layouts: per seat, six card ids or -1 (empty slot).
          piles: discard piles, oldest first, each listed bottom to top.
          draw: the top of the draw pile, top first; every card not placed anywhere else follows
            in ascending id order, so all cards stay accounted for.
          set_aside: cards set aside (face up) for the next reshuffle.
          prizes: per seat, consolation-prize cards already won.
          trophies: trophy values in pile order, top first (default: the deck's list).
          won_trophies: seats that already won the first trophies of that pile, in order.
          current: the seat whose turn it is.
          known: face-down layout cards that were revealed before.
          start_turn: resolve the turn's draw-pile card now (True) or leave ``current`` at its
            main decision with no card drawn yet (False).
        """
        t, P = self.tables, self.num_players
        N = t.num_cards
        layouts = np.asarray(layouts, np.int64).reshape(P, SLOTS)
        prizes = prizes if prizes is not None else [[] for _ in range(P)]
        placed = [c for c in layouts.reshape(-1) if c >= 0] + [c for pile in piles for c in pile] + list(draw) \
            + list(set_aside) + [c for row in prizes for c in row]
        if len(set(placed)) != len(placed) or any(not 0 <= c < N for c in placed):
            raise ValueError("load: every card id must be in range and appear at most once")
        if any(t.is_prize[c] for pile in piles for c in pile):
            raise ValueError("load: consolation prizes cannot lie on discard piles")
        if len(piles) > self.pile_capacity:
            raise ValueError(f"load: {len(piles)} piles; allowed: at most {self.pile_capacity}")
        rest = sorted(set(range(N)) - set(placed))
        order = list(draw) + rest
        self.draw_cards[b] = 0
        self.draw_cards[b, : len(order)] = order
        self.draw_pos[b], self.draw_len[b] = 0, len(order)
        self.card_loc[b], self.card_where[b], self.card_known[b] = LOC_DRAW, 0, False
        self.card_epoch[b], self.reshuffles[b] = 0, 0  # every card from one shuffle: the loaded position's
        self.layout[b] = layouts
        for seat in range(P):
            for card in layouts[seat]:
                if card >= 0:
                    self.card_loc[b, card], self.card_where[b, card] = LOC_LAYOUT, seat
        self.pile_top[b], self.pile_face[b], self.top_count[b] = -1, NO_FACE, 0
        for k, pile in enumerate(piles):
            for card in pile:
                self.card_loc[b, card], self.card_where[b, card], self.card_known[b, card] = LOC_PILE, k, True
            self.pile_top[b, k] = pile[-1]
            self.pile_face[b, k] = t.face[pile[-1]]
            self.top_count[b, t.face[pile[-1]]] += 1
        self.pile_count[b] = len(piles)
        for card in set_aside:
            self.card_loc[b, card], self.card_known[b, card] = LOC_ASIDE, True
        self.prize_count[b], self.prize_points[b] = 0, 0
        for seat, row in enumerate(prizes):
            for card in row:
                self.card_loc[b, card], self.card_where[b, card], self.card_known[b, card] = LOC_PRIZE, seat, True
                self.prize_count[b, seat] += 1
                self.prize_points[b, seat] += t.prize_value[card]
        for card in known:
            self.card_known[b, card] = True
        self.trophy_order[b] = t.trophies if trophies is None else trophies
        self.trophy_owner[b] = -1
        self.trophy_count[b], self.trophy_points[b] = 0, 0
        for pos, seat in enumerate(won_trophies):
            self.trophy_owner[b, pos] = seat
            self.trophy_count[b, seat] += 1
            self.trophy_points[b, seat] += self.trophy_order[b, pos]
        self.trophy_pos[b] = len(won_trophies)
        self.current[b], self.phase[b] = current, Phase.MAIN
        self.pending[b], self.pending_slot[b], self.clear_pending[b] = -1, -1, False
        self.turn[b] = 0
        self.terminated[b] = self.truncated[b] = False
        self.rewards[b] = 0
        K.advance_kernel(self._state(), self._k, np.array([b], np.intp), K.DRAW if start_turn else K.DECIDE)

    # ------------------------------------------------------------ queries

    @property
    def scores(self) -> np.ndarray:
        """[B, P] int: trophy points + prize points."""
        return self.trophy_points.astype(np.int32) + self.prize_points

    @property
    def holdings(self) -> np.ndarray:
        """[B, P] int: trophies + prizes held (the tie-break)."""
        return self.trophy_count.astype(np.int32) + self.prize_count

    @classmethod
    def from_state_arrays(cls, rules: Rules, arrays: dict[str, np.ndarray], seeds: Sequence[int],
                          rng_state: np.ndarray | None = None) -> "KeineAhnungCore":
        """A core holding the given positions (arrays as :meth:`state_arrays` returns them, possibly
        edited); game i draws from a stream seeded by ``np.random.SeedSequence(seeds[i])``, or, given
        ``rng_state`` ([len(seeds), 4] uint64), from that stream state. Nothing is dealt."""
        return cls._from_arrays(rules, arrays, seeds, rng_state)

    def snapshot(self, b: int) -> dict:
        """Game b's state in the canonical form of ``ReferenceGame.snapshot``."""
        P = self.num_players
        loc, where = self.card_loc[b], self.card_where[b]
        piles = []
        for k in range(int(self.pile_count[b])):
            cards = np.flatnonzero((loc == LOC_PILE) & (where == k)).tolist()
            top = int(self.pile_top[b, k])
            cards.remove(top)
            piles.append(sorted(cards) + [top])
        owners = self.trophy_owner[b]
        return {
            "draw_pile": self.draw_cards[b, self.draw_pos[b] : self.draw_len[b]].tolist(),
            "trophy_pile": self.trophy_order[b, self.trophy_pos[b] :].tolist(),
            "set_aside": np.flatnonzero(loc == LOC_ASIDE).tolist(),
            "piles": piles,
            "layout": self.layout[b].tolist(),
            "known": np.flatnonzero(self.card_known[b]).tolist(),
            "trophies": [self.trophy_order[b][owners == p].tolist() for p in range(P)],
            "prizes": [np.flatnonzero((loc == LOC_PRIZE) & (where == p)).tolist() for p in range(P)],
            "current": int(self.current[b]),
            "turn": int(self.turn[b]),
            "phase": int(self.phase[b]),
            "pending": int(self.pending[b]),
            "pending_slot": int(self.pending_slot[b]),
            "terminated": bool(self.terminated[b]),
            "truncated": bool(self.truncated[b]),
            "scores": self.scores[b].tolist(),
        }
