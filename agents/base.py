"""What every agent is: one batched method ``act(observation, action_mask) -> actions``.

Observations ``[B, O]`` and masks ``[B, A]`` go in as NumPy arrays, one action per row comes out
(``int64 [B]``). Agents are seedable (``seed=`` at construction, ``reseed(seed)`` later) and never
see more than the observation and the mask.
"""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

# The interface every agent implements lives in the env package, where the games' heuristic agents use it.
from keine_ahnung_env.agent_base import Agent, BatchedAgent, RandomAgent, batched, sample_masked

__all__ = ["Agent", "RandomAgent", "BatchedAgent", "batched", "sample_masked", "write_weights", "read_weights",
           "npz_path", "sidecar_path", "layer_shapes", "check_arrays", "play_seats", "next_decisions"]


def write_weights(target: Path, arrays: dict[str, np.ndarray]) -> str:
    """Writes ``arrays`` (plain numeric arrays) as the ``.npz`` ``target``; returns its SHA-256, which the
    file's sidecar records so that :func:`read_weights` refuses a changed file."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("wb") as handle:
        np.savez(handle, **arrays)
    return hashlib.sha256(target.read_bytes()).hexdigest()


def read_weights(target: Path, sha256: str, label: str) -> dict[str, np.ndarray]:
    """The arrays of the ``.npz`` ``target``, read safely: ``numpy.load(allow_pickle=False)`` refuses an
    array of Python objects (a pickle) instead of building it, so nothing in the file runs. ValueError
    (naming ``label``, e.g. "RLlib export run/policy.npz") for a missing, unreadable or non-archive file,
    or one whose SHA-256 differs from ``sha256`` (when given)."""
    target = Path(target)
    if not target.is_file():
        raise ValueError(f"{label} does not exist")
    raw = target.read_bytes()
    if sha256 and hashlib.sha256(raw).hexdigest() != sha256:
        raise ValueError(f"{label} does not match the SHA-256 in its sidecar (changed or corrupted)")
    try:
        with np.load(target, allow_pickle=False) as archive:
            if not isinstance(archive, np.lib.npyio.NpzFile):
                raise ValueError("it is a single .npy array, not an .npz archive of layers")
            return {name: archive[name] for name in archive.files}
    except ValueError as exc:  # allow_pickle=False refuses object arrays and pickle files: nothing ran
        raise ValueError(f"{label} is not a NumPy archive of weights (refused, not run): {exc}") from None
    except (OSError, zipfile.BadZipFile, EOFError) as exc:
        raise ValueError(f"{label} is unreadable: {type(exc).__name__}: {exc}") from None


def npz_path(path: str | Path) -> Path:
    """``run/policy`` or ``run/policy.npz`` -> ``run/policy.npz``."""
    path = Path(path)
    return path if path.suffix == ".npz" else Path(str(path) + ".npz")


def sidecar_path(path: str | Path) -> Path:
    """``run/policy.npz`` or ``run/policy`` -> ``run/policy.json``."""
    return npz_path(path).with_suffix(".json")


def layer_shapes(sizes: list[int], prefix: str) -> dict[str, tuple[int, ...]]:
    """The arrays of a fully connected network with layer widths ``sizes`` (input first), as torch lays
    them out: ``{prefix}.K.weight`` ``[out, in]`` and ``{prefix}.K.bias`` ``[out]``."""
    shapes: dict[str, tuple[int, ...]] = {}
    for k, (fan_in, fan_out) in enumerate(zip(sizes[:-1], sizes[1:])):
        shapes[f"{prefix}.{k}.weight"] = (fan_out, fan_in)
        shapes[f"{prefix}.{k}.bias"] = (fan_out,)
    return shapes


def check_arrays(arrays: dict[str, np.ndarray], expected: dict[str, tuple[int, ...]], where: str) -> None:
    """ValueError (naming ``where``) unless ``arrays`` are exactly the ``expected`` names, each float32 of
    its shape and finite."""
    if set(arrays) != set(expected):
        raise ValueError(f"{where}: arrays {sorted(arrays)} do not match the recorded architecture "
                         f"(expected {sorted(expected)})")
    for name, shape in expected.items():
        array = arrays[name]
        if array.dtype != np.float32 or array.shape != shape:
            raise ValueError(f"{where}: {name} is {array.dtype} {array.shape}; the recorded architecture needs "
                             f"float32 {shape}")
        if not np.isfinite(array).all():
            raise ValueError(f"{where}: {name} holds values that are not finite")


def check_batch(name: str, observation: Any, action_mask: Any, observation_size: int, num_actions: int,
                info: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(obs float32 [B, O], mask bool [B, A])`` of a learned agent's ``act`` arguments; ValueError naming
    the agent, the shapes allowed and the variant (``info.num_players``, ``info.game``) otherwise."""
    obs = np.asarray(observation, np.float32)
    mask = np.asarray(action_mask, bool)
    if obs.ndim != 2 or obs.shape[1] != observation_size:
        raise ValueError(f"{name}: observations must be [batch, {observation_size}] "
                         f"({info.num_players}-player {info.game}); got shape {obs.shape}")
    if mask.shape != (obs.shape[0], num_actions):
        raise ValueError(f"{name}: action_mask must be [batch, {num_actions}]; got {mask.shape}")
    return obs, mask


def relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0.0)


def mlp_layers(arrays: dict[str, np.ndarray], prefix: str, count: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """``[(weight [in, out], bias [out]), ...]`` of the layers ``PREFIX.K.weight`` (stored ``[out, in]``)
    and ``PREFIX.K.bias``, K = 0 .. count - 1, ready for :func:`mlp_forward`."""
    return [(arrays[f"{prefix}.{k}.weight"].T.copy(), arrays[f"{prefix}.{k}.bias"]) for k in range(count)]


def mlp_forward(x: np.ndarray, layers: list[tuple[np.ndarray, np.ndarray]], activation) -> np.ndarray:
    """A NumPy MLP: ``activation`` after every layer but the last."""
    for k, (weight, bias) in enumerate(layers):
        x = x @ weight + bias
        if k < len(layers) - 1:
            x = activation(x)
    return x


def play_seats(core, games: np.ndarray, agent_list: list, seat_agent: np.ndarray) -> None:
    """Plays the held seats (``seat_agent[i, seat]`` indexes ``agent_list``; -1: not held) of the listed
    games until a seat that is not held is to act or the game is over. Agents that can drive the core
    together (the same ``play_together``, e.g. the compiled heuristics) play their seats in one call
    each round; the others answer by ``act``, batched over the games where they are to act."""
    seat_agent = np.asarray(seat_agent, np.int64)
    play = getattr(agent_list[0], "play_together", None) if agent_list else None
    group = [k for k, a in enumerate(agent_list) if play is not None and getattr(a, "play_together", None) is play]
    row_of = np.full(core.num_envs, -1, np.intp)
    row_of[games] = np.arange(games.size)
    in_group = np.isin(seat_agent, group)
    grouped = np.where(in_group, np.searchsorted(np.asarray(group, np.int64), seat_agent), -1)
    actions = np.zeros(core.num_envs, np.int64)
    while True:
        live = games[~np.asarray(core.done)[games]]
        if group and live.size:
            if not play(core, live, [agent_list[k] for k in group], grouped[row_of[live]]):
                group = []  # cannot drive this core directly: every seat by act
                in_group[:] = False
                continue
            live = live[~np.asarray(core.done)[live]]
        seat = np.asarray(core.current)[live]
        held = seat_agent[row_of[live], seat]
        acting = (held >= 0) & ~in_group[row_of[live], seat]
        live, held = live[acting], held[acting]
        if live.size == 0:
            return
        for k in np.unique(held):
            rows = live[held == k]
            actions[rows] = agent_list[k].act(core.observe(core.current[rows], games=rows), core.legal_mask[rows])
        active = np.zeros(core.num_envs, bool)
        active[live] = True
        core.step(actions, active=active)


def next_decisions(core, agent_list: list, seat_agent: np.ndarray) -> np.ndarray:
    """Plays the held seats of every unfinished game (:func:`play_seats` over all of them) until a seat
    that is not held is to act; returns the games still going, in each of which that seat now decides."""
    going = np.flatnonzero(~np.asarray(core.done))
    play_seats(core, going, agent_list, np.asarray(seat_agent)[going])
    return np.flatnonzero(~np.asarray(core.done))

