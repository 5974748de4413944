"""One learner against fixed opponents: the batched driver and a generic Gymnasium environment.

:class:`LearnerGames` holds B games of one core in which one seat per game belongs to the learner
and every other seat to an opponent agent (anything with the batched
``act(observation [n, O], action_mask [n, A]) -> int [n]`` method of ``agents/base.py``). After the
learner's actions it lets the opponents play, each opponent agent called once per round on all the
games where it is to act, with one core step per round, until every game is back at a learner
decision or over. :class:`SoloEnv` is that driver with B=1 as a ``gymnasium.Env``; the
Stable-Baselines3 vector environment (``sb3_vec.py``) is the same driver with B=N.

Conventions shared by both:

* Opponents see the core's raw observation (float32 counts), whatever ``normalize_obs`` says for
  the learner: they are the project's agents, which read what ``vector_env`` gives them.
* Seats: ``seat`` is an int (a fixed seat), ``"rotate"`` (game i's k-th episode puts the learner at
  seat ``(i + k) % P``) or ``"random"`` / None (uniform each episode, from the driver's RNG).
  Opponents fill the other seats in turn order after the learner: opponent j sits at seat
  ``(learner + 1 + j) % P``.
* ``opponents`` is a sequence of P-1 agents (the same line-up in every game) or a callable
  ``pool(rng) -> sequence of P-1 agents`` called for each new episode of each game, so that the
  line-up may differ between games; games whose seats are held by the same agent object are
  batched together.
* An illegal learner action (in range but not legal) ends that episode at once with
  ``illegal_reward`` (default -1) and ``info["illegal_action"] = True``, as PettingZoo's
  ``TerminateIllegalWrapper`` does; ``illegal_reward=None`` raises ``ValueError`` instead. Actions
  outside ``0..A-1`` always raise.
* Seeding: ``seed(s)`` re-seeds game i of the core from ``(s, i)``, the driver's RNG, and every
  opponent that has a ``reseed(seed)`` method, each from its own child of ``s``.
* Memory: the driver holds a pool's agents only while they sit at a table. An agent no game seats
  any more is kept by a weak reference, so an agent the pool dropped (an old self-play snapshot)
  is freed, while one the pool still holds comes back unchanged (not re-seeded) when drawn again.
"""

from __future__ import annotations

import weakref
from typing import Any, Callable, Sequence

import gymnasium
import numpy as np
from gymnasium import spaces

from .game_spec import RENDER_MODES, GameSpec, check_bool, check_render_mode
from .pictures import Renderer, render_modes

SEAT_MODES = ("rotate", "random")
MAX_REDEALS = 1000
"""A new game that ends before the learner's first decision (possible only with unusual rules
options, e.g. a tiny deck) is dealt again; this many failures in a row mean it always does."""


def _check_agent(agent: Any, where: str) -> Any:
    if not callable(getattr(agent, "act", None)):
        raise ValueError(f"{where} is {agent!r}, which has no act(observation, action_mask) method; "
                         "allowed: agents with the batched act() of agents/base.py")
    return agent


