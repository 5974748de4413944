"""Seat-rotated tournaments between batched agents, with common random deals and ratings.

Scheme (K agents, P seats):

* K <= P: the seats are filled by cycling the agent list (agent i at base positions i, i+K, ...),
  and the P rotations of that line-up are played, so every agent sits in every seat equally often
  (an agent with two base positions plays two seats of each game; every seat counts as one
  appearance in its statistics).
* K > P: every P-subset of the agents (in list order) is played in its P rotations; each agent sits
  in every seat equally often, though the order of opponents around the table is not balanced.

Each "deal" (a game seed) is played once by every line-up, so all line-ups meet the same cards
(common random numbers; the games diverge once their decisions differ, since reshuffles draw from
the same per-game generator). ``games`` is rounded up to a whole number of deals.

Statistics per agent, over its appearances: wins (a shared win counts 1/number of winners, so win
rates add up to 1 per game; winners and ranks come from the game's ``GameSpec.standings``), a 95%
Wilson interval on the win rate, the mean score, the game's own statistics (``GameSpec.episode_stats``;
Keine Ahnung: calls of "Nothing fits anymore!", the calls that won a trophy, trophies held at the end),
and an openskill Plackett-Luce rating from the final ranks. Online ratings depend on the order of the
games, so after all games are played they are rated in several seeded random orders and mu and
sigma averaged (reproducible, and not dominated by the last games). When an agent holds several
seats of one game, each seat is rated as its own player from the agent's current rating and the
agent takes the mean of the new mu and sigma. Tables list the agents by win rate. Truncated games
(a turn limit) are scored and ranked as they stood.

Any registered game (:mod:`keine_ahnung_env.registry`) can be played; the tournament reads it only
through its :class:`~keine_ahnung_env.game_spec.GameSpec` and the batched core.

Batches and processes: the games are played in batches of ``batch_size`` (game order as above), and
before each batch every agent with a ``reseed`` method is reseeded from ``(seed, batch, agent)``. So
a tournament is reproducible from its arguments alone, whatever the agents' construction seeds, and
``processes=N`` (batches played by N worker processes, started with ``spawn``) gives exactly the
results of ``processes=1``: the same games, statistics and ratings. (Agents without ``reseed`` that
draw random numbers are the exception: each worker continues from a copy of their generator.)
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import pickle
from typing import Any, Sequence

import numpy as np

from keine_ahnung_env import registry
from keine_ahnung_env.game_spec import GameSpec, StatColumn
from keine_ahnung_env.play_reading import PlayRecorder
from keine_ahnung_env.stats import Z95  # noqa: F401  (re-exported: the 95% quantile the intervals use)
from keine_ahnung_env.stats import proportion_interval as wilson_interval  # the name tests and notebooks use

DEFAULT_ENV = registry.DEFAULT_GAME


def lineups(num_agents: int, num_players: int) -> list[tuple[int, ...]]:
    """The line-ups (agent index per seat) of the rotation scheme in the module docstring."""
    if num_agents < 1:
        raise ValueError("a tournament needs at least one agent")
    P = num_players
    if num_agents <= P:
        base = [i % num_agents for i in range(P)]
        groups = [tuple(base)]
    else:
        groups = list(itertools.combinations(range(num_agents), P))
    return [tuple(g[(s + r) % P] for s in range(P)) for g in groups for r in range(P)]


@dataclasses.dataclass
class AgentResult:
    """One agent's tournament statistics (see the module docstring for the definitions).

    The game's own statistics are in ``totals`` (summed over the agent's appearances) and summarised
    by ``columns``; both read as attributes too: for Keine Ahnung ``a.calls`` and ``a.call_successes``
    (totals), ``a.calls_per_game``, ``a.call_success_rate`` and ``a.mean_trophies`` (columns).
    """

    name: str
    games: int = 0
    wins: float = 0.0
    score_sum: float = 0.0
    mu: float = 0.0
    sigma: float = 0.0
    totals: dict[str, float] = dataclasses.field(default_factory=dict)
    """the game's own statistics summed over the appearances, by name (``EpisodeStats.names``)."""
    columns: tuple[StatColumn, ...] = ()
    """how tables and JSON summarise ``totals`` (``EpisodeStats.columns``)."""

    @property
    def win_rate(self) -> float:
        """Wins (shared wins split) per appearance."""
        return self.wins / self.games if self.games else float("nan")

    @property
    def win_interval(self) -> tuple[float, float]:
        """95% Wilson interval of the win rate."""
        return wilson_interval(self.wins, self.games)

    @property
    def mean_score(self) -> float:
        """Mean final score per appearance."""
        return self.score_sum / self.games if self.games else float("nan")

    @property
    def ordinal(self) -> float:
        """mu - 3 sigma: a conservative skill estimate."""
        return self.mu - 3.0 * self.sigma

    def column(self, column: StatColumn) -> float:
        """The figure of ``column``: its numerator per appearance, or the ratio of two totals (NaN
        where the denominator is zero)."""
        numerator = self.totals.get(column.numerator, 0)
        if column.denominator is None:
            return numerator / self.games if self.games else float("nan")
        denominator = self.totals.get(column.denominator, 0)
        return numerator / denominator if denominator else float("nan")

    def __getattr__(self, name: str) -> Any:
        # Reached only for names that are not attributes: a total or a column key of the game.
        if name.startswith("__") or name in ("totals", "columns"):
            raise AttributeError(name)
        totals = self.__dict__.get("totals", {})
        if name in totals:
            return totals[name]
        for column in self.__dict__.get("columns", ()):
            if column.key == name:
                return self.column(column)
        known = list(totals) + [c.key for c in self.__dict__.get("columns", ())]
        raise AttributeError(f"{type(self).__name__!r} has no attribute {name!r}; the game's statistics are: "
                             f"{', '.join(known) or 'none'}")

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready statistics: the common ones, every total and every column of the game."""
        low, high = self.win_interval
        out: dict[str, Any] = {"name": self.name, "games": self.games, "wins": self.wins, "win_rate": self.win_rate,
                               "win_rate_ci95": [low, high], "mean_score": self.mean_score}
        out.update(self.totals)
        out.update({column.key: self.column(column) for column in self.columns})
        out.update({"mu": self.mu, "sigma": self.sigma, "ordinal": self.ordinal})
        return out


@dataclasses.dataclass
class TournamentResult:
    """A finished tournament: per-agent results plus how it was played."""

    env: str
    num_players: int
    games: int
    deals: int
    lineups: list[tuple[int, ...]]
    seed: int
    rules: dict[str, Any]
    agents: list[AgentResult]
    truncated: int
    mean_turns: float
    game_deal: np.ndarray | None = None
    """[games] the deal (seed index) of each game."""
    game_lineup: np.ndarray | None = None
    """[games] the line-up (row of ``lineups``) of each game."""
    game_scores: np.ndarray | None = None
    """[games, P] final scores per seat."""
    game_turns: np.ndarray | None = None
    """[games] turns played."""
    game_ranks: np.ndarray | None = None
    """[games, P] final rank per seat (1 = best; tied seats share the better rank)."""
    game_actions: list[np.ndarray] | None = None
    """per game, every action in order (only with ``record=True``): with the deal's seed and game id
    (``seed``, ``game_deal``) they replay the game exactly (``keine_ahnung_env.replay``)."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready description of the tournament and its results."""
        return {
            "env": self.env, "players": self.num_players, "games": self.games, "deals": self.deals,
            "lineups": [list(l) for l in self.lineups], "seed": self.seed, "rules": self.rules,
            "truncated": self.truncated, "mean_turns": self.mean_turns,
            "agents": [a.to_dict() for a in self.agents],
        }

    @property
    def columns(self) -> tuple[StatColumn, ...]:
        """The game's own statistics columns (``EpisodeStats.columns``)."""
        return self.agents[0].columns if self.agents else ()

    def _ranked(self) -> list[AgentResult]:
        return sorted(self.agents, key=lambda r: -r.win_rate)

    def legend(self) -> str:
        """One line naming the game's own statistics columns of :meth:`table` (``A/g = sets played per
        game, ...``); empty for a game without them."""
        if not self.columns:
            return ""
        return "columns: " + ", ".join(f"{c.header} = {(c.long_header or c.header).replace('/game', ' per game')}"
                                       for c in self.columns)

    def table(self) -> str:
        """A plain-text table, highest win rate first, and the :meth:`legend` of the game's columns below it."""
        widths = [max(len(c.header), 5) for c in self.columns]
        head = " ".join([f"{'agent':<22} {'games':>6} {'win%':>6} {'95% CI':>13} {'score':>6}"]
                        + [f"{c.header:>{w}}" for c, w in zip(self.columns, widths)]
                        + [f"{'mu':>6} {'sigma':>5} {'ordinal':>7}"])
        lines = [head, "-" * len(head)]
        for a in self._ranked():
            low, high = a.win_interval
            cells = [_figure(a.column(c), c.percent, w) for c, w in zip(self.columns, widths)]
            lines.append(" ".join(
                [f"{a.name:<22} {a.games:>6d} {100 * a.win_rate:6.1f} {f'[{100 * low:.1f}, {100 * high:.1f}]':>13} "
                 f"{a.mean_score:6.2f}"] + cells + [f"{a.mu:6.2f} {a.sigma:5.2f} {a.ordinal:7.2f}"]))
        if self.columns:
            lines.append(self.legend())
        return "\n".join(lines)

    def markdown(self) -> str:
        """The same table in Markdown."""
        headers = (["agent", "games", "win %", "95% CI", "mean score"]
                   + [c.long_header or c.header for c in self.columns] + ["mu", "sigma", "ordinal"])
        lines = ["| " + " | ".join(headers) + " |", "|---|" + "---:|" * (len(headers) - 1)]
        for a in self._ranked():
            low, high = a.win_interval
            cells = [a.name, str(a.games), f"{100 * a.win_rate:.1f}", f"[{100 * low:.1f}, {100 * high:.1f}]",
                     f"{a.mean_score:.2f}"] + [_figure(a.column(c), c.percent) for c in self.columns] \
                + [f"{a.mu:.2f}", f"{a.sigma:.2f}", f"{a.ordinal:.2f}"]
            lines.append("| " + " | ".join(cells) + " |")
        return "\n".join(lines)


