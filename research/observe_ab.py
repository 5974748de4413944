"""A/B of two versions of the Keine Ahnung observation encoder in one process, on one thread.

    git archive OLD_COMMIT | tar -x -C /tmp/before
    .venv/bin/python research/observe_ab.py --before /tmp/before/keine_ahnung_env/games/keine_ahnung/kernels.py

The other version's ``kernels.py`` is loaded beside this tree's (``research/kernel_ab.py``'s ``load_copy``, as for the step's A/B).
First both encode the same states (2, 4 and 5 players, both memory modes, every seat, every 20th of 400
steps of random play at ``--batch`` games) into arrays filled with different garbage, and the rows are
compared: every row must come out the same (the same observation, every entry written). Then
``observe_range`` of each, called from a compiled loop (no per-call unboxing in the figure), encodes
the 4-player batch as the seats to act see it, alternately, ``--rounds`` times each: thread CPU
nanoseconds per row, median and best. Each version's ``Consts`` is filled by name from this tree's
constants: fields only this tree has are left out, and a version that needs a field this tree no longer
builds cannot be compared this way.
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time

import numba
import numpy as np

# This tree's package, not an installed one: run as a script, Python puts research/ first on the path,
# and the "after" version and the constants both versions get would otherwise come from elsewhere
# (the repository root also makes the research package importable).
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from keine_ahnung_env.sampling import sample_masked  # noqa: E402
from keine_ahnung_env.games.keine_ahnung import KeineAhnungCore, Rules  # noqa: E402
from keine_ahnung_env.games.keine_ahnung import kernels as THIS  # noqa: E402
from research.kernel_ab import load_copy  # noqa: E402

PACKAGE = "keine_ahnung_env.games.keine_ahnung"

_LOOP = """

@njit(cache=False, _nrt=False)
def _observe_repeatedly(s, k, games, seats, out, repeats):
    for _ in range(repeats):
        observe_range(s, k, games, seats, out, 0, games.shape[0])
"""


def _tuples(module, core):
    return (module.State(*[getattr(core, f) for f in module.STATE_FIELDS]),
            module.Consts(*[getattr(core._k, f) for f in module.Consts._fields]))


def _play(core, rng, steps):
    for _ in range(steps):
        core.step(sample_masked(rng, core.legal_mask))
        done = np.flatnonzero(core.terminated | core.truncated)
        if done.size:
            core.reset_games(done)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--before", required=True, help="the kernels.py to compare against")
    parser.add_argument("--after", default=THIS.__file__)
    parser.add_argument("--batch", type=int, default=4096)
    parser.add_argument("--rounds", type=int, default=12)
    args = parser.parse_args(argv)
    for name in ("before", "after"):
        if not os.path.isfile(getattr(args, name)):
            parser.error(f"--{name} {getattr(args, name)!r} is not a file")
    if args.batch < 1 or args.rounds < 1:
        parser.error("--batch and --rounds must be positive")
    numba.set_num_threads(1)
    folder = tempfile.mkdtemp(prefix="ka_observe_ab_")
    versions = {"before": load_copy(PACKAGE, "_observe_before", args.before, folder, append=_LOOP),
                "after": load_copy(PACKAGE, "_observe_after", args.after, folder, append=_LOOP)}
    B, games = args.batch, np.arange(args.batch)
    differing = 0
    for memory in ("perfect", "none"):
        for players in (2, 4, 5):
            core = KeineAhnungCore(B, Rules.make(players, memory=memory), seed=players)
            rng = np.random.default_rng(players)
            for _ in range(20):
                _play(core, rng, 20)
                for seat in range(players):
                    seats = np.full(B, seat, np.intp)
                    rows = []
                    for fill, module in zip((np.nan, 7.0), versions.values()):
                        out = np.full((B, core.observation_size), fill, np.float32)
                        module.observe_range(*_tuples(module, core), games, seats, out, 0, B)
                        rows.append(out)
                    differing += int((rows[0] != rows[1]).any(axis=1).sum())
    core = KeineAhnungCore(B, Rules.make(4), seed=4)
    _play(core, np.random.default_rng(4), 400)
    seats = np.asarray(core.current, np.intp)
    out = np.empty((B, core.observation_size), np.float32)
    repeats = max(1, 40960 // B)
    times = {label: [] for label in versions}
    for label, module in versions.items():
        module._observe_repeatedly(*_tuples(module, core), games, seats, out, 1)  # compiles
    for r in range(args.rounds):
        for label in (("before", "after") if r % 2 == 0 else ("after", "before")):
            module = versions[label]
            s, k = _tuples(module, core)
            start = time.thread_time()
            module._observe_repeatedly(s, k, games, seats, out, repeats)
            times[label].append((time.thread_time() - start) * 1e9 / (repeats * B))
    shutil.rmtree(folder, ignore_errors=True)
    print(f"batch {B}, 4 players, {args.rounds} rounds each, one thread, CPU ns per observation row:")
    for label, values in times.items():
        print(f"  {label}: median {np.median(values):.0f}, best {min(values):.0f}")
    print(f"  after / before: {np.median(times['after']) / np.median(times['before']):.3f} (medians)")
    print(f"  rows that differ between the versions (2, 4, 5 players, both memory modes): {differing}")


if __name__ == "__main__":
    main()
