"""Trained MaskablePPO policies as batched agents, and their checkpoint format.

A checkpoint is two files side by side:

* ``NAME.zip`` - the Stable-Baselines3 archive written by ``model.save`` (policy weights in
  ``policy.pth``, optimizer state, and a ``data`` entry of cloudpickled Python objects);
* ``NAME.json`` - the sidecar: game, player count, rules options, observation version and size,
  action count, the policy's feature set (``agents/features.py``), its architecture, its critic
  (``public``, or ``oracle`` with the width of the hidden-state columns its value network read in
  training: ``agents/policies.py``; the agent feeds zeros there, which the actor never reads) and
  the archive's SHA-256.

Trust model: ``MaskablePPO.load`` unpickles the archive's ``data`` entry, which can run arbitrary
code, so it is only for archives you made yourself. :func:`load_policy` never does that: it reads the
JSON sidecar, checks the archive against the recorded hash, rebuilds the policy from the sidecar's
architecture and loads ``policy.pth`` with ``torch.load(weights_only=True)``, which accepts tensors
only (a pickle that would build any other object is refused, not run). A checkpoint made for another
game or observation version, a sidecar with a malformed field or an observation size that does not
match its own player count and rules, and (when the caller names them) another player count or rules
are refused with a clear error before any weights are read.

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

from .features import FEATURE_SETS, ObservationFeatures, pad_privileged

CHECKPOINT_FORMAT = "keine_ahnung_env.ppo/1"
ACTIVATIONS = ("tanh", "relu")
CRITICS = ("public", "oracle")


@dataclasses.dataclass(frozen=True)
class CheckpointInfo:
    """The sidecar of a checkpoint (see the module docstring)."""

    game: str
    num_players: int
    rules: dict
    observation_version: int
    observation_size: int
    num_actions: int
    features: str
    net_arch: tuple[int, ...]
    activation: str
    timesteps: int = 0
    critic: str = "public"
    privileged_size: int = 0
    sha256: str = ""
    format: str = CHECKPOINT_FORMAT

    def to_json(self) -> str:
        data = dataclasses.asdict(self)
        data["net_arch"] = list(self.net_arch)
        return json.dumps(data, indent=2, sort_keys=True)

    @classmethod
    def from_json(cls, text: str, where: str) -> "CheckpointInfo":
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise ValueError(f"checkpoint sidecar {where} is not valid JSON: {exc}") from None
        if not isinstance(data, dict) or data.get("format") != CHECKPOINT_FORMAT:
            raise ValueError(f"checkpoint sidecar {where} is not a {CHECKPOINT_FORMAT} sidecar")
        fields = {f.name for f in dataclasses.fields(cls)}
        missing = fields - set(data) - {"timesteps", "sha256", "format", "critic", "privileged_size"}
        if missing:
            raise ValueError(f"checkpoint sidecar {where} lacks {sorted(missing)}")
        try:
            info = cls(**{k: v for k, v in data.items() if k in fields})
            object.__setattr__(info, "net_arch", tuple(int(n) for n in info.net_arch))
        except (TypeError, ValueError) as exc:
            raise ValueError(f"checkpoint sidecar {where} has a malformed field: {exc}") from None
        problems = _field_problems(info)
        if problems:
            raise ValueError(f"checkpoint sidecar {where}: " + "; ".join(problems))
        if info.features not in FEATURE_SETS:
            raise ValueError(f"checkpoint sidecar {where}: features {info.features!r}; allowed: {FEATURE_SETS}")
        if info.activation not in ACTIVATIONS:
            raise ValueError(f"checkpoint sidecar {where}: activation {info.activation!r}; allowed: {ACTIVATIONS}")
        if info.critic not in CRITICS or (info.critic == "oracle") != (info.privileged_size > 0):
            raise ValueError(f"checkpoint sidecar {where}: critic {info.critic!r} with privileged_size "
                             f"{info.privileged_size}; allowed: 'public' with 0, 'oracle' with a positive size")
        return info


def _field_problems(info: CheckpointInfo) -> list[str]:
    """What is wrong with the types and ranges of a sidecar's fields (empty when nothing)."""
    problems = []
    for name, low in (("num_players", 1), ("observation_version", 1), ("observation_size", 1), ("num_actions", 1),
                      ("timesteps", 0), ("privileged_size", 0)):
        value = getattr(info, name)
        if isinstance(value, bool) or not isinstance(value, int) or value < low:
            problems.append(f"{name}={value!r}; allowed: an integer >= {low}")
    for name in ("game", "features", "activation", "sha256", "critic"):
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
    """Refuses a policy for another game, player count, rules or observation encoding."""
    from keine_ahnung_env.games.keine_ahnung.config import Rules

    check_game(info, game, where)
    if info.num_players != num_players:
        raise ValueError(f"{where} was trained for {info.num_players} players, not {num_players}")
    if rules is not None:
        wanted = Rules.make(num_players, **rules).options()
        recorded = dict(info.rules)
        # Reward and max_turns do not change what a policy sees or may do.
        for key in ("reward", "max_turns"):
            wanted.pop(key, None)
            recorded.pop(key, None)
        diff = sorted(k for k in set(wanted) | set(recorded) if wanted.get(k) != recorded.get(k))
        if diff:
            raise ValueError(f"{where} was trained with other rules options: {diff} "
                             f"(trained: { {k: recorded.get(k) for k in diff} }, now: { {k: wanted.get(k) for k in diff} })")


