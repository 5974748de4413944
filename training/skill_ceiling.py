"""The skill ceiling: how far does seeing more carry the strongest heuristic?

    python -m training.skill_ceiling --env keine_ahnung_v0 --players 2,3,4,5 --games 8192 --seed 2026 --json ceiling.json

For each player count and each privileged level the game offers (``GameSpec.ceiling``; Keine Ahnung:
``keine_ahnung_env/games/keine_ahnung/ceiling.py``), one privileged player (its seat rotating between
games) plays ``--games`` games against ``players - 1`` copies of the game's baseline heuristic
(Keine Ahnung: ``counter``). Keine Ahnung's levels: ``control`` (``counter`` itself), ``own`` (sees
its own face-down cards), ``all`` (sees every hidden card and the draw order). Every level meets the
same deals in the same seats, so the table also gives each level's gain over the control with a
paired 95% interval (per deal, the level's win share minus the control's).

The privileged players read the engine's state: a research tool, like ``training.search``; nothing
of it is an agent of the public API. The win share counts a shared win as a share, a truncated game
as ``1 / players``.
"""

from __future__ import annotations

import dataclasses
import json
import sys
import time

import numpy as np

from keine_ahnung_env import registry
from keine_ahnung_env.cli import write_json_file
from keine_ahnung_env.game_spec import CeilingHooks, GameSpec
from keine_ahnung_env.stats import Z95, proportion_interval

from .cli import (check_env, check_json_path, check_players, check_positive, check_seed, check_variant,
                  parse_dataclass, run_command, usage_error, user_errors)

DEFAULT_ENV = registry.DEFAULT_GAME
PROG = "python -m training.skill_ceiling"
EXAMPLES = (
    "--players 4 --games 8192 --seed 2026",
    "--players 2,3,4,5 --games 8192 --seed 2026 --processes 16 --json ceiling.json",
    "--players 3 --games 1000 --levels control,own --no-progress",
)


@dataclasses.dataclass
class Args:
    """Seat privileged versions of the game's strongest heuristic against copies of it and print their win
    shares with 95% intervals: the skill ceiling of the game for that heuristic."""

    env: str = DEFAULT_ENV
    """the game (one whose spec offers ceiling hooks: keine_ahnung_v0)"""
    players: str = "4"
    """player counts, comma-separated (e.g. 2,3,4,5)"""
    games: int = 8192
    """games per player count and level (the privileged seat rotates between games)"""
    levels: str = ""
    """comma-separated levels (default: every level the game offers; keine_ahnung_v0: control, own, all)"""
    batch_size: int = 1024
    """games stepped together (a batch is also the unit a worker process plays)"""
    processes: int = 1
    """worker processes sharing the batches (the same results as 1: every batch seeds its own agents)"""
    rules: list[str] = dataclasses.field(default_factory=list)
    """rules options as key=value (e.g. memory=none)"""
    seed: int = 0
    """seeds the deals (game i of every level is the same deal) and the agents"""
    json: str = ""
    """also write the table and every game's win share to this JSON file"""
    progress: bool = True
    """report progress on stderr after each batch of games"""


def ceiling_hooks(game: str | GameSpec) -> CeilingHooks:
    """The ceiling hooks of ``game``; ValueError names the games that offer them."""
    return registry.game_hook(game, "ceiling", "privileged players")


def play_level(spec: GameSpec, player, opponent, games: int, seed: int, batch_size: int = 1024,
               progress=None, first: int = 0) -> np.ndarray:
    """Plays ``games`` games of ``spec``'s variant, ``player`` (``player(core, games, seats) -> actions``)
    in seat ``i % P`` of game i and ``opponent`` (a batched agent) elsewhere; game i (counted from
    ``first``) is the deal ``(seed, i)`` whatever the batch size. Returns the player's win share per game."""
    P = spec.num_players
    shares = []
    for start in range(first, first + games, batch_size):
        n = min(batch_size, first + games - start)
        core = spec.make_core(n, seed)
        core.seed(seed, game_ids=start + np.arange(n))
        core.reset_games(np.arange(n))
        seat = (start + np.arange(n)) % P
        actions = np.zeros(n, np.int64)
        while True:
            live = np.flatnonzero(~core.done)
            if live.size == 0:
                break
            current = core.current[live].astype(np.intp)
            mine = current == seat[live]
            theirs = live[~mine]
            if theirs.size:
                actions[theirs] = opponent.act(core.observe(current[~mine], games=theirs), core.legal_mask[theirs])
            if mine.any():
                actions[live[mine]] = player(core, live[mine], current[mine])
            core.step(actions, active=~core.done)
        shares.append(spec.seat_win_shares(core, seat))
        if progress is not None:
            progress(start + n - first, np.concatenate(shares))
    return np.concatenate(shares)


def play_batch(env: str, players: int, rules: dict, level: str, seed: int, start: int, count: int) -> np.ndarray:
    """Games ``start .. start + count - 1`` of one level (a batch; the unit a worker process plays): the
    level's player and the baseline opponents are built and seeded from ``(seed, players, level,
    start)``, so the results do not depend on how the batches are shared among processes."""
    spec = registry.game_spec(env, players, **rules)
    hooks = ceiling_hooks(spec)
    stream = np.random.SeedSequence([seed, players, list(hooks.levels).index(level), start])
    agent_seed, opponent_seed = (int(x) for x in stream.generate_state(2))
    import agents

    opponent = agents.make(hooks.baseline, game=env, seed=opponent_seed, num_players=players, rules=rules or None)
    player = hooks.player(level, seed=agent_seed, rules=rules or None)
    return play_level(spec, player, opponent, count, seed, batch_size=count, first=start)


