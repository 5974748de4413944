"""The Keine Ahnung deck as data: number cards, consolation prizes and trophies.

The rulebook lists the components (102 number cards 1-6 in six colours "in varying quantities", six
consolation prizes worth 2, 1, 1, 1, 1, 0 and twelve trophies worth 5, 5, 5, 4, 4, 4, 4, 3, 3, 3, 3, 3)
but not the distribution of the number cards nor which cards carry an extra function. The default
deck below is a documented reconstruction (see ``RULES.md``):

* per colour the numbers 1-5 three times each and 6 twice (17 cards, 102 in all);
* 18 cards carry an extra function: every colour has one card of each function, on three different
  numbers, and every number carries each function exactly once over the six colours. The rulebook's
  examples are honoured: red 5 = "reveal a card from the draw pile", blue 3 = "remove other discard
  piles", yellow 4 = "opponents refill to 3"; the cards its examples play without a function
  (yellow 2, grey 6, red 3) have plain copies only.

Every engine reads the deck through :class:`CardTables`, the flat NumPy view of a :class:`DeckSpec`;
pass ``deck=DeckSpec(...)`` (or the equivalent dict) to an environment to play another distribution.
"""

from __future__ import annotations

import dataclasses
from typing import Any, Mapping, Sequence

import numpy as np

COLOURS: tuple[str, ...] = ("blue", "grey", "green", "yellow", "red", "purple")
"""Colour names in index order; a card's colour index is its position here."""

NUMBERS: tuple[int, ...] = (1, 2, 3, 4, 5, 6)
"""The numbers a number card may show."""

NUM_COLOURS = len(COLOURS)
NUM_NUMBERS = len(NUMBERS)
NUM_FACES = NUM_COLOURS * NUM_NUMBERS
"""A face is (colour, number): ``face = colour * 6 + (number - 1)``, 0-35."""

NO_FACE = NUM_FACES
"""The face index used for consolation prizes and for "no card"."""

FUNCTIONS: tuple[str, ...] = ("none", "reveal", "remove", "refill")
"""Extra functions: none; reveal a card from the draw pile; remove the other discard piles;
every opponent with fewer than three layout cards refills to three."""

FUNCTION_NONE, FUNCTION_REVEAL, FUNCTION_REMOVE, FUNCTION_REFILL = range(4)

FUNCTION_LABELS = {
    "none": "",
    "reveal": "reveal a card from the draw pile",
    "remove": "remove other discard piles",
    "refill": "opponents refill to 3",
}

DEFAULT_PRIZES: tuple[int, ...] = (2, 1, 1, 1, 1, 0)
DEFAULT_TROPHIES: tuple[int, ...] = (5, 5, 5, 4, 4, 4, 4, 3, 3, 3, 3, 3)

# Number carrying each function, per colour in COLOURS order (found by an exhaustive search for a
# balanced layout that honours the rulebook's examples; see the module docstring).
_DEFAULT_FUNCTION_NUMBERS: dict[str, tuple[int, ...]] = {
    "reveal": (1, 2, 3, 6, 5, 4),
    "remove": (3, 1, 2, 5, 4, 6),
    "refill": (2, 3, 1, 4, 6, 5),
}


