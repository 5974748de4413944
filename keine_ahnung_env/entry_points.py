"""The five entry points of every game, made the same way from its registered spec.

A game's ``<name>.py`` module is its docstring (the PettingZoo-style spec table) plus::

    from .games.<game>.game import GAME          # the declaration: the name is stated there only

    ENV_NAME = GAME.name
    env, raw_env, solo_env, sb3_vec_env, vector_env, game_spec = make_entry_points(ENV_NAME, __name__)
    register_entry_points(ENV_NAME, __name__)

The defaults below (``num_players=D``) are the declaration's ``default_players``.

* ``vector_env(num_envs, num_players=D, seed=None, autoreset=True, **rules)``: the raw batched handle.
* ``raw_env(num_players=D, render_mode=None, render_reveal_all=False, normalize_obs=False, **rules)``:
  the PettingZoo AEC environment; an illegal action raises ``ValueError`` naming the legal ones.
* ``env(...)``: the same, wrapped the PettingZoo way (illegal move: the game ends, -1 for the mover).
* ``solo_env(opponents, seat=None, num_players=D, normalize_obs=True, illegal_reward=-1.0,
  render_mode=None, render_reveal_all=False, **rules)``: one seat against fixed agents, a Gymnasium env.
* ``sb3_vec_env(num_envs, opponents, num_players=D, seat="rotate", seed=None, normalize_obs=True,
  illegal_reward=-1.0, **rules)``: such games as one Stable-Baselines3 ``VecEnv`` on one batched core.

``register_entry_points`` registers ``env`` with PettingZoo as ``keine_ahnung_env/<name>`` and
``solo_env`` with Gymnasium as ``keine_ahnung_env/<name without _vN>_solo-vN``.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Sequence

import numpy as np
from gymnasium.utils import EzPickle

from . import registry
from .aec import CoreAECEnv, wrap_aec
from .game_spec import RENDER_MODES, GameSpec
from .solo import SoloEnv
from .vector import VectorEnv

Opponents = Sequence[Any] | Callable[[np.random.Generator], Sequence[Any]]


def pettingzoo_id(name: str) -> str:
    """The id of ``env`` in PettingZoo's registry: ``keine_ahnung_env/<name>``."""
    return f"keine_ahnung_env/{name}"


def gymnasium_solo_id(name: str) -> str:
    """The id of ``solo_env`` in Gymnasium's registry, e.g. ``keine_ahnung_env/keine_ahnung_solo-v0``."""
    match = re.fullmatch(r"(.*)_v(\d+)", name)
    base, version = (match.group(1), match.group(2)) if match else (name, "0")
    return f"keine_ahnung_env/{base}_solo-v{version}"


