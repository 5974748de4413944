"""The ``planner`` heuristic's play and flip decisions compiled with Numba, row by row.

:class:`~.agents.PlannerAgent` (``agents.py``, ``compiled=False``) is the readable reference: for every
row in the PLAY phase it searches the sequences of plays its turn allows (``_search``: depth-first,
memoised, at most ``max_nodes`` positions) and plays the first move of the best one; for a FLIP row it
runs that search once per pile the turned-up card may go on. This module is the same search written
once per row as plain loops (the pattern of ``docs/engine_pattern.md``): :func:`decide_range` decides
the rows of a range, and :func:`decide_kernel` splits a large batch into ranges and runs them in a
``prange``. A row reads only what the reference reads: the seat's observation (decoded here through the
offsets of the ``ObservationLayout`` sections, :func:`layout_offsets`), the planner's parameters
(:func:`planner_params`) and the card tables. The hiding decision, the phase dispatch and the random
fallback stay in ``agents.py`` for ``act``: the play and flip decisions draw no random numbers, so
the agent's generator is consumed exactly as on the Python path.

The search is the reference's, step for step, so that every decision is the same:

* a hand is a set of card ids held as two bit masks (cards 0-63, 64-65), visited in ascending card
  id (the order of ``np.flatnonzero``), each card on pile 0, then pile 1;
* the memo is keyed on (hand, top 0, top 1), fresh for every search (a FLIP row runs two), and is
  looked up before the node budget is spent, where the reference's ``_search`` looks; it is an
  open-addressing table emptied between searches by a generation stamp, doubled and the row searched
  again should a search fill half of it (the search is deterministic: the second run is the first);
* a card the observation does not show (an empty pile top or turned-up card, only in hand-made rows)
  is the reference's -1, which indexes its tables as their last card, 65;
* the search is an explicit stack instead of recursion: a gap play that is searched further pushes
  the position left, and its value comes back to the parent where the reference's call returns;
* a move replaces the best one only when ``value > best + 1e-9``, a PASS is the first candidate,
  and a FLIP row takes pile 1 only when its value is larger (``np.argmax``'s first maximum).

Floats are computed in the reference's order, so values are equal bit for bit, not only close: a
stopping value is ``-float(stars) - card_weight * cards - danger`` with ``danger`` the product
``weight * threat * width`` from the left; the mean stars of an unknown card is their integer sum
divided once by their count (what ``np.mean`` of at most 66 small integers gives: its pairwise sum of
float64 values is exact), ``threat`` is ``1.0 + threat_scale / max(next_hand, 1.0)``, a win is
``win_bonus + hidden_stars``. Float32 observations are read as they are and any other dtype as
float64: both conversions are exact, so the comparisons (``> 0.5``) and sums are the reference's.

Playing seats in the engine. :func:`play_range` / :func:`play_kernel` (``PlannerAgent.play_turns`` for
one agent, ``agents.play_lineup`` for several; only for planners made with ``in_engine=True``) run whole
turns, or roll-outs to the end, inside the compiled engine: for each listed game, while a seat held by
one of the planners is to act, the engine's own ``observe_range`` builds that seat's observation and
:func:`decide_row` decides a PLAY or FLIP row with that planner's parameters (the same action as
:func:`decide_range`, so as ``act``); a HIDE row, which reads only the legal mask, is decided by
:func:`hide_row` (``PlannerAgent._hide``'s rule, its tie keys from that planner's own xoshiro stream for
the game: ``rng.next64``, the streams drawn from the planners' generators, one per listed game, planner
and call); then ``step_range`` steps the game. So a game's course depends on its own state and streams only, not on the other games or on
the split over threads; but its hiding ties are broken by other random numbers than ``act``'s, which is
why playing in the engine is an option of the agent and not its default.

First use compiles these kernels (about 10 s on the shared 2-core machine; the play kernels, with the
engine's step and observation compiled in, about 20 s more); later processes load them from
``__pycache__``. ``tests/test_planner_kernel.py`` checks kernel against reference on observations from
real play, and the play kernels against ``act`` turn by turn.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ... import bits as _bits_module
from ... import rng as _rng_module
from ...bits import count_trailing_zeros, popcount
from ...kernel_cache import drop_stale_cache
from ...rng import next64
from . import kernels as _kernels_module
from . import actions, deck, observation
from .core import GAP_TABLE
from .kernels import observe_range, step_range

# The rules modules' constants, written out (Numba freezes module-level values into the cached machine
# code and its cache does not notice a change in another module; the assertion below does).
NUM_CARDS = 66
NUM_COLOURS = 6
NUM_NUMBERS = 11
CARD_FEATURES = NUM_COLOURS + NUM_NUMBERS
STARS_BY_NUMBER = (0, 1, 2, 2, 3, 4, 3, 2, 2, 1, 0)
ACTION_PASS = 132
ACTION_HIDE_BASE = 133
ACTION_FLIP_BASE = 199
NUM_ACTIONS = 201
HIDE, FLIP, PLAY, OVER = range(4)
_COLOUR = np.repeat(np.arange(NUM_COLOURS), NUM_NUMBERS).astype(np.int64)
_NUMBER = np.tile(np.arange(1, NUM_NUMBERS + 1), NUM_COLOURS).astype(np.int64)
_STARS = np.array([STARS_BY_NUMBER[n - 1] for n in _NUMBER], np.int64)
assert ((NUM_CARDS, NUM_COLOURS, NUM_NUMBERS) == (deck.NUM_CARDS, deck.NUM_COLOURS, deck.NUM_NUMBERS)
        and STARS_BY_NUMBER == deck.STARS_BY_NUMBER
        and (_COLOUR == deck.CARD_COLOUR).all() and (_NUMBER == deck.CARD_NUMBER).all()
        and (_STARS == deck.CARD_STARS).all() and CARD_FEATURES == observation.CARD_FEATURES
        and (ACTION_PASS, ACTION_HIDE_BASE, ACTION_FLIP_BASE, NUM_ACTIONS)
        == (actions.ACTION_PASS, actions.ACTION_HIDE_BASE, actions.ACTION_FLIP_BASE, actions.NUM_ACTIONS)
        and (HIDE, FLIP, PLAY, OVER) == tuple(int(p) for p in actions.Phase)), \
    "gap agent_kernels.py's constants differ from actions.py / deck.py / observation.py: update them"

MAX_DEPTH = NUM_CARDS + 2
"""Frames of the search stack: each level lays one hand card, and a hand holds at most every card."""

# Indices into the ``offsets`` argument (the observation sections the decision reads).
OFF_HAND, OFF_HIDDEN, OFF_PILE_TOPS, OFF_FLIP_CARD, OFF_DISCARDS, OFF_HAND_SIZES, OFF_TABLE = range(7)
OFFSET_SECTIONS = ("hand", "hidden", "pile_tops", "flip_card", "discards", "hand_sizes", "table")

# Indices into the ``params`` argument (the planner's parameters as float64).
(PARAM_MAX_NODES, PARAM_CARD_WEIGHT, PARAM_GAP_WEIGHT, PARAM_NO_GAP_WIDTH, PARAM_FLIP_BONUS, PARAM_WIN_BONUS,
 PARAM_THREAT_SCALE, PARAM_COUNT_CARDS, PARAM_COUNT_WEIGHT, PARAM_NO_GAP_CARDS, PARAM_FLIP_ON_EXTRA_TURNS) = range(11)
NUM_PARAMS = 11
PARAM_HIDE_HARD = NUM_PARAMS
"""One more column of the play kernels' rows (:func:`play_params`): ``hide_hard`` of the hiding decision."""
NUM_PLAY_PARAMS = NUM_PARAMS + 1