def _figure(value: float, percent: bool, width: int = 0) -> str:
    """One statistics cell: a percentage with one decimal or a number with two; "-" for NaN."""
    if math.isnan(value):
        return f"{'-':>{width}}"
    return f"{100 * value:{width}.1f}" if percent else f"{value:{width}.2f}"


def _positive_int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise ValueError(f"{name}={value!r}; allowed: a positive integer")
    return int(value)


def _game(env: Any) -> registry.GameEntry:
    """The registry entry of ``env``; ValueError names the registered games."""
    try:
        return registry.game(env)
    except ValueError:
        raise ValueError(f"env={env!r}; allowed: {', '.join(registry.games())}") from None


def play_tournament(agents: Sequence[Any], num_players: int | None = None, games: int = 2000, seed: int = 0,
                    env: str = DEFAULT_ENV, batch_size: int = 1024, progress: bool = False,
                    names: Sequence[str] | None = None, rating_passes: int = 8, processes: int = 1,
                    record: bool = False, **rules: Any) -> TournamentResult:
    """Plays a seat-rotated tournament between ``agents`` (objects with ``act(obs, mask)``).

    ``env`` is any registered game, ``num_players`` its seats (None: the game's default); ``games`` is rounded
    up to a whole number of deals (one deal per line-up); ``batch_size`` games are stepped together; ``rules``
    are the game's rules options (Keine Ahnung: ``memory=``, ``allow_keep=``...). ``names`` label the agents
    (default: their ``name`` attributes, made unique); ``rating_passes`` is the number of random game orders
    the ratings are averaged over. ``processes``: the batches are shared among this many worker processes
    (``spawn``; the agents are pickled to them) and the results merged exactly as one run gives them (see the
    module docstring); more processes than batches are not started. Raises ValueError for a bad env, player
    count, game count, batch size, process count or rules option, and for agents that cannot be pickled when
    ``processes > 1``. ``record``: keep every game's actions (``game_actions``) so that the games can be
    written as replays.
    """
    entry = _game(env)
    P = registry.check_players(entry, entry.default_players if num_players is None else num_players)
    games = _positive_int("games", games)
    batch_size = _positive_int("batch_size", batch_size)
    rating_passes = _positive_int("rating_passes", rating_passes)
    processes = _positive_int("processes", processes)
    spec = entry.spec(P, **rules)  # validates the rules options
    agents = list(agents)
    names = list(names) if names is not None else unique_names([getattr(a, "name", type(a).__name__) for a in agents])
    if len(names) != len(agents):
        raise ValueError(f"{len(names)} names for {len(agents)} agents")
    table = np.array(lineups(len(agents), P), np.intp)  # [L, P]
    L = table.shape[0]
    deals = -(-games // L)
    total = deals * L
    # Game g = deal * L + lineup: deal-major, so every block of L games shares one deal.
    deal_of = np.repeat(np.arange(deals), L)
    lineup_of = np.tile(np.arange(L), deals)

    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=total, unit="game", desc=f"{P}-player tournament")
    tasks = [(number, table[lineup_of[idx]], deal_of[idx])
             for number, idx in enumerate(np.arange(start, min(start + batch_size, total))
                                          for start in range(0, total, batch_size))]
    workers = min(processes, len(tasks))
    if workers == 1:
        batches = []
        for number, seat_agents, deal_ids in tasks:
            _reseed_agents(agents, seed, number)
            batches.append(_play_batch(spec, agents, seat_agents, seed, deal_ids, bar, record))
    else:
        batches = _play_in_processes(workers, entry, P, rules, agents, names, seed, tasks, bar, record)
    if bar is not None:
        bar.close()
    game_actions = [actions for b in batches for actions in b.pop("actions")] if record else None
    played = {key: np.concatenate([b[key] for b in batches]) for key in batches[0]}

    stats = spec.episode_stats
    stat_names = stats.names if stats is not None else ()
    columns = stats.columns if stats is not None else ()
    per_seat = [played["counts"][:, :, k] for k in range(played["counts"].shape[2])] \
        + [played["finals"][:, :, k] for k in range(played["finals"].shape[2])]  # [total, P] per name
    results = [AgentResult(name=n, columns=columns) for n in names]
    seat_agent = table[lineup_of]  # [total, P]
    for a, res in enumerate(results):
        mine = seat_agent == a
        res.games = int(mine.sum())
        res.wins = float(played["shares"][mine].sum())
        res.score_sum = float(played["scores"][mine].sum())
        res.totals = {name: _number(values[mine].sum()) for name, values in zip(stat_names, per_seat)}

    key = played["standings"]
    ranks = 1 + (key[:, None, :] > key[:, :, None]).sum(axis=2)  # [total, P]: 1 = best, ties share
    mu, sigma = _rate(names, seat_agent, ranks, rating_passes, seed)
    for a, res in enumerate(results):
        res.mu, res.sigma = float(mu[a]), float(sigma[a])
    return TournamentResult(env=spec.name, num_players=P, games=total, deals=deals,
                            lineups=[tuple(map(int, l)) for l in table], seed=int(seed),
                            rules=_report_rules(entry, spec), agents=results,
                            truncated=int(played["truncated"].sum()), mean_turns=float(played["turns"].mean()),
                            game_deal=deal_of, game_lineup=lineup_of, game_scores=played["scores"],
                            game_turns=played["turns"], game_ranks=ranks, game_actions=game_actions)


