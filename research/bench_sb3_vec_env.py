"""Stepping rate of ``keine_ahnung_v0.sb3_vec_env`` against SB3's ``DummyVecEnv`` of solo envs.

Both run N learner-vs-random games (the learner plays uniformly random legal moves; opponents are
``RandomAgent``s) and fetch the N action masks each step, as MaskablePPO does; the figure is learner
decisions per second (N * vector steps / seconds). The batched env steps all N games in one engine
call per round of play; ``DummyVecEnv`` loops over N single-game ``solo_env``s in Python.

    .venv/bin/python research/bench_sb3_vec_env.py                 # N=256, 4 players
    .venv/bin/python research/bench_sb3_vec_env.py --num-players 2 --vec-steps 400

NumPy's BLAS threads matter for the batched core (its observation encoding does a small matrix
product per call): on a busy 2-core machine ``OPENBLAS_NUM_THREADS=1`` was several times faster.
The script prints the BLAS thread setting it ran with.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from stable_baselines3.common.vec_env import DummyVecEnv  # noqa: E402

from agents.base import RandomAgent, sample_masked  # noqa: E402
from keine_ahnung_env import keine_ahnung_v0  # noqa: E402


def steps_per_second(venv, steps: int, seed: int, warmup: int = 3) -> float:
    """Learner decisions per second over ``steps`` vector steps (after ``warmup`` untimed ones)."""
    rng = np.random.default_rng(seed)
    venv.reset()
    for _ in range(warmup):
        venv.step(sample_masked(rng, np.stack(venv.env_method("action_masks"))))
    start = time.perf_counter()
    for _ in range(steps):
        venv.step(sample_masked(rng, np.stack(venv.env_method("action_masks"))))
    return venv.num_envs * steps / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--num-envs", type=int, default=256)
    parser.add_argument("--num-players", type=int, default=4)
    parser.add_argument("--vec-steps", type=int, default=200, help="timed steps of sb3_vec_env")
    parser.add_argument("--dummy-steps", type=int, default=20, help="timed steps of the DummyVecEnv")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    n, p = args.num_envs, args.num_players

    batched = keine_ahnung_v0.sb3_vec_env(n, opponents=[RandomAgent(seed=args.seed + j) for j in range(p - 1)],
                                          num_players=p, seed=args.seed)

    def make_solo(i: int):
        return lambda: keine_ahnung_v0.solo_env([RandomAgent(seed=args.seed + 1000 * i + j) for j in range(p - 1)],
                                                num_players=p, seat="rotate")

    dummy = DummyVecEnv([make_solo(i) for i in range(n)])
    dummy.seed(args.seed)

    fast = steps_per_second(batched, args.vec_steps, args.seed)
    slow = steps_per_second(dummy, args.dummy_steps, args.seed)
    print(f"{p} players, {n} games, OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}")
    print(f"sb3_vec_env({n}):       {fast:10.0f} learner steps/s ({args.vec_steps} steps)")
    print(f"DummyVecEnv({n} solo):  {slow:10.0f} learner steps/s ({args.dummy_steps} steps)")
    print(f"speed-up: {fast / slow:.1f}x")


if __name__ == "__main__":
    main()
