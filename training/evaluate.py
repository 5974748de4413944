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
policy; ``py:module:Attribute`` or ``my_pkg.module:Attribute`` for your own agent); without ``--agents`` the
league is ``random`` and the game's own heuristic agents. ``--processes N`` shares the games among N
worker processes with the same results as one process. ``--record DIR`` writes every game as a replay
file (docs/pictures.md): ``python -m training.replay FILE --gif OUT.gif`` draws one, ``python -m
training.viewer --replays DIR`` steps through them in a browser.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Sequence

from keine_ahnung_env.cli import add_agents, add_env, add_games, add_json, add_players, add_progress, add_rules, \
    add_seed, write_json_file

from .cli import (Parser, check_env, check_json_path, check_players, check_positive, check_seed, check_variant,
                  make_agent, run_command, split_specs, user_errors)
from keine_ahnung_env.replay import check_record_dir

from .tournament import DEFAULT_ENV, TournamentResult, play_tournament, unique_names


PROG = "python -m training.evaluate"
EXAMPLES = (
    "--players 4 --agents random,greedy,risk_caller:0.6,counter --games 2000 --markdown",
    "--players 4 --agents ppo_4p,counter --games 400 --json league.json --plot league.png",
    "--players 4 --agents py:my_agent:MyAgent,counter --games 4000 --processes 4",
)


def build_parser() -> Parser:
    """The command-line parser of ``python -m training.evaluate``."""
    parser = Parser(PROG, description=__doc__.split("\n\n")[0], examples=EXAMPLES)
    add_env(parser, DEFAULT_ENV)
    add_players(parser)
    add_agents(parser, help="comma-separated agent specs (agents.make names, e.g. risk_caller:0.6, ppo:PATH, "
                            "py:my_module:MyAgent); omitted: random and the game's own heuristic agents")
    add_games(parser, 2000, help="games to play (rounded up to whole deals)")
    add_seed(parser, help="seed of the deals (an integer 0 to 2**32 - 1)")
    parser.add_argument("--batch-size", type=int, default=1024, metavar="N", help="games stepped together")
    parser.add_argument("--processes", type=int, default=1, metavar="N",
                        help="worker processes sharing the batches of games (same results as 1)")
    add_rules(parser, help="rules options, e.g. memory=none allow_keep=true")
    add_json(parser, help="write the results as JSON here")
    parser.add_argument("--plot", default=None, metavar="PATH", help="write a PNG chart of the results here")
    parser.add_argument("--markdown", action="store_true", help="print the table in Markdown")
    parser.add_argument("--record", default=None, metavar="DIR",
                        help="write every game as a replay file (JSON: seed, actions, agents) into this folder; "
                             "see docs/pictures.md")
    add_progress(parser)
    return parser


def run(argv: Sequence[str] | None = None) -> TournamentResult:
    """Parses ``argv``, plays the tournament, prints the table and writes ``--json``/``--plot``.

    Raises ValueError (a ``UsageError`` naming the bad argument, what was given and what is allowed)
    for bad arguments, found before any game is played.
    """
    import agents

    args = build_parser().parse_args(argv)
    with user_errors():
        game = check_env(args.env)
        players = check_players(game, args.players)
        games = check_positive("--games", args.games)
        seed = check_seed(args.seed)
        batch_size = check_positive("--batch-size", args.batch_size)
        processes = check_positive("--processes", args.processes)
        spec, rules = check_variant(game, players, args.rules)
        check_json_path(args.json)
        check_json_path(args.plot, "--plot")
        record_dir = check_record_dir(args.record)
        if args.agents is None:
            args.agents = ",".join(["random", *spec.agents])
        specs = split_specs("--agents", args.agents,
                            f"random,greedy; names: {', '.join(agents.available(args.env))}")
        # The player count and rules go to every agent: a PPO checkpoint trained for another table is
        # refused here, before any game is played.
        built = [make_agent("--agents", agent_spec, game=args.env, seed=seed + 1 + i, num_players=players, rules=rules)
                 for i, agent_spec in enumerate(specs)]
    names = unique_names(specs)
    if len(names) < players:
        print(seat_fill_note(names, players), file=sys.stderr)
    result = play_tournament(built, num_players=players, games=games, seed=seed, env=args.env,
                             batch_size=batch_size, progress=args.progress, names=names, processes=processes,
                             record=record_dir is not None, **rules)
    print(f"{args.env}, {players} players, {result.games} games ({result.deals} deals x {len(result.lineups)} "
          f"seatings), seed {seed}, mean {result.mean_turns:.1f} turns, {result.truncated} truncated")
    print(result.markdown() if args.markdown else result.table())
    if args.json:
        data = result.to_dict()
        data["command"] = "python -m training.evaluate " + " ".join(sys.argv[1:] if argv is None else argv)
        path = write_json_file(args.json, json.dumps(data, indent=2))
        print(f"wrote {path}")
    if args.plot:
        print(f"wrote {plot(result, args.plot)}")
    if record_dir is not None:
        command = "python -m training.evaluate " + " ".join(sys.argv[1:] if argv is None else argv)
        count = write_replays(result, names, spec, record_dir, command)
        print(f"wrote {count} replays to {record_dir}")
    return result


def seat_fill_note(names: Sequence[str], players: int) -> str:
    """The note for fewer agents than seats: the list is cycled to fill every table (the rule of
    ``training/tournament.py``), so some agents hold more seats of each game than others."""
    seats = [len(range(i, players, len(names))) for i in range(len(names))]
    held = ", ".join(f"{name} in {count}" for name, count in zip(names, seats))
    return (f"note: {len(names)} agent{'s' if len(names) > 1 else ''} for {players} seats: the list is repeated "
            f"to fill every table, so every game has {held} of its seats (name {players} agents for one seat each)")


def write_replays(result: TournamentResult, names: Sequence[str], spec, folder: Path, note: str = "") -> int:
    """Writes every game of a tournament played with ``record=True`` as a replay file in ``folder``
    (``<env>_<P>p_seed<seed>_deal<d>_lineup<l>.json``); returns the count. ``spec`` is the variant
    played. Each replay names the agents in seat order and is checked to replay exactly before it is
    written."""
    from keine_ahnung_env.replay import Replay

    rules = {k: v for k, v in spec.rules.items() if k != "num_players"}
    for g, actions in enumerate(result.game_actions):
        lineup = result.lineups[int(result.game_lineup[g])]
        replay = Replay(env=spec.name, version=int(spec.version), num_players=spec.num_players, rules=rules,
                        seed=int(result.seed), game_id=int(result.game_deal[g]),
                        agents=tuple(names[a] for a in lineup), actions=tuple(int(a) for a in actions), note=note)
        core = replay.core_at(len(replay.actions))  # the engine replays it; its end is what the file records
        replay = Replay.record(spec, core, 0, replay.seed, replay.game_id, replay.agents, replay.actions, note)
        if tuple(int(s) for s in result.game_scores[g]) != replay.scores:
            raise RuntimeError(f"game {g} replays to scores {replay.scores}, the tournament saw "
                               f"{result.game_scores[g].tolist()}")
        replay.save(folder / f"{spec.name}_{spec.num_players}p_seed{result.seed}_deal{int(result.game_deal[g]):06d}"
                              f"_lineup{int(result.game_lineup[g]):03d}.json")
    return len(result.game_actions)


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
    """Entry point: a user's mistake exits with status 2 and one line ``error: ...`` on stderr
    (``keine_ahnung_env.cli.run_command``)."""
    run_command(run, argv)


if __name__ == "__main__":
    main()
