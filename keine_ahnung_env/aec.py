"""A generic PettingZoo AEC environment over one game (B=1) of any batched core.

Game modules subclass :class:`CoreAECEnv` (setting ``metadata["name"]``) and pass a
:class:`~keine_ahnung_env.game_spec.GameSpec`; ``wrap_aec`` adds PettingZoo's standard wrappers. The
core decides who acts, what is legal, every reward and when the game ends; this class only
translates seats to agent names and arrays to PettingZoo dictionaries.
"""

from __future__ import annotations

from typing import Any

import gymnasium
import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .game_spec import RENDER_MODES, GameSpec, check_bool, check_render_mode
from .pictures import Renderer, render_modes

ILLEGAL_REWARD = -1
"""Reward of an agent whose illegal move ends the game under ``wrap_aec`` (PettingZoo's default)."""


def wrap_aec(env: AECEnv, illegal_reward: float = ILLEGAL_REWARD) -> AECEnv:
    """PettingZoo's classic wrapping: illegal moves terminate the game with ``illegal_reward`` for
    the mover, out-of-range actions fail an assertion, and call order is enforced."""
    env = wrappers.TerminateIllegalWrapper(env, illegal_reward=illegal_reward)
    env = wrappers.AssertOutOfBoundsWrapper(env)
    return wrappers.OrderEnforcingWrapper(env)


