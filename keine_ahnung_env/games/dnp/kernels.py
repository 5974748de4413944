"""The compiled rules of dnp: per-game functions over the state arrays, and the batch kernels.

Every rule is written once, as a plain function of one game ``b`` that reads and writes row ``b`` of
the state arrays (``s``, a :class:`State` of the arrays documented in ``core.py``); the functions
mirror ``reference.py`` step for step. The serial loops (``*_range``) run them over a range of games
with the common path inlined; the parallel kernels (``*_kernel``) run a few such ranges per thread in
a ``prange`` (``docs/engine_pattern.md``). Constants of the variant travel in a :class:`Consts`.
Compiled with ``cache=True``: the first use on a machine compiles, later processes load the code.
"""

from __future__ import annotations

import collections

import numpy as np
from numba import njit, prange

from ... import bits as _bits_module
from . import actions as _actions
from . import config as _config
from ... import packing as _packing_module
from ... import rng as _rng_module
from ...bits import count_trailing_zeros, store_bit_bytes
from ...kernel_cache import drop_stale_cache
from ...packing import (bool_at, check_actions_kernel, define_packed_entry_points, field1,  # noqa: F401
                        field2, field3, float_at, int_at)
from ...rng import bounded, shuffle  # the shared per-game random stream

LOC_HAND, LOC_TABLE, LOC_DISCARD, LOC_OUT = 0, 1, 2, 3
REWARD_WIN, REWARD_SCORE, REWARD_RANK = range(3)
MAX_VALUE = 10
NUM_TARGETS = 4
"""Targets of ADD and TAKE at every player count (``actions.NUM_TARGETS``)."""
MOVE_ACTIONS = 2 + 2 * NUM_TARGETS
"""The actions after the N card selections: PLAY, four ADDs, four TAKEs, TURN (``actions.py``). ``_mask_game``
writes them as the bits of one word (bit 0 PLAY, 1 + t ADD, 5 + t TAKE, 9 TURN) by one call of
``bits.store_bit_bytes``, whose width must be a constant."""
assert NUM_TARGETS == _actions.NUM_TARGETS, "kernels.NUM_TARGETS differs from actions.NUM_TARGETS"
_layout = _actions.ActionLayout(40, 4)
assert (_layout.add_base, _layout.take_base, _layout.turn, _layout.num_actions) == (
    40 + 1, 40 + 1 + NUM_TARGETS, 40 + 1 + 2 * NUM_TARGETS, 40 + MOVE_ACTIONS), "_mask_game's move bits: update them"
assert _config.MAX_CARDS < 127, "_blocked_sizes calls every size of 64 or more free: check its argument"
_U0, _U1, _U7, _U8, _U56, _U63, _U64 = (np.uint64(x) for x in (0, 1, 7, 8, 56, 63, 64))
_BYTE_TOPS = np.uint64(0x8080808080808080)
"""Bit 7 of every byte (the mask's per-value count comparisons, ``_mask_game``)."""
_GATHER = np.uint64(0x0102040810204080)
"""``(x * _GATHER) >> 56`` has bit i = bit 0 of byte i of x, for x whose bytes are 0 or 1."""
_VALUE_BITS = np.uint64(((1 << MAX_VALUE) - 1) << 1)
"""Bits 1..10: the values."""
_BYTE_ONES = np.uint64(0x0101010101010101)

STATE_FIELDS = (
    "card_loc", "card_where", "card_rot", "card_public", "card_selected", "deal_order", "set_size", "set_value",
    "hand_count", "sel_count", "sel_value", "points", "out", "finishers", "current", "area", "turn", "rounds",
    "terminated", "truncated", "rewards", "legal_mask", "rng_state")

State = collections.namedtuple("State", STATE_FIELDS)
"""The state arrays of a core, in one argument (``core.py`` documents every field)."""

Consts = collections.namedtuple("Consts", (
    "values",          # [N, 2] int8: upright and rotated value of each card
    "value_up",        # [N] int8: the upright value (values[:, 0]) ...
    "value_flip",      # [N] int8: ... and its XOR with the rotated one: active = up ^ (flip & -rot), no branch
    "in_play",         # [N] bool: the card is used at this player count
    "star",            # id of the star card
    "num_players", "areas", "target", "max_turns", "reward_mode", "finisher_closed",
    "num_targets",     # targets that exist at this player count ((P - 1) * areas)
    "play", "add_base", "take_base", "turn_action",
    "obs_size", "card_width", "off_acting", "off_area", "off_selection", "off_players", "off_table",
    "off_hand_values", "off_cards",
))


# ============================================================================ one game


@njit(cache=True, inline="always", _nrt=False)
def _active(s, k, b, c):
    return np.int64(k.values[c, s.card_rot[b, c]])


