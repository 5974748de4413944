"""What a learning policy reads: a game's policy feature set, applied to raw observations.

The environment's observation stays the pure, public table. A game offers policy feature sets computed
from that observation alone (``GameSpec.feature_sets``; every game has ``"raw"``, the observation scaled
into [0, 1]; Keine Ahnung adds ``"hints"`` and ``"advice"``, documented in
``keine_ahnung_env/games/keine_ahnung/features.py``), so a policy may learn faster without seeing more.
A feature set (``keine_ahnung_env.game_spec.Features``) has ``kind``, ``input_size`` (the raw width O),
``size`` (its output width), ``needs_mask`` and ``num_actions`` (the width of a mask-derived block, 0
without one), and maps ``(observation [B, O], action_mask [B, A] or None)`` to ``[B, size]`` float32.

Training records the set's name in the checkpoint sidecar; :class:`agents.ppo.PPOAgent` applies the same.
This module holds what is the same for every game: looking a set up by game, and the SB3 wrappers.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import DEFAULT_GAME


def ObservationFeatures(kind: str, num_players: int, rules: dict | None = None, game: str = DEFAULT_GAME,
                        observation_version: int | None = None) -> Any:
    """The policy feature set ``kind`` of ``game`` with ``num_players`` seats and these rules options
    (for a policy trained on ``observation_version``: an older version reads the current observations
    cut back to its width, ``GameSpec.features_for_version``).

    The name is kept from when this was a Keine Ahnung class; it returns
    ``registry.game_spec(game, num_players, **rules).features(kind)``. A ``num_players`` entry inside
    ``rules`` (as checkpoint sidecars record them) is ignored. ValueError for an unknown game, an invalid
    variant or a feature set the game does not offer (naming the allowed ones)."""
    from keine_ahnung_env import registry

    options = {k: v for k, v in (rules or {}).items() if k != "num_players"}
    spec = registry.game_spec(game, num_players, **options)
    if observation_version is None:
        return spec.features(kind)
    return spec.features_for_version(kind, observation_version)


def pad_privileged(inputs: np.ndarray, width: int) -> np.ndarray:
    """Policy inputs ``[B, P]`` with ``width`` zero columns appended where an oracle critic's hidden
    state goes (the actor never reads them); unchanged when ``width`` is 0."""
    if not width:
        return inputs
    return np.concatenate([inputs, np.zeros((inputs.shape[0], width), np.float32)], axis=1)


def feature_vec_env(venv, features, privileged=None, privileged_width: int = 0):
    """Wraps an SB3 VecEnv that yields raw observations so that it yields ``features(obs)`` (a game's
    feature set, see the module docstring; it gets the legal masks when ``features.needs_mask``).

    ``privileged`` (training only; ``training/oracle.py``): a callable ``venv -> [B, privileged_width]``
    of hidden state appended after the features for an asymmetric critic. Terminal observations get
    zeros there (the game they ended is already dealt again)."""
    from gymnasium import spaces
    from stable_baselines3.common.vec_env import VecEnvWrapper

    hidden = privileged_width if privileged is not None else 0
    width = features.size + hidden

    def inputs(obs):
        x = features(obs, venv.action_masks() if features.needs_mask else None)
        return x if privileged is None else np.concatenate([x, privileged(venv)], axis=1)

    def terminal(obs):
        # The game is over: no legal action, so a mask-derived block (e.g. advice) stays empty.
        no_moves = np.zeros((1, features.num_actions), bool) if features.needs_mask else None
        return pad_privileged(features(obs[None], no_moves), hidden)[0]

    class FeatureVecEnv(VecEnvWrapper):
        """Applies the feature set to observations and terminal observations."""

        def __init__(self):
            space = spaces.Box(0.0, 1.0, (width,), np.float32)
            super().__init__(venv, observation_space=space)

        def reset(self):
            return inputs(self.venv.reset())

        def step_wait(self):
            obs, rewards, dones, infos = self.venv.step_wait()
            for info in infos:
                if "terminal_observation" in info:
                    info["terminal_observation"] = terminal(info["terminal_observation"])
            return inputs(obs), rewards, dones, infos

        def action_masks(self):
            return self.venv.action_masks()

    return FeatureVecEnv()
