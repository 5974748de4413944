"""The compiled rules of Keine Ahnung: per-game functions over the state arrays, and the batch kernels.

Every rule is written once, as a plain function of one game ``b`` (``_step_game``, ``_advance``,
``_draw``, ...) that reads and writes row ``b`` of the state arrays (``s``, a :class:`State` of the
arrays documented in ``core.py``). The functions mirror ``reference.py`` (the readable engine they are
tested against) step for step. Serial loops over a range of games (``step_range``, ``deal_range``,
``observe_range``) run them; the parallel kernels (``step_kernel``, ``deal_kernel``,
``observe_kernel``) split a batch into ranges and run those in a ``prange`` over Numba's threads.

Constants of the variant (card tables, player count, rules options, observation offsets) travel in a
:class:`Consts`. Speed notes (``docs/engine_pattern.md``): the per-game functions are
``inline="always"`` (passing ~30 arrays per call costs more than the rules) and ``_nrt=False`` (no
reference counting of the arrays, which costs as much again); they are inlined into the serial loops
only, never into a ``prange`` body. Everything is compiled with ``cache=True``: the first use on a
machine compiles, later processes load the machine code from ``__pycache__``.
"""

from __future__ import annotations

import collections

import numpy as np
from numba import njit, prange

from . import actions, config, deck, observation
from ... import bits as _bits_module
from ... import packing as _packing_module
from ... import rng as _rng_module
from ...bits import (byte_bits, copy_row, count_trailing_zeros, opaque, popcount, prefetch, prefetch_write,
                     store_bit_bytes)
from ...kernel_cache import drop_stale_cache
from ...packing import (bool_at, check_actions_kernel, define_packed_entry_points, field1,  # noqa: F401
                        field2, field3, float_at, int_at)
from ...rng import shuffle

# Card locations (``card_loc``); see core.py.
LOC_DRAW, LOC_LAYOUT, LOC_PILE, LOC_ASIDE, LOC_PRIZE, LOC_PENDING = range(6)

# The rules modules' constants, written out: Numba freezes module-level ints into the cached machine
# code, and its cache does not notice a change in another module; the assertion below does.
MAIN, PLACE_DRAWN, PLACE_REVEALED, OVER = range(4)
SLOTS = 6
NUM_FACES = 36
NO_FACE = 36
ACTION_CALL = 6
ACTION_PLACE_BASE = 7
ACTION_KEEP = ACTION_PLACE_BASE + NUM_FACES
CALL_MAX_CARDS = 3
REFILL_TARGET = 3
FUNCTION_REVEAL, FUNCTION_REMOVE, FUNCTION_REFILL = 1, 2, 3
REWARD_WIN, REWARD_SCORE, REWARD_RANK = range(3)
assert ((MAIN, PLACE_DRAWN, PLACE_REVEALED, OVER) == tuple(int(p) for p in actions.Phase)
        and (SLOTS, CALL_MAX_CARDS, REFILL_TARGET) == (config.SLOTS, config.CALL_MAX_CARDS, config.REFILL_FUNCTION_TARGET)
        and (NUM_FACES, NO_FACE) == (deck.NUM_FACES, deck.NO_FACE)
        and (ACTION_CALL, ACTION_PLACE_BASE, ACTION_KEEP) == (actions.ACTION_CALL, actions.ACTION_PLACE_BASE,
                                                              actions.ACTION_KEEP)
        and (FUNCTION_REVEAL, FUNCTION_REMOVE, FUNCTION_REFILL) == (deck.FUNCTION_REVEAL, deck.FUNCTION_REMOVE,
                                                                    deck.FUNCTION_REFILL)), \
    "kernels.py's constants differ from actions.py / config.py / deck.py: update them"

SLOT_WIDTH = 18
"""A layout slot's entries in the observation (``observation.SLOT_FEATURES``): empty / unknown / known,
then the known card's 15 features."""
assert SLOT_WIDTH == observation.SLOT_FEATURES, "kernels.SLOT_WIDTH differs from observation.SLOT_FEATURES"
assert config.MAX_PLAYERS * SLOTS <= 64, "_layout_bits holds a set of layout slots as the bits of one uint64"

NUM_ACTIONS = ACTION_KEEP + 1
assert NUM_ACTIONS == actions.NUM_ACTIONS <= 64, "_mask_game builds a mask row as the bits of one uint64: update it"

FIXED_PILES = 8
"""``_fit_bits`` reads this many pile faces without looking at ``pile_count`` (see there)."""
OBSERVE_AHEAD = 2
"""``observe_range`` prefetches the output row this many games ahead for writing (a row is 46 cache
lines; each line's first store would otherwise wait for it)."""
PREFETCH_AHEAD = 4
"""``step_range`` prefetches the rows of the game this many games ahead (``_prefetch_game``; 8 did
no better)."""

# Automatic-flow codes: what a game does next when no decision is pending.
DECIDE, DRAW, AFTER_CHAIN, END_TURN = range(4)

STATE_FIELDS = (
    "draw_cards", "draw_pos", "draw_len", "card_loc", "card_where", "card_known", "layout", "pile_top",
    "pile_face", "pile_count", "top_count", "trophy_order", "trophy_owner", "trophy_pos", "trophy_count",
    "trophy_points", "prize_count", "prize_points", "current", "phase", "pending", "pending_slot",
    "clear_pending", "turn", "terminated", "truncated", "rewards", "legal_mask", "card_epoch", "reshuffles",
    "rng_state")

State = collections.namedtuple("State", STATE_FIELDS)
"""The state arrays of a core, in one argument (``core.py`` documents every field)."""

