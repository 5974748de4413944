"""The shared ``rng.shuffle`` (the stream's words in registers, wave 6) against the shuffle it replaced
(``rng.bounded`` per card, which loads and stores the stream each draw), one thread, alternating;
the best of ``--rounds`` rounds, nanoseconds per shuffle of ``--cards`` cards. Both give the same
permutations (``tests/test_rng.py``).

    .venv/bin/python research/shuffle_speed.py [--cards 108] [--rounds 15]
"""

from __future__ import annotations

import argparse
import time

import numpy as np
from numba import njit

from keine_ahnung_env import rng


@njit(_nrt=False)
def _bounded_per_card(state, b, values, n):
    for i in range(n - 1, 0, -1):
        j = rng.bounded(state, b, i + 1)
        tmp = values[i]
        values[i] = values[j]
        values[j] = tmp


@njit(_nrt=False)
def _shuffles(which, state, values, reps):
    for r in range(reps):
        if which == 0:
            rng.shuffle(state, r % state.shape[0], values, values.shape[0])
        else:
            _bounded_per_card(state, r % state.shape[0], values, values.shape[0])


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--cards", type=int, default=108, help="cards per shuffle (Keine Ahnung's deck: 108)")
    parser.add_argument("--rounds", type=int, default=15, help="alternating rounds; the best is printed")
    args = parser.parse_args(argv)
    if args.cards < 2 or args.rounds < 1:
        parser.error("--cards must be >= 2 and --rounds >= 1")
    state, values, reps = rng.game_rng_states(0, range(64)), np.arange(args.cards, dtype=np.int16), 20000
    best = {0: np.inf, 1: np.inf}
    for which in best:
        _shuffles(which, state, values, 10)
    for _ in range(args.rounds):
        for which in best:
            start = time.perf_counter()
            _shuffles(which, state, values, reps)
            best[which] = min(best[which], (time.perf_counter() - start) / reps * 1e9)
    print(f"rng.shuffle (registers): {best[0]:.0f} ns; bounded per card: {best[1]:.0f} ns "
          f"per {args.cards}-card shuffle ({best[1] / best[0]:.2f}x)")


if __name__ == "__main__":
    main()
