"""Rules options of Keine Ahnung, validated in one place.

Every engine (batched core, scalar reference) and every wrapper takes the same keyword options; unknown
names or values raise ``ValueError`` naming what was wrong and what is allowed.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from ...rules_options import RulesOptions
from .game import GAME
from .deck import CardTables, DeckSpec, build_tables

MIN_PLAYERS, MAX_PLAYERS = GAME.min_players, GAME.max_players
DEFAULT_PLAYERS = GAME.default_players
SLOTS = 6
"""Layout slots per player (two rows of three)."""
CALL_MAX_CARDS = 3
"""A player may call "Nothing fits anymore!" with at most this many layout cards."""
REFILL_FUNCTION_TARGET = 3
"""The "refill" extra function tops opponents up to this many layout cards."""

MEMORY_MODES = ("perfect", "none")
REWARD_MODES = ("win", "score", "rank")
DEFAULT_MAX_TURNS = 4000


@dataclasses.dataclass(frozen=True)
class Rules(RulesOptions):
    """One game variant: player count plus rules options.

    Attributes:
      num_players: 2-5.
      allow_keep: when True a player may put a revealed card back face down even if it fits
        (ending the turn, as for a card that fits nowhere). Default False (the rulebook's "may"
        is read as "must place a card that fits").
      memory: "perfect" (default): observations encode every card a seat has seen (face-down cards
        that were revealed, the contents of discard piles) and counts of cards still unknown.
        "none": observations show only what is face up on the table right now.
      reward: "win" (default; winners share +1, the others share -1), "score" (final score) or
        "rank" (zero-sum: (players beaten - players beating you) / (players - 1)).
      max_turns: a game is truncated when this many turns have been played (default 4000; the
        longest real 4-player games take about 550).
      reshuffle_discards: when the draw pile and the set-aside cards are both empty, shuffle every
        discard-pile card except each pile's top into a new draw pile (default True). When False,
        such draws are skipped.
      deck: the card set (None = the default reconstruction; a DeckSpec or mapping otherwise).
    """

    num_players: int = DEFAULT_PLAYERS
    allow_keep: bool = False
    memory: str = "perfect"
    reward: str = "win"
    max_turns: int = DEFAULT_MAX_TURNS
    reshuffle_discards: bool = True
    deck: Any = None

    def __post_init__(self) -> None:
        if isinstance(self.num_players, bool) or not isinstance(self.num_players, int) or not (
            MIN_PLAYERS <= self.num_players <= MAX_PLAYERS
        ):
            raise ValueError(f"num_players={self.num_players!r}; allowed: integers {MIN_PLAYERS}-{MAX_PLAYERS}")
        for name in ("allow_keep", "reshuffle_discards"):
            if not isinstance(getattr(self, name), bool):
                raise ValueError(f"{name}={getattr(self, name)!r}; allowed: True or False")
        if self.memory not in MEMORY_MODES:
            raise ValueError(f"memory={self.memory!r}; allowed: {', '.join(map(repr, MEMORY_MODES))}")
        if self.reward not in REWARD_MODES:
            raise ValueError(f"reward={self.reward!r}; allowed: {', '.join(map(repr, REWARD_MODES))}")
        if isinstance(self.max_turns, bool) or not isinstance(self.max_turns, int) or self.max_turns < 1:
            raise ValueError(f"max_turns={self.max_turns!r}; allowed: a positive integer")
        object.__setattr__(self, "deck", DeckSpec.from_any(self.deck))
        needed = SLOTS * self.num_players
        if len(self.deck.number_cards) + len(self.deck.prizes) < needed + 1:
            raise ValueError(
                f"deck: {len(self.deck.number_cards) + len(self.deck.prizes)} cards cannot deal {SLOTS} to each of "
                f"{self.num_players} players and leave a draw pile; allowed: at least {needed + 1} cards"
            )

    def tables(self) -> CardTables:
        """The card lookup tables of this variant's deck (cached per deck)."""
        return _tables_for(self.deck)

    def options(self) -> dict[str, Any]:
        """The rules options as a JSON-ready dict (checkpoint sidecars, reprs)."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        out["deck"] = self.deck.to_dict()
        return out


_TABLE_CACHE: dict[DeckSpec, CardTables] = {}


def _tables_for(deck: DeckSpec) -> CardTables:
    if deck not in _TABLE_CACHE:
        _TABLE_CACHE[deck] = build_tables(deck)
    return _TABLE_CACHE[deck]
