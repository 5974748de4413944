"""Trained MaskablePPO policies as batched agents, and their checkpoint format.

A checkpoint is two files side by side:

* ``NAME.zip`` - the Stable-Baselines3 archive written by ``model.save`` (policy weights in
  ``policy.pth``, optimizer state, and a ``data`` entry of cloudpickled Python objects);
* ``NAME.json`` - the sidecar: game and its spec version, player count, rules options, observation
  version and size, action count, the policy's feature set (``agents/features.py``), its architecture, its critic
  (``public``, or ``oracle`` with the width of the hidden-state columns its value network read in
  training: ``agents/policies.py``; the agent feeds zeros there, which the actor never reads) and
  the archive's SHA-256.

Trust model: ``MaskablePPO.load`` unpickles the archive's ``data`` entry, which can run arbitrary
code, so it is only for archives you made yourself. :func:`load_policy` never does that: it reads the
JSON sidecar, checks the archive against the recorded hash, rebuilds the policy from the sidecar's
architecture and loads ``policy.pth`` with ``torch.load(weights_only=True)``, which accepts tensors
only (a pickle that would build any other object is refused, not run). :func:`load_training_state`
(``training.train --resume``) reads the optimizer state the same way and only plain JSON numbers from
the ``data`` entry, so resuming never unpickles anything either.

Every check goes through the game registry (``keine_ahnung_env.registry``): a checkpoint made for
another game, another version of its game or an observation version its game no longer reads (an
older version the game lists in ``GameSpec.older_observations`` plays on the current observations cut
back to that version's width; it cannot resume training), a sidecar with a malformed
field or an observation size that does not match its own player count and rules, and (when the caller
names them) another player count or rules are refused with a clear error before any weights are read.
Sidecars written before ``game_version`` existed count as version 0.

The sidecar is trusted metadata, not code: a forged sidecar (with a matching hash) can at worst make
the loader refuse the checkpoint or load weights into the architecture it describes. Whoever can
write both files can hand you any weights; only a checkpoint you trained yourself plays as trained.

A plain Stable-Baselines3 archive (``MaskablePPO(...).learn(...).save("m.zip")`` or ``PPO``'s, with
SB3's ``MlpPolicy`` on ``sb3_vec_env``; no sidecar) plays too when the caller names the game and the
player count (:func:`load_plain_policy`; ``agents.make("ppo:m.zip:env=gap_v0:players=3")`` or a
command's ``--env``/``--players``). Nothing is unpickled there either: the hidden layers, the
observation size and the action count are read from the shapes in ``policy.pth`` (loaded with
``weights_only=True``), the activation from the plain JSON text SB3 writes beside each pickled entry
of ``data``, and the sizes are checked against the game's observation size and action count. Such a
model reads what ``sb3_vec_env`` gives by default: the observation scaled into [0, 1] (the ``raw``
feature set). docs/sb3.md shows the whole loop.
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import pickle
import re
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from .base import check_batch
from .features import ObservationFeatures, pad_privileged

CHECKPOINT_FORMAT = "keine_ahnung_env.ppo/1"
ACTIVATIONS = ("tanh", "relu")
CRITICS = ("public", "oracle")


@dataclasses.dataclass(frozen=True)
class PolicySidecar:
    """What every policy sidecar shares (this module's checkpoints, ``agents.rllib``'s exports,
    ``agents.advantage``'s models): the game, variant and observation the policy reads, its feature set
    and hidden layers, written and read as JSON. The registry's checks (:func:`check_game`,
    :func:`check_compatible`) read these fields."""

    game: str
    num_players: int
    rules: dict
    observation_version: int
    observation_size: int
    num_actions: int
    features: str
    net_arch: tuple[int, ...]

    def to_json(self) -> str:
        data = dataclasses.asdict(self)
        data["net_arch"] = list(self.net_arch)
        return json.dumps(data, indent=2, sort_keys=True)

    @classmethod
    def parse(cls, text: str, where: str, label: str, fmt: str, not_ours: str, required: set[str]):
        """The sidecar in ``text`` (``where``: its file, named in errors as "``label`` ``where``"); ValueError
        for text that is no JSON, another format (``not_ours`` is the message), missing ``required`` fields,
        a field of the wrong type or a ``net_arch`` that is not a list of positive integers. The callers
        check the values' ranges (:func:`field_problems`)."""
        try:
            data = json.loads(text)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise ValueError(f"{label} {where} is not valid JSON: {exc}") from None
        if not isinstance(data, dict) or data.get("format") != fmt:
            raise ValueError(not_ours)
        missing = set(required) - set(data)
        if missing:
            raise ValueError(f"{label} {where} lacks {sorted(missing)}")
        fields = {f.name for f in dataclasses.fields(cls)}
        try:
            info = cls(**{k: v for k, v in data.items() if k in fields})
            if not isinstance(info.net_arch, (list, tuple)) or not all(
                    isinstance(n, int) and not isinstance(n, bool) and n > 0 for n in info.net_arch):
                raise ValueError(f"net_arch={info.net_arch!r} is not a list of positive integers")
            object.__setattr__(info, "net_arch", tuple(info.net_arch))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"{label} {where} has a malformed field: {exc}") from None
        return info


