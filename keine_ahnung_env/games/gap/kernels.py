"""The compiled rules of the gap game: per-game functions over the state arrays, and the batch kernels.

Every rule is written once, as a plain function of one game ``b`` that reads and writes row ``b`` of
the state arrays (``s``, a :class:`State` of the arrays documented in ``core.py``); the functions
mirror ``reference.py`` (the readable engine they are tested against) step for step. The batch kernels
(``step_kernel``, ``deal_kernel``, ``observe_kernel``) run them over ranges of games in a ``prange``; the
serial ``*_range`` loops run small batches on the calling thread. The per-game functions of the common
path are ``inline="always"`` and ``_nrt=False`` (``docs/engine_pattern.md``); rare paths (reshuffle,
end of a round with the next deal, a new game) stay ordinary calls. Constants of the variant
travel in a :class:`Consts`. Compiled with ``cache=True``: the first use on a machine compiles, later
processes load the machine code from ``__pycache__``.
"""

from __future__ import annotations

import collections

import numpy as np
from numba import njit, prange

from ... import bits as _bits_module
from ... import packing as _packing_module
from ... import rng as _rng_module
from ...bits import popcount
from ...kernel_cache import drop_stale_cache
from ...packing import (bool_at, check_actions_kernel, define_packed_entry_points, field1,  # noqa: F401
                        field2, field3, float_at, int_at)
from ...rng import shuffle
from . import actions, config, deck

# Card locations (``card_loc``); see core.py.
LOC_DRAW, LOC_HAND, LOC_HIDDEN, LOC_TOP, LOC_UNDER, LOC_PENDING, LOC_OUT = range(7)

# Phases (actions.Phase) and actions (actions.py) as plain ints.
HIDE, FLIP, PLAY, OVER = range(4)
NUM_CARDS = 66
NUM_COLOURS = 6
NUM_NUMBERS = 11
CARD_FEATURES = NUM_COLOURS + NUM_NUMBERS
HAND_SIZE = 12
HIDDEN_PER_PLAYER = 2
ACTION_PASS = 132
ACTION_HIDE_BASE = 133
ACTION_FLIP_BASE = 199
NUM_ACTIONS = 201
REWARD_WIN, REWARD_SCORE, REWARD_RANK = range(3)
MAX_PLAYERS = 5  # _end_round keeps one running total per seat in a register
# The rules modules' constants are written out above: Numba freezes module-level ints into the cached
# machine code and its cache does not notice a change in another module; this assertion does.
assert ((HIDE, FLIP, PLAY, OVER) == tuple(int(p) for p in actions.Phase)
        and (NUM_CARDS, NUM_COLOURS, NUM_NUMBERS, HAND_SIZE, HIDDEN_PER_PLAYER)
        == (deck.NUM_CARDS, deck.NUM_COLOURS, deck.NUM_NUMBERS, deck.HAND_SIZE, deck.HIDDEN_PER_PLAYER)
        and MAX_PLAYERS == config.MAX_PLAYERS
        and (ACTION_PASS, ACTION_HIDE_BASE, ACTION_FLIP_BASE, NUM_ACTIONS)
        == (actions.ACTION_PASS, actions.ACTION_HIDE_BASE, actions.ACTION_FLIP_BASE, actions.NUM_ACTIONS)), \
    "kernels.py's constants differ from actions.py / deck.py: update them"

STATE_FIELDS = (
    "card_loc", "card_owner", "card_seen", "card_pool", "draw_cards", "draw_pos", "draw_len", "pile_top", "hand_count",
    "hidden_count", "pending", "phase", "current", "dealer", "round", "extra_turn", "dry_passes", "score",
    "went_out", "turn", "terminated", "truncated", "rewards", "legal_mask", "rng_state")

State = collections.namedtuple("State", STATE_FIELDS)
"""The state arrays of a core, in one argument (``core.py`` documents every field)."""

Consts = collections.namedtuple("Consts", (
    "colour",        # [66] int8: colour of each card
    "number",        # [66] int8: number 1-11 of each card
    "stars",         # [66] int8
    "num_players", "rounds", "flip_on_extra_turns", "reward_mode", "round_reward_scale", "max_turns",
    "obs_size", "off_phase", "off_acting", "off_hand", "off_hidden", "off_pile_tops", "off_flip_card",
    "off_discards", "off_seen", "off_hand_sizes", "off_hidden_sizes", "off_table", "off_dealer", "off_scores",
    "off_pool", "off_pool_holdings",
))
"""Constants of one variant, in one argument."""

