"""How fast does the search agent decide? ``ismcts`` in one seat (rotating) against ``counter``s.

Plays ``--games`` games of Keine Ahnung (``--players``), the search agent (``agents/ismcts.py``, its
spec with ``--agent``) in seat ``game % players`` and ``counter`` elsewhere, all games stepped together,
and prints the agent's decisions per second (every decision it takes, searched or not), the searched
ones per second, the seconds per game and the win share with its 95% interval (a speed run, too few
games to measure strength: see ``python -m training.evaluate`` in docs/skill_ceiling.md for that).

    .venv/bin/python research/ismcts_speed.py --players 4 --games 64 --agent ismcts:playouts=8:when=CALL --seed 5
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import agents
from keine_ahnung_env import registry
from keine_ahnung_env.stats import proportion_interval
from training.skill_ceiling import play_level


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=64, help="games, all stepped together (default 64)")
    parser.add_argument("--agent", default="ismcts:playouts=8:when=CALL", help="the search agent's spec")
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args(argv)
    spec = registry.game_spec("keine_ahnung_v0", args.players)
    agent = agents.make(args.agent, seed=args.seed + 1, num_players=args.players)
    counter = agents.make("counter", seed=args.seed + 2, num_players=args.players)

    def player(core, games, seats):
        return agent.act(core.observe(seats, games=games), core.legal_mask[games])

    start, cpu = time.time(), time.process_time()
    shares = play_level(spec, player, counter, args.games, args.seed, batch_size=args.games)
    wall, cpu = time.time() - start, time.process_time() - cpu
    low, high = proportion_interval(float(shares.sum()), shares.size)
    result = {"agent": args.agent, "players": args.players, "games": args.games, "seconds": wall, "cpu_seconds": cpu,
              "decisions": agent.decisions, "searched": agent.searched, "changed": agent.changed,
              "decisions_per_second": agent.decisions / wall, "searched_per_second": agent.searched / wall,
              "seconds_per_game": wall / args.games, "cpu_seconds_per_game": cpu / args.games,
              "win_rate": float(shares.mean()), "win_interval": [low, high]}
    print(f"{args.agent}, {args.players} players, {args.games} games in {wall:.0f} s ({cpu:.0f} s CPU): "
          f"{result['decisions_per_second']:.1f} decisions/s ({agent.decisions} decisions, {agent.searched} searched, "
          f"{agent.changed} changed; {result['searched_per_second']:.2f} searched/s), {wall / args.games:.2f} s per game "
          f"({cpu / args.games:.2f} s CPU); win share {100 * shares.mean():.1f}% [{100 * low:.1f}, {100 * high:.1f}]")
    return result


if __name__ == "__main__":
    main()
