"""Learner steps/s of ``sb3_vec_env`` against an opponent pool (default: the training recipe's).

    .venv/bin/python research/sb3_pool_speed.py                                  # counter,counter,greedy,risk_caller:0.5
    .venv/bin/python research/sb3_pool_speed.py --pool counter:compiled=false,counter:compiled=false,greedy:compiled=false,risk_caller:0.5:compiled=false
    .venv/bin/python research/sb3_pool_speed.py --features advice               # the main job's policy inputs too

Every new episode of every game draws its ``players - 1`` opponents from the pool (as
``training.train``'s ``OpponentPool`` does); the learner plays uniformly random legal actions, so the
figure is the environment's (opponents, engine, observations) alone; ``--features KIND`` adds one of
the game's policy feature sets computed every step, as ``training.train`` wraps the env
(``agents.features.feature_vec_env``; the recipe's is ``advice``). Prints the median of ``--repeats``
timings of ``--seconds`` each.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import agents
from keine_ahnung_env import keine_ahnung_v0
from keine_ahnung_env.sampling import sample_masked

RECIPE_POOL = "counter,counter,greedy,risk_caller:0.5"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pool", default=RECIPE_POOL, help="comma-separated agent specs (default: %(default)s)")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--envs", type=int, default=256)
    parser.add_argument("--seconds", type=float, default=3.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--features", default="", help="a policy feature set of the game computed every step, as "
                                                         "training does (e.g. advice); empty: none")
    args = parser.parse_args(argv)
    members = [agents.make(spec.strip(), seed=args.seed + i) for i, spec in enumerate(args.pool.split(","))]

    def pool(rng: np.random.Generator) -> list:
        return [members[i] for i in rng.integers(len(members), size=args.players - 1)]

    venv = keine_ahnung_v0.sb3_vec_env(args.envs, opponents=pool, num_players=args.players, seed=args.seed)
    if args.features:
        from agents.features import feature_vec_env

        venv = feature_vec_env(venv, keine_ahnung_v0.game_spec(args.players).features(args.features))
    pick = np.random.default_rng(args.seed)
    venv.reset()
    venv.step(sample_masked(pick, np.stack(venv.env_method("action_masks"))))
    rates = []
    for _ in range(args.repeats):
        steps, start = 0, time.perf_counter()
        while time.perf_counter() - start < args.seconds:
            venv.step(sample_masked(pick, np.stack(venv.env_method("action_masks"))))
            steps += 1
        wall = time.perf_counter() - start
        rates.append(steps * args.envs / wall)
    rate = float(np.median(rates))
    with_features = f", features {args.features}" if args.features else ""
    print(f"pool {args.pool}{with_features}, {args.players} players, {args.envs} games: {rate:,.0f} learner steps/s "
          f"({1000 * args.envs / rate:.1f} ms per vector step; runs {', '.join(f'{r:,.0f}' for r in rates)})")


if __name__ == "__main__":
    main()
