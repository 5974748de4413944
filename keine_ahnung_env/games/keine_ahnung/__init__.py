"""Keine Ahnung / No Idea (Steffen & Florian Benndorf), 2-5 players: rules, deck and encodings.

Read ``RULES.md`` in this folder for the rules as implemented and every choice made where the
rulebook is silent; ``core.py`` is the batched engine (rules compiled in ``kernels.py``), ``reference.py``
the readable pure-Python one; ``game.py`` declares the game (name, players, rules options).
"""

import sys

from .actions import NUM_ACTIONS, Action, Phase
from .config import Rules
from .core import KeineAhnungCore
from .deck import DeckSpec, default_deck
from .game import GAME
from .reference import ReferenceGame

# ``risk`` was the name of ``odds`` (the call-risk model); the old import paths keep working.
from . import odds as risk

sys.modules[__name__ + ".risk"] = risk

__all__ = ["Action", "DeckSpec", "GAME", "KeineAhnungCore", "NUM_ACTIONS", "Phase", "ReferenceGame", "Rules", "default_deck"]
