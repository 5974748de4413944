"""The 66 cards of the gap game: numbers 1-11 in six colours, one card of each.

Card ids: ``card = colour * 11 + (number - 1)``, colours in the order of :data:`COLOURS`. Stars (minus
points in a hand at the end of a round, plus points as the hidden cards of the player who goes out):

| number | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | 11 |
|--------|---|---|---|---|---|---|---|---|---|----|----|
| stars  | 0 | 1 | 2 | 2 | 3 | 4 | 3 | 2 | 2 | 1  | 0  |

The rulebook names red, blue, yellow and grey; green and purple complete the six (the names are
labels only: the rules treat every colour alike).
"""

from __future__ import annotations

import numpy as np

COLOURS = ("blue", "grey", "green", "yellow", "red", "purple")
NUM_COLOURS = len(COLOURS)
NUMBERS = tuple(range(1, 12))
NUM_NUMBERS = len(NUMBERS)
NUM_CARDS = NUM_COLOURS * NUM_NUMBERS
HAND_SIZE = 12
"""Cards dealt to each player per round."""
HIDDEN_PER_PLAYER = 2
"""Cards each player lays face down as hidden cards."""
NUM_PILES = 2
PILE_NAMES = ("left", "right")

STARS_BY_NUMBER = (0, 1, 2, 2, 3, 4, 3, 2, 2, 1, 0)
"""Stars of numbers 1..11 (index number - 1)."""

CARD_COLOUR = np.repeat(np.arange(NUM_COLOURS), NUM_NUMBERS).astype(np.int8)
"""[66] colour index of each card."""
CARD_NUMBER = np.tile(np.arange(1, NUM_NUMBERS + 1), NUM_COLOURS).astype(np.int8)
"""[66] number (1-11) of each card."""
CARD_STARS = np.array([STARS_BY_NUMBER[n - 1] for n in CARD_NUMBER], np.int8)
"""[66] stars of each card."""
TOTAL_STARS = int(CARD_STARS.sum())


def card_id(colour: str | int, number: int) -> int:
    """The id of the card of ``colour`` (a name or index) and ``number`` (1-11)."""
    c = COLOURS.index(colour) if isinstance(colour, str) else int(colour)
    if not 0 <= c < NUM_COLOURS or not 1 <= int(number) <= NUM_NUMBERS:
        raise ValueError(f"no card {colour!r} {number!r}; colours {COLOURS}, numbers 1-11")
    return c * NUM_NUMBERS + int(number) - 1


def card_name(card: int) -> str:
    """``"red 6"``; ``"-"`` for -1."""
    card = int(card)
    if card < 0:
        return "-"
    return f"{COLOURS[card // NUM_NUMBERS]} {card % NUM_NUMBERS + 1}"


def parse_card(text: str) -> int:
    """The card id of ``"red 6"`` (also ``"red6"``, ``"RED_6"``)."""
    t = text.strip().lower().replace("_", " ")
    for c, colour in enumerate(COLOURS):
        if t.startswith(colour):
            return card_id(c, int(t[len(colour):].strip()))
    raise ValueError(f"cannot read card {text!r}; expected e.g. 'red 6' (colours {', '.join(COLOURS)})")


def stars(cards) -> int:
    """Total stars of an iterable of card ids."""
    return int(sum(int(CARD_STARS[int(c)]) for c in cards))


def gap_width(top_a: int, top_b: int) -> int:
    """How many whole numbers lie strictly between the numbers of two cards (0: no gap)."""
    a, b = int(CARD_NUMBER[top_a]), int(CARD_NUMBER[top_b])
    return max(abs(a - b) - 1, 0)
