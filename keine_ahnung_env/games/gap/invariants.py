"""The gap game's own state invariants, checked over a whole batch (the soak, ``benchmarks/soak.py``).

:func:`violations` reads a :class:`~.core.GapCore`'s state arrays and yields ``(what, rows)`` for each
invariant in turn, ``rows`` a [B] bool array of the games that break it (all False where none does);
a checker stops at the first non-empty one. What holds for every game (masks, rewards, observations,
turn counters) is checked by the soak through the ``BatchedCore`` protocol; here only what the rules
of this game promise:

* the 66 cards are conserved: each lies in one valid place, the hands and hidden cards hold what
  ``hand_count`` and ``hidden_count`` say, the draw pile's window lists exactly the cards marked
  LOC_DRAW (no card twice), each discard pile has one top card, and a turned-up card awaits a pile
  exactly in the FLIP phase;
* owners are consistent (a seat for hand and hidden cards, a pile for pile cards, none otherwise);
* rounds: never more than the game's, terminated exactly when the last one is over, at most one seat
  going out per round; the phase is OVER exactly when the game is over.

:func:`zero_sum` and :func:`rewards_only_at_end` tell the soak which reward checks this variant's
rules promise (the round shaping ``round_reward_scale`` pays during the game, and not zero-sum).
"""

from __future__ import annotations

from typing import Iterator

import numpy as np

from .actions import Phase
from .deck import HIDDEN_PER_PLAYER, NUM_CARDS
from .kernels import LOC_DRAW, LOC_HAND, LOC_HIDDEN, LOC_PENDING, LOC_TOP, LOC_UNDER


def rewards_only_at_end(rules: dict) -> bool:
    """Whether rewards are paid only in the step that ends a game (not with round shaping)."""
    return not rules.get("round_reward_scale")


def zero_sum(rules: dict) -> bool:
    """Whether a finished game's rewards sum to 0 ("win" and "rank", without round shaping)."""
    return rules.get("reward") in ("win", "rank") and not rules.get("round_reward_scale")


def violations(core) -> Iterator[tuple[str, np.ndarray]]:
    """``(what, rows [B] bool)`` per invariant, in order (see the module docstring)."""
    B, P = core.num_envs, core.num_players
    loc, owner = core.card_loc.astype(np.int64), core.card_owner.astype(np.int64)
    rows = np.arange(B)
    done = core.terminated | core.truncated

    yield "a card has no valid location", ((loc < LOC_DRAW) | (loc > LOC_PENDING)).any(axis=1)
    held = (loc == LOC_HAND) | (loc == LOC_HIDDEN)
    on_pile = (loc == LOC_TOP) | (loc == LOC_UNDER)
    yield ("a card's owner does not fit its place",
           ((held & ((owner < 0) | (owner >= P))) | (on_pile & ((owner < 0) | (owner > 1)))
            | (~held & ~on_pile & (owner != -1))).any(axis=1))
    seats = np.arange(P)[None, :, None]
    in_hand = ((loc == LOC_HAND)[:, None, :] & (owner[:, None, :] == seats)).sum(axis=2)
    yield "hand cards and hand_count disagree", (in_hand != core.hand_count).any(axis=1)
    hidden = ((loc == LOC_HIDDEN)[:, None, :] & (owner[:, None, :] == seats)).sum(axis=2)
    yield "hidden cards and hidden_count disagree", (hidden != core.hidden_count).any(axis=1)
    yield "a seat has more hidden cards than the rules allow", (core.hidden_count > HIDDEN_PER_PLAYER).any(axis=1)
    # The draw pile's window lists exactly the cards marked LOC_DRAW, each once.
    window = np.arange(NUM_CARDS)[None, :]
    in_draw = (window >= core.draw_pos[:, None]) & (window < core.draw_len[:, None])
    yield ("the draw pile's window is out of range",
           (core.draw_pos < 0) | (core.draw_pos > core.draw_len) | (core.draw_len > NUM_CARDS))
    yield "draw pile size and LOC_DRAW disagree", (loc == LOC_DRAW).sum(axis=1) != in_draw.sum(axis=1)
    listed = np.where(in_draw, core.draw_cards.astype(np.int64), 0)
    yield "a card in the draw pile's window is not marked LOC_DRAW", (in_draw & (loc[rows[:, None], listed] != LOC_DRAW)).any(axis=1)
    counts = np.zeros((B, NUM_CARDS), np.int64)
    np.add.at(counts, (np.broadcast_to(rows[:, None], listed.shape)[in_draw], listed[in_draw]), 1)
    yield "a card is twice in the draw pile", (counts > 1).any(axis=1)
    # Each pile has one top, the card pile_top names; the cards below it belong to the same pile.
    tops = core.pile_top.astype(np.int64)
    yield "a pile top is missing", (tops < 0).any(axis=1) | (tops >= NUM_CARDS).any(axis=1)
    safe = np.clip(tops, 0, NUM_CARDS - 1)
    yield ("pile_top names a card that is not that pile's top",
           ((loc[rows[:, None], safe] != LOC_TOP) | (owner[rows[:, None], safe] != np.arange(2)[None, :])).any(axis=1))
    yield "not exactly two pile tops", (loc == LOC_TOP).sum(axis=1) != 2
    # A turned-up card awaits a pile exactly in the FLIP phase, and it is the pending card.
    flip = core.phase == Phase.FLIP
    yield "a turned-up card awaits a pile outside FLIP (or none inside it)", (loc == LOC_PENDING).sum(axis=1) != flip
    pending = core.pending.astype(np.int64)
    yield ("the pending card is not the turned-up one",
           (flip & ((pending < 0) | (loc[rows, np.clip(pending, 0, NUM_CARDS - 1)] != LOC_PENDING)))
           | (~flip & (pending != -1)))
    rounds = core.rules.rounds
    yield "more rounds than the rules' rounds", core.round > rounds
    yield "terminated does not match 'the last round is over'", core.terminated != (core.round == rounds)
    yield "more rounds gone out than rounds played", core.went_out.sum(axis=1) > core.round
    yield "phase OVER does not match terminated | truncated", (core.phase == Phase.OVER) != done
