"""The heuristic agents' decisions compiled with Numba: the rules of :class:`~.agents.CounterAgent`
(``counter``) and of :class:`~.agents.GreedyAgent` / :class:`~.agents.RiskCallerAgent` (``greedy``,
``risk_caller:<threshold>``), row by row.

:class:`~.agents.CounterAgent` (``agents.py``) is the readable reference: NumPy over a batch, its risk
model in ``odds.py``. This module is the same decision written once per row as plain loops (the
pattern of ``docs/engine_pattern.md``): :func:`decide_range` runs the rows of a range, and
:func:`decide_kernel` splits a large batch into ranges and runs them in a ``prange``. A row reads only
what the reference reads: the seat's observation vector (decoded here section by section, as
``risk.decode`` does), its legal mask, the agent's parameters and the deck's card tables.

Ties. The reference breaks ties in every ``_pick`` by adding ``1e-6 * u`` (``u`` uniform in [0, 1)
from the agent's generator) to the scores of the allowed columns and taking the first maximum. The
kernel does exactly that with ``keys [B, 44]``, one row of uniform keys per decision drawn by the
caller from the agent's own generator (``CounterAgent.act`` draws ``rng.random((B, 44))`` per call): a
pick over the six slots uses ``keys[b, :6]``, a pile choice ``keys[b, :36]``. Every pick of a row
reuses the row's keys; only one pick decides a row's action, so each action is still uniform over
its tie set, as in the reference. The fallback (the chosen action illegal, which real play never
gives: only hand-made masks do) is the legal action with the largest key: uniform among the legal
ones, as the reference's ``sample_masked``. Given the same keys (a test hands the reference the same
numbers), kernel and reference choose the same action on every row; ``tests/test_counter_kernel.py``
(and ``tests/test_greedy_kernel.py`` for greedy's mode) checks that on observations from real play.

Playing seats in the engine. :func:`play_range` / :func:`play_kernel` (``GreedyAgent.play_turns``
for one agent, ``agents.play_lineup`` for several) run the decisions inside the compiled engine: for
each listed game, while a seat held by one of the agents is to act, the engine's own ``observe_range``
builds that seat's observation, :func:`decide_row` decides with that agent's parameters and
``step_range`` steps the game, so the turns of a whole line-up cost one Python call instead of one per
decision (or per agent and round). There each game draws each agent's keys from that agent's own
xoshiro stream for the game (``rng.next64``; the streams come from the agents' generators, one per
listed game, agent and call), so the split over threads changes nothing.

First use compiles these kernels (about a minute on the shared 2-core machine; the engine's kernels
are a separate cache entry); later processes load them from ``__pycache__``.

Modes. ``params[PARAM_MODE]`` picks the rules: ``MODE_COUNTER`` (:func:`agent_params`) or
``MODE_GREEDY`` (:func:`greedy_params`: greedy's reveal-or-call with its call threshold, its pile choice
without counter's look-ahead at remove cards, sure-trophy bonus or harm to the next player). Both share
the decoding, the risk model (:func:`_pool_all_good`), the pile look-ahead (:func:`_own_value`), the
tie-breaks, the fallback and the play kernels; ``greedy`` breaks ties the same way (keys from its own
generator, uniform over each tie set).

Every float the scores are made of is computed in the reference's order (products of the exact
hypergeometric factors; integer sums divided once), so scores are equal bit for bit, not only close.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from ... import rng as _rng_module
from ...kernel_cache import drop_stale_cache
from ...rng import next64
from . import kernels as _kernels_module
from . import actions, config, deck, observation
from .kernels import OVER, observe_range, step_range

# The rules modules' constants, written out (Numba's cache does not notice a change in another module;
# the assertion below does).
MAIN, PLACE_DRAWN, PLACE_REVEALED = 0, 1, 2
NUM_PHASES = 4
SLOTS = 6
NUM_FACES = 36
NO_FACE = 36
NUM_COLOURS = 6
NUM_NUMBERS = 6
CARD_FEATURES = 15
SLOT_FEATURES = 18
ACTION_CALL = 6
ACTION_PLACE_BASE = 7
NUM_ACTIONS = 44
SLOT_EMPTY, SLOT_UNKNOWN, SLOT_KNOWN = 0, 1, 2
FUNCTION_REMOVE, FUNCTION_REFILL = 2, 3
TIE_NOISE = 1e-6
"""The reference's tie-break scale (``KeineAhnungAgent._pick``)."""
assert ((MAIN, PLACE_DRAWN, PLACE_REVEALED, NUM_PHASES) == (int(actions.Phase.MAIN), int(actions.Phase.PLACE_DRAWN),
                                                            int(actions.Phase.PLACE_REVEALED), actions.NUM_PHASES)
        and SLOTS == config.SLOTS and (NUM_FACES, NO_FACE) == (deck.NUM_FACES, deck.NO_FACE)
        and (NUM_COLOURS, NUM_NUMBERS) == (deck.NUM_COLOURS, deck.NUM_NUMBERS)
        and (CARD_FEATURES, SLOT_FEATURES) == (observation.CARD_FEATURES, observation.SLOT_FEATURES)
        and (ACTION_CALL, ACTION_PLACE_BASE, NUM_ACTIONS) == (actions.ACTION_CALL, actions.ACTION_PLACE_BASE,
                                                              actions.NUM_ACTIONS)
        and (FUNCTION_REMOVE, FUNCTION_REFILL) == (deck.FUNCTION_REMOVE, deck.FUNCTION_REFILL)), \
    "agent_kernels.py's constants differ from actions.py / config.py / deck.py / observation.py: update them"

