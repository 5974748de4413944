"""Benchmark your own agent on a standard protocol: ``python -m training.benchmark_agents``.

    python -m training.benchmark_agents --env keine_ahnung_v0 --players 4 --agents py:my_agent:MyAgent,counter
    python -m training.benchmark_agents --compare mine.json theirs.json --markdown leaderboard.md

The protocol (version :data:`PROTOCOL_VERSION`), per game and player count P: each agent plays
against fixed line-ups of P - 1 opponents (:func:`protocol_lineups`; Keine Ahnung: P - 1 x
``counter``, P - 1 x ``greedy``, a mixed table from 3 players, 3 x ``ppo_4p_v1`` at 4 players
(the learned agent the protocol was defined with, named by its version so that results stay
comparable; some result files label it ``ppo_4p``); another game: one table per heuristic agent it ships, a mixed one
and, where :data:`LEARNED_LINEUPS` names one, P - 1 copies of the game's learned agent). Each line-up is a
seat-rotated tournament (``training/tournament.py``: the agent sits in every seat equally often and
every rotation meets the same deals) of :data:`STANDARD_GAMES` games in batches of
:data:`BATCH_SIZE`, on the published seed of that line-up (:func:`lineup_seed` from
:data:`PUBLISHED_SEED`). Every agent benchmarked meets the very same deals and opponents, so two
results of the protocol compare agent against agent.

Figures per agent and player count: the win share (shared wins split; over all line-ups, which weigh
equally) with its 95% Wilson interval, the win share per line-up, the mean score, the game's own
statistics (``GameSpec.episode_stats``: the columns of the tournament's ``AgentResult.to_dict``), and
an openskill Plackett-Luce rating against a fixed reference pool: the distinct opponents of the
line-ups are rated once by a tournament among themselves on the published seeds; their ratings are
then held fixed while the agent's own rating (from mu = 25, sigma = 25/3) is updated from its games'
ranks, in :data:`RATING_PASSES` seeded orders, averaged.

Output: a JSON result (``--json``; protocol version, library and game versions, rules, seeds, games,
line-ups, reference ratings, figures) and one Markdown row per agent and player count (printed; also
written with ``--markdown PATH``). ``--compare FILES`` merges results into one leaderboard table per
game, player count and rules; it refuses results of another protocol version and reads the files as
plain JSON data (nothing named in them is imported or built).

``--private-seed S`` plays the same protocol on seeds derived from S in place of the published ones,
for a check free of any tuning to them (the reference pool stays rated on the published seeds).
``--games N`` plays N games per line-up in place of :data:`STANDARD_GAMES`, for quick runs: such a
result (and one with ``--rules``) is marked "not the standard protocol" in its JSON and rows.
``--processes N`` shares each tournament's batches among N processes; the results are identical.

Agents are ``agents.make`` specs: built-in names (``counter``, ``risk_caller:0.6``), checkpoints
(``ppo:PATH``), your own agent by import path (``py:my_module:MyAgent`` or ``my_pkg.bots:MyAgent``)
and agents installed packages publish (entry-point group ``keine_ahnung_env.agents``).
"""

from __future__ import annotations

import dataclasses
import datetime
import itertools
import json
import math
import sys
import time
from pathlib import Path
from typing import Any, Callable, Sequence

import numpy as np

from keine_ahnung_env import registry
from keine_ahnung_env.cli import (Parser, UsageError, add_env, add_json, add_progress, add_rules, check_env,
                                  check_json_path, check_positive, check_seed, check_variant,
                                  run_command, split_specs, usage_error, user_errors, write_json_file)

from .cli import make_agent
from .tournament import AgentResult, TournamentResult, _report_rules, play_tournament