def check_game(info: CheckpointInfo, game: str = "keine_ahnung_v0", where: str = "checkpoint") -> None:
    """Refuses a policy for another game or observation encoding, or whose recorded observation size
    does not match its own player count and rules (a sidecar that lies)."""
    from keine_ahnung_env.games.keine_ahnung.observation import OBSERVATION_VERSION

    if info.game != game:
        raise ValueError(f"{where} was trained for {info.game!r}, not {game!r}")
    if info.observation_version != OBSERVATION_VERSION:
        raise ValueError(f"{where} uses observation version {info.observation_version}; "
                         f"this library encodes version {OBSERVATION_VERSION}")
    try:
        size = ObservationFeatures(info.features, info.num_players, info.rules).input_size
    except ValueError as exc:
        raise ValueError(f"{where}: the sidecar's player count or rules are not a valid variant: {exc}") from None
    if info.observation_size != size:
        raise ValueError(f"{where}: the sidecar's observation_size {info.observation_size} does not match its "
                         f"{info.num_players} players and rules (observation size {size})")


def build_policy(info: CheckpointInfo):
    """A fresh MaskableActorCriticPolicy with the sidecar's spaces and architecture."""
    import torch
    from gymnasium import spaces
    from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy

    width = ObservationFeatures(info.features, info.num_players, info.rules).size
    obs_space = spaces.Box(0.0, 1.0, (width + info.privileged_size,), np.float32)
    activation = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[info.activation]
    if info.critic == "oracle":
        from .policies import OracleCriticPolicy

        return OracleCriticPolicy(obs_space, spaces.Discrete(info.num_actions), lambda _: 0.0, public_size=width,
                                  net_arch=list(info.net_arch), activation_fn=activation)
    return MaskableActorCriticPolicy(obs_space, spaces.Discrete(info.num_actions), lambda _: 0.0,
                                     net_arch=list(info.net_arch), activation_fn=activation)


