"""The per-game random stream of the engines: xoshiro256** with its state in a ``[B, 4] uint64`` array.

Every game owns one row of ``rng_state``; the compiled kernels advance that row and nothing else, so
game i's course depends on its own stream only (not on the batch size, the other games or the number
of threads). The stream of game i of a batch seeded with ``seed`` is seeded from
``np.random.SeedSequence(seed)`` with spawn key ``(i,)`` (:func:`game_rng_states`).

The same functions exist twice, bit for bit: compiled (``next64``, ``bounded``, ``shuffle``; Numba,
called from the kernels) and in plain Python (:class:`GameRandom`, used by the reference engine), so
the reference and the compiled engine deal and reshuffle identically. ``tests/test_keine_ahnung_core.py``
checks that the two forms agree.

* ``next64``: xoshiro256** (Blackman and Vigna), one 64-bit output.
* ``bounded(n)``: an unbiased integer in ``[0, n)`` for ``1 <= n < 2**32``, by Lemire's multiply-and-
  reject on the upper 32 bits of ``next64``.
* ``shuffle``: Fisher-Yates from the last position down: for ``i = n-1 .. 1`` swap ``a[i]`` and
  ``a[bounded(i + 1)]``. A shuffled ``range(n)`` is the permutation ``p`` with ``shuffle(a) == a[p]``.
"""

from __future__ import annotations

import os
from typing import Sequence

# Every game's kernels import this module, so the one process-wide setting of the compiled engines
# lives here: Numba's OpenMP thread pool spins between parallel kernels by default, which on a machine
# whose cores are busy with other work turns a kernel launch of microseconds into milliseconds.
# Sleeping threads cost a few microseconds per launch. Read when the pool starts (the first parallel
# kernel); an explicit setting wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numpy as np  # noqa: E402
from numba import njit  # noqa: E402

MASK64 = (1 << 64) - 1
MASK32 = (1 << 32) - 1

_U5 = np.uint64(5)
_U7 = np.uint64(7)
_U9 = np.uint64(9)
_U17 = np.uint64(17)
_U32 = np.uint64(32)
_U45 = np.uint64(45)
_U57 = np.uint64(57)
_U19 = np.uint64(19)
_M32 = np.uint64(MASK32)
_TWO32 = np.uint64(1 << 32)


# ------------------------------------------------------------------------------------ seeding


def game_seed_sequences(seed: int | None, indices: Sequence[int]) -> list[np.random.SeedSequence]:
    """Seed sequence of each game index: independent of the batch size it is used in."""
    root = np.random.SeedSequence(seed)
    return [np.random.SeedSequence(root.entropy, spawn_key=(int(i),)) for i in indices]


def state_from_seed_sequence(sequence: np.random.SeedSequence) -> np.ndarray:
    """The four state words ([4] uint64) a seed sequence gives (never all zero)."""
    state = sequence.generate_state(4, np.uint64)
    if not state.any():  # the one state xoshiro cannot leave; practically unreachable
        state[0] = 1
    return state


def game_rng_states(seed: int | None, indices: Sequence[int]) -> np.ndarray:
    """[len(indices), 4] uint64: the stream of each game of a batch seeded with ``seed``."""
    out = np.zeros((len(indices), 4), np.uint64)
    for row, sequence in enumerate(game_seed_sequences(seed, indices)):
        out[row] = state_from_seed_sequence(sequence)
    return out


def stream_states(rng: np.random.Generator, count: int) -> np.ndarray:
    """[count, 4] uint64: fresh streams drawn from ``rng`` (four 64-bit draws each), for positions built
    outside a deal (belief samplers) and for the compiled agents' tie-breaks; never all zero."""
    # 256 random bits per stream straight from the generator: a xoshiro state drawn uniformly starts
    # the stream at a random point of its 2**256 - 1 period. (A SeedSequence hashed from one draw, as
    # before, cost ~0.2 ms per call, and ``play_turns`` calls this for every opponent round of an SB3 step.)
    states = rng.integers(0, 2 ** 64, size=(count, 4), dtype=np.uint64)
    states[~states.any(axis=1), 0] = 1  # the one state xoshiro cannot leave; practically unreachable
    return states


# ------------------------------------------------------------------------- compiled form


@njit(cache=True, inline="always", _nrt=False)
def _rotl(x, k):
    return (x << k) | (x >> (np.uint64(64) - k))


@njit(cache=True, inline="always", _nrt=False)
def _next_words(s0, s1, s2, s3):
    """One xoshiro256** output and the next state words, from four words held in registers (``shuffle``
    keeps them there for a whole shuffle; ``next64`` loads and stores a game's row around one step)."""
    result = _rotl(s1 * _U5, _U7) * _U9
    t = s1 << _U17
    s2 ^= s0
    s3 ^= s1
    s1 ^= s2
    s0 ^= s3
    s2 ^= t
    s3 = _rotl(s3, _U45)
    return result, s0, s1, s2, s3


