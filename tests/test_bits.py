"""The compiled bit and memory primitives of ``keine_ahnung_env.bits``, each against plain NumPy or Python."""

import numpy as np
import pytest
from numba import njit
from numba.core.errors import TypingError

from keine_ahnung_env.bits import byte_bits, copy_row, opaque, popcount, store_bit_bytes

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

THREE = 3  # module-level ints: compile-time constants for byte_bits
MINUS_ONE = -1


@njit(cache=False)
def _byte_bits(array, row, col, count):
    return byte_bits(array, row, col, count, THREE), byte_bits(array, row, col, count, MINUS_ONE)


@njit(cache=False)
def _true_bits(array, row, col, count):
    return byte_bits(array, row, col, count, 1)


def test_byte_bits_matches_a_loop_over_the_bytes():
    rng = np.random.default_rng(3)
    array = rng.integers(-1, 5, (4, 108)).astype(np.int8)  # the last row ends the array: no byte read past it
    flags = rng.random((4, 70)) < 0.5
    for row in range(4):
        for col, count in ((0, 64), (64, 44), (44, 64), (100, 8), (107, 1), (5, 0), (3, -2), (0, 108), (3, 10),
                           (60, 5), (50, 58), (0, 1)):
            got3, got_minus = _byte_bits(array, row, col, count)
            bytes_ = array[row, col:col + max(0, min(count, 64))]
            assert int(got3) == sum(1 << j for j, v in enumerate(bytes_) if v == 3)
            assert int(got_minus) == sum(1 << j for j, v in enumerate(bytes_) if v == -1)
        for col, count in ((0, 64), (64, 6), (6, 64), (69, 1), (0, 70), (2, 30)):
            count = min(count, 64)
            assert int(_true_bits(flags, row, col, count)) == sum(
                1 << j for j, v in enumerate(flags[row, col:col + count]) if v)


@njit(cache=False)
def _store44(mask, row, bits):
    store_bit_bytes(mask, row, 0, bits, 44)


@njit(cache=False)
def _store7_at3(mask, row, bits):
    store_bit_bytes(mask, row, 3, bits, 7)


@pytest.mark.parametrize("dtype", [np.bool_, np.uint8, np.int8])
def test_store_bit_bytes_writes_the_low_bits_as_bytes_and_nothing_else(dtype):
    rng = np.random.default_rng(7)
    words = [0, 1, (1 << 44) - 1, 1 << 43, 1 << 63, (1 << 64) - 1] + [int(w) for w in rng.integers(0, 2**63, 40)]
    for word in words:
        mask = np.full((3, 44), 5 if dtype != np.bool_ else True, dtype)
        before = mask.copy()
        _store44(mask, 1, np.uint64(word))
        expected = np.array([(word >> i) & 1 for i in range(44)], dtype)
        np.testing.assert_array_equal(mask[1].view(np.uint8), expected.view(np.uint8))
        np.testing.assert_array_equal(mask[[0, 2]], before[[0, 2]])  # the neighbouring rows untouched
        row = np.full((2, 12), 9, np.uint8)
        _store7_at3(row, 0, np.uint64(word))
        np.testing.assert_array_equal(row[0], [9, 9, 9] + [(word >> i) & 1 for i in range(7)] + [9, 9])
        np.testing.assert_array_equal(row[1], 9)


@njit(cache=False)
def _sum_through_opaque(n):
    total = 0
    for i in range(n):
        total += opaque(i) * 3
    return total


def test_opaque_returns_its_argument():
    assert _sum_through_opaque(1000) == 3 * sum(range(1000))
    assert _sum_through_opaque(0) == 0
