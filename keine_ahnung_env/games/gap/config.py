"""Rules options of the gap game, validated in one place.

Every engine (compiled core, pure-Python reference) and every entry point takes the same keyword
options; an unknown name or a bad value raises ``ValueError`` naming what was wrong and what is allowed.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

from ...rules_options import RulesOptions
from .game import GAME
from .deck import HAND_SIZE, HIDDEN_PER_PLAYER, NUM_CARDS, NUM_PILES

MIN_PLAYERS, MAX_PLAYERS = GAME.min_players, GAME.max_players
DEFAULT_PLAYERS = GAME.default_players
RULEBOOK_PLAYERS = (2, 3, 4)
"""The table sizes the rulebook gives rounds for; 5 players is this library's extension."""
DEFAULT_ROUNDS = {2: 4, 3: 3, 4: 4, 5: 5}
"""Rounds per game by player count: the rulebook's 4 / 3 / 4 for 2 / 3 / 4 players; 5 players (an
extension) play 5 rounds, so that each player deals once, as with 3 and 4 players."""
MAX_ROUNDS = 50
REWARD_MODES = ("win", "score", "rank")
DEFAULT_MAX_TURNS = 10_000


@dataclasses.dataclass(frozen=True)
class Rules(RulesOptions):
    """One game variant: player count plus rules options.

    Attributes:
      num_players: 2-4 as in the rulebook; 5 is an extension (5 x 12 + 2 = 62 of the 66 cards are
        dealt, leaving a draw pile of 4).
      rounds: rounds per game; None (default) takes the rulebook's: 4 with 2 or 4 players, 3 with 3
        (5 with 5 players).
      flip_on_extra_turns: a player who starts a turn with no gap must first turn the top draw card
        onto a pile: also at the start of the extra turns a gap play gives (True, default; the rulebook
        calls them "another turn" / "your new turn"), or only at the start of a player's first turn
        (False).
      reward: "win" (default; winners share +1, the others share -1, 0 for all when everybody ties),
        "score" (the final total) or "rank" ((players beaten - players beating you) / (players - 1)).
      round_reward_scale: shaping (default 0.0, off): at the end of every round each seat is also paid
        this factor times its score change in that round (the final reward comes on top).
      max_turns: a game is truncated (reward 0) after this many turns (plays and passes; default
        10,000, far above real games).
    """

    num_players: int = DEFAULT_PLAYERS
    rounds: int | None = None
    flip_on_extra_turns: bool = True
    reward: str = "win"
    round_reward_scale: float = 0.0
    max_turns: int = DEFAULT_MAX_TURNS

    def __post_init__(self) -> None:
        if isinstance(self.num_players, bool) or not isinstance(self.num_players, int) or not (
                MIN_PLAYERS <= self.num_players <= MAX_PLAYERS):
            raise ValueError(f"num_players={self.num_players!r}; allowed: integers {MIN_PLAYERS}-{MAX_PLAYERS}")
        assert self.num_players * HAND_SIZE + NUM_PILES < NUM_CARDS
        if self.rounds is None:
            object.__setattr__(self, "rounds", DEFAULT_ROUNDS[self.num_players])
        if isinstance(self.rounds, bool) or not isinstance(self.rounds, int) or not 1 <= self.rounds <= MAX_ROUNDS:
            raise ValueError(f"rounds={self.rounds!r}; allowed: None (the rulebook's) or an integer 1-{MAX_ROUNDS}")
        if not isinstance(self.flip_on_extra_turns, bool):
            raise ValueError(f"flip_on_extra_turns={self.flip_on_extra_turns!r}; allowed: True or False")
        if self.reward not in REWARD_MODES:
            raise ValueError(f"reward={self.reward!r}; allowed: {', '.join(map(repr, REWARD_MODES))}")
        scale = self.round_reward_scale
        if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not math.isfinite(scale) or scale < 0:
            raise ValueError(f"round_reward_scale={scale!r}; allowed: a finite number >= 0")
        object.__setattr__(self, "round_reward_scale", float(scale))
        if isinstance(self.max_turns, bool) or not isinstance(self.max_turns, int) or self.max_turns < 1:
            raise ValueError(f"max_turns={self.max_turns!r}; allowed: a positive integer")

    @property
    def hidden_per_player(self) -> int:
        return HIDDEN_PER_PLAYER

    def options(self) -> dict[str, Any]:
        """The rules options as a JSON-ready dict (checkpoint sidecars, reprs)."""
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