TIE_NOISE = 1e-6
"""The scale of the hiding decision's tie noise (``GapAgent._pick``: ``1e-6`` times a uniform key)."""
_HARD = np.where((_NUMBER == 1) | (_NUMBER == 11), 1.0, np.where((_NUMBER == 2) | (_NUMBER == 10), 0.5, 0.0))
"""Per card, how hard it is to play in a gap (``PlannerAgent._hide``: 1 for 1 and 11, 0.5 for 2 and 10)."""

MEMO_SLOTS = 1 << 10
"""The most memo slots a range starts with (:func:`memo_slots`; a search that fills half of them
doubles them, and the range keeps the larger memo): most searches store a few dozen positions, and
a batch of one row pays for every slot it allocates."""


def _gap_bits(table: np.ndarray) -> np.ndarray:
    """``uint64 [66, 66, 2]``: the cards that fit the gap between tops a and b (``GAP_TABLE[a, b]``) as
    bit masks of cards 0-63 and 64-65."""
    weights = np.uint64(1) << np.arange(64, dtype=np.uint64)
    out = np.zeros((NUM_CARDS, NUM_CARDS, 2), np.uint64)
    fits = table.astype(np.uint64)
    out[:, :, 0] = (fits[:, :, :64] * weights).sum(axis=2, dtype=np.uint64)
    out[:, :, 1] = (fits[:, :, 64:] * weights[:NUM_CARDS - 64]).sum(axis=2, dtype=np.uint64)
    return out


