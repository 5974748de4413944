"""The game-independent half of every compiled core (``games/<game>/core.py``).

A game's core holds its state arrays and calls its compiled kernels (``games/<game>/kernels.py``);
what does not depend on the rules lives here once: checking actions, seats, rows and seeds the
same way with the same messages, the per-game random streams, and the choice between the serial
kernel on the calling thread and the parallel one (``docs/engine_pattern.md``).

A subclass sets ``num_envs``, ``num_players``, ``legal_mask``, ``terminated``, ``truncated``,
``rng_state``, ``_all_active`` (``[B]`` all True), ``kernels`` (its kernels module, with a ``State``
tuple of its ``STATE_FIELDS``), ``_k`` (the kernels' constants) and ``_allocate(B, rules)``, and
names its actions with ``action_label``.
"""

from __future__ import annotations

from typing import Sequence

import numba
import numpy as np
from numba import njit
from numba._dispatcher import compute_fingerprint

from .packing import check_actions_kernel, pack  # noqa: F401 (check_actions_kernel: its former home)
from .rng import game_rng_states, state_from_seed_sequence


def _entry_point(kernel, args):
    """The compiled function behind ``kernel`` for exactly the types of ``args`` (the call just made
    through the dispatcher compiled or loaded it), callable without the dispatcher's type resolution;
    the dispatcher itself when it cannot be found."""
    try:
        return kernel.overloads[tuple(kernel.typeof_pyval(a) for a in args)].entry_point
    except (AttributeError, KeyError, TypeError):
        return kernel


_CHECKS: dict = {}
"""``check_actions_kernel``'s entry points by the fingerprint of its argument types."""

_MAX_THREADS = numba.config.NUMBA_NUM_THREADS
"""The most threads Numba can run (``numba.set_num_threads`` picks up to this many): the parallel
kernels split a batch into ``4 * _MAX_THREADS`` ranges whatever the current setting, so that ``step``
does not ask for it every call (results never depend on the split)."""


