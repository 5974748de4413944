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
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import pickle
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

    @classmethod
    def from_json(cls, text: str, where: str) -> "CheckpointInfo":
        optional = {"timesteps", "sha256", "format", "critic", "privileged_size", "game_version"}
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
    return field_problems(info, ("privileged_size",), ("critic",))


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


def _verified_archive(path: str | Path, game: str | None) -> tuple[Path, CheckpointInfo]:
    """The zip path and sidecar of a checkpoint whose sidecar passes :func:`check_game` and whose
    archive matches the recorded SHA-256; ValueError otherwise."""
    zip_path = archive_path(path)
    info = read_info(zip_path)
    check_game(info, game, where=f"checkpoint {zip_path}")
    if not zip_path.is_file():
        raise ValueError(f"checkpoint {zip_path} does not exist")
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


def make_agent(path: str | Path | None = None, seed: int | None = None, deterministic: bool = True,
               num_players: int | None = None, game: str | None = None, rules: dict | None = None,
               **_ignored: Any) -> PPOAgent:
    """``agents.make("ppo", path=...)``: loads a checkpoint (safely) as a batched agent.

    ``game``: the registered game the checkpoint must be for (``agents.make`` passes its own; None:
    the one its sidecar names). With ``num_players`` (and ``rules``) given, a checkpoint for another
    variant is refused.
    """
    if path is None:
        raise ValueError("the ppo agent needs path=<checkpoint .zip> (written by training.train)")
    if not isinstance(deterministic, bool):
        raise ValueError(f"deterministic={deterministic!r}; allowed: True (the most likely legal action) or False "
                         "(sampled from the policy)")
    policy, info = load_policy(path, game)
    if num_players is not None:
        check_compatible(info, info.game, int(num_players), rules, where=f"checkpoint {path}")
    return PPOAgent(policy, info, deterministic=deterministic, name=f"ppo:{Path(path).name}", seed=seed)


READY_CHECKPOINT = Path(__file__).parent / "checkpoints" / "keine_ahnung_v0_4p_advice_tuned.zip"
"""The shipped 4-player policy (``agents.make("ppo_4p")``, since wave 8): the default recipe's run
(imitation of ``counter_tuned`` on its advice, then gentle PPO; training seed 0): 25.8% [25.5, 26.1] of
100,000 fresh games against three ``counter``s (docs/skill_ceiling.md, "A stronger teacher")."""

EARLIER_CHECKPOINT = Path(__file__).parent / "checkpoints" / "keine_ahnung_v0_4p_advice.zip"
"""The 4-player policy shipped before wave 8 (``agents.make("ppo_4p_v1")``): residual PPO on
``counter``'s advice, observation version 1 (24.7% [24.4, 24.9] of 120,000 fresh games against three
``counter``s, docs/keine_ahnung.md "Training runs"). Kept because the standard benchmark protocol's
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
