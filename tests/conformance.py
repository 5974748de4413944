"""Shared reliability checks for every game of the project: it never breaks, never leaks, never lies.

This module is game-agnostic machinery, not a test file (pytest does not collect it). The core of a
game is a :class:`keine_ahnung_env.game_spec.BatchedCore`: that protocol is the one description of the
interface (attributes, methods, shapes and dtypes), and :func:`check_spec_core` checks a registered
game's core against it with the shapes of its ``GameSpec`` (``game_spec.check_core``), before and after
random legal steps; ``tests/test_game_door.py`` runs it for every registered game.

A game plugs into the deeper checks through a :class:`GameAdapter`: :class:`SpecAdapter` reads
everything it can from the game registry (spec, core, entry points), and a game's own subclass adds
its rules state and hidden-information variants (``tests/keine_ahnung_adapter.py`` is Keine Ahnung's,
``TinyAdapter`` in ``tests/test_game_door.py`` the test game's). A game's test module calls the checks
below with its adapter, typically under ``hypothesis``:

* **Invariants** (:func:`check_invariants`, :func:`run_program`): after every step the generic
  invariants hold (a legal action exists exactly for the live games, observations of every seat are
  finite and inside ``[0, high]``, rewards are finite and paid only by the step that ends a game),
  then the game's own (:meth:`GameAdapter.check_game_invariants`: cards and trophies conserved...).
  :func:`programs` draws action programs mixing random legal steps, resets of some games, partial
  ``active`` masks and bad input of every kind; bad input must raise ``ValueError`` and change
  nothing (:func:`assert_rejected`); finished games stay finished and untouched until reset.
* **Determinism**: :func:`check_same_seed`, :func:`check_batch_independence` (game i of a batch of
  B, stepped with partial ``active`` masks, equals game i dealt alone; on every engine path),
  :func:`check_autoreset_independence` (the vector env's results do not depend on ``autoreset``),
  :func:`check_copy_continues` (``copy.deepcopy`` and a ``pickle`` round trip made mid-game continue
  exactly as the original, and independently of it), with ready-made drivers for the core, the
  vector env, the AEC env, the solo env and the SB3 vector env (:data:`SURFACES`).
* **Hidden information**: :func:`check_hidden_information` - for each seat, states that differ only
  in what the seat may not know (:meth:`GameAdapter.hidden_variants`) give that seat the same
  observation, mask and string view, the same outputs of observation-only functions (a risk model)
  and the same actions of seeded agents; :meth:`GameAdapter.visible_variant` is the control that
  shows the comparison can fail.
* **Bad input** at every user-facing entry point: :func:`check_vector_env_bad_input`,
  :func:`check_aec_bad_input`, :func:`check_solo_bad_input`, :func:`check_sb3_bad_input` and
  :func:`check_constructors_reject`; each rejection must be a ``ValueError`` (or the documented
  error type) whose message names what was wrong and what is allowed, and the environment must go
  on working afterwards, unchanged.
"""

from __future__ import annotations

import contextlib
import copy
import pickle
import re
import signal
import threading
from typing import Any, Callable, Iterator, Sequence

import numpy as np
import pytest
from hypothesis import strategies as st

from keine_ahnung_env import registry
from keine_ahnung_env.game_spec import GameSpec, check_core
from keine_ahnung_env.sampling import sample_masked


class GameAdapter:
    """What the conformance checks need to know about one game beyond its
    :class:`~keine_ahnung_env.game_spec.BatchedCore` (the cores it makes follow that protocol); subclass
    it per game, or :class:`SpecAdapter` for a registered game.

    Every method without a default must be provided. ``variant`` is always a dict of keyword
    options including ``num_players``.
    """

    name: str = "game"
    num_actions: int = 0
    engine_paths: tuple[str, ...] = ("auto",)
    """Names of the core's execution paths (e.g. batched and scalar) that must agree bit for bit."""

    # ------------------------------------------------------------------ variants
    def variant_strategy(self) -> st.SearchStrategy:
        """A hypothesis strategy of variants (player counts, rules options, decks...)."""
        raise NotImplementedError

    def quick_variant(self, variant: dict) -> dict:
        """The same variant with games short enough to play several to the end in a test."""
        return variant

    # ------------------------------------------------------------------ construction
    def make_core(self, num_envs: int, variant: dict, seed: int | None, engine_path: str = "auto"):
        raise NotImplementedError

    def make_lone_game(self, variant: dict, seed: int, index: int, engine_path: str = "auto"):
        """A core of one game that plays game ``index`` of a batch seeded with ``seed``."""
        raise NotImplementedError

    def vector_env(self, num_envs: int, variant: dict, seed: int | None = None, autoreset: bool = True):
        raise NotImplementedError

    def raw_env(self, variant: dict, **kwargs):
        raise NotImplementedError

    def env(self, variant: dict, **kwargs):
        raise NotImplementedError

    def solo_env(self, variant: dict, opponents, **kwargs):
        raise NotImplementedError

    def sb3_vec_env(self, num_envs: int, variant: dict, opponents, **kwargs):
        raise NotImplementedError

    def random_agent(self, seed: int):
        raise NotImplementedError

    # ------------------------------------------------------------------ state
    def snapshot(self, core, b: int) -> Any:
        """Game ``b``'s complete rules state in a form compared with ``==``."""
        raise NotImplementedError

    def fingerprint(self, core, b: int) -> Any:
        """Everything about game ``b`` that a rejected input must leave unchanged: the snapshot, the
        legal mask, the rewards and the game's random generator state."""
        return (self.snapshot(core, b), core.legal_mask[b].tolist(), core.rewards[b].tolist())

    def check_game_invariants(self, core) -> None:
        """The game's own invariants over every game of the core (assertions)."""

    def check_final_rewards(self, core, ended: np.ndarray) -> None:
        """Checks the rewards of games that ended in the last step (default: finite)."""
        assert np.isfinite(core.rewards[ended]).all()

    def observation_high(self, core) -> np.ndarray:
        raise NotImplementedError

    def observation_string(self, core, observation: np.ndarray) -> str:
        raise NotImplementedError

    # ------------------------------------------------------------------ hidden information
    def hidden_variants(self, core, b: int, seat: int, rng: np.random.Generator) -> Iterator[Any]:
        """Deep copies of ``core`` in which game ``b`` differs only in what ``seat`` may not know."""
        raise NotImplementedError

    def visible_variant(self, core, b: int, seat: int, rng: np.random.Generator):
        """A copy in which game ``b`` differs in something ``seat`` sees (the control), or None."""
        return None

    # ------------------------------------------------------------------ bad input
    def bad_options(self) -> list[tuple[dict, str]]:
        """(options, message regex) pairs every entry point must refuse with ValueError."""
        return []


