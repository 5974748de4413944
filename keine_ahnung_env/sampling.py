"""Masked sampling: the one helper every agent (built-in heuristics, random play, tests) draws legal
actions with. It lives at the bottom of the package so that a game's own agents can use it without
the environment package importing the top-level ``agents`` package (which re-exports it)."""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

from . import bits as _bits_module
from . import rng as _rng  # noqa: F401 (sets the thread pool's wait policy before a parallel pass starts it)
from .bits import load_word, popcount
from .kernel_cache import drop_stale_cache


PARALLEL_MIN_ROWS = 1024
"""Uniform draws for at least this many rows run over Numba's threads (``_pick_uniform_parallel``);
smaller batches run on the calling thread, where waking the thread pool would cost more than the pass.
The actions never depend on it (each row reads only its own mask row and draw); tests change it."""

_CHUNKS = 4 * numba.config.NUMBA_NUM_THREADS
"""Ranges a parallel pass splits the rows into (a few per thread, as the engines' kernels do)."""


_LOW_7 = np.uint64(0x7F7F7F7F7F7F7F7F)
_HIGH_BIT = np.uint64(0x8080808080808080)
_GATHER_BITS = np.uint64(0x0102040810204080)
_U0, _U1, _U7, _U56 = np.uint64(0), np.uint64(1), np.uint64(7), np.uint64(56)


@njit(cache=True, inline="always", _nrt=False)
def _bits_of_bytes(word):
    """The 8 bytes of ``word`` as 8 bits (bit i = byte i nonzero): each byte's high bit set iff the byte
    is nonzero (adding 0x7F to its low 7 bits carries into it, and never into the next byte), then the
    8 high bits gathered into the top byte by one multiplication."""
    nonzero = (((word & _LOW_7) + _LOW_7) | word) & _HIGH_BIT
    return ((nonzero >> _U7) * _GATHER_BITS) >> _U56


@njit(cache=True, inline="always", _nrt=False)
def _row_bits(mask, b, width):
    """Row b of a mask of ``width`` <= 64 columns as the bits of a uint64 (bit a = column a legal):
    8-byte loads for the whole words, and the last 8 bytes of the row for the rest (never a byte past
    the row's end); single bytes for rows shorter than 8."""
    bits = _U0
    words = width // 8
    for i in range(words):
        bits |= _bits_of_bytes(load_word(mask, b, 8 * i)) << np.uint64(8 * i)
    rest = width - 8 * words
    if rest > 0:
        if words > 0:
            tail = _bits_of_bytes(load_word(mask, b, width - 8)) >> np.uint64(8 - rest)
            bits |= tail << np.uint64(8 * words)
        else:
            for a in range(width):
                bits |= np.uint64(mask[b, a] != 0) << np.uint64(a)
    return bits


@njit(cache=True, inline="always", _nrt=False)
def _select_bit(bits, k):
    """The position of the k-th set bit (counting from 0) of the uint64 ``bits``; k < its set bits.
    A binary search on the popcounts of the low halves, without branches (selects)."""
    position = _U0
    for step in range(6):
        width = np.uint64(32 >> step)
        low = bits & ((_U1 << width) - _U1)
        count = popcount(low)
        upper = k >= count
        bits = (bits >> width) if upper else low
        k = (k - count) if upper else k
        position = (position + width) if upper else position
    return np.int64(position)


@njit(cache=True, _nrt=False)
def _pick_uniform_range(mask, u, out, lo, hi):
    """``out[b]`` for rows ``lo..hi-1``: the k-th legal action of row b (counting from 0),
    k = floor(u[b] * legal count); 0 when there is none (and, as before, if the float product ever
    rounded up to the count).

    Exactly NumPy's ``(cumsum(mask) > floor(u * n)).argmax()`` of the earlier version: the same
    float64 product, truncated the same way, so the same draws give the same actions. Masks of up to 64
    actions (Keine Ahnung's 44) take each row as one 64-bit word: no branch per action, which the
    branch predictor would miss (the legal actions of consecutive rows have nothing in common)."""
    A = mask.shape[1]
    if A <= 64:
        for b in range(lo, hi):
            bits = _row_bits(mask, b, A)
            n = popcount(bits)
            k = np.uint64(np.int64(u[b] * np.float64(n)))
            out[b] = _select_bit(bits, k) if k < n else 0
        return
    for b in range(lo, hi):
        n = 0
        for a in range(A):
            n += mask[b, a]
        k = np.int64(u[b] * n)
        out[b] = 0
        for a in range(A):
            if mask[b, a]:
                if k == 0:
                    out[b] = a
                    break
                k -= 1


