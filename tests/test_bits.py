"""The compiled bit and memory primitives of ``keine_ahnung_env.bits``, each against plain NumPy."""

import numpy as np
import pytest
from numba import njit
from numba.core.errors import TypingError

from keine_ahnung_env.bits import copy_row, popcount

WIDTH = 18  # a module-level int: a compile-time constant for copy_row


@njit(cache=False)
def _copy_rows(out, table, rows, width_from_argument):
    for i in range(rows.shape[0]):
        copy_row(out, i * WIDTH + 1, table, rows[i], WIDTH)
    return width_from_argument


@njit(cache=False)
def _copy_with_runtime_count(out, table, count):
    copy_row(out, 0, table, 0, count)


@njit(cache=False)
def _popcounts(words):
    out = np.empty(words.shape[0], np.int64)
    for i in range(words.shape[0]):
        out[i] = popcount(words[i])
    return out


def test_copy_row_copies_exactly_one_table_row_per_call():
    rng = np.random.default_rng(0)
    table = rng.random((7, WIDTH)).astype(np.float32)
    rows = np.array([3, 0, 6, 3])
    out = np.full(rows.size * WIDTH + 2, -1.0, np.float32)
    _copy_rows(out, table, rows, 0)
    assert out[0] == -1.0 and out[-1] == -1.0  # nothing written outside the rows
    np.testing.assert_array_equal(out[1:-1].reshape(rows.size, WIDTH), table[rows])


def test_copy_row_refuses_a_run_time_count():
    table = np.zeros((2, WIDTH), np.float32)
    with pytest.raises(TypingError):
        _copy_with_runtime_count(np.zeros(WIDTH, np.float32), table, WIDTH)


def test_popcount_matches_numpy():
    words = np.random.default_rng(1).integers(0, 2**63, 100, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    words[:3] = [0, 2**64 - 1, 1 << 63]
    expected = [bin(int(w)).count("1") for w in words]
    np.testing.assert_array_equal(_popcounts(words), expected)
