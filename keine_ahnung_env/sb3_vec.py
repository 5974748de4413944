"""A generic Stable-Baselines3 ``VecEnv``: N games of one batched core, a learner seat in each.

One ``step`` is one engine call for the learner's N actions plus, per round of opponent play, one
``act`` call per opponent agent and one engine call (see ``solo.LearnerGames``); there is no Python
loop over games. Finished games are dealt again at once (SB3's auto-reset): their last observation
is in ``infos[i]["terminal_observation"]`` and the returned observation is the next game's first.

``env_method("action_masks")`` returns the N learner masks, so sb3-contrib's ``MaskablePPO`` works
unchanged; the env also works under ``VecMonitor`` (and carries its own ``episode`` entry).
Attributes set with ``set_attr`` are shared by all N games (one object holds them).
"""

from __future__ import annotations

import time
from typing import Any, Callable, Sequence

import gymnasium
import numpy as np
from gymnasium import spaces
from stable_baselines3.common.vec_env.base_vec_env import VecEnv, VecEnvIndices, VecEnvObs, VecEnvStepReturn

from .game_spec import GameSpec, check_bool
from .solo import LearnerGames


class CoreVecEnv(VecEnv):
    """N games of one variant as a Stable-Baselines3 ``VecEnv``, one learner seat per game.

    Args:
      spec: the game variant.
      num_envs: N, a positive integer.
      opponents: P-1 agents with the batched ``act(observation, action_mask)`` (the same line-up in
        every game), or a callable ``pool(rng) -> P-1 agents`` drawn for every new episode of every
        game (opponent j sits ``j + 1`` seats after the learner).
      seat: "rotate" (default: game i's k-th episode puts the learner at seat ``(i + k) % P``, so
        any N games cover the seats evenly), "random", or a fixed seat.
      seed: game i is dealt from ``(seed, i)``; the seat RNG and re-seedable opponents are seeded
        from it too. ``seed(s)`` before ``reset()`` does the same for the next reset.
      normalize_obs: scale observations into [0, 1] (default True); else raw counts in ``Box(0, high)``.
      illegal_reward: reward of an illegal action, which ends that game's episode (default -1;
        MaskablePPO never takes one); None raises ValueError instead.

    ``infos[i]`` at the end of an episode: ``terminal_observation``, ``episode``
    (``{"r": return, "l": learner steps, "t": seconds since creation}``), ``scores`` (every seat's),
    ``winner`` (the learner shares the win), ``learner_seat``, ``illegal_action`` and
    ``TimeLimit.truncated`` (the game hit ``max_turns``).
    """

    def __init__(self, spec: GameSpec, num_envs: int, opponents: Sequence[Any] | Callable[[np.random.Generator], Sequence[Any]],
                 seat: int | str | None = "rotate", seed: int | None = None, normalize_obs: bool = True,
                 illegal_reward: float | None = -1.0):
        if isinstance(num_envs, (bool, np.bool_)) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs={num_envs!r}; allowed: a positive integer")
        self.normalize_obs = check_bool("normalize_obs", normalize_obs)
        self.game = spec
        self.render_mode = None  # read by VecEnv.__init__ through get_attr
        self.num_envs = int(num_envs)  # get_attr needs it before VecEnv.__init__ sets it
        self.games = LearnerGames(spec, int(num_envs), opponents, seat=seat, seed=seed, illegal_reward=illegal_reward)
        self._scale = spec.observation_scale if normalize_obs else None
        high = np.ones(spec.observation_size, np.float32) if normalize_obs else spec.observation_high.astype(np.float32)
        super().__init__(int(num_envs), spaces.Box(low=np.zeros_like(high), high=high, dtype=np.float32),
                         spaces.Discrete(spec.num_actions))
        self._actions: np.ndarray | None = None
        self._t_start = time.time()
        self._started = False
        if seed is not None:
            self._seeds = [int(seed) + i for i in range(self.num_envs)]

    # ------------------------------------------------------------ VecEnv API

    def seed(self, seed: int | None = None) -> Sequence[int | None]:
        """Seeds the next ``reset()``: game i is dealt from ``(seed, i)`` (SB3 reports ``seed + i``).

        A seed that is not None or a non-negative integer raises ValueError and is not stored."""
        if seed is not None and (isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer))
                                 or seed < 0):
            raise ValueError(f"seed={seed!r}; allowed: None or a non-negative integer")
        return super().seed(seed)

    def reset(self) -> VecEnvObs:
        """Deals a new game in every slot (seeded if ``seed`` was given) and returns the N first
        learner observations."""
        if self._seeds[0] is not None:
            self.games.seed(int(self._seeds[0]))
        self._reset_seeds()
        self._reset_options()
        self.games.episodes[:] = 0
        self.games.deal(np.arange(self.num_envs))
        self._started = True
        self.reset_infos = [{"learner_seat": int(s)} for s in self.games.learner_seat]
        return self.games.observe(self._scale)

    def step_async(self, actions: np.ndarray) -> None:
        """Stores the N learner actions for ``step_wait``."""
        self._actions = np.asarray(actions)

    def step_wait(self) -> VecEnvStepReturn:
        """Plays the stored actions and the opponents; deals finished games again."""
        if not self._started:
            raise RuntimeError("call reset() before step()")
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async(): no actions to play")
        actions, self._actions = self._actions, None
        games = self.games
        rewards, terminated, truncated, illegal = games.learner_step(actions)
        dones = terminated | truncated
        infos: list[dict[str, Any]] = [{} for _ in range(self.num_envs)]
        ended = np.flatnonzero(dones)
        if ended.size:
            final_obs = games.observe(self._scale, games=ended)  # the ended games only
            elapsed = round(time.time() - self._t_start, 6)
            for row, b in enumerate(ended.tolist()):
                info = games.final_info(b, bool(terminated[b]), bool(illegal[b]))
                info["terminal_observation"] = final_obs[row]
                info["episode"] = {"r": float(games.returns[b]), "l": int(games.lengths[b]), "t": elapsed}
                info["TimeLimit.truncated"] = bool(truncated[b] and not terminated[b])
                infos[b] = info
            games.deal(ended)
        return games.observe(self._scale), rewards, dones, infos

    def close(self) -> None:
        """Nothing to release."""

    def get_attr(self, attr_name: str, indices: VecEnvIndices = None) -> list[Any]:
        """Per-game values for ``learner_seat``, ``episodes``; this object's attribute otherwise."""
        idx = list(self._get_indices(indices))
        if attr_name in ("learner_seat", "episodes"):
            values = getattr(self.games, attr_name)
            return [int(values[i]) for i in idx]
        return [getattr(self, attr_name)] * len(idx)

    def set_attr(self, attr_name: str, value: Any, indices: VecEnvIndices = None) -> None:
        """Sets an attribute of this object, shared by every game (``indices`` cannot single one out)."""
        idx = list(self._get_indices(indices))
        if sorted(idx) != list(range(self.num_envs)):
            raise ValueError(f"set_attr({attr_name!r}) for indices {idx}: the {self.num_envs} games share one "
                             "object; allowed: indices=None (all games)")
        setattr(self, attr_name, value)

    def env_method(self, method_name: str, *method_args, indices: VecEnvIndices = None, **method_kwargs) -> list[Any]:
        """Per-game methods: ``action_masks`` (bool [A] each) and ``render`` (text of each game,
        ``reveal_all=False`` by default)."""
        idx = list(self._get_indices(indices))
        if method_name == "action_masks":
            masks = self.games.action_masks()
            return [masks[i] for i in idx]
        if method_name == "render":
            reveal_all = bool(method_kwargs.get("reveal_all", method_args[0] if method_args else False))
            return [self.game.render(self.games.core, i, reveal_all) for i in idx]
        raise AttributeError(f"env_method({method_name!r}) is not supported; allowed: 'action_masks', 'render'")

    def env_is_wrapped(self, wrapper_class: type[gymnasium.Wrapper], indices: VecEnvIndices = None) -> list[bool]:
        """No game is wrapped by a gymnasium wrapper (they are rows of one core)."""
        return [False] * len(list(self._get_indices(indices)))

    def action_masks(self) -> np.ndarray:
        """[N, A] bool: the learner's legal actions in every game."""
        return self.games.action_masks()

    @property
    def learner_seat(self) -> np.ndarray:
        """[N] the learner's seat in each game's current episode (a copy)."""
        return self.games.learner_seat.copy()


def timed_vec_env(venv: VecEnv):
    """``venv`` wrapped so that the wall time spent inside it (``reset``, ``step``, ``env_method``: the
    games, the opponents' moves and any feature wrapper below) adds up in the wrapper's ``seconds``.
    The trainer prints it as the environment's share of the PPO phase, the benchmark likewise."""
    from stable_baselines3.common.vec_env import VecEnvWrapper

    class TimedVecEnv(VecEnvWrapper):
        seconds = 0.0

        def _timed(self, call, *args, **kwargs):
            start = time.perf_counter()
            try:
                return call(*args, **kwargs)
            finally:
                self.seconds += time.perf_counter() - start

        def reset(self):
            return self._timed(self.venv.reset)

        def step_async(self, actions):
            self._timed(self.venv.step_async, actions)

        def step_wait(self):
            return self._timed(self.venv.step_wait)

        def env_method(self, method_name, *method_args, indices=None, **method_kwargs):
            return self._timed(self.venv.env_method, method_name, *method_args, indices=indices, **method_kwargs)

    return TimedVecEnv(venv)