PROTOCOL_VERSION = 1
"""The protocol's version for a game :data:`GAME_PROTOCOL_VERSIONS` does not list: results of different
versions are never merged (``--compare`` refuses)."""
GAME_PROTOCOL_VERSIONS: dict[str, int] = {"gap_v0": 2, "dnp_v0": 2}
"""The protocol's version per game whose line-ups changed since version 1 (the gap game and dnp:
version 2 adds the learned line-up of :data:`LEARNED_LINEUPS`); :func:`protocol_version` reads it."""
FORMAT = "keine_ahnung_env.benchmark_agents"
"""The ``format`` field of a result file."""
STANDARD_GAMES = 600
"""Games per line-up (a multiple of 2, 3, 4 and 5, so no table size rounds it up)."""
BATCH_SIZE = 300
"""Games stepped together: part of the protocol, since agents are reseeded per batch."""
PUBLISHED_SEED = 20261126
"""The published base seed: line-up i at P players is dealt from ``lineup_seed(PUBLISHED_SEED, P, i)``."""
REFERENCE_LINEUP = 99
"""The line-up number whose seed deals the reference pool's own tournament."""
AGENT_LINEUP = 50
"""The line-up number whose seed an agent benchmarked is made with (tournaments reseed it per batch)."""
RATING_PASSES = 8
"""Random game orders the ratings are averaged over."""

MIXED_KEINE_AHNUNG = ("counter", "greedy", "risk_caller:0.5", "always_call")
"""The mixed Keine Ahnung table: its first P - 1 entries."""


def _keine_ahnung_lineups(players: int) -> list[tuple[str, tuple[str, ...]]]:
    n = players - 1
    out = [("counter", ("counter",) * n), ("greedy", ("greedy",) * n)]
    if n >= 2:
        out.append(("mixed", MIXED_KEINE_AHNUNG[:n]))
    if players == 4:
        # The learned line-up is the agent shipped as ppo_4p when the protocol was defined (now
        # ppo_4p_v1): the protocol's opponents never change within its version.
        out.append(("ppo_4p_v1", ("ppo_4p_v1",) * n))
    return out


LEARNED_LINEUPS: dict[str, dict[int, str]] = {
    "gap_v0": {2: "gap_learned_2p", 3: "gap_learned_3p", 4: "gap_learned_4p", 5: "gap_learned_5p"},
    "dnp_v0": {2: "dnp_learned_2p", 3: "dnp_learned_3p", 4: "dnp_learned_4p", 5: "dnp_learned_5p"},
}
"""The learned line-up of a game other than Keine Ahnung, by player count: P - 1 copies of the preset
named here (the game's shipped ``learned`` agent at that size when the game's protocol version was set;
named by preset rather than ``learned`` so that the protocol's opponents never change within its
version), after the line-ups of the game's heuristics."""


def protocol_version(env: str) -> int:
    """The protocol's version for ``env`` (:data:`GAME_PROTOCOL_VERSIONS`, else :data:`PROTOCOL_VERSION`)."""
    return GAME_PROTOCOL_VERSIONS.get(env, PROTOCOL_VERSION)


LINEUPS: dict[str, Callable[[int], list[tuple[str, tuple[str, ...]]]]] = {
    "keine_ahnung_v0": _keine_ahnung_lineups,
}
"""Line-ups by game: ``players -> [(label, opponent specs (P - 1 of them)), ...]``. A game that is not
here uses the spec's ``benchmark_lineups`` where it has one (the same function, or a mapping of labels
to opponent specs), else :func:`generic_lineups`."""


def generic_lineups(heuristics: Sequence[str], players: int) -> list[tuple[str, tuple[str, ...]]]:
    """The fallback line-ups: P - 1 copies of each heuristic the game ships, and (for two or more
    heuristics and three or more players) a mixed table cycling through them."""
    n = players - 1
    out = [(name, (name,) * n) for name in heuristics]
    if len(heuristics) >= 2 and n >= 2:
        out.append(("mixed", tuple(itertools.islice(itertools.cycle(heuristics), n))))
    return out