class LearnerGames:
    """B games of one core: one learner seat per game, opponent agents on the others.

    The invariant between calls: every game is at a learner decision (``core.current`` is the
    learner's seat and ``core.legal_mask`` its legal actions), except games that ended in the
    last ``learner_step`` and were not dealt again yet.

    Args:
      spec: the game variant.
      num_envs: B.
      opponents: P-1 agents, or a callable ``pool(rng) -> P-1 agents`` (see the module docstring).
      seat: an int seat, "rotate", "random" or None (= "random").
      seed: seeds the core, the RNG and the opponents (None: fresh entropy, opponents untouched).
      illegal_reward: reward of an illegal learner action, which ends the episode; None raises.
      rng: the RNG for random seats and pools (default: one seeded from ``seed``).
    """

    def __init__(self, spec: GameSpec, num_envs: int, opponents: Sequence[Any] | Callable[[np.random.Generator], Sequence[Any]],
                 seat: int | str | None = "rotate", seed: int | None = None, illegal_reward: float | None = -1.0,
                 rng: np.random.Generator | None = None):
        P = spec.num_players
        self.spec = spec
        if seat is None:
            seat = "random"
        if isinstance(seat, (int, np.integer)) and not isinstance(seat, (bool, np.bool_)):
            if not 0 <= seat < P:
                raise ValueError(f"seat={seat!r}; allowed: None, 'rotate', 'random' or a seat in 0..{P - 1}")
            seat = int(seat)
        elif seat not in SEAT_MODES:
            raise ValueError(f"seat={seat!r}; allowed: None, 'rotate', 'random' or a seat in 0..{P - 1}")
        self.seat_mode = seat
        if illegal_reward is not None:
            if isinstance(illegal_reward, bool) or not isinstance(illegal_reward, (int, float, np.integer, np.floating)):
                raise ValueError(f"illegal_reward={illegal_reward!r}; allowed: a number or None (raise instead)")
            illegal_reward = float(illegal_reward)
        self.illegal_reward = illegal_reward
        if callable(opponents) and not hasattr(opponents, "act") and not isinstance(opponents, (list, tuple)):
            self._pool = opponents
            self._fixed = None
        else:
            self._pool = None
            self._fixed = self._check_lineup(opponents)
        self.core = spec.make_core(num_envs, seed)
        B = self.num_envs = self.core.num_envs
        self.num_players = P
        self.rng = rng if rng is not None else np.random.default_rng(seed)
        self.agents: list[Any] = []  # slot -> agent; a weakref.ref for an unseated pool agent; None = free
        self._agent_index: dict[int, int] = {}  # id(agent) -> slot
        self._free: list[int] = []
        self._numbers: list[int] = []  # slot -> registration number (seeds the agent; slots get reused)
        self._registered = 0
        self._seed: int | None = None
        self.learner_seat = np.zeros(B, np.int64)
        self.lineup = np.full((B, P), -1, np.int64)  # index into self.agents; -1 = the learner
        self.episodes = np.zeros(B, np.int64)  # episodes dealt so far in each game slot
        self.returns = np.zeros(B, np.float64)
        self.lengths = np.zeros(B, np.int64)
        stats = spec.episode_stats
        # The learner's own episode statistics (spec.episode_stats counters; Keine Ahnung: calls, successes).
        self.stat_counts = np.zeros((B, len(stats.counters) if stats else 0), np.int64)
        self._arange = np.arange(B)
        if self._fixed is not None:
            for agent in self._fixed:
                self._register(agent)
        if seed is not None:
            self.seed(seed)

    # ------------------------------------------------------------ copies

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state.pop("_agent_index", None)  # keyed by id(): meaningless for the copied agents
        state["agents"] = [self._agent_at(j) for j in range(len(self.agents))]  # weak references do not copy
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        # A deepcopy or unpickled copy holds new agent objects: index them by their new identities.
        self._agent_index = {id(agent): j for j, agent in enumerate(self.agents) if agent is not None}
        self._free = [j for j, agent in enumerate(self.agents) if agent is None]

    # ------------------------------------------------------------ set-up

    def _check_lineup(self, opponents: Any) -> list[Any]:
        P = self.spec.num_players
        if hasattr(opponents, "act") or isinstance(opponents, (str, bytes)) or not hasattr(opponents, "__len__"):
            raise ValueError(f"opponents={opponents!r}; expected a list of {P - 1} agents (num_players={P}) "
                             "or a callable pool(rng) returning such a list")
        if len(opponents) != P - 1:
            raise ValueError(f"{len(opponents)} opponents given for num_players={P}; expected exactly {P - 1} "
                             f"(one agent for each seat but the learner's)")
        return [_check_agent(a, f"opponents[{j}]") for j, a in enumerate(opponents)]

    def _register(self, agent: Any) -> int:
        """The slot of ``agent``, registering (and seeding) it if it is new."""
        key = id(agent)
        j = self._agent_index.get(key)
        if j is not None:
            if self.agents[j] is agent:
                return j
            if isinstance(self.agents[j], weakref.ref) and self.agents[j]() is agent:
                self.agents[j] = agent  # an unseated agent drawn again: the same object, not re-seeded
                return j
            # The id belonged to an agent that is gone: free its slot.
            del self._agent_index[key]
            self.agents[j] = None
            self._free.append(j)
        j = self._free.pop() if self._free else len(self.agents)
        if j == len(self.agents):
            self.agents.append(None)
            self._numbers.append(-1)
        self.agents[j] = agent
        self._agent_index[key] = j
        # Seeds follow the order of registration, never the slot (which depends on when agents are freed).
        self._numbers[j] = self._registered
        self._registered += 1
        if self._seed is not None:
            self._reseed_agent(j)
        return j

    def _agent_at(self, j: int) -> Any:
        """The agent in slot ``j`` (None if the slot is free or its unseated agent is gone)."""
        agent = self.agents[j]
        return agent() if isinstance(agent, weakref.ref) else agent

    def _release_unseated(self) -> None:
        """Pool agents that no game seats are held weakly from now on; slots of gone ones are freed."""
        seated = set(np.unique(self.lineup).tolist())
        for key, j in list(self._agent_index.items()):
            agent = self.agents[j]
            if isinstance(agent, weakref.ref):
                if agent() is None:
                    del self._agent_index[key]
                    self.agents[j] = None
                    self._free.append(j)
            elif j not in seated:
                try:
                    self.agents[j] = weakref.ref(agent)
                except TypeError:  # an object without weak references stays held
                    pass

    def _reseed_agent(self, j: int) -> None:
        agent = self._agent_at(j)
        if callable(getattr(agent, "reseed", None)):
            child = np.random.SeedSequence([self._seed, 0x0770, self._numbers[j]])
            agent.reseed(int(child.generate_state(1, np.uint32)[0]))

    def seed(self, seed: int | None) -> None:
        """Re-seeds the core's games from ``(seed, i)``, the seat/pool RNG and the opponents; takes
        effect from the next deal. None: fresh entropy for the core and RNG, opponents untouched."""
        self.core.seed(seed)
        self.rng = np.random.default_rng(seed)
        self._seed = seed
        if seed is not None:
            for j in range(len(self.agents)):
                self._reseed_agent(j)

    # ------------------------------------------------------------ dealing

    def deal(self, games) -> None:
        """Deals new episodes in ``games`` and plays the opponents up to the learner's first decision."""
        g = np.asarray(games, np.intp).reshape(-1)
        for _ in range(MAX_REDEALS):
            if g.size == 0:
                return
            self._seat(g)
            self.core.reset_games(g)
            self.returns[g] = 0.0
            self.lengths[g] = 0
            self.stat_counts[g] = 0
            self.play_opponents()
            core = self.core
            g = g[core.terminated[g] | core.truncated[g]]
        raise RuntimeError(f"games {g.tolist()} ended before the learner's first decision {MAX_REDEALS} times in a "
                           f"row; these rules options leave the learner nothing to decide (options: {self.spec.rules})")

    def _seat(self, g: np.ndarray) -> None:
        P = self.num_players
        if self.seat_mode == "rotate":
            seats = (g + self.episodes[g]) % P
        elif self.seat_mode == "random":
            seats = self.rng.integers(0, P, size=g.size)
        else:
            seats = np.full(g.size, self.seat_mode)
        self.episodes[g] += 1
        self.learner_seat[g] = seats
        offsets = np.arange(1, P)
        if self._pool is None:
            ids = np.array([self._agent_index[id(a)] for a in self._fixed], np.int64)
            rows = np.repeat(g, P - 1)
            cols = ((seats[:, None] + offsets) % P).reshape(-1)
            self.lineup[g] = -1
            self.lineup[rows, cols] = np.tile(ids, g.size)
        else:
            for b, s in zip(g.tolist(), seats.tolist()):
                lineup = self._check_lineup(self._pool(self.rng))
                self.lineup[b] = -1
                self.lineup[b, (s + offsets) % P] = [self._register(a) for a in lineup]
            self._release_unseated()

    # ------------------------------------------------------------ playing

    def play_opponents(self) -> np.ndarray:
        """Lets opponents act until every game is at a learner decision or over.

        Each round calls every opponent agent once, on all the games where it is to act, then steps
        all those games in one core call. Agents that can drive the compiled core themselves play
        first, each game until a seat they do not hold is to act: those sharing a
        ``play_together(core, games, agents, seat_agent)`` function (Keine Ahnung's compiled
        heuristics, whatever their mix) in one call for all their seats, others with a
        ``play_turns(core, games, holds)`` method one call each; where that returns False the agent is
        asked through ``act`` like the others. Returns the learner rewards [B] collected meanwhile.
        """
        core, ar = self.core, self._arange
        collected = np.zeros(self.num_envs, np.float64)
        while True:
            opp = ~(core.terminated | core.truncated) & (core.current != self.learner_seat)
            if not opp.any():
                return collected
            current = core.current.astype(np.intp)
            who = self.lineup[ar, current]
            played = self._play_together(opp, who, collected)
            for j in np.unique(who[opp]).tolist():
                if played:
                    break  # the turn passed on in some games: look again at who is to act
                play = getattr(self.agents[j], "play_turns", None)
                if play is None:
                    continue
                idx = np.flatnonzero(opp & (who == j))
                if play(core, idx, self.lineup[idx] == j):
                    # Only the step that ends a game pays, so a game's rewards now are its last step's.
                    collected[idx] += core.rewards[idx, self.learner_seat[idx]]
                    played = True
            if played:
                continue  # the turn passed on in those games: look again at who is to act
            acting = np.flatnonzero(opp)
            # Only the games where an opponent acts are encoded: late rounds often hold a handful.
            obs = core.observe(current[acting], games=acting)
            row_of = np.empty(self.num_envs, np.intp)
            row_of[acting] = np.arange(acting.size)
            actions = np.zeros(self.num_envs, np.int64)
            for j in np.unique(who[opp]).tolist():
                idx = np.flatnonzero(opp & (who == j))
                mask = core.legal_mask[idx]
                chosen = np.asarray(self.agents[j].act(obs[row_of[idx]], mask))
                if chosen.shape != (idx.size,) or not np.issubdtype(chosen.dtype, np.integer):
                    raise ValueError(f"opponent {self._agent_label(j)} returned {chosen.dtype} actions of shape "
                                     f"{chosen.shape}; expected integers of shape ({idx.size},), one per row")
                bad = (chosen < 0) | (chosen >= mask.shape[1])
                bad |= ~mask[np.arange(idx.size), np.clip(chosen, 0, mask.shape[1] - 1)]
                if bad.any():
                    r = int(np.flatnonzero(bad)[0])
                    raise ValueError(f"opponent {self._agent_label(j)} chose illegal action {int(chosen[r])} in game "
                                     f"{int(idx[r])}; legal there: {self.spec.legal_names(mask[r])}")
                actions[idx] = chosen
            core.step(actions, active=opp)
            collected += core.rewards[ar, self.learner_seat]

    def _play_together(self, opp: np.ndarray, who: np.ndarray, collected: np.ndarray) -> bool:
        """The games where an opponent with a ``play_together`` function is to act, played by one call
        of it with every agent sharing it seated there (``play_opponents``); adds the learner rewards
        to ``collected``. Whether any call played."""
        core = self.core
        together = {}  # play_together function -> indices of the seated agents that share it
        for j in np.unique(self.lineup[self.lineup >= 0]).tolist():
            play = getattr(self.agents[j], "play_together", None)
            if play is not None:
                together.setdefault(play, []).append(j)
        played = False
        for play, members in together.items():
            member = np.zeros(len(self.agents) + 1, bool)  # by agent index; the last entry: -1, the learner
            member[members] = True
            idx = np.flatnonzero(opp & member[who])
            if idx.size == 0:
                continue
            held = self.lineup[idx]
            used = np.unique(held[member[held]])  # the members seated in these games, in index order
            place = np.full(len(self.agents) + 1, -1, np.int64)  # agent index -> its place in used
            place[used] = np.arange(used.size)
            if play(core, idx, [self.agents[j] for j in used.tolist()], place[held]):
                # Only the step that ends a game pays, so a game's rewards now are its last step's.
                collected[idx] += core.rewards[idx, self.learner_seat[idx]]
                played = True
        return played

    def _agent_label(self, j: int) -> str:
        agent = self.agents[j]
        return f"{getattr(agent, 'name', type(agent).__name__)!r} ({type(agent).__name__})"

    def learner_step(self, actions) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Plays the learner's actions [B], then the opponents.

        Returns ``(rewards [B] float32, terminated [B] bool, truncated [B] bool, illegal [B] bool)``;
        ended games keep their final state until :meth:`deal`.
        """
        core, ar, A = self.core, self._arange, self.spec.num_actions
        acts = np.asarray(actions)
        if acts.shape != (self.num_envs,):
            acts = acts.reshape(-1) if acts.size == self.num_envs else acts
        if acts.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), one per game; got shape {np.shape(actions)}")
        if acts.dtype.kind == "f" and np.all(acts == np.round(acts)):
            acts = acts.astype(np.int64)  # some callers hand over whole-number floats
        if acts.dtype == bool or not np.issubdtype(acts.dtype, np.integer):
            raise ValueError(f"actions must be integers in 0..{A - 1}; got dtype {acts.dtype}")
        acts = acts.astype(np.int64)
        outside = (acts < 0) | (acts >= A)
        if outside.any():
            b = int(np.flatnonzero(outside)[0])
            raise ValueError(f"action {int(acts[b])} for game {b} is outside the action space; allowed: 0..{A - 1}; "
                             f"legal there: {self.spec.legal_names(core.legal_mask[b])}")
        live = ~(core.terminated | core.truncated)
        if not live.all():
            b = int(np.flatnonzero(~live)[0])
            raise RuntimeError(f"game {b} is over; deal it (reset) before stepping it again")
        legal = core.legal_mask[ar, acts]
        illegal = ~legal
        if illegal.any() and self.illegal_reward is None:
            b = int(np.flatnonzero(illegal)[0])
            raise ValueError(f"illegal action {int(acts[b])} ({self.spec.action_name(int(acts[b]))}) for game {b}; "
                             f"legal there: {self.spec.legal_names(core.legal_mask[b])}")
        rewards = np.zeros(self.num_envs, np.float64)
        if legal.any():
            stats = self.spec.episode_stats
            token = stats.before_step(core, acts, legal) if stats else None
            core.step(acts, active=legal)
            if stats:
                self.stat_counts += stats.after_step(core, token)[ar, self.learner_seat]
            rewards += core.rewards[ar, self.learner_seat]
            rewards += self.play_opponents()
        if illegal.any():
            rewards[illegal] = self.illegal_reward
        self.returns += rewards
        self.lengths += 1
        terminated = core.terminated | illegal
        truncated = core.truncated & ~illegal
        return rewards.astype(np.float32), terminated, truncated, illegal

    # ------------------------------------------------------------ queries

    def observe(self, scale: np.ndarray | None = None, games: np.ndarray | None = None) -> np.ndarray:
        """[B, O] float32: each game as its learner sees it (times ``scale`` when given); with ``games``
        (int array) only those rows, ``[len(games), O]``, without building the others."""
        if games is None:
            obs = self.core.observe(self.learner_seat)
        else:
            games = np.asarray(games, np.intp)
            obs = self.core.observe(self.learner_seat[games], games=games)
        return obs * scale if scale is not None else obs

    def action_masks(self) -> np.ndarray:
        """[B, A] bool: the learner's legal actions in each game (a copy)."""
        return self.core.legal_mask.copy()

    def final_info(self, b: int, terminated: bool, illegal: bool) -> dict[str, Any]:
        """What an ended episode of game ``b`` reports: every seat's ``scores``, whether the learner
        is among the ``winner``s (False when truncated or ended by an illegal action), its ``win_share``
        (1 / number of winners for a winner, else 0: what ``training.evaluate`` counts), its seat,
        ``illegal_action``, the ``opponents``' names and the
        game's own statistics (``spec.episode_stats``): the learner's counters (Keine Ahnung: ``calls``,
        ``call_successes``) and every seat's finals (Keine Ahnung: ``trophies``)."""
        core = self.core
        seat = int(self.learner_seat[b])
        winners = self.spec.winners(core)[b] if terminated and not illegal else None
        win = bool(winners is not None and winners[seat])
        opponents = [self._agent_name(int(j)) for j in self.lineup[b] if j >= 0]
        info = {"scores": [int(s) for s in core.scores[b]], "winner": win,
                "win_share": float(1.0 / winners.sum()) if win else 0.0, "learner_seat": seat,
                "illegal_action": bool(illegal), "opponents": opponents}
        stats = self.spec.episode_stats
        if stats:
            info.update({name: int(self.stat_counts[b, k]) for k, name in enumerate(stats.counters)})
            if stats.final is not None:
                finals = stats.final(core)[b]  # [P, F]
                info.update({name: [int(v) for v in finals[:, k]] for k, name in enumerate(stats.finals)})
        return info

    def _agent_name(self, j: int) -> str:
        agent = self.agents[j]
        return str(getattr(agent, "name", type(agent).__name__))


