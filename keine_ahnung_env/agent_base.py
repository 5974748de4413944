"""The batched agent interface every agent implements: ``act(observation [B, O], action_mask [B, A]) ->
int64 [B]``, a ``name`` and a seedable generator.

It lives in the env package, beside the engine, so that the games' own heuristic agents
(``games/<game>/agents.py``) implement it without importing the ``agents`` package above them;
``agents.base`` re-exports the interface. What the games' compiled heuristics share lives here too:
the checks of their line-ups (``play_turns`` / ``play_together``) and how their kernels split a batch.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

import numpy as np

from .sampling import sample_masked  # the one masked sampler, shared with the games' own agents

__all__ = ["Agent", "RandomAgent", "BatchedAgent", "advice_one_hot", "batched", "check_lineup", "lineup_arrays",
           "no_legal_action", "parallel_chunks", "raise_if_stuck", "sample_masked", "seats_held"]


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


# ---------------------------------------------------------------------- compiled line-ups
# The games' compiled heuristics play their seats inside the engine (``play_turns`` for one agent,
# ``play_together`` for a line-up); these checks are their shared contract.


def lineup_arrays(core: Any, games: Any, seat_agent: Any) -> tuple[np.ndarray, np.ndarray]:
    """``(games, seat_agent)`` of a line-up call: the games as a flat index array and ``seat_agent`` as
    given, checked to be integers of shape ``[games, P]`` (ValueError otherwise)."""
    games = np.ascontiguousarray(games, np.intp).reshape(-1)
    seat_agent = np.asarray(seat_agent)
    P = core.num_players
    if seat_agent.shape != (games.size, P) or seat_agent.dtype.kind not in "iu":
        raise ValueError(f"seat_agent must be integers of shape ({games.size}, {P}), one row of seats per listed "
                         f"game; got {seat_agent.dtype} {seat_agent.shape}")
    return games, seat_agent


def check_lineup(core: Any, games: np.ndarray, seat_agent: np.ndarray, count: int) -> None:
    """ValueError unless ``seat_agent`` holds -1 (not held) or an index into ``count`` agents, and
    ``games`` are distinct games of ``core``."""
    if seat_agent.size and (seat_agent.min() < -1 or seat_agent.max() >= count):
        raise ValueError(f"seat_agent holds -1 (not held) or an index into the {count} agents; "
                         f"got values {int(seat_agent.min())}..{int(seat_agent.max())}")
    # Distinct rows: callers pass ascending ones (np.flatnonzero), checked without a sort.
    distinct = games.size < 2 or bool((games[1:] > games[:-1]).all()) or np.unique(games).size == games.size
    if games.size and (games.min() < 0 or games.max() >= core.num_envs or not distinct):
        raise ValueError(f"games must be distinct indices in 0..{core.num_envs - 1}; got {games.tolist()}")


def seats_held(core: Any, games: Any, holds: Any) -> np.ndarray:
    """``play_turns``' ``holds`` ([n, P] bool: the seats one agent holds) as a line-up's ``seat_agent``
    (0 where held, -1 elsewhere); ValueError for another shape."""
    holds = np.ascontiguousarray(holds, np.bool_)
    size = np.asarray(games).size
    if holds.shape != (size, core.num_players):
        raise ValueError(f"holds must have shape ({size}, {core.num_players}), one row of seats per listed game; "
                         f"got {holds.shape}")
    return np.where(holds, 0, -1)


def no_legal_action(name: str, core: Any, game: int) -> RuntimeError:
    """The error of a line-up that meets a live game whose held seat has nothing legal."""
    return RuntimeError(f"{name}: game {game} is live but has no legal action for seat {int(core.current[game])}")


def raise_if_stuck(core: Any, games: np.ndarray, seat_agent: np.ndarray, agents: list, stuck: np.ndarray) -> None:
    """After a line-up's kernel: :func:`no_legal_action` for the first listed game it flagged in ``stuck``
    ([games] bool), naming the agent that holds the seat to act there; nothing where none is flagged."""
    if stuck.any():
        i = int(np.flatnonzero(stuck)[0])
        b = int(games[i])
        raise no_legal_action(agents[int(seat_agent[i, int(core.current[b])])].name, core, b)


def parallel_chunks(rows: int) -> int:
    """The ranges a heuristic's ``prange`` kernel splits ``rows`` rows (or games) into: four per Numba
    thread as they are set now (a few per thread even out rows of unequal work), at most one per row."""
    import numba

    return min(rows, 4 * numba.get_num_threads())