def protocol_lineups(env: str, players: int, rules: dict[str, Any] | None = None) -> list[tuple[str, tuple[str, ...]]]:
    """The protocol's line-ups of ``env`` at ``players``: ``[(label, opponent specs), ...]``."""
    spec = registry.game(env).spec(players, **(rules or {}))
    custom = getattr(spec, "benchmark_lineups", None)
    if env in LINEUPS:
        table = LINEUPS[env](players)
    elif callable(custom):
        table = list(custom(players))
    elif custom:
        table = list(dict(custom).items())
    else:
        table = generic_lineups(list(spec.agents), players)
    learned = LEARNED_LINEUPS.get(env, {}).get(players)
    if learned is not None:
        table = [*table, (learned, (learned,) * (players - 1))]
    out = []
    for label, opponents in table:
        opponents = tuple(opponents)
        if len(opponents) != players - 1:
            raise ValueError(f"{env}: line-up {label!r} names {len(opponents)} opponents for {players} players")
        out.append((str(label), opponents))
    if not out:
        raise ValueError(f"{env} ships no heuristic agents, so the protocol has no line-ups for it")
    return out


def lineup_seed(base: int, players: int, lineup: int) -> int:
    """The deal seed of line-up ``lineup`` at ``players`` players from the base seed."""
    return (int(base) + 100 * int(players) + int(lineup)) % 2**32


def reference_pool(lineups: Sequence[tuple[str, tuple[str, ...]]]) -> list[str]:
    """The distinct opponent specs of the line-ups, in order of appearance."""
    return list(dict.fromkeys(spec for _, opponents in lineups for spec in opponents))


# ----------------------------------------------------------------------------------------- running


@dataclasses.dataclass
class Setup:
    """One player count's protocol, ready to play."""

    env: str
    players: int
    rules: dict[str, Any]
    spec: Any
    lineups: list[tuple[str, tuple[str, ...]]]
    seeds: list[int]
    games: int
    reference: dict[str, dict[str, float]] = dataclasses.field(default_factory=dict)
    reference_games: int = 0


def _make(spec_text: str, setup: Setup, seed: int, flag: str = "--agents"):
    return make_agent(flag, spec_text, game=setup.env, seed=seed, num_players=setup.players, rules=setup.rules)


def rate_reference(setup: Setup, processes: int = 1) -> None:
    """Rates the reference pool by a tournament among its agents on the published seeds."""
    pool = reference_pool(setup.lineups)
    seed = lineup_seed(PUBLISHED_SEED, setup.players, REFERENCE_LINEUP)
    built = [_make(s, setup, seed + 1 + i, "protocol opponent") for i, s in enumerate(pool)]
    result = play_tournament(built, num_players=setup.players, games=setup.games, seed=seed, env=setup.env,
                             batch_size=BATCH_SIZE, names=pool, rating_passes=RATING_PASSES, processes=processes,
                             **setup.rules)
    setup.reference = {a.name: {"mu": a.mu, "sigma": a.sigma} for a in result.agents}
    setup.reference_games = result.games


def anchored_rating(results: Sequence[TournamentResult], opponents: Sequence[Sequence[str]],
                    reference: dict[str, dict[str, float]], seed: int, passes: int = RATING_PASSES
                    ) -> tuple[float, float]:
    """The openskill Plackett-Luce rating of agent 0 of each tournament from its games' ranks, its
    opponents (agent ``j`` of tournament ``t`` is ``opponents[t][j - 1]``) held at their ``reference``
    ratings; averaged over ``passes`` seeded game orders (``training/plackett_luce.py``)."""
    from .plackett_luce import rate_games

    players = ["\0agent"] + sorted({name for names in opponents for name in names})
    index = {name: i for i, name in enumerate(players)}
    seats, ranks = [], []
    for result, names in zip(results, opponents):
        table = np.asarray(result.lineups)[result.game_lineup]  # [games, P] agent index per seat
        to_player = np.array([0] + [index[n] for n in names])
        seats.append(to_player[table])
        ranks.append(np.asarray(result.game_ranks))
    seat_player, game_ranks = np.concatenate(seats), np.concatenate(ranks)
    mu0 = np.array([25.0] + [reference[n]["mu"] for n in players[1:]])
    sigma0 = np.array([25.0 / 3.0] + [reference[n]["sigma"] for n in players[1:]])
    frozen = np.arange(len(players)) > 0
    rng = np.random.default_rng([int(seed), 11])
    mus, sigmas = [], []
    for _ in range(passes):
        mu, sigma = rate_games(seat_player, game_ranks, rng.permutation(len(game_ranks)), mu0, sigma0, frozen)
        mus.append(mu[0])
        sigmas.append(sigma[0])
    return float(np.mean(mus)), float(np.mean(sigmas))


