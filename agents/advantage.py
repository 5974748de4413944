"""A heuristic overruled where a network learned from roll-outs says another move wins more.

``python -m training.advantage`` plays the game's heuristic (the recipe's ``base``) against its
opponents and, at each decision of one of the game's recipes (``GameSpec.advantage``, data the game
declares: ``AdvantageRecipe``), plays both choices out from states drawn from the seat's belief: the
heuristic's best move of the recipe's take set and its best other move, the heuristic playing on
afterwards. The paired difference of the win shares is the label; a small network learns it from the
recipe's feature columns. This agent then plays the heuristic, except at those decisions, where it
makes the take move when the network predicts that it wins more by more than ``margin`` (and the other
move when it predicts the opposite). That is one step of policy improvement (Bertsekas' roll-out)
distilled into a network: one round of expert iteration, with roll-out values as the targets. A model
labelled on the play of an earlier model (``--improve``) plays that model everywhere else, so models of
several decisions chain (Keine Ahnung's shipped ``advantage_4p`` is its ``reserve`` model over its
``call`` model, ``advantage_4p_call``). Nothing here names a game: the recipe, the game's agents and its
feature sets come through the game's spec.

Files: ``NAME.npz`` (the arrays: the inputs' mean and spread ``input_mean``/``input_scale`` and the
layers ``layer.K.weight`` ``[out, in]`` / ``layer.K.bias``, float32) and the sidecar ``NAME.json``
(:data:`MODEL_FORMAT`: game, players, rules, observation version and size, the recipe it was trained
for, the network's hidden sizes, the decisions trained on, the command's seed, the earlier model it
continues (file name and SHA-256; it must lie beside it) and the SHA-256 of the ``.npz``). Both are read
without running anything: JSON, and ``numpy.load(allow_pickle=False)``.

    import agents
    agent = agents.make("advantage_4p")                                    # Keine Ahnung's shipped model
    agent = agents.make("advantage:runs/adv/model.npz", game="gap_v0")     # one of yours
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import numpy as np

from .base import (check_arrays, check_batch, layer_shapes, mlp_forward, mlp_layers, npz_path, read_weights, relu,
                   sidecar_path, write_weights)
from .ppo import PolicySidecar

MODEL_FORMAT = "keine_ahnung_env.advantage/1"

SHIPPED_MODEL = Path(__file__).parent / "checkpoints" / "keine_ahnung_v0_4p_reserve_advantage.npz"
"""The shipped 4-player model (``agents.make("advantage_4p")``): the ``reserve`` decision over
:data:`SHIPPED_CALL_MODEL`, which lies beside it (figures: docs/results.md)."""
SHIPPED_CALL_MODEL = Path(__file__).parent / "checkpoints" / "keine_ahnung_v0_4p_call_advantage.npz"
"""The 4-player ``call`` model (``agents.make("advantage_4p_call")``, the ``reserve`` model's
earlier model; figures: docs/results.md)."""


@dataclasses.dataclass(frozen=True)
class AdvantageModelInfo(PolicySidecar):
    """The sidecar of an advantage model (see the module docstring). The fields every policy sidecar
    has match ``agents.ppo.CheckpointInfo``, so the registry's checks apply unchanged."""

    recipe: dict
    """the game's ``AdvantageRecipe`` the model was trained for, as a dict."""
    decision: str = ""
    """the name of that recipe among ``GameSpec.advantage``'s decisions (informative: the recipe itself
    identifies it; older sidecars lack it)."""
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
    device: str = ""
    """the torch device the network was fitted on (information only; the model plays in NumPy)."""
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

        problems = field_problems(info, more_counts=("playouts", "seed"), more_strings=("continuation", "continuation_sha256",
                                                                                    "decision", "device"))
        if info.activation != "relu":
            problems.append(f"activation={info.activation!r}; allowed: 'relu'")
        if problems:
            raise ValueError(f"advantage model sidecar {where}: " + "; ".join(problems))
        return info

    def layer_shapes(self, input_size: int) -> dict[str, tuple[int, ...]]:
        """Every array the ``.npz`` must hold, with its shape (``weight`` is ``[out, in]``; one output)."""
        shapes = {"input_mean": (input_size,), "input_scale": (input_size,)}
        return {**shapes, **layer_shapes([input_size, *self.net_arch, 1], "layer")}