def batch_seed(seed: int, batch: int, agent: int) -> int:
    """The seed agent ``agent`` (its first position in the agent list) is reseeded with before batch
    ``batch`` of a tournament played with ``seed``."""
    return int(np.random.SeedSequence([int(seed), int(batch), int(agent), 0x7A]).generate_state(1, np.uint32)[0])


def _reseed_agents(agents: Sequence[Any], seed: int, batch: int) -> None:
    """Reseeds every distinct agent object that has ``reseed`` (an object listed twice, once)."""
    seen: set[int] = set()
    for a, agent in enumerate(agents):
        if id(agent) in seen:
            continue
        seen.add(id(agent))
        reseed = getattr(agent, "reseed", None)
        if callable(reseed):
            reseed(batch_seed(seed, batch, a))


_WORKER: dict[str, Any] = {}
"""A worker process's game spec and agents (set once by :func:`_worker_start`)."""


def _worker_start(entry: registry.GameEntry, num_players: int, rules: dict[str, Any], payload: bytes) -> None:
    if entry.name not in registry.games():  # a game registered at run time in the parent, not on import
        registry.register_game(entry)
    _WORKER["spec"] = registry.game(entry.name).spec(num_players, **rules)
    _WORKER["agents"] = pickle.loads(payload)


def _worker_batch(task: tuple[int, np.ndarray, np.ndarray, int, bool]) -> dict[str, np.ndarray]:
    number, seat_agents, deal_ids, seed, record = task
    agents = _WORKER["agents"]
    _reseed_agents(agents, seed, number)
    return _play_batch(_WORKER["spec"], agents, seat_agents, seed, deal_ids, None, record)