@njit(cache=True, inline="always", _nrt=False)
def _active_branchless(s, k, b, c):
    """``_active`` as arithmetic on contiguous constants (the hot card loops vectorise with it)."""
    return np.int64(k.value_up[c] ^ (k.value_flip[c] & -s.card_rot[b, c]))


@njit(cache=True, inline="always", _nrt=False)
def _active8(s, k, b, c):
    """``_active_branchless`` as an int8, for comparing with an int8 value in byte lanes."""
    return np.int8(k.value_up[c] ^ (k.value_flip[c] & -s.card_rot[b, c]))


@njit(cache=True, inline="always", _nrt=False)
def _owner(k, pos):
    """The seat in front of which position ``pos`` lies (``pos // areas``, areas being 1 or 2)."""
    return pos >> 1 if k.areas == 2 else pos


@njit(cache=True, inline="always", _nrt=False)
def _target_position(k, seat, target):
    """The position of ``target`` seen from ``seat``: the player ``target // areas + 1`` seats on, area
    ``target % areas``, i.e. ``(seat * areas + areas + target) mod T``; the sum is below 2T, so one
    subtraction replaces the divisions."""
    T = k.num_players * k.areas
    pos = (seat + 1) * k.areas + target
    return pos - T if pos >= T else pos


@njit(cache=True, inline="always", _nrt=False)
def _target(s, k, b, seat, target):
    """``target`` (an ADD / TAKE target) seen from ``seat``: its position, the size a set there has with
    one more card, and whether it is open (a set lies there, and not in front of a finished seat when
    ``finisher_closed``)."""
    pos = _target_position(k, seat, target)
    size = np.int64(s.set_size[b, pos]) + 1
    return pos, size, (size > 1) & (not (k.finisher_closed and s.out[b, _owner(k, pos)]))


# The card loops below visit every card and write every card's fields, choosing the value without a
# branch: whether a card is in a given set or hand is as good as random to the branch predictor, and
# unconditional stores let the loops vectorise. Each loop's result is the one of the plain ``if``.
# The values they compare the int8 card fields with (a seat, a position, a location) are int8 too
# (``np.int8(...)`` before the loop): an int64 operand made LLVM widen every card's byte to 8 bytes
# and compare in 64-bit lanes, four times the vector work of comparing 32 bytes at once. The counts
# that follow from a loop (cards moved) are read from the fields kept with the cards (``set_size``,
# ``sel_count``) instead of being summed in it, which left the loops pure byte maps.


@njit(cache=True, inline="always", _nrt=False)
def _discard(s, b, first, second):
    """The sets at positions ``first`` and ``second`` discarded in one pass over the cards (``first ==
    second``: one set; LLVM folds the repeated compare, so this costs what a one-set loop costs)."""
    table, gone, at_first, at_second = np.int8(LOC_TABLE), np.int8(LOC_DISCARD), np.int8(first), np.int8(second)
    for c in range(s.card_loc.shape[1]):
        where = s.card_where[b, c]
        hit = (s.card_loc[b, c] == table) & ((where == at_first) | (where == at_second))
        s.card_loc[b, c] = gone if hit else s.card_loc[b, c]
        s.card_where[b, c] = np.int8(0) if hit else where
        s.card_public[b, c] = s.card_public[b, c] & (not hit)
    s.set_size[b, first] = 0
    s.set_value[b, first] = 0
    s.set_size[b, second] = 0
    s.set_value[b, second] = 0


@njit(cache=True, inline="always", _nrt=False)
def _to_hand(s, b, pos, seat):
    """The set at ``pos`` (``set_size`` cards) into ``seat``'s hand: every card turned, known to everybody."""
    table, hand, at, holder = np.int8(LOC_TABLE), np.int8(LOC_HAND), np.int8(pos), np.int8(seat)
    for c in range(s.card_loc.shape[1]):
        hit = (s.card_loc[b, c] == table) & (s.card_where[b, c] == at)
        s.card_loc[b, c] = hand if hit else s.card_loc[b, c]
        s.card_where[b, c] = holder if hit else s.card_where[b, c]
        s.card_rot[b, c] ^= np.int8(hit)
        s.card_public[b, c] = s.card_public[b, c] | hit
    s.hand_count[b, seat] += s.set_size[b, pos]
    s.set_size[b, pos] = 0
    s.set_value[b, pos] = 0