# Indices into the ``offsets`` argument (the observation sections the decision reads).
OFF_PHASE, OFF_PENDING_CARD, OFF_PENDING_SLOT, OFF_PILE_TOPS, OFF_LAYOUTS, OFF_TABLE_COUNTS, OFF_UNKNOWN_CARDS, \
    OFF_EARLIER_POOL, OFF_EARLIER_POOL_CARDS = range(9)
OFFSET_SECTIONS = ("phase", "pending_card", "pending_slot", "pile_tops", "layouts", "table_counts", "unknown_cards",
                   "earlier_pool", "earlier_pool_cards")

# Indices into the ``params`` argument (the agent's parameters as float64).
PARAM_CALL, PARAM_ENDGAME, PARAM_ENDGAME_TROPHIES, PARAM_KNOWN_WEIGHT, PARAM_HARM_WEIGHT, PARAM_REFILL = 0, 3, 6, 7, 8, 9
PARAM_MODE, PARAM_GREEDY_THRESHOLD = 10, 11
NUM_PARAMS = 12
MODE_COUNTER, MODE_GREEDY = 0, 1
"""``params[PARAM_MODE]``: counter's rules or greedy's (``greedy``, ``risk_caller``)."""


def layout_offsets(layout) -> np.ndarray:
    """``int64 [9]``: where each section the decision reads starts in an observation of ``layout``
    (-1 for the earlier-pool sections of a version-1 layout, which has none)."""
    starts = layout.offsets()
    return np.array([starts.get(name, -1) for name in OFFSET_SECTIONS], np.int64)


def agent_params(call_threshold, endgame_threshold, endgame_trophies, known_weight, harm_weight,
                 refill_attack) -> np.ndarray:
    """``float64 [NUM_PARAMS]``: ``counter``'s parameters in the kernel's order (``PARAM_*``, ``MODE_COUNTER``)."""
    out = np.zeros(NUM_PARAMS, np.float64)
    out[PARAM_CALL:PARAM_CALL + 3] = call_threshold
    out[PARAM_ENDGAME:PARAM_ENDGAME + 3] = endgame_threshold
    out[PARAM_ENDGAME_TROPHIES] = endgame_trophies
    out[PARAM_KNOWN_WEIGHT] = known_weight
    out[PARAM_HARM_WEIGHT] = harm_weight
    out[PARAM_REFILL] = 1.0 if refill_attack else 0.0
    out[PARAM_MODE] = MODE_COUNTER
    return out


def greedy_params(threshold) -> np.ndarray:
    """``float64 [NUM_PARAMS]``: ``greedy``'s (``threshold`` 1) or ``risk_caller``'s parameters: greedy's rules
    (``MODE_GREEDY``), calling when the exact success chance is at least ``threshold``; own known
    cards kept playable weigh 1 in its pile choice, as in ``GreedyAgent._pile_scores``."""
    out = np.zeros(NUM_PARAMS, np.float64)
    out[PARAM_MODE] = MODE_GREEDY
    out[PARAM_GREEDY_THRESHOLD] = threshold
    out[PARAM_KNOWN_WEIGHT] = 1.0
    return out


# ============================================================================ decoding (risk.decode, one row)

@njit(cache=True, inline="always")
def _argmax(x, start, length):
    """NumPy's argmax of ``x[start:start+length]``: the first index of the largest value."""
    best, where = x[start], 0
    for i in range(1, length):
        if x[start + i] > best:
            best, where = x[start + i], i
    return where


@njit(cache=True, inline="always")
def _any(x, start, length):
    for i in range(length):
        if x[start + i] != 0:
            return True
    return False


@njit(cache=True, inline="always")
def _count(x, start):
    """A count feature (a whole number stored as float), as ``np.rint(...).astype(int64)``."""
    return np.int64(np.rint(x[start]))


@njit(cache=True, inline="always", _nrt=False)
def _card(obs, o):
    """(face, function) of the card encoded at ``obs[o:o+15]`` (face 36, function 0 when empty)."""
    face = NO_FACE
    if _any(obs, o, NUM_COLOURS):
        face = _argmax(obs, o, NUM_COLOURS) * NUM_NUMBERS + _argmax(obs, o + NUM_COLOURS, NUM_NUMBERS)
    fn = 0
    f0 = o + NUM_COLOURS + NUM_NUMBERS
    if _any(obs, f0, 3):
        fn = _argmax(obs, f0, 3) + 1
    return face, fn


# ============================================================================ the risk model (odds.py)

@njit(cache=True, inline="always")
def _all_good(g, n, u):
    """``risk.all_good_probability`` for one (g, n, u): prod_{i<u} max(g-i, 0)/(n-i), NaN where n <= i."""
    out = 1.0
    for i in range(SLOTS):
        if u > i:
            if n - i > 0:
                out = out * (max(g - i, 0.0) / (n - i))
            else:
                out = out * np.nan
    return out


