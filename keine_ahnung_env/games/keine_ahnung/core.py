"""The batched NumPy rules engine of Keine Ahnung: B games stepped at once.

The core knows seats (0..P-1), not agent names. All state lives in one :class:`KeineAhnungCore`
object as arrays with a leading batch axis; :meth:`KeineAhnungCore.step` applies one action per game
(the decision of the seat to act) and resolves everything that is not a decision: the turn's
draw-pile card, automatic placements, extra functions and their chains, consolation prizes,
clearing, refills, reshuffles and the end of the game. The rules are those of ``reference.py``
(the readable scalar engine), which consumes randomness in exactly the same order; ``RULES.md``
states them and the choices made where the rulebook is silent.

State arrays (B games, P players, N cards, K pile capacity, T trophies):

| name          | shape    | dtype | meaning                                                        |
|---------------|----------|-------|----------------------------------------------------------------|
| draw_cards    | [B, N]   | int16 | draw pile card ids; the top is ``draw_cards[b, draw_pos[b]]``  |
| draw_pos      | [B]      | int16 | index of the top draw-pile card                                |
| draw_len      | [B]      | int16 | the pile is empty when ``draw_pos == draw_len``                |
| card_loc      | [B, N]   | int8  | LOC_* code: where each card is                                 |
| card_where    | [B, N]   | int8  | pile index (LOC_PILE) or seat (LOC_LAYOUT, LOC_PRIZE)          |
| card_known    | [B, N]   | bool  | revealed to the table and not shuffled into the draw pile since|
| layout        | [B, P, 6]| int16 | card id in each layout slot, -1 = empty                        |
| pile_top      | [B, K]   | int16 | top card of each discard pile (oldest first), -1 = no pile     |
| pile_face     | [B, K]   | int16 | face of each pile top, 36 = no pile                            |
| pile_count    | [B]      | int16 | number of discard piles                                        |
| top_count     | [B, 36]  | int16 | number of piles whose top shows each face                      |
| trophy_order  | [B, T]   | int16 | trophy values in pile order (top first)                        |
| trophy_owner  | [B, T]   | int8  | seat that won each trophy, -1 = still in the pile              |
| trophy_pos    | [B]      | int16 | trophies won so far (index of the top trophy)                  |
| trophy_count  | [B, P]   | int16 | trophies won per seat                                          |
| trophy_points | [B, P]   | int16 | trophy points per seat                                         |
| prize_count   | [B, P]   | int16 | consolation prizes per seat                                    |
| prize_points  | [B, P]   | int16 | consolation-prize points per seat                              |
| current       | [B]      | int8  | seat to act                                                    |
| phase         | [B]      | int8  | :class:`Phase` of the decision pending                         |
| pending       | [B]      | int16 | card awaiting a pile choice, -1 = none                         |
| pending_slot  | [B]      | int8  | its layout slot (PLACE_REVEALED), -1 = from the draw pile       |
| clear_pending | [B]      | bool  | the seat to act has emptied its layout this turn               |
| turn          | [B]      | int32 | turns completed                                                |
| terminated    | [B]      | bool  | the last trophy has been won                                   |
| truncated     | [B]      | bool  | ``max_turns`` turns were played first                          |
| rewards       | [B, P]   | float32 | rewards of the last step                                    |
| legal_mask    | [B, A]   | bool  | legal actions of the seat to act (all False when over)         |

Randomness: one ``numpy.random.Generator`` per game (``rngs[b]``), used only when a game is dealt
and when its draw pile is reshuffled, so game b's course depends on its own seed alone.

How a step is computed (speed notes; the behaviour is that of ``reference.py``, bit for bit):

* Every game's course is sequential, but games are independent, so a step moves the games through
  work lists of flow codes (draw a card, end of turn) in rounds; each round treats all games waiting
  on a code with a few whole-array operations on flat indices (``game * N + card``, never a 2-D fancy
  index). Multi-card draws (refills) take a run of the draw pile in one gather when it holds enough.
* When few games are left in a round (or a step moves few games, as at batch 1), they are resolved
  one by one by a scalar path (``_s_*`` methods, plain Python on the same arrays): below a handful
  of games that is cheaper than a round of array calls.
* Three private caches of derived state make the common questions one gather each: ``_top_bits``
  [B] int64, the set of pile-top faces (so "which piles does this card fit" is an AND with the
  card's fit set and a popcount); ``_occ`` [B * P] uint8, each layout's occupied slots as 6 bits;
  ``_face_pile`` [B, 37] int16, the oldest pile showing each face. They are rebuilt whenever
  ``top_count``, ``layout`` or ``pile_face`` is replaced by another array object (state copied in
  from outside). Code that writes into those three arrays in place, outside the core's methods,
  must call ``_rebuild_caches()`` afterwards (or set the position with ``load``).
* Only the per-game generator calls (deal, reshuffle) loop over games in Python, and only over the
  games that really deal or reshuffle.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .actions import ACTION_CALL, ACTION_KEEP, ACTION_PLACE_BASE, NUM_ACTIONS, Phase, action_name
from .config import CALL_MAX_CARDS, REFILL_FUNCTION_TARGET, SLOTS, Rules
from .deck import FUNCTION_REFILL, FUNCTION_REMOVE, FUNCTION_REVEAL, NO_FACE, NUM_FACES
from .observation import ObservationLayout, card_feature_table
from .scoring import final_rewards

LOC_DRAW, LOC_LAYOUT, LOC_PILE, LOC_ASIDE, LOC_PRIZE, LOC_PENDING = range(6)
"""Card locations: draw pile, a layout slot, a discard pile, set aside (face up, for the next
reshuffle), won as a consolation prize, revealed from the draw pile and awaiting a pile choice."""

INITIAL_PILE_CAPACITY = 16

# Automatic-flow codes: what a game does next inside step().
_DECIDE, _DRAW, _AFTER_CHAIN, _END_TURN = range(4)

# Phases as plain ints (enum attribute access is slow in hot code).
_MAIN, _PLACE_DRAWN, _PLACE_REVEALED, _OVER = (int(p) for p in (Phase.MAIN, Phase.PLACE_DRAWN,
                                                                   Phase.PLACE_REVEALED, Phase.OVER))
_FULL = (1 << SLOTS) - 1  # every layout slot occupied
_NO_ROW = 1 << SLOTS  # row of _main_rows that is all False

_STATE_ARRAYS = (
    "draw_cards", "draw_pos", "draw_len", "card_loc", "card_where", "card_known", "layout", "pile_top",
    "pile_face", "pile_count", "top_count", "trophy_order", "trophy_owner", "trophy_pos", "trophy_count",
    "trophy_points", "prize_count", "prize_points", "current", "phase", "pending", "pending_slot",
    "clear_pending", "turn", "terminated", "truncated", "rewards", "legal_mask")


def game_seed_sequences(seed: int | None, indices: Sequence[int]) -> list[np.random.SeedSequence]:
    """Seed sequence of each game index: independent of the batch size it is used in."""
    root = np.random.SeedSequence(seed)
    return [np.random.SeedSequence(root.entropy, spawn_key=(int(i),)) for i in indices]


def _flatnonzero(mask: np.ndarray) -> np.ndarray:
    """Indices of the True entries of a 1-D bool array (``np.flatnonzero`` without its wrapper)."""
    return mask.nonzero()[0]


def _cat(parts: list[np.ndarray]) -> np.ndarray:
    if not parts:
        return np.zeros(0, np.intp)
    return parts[0] if len(parts) == 1 else np.concatenate(parts)


class KeineAhnungCore:
    """B Keine Ahnung games as arrays (see the module docstring for every field)."""

    _SCALAR_MAX = 16
    """Rounds (and steps) that move at most this many games resolve them one by one (see the module
    docstring). Tests set it to 0 (never) or a huge number (always) to check both paths."""

    def __init__(self, num_envs: int, rules: Rules, seed: int | None = None):
        """Allocates and deals ``num_envs`` games; game i is seeded from ``(seed, i)``."""
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs={num_envs!r}; allowed: a positive integer")
        self.rules = rules
        self.tables = t = rules.tables()
        self.num_envs = B = int(num_envs)
        self.num_players = P = rules.num_players
        N, T = t.num_cards, t.num_trophies
        self._arange = np.arange(B)
        # Lookup tables extended by one entry so that card id -1 ("none") indexes a harmless row.
        self._face_of = np.append(t.face, NO_FACE).astype(np.intp)
        self._is_prize = np.append(t.is_prize, False)
        self._function_of = np.append(t.function, 0)
        self._prize_value = np.append(t.prize_value, 0)
        self._fits = np.ascontiguousarray(t.compat[:, :NUM_FACES])  # [37, 36]
        self._card_features = card_feature_table(t)
        self.obs_layout = ObservationLayout.make(P, t.num_types)
        self._init_tables()

        self.draw_cards = np.zeros((B, N), np.int16)
        self.draw_pos = np.zeros(B, np.int16)
        self.draw_len = np.zeros(B, np.int16)
        self.card_loc = np.zeros((B, N), np.int8)
        self.card_where = np.zeros((B, N), np.int8)
        self.card_known = np.zeros((B, N), bool)
        self.layout = np.full((B, P, SLOTS), -1, np.int16)
        self.pile_top = np.full((B, INITIAL_PILE_CAPACITY), -1, np.int16)
        self.pile_face = np.full((B, INITIAL_PILE_CAPACITY), NO_FACE, np.int16)
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
        self._ctl = np.zeros(B, np.int8)  # kept for state copies (risk.py); always _DECIDE between calls
        self._wl = None  # work lists during a step
        self._ended = None  # games ended by a trophy during a step
        self._cache_src = None  # (top_count, layout, pile_face) the private caches were built from
        self._caches()
        self.rngs: list[np.random.Generator] = []
        self.seed(seed)
        self.reset_games(self._arange)

    def _init_tables(self) -> None:
        """Lookup tables of the fast paths (constants of the deck and player count)."""
        t, P = self.tables, self.num_players
        N = t.num_cards
        face_bit = np.zeros(NUM_FACES + 1, np.int64)
        face_bit[:NUM_FACES] = np.int64(1) << np.arange(NUM_FACES, dtype=np.int64)
        fit_bits = (self._fits.astype(np.int64) * face_bit[:NUM_FACES]).sum(axis=1)  # [37]
        self._face_bit = face_bit
        self._fitbits_of = fit_bits[self._face_of]  # [N + 1]: fit set of each card (0: prize / none)
        self._face_shift = np.arange(NUM_FACES, dtype=np.int64)
        # Plain-Python copies for the scalar path.
        self._face_l = self._face_of.tolist()
        self._fitbits_l = self._fitbits_of.tolist()
        self._is_prize_l = self._is_prize.tolist()
        self._function_l = self._function_of.tolist()
        self._prize_value_l = self._prize_value.tolist()
        self._trophy_total = t.num_trophies
        # Tables by 6-bit layout occupancy (bit s = slot s holds a card).
        occ = np.arange(2 ** SLOTS)
        full = ((occ[:, None] >> np.arange(SLOTS)) & 1).astype(bool)  # [64, 6]
        self._slot_bit = (np.int64(1) << np.arange(SLOTS, dtype=np.int64)).astype(np.uint8)
        self._empty_of = ~full
        self._n_empty = (~full).sum(axis=1)  # [64] intp
        self._empty_rank = np.cumsum(~full, axis=1).astype(np.intp)  # [64, 6]: empty slots up to s
        # Legal-mask rows of a MAIN decision by occupancy; row 64 is all False (a placing game
        # starts from it, a finished game keeps it).
        rows = np.zeros((2 ** SLOTS + 1, NUM_ACTIONS), bool)
        rows[: 2 ** SLOTS, :SLOTS] = full
        rows[: 2 ** SLOTS, ACTION_CALL] = full.sum(axis=1) <= CALL_MAX_CARDS
        self._main_rows = rows
        self._bits6 = full  # [64, 6]: the 6 bools of a 6-bit group
        self._six_shift = np.arange(0, NUM_FACES, SLOTS, dtype=np.int64)  # one 6-bit group per colour
        # Observation tables.
        L = self.obs_layout
        self._obs_off = {name: L.slice(name).start for name, _ in L.sections}
        self._obs_size = L.size
        feat = self._card_features[:N]
        slot_table = np.zeros((N + 2, feat.shape[1] + 3), np.float32)
        slot_table[:N, 2] = 1.0
        slot_table[:N, 3:] = feat
        slot_table[N, 1] = 1.0  # face down, unknown
        slot_table[N + 1, 0] = 1.0  # empty slot
        self._slot_table = slot_table
        self._rel_seats = np.arange(P)
        # Cards grouped by type (for the unknown-card counts): a column order and segment starts.
        order = np.argsort(t.card_type, kind="stable")
        grouped = t.card_type[order]
        self._type_order = None if np.array_equal(order, np.arange(N)) else order
        self._type_starts = _flatnonzero(np.r_[True, grouped[1:] != grouped[:-1]])
        assert self._type_starts.size == t.num_types

    # ------------------------------------------------------------ seeding

    def seed(self, seed: int | None, indices: Sequence[int] | None = None, game_ids: Sequence[int] | None = None) -> None:
        """Re-seeds games (all by default): row ``indices[k]`` takes the generator of game ``game_ids[k]``
        (default ``indices[k]``) of a batch seeded with ``seed``, i.e. ``(seed, game_ids[k])``."""
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
            raise ValueError(f"seed={seed!r}; allowed: None or a non-negative integer")
        indices = range(self.num_envs) if indices is None else [int(i) for i in indices]
        ids = indices if game_ids is None else [int(i) for i in game_ids]
        if len(ids) != len(indices):
            raise ValueError(f"game_ids has {len(ids)} entries for {len(indices)} rows; allowed: one per row")
        sequences = game_seed_sequences(seed, ids)
        if not self.rngs:
            self.rngs = [np.random.Generator(np.random.PCG64(s)) for s in sequences]
        else:
            for i, s in zip(indices, sequences):
                self.rngs[i] = np.random.Generator(np.random.PCG64(s))

    # ------------------------------------------------------- private caches

    def _caches(self) -> None:
        """Rebuilds the private caches if ``top_count``, ``layout`` or ``pile_face`` was replaced by
        another array (state copied in from outside, e.g. by ``risk.py``)."""
        src = self._cache_src
        if src is not None and src[0] is self.top_count and src[1] is self.layout and src[2] is self.pile_face:
            return
        B, P = self.num_envs, self.num_players
        self._top_bits = ((np.asarray(self.top_count) > 0).astype(np.int64) << self._face_shift).sum(axis=1)
        occupied = (np.asarray(self.layout) >= 0).astype(np.uint8) << np.arange(SLOTS, dtype=np.uint8)
        self._occ = occupied.sum(axis=2, dtype=np.uint8).reshape(B * P)
        face_pile = np.full((B, NUM_FACES + 1), -1, np.int16)
        count = np.asarray(self.pile_count)
        faces = np.asarray(self.pile_face)
        for k in reversed(range(faces.shape[1])):
            live = _flatnonzero(k < count)
            face_pile[live, faces[live, k]] = k
        face_pile[:, NO_FACE] = -1
        self._face_pile = face_pile
        self._cache_src = (self.top_count, self.layout, self.pile_face)

    def _rebuild_caches(self) -> None:
        """Recomputes the private caches from the state arrays (after writing into them in place)."""
        self._cache_src = None
        self._caches()

    def _cache_game(self, b: int) -> None:
        """Recomputes the private caches of game b from its state (after ``load``)."""
        P = self.num_players
        self._top_bits[b] = int((self.top_count[b] > 0).astype(np.int64) @ (np.int64(1) << self._face_shift))
        for seat in range(P):
            self._occ[b * P + seat] = sum(1 << s for s, c in enumerate(self.layout[b, seat].tolist()) if c >= 0)
        self._face_pile[b] = -1
        for k in reversed(range(int(self.pile_count[b]))):
            self._face_pile[b, self.pile_face[b, k]] = k

    def _sync(self) -> None:
        """Before a batched update: state arrays replaced from outside (e.g. by ``risk.py``) are made
        C-contiguous, so that ``arr.reshape(-1)`` is a view the batched code can write through."""
        for name in _STATE_ARRAYS:
            if not getattr(self, name).flags.c_contiguous:
                setattr(self, name, np.ascontiguousarray(getattr(self, name)))
        self._caches()

    # -------------------------------------------------------------- reset

    def reset_games(self, games: np.ndarray) -> None:
        """Deals new games at the given indices (each from its own generator) and resolves the
        first player's draw-pile card."""
        g = np.asarray(games, np.intp).reshape(-1)
        if g.size == 0:
            return
        t, P = self.tables, self.num_players
        N, T = t.num_cards, t.num_trophies
        orders = np.empty((g.size, N), np.int16)
        trophy_perm = np.empty((g.size, T), np.intp)
        rngs = self.rngs
        for row, b in enumerate(g.tolist()):
            orders[row] = rngs[b].permutation(N)
            trophy_perm[row] = rngs[b].permutation(T)
        dealt = SLOTS * P
        self._sync()
        self.draw_cards[g] = orders
        self.draw_pos[g] = dealt
        self.draw_len[g] = N
        self.card_loc[g] = LOC_DRAW
        self.card_where[g] = 0
        self.card_known[g] = False
        self.layout[g] = orders[:, :dealt].reshape(-1, P, SLOTS)
        ci = (g[:, None] * N + orders[:, :dealt]).reshape(-1)
        self.card_loc.reshape(-1)[ci] = LOC_LAYOUT
        self.card_where.reshape(-1)[ci] = np.tile(np.repeat(np.arange(P, dtype=np.int8), SLOTS), g.size)
        self.pile_top[g] = -1
        self.pile_face[g] = NO_FACE
        self.pile_count[g] = 0
        self.top_count[g] = 0
        self._top_bits[g] = 0
        self._occ.reshape(-1, P)[g] = _FULL
        self._face_pile[g] = -1
        self.trophy_order[g] = t.trophies[trophy_perm]
        self.trophy_owner[g] = -1
        self.trophy_pos[g] = 0
        for arr in (self.trophy_count, self.trophy_points, self.prize_count, self.prize_points, self.rewards):
            arr[g] = 0
        self.current[g] = 0
        self.phase[g] = _MAIN
        self.pending[g] = -1
        self.pending_slot[g] = -1
        self.clear_pending[g] = False
        self.turn[g] = 0
        self.terminated[g] = False
        self.truncated[g] = False
        self._resolve(draw=[g])
        self._update_mask(g)

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
        self._sync()
        rest = sorted(set(range(N)) - set(placed))
        order = list(draw) + rest
        self.draw_cards[b] = 0
        self.draw_cards[b, : len(order)] = order
        self.draw_pos[b], self.draw_len[b] = 0, len(order)
        self.card_loc[b], self.card_where[b], self.card_known[b] = LOC_DRAW, 0, False
        self.layout[b] = layouts
        for seat in range(P):
            for card in layouts[seat]:
                if card >= 0:
                    self.card_loc[b, card], self.card_where[b, card] = LOC_LAYOUT, seat
        self._ensure_pile_capacity(len(piles))
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
        self.current[b], self.phase[b] = current, _MAIN
        self.pending[b], self.pending_slot[b], self.clear_pending[b] = -1, -1, False
        self.turn[b] = 0
        self.terminated[b] = self.truncated[b] = False
        self.rewards[b] = 0
        self._cache_game(int(b))
        if start_turn:
            self._s_advance(int(b), _DRAW)
        self._update_mask(np.array([b], np.intp))

    # --------------------------------------------------------------- step

    def check_actions(self, actions, active: np.ndarray | None = None) -> np.ndarray:
        """Validates one action per game; returns them as intp. Raises ValueError, changing nothing.

        Games that are over (or not ``active``) ignore their entry (any integer is accepted there).
        """
        arr = np.asarray(actions)
        if arr.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), one per game; got shape {arr.shape}")
        if arr.dtype.kind not in "iu":
            raise ValueError(f"actions must be integers in 0..{NUM_ACTIONS - 1}; got dtype {arr.dtype}")
        if arr.dtype != np.intp:
            arr = arr.astype(np.intp)
        phase = self.phase
        if self.num_envs <= self._SCALAR_MAX:
            # The same checks, element by element (cheaper than array calls for a few games).
            plist = phase.tolist()
            if all(p == _OVER for p in plist):
                raise ValueError("every game is over; call reset() (or use autoreset) before stepping again")
            alist = arr.tolist()
            act = [True] * len(plist) if active is None else np.asarray(active, bool).tolist()
            mask = self.legal_mask
            bad = [b for b, (p, a, on) in enumerate(zip(plist, alist, act)) if on and p != _OVER
                   and not (0 <= a < NUM_ACTIONS and mask[b, a])]
            if bad:
                out_of_range = [b for b in bad if not 0 <= alist[b] < NUM_ACTIONS]
                if out_of_range:
                    b = out_of_range[0]
                    raise ValueError(
                        f"action {alist[b]} for game {b} is out of range; allowed: 0..{NUM_ACTIONS - 1}; "
                        f"legal there: {_flatnonzero(mask[b]).tolist()}")
                b = bad[0]
                raise ValueError(
                    f"illegal action {alist[b]} ({action_name(alist[b])}) for game {b} "
                    f"({len(bad)} illegal in all); legal there: {_flatnonzero(mask[b]).tolist()}")
            return arr
        live = phase != _OVER
        if not live.any():
            raise ValueError("every game is over; call reset() (or use autoreset) before stepping again")
        if active is not None:
            live = live & active
        out_of_range = (arr < 0) | (arr >= NUM_ACTIONS)
        if out_of_range.any():
            out_of_range &= live
            if out_of_range.any():
                b = int(_flatnonzero(out_of_range)[0])
                raise ValueError(
                    f"action {int(arr[b])} for game {b} is out of range; allowed: 0..{NUM_ACTIONS - 1}; "
                    f"legal there: {_flatnonzero(self.legal_mask[b]).tolist()}"
                )
            clipped = np.clip(arr, 0, NUM_ACTIONS - 1)
        else:
            clipped = arr
        ok = self.legal_mask.reshape(-1).take(self._arange * NUM_ACTIONS + clipped)
        if not ok.all():
            illegal = live & ~ok
            if illegal.any():
                bad = _flatnonzero(illegal)
                b = int(bad[0])
                raise ValueError(
                    f"illegal action {int(arr[b])} ({action_name(arr[b])}) for game {b} "
                    f"({bad.size} illegal in all); legal there: {_flatnonzero(self.legal_mask[b]).tolist()}"
                )
        return arr

    def step(self, actions, active: np.ndarray | None = None) -> None:
        """Applies one action per game and resolves the games up to their next decision.

        Games already over, and games where ``active`` ([B] bool, default all) is False, are left
        untouched (their rewards read 0). Raises ValueError (and changes nothing) when an action
        has the wrong shape or type, is out of range or illegal.
        """
        if active is not None:
            active = np.asarray(active, bool)
            if active.shape != (self.num_envs,):
                raise ValueError(f"active must have shape ({self.num_envs},); got {active.shape}")
        actions = self.check_actions(actions, active)
        self.rewards.fill(0.0)
        phase = self.phase
        self._caches()
        if self.num_envs <= self._SCALAR_MAX:
            act = None if active is None else active.tolist()
            for b, (p, a) in enumerate(zip(phase.tolist(), actions.tolist())):
                if p != _OVER and (act is None or act[b]):
                    self._s_step(b, a)
                    self._s_mask(b)
            return
        live = phase != _OVER
        if active is not None:
            live &= active
        L = _flatnonzero(live)
        if L.size <= self._SCALAR_MAX:
            for b, a in zip(L.tolist(), actions[L].tolist()):
                self._s_step(b, a)
                self._s_mask(b)
            return
        self._sync()
        self._b_step(L, actions[L] if L.size < self.num_envs else actions)
        self._update_mask(L)

    # ================================================= batched path (B games)

    def _b_step(self, g: np.ndarray, a: np.ndarray) -> None:
        """The decisions of games g (actions a, legal), then everything automatic up to the next decisions."""
        ph = self.phase[g]
        main = ph == _MAIN
        self._wl = ([], [], [])  # games waiting on: _DRAW, _END_TURN, a refill then _END_TURN
        self._ended = []  # games that ended by a trophy: rewards computed once at the end
        plays = []  # (games, layout rows, slots, faces, cards): layout cards to play
        places = []  # (games, cards, faces): cards from the draw pile to place
        if main.all():
            gm, am = g, a
        else:
            k = _flatnonzero(main)
            gm, am = g[k], a[k]
            k = _flatnonzero(~main)
            gp, ap, php = g[k], a[k], ph[k]
            keep = ap == ACTION_KEEP
            if keep.any():
                gk = gp[keep]
                self.pending[gk] = -1
                self.pending_slot[gk] = -1
                self._wl[1].append(gk)
                gp, ap, php = gp[~keep], ap[~keep], php[~keep]
            drawn = php == _PLACE_DRAWN
            if drawn.any():
                gd = gp[drawn]
                places.append((gd, self.pending[gd].astype(np.intp), ap[drawn] - ACTION_PLACE_BASE))
                self.pending[gd] = -1
            rv = ~drawn
            if rv.any():
                gr = gp[rv]
                rows = gr * self.num_players + self.current[gr]
                plays.append((gr, rows, self.pending_slot[gr].astype(np.intp), ap[rv] - ACTION_PLACE_BASE,
                              self.pending[gr].astype(np.intp)))
                self.pending[gr] = -1
                self.pending_slot[gr] = -1
        if gm.size:
            rev = am < ACTION_CALL
            if rev.all():
                self._b_reveal(gm, am, plays)
            else:
                self._b_reveal(gm[rev], am[rev], plays)
                self._b_call(gm[~rev])
        if plays:
            places.append(self._b_play(*(_cat([p[i] for p in plays]) for i in range(5))))
        if places:
            self._b_place(*(_cat([p[i] for p in places]) for i in range(3)))
        self._run()

    def _resolve(self, draw=(), end=()) -> None:
        """Resolves the given games from the given flow codes up to their next decisions."""
        self._wl = (list(draw), list(end), [])
        self._ended = []
        self._run()

    def _run(self) -> None:
        """The work-list loop. Each round ends the turn of every game waiting to (refilling layouts
        first where needed), then draws for every game waiting to draw (those just sent there
        included), so a typical turn change (end of turn, draw, place) is one round; rounds repeat
        until every game decides. After a card is placed the game decides again at once (or ends its
        turn if it cleared its layout): see ``_b_after``."""
        wl = self._wl
        draws, ends, fill_ends = wl
        limit = self._SCALAR_MAX
        while draws or ends or fill_ends:
            waiting = 0
            for part in wl:
                for x in part:
                    waiting += x.size
            if waiting <= limit:
                for games in fill_ends:
                    for b in games.tolist():
                        self._s_fill(b, int(self.current[b]))
                        self._s_advance(b, _END_TURN)
                for code, part in ((_DRAW, draws), (_END_TURN, ends)):
                    for games in part:
                        for b in games.tolist():
                            self._s_advance(b, code)
                break
            if ends or fill_ends:
                g, gf = _cat(ends), _cat(fill_ends)
                ends.clear()
                fill_ends.clear()
                if g.size or gf.size:
                    self._b_end_turn(g, gf)
            if draws:
                g = _cat(draws)
                draws.clear()
                if g.size:
                    self._b_draw_step(g)
        self._wl = None
        if self._ended:
            go = _cat(self._ended)
            scores = self.trophy_points[go].astype(np.int32) + self.prize_points[go]
            holdings = self.trophy_count[go].astype(np.int32) + self.prize_count[go]
            self.rewards[go] = final_rewards(scores, holdings, self.rules.reward)
        self._ended = None

    # ---------------------------------------------------------- decisions

    def _b_reveal(self, g: np.ndarray, slots: np.ndarray, plays: list) -> None:
        if g.size == 0:
            return
        N, P = self.tables.num_cards, self.num_players
        rows = g * P + self.current[g]
        li = rows * SLOTS + slots
        cards = self.layout.reshape(-1)[li].astype(np.intp)
        self.card_known.reshape(-1)[g * N + cards] = True
        ends = self._wl[1]
        prize = self._is_prize[cards]
        if prize.any():
            k = _flatnonzero(prize)
            gp, rp = g[k], rows[k]
            self.layout.reshape(-1)[li[k]] = -1
            occ = self._occ[rp] & ~self._slot_bit[slots[k]]
            self._occ[rp] = occ
            self._b_give_prizes(gp, cards[k], rp)
            self.clear_pending[gp] = occ == 0
            ends.append(gp)
            k = _flatnonzero(~prize)
            g, rows, slots, cards = g[k], rows[k], slots[k], cards[k]
        fit = self._fitbits_of[cards] & self._top_bits[g]
        n_fit = np.bitwise_count(fit)
        none = n_fit == 0
        if none.any():
            ends.append(g[none])  # back face down in its slot, now known
        if self.rules.allow_keep:
            choose = ~none
        else:
            k = _flatnonzero(n_fit == 1)
            if k.size:
                faces = np.bitwise_count(fit[k] - 1).astype(np.intp)
                plays.append((g[k], rows[k], slots[k], faces, cards[k]))
            choose = n_fit >= 2
        k = _flatnonzero(choose)
        if k.size:
            gc = g[k]
            self.pending[gc] = cards[k]
            self.pending_slot[gc] = slots[k]
            self.phase[gc] = _PLACE_REVEALED

    def _b_call(self, g: np.ndarray) -> None:
        """ "Nothing fits anymore!": reveal in slot order until a card fits or is a prize."""
        if g.size == 0:
            return
        N, P = self.tables.num_cards, self.num_players
        ri = g * P + self.current[g]
        rows = self.layout.reshape(-1, SLOTS).take(ri, axis=0)  # [n, 6] card ids
        has = rows >= 0
        prize = self._is_prize[rows]
        fits = (self._fitbits_of[rows] & self._top_bits[g][:, None]) != 0
        stop = prize | fits
        stopped = stop.any(axis=1)
        first = stop.argmax(axis=1)
        revealed = has & ((np.arange(SLOTS) <= first[:, None]) | ~stopped[:, None])
        i, s = np.nonzero(revealed)
        self.card_known.reshape(-1)[g[i] * N + rows[i, s]] = True
        won_prize = stopped & prize[np.arange(g.size), first]
        if won_prize.any():
            k = _flatnonzero(won_prize)
            rk, sk = ri[k], first[k]
            self.layout.reshape(-1)[rk * SLOTS + sk] = -1
            self._occ[rk] &= ~self._slot_bit[sk]
            self._b_give_prizes(g[k], rows[k, sk].astype(np.intp), rk)
        alive = g
        if not stopped.all():
            success = ~stopped
            over = self._b_win_trophies(g[success])
            if over.any():
                keep = np.ones(g.size, bool)
                keep[_flatnonzero(success)[over]] = False
                alive = g[keep]
        self._wl[2].append(alive)  # refill the layout, then end the turn

    def _b_play(self, g, rows, slots, faces, cards):
        """Takes each game's layout card (layout row ``rows`` = game * P + seat, slot ``slots``) to be
        placed on the pile showing ``faces``; returns ``(g, cards, faces)`` for ``_b_place``."""
        self.layout.reshape(-1)[rows * SLOTS + slots] = -1
        occ = self._occ[rows] & ~self._slot_bit[slots]
        self._occ[rows] = occ
        emptied = occ == 0
        if emptied.any():
            self.clear_pending[g[emptied]] = True
        return g, cards, faces

    # ---------------------------------------------------------- placement

    def _b_place(self, g: np.ndarray, cards: np.ndarray, faces: np.ndarray) -> None:
        """Puts card i on the oldest pile of game g[i] whose top shows faces[i] (-1: a new pile),
        resolves its extra function and queues each game's next flow code. Cards and faces: intp."""
        N, F = self.tables.num_cards, NUM_FACES + 1
        tb = self._top_bits
        tc = self.top_count.reshape(-1)
        fp = self._face_pile.reshape(-1)
        card_faces = self._face_of[cards]
        new = faces < 0
        if new.any():
            piles = np.empty(g.size, np.intp)
            k = _flatnonzero(new)
            gn = g[k]
            count = self.pile_count[gn]
            self._ensure_pile_capacity(int(count.max()) + 1)
            piles[k] = count
            self.pile_count[gn] = count + 1
            old = _flatnonzero(~new)
            piles[old] = fp[g[old] * F + faces[old]]
        else:
            old = None
            piles = fp[g * F + faces].astype(np.intp)
        K = self.pile_top.shape[1]
        pi = g * K + piles
        self.pile_top.reshape(-1)[pi] = cards
        self.pile_face.reshape(-1)[pi] = card_faces
        # The face that leaves an old pile (when the new top shows another face).
        moved = (faces >= 0) & (faces != card_faces)
        if moved.any():
            k = _flatnonzero(moved)
            gm, fm = g[k], faces[k]
            ti = gm * NUM_FACES + fm
            left = tc[ti] - 1
            tc[ti] = left
            gone = left == 0
            if gone.any():
                j = _flatnonzero(gone)
                tb[gm[j]] &= ~self._face_bit[fm[j]]
                fp[gm[j] * F + fm[j]] = -1
            if not gone.all():  # other piles still show that face: the oldest of them takes over
                j = _flatnonzero(~gone)
                gs, fs = gm[j], fm[j]
                rows = self.pile_face.take(gs, axis=0)
                fp[gs * F + fs] = (rows == fs.astype(np.int16)[:, None]).argmax(axis=1)
        gained = faces != card_faces  # the new top's face gains this pile
        k = _flatnonzero(gained) if not gained.all() else None
        gg, cg, pg = (g, card_faces, piles) if k is None else (g[k], card_faces[k], piles[k])
        ti = gg * NUM_FACES + cg
        tc[ti] += 1
        tb[gg] |= self._face_bit[cg]
        fi = gg * F + cg
        oldest = fp[fi]
        take = (oldest < 0) | (oldest > pg)
        fp[fi[take]] = pg[take]
        ci = g * N + cards
        self.card_loc.reshape(-1)[ci] = LOC_PILE
        self.card_where.reshape(-1)[ci] = piles
        function = self._function_of[cards]
        if not function.any():
            self._b_after(g)
            return
        reveal = function == FUNCTION_REVEAL
        if reveal.any():
            self._wl[0].append(g[reveal])
            self._b_after(g[~reveal])
        else:
            self._b_after(g)
        k = _flatnonzero(function == FUNCTION_REMOVE)
        if k.size:
            self._b_remove_other_piles(g[k], piles[k])
        k = _flatnonzero(function == FUNCTION_REFILL)
        if k.size:
            self._b_refill_opponents(g[k])

    def _ensure_pile_capacity(self, needed: int) -> None:
        """Grows the pile arrays when a game opens more piles than they hold: no cap on piles."""
        capacity = self.pile_top.shape[1]
        if needed <= capacity:
            return
        extra = max(needed, 2 * capacity) - capacity
        self.pile_top = np.concatenate([self.pile_top, np.full((self.num_envs, extra), -1, np.int16)], axis=1)
        self.pile_face = np.concatenate([self.pile_face, np.full((self.num_envs, extra), NO_FACE, np.int16)], axis=1)
        if self._cache_src is not None:
            self._cache_src = (self._cache_src[0], self._cache_src[1], self.pile_face)  # same values

    def _b_remove_other_piles(self, g: np.ndarray, kept: np.ndarray) -> None:
        loc = self.card_loc.take(g, axis=0)
        where = self.card_where.take(g, axis=0)
        in_pile = loc == LOC_PILE
        kept_pile = in_pile & (where == kept.astype(np.int8)[:, None])
        loc[in_pile & ~kept_pile] = LOC_ASIDE
        where[kept_pile] = 0
        self.card_loc[g] = loc
        self.card_where[g] = where
        ki = g * self.pile_top.shape[1] + kept
        top, face = self.pile_top.reshape(-1)[ki], self.pile_face.reshape(-1)[ki]
        self.pile_top[g] = -1
        self.pile_face[g] = NO_FACE
        self.pile_top[g, 0] = top
        self.pile_face[g, 0] = face
        self.pile_count[g] = 1
        self.top_count[g] = 0
        self.top_count.reshape(-1)[g * NUM_FACES + face] = 1
        self._top_bits[g] = self._face_bit[face]
        self._face_pile[g] = -1
        self._face_pile.reshape(-1)[g * (NUM_FACES + 1) + face] = 0

    def _b_refill_opponents(self, g: np.ndarray) -> None:
        """The "refill" function: each opponent, in seat order after the player, draws up to 3."""
        P = self.num_players
        seats = (self.current[g].astype(np.intp)[:, None] + np.arange(1, P)) % P  # [n, P-1]
        rows = (g[:, None] * P + seats).reshape(-1)
        occ = self._occ[rows]
        short = np.maximum(REFILL_FUNCTION_TARGET - SLOTS + self._n_empty[occ], 0)  # per (game, opponent)
        if not short.any():
            return
        # The first `short` empty slots of each opponent, in seat then slot order: the draw order.
        empty = self._empty_of.take(occ, axis=0)
        rank = self._empty_rank.take(occ, axis=0)
        r, s = np.nonzero(empty & (rank <= short[:, None]))
        short = short.reshape(g.size, P - 1)
        before = np.cumsum(short, axis=1) - short  # cards drawn for earlier opponents
        order = before.reshape(-1)[r] + rank[r, s] - 1  # the card's place in its game's draws
        self._draw_into(g, short.sum(axis=1), r // (P - 1), order, rows[r], s, seats.reshape(-1)[r])

    def _b_fill(self, g: np.ndarray, seats: np.ndarray) -> None:
        """Draws into every empty slot of the given seats' layouts, in slot order."""
        if g.size == 0:
            return
        rows = g * self.num_players + seats
        occ = self._occ[rows]
        i, s = np.nonzero(self._empty_of.take(occ, axis=0))
        if i.size == 0:
            return
        order = self._empty_rank[occ[i], s] - 1
        self._draw_into(g, self._n_empty[occ], i, order, rows[i], s, seats[i])

    def _draw_into(self, g, need, i, order, rows, slots, seats) -> None:
        """Game g[k] draws need[k] cards; its card number order[j] (in draw order) goes into layout
        row rows[j] (game * P + seat), slot slots[j], for the j with i[j] == k."""
        N = self.tables.num_cards
        pos = self.draw_pos[g].astype(np.intp)
        enough = need <= self.draw_len[g] - pos
        if enough.all():
            cards = self.draw_cards.reshape(-1)[g[i] * N + pos[i] + order]
            self.draw_pos[g] = pos + need
        else:  # some pile runs out on the way: draw those games' cards one run at a time
            cards = np.empty(i.size, np.int16)
            fast = enough[i]
            cards[fast] = self.draw_cards.reshape(-1)[g[i[fast]] * N + pos[i[fast]] + order[fast]]
            self.draw_pos[g[enough]] = pos[enough] + need[enough]
            slow = ~enough
            drawn = self._b_draw_many(g[slow], need[slow])  # grouped by game, in draw order
            first = np.cumsum(need[slow]) - need[slow]
            where = np.full(g.size, -1, np.intp)
            where[slow] = first
            k = ~fast
            cards[k] = drawn[where[i[k]] + order[k]]
            ok = cards >= 0
            if not ok.all():
                i, rows, slots, seats, cards = i[ok], rows[ok], slots[ok], seats[ok], cards[ok]
        self.layout.reshape(-1)[rows * SLOTS + slots] = cards
        np.bitwise_or.at(self._occ, rows, self._slot_bit[slots])
        ci = g[i] * N + cards
        self.card_loc.reshape(-1)[ci] = LOC_LAYOUT
        self.card_where.reshape(-1)[ci] = seats

    def _b_draw_many(self, g: np.ndarray, counts: np.ndarray) -> np.ndarray:
        """Draws counts[i] cards for game g[i], in order, reshuffling whenever a draw pile runs out.
        Returns the cards grouped by game (in g order), each group in draw order; -1 where nothing
        could be drawn (from then on every draw of that game fails, as nothing changes)."""
        N = self.tables.num_cards
        out = np.full(int(counts.sum()), -1, np.int16)
        start = np.cumsum(counts) - counts
        done = np.zeros(g.size, np.intp)
        idx = np.arange(g.size)
        want = counts
        first = True
        while True:
            gi = g[idx]
            pos = self.draw_pos[gi].astype(np.intp)
            k = np.minimum(want, self.draw_len[gi] - pos)
            total = int(k.sum())
            if total:
                offsets = np.arange(total) - np.repeat(np.cumsum(k) - k, k)
                rep = np.repeat(np.arange(idx.size), k)
                out[start[idx][rep] + done[idx][rep] + offsets] = \
                    self.draw_cards.reshape(-1)[gi[rep] * N + pos[rep] + offsets]
                self.draw_pos[gi] = pos + k
                done[idx] += k
            more = want > k
            if not first:
                more &= k > 0  # a reshuffle that found nothing: every later draw fails too
            if not more.any():
                return out
            idx = idx[more]
            want = counts[idx] - done[idx]
            self._b_reshuffle(g[idx])  # these piles are empty now
            first = False

    # ---------------------------------------------------- automatic flow

    def _b_after(self, g: np.ndarray) -> None:
        """After a card and its function resolved: the turn ends if the layout was cleared, else
        the player decides again (done at once, not queued: it needs no other game's step)."""
        if g.size == 0:
            return
        clearing = self.clear_pending[g]
        if clearing.any():
            self._wl[1].append(g[clearing])
            g = g[~clearing]
        self.phase[g] = _MAIN

    def _b_draw_step(self, g: np.ndarray) -> None:
        """Reveals the top draw-pile card of each game and places it (or asks for a pile)."""
        N = self.tables.num_cards
        cards = self._b_draw(g)
        none = cards < 0
        if none.any():
            self._b_after(g[none])  # nothing can be drawn: the draw is skipped
            k = _flatnonzero(~none)
            g, cards = g[k], cards[k]
        ci = g * N + cards
        self.card_known.reshape(-1)[ci] = True
        prize = self._is_prize[cards]
        if prize.any():
            k = _flatnonzero(prize)
            gp = g[k]
            self._b_give_prizes(gp, cards[k], gp * self.num_players + self.current[gp])
            self._wl[1].append(gp)
            k = _flatnonzero(~prize)
            g, cards, ci = g[k], cards[k], ci[k]
        fit = self._fitbits_of[cards] & self._top_bits[g]
        n_fit = np.bitwise_count(fit)
        choose = n_fit >= 2
        if choose.any():
            k = _flatnonzero(choose)
            gc = g[k]
            self.pending[gc] = cards[k]
            self.pending_slot[gc] = -1
            self.card_loc.reshape(-1)[ci[k]] = LOC_PENDING
            self.phase[gc] = _PLACE_DRAWN
            k = _flatnonzero(~choose)
            g, cards, fit, n_fit = g[k], cards[k], fit[k], n_fit[k]
        if g.size:
            faces = np.bitwise_count(fit - 1).astype(np.intp)  # the one fitting face (n_fit == 1)
            faces[n_fit == 0] = -1
            self._b_place(g, cards, faces)

    def _b_end_turn(self, g: np.ndarray, fill_first: np.ndarray) -> None:
        """Ends the turn of games g (a cleared layout first wins a trophy and refills) and of games
        ``fill_first`` (after a call: their layouts refill first); then the next seat draws."""
        refill = [fill_first]
        if g.size:
            clearing = self.clear_pending[g]
            if clearing.any():
                gc = g[clearing]
                self.clear_pending[gc] = False
                over = self._b_win_trophies(gc)
                refill.append(gc[~over])
                if over.any():
                    keep = np.ones(g.size, bool)
                    keep[_flatnonzero(clearing)[over]] = False
                    g = g[keep]
        gf = _cat(refill)
        if gf.size:
            self._b_fill(gf, self.current[gf])
            if fill_first.size:
                g = _cat([g, fill_first])
        current = self.current[g] + 1
        current[current == self.num_players] = 0
        self.current[g] = current
        turn = self.turn[g] + 1
        self.turn[g] = turn
        cut = turn >= self.rules.max_turns
        if cut.any():
            gt = g[cut]
            self.truncated[gt] = True
            self.phase[gt] = _OVER
            g = g[~cut]
        self._wl[0].append(g)

    # ------------------------------------------------------------ helpers

    def _b_draw(self, g: np.ndarray) -> np.ndarray:
        """Takes the top draw-pile card of each game (reshuffling empty piles first); -1 = none."""
        pos = self.draw_pos[g]
        length = self.draw_len[g]
        empty = pos >= length
        if empty.any():
            self._b_reshuffle(g[empty])
            pos = self.draw_pos[g]
            length = self.draw_len[g]
            ok = pos < length
            if not ok.all():
                cards = np.full(g.size, -1, np.intp)
                k = _flatnonzero(ok)
                cards[k] = self.draw_cards.reshape(-1)[g[k] * self.tables.num_cards + pos[k]]
                self.draw_pos[g[k]] = pos[k] + 1
                return cards
        cards = self.draw_cards.reshape(-1)[g * self.tables.num_cards + pos].astype(np.intp)
        self.draw_pos[g] = pos + 1
        return cards

    def _b_reshuffle(self, g: np.ndarray) -> None:
        """Forms new draw piles from the set-aside cards (or, if there are none and
        ``reshuffle_discards`` is on, from every discard card below a pile top); games with
        nothing to shuffle are left as they are (their draw is skipped)."""
        N = self.tables.num_cards
        loc = self.card_loc.take(g, axis=0)
        source = loc == LOC_ASIDE
        has = source.any(axis=1)
        if self.rules.reshuffle_discards and not has.all():
            k = _flatnonzero(~has)
            below = loc[k] == LOC_PILE
            tops = self.pile_top.take(g[k], axis=0)
            r, c = np.nonzero(tops >= 0)
            below[r, tops[r, c]] = False
            source[k] = below
        rows, cards = np.nonzero(source)  # ascending card id within each game
        if rows.size == 0:
            return
        counts = np.bincount(rows, minlength=g.size)
        starts = np.cumsum(counts) - counts
        within = np.arange(rows.size) - starts[rows]
        gr = g[rows]
        self.draw_cards.reshape(-1)[gr * N + within] = cards
        ci = gr * N + cards
        self.card_loc.reshape(-1)[ci] = LOC_DRAW
        self.card_known.reshape(-1)[ci] = False
        filled = counts > 0
        gf = g[filled]
        self.draw_pos[gf] = 0
        self.draw_len[gf] = counts[filled]
        draw_cards, rngs = self.draw_cards, self.rngs
        for b, n in zip(gf.tolist(), counts[filled].tolist()):
            rngs[b].shuffle(draw_cards[b, :n])  # == source[rng.permutation(n)], as in reference.py

    def _b_give_prizes(self, g: np.ndarray, cards: np.ndarray, rows: np.ndarray) -> None:
        """The seats of layout rows ``rows`` (game * P + seat) win the prize cards."""
        self.prize_points.reshape(-1)[rows] += self._prize_value[cards]
        self.prize_count.reshape(-1)[rows] += 1
        ci = g * self.tables.num_cards + cards
        self.card_loc.reshape(-1)[ci] = LOC_PRIZE
        self.card_where.reshape(-1)[ci] = rows - g * self.num_players

    def _b_win_trophies(self, g: np.ndarray) -> np.ndarray:
        """The seat to act wins the top trophy in each game; returns which games thereby end."""
        seats = self.current[g]
        pos = self.trophy_pos[g]
        T = self._trophy_total
        ti = g * T + pos
        self.trophy_owner.reshape(-1)[ti] = seats
        si = g * self.num_players + seats
        self.trophy_count.reshape(-1)[si] += 1
        self.trophy_points.reshape(-1)[si] += self.trophy_order.reshape(-1)[ti]
        pos = pos + 1
        self.trophy_pos[g] = pos
        over = pos >= T
        if over.any():
            go = g[over]
            self.terminated[go] = True
            self.phase[go] = _OVER
            self._ended.append(go)
        return over

    def _update_mask(self, g: np.ndarray) -> None:
        """Recomputes the legal-action mask of the given games."""
        n = g.size
        if n == 0:
            return
        if n <= self._SCALAR_MAX:
            for b in g.tolist():
                self._s_mask(b)
            return
        phase = self.phase[g]
        occ = self._occ[g * self.num_players + self.current[g]].astype(np.intp)
        main = phase == _MAIN
        all_main = main.all()
        if not all_main:
            occ[~main] = _NO_ROW
        if n == self.num_envs:
            self._main_rows.take(occ, axis=0, out=self.legal_mask)
        else:
            self.legal_mask[g] = self._main_rows.take(occ, axis=0)
        if all_main:
            return
        k = _flatnonzero((phase == _PLACE_DRAWN) | (phase == _PLACE_REVEALED))
        if k.size:
            gp = g[k]
            fit = self._fitbits_of[self.pending[gp]] & self._top_bits[gp]
            groups = (fit[:, None] >> self._six_shift) & _FULL  # [m, 6]: one 6-bit group per colour
            self.legal_mask[gp, ACTION_PLACE_BASE:ACTION_KEEP] = self._bits6.take(groups, axis=0).reshape(-1, NUM_FACES)
            if self.rules.allow_keep:
                self.legal_mask[gp, ACTION_KEEP] = phase[k] == _PLACE_REVEALED

    # ================================================== scalar path (one game)

    def _s_step(self, b: int, action: int) -> None:
        """Game b's decision (legal), then everything automatic up to its next decision."""
        if self.phase[b] == _MAIN:
            code = self._s_call(b) if action == ACTION_CALL else self._s_reveal(b, action)
        elif action == ACTION_KEEP:
            self.pending[b] = -1
            self.pending_slot[b] = -1
            code = _END_TURN
        else:
            face = action - ACTION_PLACE_BASE
            card, slot = int(self.pending[b]), int(self.pending_slot[b])
            self.pending[b] = -1
            self.pending_slot[b] = -1
            code = self._s_play(b, slot, face) if slot >= 0 else self._s_place(b, card, face)
        if code != _DECIDE:
            self._s_advance(b, code)

    def _s_take_from_layout(self, b: int, seat: int, slot: int) -> int:
        """Empties a layout slot; returns the seat's remaining occupancy bits."""
        self.layout[b, seat, slot] = -1
        row = b * self.num_players + seat
        occ = int(self._occ[row]) & ~(1 << slot)
        self._occ[row] = occ
        return occ

    def _s_put_in_layout(self, b: int, seat: int, slot: int, card: int) -> None:
        self.layout[b, seat, slot] = card
        self._occ[b * self.num_players + seat] |= 1 << slot
        self.card_loc[b, card] = LOC_LAYOUT
        self.card_where[b, card] = seat

    def _s_reveal(self, b: int, slot: int) -> int:
        seat = int(self.current[b])
        card = int(self.layout[b, seat, slot])
        self.card_known[b, card] = True
        if self._is_prize_l[card]:
            occ = self._s_take_from_layout(b, seat, slot)
            self._s_give_prize(b, seat, card)
            self.clear_pending[b] = occ == 0
            return _END_TURN
        fit = self._fitbits_l[card] & int(self._top_bits[b])
        if fit == 0:
            return _END_TURN  # back face down in the same slot, now known to everyone
        if not (fit & (fit - 1)) and not self.rules.allow_keep:
            return self._s_play(b, slot, fit.bit_length() - 1)
        self.pending[b] = card
        self.pending_slot[b] = slot
        self.phase[b] = _PLACE_REVEALED
        return _DECIDE

    def _s_call(self, b: int) -> int:
        """ "Nothing fits anymore!": reveal in slot order until a card fits or is a prize."""
        seat = int(self.current[b])
        tb = int(self._top_bits[b])
        success = True
        for slot, card in enumerate(self.layout[b, seat].tolist()):
            if card < 0:
                continue
            self.card_known[b, card] = True
            if self._is_prize_l[card]:
                self._s_take_from_layout(b, seat, slot)
                self._s_give_prize(b, seat, card)
                success = False
                break
            if self._fitbits_l[card] & tb:
                success = False
                break
        if success and self._s_win_trophy(b, seat):
            return _DECIDE
        self._s_fill(b, seat)
        return _END_TURN

    def _s_play(self, b: int, slot: int, face: int) -> int:
        seat = int(self.current[b])
        card = int(self.layout[b, seat, slot])
        if self._s_take_from_layout(b, seat, slot) == 0:
            self.clear_pending[b] = True
        return self._s_place(b, card, face)

    def _s_place(self, b: int, card: int, face: int) -> int:
        """Puts the card on the oldest pile showing ``face`` (-1: a new pile) and resolves its
        function; returns the next flow code."""
        card_face = self._face_l[card]
        face_pile = self._face_pile
        if face < 0:
            pile = int(self.pile_count[b])
            self._ensure_pile_capacity(pile + 1)
            self.pile_count[b] = pile + 1
        else:
            pile = int(face_pile[b, face])
        self.pile_top[b, pile] = card
        self.pile_face[b, pile] = card_face
        if face != card_face:
            tb = int(self._top_bits[b])
            if face >= 0:  # the old face leaves this pile
                left = int(self.top_count[b, face]) - 1
                self.top_count[b, face] = left
                if left == 0:
                    tb &= ~(1 << face)
                    face_pile[b, face] = -1
                else:
                    face_pile[b, face] = self.pile_face[b, : int(self.pile_count[b])].tolist().index(face)
            self.top_count[b, card_face] += 1
            self._top_bits[b] = tb | (1 << card_face)
            oldest = int(face_pile[b, card_face])
            if oldest < 0 or oldest > pile:
                face_pile[b, card_face] = pile
        self.card_loc[b, card] = LOC_PILE
        self.card_where[b, card] = pile
        function = self._function_l[card]
        if function == FUNCTION_REVEAL:
            return _DRAW
        if function == FUNCTION_REMOVE:
            self._s_remove_other_piles(b, pile)
        elif function == FUNCTION_REFILL:
            self._s_refill_opponents(b)
        return _AFTER_CHAIN

    def _s_remove_other_piles(self, b: int, kept: int) -> None:
        loc, where = self.card_loc[b], self.card_where[b]
        in_pile = loc == LOC_PILE
        kept_pile = in_pile & (where == kept)
        loc[in_pile & ~kept_pile] = LOC_ASIDE
        where[kept_pile] = 0
        top, face = int(self.pile_top[b, kept]), int(self.pile_face[b, kept])
        self.pile_top[b] = -1
        self.pile_face[b] = NO_FACE
        self.pile_top[b, 0] = top
        self.pile_face[b, 0] = face
        self.pile_count[b] = 1
        self.top_count[b] = 0
        self.top_count[b, face] = 1
        self._top_bits[b] = 1 << face
        self._face_pile[b] = -1
        self._face_pile[b, face] = 0

    def _s_refill_opponents(self, b: int) -> None:
        P = self.num_players
        current = int(self.current[b])
        for offset in range(1, P):
            seat = (current + offset) % P
            row = self.layout[b, seat].tolist()
            count = sum(c >= 0 for c in row)
            for _ in range(max(0, REFILL_FUNCTION_TARGET - count)):
                card = self._s_draw(b)
                if card >= 0:
                    slot = row.index(-1)
                    row[slot] = card
                    self._s_put_in_layout(b, seat, slot, card)

    def _s_fill(self, b: int, seat: int) -> None:
        """Draws into every empty slot of the seat's layout, in slot order."""
        for slot, old in enumerate(self.layout[b, seat].tolist()):
            if old < 0:
                card = self._s_draw(b)
                if card >= 0:
                    self._s_put_in_layout(b, seat, slot, card)

    def _s_draw(self, b: int) -> int:
        """Takes the top draw-pile card (reshuffling first if empty); -1 when nothing can be drawn."""
        pos = int(self.draw_pos[b])
        if pos >= self.draw_len[b]:
            self._s_reshuffle(b)
            pos = int(self.draw_pos[b])
            if pos >= self.draw_len[b]:
                return -1
        self.draw_pos[b] = pos + 1
        return int(self.draw_cards[b, pos])

    def _s_reshuffle(self, b: int) -> None:
        """Game b's new draw pile from the set-aside cards (or, if there are none and
        ``reshuffle_discards`` is on, from every discard card below a pile top)."""
        loc = self.card_loc[b]
        source = _flatnonzero(loc == LOC_ASIDE)
        if source.size == 0 and self.rules.reshuffle_discards:
            below_top = loc == LOC_PILE
            below_top[self.pile_top[b, : self.pile_count[b]]] = False
            source = _flatnonzero(below_top)
        if source.size == 0:
            return
        self.rngs[b].shuffle(source)  # == sorted source[rng.permutation(n)], as in reference.py
        self.draw_cards[b, : source.size] = source
        self.draw_pos[b] = 0
        self.draw_len[b] = source.size
        loc[source] = LOC_DRAW
        self.card_known[b, source] = False

    def _s_give_prize(self, b: int, seat: int, card: int) -> None:
        self.prize_points[b, seat] += self._prize_value_l[card]
        self.prize_count[b, seat] += 1
        self.card_loc[b, card] = LOC_PRIZE
        self.card_where[b, card] = seat

    def _s_win_trophy(self, b: int, seat: int) -> bool:
        """The seat wins the top trophy; returns whether the game thereby ends."""
        pos = int(self.trophy_pos[b])
        self.trophy_owner[b, pos] = seat
        self.trophy_count[b, seat] += 1
        self.trophy_points[b, seat] += self.trophy_order[b, pos]
        self.trophy_pos[b] = pos + 1
        if pos + 1 < self._trophy_total:
            return False
        self.terminated[b] = True
        self.phase[b] = _OVER
        scores = self.trophy_points[b : b + 1].astype(np.int32) + self.prize_points[b : b + 1]
        holdings = self.trophy_count[b : b + 1].astype(np.int32) + self.prize_count[b : b + 1]
        self.rewards[b] = final_rewards(scores, holdings, self.rules.reward)[0]
        return True

    def _s_advance(self, b: int, code: int) -> None:
        """Resolves game b from flow code ``code`` up to its next decision or its end."""
        while True:
            if code == _DRAW:
                card = self._s_draw(b)
                if card < 0:
                    code = _AFTER_CHAIN  # nothing can be drawn: the draw is skipped
                    continue
                self.card_known[b, card] = True
                if self._is_prize_l[card]:
                    self._s_give_prize(b, int(self.current[b]), card)
                    code = _END_TURN
                    continue
                fit = self._fitbits_l[card] & int(self._top_bits[b])
                if fit & (fit - 1):
                    self.pending[b] = card
                    self.pending_slot[b] = -1
                    self.card_loc[b, card] = LOC_PENDING
                    self.phase[b] = _PLACE_DRAWN
                    return
                code = self._s_place(b, card, fit.bit_length() - 1)
            elif code == _AFTER_CHAIN:
                if self.clear_pending[b]:
                    code = _END_TURN
                    continue
                self.phase[b] = _MAIN
                return
            else:  # _END_TURN
                current = int(self.current[b])
                if self.clear_pending[b]:
                    self.clear_pending[b] = False
                    if self._s_win_trophy(b, current):
                        return
                    self._s_fill(b, current)
                current += 1
                self.current[b] = 0 if current == self.num_players else current
                turn = int(self.turn[b]) + 1
                self.turn[b] = turn
                if turn >= self.rules.max_turns:
                    self.truncated[b] = True
                    self.phase[b] = _OVER
                    return
                code = _DRAW

    def _s_mask(self, b: int) -> None:
        """Recomputes game b's legal-action mask."""
        phase = int(self.phase[b])
        mask = self.legal_mask
        if phase == _MAIN:
            mask[b] = self._main_rows[int(self._occ[b * self.num_players + int(self.current[b])])]
            return
        mask[b] = False
        if phase == _OVER:
            return
        fit = self._fitbits_l[int(self.pending[b])] & int(self._top_bits[b])
        while fit:
            low = fit & -fit
            mask[b, ACTION_PLACE_BASE + low.bit_length() - 1] = True
            fit ^= low
        if phase == _PLACE_REVEALED and self.rules.allow_keep:
            mask[b, ACTION_KEEP] = True

    # ------------------------------------------------------------ queries

    @property
    def scores(self) -> np.ndarray:
        """[B, P] int: trophy points + prize points."""
        return self.trophy_points.astype(np.int32) + self.prize_points

    @property
    def holdings(self) -> np.ndarray:
        """[B, P] int: trophies + prizes held (the tie-break)."""
        return self.trophy_count.astype(np.int32) + self.prize_count

    @property
    def done(self) -> np.ndarray:
        """[B] bool: terminated or truncated."""
        return self.terminated | self.truncated

    def observe(self, seats, games=None) -> np.ndarray:
        """[B, O] float32: each game's table as seen by ``seats`` (an int or one seat per game).

        ``games`` (optional, int array): observe only these games, ``seats`` then being an int or
        one seat per listed game; returns ``[len(games), O]``, the rows ``observe(...)[games]``
        would hold, without building the others.

        See ``observation.py`` for the sections; nothing a seat may not know is read.
        """
        P, N = self.num_players, self.tables.num_cards
        if games is None:
            g, n = self._arange, self.num_envs
        else:
            g = np.asarray(games, np.intp).reshape(-1)
            n = g.size
            if n and (g.min() < -self.num_envs or g.max() >= self.num_envs):
                raise ValueError(f"games must be in 0..{self.num_envs - 1}")
            g = g % self.num_envs
        seats = np.asarray(seats, np.intp)
        if n == 1 and self.num_envs == 1 and seats.size == 1:
            # The AEC env's call, once per step: before broadcast_to, which costs more than the rest.
            seat = int(seats.reshape(-1)[0])
            if not 0 <= seat < P:
                raise ValueError(f"seat must be in 0..{P - 1}; got {[seat]}")
            return self._observe_one(seat)[None]
        seats = np.broadcast_to(seats, (n,))
        if seats.size and (seats.min() < 0 or seats.max() >= P):
            raise ValueError(f"seat must be in 0..{P - 1}; got {np.unique(seats).tolist()}")

        def rows(arr):
            return arr if games is None else arr[g]

        off, O = self._obs_off, self._obs_size
        obs = np.zeros((n, O), np.float32)
        flat = obs.reshape(-1)
        base = np.arange(n) * O
        phase = rows(self.phase)
        flat[base + off["phase"] + phase] = 1.0
        rel_current = (rows(self.current) - seats) % P
        live = phase != _OVER
        if live.all():
            flat[base + off["acting_seat"] + rel_current] = 1.0
        else:
            flat[base[live] + off["acting_seat"] + rel_current[live]] = 1.0
        start = off["pending_card"]
        features = self._card_features
        pending = rows(self.pending)
        obs[:, start : start + features.shape[1]] = np.take(features, pending, axis=0)
        pending_slot = rows(self.pending_slot)
        from_slot = _flatnonzero((phase == _PLACE_REVEALED) & (pending_slot >= 0))
        if from_slot.size:
            flat[base[from_slot] + off["pending_slot"] + pending_slot[from_slot]] = 1.0
        start = off["pile_tops"]
        obs[:, start : start + NUM_FACES] = rows(self.top_count)

        order = (seats[:, None] + self._rel_seats) % P  # relative seat -> absolute seat
        seat_rows = (g[:, None] * P + order).reshape(-1)  # [n * P]
        cards = self.layout.reshape(-1, SLOTS).take(seat_rows, axis=0).reshape(n, P * SLOTS)
        index = self._slot_index(cards, g[:, None] * N)
        start = off["layouts"]
        width = self._slot_table.shape[1]
        obs[:, start : start + P * SLOTS * width] = self._slot_table.take(index, axis=0).reshape(n, -1)

        loc = rows(self.card_loc)
        start = off["table_counts"]
        obs[:, start] = rows(self.draw_len) - rows(self.draw_pos)
        obs[:, start + 1] = np.count_nonzero(loc == LOC_ASIDE, axis=1)
        obs[:, start + 2] = self.tables.num_trophies - rows(self.trophy_pos)
        obs[:, start + 3] = rows(self.pile_count)
        start = off["players"]
        players = obs[:, start : start + 3 * P].reshape(n, P, 3)
        players[:, :, 0] = self.trophy_count.reshape(-1).take(seat_rows).reshape(n, P)
        players[:, :, 1] = self.prize_points.reshape(-1).take(seat_rows).reshape(n, P)
        players[:, :, 2] = self.prize_count.reshape(-1).take(seat_rows).reshape(n, P)
        obs[:, off["own_trophy_points"]] = self.trophy_points.reshape(-1).take(g * P + seats)
        start = off["unknown_cards"]
        T = self.tables.num_types
        obs[:, start : start + T] = self._unknown_counts(loc, rows(self.card_known), rows(self.pile_top), pending)
        return obs

    def _slot_index(self, cards: np.ndarray, card_base) -> np.ndarray:
        """Row of ``_slot_table`` for each layout card: the card id if known, else N (face down,
        unknown) or N + 1 (empty). ``card_base``: game * N, broadcastable to ``cards``."""
        N = self.tables.num_cards
        present = cards >= 0
        index = np.where(present, N, N + 1)
        if self.rules.memory == "perfect":
            known = present & self.card_known.reshape(-1).take(card_base + np.where(present, cards, 0))
            np.copyto(index, cards, where=known)
        return index

    def _unknown_counts(self, loc, card_known, pile_top, pending) -> np.ndarray:
        """[n, T] copies of each card type whose place the observer does not know, from the
        games' [n, N] card rows (or one game's [N] row: then [T]). A segment sum over the cards
        grouped by type (``np.add.reduceat``): no BLAS call, whose threads are a cost on a busy
        machine."""
        t = self.tables
        if self.rules.memory == "perfect":
            flags = (loc == LOC_DRAW) | ((loc == LOC_LAYOUT) & ~card_known)
        else:
            flags = (loc == LOC_ASIDE) | (loc == LOC_PRIZE) | (loc == LOC_PENDING)
            if loc.ndim == 1:
                flags[pile_top[pile_top >= 0]] = True
                if pending >= 0:
                    flags[pending] = True
            else:
                tops = pile_top >= 0
                flags[np.nonzero(tops)[0], pile_top[tops]] = True
                waiting = _flatnonzero(pending >= 0)
                flags[waiting, pending[waiting]] = True
        flags = flags.view(np.uint8)
        if self._type_order is not None:
            flags = np.take(flags, self._type_order, axis=-1)
        counts = np.add.reduceat(flags, self._type_starts, axis=-1, dtype=np.int16)
        return counts if self.rules.memory == "perfect" else t.type_total - counts

    def _observe_one(self, seat: int) -> np.ndarray:
        """``observe`` of game 0 of a one-game core: the same vector with fewer array calls."""
        P = self.num_players
        off = self._obs_off
        obs = np.zeros(self._obs_size, np.float32)
        phase = int(self.phase[0])
        current = int(self.current[0])
        pending = int(self.pending[0])
        obs[off["phase"] + phase] = 1.0
        if phase != _OVER:
            obs[off["acting_seat"] + (current - seat) % P] = 1.0
        if pending >= 0:
            start = off["pending_card"]
            obs[start : start + self._card_features.shape[1]] = self._card_features[pending]
            slot = int(self.pending_slot[0])
            if phase == _PLACE_REVEALED and slot >= 0:
                obs[off["pending_slot"] + slot] = 1.0
        start = off["pile_tops"]
        obs[start : start + NUM_FACES] = self.top_count[0]
        order = [(seat + r) % P for r in range(P)]
        cards = self.layout[0].take(order, axis=0).reshape(-1)
        index = self._slot_index(cards, 0)
        start = off["layouts"]
        width = self._slot_table.shape[1]
        obs[start : start + P * SLOTS * width] = self._slot_table.take(index, axis=0).reshape(-1)
        loc = self.card_loc[0]
        start = off["table_counts"]
        obs[start : start + 4] = (int(self.draw_len[0]) - int(self.draw_pos[0]), np.count_nonzero(loc == LOC_ASIDE),
                                  self.tables.num_trophies - int(self.trophy_pos[0]), int(self.pile_count[0]))
        trophies, points, prizes = self.trophy_count[0].tolist(), self.prize_points[0].tolist(), self.prize_count[0].tolist()
        start = off["players"]
        obs[start : start + 3 * P] = [v for p in order for v in (trophies[p], points[p], prizes[p])]
        obs[off["own_trophy_points"]] = self.trophy_points[0, seat]
        start = off["unknown_cards"]
        obs[start : start + self.tables.num_types] = self._unknown_counts(loc, self.card_known[0], self.pile_top[0], pending)
        return obs

    def state_arrays(self, games) -> dict[str, np.ndarray]:
        """Copies of the state arrays (module table) of the listed games, ``[len(games), ...]`` each:
        with :meth:`from_state_arrays` a way to branch positions (search, research)."""
        g = np.asarray(games, np.intp).reshape(-1)
        if g.size and (g.min() < 0 or g.max() >= self.num_envs):
            raise ValueError(f"games must be in 0..{self.num_envs - 1}")
        return {name: np.asarray(getattr(self, name))[g].copy() for name in _STATE_ARRAYS + ("_ctl",)}

    @classmethod
    def from_state_arrays(cls, rules: Rules, arrays: dict[str, np.ndarray], seeds: Sequence[int]) -> "KeineAhnungCore":
        """A core holding the given positions (arrays as :meth:`state_arrays` returns them, possibly
        edited); game i reshuffles with a generator seeded by ``seeds[i]``. Nothing is dealt."""
        missing = [name for name in _STATE_ARRAYS + ("_ctl",) if name not in arrays]
        if missing:
            raise ValueError(f"state arrays missing: {', '.join(missing)}")
        n = len(seeds)
        if n < 1 or any(np.asarray(arrays[name]).shape[0] != n for name in _STATE_ARRAYS):
            raise ValueError(f"every state array needs one row per seed ({n})")
        core = cls(1, rules, seed=0)
        core.num_envs = n
        core._arange = np.arange(n)
        for name in _STATE_ARRAYS + ("_ctl",):
            setattr(core, name, np.ascontiguousarray(arrays[name]))
        core.rngs = [np.random.Generator(np.random.PCG64(int(s))) for s in seeds]
        core._rebuild_caches()
        return core

    def snapshot(self, b: int) -> dict:
        """Game b's state in the canonical form of ``ReferenceGame.snapshot``."""
        P = self.num_players
        loc, where = self.card_loc[b], self.card_where[b]
        piles = []
        for k in range(int(self.pile_count[b])):
            cards = _flatnonzero((loc == LOC_PILE) & (where == k)).tolist()
            top = int(self.pile_top[b, k])
            cards.remove(top)
            piles.append(sorted(cards) + [top])
        owners = self.trophy_owner[b]
        return {
            "draw_pile": self.draw_cards[b, self.draw_pos[b] : self.draw_len[b]].tolist(),
            "trophy_pile": self.trophy_order[b, self.trophy_pos[b] :].tolist(),
            "set_aside": _flatnonzero(loc == LOC_ASIDE).tolist(),
            "piles": piles,
            "layout": self.layout[b].tolist(),
            "known": _flatnonzero(self.card_known[b]).tolist(),
            "trophies": [self.trophy_order[b][owners == p].tolist() for p in range(P)],
            "prizes": [_flatnonzero((loc == LOC_PRIZE) & (where == p)).tolist() for p in range(P)],
            "current": int(self.current[b]),
            "turn": int(self.turn[b]),
            "phase": int(self.phase[b]),
            "pending": int(self.pending[b]),
            "pending_slot": int(self.pending_slot[b]),
            "terminated": bool(self.terminated[b]),
            "truncated": bool(self.truncated[b]),
            "scores": self.scores[b].tolist(),
        }
