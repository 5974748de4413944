"""A heuristic overruled where a network learned from roll-outs says another move wins more.

``python -m training.advantage`` plays the game's heuristic (``GameSpec.advantage.base``, Keine Ahnung:
``counter_tuned``) against its opponents and, at each decision of the recipe's kind (Keine Ahnung: may it
call "Nothing fits anymore!", with a call success chance from 0.2 to 0.99), plays both choices out from
states drawn from the seat's belief: the recipe's ``action`` and the heuristic's best other move, the
heuristic playing on afterwards. The paired difference of the win shares is the label; a small network
learns it from the features. This agent then plays the heuristic, except at those decisions, where it
takes ``action`` when the network predicts that it wins more by more than ``margin`` (and the other
move when it predicts the opposite). That is one step of policy improvement (Bertsekas' roll-out)
distilled into a network: issue 18's expert iteration, with roll-out values as the targets.

Files: ``NAME.npz`` (the arrays: the inputs' mean and spread ``input_mean``/``input_scale`` and the
layers ``layer.K.weight`` ``[out, in]`` / ``layer.K.bias``, float32) and the sidecar ``NAME.json``
(:data:`MODEL_FORMAT`: game, players, rules, observation version and size, the recipe it was trained
for, the network's hidden sizes, the decisions trained on, the command's seed, and the SHA-256 of the
``.npz``). Both are read without running anything: JSON, and ``numpy.load(allow_pickle=False)``.

    import agents
    agent = agents.make("advantage_4p")                      # the shipped 4-player model
    agent = agents.make("advantage:runs/adv/model.npz")      # one of yours
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np

from .base import check_arrays, layer_shapes, npz_path, read_weights, sidecar_path, write_weights
from .ppo import PolicySidecar

MODEL_FORMAT = "keine_ahnung_env.advantage/1"

SHIPPED_MODEL = Path(__file__).parent / "checkpoints" / "keine_ahnung_v0_4p_call_advantage.npz"
"""The shipped 4-player model (``agents.make("advantage_4p")``): docs/skill_ceiling.md, wave 12."""


@dataclasses.dataclass(frozen=True)
class AdvantageModelInfo(PolicySidecar):
    """The sidecar of an advantage model (see the module docstring). The fields every policy sidecar
    has match ``agents.ppo.CheckpointInfo``, so the registry's checks apply unchanged."""

    recipe: dict
    """the game's ``AdvantageRecipe`` the model was trained for, as a dict."""
    activation: str = "relu"
    game_version: int = 0
    timesteps: int = 0
    """labelled decisions the network was fitted on."""
    playouts: int = 0
    seed: int = 0
    validation: dict = dataclasses.field(default_factory=dict)
    """what the held-out decisions said (``training.advantage``'s summary)."""
    continuation: str = ""
    """who played the labelled seat after each labelled decision: the recipe's heuristic, or (expert
    iteration's next round) ``advantage:NAME.npz`` of an earlier model, whose SHA-256 follows."""
    continuation_sha256: str = ""
    sha256: str = ""
    format: str = MODEL_FORMAT

    @classmethod
    def from_json(cls, text: str, where: str) -> "AdvantageModelInfo":
        info = cls.parse(text, where, "advantage model sidecar", MODEL_FORMAT,
                         f"{where} is not the sidecar of an advantage model ({MODEL_FORMAT}); models are written "
                         "by python -m training.advantage",
                         {"game", "num_players", "rules", "observation_version", "observation_size", "num_actions",
                          "features", "net_arch", "recipe", "game_version"})
        if not isinstance(info.recipe, dict) or not isinstance(info.validation, dict):
            raise ValueError(f"advantage model sidecar {where} has a malformed field: recipe and validation must "
                             "be objects")
        from .ppo import field_problems

        problems = field_problems(info, more_counts=("playouts", "seed"), more_strings=("continuation", "continuation_sha256"))
        if info.activation != "relu":
            problems.append(f"activation={info.activation!r}; allowed: 'relu'")
        if problems:
            raise ValueError(f"advantage model sidecar {where}: " + "; ".join(problems))
        return info

    def layer_shapes(self, input_size: int) -> dict[str, tuple[int, ...]]:
        """Every array the ``.npz`` must hold, with its shape (``weight`` is ``[out, in]``; one output)."""
        shapes = {"input_mean": (input_size,), "input_scale": (input_size,)}
        return {**shapes, **layer_shapes([input_size, *self.net_arch, 1], "layer")}


