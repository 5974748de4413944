"""Ray RLlib glue for every registered game: the batched core as RLlib's vectorised multi-agent env,
the masked PPO network, the heuristic agents as fixed policies, and the learner's statistics.

RLlib's ``MultiAgentEnvRunner`` steps a ``VectorMultiAgentEnv`` of ``num_envs_per_env_runner``
sub-environments, each a ``MultiAgentEnv`` episode of its own. Its stock vector env makes one Python
env per sub-environment; here :class:`BatchedEnvRunner` builds :class:`CoreVectorMultiAgentEnv`
instead: one game per sub-environment, all of them rows of one batched core (``GameSpec.make_core``),
so one env step is one compiled ``core.step`` for every game on the runner, one ``observe`` and one
feature call. Each game is an RLlib episode whose agents are the seats ``player_0 .. player_{P-1}``;
only the seat to act gets an observation, and when a game ends every seat gets its last observation,
its reward and ``terminated`` (or ``truncated`` at a turn limit). A finished game is dealt again on the
runner's next step (RLlib's ``"next_step"`` autoreset).

An observation is a dict (the layout of RLlib's action-masking example): ``"observations"``, the game's
policy features (``GameSpec.features``; ``"raw"`` is the scaled observation), ``"action_mask"``, the
legal actions as 0/1, and, when heuristic agents sit at the table, ``"raw"``, the raw observation they
read. :class:`MaskedPPOModule` is the learning policy: an MLP policy and value network whose logits
are masked (illegal actions get the smallest float), as RLlib's ``ActionMaskingTorchRLModule`` does.
:class:`HeuristicModule` plays one of the game's agents (``agents.make``) as a fixed RLlib policy;
:class:`SeatMapping` seats the learner and the opponents per episode.

Everything game-specific comes through the game door (``keine_ahnung_env.registry``, the ``GameSpec``,
its batched core, ``agents.make``). This module imports Ray: it needs the ``[rllib]`` extra.
"""

from __future__ import annotations

import random
from typing import Any

import gymnasium as gym
import numpy as np

try:
    import ray
    from ray.rllib.callbacks.callbacks import RLlibCallback
    from ray.rllib.core.columns import Columns
    from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
    from ray.rllib.core.rl_module.rl_module import RLModule
    from ray.rllib.core.rl_module.torch import TorchRLModule
    from ray.rllib.env.multi_agent_env import MultiAgentEnv
    from ray.rllib.env.multi_agent_env_runner import MultiAgentEnvRunner
    from ray.rllib.env.vector.vector_multi_agent_env import VectorMultiAgentEnv
    from ray.rllib.utils.torch_utils import FLOAT_MIN
except ImportError as exc:  # pragma: no cover - the message is the point
    raise ImportError("training.rllib_env needs Ray RLlib, which is an optional extra: "
                      "pip install -e '.[rllib]' (it pins its own gymnasium; see docs/rllib.md)") from exc
import torch

from keine_ahnung_env import registry

ENV_NAME = "keine_ahnung_env_rllib"
"""The name under which :func:`register` registers the one-game env with RLlib."""
LEARNER = "learner"
"""The module id of the learning policy."""


def agent_id(seat: int) -> str:
    """The RLlib agent id of a seat."""
    return f"player_{seat}"


def seat_of(agent: str) -> int:
    """The seat of an RLlib agent id (``player_2`` -> 2)."""
    return int(str(agent).rsplit("_", 1)[1])


def variant(config: dict):
    """The ``GameSpec`` an env config names: ``{"game", "num_players", "rules"}``."""
    return registry.game_spec(config["game"], int(config["num_players"]), **dict(config.get("rules") or {}))


def observation_space(spec, features, include_raw: bool) -> gym.spaces.Dict:
    """The per-seat observation space (see the module docstring)."""
    parts = {"observations": gym.spaces.Box(0.0, 1.0, (features.size,), np.float32),
             "action_mask": gym.spaces.Box(0.0, 1.0, (spec.num_actions,), np.float32)}
    if include_raw:
        parts["raw"] = gym.spaces.Box(0.0, spec.observation_high.astype(np.float32), dtype=np.float32)
    return gym.spaces.Dict(parts)


class _SeatSpaces(MultiAgentEnv):
    """What RLlib's runner reads of each sub-environment (``envs[i]``): the seats and their spaces.
    The games themselves are stepped by :class:`CoreVectorMultiAgentEnv`."""

    def __init__(self, spec, obs_space: gym.Space):
        super().__init__()
        self.possible_agents = [agent_id(p) for p in range(spec.num_players)]
        self.agents = list(self.possible_agents)
        self.observation_spaces = {a: obs_space for a in self.possible_agents}
        self.action_spaces = {a: gym.spaces.Discrete(spec.num_actions) for a in self.possible_agents}