Consts = collections.namedtuple("Consts", (
    "face",          # [N + 1] int16: face of each card, NO_FACE for prizes and for card -1
    "fit_faces",     # [37] int64: the pile-top faces a card of face a fits, as bits (bit b = face b, b < 36)
    "is_prize",      # [N] bool
    "function",      # [N] int8: FUNCTION_* code
    "prize_value",   # [N] int16
    "trophies",      # [T] int16: the trophy values in deck order
    "card_type",     # [N] int16
    "type_total",    # [T_types] int16
    "features",      # [N + 1, 15] float32: card encodings (observation.card_feature_table)
    "trophy_value_index",  # [max value + 1] int16: index of each trophy value among the deck's distinct values
    "slot_rows",     # [N + 2, SLOT_WIDTH] float32: a slot's layouts entries holding known card c (row c),
                     # a face-down unknown card (row N), nothing (row N + 1); _observe_layouts
    "type_masks",    # [W, T_types] uint64: the cards of each type as a bit set (bit c % 64 of word c // 64)
    "num_players", "allow_keep", "reshuffle_discards", "max_turns", "reward_mode", "perfect_memory",
    "obs_size", "off_phase", "off_acting", "off_pending_card", "off_pending_slot", "off_pile_tops",
    "off_layouts", "off_table_counts", "off_players", "off_own_trophy_points", "off_unknown_cards",
    "off_own_trophies", "off_set_aside_cards", "off_covered_cards", "off_earlier_pool", "off_earlier_pool_cards",
))
"""Constants of one variant, in one argument."""


# ============================================================================ one game

# ----------------------------------------------------------------- drawing and shuffling


@njit(cache=True, _nrt=False)
def _reshuffle(s, k, b):
    """Game b's new draw pile from the set-aside cards (or, if there are none and
    ``reshuffle_discards`` is on, from every discard below a pile top), taken in ascending card id
    and shuffled with the game's stream; nothing happens when there is nothing to shuffle."""
    # Every card is written at the next free place and counted only if taken (no branch on where a
    # card lies: as good as random to the branch predictor); the old draw pile is used up (empty).
    N = s.card_loc.shape[1]
    # int64 from the start: with a literal 0, Numba compiled ``shuffle`` a second time, for
    # Literal[int](0), while it was still inferring the loop's type.
    n = np.int64(0)
    for c in range(N):
        s.draw_cards[b, n] = c
        n += s.card_loc[b, c] == LOC_ASIDE
    if n == 0 and k.reshuffle_discards:
        for c in range(N):
            s.draw_cards[b, n] = c
            n += (s.card_loc[b, c] == LOC_PILE) & (s.pile_top[b, s.card_where[b, c]] != c)
    if n == 0:
        return
    s.reshuffles[b] += 1
    for i in range(n):
        c = s.draw_cards[b, i]
        s.card_loc[b, c] = LOC_DRAW
        s.card_where[b, c] = 0
        s.card_known[b, c] = False
        s.card_epoch[b, c] = s.reshuffles[b]
    shuffle(s.rng_state, b, s.draw_cards[b], n)
    s.draw_pos[b] = 0
    s.draw_len[b] = n


@njit(cache=True, inline="always", _nrt=False)
def _draw(s, k, b):
    """Takes the top draw-pile card (reshuffling first if the pile is empty); -1 when nothing can be drawn."""
    if s.draw_pos[b] >= s.draw_len[b]:
        _reshuffle(s, k, b)
        if s.draw_pos[b] >= s.draw_len[b]:
            return -1
    pos = s.draw_pos[b]
    s.draw_pos[b] = pos + 1
    return np.int64(s.draw_cards[b, pos])


@njit(cache=True, inline="always", _nrt=False)
def _put_in_layout(s, b, seat, slot, card):
    s.layout[b, seat, slot] = card
    s.card_loc[b, card] = LOC_LAYOUT
    s.card_where[b, card] = seat


@njit(cache=True, inline="always", _nrt=False)
def _layout_count(s, b, seat):
    n = 0
    for slot in range(SLOTS):
        n += s.layout[b, seat, slot] >= 0  # counted without a branch (occupancy is unpredictable)
    return n


@njit(cache=True, inline="always", _nrt=False)
def _fill_layout(s, k, b, seat):
    """Draws into every empty slot of the seat's layout, in slot order."""
    for slot in range(SLOTS):
        if s.layout[b, seat, slot] < 0:
            card = _draw(s, k, b)
            if card >= 0:
                _put_in_layout(s, b, seat, slot, card)


@njit(cache=True, _nrt=False)
def _refill_opponents(s, k, b):
    """The "refill" function: each opponent, in seat order after the player, draws up to 3 cards
    into their first empty slots."""
    P = k.num_players
    for offset in range(1, P):
        seat = s.current[b] + offset  # seat order after the player, without an integer division
        if seat >= P:
            seat -= P
        for _ in range(REFILL_TARGET - _layout_count(s, b, seat)):
            card = _draw(s, k, b)
            if card >= 0:
                slot = 0
                while s.layout[b, seat, slot] >= 0:
                    slot += 1
                _put_in_layout(s, b, seat, slot, card)


# ------------------------------------------------------------------------- piles


@njit(cache=True, inline="always", _nrt=False)
def _fit_bits(s, k, b, card):
    """The set of pile-top faces the card fits (bit f = face f), as an int64: the faces of the tops
    (bits, without branches) and the faces the card's face fits (``fit_faces``)."""
    # The first 8 piles without a loop bound: an entry past the last pile reads NO_FACE (bit 36, which
    # no ``fit_faces`` holds), and a fixed trip count spares the mispredicted exit of a loop of 0-8
    # piles (3.4 on average in random play); more than 8 piles are rare.
    tops = np.int64(0)
    face = s.pile_face
    if face.shape[1] >= FIXED_PILES:
        for i in range(FIXED_PILES):
            tops |= np.int64(1) << np.int64(face[b, i])
        for i in range(FIXED_PILES, s.pile_count[b]):
            tops |= np.int64(1) << np.int64(face[b, i])
    else:
        for i in range(s.pile_count[b]):
            tops |= np.int64(1) << np.int64(face[b, i])
    return k.fit_faces[k.face[card]] & tops


@njit(cache=True, inline="always", _nrt=False)
def _lowest_face(fit):
    """The lowest face in the non-empty face set ``fit``."""
    return count_trailing_zeros(np.int64(fit))