@dataclasses.dataclass(frozen=True)
class CheckpointInfo(PolicySidecar):
    """The sidecar of a checkpoint (see the module docstring)."""

    activation: str
    timesteps: int = 0
    critic: str = "public"
    privileged_size: int = 0
    sha256: str = ""
    format: str = CHECKPOINT_FORMAT
    game_version: int = 0
    """``GameSpec.version`` of the game the policy was trained on (absent in old sidecars: 0)."""
    device: str = ""
    """the torch device it was trained on (information only: loading maps the weights to the CPU;
    absent in old sidecars: "")."""

    @classmethod
    def from_json(cls, text: str, where: str) -> "CheckpointInfo":
        optional = {"timesteps", "sha256", "format", "critic", "privileged_size", "game_version", "device"}
        info = cls.parse(text, where, "checkpoint sidecar", CHECKPOINT_FORMAT,
                         f"checkpoint sidecar {where} is not a {CHECKPOINT_FORMAT} sidecar",
                         {f.name for f in dataclasses.fields(cls)} - optional)
        problems = _field_problems(info)
        if problems:
            raise ValueError(f"checkpoint sidecar {where}: " + "; ".join(problems))
        if info.activation not in ACTIVATIONS:
            raise ValueError(f"checkpoint sidecar {where}: activation {info.activation!r}; allowed: {ACTIVATIONS}")
        if info.critic not in CRITICS or (info.critic == "oracle") != (info.privileged_size > 0):
            raise ValueError(f"checkpoint sidecar {where}: critic {info.critic!r} with privileged_size "
                             f"{info.privileged_size}; allowed: 'public' with 0, 'oracle' with a positive size")
        return info


def _field_problems(info: CheckpointInfo) -> list[str]:
    """What is wrong with the types and ranges of a sidecar's fields (empty when nothing)."""
    return field_problems(info, ("privileged_size",), ("critic", "device"))


def field_problems(info: Any, more_counts: tuple[str, ...] = (), more_strings: tuple[str, ...] = ()) -> list[str]:
    """What is wrong with the fields every policy sidecar has (this module's checkpoints, ``agents.rllib``'s
    exports), plus ``more_counts`` (integers >= 0) and ``more_strings``: empty when nothing."""
    problems = []
    for name, low in (("num_players", 1), ("observation_version", 1), ("observation_size", 1), ("num_actions", 1),
                      ("timesteps", 0), ("game_version", 0)) + tuple((name, 0) for name in more_counts):
        value = getattr(info, name)
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            problems.append(f"{name}={value!r}; allowed: an integer >= {low}")
    for name in ("game", "features", "activation", "sha256") + tuple(more_strings):
        if not isinstance(getattr(info, name), str):
            problems.append(f"{name}={getattr(info, name)!r}; allowed: a string")
    if not isinstance(info.rules, dict):
        problems.append(f"rules={info.rules!r}; allowed: a JSON object of rules options")
    if not info.net_arch or min(info.net_arch) < 1:
        problems.append(f"net_arch={list(info.net_arch)}; allowed: one or more positive layer sizes")
    return problems


def sidecar_path(path: str | Path) -> Path:
    """``run/model.zip`` or ``run/model`` -> ``run/model.json``."""
    path = Path(path)
    return path.with_suffix(".json") if path.suffix == ".zip" else Path(str(path) + ".json")


def archive_path(path: str | Path) -> Path:
    path = Path(path)
    return path if path.suffix == ".zip" else Path(str(path) + ".zip")


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def save_checkpoint(model, path: str | Path, info: CheckpointInfo) -> Path:
    """Writes ``path``.zip with SB3's ``save`` and the JSON sidecar beside it; returns the zip path."""
    zip_path = archive_path(path)
    zip_path.parent.mkdir(parents=True, exist_ok=True)
    model.save(str(zip_path))
    info = dataclasses.replace(info, sha256=file_sha256(zip_path))
    sidecar_path(zip_path).write_text(info.to_json())
    return zip_path