# ============================================================================ one game

# ----------------------------------------------------------------- cards and piles


_U1 = np.uint64(1)
_U0, _ALL = np.uint64(0), np.uint64(0xFFFFFFFFFFFFFFFF)


@njit(cache=True, _nrt=False)
def _reshuffle(card_loc, card_owner, card_pool, draw_cards, draw_pos, draw_len, rng_state, b):
    """Game b's new draw pile: every card below the two pile tops, taken in ascending card id and
    shuffled with the game's stream; nothing happens when there is nothing to shuffle.

    The pool labels change with it: every card outside the hands loses its label, the pools that still
    have cards in a hand are renumbered 2, 3, ... in their order (most recent first), and the new pile's
    cards form pool 1. So labels stay within 1..66 (a live pool has a card in a hand) and their order is
    the order of the reshuffles (``card_pool`` in core.py).

    Two branch-free passes over the cards: the first gathers the cards below the tops into the draw
    pile and the labels still held in hands as a 128-bit set (bit L: label L); the second gives each
    held label its rank in that set plus 2, clears the other labels and moves the gathered cards. (A
    scan of the cards per label cost 66 x 66 steps; separate passes for the count, the labels and the
    gathering, with branches, cost twice these two.) It takes the seven arrays it needs, not the whole
    ``State``, whose every array's pointer, shape and strides a call would copy."""
    loc = card_loc[b]
    pool = card_pool[b]
    draw = draw_cards[b]
    owner = card_owner[b]
    # Both passes without branches: where a card lies is as good as random to the branch predictor
    # (with branches the first pass alone took half of a reshuffle). n is int64 from the start: with a
    # literal 0, Numba compiled ``shuffle`` a second time, for Literal[int](0), while it was still
    # inferring the loop's type.
    n = np.int64(0)
    low = np.uint64(0)
    high = np.uint64(0)
    for c in range(NUM_CARDS):
        where = loc[c]
        draw[n] = c  # kept only when the card lies below a top (n then moves on)
        n += where == LOC_UNDER
        label = np.int64(pool[c]) * (where == LOC_HAND)  # 0 (no label) outside the hands
        bit = _U1 << np.uint64(label & 63)
        low |= bit * np.uint64(label < 64)
        high |= bit * np.uint64(label >= 64)
    if n == 0:
        return
    low &= ~_U1  # bit 0 stands for "no label"
    for c in range(NUM_CARDS):
        where = loc[c]
        label = np.int64(pool[c])
        below = (_U1 << np.uint64(label & 63)) - _U1  # the labels under ``label`` in its own word
        rank = np.int64(popcount(low & (below if label < 64 else _ALL))
                        + popcount(high & (below if label >= 64 else _U0)))
        under = where == LOC_UNDER
        pool[c] = (2 + rank) * ((where == LOC_HAND) & (label > 0)) + under
        loc[c] = LOC_DRAW if under else where
        owner[c] = -1 if under else owner[c]
    shuffle(rng_state, b, draw, n)
    draw_pos[b] = 0
    draw_len[b] = n


@njit(cache=True, inline="always", _nrt=False)
def _draw(s, b):
    """Takes the top draw card (reshuffling first if the pile is empty); -1 when nothing can be drawn."""
    if s.draw_pos[b] >= s.draw_len[b]:
        _reshuffle(s.card_loc, s.card_owner, s.card_pool, s.draw_cards, s.draw_pos, s.draw_len, s.rng_state, b)
        if s.draw_pos[b] >= s.draw_len[b]:
            return -1
    pos = s.draw_pos[b]
    s.draw_pos[b] = pos + 1
    return np.int64(s.draw_cards[b, pos])


@njit(cache=True, inline="always", _nrt=False)
def _put_on_pile(s, b, card, pile):
    """``card`` goes face up on ``pile``; the old top goes below it."""
    old = s.pile_top[b, pile]
    if old >= 0:
        s.card_loc[b, old] = LOC_UNDER
    s.pile_top[b, pile] = card
    s.card_loc[b, card] = LOC_TOP
    s.card_owner[b, card] = pile
    s.card_seen[b, card] = True


