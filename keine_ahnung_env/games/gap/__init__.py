"""The gap game (Steffen Benndorf): 66 cards 1-11 in six colours, "gap!", hidden bonus cards; 2-4 players
(5 as an extension). ``gap_v0`` in the game registry; ``RULES.md`` holds the rules as implemented;
``game.py`` declares the game (name, players, rules options)."""

from .config import Rules
from .core import GapCore
from .game import GAME

__all__ = ["GAME", "GapCore", "Rules"]
