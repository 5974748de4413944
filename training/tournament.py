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
rates add up to 1 per game), a 95% Wilson interval on the win rate, mean score and trophies, CALL
attempts and successes (a success is the caller's trophy count going up on the CALL), and an
openskill Plackett-Luce rating from the final ranks. Online ratings depend on the order of the
games, so after all games are played they are rated in several seeded random orders and mu and
sigma averaged (reproducible, and not dominated by the last games). When an agent holds several
seats of one game, each seat is rated as its own player from the agent's current rating and the
agent takes the mean of the new mu and sigma. Tables list the agents by win rate. Truncated games (``max_turns``) are scored and ranked as they stood.
"""

from __future__ import annotations

import dataclasses
import itertools
from typing import Any, Sequence

import numpy as np

from keine_ahnung_env.games.keine_ahnung.actions import ACTION_CALL
from keine_ahnung_env.games.keine_ahnung.config import MAX_PLAYERS, MIN_PLAYERS
from keine_ahnung_env.games.keine_ahnung.core import game_seed_sequences
from keine_ahnung_env.games.keine_ahnung.scoring import standings_key, win_shares

ENVS = ("keine_ahnung_v0",)
Z95 = 1.959963984540054


def wilson_interval(wins: float, n: float, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``wins / n`` (fractional wins allowed)."""
    from keine_ahnung_env.games.keine_ahnung.risk import wilson_interval as wilson

    if n <= 0:
        return float("nan"), float("nan")
    phat = wins / n
    low, high = wilson(wins, n, z)
    # Rounding must not put the interval beside its own estimate at 0 or 1.
    return max(0.0, min(float(low), phat)), min(1.0, max(float(high), phat))


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
    """One agent's tournament statistics (see the module docstring for the definitions)."""

    name: str
    games: int = 0
    wins: float = 0.0
    score_sum: float = 0.0
    trophy_sum: float = 0.0
    call_attempts: int = 0
    call_successes: int = 0
    mu: float = 0.0
    sigma: float = 0.0

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
        """Mean final score (trophy + prize points) per appearance."""
        return self.score_sum / self.games if self.games else float("nan")

    @property
    def mean_trophies(self) -> float:
        """Mean trophies won per appearance."""
        return self.trophy_sum / self.games if self.games else float("nan")

    @property
    def calls_per_game(self) -> float:
        """CALL attempts ("Nothing fits anymore!") per appearance."""
        return self.call_attempts / self.games if self.games else float("nan")

    @property
    def call_success_rate(self) -> float:
        """Share of calls that won a trophy (NaN without calls)."""
        return self.call_successes / self.call_attempts if self.call_attempts else float("nan")

    @property
    def ordinal(self) -> float:
        """mu - 3 sigma: a conservative skill estimate."""
        return self.mu - 3.0 * self.sigma

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready statistics."""
        low, high = self.win_interval
        return {
            "name": self.name, "games": self.games, "wins": self.wins, "win_rate": self.win_rate,
            "win_rate_ci95": [low, high], "mean_score": self.mean_score, "mean_trophies": self.mean_trophies,
            "call_attempts": self.call_attempts, "calls_per_game": self.calls_per_game,
            "call_successes": self.call_successes, "call_success_rate": self.call_success_rate,
            "mu": self.mu, "sigma": self.sigma, "ordinal": self.ordinal,
        }


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

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready description of the tournament and its results."""
        return {
            "env": self.env, "players": self.num_players, "games": self.games, "deals": self.deals,
            "lineups": [list(l) for l in self.lineups], "seed": self.seed, "rules": self.rules,
            "truncated": self.truncated, "mean_turns": self.mean_turns,
            "agents": [a.to_dict() for a in self.agents],
        }

    def table(self) -> str:
        """A plain-text table, highest win rate first."""
        head = (f"{'agent':<22} {'games':>6} {'win%':>6} {'95% CI':>13} {'score':>6} {'troph':>5} "
                f"{'calls/g':>7} {'call ok%':>8} {'mu':>6} {'sigma':>5} {'ordinal':>7}")
        lines = [head, "-" * len(head)]
        for a in sorted(self.agents, key=lambda r: -r.win_rate):
            low, high = a.win_interval
            ok = f"{100 * a.call_success_rate:8.1f}" if a.call_attempts else f"{'-':>8}"
            lines.append(
                f"{a.name:<22} {a.games:>6d} {100 * a.win_rate:6.1f} {f'[{100 * low:.1f}, {100 * high:.1f}]':>13} "
                f"{a.mean_score:6.2f} {a.mean_trophies:5.2f} {a.calls_per_game:7.2f} {ok} "
                f"{a.mu:6.2f} {a.sigma:5.2f} {a.ordinal:7.2f}")
        return "\n".join(lines)

    def markdown(self) -> str:
        """The same table in Markdown."""
        lines = ["| agent | games | win % | 95% CI | mean score | mean trophies | calls/game | call success % | mu | sigma | ordinal |",
                 "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"]
        for a in sorted(self.agents, key=lambda r: -r.win_rate):
            low, high = a.win_interval
            ok = f"{100 * a.call_success_rate:.1f}" if a.call_attempts else "-"
            lines.append(f"| {a.name} | {a.games} | {100 * a.win_rate:.1f} | [{100 * low:.1f}, {100 * high:.1f}] | "
                         f"{a.mean_score:.2f} | {a.mean_trophies:.2f} | {a.calls_per_game:.2f} | {ok} | "
                         f"{a.mu:.2f} | {a.sigma:.2f} | {a.ordinal:.2f} |")
        return "\n".join(lines)


def _validate(env: str, num_players: int, games: int, batch_size: int) -> None:
    if env not in ENVS:
        raise ValueError(f"env={env!r}; allowed: {', '.join(ENVS)}")
    if isinstance(num_players, bool) or not isinstance(num_players, (int, np.integer)) or not (
            MIN_PLAYERS <= num_players <= MAX_PLAYERS):
        raise ValueError(f"players={num_players!r}; allowed: integers {MIN_PLAYERS}-{MAX_PLAYERS}")
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)) or games < 1:
        raise ValueError(f"games={games!r}; allowed: a positive integer")
    if isinstance(batch_size, bool) or not isinstance(batch_size, (int, np.integer)) or batch_size < 1:
        raise ValueError(f"batch_size={batch_size!r}; allowed: a positive integer")