class CoreVectorMultiAgentEnv(VectorMultiAgentEnv):
    """``num_envs`` games of one variant as RLlib's ``VectorMultiAgentEnv``, stepped as one batched core.

    Args:
      config: ``{"game", "num_players", "rules", "features", "include_raw"}`` (the env config of
        ``training.train_rllib``).
      num_envs: games (sub-environments).
      seed: the core's seed (game i of a seed is reproducible from ``(seed, i)``); ``reset(seed=)``
        re-seeds.
    """

    metadata = {"autoreset_mode": "next_step"}

    def __init__(self, config: dict, num_envs: int, seed: int | None = None):
        super().__init__()
        self.game = variant(config)
        self.features = self.game.features(config.get("features") or self.game.default_features)
        self.include_raw = bool(config.get("include_raw", False))
        self.num_envs = int(num_envs)
        self.core = self.game.make_core(self.num_envs, seed)
        P = self.num_players = self.game.num_players
        self.agent_ids = [agent_id(p) for p in range(P)]
        space = observation_space(self.game, self.features, self.include_raw)
        self.envs = [_SeatSpaces(self.game, space) for _ in range(self.num_envs)]
        self.single_observation_spaces = dict(self.envs[0].observation_spaces)
        self.single_action_spaces = dict(self.envs[0].action_spaces)
        self.single_observation_space = gym.spaces.Dict(self.single_observation_spaces)
        self.single_action_space = gym.spaces.Dict(self.single_action_spaces)
        self._autoreset = np.zeros(self.num_envs, bool)

    def _encode(self, raw: np.ndarray, mask: np.ndarray) -> list[dict]:
        """One observation dict per row of ``raw [n, O]`` and ``mask [n, A]``."""
        inputs = self.features(raw, mask if self.features.needs_mask else None)
        mask = mask.astype(np.float32)
        if self.include_raw:
            return [{"observations": x, "action_mask": m, "raw": r} for x, m, r in zip(inputs, mask, raw)]
        return [{"observations": x, "action_mask": m} for x, m in zip(inputs, mask)]

    def _to_act(self, rows: np.ndarray) -> list[dict]:
        """The observation of the seat to act in each game of ``rows`` (an id -> dict per game)."""
        seats = self.core.current[rows]
        encoded = self._encode(self.core.observe(seats, games=rows), self.core.legal_mask[rows])
        return [{self.agent_ids[s]: e} for s, e in zip(seats.tolist(), encoded)]

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        if seed is not None:
            self.core.seed(int(seed))
        rows = np.arange(self.num_envs)
        self.core.reset_games(rows)
        self._autoreset[:] = False
        return self._to_act(rows), [{} for _ in range(self.num_envs)]

    def step(self, actions: list[dict]):
        B, P = self.num_envs, self.num_players
        core = self.core
        live = ~self._autoreset
        chosen = np.zeros(B, np.int64)
        current = core.current
        for b in np.flatnonzero(live).tolist():
            seat_id = self.agent_ids[int(current[b])]
            try:
                chosen[b] = int(actions[b][seat_id])
            except (KeyError, TypeError, IndexError):
                raise ValueError(f"game {b}: no action for {seat_id}, the seat to act (got {actions[b]!r})") from None
        core.step(chosen, active=live)  # an illegal action raises ValueError naming the legal ones
        restart = np.flatnonzero(self._autoreset)
        if restart.size:
            core.reset_games(restart)
        ended = live & core.done
        observations: list[dict] = [{} for _ in range(B)]
        rewards: list[dict] = [{} for _ in range(B)]
        terminateds = [{"__all__": False} for _ in range(B)]
        truncateds = [{"__all__": False} for _ in range(B)]
        infos: list[dict] = [{} for _ in range(B)]
        going = np.flatnonzero(~ended)
        for b, obs in zip(going.tolist(), self._to_act(going)):
            observations[b] = obs
            # RLlib wants a reward with every observation of a seat that acted before; the protocol pays
            # only in the step that ends a game, so this is 0 (read from the core all the same).
            seat = seat_of(next(iter(obs)))
            rewards[b] = {self.agent_ids[seat]: float(core.rewards[b, seat])}
        finished = np.flatnonzero(ended)
        if finished.size:
            no_moves = np.zeros((finished.size, self.game.num_actions), bool)
            last = [self._encode(core.observe(p, games=finished), no_moves) for p in range(P)]
            shares = self.game.win_shares(core)[finished]
            scores = np.asarray(core.scores)[finished]
            reward = core.rewards[finished]
            term, trunc = core.terminated[finished], core.truncated[finished]
            for k, b in enumerate(finished.tolist()):
                ids = self.agent_ids
                observations[b] = {ids[p]: last[p][k] for p in range(P)}
                rewards[b] = {ids[p]: float(reward[k, p]) for p in range(P)}
                terminateds[b] = {**{ids[p]: bool(term[k]) for p in range(P)}, "__all__": bool(term[k])}
                truncateds[b] = {**{ids[p]: bool(trunc[k]) for p in range(P)}, "__all__": bool(trunc[k])}
                infos[b] = {ids[p]: {"win_share": float(shares[k, p]), "score": int(scores[k, p])} for p in range(P)}
        self._autoreset = ended
        return observations, rewards, terminateds, truncateds, infos

    def render(self):
        return tuple(self.game.render(self.core, b, False) for b in range(self.num_envs))


