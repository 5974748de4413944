"""Play a game in the terminal against bots: ``python -m training.play --opponents greedy,greedy,greedy``.

Any registered game (``--env``; Keine Ahnung by default). You see only what your seat may see (the
game's text view of your observation, ``GameSpec.observation_string``); the legal moves are listed
with numbers and their names (``GameSpec.action_names``); between your decisions a recap says what the
other players did (``GameSpec.describe_move`` where the game has one, else the move's name). Type a
move's number, its name (Keine Ahnung: ``REVEAL_2``, ``CALL``, ``PLACE_RED_5``) or ``q`` to quit.
``--record DIR`` writes the game as a replay file when it ends (docs/pictures.md); ``python -m
training.viewer`` plays the same games in a browser, with pictures.
"""

from __future__ import annotations

import dataclasses
import sys
from typing import Any, Callable, TextIO

import numpy as np

from .cli import (UsageError, check_env, check_int, check_seed, check_variant, make_agent, parse_dataclass, run_command,
                  split_specs, user_errors)

PROG = "python -m training.play"
EXAMPLES = (
    "--opponents greedy,greedy,greedy",
    "--opponents ppo_4p,greedy,counter --seat 2 --seed 7",
    "--opponents counter --rules memory=none",
)


@dataclasses.dataclass
class Args:
    """Play a seat yourself against bot opponents."""

    env: str = "keine_ahnung_v0"
    """the game: any registered one (keine_ahnung_v0, ...)"""
    opponents: str = ""
    """comma-separated agent specs of the game, one per opponent seat (e.g. ppo:runs/x/final.zip,greedy,counter;
    random plays every game); empty: the game's default table of its default opponent (Keine Ahnung:
    greedy,greedy,greedy)"""
    seat: int = 0
    """your seat, 0 = first to play"""
    seed: int = 0
    """the deal (an integer 0 to 2**32 - 1)"""
    rules: list[str] = dataclasses.field(default_factory=list)
    """rules options as key=value (e.g. memory=none)"""
    record: str = ""
    """a folder: write the game as a replay file there when it ends (docs/pictures.md)"""


def describe_move(spec, core, seat: int, action: int) -> Callable[[Any], str]:
    """What everybody at the table will have seen ``seat`` do with ``action`` in game 0 of ``core``:
    call before the move is played; the returned function, called after it, gives the text (the
    game's ``GameSpec.describe_move``, or the action's name where it has none)."""
    if spec.describe_move is not None:
        return spec.describe_move(core, 0, seat, action)
    name = spec.action_name(action)
    return lambda core: name


def check_args(args: Args) -> tuple:
    """``(spec, rules, bots)`` for ``args``: the variant played and ``{seat: (agent spec, agent)}`` of
    the bots; UsageError (a ValueError) naming the first bad argument."""
    game = check_env(args.env)
    if not str(args.opponents).strip():
        default = game.spec()
        args.opponents = ",".join([default.default_opponent] * (game.default_players - 1))
    specs = split_specs("--opponents", args.opponents, "greedy,greedy,greedy")
    num_players = len(specs) + 1
    if num_players not in game.players:
        raise UsageError(f"--opponents names {len(specs)} agents; allowed: {game.min_players - 1}-"
                         f"{game.max_players - 1} ({game.min_players}-{game.max_players} players)")
    check_int("--seat", args.seat, 0, num_players - 1)
    check_seed(args.seed)
    spec, rules = check_variant(game, num_players, args.rules)
    bots = {}
    for i, agent_spec in enumerate(specs):
        seat = [s for s in range(num_players) if s != args.seat][i]
        kwargs = {"num_players": num_players, "rules": rules} if agent_spec.startswith("ppo") else {}
        bots[seat] = (agent_spec, make_agent("--opponents", agent_spec, game=args.env, seed=args.seed + i, **kwargs))
    return spec, rules, bots


