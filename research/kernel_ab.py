"""A/B of two versions of a game's step kernel (its ``kernels.py``) in one process, on one thread.

    .venv/bin/python research/kernel_ab.py --before /tmp/old/kernels.py
    .venv/bin/python research/kernel_ab.py --game dnp_v0 --before OLD --after NEW --batch 512 --rounds 16

``--game``: keine_ahnung_v0 (default) or dnp_v0. Both files (another tree's ``kernels.py`` of that game;
``--after`` defaults to this tree's) are copied and loaded as sibling modules of the game's package
(:func:`load_copy`), so both compile the same way. One trajectory of random play is recorded (4
players, ``--steps`` steps of ``--batch`` games after a warm-up of 500 steps, about one game, so the
games are desynchronised as in the benchmark), then replayed by each version in turn, alternating,
through the compiled entry points: ``step_range`` over the batch and ``deal_range`` for the games that
ended, the engine loop of ``keine_ahnung_env.benchmark``'s engine figure without its Python side and
threads. Printed: the thread CPU time per decision (less moved by other jobs than wall time on a shared
machine; median and best of the rounds) and whether every replay reproduced the recorded final state
exactly (the same rules and the same random draws): the proof that a speed change left every rule and
random draw as it was.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import shutil
import sys
import tempfile
import time
from typing import Callable, Sequence

import numpy as np


def load_copy(package: str, name: str, path: str, folder: str, append: str = ""):
    """``path`` loaded as module ``<package>.<name>`` (a copy in ``folder``, with the source ``append``
    added at its end: a compiled driver loop of an A/B, say), so another tree's kernels compile as the
    package's own do (their relative imports resolve in ``package``)."""
    copy = os.path.join(folder, name + ".py")
    shutil.copy(path, copy)
    if append:
        with open(copy, "a") as f:
            f.write(append)
    spec = importlib.util.spec_from_file_location(f"{package}.{name}", copy)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def measure(package: str, make_core: Callable, state_fields: Sequence[str], before: str, after: str,
            batch: int = 4096, steps: int = 40, rounds: int = 12, seed: int = 0, warmup: int = 500) -> dict:
    """The A/B: ``make_core(batch, seed)`` builds the game's core (4 players), ``state_fields`` names every
    state array (the final state compared after each replay). Returns the medians and bests (ns per
    decision), ``before_identical`` / ``after_identical``: every replay of that version reproduced the
    recorded final state (recorded with this tree's core), and ``identical``: both did."""
    import numba

    from keine_ahnung_env.engine import _entry_point
    from keine_ahnung_env.sampling import sample_masked

    numba.set_num_threads(1)
    folder = tempfile.mkdtemp(prefix="kernel_ab_")
    try:
        versions = {"before": load_copy(package, "_ab_before", before, folder),
                    "after": load_copy(package, "_ab_after", after, folder)}
        core = make_core(batch, seed)
        core.parallel_min_games = 10**9
        rng = np.random.default_rng(seed)

        def play():
            actions = sample_masked(rng, core.legal_mask).astype(np.intp)
            core.step(actions)
            done = np.flatnonzero(core.terminated | core.truncated)
            if done.size:
                core.reset_games(done)
            return actions, done

        for _ in range(warmup):  # about one game's length: the games desynchronised
            play()
        start = {name: getattr(core, name).copy() for name in state_fields}
        trajectory = [play() for _ in range(steps)]
        final = {name: getattr(core, name).copy() for name in state_fields}
        k, active = core._k, core._all_active
        entries = {}
        for label, module in versions.items():
            s = module.State(*[getattr(core, name) for name in module.STATE_FIELDS])
            actions, done = trajectory[0]
            module.step_range(s, k, actions, active, 0, 0)  # compiles (or loads) for these types
            module.deal_range(s, k, done, 0, 0)
            entries[label] = (s, _entry_point(module.step_range, (s, k, actions, active, 0, 0)),
                              _entry_point(module.deal_range, (s, k, done, 0, 0)))

        def replay(label):
            for name, value in start.items():
                getattr(core, name)[...] = value
            s, step, deal = entries[label]
            t = time.thread_time()
            for actions, done in trajectory:
                step(s, k, actions, active, 0, batch)
                if done.size:
                    deal(s, k, done, 0, done.size)
            elapsed = time.thread_time() - t
            same = all(np.array_equal(final[name], getattr(core, name)) for name in state_fields)
            return elapsed * 1e9 / (steps * batch), same

        times = {"before": [], "after": []}
        reproduced = {"before": True, "after": True}
        for r in range(rounds):
            for label in (("before", "after") if r % 2 == 0 else ("after", "before")):
                ns, same = replay(label)
                times[label].append(ns)
                reproduced[label] &= same
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    out = {"batch": batch, "steps": steps, "rounds": rounds, "identical": reproduced["before"] and reproduced["after"],
           "before_identical": reproduced["before"], "after_identical": reproduced["after"]}
    for label, values in times.items():
        out[label + "_median_ns"] = float(np.median(values))
        out[label + "_best_ns"] = float(min(values))
    return out


