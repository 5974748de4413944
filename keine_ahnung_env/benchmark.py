"""Speed of the batched Keine Ahnung core and its wrappers, measured beside peer environments.

    python -m keine_ahnung_env.benchmark                    # every section (a few minutes)
    python -m keine_ahnung_env.benchmark --quick            # small repeat counts (under a minute)
    python -m keine_ahnung_env.benchmark --sections core,sb3 --json bench.json

Sections (``--sections``, comma-separated; default all):

* ``compile``: per game, a new interpreter to its first use: the PettingZoo env's first step, and its
  strongest heuristic's first move (Keine Ahnung ``counter``, gap ``planner``, dnp ``tactician``), each
  with an empty Numba cache (what that use needs compiled, as after a fresh install) and from the
  cache that run left on disk; wall and CPU seconds (left out by ``--quick``).
* ``core``: the batched engine (``KeineAhnungCore``) playing random legal moves, drawn in batch with
  ``keine_ahnung_env.sampling.sample_masked``, games dealt again as soon as they end. For each player
  count and batch size: decisions per second end to end, the engine's own rate (``step`` + legal-mask
  update + re-deals, the sampler's time taken out; the observation is not built, as the vector env
  builds it lazily), the end-to-end rate when every step also builds the observation of the seat to
  act, and bytes of state per game. The scalar reference engine (``reference.py``) and the core at
  batch 1, both driven the same scalar way and measured in turns with the driver alone, give the
  "batch 1" comparison; OpenSpiel's hanabi
  (when installed) is measured in the same run for the batch ratio.
* ``aec``: the PettingZoo AEC env ``keine_ahnung_v0.env()`` stepped by the plain agent loop of the
  PettingZoo docs (``agent_iter`` / ``last`` / a random legal action from the mask), beside
  PettingZoo's ``connect_four_v3`` (and ``leduc_holdem_v4``), OpenSpiel's hanabi and hearts through
  ``pyspiel`` (random legal actions, chance nodes sampled and not counted) and RLCard's UNO, with the
  ratios to each.
* ``sb3``: ``keine_ahnung_v0.sb3_vec_env`` (opponents act in batch) against SB3's ``DummyVecEnv`` of
  ``solo_env`` s, both with three heuristic opponents (``--sb3-opponent``, default the game's
  ``counter``, built from its spec; ``greedy`` or ``counter:compiled=false``, the NumPy reference, for
  comparison) and the learner's masks fetched as MaskablePPO does, the two measured in turns (the
  speed-up is the median of the turns' ratios); then the environment's share of the wall time of a
  short ``MaskablePPO`` run on the batched env.

Figures are medians over repeats; every ratio compares figures of the same run. Peers are optional
(``pip install .[bench]``): a missing one is reported as "not available" with the reason. The
machine (CPU, cores, load average) is recorded: on a shared machine absolute figures move with the
load, ratios much less; the ``cpu`` columns (process CPU time) are less sensitive to other jobs.
Where the step's time goes (a profile) and what the loops themselves cost (their ceilings) are
measured by ``research/engine_profile.py``, which is not installed.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import json
import os
import platform
import random
import statistics
import sys
import time
from typing import Any, Callable, Sequence

import numpy as np

from . import registry
from .cli import (Parser, UsageError, add_json, add_seed, check_int, check_json_path, check_number, check_seed,
                  run_command, usage_error, write_json_file)
from .game_spec import GameSpec
from .sampling import sample_masked

SECTIONS = ("compile", "core", "aec", "sb3")
QUICK_SECTIONS = ("core", "aec", "sb3")
"""``--quick`` leaves out ``compile`` (six fresh compiles take a few minutes)."""
FULL_BATCHES = (1, 64, 1024, 4096, 16384)
QUICK_BATCHES = (1, 64, 1024, 4096)

# The state arrays of the core (per game), its random streams included.
STATE_ARRAYS = (
    "draw_cards", "draw_pos", "draw_len", "card_loc", "card_where", "card_known", "layout", "pile_top",
    "pile_face", "pile_count", "top_count", "trophy_order", "trophy_owner", "trophy_pos", "trophy_count",
    "trophy_points", "prize_count", "prize_points", "current", "phase", "pending", "pending_slot",
    "clear_pending", "turn", "terminated", "truncated", "rewards", "legal_mask", "card_epoch", "reshuffles",
    "rng_state")


# ----------------------------------------------------------------------------------------- helpers


class Config:
    """What to measure and for how long."""

    def __init__(self, args: argparse.Namespace):
        self.quick = args.quick
        self.sections = args.sections
        self.players = args.players
        self.batches = args.batches or (QUICK_BATCHES if args.quick else FULL_BATCHES)
        self.repeats = args.repeats or (3 if args.quick else 5)
        self.seconds = args.seconds or (0.15 if args.quick else 1.0)
        self.warmup = args.warmup if args.warmup is not None else (20 if args.quick else 400)
        self.warmup_seconds = 3.0 if args.quick else 20.0
        self.sb3_envs = args.sb3_envs or (64 if args.quick else 256)
        self.sb3_opponent = args.sb3_opponent
        self.seed = args.seed

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in vars(self).items()}


def _median(values):
    return float(statistics.median(values)) if values else float("nan")


def _missing(what: str, exc: BaseException) -> str:
    return f"not available: {what} ({type(exc).__name__}: {exc})".replace("\n", " ")


def machine_info() -> dict[str, Any]:
    """The machine the figures come from."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    info = {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "blas_threads": os.environ.get("OPENBLAS_NUM_THREADS", "unset"),
    }
    try:
        info["load_average"] = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        pass
    return info


