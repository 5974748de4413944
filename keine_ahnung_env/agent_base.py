"""The batched agent interface every agent implements: ``act(observation [B, O], action_mask [B, A]) ->
int64 [B]``, a ``name`` and a seedable generator.

It lives in the env package, beside the engine, so that the games' own heuristic agents
(``games/<game>/agents.py``) implement it without importing the ``agents`` package above them;
``agents.base`` re-exports every name.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from .sampling import sample_masked  # the one masked sampler, shared with the games' own agents

__all__ = ["Agent", "RandomAgent", "BatchedAgent", "advice_one_hot", "batched", "sample_masked"]


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


class BatchedAgent:
    """A one-observation-at-a-time agent as a batched one (made by :func:`batched`): ``act`` calls the
    wrapped function (or the wrapped object's ``act``) once per row and checks each answer is a legal
    action. ``reseed`` is passed on where the wrapped object has one."""

    def __init__(self, single: Any, name: str | None = None):
        if callable(getattr(single, "act", None)):
            self._act = single.act
        elif callable(single):
            self._act = single
        else:
            raise ValueError(f"agents.batched takes a function act(obs, mask) -> int or an object with such an "
                             f"act method; got a {type(single).__name__}")
        self.single = single
        self.name = name or getattr(single, "name", None) or getattr(single, "__name__", None) \
            or type(single).__name__

    def reseed(self, seed: int | None) -> None:
        if callable(getattr(self.single, "reseed", None)):
            self.single.reseed(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        observation = np.asarray(observation)
        action_mask = np.asarray(action_mask, bool)
        out = np.empty(len(action_mask), np.int64)
        for row in range(len(action_mask)):
            action = self._act(observation[row], action_mask[row])
            try:
                action = int(action)
            except (TypeError, ValueError):
                raise ValueError(f"agent {self.name!r} returned {action!r}; expected an action id (an int)") from None
            if not (0 <= action < action_mask.shape[1] and action_mask[row, action]):
                raise ValueError(f"agent {self.name!r} returned the illegal action {action}; legal: "
                                 f"{np.flatnonzero(action_mask[row]).tolist()}")
            out[row] = action
        return out

    def __repr__(self) -> str:
        return f"batched({self.single!r})"


def batched(single: Any, name: str | None = None) -> BatchedAgent:
    """Turns a one-observation-at-a-time agent into the batched interface.

    ``single`` is a function ``f(observation [O], action_mask [A]) -> int`` or an object with such an
    ``act``; the result has ``act(observation [B, O], action_mask [B, A]) -> int64 [B]``, a ``name``
    (``name``, else the object's ``name`` or the function's ``__name__``) and ``reseed`` (passed on
    where ``single`` has one). An illegal or non-integer answer is a ValueError naming the agent::

        def first_legal(obs, mask):
            return int(mask.argmax())

        agent = agents.batched(first_legal)     # plays in tournaments, commands (py:my_module:agent)
    """
    return BatchedAgent(single, name)


def advice_one_hot(adviser: Any, observation: np.ndarray, action_mask: np.ndarray | None, num_actions: int,
                   kind: str = "advice") -> np.ndarray:
    """``[B, A]`` float32: a one-hot of ``adviser``'s move in each row with a legal move (zeros elsewhere),
    the "advice" a policy feature set appends. The adviser is reseeded at 0 on every call, so the advice
    is a function of the inputs (ties broken the same way). ValueError without a mask of ``[B, A]``
    (``kind`` names the feature set in the message); a single row ``[A]`` is taken as ``[1, A]``."""
    obs = np.asarray(observation, np.float32)
    if action_mask is None:
        raise ValueError(f'features="{kind}" needs the legal-action mask: call features(observation, action_mask)')
    mask = np.asarray(action_mask, bool)
    if mask.ndim == 1:
        mask = mask[None]
    if mask.shape != (obs.shape[0], num_actions):
        raise ValueError(f"action_mask must be [{obs.shape[0]}, {num_actions}]; got {mask.shape}")
    out = np.zeros(mask.shape, np.float32)
    rows = np.flatnonzero(mask.any(axis=1))
    if rows.size:
        adviser.reseed(0)
        out[rows, adviser.act(obs[rows], mask[rows])] = 1.0
    return out