def public_snapshot(core, b: int) -> tuple:
    """What the protocol shows of game ``b``: every seat's observation, the seat to act, the legal mask,
    scores, turn and end flags (a game's adapter adds its hidden rules state)."""
    return (tuple(core.observe(seat, games=np.array([b]))[0].tobytes() for seat in range(core.num_players)),
            int(core.current[b]), np.asarray(core.legal_mask[b]).tolist(), np.asarray(core.scores[b]).tolist(),
            int(core.turn[b]), bool(core.terminated[b]), bool(core.truncated[b]))


class SpecAdapter(GameAdapter):
    """A :class:`GameAdapter` read from the game registry: the spec, the core, the entry points and a
    random agent of registered game ``name``. Variants are its player counts with default rules (so
    that a core alone tells its variant). The snapshot is :func:`public_snapshot`; a game's subclass
    adds its hidden state and :meth:`hidden_variants`."""

    def __init__(self, name: str):
        self.name = name
        self.entry = registry.game(name)
        self.num_actions = self.entry.spec().num_actions

    def spec(self, variant: dict) -> GameSpec:
        options = dict(variant)
        return registry.game_spec(self.name, options.pop("num_players", None), **options)

    def spec_of(self, core) -> GameSpec:
        return self.spec({"num_players": core.num_players})

    def variant_strategy(self) -> st.SearchStrategy:
        return st.fixed_dictionaries({"num_players": st.sampled_from(list(self.entry.players))})

    def make_core(self, num_envs, variant, seed, engine_path="auto"):
        if engine_path not in self.engine_paths:
            raise ValueError(f"engine_path={engine_path!r}; allowed: {self.engine_paths}")
        return self.spec(variant).make_core(num_envs, seed)

    def make_lone_game(self, variant, seed, index, engine_path="auto"):
        core = self.make_core(1, variant, seed, engine_path)
        core.seed(seed, [0], [index])  # the protocol's way to deal game `index` of a batch in row 0
        core.reset_games(np.array([0]))
        return core

    def _call(self, entry_point: str, variant: dict, *args, **kwargs):
        options = dict(variant)
        num_players = options.pop("num_players", self.entry.default_players)
        function = getattr(registry.entry_points(self.name), entry_point)
        return function(*args, num_players=num_players, **kwargs, **options)

    def vector_env(self, num_envs, variant, seed=None, autoreset=True):
        return self._call("vector_env", variant, num_envs, seed=seed, autoreset=autoreset)

    def raw_env(self, variant, **kwargs):
        return self._call("raw_env", variant, **kwargs)

    def env(self, variant, **kwargs):
        return self._call("env", variant, **kwargs)

    def solo_env(self, variant, opponents, **kwargs):
        return self._call("solo_env", variant, opponents, **kwargs)

    def sb3_vec_env(self, num_envs, variant, opponents, **kwargs):
        return self._call("sb3_vec_env", variant, num_envs, opponents, **kwargs)

    def random_agent(self, seed):
        from agents.base import RandomAgent

        return RandomAgent(seed)

    def snapshot(self, core, b):
        return public_snapshot(core, b)

    def observation_high(self, core):
        return self.spec_of(core).observation_high

    def observation_string(self, core, observation):
        return self.spec_of(core).observation_string(observation)


# ====================================================================== helpers


class EngineHang(AssertionError):
    """A call did not return within the watchdog's time (an endless loop in the engine)."""


@contextlib.contextmanager
def watchdog(seconds: float, what: str = "the engine"):
    """Raises :class:`EngineHang` if the block runs longer than ``seconds`` (main thread, POSIX only;
    elsewhere it does nothing). For endless loops only: set it far above any honest run time."""
    usable = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    if not usable:
        yield
        return

    def fire(signum, frame):
        raise EngineHang(f"{what} did not return within {seconds:g} s (an endless loop?)")

    previous = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def done_of(core) -> np.ndarray:
    return np.asarray(core.terminated) | np.asarray(core.truncated)


def seat_mask(core, b: int, seat: int) -> np.ndarray:
    """The legal actions ``seat`` sees in game ``b``: the core's mask if it is to act, else none."""
    if done_of(core)[b] or int(core.current[b]) != seat:
        return np.zeros(core.legal_mask.shape[1], bool)
    return np.asarray(core.legal_mask[b], bool).copy()


def _equal(a, b) -> bool:
    """Array equality that treats NaN as equal to NaN."""
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape or a.dtype.kind != b.dtype.kind:
        return False
    if a.dtype.kind == "f":
        return bool(np.array_equal(a, b, equal_nan=True))
    return bool(np.array_equal(a, b))


def assert_rejected(adapter: GameAdapter, core, call: Callable[[], Any], match: str | None = None,
                    error: type[BaseException] | tuple = ValueError, what: str = "") -> BaseException:
    """``call()`` must raise ``error`` (message matching ``match``) and leave every game of ``core``
    exactly as it was (rules state, masks, rewards, random generators)."""
    before = [adapter.fingerprint(core, b) for b in range(core.num_envs)]
    with pytest.raises(error, match=match) as info:
        call()
    after = [adapter.fingerprint(core, b) for b in range(core.num_envs)]
    changed = [b for b in range(core.num_envs) if before[b] != after[b]]
    assert not changed, f"rejected input {what!r} changed games {changed}"
    return info.value


def message_names_allowed(message: str) -> bool:
    """Whether an error message says what is allowed (the project's convention)."""
    return bool(re.search(r"allowed|legal|expected|must|needs|call reset", message, re.IGNORECASE))


# ====================================================================== the protocol


def check_spec_core(spec: GameSpec, num_envs: int = 5, seed: int = 0, steps: int = 60) -> dict:
    """The core ``spec.make_core`` builds satisfies :class:`~keine_ahnung_env.game_spec.BatchedCore`
    with the spec's shapes and dtypes (``check_core``) after the deal and after each of ``steps``
    random legal steps (finished games are dealt again): observations of every seat lie in
    ``[0, spec.observation_high]`` and ``observe(seats, games)`` gives the rows of ``observe(seats)``,
    a live game has a legal action and a finished one none, rewards come only with the end of a game,
    and ``spec.winners``/``win_shares`` read the finished games. Returns counts of what happened."""
    core = spec.make_core(num_envs, seed)
    rng = np.random.default_rng(seed)
    stats = {"steps": 0, "ended": 0}

    def check() -> None:
        check_core(core, spec)
        done = np.asarray(core.done)
        assert np.array_equal(done, np.asarray(core.terminated) | np.asarray(core.truncated)), "done != terminated | truncated"
        mask = np.asarray(core.legal_mask)
        assert (mask.any(axis=1) == ~done).all(), "a live game without a legal action, or a finished one with one"
        for seat in range(core.num_players):
            obs = core.observe(seat)
            assert np.isfinite(obs).all() and (obs >= 0).all() and (obs <= spec.observation_high).all(), \
                f"seat {seat}: an observation outside [0, observation_high]"
            rows = np.arange(core.num_envs)[::2]
            assert np.array_equal(core.observe(np.full(rows.size, seat), games=rows), obs[rows]), "observe(games=)"
        seats = np.asarray(core.current) % core.num_players
        assert np.array_equal(core.observe(seats), np.stack([core.observe(int(s))[b] for b, s in enumerate(seats)]))

    check()
    for _ in range(steps):
        if core.done.any():
            core.reset_games(np.flatnonzero(core.done))
            check()
        was_done = np.asarray(core.done).copy()
        core.step(sample_masked(rng, core.legal_mask))
        stats["steps"] += 1
        ended = np.flatnonzero(np.asarray(core.done) & ~was_done)
        going_on = np.flatnonzero(~np.asarray(core.done))
        assert not np.asarray(core.rewards)[going_on].any(), "a game that goes on was paid"
        if ended.size:
            stats["ended"] += ended.size
            shares = spec.win_shares(core)[ended]
            assert shares.shape == (ended.size, core.num_players)
            np.testing.assert_allclose(shares.sum(axis=1), 1.0)
        check()
    return stats