def make_entry_points(name: str, module: str):
    """``(env, raw_env, solo_env, sb3_vec_env, vector_env, game_spec)`` of registered game ``name``,
    with ``__module__`` set to ``module`` so that they pickle and document as that module's own."""
    entry = registry.game(name)
    default = entry.default_players

    def game_spec(num_players: int = default, **rules: Any) -> GameSpec:
        """The variant as every game-independent layer sees it; validates the options."""
        return entry.spec(num_players, **rules)

    def vector_env(num_envs: int, num_players: int = default, seed: int | None = None, autoreset: bool = True,
                   **rules: Any) -> VectorEnv:
        """``num_envs`` games stepped together; game i is reproducible from ``(seed, i)``."""
        return VectorEnv(game_spec(num_players, **rules), num_envs, seed, autoreset)

    class raw_env(CoreAECEnv, EzPickle):
        """The PettingZoo AEC environment without wrappers: an illegal action raises ``ValueError``.

        Args:
          num_players: seats; agents are ``player_0 ... player_{num_players-1}`` (seat order).
          render_mode: None, "ansi" (``render()`` returns text), "rgb_array" (``render()`` returns a
            picture, ``[H, W, 3]`` uint8) or "human" (the picture in a window after every move; needs a
            display and pygame).
          render_reveal_all: render face-down cards and everything hidden (debugging).
          render_seat: the seat whose point of view pictures take (None: the public table).
          normalize_obs: observations in [0, 1] instead of raw counts.
          **rules: the game's rules options (an unknown one raises ``ValueError`` naming the allowed).
        """

        metadata = {"render_modes": list(RENDER_MODES), "name": name, "is_parallelizable": False, "render_fps": 1}

        def __init__(self, num_players: int = default, render_mode: str | None = None,
                     render_reveal_all: bool = False, normalize_obs: bool = False, render_seat: int | None = None,
                     **rules: Any):
            EzPickle.__init__(self, num_players=num_players, render_mode=render_mode,
                              render_reveal_all=render_reveal_all, normalize_obs=normalize_obs,
                              render_seat=render_seat, **rules)
            super().__init__(game_spec(num_players, **rules), render_mode=render_mode,
                             render_reveal_all=render_reveal_all, normalize_obs=normalize_obs,
                             render_seat=render_seat)

    def env(num_players: int = default, render_mode: str | None = None, render_reveal_all: bool = False,
            normalize_obs: bool = False, render_seat: int | None = None, **rules: Any):
        """The PettingZoo AEC environment, wrapped the PettingZoo way: an illegal move ends the game with
        reward -1 for the mover (0 for the others), an out-of-range action fails an assertion, and calls
        out of order raise. Arguments as for ``raw_env``."""
        return wrap_aec(raw_env(num_players=num_players, render_mode=render_mode,
                                render_reveal_all=render_reveal_all, normalize_obs=normalize_obs,
                                render_seat=render_seat, **rules))

    def solo_env(opponents: Opponents, seat: int | str | None = None, num_players: int = default,
                 normalize_obs: bool = True, illegal_reward: float | None = -1.0, render_mode: str | None = None,
                 render_reveal_all: bool = False, **rules: Any) -> SoloEnv:
        """One learner seat against fixed opponents as a single-agent ``gymnasium.Env``.

        Args:
          opponents: ``num_players - 1`` agents with the batched ``act(observation, action_mask)``
            (they receive ``[1, O]`` raw observations and ``[1, A]`` masks), or a callable
            ``pool(rng)`` returning such a list for each game.
          seat: None (a random seat each game, from the env's seeded RNG), "rotate" or a seat 0..P-1.
          normalize_obs: observations in [0, 1] (default) instead of raw counts.
          illegal_reward: reward of an illegal action, which ends the episode; None raises ValueError.
          render_mode, render_reveal_all: as for ``raw_env``.
          **rules: the game's rules options.

        ``reset(seed=s)`` makes the deal, the seat and every opponent with ``reseed()`` reproducible;
        ``action_masks()`` gives the learner's legal actions for MaskablePPO.
        """
        return SoloEnv(game_spec(num_players, **rules), opponents, seat=seat, normalize_obs=normalize_obs,
                       illegal_reward=illegal_reward, render_mode=render_mode, render_reveal_all=render_reveal_all)

    def sb3_vec_env(num_envs: int, opponents: Opponents, num_players: int = default, seat: int | str | None = "rotate",
                    seed: int | None = None, normalize_obs: bool = True, illegal_reward: float | None = -1.0,
                    **rules: Any):
        """``num_envs`` learner-vs-opponents games as a Stable-Baselines3 ``VecEnv`` on one batched core.

        Args:
          num_envs: number of games stepped together (a positive integer).
          opponents: ``num_players - 1`` agents (the same line-up in every game), or a callable
            ``pool(rng)`` drawing a line-up for every new episode of every game.
          seat: "rotate" (game i's k-th episode at seat ``(i + k) % P``), "random" or a fixed seat.
          seed: game i is dealt from ``(seed, i)``; seat RNG and re-seedable opponents follow it.
          normalize_obs: observations in [0, 1] (default) instead of raw counts.
          illegal_reward: reward of an illegal action, which ends that episode; None raises ValueError.
          **rules: the game's rules options.

        Returns a ``keine_ahnung_env.sb3_vec.CoreVecEnv``: auto-reset with ``terminal_observation`` in
        the infos, ``env_method("action_masks")`` for MaskablePPO; wrap it in ``VecMonitor`` for logging.
        """
        # Imported here: stable_baselines3 pulls in torch, which users of the other entry points may not need.
        from .sb3_vec import CoreVecEnv

        return CoreVecEnv(game_spec(num_players, **rules), num_envs, opponents, seat=seat, seed=seed,
                          normalize_obs=normalize_obs, illegal_reward=illegal_reward)

    made = (env, raw_env, solo_env, sb3_vec_env, vector_env, game_spec)
    for function in made:
        function.__module__ = module
        function.__qualname__ = function.__name__
    return made


def register_entry_points(name: str, module: str) -> None:
    """Makes ``module.env`` reachable through PettingZoo's registry and ``module.solo_env`` through Gymnasium's."""
    try:
        from pettingzoo import aec_registry, register
    except ImportError:  # PettingZoo before 1.27 has no registry for third-party packages
        pass
    else:
        # PettingZoo keys its registry by a normalised id ("keine_ahnung_env/keine_ahnung-v0" for
        # "keine_ahnung_env/keine_ahnung_v0"): compare in that form, or a re-import would override it.
        normalised = re.sub(r"_v(\d+)$", r"-v\1", pettingzoo_id(name))
        if pettingzoo_id(name) not in aec_registry and normalised not in aec_registry:
            register("aec", pettingzoo_id(name), entry_point=f"{module}:env")
    import gymnasium

    if gymnasium_solo_id(name) not in gymnasium.registry:
        gymnasium.register(id=gymnasium_solo_id(name), entry_point=f"{module}:solo_env")