class GameMultiAgentEnv(MultiAgentEnv):
    """One game as a plain RLlib ``MultiAgentEnv`` (a :class:`CoreVectorMultiAgentEnv` of one game):
    for RLlib's own env checker and stock runners. Training uses :class:`BatchedEnvRunner`."""

    def __init__(self, config: dict | None = None):
        super().__init__()
        config = dict(config or {})
        self.games = CoreVectorMultiAgentEnv(config, 1, seed=config.get("seed"))
        view = self.games.envs[0]
        self.possible_agents = list(view.possible_agents)
        self.agents = list(view.possible_agents)
        self.observation_spaces = view.observation_spaces
        self.action_spaces = view.action_spaces

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        observations, infos = self.games.reset(seed=seed)
        return observations[0], infos[0]

    def step(self, action_dict: dict):
        observations, rewards, terminateds, truncateds, infos = self.games.step([action_dict])
        return observations[0], rewards[0], terminateds[0], truncateds[0], infos[0]


class BatchedEnvRunner(MultiAgentEnvRunner):
    """RLlib's multi-agent env runner with its sub-environments made by one batched core: the env
    is a :class:`CoreVectorMultiAgentEnv` of ``num_envs_per_env_runner`` games (env config as for
    :class:`CoreVectorMultiAgentEnv`), seeded from the config's seed and the runner's index."""

    def make_env(self):
        if getattr(self, "env", None) is not None:
            self.env.close()
        config = dict(self.config.env_config)
        seed = config.get("seed")
        if seed is not None:
            seed = (int(seed) + 1_000_003 * int(self.worker_index)) % 2**32
        self.env = CoreVectorMultiAgentEnv(config, self.config.num_envs_per_env_runner, seed=seed)
        self.num_envs = self.env.num_envs
        self._needs_initial_reset = True


def start_local_ray(num_cpus: int | None = None) -> None:
    """Starts a local Ray instance of ``num_cpus`` CPUs (None: all) for this process, without dashboard.
    It binds to the loopback interface only where ``training.train_rllib.keep_ray_on_loopback`` ran
    before Ray was imported (else Ray binds the machine's network address, as for a cluster)."""
    ray.init(num_cpus=num_cpus, include_dashboard=False, log_to_driver=False, configure_logging=False)


def register() -> None:
    """Registers :class:`GameMultiAgentEnv` with RLlib as :data:`ENV_NAME` (RLlib's config needs an
    env; the batched runner makes its own from the same env config)."""
    from ray.tune.registry import register_env

    register_env(ENV_NAME, lambda config: GameMultiAgentEnv(config))


# ----------------------------------------------------------------------------------------- the modules


def mlp(width: int, hidden: list[int], out: int, activation: str) -> torch.nn.Sequential:
    """Linear layers ``width -> hidden... -> out`` with ``activation`` between them."""
    layers: list[torch.nn.Module] = []
    act = {"tanh": torch.nn.Tanh, "relu": torch.nn.ReLU}[activation]
    for size in hidden:
        layers += [torch.nn.Linear(width, size), act()]
        width = size
    layers.append(torch.nn.Linear(width, out))
    return torch.nn.Sequential(*layers)