def merge(results: Sequence[AgentResult], name: str) -> AgentResult:
    """One agent's statistics over several tournaments (appearances, wins, scores, totals summed)."""
    out = AgentResult(name=name, columns=results[0].columns if results else ())
    for r in results:
        out.games += r.games
        out.wins += r.wins
        out.score_sum += r.score_sum
        for key, value in r.totals.items():
            out.totals[key] = out.totals.get(key, 0) + value
    return out


def benchmark_agent(agent_spec: str, agent: Any, setup: Setup, processes: int = 1,
                    report: Callable[[str], None] | None = None) -> dict[str, Any]:
    """Plays the protocol's line-ups of ``setup`` with ``agent``; returns its figures (JSON-ready)."""
    start = time.perf_counter()
    per_lineup, results = {}, []
    for i, ((label, opponents), seed) in enumerate(zip(setup.lineups, setup.seeds)):
        built = [agent] + [_make(s, setup, seed + 1 + j, "protocol opponent") for j, s in enumerate(opponents)]
        names = [agent_spec] + [f"{s}@{j + 1}" for j, s in enumerate(opponents)]
        result = play_tournament(built, num_players=setup.players, games=setup.games, seed=seed, env=setup.env,
                                 batch_size=BATCH_SIZE, names=names, rating_passes=1, processes=processes,
                                 **setup.rules)
        results.append(result)
        mine = result.agents[0].to_dict()
        for key in ("name", "mu", "sigma", "ordinal"):
            mine.pop(key)
        mine.update(seed=seed, truncated=result.truncated, mean_turns=result.mean_turns)
        per_lineup[label] = mine
        if report:
            low, high = mine["win_rate_ci95"]
            report(f"  {agent_spec}, {setup.players} players, vs {label}: win {100 * mine['win_rate']:.1f}% "
                   f"[{100 * low:.1f}, {100 * high:.1f}] over {mine['games']} games")
    overall = merge([r.agents[0] for r in results], agent_spec)
    mu, sigma = anchored_rating(results, [opponents for _, opponents in setup.lineups], setup.reference,
                                seed=setup.seeds[0])
    overall.mu, overall.sigma = mu, sigma
    figures = overall.to_dict()
    figures.pop("name")
    return {"spec": agent_spec, "overall": figures, "lineups": per_lineup,
            "seconds": round(time.perf_counter() - start, 1)}


