"""Masked sampling: the one helper every agent (built-in heuristics, random play, tests) draws legal
actions with. It lives at the bottom of the package so that a game's own agents can use it without
the environment package importing the top-level ``agents`` package (which re-exports it)."""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, _nrt=False)
def _pick_uniform(mask, u, out):
    """``out[b]``: the k-th legal action of row b (counting from 0), k = floor(u[b] * legal count);
    0 when there is none (and, as before, if the float product ever rounded up to the count).

    Exactly NumPy's ``(cumsum(mask) > floor(u * n)).argmax()`` of the earlier version: the same
    float64 product, truncated the same way, so the same draws give the same actions."""
    B, A = mask.shape
    for b in range(B):
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
        _pick_uniform(mask if mask.flags.c_contiguous else np.ascontiguousarray(mask), u, out)
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
