"""The shared compiled bit primitives (``keine_ahnung_env.bits``) against plain Python."""

import numpy as np
import pytest
from numba import njit

from keine_ahnung_env.bits import opaque, store_bit_bytes


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