def _plain(value: Any) -> Any:
    """JSON-ready data with NaN and infinities as null (strict JSON)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        return float(value) if math.isfinite(value) else None
    return value


def _columns(spec: Any) -> list[dict[str, Any]]:
    stats = spec.episode_stats
    return [{"key": c.key, "header": c.long_header or c.header, "percent": bool(c.percent)}
            for c in (stats.columns if stats is not None else ())]


def run_protocol(env: str, players: Sequence[int], agent_specs: Sequence[str], rules: dict[str, Any] | None = None,
                 games: int = STANDARD_GAMES, private_seed: int | None = None, processes: int = 1,
                 report: Callable[[str], None] | None = None, built: dict[tuple[str, int], Any] | None = None
                 ) -> dict[str, Any]:
    """Runs the protocol for ``agent_specs`` at each player count; returns the result (JSON-ready).

    ``built``: agents already made, by ``(spec, players)`` (the command makes them first, so a bad
    spec is refused before any game); the others are made here."""
    import keine_ahnung_env

    rules = dict(rules or {})
    entry = registry.game(env)
    base = PUBLISHED_SEED if private_seed is None else int(private_seed)
    other_rules = any(entry.spec(P, **rules).rules != entry.spec(P).rules for P in players)
    standard = games == STANDARD_GAMES and not other_rules
    runs = []
    for P in players:
        spec = entry.spec(P, **rules)
        lineups = protocol_lineups(env, P, rules)
        setup = Setup(env, P, rules, spec, lineups, [lineup_seed(base, P, i) for i in range(len(lineups))], games)
        if report:
            report(f"{env}, {P} players: rating the reference pool ({', '.join(reference_pool(lineups))})")
        rate_reference(setup, processes)
        agents_out = []
        for i, agent_spec in enumerate(agent_specs):
            agent = (built or {}).get((agent_spec, P))
            if agent is None:
                agent = _make(agent_spec, setup, lineup_seed(base, P, AGENT_LINEUP))
            agents_out.append(benchmark_agent(agent_spec, agent, setup, processes, report))
        runs.append({
            "players": P, "rules": _report_rules(entry, spec),
            "lineups": [{"label": label, "opponents": list(opp), "seed": seed}
                        for (label, opp), seed in zip(lineups, setup.seeds)],
            "games_per_lineup": int(-(-games // P) * P), "batch_size": BATCH_SIZE,
            "reference": {"games": setup.reference_games,
                          "seed": lineup_seed(PUBLISHED_SEED, P, REFERENCE_LINEUP), "ratings": setup.reference},
            "columns": _columns(spec), "agents": agents_out,
        })
    return _plain({
        "format": FORMAT, "protocol_version": protocol_version(env), "standard": standard,
        "not_standard_because": [] if standard else
        ([f"{games} games per line-up (the standard is {STANDARD_GAMES})"] if games != STANDARD_GAMES else [])
        + ([f"rules options {rules} (not the game's defaults)"] if other_rules else []),
        "seeds": {"kind": "published" if private_seed is None else "private", "base": base},
        "env": env, "game_version": int(getattr(entry.spec(players[0], **rules), "version", 0)),
        "library_version": keine_ahnung_env.__version__, "numpy_version": np.__version__,
        "python_version": sys.version.split()[0],
        "created": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "runs": runs,
    })


# ------------------------------------------------------------------------------------- the tables


def _pct(value: Any) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def _cell(value: Any, percent: bool) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    return f"{100 * value:.1f}" if percent else f"{value:.2f}"


def _note(result: dict[str, Any]) -> str:
    notes = []
    if not result.get("standard", False):
        notes.append("not the standard protocol")
    if result.get("seeds", {}).get("kind") == "private":
        notes.append(f"private seeds ({result['seeds'].get('base')})")
    return "; ".join(notes)


def _header(labels: Sequence[str], columns: Sequence[dict[str, Any]]) -> list[str]:
    return (["agent", "win %", "95% CI"] + [f"vs {label} %" for label in labels] + ["mean score"]
            + [c["header"] for c in columns] + ["rating mu", "sigma", "ordinal", "games", "note"])


def markdown_rows(result: dict[str, Any], run: dict[str, Any], labels: Sequence[str] | None = None,
                  columns: Sequence[dict[str, Any]] | None = None) -> list[str]:
    """One Markdown row per agent of ``run`` (a player count of ``result``)."""
    labels = [l["label"] for l in run["lineups"]] if labels is None else labels
    columns = run["columns"] if columns is None else columns
    rows = []
    for agent in run["agents"]:
        o = agent["overall"]
        low, high = o["win_rate_ci95"]
        cells = [agent["spec"], _pct(o["win_rate"]), f"[{_pct(low)}, {_pct(high)}]"]
        cells += [_pct(agent["lineups"][label]["win_rate"]) if label in agent["lineups"] else "-" for label in labels]
        cells.append(_cell(o["mean_score"], False))
        cells += [_cell(o.get(c["key"]), c["percent"]) for c in columns]
        cells += [_cell(o["mu"], False), _cell(o["sigma"], False), _cell(o["ordinal"], False), str(o["games"]),
                  _note(result)]
        rows.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    return rows


def _table(header: Sequence[str], rows: Sequence[str]) -> str:
    return "\n".join(["| " + " | ".join(header) + " |", "|---|" + "---:|" * (len(header) - 2) + "---|", *rows])


def markdown(result: dict[str, Any]) -> str:
    """The result's tables: one per player count."""
    return leaderboard([result])