@njit(cache=True, _nrt=False)
def _pick_uniform(mask, u, out):
    """``_pick_uniform_range`` over every row, on the calling thread."""
    _pick_uniform_range(mask, u, out, 0, mask.shape[0])


@njit(cache=True, parallel=True)
def _pick_uniform_parallel(mask, u, out, chunks):
    """``_pick_uniform_range`` over every row, in ``chunks`` ranges spread over Numba's threads (the
    same actions: rows are independent)."""
    n = mask.shape[0]
    for c in prange(chunks):
        _pick_uniform_range(mask, u, out, c * n // chunks, (c + 1) * n // chunks)


def sample_masked(rng: np.random.Generator, action_mask: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Draws one action per row, uniformly (or proportionally to ``weights``) among legal ones.

    This is the project's one masked-sampling helper. Rows with no legal action get 0.
    """
    mask = np.asarray(action_mask, bool)
    if mask.ndim != 2:
        raise ValueError(f"action_mask must be 2-D [batch, actions]; got shape {mask.shape}")
    if weights is None:
        # Uniform: the k-th legal action for k = floor(u * n), n the row's legal count, in one compiled
        # pass over the mask. The same action from the same draw as the weighted path below (cum <= u*n
        # iff cum <= floor(u*n) for integer cum) and as a NumPy cumsum/argmax over the
        # mask would give.
        if mask.shape[1] == 0:
            return np.zeros(mask.shape[0], np.int64)
        u = rng.random(mask.shape[0])  # the one draw per row, from the caller's NumPy stream as ever
        out = np.empty(mask.shape[0], np.int64)
        mask = mask if mask.flags.c_contiguous else np.ascontiguousarray(mask)
        if mask.shape[0] >= PARALLEL_MIN_ROWS:
            _pick_uniform_parallel(mask, u, out, min(_CHUNKS, mask.shape[0]))
        else:
            _pick_uniform(mask, u, out)
        return out
    w = np.where(mask, np.asarray(weights, np.float64), 0.0)
    cum = np.cumsum(w, axis=1)
    total = cum[:, -1]
    u = rng.random(mask.shape[0]) * total
    actions = (cum <= u[:, None]).sum(axis=1)
    actions = np.minimum(actions, mask.shape[1] - 1)
    return np.where(total > 0, actions, 0).astype(np.int64)


def check_batch(observation, action_mask, num_actions: int | None = None, game: str = "the game"
                ) -> tuple[np.ndarray, np.ndarray]:
    """``(observation [B, O], action_mask [B, A] bool)`` as arrays, as every batched agent takes them;
    ValueError naming what is wrong (not 2-D, rows that differ, a mask of another width than
    ``num_actions``)."""
    obs = np.asarray(observation)
    mask = np.asarray(action_mask, bool)
    if obs.ndim != 2 or mask.ndim != 2:
        raise ValueError(f"observation and action_mask must be 2-D [batch, ...]; got shapes {obs.shape} and {mask.shape}")
    if obs.shape[0] != mask.shape[0]:
        raise ValueError(f"observation has {obs.shape[0]} rows but action_mask has {mask.shape[0]}; one row per game")
    if num_actions is not None and mask.shape[1] != num_actions:
        raise ValueError(f"action_mask must have {num_actions} columns ({game} actions); got {mask.shape[1]}")
    return obs, mask


# The sampler compiles in the shared bit primitives (``bits.py``): a change there must reach this module's
# cached machine code too (``kernel_cache``).
drop_stale_cache(__file__, _pick_uniform, [_bits_module.__file__])
