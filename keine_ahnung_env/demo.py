"""A random game of Keine Ahnung printed turn by turn: ``python -m keine_ahnung_env.demo``.

``--env`` plays any registered game the same way; the demo reads it only through its ``GameSpec``
(the table from ``render``, move names from ``action_names``, the game's own statistics from
``episode_stats``).
"""

from __future__ import annotations

import numpy as np

from .cli import Parser, add_env, add_players, add_seed, check_env, check_players, check_seed, run_command, user_errors
from .sampling import sample_masked
from .vector import VectorEnv


PROG = "python -m keine_ahnung_env.demo"
EXAMPLES = ("", "--players 3 --seed 7", "--env keine_ahnung_v0 --players 2 --reveal-all")


class RandomPlayer:
    """Uniform over the legal actions (the environment package does not import the ``agents``
    package; this draws exactly as its ``RandomAgent`` does)."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        return sample_masked(self.rng, action_mask)


def main(argv: list[str] | None = None) -> None:
    """Plays one game with random agents and prints every decision, the table each turn, a summary.
    Bad arguments raise ValueError (a ``UsageError``) before the game starts."""
    parser = Parser(PROG, description=__doc__.split("\n\n")[0], examples=EXAMPLES)
    add_env(parser)
    add_players(parser)
    add_seed(parser, help="seed of the deal and the random players (an integer 0 to 2**32 - 1)")
    parser.add_argument("--reveal-all", action="store_true", help="show face-down cards too")
    args = parser.parse_args(argv)
    with user_errors():
        entry = check_env(args.env)
        players = check_players(entry, args.players)
        check_seed(args.seed)
        spec = entry.spec(players)
    env = VectorEnv(spec, 1, args.seed, autoreset=False)
    core = env.core
    stats = spec.episode_stats
    totals = np.zeros(len(stats.counters) if stats is not None else 0, np.int64)
    agent = RandomPlayer(seed=args.seed)
    result = env.reset()
    turn = -1
    decisions = 0
    while not (result.terminated[0] or result.truncated[0]):
        if core.turn[0] != turn:
            turn = int(core.turn[0])
            print(f"\n{spec.render(core, 0, args.reveal_all)}")
        action = agent.act(result.observation, result.action_mask)
        seat = int(result.current_player[0])
        print(f"  seat {seat}: {spec.action_name(int(action[0]))}")
        decisions += 1
        token = stats.before_step(core, action, np.ones(1, bool)) if stats is not None else None
        result = env.step(action)
        if stats is not None:
            totals += stats.after_step(core, token)[0].sum(axis=0)
    print(f"\n{spec.render(core, 0, True)}")
    scores = result.scores[0]
    winners = np.flatnonzero(result.rewards[0] == result.rewards[0].max()).tolist()
    counted = "".join(f", {int(total)} {name}" for name, total in zip(stats.counters if stats else (), totals))
    print(f"\nSummary: {turn + 1} turns, {decisions} decisions{counted}; scores {scores.tolist()}; "
          f"winner(s): seat {', '.join(map(str, winners))}; rewards "
          + " ".join(f"{r:+.3f}" for r in result.rewards[0]))


if __name__ == "__main__":
    run_command(main)