def _play_in_processes(workers: int, entry: registry.GameEntry, num_players: int, rules: dict[str, Any],
                       agents: Sequence[Any], names: Sequence[str], seed: int, tasks: list, bar,
                       record: bool = False) -> list[dict[str, np.ndarray]]:
    """Plays the batches in ``workers`` spawned processes; returns their results in batch order."""
    import multiprocessing

    try:
        payload = pickle.dumps(list(agents))
    except Exception as exc:
        for name, agent in zip(names, agents):
            try:
                pickle.dumps(agent)
            except Exception:
                raise ValueError(f"processes={workers}: agent {name!r} cannot be sent to a worker process "
                                 f"(it does not pickle: {type(exc).__name__}: {exc}); use processes=1") from exc
        raise ValueError(f"processes={workers}: the agents cannot be sent to worker processes "
                         f"({type(exc).__name__}: {exc}); use processes=1") from exc
    try:
        pickle.dumps(entry)
    except Exception as exc:
        raise ValueError(f"processes={workers}: game {entry.name!r} cannot be sent to a worker process "
                         f"({type(exc).__name__}: {exc}); use processes=1") from exc
    context = multiprocessing.get_context("spawn")
    out = []
    with context.Pool(workers, initializer=_worker_start, initargs=(entry, num_players, dict(rules), payload)) as pool:
        for result in pool.imap(_worker_batch, [(n, s, d, int(seed), record) for n, s, d in tasks]):
            out.append(result)
            if bar is not None:
                bar.update(len(result["turns"]))
    return out


