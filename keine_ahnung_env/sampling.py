"""Masked sampling: the one helper every agent (built-in heuristics, random play, tests) draws legal
actions with. It lives at the bottom of the package so that a game's own agents can use it without
the environment package importing the top-level ``agents`` package (which re-exports it)."""

from __future__ import annotations

import numpy as np


def sample_masked(rng: np.random.Generator, action_mask: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """Draws one action per row, uniformly (or proportionally to ``weights``) among legal ones.

    This is the project's one masked-sampling helper. Rows with no legal action get 0.
    """
    mask = np.asarray(action_mask, bool)
    if mask.ndim != 2:
        raise ValueError(f"action_mask must be 2-D [batch, actions]; got shape {mask.shape}")
    if weights is None:
        # Uniform: counts of legal actions in small integers, the k-th legal action for k = floor(u * n).
        # The same action from the same draw as the weighted path below (cum <= u*n iff cum <= floor(u*n)
        # for integer cum), in about two thirds of its time at large batches (benchmarks/README.md).
        if mask.shape[1] == 0:
            return np.zeros(mask.shape[0], np.int64)
        dtype = np.uint8 if mask.shape[1] < 256 else np.int64
        cum = np.cumsum(mask, axis=1, dtype=dtype)
        k = (rng.random(mask.shape[0]) * cum[:, -1]).astype(dtype)
        return (cum > k[:, None]).argmax(axis=1).astype(np.int64)  # rows with no legal action: 0
    w = np.where(mask, np.asarray(weights, np.float64), 0.0)
    cum = np.cumsum(w, axis=1)
    total = cum[:, -1]
    u = rng.random(mask.shape[0]) * total
    actions = (cum <= u[:, None]).sum(axis=1)
    actions = np.minimum(actions, mask.shape[1] - 1)
    return np.where(total > 0, actions, 0).astype(np.int64)