@njit(cache=True, inline="always")
def _nan0(x):
    return 0.0 if np.isnan(x) else x


# ============================================================================ one row

@njit(cache=True, inline="always")
def _pick(score, allowed, keys, n):
    """The reference's ``_pick`` for one row: the first maximum of ``score + 1e-6 * key`` over the
    allowed columns ``0..n-1`` (0 when none is allowed, as ``argmax`` of all ``-inf``)."""
    best, where = -np.inf, 0
    for i in range(n):
        if allowed[i]:
            v = score[i] + keys[i] * TIE_NOISE
            if v > best:
                best, where = v, i
    return where


@njit(cache=True, inline="always")
def _after(counts, gained, compat, remove, x, f):
    """Would a card of face ``x`` fit after the card covers the pile showing ``f`` (``_after_cover``)?
    A remove card leaves its own pile only."""
    if remove:
        return gained[x] > 0
    return counts[x] - compat[x, f] + gained[x] > 0


@njit(cache=True, _nrt=False)
def _own_value(counts, gained, compat, fitters, n_fitters, remove, own_face, known, unknown, pool_by_face,
               pool_total, known_weight, sure_bonus, out, q):
    """``CounterAgent._own_value`` for one row, into ``out [36]``; also leaves ``q [36]`` (the share of
    the pool that fits after each cover). ``sure_bonus`` is counter's 10 for a sure trophy in reach;
    greedy's pile score (``GreedyAgent._pile_scores``) is this with weight 1, bonus 0 and ``remove``
    False (adding 0.0 changes no bit).

    A card of face x fits after the cover of pile f when ``counts[x] - compat[x, f] + gained[x] > 0``
    (``_after``): always when ``counts[x] + gained[x] >= 2``, never when it is 0, and when it is 1 only
    if x does not fit f. So the pool's fitting cards after covering f are the "always" ones plus the
    "once" ones less those that fit f; the counts are whole numbers, so the sums are exact in any order."""
    u = 0
    k = 0
    for s in range(SLOTS):
        if unknown[s]:
            u += 1
        if known[s]:
            k += 1
    k += u
    denominator = max(pool_total, 1.0)
    always = 0
    once = 0
    for x in range(NUM_FACES + 1):
        if remove:
            if gained[x] > 0:
                always += pool_by_face[x]
        else:
            base = counts[x] + gained[x]
            if base >= 2:
                always += pool_by_face[x]
            elif base == 1:
                once += pool_by_face[x]
    for f in range(NUM_FACES):
        n_known = 0
        for s in range(SLOTS):
            if known[s] and _after(counts, gained, compat, remove, own_face[s], f):
                n_known += 1
        pool_fit = always + once
        if once and not remove:
            for i in range(n_fitters[f]):
                x = fitters[f, i]
                if counts[x] + gained[x] == 1:
                    pool_fit -= pool_by_face[x]
        q[f] = pool_fit / denominator
        sure = 1.0 if (u == 0 and k - n_known <= 3) else 0.0
        out[f] = known_weight * n_known + u * q[f] + sure_bonus * sure


@njit(cache=True, _nrt=False)
def _cover(counts, compat, face, gained):
    """``gained [37]``: does a card of each face fit the card of ``face`` (the new top)?"""
    c = min(face, NUM_FACES - 1)
    for x in range(NUM_FACES + 1):
        gained[x] = compat[x, c]


@njit(cache=True, inline="always", _nrt=False)
def _decode_row(obs, num_players, offsets, type_face, type_is_prize, w):
    """``risk.decode`` of one observation row into the scratch ``w`` (:func:`_scratch`): the slot states,
    faces and functions of every relative seat, the pile tops, the unknown-card pool and each earlier
    shuffle's cards, how many pile tops each face fits (``counts``), the pool by face, the good
    (non-fitting number) types and seat 0's known / unknown slots; returns the pool's size. Shared by
    the decision (:func:`decide_row`) and the policy features (:func:`features_row`)."""
    (state, face, function, slot_pool, earlier_type, tops, counts, pool, current, pool_by_face, good,
     gained, score6, allowed6, score36, allowed36, own, q, known, unknown, others, no_slots, fitters, n_fitters, fit,
     zeros6) = w
    P = num_players
    T = pool.shape[0]
    o = offsets[OFF_LAYOUTS]
    for p in range(P):
        for s in range(SLOTS):
            base = o + (p * SLOTS + s) * SLOT_FEATURES
            st = _argmax(obs, base, 3)
            fc, fn = _card(obs, base + 3)
            state[p, s] = st
            face[p, s] = fc if st == SLOT_KNOWN else NO_FACE
            function[p, s] = fn if st == SLOT_KNOWN else 0
    for f in range(NUM_FACES):
        tops[f] = _count(obs, offsets[OFF_PILE_TOPS] + f)
    for t in range(T):
        pool[t] = _count(obs, offsets[OFF_UNKNOWN_CARDS] + t)
        current[t] = pool[t]
    for p in range(P):
        for s in range(SLOTS):
            slot_pool[p, s] = 0 if state[p, s] == SLOT_UNKNOWN else -1
            earlier_type[p, s] = -1
    if offsets[OFF_EARLIER_POOL] >= 0:  # observation version 2: earlier shuffles' pools
        for p in range(P):
            for s in range(SLOTS):
                number = _count(obs, offsets[OFF_EARLIER_POOL] + p * SLOTS + s)
                et = _count(obs, offsets[OFF_EARLIER_POOL_CARDS] + p * SLOTS + s) - 1
                if state[p, s] == SLOT_UNKNOWN and number > 0 and 0 <= et < T:
                    earlier_type[p, s] = et
                    slot_pool[p, s] = number
                    current[et] -= 1
    # ---- how many pile tops each face fits (risk.face_fit_counts)
    for x in range(NUM_FACES + 1):
        counts[x] = 0
    for f in range(NUM_FACES):
        if tops[f]:
            for i in range(n_fitters[f]):
                counts[fitters[f, i]] += tops[f]
    # int64, not a literal 0: while inferring the loop's type Numba compiled _main and _known_fit_score
    # (which take the total) for Literal[int](0) as well.
    pool_total = np.int64(0)
    for x in range(NUM_FACES + 1):
        pool_by_face[x] = 0
    for t in range(T):
        pool_total += pool[t]
        pool_by_face[type_face[t]] += pool[t]
        good[t] = not counts[type_face[t]] > 0 and not type_is_prize[t]
    for s in range(SLOTS):
        unknown[s] = state[0, s] == SLOT_UNKNOWN
        known[s] = state[0, s] == SLOT_KNOWN
    return pool_total


