"""Scripted deals: set up exact positions by card name ("red 5*", "blue 3", "prize 2", "--").

A name without a star picks a copy without an extra function, ``*`` the copy with one; each name
takes a different physical card, so a position can list the same face several times.
"""

from __future__ import annotations

from typing import Sequence

from .config import SLOTS
from .core import KeineAhnungCore
from .deck import COLOURS, FUNCTION_NONE, CardTables


class CardPicker:
    """Hands out distinct card ids by name for one deck."""

    def __init__(self, tables: CardTables):
        self.tables = tables
        self.used: set[int] = set()

    def take(self, name: str | None) -> int:
        """The id of an unused card called ``name``; -1 for ``None`` or ``"--"`` (an empty slot)."""
        if name is None or name == "--":
            return -1
        t = self.tables
        words = name.strip().split()
        if len(words) != 2:
            raise ValueError(f"card name {name!r}; expected '<colour> <number>[*]' or 'prize <value>'")
        if words[0] == "prize":
            matches = [c for c in range(t.num_cards) if t.is_prize[c] and t.prize_value[c] == int(words[1])]
        else:
            colour, number = words[0], words[1]
            special = number.endswith("*")
            if colour not in COLOURS:
                raise ValueError(f"card name {name!r}: unknown colour; allowed: {', '.join(COLOURS)}")
            matches = [c for c in range(t.num_cards) if not t.is_prize[c] and t.colour[c] == COLOURS.index(colour)
                       and t.number[c] == int(number.rstrip("*")) and (t.function[c] != FUNCTION_NONE) == special]
        free = [c for c in matches if c not in self.used]
        if not free:
            raise ValueError(f"no unused card {name!r} left in the deck")
        self.used.add(free[0])
        return free[0]

    def take_all(self, names: Sequence[str | None]) -> list[int]:
        return [self.take(n) for n in names]


def load_named(core: KeineAhnungCore, b: int = 0, *, layouts: Sequence[Sequence[str | None]],
               piles: Sequence[Sequence[str]] = (), draw: Sequence[str] = (), set_aside: Sequence[str] = (),
               prizes: Sequence[Sequence[str]] | None = None, known: Sequence[str] = (), **kwargs) -> dict[str, int]:
    """``core.load`` with card names; returns ``{name: id}`` of the named cards (the last copy
    wins for repeated names). Layout rows shorter than six are padded with empty slots; cards in
    ``known`` must also appear in a layout (matched by name)."""
    picker = CardPicker(core.tables)
    ids: dict[str, int] = {}

    def pick(names):
        out = []
        for n in names:
            card = picker.take(n)
            out.append(card)
            if card >= 0:
                ids[n] = card
        return out

    rows = [pick(list(row) + ["--"] * (SLOTS - len(row))) for row in layouts]
    pile_ids = [pick(p) for p in piles]
    draw_ids = pick(draw)
    aside_ids = pick(set_aside)
    prize_ids = [pick(row) for row in prizes] if prizes is not None else None
    known_ids = [ids[n] for n in known]
    core.load(b, layouts=rows, piles=pile_ids, draw=draw_ids, set_aside=aside_ids, prizes=prize_ids,
              known=known_ids, **kwargs)
    return ids