@njit(cache=True, _nrt=False)
def _remove_other_piles(card_loc, card_where, pile_top, pile_face, pile_count, top_count, b, kept):
    """The "remove" function: every pile but ``kept`` is set aside; the kept pile becomes pile 0.

    Not inlined (rare), and given only the arrays it touches: a call passing the whole state tuple
    (~30 arrays, a few hundred words) costs more than the function."""
    N = card_loc.shape[1]
    for c in range(N):  # every card rewritten, without a branch on where it lies
        loc, where = card_loc[b, c], card_where[b, c]
        on_pile = loc == LOC_PILE
        card_loc[b, c] = LOC_ASIDE if on_pile and where != kept else loc
        card_where[b, c] = 0 if on_pile else where
    top, face = pile_top[b, kept], pile_face[b, kept]
    for i in range(pile_count[b]):
        pile_top[b, i] = -1
        pile_face[b, i] = NO_FACE
    pile_top[b, 0] = top
    pile_face[b, 0] = face
    pile_count[b] = 1
    for f in range(NUM_FACES):
        top_count[b, f] = 0
    top_count[b, face] = 1


@njit(cache=True, inline="always", _nrt=False)
def _oldest_pile(pile_face, b, face):
    """The first pile showing ``face`` (one exists): the lowest of the matches among the first
    ``FIXED_PILES`` piles, found without a loop whose exit the branch predictor would miss."""
    if pile_face.shape[1] >= FIXED_PILES:
        matches = np.int64(0)
        for i in range(FIXED_PILES):
            matches |= np.int64(pile_face[b, i] == face) << np.int64(i)
        if matches != 0:
            return count_trailing_zeros(matches)
        pile = FIXED_PILES
    else:
        pile = 0
    while pile_face[b, pile] != face:
        pile += 1
    return np.int64(pile)


@njit(cache=True, inline="always", _nrt=False)
def _place(s, k, b, card, face):
    """Puts the card on the oldest pile showing ``face`` (-1: a new pile), resolves its extra
    function and returns the next flow code."""
    card_face = k.face[card]
    if face < 0:
        pile = np.int64(s.pile_count[b])
        s.pile_count[b] = pile + 1
        s.top_count[b, card_face] += 1
    else:
        pile = _oldest_pile(s.pile_face, b, face)
        changed = face != card_face  # counted without a branch (as good as random)
        s.top_count[b, face] -= changed
        s.top_count[b, card_face] += changed
    s.pile_top[b, pile] = card
    s.pile_face[b, pile] = card_face
    s.card_loc[b, card] = LOC_PILE
    s.card_where[b, card] = pile
    function = k.function[card]
    if function == FUNCTION_REVEAL:
        return DRAW
    if function == FUNCTION_REMOVE:
        _remove_other_piles(s.card_loc, s.card_where, s.pile_top, s.pile_face, s.pile_count, s.top_count, b, pile)
    elif function == FUNCTION_REFILL:
        _refill_opponents(s, k, b)
    return AFTER_CHAIN


# --------------------------------------------------------------------- prizes, trophies


@njit(cache=True, inline="always", _nrt=False)
def _give_prize(s, k, b, seat, card):
    s.prize_points[b, seat] += k.prize_value[card]
    s.prize_count[b, seat] += 1
    s.card_loc[b, card] = LOC_PRIZE
    s.card_where[b, card] = seat


@njit(cache=True, _nrt=False)
def _final_rewards(s, k, b):
    """The rewards of game b's end (``scoring.final_rewards``, one game)."""
    P = k.num_players
    if k.reward_mode == REWARD_SCORE:
        for p in range(P):
            s.rewards[b, p] = s.trophy_points[b, p] + s.prize_points[b, p]
        return
    best = np.int64(-1)
    for p in range(P):
        key = (np.int64(s.trophy_points[b, p]) + s.prize_points[b, p]) * 1000 + s.trophy_count[b, p] + s.prize_count[b, p]
        best = max(best, key)
    n_win = 0
    for p in range(P):
        key = (np.int64(s.trophy_points[b, p]) + s.prize_points[b, p]) * 1000 + s.trophy_count[b, p] + s.prize_count[b, p]
        n_win += key == best
    for p in range(P):
        key = (np.int64(s.trophy_points[b, p]) + s.prize_points[b, p]) * 1000 + s.trophy_count[b, p] + s.prize_count[b, p]
        if k.reward_mode == REWARD_WIN:
            if n_win == P:
                s.rewards[b, p] = 0.0
            elif key == best:
                s.rewards[b, p] = 1.0 / n_win
            else:
                s.rewards[b, p] = -1.0 / (P - n_win)
        else:  # rank
            beats = 0
            for q in range(P):
                other = (np.int64(s.trophy_points[b, q]) + s.prize_points[b, q]) * 1000 + s.trophy_count[b, q] \
                    + s.prize_count[b, q]
                beats += (key > other) - (key < other)
            s.rewards[b, p] = beats / (P - 1)


@njit(cache=True, _nrt=False)
def _win_trophy(s, k, b, seat):
    """The seat wins the top trophy; returns whether the game thereby ends."""
    pos = s.trophy_pos[b]
    s.trophy_owner[b, pos] = seat
    s.trophy_count[b, seat] += 1
    s.trophy_points[b, seat] += s.trophy_order[b, pos]
    s.trophy_pos[b] = pos + 1
    if pos + 1 < s.trophy_order.shape[1]:
        return False
    s.terminated[b] = True
    s.phase[b] = OVER
    _final_rewards(s, k, b)
    return True


# ---------------------------------------------------------------------- decisions


@njit(cache=True, inline="always", _nrt=False)
def _play_from_layout(s, k, b, slot, face):
    seat = s.current[b]
    card = np.int64(s.layout[b, seat, slot])
    s.layout[b, seat, slot] = -1
    if _layout_count(s, b, seat) == 0:
        s.clear_pending[b] = True
    return _place(s, k, b, card, face)