@njit(cache=True, inline="always", _nrt=False)
def _place_selection(s, k, b, seat, pos, size):
    """The mover's selection (``sel_count`` cards of value ``sel_value``) onto the set at ``pos``, which then
    holds ``size`` cards (A: the selection alone; B: one more). The first other position holding a set of
    that size is beaten (the mask allowed the move, so that set is lower): it goes back to its owner's
    hand, turned and known, or is discarded when its owner is out.

    One pass over the cards does both (the cards beaten and the cards placed are disjoint), and no branch
    asks whether a set was beaten: with none, ``beaten`` is ``pos`` and ``at`` is false for every card, so
    the loop places the selection only and the count updates add and keep nothing. The beaten position is
    the lowest bit of the positions holding a set of that size (one ``cttz``), not a scan with an exit."""
    T = s.set_size.shape[1]
    sizes = np.int64(0)
    for q in range(T):
        sizes |= np.int64((s.set_size[b, q] == size) & (q != pos)) << q
    any_beaten = sizes != 0
    beaten = count_trailing_zeros(sizes) if any_beaten else pos
    owner = _owner(k, beaten)
    back = any_beaten & (not s.out[b, owner])
    # where the beaten cards go, decided once: the owner's hand (turned, known) or the discard
    table = np.int8(LOC_TABLE)
    beaten_loc = np.int8(LOC_HAND) if back else np.int8(LOC_DISCARD)
    beaten_where = np.int8(owner) if back else np.int8(0)
    turned = np.int8(back)
    from_pos, to_pos = np.int8(beaten), np.int8(pos)
    for c in range(s.card_loc.shape[1]):
        sel = s.card_selected[b, c]
        at = (s.card_loc[b, c] == table) & (s.card_where[b, c] == from_pos) & any_beaten
        s.card_loc[b, c] = table if sel else (beaten_loc if at else s.card_loc[b, c])
        s.card_where[b, c] = to_pos if sel else (beaten_where if at else s.card_where[b, c])
        s.card_rot[b, c] ^= np.int8(at) & turned
        s.card_public[b, c] = back if at else (s.card_public[b, c] & (not sel))
        s.card_selected[b, c] = False
    s.hand_count[b, owner] += s.set_size[b, beaten] * np.int8(back)
    keep = np.int8(not any_beaten)
    s.set_size[b, beaten] *= keep
    s.set_value[b, beaten] *= keep
    s.hand_count[b, seat] -= s.sel_count[b]
    s.set_size[b, pos] += s.sel_count[b]
    s.set_value[b, pos] = s.sel_value[b]


@njit(cache=True, inline="always", _nrt=False)
def _begin_move(s, k, b):
    pos = s.current[b] * k.areas + s.area[b]
    _discard(s, b, pos, pos)


@njit(cache=True, _nrt=False)
def _deal(s, k, b):
    """A new round: shuffle, deal round-robin, random orientations, the star's holder starts."""
    N, P = s.card_loc.shape[1], k.num_players
    # int64 from the start: with a literal 0, Numba compiled ``shuffle`` a second time, for
    # Literal[int](0), while it was still inferring the loop's type.
    n = np.int64(0)
    for c in range(N):
        s.deal_order[b, c] = -1
        if k.in_play[c]:
            s.deal_order[b, n] = c
            n += 1
        else:
            s.card_loc[b, c] = LOC_OUT
            s.card_where[b, c] = 0
    shuffle(s.rng_state, b, s.deal_order[b], n)
    for p in range(P):
        s.hand_count[b, p] = 0
        s.out[b, p] = False
    for i in range(n):
        c = s.deal_order[b, i]
        s.card_loc[b, c] = LOC_HAND
        s.card_where[b, c] = i % P
        s.hand_count[b, i % P] += 1
    for c in range(N):
        s.card_rot[b, c] = bounded(s.rng_state, b, 2) if k.in_play[c] else 0
        s.card_public[b, c] = False
        s.card_selected[b, c] = False
    for pos in range(s.set_size.shape[1]):
        s.set_size[b, pos] = 0
        s.set_value[b, pos] = 0
    s.sel_count[b] = 0
    s.sel_value[b] = 0
    s.finishers[b] = 0
    s.current[b] = s.card_where[b, k.star]
    s.area[b] = k.areas - 1
    _begin_move(s, k, b)


@njit(cache=True, _nrt=False)
def _set_rewards(s, k, b):
    P = k.num_players
    if k.reward_mode == REWARD_SCORE:
        for p in range(P):
            s.rewards[b, p] = s.points[b, p]
        return
    best = -1
    for p in range(P):
        best = max(best, np.int64(s.points[b, p]))
    n_win = 0
    for p in range(P):
        n_win += s.points[b, p] == best
    for p in range(P):
        x = s.points[b, p]
        if k.reward_mode == REWARD_WIN:
            if n_win == P:
                s.rewards[b, p] = 0.0
            elif x == best:
                s.rewards[b, p] = 1.0 / n_win
            else:
                s.rewards[b, p] = -1.0 / (P - n_win)
        else:
            beats = 0
            for q in range(P):
                y = s.points[b, q]
                beats += (x > y) - (x < y)
            s.rewards[b, p] = beats / (P - 1)