@njit(cache=True, _nrt=False)
def decide_row(obs, mask, keys, num_players, offsets, compat, type_face, type_is_prize, params, w):
    """``CounterAgent``'s action for one row (``act`` of the reference, fallback included). ``w`` is the
    range's scratch (:func:`_scratch`)."""
    return _choose(obs, mask, keys, num_players, offsets, compat, type_face, type_is_prize, params, w,
                   _argmax(obs, offsets[OFF_PHASE], NUM_PHASES), False, 0)


@njit(cache=True, inline="always", _nrt=False)
def _choose(obs, mask, keys, num_players, offsets, compat, type_face, type_is_prize, params, w, phase, decoded,
            pool_total):
    """The action of :func:`decide_row` in ``phase``; the row is decoded into ``w`` first unless
    ``decoded`` (then ``pool_total`` is the decode's result), and only where a rule decides."""
    is_main = phase == MAIN and _any(mask, 0, ACTION_PLACE_BASE)
    is_place = (phase == PLACE_DRAWN or phase == PLACE_REVEALED) and _any(mask, ACTION_PLACE_BASE,
                                                                        NUM_ACTIONS - ACTION_PLACE_BASE)
    action = 0
    if is_main or is_place:
        if not decoded:
            pool_total = _decode_row(obs, num_players, offsets, type_face, type_is_prize, w)
        action = _decide_decoded(obs, mask, keys, num_players, offsets, compat, type_face, type_is_prize, params, w,
                                 is_main, pool_total)
    if not mask[action]:
        # The reference's fallback (sample_masked): uniform among the legal actions, here the legal
        # action with the largest key; 0 when none is legal.
        best = -1.0
        for a in range(NUM_ACTIONS):
            if mask[a] and keys[a] > best:
                best, action = keys[a], a
    return action


# Compiled on its own, not inlined into _choose: Numba inlines by copying the callee's whole expanded
# code at each level, and this one sits two levels deep in decide_row (1.4 s of the decision kernel's
# first compile, ~11 s); a call per decision costs nothing measurable.
@njit(cache=True, _nrt=False)
def _decide_decoded(obs, mask, keys, num_players, offsets, compat, type_face, type_is_prize, params, w, is_main,
                    pool_total):
    """The reveal-or-call (``is_main``) or pile choice of :func:`decide_row`, from the decoded row in ``w``."""
    (state, face, function, slot_pool, earlier_type, tops, counts, pool, current, pool_by_face, good,
     gained, score6, allowed6, score36, allowed36, own, q, known, unknown, others, no_slots, fitters, n_fitters, fit,
     zeros6) = w
    P = num_players
    action = 0
    known_weight = params[PARAM_KNOWN_WEIGHT]
    greedy = params[PARAM_MODE] == MODE_GREEDY
    if is_main and greedy:
        action = _greedy_main(mask, keys, P, params, state, face, slot_pool, earlier_type, counts, current, good,
                              known, unknown, allowed6, zeros6)
    elif is_main:
        action = _main(mask, keys, P, compat, fitters, n_fitters, type_face, type_is_prize, params, state, face, function, slot_pool,
                       earlier_type, tops, counts, pool, current, pool_by_face, pool_total, good, gained, score6,
                       allowed6, own, q, known, unknown, others, _count(obs, offsets[OFF_TABLE_COUNTS] + 2), fit,
                       zeros6)
    else:
        pending_face, pending_function = _card(obs, offsets[OFF_PENDING_CARD])
        pending_slot = -1
        if _any(obs, offsets[OFF_PENDING_SLOT], SLOTS):
            pending_slot = _argmax(obs, offsets[OFF_PENDING_SLOT], SLOTS)
        # ---- pile choice (CounterAgent._pile_scores)
        _cover(counts, compat, pending_face, gained)
        # greedy's look-ahead treats a remove card like any other (GreedyAgent._after_cover).
        remove = pending_function == FUNCTION_REMOVE and not greedy
        for s in range(SLOTS):
            others[s] = known[s] and s != pending_slot
            no_slots[s] = unknown[s] and s != pending_slot
        _own_value(counts, gained, compat, fitters, n_fitters, remove, face[0], others, no_slots, pool_by_face,
                   float(pool_total), known_weight, 0.0 if greedy else 10.0, own, q)
        n_next_unknown = 0
        for s in range(SLOTS):
            if state[1, s] == SLOT_UNKNOWN:
                n_next_unknown += 1
        clearing = pending_slot >= 0
        for s in range(SLOTS):
            if others[s] or no_slots[s]:
                clearing = False
        harm_weight = params[PARAM_HARM_WEIGHT]
        for f in range(NUM_FACES):
            allowed36[f] = mask[ACTION_PLACE_BASE + f]
            if greedy:  # GreedyAgent._pile_scores: own prospects only
                score36[f] = own[f]
                continue
            n_fit = 0
            for s in range(SLOTS):
                if state[1, s] == SLOT_KNOWN and _after(counts, gained, compat, remove, face[1, s], f):
                    n_fit += 1
            harm = n_fit + n_next_unknown * q[f]
            score36[f] = -harm if clearing else own[f] - harm_weight * harm
        action = ACTION_PLACE_BASE + _pick(score36, allowed36, keys, NUM_FACES)
    return action