GAP_BITS = _gap_bits(GAP_TABLE)
"""``GAP_TABLE`` (the table ``count_cards`` counts with) as bit masks; an argument of the kernels, so
that it is never frozen into their cache."""


def layout_offsets(layout) -> np.ndarray:
    """``int64 [7]``: where each section the decision reads starts in an observation of ``layout``."""
    starts = layout.offsets()
    return np.array([starts[name] for name in OFFSET_SECTIONS], np.int64)


def planner_params(max_nodes, card_weight, gap_weight, no_gap_width, flip_bonus, win_bonus, threat_scale,
                   count_cards, count_weight, no_gap_cards, flip_on_extra_turns) -> np.ndarray:
    """``float64 [NUM_PARAMS]``: the planner's parameters in the kernel's order (``PARAM_*``; the flags
    as 1.0 / 0.0)."""
    return np.array([max_nodes, card_weight, gap_weight, no_gap_width, flip_bonus, win_bonus, threat_scale,
                     1.0 if count_cards else 0.0, count_weight, no_gap_cards, 1.0 if flip_on_extra_turns else 0.0],
                    np.float64)


def play_params(params: np.ndarray, hide_hard: float) -> np.ndarray:
    """``float64 [NUM_PLAY_PARAMS]``: a row of :func:`planner_params` followed by ``hide_hard``: one agent's
    row of the play kernels' ``params``."""
    return np.append(np.asarray(params, np.float64), np.float64(hide_hard))


# ============================================================================ decoding one row

@njit(cache=True, inline="always")
def _argmax(x, start, length):
    """NumPy's argmax of ``x[start:start+length]``: the first index of the largest value."""
    best, where = x[start], 0
    for i in range(1, length):
        if x[start + i] > best:
            best, where = x[start + i], i
    return where


@njit(cache=True, inline="always")
def _card(obs, o):
    """The card encoded at ``obs[o:o+17]`` (``agents._cards_of``); where nothing is encoded, the
    reference's -1, which indexes its tables as their last card: 65 here."""
    for i in range(CARD_FEATURES):
        if obs[o + i] != 0:
            return _argmax(obs, o, NUM_COLOURS) * NUM_NUMBERS + _argmax(obs, o + NUM_COLOURS, NUM_NUMBERS)
    return NUM_CARDS - 1


@njit(cache=True, inline="always")
def _bit(c):
    return np.uint64(1) << np.uint64(c & 63)