@njit(cache=True, _nrt=False)
def _finish(s, k, b, seat):
    """``seat`` has played its last card; True when the round (or the game) ended here."""
    if k.num_players == 2:
        s.points[b, seat] += 1
        round_over = True
    elif s.finishers[b] == 0:
        s.points[b, seat] += 2
        s.out[b, seat] = True
        s.finishers[b] = 1
        round_over = False
    else:
        s.points[b, seat] += 1
        round_over = True
    if s.points[b, seat] >= k.target:
        s.terminated[b] = True
        _set_rewards(s, k, b)
        return True
    if round_over:
        s.rounds[b] += 1
        if s.turn[b] >= k.max_turns:
            s.truncated[b] = True
            return True
        _deal(s, k, b)
        return True
    return False


@njit(cache=True, inline="always", _nrt=False)
def _advance(s, k, b):
    """The next move: the same seat's second area, or the next seat (two players); the next seat that is
    not out (3-5 players). Its start discards the set in front of the mover (``_begin_move``)."""
    if k.areas == 2:
        if s.area[b] == 0:
            s.area[b] = 1
        else:
            s.current[b] = 1 - s.current[b]
            s.area[b] = 0
        _begin_move(s, k, b)
        return
    # 3-5 players: the next seat that is not out moves; the set of every seat passed over (out) is
    # discarded, then the mover's. Play leaves at most one seat out (the round ends with the second
    # finisher), so at most one seat is passed over: its set and the mover's go in one pass over the
    # cards, chosen without a branch on which seat is out (as good as random to the branch predictor).
    # Two out in a row happen only in positions written from outside (``load``): the plain loop.
    nxt = np.int64(s.current[b]) + 1
    nxt = 0 if nxt == k.num_players else nxt
    after = 0 if nxt + 1 == k.num_players else nxt + 1
    skipped = s.out[b, nxt]
    if skipped & s.out[b, after]:
        while s.out[b, nxt]:
            _discard(s, b, nxt, nxt)
            nxt = 0 if nxt + 1 == k.num_players else nxt + 1
        s.current[b] = nxt
        _begin_move(s, k, b)
        return
    mover = after if skipped else nxt
    s.current[b] = mover
    _discard(s, b, nxt, mover)  # nxt == mover when nobody was passed over


@njit(cache=True, inline="always", _nrt=False)
def _step_game(s, k, b, action):
    """Game b's decision ``action`` (legal), then everything automatic up to the next decision."""
    N = s.card_loc.shape[1]
    seat = np.int64(s.current[b])
    if action < N:
        # the first card sets the selection's value: a select, not a branch (first or later card is
        # as good as random to the branch predictor); an unsigned card index spares the wraparound
        card = np.uintp(action)
        first = _active(s, k, b, card)
        s.sel_value[b] = first if s.sel_count[b] == 0 else s.sel_value[b]
        s.card_selected[b, card] = True
        s.sel_count[b] += 1
        return
    shed = False
    if action == k.play:
        _place_selection(s, k, b, seat, seat * k.areas + s.area[b], np.int64(s.sel_count[b]))
        shed = True
    elif action < k.take_base:
        pos = _target_position(k, seat, action - k.add_base)
        _place_selection(s, k, b, seat, pos, np.int64(s.set_size[b, pos]) + 1)
        shed = True
    elif action < k.turn_action:
        _to_hand(s, b, _target_position(k, seat, action - k.take_base), seat)
    else:
        hand, holder = np.int8(LOC_HAND), np.int8(seat)
        for c in range(N):
            s.card_rot[b, c] ^= np.int8((s.card_loc[b, c] == hand) & (s.card_where[b, c] == holder))
    s.sel_count[b] = 0
    s.sel_value[b] = 0
    s.turn[b] += 1
    if shed and s.hand_count[b, seat] == 0 and _finish(s, k, np.intp(b), seat):  # cold: one compiled copy
        return
    if s.turn[b] >= k.max_turns:
        s.truncated[b] = True
        return
    _advance(s, k, b)


@njit(cache=True, inline="always", _nrt=False)
def _blocked_sizes(s, b, value):
    """The sizes that a set of ``value`` may not have, as bits: bit m set when a set of m cards and value
    ``value`` or more lies on the table (rules A and B: a set must beat any set of its size). Sets of 64
    cards or more set no bit, and ``_size_bit`` calls every size of 64 or more free: both exact, since a
    set of m >= 64 cards beside another set of m (or a hand holding m, or a set of m - 1 to add to) would
    need over 80 cards, and a deck holds at most ``MAX_CARDS`` (80)."""
    bits = _U0
    for pos in range(s.set_size.shape[1]):
        size = np.uint64(s.set_size[b, pos])
        bits |= np.uint64((s.set_value[b, pos] >= value) & (size < _U64)) << (size & _U63)
    return bits