@njit(cache=True, inline="always", _nrt=False)
def _reveal(s, k, b, slot):
    """Reveals the seat's card in ``slot``; returns the next flow code and the card's fit bits (the
    placement decision's, when the code is DECIDE)."""
    seat = s.current[b]
    card = np.int64(s.layout[b, seat, slot])
    s.card_known[b, card] = True
    if k.is_prize[card]:
        s.layout[b, seat, slot] = -1
        _give_prize(s, k, b, seat, card)
        s.clear_pending[b] = _layout_count(s, b, seat) == 0
        return END_TURN, np.int64(0)
    fit = _fit_bits(s, k, b, card)
    if fit == 0:
        return END_TURN, fit  # back face down in the same slot, now known to everyone
    if fit & (fit - 1) == 0 and not k.allow_keep:
        return _play_from_layout(s, k, b, slot, _lowest_face(fit)), fit
    s.pending[b] = card
    s.pending_slot[b] = slot
    s.phase[b] = PLACE_REVEALED
    return DECIDE, fit


@njit(cache=True, inline="always", _nrt=False)
def _call(s, k, b):
    """ "Nothing fits anymore!": reveal in slot order until a card fits or is a prize.

    Inlined, as the refill after it (``_fill_layout``): about one random decision in ten is a call,
    and a call that passes the whole state tuple costs more than this function."""
    seat = s.current[b]
    success = True
    for slot in range(SLOTS):
        card = np.int64(s.layout[b, seat, slot])
        if card < 0:
            continue
        s.card_known[b, card] = True
        if k.is_prize[card]:
            s.layout[b, seat, slot] = -1
            _give_prize(s, k, b, seat, card)
            success = False
            break
        if _fit_bits(s, k, b, card) != 0:
            success = False
            break
    if success and _win_trophy(s, k, b, seat):
        return DECIDE
    _fill_layout(s, k, b, seat)
    return END_TURN


@njit(cache=True, inline="always", _nrt=False)
def _advance(s, k, b, code, fit):
    """Resolves everything that is not a decision, from flow code ``code``, up to game b's next
    decision or its end. Returns the fit bits of the pending card when that decision is a placement
    (``fit`` itself when ``code`` is DECIDE: the caller's placement decision), so that the mask
    need not compute them again (the piles have not changed since)."""
    while True:
        # The game index laundered (``bits.opaque``) at each pass: LLVM no longer precomputes the row
        # pointers of ~10 arrays before the loop (spilled to the stack; 0.87-0.89x the step's time).
        b = opaque(b)
        if code == DRAW:
            card = _draw(s, k, b)
            if card < 0:
                code = AFTER_CHAIN  # nothing can be drawn: the draw is skipped
                continue
            s.card_known[b, card] = True
            if k.is_prize[card]:
                _give_prize(s, k, b, s.current[b], card)
                code = END_TURN
                continue
            fit = _fit_bits(s, k, b, card)
            if fit & (fit - 1) != 0:
                s.pending[b] = card
                s.pending_slot[b] = -1
                s.card_loc[b, card] = LOC_PENDING
                s.phase[b] = PLACE_DRAWN
                return fit
            code = _place(s, k, b, card, _lowest_face(fit) if fit != 0 else -1)
        elif code == AFTER_CHAIN:
            if s.clear_pending[b]:
                code = END_TURN
                continue
            s.phase[b] = MAIN
            return fit
        elif code == END_TURN:
            current = s.current[b]
            if s.clear_pending[b]:
                s.clear_pending[b] = False
                if _win_trophy(s, k, b, current):
                    return fit
                _fill_layout(s, k, b, current)
            following = current + 1  # the next seat, without an integer division
            s.current[b] = following if following < k.num_players else 0
            s.turn[b] += 1
            if s.turn[b] >= k.max_turns:
                s.truncated[b] = True
                s.phase[b] = OVER
                return fit
            code = DRAW
        else:  # DECIDE
            return fit


@njit(cache=True, inline="always", _nrt=False)
def _step_game(s, k, b, action):
    """Game b's decision ``action`` (legal), then everything automatic up to its next decision.
    Returns the fit bits of the pending card when the next decision is a placement (``_mask_game``)."""
    fit = np.int64(0)
    if s.phase[b] == MAIN:
        if action == ACTION_CALL:
            code = _call(s, k, b)
        else:
            code, fit = _reveal(s, k, b, action)
    elif action == ACTION_KEEP:
        s.pending[b] = -1
        s.pending_slot[b] = -1
        code = END_TURN
    else:
        face = action - ACTION_PLACE_BASE
        card, slot = np.int64(s.pending[b]), np.int64(s.pending_slot[b])
        s.pending[b] = -1
        s.pending_slot[b] = -1
        if slot >= 0:
            code = _play_from_layout(s, k, b, slot, face)
        else:
            code = _place(s, k, b, card, face)
    return _advance(s, k, b, code, fit)


@njit(cache=True, inline="always", _nrt=False)
def _mask_game(s, k, b, fit):
    """Game b's legal-action mask: its 44 entries as the bits of one word (bit a = action a, built
    without branches on the layout's occupancy or the fitting faces, both as good as random to the
    branch predictor), written as 44 bytes by three vector stores (``bits.store_bit_bytes``).
    ``fit``: the pending card's fit bits (``_fit_bits``) when the decision is a placement."""
    phase = s.phase[b]
    word = np.uint64(0)
    if phase == MAIN:
        seat = s.current[b]
        count = 0
        for slot in range(SLOTS):
            occupied = s.layout[b, seat, slot] >= 0
            word |= np.uint64(occupied) << np.uint64(slot)
            count += occupied
        word |= np.uint64(count <= CALL_MAX_CARDS) << np.uint64(ACTION_CALL)
    elif phase == PLACE_DRAWN or phase == PLACE_REVEALED:
        word = np.uint64(fit) << np.uint64(ACTION_PLACE_BASE)
        word |= np.uint64(phase == PLACE_REVEALED and k.allow_keep) << np.uint64(ACTION_KEEP)
    store_bit_bytes(s.legal_mask, b, 0, word, NUM_ACTIONS)