class CompiledCore:
    """Argument checks, seeding and serial/parallel dispatch shared by the compiled cores."""

    parallel_min_games = 256
    """Calls that touch fewer games run the serial kernel on the calling thread (waking the thread pool
    costs more there); larger ones split the games into a few ranges per Numba thread
    (``numba.set_num_threads``). Results do not depend on it; tests set it to 0 or a huge number."""

    num_envs: int
    num_players: int

    def __init__(self, num_envs: int, rules, seed: int | None = None):
        """Allocates (the game's ``_allocate(B, rules)``) and deals ``num_envs`` games; game i is seeded
        from ``(seed, i)``."""
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs={num_envs!r}; allowed: a positive integer")
        self._allocate(int(num_envs), rules)
        self._pack()
        self.seed(seed)
        self.reset_games(np.arange(self.num_envs))

    # ------------------------------------------------------------ kernels

    kernels = None
    """The game's kernels module. The default hooks below call its ``deal_range``/``deal_kernel``,
    ``step_range``/``step_kernel`` and ``observe_range``/``observe_kernel`` (serial over a range of
    games / parallel over ``chunks`` ranges) with ``self._state()`` and ``self._k`` (the game's state
    tuple and constants) through :meth:`_run`; a game whose kernels differ overrides the hooks."""

    _RESET_ON = frozenset(("_k",))
    """Attributes whose assignment drops the cached state tuple and entry points (the state fields
    and the constants; each subclass adds its ``kernels.STATE_FIELDS``)."""

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        fields = getattr(getattr(cls, "kernels", None), "STATE_FIELDS", ())
        cls._RESET_ON = frozenset(("_k",) + tuple(fields))

    def __setattr__(self, name, value):
        # Replacing a state array (or the constants) from outside must reach the next kernel call:
        # the cached tuple of arrays and the entry points compiled for their types are dropped.
        # A replaced array is no longer a view into the packed buffer: the core goes on with the state
        # tuple (``_packed`` dropped) and keeps the caller's array, as it always did.
        object.__setattr__(self, name, value)
        if name in self._RESET_ON:
            d = self.__dict__
            d.pop("_state_tuple", None)
            d.pop("_entries", None)
            d.pop("_packed", None)

    def __getstate__(self):
        """Copies and pickles leave out the cached tuple, entry points and packed buffer (rebuilt)."""
        d = dict(self.__dict__)
        d.pop("_state_tuple", None)
        d.pop("_entries", None)
        d.pop("_packed", None)
        return d

    def __setstate__(self, state):
        self.__dict__.update(state)
        self._pack()

    def _pack(self) -> None:
        """Moves the state arrays and the constants into one buffer (``packing.py``): the state
        attributes become views into it (same shapes, dtypes and values), and the serial kernels with a
        packed twin (the kernels module's ``PACKED``) are called with the buffer instead of the tuples.
        Called once the arrays are allocated (``__init__``, ``_from_arrays``, ``gather``, copies)."""
        packed_twins = getattr(self.kernels, "PACKED", None)
        if not packed_twins:
            return
        buf, meta, views = pack(self._state(), self._k)
        d = self.__dict__
        for name, view in zip(self.kernels.STATE_FIELDS, views):
            d[name] = view
        d.pop("_state_tuple", None)
        d.pop("_entries", None)
        d["_packed"] = (buf, meta)

    def _state(self):
        """The state arrays as one kernel argument, the kernels' ``State`` tuple of ``STATE_FIELDS``.

        Built once and kept until a state array is replaced by assignment (``__setattr__``); arrays
        written in place need nothing. (Building the tuple of ~30 arrays took as long as a batch-1
        step of the rules.)"""
        d = self.__dict__
        s = d.get("_state_tuple")
        if s is None:
            s = d["_state_tuple"] = self.kernels.State(*[d[name] for name in self.kernels.STATE_FIELDS])
        return s

    def _run(self, kernel, *args):
        """``kernel(state, constants, *args)``, through the compiled entry point for these argument
        types once one call went through the dispatcher: Numba's dispatcher resolves the type of
        every array of the state and constant tuples at each call, which cost a batch-1 step more
        than its rules. The key is the kernel and the types of ``args`` (Numba's own fingerprint of
        them); the state's types are fixed until an array is replaced (``__setattr__``)."""
        d = self.__dict__
        entries = d.get("_entries")
        if entries is None:
            entries = d["_entries"] = {}
        key = (kernel, compute_fingerprint(args))
        entry = entries.get(key)
        if entry is not None:
            call, first, second = entry
            return call(first, second, *args)
        packed, twin = d.get("_packed"), None
        if packed is not None:
            twin = self.kernels.PACKED.get(kernel)
        # The kernel's leading arguments: the packed buffer for a kernel with a packed twin, else the
        # state and constant tuples.
        target, head = (twin, packed) if twin is not None else (kernel, (self._state(), self._k))
        result = target(*head, *args)
        entries[key] = (_entry_point(target, head + args),) + head
        return result

    def _deal(self, games: np.ndarray) -> None:
        """Deals the validated rows ``games`` (contiguous intp) up to their first decision."""
        K, chunks = self.kernels, self._chunks(games.size)
        if chunks:
            self._run(K.deal_kernel, games, chunks)
        else:
            self._run(K.deal_range, games, 0, games.size)

    def _step(self, actions: np.ndarray, active: np.ndarray) -> None:
        """Runs the step kernel on validated ``actions`` [B] intp and ``active`` [B] bool."""
        # The games that move decide serial or parallel: an opponent round of a solo / SB3 env often
        # steps a handful of a big batch's games, where waking the thread pool costs most of the call.
        moving = self.num_envs if active is self._all_active else int(np.count_nonzero(active))
        K, chunks = self.kernels, self._chunks(moving)
        if chunks:
            self._run(K.step_kernel, actions, active, chunks)
        else:
            self._run(K.step_range, actions, active, 0, self.num_envs)

    def _observe(self, games: np.ndarray, seats: np.ndarray, out: np.ndarray) -> None:
        """Writes game ``games[i]`` as seat ``seats[i]`` sees it into ``out[i]`` (validated, contiguous)."""
        K, chunks = self.kernels, self._chunks(games.size)
        if chunks:
            self._run(K.observe_kernel, games, seats, out, chunks)
        else:
            self._run(K.observe_range, games, seats, out, 0, games.size)

    @property
    def observation_size(self) -> int:
        """O, the length of one observation (the game's constants record it as ``obs_size``)."""
        return self._k.obs_size

    def action_label(self, action: int) -> str:
        """The readable name of an action id (for error messages)."""
        return str(int(action))

    # ------------------------------------------------------------ dispatch

    def _chunks(self, n: int) -> int:
        """Ranges a parallel kernel splits ``n`` games into; 0: run the serial kernel."""
        if n < self.parallel_min_games or n < 2:
            return 0
        return min(n, 4 * _MAX_THREADS)

    # ------------------------------------------------------------ the protocol

    @property
    def done(self) -> np.ndarray:
        """[B] bool: terminated or truncated."""
        return self.terminated | self.truncated

    @classmethod
    def state_array_names(cls) -> tuple[str, ...]:
        """The state arrays a position is made of: every field of the kernels' ``State`` but the random
        streams (``rng_state``)."""
        return tuple(name for name in cls.kernels.STATE_FIELDS if name != "rng_state")

    def state_arrays(self, games) -> dict[str, np.ndarray]:
        """Copies of the state arrays (:meth:`state_array_names`) of the listed games, ``[len(games), ...]``
        each: with the game's ``from_state_arrays`` a way to branch positions (search, research)."""
        g = np.asarray(games, np.intp).reshape(-1)
        if g.size and (g.min() < 0 or g.max() >= self.num_envs):
            raise ValueError(f"games must be in 0..{self.num_envs - 1}")
        return {name: np.asarray(getattr(self, name))[g].copy() for name in self.state_array_names()}

    @classmethod
    def _from_arrays(cls, rules, arrays: dict, seeds: Sequence[int], rng_state: np.ndarray | None = None):
        """A core of ``len(seeds)`` games holding ``arrays`` (each of :meth:`state_array_names`, one row
        per seed, in the shapes ``_allocate`` gives); game i draws its later chance events from a stream seeded by
        ``np.random.SeedSequence(seeds[i])``, or, given ``rng_state`` ([len(seeds), 4] uint64, no row all
        zero), from that stream state. Nothing is dealt and no mask computed: each game's
        ``from_state_arrays`` does what its rules need after this."""
        names = cls.state_array_names()
        missing = [name for name in names if name not in arrays]
        if missing:
            raise ValueError(f"state arrays missing: {', '.join(missing)}")
        n = len(seeds)
        if n < 1 or any(np.asarray(arrays[name]).shape[0] != n for name in names):
            raise ValueError(f"every state array needs one row per seed ({n})")
        core = cls.__new__(cls)
        core._allocate(n, rules)
        for name in names:
            old, new = getattr(core, name), np.asarray(arrays[name])
            if new.shape != old.shape:
                raise ValueError(f"state array {name} has shape {new.shape}; expected {old.shape}")
            old[...] = new
        if rng_state is not None:
            rng_state = np.asarray(rng_state)
            if rng_state.shape != core.rng_state.shape or rng_state.dtype != np.uint64 or \
                    not rng_state.any(axis=1).all():
                raise ValueError(f"rng_state must be [{n}, 4] uint64 with no row all zero")
            core.rng_state[...] = rng_state
        else:
            for i, seed in enumerate(seeds):
                core.rng_state[i] = state_from_seed_sequence(np.random.SeedSequence(int(seed)))
        core._pack()
        return core

    def seed(self, seed: int | None, indices: Sequence[int] | None = None,
             game_ids: Sequence[int] | None = None) -> None:
        """Re-seeds games (all by default): row ``indices[k]`` takes the stream of game ``game_ids[k]``
        (default ``indices[k]``) of a batch seeded with ``seed``, i.e. ``(seed, game_ids[k])``. The
        next ``reset_games`` of the row deals that game. A bad argument raises and changes nothing."""
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
            raise ValueError(f"seed={seed!r}; allowed: None or a non-negative integer")
        indices = list(range(self.num_envs)) if indices is None else [int(i) for i in indices]
        ids = indices if game_ids is None else [int(i) for i in game_ids]
        if len(ids) != len(indices):
            raise ValueError(f"game_ids has {len(ids)} entries for {len(indices)} rows; allowed: one per row")
        if any(not -self.num_envs <= i < self.num_envs for i in indices):
            raise ValueError(f"indices must be in 0..{self.num_envs - 1}")
        self.rng_state[indices] = game_rng_states(seed, ids)

    def reset_games(self, games: np.ndarray) -> None:
        """Deals new games in the rows ``games`` (each from its own stream)."""
        g = np.asarray(games, np.intp).reshape(-1)
        if g.size == 0:
            return
        if g.min() < 0 or g.max() >= self.num_envs:
            g = np.arange(self.num_envs)[g]  # negative indices as NumPy reads them; out of range raises
        self._deal(np.ascontiguousarray(g))

    def _action_array(self, actions) -> np.ndarray:
        """``actions`` as a [B] intp array; ValueError for a wrong shape or a non-integer dtype."""
        arr = actions if type(actions) is np.ndarray else np.asarray(actions)
        if arr.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), one per game; got shape {arr.shape}")
        if arr.dtype != np.intp:
            if arr.dtype.kind not in "iu":
                raise ValueError(f"actions must be integers in 0..{self.legal_mask.shape[1] - 1}; got dtype {arr.dtype}")
            arr = arr.astype(np.intp)
        return arr

    def _raise_for_actions(self, arr: np.ndarray, live: int, first_out: int, first_bad: int, bad: int) -> None:
        """Raises the ValueError that ``check_actions_kernel``'s findings call for (none when all is well)."""
        A = self.legal_mask.shape[1]
        if live == 0:
            raise ValueError("every game is over; call reset() (or use autoreset) before stepping again")
        if first_out >= 0:
            b = first_out
            raise ValueError(f"action {int(arr[b])} for game {b} is out of range; allowed: 0..{A - 1}; "
                             f"legal there: {np.flatnonzero(self.legal_mask[b]).tolist()}")
        if first_bad >= 0:
            b = first_bad
            raise ValueError(f"illegal action {int(arr[b])} ({self.action_label(int(arr[b]))}) for game {b} "
                             f"({bad} illegal in all); legal there: {np.flatnonzero(self.legal_mask[b]).tolist()}")

    def check_actions(self, actions, active: np.ndarray | None = None) -> np.ndarray:
        """Validates one action per game; returns them as intp. Raises ValueError, changing nothing.

        Games that are over (or not ``active``) ignore their entry (any integer is accepted there).
        """
        arr = self._action_array(actions)
        act = self._all_active if active is None else np.asarray(active, bool)
        args = (arr, act, self.terminated, self.truncated, self.legal_mask)
        key = (check_actions_kernel, compute_fingerprint(args))
        check = _CHECKS.get(key)
        if check is None:
            check_actions_kernel(*args)  # through the dispatcher once: compiles or loads it for these types
            check = _CHECKS[key] = _entry_point(check_actions_kernel, args)
        self._raise_for_actions(arr, *check(*args))
        return arr

    def step(self, actions, active: np.ndarray | None = None) -> None:
        """Applies one action per game and resolves the games up to their next decision.

        Games already over, and games where ``active`` ([B] bool, default all) is False, are left
        untouched (their rewards read 0). Raises ValueError (and changes nothing) when an action
        has the wrong shape or type, is out of range or illegal.
        """
        if active is not None:
            active = np.asarray(active, bool)
            if active.shape != (self.num_envs,):
                raise ValueError(f"active must have shape ({self.num_envs},); got {active.shape}")
        else:
            active = self._all_active
        if "_packed" in self.__dict__ and self.num_envs < self.parallel_min_games:
            # A small packed batch (the AEC, solo and search paths): one kernel call checks the actions
            # and, only when every one is legal, steps the games (``step_range_checked``).
            arr = self._action_array(actions)
            findings = self._run(self.kernels.step_range_checked, arr, active, 0, self.num_envs)
            self._raise_for_actions(arr, *findings)
            return
        actions = self.check_actions(actions, active)
        self._step(actions, active)

    def observe(self, seats, games=None) -> np.ndarray:
        """[B, O] float32: each game as ``seats`` (an int or one seat per game) sees it; with ``games``
        (int array) only those rows, ``[len(games), O]``, without building the others. Nothing a seat
        may not know is read (the game's ``observation.py``)."""
        P = self.num_players
        if games is None and isinstance(seats, (int, np.integer)) and not isinstance(seats, (bool, np.bool_)):
            # One seat for every game (the AEC and solo envs' call, often at batch 1): index arrays
            # kept from earlier calls, no broadcasting or copies.
            seat = self._one_seat(seats)
            d = self.__dict__
            rows = d.get("_observe_rows")
            if rows is None:
                rows = d["_observe_rows"] = (np.arange(self.num_envs), [np.full(self.num_envs, p, np.intp)
                                                                        for p in range(P)])
            out = np.empty((self.num_envs, self.observation_size), np.float32)
            self._observe(rows[0], rows[1][seat], out)
            return out
        if games is None:
            g = np.arange(self.num_envs)
        else:
            g = np.asarray(games, np.intp).reshape(-1)
            if g.size and (g.min() < -self.num_envs or g.max() >= self.num_envs):
                raise ValueError(f"games must be in 0..{self.num_envs - 1}")
            g = g % self.num_envs
        n = g.size
        seats = np.asarray(seats)
        if seats.dtype == bool or seats.dtype.kind not in "iu":
            raise ValueError(f"seat must be integers in 0..{P - 1}; got {seats!r}")
        seats = seats.astype(np.intp)
        if seats.ndim == 0:
            seats = np.full(n, self._one_seat(seats), np.intp)
        else:
            if seats.shape != (n,):  # a writeable copy: Numba compiles a kernel again for a read-only array
                seats = np.broadcast_to(seats, (n,)).copy()
            if seats.size and (seats.min() < 0 or seats.max() >= P):
                raise ValueError(f"seat must be in 0..{P - 1}; got {np.unique(seats).tolist()}")
        out = np.empty((n, self.observation_size), np.float32)
        self._observe(np.ascontiguousarray(g), seats, out)
        return out

    def _one_seat(self, seat) -> int:
        """``seat`` (an integer) as an int; ValueError unless it is in ``0..P-1``."""
        if not 0 <= int(seat) < self.num_players:
            raise ValueError(f"seat must be in 0..{self.num_players - 1}; got {[int(seat)]}")
        return int(seat)

    # ------------------------------------------------------------ branching

    @classmethod
    def gather(cls, parts: Sequence[tuple["CompiledCore", np.ndarray]]) -> "CompiledCore":
        """A new core whose rows are copies of the listed rows of the given cores, in order: ``parts``
        is a sequence of ``(core, rows)`` (cores of one variant, ``rows`` int arrays, repeats allowed).
        Each copy keeps its game's whole state, its random stream included, so copies of one row play
        on identically (search agents branch positions this way: every move meets the same futures)."""
        if not parts:
            raise ValueError("gather needs at least one (core, rows) part")
        first = parts[0][0]
        kind, rules = type(first), first.rules
        picks = []
        for core, rows in parts:
            if type(core) is not kind or core.rules != rules:
                raise ValueError(f"gather: every core must be a {kind.__name__} of the same rules")
            r = np.asarray(rows, np.intp).reshape(-1)
            if r.size and (r.min() < 0 or r.max() >= core.num_envs):
                raise ValueError(f"gather: rows must be in 0..{core.num_envs - 1}")
            picks.append((core, r))
        total = sum(r.size for _, r in picks)
        if total < 1:
            raise ValueError("gather: no rows listed")
        out = kind.__new__(kind)
        out._allocate(total, rules)
        for name in kind.kernels.STATE_FIELDS:
            np.concatenate([getattr(core, name)[r] for core, r in picks], out=getattr(out, name))
        out._pack()
        return out
