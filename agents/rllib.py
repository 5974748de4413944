"""Policies trained on Ray RLlib (``python -m training.train_rllib``) as batched agents, from a safe export.

RLlib's own checkpoints are directories of pickles (the algorithm's state, its config, the RLModule's
class and constructor arguments): loading one runs whatever code the files name. So this module never
reads them. At every checkpoint and at the end, ``training.train_rllib`` exports the learning policy's
network into two plain files side by side:

* ``NAME.npz`` - the policy network's weights as NumPy arrays (``pi.0.weight``, ``pi.0.bias``, ...,
  the last layer giving the action logits); read with ``numpy.load(allow_pickle=False)``, which
  refuses any array of Python objects (a pickle) instead of building it;
* ``NAME.json`` - the sidecar (format :data:`EXPORT_FORMAT`): game and its version, player count,
  rules options, observation version and size, action count, the policy's feature set
  (``GameSpec.features``), the hidden layer sizes and activation, the learner decisions trained, the
  Ray release it was trained with, and the SHA-256 of the ``.npz``.

``agents.make("rllib:PATH")`` (``PATH`` is ``NAME.npz`` or ``NAME``) checks the sidecar through the game
registry with the same checks as PPO checkpoints (``agents.ppo.check_game`` and ``check_compatible``:
another game, game version, observation version, feature set, or, when the caller names them, another
player count or rules are refused with a clear error before any weights are read), checks the file
against the recorded hash, checks every array's name, dtype and shape against the recorded
architecture, and plays with a NumPy forward pass: neither Ray nor torch is needed to play, so the
trained policy plays in every environment of the project (tournaments, ``training.evaluate``,
``training.play``, the leaderboard), with or without the ``[rllib]`` extra installed.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np

from .base import (check_arrays, check_batch, layer_shapes, mlp_forward, mlp_layers, npz_path, read_weights, relu,
                   sidecar_path, write_weights)
from .ppo import PolicySidecar

EXPORT_FORMAT = "keine_ahnung_env.rllib/1"
ACTIVATIONS = ("tanh", "relu")


@dataclasses.dataclass(frozen=True)
class RLlibPolicyInfo(PolicySidecar):
    """The sidecar of an exported RLlib policy (see the module docstring). Its field names match
    ``agents.ppo.CheckpointInfo`` where they mean the same, so the same registry checks apply."""

    activation: str
    game_version: int = 0
    timesteps: int = 0
    """learner decisions trained (agent steps of the learning policy)."""
    ray_version: str = ""
    sha256: str = ""
    format: str = EXPORT_FORMAT

    @classmethod
    def from_json(cls, text: str, where: str) -> "RLlibPolicyInfo":
        info = cls.parse(text, where, "RLlib export sidecar", EXPORT_FORMAT,
                         f"{where} is not the sidecar of an RLlib policy export ({EXPORT_FORMAT}); exports are "
                         "written by python -m training.train_rllib",
                         {"game", "num_players", "rules", "observation_version", "observation_size", "num_actions",
                          "features", "net_arch", "activation", "game_version"})
        from .ppo import field_problems

        problems = field_problems(info, more_strings=("ray_version",))
        if info.activation not in ACTIVATIONS:
            problems.append(f"activation={info.activation!r}; allowed: {', '.join(ACTIVATIONS)}")
        if problems:
            raise ValueError(f"RLlib export sidecar {where}: " + "; ".join(problems))
        return info

    def layer_shapes(self, input_size: int) -> dict[str, tuple[int, ...]]:
        """Every array the ``.npz`` must hold, with its shape: the policy network as torch lays it out
        (``weight`` is ``[out, in]``), hidden layers ``pi.0`` .. and the logits layer last."""
        return layer_shapes([input_size, *self.net_arch, self.num_actions], "pi")


def write_export(weights: dict[str, np.ndarray], path: str | Path, info: RLlibPolicyInfo) -> Path:
    """Writes ``path``.npz (``weights``: the policy layers, see :meth:`RLlibPolicyInfo.layer_shapes`)
    and its sidecar with the file's SHA-256; returns the ``.npz`` path. The layer shapes are checked
    first, so an export that writes is one that loads."""
    target = npz_path(path)
    arrays = {name: np.ascontiguousarray(np.asarray(value, np.float32)) for name, value in weights.items()}
    _check_arrays(arrays, info, where=f"export {target}")
    digest = write_weights(target, arrays)
    sidecar_path(target).write_text(dataclasses.replace(info, sha256=digest).to_json())
    return target


def _check_arrays(arrays: dict[str, np.ndarray], info: RLlibPolicyInfo, where: str) -> None:
    from .features import ObservationFeatures

    width = ObservationFeatures(info.features, info.num_players, info.rules, game=info.game).size
    check_arrays(arrays, info.layer_shapes(width), where)


def read_info(path: str | Path) -> RLlibPolicyInfo:
    """The sidecar of an export; ValueError when it is missing or malformed."""
    side = sidecar_path(path)
    if Path(path).is_dir():
        raise ValueError(f"{path} is a directory (an RLlib checkpoint holds pickles, which are never loaded); "
                         "give the policy export NAME.npz that python -m training.train_rllib writes beside it")
    if not side.is_file():
        raise ValueError(f"RLlib export {npz_path(path)}: no sidecar {side} (game, players, rules and network of "
                         "the policy); exports are written by python -m training.train_rllib")
    return RLlibPolicyInfo.from_json(side.read_text(errors="replace"), str(side))


def load_export(path: str | Path, game: str | None = None) -> tuple[dict[str, np.ndarray], RLlibPolicyInfo]:
    """The weights and sidecar of an export, read safely (see the module docstring); refuses an export
    of another ``game`` (None: the registered game its sidecar names) or a changed or damaged file."""
    from .ppo import check_game

    target = npz_path(path)
    info = read_info(path)
    check_game(info, game, where=f"RLlib export {target}")  # duck-typed: the same registry checks as PPO
    arrays = read_weights(target, info.sha256, f"RLlib export {target}")
    _check_arrays(arrays, info, where=f"RLlib export {target}")
    return arrays, info


class RLlibAgent:
    """An exported RLlib policy as a batched agent: the game's feature set, the MLP, masked logits.

    Deterministic (the most likely legal action) by default; ``deterministic=False`` samples from the
    masked softmax with the agent's own generator (``seed``/``reseed``)."""

    def __init__(self, weights: dict[str, np.ndarray], info: RLlibPolicyInfo, deterministic: bool = True,
                 name: str = "rllib", seed: int | None = None):
        from .features import ObservationFeatures

        self.info = info
        self.deterministic = deterministic
        self.name = name
        self._features = ObservationFeatures(info.features, info.num_players, info.rules, game=info.game)
        self._layers = mlp_layers(weights, "pi", len(info.net_arch) + 1)
        self._activation = np.tanh if info.activation == "tanh" else relu
        self.rng = np.random.default_rng(seed)

    def reseed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def logits(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """[B, A] float32 action logits of the policy network, illegal actions at -inf."""
        obs, mask = check_batch(self.name, observation, action_mask, self.info.observation_size,
                                self.info.num_actions, self.info)
        x = mlp_forward(self._features(obs, mask if self._features.needs_mask else None), self._layers, self._activation)
        return np.where(mask, x, -np.inf).astype(np.float32)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        logits = self.logits(observation, action_mask)
        mask = np.asarray(action_mask, bool)
        live = mask.any(axis=1)  # a finished game has no legal action: any answer is ignored
        logits[~live] = 0.0
        if self.deterministic:
            return logits.argmax(axis=1).astype(np.int64)
        shifted = np.exp(logits - logits.max(axis=1, keepdims=True))
        probs = shifted / shifted.sum(axis=1, keepdims=True)
        draws = self.rng.random((len(probs), 1))
        return np.minimum((probs.cumsum(axis=1) < draws).sum(axis=1), probs.shape[1] - 1).astype(np.int64)


def make_agent(path: str | Path | None = None, seed: int | None = None, deterministic: bool = True,
               num_players: int | None = None, game: str | None = None, rules: dict | None = None,
               **_ignored: Any) -> RLlibAgent:
    """``agents.make("rllib:PATH")``: loads an export (safely) as a batched agent.

    ``game``: the registered game the export must be for (``agents.make`` passes its own). With
    ``num_players`` (and ``rules``) given, an export for another variant is refused."""
    from .ppo import check_compatible

    if path is None:
        raise ValueError("the rllib agent needs a path: rllib:<export .npz> (written by python -m training.train_rllib)")
    if not isinstance(deterministic, bool):
        raise ValueError(f"deterministic={deterministic!r}; allowed: True (the most likely legal action) or False "
                         "(sampled from the policy)")
    weights, info = load_export(path, game)
    if num_players is not None:
        check_compatible(info, info.game, int(num_players), rules, where=f"RLlib export {npz_path(path)}")
    return RLlibAgent(weights, info, deterministic=deterministic, name=f"rllib:{Path(path).name}", seed=seed)