@njit(cache=True, inline="always", _nrt=False)
def _size_bit(bits, size):
    """Bit ``size`` of a ``_blocked_sizes`` word, as a bool (False for sizes of 64 or more)."""
    return (size < 64) & (((bits >> np.uint64(size & 63)) & _U1) != _U0)


@njit(cache=True, inline="always", _nrt=False)
def _at_least(low, high, count):
    """Bit v set when the hand counts (``_mask_game``'s bytes: value v in byte v of ``low`` for v = 1..7,
    byte v - 8 of ``high`` for v = 8..10) hold ``count`` (1..127) or more cards of value v. Per byte,
    (n | 0x80) - count keeps bit 7 exactly when n >= count (n <= 127: no borrow between bytes); the bytes'
    bit 7 are gathered into bits 0..7 by one multiplication."""
    take = np.uint64(count) * _BYTE_ONES
    reach_low = (np.uint64(low) | _BYTE_TOPS) - take
    reach_high = (np.uint64(high) | _BYTE_TOPS) - take
    bits_low = (((reach_low & _BYTE_TOPS) >> _U7) * _GATHER) >> _U56
    bits_high = (((reach_high & _BYTE_TOPS) >> _U7) * _GATHER) >> _U56
    return np.int64((bits_low | (bits_high << _U8)) & _VALUE_BITS)


@njit(cache=True, inline="always", _nrt=False)
def _start_values(s, b, low, high):
    """Bit v set when the mover's hand (counts ``low``, ``high``: ``_at_least``) may start a set of value v
    by rule A: it holds n >= 1 cards of v and some size m <= n is free for v (no set of m cards and value
    v or more on the table; more than T sizes always hold a free one). Without a branch: the table's
    sets as value bits per size (field m - 1 of 11 bits: bits 1..w for a set of m cards and value w, so a
    second set of the same size adds nothing new), their running AND over the sizes 1, 2, ... (bit v of
    ``run`` after size m: sizes 1..m all blocked for v), and for each size m a value v still blocked at
    1..m needs more than m cards."""
    T = s.set_size.shape[1]
    rows = np.int64(0)
    for pos in range(T):
        m = np.int64(s.set_size[b, pos])
        used = np.int64((m >= 1) & (m <= T))
        rows |= (((np.int64(2) << s.set_value[b, pos]) - 2) * used) << (11 * (m - 1) * used)
    run = np.int64(_VALUE_BITS)
    fine = _at_least(low, high, 1)
    for m in range(1, T + 1):
        run &= rows >> (11 * (m - 1))
        fine &= ~run | _at_least(low, high, m + 1)
    return fine