@njit(cache=True, inline="always", _nrt=False)
def _next_seat(seat, num_players):
    """The seat to the left of ``seat`` (0..P-1), without the division of ``(seat + 1) % P``."""
    nxt = seat + 1
    return nxt if nxt < num_players else 0


@njit(cache=True, inline="always", _nrt=False)
def _gap_width(k, top_a, top_b):
    d = abs(np.int64(k.number[top_a]) - np.int64(k.number[top_b])) - 1
    return d if d > 0 else 0


@njit(cache=True, inline="always", _nrt=False)
def _is_gap_card(k, card, top_a, top_b):
    """Option A: ``card``'s colour matches neither top and its number lies strictly between theirs."""
    colour, number = k.colour[card], k.number[card]
    number_a, number_b = k.number[top_a], k.number[top_b]
    return (colour != k.colour[top_a]) & (colour != k.colour[top_b]) \
        & (number > min(number_a, number_b)) & (number < max(number_a, number_b))


# ----------------------------------------------------------------- round and game flow


@njit(cache=True, _nrt=False)
def _final_rewards(s, k, b):
    """The rewards of game b's end, added to this step's rewards (``scoring.final_rewards``, one game)."""
    P = k.num_players
    if k.reward_mode == REWARD_SCORE:
        for p in range(P):
            s.rewards[b, p] += s.score[b, p]
        return
    best = s.score[b, 0]
    for p in range(P):
        best = max(best, s.score[b, p])
    n_win = 0
    for p in range(P):
        n_win += s.score[b, p] == best
    for p in range(P):
        if k.reward_mode == REWARD_WIN:
            if n_win == P:
                s.rewards[b, p] += 0.0
            elif s.score[b, p] == best:
                s.rewards[b, p] += 1.0 / n_win
            else:
                s.rewards[b, p] += -1.0 / (P - n_win)
        else:  # rank
            beats = 0
            for q in range(P):
                beats += (s.score[b, p] > s.score[b, q]) - (s.score[b, p] < s.score[b, q])
            s.rewards[b, p] += beats / (P - 1)


@njit(cache=True, inline="always", _nrt=False)
def _deal_round(s, k, b):
    """Shuffles all 66 cards with game b's stream and deals the round: 12 cards to each seat (seat 0
    first), the next two as the left and right starting cards (laid face up once everybody has chosen
    their hidden cards), the rest as the draw pile. The seat left of the dealer chooses first.

    Inlined into its two callers, both rare ordinary calls (``_end_round``, ``_deal_game``): as a call
    of its own it copied the whole ``State`` a second time per round."""
    P = k.num_players
    draw = s.draw_cards[b]
    loc = s.card_loc[b]
    owner = s.card_owner[b]
    seen = s.card_seen[b]
    pool = s.card_pool[b]
    for c in range(NUM_CARDS):
        draw[c] = c
        seen[c] = False
        pool[c] = 0
    shuffle(s.rng_state, b, draw, np.int64(NUM_CARDS))  # not the literal: shuffle compiles for int64 once
    for p in range(P):  # seat by seat: no division of the deck position by 12
        for i in range(p * HAND_SIZE, (p + 1) * HAND_SIZE):
            c = draw[i]
            loc[c] = LOC_HAND
            owner[c] = p
    dealt = P * HAND_SIZE
    for pile in range(2):
        c = draw[dealt + pile]
        s.pile_top[b, pile] = c
        loc[c] = LOC_TOP
        owner[c] = pile
    for i in range(dealt + 2, NUM_CARDS):
        c = draw[i]
        loc[c] = LOC_DRAW
        owner[c] = -1
    s.draw_pos[b] = dealt + 2
    s.draw_len[b] = NUM_CARDS
    for p in range(P):
        s.hand_count[b, p] = HAND_SIZE
        s.hidden_count[b, p] = 0
    s.pending[b] = -1
    s.dry_passes[b] = 0
    s.extra_turn[b] = False
    s.dealer[b] = (P - 1 + s.round[b]) % P
    s.current[b] = (s.dealer[b] + 1) % P
    s.phase[b] = HIDE