@njit(cache=True, inline="always")
def _width(a, b):
    """The gap width between tops ``a`` and ``b`` (whole numbers strictly between them)."""
    return max(abs(_NUMBER[a] - _NUMBER[b]) - 1, 0)


# ============================================================================ the search (PlannerAgent._search)

@njit(cache=True, inline="always")
def _stop_value(stars, count, t0, t1, threat, unk_lo, unk_hi, gap_bits, params):
    """``PlannerAgent._stop_value``: ending the turn with a hand of ``count`` cards worth ``stars``."""
    w = _width(t0, t1)
    if params[PARAM_COUNT_CARDS] != 0.0:
        if w > 0:
            fits = float(popcount(gap_bits[t0, t1, 0] & unk_lo) + popcount(gap_bits[t0, t1, 1] & unk_hi))
        else:
            fits = params[PARAM_NO_GAP_CARDS]
        danger = params[PARAM_COUNT_WEIGHT] * threat * fits
    else:
        danger = params[PARAM_GAP_WEIGHT] * threat * (float(w) if w > 0 else params[PARAM_NO_GAP_WIDTH])
    return -float(stars) - params[PARAM_CARD_WEIGHT] * float(count) - danger


_HASH_LO = np.uint64(0x9E3779B97F4A7C15)
_HASH_HI = np.uint64(0xC2B2AE3D27D4EB4F)


@njit(cache=True, inline="always")
def _slot(key_lo, key_hi, slot_mask):
    h = key_lo * _HASH_LO ^ key_hi * _HASH_HI
    h ^= h >> np.uint64(29)
    return np.int64(h & slot_mask)


@njit(cache=True, inline="always")
def _memo_find(memo, generation, key_lo, key_hi):
    """The slot of the key in this search's memo, or -1."""
    keys_lo, keys_hi, stamps, values, moves = memo
    slot_mask = np.uint64(stamps.shape[0] - 1)
    i = _slot(key_lo, key_hi, slot_mask)
    while stamps[i] == generation:
        if keys_lo[i] == key_lo and keys_hi[i] == key_hi:
            return i
        i = np.int64(np.uint64(i + 1) & slot_mask)
    return -1


@njit(cache=True, inline="always")
def _memo_store(memo, generation, key_lo, key_hi, value, move):
    """Stores a key that is not in the memo yet."""
    keys_lo, keys_hi, stamps, values, moves = memo
    slot_mask = np.uint64(stamps.shape[0] - 1)
    i = _slot(key_lo, key_hi, slot_mask)
    while stamps[i] == generation:
        i = np.int64(np.uint64(i + 1) & slot_mask)
    stamps[i] = generation
    keys_lo[i] = key_lo
    keys_hi[i] = key_hi
    values[i] = value
    moves[i] = move


@njit(cache=True, inline="always")
def _key_hi(hand_hi, t0, t1):
    """The second word of a memo key: cards 64-65 of the hand and both tops (7 bits each)."""
    return hand_hi | (np.uint64(t0) << np.uint64(2)) | (np.uint64(t1) << np.uint64(9))