@njit(cache=True, inline="always", _nrt=False)
def _deal_game(s, k, b):
    """Shuffles and deals game b from its stream (the draw pile, then the trophy pile); the caller
    then resolves the first player's draw-pile card (``_resolve``)."""
    N, T, P = s.card_loc.shape[1], s.trophy_order.shape[1], k.num_players
    for c in range(N):
        s.draw_cards[b, c] = c
        s.card_loc[b, c] = LOC_DRAW
        s.card_where[b, c] = 0
        s.card_known[b, c] = False
        s.card_epoch[b, c] = 0
    s.reshuffles[b] = 0
    shuffle(s.rng_state, b, s.draw_cards[b], N)
    for i in range(T):
        s.trophy_order[b, i] = k.trophies[i]
        s.trophy_owner[b, i] = -1
    shuffle(s.rng_state, b, s.trophy_order[b], T)
    for seat in range(P):
        for slot in range(SLOTS):
            _put_in_layout(s, b, seat, slot, s.draw_cards[b, seat * SLOTS + slot])
        s.trophy_count[b, seat] = 0
        s.trophy_points[b, seat] = 0
        s.prize_count[b, seat] = 0
        s.prize_points[b, seat] = 0
        s.rewards[b, seat] = 0.0
    s.draw_pos[b] = SLOTS * P
    s.draw_len[b] = N
    for i in range(s.pile_top.shape[1]):
        s.pile_top[b, i] = -1
        s.pile_face[b, i] = NO_FACE
    s.pile_count[b] = 0
    for f in range(NUM_FACES):
        s.top_count[b, f] = 0
    s.trophy_pos[b] = 0
    s.current[b] = 0
    s.phase[b] = MAIN
    s.pending[b] = -1
    s.pending_slot[b] = -1
    s.clear_pending[b] = False
    s.turn[b] = 0
    s.terminated[b] = False
    s.truncated[b] = False


# ------------------------------------------------------------------------ observation


@njit(cache=True, inline="always", _nrt=False)
def _observe_game(s, k, b, seat, out):
    """Game b as ``seat`` sees it, written into the float32 row ``out`` (see observation.py).

    Speed notes: which slots hold known cards and where each card lies are as good as random, so the
    layouts and the per-type card counts are computed without branches (a branch there mispredicts
    about every other time) and with few instructions per slot and per card: a table row per slot, a
    bit set per section of the per-type counts. The layouts section is written whole, so only the
    other sections are zeroed first. The state the layouts and the earlier pools read at card-dependent
    places is read before the row's stores (``_layout_bits``)."""
    P = k.num_players
    _zero(out, 0, k.off_layouts)
    _zero(out, k.off_table_counts, out.shape[0])
    phase = s.phase[b]
    out[k.off_phase + phase] = 1.0
    if phase != OVER:
        rel = s.current[b] - seat  # relative seats without a modulo (an integer division)
        if rel < 0:
            rel += P
        out[k.off_acting + rel] = 1.0
    pending = s.pending[b]
    if pending >= 0:
        for j in range(k.features.shape[1]):
            out[k.off_pending_card + j] = k.features[pending, j]
        if phase == PLACE_REVEALED and s.pending_slot[b] >= 0:
            out[k.off_pending_slot + s.pending_slot[b]] = 1.0
    for f in range(NUM_FACES):
        out[k.off_pile_tops + f] = s.top_count[b, f]
    known, earlier = _layout_bits(s, b)
    if k.perfect_memory:  # first: it borrows the layouts section as scratch
        _observe_earlier_pools(s, k, b, seat, out, earlier)
    _observe_layouts(s, k, b, seat, out, known)
    _observe_card_counts(s, k, b, out)
    if pending >= 0 and not k.perfect_memory:  # without memory a revealed pending card is face up: not unknown
        loc = s.card_loc[b, pending]
        hidden, covered, aside = _counted_in(np.uint64(loc == LOC_DRAW), np.uint64(loc == LOC_LAYOUT),
                                             np.uint64(loc == LOC_PILE), np.uint64(loc == LOC_ASIDE),
                                             np.uint64(0), False)
        t = k.card_type[pending]
        out[k.off_unknown_cards + t] -= np.float32(hidden)
        out[k.off_covered_cards + t] -= np.float32(covered)
        out[k.off_set_aside_cards + t] -= np.float32(aside)
    for i in range(s.trophy_owner.shape[1]):
        if s.trophy_owner[b, i] == seat:
            out[k.off_own_trophies + k.trophy_value_index[s.trophy_order[b, i]]] += 1.0
    out[k.off_table_counts] = s.draw_len[b] - s.draw_pos[b]
    out[k.off_table_counts + 2] = s.trophy_order.shape[1] - s.trophy_pos[b]
    out[k.off_table_counts + 3] = s.pile_count[b]
    out[k.off_own_trophy_points] = s.trophy_points[b, seat]


@njit(cache=True, inline="always", _nrt=False)
def _zero(out, lo, hi):
    """``out[lo:hi] = 0``, as one ``memset`` (a loop from a run-time ``lo`` keeps Numba's negative-index
    check, which LLVM turned into scatter stores)."""
    region = out[lo:hi]
    for i in range(region.shape[0]):
        region[i] = 0.0


@njit(cache=True, inline="always", _nrt=False)
def _layout_bits(s, b):
    """The layout slots that hold known cards and those that hold unknown cards from an earlier shuffle
    than the draw pile's (``_observe_earlier_pools``), as the bits of two words (bit ``p * SLOTS + slot``
    for seat p; ``P * SLOTS <= 64``). Read in one pass before any store to the observation row: a
    ``card_known`` load at a card-dependent place among the row's stores cost ~60 ns a row at batch
    4,096 (one thread; the loads waited on the stores before them, although they never overlap)."""
    known, earlier = np.uint64(0), np.uint64(0)
    reshuffles = s.reshuffles[b]
    for p in range(s.layout.shape[1]):
        for slot in range(SLOTS):
            card = np.intp(s.layout[b, np.uintp(p), np.uintp(slot)])
            held = np.uintp(card + np.intp(card < 0))  # card 0 stands in for an empty slot (-1); not counted
            bit = np.uint64(1) << np.uint64(p * SLOTS + slot)
            shown = (card >= 0) & s.card_known[b, held]
            known |= bit * np.uint64(shown)
            earlier |= bit * np.uint64((card >= 0) & (not shown) & (reshuffles - s.card_epoch[b, held] >= 1))
    return known, earlier