def _keine_ahnung_core(batch: int, seed: int):
    from keine_ahnung_env.games.keine_ahnung.config import Rules
    from keine_ahnung_env.games.keine_ahnung.core import KeineAhnungCore
    return KeineAhnungCore(batch, Rules.make(4), seed=seed)


def _dnp_core(batch: int, seed: int):
    from keine_ahnung_env.games.dnp.config import Rules
    from keine_ahnung_env.games.dnp.core import DnpCore
    return DnpCore(batch, Rules.make(4), seed=seed)


GAMES = {"keine_ahnung_v0": ("keine_ahnung_env.games.keine_ahnung", _keine_ahnung_core),
         "dnp_v0": ("keine_ahnung_env.games.dnp", _dnp_core)}
"""The games whose kernels this A/B replays: their package and the maker of their 4-player core."""


def kernels_file(game: str) -> str:
    """This tree's ``kernels.py`` of ``game``."""
    return importlib.import_module(GAMES[game][0] + ".kernels").__file__


def run(before: str, after: str, game: str = "keine_ahnung_v0", batch: int = 4096, steps: int = 40,
        rounds: int = 12, seed: int = 0) -> dict:
    """:func:`measure` for one of :data:`GAMES` (its ``STATE_FIELDS`` compared, a warm-up of 500 steps)."""
    package, make_core = GAMES[game]
    fields = importlib.import_module(package + ".kernels").STATE_FIELDS
    return measure(package, make_core, fields, before, after, batch, steps, rounds, seed, warmup=500)


def main(argv=None) -> dict:
    """The command line (module docstring): runs :func:`run` and prints its figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--game", default="keine_ahnung_v0", choices=sorted(GAMES))
    parser.add_argument("--before", required=True, help="the kernels.py to compare against")
    parser.add_argument("--after", default=None, help="default: this tree's kernels.py of the game")
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=12)
    args = parser.parse_args(argv)
    args.after = args.after or kernels_file(args.game)
    for name in ("before", "after"):
        if not os.path.isfile(getattr(args, name)):
            parser.error(f"--{name} {getattr(args, name)!r} is not a file")
    if args.batch < 1 or args.steps < 1 or args.rounds < 1:
        parser.error("--batch, --steps and --rounds must be positive")
    r = run(args.before, args.after, args.game, args.batch, args.steps, args.rounds)
    print(f"{args.game}: batch {r['batch']}, {r['steps']} steps, {r['rounds']} rounds each, one thread, CPU ns per "
          f"decision (step_range + deal_range):")
    print(f"  before: median {r['before_median_ns']:.1f}, best {r['before_best_ns']:.1f}")
    print(f"  after:  median {r['after_median_ns']:.1f}, best {r['after_best_ns']:.1f}   "
          f"after / before: {r['after_median_ns'] / r['before_median_ns']:.3f} (medians)")
    print(f"  every replay reproduced the recorded final state: {r['identical']}"
          + ("" if r["identical"] else f" (before: {r['before_identical']}, after: {r['after_identical']})"))
    return r


if __name__ == "__main__":
    main()