@njit(cache=True, inline="always", _nrt=False)
def _begin_turn(s, k, b, seat, extra):
    """``seat`` starts a turn (``extra``: the extra turn after a gap play). With no gap between the
    tops it must first turn the top draw card face up onto a pile of its choice (FLIP), unless
    ``flip_on_extra_turns`` is off and this is an extra turn, or nothing can be drawn."""
    s.current[b] = seat
    s.extra_turn[b] = extra
    if (not extra or k.flip_on_extra_turns) and _gap_width(k, s.pile_top[b, 0], s.pile_top[b, 1]) == 0:
        card = _draw(s, b)
        if card >= 0:
            s.pending[b] = card
            s.card_loc[b, card] = LOC_PENDING
            s.card_owner[b, card] = -1
            s.card_seen[b, card] = True
            s.phase[b] = FLIP
            return
    s.phase[b] = PLAY


@njit(cache=True, _nrt=False)
def _end_round(s, k, b, winner):
    """The round ends (``winner``: the seat that laid its last card, -1 when it ended with nobody going
    out): the winner scores its hidden cards' stars, every other seat minus its hand's stars. Then the
    game ends after its last round, or the next round is dealt."""
    P = k.num_players
    # One pass over the cards, without branches (a card's owner is as good as random to the branch
    # predictor): each card's stars go to its owner's total, plus for the winner's hidden cards and
    # minus for the others' hand cards; P <= 5, one register per seat.
    d0 = d1 = d2 = d3 = d4 = 0
    for c in range(NUM_CARDS):
        owner = s.card_owner[b, c]
        where = s.card_loc[b, c]
        mine = owner == winner
        v = k.stars[c] * (np.int64(mine & (where == LOC_HIDDEN)) - np.int64((not mine) & (where == LOC_HAND)))
        d0 += v * (owner == 0)
        d1 += v * (owner == 1)
        d2 += v * (owner == 2)
        d3 += v * (owner == 3)
        d4 += v * (owner == 4)
    for p in range(P):
        delta = d0 if p == 0 else d1 if p == 1 else d2 if p == 2 else d3 if p == 3 else d4
        s.score[b, p] += delta
        s.rewards[b, p] += k.round_reward_scale * delta
    if winner >= 0:
        s.went_out[b, winner] += 1
    s.round[b] += 1
    if s.round[b] >= k.rounds:
        s.terminated[b] = True
        s.phase[b] = OVER
        s.pending[b] = -1
        _final_rewards(s, k, b)
        return
    _deal_round(s, k, b)


@njit(cache=True, inline="always", _nrt=False)
def _after_turn(s, k, b, winner, round_over, next_seat, extra):
    """A play or pass has ended a turn: the round may end; the game may be truncated; else the next
    turn begins."""
    s.turn[b] += 1
    if round_over:
        _end_round(s, k, b, winner)
        if s.phase[b] == OVER:
            return
    if s.turn[b] >= k.max_turns:
        s.truncated[b] = True
        s.phase[b] = OVER
        s.pending[b] = -1
        for p in range(k.num_players):
            s.rewards[b, p] = 0.0
        return
    if not round_over:
        _begin_turn(s, k, b, next_seat, extra)


# ---------------------------------------------------------------------- decisions


@njit(cache=True, inline="always", _nrt=False)
def _step_game(s, k, b, action):
    """Game b's decision ``action`` (legal), then everything automatic up to its next decision."""
    P = k.num_players
    seat = np.int64(s.current[b])
    phase = s.phase[b]
    if phase == HIDE:
        card = action - ACTION_HIDE_BASE
        s.card_loc[b, card] = LOC_HIDDEN
        s.hand_count[b, seat] -= 1
        s.hidden_count[b, seat] += 1
        if s.hidden_count[b, seat] < HIDDEN_PER_PLAYER:
            return
        nxt = _next_seat(seat, P)
        if s.hidden_count[b, nxt] < HIDDEN_PER_PLAYER:
            s.current[b] = nxt
            return
        # everybody has chosen: the two starting cards are laid face up and the round begins
        s.card_seen[b, s.pile_top[b, 0]] = True
        s.card_seen[b, s.pile_top[b, 1]] = True
        _begin_turn(s, k, b, nxt, False)
    elif phase == FLIP:
        _put_on_pile(s, b, np.int64(s.pending[b]), action - ACTION_FLIP_BASE)
        s.pending[b] = -1
        s.phase[b] = PLAY
    elif action == ACTION_PASS:
        card = _draw(s, b)
        if card >= 0:
            s.card_loc[b, card] = LOC_HAND
            s.card_owner[b, card] = seat
            s.hand_count[b, seat] += 1
            s.dry_passes[b] = 0
        else:
            s.dry_passes[b] += 1
        # np.int64(-1), not the literal: _end_round compiles for an int64 winner once
        _after_turn(s, k, b, np.int64(-1), s.dry_passes[b] >= P, _next_seat(seat, P), False)
    else:
        card, pile = action // 2, action % 2
        gap = _is_gap_card(k, card, s.pile_top[b, 0], s.pile_top[b, 1])
        _put_on_pile(s, b, card, pile)
        s.hand_count[b, seat] -= 1
        s.dry_passes[b] = 0
        out = s.hand_count[b, seat] == 0
        _after_turn(s, k, b, seat if out else -1, out, seat if gap else _next_seat(seat, P), gap)