def _number(value: Any) -> float:
    """A summed statistic as a Python int (integer counts stay integers in JSON) or float."""
    return int(value) if isinstance(value, (int, np.integer)) else float(value)


def _rate(names: list[str], seat_agent: np.ndarray, ranks: np.ndarray, passes: int, seed: int
          ) -> tuple[np.ndarray, np.ndarray]:
    """Plackett-Luce ratings from every game's ranks, averaged over ``passes`` random game orders.

    Online rating updates depend on the order of the games (the last few hundred weigh most), so
    the games are rated in several seeded random orders and the mu and sigma averaged. When one agent
    holds several seats of a game, each seat is rated from the agent's rating and the agent takes
    the mean of the updates. The updates are openskill's (``training/plackett_luce.py``, compiled)."""
    from .plackett_luce import rate_games

    rng = np.random.default_rng([int(seed), 7])
    mus, sigmas = [], []
    for _ in range(passes):
        mu, sigma = rate_games(seat_agent, ranks, rng.permutation(len(ranks)), num_agents=len(names))
        mus.append(mu)
        sigmas.append(sigma)
    return np.mean(mus, axis=0), np.mean(sigmas, axis=0)


def unique_names(names: list[str]) -> list[str]:
    """Labels made unique by numbering repeats: ``["greedy", "greedy"]`` -> ``["greedy", "greedy#2"]``."""
    seen: dict[str, int] = {}
    out = []
    for n in names:
        seen[n] = seen.get(n, 0) + 1
        out.append(n if seen[n] == 1 else f"{n}#{seen[n]}")
    return out


