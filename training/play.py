"""Play a game in the terminal against bots: ``python -m training.play --opponents greedy,greedy,greedy``.

Any registered game (``--env``; Keine Ahnung by default). You see only what your seat may see: the
game's terminal view (``GameSpec.terminal_view``; training/terminal.py) or, where it has
none, its text view of your observation. Every move has a key that keeps its meaning all game
(Keine Ahnung: ``r3`` reveals slot 3, ``c`` calls, ``rd5`` places on the red-5 pile); ``?`` explains
the table, ``u`` shows the long lists, ``q``, Ctrl-C or Ctrl-D leave. Between your decisions a recap
says what the other players did. Colour where the terminal has it (not with ``NO_COLOR``).
``--record DIR`` writes the game as a replay file when it ends (docs/pictures.md); ``python -m
training.viewer`` plays the same games in a browser, with pictures.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import select
import signal
import sys
import threading
from typing import Any, Callable, TextIO

import numpy as np

from keine_ahnung_env.game_declaration import SHIPPED_ROLES
from keine_ahnung_env.registry import DEFAULT_GAME

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
    """Play a seat yourself against bot opponents: type a move's key; in the game ? explains the table, q leaves."""

    env: str = DEFAULT_GAME
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
        # A checkpoint is checked against the table; a shipped name (learned, search) picks by its size.
        kwargs = {"num_players": num_players, "rules": rules} if agent_spec.startswith("ppo") else \
            {"num_players": num_players} if agent_spec.split(":")[0] in SHIPPED_ROLES else {}
        bots[seat] = (agent_spec, make_agent("--opponents", agent_spec, game=args.env, seed=args.seed + i, **kwargs))
    return spec, rules, bots


def play(args: Args, read: Callable[[], str] | None = None, out: TextIO = sys.stdout) -> dict:
    """Runs one game; ``read`` supplies the human's lines (by default the terminal's, see
    ``read_terminal_line``, or ``input`` where standard input is not a terminal); returns the result
    (``quit``: left before the end by ``q``, end of input or Ctrl-C; ``scores``; ``won``)."""
    from keine_ahnung_env.replay import Replay, check_record_dir
    from keine_ahnung_env.vector import VectorEnv

    from .terminal import COMMANDS, colour_wanted, moves_line, painter, view_for

    if read is None:
        read = read_terminal_line if sys.stdin.isatty() else input
    with user_errors():
        spec, _, bots = check_args(args)
        record_dir = check_record_dir(args.record)
    env = VectorEnv(spec, 1, args.seed, autoreset=False)
    core = env.core
    played: list[int] = []
    paint = painter(colour_wanted(out))
    me = args.seat
    view = view_for(spec, core, me)

    def label(seat: int) -> str:
        return "you" if seat == me else f"seat {seat}"

    def say(text: str = "") -> None:
        print(text, file=out, flush=True)

    def record(note: str) -> None:
        if record_dir is None:
            return
        names = [bots[s][0] if s in bots else "you" for s in range(spec.num_players)]
        replay = Replay.record(spec, core, 0, args.seed, 0, names, played, note=note)
        path = replay.save(record_dir / replay.file_name())
        say(f"Replay written to {path}")

    def leave(why: str) -> dict:
        say(f"\n{why}")
        record("python -m training.play (left before the end)")
        return {"quit": True, "scores": core.scores[0].tolist()}

    def step(seat: int, action: int):
        seen = view.describe(core, seat, action, label)
        with _interrupt_after():  # the move and its record go together, so a replay never misses one
            stepped = env.step(np.array([action]))
            played.append(action)
        return stepped, seen(core)

    def table() -> str:
        return view.table(core, me, label, paint)

    say(paint(f"{spec.title or spec.name}, {spec.num_players} players. ", "title")
        + f"You are seat {me} ({paint('you', 'you')}); "
        + ", ".join(f"seat {s}: {agent_spec}" for s, (agent_spec, _) in sorted(bots.items())) + ".")
    say("Type a move's key and Enter; ? for help, q to quit.")
    by_key = {key.lower(): a for a, key in view.keys.items()}
    by_name = {name.lower(): a for a, name in enumerate(spec.action_names)}
    recap: list[str] = []
    moved = False
    try:
        result = env.reset()
        while not (result.terminated[0] or result.truncated[0]):
            seat = int(result.current_player[0])
            if seat != me:
                agent_spec, bot = bots[seat]
                action = int(bot.act(result.observation, result.action_mask)[0])
                result, text = step(seat, action)
                recap.append(f"  {label(seat)} ({agent_spec}): {text}")
                continue
            if recap:
                say(("\nSince your last move:\n" if moved else "\nBefore your first move:\n") + "\n".join(recap))
                recap = []
            legal = np.flatnonzero(result.action_mask[0]).tolist()
            say("\n" + table())
            say(paint("Your turn: ", "you") + view.decision(core, me, legal))
            say("Your moves: " + moves_line(view, legal, paint))
            while True:
                print("your move (? for help, q to quit)> ", end="", file=out, flush=True)
                line = read().strip()
                word = line.lower()
                if word in ("q", "quit", "exit"):
                    return leave("You left the game.")
                if word in ("?", "h", "help"):
                    say(view.LEGEND + "\n" + COMMANDS)
                    continue
                if word == "u":
                    say(view.details(core, me, spec.observation_string(env.observe(me)[0])))
                    continue
                if word == "t":
                    say(table() + "\nYour moves: " + moves_line(view, legal, paint))
                    continue
                choice = by_key.get(word, by_name.get(word))
                if choice in legal:
                    break
                if choice is not None:
                    say(f"'{line}' is not possible now; your moves: " + moves_line(view, legal, paint))
                elif line:
                    say(f"'{line}' is not one of your moves; type a key shown after 'Your moves', or ? for help.")
            result, text = step(me, choice)
            moved = True
            say(f"You: {text}")
    except KeyboardInterrupt:
        return leave("Interrupted: you left the game.")
    except EOFError:
        return leave("Input ended; you left the game.")
    if recap:
        say("\nSince your last move:\n" + "\n".join(recap))
    scores = result.scores[0].tolist()
    won = result.rewards[0, me] > 0 or (result.rewards[0] == 0).all() and not result.truncated[0]
    say("\n" + table())
    if result.truncated[0]:
        say(f"\nThe game was cut off after {int(core.turn[0])} turns (the max_turns rule); nobody wins.")
    say("\n" + paint("Game over.", "title") + " Scores: "
        + ", ".join(f"{label(s)}{f' (seat {s})' if s == me else ''}: {v}" for s, v in enumerate(scores)))
    say(paint("You win!", "good") if won else "You did not win this time.")
    record("python -m training.play")
    return {"quit": False, "scores": scores, "won": bool(won)}