@njit(cache=True, inline="always", _nrt=False)
def _mask_game(s, k, b):
    """Game b's legal-action mask, every entry written once. Each loop is branch-free and reads and
    writes one stream per array, so that LLVM vectorises it (32-64 cards per instruction). A play's two
    entries are "in the seat's hand" and "a gap card, or a match of that pile's top", computed from the
    cards' colours and numbers (two 66-byte rows that stay in the L1 cache): a precomputed table of the
    66 x 66 pairs of tops (287 kB) was read one row per decision from the L3 cache, once the state of a
    big batch had pushed it out of L2, and that load cost a fifth of a step. The regions an action kind
    does not use are cleared by loops of their own."""
    phase = s.phase[b]
    seat = s.current[b]
    mask = s.legal_mask[b]
    if phase == PLAY:
        loc = s.card_loc[b]
        owner = s.card_owner[b]
        left, right = s.pile_top[b, 0], s.pile_top[b, 1]
        colour_l, colour_r = k.colour[left], k.colour[right]
        number_l, number_r = k.number[left], k.number[right]
        low, high = min(number_l, number_r), max(number_l, number_r)
        for c in range(NUM_CARDS):
            colour, number = k.colour[c], k.number[c]
            mine = (loc[c] == LOC_HAND) & (owner[c] == seat)
            gap = (colour != colour_l) & (colour != colour_r) & (number > low) & (number < high)
            mask[2 * c] = mine & (gap | (colour == colour_l) | (number == number_l))
            mask[2 * c + 1] = mine & (gap | (colour == colour_r) | (number == number_r))
        mask[ACTION_PASS] = True
        for a in range(ACTION_HIDE_BASE, NUM_ACTIONS):
            mask[a] = False
    elif phase == HIDE:
        for a in range(ACTION_HIDE_BASE):
            mask[a] = False
        for c in range(NUM_CARDS):
            mask[ACTION_HIDE_BASE + c] = (s.card_loc[b, c] == LOC_HAND) & (s.card_owner[b, c] == seat)
        mask[ACTION_FLIP_BASE] = False
        mask[ACTION_FLIP_BASE + 1] = False
    else:
        for a in range(NUM_ACTIONS):
            mask[a] = False
        if phase == FLIP:
            mask[ACTION_FLIP_BASE] = True
            mask[ACTION_FLIP_BASE + 1] = True


@njit(cache=True, _nrt=False)
def _deal_game(s, k, b):
    """A new game in row b: scores and counters zeroed, the first round dealt from the game's stream."""
    for p in range(k.num_players):
        s.score[b, p] = 0
        s.went_out[b, p] = 0
        s.rewards[b, p] = 0.0
    s.round[b] = 0
    s.turn[b] = 0
    s.terminated[b] = False
    s.truncated[b] = False
    _deal_round(s, k, b)


# ------------------------------------------------------------------------ observation


@njit(cache=True, inline="always", _nrt=False)
def _card_features(k, card, out, base):
    out[base + k.colour[card]] = 1.0
    out[base + NUM_COLOURS + k.number[card] - 1] = 1.0


