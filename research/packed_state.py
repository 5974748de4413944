"""The packed state against the state tuples, at batch 1, for every game (``keine_ahnung_env/packing.py``).

Two cores of each game side by side, dealt alike: one packed (the default: a kernel call passes the
buffer and its table, two arrays), one passing the ``State`` and ``Consts`` tuples (~60 arrays and
scalars: what every core did before; a core falls back to it when a state array is replaced, which is how
this script makes it). Printed, per game, the best of ``--rounds`` alternating rounds, in microseconds:

* ``call``: ``core.step`` on a batch whose one game is not active, so that no rule runs: the cost of the
  call itself (argument checks and the kernel call);
* ``observe``: ``core.observe(seat)``, one observation;
* ``loop``: the benchmark's batch-1 loop (legal actions, a random one, ``step``, then the observation of
  the seat to act).

    .venv/bin/python research/packed_state.py [--rounds 15]
"""

from __future__ import annotations

import argparse
import random
import time

import numpy as np

from keine_ahnung_env import registry

GAMES = ("keine_ahnung_v0", "gap_v0", "dnp_v0")


def make(game: str, packed: bool):
    core = registry.game_spec(game, 4).make_core(1, 0)
    if not packed:
        core.legal_mask = core.legal_mask  # a replaced array: this core passes the tuples from now on
    assert ("_packed" in core.__dict__) == packed
    return core


def per_call(f, n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        f()
    return (time.perf_counter() - start) / n * 1e6


def loop(core, pick: random.Random, n: int) -> float:
    action, row = np.zeros(1, np.int64), np.zeros(1, np.intp)
    mask, terminated, truncated = core.legal_mask, core.terminated, core.truncated
    start = time.perf_counter()
    for _ in range(n):
        if terminated[0] or truncated[0]:
            core.reset_games(row)
        legal = np.flatnonzero(mask[0])
        action[0] = legal[pick.randrange(legal.size)]
        core.step(action)
        core.observe(int(core.current[0]))
    return (time.perf_counter() - start) / n * 1e6


def measure(game: str, rounds: int) -> dict[str, dict[str, float]]:
    cores = {"packed": make(game, True), "tuples": make(game, False)}
    best = {kind: {"call": np.inf, "observe": np.inf, "loop": np.inf} for kind in cores}
    inactive = np.zeros(1, bool)
    picks = {kind: random.Random(1) for kind in cores}
    for _ in range(rounds):
        for kind, core in cores.items():
            action = np.array([np.flatnonzero(core.legal_mask[0])[0]]) if core.legal_mask[0].any() else np.zeros(1, int)
            b = best[kind]
            b["call"] = min(b["call"], per_call(lambda: core.step(action, inactive), 5000))
            b["observe"] = min(b["observe"], per_call(lambda: core.observe(0), 5000))
            b["loop"] = min(b["loop"], loop(core, picks[kind], 3000))
    return best


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rounds", type=int, default=15, help="alternating rounds; the best of each is printed")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error(f"--rounds {args.rounds}; allowed: a positive integer")
    print(f"{'game':<16} {'':8} {'call us':>8} {'observe us':>11} {'loop us':>8}")
    for game in GAMES:
        best = measure(game, args.rounds)
        for kind in ("tuples", "packed"):
            b = best[kind]
            print(f"{game:<16} {kind:8} {b['call']:8.2f} {b['observe']:11.2f} {b['loop']:8.2f}")
        t, p = best["tuples"], best["packed"]
        print(f"{'':16} {'ratio':8} {t['call'] / p['call']:7.2f}x {t['observe'] / p['observe']:10.2f}x "
              f"{t['loop'] / p['loop']:7.2f}x")


if __name__ == "__main__":
    main()
