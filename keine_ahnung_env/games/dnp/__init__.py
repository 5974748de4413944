"""dnp (published elsewhere as "dnup", Kei Kajino): two-valued cards turned 180 degrees, 3-5 players and
a two-player variant. ``RULES.md`` states the rules as implemented; ``core.py`` is the compiled engine,
``reference.py`` the readable one it is tested against; ``game.py`` declares the game (name, players,
rules options)."""

from .game import GAME

__all__ = ["GAME"]
