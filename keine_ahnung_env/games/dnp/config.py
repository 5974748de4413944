"""Rules options of dnp, validated in one place (unknown names or values raise ``ValueError`` naming
what was wrong and what is allowed)."""

from __future__ import annotations

import dataclasses
from typing import Any

from ...rules_options import RulesOptions
from .game import GAME
from .deck import CardTables, DeckSpec, build_tables

MIN_PLAYERS, MAX_PLAYERS = GAME.min_players, GAME.max_players
DEFAULT_PLAYERS = GAME.default_players
REWARD_MODES = ("win", "score", "rank")
FINISHER_SET_MODES = ("open", "closed")
DEFAULT_MAX_TURNS = 3000
MAX_CARDS = 80


@dataclasses.dataclass(frozen=True)
class Rules(RulesOptions):
    """One dnp variant: player count plus rules options.

    Attributes:
      num_players: 2-5 (2 plays the two-player variant: two play areas each, two moves a turn).
      reward: "win" (default; the winner +1, the others share -1), "score" (final points, or round
        wins with 2 players) or "rank" ((players beaten - players beating you) / (players - 1)).
      max_turns: a game is cut off (truncated, no reward) after this many moves (default 3000; moves
        are actions A-D, not card selections).
      win_points: 3-5 players: the first to reach this many points wins at once (default 4).
      win_rounds: 2 players: the first to win this many rounds wins (default 2).
      finisher_set: 3-5 players: what others may do with the set the first finisher leaves on the
        table. "open" (default): it lies there like any other set (it may be beaten, added to with B
        and taken with C); "closed": it may only be beaten. Either way it is discarded, never returned.
      deck: the card list (None: the reconstruction of ``deck.py``; see ``DeckSpec.from_any``).
    """

    num_players: int = DEFAULT_PLAYERS
    reward: str = "win"
    max_turns: int = DEFAULT_MAX_TURNS
    win_points: int = 4
    win_rounds: int = 2
    finisher_set: str = "open"
    deck: Any = None

    def __post_init__(self) -> None:
        if isinstance(self.num_players, bool) or not isinstance(self.num_players, int) or not (
                MIN_PLAYERS <= self.num_players <= MAX_PLAYERS):
            raise ValueError(f"num_players={self.num_players!r}; allowed: integers {MIN_PLAYERS}-{MAX_PLAYERS}")
        if self.reward not in REWARD_MODES:
            raise ValueError(f"reward={self.reward!r}; allowed: {', '.join(map(repr, REWARD_MODES))}")
        if self.finisher_set not in FINISHER_SET_MODES:
            raise ValueError(f"finisher_set={self.finisher_set!r}; allowed: {', '.join(map(repr, FINISHER_SET_MODES))}")
        for name, low, high in (("max_turns", 1, 10**8), ("win_points", 1, 100), ("win_rounds", 1, 100)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
                raise ValueError(f"{name}={value!r}; allowed: an integer {low}-{high}")
        object.__setattr__(self, "deck", DeckSpec.from_any(self.deck))
        cards = self.deck.for_players(self.num_players)
        n, P = len(cards), self.num_players
        if sum(c.star for c in cards) != 1:
            raise ValueError(f"deck: the {P}-player cards hold {sum(c.star for c in cards)} star cards; allowed: "
                             f"exactly one (put the star in a group that {P} players keep)")
        if n == 0 or n % P:
            raise ValueError(f"deck: {n} cards for {P} players; allowed: a positive multiple of {P} (every "
                             f"player is dealt the same number)")
        if len(self.deck.cards) > MAX_CARDS:
            raise ValueError(f"deck: {len(self.deck.cards)} cards; allowed: at most {MAX_CARDS}")

    @property
    def areas(self) -> int:
        """Play areas per player: 2 in the two-player game, else 1."""
        return 2 if self.num_players == 2 else 1

    @property
    def target(self) -> int:
        """Points (3-5 players) or round wins (2 players) that win the game."""
        return self.win_rounds if self.num_players == 2 else self.win_points

    def tables(self) -> CardTables:
        """The card tables of this variant's cards (cached per deck and player count)."""
        key = (self.deck, self.num_players)
        if key not in _TABLE_CACHE:
            _TABLE_CACHE[key] = build_tables(self.deck.cards, self.deck.in_play(self.num_players))
        return _TABLE_CACHE[key]

    def options(self) -> dict[str, Any]:
        """The rules options as a JSON-ready dict."""
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        out["deck"] = None if self.deck == DeckSpec() else self.deck.to_dict()
        return out


_TABLE_CACHE: dict = {}