@njit(cache=True, inline="always")
def _pool_all_good(P, current, good, slot_pool, earlier_type):
    """``risk.pool_all_good_probability`` for seat 0 of one row: the exact chance that the seat's
    unknown cards fit nothing now, each drawn from its own shuffle's pool (NaN where a pool holds
    fewer cards than are drawn from it)."""
    T = current.shape[0]
    n0 = 0
    g0 = 0
    u0 = 0
    for t in range(T):
        n0 += current[t]
        if good[t]:
            g0 += current[t]
    top_pool = 0
    for s in range(SLOTS):
        if slot_pool[0, s] == 0:
            u0 += 1
        top_pool = max(top_pool, slot_pool[0, s])
    p_now = _all_good(float(g0), float(n0), u0)
    for pk in range(1, top_pool + 1):
        uk = 0
        for s in range(SLOTS):
            if slot_pool[0, s] == pk:
                uk += 1
        if uk == 0:
            continue
        nk = 0
        gk = 0
        for p in range(P):
            for s in range(SLOTS):
                if slot_pool[p, s] == pk:
                    nk += 1
                    if earlier_type[p, s] >= 0 and good[earlier_type[p, s]]:
                        gk += 1
        p_now = p_now * _all_good(float(gk), float(nk), uk)
    return p_now


@njit(cache=True, _nrt=False)
def _reveal_unknown_else_any(mask, unknown, any_reveal_unknown, any_legal, allowed6, zeros, keys):
    """The last rules of both agents' reveal-or-call: a random legal unknown card, else any legal reveal
    (every card left is a known misfit), else the call (the layout is empty)."""
    if any_reveal_unknown:
        for s in range(SLOTS):
            allowed6[s] = mask[s] and unknown[s]
        return _pick(zeros, allowed6, keys, SLOTS)
    if any_legal:
        for s in range(SLOTS):
            allowed6[s] = mask[s]
        return _pick(zeros, allowed6, keys, SLOTS)
    return ACTION_CALL


@njit(cache=True, _nrt=False)
def _greedy_main(mask, keys, P, params, state, face, slot_pool, earlier_type, counts, current, good, known, unknown,
                 allowed6, zeros):
    """``GreedyAgent._main`` (and ``RiskCallerAgent``'s) for one row: a known fitting card first; else
    call when the exact success chance (``risk.batch_call_success_probability``: 0 while some own known
    card fits a pile) reaches the threshold, or is sure with no unknown card left to reveal; else reveal
    an unknown card, else any legal card."""
    any_fit = False  # some own known card fits a pile (legal or not): the call would fail
    any_fit_legal = False
    # Booleans, not literals: while inferring the loop's types Numba compiled _reveal_unknown_else_any
    # for Literal[bool](False) arguments too.
    any_reveal_unknown = np.bool_(False)
    any_legal = np.bool_(False)
    for s in range(SLOTS):
        fits = known[s] and counts[face[0, s]] > 0
        any_fit |= fits
        allowed6[s] = mask[s] and fits
        any_fit_legal |= allowed6[s]
        any_reveal_unknown |= mask[s] and unknown[s]
        any_legal |= mask[s]
    if any_fit_legal:
        return _pick(zeros, allowed6, keys, SLOTS)
    if mask[ACTION_CALL]:
        p = 0.0 if any_fit else _nan0(_pool_all_good(P, current, good, slot_pool, earlier_type))
        if p >= params[PARAM_GREEDY_THRESHOLD] or (not any_reveal_unknown and p >= 1.0):
            return ACTION_CALL
    return _reveal_unknown_else_any(mask, unknown, any_reveal_unknown, any_legal, allowed6, zeros, keys)