@njit(cache=True, inline="always", _nrt=False)
def _mask_game(s, k, b):
    """Game b's legal-action mask (all False once over).

    One pass over the cards gathers what the mover's hand holds (the count of each active value);
    every selection's legality follows from those counts and the few sets on the table, instead of
    re-scanning the hand for every candidate card and size. The card loops are branch-free (a card's
    place is as good as random to a branch predictor, which cost most of the mask's time), and so are
    the checks against the table (``_blocked_sizes``, ``_start_values``): the move actions after the cards
    (PLAY, ADD, TAKE, TURN) are gathered as the bits of one word and written by ``bits.store_bit_bytes``."""
    N, A = s.card_loc.shape[1], s.legal_mask.shape[1]
    if s.terminated[b] or s.truncated[b]:
        for a in range(A):
            s.legal_mask[b, a] = False
        return
    T = s.set_size.shape[1]
    seat = np.int64(s.current[b])
    hand, holder = np.int8(LOC_HAND), np.int8(seat)
    chosen = np.int64(s.sel_count[b])
    if chosen == 0:
        # Hand counts by active value, packed 8 bits a value (a hand holds at most 80 cards): values
        # 1-7 in ``low`` (bits 8v..), 8-10 in ``high`` (bits 8(v-8)..). Gathered as three 32-bit words
        # of four values each, truncated to 32 bits at every step, so the loop runs in 32-bit lanes
        # (twice as many cards per vector as with 64-bit sums; ~8% of this mask).
        sum0, sum1, sum2 = np.int32(0), np.int32(0), np.int32(0)
        for c in range(N):
            mine = np.int32((s.card_loc[b, c] == hand) & (s.card_where[b, c] == holder))
            v = _active8(s, k, b, c)
            one = np.int32(mine << (8 * (v & 3)))
            word = v >> 2
            sum0 = np.int32(sum0 + one * np.int32(word == 0))
            sum1 = np.int32(sum1 + one * np.int32(word == 1))
            sum2 = np.int32(sum2 + one * np.int32(word == 2))
        low = (np.int64(sum0) & 0xFFFFFFFF) | (np.int64(sum1) << 32)
        high = np.int64(sum2) & 0xFFFFFFFF
        # Bit v of ``fine``: a card of value v can start a selection (a legal A of 1..count cards of v,
        # or a legal B of one card of v). A legal B depends on the target only: its value gets the bit.
        moves = np.int64(1) << (MOVE_ACTIONS - 1)  # TURN is always legal
        fine = np.int64(0)
        for t in range(k.num_targets):
            pos, size, open_ = _target(s, k, b, seat, t)
            moves |= np.int64(open_) << (1 + NUM_TARGETS + t)  # TAKE
            blocked = _size_bit(_blocked_sizes(s, b, s.set_value[b, pos]), size)
            fine |= np.int64(open_ & (not blocked)) << s.set_value[b, pos]
        fine |= _start_values(s, b, low, high)  # a legal A
        for c in range(N):
            mine = (s.card_loc[b, c] == hand) & (s.card_where[b, c] == holder)
            s.legal_mask[b, c] = mine & (((fine >> _active_branchless(s, k, b, c)) & 1) != 0)
    else:
        # A selection of ``chosen`` cards of value v: another card of v while a larger legal set of v
        # remains (n: the hand's cards of v, the selected ones included: some size in chosen+1..n free;
        # more than T sizes always hold a free one), PLAY if this one is legal, and with one card an
        # ADD onto a set of v. The count is a byte (n <= 80), so the card loop stays in byte lanes. The
        # cards are read twice (count, then write) rather than the mask row written and then cleared
        # where no larger set is left: reading back the bytes just stored, by wider loads than the
        # stores, waited for each store (a store-forwarding stall: that second loop cost as much as the
        # first), and clearing them behind a branch on the result mispredicted.
        v = np.int64(s.sel_value[b])
        value = np.int8(v)
        n = np.uint8(0)
        for c in range(N):
            same = (s.card_loc[b, c] == hand) & (s.card_where[b, c] == holder) & (_active8(s, k, b, c) == value)
            n = np.uint8(n + np.uint8(same))
        blocked = _blocked_sizes(s, b, v)
        span = np.int64(n) - chosen  # the sizes chosen+1..n; those of 64 or more are free (``_size_bit``)
        sizes = (_U1 << np.uint64(min(max(span, 0), 63))) - _U1
        window = ((~blocked >> np.uint64(min(chosen + 1, 63))) & sizes) != _U0
        more = (span >= 1) & ((span > T) | (n >= 64) | window)
        for c in range(N):
            same = (s.card_loc[b, c] == hand) & (s.card_where[b, c] == holder) & (_active8(s, k, b, c) == value)
            s.legal_mask[b, c] = same & more & (not s.card_selected[b, c])
        moves = np.int64(not _size_bit(blocked, chosen))  # PLAY
        for t in range(k.num_targets):
            pos, size, open_ = _target(s, k, b, seat, t)
            add = open_ & (chosen == 1) & (s.set_value[b, pos] == v) & (not _size_bit(blocked, size))
            moves |= np.int64(add) << (1 + t)
    store_bit_bytes(s.legal_mask, b, N, np.uint64(moves), MOVE_ACTIONS)


@njit(cache=True, _nrt=False)
def _reset_game(s, k, b):
    for p in range(k.num_players):
        s.points[b, p] = 0
        s.rewards[b, p] = 0.0
    s.turn[b] = 0
    s.rounds[b] = 0
    s.terminated[b] = False
    s.truncated[b] = False
    _deal(s, k, b)
    _mask_game(s, k, b)


# ------------------------------------------------------------------------ observation