def check_belief_sampler(spec: GameSpec, num_envs: int = 6, seed: int = 0, steps: int = 120, every: int = 10,
                         count: int = 16) -> dict:
    """A game's :class:`~keine_ahnung_env.game_spec.BeliefHooks` (``spec.belief``) keeps its contract along
    random legal play: at every ``every``-th step, for each live game, the observation of the seat to act
    gives a core of ``count`` sampled states in each of which that seat is to act with exactly that
    observation and legal mask; the same generator seed gives the same samples (observations of every
    seat, masks, and the course of the same random steps after); ``event_probabilities`` gives named
    floats in [0, 1] or NaN; an observation of a finished game (no seat to act) and a garbled one raise
    ``ValueError``. Game-independent: any game whose spec has ``belief`` passes it. Returns counts."""
    belief = spec.belief
    assert belief is not None, f"{spec.name} has no belief hooks"
    core = spec.make_core(num_envs, seed)
    rng = np.random.default_rng(seed)
    stats = {"positions": 0, "samples": 0, "refused": 0}

    def fingerprint(samples) -> tuple:
        P = samples.num_players
        return tuple(samples.observe(p).tobytes() for p in range(P)) + (np.asarray(samples.legal_mask).tobytes(),)

    def compare_futures(a, b, moves: int = 6) -> None:
        play = np.random.default_rng(stats["positions"])
        for _ in range(moves):
            if np.asarray(a.done).all():
                break
            actions = sample_masked(play, np.asarray(a.legal_mask))
            a.step(actions)
            b.step(actions)
            assert fingerprint(a) == fingerprint(b), "the same seed gave samples whose futures differ"

    for step in range(steps + 1):
        if step % every == 0:
            for b in np.flatnonzero(~np.asarray(core.done)).tolist():
                seat = int(np.asarray(core.current)[b])
                obs = core.observe(seat, games=np.array([b]))[0]
                mask = np.asarray(core.legal_mask)[b]
                samples = belief.sample_states(obs, count, np.random.default_rng([seed, step, b]))
                assert samples.num_envs == count and samples.num_players == spec.num_players
                assert not np.asarray(samples.done).any(), "a sampled state is finished"
                seats = np.asarray(samples.current).astype(np.intp)
                assert np.array_equal(samples.observe(seats), np.broadcast_to(obs, (count, obs.size))), \
                    "a sampled state shows the seat another observation"
                assert np.array_equal(np.asarray(samples.legal_mask), np.broadcast_to(mask, (count, mask.size))), \
                    "a sampled state gives the seat another legal mask"
                again = belief.sample_states(obs, count, np.random.default_rng([seed, step, b]))
                assert fingerprint(samples) == fingerprint(again), "the same seed gave other samples"
                compare_futures(samples, again)
                events = belief.event_probabilities(obs)
                assert events and all(isinstance(k, str) for k in events)
                values = np.array([float(v) for v in events.values()])
                assert ((values >= 0) & (values <= 1) | np.isnan(values)).all(), "an event probability outside [0, 1]"
                stats["positions"] += 1
                stats["samples"] += count
        if core.done.any():
            for b in np.flatnonzero(core.done).tolist():
                finished = core.observe(0, games=np.array([b]))[0]
                with pytest.raises(ValueError):
                    belief.sample_states(finished, 2, rng)
                stats["refused"] += 1
            core.reset_games(np.flatnonzero(core.done))
        if step < steps:
            core.step(sample_masked(rng, core.legal_mask))
    obs = core.observe(int(np.asarray(core.current)[0]), games=np.array([0]))[0]
    for garbled in (np.full_like(obs, 0.5), np.full_like(obs, 3.0), obs[:-1]):
        with pytest.raises(ValueError):
            belief.sample_states(garbled, 2, rng)
        with pytest.raises(ValueError):
            belief.event_probabilities(garbled)
        stats["refused"] += 1
    with pytest.raises(ValueError):
        belief.sample_states(obs, 0, rng)
    return stats


# ====================================================================== invariants


def check_invariants(adapter: GameAdapter, core) -> None:
    """The generic invariants, then the game's own, over every game of ``core``."""
    B, P, A = core.num_envs, core.num_players, adapter.num_actions
    done = done_of(core)
    mask = np.asarray(core.legal_mask)
    assert mask.shape == (B, A) and mask.dtype == bool, f"legal_mask has shape {mask.shape}, dtype {mask.dtype}"
    live_without = np.flatnonzero(~done & ~mask.any(axis=1))
    assert live_without.size == 0, f"games {live_without.tolist()} are live but their seat to act has no legal action"
    over_with = np.flatnonzero(done & mask.any(axis=1))
    assert over_with.size == 0, f"games {over_with.tolist()} are over but still have legal actions"
    current = np.asarray(core.current)
    assert ((current[~done] >= 0) & (current[~done] < P)).all(), "the seat to act is out of range"
    assert np.isfinite(core.rewards).all(), "non-finite rewards"
    high = adapter.observation_high(core)
    for seat in range(P):
        obs = core.observe(seat)
        assert obs.shape == (B, high.shape[0]) and obs.dtype == np.float32, f"observation {obs.shape} {obs.dtype}"
        assert np.isfinite(obs).all(), f"seat {seat}: NaN or inf in an observation"
        below, above = obs < 0, obs > high
        if below.any() or above.any():
            b, i = np.argwhere(below | above)[0]
            raise AssertionError(f"seat {seat}, game {b}: observation[{i}] = {obs[b, i]} outside [0, {high[i]}]")
    adapter.check_game_invariants(core)


