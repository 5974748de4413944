"""The dnp deck: 40 two-valued cards in five symbol groups (a documented reconstruction, kept as data).

The rulebook does not list the cards. This reconstruction has 40 cards, each with two
different values 1-10 (the upright one and the rotated one), every value printed on 8 of the 80 card
halves: the 40 cards are every pair of different values except the five pairs 1/10, 2/3, 4/5, 6/7 and
8/9, so no two cards are alike. Five groups of 8 cards by symbol: none, frowning, neutral, smiling,
grimacing. The player count removes groups (:data:`GROUPS_BY_PLAYERS`): 5 players use all 40, 4 remove
the frowning group, 3 remove frowning and neutral, 2 keep only the no-symbol and neutral groups, so
every player holds 8 cards. Every card the rulebook shows (1/5 with the star, 2/5, 2/7, 2/9, 3/4, 3/6)
is in the no-symbol group, which every player count keeps; within each player count's deck every
value is printed within one of the mean (5: 8 each; 4: 6-7; 3: 4-5; 2: 3-4).

``deck=`` (a rules option) replaces the cards: a list of cards, each ``(upright, rotated, symbol)`` or
``(upright, rotated, symbol, star)``, or a mapping ``{"upright", "rotated", "symbol", "star"}``, or a
``{"cards": [...]}`` mapping (what :meth:`DeckSpec.to_dict` writes). :meth:`DeckSpec.from_any`
validates it with clear errors; ``config.Rules`` checks the variant's part (one star card, cards
divisible among the players).
"""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping, Sequence

import numpy as np

MIN_VALUE, MAX_VALUE = 1, 10
NUM_VALUES = MAX_VALUE
SYMBOLS = ("none", "frown", "neutral", "smile", "grimace")
"""The five symbol groups: none, the frowning face, the neutral face, the smiling face, the grimacing face."""
SYMBOL_MARKS = {"none": "", "frown": ":(", "neutral": ":|", "smile": ":)", "grimace": ":E"}

GROUPS_BY_PLAYERS = {
    2: ("none", "neutral"),
    3: ("none", "smile", "grimace"),
    4: ("none", "neutral", "smile", "grimace"),
    5: ("none", "frown", "neutral", "smile", "grimace"),
}
"""The symbol groups each player count plays with (the rulebook's preparation)."""


@dataclasses.dataclass(frozen=True)
class Card:
    """One card: its upright value, its rotated value (different), its symbol group and the star."""

    upright: int
    rotated: int
    symbol: str
    star: bool = False

    def label(self) -> str:
        return f"{self.upright}/{self.rotated}" + ("*" if self.star else "") + SYMBOL_MARKS[self.symbol]


def _cards(symbol: str, pairs: Sequence[tuple[int, int]], star: tuple[int, int] | None = None) -> tuple[Card, ...]:
    return tuple(Card(a, b, symbol, (a, b) == star) for a, b in pairs)


DEFAULT_CARDS: tuple[Card, ...] = (
    _cards("none", [(1, 5), (2, 5), (2, 7), (2, 9), (3, 4), (3, 6), (4, 10), (7, 8)], star=(1, 5))
    + _cards("frown", [(1, 2), (2, 8), (3, 7), (4, 7), (4, 9), (5, 6), (5, 9), (8, 10)])
    + _cards("neutral", [(1, 6), (1, 9), (2, 6), (3, 8), (3, 10), (4, 8), (5, 7), (9, 10)])
    + _cards("smile", [(1, 3), (1, 8), (2, 4), (5, 8), (6, 9), (6, 10), (7, 9), (7, 10)])
    + _cards("grimace", [(1, 4), (1, 7), (2, 10), (3, 5), (3, 9), (4, 6), (5, 10), (6, 8)])
)
"""The reconstructed 40 cards, group by group (found once by a seeded search under the constraints
above and kept as data; ``tests/test_dnp_rules.py`` checks every stated property)."""