@njit(cache=True, _nrt=False)
def _main(mask, keys, P, compat, fitters, n_fitters, type_face, type_is_prize, params, state, face, function, slot_pool, earlier_type,
          tops, counts, pool, current, pool_by_face, pool_total, good, gained, score6, allowed6, own, q, known,
          unknown, others, trophies_left, fit, zeros):
    """``CounterAgent._main`` for one row: reveal or call."""
    T = pool.shape[0]
    u = 0
    k = 0
    n_fit = 0
    any_legal = np.bool_(False)  # booleans, not literals: see _greedy_main
    any_fit = False
    any_reveal_unknown = np.bool_(False)
    for s in range(SLOTS):
        if unknown[s]:
            u += 1
        if state[0, s] != SLOT_EMPTY:
            k += 1
        legal = mask[s]
        any_legal |= legal
        fit[s] = legal and known[s] and counts[face[0, s]] > 0
        if fit[s]:
            n_fit += 1
            any_fit = True
        if legal and unknown[s]:
            any_reveal_unknown = True
    can_call = mask[ACTION_CALL]

    p_now = _nan0(_pool_all_good(P, current, good, slot_pool, earlier_type))

    level = min(max(u, 1), 3) - 1
    if u == 0:
        threshold = 0.0
    elif trophies_left <= params[PARAM_ENDGAME_TROPHIES]:
        threshold = params[PARAM_ENDGAME + level]
    else:
        threshold = params[PARAM_CALL + level]
    p_call = p_now if (can_call and n_fit == 0) else -1.0
    p_fits = p_now if (n_fit > 0 and k - n_fit <= 3) else -1.0
    # Highest priority: a known refill card played now tops every opponent with fewer than 3 cards
    # back up to 3 (the reference applies this last, so it overrides every plan).
    if params[PARAM_REFILL] != 0.0:
        short = False
        for p in range(1, P):
            cards = 0
            for s in range(SLOTS):
                if state[p, s] != SLOT_EMPTY:
                    cards += 1
            if cards < 3:
                short = True
        if short:
            any_refill = False
            for s in range(SLOTS):
                allowed6[s] = fit[s] and function[0, s] == FUNCTION_REFILL
                any_refill |= allowed6[s]
            if any_refill:
                return _pick(zeros, allowed6, keys, SLOTS)
    # Plan "play a known remove card, then call" (the one-pool approximation, as the reference).
    best_remove = -1.0
    for s in range(SLOTS):
        allowed6[s] = fit[s] and function[0, s] == FUNCTION_REMOVE and k - 1 <= 3
        score6[s] = -1.0
        if allowed6[s]:
            single = min(face[0, s], NUM_FACES - 1)
            g = 0
            for t in range(T):
                if pool[t] and not compat[type_face[t], single] and not type_is_prize[t]:
                    g += pool[t]
            score6[s] = _nan0(_all_good(float(g), float(pool_total), u))
        best_remove = max(best_remove, score6[s])

    # The plans (mutually exclusive), then reserve, known fitting cards, any reveal: the reference's
    # chain of np.where from its last (strongest) line back.
    take_fits = p_fits >= threshold and p_fits >= p_call and p_fits >= best_remove
    take_remove = not take_fits and best_remove >= threshold and best_remove >= p_call
    take_call = not take_fits and not take_remove and p_call >= threshold
    if take_call:
        return ACTION_CALL
    if take_remove:
        return _pick(score6, allowed6, keys, SLOTS)
    if take_fits or (any_fit and not any_reveal_unknown):
        return _pick(_known_fit_score(P, compat, fitters, n_fitters, state, face, function, tops, counts, pool_by_face, pool_total,
                                      gained, own, q, known, unknown, others, params[PARAM_KNOWN_WEIGHT], score6),
                     fit, keys, SLOTS)
    return _reveal_unknown_else_any(mask, unknown, any_reveal_unknown, any_legal, allowed6, zeros, keys)


@njit(cache=True, _nrt=False)
def _known_fit_score(P, compat, fitters, n_fitters, state, face, function, tops, counts, pool_by_face, pool_total, gained, own, q, known,
                     unknown, others, known_weight, out):
    """``CounterAgent._known_fit_score`` for one row (where some known card fits): per known fitting
    slot, the best own prospects over the piles it may go on."""
    for s in range(SLOTS):
        out[s] = 0.0
        c = face[0, s]
        if not (known[s] and counts[c] > 0):
            continue
        _cover(counts, compat, c, gained)
        for r in range(SLOTS):
            others[r] = known[r] and r != s
        _own_value(counts, gained, compat, fitters, n_fitters, function[0, s] == FUNCTION_REMOVE, face[0], others,
                   unknown, pool_by_face, float(pool_total), known_weight, 10.0, own, q)
        best = -np.inf
        for f in range(NUM_FACES):
            if compat[c, f] and tops[f] > 0 and own[f] > best:
                best = own[f]
        out[s] = best
    return out


# ============================================================================ batch kernels