@njit(cache=True, _nrt=False)
def next64(rng_state, b):
    """One xoshiro256** output of game b's stream (advances ``rng_state[b]``)."""
    result, s0, s1, s2, s3 = _next_words(rng_state[b, 0], rng_state[b, 1], rng_state[b, 2], rng_state[b, 3])
    rng_state[b, 0], rng_state[b, 1], rng_state[b, 2], rng_state[b, 3] = s0, s1, s2, s3
    return result


@njit(cache=True, _nrt=False)
def bounded(rng_state, b, n):
    """An unbiased integer in [0, n) from game b's stream (1 <= n < 2**32)."""
    un = np.uint64(n)
    m = (next64(rng_state, b) >> _U32) * un
    low = m & _M32
    if low < un:
        threshold = (_TWO32 - un) % un
        while low < threshold:
            m = (next64(rng_state, b) >> _U32) * un
            low = m & _M32
    return np.int64(m >> _U32)


@njit(cache=True, _nrt=False)
def shuffle(rng_state, b, values, n):
    """Shuffles ``values[:n]`` in place (Fisher-Yates, last position first) with game b's stream: position
    i swaps with ``bounded(rng_state, b, i + 1)``. The stream's four words stay in registers for the whole
    shuffle (``next64`` and ``bounded`` inlined): calling them per card loaded and stored the stream each
    time, and a deal shuffles every card (the gap game's deal: 66)."""
    s0, s1, s2, s3 = rng_state[b, 0], rng_state[b, 1], rng_state[b, 2], rng_state[b, 3]
    for i in range(n - 1, 0, -1):
        un = np.uint64(i + 1)
        r, s0, s1, s2, s3 = _next_words(s0, s1, s2, s3)
        m = (r >> _U32) * un
        low = m & _M32
        if low < un:  # Lemire's rejection, as in ``bounded``; for small n about once in 2**26 draws
            threshold = (_TWO32 - un) % un
            while low < threshold:
                r, s0, s1, s2, s3 = _next_words(s0, s1, s2, s3)
                m = (r >> _U32) * un
                low = m & _M32
        j = np.int64(m >> _U32)
        tmp = values[i]
        values[i] = values[j]
        values[j] = tmp
    rng_state[b, 0], rng_state[b, 1], rng_state[b, 2], rng_state[b, 3] = s0, s1, s2, s3


# ---------------------------------------------------------------------------- Python form


class GameRandom:
    """The same stream in plain Python (the reference engine's generator)."""

    def __init__(self, state: Sequence[int]):
        words = [int(x) & MASK64 for x in state]
        if len(words) != 4 or not any(words):
            raise ValueError("GameRandom needs four 64-bit state words, not all zero")
        self.state = words

    @classmethod
    def from_seed_sequence(cls, sequence: np.random.SeedSequence) -> "GameRandom":
        return cls(state_from_seed_sequence(sequence).tolist())

    @classmethod
    def for_game(cls, seed: int | None, index: int) -> "GameRandom":
        """The stream of game ``index`` of a batch seeded with ``seed`` (as the compiled core has it)."""
        return cls.from_seed_sequence(game_seed_sequences(seed, [index])[0])

    @classmethod
    def coerce(cls, rng) -> "GameRandom":
        """A GameRandom as is; an int seeds game 0 of that seed; a ``numpy.random.Generator`` gives the
        seed of a new stream (the same Generator state gives the same stream)."""
        if isinstance(rng, GameRandom):
            return rng
        if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
            return cls.for_game(int(rng), 0)
        if isinstance(rng, np.random.Generator):
            return cls.from_seed_sequence(np.random.SeedSequence(int(rng.integers(2**63))))
        raise TypeError(f"expected a GameRandom, an int seed or a numpy Generator; got {type(rng).__name__}")

    def next64(self) -> int:
        s0, s1, s2, s3 = self.state
        result = (_rotl_py((s1 * 5) & MASK64, 7) * 9) & MASK64
        t = (s1 << 17) & MASK64
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = _rotl_py(s3, 45)
        self.state = [s0, s1, s2, s3]
        return result

    def bounded(self, n: int) -> int:
        m = (self.next64() >> 32) * n
        low = m & MASK32
        if low < n:
            threshold = ((1 << 32) - n) % n
            while low < threshold:
                m = (self.next64() >> 32) * n
                low = m & MASK32
        return m >> 32

    def shuffle(self, values: list) -> None:
        """Shuffles a list in place, as the compiled ``shuffle``."""
        for i in range(len(values) - 1, 0, -1):
            j = self.bounded(i + 1)
            values[i], values[j] = values[j], values[i]

    def permutation(self, n: int) -> list[int]:
        """A shuffled ``range(n)``."""
        values = list(range(n))
        self.shuffle(values)
        return values


def _rotl_py(x: int, k: int) -> int:
    return ((x << k) | (x >> (64 - k))) & MASK64
