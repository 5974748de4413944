"""Env steps per second of ``training.train_rllib``'s env runners, with 0, 1, 2, ... remote env runners.

For each runner count K it builds the same PPO as ``training.train_rllib`` (``build_algorithm``), warms the
runners up with one sample each, then measures:

* *sampling*: every runner samples ``--steps`` env steps at once (RLlib's synchronous parallel sampling, as
  in a training iteration), ``--rounds`` times: env steps (decisions of all seats) per second of wall time;
* *training*: ``--iterations`` full ``algo.train()`` iterations (sampling plus the PPO update on the
  learner): env steps per second.

K = 0 samples in the driver process itself. Run it in the ``[rllib]`` environment::

    .venv-rllib/bin/python research/rllib_throughput.py --env keine_ahnung_v0 --players 4 --runners 1,2

Ray needs one CPU per runner besides the driver's: ``--num-cpus`` (default: runners + 1).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def measure(env: str, players: int, runners: int, opponents: str, envs_per_runner: int, steps: int, rounds: int,
            iterations: int, seed: int) -> dict:
    import ray

    from training import train_rllib

    args = train_rllib.Args(env=env, players=players, opponents=opponents, num_env_runners=runners,
                            num_envs_per_env_runner=envs_per_runner, train_batch_size=max(steps * max(runners, 1), 512),
                            minibatch_size=512, num_epochs=1, seed=seed, progress=False)
    spec = train_rllib.check_args(args)
    algo = train_rllib.build_algorithm(args, spec, train_rllib.split(opponents))
    group = algo.env_runner_group

    def sample_round() -> int:
        if runners == 0:
            episodes = [algo.env_runner.sample(num_timesteps=steps, explore=True)]
        else:
            episodes = group.foreach_env_runner(lambda runner: runner.sample(num_timesteps=steps, explore=True),
                                                local_env_runner=False)
        return sum(e.env_steps() for batch in episodes for e in batch)

    sample_round()  # warm-up: Numba cache loads, first games dealt
    start, sampled = time.perf_counter(), 0
    for _ in range(rounds):
        sampled += sample_round()
    sampling = sampled / (time.perf_counter() - start)
    algo.train()  # warm-up iteration
    before = algo.train()["num_env_steps_sampled_lifetime"] if iterations else 0
    start = time.perf_counter()
    result = {}
    for _ in range(iterations):
        result = algo.train()
    seconds = time.perf_counter() - start
    trained = (result.get("num_env_steps_sampled_lifetime", before) - before) / seconds if iterations else float("nan")
    algo.stop()
    return {"runners": runners, "sampling_env_steps_per_s": sampling, "training_env_steps_per_s": trained,
            "ray": ray.__version__}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", default="keine_ahnung_v0")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--runners", default="1,2", help="comma-separated remote env runner counts (0: driver)")
    parser.add_argument("--opponents", default="", help="agent specs as fixed policies (empty: self-play)")
    parser.add_argument("--envs-per-runner", type=int, default=64, help="games per runner (one batched core)")
    parser.add_argument("--steps", type=int, default=4096, help="env steps each runner samples per round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--iterations", type=int, default=2, help="timed training iterations (0: none)")
    parser.add_argument("--num-cpus", type=int, default=0, help="CPUs of the local Ray instance (0: runners + 1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default="", help="also write the figures here")
    args = parser.parse_args()
    from training.train_rllib import keep_ray_on_loopback

    keep_ray_on_loopback()
    import ray

    counts = [int(k) for k in args.runners.split(",")]
    from training.rllib_env import start_local_ray

    start_local_ray(args.num_cpus or max(counts) + 1)
    rows = []
    print(f"{args.env}, {args.players} players, {'self-play' if not args.opponents else 'vs ' + args.opponents}, "
          f"{args.envs_per_runner} games per runner; {os.cpu_count()} CPUs, load average "
          f"{os.getloadavg()[0]:.1f}, Python {platform.python_version()}")
    print(f"{'runners':>7} {'sampling env steps/s':>21} {'training env steps/s':>21}")
    for k in counts:
        row = measure(args.env, args.players, k, args.opponents, args.envs_per_runner, args.steps, args.rounds,
                      args.iterations, args.seed)
        rows.append(row)
        print(f"{k:>7} {row['sampling_env_steps_per_s']:>21,.0f} {row['training_env_steps_per_s']:>21,.0f}",
              flush=True)
    print(f"load average after: {os.getloadavg()[0]:.1f}")
    if args.json:
        with open(args.json, "w") as handle:
            json.dump({"args": vars(args), "rows": rows}, handle, indent=2)
    ray.shutdown()


if __name__ == "__main__":
    main()