def _card_from(entry: Any, index: int) -> Card:
    where = f"deck card {index}"
    if isinstance(entry, Card):
        entry = dataclasses.astuple(entry)
    if isinstance(entry, Mapping):
        unknown = sorted(set(entry) - {"upright", "rotated", "symbol", "star"})
        if unknown or not {"upright", "rotated", "symbol"} <= set(entry):
            raise ValueError(f"{where}: {dict(entry)!r}; allowed keys: upright, rotated, symbol (required), star")
        entry = (entry["upright"], entry["rotated"], entry["symbol"], entry.get("star", False))
    if isinstance(entry, (str, bytes)) or not isinstance(entry, Sequence) or len(entry) not in (3, 4):
        raise ValueError(f"{where}: {entry!r}; allowed: (upright, rotated, symbol) or (upright, rotated, symbol, star)")
    upright, rotated, symbol = entry[0], entry[1], entry[2]
    star = entry[3] if len(entry) == 4 else False
    for name, value in (("upright", upright), ("rotated", rotated)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not MIN_VALUE <= value <= MAX_VALUE:
            raise ValueError(f"{where}: {name} value {value!r}; allowed: integers {MIN_VALUE}-{MAX_VALUE}")
    if upright == rotated:
        raise ValueError(f"{where}: both values are {upright}; allowed: two different values")
    if symbol not in SYMBOLS:
        raise ValueError(f"{where}: symbol {symbol!r}; allowed: {', '.join(map(repr, SYMBOLS))}")
    if not isinstance(star, (bool, np.bool_)):
        raise ValueError(f"{where}: star={star!r}; allowed: True or False")
    return Card(int(upright), int(rotated), str(symbol), bool(star))


@dataclasses.dataclass(frozen=True)
class DeckSpec:
    """A validated card list (hashable; the rules' ``deck``)."""

    cards: tuple[Card, ...] = DEFAULT_CARDS

    @classmethod
    def from_any(cls, deck: Any) -> "DeckSpec":
        """``None`` (the reconstruction), a DeckSpec, a ``{"cards": [...]}`` mapping or a card list."""
        if deck is None:
            return cls()
        if isinstance(deck, DeckSpec):
            return deck
        if isinstance(deck, Mapping):
            if set(deck) != {"cards"}:
                raise ValueError(f"deck mapping with keys {sorted(deck)}; allowed: exactly 'cards' (a card list)")
            deck = deck["cards"]
        if isinstance(deck, (str, bytes)) or not isinstance(deck, Sequence):
            raise ValueError(f"deck={deck!r}; allowed: None, a card list or {{'cards': [...]}}")
        cards = tuple(_card_from(entry, i) for i, entry in enumerate(deck))
        if not cards:
            raise ValueError("deck has no cards; allowed: a non-empty card list")
        if sum(c.star for c in cards) != 1:
            raise ValueError(f"deck has {sum(c.star for c in cards)} star cards; allowed: exactly one")
        return cls(cards)

    def to_dict(self) -> dict:
        """JSON-ready form (``from_any`` reads it back)."""
        return {"cards": [[c.upright, c.rotated, c.symbol, c.star] for c in self.cards]}

    def for_players(self, num_players: int) -> tuple[Card, ...]:
        """The cards a table of ``num_players`` plays with, in deck order."""
        groups = GROUPS_BY_PLAYERS[num_players]
        return tuple(c for c in self.cards if c.symbol in groups)

    def in_play(self, num_players: int) -> np.ndarray:
        """[D] bool: which cards of the deck a table of ``num_players`` plays with."""
        groups = GROUPS_BY_PLAYERS[num_players]
        return np.array([c.symbol in groups for c in self.cards], bool)


@dataclasses.dataclass(frozen=True, eq=False)
class CardTables:
    """Lookup arrays of one variant: every card of the deck keeps its id (0..N-1, deck order) at every
    player count, so an action or observation entry means the same card at every table; the cards of
    the groups a player count removes are out of the game (``in_play`` False)."""

    cards: tuple[Card, ...]
    values: np.ndarray
    """[N, 2] int8: ``values[c, 0]`` upright, ``values[c, 1]`` rotated."""
    in_play: np.ndarray
    """[N] bool: the card is used at this player count."""
    star: int
    """id of the star card."""

    @property
    def num_cards(self) -> int:
        """N, the cards of the whole deck (ids)."""
        return len(self.cards)

    @property
    def num_in_play(self) -> int:
        return int(self.in_play.sum())

    def label(self, card: int) -> str:
        return self.cards[card].label()

    def card_id(self, label: str) -> int:
        """The id of the card labelled like ``"3/5"`` (ValueError if none or several)."""
        found = [i for i, c in enumerate(self.cards) if f"{c.upright}/{c.rotated}" == label]
        if len(found) != 1:
            raise ValueError(f"{len(found)} cards are labelled {label!r}; expected one")
        return found[0]


def build_tables(cards: Sequence[Card], in_play: np.ndarray) -> CardTables:
    values = np.array([[c.upright, c.rotated] for c in cards], np.int8).reshape(-1, 2)
    star = [i for i, c in enumerate(cards) if c.star]
    return CardTables(tuple(cards), values, np.asarray(in_play, bool), star[0] if star else -1)
