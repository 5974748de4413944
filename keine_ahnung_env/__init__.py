"""keine_ahnung_env: batched reinforcement-learning environments for hidden-information card games.

Every game is a folder under ``games/`` plus a :class:`~keine_ahnung_env.game_spec.GameSpec` in the
game registry (:mod:`keine_ahnung_env.registry`); its ``<name>.py`` module holds the entry points
``env``, ``raw_env``, ``solo_env``, ``sb3_vec_env`` and ``vector_env``:

* ``keine_ahnung_v0`` - Keine Ahnung / No Idea, 2-5 players.
"""

from . import keine_ahnung_v0, registry

__all__ = ["keine_ahnung_v0", "registry"]
__version__ = "0.1.0"