class MaskedPPOModule(TorchRLModule, ValueFunctionAPI):
    """The learning policy: separate MLP policy and value networks over ``obs["observations"]``, the
    policy's logits masked by ``obs["action_mask"]`` (log of the 0/1 mask, clamped at the smallest
    float, added to the logits: RLlib's action-masking example). ``model_config``: ``net_arch`` (hidden
    sizes) and ``activation`` (tanh or relu)."""

    def setup(self):
        width = self.observation_space["observations"].shape[0]
        hidden = [int(n) for n in self.model_config.get("net_arch", (256, 256))]
        activation = self.model_config.get("activation", "tanh")
        self.pi = mlp(width, hidden, int(self.action_space.n), activation)
        self.vf = mlp(width, hidden, 1, activation)

    def _forward(self, batch: dict, **kwargs) -> dict:
        obs = batch[Columns.OBS]
        logits = self.pi(obs["observations"])
        masked = logits + torch.clamp(torch.log(obs["action_mask"]), min=FLOAT_MIN)
        return {Columns.ACTION_DIST_INPUTS: masked}

    def compute_values(self, batch: dict, embeddings: Any = None):
        return self.vf(batch[Columns.OBS]["observations"]).squeeze(-1)

    def policy_weights(self) -> dict[str, np.ndarray]:
        """The policy network as ``pi.k.weight`` / ``pi.k.bias`` for the k-th linear layer (the export)."""
        return policy_weights({k: v for k, v in self.state_dict().items()})


def policy_weights(state: dict) -> dict[str, np.ndarray]:
    """The export arrays (``pi.k.weight``, ``pi.k.bias``, k counting linear layers) from a
    :class:`MaskedPPOModule` state dict (torch tensors or NumPy arrays)."""
    indices = sorted({int(name.split(".")[1]) for name in state if name.startswith("pi.")})
    out = {}
    for k, index in enumerate(indices):
        for part in ("weight", "bias"):
            value = state[f"pi.{index}.{part}"]
            value = value.detach().cpu().numpy() if hasattr(value, "detach") else np.asarray(value)
            out[f"pi.{k}.{part}"] = value.astype(np.float32)
    return out


class HeuristicModule(RLModule):
    """One of the game's agents as a fixed RLlib policy (never trained: it is left out of
    ``policies_to_train``). ``model_config``: ``agent`` (an ``agents.make`` spec), ``game``,
    ``num_players``, ``seed``. It reads the raw observation (``obs["raw"]``) and the mask and returns its actions."""

    def setup(self):
        import agents

        self.agent = agents.make(self.model_config["agent"], game=self.model_config["game"],
                                 seed=self.model_config.get("seed"), num_players=self.model_config.get("num_players"))

    def _forward(self, batch: dict, **kwargs) -> dict:
        obs = batch[Columns.OBS]
        raw = np.asarray(obs["raw"].cpu().numpy() if hasattr(obs["raw"], "cpu") else obs["raw"], np.float32)
        mask = np.asarray(obs["action_mask"].cpu().numpy() if hasattr(obs["action_mask"], "cpu")
                          else obs["action_mask"]) > 0.5
        return {Columns.ACTIONS: self.agent.act(raw, mask).astype(np.int64)}

    def _forward_train(self, *args, **kwargs):
        raise NotImplementedError("a heuristic agent is a fixed policy; leave it out of policies_to_train")

    def compile(self, *args, **kwargs):
        pass


class SeatMapping:
    """RLlib's ``policy_mapping_fn``: self-play maps every seat to :data:`LEARNER`; with opponents,
    each episode (game) seats the learner at one seat and an opponent module (``opponent_i``, drawn
    from the pool) at each other, drawn from the episode's id (so every seat of a game agrees)."""

    def __init__(self, num_players: int, num_opponents: int):
        self.num_players = num_players
        self.num_opponents = num_opponents

    def lineup(self, episode_id: str) -> list[str]:
        """The module id at each seat of the episode."""
        if not self.num_opponents:
            return [LEARNER] * self.num_players
        rng = random.Random(str(episode_id))
        learner = rng.randrange(self.num_players)
        return [LEARNER if seat == learner else f"opponent_{rng.randrange(self.num_opponents)}"
                for seat in range(self.num_players)]

    def __call__(self, agent: str, episode: Any = None, **kwargs: Any) -> str:
        return self.lineup(getattr(episode, "id_", ""))[seat_of(agent)]


class LearnerStats(RLlibCallback):
    """Logs the learner's win share per finished game (``learner_win_share``; in self-play it is every
    seat, so it is 1/P by construction) and per opponent module (``win_share_vs/opponent_i``)."""

    def on_episode_end(self, *, episode, metrics_logger=None, **kwargs) -> None:
        if metrics_logger is None:
            return
        learner_shares, opponents = [], set()
        for aid, single in episode.agent_episodes.items():
            module = episode.module_for(aid)
            infos = single.get_infos()
            info = infos[-1] if len(infos) else {}
            if module == LEARNER and "win_share" in info:
                learner_shares.append(info["win_share"])
            elif module != LEARNER:
                opponents.add(module)
        if not learner_shares:
            return
        share = float(np.mean(learner_shares))
        metrics_logger.log_value("learner_win_share", share, window=500)
        for module in sorted(opponents):
            metrics_logger.log_value(f"win_share_vs/{module}", share, window=500)
