"""Keine Ahnung's own state invariants, checked over a whole batch (the soak, ``benchmarks/soak.py``).

:func:`violations` reads a :class:`~.core.KeineAhnungCore`'s state arrays and yields ``(what, rows)``
for each invariant in turn, ``rows`` a [B] bool array of the games that break it (all False where
none does); a checker stops at the first non-empty one. What holds for every game (masks, rewards,
observations, turn counters) is checked by the soak through the ``BatchedCore`` protocol; here only
what the rules of this game promise:

* every card lies in exactly one place, and the layouts, the draw pile, the pile tops and the card
  awaiting a pile agree with ``card_loc``;
* the prize points add up to the won prizes, the trophies won to the trophy counts and points, and
  the trophy set never changes;
* a game is terminated exactly when the last trophy was won, and its phase is OVER exactly when it
  is over.
"""

from __future__ import annotations

from typing import Iterator

import numpy as np

from .actions import Phase
from .core import LOC_DRAW, LOC_LAYOUT, LOC_PENDING, LOC_PILE, LOC_PRIZE


def violations(core) -> Iterator[tuple[str, np.ndarray]]:
    """``(what, rows [B] bool)`` per invariant, in order (see the module docstring)."""
    t = core.tables
    B, N, T = core.num_envs, t.num_cards, t.num_trophies
    loc = core.card_loc

    yield "layout cards and LOC_LAYOUT disagree", (loc == LOC_LAYOUT).sum(axis=1) != (core.layout >= 0).sum(axis=(1, 2))
    yield "draw pile size and LOC_DRAW disagree", (loc == LOC_DRAW).sum(axis=1) != (core.draw_len - core.draw_pos)
    yield ("a drawn card awaits a pile outside PLACE_DRAWN (or none inside it)",
           (loc == LOC_PENDING).sum(axis=1) != (core.phase == Phase.PLACE_DRAWN))
    yield "a card has no valid location", (loc < 0).any(axis=1) | (loc > 5).any(axis=1)
    # Every card id in a layout, the draw pile, a pile top or awaiting a pile (from the draw pile) lies
    # exactly there, and no id is in two of these places.
    pos = np.arange(N)[None, :]
    in_draw = (pos >= core.draw_pos[:, None]) & (pos < core.draw_len[:, None])
    drawn = np.where(core.phase == Phase.PLACE_DRAWN, core.pending, -1)[:, None]
    places = [(core.layout.reshape(B, -1), LOC_LAYOUT), (np.where(in_draw, core.draw_cards, -1), LOC_DRAW),
              (core.pile_top, LOC_PILE), (drawn, LOC_PENDING)]
    ids = []
    for cards, where in places:
        present = cards >= 0
        games = np.broadcast_to(np.arange(B)[:, None], cards.shape)
        yield (f"a card listed in location {where} has another card_loc",
               (present & (loc[games, np.where(present, cards, 0)] != where)).any(axis=1))
        ids.append((games * N + cards)[present])
    counts = np.bincount(np.concatenate(ids), minlength=B * N).reshape(B, N)
    yield "a card lies in two places", (counts > 1).any(axis=1)
    prize_points = np.where(loc == LOC_PRIZE, np.maximum(t.prize_value, 0)[None, :], 0).sum(axis=1)
    yield "prize points do not add up to the won prizes", prize_points != core.prize_points.sum(axis=1)
    # Trophies conserved: won = owned, points = sum of owned values, pile = the rest.
    won = core.trophy_owner >= 0
    yield ("trophies won and trophy counts disagree",
           (won.sum(axis=1) != core.trophy_pos) | (core.trophy_count.sum(axis=1) != core.trophy_pos))
    yield ("trophy points do not add up to the won trophies",
           np.where(won, core.trophy_order, 0).sum(axis=1) != core.trophy_points.sum(axis=1))
    yield "the trophy set changed", (np.sort(core.trophy_order, axis=1) != np.sort(t.trophies)[None, :]).any(axis=1)
    yield "terminated does not match 'the last trophy was won'", core.terminated != (core.trophy_pos == T)
    yield "phase OVER does not match terminated | truncated", (core.phase == Phase.OVER) != (core.terminated | core.truncated)
