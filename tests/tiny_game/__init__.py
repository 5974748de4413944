"""tiny_v0, "hidden high card", defined only in the tests: proof that a game needs nothing but the door.
Its folder follows ``docs/adding_a_game.md`` to the letter (``tests/test_adding_a_game.py`` checks it):
the declaration (``game.py``), the rules (``RULES.md``, ``config.py``, ``deck.py``, ``actions.py``), the
engine (``core.py``), what a seat sees (``observation.py``, ``render.py``), a heuristic (``agents.py``)
and the door (``spec.py``). This package is also its entry-point module: :func:`register` registers the
game and builds ``env``, ``raw_env``, ``solo_env``, ``sb3_vec_env``, ``vector_env`` and ``game_spec`` here.
"""

from __future__ import annotations

import gymnasium
import pettingzoo

from keine_ahnung_env import registry
from keine_ahnung_env.entry_points import gymnasium_solo_id, make_entry_points, register_entry_points

from .game import GAME

NAME = GAME.name
ENTRY = GAME
"""The declaration, under the name the tests have used for it."""


def register() -> None:
    """Registers tiny_v0 and builds this module's entry points (``env``, ``raw_env``, ``solo_env``, ...)."""
    registry.register_game(GAME)
    made = make_entry_points(NAME, __name__)
    globals().update(zip(("env", "raw_env", "solo_env", "sb3_vec_env", "vector_env", "game_spec"), made))
    register_entry_points(NAME, __name__)


def unregister() -> None:
    """Removes tiny_v0 from the game registry and from Gymnasium's and PettingZoo's."""
    registry.unregister_game(NAME)
    gymnasium.registry.pop(gymnasium_solo_id(NAME), None)
    aec_registry = getattr(pettingzoo, "aec_registry", {})  # its keys are normalised ids (tiny-v0)
    for key in [key for key, spec in aec_registry.items() if spec.entry_point == f"{__name__}:env"]:
        del aec_registry[key]