@njit(cache=True, inline="always", _nrt=False)
def _observe_layouts(s, k, b, seat, out, known_slots):
    """The ``layouts`` section, every entry written, and the ``players`` section. A slot's 18 entries
    are one row of ``slot_rows``: the known card's (its own row), a face-down unknown card's (row N) or
    an empty slot's (row N + 1).

    ``known_slots``: the slots that hold known cards (``_layout_bits``)."""
    P, N = k.num_players, s.card_loc.shape[1]
    perfect = k.perfect_memory
    layouts = out[k.off_layouts:k.off_table_counts]
    for rel in range(P):
        p = seat + rel
        if p >= P:
            p -= P
        for slot in range(SLOTS):
            card = np.intp(s.layout[b, np.uintp(p), np.uintp(slot)])
            empty = np.intp(card < 0)
            held = np.uintp(card + empty)  # card 0 stands in for an empty slot (-1): read, never shown
            known = np.intp(perfect & ((known_slots >> np.uint64(p * SLOTS + slot)) & np.uint64(1) != 0))
            row = np.uintp(N + empty + known * (np.intp(held) - N))
            copy_row(layouts, (rel * SLOTS + slot) * SLOT_WIDTH, k.slot_rows, row, SLOT_WIDTH)
        out[k.off_players + 3 * rel] = s.trophy_count[b, p]
        out[k.off_players + 3 * rel + 1] = s.prize_points[b, p]
        out[k.off_players + 3 * rel + 2] = s.prize_count[b, p]


@njit(cache=True, inline="always", _nrt=False)
def _counted_in(draw, layout, pile, aside, known, perfect):
    """Which cards count in ``unknown_cards``, ``covered_cards`` and ``set_aside_cards``, as bit sets (a
    bit per card, uint64) from the bit sets of the cards in the draw pile, in layouts, on piles, set aside
    and ``card_known``. Perfect memory: draw-pile cards and layout cards never revealed are unknown, pile
    cards covered (the tops are taken off after), set-aside cards set aside. Without memory: every card
    not face up is unknown (draw pile, layouts, piles less their tops), set-aside cards set aside. Prizes
    and a drawn pending card count nowhere."""
    remembered = np.uint64(0) - np.uint64(perfect)  # every bit with perfect memory, none without
    hidden = draw | (layout & ~(known & remembered)) | (pile & ~remembered)
    return hidden, pile & remembered, aside


@njit(cache=True, inline="always", _nrt=False)
def _observe_card_counts(s, k, b, out):
    """The per-type sections ``unknown_cards``, ``covered_cards`` and ``set_aside_cards`` (every entry
    written), and the set-aside count of ``table_counts``.

    Where a card counts is ``_counted_in``. Each 64 cards make one bit set per section, from one bit set
    per location (``byte_bits``: a vector load and a byte compare each; no loop over the cards),
    and each type's count is the popcount
    of the set with the type's cards (``type_masks[w]``, a loop LLVM vectorises: vector popcounts). The
    first word's counts are stored, the other words' added: no load of an entry the ``memset`` just zeroed
    (a load right after a wider store stalls). Indices are unsigned or from zero: Numba adds a
    negative-index check to every other signed one."""
    N = s.card_loc.shape[1]
    perfect = k.perfect_memory
    unknown_out = out[k.off_unknown_cards:]
    covered_out = out[k.off_covered_cards:]
    aside_out = out[k.off_set_aside_cards:]
    total_aside = np.uint64(0)
    for w in range(k.type_masks.shape[0]):
        first = w * 64
        n = min(N - first, 64)
        unknown, covered, aside = _counted_in(
            byte_bits(s.card_loc, b, first, n, LOC_DRAW), byte_bits(s.card_loc, b, first, n, LOC_LAYOUT),
            byte_bits(s.card_loc, b, first, n, LOC_PILE), byte_bits(s.card_loc, b, first, n, LOC_ASIDE),
            byte_bits(s.card_known, b, first, n, 1), perfect)
        total_aside += popcount(aside)
        masks = k.type_masks[w]
        if w == 0:  # every type written (0 where it has no card here): no read of a zeroed entry
            for t in range(masks.shape[0]):  # LLVM vectorises this loop (vector popcounts)
                unknown_out[t] = np.float32(popcount(unknown & masks[t]))
                covered_out[t] = np.float32(popcount(covered & masks[t]))
                aside_out[t] = np.float32(popcount(aside & masks[t]))
        else:
            for t in range(masks.shape[0]):
                unknown_out[t] += np.float32(popcount(unknown & masks[t]))
                covered_out[t] += np.float32(popcount(covered & masks[t]))
                aside_out[t] += np.float32(popcount(aside & masks[t]))
    pile_section = k.off_covered_cards if perfect else k.off_unknown_cards
    for i in range(s.pile_count[b]):
        out[pile_section + k.card_type[s.pile_top[b, i]]] -= 1.0
    out[k.off_table_counts + 1] = np.float32(total_aside)