def game_agent(spec: GameSpec, name: str) -> Callable[..., Any]:
    """The constructor of the heuristic agent ``name`` that the game declares (``GameSpec.agents``),
    called as ``factory(seed=seed)``. (The environment package does not import the ``agents``
    package, so the benchmark builds a game's own agents from its spec.)"""
    if name not in spec.agents:
        raise ValueError(f"{spec.name} has no agent {name!r}; its agents: {', '.join(spec.agents) or 'none'}")
    factory = spec.agents[name].factory
    if isinstance(factory, str):
        module, attribute = factory.split(":")
        factory = getattr(importlib.import_module(module), attribute)
    return factory


def timed_repeats(run_once: Callable[[], tuple[float, float, dict]], repeats: int) -> list[tuple[float, float, dict]]:
    """Calls ``run_once`` (returning ``(count, seconds, extra)``) ``repeats`` times, collecting garbage
    first so that a collection does not land in one repeat."""
    out = []
    for _ in range(repeats):
        gc.collect()
        out.append(run_once())
    return out


def in_turns(runs: Sequence[Callable[[], tuple[float, float, dict]]], repeats: int) -> list[list[float]]:
    """Rates (count / seconds) of several measurements taken in turns: one repeat of each in order,
    ``repeats`` rounds (garbage collected before each repeat). Returns one list of rates per run. A
    ratio of two runs' rates in the same round meets the machine in the same phase (its speed changes
    up to 2x within a minute), where measuring one run's repeats after the other's lets a change land
    between them."""
    rates: list[list[float]] = [[] for _ in runs]
    for _ in range(repeats):
        for run, out in zip(runs, rates):
            gc.collect()
            n, w, _ = run()
            out.append(n / w)
    return rates


# -------------------------------------------------------------------------------------------- core


def _state_bytes(core) -> float:
    """The state arrays (random streams included) in bytes per game."""
    return sum(getattr(core, name).nbytes for name in STATE_ARRAYS) / core.num_envs


FIRST_USE_AGENTS = {"keine_ahnung_v0": "counter", "gap_v0": "planner", "dnp_v0": "tactician"}
"""The games the compile section measures, each with the heuristic whose first move it times (the
game's strongest); another game given to :func:`measure_first_use` gets its ``default_opponent``."""

FIRST_USE_TARGET_SECONDS = 30.0
"""What a first use may take on an idle two-core machine with an empty Numba cache: the compile section
marks a CPU time above it (Numba compiles on one thread, so on an idle machine the wall time is about
the CPU time)."""

_FIRST_USE = r"""
import sys, time
start = time.perf_counter()
import importlib
import numpy as np
game, part, agent = sys.argv[1:4]
module = importlib.import_module("keine_ahnung_env." + game)
imported = time.perf_counter()
if part == "env":
    env = module.env()
    env.reset(seed=0)
    observation = env.last()[0]
    env.step(int(np.flatnonzero(observation["action_mask"])[0]))
else:
    import agents
    result = module.vector_env(8, seed=0).reset()
    agents.make(agent, game=game, seed=0).act(result.observation, result.action_mask)
print(imported - start, time.perf_counter() - start, time.process_time())
"""
"""A new interpreter's first use of a game: ``env``, the PettingZoo env's first step (``env()``,
``reset``, ``last``, ``step``); ``agent``, the heuristic's first move on a batch of 8 games
(``vector_env(8).reset()``, ``agents.make(agent).act``). Prints the import's seconds, the seconds to
the end, and the process's CPU seconds (``time.process_time``: less sensitive to other jobs than the
wall clock on a shared machine)."""


def _first_use_once(game: str, part: str, agent: str, cache: str) -> dict[str, float]:
    """One run of :data:`_FIRST_USE` in a subprocess with ``NUMBA_CACHE_DIR=cache``: wall seconds of the
    whole subprocess (interpreter start included), its CPU seconds and its import's seconds."""
    import subprocess

    env = dict(os.environ, NUMBA_CACHE_DIR=cache, KEINE_AHNUNG_ENV_COMPILE_MESSAGE="0")
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-c", _FIRST_USE, game, part, agent], capture_output=True, text=True,
                          env=env)
    wall = time.perf_counter() - start
    if proc.returncode != 0:
        raise RuntimeError(f"first use of {game} ({part}) failed: {proc.stderr[-2000:]}")
    imported, _, cpu = (float(x) for x in proc.stdout.split()[-3:])
    return {"seconds": wall, "cpu_seconds": cpu, "import_seconds": imported}


def measure_first_use(games: Sequence[str] | None = None, parts: Sequence[str] = ("env", "agent")) -> dict[str, Any]:
    """Seconds from a new interpreter to the first use of each game, in subprocesses: ``env`` (the
    PettingZoo env's first step) and ``agent`` (the game's heuristic of :data:`FIRST_USE_AGENTS`
    choosing its first moves), each with an empty Numba cache of its own (every kernel that use needs
    is compiled: a fresh install's first run) and again with the cache that run left on disk.

    Returns ``{"rows": [...], "target_seconds": 30.0}``; a row has ``game``, ``part``, ``agent`` (the
    heuristic, for ``agent`` rows), ``seconds`` / ``cpu_seconds`` / ``import_seconds`` (empty cache:
    wall seconds of the whole subprocess, its CPU seconds, its import) and ``cached_seconds`` /
    ``cached_cpu_seconds`` (from the disk cache)."""
    import tempfile

    names = list(games) if games is not None else list(FIRST_USE_AGENTS)
    rows = []
    for game in names:
        agent = FIRST_USE_AGENTS.get(game) or registry.game_spec(game).default_opponent
        for part in parts:
            with tempfile.TemporaryDirectory(prefix="numba_cache_") as cache:
                fresh = _first_use_once(game, part, agent, cache)
                cached = _first_use_once(game, part, agent, cache)
            rows.append({"game": game, "part": part, "agent": agent if part == "agent" else None, **fresh,
                         "cached_seconds": cached["seconds"], "cached_cpu_seconds": cached["cpu_seconds"]})
    return {"rows": rows, "target_seconds": FIRST_USE_TARGET_SECONDS}