@njit(cache=True, inline="always", _nrt=False)
def _observe_game(s, k, b, seat, out):
    """Game b as ``seat`` sees it, written into the float32 row ``out`` (see observation.py)."""
    P = k.num_players
    for i in range(out.shape[0]):
        out[i] = 0.0
    phase = s.phase[b]
    out[k.off_phase + phase] = 1.0
    if phase != OVER:
        out[k.off_acting + (s.current[b] - seat) % P] = 1.0
    laid = phase != HIDE  # the starting cards are laid once everybody has chosen their hidden cards
    under = 0
    for c in range(NUM_CARDS):
        loc = s.card_loc[b, c]
        owner = s.card_owner[b, c]
        # Written as 0/1 without branches (the card order is random, so branches would mispredict).
        mine = owner == seat
        out[k.off_hand + c] = mine & (loc == LOC_HAND)
        out[k.off_hidden + c] = mine & (loc == LOC_HIDDEN)
        out[k.off_discards + c] = laid & ((loc == LOC_TOP) | (loc == LOC_UNDER))
        out[k.off_seen + c] = laid & s.card_seen[b, c]
        label = s.card_pool[b, c]
        if label > 0 and (loc == LOC_DRAW or loc == LOC_HAND):
            out[k.off_pool + c] = label
            if loc == LOC_HAND and owner != seat:
                out[k.off_pool_holdings + ((owner - seat) % P - 1) * NUM_CARDS + label - 1] += 1.0
        under += loc == LOC_UNDER
    if laid:
        for pile in range(2):
            _card_features(k, s.pile_top[b, pile], out, k.off_pile_tops + pile * CARD_FEATURES)
    if s.pending[b] >= 0:
        _card_features(k, s.pending[b], out, k.off_flip_card)
    for rel in range(P):
        p = (seat + rel) % P
        out[k.off_hand_sizes + rel] = s.hand_count[b, p]
        out[k.off_hidden_sizes + rel] = s.hidden_count[b, p]
        score = s.score[b, p]
        if score > 0:
            out[k.off_scores + 2 * rel] = score
        else:
            out[k.off_scores + 2 * rel + 1] = -score
    out[k.off_table] = s.draw_len[b] - s.draw_pos[b]
    out[k.off_table + 1] = under
    if laid:
        out[k.off_table + 2] = _gap_width(k, s.pile_top[b, 0], s.pile_top[b, 1])
    out[k.off_table + 3] = s.round[b]
    out[k.off_table + 4] = s.dry_passes[b]
    out[k.off_table + 5] = 1.0 if s.extra_turn[b] and phase != OVER else 0.0
    out[k.off_dealer + (s.dealer[b] - seat) % P] = 1.0


# ============================================================================ batch kernels
#
# Each batch operation is a serial loop over a range of games (``*_range``; Numba inlines the per-game
# functions into it) and a parallel kernel that splits the batch into ``chunks`` ranges and runs them
# in a ``prange`` (``docs/engine_pattern.md``): the per-game functions are inlined only into the serial
# loops, never into a ``prange`` body.


@njit(cache=True, _nrt=False)
def step_range(s, k, actions, active, lo, hi):
    """Steps the live, active games among ``lo..hi-1`` with their (legal) actions; every game's rewards
    in the range are reset first (only the steps that end a round or the game pay)."""
    for b in range(lo, hi):
        for p in range(s.rewards.shape[1]):
            # Only a step that ends a round or the game pays; a conditional store keeps LLVM from
            # making this loop a call of memset per game (it cost ~10% of a step). The kernels never
            # leave -0.0 (every reward is added to +0.0), which this test would keep.
            if s.rewards[b, p] != 0.0:
                s.rewards[b, p] = 0.0
        if active[b] and s.phase[b] != OVER:
            _step_game(s, k, b, actions[b])
            _mask_game(s, k, b)