@njit(cache=True, inline="always", _nrt=False)
def _observe_earlier_pools(s, k, b, seat, out, earlier):
    """The ``earlier_pool`` and ``earlier_pool_cards`` sections of observation version 2 (perfect memory;
    ``observation.py``), into ``out`` whose two sections are zeros; the layouts section is written after.

    An unknown card dealt from an earlier shuffle than the current draw pile's comes from that shuffle's
    pool, whose cards never revealed since are exactly the cards still face down from it: a multiset
    everyone can work out. Pools are numbered 1, 2, ... from the most recent (the smallest age); each
    pool's cards, sorted by type, are listed against its slots in (relative seat, slot) order, so where
    each card lies stays hidden.

    Without arrays (no allocation here) the layouts section serves as scratch (``_observe_layouts`` writes
    every entry of it afterwards). Sets of slots are the bits of one word (bit ``rel * SLOTS + slot``;
    ``P * SLOTS <= 64``), walked in slot order by ``count_trailing_zeros``. ``earlier``: such slots by
    seat (``_layout_bits``), rotated to relative seats; in about half the rows there is none and that
    is all. Else each such slot's age and sort key (type * 64 + slot) go to scratch at the slot's place, and the
    pools are taken youngest first: one walk finds the youngest age and its slots (the pool), the next
    lists the pool's slots in order and writes its number, and each card's place among the pool's keys
    (a count over the pool: q^2 compares for a pool of q, q usually 1-5) names the slot that shows its
    type. Ages and keys are small integers, exact as float32. In random play (4,096 games after 400-600
    steps) about half the rows have no such slot, the mean is about 2 (at most ~18) in 1 or 2 pools."""
    P = k.num_players
    n = P * SLOTS
    reshuffles = s.reshuffles[b]
    scratch = out[k.off_layouts:]  # written and read at unsigned places (no negative-index checks)
    n_u = np.uintp(n)
    shift = np.uint64(seat * SLOTS)  # bit p * SLOTS + slot to bit rel * SLOTS + slot: a rotation
    every_slot = (np.uint64(1) << np.uint64(n)) - np.uint64(1)
    slots = ((earlier >> shift) | (earlier << (np.uint64(n) - shift))) & every_slot
    if slots == 0:
        return
    left = slots
    while left != 0:  # each such slot's age and sort key (type, then slot), at its slot's place
        i = count_trailing_zeros(left)
        left &= left - np.uint64(1)
        rel = i // SLOTS
        p = seat + rel
        if p >= P:
            p -= P
        held = np.uintp(s.layout[b, np.uintp(p), np.uintp(i - rel * SLOTS)])
        scratch[np.uintp(i)] = reshuffles - s.card_epoch[b, held]
        scratch[n_u + np.uintp(i)] = k.card_type[held] * 64 + i
    pools, cards = out[k.off_earlier_pool:], out[k.off_earlier_pool_cards:]
    order = n_u + n_u  # scratch[order + r]: the r-th slot of the pool in slot order
    number = 0
    while slots != 0:  # the pools, youngest first: number 1, 2, ...
        number += 1
        pool = np.uint64(0)
        youngest = np.float32(np.inf)
        left = slots
        while left != 0:
            i = count_trailing_zeros(left)
            left &= left - np.uint64(1)
            age = scratch[np.uintp(i)]
            kept = np.uint64(0) - np.uint64(age >= youngest)  # a younger age starts the pool afresh
            pool = (pool & kept) | (np.uint64(age <= youngest) << np.uint64(i))
            youngest = min(youngest, age)
        slots &= ~pool
        r = np.uintp(0)
        left = pool
        while left != 0:
            i = count_trailing_zeros(left)
            left &= left - np.uint64(1)
            scratch[order + r] = i
            r += np.uintp(1)
            pools[np.uintp(i)] = number
        left = pool
        while left != 0:  # each card's place in type order: the slot at that place gets its type
            i = count_trailing_zeros(left)
            left &= left - np.uint64(1)
            key = scratch[n_u + np.uintp(i)]
            place = np.uintp(0)
            others = pool
            while others != 0:
                j = count_trailing_zeros(others)
                others &= others - np.uint64(1)
                place += np.uintp(scratch[n_u + np.uintp(j)] < key)
            cards[np.uintp(scratch[order + place])] = np.float32(np.intp(key) >> 6) + 1


# ============================================================================ batch kernels
#
# Each batch operation is a serial loop over a range of games (``*_range``; Numba inlines the per-game
# functions into it) and a parallel kernel that splits the batch into ``chunks`` ranges and runs them
# in a ``prange``. The per-game functions are inlined only into the serial loops: inlining them into a
# ``prange`` body directly is slower to compile and miscompiled in Numba 0.6x.


@njit(cache=True, inline="always", _nrt=False)
def _prefetch_game(s, b):
    """Prefetches the rows of game b that a step reads at card- or pile-dependent places (the per-card
    rows span up to three cache lines: bytes 0, 64 and the last one cover them); the rows read at fixed
    places follow ``b`` in order, and the CPU's own prefetchers keep up with those."""
    last = s.card_loc.shape[1] - 1
    for cards in (s.card_loc, s.card_where):
        prefetch(cards, b, 0)
        prefetch(cards, b, 64)
        prefetch(cards, b, last)
    prefetch(s.card_known, b, 0)
    prefetch(s.card_known, b, 64)
    prefetch(s.card_known, b, last)
    prefetch(s.pile_face, b, 0)
    prefetch(s.top_count, b, 0)
    prefetch(s.top_count, b, NUM_FACES - 1)
    prefetch(s.draw_cards, b, s.draw_pos[b])


@njit(cache=True, _nrt=False)
def step_range(s, k, actions, active, lo, hi):
    """Steps the live, active games among ``lo..hi-1`` with their (legal) actions; every game's
    rewards in the range are reset first (only the step that ends a game pays)."""
    for b in range(lo, hi):
        ahead = b + PREFETCH_AHEAD
        if ahead < hi:
            _prefetch_game(s, ahead)
        g = np.uintp(b)
        for p in range(s.rewards.shape[1]):
            if s.rewards[g, p] != 0.0:  # a conditional store: LLVM made the plain loop a memset call per game
                s.rewards[g, p] = 0.0
        if active[g] and s.phase[g] != OVER:
            _mask_game(s, k, g, _step_game(s, k, g, actions[g]))