def advantage_recipe(game: Any, decision: str = "") -> tuple[str, Any]:
    """``(decision, recipe)``: the advantage recipe ``decision`` (""; the first) of ``game`` (a registered
    name or a ``GameSpec``); ValueError names the games that offer recipes, or the game's decisions."""
    from keine_ahnung_env import registry

    recipes = registry.game_hook(game, "advantage", "advantage recipe")
    name = decision or next(iter(recipes))
    if name not in recipes:
        spec_name = game if isinstance(game, str) else game.name
        raise ValueError(f"decision {name!r} for {spec_name}; allowed: {', '.join(recipes)}")
    return name, recipes[name]


def model_recipe(info: AdvantageModelInfo, where: str):
    """``(spec, decision, recipe)``: the game's recipe the model was trained for (found among
    ``GameSpec.advantage``'s decisions by the recorded recipe), refused where it matches none."""
    from keine_ahnung_env import registry

    spec = registry.game_spec(info.game, info.num_players, **{k: v for k, v in info.rules.items()
                                                              if k != "num_players"})
    if info.observation_version != spec.observation_version:
        raise ValueError(f"{where} reads observation version {info.observation_version}; advantage models read "
                         f"the current one ({spec.observation_version}): retrain it with python -m training.advantage")
    if not spec.hooks.advantage:
        raise ValueError(f"{where}: {info.game} offers no advantage recipe (GameSpec.advantage)")
    differences = {}
    for decision, recipe in spec.hooks.advantage.items():
        differences[decision] = recipe.matches(info.recipe)
        if not differences[decision]:
            return spec, decision, recipe
    closest = min(differences, key=lambda d: len(differences[d]))
    raise ValueError(f"{where} was trained for another advantage recipe of {info.game} (closest: the "
                     f"{closest!r} decision, which differs in {', '.join(differences[closest])}); retrain it "
                     "with python -m training.advantage")


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
    _, _, recipe = model_recipe(info, where)
    arrays = read_weights(target, info.sha256, where)
    _check_arrays(arrays, info, int(recipe.input_columns().size), where)
    return arrays, info


def recipe_decisions(recipe, first: int, other_not: np.ndarray, heuristic: Any, features: Any,
                     obs: np.ndarray, mask: np.ndarray) -> tuple[np.ndarray, ...]:
    """``(rows, feats, take, other)``: the rows of ``obs``/``mask`` whose decision a recipe's network makes
    (a take action and another move legal, inside the gate, the heuristic's best other move not one of
    ``other_not``), their feature rows, take masks and the heuristic's best other moves. The agent and
    ``training.advantage`` both ask this, so they decide and label the same decisions."""
    rows = np.flatnonzero(recipe.candidates(mask, first))
    feats = features(obs[rows], mask[rows]) if rows.size else np.zeros((0, features.size), np.float32)
    keep, take = recipe.decided(feats, mask[rows], first)
    rows, feats = rows[keep], feats[keep]
    if rows.size == 0:
        return rows, feats, take, np.zeros(0, np.int64)
    rest = mask[rows] & ~take
    other = np.asarray(heuristic.act(obs[rows], rest), np.int64)
    illegal = ~rest[np.arange(rows.size), other]
    if illegal.any():
        raise ValueError(f"{getattr(heuristic, 'name', 'the heuristic')} answered {other[illegal][0]}, a move outside "
                         "the mask it was given (its best move other than the recipe's take set); a recipe's base "
                         "agent must keep to the mask")
    keep = ~np.isin(other, other_not)
    return rows[keep], feats[keep], take[keep], other[keep]