def _recipe(info: AdvantageModelInfo, where: str):
    """The game's recipe for the model's variant, refused where the model was trained for another one."""
    from keine_ahnung_env import registry

    spec = registry.game_spec(info.game, info.num_players, **{k: v for k, v in info.rules.items()
                                                              if k != "num_players"})
    if info.observation_version != spec.observation_version:
        raise ValueError(f"{where} reads observation version {info.observation_version}; advantage models read "
                         f"the current one ({spec.observation_version}): retrain it with python -m training.advantage")
    if spec.advantage is None:
        raise ValueError(f"{where}: {info.game} offers no advantage recipe (GameSpec.advantage)")
    recipe = dataclasses.asdict(spec.advantage)
    recorded = dict(info.recipe)
    recorded["inputs"] = [list(map(int, r)) for r in recorded.get("inputs", [])]
    current = dict(recipe, inputs=[list(r) for r in recipe["inputs"]])
    if recorded != current:
        changed = sorted(k for k in set(current) | set(recorded) if current.get(k) != recorded.get(k))
        raise ValueError(f"{where} was trained for another advantage recipe of {info.game} (differs in "
                         f"{', '.join(changed)}); retrain it with python -m training.advantage")
    return spec, spec.advantage


def _check_arrays(arrays: dict[str, np.ndarray], info: AdvantageModelInfo, width: int, where: str) -> None:
    check_arrays(arrays, info.layer_shapes(width), where)


def write_model(arrays: dict[str, np.ndarray], path: str | Path, info: AdvantageModelInfo) -> Path:
    """Writes ``path``.npz and its sidecar (with the file's SHA-256); returns the ``.npz`` path. The
    arrays are checked first, so a model that writes is one that loads."""
    target = npz_path(path)
    arrays = {name: np.ascontiguousarray(np.asarray(value, np.float32)) for name, value in arrays.items()}
    width = int(sum(stop - start for start, stop in info.recipe["inputs"]))
    _check_arrays(arrays, info, width, where=f"model {target}")
    digest = write_weights(target, arrays)
    sidecar_path(target).write_text(dataclasses.replace(info, sha256=digest).to_json())
    return target


def load_model(path: str | Path, game: str | None = None) -> tuple[dict[str, np.ndarray], AdvantageModelInfo]:
    """The arrays and sidecar of a model, read safely; refuses a model of another ``game`` (None: the
    registered game its sidecar names), of another recipe, or a changed or damaged file."""
    from .ppo import check_game

    target = npz_path(path)
    where = f"advantage model {target}"
    if Path(path).is_dir():
        raise ValueError(f"{path} is a directory; give the model NAME.npz that python -m training.advantage writes")
    side = sidecar_path(path)
    if not side.is_file():
        raise ValueError(f"{where}: no sidecar {side} (game, players, rules and network of the model); models "
                         "are written by python -m training.advantage")
    info = AdvantageModelInfo.from_json(side.read_text(errors="replace"), str(side))
    check_game(info, game, where=where)
    _, recipe = _recipe(info, where)
    arrays = read_weights(target, info.sha256, where)
    _check_arrays(arrays, info, int(recipe.input_columns().size), where)
    return arrays, info