def export_policy(source: str | Path, destination: str | Path) -> Path:
    """Writes a play-only copy of a checkpoint: a zip holding just ``policy.pth`` (the weights that
    :func:`load_policy` reads; no optimizer state, no pickled SB3 data) and its sidecar with the new
    SHA-256. About a third of the size; loads with ``agents.make("ppo", path=...)``; cannot be resumed.
    Returns the new zip's path."""
    src = archive_path(source)
    _, info = load_policy(src)  # refuses a damaged or foreign checkpoint before anything is written
    with zipfile.ZipFile(src) as archive:
        weights = archive.read("policy.pth")
    dst = archive_path(destination)
    if dst.resolve() == src.resolve():
        raise ValueError(f"export_policy: destination {dst} is the source checkpoint")
    dst.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(dst, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("policy.pth", weights)
    sidecar_path(dst).write_text(dataclasses.replace(info, sha256=file_sha256(dst)).to_json())
    return dst


def is_play_only(path: str | Path) -> bool:
    """Whether a checkpoint zip holds weights only (written by :func:`export_policy`); ValueError when
    the file is missing or not a zip."""
    try:
        with zipfile.ZipFile(archive_path(path)) as archive:
            return "data" not in archive.namelist()
    except (OSError, zipfile.BadZipFile) as exc:
        raise ValueError(f"checkpoint {archive_path(path)} is unreadable: {type(exc).__name__}: {exc}") from None


def read_info(path: str | Path) -> CheckpointInfo:
    """The sidecar of a checkpoint; ValueError when it is missing or malformed."""
    side = sidecar_path(path)
    if not side.is_file():
        raise ValueError(f"checkpoint {path}: no sidecar {side} (game, players and rules of the policy); "
                         "checkpoints are written by training.train")
    return CheckpointInfo.from_json(side.read_text(), str(side))


def check_compatible(info: CheckpointInfo, game: str, num_players: int, rules: dict | None = None,
                     where: str = "checkpoint") -> None:
    """Refuses a policy for another game, game version, player count, rules or observation encoding.

    Rules options are compared as the game's spec validates them, except those the game declares
    ``policy_neutral_rules`` (they change neither what a seat sees nor what it may do)."""
    check_game(info, game, where)
    if info.num_players != num_players:
        raise ValueError(f"{where} was trained for {info.num_players} players, not {num_players}")
    if rules is not None:
        from keine_ahnung_env import registry

        options = {k: v for k, v in rules.items() if k != "num_players"}
        spec = registry.game_spec(game, num_players, **options)
        wanted, recorded = dict(spec.rules), dict(info.rules)
        for key in spec.policy_neutral_rules:
            wanted.pop(key, None)
            recorded.pop(key, None)
        diff = sorted(k for k in set(wanted) | set(recorded) if wanted.get(k) != recorded.get(k))
        if diff:
            raise ValueError(f"{where} was trained with other rules options: {diff} "
                             f"(trained: { {k: recorded.get(k) for k in diff} }, now: { {k: wanted.get(k) for k in diff} })")


def check_game(info: CheckpointInfo, game: str | None = None, where: str = "checkpoint") -> None:
    """Refuses a policy for another ``game`` (None: whichever registered game the sidecar names), for
    another version of its game or observation encoding, for a feature set or action count its game
    does not have, or whose recorded observation size does not match its own player count and rules
    (a sidecar that lies). Everything is read from the game's spec in the registry."""
    from keine_ahnung_env import registry

    if game is not None and info.game != game:
        raise ValueError(f"{where} was trained for {info.game!r}, not {game!r}")
    if info.game not in registry.games():
        raise ValueError(f"{where} was trained for {info.game!r}, which is not a registered game; "
                         f"registered games: {', '.join(registry.games())}")
    try:
        spec = registry.game_spec(info.game, info.num_players,
                                  **{k: v for k, v in info.rules.items() if k != "num_players"})
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{where}: the sidecar's player count or rules are not a valid variant: {exc}") from None
    if info.game_version != spec.version:
        raise ValueError(f"{where} was trained for version {info.game_version} of {info.game}; this library "
                         f"has version {spec.version}")
    if info.observation_version != spec.observation_version and info.observation_version not in spec.older_observations:
        raise ValueError(f"{where} uses observation version {info.observation_version}; this library encodes "
                         f"version {spec.observation_version} and reads {sorted(spec.older_observations) or 'no older'}")
    if info.num_actions != spec.num_actions:
        raise ValueError(f"{where}: the sidecar's num_actions {info.num_actions} is not {info.game}'s "
                         f"{spec.num_actions}")
    try:
        size = spec.features(info.features).input_size
    except ValueError as exc:
        raise ValueError(f"{where}: the sidecar's feature set is not one of {info.game}'s: {exc}") from None
    if info.observation_version != spec.observation_version:
        size = spec.older_observations[info.observation_version]
    if info.observation_size != size:
        raise ValueError(f"{where}: the sidecar's observation_size {info.observation_size} does not match its "
                         f"{info.num_players} players and rules (observation size {size})")


def build_policy(info: CheckpointInfo):
    """A fresh MaskableActorCriticPolicy with the sidecar's spaces and architecture."""
    import torch
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    width = ObservationFeatures(info.features, info.num_players, info.rules, game=info.game,
                                observation_version=info.observation_version).size
    obs_space = spaces.Box(0.0, 1.0, (width + info.privileged_size,), np.float32)
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[info.activation]
    if info.critic == "oracle":
        from .policies import OracleCriticPolicy

        return OracleCriticPolicy(obs_space, spaces.Discrete(info.num_actions), lambda _: 0.0, public_size=width,
                                  net_arch=list(info.net_arch), activation_fn=activation)
    return MaskableActorCriticPolicy(obs_space, spaces.Discrete(info.num_actions), lambda _: 0.0,
                                     net_arch=list(info.net_arch), activation_fn=activation)


OPTIMIZER_ENTRY = "policy.optimizer.pth"
"""The archive entry with the Adam state SB3 saves beside the weights (absent in play-only exports)."""
RESUMED_COUNTERS = ("seed", "_n_updates", "_episode_num")
"""SB3 bookkeeping that ``--resume`` takes from the archive's ``data`` entry, as plain JSON integers:
the seed the model was created with (SB3's own ``load`` re-seeded torch, the games and the opponents
from it, so resumed runs stay reproducible) and the update and episode counts of its logs."""


def existing_archive(path: str | Path) -> Path:
    """The zip path of ``path`` (``run/model`` -> ``run/model.zip``); ValueError ``no such file: ...``
    when there is no such file."""
    zip_path = archive_path(path)
    if not zip_path.is_file():
        raise ValueError(f"no such file: {zip_path}")
    return zip_path


def _verified_archive(path: str | Path, game: str | None) -> tuple[Path, CheckpointInfo]:
    """The zip path and sidecar of a checkpoint whose sidecar passes :func:`check_game` and whose
    archive matches the recorded SHA-256; ValueError otherwise."""
    zip_path = existing_archive(path)
    info = read_info(zip_path)
    check_game(info, game, where=f"checkpoint {zip_path}")
    if info.sha256 and file_sha256(zip_path) != info.sha256:
        raise ValueError(f"checkpoint {zip_path} does not match the SHA-256 in its sidecar (changed or corrupted)")
    return zip_path, info


def _read_tensors(zip_path: Path, entry: str) -> dict:
    """Archive entry ``entry`` read with ``torch.load(weights_only=True)``: tensors and plain containers
    only; a pickle that would build anything else is refused, not run (ValueError)."""
    import torch

    try:
        with zipfile.ZipFile(zip_path) as archive:
            raw = archive.read(entry)
        state = torch.load(io.BytesIO(raw), map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as exc:
        # weights_only refuses any global but tensors and plain containers: nothing ran.
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        reason = next((line for line in lines if "Unsupported" in line), lines[0] if lines else "")
        raise ValueError(f"checkpoint {zip_path} is unreadable: {entry} holds more than weights (refused, "
                         f"not run): {reason[:300]}") from None
    except Exception as exc:  # zipfile, zlib, torch's reader: any failure means a damaged archive
        raise ValueError(f"checkpoint {zip_path} is unreadable: {type(exc).__name__}: {exc}") from None
    if not isinstance(state, dict):
        raise ValueError(f"checkpoint {zip_path} is unreadable: {entry} holds a {type(state).__name__}, "
                         "not a state dict")
    return state


def load_policy(path: str | Path, game: str | None = None):
    """Loads the policy of a checkpoint safely (weights only; see the module docstring); refuses a
    checkpoint of another ``game`` (None: the registered game its sidecar names; see :func:`check_game`)."""
    zip_path, info = _verified_archive(path, game)
    state = _read_tensors(zip_path, "policy.pth")
    policy = build_policy(info)
    try:
        policy.load_state_dict(state, strict=True)
    except (RuntimeError, TypeError, AttributeError) as exc:
        raise ValueError(f"checkpoint {zip_path}: weights do not fit the recorded architecture: {exc}") from None
    policy.set_training_mode(False)
    return policy, info


SB3_ACTIVATIONS = {"Tanh": "tanh", "ReLU": "relu", "ELU": "elu", "LeakyReLU": "leaky_relu", "GELU": "gelu",
                   "SiLU": "silu", "Mish": "mish", "SELU": "selu", "CELU": "celu", "Sigmoid": "sigmoid",
                   "Softplus": "softplus", "Softsign": "softsign", "Hardtanh": "hardtanh"}
"""The ``activation_fn`` classes of ``torch.nn`` a plain SB3 archive may name (with their default
arguments), and the names its :class:`CheckpointInfo` records."""
_MLP_LAYER = re.compile(r"mlp_extractor\.(policy_net|value_net)\.(\d+)\.(weight|bias)")


def _plain_problem(zip_path: Path, what: str) -> ValueError:
    return ValueError(f"{zip_path} has no sidecar {sidecar_path(zip_path).name} and is not a plain Stable-Baselines3 "
                      f"PPO/MaskablePPO archive with MlpPolicy: {what}")


def _plain_data(zip_path: Path) -> dict:
    """The ``data`` entry of a plain SB3 archive parsed as JSON (its pickled values stay base64 text,
    never decoded)."""
    try:
        with zipfile.ZipFile(zip_path) as archive:
            names = archive.namelist()
            raw = archive.read("data") if "data" in names else None
            has_policy = "policy.pth" in names
    except (OSError, zipfile.BadZipFile) as exc:
        raise ValueError(f"{zip_path} is unreadable: {type(exc).__name__}: {exc}") from None
    if raw is None or not has_policy:
        raise _plain_problem(zip_path, "it lacks " + " and ".join(
            n for n, ok in (("data", raw is not None), ("policy.pth", has_policy)) if not ok))
    try:
        data = json.loads(raw)
    except ValueError:  # also UnicodeDecodeError
        data = None
    if not isinstance(data, dict):
        raise _plain_problem(zip_path, "its data entry is not Stable-Baselines3's JSON")
    return data


def _plain_activation(zip_path: Path, data: dict) -> str:
    """The activation's class name from ``policy_kwargs`` (SB3 writes ``"<class 'torch.nn...ReLU'>"``
    as plain text beside the pickled dict); SB3's default ``Tanh`` when none is named."""
    kwargs = data.get("policy_kwargs") or {}
    if not isinstance(kwargs, dict):
        raise _plain_problem(zip_path, f"policy_kwargs is a {type(kwargs).__name__}")
    custom = sorted(k for k in ("features_extractor_class", "features_extractor_kwargs") if k in kwargs)
    if custom:
        raise _plain_problem(zip_path, f"a custom feature extractor ({', '.join(custom)})")
    text = kwargs.get("activation_fn")
    if text is None:
        return "Tanh"
    match = re.fullmatch(r"<class 'torch\.nn\.modules\.activation\.(\w+)'>", str(text))
    if not match or match.group(1) not in SB3_ACTIVATIONS:
        raise _plain_problem(zip_path, f"activation_fn {text!r}; allowed: torch.nn's "
                                       f"{', '.join(SB3_ACTIVATIONS)}")
    return match.group(1)


def _plain_layers(zip_path: Path, state: dict) -> tuple[list[int], list[int], int, int]:
    """``(actor layers, critic layers, observation size, action count)`` read from the shapes of an
    SB3 ``MlpPolicy``'s weights; ValueError for weights of any other layout."""
    layers: dict[str, dict[int, tuple]] = {"policy_net": {}, "value_net": {}}
    unexpected = []
    for key, tensor in state.items():
        match = _MLP_LAYER.fullmatch(key)
        if match and match.group(3) == "weight":
            layers[match.group(1)][int(match.group(2))] = tuple(tensor.shape)
        elif not match and key not in ("action_net.weight", "action_net.bias", "value_net.weight", "value_net.bias"):
            unexpected.append(key)
    if unexpected or "action_net.weight" not in state or "value_net.weight" not in state:
        what = f"unexpected weights {sorted(unexpected)[:4]}" if unexpected else "no action_net or value_net weights"
        raise _plain_problem(zip_path, what)
    sizes = {}
    for net, found in layers.items():
        shapes = [found[i] for i in sorted(found)]
        if sorted(found) != list(range(0, 2 * len(found), 2)) or any(len(s) != 2 for s in shapes) or any(
                shapes[i + 1][1] != shapes[i][0] for i in range(len(shapes) - 1)):
            raise _plain_problem(zip_path, f"the {net} layers {shapes} are not a chain of linear layers")
        sizes[net] = shapes
    head, value = tuple(state["action_net.weight"].shape), tuple(state["value_net.weight"].shape)
    inputs = {shapes[0][1] for shapes in sizes.values() if shapes}
    inputs |= {head[1]} if not sizes["policy_net"] else set()
    inputs |= {value[1]} if not sizes["value_net"] else set()
    pi, vf = [s[0] for s in sizes["policy_net"]], [s[0] for s in sizes["value_net"]]
    if len(head) != 2 or len(value) != 2 or len(inputs) != 1 or head[1] != (pi[-1] if pi else head[1]) \
            or value[1] != (vf[-1] if vf else value[1]):
        raise _plain_problem(zip_path, "its layers do not fit together")
    return pi, vf, inputs.pop(), head[0]


def _plain_scaled(data: dict) -> bool:
    """Whether the observation space recorded in ``data`` is scaled into [0, 1] (``sb3_vec_env``'s
    default); True when it is not recorded as text."""
    space = data.get("observation_space")
    high = space.get("high") if isinstance(space, dict) else None
    if not isinstance(high, str):
        return True
    numbers = re.findall(r"[-+]?(?:inf|\d+\.?\d*(?:e[-+]?\d+)?)", high)
    return all(float(n) == 1.0 for n in numbers)


def _table_sizes(game: str, rules: dict, size: int, actions: int) -> list[str]:
    """The registered games and player counts (with these rules options where a game takes them)
    whose raw observations have ``size`` columns and whose action count is ``actions``."""
    from keine_ahnung_env import registry

    found = []
    for name in registry.games():
        entry = registry.game(name)
        for players in entry.players:
            try:
                spec = entry.spec(players, **(rules if name == game else {}))
            except (TypeError, ValueError):
                continue
            if spec.observation_size == size and spec.num_actions == actions:
                found.append(f"{name} with {players} players")
    return found


def load_plain_policy(path: str | Path, game: str, num_players: int, rules: dict | None = None):
    """``(policy, info)`` of a plain Stable-Baselines3 ``PPO``/``MaskablePPO`` archive with ``MlpPolicy``
    (no sidecar) for ``game`` with ``num_players`` seats and these rules options, loaded without
    unpickling anything (see the module docstring). ``info`` is the sidecar such a model would have
    (feature set ``raw``). ValueError for a missing file, another layout, or an observation size or
    action count that is not the game's (the message names both sizes)."""
    import torch
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    from keine_ahnung_env import registry

    zip_path = existing_archive(path)
    options = {k: v for k, v in (rules or {}).items() if k != "num_players"}
    spec = registry.game_spec(game, int(num_players), **options)
    data = _plain_data(zip_path)
    activation = _plain_activation(zip_path, data)
    state = _read_tensors(zip_path, "policy.pth")
    pi, vf, size, actions = _plain_layers(zip_path, state)
    width = spec.features("raw").input_size
    if (size, actions) != (width, spec.num_actions):
        matches = _table_sizes(game, options, size, actions)
        hint = f" (those are the sizes of {', '.join(matches)})" if matches else ""
        raise ValueError(f"{zip_path}: the model reads observations of size {size} and chooses among {actions} "
                         f"actions; {game} with {num_players} players has observations of size {width} and "
                         f"{spec.num_actions} actions{hint}")
    if not _plain_scaled(data):
        raise ValueError(f"{zip_path}: the model was trained on observations not scaled into [0, 1] "
                         "(sb3_vec_env(normalize_obs=False)); agents read the scaled ones (sb3_vec_env's default)")
    policy = MaskableActorCriticPolicy(spaces.Box(0.0, 1.0, (size,), np.float32), spaces.Discrete(actions),
                                       lambda _: 0.0, net_arch=dict(pi=pi, vf=vf),
                                       activation_fn=getattr(torch.nn, activation))
    try:
        policy.load_state_dict(state, strict=True)
    except (RuntimeError, TypeError, AttributeError) as exc:
        raise ValueError(f"{zip_path}: weights do not fit SB3's MlpPolicy: {exc}") from None
    policy.set_training_mode(False)
    timesteps = data.get("num_timesteps")
    info = CheckpointInfo(game=spec.name, game_version=spec.version, num_players=spec.num_players,
                          rules=dict(spec.rules), observation_version=spec.observation_version,
                          observation_size=size, num_actions=actions, features="raw",
                          net_arch=tuple(pi), activation=SB3_ACTIVATIONS[activation],
                          timesteps=timesteps if isinstance(timesteps, int) and timesteps >= 0 else 0,
                          sha256=file_sha256(zip_path))
    return policy, info


@dataclasses.dataclass(frozen=True)
class TrainingState:
    """What ``training.train --resume`` restores from a checkpoint (see :func:`load_training_state`)."""

    info: CheckpointInfo
    policy: dict
    """the policy's state dict (``policy.pth``)."""
    optimizer: dict | None
    """the optimizer's state dict (``policy.optimizer.pth``), None when the archive has none."""
    counters: dict
    """the :data:`RESUMED_COUNTERS` the ``data`` entry holds as plain integers."""


def load_training_state(path: str | Path, game: str | None = None) -> TrainingState:
    """Reads what resuming a training run needs without unpickling anything from the archive.

    SB3's ``MaskablePPO.load`` would unpickle the ``data`` entry (code runs); here the sidecar is
    checked as for :func:`load_policy`, the weights and the optimizer state are read with
    ``torch.load(weights_only=True)`` and ``data`` is parsed as JSON, of which only the
    :data:`RESUMED_COUNTERS` are taken where they are plain integers (serialized objects are never
    decoded). The caller rebuilds the model from the sidecar and its own hyper-parameters and puts
    the state in with :func:`restore_training_state`. ValueError for a play-only export, a foreign,
    changed or damaged checkpoint."""
    zip_path, info = _verified_archive(path, game)
    from keine_ahnung_env import registry

    spec = registry.game_spec(info.game, info.num_players, **{k: v for k, v in info.rules.items() if k != "num_players"})
    if info.observation_version != spec.observation_version:
        raise ValueError(f"checkpoint {zip_path} was trained on observation version {info.observation_version}; it "
                         f"still plays (agents.make('ppo', path=...)) but training resumes only on the current "
                         f"version {spec.observation_version}")
    if is_play_only(zip_path):
        raise ValueError(f"checkpoint {zip_path} is a play-only export (weights without optimizer state or "
                         "training data); resume from the training run's own checkpoint")
    policy = _read_tensors(zip_path, "policy.pth")
    with zipfile.ZipFile(zip_path) as archive:
        has_optimizer = OPTIMIZER_ENTRY in archive.namelist()
        raw = archive.read("data")
    optimizer = _read_tensors(zip_path, OPTIMIZER_ENTRY) if has_optimizer else None
    try:
        data = json.loads(raw)
    except ValueError:  # also UnicodeDecodeError
        data = None
    if not isinstance(data, dict):
        raise ValueError(f"checkpoint {zip_path} is unreadable: its data entry is not Stable-Baselines3's JSON")
    counters = {name: data[name] for name in RESUMED_COUNTERS
                if isinstance(data.get(name), int) and not isinstance(data[name], bool) and data[name] >= 0}
    return TrainingState(info, policy, optimizer, counters)


def restore_training_state(model, state: TrainingState, where: str = "checkpoint") -> None:
    """Puts the weights, optimizer state and counts of ``state`` into ``model``, a MaskablePPO built
    with the sidecar's architecture; the step count comes from the sidecar. ValueError when the
    weights or the optimizer state do not fit that architecture."""
    import torch

    try:
        model.policy.load_state_dict(state.policy, strict=True)
    except (RuntimeError, TypeError, AttributeError) as exc:
        raise ValueError(f"{where}: weights do not fit the recorded architecture: {exc}") from None
    if state.optimizer is not None:
        optimizer = model.policy.optimizer
        try:
            optimizer.load_state_dict(state.optimizer)
            # load_state_dict checks the parameter counts only; a moment of another shape would fail
            # (or worse, broadcast) in the first update.
            for group in optimizer.param_groups:
                for parameter in group["params"]:
                    for value in optimizer.state.get(parameter, {}).values():
                        if isinstance(value, torch.Tensor) and value.ndim and value.shape != parameter.shape:
                            raise ValueError(f"a state of shape {tuple(value.shape)} for a parameter of shape "
                                             f"{tuple(parameter.shape)}")
        except (ValueError, KeyError, TypeError, RuntimeError) as exc:
            raise ValueError(f"{where}: optimizer state does not fit the recorded architecture: {exc}") from None
    model.num_timesteps = state.info.timesteps
    model._n_updates = state.counters.get("_n_updates", 0)
    model._episode_num = state.counters.get("_episode_num", 0)


class PPOAgent:
    """A MaskablePPO policy as a batched agent: ``act(observation, action_mask) -> actions``.

    Observations are the raw ones of ``vector_env``; the agent turns them into the policy's inputs
    with the feature set recorded in the checkpoint.
    """

    def __init__(self, policy, info: CheckpointInfo, deterministic: bool = True, name: str = "ppo",
                 seed: int | None = None):
        import torch

        self.policy = policy
        self.info = info
        self.deterministic = deterministic
        self.name = name
        self._features = ObservationFeatures(info.features, info.num_players, info.rules, game=info.game,
                                             observation_version=info.observation_version)
        self._generator = torch.Generator().manual_seed(0 if seed is None else int(seed))

    def reseed(self, seed: int | None) -> None:
        self._generator.manual_seed(0 if seed is None else int(seed))

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        import torch

        obs, mask = check_batch(self.name, observation, action_mask, self._features.input_size,
                                self.info.num_actions, self.info)
        obs = pad_privileged(self._features(obs, mask), self.info.privileged_size)
        with torch.no_grad():
            dist = self.policy.get_distribution(torch.as_tensor(obs), action_masks=mask)
            if self.deterministic:
                actions = dist.distribution.probs.argmax(dim=1)
            else:
                probs = dist.distribution.probs
                actions = torch.multinomial(probs, 1, generator=self._generator).squeeze(1)
        return actions.numpy().astype(np.int64)


def _agreed(path: Any, what: str, spec_value: Any, context_value: Any, context: str) -> Any:
    """The one value of the spec's ``env=``/``players=`` and the caller's ``game``/``num_players``;
    ValueError when both are given and differ."""
    if spec_value is None:
        return context_value
    if context_value is not None and spec_value != context_value:
        raise ValueError(f"ppo:{path}: {what}={spec_value!r}, but the agent is made for {context_value!r} ({context})")
    return spec_value


def make_agent(path: str | Path | None = None, seed: int | None = None, deterministic: bool = True,
               num_players: int | None = None, game: str | None = None, rules: dict | None = None,
               env: str | None = None, players: int | None = None, **_ignored: Any) -> PPOAgent:
    """``agents.make("ppo", path=...)``: loads a checkpoint (safely) as a batched agent.

    ``game``: the registered game the checkpoint must be for (``agents.make`` passes its own; None:
    the one its sidecar names). With ``num_players`` (and ``rules``) given, a checkpoint for another
    variant is refused. ``env``/``players`` (the spec's ``ppo:PATH:env=gap_v0:players=3``) name the
    game and player count too; they must agree with ``game``/``num_players`` where both are given.
    A zip without a sidecar is read as a plain Stable-Baselines3 archive (:func:`load_plain_policy`),
    which needs the game and the player count.
    """
    if path is None:
        raise ValueError("the ppo agent needs path=<checkpoint .zip> (written by training.train or by "
                         "Stable-Baselines3's model.save)")
    if not isinstance(deterministic, bool):
        raise ValueError(f"deterministic={deterministic!r}; allowed: True (the most likely legal action) or False "
                         "(sampled from the policy)")
    if players is not None and (isinstance(players, bool) or not isinstance(players, int) or players < 1):
        raise ValueError(f"ppo:{path}: players={players!r}; allowed: a positive integer")
    game = _agreed(path, "env", env, game, "agents.make(..., game=...) or the command's --env")
    num_players = _agreed(path, "players", players, None if num_players is None else int(num_players),
                          "the command's --players")
    zip_path = existing_archive(path)
    if sidecar_path(zip_path).is_file():
        policy, info = load_policy(path, game)
        if num_players is not None:
            check_compatible(info, info.game, int(num_players), rules, where=f"checkpoint {path}")
    else:
        if game is None or num_players is None:
            raise ValueError(f"checkpoint {path}: no sidecar {sidecar_path(zip_path)}; a plain Stable-Baselines3 "
                             f"archive plays when its game and player count are given: "
                             f"ppo:{path}:env=GAME:players=N (or the command's --env and --players)")
        policy, info = load_plain_policy(zip_path, game, int(num_players), rules)
    return PPOAgent(policy, info, deterministic=deterministic, name=f"ppo:{Path(path).name}", seed=seed)


READY_CHECKPOINT = Path(__file__).parent / "checkpoints" / "keine_ahnung_v0_4p_advice_tuned.zip"
"""The shipped 4-player policy (``agents.make("ppo_4p")``): the default recipe's run
(imitation of ``counter_tuned`` on its advice, then gentle PPO; training seed 0): 25.8% [25.5, 26.1] of
100,000 fresh games against three ``counter``s (docs/results.md)."""

EARLIER_CHECKPOINT = Path(__file__).parent / "checkpoints" / "keine_ahnung_v0_4p_advice.zip"
"""The earlier 4-player policy, kept beside ``ppo_4p`` (``agents.make("ppo_4p_v1")``): residual PPO on
``counter``'s advice, observation version 1 (24.7% [24.4, 24.9] of 120,000 fresh games against three
``counter``s, docs/results.md). Kept because the standard benchmark protocol's
learned line-up is this agent, and as the library's version-1 checkpoint."""


def _shipped_agent(path: Path, name: str, **kwargs: Any) -> PPOAgent:
    """A checkpoint shipped with the library as an agent named ``name`` (``make_agent``'s arguments)."""
    agent = make_agent(path, **kwargs)
    agent.name = name
    return agent


def make_ready_agent(**kwargs: Any) -> PPOAgent:
    """``agents.make("ppo_4p")``: the shipped checkpoint (:data:`READY_CHECKPOINT`) as an agent."""
    return _shipped_agent(READY_CHECKPOINT, "ppo_4p", **kwargs)


def make_earlier_agent(**kwargs: Any) -> PPOAgent:
    """``agents.make("ppo_4p_v1")``: the earlier shipped checkpoint (:data:`EARLIER_CHECKPOINT`)."""
    return _shipped_agent(EARLIER_CHECKPOINT, "ppo_4p_v1", **kwargs)


def recipe_checkpoint(game: str, num_players: int) -> Path:
    """The shipped checkpoint of ``game``'s default training recipe at ``num_players`` players
    (``agents/checkpoints/<game>_<P>p_recipe.zip``, training seed 0; figures: docs/results.md)."""
    return Path(__file__).parent / "checkpoints" / f"{game}_{num_players}p_recipe.zip"


GAP_LEARNED_CHECKPOINT = recipe_checkpoint("gap_v0", 4)
"""The gap game's shipped 4-player policy (``agents.make("gap_learned_4p", game="gap_v0")``, the game's
``learned`` agent at 4 players): the default training recipe's run (training seed 0; figures: docs/results.md)."""

DNP_LEARNED_CHECKPOINT = recipe_checkpoint("dnp_v0", 4)
"""dnp's shipped 4-player policy (``agents.make("dnp_learned_4p", game="dnp_v0")``, the game's ``learned``
agent at 4 players): the default training recipe's run (training seed 0; figures: docs/results.md)."""


def make_checkpoint_agent(checkpoint: str, preset: str, **kwargs: Any) -> PPOAgent:
    """A model file of ``agents/checkpoints`` as the agent named ``preset``: the presets whose
    declarations bind both (the gap game's and dnp's ``<game>_learned_<P>p``, the file
    :func:`recipe_checkpoint` names)."""
    return _shipped_agent(Path(__file__).parent / "checkpoints" / checkpoint, preset, **kwargs)