@njit(cache=True, parallel=True)
def step_kernel(s, k, actions, active, chunks):
    """``step_range`` over the whole batch, in ``chunks`` ranges spread over the threads."""
    n = actions.shape[0]
    for c in prange(chunks):
        step_range(s, k, actions, active, c * n // chunks, (c + 1) * n // chunks)


@njit(cache=True, _nrt=False)
def _deal_and_mask(s, k, b):
    """A new game in row b and its mask, not inlined: the one copy used by dealing."""
    _deal_game(s, k, b)
    _mask_game(s, k, b)


@njit(cache=True, _nrt=False)
def deal_range(s, k, games, lo, hi):
    """Deals new games in rows ``games[lo:hi]`` (each from its own stream)."""
    for i in range(lo, hi):
        _deal_and_mask(s, k, games[i])


@njit(cache=True, parallel=True)
def deal_kernel(s, k, games, chunks):
    n = games.shape[0]
    for c in prange(chunks):
        deal_range(s, k, games, c * n // chunks, (c + 1) * n // chunks)


@njit(cache=True, _nrt=False)
def begin_turn_kernel(s, k, games, extra):
    """Starts the turn of each listed game's ``current`` seat (``core.load``), then its mask."""
    for i in range(games.shape[0]):
        b = games[i]
        _begin_turn(s, k, b, np.int64(s.current[b]), extra)
        _mask_game(s, k, b)


@njit(cache=True, _nrt=False)
def mask_kernel(s, k, games):
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
        field2(buf, meta, 1, np.int8),  # card_owner
        field2(buf, meta, 2, np.bool_),  # card_seen
        field2(buf, meta, 3, np.int8),  # card_pool
        field2(buf, meta, 4, np.int8),  # draw_cards
        field1(buf, meta, 5, np.int16),  # draw_pos
        field1(buf, meta, 6, np.int16),  # draw_len
        field2(buf, meta, 7, np.int8),  # pile_top
        field2(buf, meta, 8, np.int16),  # hand_count
        field2(buf, meta, 9, np.int8),  # hidden_count
        field1(buf, meta, 10, np.int8),  # pending
        field1(buf, meta, 11, np.int8),  # phase
        field1(buf, meta, 12, np.int8),  # current
        field1(buf, meta, 13, np.int8),  # dealer
        field1(buf, meta, 14, np.int16),  # round
        field1(buf, meta, 15, np.bool_),  # extra_turn
        field1(buf, meta, 16, np.int8),  # dry_passes
        field2(buf, meta, 17, np.int32),  # score
        field2(buf, meta, 18, np.int16),  # went_out
        field1(buf, meta, 19, np.int32),  # turn
        field1(buf, meta, 20, np.bool_),  # terminated
        field1(buf, meta, 21, np.bool_),  # truncated
        field2(buf, meta, 22, np.float32),  # rewards
        field2(buf, meta, 23, np.bool_),  # legal_mask
        field2(buf, meta, 24, np.uint64),  # rng_state
    )
    k = Consts(
        field1(buf, meta, 25, np.int8),  # colour
        field1(buf, meta, 26, np.int8),  # number
        field1(buf, meta, 27, np.int8),  # stars
        int_at(buf, meta, 28),  # num_players
        int_at(buf, meta, 29),  # rounds
        bool_at(buf, meta, 30),  # flip_on_extra_turns
        int_at(buf, meta, 31),  # reward_mode
        float_at(buf, meta, 32),  # round_reward_scale
        int_at(buf, meta, 33),  # max_turns
        int_at(buf, meta, 34),  # obs_size
        int_at(buf, meta, 35),  # off_phase
        int_at(buf, meta, 36),  # off_acting
        int_at(buf, meta, 37),  # off_hand
        int_at(buf, meta, 38),  # off_hidden
        int_at(buf, meta, 39),  # off_pile_tops
        int_at(buf, meta, 40),  # off_flip_card
        int_at(buf, meta, 41),  # off_discards
        int_at(buf, meta, 42),  # off_seen
        int_at(buf, meta, 43),  # off_hand_sizes
        int_at(buf, meta, 44),  # off_hidden_sizes
        int_at(buf, meta, 45),  # off_table
        int_at(buf, meta, 46),  # off_dealer
        int_at(buf, meta, 47),  # off_scores
        int_at(buf, meta, 48),  # off_pool
        int_at(buf, meta, 49),  # off_pool_holdings
    )
    return s, k


PACKED = define_packed_entry_points(globals())
"""The serial entry points' packed twins (``CompiledCore._run`` calls these on a packed core):
``step_range_packed``, ``step_range_checked`` (and its twin), ``deal_range_packed`` and
``observe_range_packed``, compiled for this game from ``packing.py``'s templates."""


# The rules compile in the random stream's kernels (``rng.py``) and the shared bit primitives (``bits.py``),
# the packed entry points the field readers (``packing.py``): a change there must reach this module's
# cached machine code too (``kernel_cache``).
drop_stale_cache(__file__, step_range, [_rng_module.__file__, _packing_module.__file__, _bits_module.__file__])
