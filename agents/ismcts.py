"""A search agent: determinized Monte Carlo search over the states a seat's observation allows.

    import agents
    agent = agents.make("ismcts", game="keine_ahnung_v0", playouts=16, when="CALL", seed=0)
    actions = agent.act(observation, action_mask)        # [B, O], [B, A] -> int64 [B]

    python -m training.evaluate --players 4 --agents ismcts:playouts=16:when=CALL,counter,counter,counter --games 2000

At each decision it searches (``when``: every decision with more than one distinct move, or only
those where one of the listed actions is legal, e.g. ``CALL``) the agent

1. draws ``playouts`` complete states from the seat's belief (``GameSpec.belief.sample_states``:
   every hidden card and the draw order, each state as likely as the observation makes it);
2. lists the distinct moves (``GameSpec.search.candidate_moves`` where the game offers it: moves with
   the same effect, e.g. revealing any of several unknown cards, count once; otherwise every legal
   action);
3. plays every move in every sampled state (common random numbers: each move meets the same states
   and the same later chance events), then the roll-out agent in every seat to the end of the game,
   on the engine: one batched core for all moves, all samples and all the observations of the call
   (compiled heuristics drive it inside the engine; others answer by ``act`` round by round);
4. takes the move with the best mean win share, unless it beats the default move (the roll-out
   agent's own, or the ``default`` agent's) by less than ``margin`` standard errors of the paired
   difference (then the default move).

The roll-out agent defaults to the opponents of the game's first advantage recipe
(``GameSpec.advantage``: the strongest heuristic, whom the game's learned agents are valued against;
Keine Ahnung ``counter``, dnp ``tactician``, the gap game ``planner``), else the game's
``default_opponent``. :func:`recipe_search_options` gives the search over a learned agent that a game
declares through its recipe: the recipe's ``base`` rolls out the deciding seat, its ``opponents`` the
others, the learned agent gives the default move. ``agents.make("ismcts_4p")`` is Keine Ahnung's shipped
4-player search agent (:data:`SEARCH_4P`, those options over ``advantage_4p``).

A first look with ``screen`` of the ``playouts`` states per move comes first; only decisions where
some other move does at least as well as the roll-out agent's there, and differs from it in some
state, are played out in all of them (most searches change nothing, so this saves most of the budget).

This is determinized ("perfect information") Monte Carlo search, flat over the moves of the decision
(one level of search over a belief-sampled root, the usual first level of information-set MCTS). The
budget is ``playouts`` states per move: a decision with M distinct moves plays ``M * playouts``
games to their end. Decisions with a single legal action or a single distinct move cost nothing.

The agent reads nothing but its observation and mask: the hidden states are drawn from the belief
the observation implies, never read from the game being played. It works for every game whose spec
offers ``belief`` and whose core can branch rows (``gather``); another game is refused, naming what it
lacks.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from keine_ahnung_env import registry
from keine_ahnung_env.play_reading import check_slack, play_hooks, read_play, resample
from keine_ahnung_env.sampling import check_batch

from .base import play_seats

__all__ = ["SearchAgent", "make_agent", "make_search_4p_agent", "make_search_size_agent", "make_recipe_search_agent",
           "make_shipped_search_agent", "recipe_search_options", "SEARCH_4P"]


def play_out(core, agent) -> None:
    """Plays every game of ``core`` to its end with ``agent`` in every seat: in one call where the
    agent can drive the core itself (``play_turns``, e.g. the compiled ``counter``), else by ``act``
    round by round."""
    play = getattr(agent, "play_turns", None)
    if play is not None:
        live = np.flatnonzero(~core.done)
        if play(core, live, np.ones((live.size, core.num_players), bool)):
            return
    actions = np.zeros(core.num_envs, np.int64)
    while True:
        live = np.flatnonzero(~core.done)
        if live.size == 0:
            return
        actions[live] = agent.act(core.observe(core.current[live], games=live), core.legal_mask[live])
        core.step(actions, active=~core.done)


class SearchAgent:
    """Determinized Monte Carlo search with heuristic roll-outs (see the module docstring)."""

    name = "ismcts"

    def __init__(self, seed: int | None = None, game: str = registry.DEFAULT_GAME, playouts: int = 16,
                 rollout: str | None = None, margin: float = 2.0, when: str = "all", screen: int = 4,
                 max_rows: int = 16384, opponents: str | None = None, default: str | None = None,
                 num_players: int | None = None, rules: dict | None = None, belief: str = "observation",
                 particles: int = 64, slack: float = 0.4, model: str | None = None):
        """``playouts``: sampled states per distinct move (an integer >= 2); ``rollout``: the agent spec
        (``agents.make``) that plays every seat after the searched move, and whose own move is the
        default (None: :func:`default_rollout`, the opponents of the game's first advantage recipe,
        else the game's ``GameSpec.default_opponent``); ``margin``: standard errors of the paired
        difference a move needs over the roll-out agent's move (a non-negative number; 0: the best mean
        wins); ``when``: ``"all"`` (search
        every decision with more than one distinct move) or action names joined by ``+`` (e.g.
        ``"CALL"``: search only decisions where one of them is legal); ``screen``: states per move of a
        first look (0: none), after which only decisions where another move does at least as well as
        the roll-out agent's (and differs from it in some state) get the rest of the ``playouts``; ``max_rows``: the most
        games one roll-out batch holds (memory); ``opponents``: an agent spec that plays the other seats of
        the roll-outs (None: the roll-out agent plays every seat), e.g. ``counter`` where the agent knows
        whom it faces; ``default``: an agent spec whose move the search keeps unless another move beats it
        by the margin (None: the roll-out agent's), e.g. a learned agent searched over with fast
        heuristic roll-outs; ``num_players`` (optional: read from the
        observation width otherwise) and ``rules`` fix the variant.

        ``belief``: where the sampled states come from: ``"observation"`` (the belief from the observation
        alone) or ``"play"`` (the play-reading belief of ``keine_ahnung_env.play_reading``: ``particles``
        states from the observation's belief, weighted by the opponents' moves this round under the
        stated ``model`` (an agent spec; None: ``opponents``, else the roll-out agent) with ``slack``,
        then ``playouts`` of them drawn by weight). The play is read where the caller hands the agent
        its log (``act_reading``; the tournament of ``training.evaluate`` does); ``act`` alone, and a
        decision whose round the log does not cover from its start, use the observation's belief."""
        import agents

        if isinstance(playouts, bool) or not isinstance(playouts, (int, np.integer)) or playouts < 2:
            raise ValueError(f"playouts={playouts!r}; allowed: an integer >= 2 (sampled states per move)")
        if isinstance(margin, bool) or not isinstance(margin, (int, float, np.floating, np.integer)) \
                or not margin >= 0:
            raise ValueError(f"margin={margin!r}; allowed: a non-negative number (standard errors)")
        if isinstance(screen, bool) or not isinstance(screen, (int, np.integer)) or screen < 0 or screen == 1:
            raise ValueError(f"screen={screen!r}; allowed: 0 (no first look) or an integer >= 2 (states per move)")
        if isinstance(max_rows, bool) or not isinstance(max_rows, (int, np.integer)) or max_rows < 1:
            raise ValueError(f"max_rows={max_rows!r}; allowed: a positive integer")
        if rules is not None and not isinstance(rules, dict):
            raise ValueError(f"rules={rules!r}; allowed: None or a dict of rules options")
        entry = registry.game(game)  # ValueError listing the registered games
        self.game = entry.name
        self.rules = dict(rules or {})
        self.rules.pop("num_players", None)
        self.playouts = int(playouts)
        self.margin = float(margin)
        self.screen = int(screen)
        self.max_rows = int(max_rows)
        probe = registry.game_spec(self.game, entry.default_players if num_players is None else num_players,
                                   **self.rules)
        registry.game_hook(probe, "belief", "belief sampler", ", which the search agent needs")
        if not callable(getattr(type(probe.make_core(1, 0)), "gather", None)):
            raise ValueError(f"{self.game}'s core cannot branch rows (a classmethod gather(parts)), which the search "
                             "agent's roll-outs need")
        self._specs: dict[int, Any] = {} if num_players is None else {probe.observation_size: probe}
        if not isinstance(when, str) or not when.strip():
            raise ValueError(f"when={when!r}; allowed: 'all' or action names joined by '+', e.g. "
                             f"{probe.action_names[min(6, probe.num_actions - 1)]!r}")
        self.when = when.strip()
        self._when_actions = None
        if self.when != "all":
            names = [name.strip() for name in self.when.split("+")]
            unknown = [name for name in names if name not in probe.action_names]
            if unknown:
                raise ValueError(f"when={when!r}: no action named {unknown[0]!r} in {self.game}; allowed: 'all' or "
                                 f"action names joined by '+' ({', '.join(probe.action_names[:8])}, ...)")
            self._when_actions = np.array([probe.action_names.index(name) for name in names], np.intp)
        self.num_players = num_players
        if rollout is None:
            rollout = default_rollout(probe)
        self.rollout_spec = rollout
        self.rollout = agents.make(rollout, game=self.game, seed=seed, num_players=num_players,
                                   rules=rules if rules else None)

        def optional_agent(option: str, value, offset: int, none_means: str, example: str):
            """The agent an optional spec names (None stays None), seeded ``seed + offset``."""
            if value is None:
                return None
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"{option}={value!r}; allowed: None ({none_means}) or an agent spec, e.g. {example!r}")
            return agents.make(value, game=self.game, seed=None if seed is None else seed + offset,
                               num_players=num_players, rules=rules if rules else None)

        self.opponents_spec = opponents
        self.opponents = optional_agent("opponents", opponents, 1, "the roll-out agent in every seat", "counter")
        self.default_spec = default
        self.default = self.rollout if default is None else optional_agent(
            "default", default, 2, "the roll-out agent's move", "advantage_4p")
        if belief not in ("observation", "play"):
            raise ValueError(f"belief={belief!r}; allowed: 'observation' (from the observation alone) or 'play' "
                             "(weighted by the opponents' moves this round)")
        self.belief = belief
        self.reads_play = belief == "play"
        """True: the tournament hands ``act_reading`` each decision's log of the round."""
        if isinstance(particles, bool) or not isinstance(particles, (int, np.integer)) or particles < 1:
            raise ValueError(f"particles={particles!r}; allowed: a positive integer (states weighed per decision)")
        self.particles = int(particles)
        self.slack = check_slack(slack)
        self.model = None
        self.model_spec = None
        """the agent spec of the opponents' model (``belief="play"``; None otherwise)."""
        if self.reads_play:
            play_hooks(probe, "the search agent's belief='play'")
            self.model_spec = model or opponents or rollout
            self.model = agents.make(self.model_spec, game=self.game, num_players=num_players,
                                     rules=rules if rules else None)
        elif model is not None:
            raise ValueError("model= is the opponents' model of belief='play'; with belief='observation' leave it out")
        self.rng = np.random.default_rng(seed)
        self.readings = 0
        """searched decisions whose states were weighted by the play."""
        self.effective_sizes = 0.0
        """sum of those readings' effective sample sizes (mean: divided by ``readings``)."""
        self.decisions = 0
        """decisions taken (rows of ``act`` with a legal action)."""
        self.searched = 0
        """decisions searched (more than one distinct move)."""
        self.changed = 0
        """searched decisions where the search departed from the default move."""

    def reseed(self, seed: int | None) -> None:
        """Restarts the agent's generator (samples) and the roll-out agent's from ``seed``."""
        self.rng = np.random.default_rng(seed)
        if callable(getattr(self.rollout, "reseed", None)):
            self.rollout.reseed(seed)
        if callable(getattr(self.opponents, "reseed", None)):
            self.opponents.reseed(None if seed is None else seed + 1)
        if self.default is not self.rollout and callable(getattr(self.default, "reseed", None)):
            self.default.reseed(None if seed is None else seed + 2)

    # ------------------------------------------------------------------ the variant

    def spec_for(self, width: int):
        """The spec of the variant whose observations are ``width`` wide (the player count is read
        from it unless ``num_players`` was given)."""
        if width not in self._specs:
            if self.num_players is not None:
                raise ValueError(f"{self.name}: made for {self.num_players} players, whose observations are "
                                 f"{next(iter(self._specs))} wide; got width {width}")
            entry = registry.game(self.game)
            for players in entry.players:
                spec = registry.game_spec(self.game, players, **self.rules)
                self._specs.setdefault(spec.observation_size, spec)
            if width not in self._specs:
                raise ValueError(f"observation width {width} matches no {self.game} variant; allowed widths: "
                                 f"{sorted(self._specs)}")
        return self._specs[width]

    # ------------------------------------------------------------------ acting

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """One legal action per row (``int64 [B]``); rows without a legal action get 0."""
        return self.act_and_default(observation, action_mask)[0]

    def act_reading(self, observation: np.ndarray, action_mask: np.ndarray, logs: list) -> np.ndarray:
        """``act`` with each row's :class:`~keine_ahnung_env.play_reading.PlayLog` of the round (None where
        there is none): with ``belief="play"`` the searched rows with a log sample the play-reading belief."""
        return self.act_and_default(observation, action_mask, logs)[0]

    def act_and_default(self, observation: np.ndarray, action_mask: np.ndarray,
                        logs: list | None = None) -> tuple[np.ndarray, np.ndarray]:
        """``act``'s actions and, beside them, the default moves the search weighed them against (the
        same where it did not depart): ``(actions, defaults)``, both ``int64 [B]``. ``logs``: as for
        :meth:`act_reading`."""
        obs, mask = check_batch(observation, action_mask, game=self.game)
        if obs.shape[0] == 0:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        spec = self.spec_for(obs.shape[1])
        if mask.shape[1] != spec.num_actions:
            raise ValueError(f"action_mask must have {spec.num_actions} columns ({self.game} actions); got "
                             f"{mask.shape[1]}")
        default = np.asarray(self.default.act(obs, mask), np.int64)
        self.decisions += int(mask.any(1).sum())
        searched = mask.sum(1) > 1
        if self._when_actions is not None:
            searched &= mask[:, self._when_actions].any(1)
        rows = np.flatnonzero(searched)
        if rows.size == 0:
            return default, default
        if logs is not None and len(logs) != obs.shape[0]:
            raise ValueError(f"logs: {len(logs)} for {obs.shape[0]} observations; allowed: one per row (None: no log)")
        samples = [self._sample(spec, obs[r], None if logs is None else logs[r]) for r in rows]
        chosen = self.search(spec, samples, default[rows])
        out = default.copy()
        out[rows] = chosen
        return out, default

    def _sample(self, spec, observation: np.ndarray, log) -> Any:
        """``playouts`` states for one decision: from the observation's belief, or (``belief="play"`` with a
        log) drawn by weight from ``particles`` states weighted by the play."""
        if not self.reads_play or log is None:
            return spec.hooks.belief.sample_states(observation, self.playouts, self.rng)
        reading = read_play(spec, log, observation, self.particles, self.rng, self.model, slack=self.slack)
        self.readings += 1
        self.effective_sizes += reading.effective_size
        return resample(reading, self.playouts, self.rng)

    def move_values(self, spec, core, moves: list[int]) -> np.ndarray:
        """``[len(moves), core.num_envs]``: the deciding seat's win share after each move in each state of
        ``core`` (sampled states in which that seat is to act), the roll-out agents playing on."""
        return self._values(spec, [(core, list(moves), np.arange(core.num_envs))])[0]

    def search(self, spec, samples: list, default: np.ndarray) -> np.ndarray:
        """The moves for a list of decisions, each given as a core of sampled states in which the
        deciding seat (``core.current``) is to act, all alike in what that seat knows; ``default[i]``
        is the default move (the roll-out or ``default`` agent's) in decision i. Returns one move per decision."""
        chosen = np.array(default, np.int64, copy=True)
        plans = []
        for i, core in enumerate(samples):
            moves, base = self._moves(spec, core, int(default[i]))
            if len(moves) > 1:
                plans.append((i, core, moves, base))
        self.searched += len(plans)
        K = self.playouts
        first = min(self.screen, K) if self.screen else K
        # The first look: ``screen`` states per move. Where every other move does worse than the roll-out
        # agent's there, or exactly the same in every state, that move stays (the usual case).
        values = self._values(spec, [(core, moves, np.arange(first)) for _, core, moves, _ in plans])
        open_plans = []
        for plan, v in zip(plans, values):
            _, _, moves, base = plan
            diff = v - v[base]
            if first == K or ((diff.mean(1) >= 0) & (diff != 0).any(1)).any():
                open_plans.append((plan, v))
        if first < K and open_plans:
            rest = self._values(spec, [(core, moves, np.arange(first, K)) for (_, core, moves, _), _ in open_plans])
            open_plans = [(plan, np.concatenate([v, w], axis=1)) for (plan, v), w in zip(open_plans, rest)]
        for (i, _, moves, base), v in open_plans:
            diff = v - v[base]
            se = diff.std(1, ddof=1) / np.sqrt(v.shape[1])
            gain = diff.mean(1) - self.margin * se
            gain[base] = 0.0
            best = int(np.argmax(gain))
            if gain[best] > 0:
                chosen[i] = moves[best]
                self.changed += 1
        return chosen

    def _moves(self, spec, core, default: int) -> tuple[list[int], int]:
        """The distinct moves in the sampled states (their game 0: every sample has the same ones)."""
        if spec.hooks.search is not None:
            return spec.hooks.search.candidate_moves(core, 0, default)
        legal = np.flatnonzero(core.legal_mask[0]).tolist()
        return legal, legal.index(default)

    def _values(self, spec, jobs: list) -> list[np.ndarray]:
        """For each ``(core, moves, rows)``: ``[len(moves), len(rows)]`` win shares of the deciding seat
        after each move in each listed sampled state, the roll-out agent playing every seat to the end.
        Roll-outs run in batches of at most ``max_rows`` games (one batch for many decisions)."""
        out: list[np.ndarray] = []
        start = 0
        while start < len(jobs):
            rows, stop = 0, start
            while stop < len(jobs) and (stop == start or rows + len(jobs[stop][1]) * jobs[stop][2].size <= self.max_rows):
                rows += len(jobs[stop][1]) * jobs[stop][2].size
                stop += 1
            out.extend(self._play(spec, jobs[start:stop]))
            start = stop
        return out

    def _play(self, spec, jobs: list) -> list[np.ndarray]:
        parts, first, seats = [], [], []
        for core, moves, rows in jobs:
            for move in moves:
                parts.append((core, rows))
                first.append(np.full(rows.size, move, np.int64))
                seats.append(core.current[rows].astype(np.intp))
        sim = type(jobs[0][0]).gather(parts)
        sim.step(np.concatenate(first))
        seat = np.concatenate(seats)
        if self.opponents is None:
            play_out(sim, self.rollout)
        else:  # the deciding seat plays the roll-out agent, every other seat the opponents
            live = np.flatnonzero(~np.asarray(sim.done))
            seat_agent = np.where(np.arange(sim.num_players)[None, :] == seat[live, None], 0, 1)
            play_seats(sim, live, [self.rollout, self.opponents], seat_agent)
        value = spec.seat_win_shares(sim, seat)
        out, at = [], 0
        for _, moves, rows in jobs:
            out.append(value[at: at + len(moves) * rows.size].reshape(len(moves), rows.size))
            at += len(moves) * rows.size
        return out


