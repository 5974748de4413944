"""The batched handle every game exposes: ``vector_env(num_envs, ...)`` over a game's core (any
:class:`~keine_ahnung_env.game_spec.BatchedCore`)."""

from __future__ import annotations

import numpy as np

from .game_spec import GameSpec


class StepResult:
    """What ``reset`` and ``step`` return, as arrays over the batch (B games, P players, A actions).

    Attributes:
      action_mask [B, A] bool: legal actions of the seat to act (all False for a finished game
        that was not reset).
      current_player [B] int: seat to act.
      rewards [B, P] float32: rewards of this step (non-zero only when a game ends).
      terminated [B] bool, truncated [B] bool: the game ended in this step (or earlier, without
        autoreset). With autoreset the other fields already show the next game.
      scores [B, P] int: trophy + prize points; for a game that ended in this step, its final scores.
      final_index [n] int: games that ended in this step.
      final_observation [n, P, O] float32: every seat's last observation of those games.
      observation [B, O] float32: the table as the seat to act sees it (computed on first access).
    """

    def __init__(self, env: "VectorEnv", rewards, terminated, truncated, scores, final_index, final_observation):
        self._env = env
        self._version = env._version
        self.action_mask = env.core.legal_mask.copy()
        self.current_player = env.core.current.astype(np.int64)
        self.rewards = rewards
        self.terminated = terminated
        self.truncated = truncated
        self.scores = scores
        self.final_index = final_index
        self.final_observation = final_observation
        self._observation = None

    @property
    def observation(self) -> np.ndarray:
        if self._observation is None:
            if self._version != self._env._version:
                raise RuntimeError("this result's observation was not read before the next step; read it earlier")
            self._observation = self._env.core.observe(self.current_player)
        return self._observation

    def __repr__(self) -> str:
        return (f"StepResult(B={self.action_mask.shape[0]}, current_player={self.current_player.tolist()[:8]}..., "
                f"terminated={int(self.terminated.sum())}, truncated={int(self.truncated.sum())})")


class VectorEnv:
    """B games of one variant stepped together; see ``StepResult`` for what each call returns."""

    def __init__(self, spec: GameSpec, num_envs: int, seed: int | None, autoreset: bool):
        if not isinstance(autoreset, bool):
            raise ValueError(f"autoreset={autoreset!r}; allowed: True or False")
        self.spec = spec
        self.core = spec.make_core(num_envs, seed)
        self.autoreset = autoreset
        self._first_seed = seed  # the first reset() deals the games this seed names
        self.num_envs = self.core.num_envs
        self.num_players = self.core.num_players
        self._version = 0

    @property
    def observation_size(self) -> int:
        return self.spec.observation_size

    def reset(self, seed: int | None = None) -> StepResult:
        """Deals new games in every slot; with a seed, game i is re-seeded from ``(seed, i)``."""
        seed = self._first_seed if seed is None else seed
        if seed is not None:
            self.core.seed(seed)  # validates first: a bad seed raises and changes nothing
        self._first_seed = None
        self.core.reset_games(np.arange(self.num_envs))
        self._version += 1
        B, P = self.num_envs, self.num_players
        return StepResult(self, np.zeros((B, P), np.float32), np.zeros(B, bool), np.zeros(B, bool),
                          self.core.scores.copy(), np.zeros(0, np.int64), np.zeros((0, P, self.observation_size), np.float32))

    def step(self, actions) -> StepResult:
        """One action per game (ignored for games already over); resolves to the next decisions."""
        core = self.core
        was_live = ~(core.terminated | core.truncated)
        core.step(actions)
        rewards = core.rewards.copy()
        terminated, truncated = core.terminated.copy(), core.truncated.copy()
        scores = core.scores.copy()
        ended = np.flatnonzero(was_live & (terminated | truncated))
        final_observation = np.stack([core.observe(p, games=ended) for p in range(self.num_players)], axis=1) if ended.size \
            else np.zeros((0, self.num_players, self.observation_size), np.float32)
        if self.autoreset and ended.size:
            core.reset_games(ended)
        self._version += 1
        return StepResult(self, rewards, terminated, truncated, scores, ended, final_observation)

    def observe(self, seat) -> np.ndarray:
        """[B, O] observations of ``seat`` (an int or one seat per game)."""
        seats = np.asarray(seat)
        if seats.dtype == bool or seats.dtype.kind not in "iu" or seats.shape not in ((), (self.num_envs,)) \
                or (seats.size and (seats.min() < 0 or seats.max() >= self.num_players)):
            raise ValueError(f"seat={seat!r}; allowed: an integer seat in 0..{self.num_players - 1}, or one such "
                             f"seat per game (shape ({self.num_envs},))")
        return self.core.observe(seats)