def play_tournament(agents: Sequence[Any], num_players: int = 4, games: int = 2000, seed: int = 0,
                    env: str = "keine_ahnung_v0", batch_size: int = 1024, progress: bool = False,
                    names: Sequence[str] | None = None, rating_passes: int = 8, **rules: Any) -> TournamentResult:
    """Plays a seat-rotated tournament between ``agents`` (objects with ``act(obs, mask)``).

    ``games`` is rounded up to a whole number of deals (one deal per line-up); ``batch_size`` games
    are stepped together; ``rules`` are Keine Ahnung rules options (``memory=``, ``allow_keep=``...).
    ``names`` label the agents (default: their ``name`` attributes, made unique); ``rating_passes``
    is the number of random game orders the ratings are averaged over. Raises ValueError for a bad
    env, player count, game count or batch size.
    """
    from keine_ahnung_env import keine_ahnung_v0

    _validate(env, num_players, games, batch_size)
    if isinstance(rating_passes, bool) or not isinstance(rating_passes, (int, np.integer)) or rating_passes < 1:
        raise ValueError(f"rating_passes={rating_passes!r}; allowed: a positive integer")
    agents = list(agents)
    names = list(names) if names is not None else unique_names([getattr(a, "name", type(a).__name__) for a in agents])
    if len(names) != len(agents):
        raise ValueError(f"{len(names)} names for {len(agents)} agents")
    P = int(num_players)
    table = np.array(lineups(len(agents), P), np.intp)  # [L, P]
    L = table.shape[0]
    deals = -(-int(games) // L)
    total = deals * L
    # Game g = deal * L + lineup: deal-major, so every block of L games shares one deal.
    deal_of = np.repeat(np.arange(deals), L)
    lineup_of = np.tile(np.arange(L), deals)

    scores = np.zeros((total, P), np.int64)
    trophies = np.zeros((total, P), np.int64)
    holdings = np.zeros((total, P), np.int64)
    calls = np.zeros((total, P), np.int64)
    call_wins = np.zeros((total, P), np.int64)
    truncated = np.zeros(total, bool)
    turns = np.zeros(total, np.int64)

    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=total, unit="game", desc=f"{P}-player tournament")
    probe = keine_ahnung_v0.vector_env(1, P, seed=0, autoreset=False, **rules)
    rules_used = probe.core.rules.options()
    for start in range(0, total, batch_size):
        idx = np.arange(start, min(start + batch_size, total))
        _play_batch(agents, table[lineup_of[idx]], game_seed_sequences(seed, deal_of[idx]), P, rules,
                    scores, trophies, holdings, calls, call_wins, truncated, turns, idx, bar)
    if bar is not None:
        bar.close()

    results = [AgentResult(name=n) for n in names]
    key = standings_key(scores, holdings)
    share = win_shares(scores, holdings)
    seat_agent = table[lineup_of]  # [total, P]
    for a, res in enumerate(results):
        mine = seat_agent == a
        res.games = int(mine.sum())
        res.wins = float(share[mine].sum())
        res.score_sum = float(scores[mine].sum())
        res.trophy_sum = float(trophies[mine].sum())
        res.call_attempts = int(calls[mine].sum())
        res.call_successes = int(call_wins[mine].sum())

    ranks = 1 + (key[:, None, :] > key[:, :, None]).sum(axis=2)  # [total, P]: 1 = best, ties share
    mu, sigma = _rate(names, seat_agent, ranks, rating_passes, seed)
    for a, res in enumerate(results):
        res.mu, res.sigma = float(mu[a]), float(sigma[a])
    return TournamentResult(env=env, num_players=P, games=total, deals=deals, lineups=[tuple(map(int, l)) for l in table],
                            seed=int(seed), rules=_jsonable(rules_used), agents=results,
                            truncated=int(truncated.sum()), mean_turns=float(turns.mean()),
                            game_deal=deal_of, game_lineup=lineup_of, game_scores=scores, game_turns=turns)