class AdvantageAgent:
    """The recipe's heuristic, overruled at the recipe's decisions by the network (module docstring).
    A model trained on the play of an earlier model (``training.advantage --improve``) plays that model
    everywhere else: ``continuation``, the earlier model's agent (None: the recipe's heuristic)."""

    def __init__(self, arrays: dict[str, np.ndarray], info: AdvantageModelInfo, margin: float = 0.0,
                 seed: int | None = None, name: str = "advantage", continuation: Any = None):
        import agents

        if isinstance(margin, bool) or not isinstance(margin, (int, float, np.integer, np.floating)) \
                or not 0.0 <= float(margin) < 1.0:
            raise ValueError(f"margin={margin!r}; allowed: a number from 0 up to 1 (win share the network must "
                             "predict before it departs from the heuristic)")
        self.info = info
        self.name = name
        self.margin = float(margin)
        self.spec, self.decision, self.recipe = model_recipe(info, f"advantage model for {info.game}")
        self.first = self.spec.action_names.index(self.recipe.action)
        self.other_not = np.array([self.spec.action_names.index(a) for a in self.recipe.other_not], np.int64)
        self.features = self.spec.features(self.recipe.features)
        self.columns = self.recipe.input_columns()
        self.mean, self.scale = arrays["input_mean"], arrays["input_scale"]
        self.layers = mlp_layers(arrays, "layer", len(info.net_arch) + 1)
        self.heuristic = agents.make(self.recipe.base, game=info.game, seed=seed, num_players=info.num_players,
                                     rules={k: v for k, v in info.rules.items() if k != "num_players"} or None)
        """the recipe's heuristic: its best move of the take set and its best other move are the two choices."""
        self.base = continuation if continuation is not None else self.heuristic
        """who plays everywhere else: the heuristic, or the earlier model the labels continued with."""
        self.decisions = 0
        """decisions the network was asked about (the recipe's gate)."""
        self.changed = 0
        """of those, decisions where it departed from the heuristic."""

    def reseed(self, seed: int | None) -> None:
        """Reseeds the heuristic's tie-breaks (the network itself draws nothing)."""
        for agent in {id(self.heuristic): self.heuristic, id(self.base): self.base}.values():
            if callable(getattr(agent, "reseed", None)):
                agent.reseed(seed)

    def advantage(self, features: np.ndarray) -> np.ndarray:
        """[n] predicted win-share gain of the take set over the heuristic's other move, from rows of the
        recipe's feature set."""
        x = (np.asarray(features, np.float32)[:, self.columns] - self.mean) / self.scale
        return mlp_forward(x, self.layers, relu)[:, 0]

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        obs, mask = check_batch(self.name, observation, action_mask, self.spec.observation_size,
                                self.spec.num_actions, self.info)
        out = np.asarray(self.base.act(obs, mask), np.int64).copy()
        rows, feats, take, other = recipe_decisions(self.recipe, self.first, self.other_not, self.heuristic,
                                                    self.features, obs, mask)
        if rows.size == 0:
            return out
        gain = self.advantage(feats)
        takes = take[np.arange(rows.size), out[rows]]
        want = np.where(takes, gain > -self.margin, gain > self.margin)
        if self.recipe.take_width() == 1:
            taken = np.full(rows.size, self.first)
        elif (want & ~takes).any():
            taken = np.asarray(self.heuristic.act(obs[rows], take), np.int64)
        else:
            taken = out[rows]
        # Where the network agrees with the move played, that move stays.
        chosen = np.where(want == takes, out[rows], np.where(want, taken, other))
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
    if path is None:
        raise ValueError("the advantage agent needs a path: advantage:<model .npz> (written by python -m "
                         "training.advantage)")
    return _make(path, seed, margin, num_players, game, rules, chain=())


CONTINUATION_PREFIX = "advantage:"
"""A sidecar's ``continuation`` naming an earlier model (the file name, next to the model) starts so."""


