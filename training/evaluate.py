"""Seat-rotated tournaments from the command line: ``python -m training.evaluate``.

    python -m training.evaluate --env keine_ahnung_v0 --players 4 \
        --agents random,never_call,always_call,greedy,risk_caller:0.6,counter --games 2000 \
        --json league.json --plot league.png

Every agent sits in every seat equally often and all line-ups meet the same deals (see
``training/tournament.py`` for the scheme and the statistics). ``--env`` takes any registered game
(``keine_ahnung_env.registry``). The table shows, per agent, the win rate (shared wins split) with its
95% Wilson interval, the mean score, the game's own statistics (Keine Ahnung: mean trophies, calls per
game and their success rate) and the openskill Plackett-Luce rating (mu, sigma, ordinal = mu -
3 sigma). ``--json`` writes the same numbers to a file, ``--plot`` a PNG. Agent specs are those of
``agents.make`` for the game (``name`` or ``name:arg``; ``ppo:path/to/checkpoint.zip`` for a trained
policy); without ``--agents`` the league is ``random`` and the game's own heuristic agents.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Sequence

from keine_ahnung_env import registry

from .tournament import DEFAULT_ENV, TournamentResult, play_tournament, unique_names


def build_parser() -> argparse.ArgumentParser:
    """The command-line parser of ``python -m training.evaluate``."""
    parser = argparse.ArgumentParser(
        prog="python -m training.evaluate", description=__doc__.split("\n\n")[0],
        formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("--env", default=DEFAULT_ENV, help=f"game: {', '.join(registry.games())}")
    parser.add_argument("--players", default=None,
                        help="players per game, in the game's range; None: the game's default (4 for keine_ahnung_v0)")
    parser.add_argument("--agents", default=None,
                        help="comma-separated agent specs (agents.make names, e.g. risk_caller:0.6, ppo:PATH); "
                             "None: random and the game's own heuristic agents")
    parser.add_argument("--games", default="2000", help="games to play (rounded up to whole deals)")
    parser.add_argument("--seed", default="0", help="seed of the deals")
    parser.add_argument("--batch-size", default="1024", help="games stepped together")
    parser.add_argument("--rules", nargs="*", default=[], metavar="KEY=VALUE",
                        help="rules options, e.g. memory=none allow_keep=true")
    parser.add_argument("--json", default=None, metavar="PATH", help="write the results as JSON here")
    parser.add_argument("--plot", default=None, metavar="PATH", help="write a PNG chart of the results here")
    parser.add_argument("--markdown", action="store_true", help="print the table in Markdown")
    parser.add_argument("--no-progress", dest="progress", action="store_false", help="hide the progress bar")
    return parser


def _int(value: str, flag: str, allowed: str, low: int, high: int | None = None) -> int:
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise ValueError(f"{flag} {value!r}; allowed: {allowed}") from None
    if number < low or (high is not None and number > high):
        raise ValueError(f"{flag} {value!r}; allowed: {allowed}")
    return number


def run(argv: Sequence[str] | None = None) -> TournamentResult:
    """Parses ``argv``, plays the tournament, prints the table and writes ``--json``/``--plot``.

    Raises ValueError (naming the bad value and what is allowed) for bad arguments.
    """
    import agents

    from .cli import parse_rules

    args = build_parser().parse_args(argv)
    try:
        game = registry.game(args.env)
    except ValueError:
        raise ValueError(f"--env {args.env!r}; allowed: {', '.join(registry.games())}") from None
    players = _int(str(game.default_players) if args.players is None else args.players, "--players",
                   f"an integer {game.min_players}-{game.max_players}", game.min_players, game.max_players)
    games = _int(args.games, "--games", "a positive integer", 1)
    seed = _int(args.seed, "--seed", "a non-negative integer", 0)
    batch_size = _int(args.batch_size, "--batch-size", "a positive integer", 1)
    rules = parse_rules(args.rules)
    if args.agents is None:
        args.agents = ",".join(["random", *game.spec(players, **rules).agents])
    specs = [s.strip() for s in args.agents.split(",") if s.strip()]
    if not specs:
        raise ValueError(f"--agents {args.agents!r}; allowed: comma-separated agent specs, e.g. random,greedy; "
                         f"names: {', '.join(agents.available(args.env))}")
    built = []
    for i, spec in enumerate(specs):
        # The player count and rules go to every agent: a PPO checkpoint trained for another table is
        # refused here, before any game is played.
        agent = agents.make(spec, game=args.env, seed=seed + 1 + i, num_players=players, rules=rules)
        built.append(agent)
    names = unique_names(specs)
    result = play_tournament(built, num_players=players, games=games, seed=seed, env=args.env,
                             batch_size=batch_size, progress=args.progress, names=names, **rules)
    print(f"{args.env}, {players} players, {result.games} games ({result.deals} deals x {len(result.lineups)} "
          f"seatings), seed {seed}, mean {result.mean_turns:.1f} turns, {result.truncated} truncated")
    print(result.markdown() if args.markdown else result.table())
    if args.json:
        path = Path(args.json)
        path.parent.mkdir(parents=True, exist_ok=True)
        data = result.to_dict()
        data["command"] = "python -m training.evaluate " + " ".join(sys.argv[1:] if argv is None else argv)
        path.write_text(json.dumps(data, indent=2))
        print(f"wrote {path}")
    if args.plot:
        print(f"wrote {plot(result, args.plot)}")
    return result


def plot(result: TournamentResult, path: str | Path) -> Path:
    """A PNG with two panels: win rate with its 95% interval (and the fair share), and the
    openskill ordinal with mu +- 3 sigma."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = sorted(result.agents, key=lambda a: a.win_rate)
    names = [a.name for a in rows]
    y = range(len(rows))
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 0.5 * len(rows) + 1.8), sharey=True)
    rates = [100 * a.win_rate for a in rows]
    low = [100 * (a.win_rate - a.win_interval[0]) for a in rows]
    high = [100 * (a.win_interval[1] - a.win_rate) for a in rows]
    left.barh(list(y), rates, xerr=[low, high], color="tab:blue", alpha=0.8, capsize=3)
    left.axvline(100 / result.num_players, color="grey", linestyle="--", label="fair share")
    left.set_yticks(list(y), names)
    left.set_xlabel("win rate % (95% Wilson interval)")
    left.legend(loc="lower right")
    right.barh(list(y), [a.ordinal for a in rows], color="tab:orange", alpha=0.8, label="ordinal (mu - 3 sigma)")
    right.errorbar([a.mu for a in rows], list(y), xerr=[3 * a.sigma for a in rows], fmt="o", color="black",
                   capsize=3, label="mu +- 3 sigma")
    right.set_xlabel("openskill Plackett-Luce rating")
    right.legend(loc="lower right")
    fig.suptitle(f"{result.env}: {result.num_players} players, {result.games} seat-rotated games")
    fig.tight_layout()
    out = Path(path)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point: bad arguments exit with status 2 and the ValueError's message."""
    try:
        run(argv)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        raise SystemExit(2) from None


if __name__ == "__main__":
    main()