def step_checked(adapter: GameAdapter, core, actions: np.ndarray, active: np.ndarray | None = None) -> np.ndarray:
    """Steps ``core`` and checks what a step promises; returns the games that ended in this step.

    Finished games (and games not ``active``) stay untouched, with rewards 0; games that go on are
    paid nothing; games that end are checked by ``adapter.check_final_rewards``; then every invariant.
    """
    B = core.num_envs
    done_before = done_of(core)
    idle = done_before | (np.zeros(B, bool) if active is None else ~np.asarray(active, bool))
    frozen = {b: adapter.snapshot(core, b) for b in np.flatnonzero(idle).tolist()}
    core.step(actions, active=active)
    done = done_of(core)
    assert not (done_before & ~done).any(), "a finished game came back to life without a reset"
    for b, snap in frozen.items():
        assert adapter.snapshot(core, b) == snap, f"game {b} was finished or inactive but changed"
        assert not np.asarray(core.rewards[b]).any(), f"game {b} was finished or inactive but was paid"
    ended = np.flatnonzero(done & ~done_before)
    going_on = np.flatnonzero(~done)
    assert not np.asarray(core.rewards)[going_on].any(), "a game that did not end was paid a reward"
    if ended.size:
        adapter.check_final_rewards(core, ended)
    check_invariants(adapter, core)
    return ended


# ====================================================================== bad step input


BAD_STEP_KINDS = ("out_of_range_high", "out_of_range_low", "huge", "illegal", "float", "bool", "text",
                  "too_short", "too_long", "two_d", "scalar", "active_shape")


def bad_step(adapter: GameAdapter, core, kind: str, rng: np.random.Generator):
    """(actions, active, message regex) for one kind of bad ``core.step`` input, or None when the
    state offers no such input (e.g. no illegal action exists)."""
    B, A = core.num_envs, adapter.num_actions
    good = sample_masked(rng, core.legal_mask)
    live = np.flatnonzero(~done_of(core))
    if kind in ("out_of_range_high", "out_of_range_low", "huge", "illegal"):
        if live.size == 0:
            return None
        b = int(rng.choice(live))
        actions = good.copy()
        if kind == "out_of_range_high":
            actions[b] = A + int(rng.integers(0, 1000))
            return actions, None, r"out of range|outside"
        if kind == "out_of_range_low":
            actions[b] = -1 - int(rng.integers(0, 1000))
            return actions, None, r"out of range|outside"
        if kind == "huge":
            actions[b] = np.iinfo(np.int64).max
            return actions, None, r"out of range|outside"
        illegal = np.flatnonzero(~np.asarray(core.legal_mask[b]))
        if illegal.size == 0:
            return None
        actions[b] = int(rng.choice(illegal))
        return actions, None, r"illegal action .*legal"
    if kind == "float":
        return good.astype(np.float64) + 0.5, None, r"integer"
    if kind == "bool":
        return good > 0, None, r"integer"
    if kind == "text":
        return np.array([str(a) for a in good]), None, r"integer"
    if kind == "too_short":
        return good[:-1], None, r"shape"
    if kind == "too_long":
        return np.append(good, 0), None, r"shape"
    if kind == "two_d":
        return good[:, None], None, r"shape"
    if kind == "scalar":
        return np.int64(good[0]), None, r"shape"
    if kind == "active_shape":
        return good, np.ones(B + 1, bool), r"active"
    raise ValueError(f"unknown bad-step kind {kind!r}; allowed: {BAD_STEP_KINDS}")


# ====================================================================== programs


OPS = ("steps", "steps", "steps", "partial", "reset", "bad", "bad")


def programs(max_ops: int = 12) -> st.SearchStrategy:
    """Action programs: lists of (op, seed) with op in :data:`OPS` ("steps": 1-40 random legal
    steps; "partial": one step with a random ``active`` subset; "reset": deal new games in a random
    subset; "bad": one bad input of a random kind, which must be rejected and change nothing)."""
    return st.lists(st.tuples(st.sampled_from(OPS), st.integers(0, 2 ** 32 - 1)), min_size=1, max_size=max_ops)


def run_program(adapter: GameAdapter, core, program: Sequence[tuple[str, int]], max_steps: int = 400) -> dict:
    """Runs ``program`` on ``core`` with every check of a step; returns counts of what happened."""
    check_invariants(adapter, core)
    stats = {"steps": 0, "rejected": 0, "ended": 0, "resets": 0}
    for op, op_seed in program:
        rng = np.random.default_rng(op_seed)
        if done_of(core).all():
            # Stepping when every game is over is an error that changes nothing; then deal again.
            assert_rejected(adapter, core, lambda: core.step(sample_masked(rng, core.legal_mask)),
                            match=r"over", what="a step after every game ended")
            core.reset_games(np.arange(core.num_envs))
            stats["resets"] += core.num_envs
            check_invariants(adapter, core)
            continue
        if op == "steps":
            for _ in range(1 + op_seed % 40):
                if stats["steps"] >= max_steps or done_of(core).all():
                    break
                stats["ended"] += step_checked(adapter, core, sample_masked(rng, core.legal_mask)).size
                stats["steps"] += 1
        elif op == "partial":
            active = rng.random(core.num_envs) < 0.5
            stats["ended"] += step_checked(adapter, core, sample_masked(rng, core.legal_mask), active=active).size
            stats["steps"] += 1
        elif op == "reset":
            games = np.flatnonzero(rng.random(core.num_envs) < 0.5)
            core.reset_games(games)
            stats["resets"] += games.size
            check_invariants(adapter, core)
        elif op == "bad":
            kind = BAD_STEP_KINDS[op_seed % len(BAD_STEP_KINDS)]
            bad = bad_step(adapter, core, kind, rng)
            if bad is not None:
                actions, active, match = bad
                error = assert_rejected(adapter, core, lambda: core.step(actions, active=active), match=match,
                                        what=kind)
                assert message_names_allowed(str(error)), f"{kind}: the message does not say what is allowed: {error}"
                stats["rejected"] += 1
            check_invariants(adapter, core)
        else:
            raise ValueError(f"unknown op {op!r}; allowed: {sorted(set(OPS))}")
    return stats


# ====================================================================== determinism


def core_fingerprint(adapter: GameAdapter, core) -> tuple:
    """Every game's fingerprint plus every seat's observation bytes."""
    return (tuple(adapter.fingerprint(core, b) for b in range(core.num_envs)),
            tuple(core.observe(seat).tobytes() for seat in range(core.num_players)))


def check_same_seed(adapter: GameAdapter, variant: dict, seed: int, num_envs: int = 4, steps: int = 200,
                    policy_seed: int = 0) -> None:
    """Two cores with the same seed, given the same actions, stay identical step after step."""
    a = adapter.make_core(num_envs, variant, seed)
    b = adapter.make_core(num_envs, variant, seed)
    rng = np.random.default_rng(policy_seed)
    for step in range(steps):
        assert core_fingerprint(adapter, a) == core_fingerprint(adapter, b), f"same seed, different games at step {step}"
        if done_of(a).all():
            a.reset_games(np.arange(num_envs))
            b.reset_games(np.arange(num_envs))
            continue
        actions = sample_masked(rng, a.legal_mask)
        a.step(actions)
        b.step(actions)
    assert core_fingerprint(adapter, a) == core_fingerprint(adapter, b)