def default_rollout(spec) -> str:
    """The roll-out agent of a search agent told none: the ``opponents`` of the game's first advantage
    recipe (its strongest heuristic), else ``spec.default_opponent``."""
    recipes = spec.hooks.advantage
    return next(iter(recipes.values())).opponents if recipes else spec.default_opponent


def recipe_search_options(game: str, num_players: int | None = None, default: str = "learned",
                          decision: str = "") -> dict:
    """The options of a search over a learned agent, read from the game's advantage recipe
    ``decision`` (""; the first): the recipe's ``base`` rolls out the deciding seat, its ``opponents``
    the other seats, ``default`` (an agent spec; ``"learned"``: the game's shipped learned agent at
    that size) gives the move kept unless another beats it, and the budget of :data:`SEARCH_4P`.
    ValueError names the games with recipes, or the game's decisions."""
    from .advantage import advantage_recipe

    entry = registry.game(game)
    spec = registry.game_spec(entry.name, entry.default_players if num_players is None else num_players)
    _, recipe = advantage_recipe(spec, decision)
    return {**SEARCH_4P, "rollout": recipe.base, "opponents": recipe.opponents, "default": default}


def make_recipe_search_agent(seed: int | None = None, game: str = registry.DEFAULT_GAME,
                             num_players: int | None = None, default: str = "learned", decision: str = "",
                             **kwargs) -> SearchAgent:
    """A search over a learned agent for any game with an advantage recipe (:func:`recipe_search_options`;
    any option may be overridden), e.g. ``make_recipe_search_agent(game="gap_v0", num_players=4,
    default="advantage:runs/gap/model.npz")``. A game's search preset is this factory with its options."""
    entry = registry.game(game)
    players = entry.default_players if num_players is None else int(num_players)
    options = {**recipe_search_options(entry.name, players, default, decision), **kwargs}
    agent = SearchAgent(seed=seed, game=entry.name, num_players=players, **options)
    agent.name = f"search:{default}"
    return agent


