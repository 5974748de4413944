"""dnp's own state invariants, checked over a whole batch (the soak, ``benchmarks/soak.py``).

:func:`violations` reads a :class:`~.core.DnpCore`'s state arrays and yields ``(what, rows)`` for each
invariant in turn, ``rows`` a [B] bool array of the games that break it (all False where none does);
a checker stops at the first non-empty one. What holds for every game (masks, rewards, observations,
turn counters) is checked by the soak through the ``BatchedCore`` protocol; here only what the rules
of this game promise:

* the cards are conserved: exactly the cards of the groups this player count removes lie out of the
  game, every other card in a hand, a set on the table or the discard pile; the kept counts
  (``hand_count``, ``set_size``) agree with the cards, and every card of a set shows the set's value;
* the selection in progress is made of the mover's hand cards of one value (``sel_count``,
  ``sel_value``);
* at most one first finisher per round, who does not move; terminated exactly when a seat reached
  the target; a finished game's seat to act is in range.
"""

from __future__ import annotations

from typing import Iterator

import numpy as np

from .kernels import LOC_DISCARD, LOC_HAND, LOC_OUT, LOC_TABLE


def violations(core) -> Iterator[tuple[str, np.ndarray]]:
    """``(what, rows [B] bool)`` per invariant, in order (see the module docstring)."""
    B, P = core.num_envs, core.num_players
    tables = core.tables
    N, T = tables.num_cards, P * core.rules.areas
    loc, where = core.card_loc.astype(np.int64), core.card_where.astype(np.int64)
    rows = np.arange(B)
    live = ~(core.terminated | core.truncated)

    yield "a card has no valid location", ((loc < LOC_HAND) | (loc > LOC_OUT)).any(axis=1)
    yield ("the cards out of the game are not the removed groups",
           ((loc == LOC_OUT) != ~tables.in_play[None, :]).any(axis=1))
    hand, table = loc == LOC_HAND, loc == LOC_TABLE
    yield ("a card's holder or position is out of range",
           ((hand & ((where < 0) | (where >= P))) | (table & ((where < 0) | (where >= T)))
            | ((loc == LOC_DISCARD) & (where != 0))).any(axis=1))
    in_hand = (hand[:, None, :] & (where[:, None, :] == np.arange(P)[None, :, None])).sum(axis=2)
    yield "hand cards and hand_count disagree", (in_hand != core.hand_count).any(axis=1)
    in_set = table[:, None, :] & (where[:, None, :] == np.arange(T)[None, :, None])  # [B, T, N]
    yield "table cards and set_size disagree", (in_set.sum(axis=2) != core.set_size).any(axis=1)
    yield "card_rot is neither 0 nor 1", ((core.card_rot != 0) & (core.card_rot != 1)).any(axis=1)
    value = tables.values[np.arange(N)[None, :], core.card_rot.astype(np.int64)].astype(np.int64)  # [B, N]
    yield ("a card of a set does not show the set's value",
           (in_set & (value[:, None, :] != core.set_value.astype(np.int64)[:, :, None])).any(axis=(1, 2)))
    yield "a set value without a set (or a set without a value)", ((core.set_size == 0) != (core.set_value == 0)).any(axis=1)
    selected = core.card_selected
    mover = core.current.astype(np.int64)[:, None]
    yield "a selected card is not in the mover's hand", (selected & ~(hand & (where == mover))).any(axis=1)
    yield "selected cards and sel_count disagree", selected.sum(axis=1) != core.sel_count
    yield ("a selected card does not show the selection's value",
           (selected & (value != core.sel_value.astype(np.int64)[:, None])).any(axis=1))
    yield "more than one first finisher in a round", core.out.sum(axis=1) > 1
    yield "fewer finishers than first finishers", core.finishers < core.out.sum(axis=1)
    yield "the first finisher of the round is to move", live & core.out[rows, np.clip(mover[:, 0], 0, P - 1)]
    yield "terminated does not match 'a seat reached the target'", core.terminated != (core.points >= core.rules.target).any(axis=1)