@dataclasses.dataclass(frozen=True)
class DeckSpec:
    """A complete card set: number cards, consolation prizes and trophies.

    Attributes:
      number_cards: one ``(colour, number, function)`` triple per card; colour is a name from
        :data:`COLOURS`, number 1-6, function a name from :data:`FUNCTIONS`.
      prizes: the value of each consolation prize (non-negative integers).
      trophies: the value of each trophy (positive integers); the game ends when the last is won.
    """

    number_cards: tuple[tuple[str, int, str], ...]
    prizes: tuple[int, ...] = DEFAULT_PRIZES
    trophies: tuple[int, ...] = DEFAULT_TROPHIES

    def __post_init__(self) -> None:
        for name, what in (("number_cards", "a sequence of (colour, number, function) triples"),
                           ("prizes", "a sequence of integers"), ("trophies", "a sequence of integers")):
            value = getattr(self, name)
            if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
                raise ValueError(f"deck: {name}={value!r}; expected {what}")
        cards = []
        for i, card in enumerate(self.number_cards):
            if isinstance(card, (str, bytes)) or not hasattr(card, "__iter__"):
                raise ValueError(f"deck: number_cards[{i}]={card!r}; expected a (colour, number, function) triple")
            cards.append(tuple(card))
        object.__setattr__(self, "number_cards", tuple(cards))
        object.__setattr__(self, "prizes", tuple(self.prizes))
        object.__setattr__(self, "trophies", tuple(self.trophies))
        self.validate()

    def validate(self) -> None:
        """Raises ValueError naming the first inconsistency in the card set."""
        if not self.number_cards:
            raise ValueError("deck: number_cards is empty; a deck needs number cards")
        for i, card in enumerate(self.number_cards):
            if len(card) != 3:
                raise ValueError(f"deck: number_cards[{i}]={card!r} is not a (colour, number, function) triple")
            colour, number, function = card
            if colour not in COLOURS:
                raise ValueError(f"deck: number_cards[{i}] has colour {colour!r}; allowed: {', '.join(COLOURS)}")
            if isinstance(number, bool) or not isinstance(number, (int, np.integer)) or number not in NUMBERS:
                raise ValueError(f"deck: number_cards[{i}] has number {number!r}; allowed: 1-6")
            if function not in FUNCTIONS:
                raise ValueError(f"deck: number_cards[{i}] has function {function!r}; allowed: {', '.join(FUNCTIONS)}")
        for name, values, lowest in (("prizes", self.prizes, 0), ("trophies", self.trophies, 1)):
            for i, value in enumerate(values):
                if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < lowest or value > 100:
                    raise ValueError(f"deck: {name}[{i}]={value!r}; allowed: integers {lowest}-100")
        if not self.trophies:
            raise ValueError("deck: trophies is empty; the game ends when the last trophy is won")
        if all(function == "reveal" for _, _, function in self.number_cards):
            # Every drawn card would reveal the next one, forever, once the discards are reshuffled.
            raise ValueError("deck: every number card has the 'reveal' function, so a turn's chain of reveals "
                             "never ends; allowed: decks with at least one card of another function or none")
        if len(self.number_cards) + len(self.prizes) > 32000:
            raise ValueError("deck: more than 32000 cards")

    @classmethod
    def from_any(cls, deck: Any) -> "DeckSpec":
        """Accepts None (the default deck), a DeckSpec, or a mapping with the same field names."""
        if deck is None:
            return default_deck()
        if isinstance(deck, DeckSpec):
            return deck
        if isinstance(deck, Mapping):
            unknown = set(deck) - {"number_cards", "prizes", "trophies"}
            if unknown:
                raise ValueError(f"deck: unknown keys {sorted(unknown)}; allowed: number_cards, prizes, trophies")
            if "number_cards" not in deck:
                raise ValueError("deck: a mapping needs the key 'number_cards'")
            return cls(**deck)
        raise ValueError(f"deck: expected None, a DeckSpec or a mapping, got {type(deck).__name__}")

    def to_dict(self) -> dict[str, list]:
        """A JSON-ready description (used in checkpoint sidecars)."""
        return {
            "number_cards": [list(c) for c in self.number_cards],
            "prizes": list(self.prizes),
            "trophies": list(self.trophies),
        }


def default_deck() -> DeckSpec:
    """The reconstructed 102 + 6 card deck and the 12 trophies of the published game."""
    cards: list[tuple[str, int, str]] = []
    for c, colour in enumerate(COLOURS):
        function_on = {nums[c]: f for f, nums in _DEFAULT_FUNCTION_NUMBERS.items()}
        for number in NUMBERS:
            copies = 2 if number == 6 else 3
            special = function_on.get(number)
            for copy in range(copies):
                is_last = copy == copies - 1
                cards.append((colour, number, special if (special and is_last) else "none"))
    return DeckSpec(number_cards=tuple(cards))


