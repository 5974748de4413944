"""The compiled rules of dnp: per-game functions over the state arrays, and the batch kernels.

Every rule is written once, as a plain function of one game ``b`` that reads and writes row ``b`` of
the state arrays (``s``, a :class:`State` of the arrays documented in ``core.py``); the functions
mirror ``reference.py`` step for step. The batch kernels run them in a ``prange`` over the games (a
``*_seq`` twin on one thread for small batches). Constants of the variant travel in a :class:`Consts`.
Compiled with ``cache=True``: the first use on a machine compiles, later processes load the code.
"""

from __future__ import annotations

import collections

import numpy as np
from numba import njit, prange

from ...rng import bounded, shuffle  # the shared per-game random stream

LOC_HAND, LOC_TABLE, LOC_DISCARD, LOC_OUT = 0, 1, 2, 3
REWARD_WIN, REWARD_SCORE, REWARD_RANK = range(3)
MAX_VALUE = 10

STATE_FIELDS = (
    "card_loc", "card_where", "card_rot", "card_public", "card_selected", "deal_order", "set_size", "set_value",
    "hand_count", "sel_count", "sel_value", "points", "out", "finishers", "current", "area", "turn", "rounds",
    "terminated", "truncated", "rewards", "legal_mask", "rng_state")

State = collections.namedtuple("State", STATE_FIELDS)
"""The state arrays of a core, in one argument (``core.py`` documents every field)."""

