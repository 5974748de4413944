"""Instructions per decision of the compiled engines, counted by valgrind's callgrind.

Wall-clock figures on a shared machine move with the other jobs; instruction counts do not. This
script plays a fixed number of steps of one workload and, when it runs under callgrind, zeroes the
counters just before the measured region and dumps them just after it (``callgrind_control``), so
the count covers the workload alone (the interpreter start, imports and the kernels' loading from
the Numba disk cache are left out). Run it as

    valgrind --tool=callgrind --callgrind-out-file=/tmp/cg.%p.out \\
        .venv/bin/python research/instructions.py engine --game keine_ahnung_v0 --players 4 --batch 4096 --steps 20

and read the ``summary:`` line of the dump file ending in ``.1`` (the script prints it when it can
find it). Without valgrind it prints the region's wall time instead (a quick check that it runs).

Workloads (each: the games dealt from ``--seed``, ``--warmup`` steps of random legal play first):

* ``engine``: random legal play with ``sample_masked``, finished games dealt again (the benchmark's
  end-to-end loop); ``sampler`` counts ``sample_masked`` alone on the same masks, so
  engine = engine - sampler.
* ``observe``: the end-to-end loop with the observation of the seat to act built every step.
* ``batch1``: the benchmark's batch-1 loop (``np.flatnonzero`` of the mask, Python's ``random``,
  ``core.step``), and ``reference``: the same loop on the pure-Python reference engine.
* ``sb3``: ``sb3_vec_env`` steps with ``greedy`` opponents (``--batch`` games), learner actions
  sampled from its masks.
"""

from __future__ import annotations

import argparse
import glob
import os
import random
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from keine_ahnung_env import registry  # noqa: E402
from keine_ahnung_env.sampling import sample_masked  # noqa: E402


def _under_callgrind() -> bool:
    return os.environ.get("LD_PRELOAD", "").find("vgpreload") >= 0 or "valgrind" in os.environ.get("_", "")


def _control(flag: str) -> None:
    subprocess.run(["callgrind_control", flag, str(os.getpid())], capture_output=True, check=False)


def _redeal(core) -> None:
    done = np.flatnonzero(core.terminated | core.truncated)
    if done.size:
        core.reset_games(done)


def build(args):
    """The prepared workload: a function running ``args.steps`` steps, and the decisions it makes."""
    rng = np.random.default_rng(args.seed)
    if args.workload == "sb3":
        from keine_ahnung_env import keine_ahnung_v0
        from keine_ahnung_env.benchmark import game_agent

        spec = keine_ahnung_v0.game_spec(args.players)
        greedy = game_agent(spec, "greedy")
        venv = keine_ahnung_v0.sb3_vec_env(args.batch, opponents=[greedy(seed=j) for j in range(args.players - 1)],
                                           num_players=args.players, seed=args.seed)
        venv.reset()

        def step():
            venv.step(sample_masked(rng, np.stack(venv.env_method("action_masks"))))

        for _ in range(args.warmup):
            step()

        def run():
            for _ in range(args.steps):
                step()
        return run, args.steps * args.batch

    spec = registry.game_spec(args.game, args.players)
    if args.workload == "reference":
        from keine_ahnung_env.games.keine_ahnung import ReferenceGame, Rules

        ref = ReferenceGame(Rules.make(args.players), np.random.default_rng(args.seed))
        pick = random.Random(args.seed)

        def run():
            for _ in range(args.steps):
                if ref.terminated or ref.truncated:
                    ref.reset()
                legal = ref.legal_actions()
                ref.step(legal[pick.randrange(len(legal))])
        run()  # warm-up: the same number of steps
        return run, args.steps

    batch = 1 if args.workload == "batch1" else args.batch
    core = spec.make_core(batch, args.seed)
    for _ in range(args.warmup):
        core.step(sample_masked(rng, core.legal_mask))
        _redeal(core)
    if args.workload == "batch1":
        pick = random.Random(args.seed)
        action = np.zeros(1, np.int64)
        reset_index = np.zeros(1, np.intp)
        mask, terminated, truncated = core.legal_mask, core.terminated, core.truncated

        def run():
            for _ in range(args.steps):
                if terminated[0] or truncated[0]:
                    core.reset_games(reset_index)
                legal = np.flatnonzero(mask[0])
                action[0] = legal[pick.randrange(legal.size)]
                core.step(action)
        return run, args.steps
    if args.workload == "sampler":
        masks = []
        for _ in range(args.steps):
            masks.append(core.legal_mask.copy())
            core.step(sample_masked(rng, core.legal_mask))
            _redeal(core)

        def run():
            for m in masks:
                sample_masked(rng, m)
        return run, args.steps * batch
    observe = args.workload == "observe"

    def run():
        for _ in range(args.steps):
            core.step(sample_masked(rng, core.legal_mask))
            _redeal(core)
            if observe:
                core.observe(core.current)
    return run, args.steps * batch


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("workload", choices=("engine", "sampler", "observe", "batch1", "reference", "sb3"))
    parser.add_argument("--game", default="keine_ahnung_v0")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--warmup", type=int, default=30)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    run, decisions = build(args)
    grind = _under_callgrind()
    if grind:
        _control("-z")
    start = time.perf_counter()
    run()
    wall = time.perf_counter() - start
    if grind:
        _control("-d")
        dumps = sorted(glob.glob(f"/tmp/cg.{os.getpid()}.out.1"))
        for path in dumps:
            with open(path) as f:
                for line in f:
                    if line.startswith("summary:"):
                        ir = int(line.split()[1])
                        print(f"{args.workload} {args.game} P={args.players} batch={args.batch} steps={args.steps}: "
                              f"{ir:,} instructions, {ir / decisions:,.0f} per decision")
    else:
        print(f"{args.workload} {args.game} P={args.players} batch={args.batch} steps={args.steps}: "
              f"{wall:.3f} s, {decisions / wall:,.0f} decisions/s (wall clock)")


if __name__ == "__main__":
    main()
