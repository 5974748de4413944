"""Masked sampling: the one helper every agent (built-in heuristics, random play, tests) draws legal
actions with. It lives at the bottom of the package so that a game's own agents can use it without
the environment package importing the top-level ``agents`` package (which re-exports it)."""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, prange

from . import rng as _rng  # noqa: F401 (sets the thread pool's wait policy before a parallel pass starts it)


PARALLEL_MIN_ROWS = 1024
"""Uniform draws for at least this many rows run over Numba's threads (``_pick_uniform_parallel``);
smaller batches run on the calling thread, where waking the thread pool would cost more than the pass.
The actions never depend on it (each row reads only its own mask row and draw); tests change it."""

_CHUNKS = 4 * numba.config.NUMBA_NUM_THREADS
"""Ranges a parallel pass splits the rows into (a few per thread, as the engines' kernels do)."""


@njit(cache=True, _nrt=False)
def _pick_uniform_range(mask, u, out, lo, hi):
    """``out[b]`` for rows ``lo..hi-1``: the k-th legal action of row b (counting from 0),
    k = floor(u[b] * legal count); 0 when there is none (and, as before, if the float product ever
    rounded up to the count).

    Exactly NumPy's ``(cumsum(mask) > floor(u * n)).argmax()`` of the earlier version: the same
    float64 product, truncated the same way, so the same draws give the same actions."""
    A = mask.shape[1]
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
        # iff cum <= floor(u*n) for integer cum) and as the NumPy cumsum/argmax version it replaced
        # (benchmarks/README.md).
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