def _warm(core, rng, sample, cfg: Config) -> None:
    """Plays until the games are desynchronised (as many steps as a game lasts), time permitting."""
    start = time.perf_counter()
    for _ in range(cfg.warmup):
        core.step(sample(rng, core.legal_mask))
        done = np.flatnonzero(core.terminated | core.truncated)
        if done.size:
            core.reset_games(done)
        if time.perf_counter() - start > cfg.warmup_seconds:
            break


def measure_core(num_players: int, batch: int, cfg: Config, observe: bool = False) -> dict[str, Any]:
    """Random legal play on a batched core: end-to-end, engine-only and CPU-time rates."""
    from .games.keine_ahnung import KeineAhnungCore, Rules

    core = KeineAhnungCore(batch, Rules.make(num_players), seed=cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    _warm(core, rng, sample_masked, cfg)

    def once():
        t_sample = t_engine = t_obs = 0.0
        decisions = 0
        clock = time.perf_counter
        cpu0 = time.process_time()
        start = clock()
        while True:
            t0 = clock()
            actions = sample_masked(rng, core.legal_mask)
            t1 = clock()
            core.step(actions)
            done = np.flatnonzero(core.terminated | core.truncated)
            if done.size:
                core.reset_games(done)
            t2 = clock()
            if observe:
                core.observe(core.current)
                t_obs += clock() - t2
            t_sample += t1 - t0
            t_engine += t2 - t1
            decisions += batch
            if clock() - start >= cfg.seconds:
                break
        wall = clock() - start
        return decisions, wall, {"sample": t_sample, "engine": t_engine, "obs": t_obs,
                                 "cpu": time.process_time() - cpu0}

    runs = timed_repeats(once, cfg.repeats)
    public = _state_bytes(core)
    row = {
        "players": num_players,
        "batch": batch,
        "decisions_per_s": _median([n / w for n, w, _ in runs]),
        "engine_decisions_per_s": _median([n / x["engine"] for n, _, x in runs]),
        "cpu_decisions_per_s": _median([n / x["cpu"] for n, _, x in runs if x["cpu"] > 0]),
        "sampler_share": _median([x["sample"] / w for _, w, x in runs]),
        "step_ms": _median([x["engine"] / (n / batch) * 1e3 for n, _, x in runs]),
        "state_bytes_per_game": public,
        "repeats": len(runs),
    }
    if observe:
        row["observe_share"] = _median([x["obs"] / w for _, w, x in runs])
    return row


OTHER_GAMES = ("gap_v0", "dnp_v0")
"""Registered games measured beside Keine Ahnung in the core section (through their specs)."""


def measure_game_core(name: str, num_players: int, batch: int, cfg: Config) -> dict[str, Any]:
    """Random legal play on the core of registered game ``name`` (made by its spec): end-to-end and
    engine-only decisions per second, as ``measure_core``."""
    core = registry.game_spec(name, num_players).make_core(batch, cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    _warm(core, rng, sample_masked, cfg)

    def once():
        t_engine, decisions, clock = 0.0, 0, time.perf_counter
        start = clock()
        while clock() - start < cfg.seconds:
            actions = sample_masked(rng, core.legal_mask)
            t1 = clock()
            core.step(actions)
            done = np.flatnonzero(core.terminated | core.truncated)
            if done.size:
                core.reset_games(done)
            t_engine += clock() - t1
            decisions += batch
        return decisions, clock() - start, {"engine": t_engine}

    runs = timed_repeats(once, cfg.repeats)
    return {"game": name, "players": num_players, "batch": batch,
            "decisions_per_s": _median([n / w for n, w, _ in runs]),
            "engine_decisions_per_s": _median([n / x["engine"] for n, _, x in runs])}


def measure_scalar_pair(num_players: int, cfg: Config) -> dict[str, Any]:
    """The scalar reference engine against the core at batch 1, both driven the same way: the
    legal actions of the seat to act, one picked with Python's ``random``."""
    from .games.keine_ahnung import KeineAhnungCore, ReferenceGame, Rules

    rules = Rules.make(num_players)
    pick = random.Random(cfg.seed)

    ref = ReferenceGame(rules, np.random.default_rng(cfg.seed))

    def ref_once():
        n, start = 0, time.perf_counter()
        while True:
            if ref.terminated or ref.truncated:
                ref.reset()
            legal = ref.legal_actions()
            ref.step(legal[pick.randrange(len(legal))])
            n += 1
            if n % 64 == 0 and time.perf_counter() - start >= cfg.seconds:
                return n, time.perf_counter() - start, {}

    core = KeineAhnungCore(1, rules, seed=cfg.seed)
    action = np.zeros(1, np.int64)
    reset_index = np.zeros(1, np.intp)

    def core_once():
        n, start = 0, time.perf_counter()
        mask, terminated, truncated = core.legal_mask, core.terminated, core.truncated
        while True:
            if terminated[0] or truncated[0]:
                core.reset_games(reset_index)
            legal = np.flatnonzero(mask[0])
            action[0] = legal[pick.randrange(legal.size)]
            core.step(action)
            n += 1
            if n % 64 == 0 and time.perf_counter() - start >= cfg.seconds:
                return n, time.perf_counter() - start, {}

    def driver_once():
        # The driver alone, on a fixed legal row: what any engine stepped this way costs at the least.
        if not core.legal_mask[0].any():  # the last core run may have stopped on a finished game
            core.reset_games(reset_index)
        n, start = 0, time.perf_counter()
        row = core.legal_mask[0].copy()
        terminated, truncated = np.zeros(1, bool), np.zeros(1, bool)
        while True:
            if terminated[0] or truncated[0]:  # the loop's own check, as above
                pass
            legal = np.flatnonzero(row)
            action[0] = legal[pick.randrange(legal.size)]
            n += 1
            if n % 64 == 0 and time.perf_counter() - start >= cfg.seconds:
                return n, time.perf_counter() - start, {}

    # In turns (``in_turns``): each ratio compares runs taken in the same phase of the machine.
    ref_rates, core_rates, driver_rates = in_turns([ref_once, core_once, driver_once], cfg.repeats)
    speedups = [c / r for c, r in zip(core_rates, ref_rates)]
    return {"players": num_players, "reference_decisions_per_s": _median(ref_rates),
            "core_batch1_decisions_per_s": _median(core_rates),
            "core_over_reference": _median(speedups), "core_over_reference_per_turn": speedups,
            "reference_over_core": _median([r / c for c, r in zip(core_rates, ref_rates)]),
            "driver_decisions_per_s": _median(driver_rates),
            "ratio_ceiling": _median([d / r for d, r in zip(driver_rates, ref_rates)])}


# ------------------------------------------------------------------------------------------- peers


def _aec_loop(make_env: Callable[[], Any], cfg: Config, seed: int) -> tuple[Any, Callable[[], tuple[int, float, dict]]]:
    """A new env and one repeat of the PettingZoo docs' agent loop over it with random legal actions
    (``cfg.seconds`` of whole games; returns decisions, seconds, {})."""
    env = make_env()
    pick = random.Random(seed)

    def once():
        n, start = 0, time.perf_counter()
        env.reset(seed=seed)
        while True:
            for agent in env.agent_iter():
                observation, reward, termination, truncation, info = env.last()
                if termination or truncation:
                    action = None
                else:
                    legal = np.flatnonzero(observation["action_mask"])
                    action = int(legal[pick.randrange(legal.size)])
                    n += 1
                env.step(action)
            if time.perf_counter() - start >= cfg.seconds:
                return n, time.perf_counter() - start, {}
            env.reset()

    return env, once


def _aec_rate(make_env: Callable[[], Any], cfg: Config, seed: int) -> float:
    """Decisions per second of the PettingZoo docs' agent loop with random legal actions."""
    env, once = _aec_loop(make_env, cfg, seed)
    runs = timed_repeats(once, cfg.repeats)
    env.close()
    return _median([n / w for n, w, _ in runs])


def _openspiel_rate(game_name: str, cfg: Config) -> float:
    """Decisions per second of random legal play through ``pyspiel`` (chance nodes not counted)."""
    import pyspiel

    game = pyspiel.load_game(game_name)
    pick = random.Random(cfg.seed)

    def once():
        n, start = 0, time.perf_counter()
        while True:
            state = game.new_initial_state()
            while not state.is_terminal():
                if state.is_chance_node():
                    outcomes = state.chance_outcomes()
                    r, acc = pick.random(), 0.0
                    for action, p in outcomes:
                        acc += p
                        if r < acc:
                            break
                    state.apply_action(action)
                else:
                    legal = state.legal_actions()
                    state.apply_action(legal[pick.randrange(len(legal))])
                    n += 1
            if time.perf_counter() - start >= cfg.seconds:
                return n, time.perf_counter() - start, {}

    return _median([n / w for n, w, _ in timed_repeats(once, cfg.repeats)])


def _rlcard_rate(game_name: str, cfg: Config) -> float:
    """Decisions per second of random legal play in an RLCard env."""
    import rlcard

    env = rlcard.make(game_name, config={"seed": cfg.seed})
    pick = random.Random(cfg.seed)

    def once():
        n, start = 0, time.perf_counter()
        while True:
            state, _ = env.reset()
            while not env.is_over():
                legal = list(state["legal_actions"])
                state, _ = env.step(legal[pick.randrange(len(legal))])
                n += 1
            if time.perf_counter() - start >= cfg.seconds:
                return n, time.perf_counter() - start, {}

    return _median([n / w for n, w, _ in timed_repeats(once, cfg.repeats)])


_PEER_CACHE: dict[str, Any] = {}


def peer_rate(name: str, cfg: Config) -> tuple[float | None, str]:
    """(decisions per second, "") of a peer env, or (None, "not available: ...")."""
    if name in _PEER_CACHE:
        return _PEER_CACHE[name]
    try:
        if name == "pettingzoo connect_four_v3":
            from pettingzoo.classic import connect_four_v3

            result = _aec_rate(connect_four_v3.env, cfg, cfg.seed), ""
        elif name == "pettingzoo leduc_holdem_v4":
            from pettingzoo.classic import leduc_holdem_v4

            result = _aec_rate(leduc_holdem_v4.env, cfg, cfg.seed), ""
        elif name.startswith("openspiel "):
            result = _openspiel_rate(name.split()[1], cfg), ""
        elif name.startswith("rlcard "):
            result = _rlcard_rate(name.split()[1], cfg), ""
        else:
            raise ValueError(f"unknown peer {name!r}")
    except Exception as exc:  # an optional peer that is missing or broken is reported, not fatal
        result = None, _missing(name, exc)
    _PEER_CACHE[name] = result
    return result


PEERS = ("pettingzoo connect_four_v3", "pettingzoo leduc_holdem_v4", "openspiel hanabi", "openspiel hearts",
         "rlcard uno")


# ------------------------------------------------------------------------------------------ sections


def section_compile(cfg: Config) -> dict[str, Any]:
    """Each game's first use in a new interpreter (its env's first step, its heuristic's first move),
    compiling with an empty Numba cache and from the disk cache (:func:`measure_first_use`)."""
    return measure_first_use()


def section_core(cfg: Config) -> dict[str, Any]:
    rows = []
    for p in cfg.players:
        for b in cfg.batches:
            rows.append(measure_core(p, b, cfg))
    obs_rows = []
    for p in cfg.players:
        for b in [b for b in cfg.batches if b in (1, 1024, 4096)] or cfg.batches[-1:]:
            row = measure_core(p, b, cfg, observe=True)
            obs_rows.append({"players": p, "batch": b, "decisions_per_s": row["decisions_per_s"],
                             "observe_share": row["observe_share"]})
    scalar = [measure_scalar_pair(p, cfg) for p in cfg.players]
    hanabi, why = peer_rate("openspiel hanabi", cfg)
    out: dict[str, Any] = {"rows": rows, "with_observation": obs_rows, "batch1_vs_reference": scalar}
    out["other_games"] = [measure_game_core(g, p, b, cfg) for g in OTHER_GAMES for p in cfg.players for b in cfg.batches]
    if hanabi is None:
        out["hanabi"] = why
    else:
        out["hanabi_decisions_per_s"] = hanabi
        out["ratio_to_hanabi"] = [{"players": r["players"], "batch": r["batch"],
                                   "end_to_end": r["decisions_per_s"] / hanabi,
                                   "engine": r["engine_decisions_per_s"] / hanabi} for r in rows]
    return out


def section_aec(cfg: Config) -> dict[str, Any]:
    rows = []
    try:
        from . import keine_ahnung_v0

        make = keine_ahnung_v0.env
    except Exception as exc:
        return {"keine_ahnung": _missing("keine_ahnung_v0.env", exc), "rows": []}
    for p in cfg.players:
        try:
            rate = _aec_rate(lambda p=p: make(num_players=p), cfg, cfg.seed)
            rows.append({"env": f"keine_ahnung_v0 env(num_players={p})", "decisions_per_s": rate})
        except Exception as exc:
            rows.append({"env": f"keine_ahnung_v0 env(num_players={p})", "decisions_per_s": None,
                         "note": _missing("keine_ahnung_v0.env", exc)})
    ours = [r for r in rows if r["decisions_per_s"]]
    for name in PEERS:
        rate, why = peer_rate(name, cfg)
        row = {"env": name, "decisions_per_s": rate}
        if rate is None:
            row["note"] = why
        else:
            for r in ours:
                row[f"ratio_{r['env'].split('=')[1].rstrip(')')}p"] = r["decisions_per_s"] / rate
        rows.append(row)
    return {"rows": rows}


def section_sb3(cfg: Config) -> dict[str, Any]:
    try:
        from stable_baselines3.common.vec_env import DummyVecEnv

        from . import keine_ahnung_v0

        make_vec, make_solo = keine_ahnung_v0.sb3_vec_env, keine_ahnung_v0.solo_env
    except Exception as exc:
        return {"available": False, "reason": _missing("sb3_vec_env / solo_env", exc)}
    p, n = 4, cfg.sb3_envs
    name, options = cfg.sb3_opponent
    factory = game_agent(keine_ahnung_v0.game_spec(p), name)

    def opponent(seed: int):
        return factory(seed=seed, **options)

    opponent_name = getattr(opponent(0), "name", name) + "".join(f":{k}={v}" for k, v in options.items())

    def stepping(venv, seed: int):
        """One repeat of learner steps on ``venv`` (reset and stepped once first), as ``in_turns`` runs it."""
        pick = np.random.default_rng(seed)
        venv.reset()
        venv.step(sample_masked(pick, np.stack(venv.env_method("action_masks"))))

        def once():
            steps, start = 0, time.perf_counter()
            while True:
                venv.step(sample_masked(pick, np.stack(venv.env_method("action_masks"))))
                steps += 1
                if time.perf_counter() - start >= cfg.seconds:
                    return steps * venv.num_envs, time.perf_counter() - start, {}

        return once

    out: dict[str, Any] = {"available": True, "players": p, "num_envs": n, "opponents": opponent_name}
    try:
        batched = make_vec(n, opponents=[opponent(j) for j in range(p - 1)], num_players=p, seed=cfg.seed)
        dummy = DummyVecEnv([lambda i=i: make_solo([opponent(100 * i + j) for j in range(p - 1)], num_players=p,
                                                    seat="rotate") for i in range(n)])
        dummy.seed(cfg.seed)
        # In turns, so that the speed-up compares the two in the same phase of the machine.
        ours, theirs = in_turns([stepping(batched, cfg.seed), stepping(dummy, cfg.seed)], cfg.repeats)
        batched.close()
        dummy.close()
        out["sb3_vec_env_steps_per_s"], out["dummy_vec_env_steps_per_s"] = _median(ours), _median(theirs)
        out["speedup_per_turn"] = [a / b for a, b in zip(ours, theirs)]
        out["speedup"] = _median(out["speedup_per_turn"])
    except Exception as exc:
        out.update(available=False, reason=_missing("stepping sb3_vec_env / DummyVecEnv", exc))
        return out
    out["training"] = _training_share(make_vec, opponent, p, n, cfg)
    return out


def _training_share(make_vec, opponent, p: int, n: int, cfg: Config) -> dict[str, Any]:
    """The environment's share of the wall time of a short MaskablePPO run on the batched env."""
    try:
        from sb3_contrib import MaskablePPO
    except Exception as exc:
        return {"reason": _missing("sb3_contrib.MaskablePPO", exc)}
    from .sb3_vec import timed_vec_env

    n_steps, epochs, iterations = (8, 1, 1) if cfg.quick else (32, 4, 2)
    batch_size = min(1024, n * n_steps)
    venv = timed_vec_env(make_vec(n, opponents=[opponent(j) for j in range(p - 1)], num_players=p, seed=cfg.seed))
    model = MaskablePPO("MlpPolicy", venv, n_steps=n_steps, batch_size=batch_size, n_epochs=epochs, seed=cfg.seed,
                        verbose=0, device="cpu")
    venv.seconds = 0.0
    start = time.perf_counter()
    model.learn(total_timesteps=n * n_steps * iterations)
    total = time.perf_counter() - start
    venv.close()
    return {"num_envs": n, "n_steps": n_steps, "batch_size": batch_size, "n_epochs": epochs, "iterations": iterations,
            "policy": "MlpPolicy (SB3 default net)", "total_s": total, "env_s": venv.seconds,
            "env_share": venv.seconds / total}


# ---------------------------------------------------------------------------------------- printing


def _fmt(value: Any, kind: str) -> str:
    if value is None:
        return "-"
    if kind == "int":
        return f"{value:,.0f}"
    if kind == "ratio":
        return f"{value:,.2f}x"
    if kind == "pct":
        return f"{100 * value:.1f}%"
    if kind == "ms":
        return f"{value:.3f}"
    if kind == "s":
        return f"{value:.1f}"
    return str(value)


def _table(rows: list[dict], columns: list[tuple[str, str, str]]) -> str:
    """Rows as an aligned text table; columns: (key, header, kind)."""
    cells = [[h for _, h, _ in columns]] + [[_fmt(r.get(k), kind) for k, _, kind in columns] for r in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(columns))]
    lines = []
    for j, row in enumerate(cells):
        lines.append("  ".join(c.rjust(w) if j and columns[i][2] != "str" else c.ljust(w)
                               for i, (c, w) in enumerate(zip(row, widths))).rstrip())
        if j == 0:
            lines.append("  ".join("-" * w for w in widths))
    return "\n".join(lines)


def render(results: dict[str, Any]) -> str:
    """All sections as text tables."""
    out = []
    m = results["machine"]
    out.append(f"Machine: {m['cpu']}, {m['cores']} cores, Python {m['python']}, NumPy {m['numpy']}, "
               f"load average {m.get('load_average')} -> {results.get('load_average_end')}")
    out.append(f"Command: {results['command']}")
    sec = results["sections"]
    if "compile" in sec:
        c = sec["compile"]
        out.append("\n== compile: a new interpreter to each game's first use (subprocesses; empty Numba cache, then "
                   "the cache it left) ==")
        out.append("   env = env(), reset, last, the first step; agent = vector_env(8).reset() and the heuristic's "
                   "first act")
        rows = [dict(r, what=r["part"] if r["part"] == "env" else f"agent {r['agent']}",
                     over="over" if r["cpu_seconds"] > c["target_seconds"] else "") for r in c["rows"]]
        out.append(_table(rows, [("game", "game", "str"), ("what", "first use", "str"),
                                 ("seconds", "empty cache s", "s"), ("cpu_seconds", "cpu s", "s"),
                                 ("import_seconds", "import s", "s"), ("cached_seconds", "from cache s", "s"),
                                 ("over", f"cpu > {c['target_seconds']:.0f} s", "str")]))
        out.append("   (s: wall seconds of the whole subprocess; cpu s: its CPU time, what the wall time is on an idle "
                   "machine (Numba compiles on one thread), less sensitive to other jobs)")
    if "core" in sec:
        c = sec["core"]
        out.append("\n== core: batched engine, random legal play (sample_masked), finished games re-dealt ==")
        out.append("   end-to-end = sampler + step + mask + re-deals; engine = step + mask + re-deals (no observation)")
        out.append(_table(c["rows"], [("players", "P", "int"), ("batch", "batch", "int"),
                                      ("decisions_per_s", "end-to-end dec/s", "int"),
                                      ("engine_decisions_per_s", "engine dec/s", "int"),
                                      ("cpu_decisions_per_s", "end-to-end dec/s (cpu)", "int"),
                                      ("sampler_share", "sampler share", "pct"), ("step_ms", "engine ms/step", "ms"),
                                      ("state_bytes_per_game", "state B/game", "int")]))
        out.append("   (state B/game: every state array of a game, its random stream included)")
        out.append("\n   with the observation of the seat to act built every step:")
        out.append(_table(c["with_observation"], [("players", "P", "int"), ("batch", "batch", "int"),
                                                  ("decisions_per_s", "dec/s", "int"),
                                                  ("observe_share", "observe share", "pct")]))
        out.append("\n   batch 1 against the scalar reference engine (both: legal actions + Python random):")
        out.append(_table(c["batch1_vs_reference"], [("players", "P", "int"),
                                                     ("reference_decisions_per_s", "reference dec/s", "int"),
                                                     ("core_batch1_decisions_per_s", "core batch-1 dec/s", "int"),
                                                     ("core_over_reference", "core / reference (speed-up)", "ratio"),
                                                     ("driver_decisions_per_s", "driver alone dec/s", "int"),
                                                     ("ratio_ceiling", "ceiling of core / reference", "ratio")]))
        out.append("   (driver alone: the same loop's legal actions + Python random on a fixed row, no engine; no engine")
        out.append("   driven this way can beat the reference by more than driver / reference, the last column)")
        if c.get("other_games"):
            out.append("\n   the other games' cores, the same random legal play:")
            out.append(_table(c["other_games"], [("game", "game", "str"), ("players", "P", "int"),
                                                 ("batch", "batch", "int"), ("decisions_per_s", "end-to-end dec/s", "int"),
                                                 ("engine_decisions_per_s", "engine dec/s", "int")]))
        if "hanabi_decisions_per_s" in c:
            out.append(f"\n   OpenSpiel hanabi via Python (same run): {c['hanabi_decisions_per_s']:,.0f} dec/s; ratios:")
            out.append(_table(c["ratio_to_hanabi"], [("players", "P", "int"), ("batch", "batch", "int"),
                                                     ("end_to_end", "end-to-end / hanabi", "ratio"),
                                                     ("engine", "engine / hanabi", "ratio")]))
        else:
            out.append(f"\n   hanabi: {c['hanabi']}")
    if "aec" in sec:
        a = sec["aec"]
        out.append("\n== aec: PettingZoo agent loop (agent_iter / last / random legal action), decisions/s ==")
        if "keine_ahnung" in a:
            out.append(f"   keine_ahnung_v0: {a['keine_ahnung']}")
        ratio_cols = sorted({k for r in a["rows"] for k in r if k.startswith("ratio_")})
        cols = [("env", "env", "str"), ("decisions_per_s", "dec/s", "int")]
        cols += [(k, f"KA {k[6:]} / env", "ratio") for k in ratio_cols]
        out.append(_table(a["rows"], cols))
        for r in a["rows"]:
            if r.get("note"):
                out.append(f"   {r['env']}: {r['note']}")
    if "sb3" in sec:
        s = sec["sb3"]
        out.append("\n== sb3: learner steps/s with heuristic opponents ==")
        if not s.get("available", False) and "sb3_vec_env_steps_per_s" not in s:
            out.append(f"   {s.get('reason')}")
        else:
            out.append(f"   {s['num_envs']} games, {s['players']} players, opponents: {s['opponents']}")
            if "sb3_vec_env_steps_per_s" in s:
                out.append(f"   sb3_vec_env:            {s['sb3_vec_env_steps_per_s']:>12,.0f} steps/s")
            if "dummy_vec_env_steps_per_s" in s:
                out.append(f"   DummyVecEnv(solo_env):  {s['dummy_vec_env_steps_per_s']:>12,.0f} steps/s")
                out.append(f"   speed-up:               {s['speedup']:>12.1f}x (measured in turns: "
                           f"{', '.join(f'{r:.1f}' for r in s['speedup_per_turn'])})")
            if s.get("reason"):
                out.append(f"   {s['reason']}")
            t = s.get("training", {})
            if "env_share" in t:
                out.append(f"   MaskablePPO ({t['num_envs']} envs, n_steps {t['n_steps']}, batch {t['batch_size']}, "
                           f"{t['n_epochs']} epochs, {t['iterations']} iterations): env {t['env_s']:.2f} s of "
                           f"{t['total_s']:.2f} s = {100 * t['env_share']:.1f}% of wall time")
            elif t:
                out.append(f"   training share: {t.get('reason')}")
    return "\n".join(out)


# -------------------------------------------------------------------------------------------- main


PROG = "python -m keine_ahnung_env.benchmark"
EXAMPLES = (
    "--quick",
    "--sections core,sb3 --json bench.json",
    "--quick --sections core --players 3 --batches 64,1024 --seed 1",
)


def _int_list(flag: str, text: str, allowed: str, low: int, high: int | None = None,
              game: str | None = None) -> tuple[int, ...]:
    """Comma-separated integers in ``low..high``; UsageError naming ``flag`` otherwise."""
    try:
        values = tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        values = ()
    if not values or min(values) < low or (high is not None and max(values) > high):
        raise usage_error(flag, text, allowed, game)
    return values


def _opponent_spec(text: str, spec: GameSpec) -> tuple[str, dict[str, Any]]:
    """``--sb3-opponent NAME[:key=value...]``: one of the game's agents and its keyword options
    (true/false, integers and numbers as such, other values as text); UsageError otherwise."""
    name, *pairs = str(text).split(":")
    if name not in spec.agents:
        raise UsageError(f"--sb3-opponent {text!r}: {spec.name} has no agent {name!r}; allowed: "
                         f"{', '.join(spec.agents)} (with :key=value options)")
    options: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key:
            raise UsageError(f"--sb3-opponent {text!r}: {pair!r} is not key=value")
        word = value.lower()
        if word in ("true", "false"):
            options[key] = word == "true"
        else:
            try:
                options[key] = int(value)
            except ValueError:
                try:
                    options[key] = float(value)
                except ValueError:
                    options[key] = value
    return name, options


def check_args(args: argparse.Namespace) -> argparse.Namespace:
    """Validates the parsed arguments in place (``--sections``, ``--players``, ``--batches`` become
    tuples); UsageError (a ValueError) naming the first bad one."""
    if args.sections is None:
        args.sections = ",".join(QUICK_SECTIONS if args.quick else SECTIONS)
    names = tuple(x.strip() for x in str(args.sections).split(",") if x.strip())
    unknown = [n for n in names if n not in SECTIONS]
    if unknown or not names:
        raise UsageError(f"--sections {args.sections!r}: unknown section(s) {', '.join(unknown) or '(none given)'}; "
                         f"allowed: comma-separated, from {', '.join(SECTIONS)}")
    args.sections = names
    game = registry.game("keine_ahnung_v0")  # the sections measure Keine Ahnung's engine
    args.players = _int_list("--players", args.players,
                             f"comma-separated player counts, integers {game.min_players}-{game.max_players}",
                             game.min_players, game.max_players, game.name)
    if args.batches is not None:
        args.batches = _int_list("--batches", args.batches, "comma-separated positive integers", 1)
    # 0 (like omitting them) leaves --repeats, --seconds and --sb3-envs at their defaults.
    if args.repeats is not None:
        check_int("--repeats", args.repeats, 0, allowed="a positive integer (0: the default)")
    if args.seconds is not None:
        check_number("--seconds", args.seconds, 0.0, allowed="a positive number of seconds (0: the default)")
    if args.warmup is not None:
        check_int("--warmup", args.warmup, 0)
    if args.sb3_envs is not None:
        check_int("--sb3-envs", args.sb3_envs, 0, allowed="a positive integer (0: the default)")
    args.sb3_opponent = _opponent_spec(args.sb3_opponent, registry.game_spec("keine_ahnung_v0", 4))
    check_seed(args.seed)
    check_json_path(args.json)
    return args


def parse_args(argv=None) -> argparse.Namespace:
    """The checked arguments of ``argv``; UsageError (a ValueError) for a bad one."""
    parser = Parser(PROG, description="Speed of the batched core, its wrappers and peer environments.",
                    examples=EXAMPLES)
    parser.add_argument("--quick", action="store_true", help="small repeat counts (under a minute)")
    add_json(parser, help="also write every figure to this JSON file")
    parser.add_argument("--sections", default=None,
                        help=f"comma-separated, from: {','.join(SECTIONS)} (default: all; --quick: "
                             f"{','.join(QUICK_SECTIONS)})")
    parser.add_argument("--players", default="2,4", help="player counts, comma-separated (2-5)")
    parser.add_argument("--batches", default=None,
                        help=f"core batch sizes (default {','.join(map(str, FULL_BATCHES))}; "
                             f"--quick: {','.join(map(str, QUICK_BATCHES))})")
    parser.add_argument("--repeats", type=int, default=None, help="repeats per figure (median; default 5, quick 3)")
    parser.add_argument("--seconds", type=float, default=None, help="length of one repeat (default 1.0, quick 0.15)")
    parser.add_argument("--warmup", type=int, default=None,
                        help="core steps before timing, to desynchronise the games (default 400, quick 20)")
    parser.add_argument("--sb3-envs", type=int, default=None, help="games of the SB3 comparison (default 256, quick 64)")
    parser.add_argument("--sb3-opponent", default="counter",
                        help="the three opponents of the SB3 comparison: one of the game's agents, with :key=value "
                             "options (default counter; e.g. greedy, counter:compiled=false)")
    add_seed(parser, help="seed of the games and the random players (an integer 0 to 2**32 - 1)")
    return check_args(parser.parse_args(argv))


def run(argv=None) -> dict[str, Any]:
    """Runs the selected sections, prints the tables, writes the JSON if asked; returns the results.
    Bad arguments raise ValueError (a ``UsageError``) before anything is measured."""
    args = parse_args(argv)
    cfg = Config(args)
    results: dict[str, Any] = {
        "command": "python -m keine_ahnung_env.benchmark" + ("" if argv is None and len(sys.argv) <= 1 else " ")
                   + " ".join(sys.argv[1:] if argv is None else argv),
        "machine": machine_info(),
        "config": cfg.as_dict(),
        "sections": {},
    }
    started = time.perf_counter()
    for name in SECTIONS:
        if name not in cfg.sections:
            continue
        t = time.perf_counter()
        results["sections"][name] = {"compile": section_compile, "core": section_core, "aec": section_aec,
                                     "sb3": section_sb3}[name](cfg)
        results["sections"][name]["seconds"] = time.perf_counter() - t
    results["seconds"] = time.perf_counter() - started
    try:
        results["load_average_end"] = [round(x, 2) for x in os.getloadavg()]
    except OSError:
        pass
    print(render(results))
    print(f"\n({results['seconds']:.1f} s)")
    if args.json:
        write_json_file(args.json, json.dumps(results, indent=1, default=float))
    return results


def main(argv=None) -> dict[str, Any]:
    """The command-line entry: :func:`run`; a bad argument is one line on stderr and exit status 2."""
    return run_command(run, argv)


if __name__ == "__main__":
    main()
