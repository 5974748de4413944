"""The per-game random stream (``keine_ahnung_env/rng.py``): the compiled kernels and the Python form
(``GameRandom``, the reference engines' generator) give the same numbers, shuffles and stream states."""

from __future__ import annotations

import numpy as np

from keine_ahnung_env import rng


def test_compiled_shuffle_equals_the_python_shuffle_and_leaves_the_same_stream():
    # ``rng.shuffle`` keeps the stream's words in registers; ``GameRandom.shuffle`` draws through
    # ``bounded`` one card at a time: the same permutation and the same state after, at every length
    # a deal or a reshuffle uses (0 and 1 draw nothing).
    states = rng.game_rng_states(7, range(40))
    for n in (0, 1, 2, 3, 17, 40, 65, 66, 108):
        after = states.copy()
        for b in range(len(states)):
            values = np.arange(120, dtype=np.int16)
            rng.shuffle(after, b, values, n)
            python = rng.GameRandom([int(x) for x in states[b]])
            expected = list(range(n))
            python.shuffle(expected)
            assert values[:n].tolist() == expected and values[n:].tolist() == list(range(n, 120))
            assert after[b].tolist() == python.state
        states = after


def test_compiled_bounded_equals_the_python_bounded_also_where_it_rejects():
    # n = 3 * 2**30 rejects a quarter of the draws (threshold 2**30): the loop of Lemire's method runs.
    states = rng.game_rng_states(11, range(8))
    for n in (1, 2, 7, 66, 3 * 2**30, 2**32 - 1):
        for b in range(len(states)):
            python = rng.GameRandom([int(x) for x in states[b]])
            draws = [int(rng.bounded(states, b, n)) for _ in range(20)]
            assert draws == [python.bounded(n) for _ in range(20)]
            assert all(0 <= d < n for d in draws)
            assert states[b].tolist() == python.state
