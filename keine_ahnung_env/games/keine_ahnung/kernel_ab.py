"""A/B of two versions of the Keine Ahnung step kernel in one process, on one thread.

    python -m keine_ahnung_env.games.keine_ahnung.kernel_ab --before /tmp/old/kernels.py
    python -m keine_ahnung_env.games.keine_ahnung.kernel_ab --before OLD --after NEW --batch 512 --rounds 16

Both files (another tree's ``games/keine_ahnung/kernels.py``; ``--after`` defaults to this tree's) are
copied and loaded as sibling modules of this package, so both compile the same way. One trajectory of
random play is recorded (4 players, ``--steps`` steps of ``--batch`` games after a warm-up as long as
a game, so the games are desynchronised as in the benchmark), then replayed by each version in turn,
alternating, through the compiled entry points: ``step_range`` over the batch and ``deal_range`` for the
games that ended, the engine loop of ``keine_ahnung_env.benchmark``'s engine figure without its Python
side and threads. Printed: the thread CPU time per decision (less moved by other jobs than wall time
on a shared machine; median and best of the rounds) and whether every replay reproduced the recorded
final state exactly (the same rules and the same random draws).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import sys
import tempfile
import time

import numpy as np


def load_copy(name: str, path: str, folder: str, append: str = ""):
    """``path`` loaded as module ``keine_ahnung_env.games.keine_ahnung.<name>`` (a copy in ``folder``,
    with the source ``append`` added at its end: a compiled driver loop of an A/B, say), so another
    tree's kernels compile as this package's own do."""
    copy = os.path.join(folder, name + ".py")
    shutil.copy(path, copy)
    if append:
        with open(copy, "a") as f:
            f.write(append)
    spec = importlib.util.spec_from_file_location(f"{__package__}.{name}", copy)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def run(before: str, after: str, batch: int = 4096, steps: int = 40, rounds: int = 12, seed: int = 0) -> dict:
    import numba

    from ...engine import _entry_point
    from ...sampling import sample_masked
    from . import kernels as K
    from .config import Rules
    from .core import KeineAhnungCore

    numba.set_num_threads(1)
    folder = tempfile.mkdtemp(prefix="ka_kernel_ab_")
    versions = {"before": load_copy("_ab_before", before, folder), "after": load_copy("_ab_after", after, folder)}
    core = KeineAhnungCore(batch, Rules.make(4), seed=seed)
    core.parallel_min_games = 10**9
    rng = np.random.default_rng(seed)

    def play():
        actions = sample_masked(rng, core.legal_mask).astype(np.intp)
        core.step(actions)
        done = np.flatnonzero(core.terminated | core.truncated)
        if done.size:
            core.reset_games(done)
        return actions, done

    for _ in range(500):  # about one game's length: the games desynchronised
        play()
    start = {name: getattr(core, name).copy() for name in K.STATE_FIELDS}
    trajectory = [play() for _ in range(steps)]
    final = {name: getattr(core, name).copy() for name in K.STATE_FIELDS}
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
        same = all(np.array_equal(final[name], getattr(core, name)) for name in K.STATE_FIELDS)
        return elapsed * 1e9 / (steps * batch), same

    times = {"before": [], "after": []}
    identical = True
    for r in range(rounds):
        for label in (("before", "after") if r % 2 == 0 else ("after", "before")):
            ns, same = replay(label)
            times[label].append(ns)
            identical &= same
    shutil.rmtree(folder, ignore_errors=True)
    out = {"batch": batch, "steps": steps, "rounds": rounds, "identical": identical}
    for label, values in times.items():
        out[label + "_median_ns"] = float(np.median(values))
        out[label + "_best_ns"] = float(min(values))
    return out


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", required=True, help="the kernels.py to compare against")
    parser.add_argument("--after", default=os.path.join(os.path.dirname(__file__), "kernels.py"))
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=12)
    args = parser.parse_args(argv)
    for name in ("before", "after"):
        if not os.path.isfile(getattr(args, name)):
            parser.error(f"--{name} {getattr(args, name)!r} is not a file")
    if args.batch < 1 or args.steps < 1 or args.rounds < 1:
        parser.error("--batch, --steps and --rounds must be positive")
    r = run(args.before, args.after, args.batch, args.steps, args.rounds)
    print(f"batch {r['batch']}, {r['steps']} steps, {r['rounds']} rounds each, one thread, CPU ns per decision "
          f"(step_range + deal_range):")
    print(f"  before: median {r['before_median_ns']:.1f}, best {r['before_best_ns']:.1f}")
    print(f"  after:  median {r['after_median_ns']:.1f}, best {r['after_best_ns']:.1f}   "
          f"after / before: {r['after_median_ns'] / r['before_median_ns']:.3f} (medians)")
    print(f"  every replay reproduced the recorded final state: {r['identical']}")


if __name__ == "__main__":
    main()