@njit(cache=True)
def _scratch(P, T, compat):
    """Per-range work arrays of :func:`decide_row`, and ``fitters [36, 37]`` / ``n_fitters [36]``: the
    faces that fit a pile of each face (from ``compat``), so that loops visit those only."""
    fitters = np.zeros((NUM_FACES, NUM_FACES + 1), np.int64)
    n_fitters = np.zeros(NUM_FACES, np.int64)
    for f in range(NUM_FACES):
        for x in range(NUM_FACES + 1):
            if compat[x, f]:
                fitters[f, n_fitters[f]] = x
                n_fitters[f] += 1
    return (np.zeros((P, SLOTS), np.int64), np.zeros((P, SLOTS), np.int64), np.zeros((P, SLOTS), np.int64),
            np.zeros((P, SLOTS), np.int64), np.zeros((P, SLOTS), np.int64), np.zeros(NUM_FACES, np.int64),
            np.zeros(NUM_FACES + 1, np.int64), np.zeros(T, np.int64), np.zeros(T, np.int64),
            np.zeros(NUM_FACES + 1, np.int64), np.zeros(T, np.bool_), np.zeros(NUM_FACES + 1, np.int64),
            np.zeros(SLOTS), np.zeros(SLOTS, np.bool_), np.zeros(NUM_FACES), np.zeros(NUM_FACES, np.bool_),
            np.zeros(NUM_FACES), np.zeros(NUM_FACES), np.zeros(SLOTS, np.bool_), np.zeros(SLOTS, np.bool_),
            np.zeros(SLOTS, np.bool_), np.zeros(SLOTS, np.bool_), fitters, n_fitters, np.zeros(SLOTS, np.bool_),
            np.zeros(SLOTS))


@njit(cache=True)
def decide_range(obs, mask, keys, out, lo, hi, num_players, offsets, compat, type_face, type_is_prize, params):
    """``out[b]`` = counter's action for rows ``lo..hi-1``."""
    w = _scratch(num_players, type_face.shape[0], compat)
    for b in range(lo, hi):
        out[b] = decide_row(obs[b], mask[b], keys[b], num_players, offsets, compat, type_face, type_is_prize, params,
                            w)


@njit(cache=True, parallel=True)
def decide_kernel(obs, mask, keys, out, num_players, offsets, compat, type_face, type_is_prize, params, chunks):
    """:func:`decide_range` over the whole batch, in ``chunks`` ranges spread over the threads."""
    n = obs.shape[0]
    for c in prange(chunks):
        decide_range(obs, mask, keys, out, c * n // chunks, (c + 1) * n // chunks, num_players, offsets, compat,
                     type_face, type_is_prize, params)


# ============================================================================ policy features

HINT_WIDTH = 15
"""The hint columns of the "hints" and "advice" feature sets (``features.py``)."""


@njit(cache=True, _nrt=False)
def features_row(obs, mask, keys, scale, advise, num_players, offsets, compat, type_face, type_is_prize, params, w,
                 out):
    """One row of the "hints" / "advice" policy features (``features.py``, whose NumPy path is the
    reference) into ``out``: the observation times ``scale``; the 15 hints (``risk``'s exact call success
    chance for seat 0, 0 when the game is over; the chance that seat 0's next unknown card fits a pile
    now / is a prize, from that card's pool; seat 0's known cards that fit now and those that do not),
    NaN written as 0; then, with ``advise``, counter's move as a one-hot over the actions (every legal
    unknown card when it reveals one), none where nothing is legal. ``keys`` are counter's tie-break
    keys for the row."""
    (state, face, function, slot_pool, earlier_type, tops, counts, pool, current, pool_by_face, good,
     gained, score6, allowed6, score36, allowed36, own, q, known, unknown, others, no_slots, fitters, n_fitters, fit,
     zeros6) = w
    O = obs.shape[0]
    for j in range(O):
        out[j] = obs[j] * scale[j]
    phase = _argmax(obs, offsets[OFF_PHASE], NUM_PHASES)
    pool_total = _decode_row(obs, num_players, offsets, type_face, type_is_prize, w)
    # risk.batch_call_success_probability: 0 while a known card of seat 0 fits a pile
    known_fit = False
    for s in range(SLOTS):
        known_fit |= known[s] and counts[face[0, s]] > 0
    success = 0.0 if known_fit else _pool_all_good(num_players, current, good, slot_pool, earlier_type)
    if phase == OVER:
        success = np.nan
    # risk.unknown_fit_probability: the pool of seat 0's first unknown card (the current one if none)
    first = 0
    for s in range(SLOTS - 1, -1, -1):
        if slot_pool[0, s] >= 0:
            first = slot_pool[0, s]
    n = 0
    n_fit = 0
    n_prize = 0
    if first > 0:
        for p in range(num_players):
            for s in range(SLOTS):
                if slot_pool[p, s] == first:
                    t = earlier_type[p, s]
                    n += 1
                    n_fit += counts[type_face[t]] > 0
                    n_prize += type_is_prize[t]
    else:
        for t in range(pool.shape[0]):
            n += current[t]
            if counts[type_face[t]] > 0:
                n_fit += current[t]
            if type_is_prize[t]:
                n_prize += current[t]
    fit_p = n_fit / np.float64(n) if n > 0 else np.nan
    prize_p = n_prize / np.float64(n) if n > 0 else np.nan
    out[O] = np.float32(_nan0(success))
    out[O + 1] = np.float32(_nan0(fit_p))
    out[O + 2] = np.float32(_nan0(prize_p))
    for s in range(SLOTS):
        fits_now = counts[face[0, s]] > 0
        out[O + 3 + s] = 1.0 if known[s] and fits_now else 0.0
        out[O + 3 + SLOTS + s] = 1.0 if known[s] and not fits_now else 0.0
    if not advise:
        return
    a0 = O + HINT_WIDTH
    for a in range(NUM_ACTIONS):
        out[a0 + a] = 0.0
    if not _any(mask, 0, NUM_ACTIONS):
        return
    action = _choose(obs, mask, keys, num_players, offsets, compat, type_face, type_is_prize, params, w, phase, True,
                     pool_total)
    out[a0 + action] = 1.0
    if action < SLOTS and unknown[action]:
        for s in range(SLOTS):
            out[a0 + s] = 1.0 if unknown[s] and mask[s] else 0.0