class CoreAECEnv(AECEnv):
    """One game of a batched core as a PettingZoo AEC environment; seat p is agent ``player_p``.

    Observations are ``{"observation": float32 [O], "action_mask": int8 [A]}``; the mask is all zeros
    for an agent that is not to act (and for everybody once the game is over). Rewards come from the
    core at the end of the game and are accumulated the PettingZoo way; the final ``infos[agent]``
    hold ``scores`` (every seat's, in seat order), ``winner`` (False for all in a truncated game)
    and ``seat``. An illegal action raises ``ValueError`` naming the legal ones (the
    wrapped ``env()`` instead ends the game with a penalty).

    ``copy.deepcopy`` and ``pickle`` keep the whole state, so a copy made mid-game continues exactly
    as the original would (this takes precedence over ``EzPickle``'s rebuild from the constructor
    arguments, which would silently deal a new game).

    Args:
      spec: the game variant.
      render_mode: None, "ansi" (``render()`` returns the table as text), "rgb_array" (``render()``
        returns it as a picture, ``[H, W, 3]`` uint8) or "human" (the picture in a window, shown after
        every step and on ``render()``; needs a display and pygame, else ValueError here).
      render_reveal_all: show face-down cards, the draw pile and trophy values when rendering
        (for debugging; an agent's observation never shows them).
      render_seat: whose point of view pictures take: None (default: what the whole table sees, no
        seat's private cards) or a seat 0..P-1 (that seat's hand, hidden cards, own trophies...).
      normalize_obs: scale observations into [0, 1] (``observation / high``); default False keeps
        the core's raw counts, bounded by ``Box(0, high)``.
    """

    metadata = {"render_modes": list(RENDER_MODES), "name": "core_aec", "is_parallelizable": False, "render_fps": 1}

    def __init__(self, spec: GameSpec, render_mode: str | None = None, render_reveal_all: bool = False,
                 normalize_obs: bool = False, render_seat: int | None = None):
        super().__init__()
        self.render_mode = check_render_mode(render_mode, RENDER_MODES)
        # The modes this game offers (a game without pictures: text only), as checkers read them.
        self.metadata = {**self.metadata, "render_modes": render_modes(spec)}
        self.render_reveal_all = check_bool("render_reveal_all", render_reveal_all)
        if render_seat is not None and (isinstance(render_seat, (bool, np.bool_))
                                        or not isinstance(render_seat, (int, np.integer))
                                        or not 0 <= render_seat < spec.num_players):
            raise ValueError(f"render_seat={render_seat!r}; allowed: None (the public table) or a seat "
                             f"0..{spec.num_players - 1}")
        self.render_seat = None if render_seat is None else int(render_seat)
        self._renderer = Renderer(spec, self.render_mode, self.render_reveal_all)
        self.normalize_obs = check_bool("normalize_obs", normalize_obs)
        self.game = spec
        # Unseeded until reset(seed=...): a plain reset() deals a fresh random game.
        self.core = spec.make_core(1, None)
        self.possible_agents = spec.agent_names
        self.agents = self.possible_agents[:]
        self._scale = spec.observation_scale if normalize_obs else None
        high = np.ones(spec.observation_size, np.float32) if normalize_obs else spec.observation_high.astype(np.float32)
        # Built once: PettingZoo requires the very same space object on every call.
        self.observation_spaces = {
            a: spaces.Dict({
                "observation": spaces.Box(low=np.zeros_like(high), high=high, dtype=np.float32),
                "action_mask": spaces.Box(low=0, high=1, shape=(spec.num_actions,), dtype=np.int8),
            }) for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(spec.num_actions) for a in self.possible_agents}
        self._start()

    # ------------------------------------------------------------ PettingZoo API

    def observation_space(self, agent: str) -> spaces.Space:
        """The (cached) observation space of ``agent``."""
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        """The (cached) action space of ``agent``: ``Discrete(A)``."""
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict | None = None) -> None:
        """Deals a new game; with a seed the deal (and every later reshuffle) is reproducible."""
        if seed is not None:
            self.core.seed(seed)
        self.core.reset_games(np.zeros(1, np.intp))
        self._start()
        if self.render_mode == "human":
            self.render()

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        """``agent``'s view of the table and its legal actions (zeros unless it is to act)."""
        if not isinstance(agent, str) or agent not in self.possible_agents:
            raise ValueError(f"unknown agent {agent!r}; allowed: {', '.join(self.possible_agents)}")
        seat = self.possible_agents.index(agent)
        core = self.core
        obs = core.observe(seat)[0]
        if self._scale is not None:
            obs = obs * self._scale
        if self._to_act() == seat:
            mask = core.legal_mask[0].view(np.int8).copy()  # bool and int8 share a layout: one copy
        else:
            mask = np.zeros(self.game.num_actions, np.int8)
        return {"observation": obs, "action_mask": mask}

    def step(self, action) -> None:
        """Plays ``action`` for ``agent_selection`` (None for an agent that is already done)."""
        if not self.agents:
            raise ValueError("the game is over and every agent is done; call reset() before step()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        core = self.core
        if isinstance(action, np.ndarray) and action.shape == ():
            action = action[()]
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise ValueError(f"action={action!r} for {agent}: an integer action id is expected; "
                             f"legal: {self.game.legal_names(core.legal_mask[0])}")
        action = int(action)
        if not (0 <= action < self.game.num_actions) or not core.legal_mask[0, action]:
            name = self.game.action_name(action) if 0 <= action < self.game.num_actions else "out of range"
            raise ValueError(f"illegal action {action} ({name}) for {agent}; "
                             f"legal: {self.game.legal_names(core.legal_mask[0])}")
        # The mover collects its reward through last() before acting; the standard AEC pattern
        # clears it so that _cumulative_rewards holds what happened since.
        self._cumulative_rewards[agent] = 0
        core.step(np.array([action], np.intp))
        self.rewards = dict(zip(self.possible_agents, core.rewards[0].tolist()))
        if core.terminated[0] or core.truncated[0]:
            terminated, truncated = bool(core.terminated[0]), bool(core.truncated[0])
            self.terminations = dict.fromkeys(self.agents, terminated)
            self.truncations = dict.fromkeys(self.agents, truncated)
            winners = self.game.winners(core)[0] if terminated else np.zeros(self.game.num_players, bool)
            scores = [int(s) for s in core.scores[0]]
            for p, a in enumerate(self.possible_agents):
                self.infos[a] = {"scores": list(scores), "winner": bool(winners[p]), "seat": p}
            self._accumulate_rewards()
            self._deads_step_first()
        else:
            self.agent_selection = self.possible_agents[int(core.current[0])]
            self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | np.ndarray | None:
        """The table as text ("ansi"; face-down cards show as ``??``), as a picture ("rgb_array",
        ``[H, W, 3]`` uint8, from ``render_seat``'s point of view) or in a window ("human"); hidden
        cards are shown only with ``render_reveal_all=True``."""
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        return self._renderer.render(self.core, self.render_seat)

    def close(self) -> None:
        """Closes the window of render mode "human", if one is open."""
        self._renderer.close()

    def __getstate__(self) -> dict[str, Any]:
        """The whole state (see the class docstring)."""
        return self.__dict__.copy()

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    # ------------------------------------------------------------ helpers

    def _to_act(self) -> int:
        """The seat to act, or -1 when the game is over."""
        core = self.core
        return -1 if (core.terminated[0] or core.truncated[0]) else int(core.current[0])

    def _start(self) -> None:
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.possible_agents[int(self.core.current[0])]
        self._skip_agent_selection = None
