"""Text views of a dnp table: :func:`render_table` (one game) and :func:`describe_move` (what a move
showed the table, for ``training.play``'s recap)."""

from __future__ import annotations

import numpy as np

from .kernels import LOC_DISCARD, LOC_TABLE


def card_text(core, b: int, c: int) -> str:
    """``active(inactive)`` of card c as it lies now, e.g. ``3(6)``."""
    rot = int(core.card_rot[b, c])
    values = core.tables.values[c]
    return f"{values[rot]}({values[1 - rot]})"


def render_table(core, b: int, reveal_all: bool = False) -> str:
    """Game b as text; hands are hidden (``??``, cards known to the table shown) unless ``reveal_all``."""
    P, A = core.num_players, core.rules.areas
    unit = "round wins" if P == 2 else "points"
    if core.terminated[b]:
        head = f"game over after {int(core.turn[b])} moves"
    elif core.truncated[b]:
        head = f"cut off after {int(core.turn[b])} moves (max_turns)"
    else:
        head = f"round {int(core.rounds[b]) + 1}, move {int(core.turn[b]) + 1}: seat {int(core.current[b])} to act" \
               + (f" (area {int(core.area[b]) + 1})" if A == 2 else "")
    lines = [f"dnp, {P} players: {head}"]
    for p in range(P):
        hand = core.hand(b, p)
        hand.sort(key=lambda c: (core.tables.values[c, core.card_rot[b, c]], c))
        shown = [card_text(core, b, c) + ("*" if reveal_all and core.card_selected[b, c] else "")
                 if reveal_all or core.card_public[b, c] else "??" for c in hand]
        sets = []
        for a in range(A):
            pos = p * A + a
            cards = np.flatnonzero((core.card_loc[b] == LOC_TABLE) & (core.card_where[b] == pos)).tolist()
            sets.append(" ".join(card_text(core, b, c) for c in cards) or "-")
        lines.append(f"seat {p}: {int(core.points[b, p])} {unit}{' (out)' if core.out[b, p] else ''}; "
                     f"hand [{' '.join(shown) or '-'}]; set{'s' if A == 2 else ''}: {' | '.join(sets)}")
    gone = int((core.card_loc[b] == LOC_DISCARD).sum())
    lines.append(f"discarded this round: {gone} cards")
    return "\n".join(lines)


def describe_move(core, b: int, seat: int, action: int):
    """Called before ``action``; the returned function, called after, tells what the table saw."""
    L = core.actions
    a = int(action)
    if a < L.num_cards:
        return lambda after: f"seat {seat} selects a card"
    if a == L.play:
        cards = np.flatnonzero(core.card_selected[b]).tolist()
        text = " ".join(card_text(core, b, c) for c in cards)
        return lambda after: f"seat {seat} plays {text}"
    if a < L.take_base:
        card = int(np.flatnonzero(core.card_selected[b])[0])
        pos = L.target_position(seat, a - L.add_base)
        text = card_text(core, b, card)
        return lambda after: f"seat {seat} adds {text} to the set of seat {pos // core.rules.areas}"
    if a < L.turn:
        pos = L.target_position(seat, a - L.take_base)
        cards = np.flatnonzero((core.card_loc[b] == LOC_TABLE) & (core.card_where[b] == pos)).tolist()
        text = " ".join(card_text(core, b, c) for c in cards)
        return lambda after: f"seat {seat} takes {text} from seat {pos // core.rules.areas}"
    return lambda after: f"seat {seat} turns their hand"

