"""dnp's ``tactician`` heuristic compiled with Numba, row by row.

:class:`~.agents.TacticianAgent` (``agents.py``, ``compiled=False``) is the readable reference: a
Python decision per row through ``_View``, ``_choose``, ``_rank``, ``survive``, ``other_move`` and
``_order``. This module is the same decision written once per row as plain loops (the pattern of
``docs/engine_pattern.md``): :func:`decide_range` runs the rows of a range and :func:`decide_kernel`
splits a large batch into ranges and runs them in a ``prange``. A row reads only what the reference
reads: the seat's observation (decoded as ``_View`` does, through the section offsets of
:func:`layout_info`, computed in Python once per table size), its legal mask and the tactician's four
class constants (:func:`params`: RISK, BEAT_INTENT, BEAT_WEIGHT, TURN_MARGIN, read at every call).

The same decision on every row. Every complete move is scored as the reference scores it and the
kernel keeps the first under the reference's sort key ``(-score, kind, -value, arg)`` ("A" before
"B"), among the moves that continue the selection in progress when there is one; TURN comes from the
same rules as ``other_move``; cards are taken in ``_order``'s order (by how often the card's other
value occurs in the hand, then by card id). Order and floats: hands are counted by value (whole
numbers, exact in any order), and every float of a score is computed with the reference's operations
in the reference's order: the expected threats (halves summed, ``per_value * hidden / total``, then 1.0
added per known card in card order), the Poisson terms (``cdf += term; term *= lam / (i + 1)``), the
products ``(1 - BEAT_INTENT * p_beat) ** moves`` and ``survive ** RISK`` (LLVM's ``pow``, the C
library's, which NumPy's scalar power also calls: the exponent reaches ``pow`` as a run-time value,
so LLVM does not rewrite ``pow(x, 2.0)`` as ``x * x``, which differs in the last bit for about one
value in a thousand) and the score's sums left to right. Scores are therefore equal bit for bit;
``tests/test_tactician_kernel.py`` compares every row's moves and scores with the reference's.

``np.exp``. The reference computes ``np.exp(-lam)``, NumPy's exponential, which is not the C library's
on every machine (on AVX-512 machines NumPy uses Intel's SVML routine, which differs from
``math.exp`` in the last bit for ~5% of the arguments dnp produces), and a last-bit difference does
change rankings (with the C library's exponential, 2 of 42,240 decisions of real play at 2-5 players
differ). The kernel therefore never computes an exponential: it looks ``exp(-lam)`` up in
:data:`EXP_TABLE`, a table keyed by the bits of ``lam`` whose values NumPy computed by the reference's
own call (``np.exp(-lam)`` on a float64 scalar). A row that meets a ``lam`` not yet in the table
returns :data:`NEED_EXP`; the caller (:func:`decide`, ``agents.play_lineup``'s loop) adds the row's
values with NumPy and decides the row again. dnp's threats take few distinct values (whole numbers of
halves scaled by hand sizes: 1,600 in those 42,240 positions), so after the first games every lookup
hits.

What stays in Python. :data:`FALLBACK` (the reference's choice is illegal: its answer is
``sample_masked(self.rng, ...)``) and :data:`REFERENCE` (a row the kernel does not decide: an
observation with values outside the game's ranges, or a NaN score, which only extreme class constants
give and under which Python's sort is not a total order) are returned as negative codes, and
:meth:`~.agents.TacticianAgent.act` resolves them in row order after the kernel, so the agent's
generator is drawn from exactly as the reference draws from it. With ``finisher_set="open"`` (the
default) the fallback is unreachable from a position of the engine: the top move is always one the
mask offers (a set that beats nothing of its size or more, an ADD onto a set of its value, TURN), and
a selection in progress always has a move of its size or more. With ``finisher_set="closed"`` the
tactician may rank an ADD onto the first finisher's set, which the mask refuses, and the fallback draws.

Playing seats in the engine. :func:`play_range` / :func:`play_kernel` (``TacticianAgent.play_turns``,
``agents.play_lineup``) observe a game with the engine's ``observe_range``, decide with
:func:`decide_row` and step it with ``step_range`` while a held seat is to act, so a whole game costs
one call. They pause a game (not stepping it) at a decision that needs Python (a missing exponential,
a :data:`REFERENCE` row) and the caller resolves it and calls again. ``play_lineup`` uses them only
for tables that tacticians hold alone (search roll-outs, ``play_seats`` with tacticians in every
seat): its docstring says why a table shared with other agents is left to ``act``.

First use compiles these kernels (about a minute on the shared 2-core machine); later processes load
them from ``__pycache__``.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, prange
from numba.core import types
from numba.extending import intrinsic

from ... import bits as _bits_module
from ... import packing as _packing_module
from ... import rng as _rng_module
from ...agent_base import parallel_chunks
from ...bits import opaque, popcount
from ...kernel_cache import drop_stale_cache
from . import actions as _actions
from . import deck as _deck
from . import kernels as _kernels_module
from .kernels import observe_range, step_range
from .observation import ObservationLayout

# The rules modules' constants, written out (Numba's cache does not notice a change in another module;
# the assertions below do).
MAX_VALUE = 10
NUM_TARGETS = 4
ADD_OFFSET, TURN_OFFSET = 1, 1 + 2 * NUM_TARGETS
"""ADD_t is action N + ADD_OFFSET + t, TURN is N + TURN_OFFSET (PLAY is N)."""
CARD_UPRIGHT, CARD_ROTATED, CARD_ACTIVE, CARD_HAND, CARD_SELECTED, CARD_TABLE = 0, 1, 2, 4, 5, 7
"""Columns of a card's features: its two printed values, its active value, the flags "in your hand" and
"selected"; the flags of the table positions start at CARD_TABLE, those of the other seats' known hand
cards follow the T table positions. Every column from CARD_HAND on is a flag (a card with none is unseen)."""
_layout = ObservationLayout.make(4, 40)
_action_layout = _actions.ActionLayout(40, 4)
assert (MAX_VALUE == _deck.MAX_VALUE and NUM_TARGETS == _actions.NUM_TARGETS
        and (_action_layout.play, _action_layout.add_base, _action_layout.turn) == (40, 40 + ADD_OFFSET,
                                                                                     40 + TURN_OFFSET)
        and tuple(name for name, _ in _layout.sections) == ("acting", "area", "selection", "players", "table",
                                                             "hand_values", "cards")
        and _layout.card_width == CARD_TABLE + 1 + _layout.positions + _layout.num_players), \
    "dnp agent_kernels.py's constants differ from actions.py / deck.py / observation.py: update them"

# The reference's own numbers (``TacticianAgent._rank`` and ``_beat_value``), written out too: a change on
# one side only is what ``tests/test_tactician_kernel.py`` catches.
GO_OUT = 1000.0
"""The score of a move that empties the hand (``_rank``'s rule 1)."""
SIZE_BONUS, ADD_BONUS = 0.05, 0.06
"""``_rank``'s ``0.05 * m`` for a set of m cards and its ``0.06`` for an ADD."""
OWN_SET, NEAR_OUT_BASE, NEAR_OUT_WEIGHT = -1.5, 0.6, 2.0
"""``_beat_value``: -1.5 per card of one's own set; size * (0.6 + 2 / (1 + the owner's hand)) otherwise."""

# Indices into the ``info`` argument (:func:`layout_info`).
INFO_PLAYERS, INFO_AREAS, INFO_CARDS, INFO_POSITIONS, INFO_CARD_WIDTH, INFO_SELECTION, INFO_SEATS, INFO_TABLE, \
    INFO_CARD_SECTION = range(9)

# Indices into the ``params`` argument (the tactician's class constants as float64).
PARAM_RISK, PARAM_BEAT_INTENT, PARAM_BEAT_WEIGHT, PARAM_TURN_MARGIN = range(4)
NUM_PARAMS = 4
PARAM_NAMES = ("RISK", "BEAT_INTENT", "BEAT_WEIGHT", "TURN_MARGIN")

# What a row's decision returns besides an action.
FALLBACK = -1
"""The reference's choice is illegal: ``sample_masked(rng, mask)`` decides (in Python, in row order)."""
REFERENCE = -2
"""The kernel does not decide this row: the reference's ``_choose`` does (in Python)."""
NEED_EXP = -3
"""An ``exp(-lam)`` the row needs is not in :data:`EXP_TABLE` yet: add it and decide again."""
STUCK = -4
"""(play kernels) A live game offers nothing legal."""


def layout_info(num_players: int, num_cards: int) -> np.ndarray:
    """``int64 [9]``: the table size and where the observation's sections start (``INFO_*``)."""
    layout = ObservationLayout.make(num_players, num_cards)
    off = layout.offsets()
    return np.array([num_players, layout.areas, num_cards, layout.positions, layout.card_width, off["selection"],
                     off["players"], off["table"], off["cards"]], np.int64)


def params(agent) -> np.ndarray | None:
    """``float64 [NUM_PARAMS]``: the agent's RISK, BEAT_INTENT, BEAT_WEIGHT and TURN_MARGIN as they are now
    (instance or class attributes); None where one is not a finite number that float64 holds exactly (a
    NumPy float32, an integer beyond 2**53, NaN or infinity): the reference's arithmetic then differs from
    the kernel's, and the agent decides in Python."""
    out = np.empty(NUM_PARAMS, np.float64)
    for i, name in enumerate(PARAM_NAMES):
        value = getattr(agent, name)
        if isinstance(value, float):  # Python floats and np.float64
            if not np.isfinite(value):
                return None
        elif isinstance(value, int):  # Python ints and bools
            if abs(value) > 2 ** 53:
                return None
        else:
            return None
        out[i] = float(value)
    return out


# ============================================================================ the exponential table

_MIX = np.uint64(0x9E3779B97F4A7C15)
_U1, _U32 = np.uint64(1), np.uint64(32)


@intrinsic
def _float_bits(typingctx, x):
    """The bits of a float64 as an int64 (a bit cast: no instruction)."""
    if x != types.float64:
        return None

    def codegen(context, builder, signature, args):
        return builder.bitcast(args[0], ir.IntType(64))
    return types.int64(x), codegen


@njit(cache=True, inline="always", _nrt=False)
def _exp_lookup(keys, vals, lam):
    """``np.exp(-lam)`` from the table (``keys``: bits of each ``lam``, 0 empty; linear probing), or -1.0
    when ``lam`` is not in it. The table is never more than half full, so the probe ends."""
    key = _float_bits(lam)
    mask = np.uint64(keys.shape[0] - 1)
    i = ((np.uint64(key) * _MIX) >> _U32) & mask
    while True:
        found = keys[i]
        if found == key:
            return vals[i]
        if found == 0:
            return -1.0
        i = (i + _U1) & mask


@njit(cache=True)
def _exp_insert(keys, vals, lams, exps):
    """Puts ``exps[j]`` under ``lams[j]`` (positive, not yet in the table, distinct)."""
    mask = np.uint64(keys.shape[0] - 1)
    for j in range(lams.shape[0]):
        key = _float_bits(lams[j])
        i = ((np.uint64(key) * _MIX) >> _U32) & mask
        while keys[i] != 0 and keys[i] != key:
            i = (i + _U1) & mask
        keys[i] = key
        vals[i] = exps[j]


@njit(cache=True)
def _exp_missing(keys, vals, lams, out):
    """``out[j]``: ``lams[j]`` is not in the table."""
    for j in range(lams.shape[0]):
        out[j] = _exp_lookup(keys, vals, lams[j]) < 0.0


class ExpTable:
    """``np.exp(-lam)`` for every ``lam`` met so far, as the reference computes it, in two arrays the
    kernels read (``keys``: the bits of ``lam``, ``vals``: the exponential). Values are added by
    :meth:`add` between kernel calls, never during one; growing replaces both arrays."""

    def __init__(self, capacity: int = 1 << 12):
        self.keys = np.zeros(capacity, np.int64)
        self.vals = np.zeros(capacity, np.float64)
        self.count = 0

    def add(self, lams: np.ndarray) -> int:
        """Adds the positive values of ``lams`` that are missing; returns how many were added."""
        lams = np.unique(np.asarray(lams, np.float64).ravel())
        lams = np.ascontiguousarray(lams[lams > 0.0])
        missing = np.zeros(lams.size, np.bool_)
        _exp_missing(self.keys, self.vals, lams, missing)
        new = lams[missing]
        if new.size == 0:
            return 0
        # The reference's call, value by value: np.exp of the negated float64 scalar.
        exps = np.array([np.exp(-x) for x in new], np.float64)
        while 2 * (self.count + new.size) > self.keys.size:
            self._grow()
        _exp_insert(self.keys, self.vals, new, exps)
        self.count += new.size
        return int(new.size)

    def _grow(self) -> None:
        used = self.keys != 0
        lams, exps = self.keys[used].view(np.float64), self.vals[used]
        self.keys = np.zeros(2 * self.keys.size, np.int64)
        self.vals = np.zeros(2 * self.vals.size, np.float64)
        _exp_insert(self.keys, self.vals, np.ascontiguousarray(lams), np.ascontiguousarray(exps))


EXP_TABLE = ExpTable()
"""The exponentials every tactician shares (a pure function of ``lam``, so one table serves all)."""


# ============================================================================ decoding (_View, _threats)

@njit(cache=True, inline="always")
def _trunc(x):
    """``x`` truncated to an integer as NumPy's ``astype(int64)`` / Python's ``int`` do, and whether it was
    a finite value in range (NaN and huge values are left to the reference)."""
    if abs(x) < 1e9:
        return np.int64(x), True
    return np.int64(0), False


@njit(cache=True, inline="always")
def _in_values(x):
    return (x >= 0) & (x <= MAX_VALUE)


@njit(cache=True)
def _scratch(P, N, T):
    """Per-range work arrays of :func:`decide_row` (see :func:`_decode` for what each holds)."""
    V = MAX_VALUE + 1
    return (np.zeros(N, np.int64), np.zeros(N, np.int64), np.zeros(N, np.int64), np.zeros(N, np.bool_),
            np.zeros(T, np.int64), np.zeros(T, np.int64), np.zeros(P, np.int64), np.zeros(P, np.bool_),
            np.zeros((P, V)), np.zeros((P, V)), np.zeros(V), np.zeros(P, np.int64), np.zeros(N, np.int64),
            np.zeros(V, np.int64), np.zeros(V, np.int64), np.zeros(V, np.int64), np.zeros(V, np.int64))


@njit(cache=True, _nrt=False)
def _decode(obs, info, w):
    """One observation row into the scratch ``w``, as ``_View`` reads it: ``hand`` (card ids ascending;
    returns their number), every card's ``act``ive and ``inact``ive value (float32 arithmetic, then
    truncated), ``selected``, the table's ``set_value`` / ``set_size``, ``hand_sizes``, ``out``; and
    ``_threats``: ``threat [P, 11]``, the expected cards of each value in each opponent's hand. Returns
    ``(ok, hands cards, selection count, selection value)``; not ok where a value the decision indexes
    or divides by lies outside the game's ranges (the reference then decides the row)."""
    (hand, act, inact, selected, set_value, set_size, hand_sizes, out, threat, ex, per_value, known, order,
     count_a, count_i, rest_a, rest_i) = w
    P, N, T, F = info[INFO_PLAYERS], info[INFO_CARDS], info[INFO_POSITIONS], info[INFO_CARD_WIDTH]
    o_cards = info[INFO_CARD_SECTION]
    ok = True
    sel_count, fine = _trunc(obs[info[INFO_SELECTION]])
    ok &= fine
    sel_value, fine = _trunc(obs[info[INFO_SELECTION] + 1])
    ok &= fine and (sel_count == 0 or _in_values(sel_value))
    for pos in range(T):
        value, fine = _trunc(obs[info[INFO_TABLE] + 2 * pos])
        size, fine2 = _trunc(obs[info[INFO_TABLE] + 2 * pos + 1])
        ok &= fine and fine2
        set_value[pos] = value
        set_size[pos] = size
    for p in range(P):
        size, fine = _trunc(obs[info[INFO_SEATS] + 4 * p])
        finished, fine2 = _trunc(obs[info[INFO_SEATS] + 4 * p + 2])
        ok &= fine and fine2 and size >= 0
        hand_sizes[p] = size
        out[p] = finished > 0
        known[p] = 0
    for v in range(MAX_VALUE + 1):
        per_value[v] = 0.0
    n_hand = 0
    known_col = CARD_TABLE + T
    for c in range(N):
        base = o_cards + c * F
        a, fine = _trunc(obs[base + CARD_ACTIVE])
        i, fine2 = _trunc(obs[base + CARD_UPRIGHT] + obs[base + CARD_ROTATED] - obs[base + CARD_ACTIVE])
        act[c] = a
        inact[c] = i
        selected[c] = obs[base + CARD_SELECTED] > 0
        if obs[base + CARD_HAND] > 0:
            hand[n_hand] = c
            n_hand += 1
            ok &= fine & fine2 & _in_values(a) & _in_values(i)
        flagged = False  # any flag set (NaN counts, as in NumPy's ``any``); no early exit: the loop vectorises
        for j in range(CARD_HAND, F):
            flagged |= obs[base + j] != 0
        if not flagged:
            up, fine3 = _trunc(obs[base + CARD_UPRIGHT])
            rot, fine4 = _trunc(obs[base + CARD_ROTATED])
            if fine3 & fine4 & _in_values(up) & _in_values(rot):
                per_value[up] += 0.5
                per_value[rot] += 0.5
            else:
                ok = False
        for k in range(1, P):
            if obs[base + known_col + k - 1] > 0:
                known[k] += 1
                ok &= fine & _in_values(a)
    if not ok:
        return False, n_hand, sel_count, sel_value
    # _threats: each opponent's share of the unseen cards, then the cards it is known to hold
    total = 0.0
    for k in range(P):
        total += np.float64(hand_sizes[k] - known[k]) if k else 0.0
    total = max(total, 1.0)
    for k in range(P):
        hidden = np.float64(hand_sizes[k] - known[k])
        for v in range(MAX_VALUE + 1):
            threat[k, v] = per_value[v] * hidden / total if k and not out[k] else 0.0
    for c in range(N):
        base = o_cards + c * F
        for k in range(1, P):
            if not out[k] and obs[base + known_col + k - 1] > 0:
                threat[k, act[c]] += 1.0
    return True, n_hand, sel_count, sel_value


@njit(cache=True, inline="always", _nrt=False)
def _exps(P, out, threat, ex, keys, vals):
    """``ex[k, w] = exp(-threat[k, w])`` for every threat ``survive`` may read, from the table; False when
    one is missing."""
    for k in range(1, P):
        if out[k]:
            continue
        for v in range(1, MAX_VALUE + 1):
            lam = threat[k, v]
            if lam > 0:
                e = _exp_lookup(keys, vals, lam)
                if e < 0.0:
                    return False
                ex[k, v] = e
    return True


# ============================================================================ the estimates (one row)

@njit(cache=True, inline="always", _nrt=False)
def _bits(counts):
    """The values with a positive count, as bits."""
    out = np.int64(0)
    for v in range(MAX_VALUE + 1):
        if counts[v] > 0:
            out |= np.int64(1) << v
    return out


@njit(cache=True, inline="always")
def _ones(x):
    return np.int64(popcount(np.uint64(x)))


@njit(cache=True, inline="always")
def _finish(values, others):
    """``finish_estimate`` of a non-empty hand from the bits of its values on both sides."""
    return min(_ones(values), _ones(others) + 1)


@njit(cache=True, inline="always", _nrt=False)
def _can_play(set_value, set_size, T, value, size):
    """``_View.can_play``: no set of ``size`` cards and ``value`` or more on the table."""
    for pos in range(T):
        if set_size[pos] == size and set_value[pos] >= value:
            return False
    return True


@njit(cache=True, inline="always", _nrt=False)
def _beaten(set_size, T, size, exclude):
    """``_View.beaten``: the first position other than ``exclude`` holding a set of ``size`` cards, or -1."""
    for pos in range(T):
        if pos != exclude and set_size[pos] == size:
            return pos
    return -1


@njit(cache=True, inline="always", _nrt=False)
def _beat_value(set_size, hand_sizes, out, A, pos):
    """``TacticianAgent._beat_value``."""
    if pos < 0:
        return 0.0
    owner = pos // A
    size = np.float64(set_size[pos])
    if owner == 0:
        return OWN_SET * size
    if out[owner]:
        return 0.0
    return size * (NEAR_OUT_BASE + NEAR_OUT_WEIGHT / (1.0 + hand_sizes[owner]))


@njit(cache=True, _nrt=False)
def _survive(value, size, P, A, T, set_value, set_size, out, threat, ex, beat_intent, moves):
    """``TacticianAgent.survive``, term for term (``ex``: the table's ``np.exp(-lam)``; ``moves`` 1.0 or
    2.0, handed to ``pow`` as the reference hands it the integer)."""
    if value >= MAX_VALUE:
        return 1.0
    p_safe = 1.0
    for k in range(1, P):
        if out[k]:
            continue
        for v in range(value + 1, MAX_VALUE + 1):
            lam = threat[k, v]
            if lam <= 0:
                continue
            e = ex[k, v]
            cdf, term = 0.0, e
            for i in range(size):
                cdf += term
                term *= lam / (i + 1)
            p_beat = 1.0 - cdf
            if size > 1:
                for pos in range(T):
                    if set_size[pos] == size - 1 and set_value[pos] == v and pos // A != k:
                        p_beat = max(p_beat, 1.0 - e)
            safe = 1.0 - beat_intent * p_beat
            # x ** 1 is x exactly (``pow`` is within 0.52 ulp and x is representable): no call
            p_safe *= safe ** moves if moves != 1.0 else safe
    return p_safe


@njit(cache=True, inline="always", _nrt=False)
def _order(value, primary, other, count_other, hand, n_hand, order):
    """``TacticianAgent._order``: the hand cards whose ``primary`` value is ``value``, by how many hand cards
    share their ``other`` value (``count_other``), then by card id, into ``order``; returns how many."""
    n = 0
    for j in range(n_hand):
        c = hand[j]
        if primary[c] != value:
            continue
        key = count_other[other[c]]
        at = n
        while at > 0 and count_other[other[order[at - 1]]] > key:  # stable: ids ascending within a key
            order[at] = order[at - 1]
            at -= 1
        order[at] = c
        n += 1
    return n


@njit(cache=True, inline="always", _nrt=False)
def _better(score, kind, value, arg, best_score, best_kind, best_value, best_arg):
    """Whether ``(-score, kind, -value, arg)`` sorts before the best so far."""
    if score != best_score:
        return score > best_score
    if kind != best_kind:
        return kind < best_kind
    if value != best_value:
        return value > best_value
    return arg < best_arg


@njit(cache=True, _nrt=False)
def _best_plan(turned, sel_count, sel_value, n_hand, P, A, T, params, moves, w):
    """``_rank`` and the reference's sort for one row: the first plan under ``(-score, kind, -value, arg)``
    among those that continue a selection of ``sel_count`` cards (all when 0). ``turned``: the plans of the
    turned hand (``other_move``: sets only, values read from the other side). Returns ``(found, score,
    kind (0: "A", 1: "B"), value, size or position, any NaN score)``."""
    (hand, act, inact, selected, set_value, set_size, hand_sizes, out, threat, ex, per_value, known, order,
     count_a, count_i, rest_a, rest_i) = w
    primary = inact if turned else act
    other = act if turned else inact
    risk, beat_intent, beat_weight = params[PARAM_RISK], params[PARAM_BEAT_INTENT], params[PARAM_BEAT_WEIGHT]
    for v in range(MAX_VALUE + 1):
        count_a[v] = 0
        count_i[v] = 0
    for j in range(n_hand):
        count_a[primary[hand[j]]] += 1
        count_i[other[hand[j]]] += 1
    f_now = _finish(_bits(count_a), _bits(count_i)) if n_hand else 0
    found, nan = False, False
    best_score, best_kind, best_value, best_arg = -np.inf, 0, 0, 0
    for value in range(MAX_VALUE + 1):
        if (sel_value != value) if sel_count else (count_a[value] == 0):
            continue
        n = _order(value, primary, other, count_i, hand, n_hand, order)
        for v in range(MAX_VALUE + 1):
            rest_a[v] = count_a[v]
            rest_i[v] = count_i[v]
        played_other = np.int64(0)
        for m in range(1, n + 1):
            c = order[m - 1]
            rest_a[value] -= 1
            rest_i[other[c]] -= 1
            played_other |= np.int64(1) << other[c]
            if not _can_play(set_value, set_size, T, value, m):
                continue
            if m == n_hand:
                score = GO_OUT
            else:
                rest_values, rest_others = _bits(rest_a), _bits(rest_i)
                f_ok = _finish(rest_values, rest_others)
                # beaten: the played cards come back turned
                f_bad = _finish(rest_values | played_other, rest_others | (np.int64(1) << value))
                p = _survive(value, m, P, A, T, set_value, set_size, out, threat, ex, beat_intent, moves) ** risk
                score = f_now - (p * f_ok + (1 - p) * f_bad) + SIZE_BONUS * m \
                    + beat_weight * _beat_value(set_size, hand_sizes, out, A, _beaten(set_size, T, m, -1))
            nan |= score != score
            if (sel_count == 0 or m >= sel_count) and (
                    not found or _better(score, 0, value, m, best_score, best_kind, best_value, best_arg)):
                found, best_score, best_kind, best_value, best_arg = True, score, 0, value, m
        if turned:
            continue
        for pos in range(A, T):  # _b_targets: another player's set of this value that one more card keeps legal
            if set_size[pos] == 0 or set_value[pos] != value:
                continue
            size = set_size[pos] + 1
            free = True
            for q in range(T):
                if q != pos and set_size[q] == size and set_value[q] >= value:
                    free = False
            if not free:
                continue
            if n_hand == 1:
                score = GO_OUT
            else:
                first = order[0]
                count_a[value] -= 1
                count_i[other[first]] -= 1
                f_ok = _finish(_bits(count_a), _bits(count_i))
                count_a[value] += 1
                count_i[other[first]] += 1
                score = f_now - f_ok + ADD_BONUS \
                    + beat_weight * _beat_value(set_size, hand_sizes, out, A, _beaten(set_size, T, size, pos))
            nan |= score != score
            if (sel_count == 0 or sel_count == 1) and (
                    not found or _better(score, 1, value, pos, best_score, best_kind, best_value, best_arg)):
                found, best_score, best_kind, best_value, best_arg = True, score, 1, value, pos
    return found, best_score, best_kind, best_value, best_arg, nan


# ============================================================================ one row

@njit(cache=True, _nrt=False)
def decide_row(obs, mask, info, params, keys, vals, w):
    """The tactician's action for one row (``DnpAgent.act`` → ``_choose``), or a negative code:
    :data:`FALLBACK`, :data:`REFERENCE`, :data:`NEED_EXP`. 0 for a row with no legal action (the
    reference decides nothing there). ``keys`` / ``vals``: :data:`EXP_TABLE`'s arrays."""
    n_actions = mask.shape[0]
    legal_any = False
    for a in range(n_actions):
        if mask[a]:
            legal_any = True
            break
    if not legal_any:
        return 0
    ok, n_hand, sel_count, sel_value = _decode(obs, info, w)
    if not ok:
        return REFERENCE
    (hand, act, inact, selected, set_value, set_size, hand_sizes, out, threat, ex, per_value, known, order,
     count_a, count_i, rest_a, rest_i) = w
    P, A, N, T = info[INFO_PLAYERS], info[INFO_AREAS], info[INFO_CARDS], info[INFO_POSITIONS]
    if not _exps(P, out, threat, ex, keys, vals):
        return NEED_EXP
    if sel_count != 0:
        # the selection's cards are in the hand: the reference indexes the first one
        has_value = False
        for j in range(n_hand):
            has_value |= act[hand[j]] == sel_value
        if not has_value:
            return REFERENCE
    # ``moves`` reaches ``pow`` as a run-time value: LLVM would turn a known pow(x, 2.0) into x * x
    moves = np.float64(opaque(np.int64(2 if P == 2 else 1)))
    found, best, kind, value, arg, nan = _best_plan(False, sel_count, sel_value, n_hand, P, A, T, params, moves, w)
    if nan:
        return REFERENCE
    turn = N + TURN_OFFSET
    choice = -1
    if sel_count == 0:
        # other_move (rule 5)
        if not found:
            best = -np.inf
        if best < GO_OUT:  # the reference's ``best_turned >= 1000 > best``
            found_t, best_turned, _, _, _, nan_t = _best_plan(True, 0, 0, n_hand, P, A, T, params, moves, w)
            if nan_t:
                return REFERENCE
            if found_t and best_turned >= GO_OUT:
                choice = turn
        if choice < 0:
            for v in range(MAX_VALUE + 1):
                count_a[v] = 0
                count_i[v] = 0
            for j in range(n_hand):
                count_a[act[hand[j]]] += 1
                count_i[inact[hand[j]]] += 1
            groups, groups_turned = _ones(_bits(count_a)), _ones(_bits(count_i))
            if best == -np.inf or groups_turned + params[PARAM_TURN_MARGIN] < groups:
                choice = turn
    if choice < 0 and found:
        for v in range(MAX_VALUE + 1):
            count_i[v] = 0
        for j in range(n_hand):
            count_i[inact[hand[j]]] += 1
        n = _order(value, act, inact, count_i, hand, n_hand, order)
        if kind == 1:
            choice = order[0] if sel_count == 0 else N + ADD_OFFSET + arg - A
        else:
            choice = N  # PLAY
            if sel_count < arg:
                for j in range(n):
                    if not selected[order[j]]:
                        choice = order[j]
                        break
    if 0 <= choice < n_actions and mask[choice]:
        return choice
    return FALLBACK


# ============================================================================ batch kernels

@njit(cache=True)
def decide_range(obs, mask, out, lo, hi, info, params, keys, vals):
    """``out[b]`` = the tactician's action (or a negative code) for rows ``lo..hi-1``."""
    w = _scratch(info[INFO_PLAYERS], info[INFO_CARDS], info[INFO_POSITIONS])
    for b in range(lo, hi):
        out[b] = decide_row(obs[b], mask[b], info, params, keys, vals, w)


@njit(cache=True, parallel=True)
def decide_kernel(obs, mask, out, info, params, keys, vals, chunks):
    """:func:`decide_range` over the whole batch, in ``chunks`` ranges spread over the threads."""
    n = obs.shape[0]
    for c in prange(chunks):
        decide_range(obs, mask, out, c * n // chunks, (c + 1) * n // chunks, info, params, keys, vals)


@njit(cache=True)
def threats_range(obs, info, out):
    """``out[b]`` = ``_threats`` of row b (zeros where the row is not decoded): the ``lam`` values the
    exponential table needs for it."""
    w = _scratch(info[INFO_PLAYERS], info[INFO_CARDS], info[INFO_POSITIONS])
    threat = w[8]
    for b in range(obs.shape[0]):
        ok = _decode(obs[b], info, w)[0]
        for k in range(threat.shape[0]):
            for v in range(threat.shape[1]):
                out[b, k, v] = threat[k, v] if ok else 0.0


@njit(cache=True)
def top_plans(obs, info, params, keys, vals, out):
    """What the decision ranks, per row, for comparing scores with the reference's bit for bit
    (``tests/test_tactician_kernel.py``): ``out[b]`` = (status, score, kind, value, size or position,
    turned plan found, its best score) of the first plan of the reference's sorted (and, with a selection,
    filtered) list and of the turned hand's plans; status 1 (a plan), 0 (none), :data:`REFERENCE` (not
    decoded, or a NaN score) or :data:`NEED_EXP` (nothing else written)."""
    w = _scratch(info[INFO_PLAYERS], info[INFO_CARDS], info[INFO_POSITIONS])
    P, A, T = info[INFO_PLAYERS], info[INFO_AREAS], info[INFO_POSITIONS]
    for b in range(obs.shape[0]):
        for j in range(out.shape[1]):
            out[b, j] = 0.0
        ok, n_hand, sel_count, sel_value = _decode(obs[b], info, w)
        if not ok:
            out[b, 0] = REFERENCE
            continue
        if not _exps(P, w[7], w[8], w[9], keys, vals):
            out[b, 0] = NEED_EXP
            continue
        moves = np.float64(opaque(np.int64(2 if P == 2 else 1)))
        found, score, kind, value, arg, nan = _best_plan(False, sel_count, sel_value, n_hand, P, A, T, params, moves,
                                                         w)
        found_t, score_t, _, _, _, nan_t = _best_plan(True, 0, 0, n_hand, P, A, T, params, moves, w)
        if nan or nan_t:
            out[b, 0] = REFERENCE
            continue
        out[b, 0] = 1.0 if found else 0.0
        out[b, 1], out[b, 2], out[b, 3], out[b, 4] = score, kind, value, arg
        out[b, 5], out[b, 6] = (1.0 if found_t else 0.0), score_t


PARALLEL_MIN_ROWS = 256
"""Batches from this size up are split over Numba's threads (smaller ones run in one serial loop)."""


def add_exps(obs: np.ndarray, info: np.ndarray) -> int:
    """Adds the exponentials the rows of ``obs`` need to :data:`EXP_TABLE`; returns how many were new."""
    threats = np.zeros((obs.shape[0], int(info[INFO_PLAYERS]), MAX_VALUE + 1), np.float64)
    threats_range(obs, info, threats)
    return EXP_TABLE.add(threats)


def decide(obs: np.ndarray, mask: np.ndarray, info: np.ndarray, params_row: np.ndarray) -> np.ndarray:
    """``int64 [B]``: each row's action or :data:`FALLBACK` / :data:`REFERENCE` (contiguous float32 ``obs``,
    bool ``mask``); rows that met a missing exponential are decided again once it is added."""
    out = np.empty(obs.shape[0], np.int64)
    _decide_into(obs, mask, out, info, params_row)
    again = np.flatnonzero(out == NEED_EXP)
    if again.size:
        sub_obs, sub_mask = obs[again], mask[again]
        add_exps(sub_obs, info)
        sub = np.empty(again.size, np.int64)
        _decide_into(sub_obs, sub_mask, sub, info, params_row)
        if (sub == NEED_EXP).any():
            raise RuntimeError("tactician kernel: an exponential is still missing after it was added")
        out[again] = sub
    return out


def _decide_into(obs, mask, out, info, params_row) -> None:
    table = EXP_TABLE
    B = obs.shape[0]
    if B >= PARALLEL_MIN_ROWS:
        decide_kernel(obs, mask, out, info, params_row, table.keys, table.vals, parallel_chunks(B))
    else:
        decide_range(obs, mask, out, 0, B, info, params_row, table.keys, table.vals)


# ============================================================================ playing seats in the engine

@njit(cache=True)
def play_range(s, k, games, seat_agent, paused, lo, hi, info, params, keys, vals):
    """Plays games ``games[lo:hi]`` of a dnp core (state ``s``, constants ``k``): while the seat to act in
    game ``games[i]`` is held (``seat_agent[i, seat]`` = a, the agent's row of ``params`` [A, NUM_PARAMS];
    -1: not held) and the game is not over, observes it as that seat, decides (:func:`decide_row`) and
    steps it (``kernels.step_range``: each step resets the game's rewards first, so they are those of
    its last step). A decision the kernel does not make leaves the game at that decision, unstepped,
    with its code in ``paused[i]`` (:data:`NEED_EXP`, :data:`REFERENCE`, :data:`FALLBACK`, :data:`STUCK`)."""
    B = s.current.shape[0]
    w = _scratch(info[INFO_PLAYERS], info[INFO_CARDS], info[INFO_POSITIONS])
    obs = np.zeros((1, k.obs_size), np.float32)
    one_game = np.zeros(1, np.intp)
    one_seat = np.zeros(1, np.intp)
    actions = np.zeros(B, np.intp)
    active = np.zeros(B, np.bool_)
    n_actions = s.legal_mask.shape[1]
    for i in range(lo, hi):
        b = games[i]
        while not (s.terminated[b] or s.truncated[b]):
            agent = seat_agent[i, s.current[b]]
            if agent < 0:
                break
            legal_any = False
            for a in range(n_actions):
                legal_any |= s.legal_mask[b, a]
            if not legal_any:
                paused[i] = STUCK
                break
            one_game[0] = b
            one_seat[0] = s.current[b]
            observe_range(s, k, one_game, one_seat, obs, 0, 1)
            action = decide_row(obs[0], s.legal_mask[b], info, params[agent], keys, vals, w)
            if action < 0:
                paused[i] = action
                break
            actions[b] = action
            active[b] = True
            step_range(s, k, actions, active, b, b + 1)
            active[b] = False


@njit(cache=True, parallel=True)
def play_kernel(s, k, games, seat_agent, paused, info, params, keys, vals, chunks):
    """:func:`play_range` over all listed games, in ``chunks`` ranges spread over the threads (each game
    is played by one thread; nothing is random, so the split changes nothing)."""
    n = games.shape[0]
    for c in prange(chunks):
        play_range(s, k, games, seat_agent, paused, c * n // chunks, (c + 1) * n // chunks, info, params, keys,
                   vals)


# The play kernels compile in the engine's step and observation (and what those compile in: the random
# stream, the bit intrinsics, the packed field readers): a change there must reach this module's cached
# machine code too (``kernel_cache``).
drop_stale_cache(__file__, play_range, [_kernels_module.__file__, _rng_module.__file__, _bits_module.__file__,
                                        _packing_module.__file__])