Consts = collections.namedtuple("Consts", (
    "values",          # [N, 2] int8: upright and rotated value of each card
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
def _target_position(k, seat, target):
    rel = target // k.areas
    return ((seat + rel + 1) % k.num_players) * k.areas + target % k.areas


@njit(cache=True, inline="always", _nrt=False)
def _discard_pos(s, b, pos):
    for c in range(s.card_loc.shape[1]):
        if s.card_loc[b, c] == LOC_TABLE and s.card_where[b, c] == pos:
            s.card_loc[b, c] = LOC_DISCARD
            s.card_where[b, c] = 0
            s.card_public[b, c] = False
    s.set_size[b, pos] = 0
    s.set_value[b, pos] = 0


@njit(cache=True, inline="always", _nrt=False)
def _to_hand(s, b, pos, seat):
    """The set at ``pos`` into ``seat``'s hand: every card turned, known to everybody."""
    for c in range(s.card_loc.shape[1]):
        if s.card_loc[b, c] == LOC_TABLE and s.card_where[b, c] == pos:
            s.card_loc[b, c] = LOC_HAND
            s.card_where[b, c] = seat
            s.card_rot[b, c] ^= 1
            s.card_public[b, c] = True
            s.hand_count[b, seat] += 1
    s.set_size[b, pos] = 0
    s.set_value[b, pos] = 0


@njit(cache=True, inline="always", _nrt=False)
def _to_table(s, k, b, c, pos):
    s.hand_count[b, s.card_where[b, c]] -= 1
    s.card_loc[b, c] = LOC_TABLE
    s.card_where[b, c] = pos
    s.card_public[b, c] = False
    s.card_selected[b, c] = False
    s.set_size[b, pos] += 1
    s.set_value[b, pos] = _active(s, k, b, c)


@njit(cache=True, inline="always", _nrt=False)
def _remove_beaten(s, k, b, pos):
    owner = pos // k.areas
    if s.out[b, owner]:
        _discard_pos(s, b, pos)
    else:
        _to_hand(s, b, pos, owner)


@njit(cache=True, inline="always", _nrt=False)
def _collision(s, b, size, exclude):
    for pos in range(s.set_size.shape[1]):
        if pos != exclude and s.set_size[b, pos] == size:
            return pos
    return -1


@njit(cache=True, inline="always", _nrt=False)
def _can_play(s, b, value, size):
    for pos in range(s.set_size.shape[1]):
        if s.set_size[b, pos] == size and s.set_value[b, pos] >= value:
            return False
    return True


@njit(cache=True, inline="always", _nrt=False)
def _target_open(s, k, b, pos):
    if s.set_size[b, pos] == 0:
        return False
    return not (k.finisher_closed and s.out[b, pos // k.areas])


@njit(cache=True, inline="always", _nrt=False)
def _can_add(s, k, b, value, pos):
    if not _target_open(s, k, b, pos) or s.set_value[b, pos] != value:
        return False
    size = s.set_size[b, pos] + 1
    for q in range(s.set_size.shape[1]):
        if q != pos and s.set_size[b, q] == size and s.set_value[b, q] >= value:
            return False
    return True


@njit(cache=True, inline="always", _nrt=False)
def _count_value(s, k, b, seat, value):
    n = 0
    for c in range(s.card_loc.shape[1]):
        if s.card_loc[b, c] == LOC_HAND and s.card_where[b, c] == seat and _active(s, k, b, c) == value:
            n += 1
    return n


@njit(cache=True, inline="always", _nrt=False)
def _begin_move(s, k, b):
    _discard_pos(s, b, s.current[b] * k.areas + s.area[b])


@njit(cache=True, _nrt=False)
def _deal(s, k, b):
    """A new round: shuffle, deal round-robin, random orientations, the star's holder starts."""
    N, P = s.card_loc.shape[1], k.num_players
    n = 0
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


@njit(cache=True, _nrt=False)
def _advance(s, k, b):
    if k.areas == 2:
        if s.area[b] == 0:
            s.area[b] = 1
        else:
            s.current[b] = 1 - s.current[b]
            s.area[b] = 0
    else:
        nxt = (s.current[b] + 1) % k.num_players
        while s.out[b, nxt]:
            _discard_pos(s, b, nxt)
            nxt = (nxt + 1) % k.num_players
        s.current[b] = nxt
    _begin_move(s, k, b)


@njit(cache=True, _nrt=False)
def _step_game(s, k, b, action):
    """Game b's decision ``action`` (legal), then everything automatic up to the next decision."""
    N = s.card_loc.shape[1]
    seat = np.int64(s.current[b])
    if action < N:
        if s.sel_count[b] == 0:
            s.sel_value[b] = _active(s, k, b, action)
        s.card_selected[b, action] = True
        s.sel_count[b] += 1
        return
    shed = False
    if action == k.play:
        pos = seat * k.areas + s.area[b]
        beaten = _collision(s, b, s.sel_count[b], pos)
        if beaten >= 0:
            _remove_beaten(s, k, b, beaten)
        for c in range(N):
            if s.card_selected[b, c]:
                _to_table(s, k, b, c, pos)
        shed = True
    elif action < k.take_base:
        pos = _target_position(k, seat, action - k.add_base)
        beaten = _collision(s, b, s.set_size[b, pos] + 1, pos)
        if beaten >= 0:
            _remove_beaten(s, k, b, beaten)
        for c in range(N):
            if s.card_selected[b, c]:
                _to_table(s, k, b, c, pos)
        shed = True
    elif action < k.turn_action:
        _to_hand(s, b, _target_position(k, seat, action - k.take_base), seat)
    else:
        for c in range(N):
            if s.card_loc[b, c] == LOC_HAND and s.card_where[b, c] == seat:
                s.card_rot[b, c] ^= 1
    s.sel_count[b] = 0
    s.sel_value[b] = 0
    s.turn[b] += 1
    if shed and s.hand_count[b, seat] == 0 and _finish(s, k, b, seat):
        return
    if s.turn[b] >= k.max_turns:
        s.truncated[b] = True
        return
    _advance(s, k, b)


@njit(cache=True, _nrt=False)
def _mask_game(s, k, b):
    """Game b's legal-action mask (all False once over)."""
    N = s.card_loc.shape[1]
    for a in range(s.legal_mask.shape[1]):
        s.legal_mask[b, a] = False
    if s.terminated[b] or s.truncated[b]:
        return
    seat = np.int64(s.current[b])
    chosen = np.int64(s.sel_count[b])
    if chosen == 0:
        # Whether a hand card can start a set depends on its active value only: each value's answer
        # is worked out once (bit v of ``known`` and ``fine``), not once per card of that value.
        known, fine = np.int64(0), np.int64(0)
        for c in range(N):
            if s.card_loc[b, c] != LOC_HAND or s.card_where[b, c] != seat:
                continue
            v = _active(s, k, b, c)
            bit = np.int64(1) << v
            if not known & bit:
                known |= bit
                n = _count_value(s, k, b, seat, v)
                ok = False
                for m in range(1, n + 1):
                    if _can_play(s, b, v, m):
                        ok = True
                        break
                if not ok:
                    for t in range(k.num_targets):
                        if _can_add(s, k, b, v, _target_position(k, seat, t)):
                            ok = True
                            break
                if ok:
                    fine |= bit
            s.legal_mask[b, c] = (fine & bit) != 0
        for t in range(k.num_targets):
            s.legal_mask[b, k.take_base + t] = _target_open(s, k, b, _target_position(k, seat, t))
        s.legal_mask[b, k.turn_action] = True
    else:
        v = np.int64(s.sel_value[b])
        n = _count_value(s, k, b, seat, v)
        more = False
        for m in range(chosen + 1, n + 1):
            if _can_play(s, b, v, m):
                more = True
                break
        if more:
            for c in range(N):
                if (s.card_loc[b, c] == LOC_HAND and s.card_where[b, c] == seat and not s.card_selected[b, c]
                        and _active(s, k, b, c) == v):
                    s.legal_mask[b, c] = True
        s.legal_mask[b, k.play] = _can_play(s, b, v, chosen)
        if chosen == 1:
            for t in range(k.num_targets):
                s.legal_mask[b, k.add_base + t] = _can_add(s, k, b, v, _target_position(k, seat, t))


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


@njit(cache=True, _nrt=False)
def _observe_game(s, k, b, seat, out):
    """Game b as ``seat`` sees it, written into ``out`` (``observation.py``)."""
    P, A, N, F = k.num_players, k.areas, s.card_loc.shape[1], k.card_width
    T = P * A
    for i in range(out.shape[0]):
        out[i] = 0.0
    live = not (s.terminated[b] or s.truncated[b])
    mover = live and s.current[b] == seat
    if live:
        out[k.off_acting + (s.current[b] - seat) % P] = 1.0
        out[k.off_area + s.area[b]] = 1.0
        if mover and s.sel_count[b] > 0:
            out[k.off_selection] = s.sel_count[b]
            out[k.off_selection + 1] = s.sel_value[b]
    for rel in range(P):
        p = (seat + rel) % P
        base = k.off_players + 4 * rel
        out[base] = s.hand_count[b, p]
        out[base + 1] = s.points[b, p]
        out[base + 2] = 1.0 if s.out[b, p] else 0.0
    for rel_pos in range(T):
        pos = ((seat + rel_pos // A) % P) * A + rel_pos % A
        out[k.off_table + 2 * rel_pos] = s.set_value[b, pos]
        out[k.off_table + 2 * rel_pos + 1] = s.set_size[b, pos]
    for c in range(N):
        base = k.off_cards + c * F
        out[base] = k.values[c, 0]
        out[base + 1] = k.values[c, 1]
        loc = s.card_loc[b, c]
        where = np.int64(s.card_where[b, c])
        visible = False
        if loc == LOC_HAND:
            if s.card_public[b, c]:
                out[k.off_players + 4 * ((where - seat) % P) + 3] += 1.0
            if where == seat:
                visible = True
                out[base + 4] = 1.0
                if mover and s.card_selected[b, c]:
                    out[base + 5] = 1.0
                out[base + 6] = 1.0 if s.card_public[b, c] else 0.0
                out[k.off_hand_values + _active(s, k, b, c) - 1] += 1.0
                out[k.off_hand_values + MAX_VALUE + k.values[c, 1 - s.card_rot[b, c]] - 1] += 1.0
            elif s.card_public[b, c]:
                visible = True
                out[base + 7 + T + (where - seat) % P - 1] = 1.0
        elif loc == LOC_TABLE:
            visible = True
            out[base + 7 + ((where // A - seat) % P) * A + where % A] = 1.0
        elif loc == LOC_DISCARD:
            out[base + 7 + T + P - 1] = 1.0
        else:
            out[base + 7 + T + P] = 1.0
        if visible:
            out[base + 2] = _active(s, k, b, c)
            out[base + 3] = s.card_rot[b, c]


# ============================================================================ batch kernels


@njit(cache=True, parallel=True)
def step_kernel(s, k, actions, active):
    for b in prange(actions.shape[0]):
        for p in range(s.rewards.shape[1]):
            s.rewards[b, p] = 0.0
        if active[b] and not (s.terminated[b] or s.truncated[b]):
            _step_game(s, k, b, actions[b])
            _mask_game(s, k, b)


@njit(cache=True, _nrt=False)
def step_kernel_seq(s, k, actions, active):
    for b in range(actions.shape[0]):
        for p in range(s.rewards.shape[1]):
            s.rewards[b, p] = 0.0
        if active[b] and not (s.terminated[b] or s.truncated[b]):
            _step_game(s, k, b, actions[b])
            _mask_game(s, k, b)


@njit(cache=True, parallel=True)
def reset_kernel(s, k, games):
    for i in prange(games.shape[0]):
        _reset_game(s, k, games[i])


@njit(cache=True, _nrt=False)
def reset_kernel_seq(s, k, games):
    for i in range(games.shape[0]):
        _reset_game(s, k, games[i])


@njit(cache=True, _nrt=False)
def mask_kernel(s, k, games):
    """Recomputes the masks of the listed games (after a position was loaded)."""
    for i in range(games.shape[0]):
        _mask_game(s, k, games[i])


@njit(cache=True, parallel=True)
def observe_kernel(s, k, games, seats, out):
    for i in prange(games.shape[0]):
        _observe_game(s, k, games[i], seats[i], out[i])


@njit(cache=True, _nrt=False)
def observe_kernel_seq(s, k, games, seats, out):
    for i in range(games.shape[0]):
        _observe_game(s, k, games[i], seats[i], out[i])
