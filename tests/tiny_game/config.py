"""Rules options of tiny_v0, validated in one place."""

from __future__ import annotations

import dataclasses
from typing import Any

from keine_ahnung_env.rules_options import RulesOptions

from .deck import HAND
from .game import GAME

MIN_PLAYERS, MAX_PLAYERS = GAME.min_players, GAME.max_players
DEFAULT_PLAYERS = GAME.default_players


@dataclasses.dataclass(frozen=True)
class Rules(RulesOptions):
    """One variant: ``num_players`` (2-3) and ``rounds`` (1-2, default 2)."""

    num_players: int = DEFAULT_PLAYERS
    rounds: int = HAND

    def __post_init__(self) -> None:
        if isinstance(self.rounds, bool) or not isinstance(self.rounds, int) or not 1 <= self.rounds <= HAND:
            raise ValueError(f"rounds={self.rounds!r}; allowed: an integer 1-{HAND}")

    def options(self) -> dict[str, Any]:
        """The rules options as a JSON-ready dict."""
        return {"rounds": self.rounds}