def check_batch_independence(adapter: GameAdapter, variant: dict, seed: int, num_envs: int = 9, steps: int = 150,
                             policy_seed: int = 0, engine_path: str = "auto", p_active: float = 0.7) -> dict:
    """Game i of a batch equals game i dealt alone, whatever the other games do.

    The batch is stepped with random ``active`` masks (a game sits out some steps), each game's
    actions come from its own generator, and a game that ends is dealt again in both. After every
    step every game's snapshot, every seat's observation and the rewards are compared.
    """
    batch = adapter.make_core(num_envs, variant, seed, engine_path=engine_path)
    lone = [adapter.make_lone_game(variant, seed, i) for i in range(num_envs)]
    policies = [np.random.default_rng([policy_seed, i]) for i in range(num_envs)]
    rng = np.random.default_rng([policy_seed, 10 ** 6])
    stats = {"steps": 0, "ended": 0}

    def compare(i: int, where: str) -> None:
        assert adapter.snapshot(batch, i) == adapter.snapshot(lone[i], 0), f"game {i} differs from its lone run {where}"
        for seat in range(batch.num_players):
            assert _equal(batch.observe(seat)[i], lone[i].observe(seat)[0]), f"game {i} seat {seat}: observations differ {where}"

    for i in range(num_envs):
        compare(i, "after the deal")
    for step in range(steps):
        done = done_of(batch)
        if done.all():
            break
        active = (rng.random(num_envs) < p_active) & ~done
        if not active.any():
            active = ~done
        actions = np.zeros(num_envs, np.int64)
        for i in np.flatnonzero(active).tolist():
            actions[i] = sample_masked(policies[i], batch.legal_mask[i : i + 1])[0]
        batch.step(actions, active=active)
        stats["steps"] += 1
        for i in np.flatnonzero(active).tolist():
            lone[i].step(actions[i : i + 1])
            assert batch.rewards[i].tolist() == lone[i].rewards[0].tolist(), f"game {i}: rewards differ at step {step}"
            compare(i, f"after step {step}")
            if done_of(batch)[i]:
                stats["ended"] += 1
                batch.reset_games(np.array([i]))
                lone[i].reset_games(np.array([0]))
                compare(i, f"after the new deal at step {step}")
    return stats


def check_autoreset_independence(adapter: GameAdapter, variant: dict, seed: int, num_envs: int = 4,
                                 episodes: int = 2, policy_seed: int = 0, max_steps: int = 20000) -> None:
    """The vector env's games, observations, rewards and final results are the same with and without
    ``autoreset`` (with ``autoreset=False`` every slot waits for the others and ``reset()`` deals)."""

    def play(autoreset: bool) -> list[list[list]]:
        env = adapter.vector_env(num_envs, variant, seed=seed, autoreset=autoreset)
        logs: list[list[list]] = [[[] for _ in range(episodes)] for _ in range(num_envs)]
        episode = np.zeros(num_envs, np.int64)
        policies = [np.random.default_rng([policy_seed, i, 0]) for i in range(num_envs)]
        result = env.reset()
        for _ in range(max_steps):
            if (episode >= episodes).all():
                break
            done = result.terminated | result.truncated
            if not autoreset and done.all():
                result = env.reset()
                done = np.zeros(num_envs, bool)
            live = ~done if not autoreset else np.ones(num_envs, bool)
            obs = result.observation
            actions = np.zeros(num_envs, np.int64)
            for i in np.flatnonzero(live).tolist():
                actions[i] = sample_masked(policies[i], result.action_mask[i : i + 1])[0]
                if episode[i] < episodes:
                    logs[i][episode[i]].append(("decision", int(result.current_player[i]), obs[i].tobytes(),
                                                result.action_mask[i].tobytes(), int(actions[i])))
            result = env.step(actions)
            for row, i in enumerate(result.final_index.tolist()):
                if episode[i] < episodes:
                    logs[i][episode[i]].append((
                        "end", result.rewards[i].tolist(), bool(result.terminated[i]), bool(result.truncated[i]),
                        np.asarray(result.scores[i]).tolist(), result.final_observation[row].tobytes()))
                episode[i] += 1
                policies[i] = np.random.default_rng([policy_seed, i, int(episode[i])])
        assert (episode >= episodes).all(), f"not every slot finished {episodes} episodes in {max_steps} steps"
        return logs

    with_reset, without = play(True), play(False)
    for i in range(num_envs):
        for k in range(episodes):
            assert with_reset[i][k] == without[i][k], f"slot {i}, episode {k}: autoreset changed the game"


def check_copy_continues(obj: Any, advance: Callable[[Any, np.random.Generator], None],
                         fingerprint: Callable[[Any], Any], steps: int = 30, seed: int = 0, what: str = "") -> None:
    """A ``copy.deepcopy`` and a ``pickle`` round trip of ``obj`` (mid-game) equal it, continue exactly
    as it does under the same inputs, and stepping them leaves ``obj`` untouched."""
    def trace_of(target) -> list:
        rng = np.random.default_rng(seed)
        trace = []
        for _ in range(steps):
            advance(target, rng)
            trace.append(fingerprint(target))
        return trace

    start = fingerprint(obj)
    copies = {"deepcopy": copy.deepcopy(obj), "pickle": pickle.loads(pickle.dumps(obj))}
    traces = {}
    for name, other in copies.items():
        assert fingerprint(other) == start, f"{what}: a {name} copy differs from the original"
        traces[name] = trace_of(other)
        assert fingerprint(obj) == start, f"{what}: stepping the {name} copy changed the original"
    trace = trace_of(obj)
    for name, other_trace in traces.items():
        for k, (x, y) in enumerate(zip(trace, other_trace)):
            assert x == y, f"{what}: the {name} copy diverged from the original {k + 1} steps after the copy"


# ---------------------------------------------------------------------- drivers per surface


def advance_core(core, rng: np.random.Generator) -> None:
    if done_of(core).all():
        core.reset_games(np.arange(core.num_envs))
    else:
        core.step(sample_masked(rng, core.legal_mask))


def advance_vector_env(env, rng: np.random.Generator) -> None:
    if done_of(env.core).all():
        env.reset()
    else:
        env.step(sample_masked(rng, env.core.legal_mask))


def advance_aec(env, rng: np.random.Generator) -> None:
    if not env.agents:
        env.reset()
        return
    agent = env.agent_selection
    if env.terminations[agent] or env.truncations[agent]:
        env.step(None)
    else:
        mask = env.observe(agent)["action_mask"]
        env.step(int(sample_masked(rng, mask[None].astype(bool))[0]))


def fingerprint_aec(env) -> tuple:
    base = env.unwrapped
    return (base.agent_selection, tuple(base.agents), sorted(base.rewards.items()),
            sorted(base._cumulative_rewards.items()), sorted(base.terminations.items()),
            sorted(base.truncations.items()), repr(sorted(base.infos.items())),
            tuple(base.observe(a)["observation"].tobytes() + base.observe(a)["action_mask"].tobytes()
                  for a in base.possible_agents),
            tuple(core_snapshot(base.core, b) for b in range(base.core.num_envs)))