def make_agent(seed: int | None = None, game: str = registry.DEFAULT_GAME, **kwargs) -> SearchAgent:
    """``agents.make("ismcts", ...)``'s factory."""
    return SearchAgent(seed=seed, game=game, **kwargs)


SEARCH_4P = {"playouts": 128, "screen": 8, "margin": 2.5, "when": "all", "rollout": "counter_tuned",
             "default": "advantage_4p", "opponents": "counter"}
"""``ismcts_4p``'s options: search every decision over the shipped ``advantage_4p``'s
move, with ``counter_tuned`` roll-outs for the deciding seat and ``counter`` in the other seats (whom
the 4-player benchmark seats against it). Its figures: docs/results.md."""


def make_search_4p_agent(seed: int | None = None, num_players: int | None = 4, **kwargs) -> SearchAgent:
    """``agents.make("ismcts_4p")``: :data:`SEARCH_4P` for 4-player Keine Ahnung; any option may be
    overridden (``ismcts_4p:playouts=64``)."""
    return make_search_size_agent(4, seed=seed, num_players=num_players, **kwargs)


def make_search_size_agent(size: int, seed: int | None = None, num_players: int | None = None,
                           **kwargs) -> SearchAgent:
    """``agents.make("ismcts_<size>p")``: :data:`SEARCH_4P`'s budget and roll-outs over the shipped
    ``advantage_<size>p`` (Keine Ahnung at ``size`` players); any option may be overridden."""
    if num_players not in (None, size):
        raise ValueError(f"ismcts_{size}p plays {size}-player keine_ahnung_v0 (its default move is advantage_{size}p's); "
                         f"got num_players={num_players}; the search agents: ismcts_2p .. ismcts_5p, or `search` "
                         "for the table at hand")
    agent = SearchAgent(seed=seed, game="keine_ahnung_v0", num_players=size,
                        **{**SEARCH_4P, "default": f"advantage_{size}p", **kwargs})
    agent.name = f"ismcts_{size}p"
    return agent


def make_shipped_search_agent(size: int, preset: str, budget: dict, seed: int | None = None,
                              num_players: int | None = None, **kwargs) -> SearchAgent:
    """A game's shipped search preset (e.g. ``gap_search_4p``): :func:`make_recipe_search_agent` over the
    shipped learned agent of the game that declares ``preset``, at ``size`` players, with the ``budget``
    the game declares beside it (``playouts``, ``screen``, ``margin``, ...); any option may be overridden
    (``gap_search_4p:playouts=64``). The preset's declaration binds ``size``, ``preset`` and ``budget``;
    a ``num_players`` other than ``size`` is refused, naming the preset's size."""
    game = next(name for name in registry.games() if preset in registry.game(name).presets)
    if num_players not in (None, size):
        raise ValueError(f"{preset} plays {size}-player {game} (its default move is the shipped learned agent's "
                         f"at {size} players); got num_players={num_players}; `search` picks the search agent "
                         "of the table at hand")
    agent = make_recipe_search_agent(seed=seed, game=game, num_players=size, default="learned",
                                     **{**budget, **kwargs})
    agent.name = preset
    return agent