@dataclasses.dataclass(frozen=True)
class CardTables:
    """Flat per-card lookup arrays for one deck; card ids are 0..num_cards-1.

    Number cards come first in ``spec.number_cards`` order, then the prizes.

    Attributes:
      colour [N] int8: colour index, -1 for prizes.
      number [N] int8: 1-6, 0 for prizes.
      function [N] int8: FUNCTION_* code, 0 for prizes.
      prize_value [N] int16: the prize's value, -1 for number cards.
      is_prize [N] bool.
      face [N] int16: colour*6 + number-1, NO_FACE (36) for prizes.
      card_type [N] int16: index into ``type_keys``; cards of one type are interchangeable.
      type_keys: per type ``(colour, number, function)`` for number cards or ``("prize", value)``.
      type_onehot [N, T] float32: row i one-hot of card i's type.
      type_total [T] int16: copies of each type in the deck.
      type_face [T] int16, type_is_prize [T] bool: face and prize flag of each type.
      compat [37, 37] bool: compat[a, b] is True when a card of face a fits a pile topped by face b
        (same colour or same number); prizes and "no face" fit nothing.
    """

    spec: DeckSpec
    colour: np.ndarray
    number: np.ndarray
    function: np.ndarray
    prize_value: np.ndarray
    is_prize: np.ndarray
    face: np.ndarray
    card_type: np.ndarray
    type_keys: tuple
    type_onehot: np.ndarray
    type_total: np.ndarray
    type_face: np.ndarray
    type_is_prize: np.ndarray
    compat: np.ndarray
    trophies: np.ndarray

    @property
    def num_cards(self) -> int:
        return int(self.colour.shape[0])

    @property
    def num_types(self) -> int:
        return len(self.type_keys)

    @property
    def num_trophies(self) -> int:
        return int(self.trophies.shape[0])

    @property
    def trophy_values(self) -> np.ndarray:
        """The distinct trophy values, ascending (the ``own_trophies`` observation section's order)."""
        return np.unique(self.trophies)

    @property
    def num_trophy_values(self) -> int:
        return int(self.trophy_values.shape[0])

    def card_name(self, card: int) -> str:
        """A short human label: 'red 5*' (star = extra function), 'prize 2', '--' for no card."""
        if card < 0:
            return "--"
        if self.is_prize[card]:
            return f"prize {int(self.prize_value[card])}"
        star = "*" if self.function[card] != FUNCTION_NONE else ""
        return f"{COLOURS[self.colour[card]]} {int(self.number[card])}{star}"


def build_tables(spec: DeckSpec) -> CardTables:
    """Builds the lookup arrays of :class:`CardTables` from a validated deck spec."""
    n_num = len(spec.number_cards)
    n = n_num + len(spec.prizes)
    colour = np.full(n, -1, np.int8)
    number = np.zeros(n, np.int8)
    function = np.zeros(n, np.int8)
    prize_value = np.full(n, -1, np.int16)
    for i, (col, num, fn) in enumerate(spec.number_cards):
        colour[i] = COLOURS.index(col)
        number[i] = num
        function[i] = FUNCTIONS.index(fn)
    prize_value[n_num:] = spec.prizes
    is_prize = prize_value >= 0
    face = np.where(is_prize, NO_FACE, colour.astype(np.int16) * NUM_NUMBERS + number - 1).astype(np.int16)

    keys = []
    for i in range(n):
        keys.append(("prize", int(prize_value[i])) if is_prize[i] else (int(colour[i]), int(number[i]), int(function[i])))
    type_keys = tuple(sorted(set(keys), key=lambda k: (k[0] == "prize", k if k[0] != "prize" else (k[1],))))
    index = {k: t for t, k in enumerate(type_keys)}
    card_type = np.array([index[k] for k in keys], np.int16)
    type_onehot = np.zeros((n, len(type_keys)), np.float32)
    type_onehot[np.arange(n), card_type] = 1.0
    type_total = np.bincount(card_type, minlength=len(type_keys)).astype(np.int16)
    type_face = np.array(
        [NO_FACE if k[0] == "prize" else k[0] * NUM_NUMBERS + k[1] - 1 for k in type_keys], np.int16
    )
    type_is_prize = np.array([k[0] == "prize" for k in type_keys], bool)

    compat = np.zeros((NUM_FACES + 1, NUM_FACES + 1), bool)
    for a in range(NUM_FACES):
        for b in range(NUM_FACES):
            compat[a, b] = (a // NUM_NUMBERS == b // NUM_NUMBERS) or (a % NUM_NUMBERS == b % NUM_NUMBERS)

    for arr in (colour, number, function, prize_value, is_prize, face, card_type, type_onehot, type_total,
                type_face, type_is_prize, compat):
        arr.setflags(write=False)
    trophies = np.array(spec.trophies, np.int16)
    trophies.setflags(write=False)
    return CardTables(spec, colour, number, function, prize_value, is_prize, face, card_type, type_keys,
                      type_onehot, type_total, type_face, type_is_prize, compat, trophies)


def describe_type(key: Sequence) -> str:
    """Human label of a card type key from :attr:`CardTables.type_keys`."""
    if key[0] == "prize":
        return f"prize {key[1]}"
    colour, number, function = key
    star = "*" if function != FUNCTION_NONE else ""
    return f"{COLOURS[colour]} {number}{star}"
