"""Speed of the belief modules (``GameSpec.belief``, issue 17): milliseconds per ``sample_states`` of 32
(and 256) states and per ``event_probabilities``, on observations met in random play, for every game
that offers beliefs and every table size.

    .venv/bin/python research/belief_speed.py [--games gap_v0,dnp_v0] [--positions 40]

Each figure is the median over ``--positions`` observations (random legal play, seat to act), each
timed once after one warm-up call. Figures depend on the machine and its load.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from keine_ahnung_env import registry
from keine_ahnung_env.sampling import sample_masked


def observations(spec, count: int, seed: int = 0) -> list[np.ndarray]:
    core = spec.make_core(8, seed)
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < count:
        for _ in range(int(rng.integers(5, 40))):
            core.step(sample_masked(rng, core.legal_mask))
            if core.done.any():
                core.reset_games(np.flatnonzero(core.done))
        b = int(rng.integers(core.num_envs))
        out.append(core.observe(int(core.current[b]), games=np.array([b]))[0])
    return out


def milliseconds(call) -> float:
    start = time.perf_counter()
    call()
    return 1000 * (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", default=None, help="comma-separated game names (default: every game with beliefs)")
    parser.add_argument("--positions", type=int, default=40)
    args = parser.parse_args()
    games = args.games.split(",") if args.games else [g for g in registry.games()
                                                        if registry.game_spec(g).belief is not None]
    print("| game | players | sample 32 (ms) | sample 256 (ms) | events (ms) |")
    print("|---|---:|---:|---:|---:|")
    for game in games:
        first = registry.game_spec(game)
        for players in range(first.min_players, first.max_players + 1):
            spec = registry.game_spec(game, players)
            belief, rng = spec.belief, np.random.default_rng(1)
            times = {"32": [], "256": [], "events": []}
            for obs in observations(spec, args.positions):
                belief.sample_states(obs, 32, rng)
                belief.event_probabilities(obs)
                times["32"].append(milliseconds(lambda: belief.sample_states(obs, 32, rng)))
                times["256"].append(milliseconds(lambda: belief.sample_states(obs, 256, rng)))
                times["events"].append(milliseconds(lambda: belief.event_probabilities(obs)))
            row = " | ".join(f"{np.median(times[k]):.2f}" for k in ("32", "256", "events"))
            print(f"| {game} | {players} | {row} |", flush=True)


if __name__ == "__main__":
    main()