@njit(cache=True, _nrt=False)
def _search(hand_lo, hand_hi, t0, t1, stars, count, hidden_stars, draw_stars, can_draw, threat, unk_lo, unk_hi,
            gap_bits, params, memo, generation, stack):
    """``PlannerAgent._search`` from a fresh memo (stamped ``generation``) and a full budget:
    ``(best value, first action, True)``, or ``(0.0, -1, False)`` when the memo ran half full."""
    (s_lo, s_hi, s_rem_lo, s_rem_hi, s_t0, s_t1, s_stars, s_count, s_card, s_pile, s_gap, s_best, s_move) = stack
    card_weight = params[PARAM_CARD_WEIGHT]
    flip_bonus = params[PARAM_FLIP_BONUS]
    win = params[PARAM_WIN_BONUS] + float(hidden_stars)
    flip_after = params[PARAM_FLIP_ON_EXTRA_TURNS] != 0.0 and can_draw
    pass_cost = draw_stars + card_weight if can_draw else 0.0
    budget = np.int64(params[PARAM_MAX_NODES])
    room = memo[2].shape[0] // 2
    stored = 0
    # The root: a fresh memo holds no key, so the reference's memo check cannot hit here.
    budget -= 1
    d = 0
    s_lo[0], s_hi[0], s_rem_lo[0], s_rem_hi[0] = hand_lo, hand_hi, hand_lo, hand_hi
    s_t0[0], s_t1[0], s_stars[0], s_count[0], s_pile[0] = t0, t1, stars, count, 2
    s_best[0] = _stop_value(stars, count, t0, t1, threat, unk_lo, unk_hi, gap_bits, params) - pass_cost
    s_move[0] = ACTION_PASS
    while True:
        if s_pile[d] == 2:  # the next hand card, or the frame is done
            if s_rem_lo[d] == 0 and s_rem_hi[d] == 0:
                if stored >= room:
                    return 0.0, -1, False
                _memo_store(memo, generation, s_lo[d], _key_hi(s_hi[d], s_t0[d], s_t1[d]), s_best[d], s_move[d])
                stored += 1
                if d == 0:
                    return s_best[0], s_move[0], True
                # Back in the parent, where the reference's recursive call returns.
                value = s_best[d]
                if _width(s_t0[d], s_t1[d]) == 0 and flip_after:
                    value += flip_bonus
                d -= 1
                if value > s_best[d] + 1e-9:
                    s_best[d] = value
                    s_move[d] = 2 * s_card[d] + s_pile[d] - 1
                continue
            if s_rem_lo[d] != 0:
                c = count_trailing_zeros(s_rem_lo[d])
                s_rem_lo[d] &= s_rem_lo[d] - np.uint64(1)
            else:
                c = 64 + count_trailing_zeros(s_rem_hi[d])
                s_rem_hi[d] &= s_rem_hi[d] - np.uint64(1)
            a, b = s_t0[d], s_t1[d]
            num = _NUMBER[c]
            col = _COLOUR[c]
            s_card[d] = c
            s_pile[d] = 0
            s_gap[d] = (col != _COLOUR[a] and col != _COLOUR[b] and min(_NUMBER[a], _NUMBER[b]) < num
                        < max(_NUMBER[a], _NUMBER[b]))
        c = s_card[d]
        pile = s_pile[d]
        s_pile[d] = pile + 1
        a, b = s_t0[d], s_t1[d]
        gap = s_gap[d]
        top = a if pile == 0 else b
        if not gap and _COLOUR[c] != _COLOUR[top] and _NUMBER[c] != _NUMBER[top]:
            continue
        n0 = c if pile == 0 else a
        n1 = b if pile == 0 else c
        rest_count = s_count[d] - 1
        if rest_count == 0:
            value = win
        else:
            rest_stars = s_stars[d] - _STARS[c]
            rest_lo, rest_hi = s_lo[d], s_hi[d]
            if c < 64:
                rest_lo &= ~_bit(c)
            else:
                rest_hi &= ~_bit(c)
            if not gap:
                value = _stop_value(rest_stars, rest_count, n0, n1, threat, unk_lo, unk_hi, gap_bits, params)
            elif budget <= 0:
                value = _stop_value(rest_stars, rest_count, n0, n1, threat, unk_lo, unk_hi, gap_bits,
                                    params) + flip_bonus
            else:
                found = _memo_find(memo, generation, rest_lo, _key_hi(rest_hi, n0, n1))
                if found < 0:  # search the position left, then come back (above)
                    budget -= 1
                    d += 1
                    s_lo[d], s_hi[d], s_rem_lo[d], s_rem_hi[d] = rest_lo, rest_hi, rest_lo, rest_hi
                    s_t0[d], s_t1[d], s_stars[d], s_count[d], s_pile[d] = n0, n1, rest_stars, rest_count, 2
                    s_best[d] = _stop_value(rest_stars, rest_count, n0, n1, threat, unk_lo, unk_hi, gap_bits,
                                            params) - pass_cost
                    s_move[d] = ACTION_PASS
                    continue
                value = memo[3][found]
                if _width(n0, n1) == 0 and flip_after:
                    value += flip_bonus
        if value > s_best[d] + 1e-9:
            s_best[d] = value
            s_move[d] = 2 * c + pile