def advance_solo(env, rng: np.random.Generator) -> None:
    if env.action_masks().any():
        env.step(int(sample_masked(rng, env.action_masks()[None])[0]))
    else:
        env.reset()


def core_snapshot(core, b: int) -> Any:
    """The core's own ``snapshot(b)`` where it has one (its whole rules state), else :func:`public_snapshot`."""
    return core.snapshot(b) if hasattr(core, "snapshot") else public_snapshot(core, b)


def fingerprint_solo(env) -> tuple:
    games = env.games if hasattr(env, "games") else env.unwrapped.games
    return (games.core.observe(games.learner_seat).tobytes(), games.learner_seat.tolist(),
            games.core.legal_mask.tobytes(), games.returns.tolist(), games.lengths.tolist(),
            tuple(core_snapshot(games.core, b) for b in range(games.core.num_envs)))


def advance_sb3(venv, rng: np.random.Generator) -> None:
    obs, rewards, dones, infos = venv.step(sample_masked(rng, venv.action_masks()))
    venv._last_fingerprint = (obs.tobytes(), rewards.tolist(), dones.tolist(), repr([
        {k: (v if k != "episode" else {kk: vv for kk, vv in v.items() if kk != "t"}) for k, v in info.items()}
        for info in infos]))


def fingerprint_sb3(venv) -> tuple:
    return (getattr(venv, "_last_fingerprint", None), fingerprint_solo(venv))


SURFACES = {
    "core": (advance_core, None),
    "vector_env": (advance_vector_env, None),
    "aec": (advance_aec, fingerprint_aec),
    "solo": (advance_solo, fingerprint_solo),
    "sb3": (advance_sb3, fingerprint_sb3),
}
"""(advance, fingerprint) per surface for :func:`check_copy_continues`; the core's and the vector
env's fingerprints need the adapter (:func:`core_fingerprint`)."""


def check_every_surface_copies(adapter: GameAdapter, variant: dict, seed: int, warmup: int = 20, steps: int = 25) -> None:
    """:func:`check_copy_continues` on the core, the vector env, the raw and wrapped AEC envs, the
    solo env and the SB3 vector env, each copied after ``warmup`` random steps."""
    P = variant["num_players"]
    rng = np.random.default_rng(seed)
    core = adapter.make_core(3, variant, seed)
    venv = adapter.vector_env(3, variant, seed=seed)
    venv.reset()
    raw = adapter.raw_env(variant)
    raw.reset(seed=seed)
    wrapped = adapter.env(variant)
    wrapped.reset(seed=seed)
    solo = adapter.solo_env(variant, [adapter.random_agent(seed + j) for j in range(P - 1)], seat=None)
    solo.reset(seed=seed)
    sb3 = adapter.sb3_vec_env(3, variant, [adapter.random_agent(seed + j) for j in range(P - 1)], seed=seed)
    sb3.reset()
    cases = [
        ("core", core, advance_core, lambda c: core_fingerprint(adapter, c)),
        ("vector_env", venv, advance_vector_env, lambda e: core_fingerprint(adapter, e.core)),
        ("raw AEC env", raw, advance_aec, fingerprint_aec),
        ("wrapped AEC env", wrapped, advance_aec, fingerprint_aec),
        ("solo env", solo, advance_solo, fingerprint_solo),
        ("sb3 vec env", sb3, advance_sb3, fingerprint_sb3),
    ]
    for what, obj, advance, fingerprint in cases:
        for _ in range(warmup):
            advance(obj, rng)
        check_copy_continues(obj, advance, fingerprint, steps=steps, seed=seed, what=what)


# ====================================================================== hidden information


def check_hidden_information(adapter: GameAdapter, core, rng: np.random.Generator,
                             observation_functions: Sequence[tuple[str, Callable[[np.ndarray], Any]]] = (),
                             agent_factories: Sequence[tuple[str, Callable[[], Any]]] = (),
                             games: Sequence[int] | None = None) -> dict:
    """For every game and seat: every hidden variant gives the seat the same view.

    Compared: the observation, the legal mask the seat sees, the string view, each observation
    function's output (``fn(observation [1, O])``, e.g. a risk model) and, when the seat is to act,
    the action of each agent built fresh by its factory (so with the same seed) for both states.
    The hidden variants must themselves be valid states (the invariants are checked on them).
    Returns counts, including how many visible-variant controls did change the view.
    """
    stats = {"variants": 0, "controls": 0, "controls_changed": 0}
    games = range(core.num_envs) if games is None else games
    for b in games:
        for seat in range(core.num_players):
            obs = core.observe(seat)[b]
            mask = seat_mask(core, b, seat)
            text = adapter.observation_string(core, obs)
            outputs = [fn(obs[None]) for _, fn in observation_functions]
            acting = mask.any()
            actions = [make().act(obs[None], mask[None]) for _, make in agent_factories] if acting else []
            for other in adapter.hidden_variants(core, b, seat, rng):
                stats["variants"] += 1
                adapter.check_game_invariants(other)
                o2 = other.observe(seat)[b]
                if not _equal(obs, o2):
                    diff = np.flatnonzero(obs != o2)
                    raise AssertionError(f"game {b}, seat {seat}: hidden information changed observation entries "
                                         f"{diff.tolist()[:10]} ({obs[diff][:5]} -> {o2[diff][:5]})")
                assert _equal(mask, seat_mask(other, b, seat)), f"game {b}, seat {seat}: hidden information changed the mask"
                assert adapter.observation_string(other, o2) == text, f"game {b}, seat {seat}: string view changed"
                for (name, fn), out in zip(observation_functions, outputs):
                    assert _equal(fn(o2[None]), out), f"game {b}, seat {seat}: {name} changed with hidden information"
                for (name, make), act in zip(agent_factories, actions):
                    assert _equal(make().act(o2[None], mask[None]), act), \
                        f"game {b}, seat {seat}: agent {name} acted differently on hidden information"
            control = adapter.visible_variant(core, b, seat, rng)
            if control is not None:
                stats["controls"] += 1
                stats["controls_changed"] += int(not _equal(obs, control.observe(seat)[b]))
    return stats


# ====================================================================== bad input, surface by surface