class SoloEnv(gymnasium.Env):
    """One seat of a game against fixed opponents, as a single-agent ``gymnasium.Env``.

    The observation is the learner's view (``Box(0, 1)`` with ``normalize_obs=True``, the default,
    else ``Box(0, high)`` of raw counts); the action is ``Discrete(A)``; ``action_masks()`` returns
    the learner's legal actions (bool [A]) for sb3-contrib's MaskablePPO. The reward is the learner
    seat's reward from the core (at the end of the game), or ``illegal_reward`` for an illegal
    action, which ends the episode. The final step's info holds ``scores``, ``winner``,
    ``learner_seat`` and ``illegal_action``; every info holds ``learner_seat``.

    Args:
      spec: the game variant.
      opponents: P-1 opponent agents, or a pool callable (see the module docstring).
      seat: None (a random seat each game, from the env's seeded ``np_random``), "rotate" or a seat.
      normalize_obs: scale observations into [0, 1].
      illegal_reward: reward of an illegal action (ends the episode); None raises ValueError.
      render_mode: None, "ansi" (text), "rgb_array" (a picture from the learner's seat, ``[H, W, 3]``
        uint8) or "human" (that picture in a window; needs a display and pygame, else ValueError);
        ``render_reveal_all`` shows every card (debugging).
    """

    metadata = {"render_modes": list(RENDER_MODES), "render_fps": 1}

    def __init__(self, spec: GameSpec, opponents, seat: int | str | None = None, normalize_obs: bool = True,
                 illegal_reward: float | None = -1.0, render_mode: str | None = None, render_reveal_all: bool = False):
        self.render_mode = check_render_mode(render_mode, RENDER_MODES)
        # The modes this game offers (a game without pictures: text only), as checkers read them.
        self.metadata = {**self.metadata, "render_modes": render_modes(spec)}
        self.render_reveal_all = check_bool("render_reveal_all", render_reveal_all)
        self.normalize_obs = check_bool("normalize_obs", normalize_obs)
        self.game = spec
        self._renderer = Renderer(spec, self.render_mode, self.render_reveal_all)
        self.games = LearnerGames(spec, 1, opponents, seat=seat, seed=None, illegal_reward=illegal_reward)
        self._scale = spec.observation_scale if normalize_obs else None
        high = np.ones(spec.observation_size, np.float32) if normalize_obs else spec.observation_high.astype(np.float32)
        self.observation_space = spaces.Box(low=np.zeros_like(high), high=high, dtype=np.float32)
        self.action_space = spaces.Discrete(spec.num_actions)
        self._needs_reset = True

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """Deals a new game and plays the opponents up to the learner's first decision.

        With a seed, the deal, the seat choice and (re-seedable) opponents are reproducible.
        """
        if seed is not None and (isinstance(seed, (bool, np.bool_)) or not isinstance(seed, (int, np.integer))
                                 or seed < 0):
            raise ValueError(f"seed={seed!r}; allowed: None or a non-negative integer")
        super().reset(seed=seed)
        if seed is not None:
            self.games.seed(seed)
        # Seat choices and pools draw from the env's own seeded generator (gymnasium convention).
        self.games.rng = self.np_random
        self.games.deal([0])
        self._needs_reset = False
        if self.render_mode == "human":
            self.render()
        return self.games.observe(self._scale)[0], {"learner_seat": int(self.games.learner_seat[0])}

    def step(self, action) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Plays the learner's action, then the opponents until it is the learner's turn again."""
        if self._needs_reset:
            raise RuntimeError("the episode is over (or never started); call reset() before step()")
        if isinstance(action, np.ndarray) and action.size == 1:
            action = action.reshape(-1)[0]
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise ValueError(f"action={action!r}; an integer action id in 0..{self.game.num_actions - 1} is expected")
        rewards, terminated, truncated, illegal = self.games.learner_step(np.array([action], np.int64))
        term, trunc = bool(terminated[0]), bool(truncated[0])
        info: dict[str, Any] = {"learner_seat": int(self.games.learner_seat[0])}
        if term or trunc:
            info.update(self.games.final_info(0, term, bool(illegal[0])))
            self._needs_reset = True
        if self.render_mode == "human":
            self.render()
        return self.games.observe(self._scale)[0], float(rewards[0]), term, trunc, info

    def action_masks(self) -> np.ndarray:
        """bool [A]: the learner's legal actions now (all False once the episode is over)."""
        if self._needs_reset:
            return np.zeros(self.game.num_actions, bool)
        return self.games.action_masks()[0]

    def render(self) -> str | np.ndarray | None:
        """The table as text ("ansi"), as a picture from the learner's seat ("rgb_array") or in a
        window ("human"); face-down cards hidden unless ``render_reveal_all``."""
        if self.render_mode is None:
            gymnasium.logger.warn("You are calling render method without specifying any render mode.")
            return None
        return self._renderer.render(self.games.core, int(self.games.learner_seat[0]))

    def close(self) -> None:
        """Closes the window of render mode "human", if one is open."""
        self._renderer.close()