# ============================================================================ one row

@njit(cache=True, _nrt=False)
def decide_row(obs, flip, num_players, offsets, params, gap_bits, memo, generation, stack):
    """The planner's action for one row in the PLAY phase (``flip`` False: ``PlannerAgent._play``) or
    the FLIP phase (``flip`` True: ``_flip``), its searches stamped ``generation`` and
    ``generation + 1``; -1 when the memo ran half full (the caller enlarges it and asks again)."""
    hand_lo = hand_hi = unk_lo = unk_hi = np.uint64(0)
    stars = count = hidden_stars = unknown_stars = unknown_count = 0
    o_hand, o_hidden, o_discards = offsets[OFF_HAND], offsets[OFF_HIDDEN], offsets[OFF_DISCARDS]
    for c in range(NUM_CARDS):
        in_hand = obs[o_hand + c] > 0.5
        hidden = obs[o_hidden + c] > 0.5
        if in_hand:
            stars += _STARS[c]
            count += 1
            if c < 64:
                hand_lo |= _bit(c)
            else:
                hand_hi |= _bit(c)
        if hidden:
            hidden_stars += _STARS[c]
        if not (in_hand or hidden or obs[o_discards + c] > 0.5):
            unknown_stars += _STARS[c]
            unknown_count += 1
            if c < 64:
                unk_lo |= _bit(c)
            else:
                unk_hi |= _bit(c)
    draw_stars = float(unknown_stars) / float(unknown_count) if unknown_count else 2.0
    o_table = offsets[OFF_TABLE]
    can_draw = float(obs[o_table]) + float(obs[o_table + 1]) > 0
    next_hand = float(obs[offsets[OFF_HAND_SIZES] + 1 % num_players]) if num_players > 1 else 10.0
    if 1.0 > next_hand:  # Python's max(next_hand, 1.0)
        next_hand = 1.0
    threat = 1.0 + params[PARAM_THREAT_SCALE] / next_hand
    t0 = _card(obs, offsets[OFF_PILE_TOPS])
    t1 = _card(obs, offsets[OFF_PILE_TOPS] + CARD_FEATURES)
    if not flip:
        value, move, ok = _search(hand_lo, hand_hi, t0, t1, stars, count, hidden_stars, draw_stars, can_draw, threat,
                                  unk_lo, unk_hi, gap_bits, params, memo, generation, stack)
        return move if ok else -1
    card = _card(obs, offsets[OFF_FLIP_CARD])
    left, _, ok = _search(hand_lo, hand_hi, card, t1, stars, count, hidden_stars, draw_stars, can_draw, threat,
                          unk_lo, unk_hi, gap_bits, params, memo, generation, stack)
    if not ok:
        return -1
    right, _, ok = _search(hand_lo, hand_hi, t0, card, stars, count, hidden_stars, draw_stars, can_draw, threat,
                           unk_lo, unk_hi, gap_bits, params, memo, generation + 1, stack)
    if not ok:
        return -1
    # np.argmax of [left, right]: the first maximum (a NaN counts as the maximum)
    if np.isnan(left) or (not np.isnan(right) and not right > left):
        return ACTION_FLIP_BASE
    return ACTION_FLIP_BASE + 1


# ============================================================================ batch kernels

@njit(cache=True)
def _memo(slots):
    """An empty memo of ``slots`` (a power of two) slots: keys (two words), stamps, values, moves. A slot
    holds something only where its stamp is the search's generation (from 2 up), so only the stamps
    need clearing."""
    return (np.empty(slots, np.uint64), np.empty(slots, np.uint64), np.zeros(slots, np.int64), np.empty(slots),
            np.empty(slots, np.int64))