def check_vector_env_bad_input(adapter: GameAdapter, variant: dict, seed: int = 0) -> None:
    """Bad actions, seeds and seats are ValueErrors that change nothing; after every game ended
    (``autoreset=False``) a step is an error, ``reset()`` deals again."""
    env = adapter.vector_env(5, variant, seed=seed, autoreset=False)
    result = env.reset()
    core = env.core
    rng = np.random.default_rng(seed)
    for kind in BAD_STEP_KINDS:
        bad = bad_step(adapter, core, kind, rng)
        if bad is None or bad[1] is not None:
            continue
        actions, _, match = bad
        error = assert_rejected(adapter, core, lambda: env.step(actions), match=match, what=kind)
        assert message_names_allowed(str(error)), f"{kind}: {error}"
    for seat, match in ((env.num_players, "seat"), (-1, "seat"), (1.5, "seat"), ("0", "seat"), (True, "seat"),
                        ([0] * (env.num_envs + 1), "seat")):
        assert_rejected(adapter, core, lambda: env.observe(seat), match=match, what=f"observe({seat!r})")
    for bad_seed in (-1, 1.5, "7", True):
        assert_rejected(adapter, core, lambda: env.reset(seed=bad_seed), match=r"seed=.*allowed",
                        what=f"reset(seed={bad_seed!r})")
    # A rejected seed does not use up the constructor's seed: the first reset() still deals its games.
    fresh, reference = (adapter.vector_env(5, variant, seed=seed + 1, autoreset=False) for _ in range(2))
    for bad_seed in (-1, "7"):
        with pytest.raises(ValueError, match=r"seed=.*allowed"):
            fresh.reset(seed=bad_seed)
    fresh.reset()
    reference.reset()
    assert [adapter.snapshot(fresh.core, b) for b in range(5)] == [adapter.snapshot(reference.core, b) for b in range(5)]
    # The env still works: play to the end; then stepping is an error and reset() deals again.
    for _ in range(100000):
        if (result.terminated | result.truncated).all():
            break
        result = env.step(sample_masked(rng, result.action_mask))
    assert (result.terminated | result.truncated).all()
    assert_rejected(adapter, core, lambda: env.step(np.zeros(env.num_envs, np.int64)), match=r"over.*reset",
                    what="a step after every game ended")
    result = env.reset()
    assert result.action_mask.any(axis=1).any()
    if not (result.terminated | result.truncated).all():
        env.step(sample_masked(rng, result.action_mask))


def check_constructors_reject(adapter: GameAdapter, variant: dict) -> None:
    """Bad num_envs, seeds, autoreset, rules options and decks are ValueErrors at every entry point."""
    P = variant["num_players"]
    opponents = [adapter.random_agent(j) for j in range(P - 1)]
    for bad in (0, -1, 2.5, True, "4", None):
        with pytest.raises(ValueError, match=r"num_envs=.*allowed"):
            adapter.vector_env(bad, variant)
        with pytest.raises(ValueError, match=r"num_envs=.*allowed"):
            adapter.sb3_vec_env(bad, variant, opponents)
    for bad in (-1, 1.5, "3", True):
        with pytest.raises(ValueError, match=r"seed=.*allowed"):
            adapter.vector_env(2, variant, seed=bad)
        with pytest.raises(ValueError, match=r"seed=.*allowed"):
            adapter.sb3_vec_env(2, variant, opponents, seed=bad)
    with pytest.raises(ValueError, match=r"autoreset=.*allowed"):
        adapter.vector_env(2, variant, autoreset="yes")
    for options, match in adapter.bad_options():
        merged = {**variant, **options}
        with pytest.raises(ValueError, match=match):
            adapter.vector_env(2, merged)
        with pytest.raises(ValueError, match=match):
            adapter.raw_env(merged)
        with pytest.raises(ValueError, match=match):
            adapter.env(merged)
        n = merged.get("num_players", P)
        count = n - 1 if isinstance(n, int) and not isinstance(n, bool) and 2 <= n <= 5 else P - 1
        with pytest.raises(ValueError, match=match):
            adapter.solo_env(merged, [adapter.random_agent(j) for j in range(count)])
        with pytest.raises(ValueError, match=match):
            adapter.sb3_vec_env(2, merged, [adapter.random_agent(j) for j in range(count)])


def check_aec_bad_input(adapter: GameAdapter, variant: dict, seed: int = 0) -> None:
    """raw_env: an illegal, out-of-range or non-integer action is a ValueError naming the legal ones
    and changes nothing; a dead agent may only step None; stepping after the end is an error; an
    unknown agent or render mode is refused. env(): an illegal action ends the game with a penalty
    for the mover, an action outside the space fails PettingZoo's assertion."""
    raw = adapter.raw_env(variant)
    raw.reset(seed=seed)
    core = raw.core
    rng = np.random.default_rng(seed)
    agent = raw.agent_selection
    mask = raw.observe(agent)["action_mask"].astype(bool)
    illegal = np.flatnonzero(~mask)
    bad_actions = [(adapter.num_actions, r"illegal action .*legal: "), (-1, r"illegal action .*legal: "),
                   (1.5, r"integer action id is expected; legal: "), ("3", r"integer action id is expected"),
                   (None, r"integer action id is expected"), (True, r"integer action id is expected"),
                   (np.array([0, 1]), r"integer action id is expected")]
    if illegal.size:
        bad_actions.insert(0, (int(illegal[0]), r"illegal action .*legal: "))
    for action, match in bad_actions:
        before = fingerprint_aec(raw)
        assert_rejected(adapter, core, lambda: raw.step(action), match=match, what=f"AEC step({action!r})")
        assert fingerprint_aec(raw) == before, f"AEC step({action!r}) was rejected but changed the env"
    with pytest.raises(ValueError, match=r"unknown agent .*allowed"):
        raw.observe("player_99")
    for bad_seed in (-1, 1.5, "3"):
        before = fingerprint_aec(raw)
        assert_rejected(adapter, core, lambda: raw.reset(seed=bad_seed), match=r"seed=.*allowed",
                        what=f"AEC reset(seed={bad_seed!r})")
        assert fingerprint_aec(raw) == before
    # Play to the end; a dead agent may only pass None; after the end stepping is an error.
    for _ in range(100000):
        if not raw.agents:
            break
        agent = raw.agent_selection
        if raw.terminations[agent] or raw.truncations[agent]:
            before = fingerprint_aec(raw)
            with pytest.raises(ValueError, match="None"):
                raw.step(0)
            assert fingerprint_aec(raw) == before
            raw.step(None)
        else:
            raw.step(int(sample_masked(rng, raw.observe(agent)["action_mask"][None].astype(bool))[0]))
    assert not raw.agents
    with pytest.raises(ValueError, match=r"over.*reset"):
        raw.step(0)
    raw.reset(seed=seed)
    assert raw.agents and raw.observe(raw.agent_selection)["action_mask"].any()
    for bad in ("rgb", "ANSI", 1):
        with pytest.raises(ValueError, match=r"render_mode=.*allowed"):
            adapter.raw_env(variant, render_mode=bad)
        with pytest.raises(ValueError, match=r"render_mode=.*allowed"):
            adapter.env(variant, render_mode=bad)
    for name in ("render_reveal_all", "normalize_obs"):
        with pytest.raises(ValueError, match=rf"{name}=.*allowed"):
            adapter.raw_env(variant, **{name: "yes"})
    # The wrapped env: an illegal move ends the game with a penalty for the mover only.
    env = adapter.env(variant)
    env.reset(seed=seed)
    mover = env.agent_selection
    mask = env.observe(mover)["action_mask"].astype(bool)
    if (~mask).any():
        env.step(int(np.flatnonzero(~mask)[0]))
        assert all(env.terminations.values()), "an illegal move under env() must end the game"
        assert env._cumulative_rewards[mover] < 0
        assert all(env._cumulative_rewards[a] == 0 for a in env.agents if a != mover)
    env.reset(seed=seed)
    for action in (adapter.num_actions, -1, 1.5):
        with pytest.raises(AssertionError):
            env.step(action)
    env.reset(seed=seed)
    agent = env.agent_selection
    env.step(int(np.flatnonzero(env.observe(agent)["action_mask"])[0]))  # still works