def _play_task(task: tuple) -> np.ndarray:
    return play_batch(*task)


def paired_interval(diff: np.ndarray) -> tuple[float, float, float]:
    """Mean of per-game differences with its normal 95% interval."""
    mean = float(diff.mean())
    half = Z95 * float(diff.std(ddof=1)) / np.sqrt(diff.size) if diff.size > 1 else float("nan")
    return mean, mean - half, mean + half


def main(argv: list[str] | None = None) -> dict:
    """Parses the arguments, plays every level at every player count, prints the table; returns the
    summary. Bad arguments raise ValueError (a ``UsageError``) before any game is played."""
    args = parse_dataclass(Args, argv, prog=PROG, examples=EXAMPLES)
    with user_errors():
        game = check_env(args.env)
        with user_errors("--env", args.env):
            hooks = ceiling_hooks(args.env)
        try:
            counts = [int(p) for p in args.players.split(",") if p.strip()]
        except ValueError:
            raise usage_error("--players", args.players, "comma-separated player counts, e.g. 2,3,4,5") from None
        if not counts:
            raise usage_error("--players", args.players, "comma-separated player counts, e.g. 2,3,4,5")
        counts = [check_players(game, p) for p in counts]
        levels = [x.strip() for x in args.levels.split(",") if x.strip()] or list(hooks.levels)
        for level in levels:
            if level not in hooks.levels:
                raise usage_error("--levels", args.levels, ", ".join(hooks.levels))
        if "control" in levels:
            levels.remove("control")
        levels.insert(0, "control")  # the control first: every gain is measured against it
        check_positive("--games", args.games)
        check_positive("--batch-size", args.batch_size)
        check_positive("--processes", args.processes)
        check_seed(args.seed)
        check_json_path(args.json)
        variants = {p: check_variant(game, p, args.rules) for p in counts}
    started = time.time()
    results: dict = {"args": dataclasses.asdict(args), "baseline": hooks.baseline, "levels": dict(hooks.levels),
                     "players": {}}
    tasks = [(args.env, P, variants[P][1], level, args.seed, start, min(args.batch_size, args.games - start))
             for P in counts for level in levels for start in range(0, args.games, args.batch_size)]
    played: list[np.ndarray] = []

    def report(task: tuple, shares: np.ndarray) -> None:
        played.append(shares)
        if args.progress:
            print(f"{task[1]} players, {task[3]}: games {task[5]}-{task[5] + task[6] - 1}, win share "
                  f"{100 * shares.mean():.1f}% ({len(played)} of {len(tasks)} batches, {time.time() - started:.0f} s)",
                  file=sys.stderr, flush=True)

    if args.processes > 1:
        import multiprocessing

        with multiprocessing.get_context("spawn").Pool(args.processes) as pool:
            for task, shares in zip(tasks, pool.imap(_play_task, tasks)):
                report(task, shares)
    else:
        for task in tasks:
            report(task, _play_task(task))
    by_task = dict(zip([(t[1], t[3], t[5]) for t in tasks], played))
    for P in counts:
        per_level, shares_of = {}, {}
        for level in levels:
            shares = np.concatenate([by_task[(P, level, start)] for start in range(0, args.games, args.batch_size)])
            shares_of[level] = shares
            low, high = proportion_interval(float(shares.sum()), shares.size)
            row = {"games": int(shares.size), "win_rate": float(shares.mean()), "win_interval": [low, high]}
            if level != "control":
                gain, gain_low, gain_high = paired_interval(shares - shares_of["control"])
                row["gain_over_control"] = [gain, gain_low, gain_high]
            per_level[level] = row
        results["players"][str(P)] = {"fair_share": 1.0 / P, "levels": per_level,
                                      "shares": {k: v.tolist() for k, v in shares_of.items()}}
    results["seconds"] = time.time() - started
    print(table(results))
    if args.json:
        write_json_file(args.json, json.dumps(results, indent=1))
    return results


def table(results: dict) -> str:
    """The results as a Markdown table: per player count and level, win share and 95% interval, the
    gain over the control with its paired 95% interval."""
    lines = [f"| players | level | games | win % | 95% CI | gain over control (points) |",
             "|---:|---|---:|---:|---:|---:|"]
    for P, data in results["players"].items():
        for level, row in data["levels"].items():
            low, high = row["win_interval"]
            gain = row.get("gain_over_control")
            gain_text = f"{100 * gain[0]:+.1f} [{100 * gain[1]:+.1f}, {100 * gain[2]:+.1f}]" if gain else "-"
            lines.append(f"| {P} | {level}: {results['levels'][level]} | {row['games']} | {100 * row['win_rate']:.1f} "
                         f"| [{100 * low:.1f}, {100 * high:.1f}] | {gain_text} |")
    return "\n".join(lines)


if __name__ == "__main__":
    run_command(main)
