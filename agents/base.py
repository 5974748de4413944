"""What every agent is: one batched method ``act(observation, action_mask) -> actions``.

Observations ``[B, O]`` and masks ``[B, A]`` go in as NumPy arrays, one action per row comes out
(``int64 [B]``). Agents are seedable (``seed=`` at construction, ``reseed(seed)`` later) and never
see more than the observation and the mask.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np


@runtime_checkable
class Agent(Protocol):
    """The batched agent interface."""

    name: str

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """One legal action per row of ``action_mask`` (``int64 [B]``)."""
        ...


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


class RandomAgent:
    """Uniform over the legal actions."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def reseed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        return sample_masked(self.rng, action_mask)