def _report_rules(entry: registry.GameEntry, spec: GameSpec) -> dict[str, Any]:
    """The variant's rules options for the report. An option holding a structure (a list or mapping,
    such as Keine Ahnung's deck) that equals the game's default is named ``"default"`` rather than
    listed in full."""
    defaults = entry.spec(spec.num_players).rules
    return {key: "default" if isinstance(value, (dict, list, tuple)) and value == defaults.get(key) else value
            for key, value in spec.rules.items()}


def _play_batch(spec: GameSpec, agents: Sequence[Any], seat_agents: np.ndarray, seed: int, deal_ids: np.ndarray,
                bar, record: bool = False) -> dict[str, np.ndarray]:
    """Plays one batch of games (game i dealt as deal ``deal_ids[i]``, seats filled by ``seat_agents[i]``)
    to the end; returns their final scores, standings, win shares, the game's own statistics per seat
    (``counts`` [B, P, counters], ``finals`` [B, P, finals]), truncation flags and turns; with
    ``record``, also ``actions``: a list of each game's actions in order."""
    B, P = len(deal_ids), spec.num_players
    core = spec.make_core(B, 0)
    # Common random deals: row i takes the random stream of its deal, whatever its line-up, so every
    # line-up of a deal meets the same cards.
    core.seed(seed, game_ids=deal_ids)
    core.reset_games(np.arange(B))
    stats = spec.episode_stats
    counts = np.zeros((B, P, len(stats.counters) if stats is not None else 0), np.int64)
    rows = np.arange(B)
    done = np.array(core.done, bool, copy=True)
    log: list[tuple[np.ndarray, np.ndarray]] = []
    # Agents that read the play get each decision's record of the round (what their seat saw of it).
    reading = [bool(getattr(agent, "reads_play", False)) for agent in agents]
    recorder = PlayRecorder(spec, core, readers=np.asarray(reading)[seat_agents[rows]]) if any(reading) else None
    while not done.all():
        # The core is stepped directly (not a vector env): the env would build every seat's final
        # observation of each game that ends, which a tournament never reads.
        seat = np.asarray(core.current).astype(np.intp)
        obs = core.observe(seat)
        mask = np.array(core.legal_mask, copy=True)
        who = seat_agents[rows, seat]
        live = ~done
        actions = np.zeros(B, np.int64)
        for a in np.unique(who[live]):
            r = np.flatnonzero(live & (who == a))
            if reading[a]:
                chosen = np.asarray(agents[a].act_reading(obs[r], mask[r], recorder.logs(r, seat[r])))
            else:
                chosen = np.asarray(agents[a].act(obs[r], mask[r]))
            if chosen.shape != (len(r),):
                name = getattr(agents[a], "name", type(agents[a]).__name__)
                raise ValueError(f"agent {name!r} returned actions of shape {chosen.shape} for {len(r)} observations; "
                                 "act(observation [B, O], action_mask [B, A]) must return one action per row (int64 "
                                 "[B]); a one-observation-at-a-time agent is wrapped with agents.batched(...)")
            actions[r] = chosen
        token = stats.before_step(core, actions, live) if stats is not None else None
        if record:
            log.append((actions.copy(), live.copy()))
        core.step(actions, active=live)
        if recorder is not None:
            recorder.after_step(seat, actions, live)
        if stats is not None:
            counts += stats.after_step(core, token)
        newly = np.flatnonzero(~done & core.done)
        done[newly] = True
        if bar is not None and newly.size:
            bar.update(int(newly.size))
    if stats is not None and stats.final is not None:
        finals = np.asarray(stats.final(core))
    else:
        finals = np.zeros((B, P, 0), np.int64)
    out = {"scores": np.array(core.scores, np.int64), "standings": np.asarray(spec.standings(core)),
            "shares": np.asarray(spec.win_shares(core), np.float64), "counts": counts, "finals": finals,
            "truncated": np.array(core.truncated, bool, copy=True), "turns": np.array(core.turn, copy=True)}
    if record:
        acted = np.array([a for a, _ in log], np.int64).reshape(len(log), B)
        lived = np.array([m for _, m in log], bool).reshape(len(log), B)
        out["actions"] = [acted[lived[:, b], b] for b in range(B)]
    return out