def _make(path: str | Path, seed: int | None, margin: float, num_players: int | None, game: str | None,
          rules: dict | None, chain: tuple[str, ...]) -> AdvantageAgent:
    """Loads a model and, where it continues an earlier model, that model first (from the same folder,
    its SHA-256 checked against the sidecar's ``continuation_sha256``)."""
    from .ppo import check_compatible

    arrays, info = load_model(path, game)
    where = f"advantage model {npz_path(path)}"
    if num_players is not None:
        check_compatible(info, info.game, int(num_players), rules, where=where)
    continuation = None
    if info.continuation.startswith(CONTINUATION_PREFIX):
        name = info.continuation[len(CONTINUATION_PREFIX):]
        earlier = npz_path(path).parent / name
        if Path(name).name != name or not earlier.is_file():
            raise ValueError(f"{where} continues the earlier model {name!r}, which must lie beside it "
                             f"({earlier}); copy it there (it is the model training.advantage --improve was given)")
        if info.sha256 in chain or len(chain) >= 8:
            raise ValueError(f"{where}: its chain of earlier models loops or is longer than 8")
        own_rules = {k: v for k, v in info.rules.items() if k != "num_players"}
        continuation = _make(earlier, seed, 0.0, info.num_players, info.game, own_rules, chain + (info.sha256,))
        if continuation.info.sha256 != info.continuation_sha256:
            raise ValueError(f"{where} continues {earlier}, but that file is not the model it was trained on "
                             f"(SHA-256 {continuation.info.sha256[:12]}..., recorded {info.continuation_sha256[:12]}...)")
    return AdvantageAgent(arrays, info, margin=margin, seed=seed, name=f"advantage:{Path(path).name}",
                          continuation=continuation)


def make_shipped_agent(**kwargs: Any) -> AdvantageAgent:
    """``agents.make("advantage_4p")``: the shipped model (:data:`SHIPPED_MODEL`)."""
    agent = make_agent(SHIPPED_MODEL, **kwargs)
    agent.name = "advantage_4p"
    return agent


def make_shipped_call_agent(**kwargs: Any) -> AdvantageAgent:
    """``agents.make("advantage_4p_call")``: the ``call`` model alone (:data:`SHIPPED_CALL_MODEL`)."""
    agent = make_agent(SHIPPED_CALL_MODEL, **kwargs)
    agent.name = "advantage_4p_call"
    return agent


SHIPPED_BY_SIZE = {
    2: Path(__file__).parent / "checkpoints" / "keine_ahnung_v0_2p_reserve_advantage.npz",
    3: Path(__file__).parent / "checkpoints" / "keine_ahnung_v0_3p_call_advantage.npz",
    4: SHIPPED_MODEL,
    5: Path(__file__).parent / "checkpoints" / "keine_ahnung_v0_5p_call_advantage.npz",
}
"""Keine Ahnung's shipped advantage model per table size (``agents.make("advantage_<P>p")``): the
``reserve`` model over its ``call`` model where the ``reserve`` labels gained on held-out decisions,
else the ``call`` model alone; the commands that made them and their figures: docs/results.md."""


def shipped_model(num_players: int) -> Path:
    """Keine Ahnung's shipped advantage model at ``num_players`` (:data:`SHIPPED_BY_SIZE`); ValueError
    naming the sizes there are for another."""
    if int(num_players) not in SHIPPED_BY_SIZE:
        raise ValueError(f"no shipped advantage model for {num_players} players; shipped at "
                         f"{', '.join(str(p) for p in sorted(SHIPPED_BY_SIZE))} players")
    return SHIPPED_BY_SIZE[int(num_players)]


def make_shipped_size_agent(size: int, **kwargs: Any) -> AdvantageAgent:
    """``agents.make("advantage_<size>p")``: the shipped model of that table size (:func:`shipped_model`;
    the presets at 2, 3 and 5 players bind ``size``). ValueError for another ``num_players``, naming
    the shipped sizes."""
    asked = kwargs.pop("num_players", size)
    if asked is not None and int(asked) != size:
        names = ", ".join(f"advantage_{p}p" for p in sorted(SHIPPED_BY_SIZE))
        raise ValueError(f"advantage_{size}p plays {size} players, not {asked}; the shipped advantage agents: "
                         f"{names} (or `learned` for the table at hand)")
    agent = make_agent(shipped_model(size), num_players=size, **kwargs)
    agent.name = f"advantage_{size}p"
    return agent