@njit(cache=True, inline="always", _nrt=False)
def _observe_game(s, k, b, seat, out):
    """Game b as ``seat`` sees it, written into ``out`` (``observation.py``). Relative seats and
    positions come from one comparison each (``x - seat``, plus P or T when negative), not a modulo."""
    P, A, N, F = k.num_players, k.areas, s.card_loc.shape[1], k.card_width
    T = P * A
    for i in range(out.shape[0]):
        out[i] = 0.0
    live = not (s.terminated[b] or s.truncated[b])
    mover = live and s.current[b] == seat
    if live:
        cur = s.current[b] - seat
        out[k.off_acting + (cur + P if cur < 0 else cur)] = 1.0
        out[k.off_area + s.area[b]] = 1.0
        if mover and s.sel_count[b] > 0:
            out[k.off_selection] = s.sel_count[b]
            out[k.off_selection + 1] = s.sel_value[b]
    p = seat
    for rel in range(P):
        base = k.off_players + 4 * rel
        out[base] = s.hand_count[b, p]
        out[base + 1] = s.points[b, p]
        out[base + 2] = 1.0 if s.out[b, p] else 0.0
        p = 0 if p + 1 == P else p + 1
    pos = seat * A  # relative position r is absolute position (seat * A + r) mod T
    for rel_pos in range(T):
        out[k.off_table + 2 * rel_pos] = s.set_value[b, pos]
        out[k.off_table + 2 * rel_pos + 1] = s.set_size[b, pos]
        pos = 0 if pos + 1 == T else pos + 1
    for c in range(N):
        base = k.off_cards + c * F
        out[base] = k.values[c, 0]
        out[base + 1] = k.values[c, 1]
        loc = s.card_loc[b, c]
        where = np.int64(s.card_where[b, c])
        visible = False
        if loc == LOC_HAND:
            rel = where - seat
            rel = rel + P if rel < 0 else rel
            if s.card_public[b, c]:
                out[k.off_players + 4 * rel + 3] += 1.0
            if rel == 0:
                visible = True
                out[base + 4] = 1.0
                if mover and s.card_selected[b, c]:
                    out[base + 5] = 1.0
                out[base + 6] = 1.0 if s.card_public[b, c] else 0.0
                active = _active(s, k, b, c)
                out[k.off_hand_values + active - 1] += 1.0
                out[k.off_hand_values + MAX_VALUE + (active ^ k.value_flip[c]) - 1] += 1.0
            elif s.card_public[b, c]:
                visible = True
                out[base + 7 + T + rel - 1] = 1.0
        elif loc == LOC_TABLE:
            visible = True
            rel_pos = where - seat * A
            out[base + 7 + (rel_pos + T if rel_pos < 0 else rel_pos)] = 1.0
        elif loc == LOC_DISCARD:
            out[base + 7 + T + P - 1] = 1.0
        else:
            out[base + 7 + T + P] = 1.0
        if visible:
            out[base + 2] = _active(s, k, b, c)
            out[base + 3] = s.card_rot[b, c]


# ============================================================================ batch kernels
# Each batch operation is a serial loop over a range of games (``*_range``; Numba inlines the per-game
# functions into it) and a parallel kernel that splits the batch into ``chunks`` ranges and runs them
# in a ``prange`` (``docs/engine_pattern.md``): the per-game functions are inlined only into the serial
# loops, never into a ``prange`` body, and the ``prange`` body passes the state tuple once per range
# instead of once per game.


@njit(cache=True, _nrt=False)
def step_range(s, k, actions, active, lo, hi):
    """Steps the live, active games among ``lo..hi-1`` with their (legal) actions, then their masks;
    every game's rewards in the range are reset first (only the steps that end the game pay). The game
    index is unsigned (``np.uintp``): Numba adds a negative-index wraparound to every array access with a
    signed one. No prefetching (Keine Ahnung's ``_prefetch_game``): a dnp game's state is ~380 bytes,
    ~1.5 MB at batch 4,096, which stays in a core's 2 MB L2; prefetching the card and mask rows four
    games ahead made the step no faster (``research/kernel_ab.py``: 0.98x without it)."""
    for b in range(lo, hi):
        g = np.uintp(b)
        for p in range(s.rewards.shape[1]):
            if s.rewards[g, p] != 0.0:  # a conditional store: LLVM made the plain loop a memset call per game
                s.rewards[g, p] = 0.0
        if active[g] and not (s.terminated[g] or s.truncated[g]):
            _step_game(s, k, g, actions[g])
            _mask_game(s, k, g)


