"""Speed of the compiled gap-game core: random legal play, the KA benchmark's "core" rows for this game.

    .venv/bin/python research/gap_bench.py                 # 2-5 players, batches 1, 64, 1024, 4096
    .venv/bin/python research/gap_bench.py --players 4 --batches 4096 --seconds 2
    .venv/bin/python research/gap_bench.py --profile --players 4 --batches 4096   # ns per decision, 1 thread

As ``keine_ahnung_env.benchmark``'s core section: actions drawn in batch with ``sample_masked``,
finished games dealt again at once; *end-to-end* decisions/s (sampler included), *engine* decisions/s
(``step`` + legal mask + re-deals, the sampler's time taken out), *with observation* (``observe`` of the
seat to act every step), and the reference engine at batch 1 for comparison. Medians over repeats.

``--profile`` instead replays one recorded trajectory of random play on one thread and prints the
thread's CPU time per decision (less moved by other jobs than wall time on a shared machine) of the
engine loop (``step`` + re-deals) and of the legal mask alone (``mask_kernel`` over the same games).

``--compare NAME=KERNELS.py ...`` A/B-tests versions of this game's ``kernels.py`` (say, one taken from
an older commit with ``git show OLD:keine_ahnung_env/games/gap/kernels.py > /tmp/old.py``) in
one process: every version replays the same recorded trajectory (``step_range`` + ``deal_range`` for
finished games, one thread, thread CPU time per decision) on its own copy of the state, the versions
taking turns repeat by repeat, so that the load of other jobs falls on all of them alike; each must end
in the same position (every state array; the draw piles where they hold cards). Prints the best,
lower-quartile and median time of each::

    .venv/bin/python research/gap_bench.py --compare old=/tmp/old.py new=keine_ahnung_env/games/gap/kernels.py
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time

import numpy as np

from keine_ahnung_env.games.gap.config import Rules
from keine_ahnung_env.games.gap.core import GapCore
from keine_ahnung_env.games.gap.reference import GapReference
from keine_ahnung_env.rng import GameRandom
from keine_ahnung_env.sampling import sample_masked

GAP = "keine_ahnung_env.games.gap"
"""The game's package: another tree's ``kernels.py`` is loaded as a module of it (its relative imports
resolve there)."""


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


def _redeal(core) -> None:
    """Deals new games in the rows whose games ended."""
    done = np.flatnonzero(core.terminated | core.truncated)
    if done.size:
        core.reset_games(done)


def _record(core, rng, warmup: int, steps: int) -> tuple[dict, list]:
    """Random legal play: ``warmup`` steps (the games desynchronised), then ``steps`` recorded ones, finished
    games re-dealt at once. Returns the state arrays before the recorded steps and their actions."""
    from keine_ahnung_env.games.gap import kernels as K

    for _ in range(warmup):
        core.step(sample_masked(rng, core.legal_mask))
        _redeal(core)
    start = {name: getattr(core, name).copy() for name in K.STATE_FIELDS}
    actions = []
    for _ in range(steps):
        actions.append(sample_masked(rng, core.legal_mask))
        core.step(actions[-1])
        _redeal(core)
    return start, actions


def profile_step(num_players: int, batch: int, steps: int = 100, repeats: int = 7, seed: int = 0) -> dict:
    """Single-thread CPU time per decision of the engine loop and of the mask alone (best of ``repeats``
    replays of ``steps`` recorded random steps from the same start)."""
    import numba

    from keine_ahnung_env.games.gap import kernels as K

    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        core = GapCore(batch, Rules(num_players), seed=seed)
        core.parallel_min_games = 10**9  # the serial kernels: the time of one thread
        rng = np.random.default_rng(seed)
        start, actions = _record(core, rng, 50, steps)
        games = np.arange(batch)

        def engine():
            for a in actions:
                core.step(a)
                _redeal(core)

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


def compare_kernels(files: dict, num_players: int = 4, batch: int = 4096, steps: int = 40, repeats: int = 60,
                    seed: int = 0) -> dict:
    """Thread CPU ns per decision of each kernels file in ``files`` (name -> path), as ``--compare``
    describes: ``{name: sorted times of the repeats}``. A file is loaded as a module of the game's package
    (its relative imports resolve here); its ``Consts`` may name fields the current core no longer
    makes (an older version's ``fit_table``): those are taken from ``extra_consts`` below."""
    import hashlib
    import importlib.util
    import os
    import sys

    import numba

    from keine_ahnung_env.games.gap import kernels as K
    from keine_ahnung_env.engine import _entry_point
    from keine_ahnung_env.games.gap.core import GAP_TABLE, MATCH_TABLE
    from keine_ahnung_env.games.gap.deck import NUM_CARDS

    # Constants older versions of the kernels read (an earlier fit table: bits left 1, right 2, gap 4).
    extra_consts = {"fit_table": np.ascontiguousarray(
        (GAP_TABLE | MATCH_TABLE[:, None, :]) * np.uint8(1) | (GAP_TABLE | MATCH_TABLE[None, :, :]) * np.uint8(2)
        | GAP_TABLE * np.uint8(4), dtype=np.uint8)}
    threads = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        core = GapCore(batch, Rules(num_players), seed=seed)
        core.parallel_min_games = 10**9
        rng = np.random.default_rng(seed)
        start, actions = _record(core, rng, 300, steps)  # 300: as many steps as a game lasts
        end = {name: getattr(core, name).copy() for name in K.STATE_FIELDS}
        consts = dict(core._k._asdict(), **extra_consts)
        active = np.ones(batch, bool)
        runs = {}
        for name, path in files.items():
            if os.path.samefile(path, K.__file__):
                module = K  # this package's own kernels, as imported (a second import would mix caches)
            else:
                # One module name per file, so that Numba's on-disk cache of its kernels (which records
                # the module of their argument types) loads again in the next run.
                tag = hashlib.sha1(os.path.abspath(path).encode()).hexdigest()[:12]
                spec = importlib.util.spec_from_file_location(f"{GAP}._compared_{tag}", path)
                module = importlib.util.module_from_spec(spec)
                sys.modules[spec.name] = module
                spec.loader.exec_module(module)
            arrays = {field: value.copy() for field, value in start.items()}
            s = module.State(*[arrays[field] for field in module.STATE_FIELDS])
            k = module.Consts(*[consts[field] for field in module.Consts._fields])
            none = np.zeros(0, np.intp)
            module.step_range(s, k, actions[0], active, 0, 0)  # compile or load, then call without the dispatcher
            module.deal_range(s, k, none, 0, 0)
            runs[name] = (arrays, s, k, _entry_point(module.step_range, (s, k, actions[0], active, 0, 0)),
                          _entry_point(module.deal_range, (s, k, none, 0, 0)))
        times = {name: [] for name in files}
        for r in range(repeats + 1):  # the first round warms up and is not counted
            for name in (list(files) if r % 2 == 0 else list(files)[::-1]):
                arrays, s, k, step, deal = runs[name]
                for field, value in start.items():
                    arrays[field][...] = value
                t = time.thread_time()
                for a in actions:
                    step(s, k, a, active, 0, batch)
                    done = np.flatnonzero(arrays["terminated"] | arrays["truncated"])
                    if done.size:
                        deal(s, k, done, 0, done.size)
                elapsed = time.thread_time() - t
                if r:
                    times[name].append(elapsed * 1e9 / (steps * batch))
                differ = [field for field in end
                          if field != "draw_cards" and not np.array_equal(arrays[field], end[field])]
                live = np.arange(NUM_CARDS) >= arrays["draw_pos"][:, None]
                live &= np.arange(NUM_CARDS) < arrays["draw_len"][:, None]
                if not np.array_equal(np.where(live, arrays["draw_cards"], -1), np.where(live, end["draw_cards"], -1)):
                    differ.append("draw_cards")  # only the live draw piles: entries outside them mean nothing
                if differ:
                    raise AssertionError(f"{name}: the replay ends in another state ({', '.join(differ)})")
        return {name: sorted(ts) for name, ts in times.items()}
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
    parser.add_argument("--players", type=int, nargs="*", default=None, help="default 2 3 4 5 (--compare: 4)")
    parser.add_argument("--batches", type=int, nargs="*", default=None,
                        help="default 1 64 1024 4096 (--compare: 4096)")
    parser.add_argument("--seconds", type=float, default=1.0)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", default=None)
    parser.add_argument("--profile", action="store_true",
                        help="single-thread CPU time per decision: engine loop and legal mask")
    parser.add_argument("--compare", nargs="+", metavar="NAME=KERNELS.py", default=None,
                        help="A/B of kernels.py versions in one process (one thread, CPU time, alternating)")
    args = parser.parse_args(argv)
    if args.compare:
        if any("=" not in item for item in args.compare):
            parser.error("--compare takes NAME=PATH items (a name, '=', a kernels.py file)")
        files = dict(item.split("=", 1) for item in args.compare)
        players, batch = (args.players or [4])[0], (args.batches or [4096])[-1]
        for name, ts in compare_kernels(files, players, batch).items():
            print(f"{name:>12}: best {ts[0]:6.1f}  q25 {ts[len(ts) // 4]:6.1f}  median {ts[len(ts) // 2]:6.1f} "
                  f"ns per decision ({len(ts)} repeats; players {players}, batch {batch}; one thread, CPU time)",
                  flush=True)
        return
    args.players = args.players or [2, 3, 4, 5]
    args.batches = args.batches or [1, 64, 1024, 4096]
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
