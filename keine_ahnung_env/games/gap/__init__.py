"""The gap game (Steffen Benndorf): 66 cards 1-11 in six colours, "gap!", hidden bonus cards; 2-4 players
(5 as an extension). ``gap_v0`` in the game registry; ``RULES.md`` holds the rules as implemented."""

from .config import Rules
from .core import GapCore

__all__ = ["GapCore", "Rules"]