def leaderboard(results: Sequence[dict[str, Any]]) -> str:
    """One Markdown table per game, game version, player count and rules, every agent of every result
    in it, highest win share first."""
    groups: dict[tuple, list[tuple[dict, dict, dict]]] = {}
    for result in results:
        for run in result["runs"]:
            key = (result["env"], result["game_version"], run["players"], json.dumps(run["rules"], sort_keys=True))
            for agent in run["agents"]:
                groups.setdefault(key, []).append((result, run, agent))
    parts = []
    for (env, version, players, rules), members in sorted(groups.items(), key=lambda kv: kv[0]):
        first_run = members[0][1]
        labels = list(dict.fromkeys(l["label"] for _, run, _ in members for l in run["lineups"]))
        columns = first_run["columns"]
        members.sort(key=lambda m: -(m[2]["overall"]["win_rate"] or 0.0))
        rows = [row for result, run, agent in members
                for row in markdown_rows(result, {**run, "agents": [agent]}, labels, columns)]
        opponents = "; ".join(f"{l['label']}: {', '.join(l['opponents'])}" for l in first_run["lineups"])
        parts.append(f"**{env} (version {version}), {players} players** (line-ups: {opponents})\n\n"
                     + _table(_header(labels, columns), rows))
    return "\n\n".join(parts)


def read_result(path: str | Path) -> dict[str, Any]:
    """A result file as plain data; ValueError for a file that is not a result of this protocol
    version. Nothing named in it is imported or built."""
    try:
        data = json.loads(Path(path).read_text())
    except OSError as exc:
        raise ValueError(f"{path}: cannot be read ({exc.strerror or exc})") from exc
    except json.JSONDecodeError as exc:
        raise ValueError(f"{path}: not JSON ({exc.msg} at line {exc.lineno})") from exc
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise ValueError(f"{path}: not a result of training.benchmark_agents (its format field is not {FORMAT!r})")
    version, env = data.get("protocol_version"), data.get("env")
    expected = protocol_version(env) if isinstance(env, str) else PROTOCOL_VERSION
    if version != expected:
        raise ValueError(f"{path}: protocol version {version!r}; this command merges version {expected} only "
                         f"for {env} (benchmark the agent again with this version)")
    try:
        for run in data["runs"]:
            for agent in run["agents"]:
                str(agent["spec"]), float(agent["overall"]["win_rate"]), dict(agent["lineups"])
            [l["label"] for l in run["lineups"]]
            run["players"], run["columns"], run["rules"]
        data["env"], data["game_version"]
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"{path}: a malformed result ({type(exc).__name__}: {exc})") from exc
    return data


# ------------------------------------------------------------------------------------ the command

PROG = "python -m training.benchmark_agents"
EXAMPLES = (
    "--env keine_ahnung_v0 --players 4 --agents py:my_agent:MyAgent --json mine.json",
    "--players 2 3 4 5 --agents greedy,counter --json heuristics.json --processes 4",
    "--players 4 --agents counter --games 60 --no-progress        # a quick run, not the standard protocol",
    "--players 4 --agents py:my_agent:MyAgent --private-seed 12345",
    "--compare heuristics.json mine.json --markdown leaderboard.md",
)


def build_parser() -> Parser:
    parser = Parser(PROG, description=__doc__.split("\n\n")[0] + f" (protocol version {PROTOCOL_VERSION}; "
                    + ", ".join(f"{game}: {v}" for game, v in GAME_PROTOCOL_VERSIONS.items()) + ")",
                    examples=EXAMPLES)
    add_env(parser)
    parser.add_argument("--players", nargs="+", default=None, metavar="N",
                        help="player counts to benchmark (several, or 'all'); omitted: the game's default")
    parser.add_argument("--agents", default=None, metavar="A,B,...",
                        help="comma-separated agent specs: names (counter, risk_caller:0.6), ppo:PATH, "
                             "py:my_module:MyAgent or my_pkg.module:MyAgent, installed entry points")
    parser.add_argument("--games", type=int, default=STANDARD_GAMES, metavar="N",
                        help="games per line-up; another number than the default is not the standard protocol")
    parser.add_argument("--private-seed", type=int, default=None, metavar="S",
                        help="play on seeds derived from S in place of the published ones")
    parser.add_argument("--processes", type=int, default=1, metavar="N",
                        help="worker processes per tournament (same results as 1)")
    add_rules(parser, help="rules options (not the standard protocol), e.g. memory=none")
    add_json(parser, help="write the result here (default: benchmark_agents_<env>_<time>.json)")
    parser.add_argument("--markdown", default=None, metavar="PATH", help="also write the Markdown table(s) here")
    parser.add_argument("--compare", nargs="+", default=None, metavar="FILE",
                        help="merge these result files into one leaderboard (plays nothing)")
    add_progress(parser)
    return parser


