"""What every agent is: one batched method ``act(observation, action_mask) -> actions``.

Observations ``[B, O]`` and masks ``[B, A]`` go in as NumPy arrays, one action per row comes out
(``int64 [B]``). Agents are seedable (``seed=`` at construction, ``reseed(seed)`` later) and never
see more than the observation and the mask.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

import numpy as np

from keine_ahnung_env.sampling import sample_masked  # the one masked sampler, shared with the games' own agents

__all__ = ["Agent", "RandomAgent", "sample_masked"]


@runtime_checkable
class Agent(Protocol):
    """The batched agent interface."""

    name: str

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """One legal action per row of ``action_mask`` (``int64 [B]``)."""
        ...


class RandomAgent:
    """Uniform over the legal actions."""

    name = "random"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def reseed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        return sample_masked(self.rng, action_mask)
