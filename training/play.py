"""Play Keine Ahnung in the terminal against bots: ``python -m training.play --opponents greedy,greedy,greedy``.

You see only what your seat may see (the observation's string view); the legal moves are listed with
numbers; between your decisions a recap says what the other players did. Type a move's number, its
name (``REVEAL_2``, ``CALL``, ``PLACE_RED_5``) or ``q`` to quit.
"""

from __future__ import annotations

import dataclasses
import sys
from typing import Callable, TextIO

import numpy as np

from .cli import parse_dataclass, parse_rules


@dataclasses.dataclass
class Args:
    """Play a seat yourself against bot opponents."""

    env: str = "keine_ahnung_v0"
    """the game (keine_ahnung_v0)"""
    opponents: str = "greedy,greedy,greedy"
    """comma-separated agent specs, one per opponent seat (e.g. ppo:runs/x/final.zip,greedy,counter)"""
    seat: int = 0
    """your seat, 0 = first to play"""
    seed: int = 0
    """the deal"""
    rules: list[str] = dataclasses.field(default_factory=list)
    """rules options as key=value (e.g. memory=none)"""


def describe_move(core, seat: int, action: int, before: dict) -> str:
    """What everybody at the table saw a bot do (only public information)."""
    from keine_ahnung_env.games.keine_ahnung.actions import ACTION_CALL, ACTION_KEEP, action_name
    from keine_ahnung_env.games.keine_ahnung.core import LOC_LAYOUT

    t = core.tables
    name = action_name(action)
    if action < 6:
        card = before["layout"][seat][action]
        placed = core.card_loc[0, card] != LOC_LAYOUT or core.pending[0] == card
        outcome = "a consolation prize" if t.is_prize[card] else ("fits" if placed else "does not fit; face down again")
        return f"{name}: {t.card_name(card)} ({outcome})"
    if action == ACTION_CALL:
        won = core.trophy_count[0, seat] > before["trophies"][seat]
        return f"CALL 'Nothing fits anymore!': {'success, a trophy' if won else 'failed'}"
    if action == ACTION_KEEP:
        return "KEEP: put the card back face down"
    return f"{name}: placed {t.card_name(before['pending'])}" if before["pending"] >= 0 else name


def play(args: Args, read: Callable[[], str] = input, out: TextIO = sys.stdout) -> dict:
    """Runs one game; ``read`` supplies the human's lines (``input`` by default); returns the result."""
    import agents
    from keine_ahnung_env import keine_ahnung_v0
    from keine_ahnung_env.games.keine_ahnung.actions import Action, action_name
    from keine_ahnung_env.games.keine_ahnung.observation import observation_string

    if args.env != "keine_ahnung_v0":
        raise ValueError(f"--env {args.env!r}; allowed: keine_ahnung_v0")
    specs = [s.strip() for s in args.opponents.split(",") if s.strip()]
    num_players = len(specs) + 1
    if not 2 <= num_players <= 5:
        raise ValueError(f"--opponents names {len(specs)} agents; allowed: 1-4 (2-5 players)")
    if not 0 <= args.seat < num_players:
        raise ValueError(f"--seat {args.seat}; allowed: 0-{num_players - 1}")
    rules = parse_rules(args.rules)
    env = keine_ahnung_v0.vector_env(1, num_players=num_players, seed=args.seed, autoreset=False, **rules)
    bots = {}
    for i, spec in enumerate(specs):
        seat = [s for s in range(num_players) if s != args.seat][i]
        kwargs = {"num_players": num_players, "rules": rules} if spec.startswith("ppo") else {}
        bots[seat] = (spec, agents.make(spec, game=args.env, seed=args.seed + i, **kwargs))
    core = env.core
    print(f"Keine Ahnung, {num_players} players. You are seat {args.seat}; "
          + ", ".join(f"seat {s}: {spec}" for s, (spec, _) in sorted(bots.items())) + ".", file=out)
    result = env.reset()
    recap: list[str] = []
    while not (result.terminated[0] or result.truncated[0]):
        seat = int(result.current_player[0])
        if seat != args.seat:
            spec, bot = bots[seat]
            before = {"layout": core.layout[0].copy(), "trophies": core.trophy_count[0].copy(),
                      "pending": int(core.pending[0])}
            action = int(bot.act(result.observation, result.action_mask)[0])
            result = env.step(np.array([action]))
            recap.append(f"  seat {seat} ({spec}): {describe_move(core, seat, action, before)}")
            continue
        if recap:
            print("\nSince your last move:\n" + "\n".join(recap), file=out)
            recap = []
        print("\n" + observation_string(env.observe(args.seat)[0], core.obs_layout, core.tables), file=out)
        legal = np.flatnonzero(result.action_mask[0]).tolist()
        print("Your moves: " + "  ".join(f"[{i}] {action_name(a)}" for i, a in enumerate(legal)), file=out)
        while True:
            try:
                line = read().strip()
            except EOFError:
                print("\nInput ended; leaving the game.", file=out)
                return {"quit": True, "scores": core.scores[0].tolist()}
            if line.lower() in ("q", "quit", "exit"):
                print("You left the game.", file=out)
                return {"quit": True, "scores": core.scores[0].tolist()}
            choice = _parse_choice(line, legal, Action)
            if choice is not None:
                break
            print(f"'{line}' is not one of your moves; type a number 0-{len(legal) - 1} or a move name.", file=out)
        before = {"layout": core.layout[0].copy(), "trophies": core.trophy_count[0].copy(), "pending": int(core.pending[0])}
        result = env.step(np.array([choice]))
        print(f"You: {describe_move(core, args.seat, choice, before)}", file=out)
    if recap:
        print("\nSince your last move:\n" + "\n".join(recap), file=out)
    scores = result.scores[0].tolist()
    won = result.rewards[0, args.seat] > 0 or (result.rewards[0] == 0).all() and not result.truncated[0]
    print("\nGame over. Scores: " + ", ".join(f"seat {s}{' (you)' if s == args.seat else ''}: {v}"
                                              for s, v in enumerate(scores)), file=out)
    print("You win!" if won else "You did not win this time.", file=out)
    return {"quit": False, "scores": scores, "won": bool(won)}


def _parse_choice(line: str, legal: list[int], action_enum) -> int | None:
    if line.isdigit() and int(line) < len(legal):
        return legal[int(line)]
    try:
        action = int(action_enum[line.upper()])
    except KeyError:
        return None
    return action if action in legal else None


def main(argv: list[str] | None = None) -> None:
    """Entry point of ``python -m training.play``."""
    play(parse_dataclass(Args, argv))


if __name__ == "__main__":
    main()