def load_policy(path: str | Path, game: str = "keine_ahnung_v0"):
    """Loads the policy of a checkpoint safely (weights only; see the module docstring); refuses a
    checkpoint of another ``game`` (see :func:`check_game`)."""
    import torch

    zip_path = archive_path(path)
    info = read_info(zip_path)
    check_game(info, game, where=f"checkpoint {zip_path}")
    if not zip_path.is_file():
        raise ValueError(f"checkpoint {zip_path} does not exist")
    if info.sha256 and file_sha256(zip_path) != info.sha256:
        raise ValueError(f"checkpoint {zip_path} does not match the SHA-256 in its sidecar (changed or corrupted)")
    try:
        with zipfile.ZipFile(zip_path) as archive:
            raw = archive.read("policy.pth")
        state = torch.load(io.BytesIO(raw), map_location="cpu", weights_only=True)
    except pickle.UnpicklingError as exc:
        # weights_only refuses any global but tensors and plain containers: nothing ran.
        lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
        reason = next((line for line in lines if "Unsupported" in line), lines[0] if lines else "")
        raise ValueError(f"checkpoint {zip_path} is unreadable: policy.pth holds more than weights (refused, "
                         f"not run): {reason[:300]}") from None
    except Exception as exc:  # zipfile, zlib, torch's reader: any failure means a damaged archive
        raise ValueError(f"checkpoint {zip_path} is unreadable: {type(exc).__name__}: {exc}") from None
    if not isinstance(state, dict):
        raise ValueError(f"checkpoint {zip_path} is unreadable: policy.pth holds a {type(state).__name__}, "
                         "not a state dict of weights")
    policy = build_policy(info)
    try:
        policy.load_state_dict(state, strict=True)
    except (RuntimeError, TypeError, AttributeError) as exc:
        raise ValueError(f"checkpoint {zip_path}: weights do not fit the recorded architecture: {exc}") from None
    policy.set_training_mode(False)
    return policy, info


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
        self._features = ObservationFeatures(info.features, info.num_players, info.rules)
        self._generator = torch.Generator().manual_seed(0 if seed is None else int(seed))

    def reseed(self, seed: int | None) -> None:
        self._generator.manual_seed(0 if seed is None else int(seed))

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        import torch

        obs = np.asarray(observation, np.float32)
        mask = np.asarray(action_mask, bool)
        if obs.ndim != 2 or obs.shape[1] != self.info.observation_size:
            raise ValueError(f"{self.name}: observations must be [batch, {self.info.observation_size}] "
                             f"({self.info.num_players}-player {self.info.game}); got shape {obs.shape}")
        if mask.shape != (obs.shape[0], self.info.num_actions):
            raise ValueError(f"{self.name}: action_mask must be [batch, {self.info.num_actions}]; got {mask.shape}")
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
                   num_players: int | None = None, game: str = "keine_ahnung_v0", rules: dict | None = None,
                   **_ignored: Any) -> PPOAgent:
    """``agents.make("ppo", path=...)``: loads a checkpoint (safely) as a batched agent.

    With ``num_players`` (and ``rules``) given, a checkpoint for another variant is refused.
    """
    if path is None:
        raise ValueError("the ppo agent needs path=<checkpoint .zip> (written by training.train)")
    if not isinstance(deterministic, bool):
        raise ValueError(f"deterministic={deterministic!r}; allowed: True (the most likely legal action) or False "
                         "(sampled from the policy)")
    policy, info = load_policy(path, game)
    if num_players is not None:
        check_compatible(info, game, int(num_players), rules, where=f"checkpoint {path}")
    return PPOAgent(policy, info, deterministic=deterministic, name=f"ppo:{Path(path).name}", seed=seed)


READY_CHECKPOINT = Path(__file__).parent / "checkpoints" / "keine_ahnung_v0_4p_advice.zip"
"""The shipped 4-player policy (``agents.make("ppo_4p")``): residual PPO on ``counter``'s advice; the
README's "Training" section has its runs and its win share against three ``counter``s."""


def make_ready_agent(seed: int | None = None, deterministic: bool = True, num_players: int | None = None,
                     **kwargs: Any) -> PPOAgent:
    """``agents.make("ppo_4p")``: the shipped checkpoint (:data:`READY_CHECKPOINT`) as an agent."""
    agent = make_agent(READY_CHECKPOINT, seed=seed, deterministic=deterministic, num_players=num_players, **kwargs)
    agent.name = "ppo_4p"
    return agent
