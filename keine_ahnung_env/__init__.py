"""keine_ahnung_env: batched reinforcement-learning environments for hidden-information card games.

Every game is a folder under ``games/`` plus a :class:`~keine_ahnung_env.game_spec.GameSpec` in the
game registry (:mod:`keine_ahnung_env.registry`); its ``<name>.py`` module holds the entry points
``env``, ``raw_env``, ``solo_env``, ``sb3_vec_env`` and ``vector_env``:

* ``keine_ahnung_v0`` - Keine Ahnung / No Idea, 2-5 players.
* ``gap_v0`` - the gap game, 2-4 players (5 as an extension).
* ``dnp_v0`` - dnp, 3-5 players and the 2-player variant.

Importing the package registers every game's ``env`` with PettingZoo and its ``solo_env`` with
Gymnasium (``keine_ahnung_env/<name>``, ``keine_ahnung_env/<game>_solo-v0``).
"""

from . import dnp_v0, gap_v0, keine_ahnung_v0, registry

__all__ = ["dnp_v0", "gap_v0", "keine_ahnung_v0", "registry"]
__version__ = "0.1.0"
