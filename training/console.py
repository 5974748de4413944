"""The installed console command ``keine-ahnung`` (``[project.scripts]`` in ``pyproject.toml``): one
command whose subcommands are the project's commands.

    keine-ahnung train --players 4 --opponents counter --max-minutes 10    # python -m training.train ...
    keine-ahnung evaluate --players 4 --agents ppo_4p,counter --games 400  # python -m training.evaluate ...
    keine-ahnung play --opponents greedy,greedy,greedy                     # python -m training.play ...

``keine-ahnung COMMAND ARGS`` runs ``main(ARGS)`` of the command's module exactly as ``python -m
MODULE ARGS`` does (same flags, same output, same exit status); a new command is one line of
:data:`COMMANDS`. Modules are imported only when their command runs.
"""

from __future__ import annotations

import difflib
import importlib
import sys
from typing import Sequence

from keine_ahnung_env.cli import CONSOLE, invoked_as, one_line, run_command

COMMANDS: dict[str, tuple[str, str]] = {
    "train": ("training.train", "train a MaskablePPO agent against the game's heuristic agents"),
    "train_rllib": ("training.train_rllib", "multi-agent PPO on Ray RLlib, locally or on a cluster (the [rllib] extra)"),
    "evaluate": ("training.evaluate", "seat-rotated tournament of agents: win rates, intervals, ratings"),
    "benchmark_agents": ("training.benchmark_agents", "your agent on the standard protocol; --compare: a leaderboard"),
    "play": ("training.play", "play a game yourself in the terminal against bots"),
    "replay": ("training.replay", "check a recorded game and turn it into an animated GIF"),
    "viewer": ("training.viewer", "browser viewer: step through replays, play against bots"),
    "search": ("training.search", "determinized roll-out planner against copies of a heuristic"),
    "advantage": ("training.advantage", "distil roll-out values into a network that overrules a heuristic's decisions"),
    "benchmark": ("keine_ahnung_env.benchmark", "speed of the batched engine, its wrappers and peer environments"),
    "demo": ("keine_ahnung_env.demo", "a random game printed turn by turn"),
}
"""``{subcommand: (module with main(argv), one-line summary)}``."""

EXAMPLES = (
    "train --env keine_ahnung_v0 --players 4 --opponents counter --max-minutes 10",
    "evaluate --players 4 --agents ppo_4p,greedy,counter --games 2000 --markdown",
    "play --opponents ppo_4p,greedy,counter",
)


def usage() -> str:
    width = max(map(len, COMMANDS))
    lines = [f"usage: {CONSOLE} COMMAND [ARGS ...]   ({CONSOLE} COMMAND --help: the command's arguments)", "",
             "Keine Ahnung environments: train, evaluate and play agents from the command line.", "", "commands:"]
    lines += [f"  {name.ljust(width)}  {summary} (python -m {module})" for name, (module, summary) in COMMANDS.items()]
    lines += ["", "examples:"] + [f"  {CONSOLE} {example}" for example in EXAMPLES]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """``keine-ahnung COMMAND ARGS``: runs the command; returns 0, or exits with status 2 (one line on
    stderr) for a missing or unknown command and for the command's own usage errors."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("-h", "--help", "help"):
        if not argv:
            print(f"error: {CONSOLE} needs a command; allowed: {', '.join(COMMANDS)} ({CONSOLE} --help lists them)",
                  file=sys.stderr)
            return 2
        print(usage())
        return 0
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        close = difflib.get_close_matches(name, COMMANDS, n=1, cutoff=0.6)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        print(f"error: command {name!r}{hint}; allowed: {', '.join(COMMANDS)} ({CONSOLE} --help lists them)",
              file=sys.stderr)
        return 2
    module = importlib.import_module(COMMANDS[name][0])
    with invoked_as(f"{CONSOLE} {name}"):
        try:
            run_command(module.main, rest)
        except SystemExit as exc:  # --help, or a usage error already printed
            code = exc.code
            if code is None or isinstance(code, int):
                return code or 0
            print(f"error: {one_line(str(code))}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