@njit(cache=True)
def _stack():
    return (np.zeros(MAX_DEPTH, np.uint64), np.zeros(MAX_DEPTH, np.uint64), np.zeros(MAX_DEPTH, np.uint64),
            np.zeros(MAX_DEPTH, np.uint64), np.zeros(MAX_DEPTH, np.int64), np.zeros(MAX_DEPTH, np.int64),
            np.zeros(MAX_DEPTH, np.int64), np.zeros(MAX_DEPTH, np.int64), np.zeros(MAX_DEPTH, np.int64),
            np.zeros(MAX_DEPTH, np.int64), np.zeros(MAX_DEPTH, np.bool_), np.zeros(MAX_DEPTH),
            np.zeros(MAX_DEPTH, np.int64))


def memo_slots(max_nodes: int) -> int:
    """The memo size a range starts with (the ``slots`` argument of the kernels): a power of two, twice
    the positions one search may store (its budget plus the root), at most ``MEMO_SLOTS``."""
    need = 2 * (max(int(max_nodes), 0) + 1)
    slots = 64
    while slots < need and slots < MEMO_SLOTS:
        slots *= 2
    return slots


@njit(cache=True)
def decide_range(obs, flip, out, lo, hi, num_players, offsets, params, gap_bits, slots):
    """``out[b]`` = the planner's action for rows ``lo..hi-1`` (all in the PLAY phase, or all in the
    FLIP phase with ``flip``), from a memo of ``slots`` slots (:func:`memo_slots`; a power of two),
    doubled whenever a search fills half of it."""
    memo = _memo(slots)
    stack = _stack()
    generation = 0
    for b in range(lo, hi):
        while True:
            generation += 2
            action = decide_row(obs[b], flip, num_players, offsets, params, gap_bits, memo, generation, stack)
            if action >= 0:
                break
            memo = _memo(2 * memo[2].shape[0])
        out[b] = action


@njit(cache=True, parallel=True)
def decide_kernel(obs, flip, out, num_players, offsets, params, gap_bits, slots, chunks):
    """:func:`decide_range` over the whole batch, in ``chunks`` ranges spread over the threads."""
    n = obs.shape[0]
    for c in prange(chunks):
        decide_range(obs, flip, out, c * n // chunks, (c + 1) * n // chunks, num_players, offsets, params, gap_bits,
                     slots)


# ============================================================================ playing seats in the engine

_UNIT = 2.0 ** -53


@njit(cache=True, inline="always", _nrt=False)
def _key(streams, stream):
    """A uniform key in [0, 1) from row ``stream`` of ``streams`` (the top 53 bits of one xoshiro output)."""
    return np.float64(next64(streams, stream) >> np.uint64(11)) * _UNIT


@njit(cache=True, _nrt=False)
def hide_row(mask, hide_hard, streams, stream):
    """``PlannerAgent._hide`` for one row: the first maximum of ``stars + hide_hard * hard + 1e-6 * key``
    over the allowed hide actions, a key drawn for each of the 66 cards in card order (the reference's
    ``_pick`` draws a row of 66 uniform numbers), so that the choice is uniform among the tied best
    cards; -1 when no hide action is allowed."""
    best, where = -np.inf, -1
    for c in range(NUM_CARDS):
        key = _key(streams, stream)
        if mask[ACTION_HIDE_BASE + c]:
            v = (float(_STARS[c]) + hide_hard * _HARD[c]) + key * TIE_NOISE
            if v > best:
                best, where = v, c
    return ACTION_HIDE_BASE + where if where >= 0 else -1


@njit(cache=True, _nrt=False)
def fallback_row(mask, streams, stream):
    """The legal action with the largest key (a key per action, in action order): uniform among the
    legal ones, as the reference's ``sample_masked``; -1 when nothing is legal."""
    best, where = -1.0, -1
    for a in range(NUM_ACTIONS):
        key = _key(streams, stream)
        if mask[a] and key > best:
            best, where = key, a
    return where