class AdvantageAgent:
    """The recipe's heuristic, overruled at the recipe's decisions by the network (module docstring)."""

    def __init__(self, arrays: dict[str, np.ndarray], info: AdvantageModelInfo, margin: float = 0.0,
                 seed: int | None = None, name: str = "advantage"):
        import agents

        if isinstance(margin, bool) or not isinstance(margin, (int, float, np.integer, np.floating)) \
                or not 0.0 <= float(margin) < 1.0:
            raise ValueError(f"margin={margin!r}; allowed: a number from 0 up to 1 (win share the network must "
                             "predict before it departs from the heuristic)")
        self.info = info
        self.name = name
        self.margin = float(margin)
        self.spec, self.recipe = _recipe(info, f"advantage model for {info.game}")
        self.action = self.spec.action_names.index(self.recipe.action)
        self.features = self.spec.features(self.recipe.features)
        self.columns = self.recipe.input_columns()
        self.mean, self.scale = arrays["input_mean"], arrays["input_scale"]
        self.layers = [(arrays[f"layer.{k}.weight"].T.copy(), arrays[f"layer.{k}.bias"])
                       for k in range(len(info.net_arch) + 1)]
        self.base = agents.make(self.recipe.base, game=info.game, seed=seed, num_players=info.num_players,
                                rules={k: v for k, v in info.rules.items() if k != "num_players"} or None)
        self.decisions = 0
        """decisions the network was asked about (the recipe's gate)."""
        self.changed = 0
        """of those, decisions where it departed from the heuristic."""

    def reseed(self, seed: int | None) -> None:
        """Reseeds the heuristic's tie-breaks (the network itself draws nothing)."""
        if callable(getattr(self.base, "reseed", None)):
            self.base.reseed(seed)

    def advantage(self, features: np.ndarray) -> np.ndarray:
        """[n] predicted win-share gain of the recipe's action over the heuristic's other move, from rows
        of the recipe's feature set."""
        x = (np.asarray(features, np.float32)[:, self.columns] - self.mean) / self.scale
        for k, (weight, bias) in enumerate(self.layers):
            x = x @ weight + bias
            if k < len(self.layers) - 1:
                x = np.maximum(x, 0.0)
        return x[:, 0]

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        obs = np.asarray(observation, np.float32)
        mask = np.asarray(action_mask, bool)
        if obs.ndim != 2 or obs.shape[1] != self.spec.observation_size:
            raise ValueError(f"{self.name}: observations must be [batch, {self.spec.observation_size}] "
                             f"({self.info.num_players}-player {self.info.game}); got shape {obs.shape}")
        if mask.shape != (obs.shape[0], self.spec.num_actions):
            raise ValueError(f"{self.name}: action_mask must be [batch, {self.spec.num_actions}]; got {mask.shape}")
        out = np.asarray(self.base.act(obs, mask), np.int64).copy()
        rows = np.flatnonzero(mask[:, self.action] & (mask.sum(1) > 1))
        if rows.size == 0:
            return out
        feats = self.features(obs[rows], mask[rows])
        keep = self.recipe.in_gate(feats)
        rows, feats = rows[keep], feats[keep]
        if rows.size == 0:
            return out
        gain = self.advantage(feats)
        other_mask = mask[rows].copy()
        other_mask[:, self.action] = False
        other = np.asarray(self.base.act(obs[rows], other_mask), np.int64)
        takes = out[rows] == self.action
        want = np.where(takes, gain > -self.margin, gain > self.margin)
        # Where the network agrees that the action is not worth it, the heuristic's own move stays.
        chosen = np.where(want, self.action, np.where(takes, other, out[rows]))
        self.decisions += rows.size
        self.changed += int((chosen != out[rows]).sum())
        out[rows] = chosen
        return out


def make_agent(path: str | Path | None = None, seed: int | None = None, margin: float = 0.0,
               num_players: int | None = None, game: str | None = None, rules: dict | None = None,
               **_ignored: Any) -> AdvantageAgent:
    """``agents.make("advantage:PATH")``: loads a model (safely) as a batched agent. ``margin``: the win
    share the network must predict before it departs from the heuristic (default 0). With
    ``num_players`` (and ``rules``) given, a model for another variant is refused."""
    from .ppo import check_compatible

    if path is None:
        raise ValueError("the advantage agent needs a path: advantage:<model .npz> (written by python -m "
                         "training.advantage)")
    arrays, info = load_model(path, game)
    if num_players is not None:
        check_compatible(info, info.game, int(num_players), rules, where=f"advantage model {npz_path(path)}")
    return AdvantageAgent(arrays, info, margin=margin, seed=seed, name=f"advantage:{Path(path).name}")


def make_shipped_agent(**kwargs: Any) -> AdvantageAgent:
    """``agents.make("advantage_4p")``: the shipped model (:data:`SHIPPED_MODEL`)."""
    agent = make_agent(SHIPPED_MODEL, **kwargs)
    agent.name = "advantage_4p"
    return agent
