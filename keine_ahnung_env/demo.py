"""A random game of Keine Ahnung printed turn by turn: ``python -m keine_ahnung_env.demo``."""

from __future__ import annotations

import argparse

import numpy as np

from agents.base import RandomAgent
from keine_ahnung_env import keine_ahnung_v0
from keine_ahnung_env.games.keine_ahnung.actions import action_name
from keine_ahnung_env.games.keine_ahnung.render import render_table


def main(argv: list[str] | None = None) -> None:
    """Plays one game with random agents and prints every decision, the table each turn, a summary."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", type=int, default=4, help="2-5")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--reveal-all", action="store_true", help="show face-down cards too")
    args = parser.parse_args(argv)
    env = keine_ahnung_v0.vector_env(1, num_players=args.players, seed=args.seed, autoreset=False)
    agent = RandomAgent(seed=args.seed)
    result = env.reset()
    turn = -1
    decisions = calls = 0
    while not (result.terminated[0] or result.truncated[0]):
        if env.core.turn[0] != turn:
            turn = int(env.core.turn[0])
            print(f"\n{render_table(env.core, 0, reveal_all=args.reveal_all)}")
        action = agent.act(result.observation, result.action_mask)
        seat = int(result.current_player[0])
        print(f"  seat {seat}: {action_name(int(action[0]))}")
        calls += int(action[0]) == 6
        decisions += 1
        result = env.step(action)
    print(f"\n{render_table(env.core, 0, reveal_all=True)}")
    scores = result.scores[0]
    winners = np.flatnonzero(result.rewards[0] == result.rewards[0].max()).tolist()
    print(f"\nSummary: {turn + 1} turns, {decisions} decisions, {calls} calls; scores {scores.tolist()}; "
          f"winner(s): seat {', '.join(map(str, winners))}; rewards "
          + " ".join(f"{r:+.3f}" for r in result.rewards[0]))


if __name__ == "__main__":
    main()