@njit(cache=True)
def features_range(obs, mask, keys, scale, advise, out, lo, hi, num_players, offsets, compat, type_face, type_is_prize,
                   params):
    """``features_row`` for rows ``lo..hi-1``."""
    w = _scratch(num_players, type_face.shape[0], compat)
    for b in range(lo, hi):
        features_row(obs[b], mask[b], keys[b], scale, advise, num_players, offsets, compat, type_face, type_is_prize,
                     params, w, out[b])


@njit(cache=True, parallel=True)
def features_kernel(obs, mask, keys, scale, advise, out, num_players, offsets, compat, type_face, type_is_prize, params,
                    chunks):
    """:func:`features_range` over the whole batch, in ``chunks`` ranges spread over the threads."""
    n = obs.shape[0]
    for c in prange(chunks):
        features_range(obs, mask, keys, scale, advise, out, c * n // chunks, (c + 1) * n // chunks, num_players,
                       offsets, compat, type_face, type_is_prize, params)


# ============================================================================ playing seats in the engine

_UNIT = 2.0 ** -53


@njit(cache=True)
def play_range(s, k, games, seat_agent, streams, stuck, lo, hi, num_players, offsets, compat, type_face,
               type_is_prize, params):
    """Plays games ``games[lo:hi]`` of a core (state ``s``, constants ``k``) for a line-up of agents:
    while the seat to act in game ``games[i]`` is held (``seat_agent[i, seat]`` = a, an agent's row of
    ``params`` [A, NUM_PARAMS]; -1: not held) and the game is not over, observes it as that seat,
    decides with agent a's parameters (:func:`decide_row`, tie keys from stream ``a * n + i`` of
    ``streams`` [A * n, 4], n = ``len(games)``: each agent's own stream per game) and steps the game
    (``kernels.step_range``: each step resets the game's rewards first, so they are those of its last
    step). ``stuck[i]`` is set (and the game left) if a live game offers nothing legal."""
    B = s.phase.shape[0]
    n = games.shape[0]
    w = _scratch(num_players, type_face.shape[0], compat)
    obs = np.zeros((1, k.obs_size), np.float32)
    one_game = np.zeros(1, np.intp)
    one_seat = np.zeros(1, np.intp)
    actions = np.zeros(B, np.intp)
    active = np.zeros(B, np.bool_)
    keys = np.zeros(NUM_ACTIONS)
    for i in range(lo, hi):
        b = games[i]
        while s.phase[b] != OVER:
            agent = seat_agent[i, s.current[b]]
            if agent < 0:
                break
            one_game[0] = b
            one_seat[0] = s.current[b]
            observe_range(s, k, one_game, one_seat, obs, 0, 1)
            stream = agent * n + i
            for a in range(NUM_ACTIONS):
                keys[a] = np.float64(next64(streams, stream) >> np.uint64(11)) * _UNIT
            action = decide_row(obs[0], s.legal_mask[b], keys, num_players, offsets, compat, type_face,
                                type_is_prize, params[agent], w)
            if not s.legal_mask[b, action]:
                stuck[i] = True
                break
            actions[b] = action
            active[b] = True
            step_range(s, k, actions, active, b, b + 1)
            active[b] = False


@njit(cache=True, parallel=True)
def play_kernel(s, k, games, seat_agent, streams, stuck, num_players, offsets, compat, type_face, type_is_prize,
                params, chunks):
    """:func:`play_range` over all listed games, in ``chunks`` ranges spread over the threads (each
    game is played by one thread; its keys come from its own streams, so the split changes nothing)."""
    n = games.shape[0]
    for c in prange(chunks):
        play_range(s, k, games, seat_agent, streams, stuck, c * n // chunks, (c + 1) * n // chunks, num_players,
                   offsets, compat, type_face, type_is_prize, params)


# The play kernels compile in the engine's step and observation and the random stream: a change in
# ``kernels.py`` or ``rng.py`` must reach this module's cached machine code too (``kernel_cache``).
drop_stale_cache(__file__, play_range, [_kernels_module.__file__, _rng_module.__file__])