@njit(cache=True, parallel=True)
def step_kernel(s, k, actions, active, chunks):
    """``step_range`` over the whole batch, in ``chunks`` ranges spread over the threads."""
    n = actions.shape[0]
    for c in prange(chunks):
        step_range(s, k, actions, active, c * n // chunks, (c + 1) * n // chunks)


@njit(cache=True, _nrt=False)
def deal_range(s, k, games, lo, hi):
    """New games in rows ``games[lo:hi]`` (each from its own stream), dealt up to their first decision."""
    for i in range(lo, hi):
        _reset_game(s, k, games[i])


@njit(cache=True, parallel=True)
def deal_kernel(s, k, games, chunks):
    n = games.shape[0]
    for c in prange(chunks):
        deal_range(s, k, games, c * n // chunks, (c + 1) * n // chunks)


@njit(cache=True, _nrt=False)
def mask_kernel(s, k, games):
    """Recomputes the masks of the listed games (after a position was loaded)."""
    for i in range(games.shape[0]):
        _mask_game(s, k, games[i])


@njit(cache=True, _nrt=False)
def observe_range(s, k, games, seats, out, lo, hi):
    """``out[i]`` = game ``games[i]`` as seat ``seats[i]`` sees it, for i in ``lo..hi-1``."""
    for i in range(lo, hi):
        _observe_game(s, k, games[i], seats[i], out[i])


@njit(cache=True, parallel=True)
def observe_kernel(s, k, games, seats, out, chunks):
    n = games.shape[0]
    for c in prange(chunks):
        observe_range(s, k, games, seats, out, c * n // chunks, (c + 1) * n // chunks)


# ------------------------------------------------------------------ the packed entry points
# The core's state and constants live in one buffer (``packing.py``): these kernels take it as two
# arrays and rebuild the tuples inside compiled code, so a call unboxes two arrays instead of ~60 (a
# batch-1 step, observation or deal paid more for that than for its rules).


@njit(cache=True, inline="always", _nrt=False)
def unpack(buf, meta):
    """The ``State`` and ``Consts`` tuples from a core's packed buffer (``packing.py``)."""
    s = State(
        field2(buf, meta, 0, np.int8),  # card_loc
        field2(buf, meta, 1, np.int8),  # card_where
        field2(buf, meta, 2, np.int8),  # card_rot
        field2(buf, meta, 3, np.bool_),  # card_public
        field2(buf, meta, 4, np.bool_),  # card_selected
        field2(buf, meta, 5, np.int16),  # deal_order
        field2(buf, meta, 6, np.int8),  # set_size
        field2(buf, meta, 7, np.int8),  # set_value
        field2(buf, meta, 8, np.int8),  # hand_count
        field1(buf, meta, 9, np.int8),  # sel_count
        field1(buf, meta, 10, np.int8),  # sel_value
        field2(buf, meta, 11, np.int16),  # points
        field2(buf, meta, 12, np.bool_),  # out
        field1(buf, meta, 13, np.int8),  # finishers
        field1(buf, meta, 14, np.int8),  # current
        field1(buf, meta, 15, np.int8),  # area
        field1(buf, meta, 16, np.int32),  # turn
        field1(buf, meta, 17, np.int16),  # rounds
        field1(buf, meta, 18, np.bool_),  # terminated
        field1(buf, meta, 19, np.bool_),  # truncated
        field2(buf, meta, 20, np.float32),  # rewards
        field2(buf, meta, 21, np.bool_),  # legal_mask
        field2(buf, meta, 22, np.uint64),  # rng_state
    )
    k = Consts(
        field2(buf, meta, 23, np.int8),  # values
        field1(buf, meta, 24, np.int8),  # value_up
        field1(buf, meta, 25, np.int8),  # value_flip
        field1(buf, meta, 26, np.bool_),  # in_play
        int_at(buf, meta, 27),  # star
        int_at(buf, meta, 28),  # num_players
        int_at(buf, meta, 29),  # areas
        int_at(buf, meta, 30),  # target
        int_at(buf, meta, 31),  # max_turns
        int_at(buf, meta, 32),  # reward_mode
        bool_at(buf, meta, 33),  # finisher_closed
        int_at(buf, meta, 34),  # num_targets
        int_at(buf, meta, 35),  # play
        int_at(buf, meta, 36),  # add_base
        int_at(buf, meta, 37),  # take_base
        int_at(buf, meta, 38),  # turn_action
        int_at(buf, meta, 39),  # obs_size
        int_at(buf, meta, 40),  # card_width
        int_at(buf, meta, 41),  # off_acting
        int_at(buf, meta, 42),  # off_area
        int_at(buf, meta, 43),  # off_selection
        int_at(buf, meta, 44),  # off_players
        int_at(buf, meta, 45),  # off_table
        int_at(buf, meta, 46),  # off_hand_values
        int_at(buf, meta, 47),  # off_cards
    )
    return s, k


PACKED = define_packed_entry_points(globals())
"""The serial entry points' packed twins (``CompiledCore._run`` calls these on a packed core):
``step_range_packed``, ``step_range_checked`` (and its twin), ``deal_range_packed`` and
``observe_range_packed``, compiled for this game from ``packing.py``'s templates."""


# The rules compile in the random stream's kernels (``rng.py``), the bit intrinsics (``bits.py``) and the
# packed entry points the field readers (``packing.py``): a change there must reach this module's cached
# machine code too (``kernel_cache``).
drop_stale_cache(__file__, step_range, [_rng_module.__file__, _bits_module.__file__, _packing_module.__file__])
