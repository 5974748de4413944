"""The README's main job's PPO phase, timed: learner decisions/s and where the wall time goes.

Runs ``python -m training.train --env keine_ahnung_v0 --players 4`` (the game's recipe: advice
features, 256 games x 64 steps, batches of 4096, 4 epochs, an evaluation every 10 updates) for
``--updates`` PPO updates, without the warm start (it does not change the PPO phase's cost) and with
a one-game final tournament (outside the timed phase). ``--net-archs`` times other networks beside
it. Each run is a fresh process (the OpenMP runtimes read their settings when they load); the
variants alternate, so that all see the same moments of a shared machine:

* ``passive``: ``OMP_WAIT_POLICY=PASSIVE``, what ``python -m training.train`` runs
  (``training.train.passive_openmp``);
* ``spinning``: OpenMP threads spinning after each parallel region (libgomp's default).

Both train sb3-contrib's ``MaskablePPO``. Each run prints decisions/s (the trainer's own figure:
learner decisions over the PPO phase's wall time, evaluations included) and the split: the
environment (games, opponents, features; the trainer's ``timed_vec_env``), the rollout's network
work (``collect_rollouts`` less the environment and the evaluations), the PPO updates (``train``), the
periodic evaluations and checkpoints, and the rest (SB3's ``learn`` loop, logs). Then the medians and
ranges per variant.

    .venv/bin/python research/ppo_speed.py                      # 20 updates, spinning and passive, 3 repeats each
    .venv/bin/python research/ppo_speed.py --updates 10 --repeats 1 --variants passive --torch-threads 1
    .venv/bin/python research/ppo_speed.py --updates 8 --repeats 2 --variants passive --net-archs 256,256 128,128 64,64
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

ROLLOUT = 256 * 64
"""Learner decisions per PPO update in the recipe (256 games x 64 steps)."""

VARIANTS = ("spinning", "passive")


def timed_class(base):
    """``base`` (a MaskablePPO class) whose ``collect_rollouts`` and ``train`` add up their wall time."""

    class Timed(base):
        totals = {"collect": 0.0, "train": 0.0}

        def collect_rollouts(self, *args, **kwargs):
            start = time.perf_counter()
            try:
                return super().collect_rollouts(*args, **kwargs)
            finally:
                Timed.totals["collect"] += time.perf_counter() - start

        def train(self):
            start = time.perf_counter()
            try:
                return super().train()
            finally:
                Timed.totals["train"] += time.perf_counter() - start

    Timed.__name__ = f"Timed{base.__name__}"
    return Timed


def run_once(variant: str, updates: int, torch_threads: int, seed: int, keep: str = "", net_arch: str = "") -> dict:
    """One shortened main job with the model class and OpenMP policy of ``variant``, in this process
    (a fresh one: ``run`` starts it); its figures. With ``keep`` (a folder) the run keeps the recipe's
    warm start (60 games instead of 1,000), evaluates every 2 updates and leaves its checkpoint there.
    ``net_arch`` (e.g. ``"256,256"``) replaces the recipe's network; empty: the recipe's."""
    if variant == "passive":
        os.environ["OMP_WAIT_POLICY"] = "PASSIVE"
    else:
        os.environ.pop("OMP_WAIT_POLICY", None)
    import sb3_contrib

    from training import train as train_module

    if variant != "passive":
        train_module.passive_openmp = lambda: "(unset)"  # leaves libgomp's default: spinning threads
    original = sb3_contrib.MaskablePPO
    model_class = timed_class(original)
    sb3_contrib.MaskablePPO = model_class  # what training.train imports when it builds the model
    try:
        # The trainer's own printout (its tournament tables) is left out; its figures come back in the summary.
        warm = ["--imitation-games", "60", "--eval-every", "2", "--eval-games", "20"] if keep else ["--imitate", ""]
        with tempfile.TemporaryDirectory() as scratch, open(os.devnull, "w") as quiet, \
                contextlib.redirect_stdout(quiet):
            summary = train_module.main([
                "--env", "keine_ahnung_v0", "--players", "4", "--seed", str(seed), *warm,
                "--total-timesteps", str(updates * ROLLOUT), "--max-minutes", "0", "--final-games", "1",
                "--final-opponents", "random", "--final-league", "", "--no-progress", "--out-dir", keep or scratch,
                "--torch-threads", str(torch_threads), *(["--net-arch", net_arch] if net_arch else [])])
    finally:
        sb3_contrib.MaskablePPO = original
    wall = summary["train_seconds"]
    env, evals = summary["env_seconds"], summary["eval_seconds"]
    collect, update = model_class.totals["collect"], model_class.totals["train"]
    return {"variant": variant + (f" {net_arch}" if net_arch else ""), "dec_s": summary["timesteps"] / wall, "wall": wall, "env": env,
            "rollout_network": collect - env - evals, "update": update, "eval": evals,
            "rest": wall - collect - update, "checkpoint": summary["checkpoint"] if keep else ""}


def run(variant: str, updates: int, torch_threads: int, seed: int, keep: str = "", net_arch: str = "") -> dict:
    """``run_once`` in a fresh Python process (this script with ``--child``)."""
    command = [sys.executable, __file__, "--child", variant, "--updates", str(updates), "--torch-threads",
               str(torch_threads), "--seed", str(seed), "--keep", keep, "--net-arch", net_arch]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    if done.returncode:
        raise RuntimeError(f"{variant} run failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--updates", type=int, default=20, help="PPO updates per run (16,384 decisions each)")
    parser.add_argument("--repeats", type=int, default=3, help="runs per variant, alternating")
    parser.add_argument("--variants", default="spinning,passive",
                        help=f"comma-separated: {', '.join(VARIANTS)}")
    parser.add_argument("--torch-threads", type=int, default=2,
                        help="torch CPU threads (the trainer's default: 2)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--net-archs", nargs="+", default=[""], metavar="SIZES",
                        help="networks to time, each as --net-arch takes it (e.g. 256,256 128,128); every "
                             "variant runs with each; default: the recipe's")
    parser.add_argument("--net-arch", default="", help=argparse.SUPPRESS)  # the child's network
    parser.add_argument("--child", default="", help=argparse.SUPPRESS)  # one run in this process, JSON out
    parser.add_argument("--keep", default="", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(run_once(args.child, args.updates, args.torch_threads, args.seed, args.keep, args.net_arch)))
        return
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    if not variants or any(v not in VARIANTS for v in variants):
        parser.error(f"--variants {args.variants!r}; allowed: {', '.join(VARIANTS)} (comma-separated)")
    from training.cli import parse_net_arch  # here, not at the top: a child sets OpenMP's policy before imports

    for sizes in args.net_archs:
        if sizes and not parse_net_arch(sizes):  # what the trainer's --net-arch accepts
            parser.error(f"--net-archs: {sizes!r} is no list of positive layer sizes such as 128,128")
    if args.updates < 1 or args.repeats < 1:
        parser.error("--updates and --repeats must be positive")

    print(f"main job's PPO phase, {args.updates} updates x {ROLLOUT:,} decisions, torch threads "
          f"{args.torch_threads}; load average before: {os.getloadavg()[0]:.2f}", flush=True)
    print(f"{'variant':20} {'dec/s':>7} {'wall s':>7} {'env':>6} {'rollout net':>11} {'updates':>8} {'evals':>6} "
          f"{'rest':>6}", flush=True)
    results: list[dict] = []
    plan = [(variant, sizes) for variant in variants for sizes in args.net_archs]
    for _ in range(args.repeats):
        for variant, sizes in plan:
            r = run(variant, args.updates, args.torch_threads, args.seed, net_arch=sizes)
            results.append(r)
            shares = "".join(f" {r[k] / r['wall']:>{w}.0%}" for k, w in
                             (("env", 6), ("rollout_network", 11), ("update", 8), ("eval", 6), ("rest", 6)))
            print(f"{r['variant']:20} {r['dec_s']:>7,.0f} {r['wall']:>7.1f}{shares}   (load {os.getloadavg()[0]:.2f})",
                  flush=True)
    print("\nmedians (range) over the runs; median seconds per PPO update:")
    for label in dict.fromkeys(r["variant"] for r in results):
        runs = [r for r in results if r["variant"] == label]
        rates = [r["dec_s"] for r in runs]
        per_update = {k: statistics.median(r[k] for r in runs) / args.updates
                      for k in ("wall", "env", "rollout_network", "update", "eval", "rest")}
        print(f"{label:20} {statistics.median(rates):>7,.0f} dec/s ({min(rates):,.0f}-{max(rates):,.0f}); "
              "per update: " + ", ".join(f"{k} {v:.3f}" for k, v in per_update.items()))


if __name__ == "__main__":
    main()