def play(args: Args, read: Callable[[], str] = input, out: TextIO = sys.stdout) -> dict:
    """Runs one game; ``read`` supplies the human's lines (``input`` by default); returns the result."""
    from keine_ahnung_env.vector import VectorEnv

    from keine_ahnung_env.replay import Replay, check_record_dir

    with user_errors():
        spec, _, bots = check_args(args)
        record_dir = check_record_dir(args.record)
    env = VectorEnv(spec, 1, args.seed, autoreset=False)
    played: list[int] = []

    def record(note: str) -> None:
        if record_dir is None:
            return
        names = [bots[s][0] if s in bots else "you" for s in range(spec.num_players)]
        replay = Replay.record(spec, core, 0, args.seed, 0, names, played, note=note)
        path = replay.save(record_dir / replay.file_name())
        print(f"Replay written to {path}", file=out)

    core = env.core
    print(f"{spec.title or spec.name}, {spec.num_players} players. You are seat {args.seat}; "
          + ", ".join(f"seat {s}: {agent_spec}" for s, (agent_spec, _) in sorted(bots.items())) + ".", file=out)
    by_name = {name.upper(): a for a, name in enumerate(spec.action_names)}
    result = env.reset()
    recap: list[str] = []
    while not (result.terminated[0] or result.truncated[0]):
        seat = int(result.current_player[0])
        if seat != args.seat:
            agent_spec, bot = bots[seat]
            action = int(bot.act(result.observation, result.action_mask)[0])
            seen = describe_move(spec, core, seat, action)
            result = env.step(np.array([action]))
            played.append(action)
            recap.append(f"  seat {seat} ({agent_spec}): {seen(core)}")
            continue
        if recap:
            print("\nSince your last move:\n" + "\n".join(recap), file=out)
            recap = []
        print("\n" + spec.observation_string(env.observe(args.seat)[0]), file=out)
        legal = np.flatnonzero(result.action_mask[0]).tolist()
        print("Your moves: " + "  ".join(f"[{i}] {spec.action_name(a)}" for i, a in enumerate(legal)), file=out)
        while True:
            try:
                line = read().strip()
            except EOFError:
                print("\nInput ended; leaving the game.", file=out)
                record("python -m training.play (left before the end)")
                return {"quit": True, "scores": core.scores[0].tolist()}
            if line.lower() in ("q", "quit", "exit"):
                print("You left the game.", file=out)
                record("python -m training.play (left before the end)")
                return {"quit": True, "scores": core.scores[0].tolist()}
            choice = _parse_choice(line, legal, by_name)
            if choice is not None:
                break
            print(f"'{line}' is not one of your moves; type a number 0-{len(legal) - 1} or a move name.", file=out)
        seen = describe_move(spec, core, args.seat, choice)
        result = env.step(np.array([choice]))
        played.append(choice)
        print(f"You: {seen(core)}", file=out)
    if recap:
        print("\nSince your last move:\n" + "\n".join(recap), file=out)
    scores = result.scores[0].tolist()
    won = result.rewards[0, args.seat] > 0 or (result.rewards[0] == 0).all() and not result.truncated[0]
    print("\nGame over. Scores: " + ", ".join(f"seat {s}{' (you)' if s == args.seat else ''}: {v}"
                                              for s, v in enumerate(scores)), file=out)
    print("You win!" if won else "You did not win this time.", file=out)
    record("python -m training.play")
    return {"quit": False, "scores": scores, "won": bool(won)}


def _parse_choice(line: str, legal: list[int], by_name: dict[str, int]) -> int | None:
    """The action a typed line names: a number in the list of legal moves, or a legal move's name
    (any case); None otherwise."""
    if line.isdigit() and int(line) < len(legal):
        return legal[int(line)]
    action = by_name.get(line.upper())
    return action if action in legal else None


def main(argv: list[str] | None = None) -> None:
    """Entry point of ``python -m training.play``; bad arguments raise ValueError (one line and exit
    status 2 on the command line)."""
    play(parse_dataclass(Args, argv, prog=PROG, examples=EXAMPLES))


if __name__ == "__main__":
    run_command(main)
