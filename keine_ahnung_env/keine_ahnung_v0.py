"""Keine Ahnung / No Idea, version 0: the batched handle (and, later, PettingZoo/Gymnasium/SB3 wrappers).

``vector_env(num_envs, num_players=4, seed=None, autoreset=True, **rules)`` steps ``num_envs`` games
at once on the NumPy core. Rules options: see ``games/keine_ahnung/config.py`` (``Rules``) and
``games/keine_ahnung/RULES.md``.
"""

from __future__ import annotations

from typing import Any

from .games.keine_ahnung.actions import NUM_ACTIONS, Action, Phase
from .games.keine_ahnung.config import Rules
from .games.keine_ahnung.core import KeineAhnungCore
from .vector import VectorEnv

__all__ = ["Action", "NUM_ACTIONS", "Phase", "Rules", "vector_env"]


def vector_env(num_envs: int, num_players: int = 4, seed: int | None = None, autoreset: bool = True,
               **rules: Any) -> VectorEnv:
    """``num_envs`` Keine Ahnung games stepped together; game i is reproducible from ``(seed, i)``."""
    variant = Rules.make(num_players, **rules)
    return VectorEnv(lambda n, s: KeineAhnungCore(n, variant, seed=s), num_envs, seed, autoreset)