def check_solo_bad_input(adapter: GameAdapter, variant: dict, seed: int = 0) -> None:
    """solo_env: wrong opponent counts, seats, illegal_reward and seeds are ValueErrors; actions out
    of range or of another type are ValueErrors that change nothing; stepping before reset or after
    the end is a RuntimeError."""
    P = variant["num_players"]
    opponents = [adapter.random_agent(seed + j) for j in range(P - 1)]
    for count in (0, P - 2, P, P + 3):
        if count == P - 1 or count < 0:
            continue
        with pytest.raises(ValueError, match=rf"{count} opponents given for num_players={P}; expected exactly {P - 1}"):
            adapter.solo_env(variant, [adapter.random_agent(j) for j in range(count)])
    for seat in (P, -1, 1.5, True, "left"):
        with pytest.raises(ValueError, match=r"seat=.*allowed"):
            adapter.solo_env(variant, opponents, seat=seat)
    with pytest.raises(ValueError, match=r"illegal_reward=.*allowed"):
        adapter.solo_env(variant, opponents, illegal_reward="x")
    with pytest.raises(ValueError, match=r"no act\(|expected a list"):
        adapter.solo_env(variant, [object()] * (P - 1))
    env = adapter.solo_env(variant, opponents, illegal_reward=None)
    with pytest.raises(RuntimeError, match=r"reset\(\)"):
        env.step(0)
    for bad in (-1, 1.5, "3", True):
        with pytest.raises(ValueError, match=r"seed=.*allowed"):
            env.reset(seed=bad)
    env.reset(seed=seed)
    core = env.games.core
    mask = env.action_masks()
    bad_actions = [(adapter.num_actions, r"outside the action space; allowed"), (-1, r"outside the action space"),
                   (1.5, r"integer action id"), ("0", r"integer action id"), (None, r"integer action id"),
                   (True, r"integer action id"), (np.array([0, 1]), r"integer action id")]
    if (~mask).any():
        bad_actions.append((int(np.flatnonzero(~mask)[0]), r"illegal action .*legal there"))
    for action, match in bad_actions:
        before = fingerprint_solo(env)
        assert_rejected(adapter, core, lambda: env.step(action), match=match, what=f"solo step({action!r})")
        assert fingerprint_solo(env) == before
    rng = np.random.default_rng(seed)
    for _ in range(100000):
        obs, reward, terminated, truncated, info = env.step(int(sample_masked(rng, env.action_masks()[None])[0]))
        assert env.observation_space.contains(obs) and np.isfinite(reward)
        if terminated or truncated:
            break
    assert terminated or truncated
    with pytest.raises(RuntimeError, match=r"reset\(\)"):
        env.step(0)
    env.reset()
    assert env.action_masks().any()


def check_sb3_bad_input(adapter: GameAdapter, variant: dict, seed: int = 0) -> None:
    """sb3_vec_env: bad num_envs, seats and seeds are ValueErrors; actions of the wrong shape, type or
    range are ValueErrors that change nothing; stepping before reset is a RuntimeError."""
    P = variant["num_players"]
    opponents = [adapter.random_agent(seed + j) for j in range(P - 1)]
    with pytest.raises(ValueError, match=rf"opponents given for num_players={P}"):
        adapter.sb3_vec_env(3, variant, opponents + [adapter.random_agent(99)])
    with pytest.raises(ValueError, match=r"seat=.*allowed"):
        adapter.sb3_vec_env(3, variant, opponents, seat=P)
    venv = adapter.sb3_vec_env(4, variant, opponents, seed=seed)
    with pytest.raises(RuntimeError, match=r"reset\(\)"):
        venv.step(np.zeros(4, np.int64))
    for bad in (-1, 1.5, "3", True):
        with pytest.raises(ValueError, match=r"seed=.*allowed"):
            venv.seed(bad)
    venv.reset()  # a rejected seed was not stored
    core = venv.games.core
    rng = np.random.default_rng(seed)
    good = sample_masked(rng, venv.action_masks())
    bad_actions = [(np.zeros(5, np.int64), r"shape \(4,\)"), (np.zeros((4, 2), np.int64), r"shape \(4,\)"),
                   (np.zeros(3, np.int64), r"shape \(4,\)"), (np.full(4, adapter.num_actions), r"outside the action space"),
                   (np.full(4, -1), r"outside the action space"), (good + 0.5, r"integers"),
                   (np.array(["0"] * 4), r"integers"), (good > 0, r"integers")]
    for actions, match in bad_actions:
        before = fingerprint_solo(venv)
        assert_rejected(adapter, core, lambda: venv.step(actions), match=match, what=f"sb3 step({actions!r})")
        assert fingerprint_solo(venv) == before
    for _ in range(30):
        obs, rewards, dones, infos = venv.step(sample_masked(rng, venv.action_masks()))
        assert obs.shape[0] == 4 and np.isfinite(rewards).all()
        assert all(venv.observation_space.contains(row) for row in obs)


def check_aec_game(adapter: GameAdapter, variant: dict, seed: int, normalize_obs: bool = False,
                   max_steps: int = 20000) -> int:
    """Plays one raw AEC game with random legal moves; after every move every agent's observation lies
    in its space, only the agent to act has legal actions (a non-empty set) and rewards are finite.
    Returns the number of moves."""
    env = adapter.raw_env(variant, normalize_obs=normalize_obs)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    moves = 0
    for agent in env.agent_iter(max_steps):
        obs, reward, terminated, truncated, info = env.last()
        assert np.isfinite(reward), f"{agent}: reward {reward}"
        for other in env.possible_agents:
            view = env.observe(other)
            assert env.observation_space(other).contains(view), f"{other}: observation outside its space"
            if other == agent and not (terminated or truncated):
                assert view["action_mask"].any(), f"{agent} is to act without a legal action"
            else:
                assert not view["action_mask"].any(), f"{other} has legal actions but is not to act"
        if terminated or truncated:
            env.step(None)
        else:
            env.step(int(sample_masked(rng, obs["action_mask"][None].astype(bool))[0]))
            moves += 1
    assert not env.agents, f"the game did not end within {max_steps} moves"
    return moves