_pending_input = bytearray()


def read_terminal_line() -> str:
    """The next line typed on the terminal (EOFError at Ctrl-D on an empty line).

    It waits in short ``select`` steps rather than one blocking read: a Ctrl-C may be delivered to
    any of the process's threads (the compiled kernels' libraries start some), and only a read that
    returns to Python now and then lets the main thread raise the KeyboardInterrupt."""
    fd = sys.stdin.fileno()
    while b"\n" not in _pending_input:
        ready, _, _ = select.select([fd], [], [], 0.2)
        if not ready:
            continue
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # EIO: the terminal was closed
            chunk = b""
        if not chunk:
            if _pending_input:  # a last line without its newline
                break
            raise EOFError
        _pending_input.extend(chunk)
    line, _, rest = bytes(_pending_input).partition(b"\n")
    _pending_input[:] = rest
    return line.decode("utf-8", "replace")


@contextlib.contextmanager
def _interrupt_after():
    """Within this block Ctrl-C waits: the KeyboardInterrupt comes when the block ends (main thread only)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    caught: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: caught.append(signum))
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
    if caught:
        raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> None:
    """Entry point of ``python -m training.play``; bad arguments raise ValueError (one line and exit
    status 2 on the command line)."""
    args = parse_dataclass(Args, argv, prog=PROG, examples=EXAMPLES)
    if sys.stdin.isatty() and threading.current_thread() is threading.main_thread():
        # Ctrl-C leaves the game even where the process that started it blocked or ignored it.
        signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])
        signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        play(args)
    except KeyboardInterrupt:  # before the first deal (during the game, play itself leaves cleanly)
        print("\nInterrupted before the game began.", file=sys.stderr)
        raise SystemExit(130) from None


if __name__ == "__main__":
    run_command(main)