def _players(entry: registry.GameEntry, values: Sequence[str] | None) -> list[int]:
    if values is None:
        return [entry.default_players]
    if list(values) == ["all"]:
        return list(entry.players)
    out = []
    for value in values:
        try:
            number = int(value)
        except ValueError:
            number = None
        if number is None or number not in entry.players:
            raise usage_error("--players", number if number is not None else value,
                              f"integers {entry.min_players}-{entry.max_players} or 'all'", entry.name)
        out.append(number)
    return list(dict.fromkeys(out))


def compare(paths: Sequence[str], markdown_path: str | None = None) -> str:
    """``--compare``: the leaderboard of the result files."""
    with user_errors("--compare", list(paths)):
        results = [read_result(p) for p in paths]
        if markdown_path:
            check_json_path(markdown_path, "--markdown")
    text = leaderboard(results)
    print(text)
    if markdown_path:
        print(f"wrote {write_json_file(markdown_path, text + chr(10))}")
    return text


def run(argv: Sequence[str] | None = None) -> dict[str, Any] | str:
    """Parses ``argv`` and runs the protocol (or ``--compare``); returns the result (or the table)."""
    args = build_parser().parse_args(argv)
    if args.compare is not None:
        if args.agents is not None:
            raise UsageError("--compare merges result files and plays nothing; drop --agents (or run them first)")
        return compare(args.compare, args.markdown)
    with user_errors():
        entry = check_env(args.env)
        players = _players(entry, args.players)
        games = check_positive("--games", args.games)
        processes = check_positive("--processes", args.processes)
        private = None if args.private_seed is None else check_seed(args.private_seed, "--private-seed")
        if args.agents is None:
            raise UsageError("--agents is needed: comma-separated agent specs, e.g. py:my_module:MyAgent,counter "
                             f"(or --compare FILES); names: {', '.join(_available(args.env))}")
        specs = split_specs("--agents", args.agents, "py:my_module:MyAgent,counter")
        rules: dict[str, Any] = {}
        for P in players:
            spec, rules = check_variant(entry, P, args.rules)
        json_path = check_json_path(args.json) or Path(
            f"benchmark_agents_{args.env}_{datetime.datetime.now():%Y%m%d_%H%M%S}.json")
        check_json_path(args.markdown, "--markdown")
        # Every agent is made for every table size first: a bad spec, a module that does not import or a
        # checkpoint for another table is refused before any game is played.
        built = {}
        for P in players:
            for i, agent_spec in enumerate(specs):
                seed = lineup_seed(PUBLISHED_SEED if private is None else private, P, AGENT_LINEUP)
                built[(agent_spec, P)] = make_agent("--agents", agent_spec, game=args.env, seed=seed,
                                                    num_players=P, rules=rules)
        for P in players:
            protocol_lineups(args.env, P, rules)
    report = (lambda line: print(line, flush=True)) if args.progress else None
    start = time.perf_counter()
    result = run_protocol(args.env, players, specs, rules, games=games, private_seed=private, processes=processes,
                          report=report, built=built)
    result["command"] = f"{PROG} " + " ".join(sys.argv[1:] if argv is None else argv)
    result["seconds"] = round(time.perf_counter() - start, 1)
    text = markdown(result)
    print(text)
    print(f"wrote {write_json_file(json_path, json.dumps(result, indent=2, allow_nan=False) + chr(10))}")
    if args.markdown:
        print(f"wrote {write_json_file(args.markdown, text + chr(10))}")
    return result


def _available(env: str) -> list[str]:
    import agents

    return agents.available(env)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point: a user's mistake exits with status 2 and one line ``error: ...`` on stderr."""
    run_command(run, argv)


if __name__ == "__main__":
    main()