@njit(cache=True)
def play_range(s, k, games, seat_agent, streams, stuck, lo, hi, num_players, offsets, params, gap_bits, slots):
    """Plays games ``games[lo:hi]`` of a gap core (state ``s``, constants ``k``) for a line-up of planners:
    while the seat to act in game ``games[i]`` is held (``seat_agent[i, seat]`` = a, an agent's row of
    ``params`` [A, NUM_PLAY_PARAMS]; -1: not held) and the game is not over, decides with agent a's
    parameters and steps the game (``kernels.step_range``: each step resets the game's rewards first,
    so they are those of its last step). A PLAY or FLIP decision observes the game as that seat
    (``kernels.observe_range``) and decides as :func:`decide_range` does (:func:`decide_row`, from a
    memo of ``slots`` slots kept for the range, doubled when a search fills half of it); a HIDE
    decision is :func:`hide_row`, its keys from stream ``a * n + i`` of ``streams`` [A * n, 4], n =
    ``len(games)`` (each agent's own stream per game, so that a game's course depends on nothing else).
    A choice that is not legal (real play gives none) falls back to :func:`fallback_row` (keys from the
    same stream). ``stuck[i]`` is set (and the game left) if a live game offers nothing legal."""
    B = s.phase.shape[0]
    n = games.shape[0]
    obs = np.zeros((1, k.obs_size), np.float32)
    one_game = np.zeros(1, np.intp)
    one_seat = np.zeros(1, np.intp)
    actions = np.zeros(B, np.intp)
    active = np.zeros(B, np.bool_)
    memo = _memo(slots)
    stack = _stack()
    generation = 0
    for i in range(lo, hi):
        b = games[i]
        while s.phase[b] != OVER:
            agent = seat_agent[i, s.current[b]]
            if agent < 0:
                break
            mask = s.legal_mask[b]
            legal = False
            for a in range(NUM_ACTIONS):
                legal |= mask[a]
            if not legal:
                stuck[i] = True
                break
            stream = agent * n + i
            row = params[agent]
            phase = s.phase[b]
            if phase == HIDE:
                action = hide_row(mask, row[PARAM_HIDE_HARD], streams, stream)
            else:
                one_game[0] = b
                one_seat[0] = s.current[b]
                observe_range(s, k, one_game, one_seat, obs, 0, 1)
                while True:
                    generation += 2
                    action = decide_row(obs[0], phase == FLIP, num_players, offsets, row, gap_bits, memo, generation,
                                        stack)
                    if action >= 0:
                        break
                    memo = _memo(2 * memo[2].shape[0])
            if action < 0 or action >= NUM_ACTIONS or not mask[action]:
                action = fallback_row(mask, streams, stream)
            actions[b] = action
            active[b] = True
            step_range(s, k, actions, active, b, b + 1)
            active[b] = False


@njit(cache=True, parallel=True)
def play_kernel(s, k, games, seat_agent, streams, stuck, num_players, offsets, params, gap_bits, slots, chunks):
    """:func:`play_range` over all listed games, in ``chunks`` ranges spread over the threads (each game
    is played by one thread; its keys come from its own streams, so the split changes nothing)."""
    n = games.shape[0]
    for c in prange(chunks):
        play_range(s, k, games, seat_agent, streams, stuck, c * n // chunks, (c + 1) * n // chunks, num_players,
                   offsets, params, gap_bits, slots)


# The search compiles in the shared bit primitives (``bits.py``), the play kernels the engine's step and
# observation (``kernels.py``) and the random stream (``rng.py``): a change there must reach this module's
# cached machine code too (``kernel_cache``).
drop_stale_cache(__file__, decide_range, [_bits_module.__file__, _kernels_module.__file__, _rng_module.__file__])
