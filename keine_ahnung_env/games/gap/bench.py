"""Speed of the compiled gap-game core: random legal play, the KA benchmark's "core" rows for this game.

    python -m keine_ahnung_env.games.gap.bench                 # 2-5 players, batches 1, 64, 1024, 4096
    python -m keine_ahnung_env.games.gap.bench --players 4 --batches 4096 --seconds 2
    python -m keine_ahnung_env.games.gap.bench --profile --players 4 --batches 4096   # ns per decision, 1 thread

As ``keine_ahnung_env.benchmark``'s core section: actions drawn in batch with ``sample_masked``,
finished games dealt again at once; *end-to-end* decisions/s (sampler included), *engine* decisions/s
(``step`` + legal mask + re-deals, the sampler's time taken out), *with observation* (``observe`` of the
seat to act every step), and the reference engine at batch 1 for comparison. Medians over repeats.

``--profile`` instead replays one recorded trajectory of random play on one thread and prints the
thread's CPU time per decision (less moved by other jobs than wall time on a shared machine) of the
engine loop (``step`` + re-deals) and of the legal mask alone (``mask_kernel`` over the same games).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

import numpy as np

from ...sampling import sample_masked
from ...rng import GameRandom
from .config import Rules
from .core import GapCore
from .reference import GapReference


def measure_core(num_players: int, batch: int, seconds: float = 1.0, repeats: int = 3, seed: int = 0,
                 observe: bool = False) -> dict:
    core = GapCore(batch, Rules(num_players), seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(50):  # warm-up (and compile)
        core.step(sample_masked(rng, core.legal_mask))
        done = np.flatnonzero(core.terminated | core.truncated)
        if done.size:
            core.reset_games(done)
    runs = []
    for _ in range(repeats):
        n = 0
        t_engine = t_obs = 0.0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            actions = sample_masked(rng, core.legal_mask)
            t1 = time.perf_counter()
            core.step(actions)
            done = np.flatnonzero(core.terminated | core.truncated)
            if done.size:
                core.reset_games(done)
            t2 = time.perf_counter()
            if observe:
                core.observe(core.current)
                t_obs += time.perf_counter() - t2
            t_engine += t2 - t1
            n += batch
        runs.append((n, time.perf_counter() - start, t_engine))
    return {"players": num_players, "batch": batch, "observe": observe,
            "decisions_per_s": statistics.median(n / w for n, w, _ in runs),
            "engine_decisions_per_s": statistics.median(n / e for n, _, e in runs)}


def profile_step(num_players: int, batch: int, steps: int = 100, repeats: int = 7, seed: int = 0) -> dict:
    """Single-thread CPU time per decision of the engine loop and of the mask alone (best of ``repeats``
    replays of ``steps`` recorded random steps from the same start)."""
    import numba

    from . import kernels as K

    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        core = GapCore(batch, Rules(num_players), seed=seed)
        core.parallel_min_games = 10**9  # the serial kernels: the time of one thread
        rng = np.random.default_rng(seed)

        def redeal():
            done = np.flatnonzero(core.terminated | core.truncated)
            if done.size:
                core.reset_games(done)

        for _ in range(50):
            core.step(sample_masked(rng, core.legal_mask))
            redeal()
        start = {name: getattr(core, name).copy() for name in K.STATE_FIELDS}
        actions = []
        for _ in range(steps):
            actions.append(sample_masked(rng, core.legal_mask))
            core.step(actions[-1])
            redeal()
        games = np.arange(batch)

        def engine():
            for a in actions:
                core.step(a)
                redeal()

        def mask():
            for _ in actions:
                K.mask_kernel(core._state(), core._k, games)

        out = {"players": num_players, "batch": batch}
        for name, run in (("engine_ns", engine), ("mask_ns", mask)):
            best = float("inf")
            for _ in range(repeats):
                for field, value in start.items():
                    getattr(core, field)[...] = value
                t = time.thread_time()
                run()
                best = min(best, time.thread_time() - t)
            out[name] = best * 1e9 / (steps * batch)
        return out
    finally:
        numba.set_num_threads(threads)


def measure_reference(num_players: int, seconds: float = 1.0, seed: int = 0) -> float:
    rules = Rules(num_players)
    pick = random.Random(seed)
    game = GapReference(rules, GameRandom.for_game(seed, 0))
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        if game.terminated or game.truncated:
            game = GapReference(rules, GameRandom.for_game(seed, n))
        legal = game.legal_actions()
        game.step(legal[pick.randrange(len(legal))])
        n += 1
    return n / (time.perf_counter() - start)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", type=int, nargs="*", default=[2, 3, 4, 5])
    parser.add_argument("--batches", type=int, nargs="*", default=[1, 64, 1024, 4096])
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", default=None)
    parser.add_argument("--profile", action="store_true",
                        help="single-thread CPU time per decision: engine loop and legal mask")
    args = parser.parse_args(argv)
    if args.profile:
        for p in args.players:
            for b in args.batches:
                row = profile_step(p, b)
                print(f"players {p} batch {b}: engine {row['engine_ns']:.1f} ns/decision, "
                      f"of which the legal mask {row['mask_ns']:.1f} (one thread, CPU time)", flush=True)
        return
    rows = []
    print(f"{'players':>7} {'batch':>6} {'end-to-end/s':>14} {'engine/s':>14} {'with obs/s':>12}")
    for p in args.players:
        for b in args.batches:
            row = measure_core(p, b, args.seconds, args.repeats)
            row["with_observation_per_s"] = measure_core(p, b, args.seconds, args.repeats, observe=True)[
                "decisions_per_s"]
            rows.append(row)
            print(f"{p:>7} {b:>6} {row['decisions_per_s']:>14,.0f} {row['engine_decisions_per_s']:>14,.0f} "
                  f"{row['with_observation_per_s']:>12,.0f}", flush=True)
        ref = measure_reference(p, args.seconds)
        rows.append({"players": p, "reference_decisions_per_s": ref})
        print(f"{p:>7} reference engine (plain Python, batch 1): {ref:,.0f}/s", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