@njit(cache=True, parallel=True)
def step_kernel(s, k, actions, active, chunks):
    """``step_range`` over the whole batch, in ``chunks`` ranges spread over the threads."""
    n = actions.shape[0]
    for c in prange(chunks):
        step_range(s, k, actions, active, c * n // chunks, (c + 1) * n // chunks)


@njit(cache=True, _nrt=False)
def _resolve(s, k, b, code):
    """``_advance`` then ``_mask_game``, not inlined: the one copy used by dealing and ``load``. The
    pending card's fit bits are computed afresh: ``load`` and the belief samplers resolve positions
    they wrote themselves, whose pending placement ``_advance`` did not see (code DECIDE)."""
    _advance(s, k, b, code, np.int64(0))
    phase = s.phase[b]
    fit = np.int64(0)
    if phase == PLACE_DRAWN or phase == PLACE_REVEALED:
        fit = _fit_bits(s, k, b, s.pending[b])
    _mask_game(s, k, b, fit)


@njit(cache=True, _nrt=False)
def deal_range(s, k, games, lo, hi):
    """Deals games ``games[lo:hi]`` (each from its own stream) and resolves each first player's
    draw-pile card."""
    for i in range(lo, hi):
        # The game index unsigned, as ``step_range`` has it: the kernels it calls (``_resolve``'s
        # ``_win_trophy``, ``_reshuffle``, ...) are then compiled for one index type, not two.
        b = np.uintp(games[i])
        _deal_game(s, k, b)
        _resolve(s, k, b, DRAW)


@njit(cache=True, parallel=True)
def deal_kernel(s, k, games, chunks):
    n = games.shape[0]
    for c in prange(chunks):
        deal_range(s, k, games, c * n // chunks, (c + 1) * n // chunks)


@njit(cache=True, _nrt=False)
def advance_kernel(s, k, games, code):
    """Resolves the listed games from flow code ``code`` (DRAW: the turn's draw-pile card; DECIDE:
    nothing), then recomputes their masks (``core.load``)."""
    for i in range(games.shape[0]):
        _resolve(s, k, np.uintp(games[i]), code)


@njit(cache=True, _nrt=False)
def observe_range(s, k, games, seats, out, lo, hi):
    """``out[i]`` = game ``games[i]`` as seat ``seats[i]`` sees it, for i in ``lo..hi-1``."""
    for i in range(lo, hi):
        ahead = i + OBSERVE_AHEAD
        if ahead < hi:  # the row two games ahead, for writing: its first stores then find it in cache
            for col in range(0, out.shape[1], 16):
                prefetch_write(out, ahead, col)
        _observe_game(s, k, np.uintp(games[i]), seats[i], out[i])


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
        field2(buf, meta, 0, np.int16),  # draw_cards
        field1(buf, meta, 1, np.int16),  # draw_pos
        field1(buf, meta, 2, np.int16),  # draw_len
        field2(buf, meta, 3, np.int8),  # card_loc
        field2(buf, meta, 4, np.int8),  # card_where
        field2(buf, meta, 5, np.bool_),  # card_known
        field3(buf, meta, 6, np.int16),  # layout
        field2(buf, meta, 7, np.int16),  # pile_top
        field2(buf, meta, 8, np.int16),  # pile_face
        field1(buf, meta, 9, np.int16),  # pile_count
        field2(buf, meta, 10, np.int16),  # top_count
        field2(buf, meta, 11, np.int16),  # trophy_order
        field2(buf, meta, 12, np.int8),  # trophy_owner
        field1(buf, meta, 13, np.int16),  # trophy_pos
        field2(buf, meta, 14, np.int16),  # trophy_count
        field2(buf, meta, 15, np.int16),  # trophy_points
        field2(buf, meta, 16, np.int16),  # prize_count
        field2(buf, meta, 17, np.int16),  # prize_points
        field1(buf, meta, 18, np.int8),  # current
        field1(buf, meta, 19, np.int8),  # phase
        field1(buf, meta, 20, np.int16),  # pending
        field1(buf, meta, 21, np.int8),  # pending_slot
        field1(buf, meta, 22, np.bool_),  # clear_pending
        field1(buf, meta, 23, np.int32),  # turn
        field1(buf, meta, 24, np.bool_),  # terminated
        field1(buf, meta, 25, np.bool_),  # truncated
        field2(buf, meta, 26, np.float32),  # rewards
        field2(buf, meta, 27, np.bool_),  # legal_mask
        field2(buf, meta, 28, np.int32),  # card_epoch
        field1(buf, meta, 29, np.int32),  # reshuffles
        field2(buf, meta, 30, np.uint64),  # rng_state
    )
    k = Consts(
        field1(buf, meta, 31, np.int16),  # face
        field1(buf, meta, 32, np.int64),  # fit_faces
        field1(buf, meta, 33, np.bool_),  # is_prize
        field1(buf, meta, 34, np.int8),  # function
        field1(buf, meta, 35, np.int16),  # prize_value
        field1(buf, meta, 36, np.int16),  # trophies
        field1(buf, meta, 37, np.int16),  # card_type
        field1(buf, meta, 38, np.int16),  # type_total
        field2(buf, meta, 39, np.float32),  # features
        field1(buf, meta, 40, np.int16),  # trophy_value_index
        field2(buf, meta, 41, np.float32),  # slot_rows
        field2(buf, meta, 42, np.uint64),  # type_masks
        int_at(buf, meta, 43),  # num_players
        bool_at(buf, meta, 44),  # allow_keep
        bool_at(buf, meta, 45),  # reshuffle_discards
        int_at(buf, meta, 46),  # max_turns
        int_at(buf, meta, 47),  # reward_mode
        bool_at(buf, meta, 48),  # perfect_memory
        int_at(buf, meta, 49),  # obs_size
        int_at(buf, meta, 50),  # off_phase
        int_at(buf, meta, 51),  # off_acting
        int_at(buf, meta, 52),  # off_pending_card
        int_at(buf, meta, 53),  # off_pending_slot
        int_at(buf, meta, 54),  # off_pile_tops
        int_at(buf, meta, 55),  # off_layouts
        int_at(buf, meta, 56),  # off_table_counts
        int_at(buf, meta, 57),  # off_players
        int_at(buf, meta, 58),  # off_own_trophy_points
        int_at(buf, meta, 59),  # off_unknown_cards
        int_at(buf, meta, 60),  # off_own_trophies
        int_at(buf, meta, 61),  # off_set_aside_cards
        int_at(buf, meta, 62),  # off_covered_cards
        int_at(buf, meta, 63),  # off_earlier_pool
        int_at(buf, meta, 64),  # off_earlier_pool_cards
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