def _rate(names: list[str], seat_agent: np.ndarray, ranks: np.ndarray, passes: int, seed: int
          ) -> tuple[np.ndarray, np.ndarray]:
    """Plackett-Luce ratings from every game's ranks, averaged over ``passes`` random game orders.

    Online rating updates depend on the order of the games (the last few hundred weigh most), so
    the games are rated in several seeded random orders and the mu and sigma averaged. When one agent
    holds several seats of a game, each seat is rated from the agent's rating and the agent takes
    the mean of the updates.
    """
    from openskill.models import PlackettLuce

    model = PlackettLuce()
    rng = np.random.default_rng([int(seed), 7])
    mus, sigmas = [], []
    for _ in range(passes):
        ratings = [model.rating(name=n) for n in names]
        for g in rng.permutation(len(ranks)):
            seats = seat_agent[g]
            new = model.rate([[ratings[a]] for a in seats], ranks=ranks[g].tolist())
            for a in np.unique(seats):
                mine = np.flatnonzero(seats == a)
                ratings[a] = model.rating(mu=float(np.mean([new[s][0].mu for s in mine])),
                                          sigma=float(np.mean([new[s][0].sigma for s in mine])), name=names[a])
        mus.append([r.mu for r in ratings])
        sigmas.append([r.sigma for r in ratings])
    return np.mean(mus, axis=0), np.mean(sigmas, axis=0)


def unique_names(names: list[str]) -> list[str]:
    """Labels made unique by numbering repeats: ``["greedy", "greedy"]`` -> ``["greedy", "greedy#2"]``."""
    seen: dict[str, int] = {}
    out = []
    for n in names:
        seen[n] = seen.get(n, 0) + 1
        out.append(n if seen[n] == 1 else f"{n}#{seen[n]}")
    return out


def _jsonable(options: dict[str, Any]) -> dict[str, Any]:
    """Rules options for the report; the default deck is named rather than listed card by card."""
    from keine_ahnung_env.games.keine_ahnung.deck import default_deck

    out = dict(options)
    if out.get("deck") == default_deck().to_dict():
        out["deck"] = "default"
    return out


def _play_batch(agents, seat_agents: np.ndarray, sequences, P: int, rules: dict, scores, trophies, holdings,
                calls, call_wins, truncated, turns, idx: np.ndarray, bar) -> None:
    """Plays one batch of games to the end and writes their statistics at rows ``idx``."""
    from keine_ahnung_env import keine_ahnung_v0

    B = idx.size
    env = keine_ahnung_v0.vector_env(B, P, seed=0, autoreset=False, **rules)
    core = env.core
    env.reset()
    # Common random deals: game i of this batch is re-dealt from its deal's seed, whatever its
    # line-up (after the env's own first reset, which deals from the env seed).
    core.rngs = [np.random.Generator(np.random.PCG64(s)) for s in sequences]
    core.reset_games(np.arange(B))
    rows = np.arange(B)
    n_calls = np.zeros((B, P), np.int64)
    n_call_wins = np.zeros((B, P), np.int64)
    done = core.done.copy()
    while not done.all():
        # The core is stepped directly (not env.step): the env would build every seat's final
        # observation of each game that ends, which a tournament never reads.
        seat = core.current.astype(np.intp)
        obs = core.observe(seat)
        mask = core.legal_mask.copy()
        who = seat_agents[rows, seat]
        live = ~done
        actions = np.zeros(B, np.int64)
        for a in np.unique(who[live]):
            r = np.flatnonzero(live & (who == a))
            actions[r] = agents[a].act(obs[r], mask[r])
        calling = np.flatnonzero(live & (actions == ACTION_CALL))
        before = core.trophy_count[calling, seat[calling]].copy()
        core.step(actions, active=live)
        if calling.size:
            n_calls[calling, seat[calling]] += 1
            n_call_wins[calling, seat[calling]] += core.trophy_count[calling, seat[calling]] > before
        newly = np.flatnonzero(~done & core.done)
        done[newly] = True
        if bar is not None and newly.size:
            bar.update(int(newly.size))
    scores[idx] = core.scores
    trophies[idx] = core.trophy_count
    holdings[idx] = core.holdings
    calls[idx] = n_calls
    call_wins[idx] = n_call_wins
    truncated[idx] = core.truncated
    turns[idx] = core.turn
