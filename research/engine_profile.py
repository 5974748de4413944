"""Where the batched step's time goes, and what the benchmark's loops cost by themselves.

    .venv/bin/python research/engine_profile.py                        # every section (a minute or two)
    .venv/bin/python research/engine_profile.py --quick --sections profile --json profile.json

The studies beside ``python -m keine_ahnung_env.benchmark`` (which measures the speed a user gets;
its helpers, ``Config`` and the in-turns measurement, are reused here). Sections (``--sections``):

* ``profile``: ``cProfile`` of the batched Keine Ahnung step (4 players, random legal play, finished
  games re-dealt): the top functions by own time per step.
* ``fill``: rows per second of only writing a fresh ``[batch, O]`` float32 observation array (zeros,
  in parallel like the observe kernel): the memory traffic of the observations alone, the ceiling of
  the benchmark's "with the observation" rate, per player count and batch.
* ``ceiling``: what the PettingZoo agent loop costs by itself: a do-nothing env through the classic
  wrappers (no wrapped env can beat it) and bare; the 4-player ``env()`` against the wrapped do-nothing
  env and the unwrapped ``raw_env`` s of Keine Ahnung and ``connect_four_v3`` side by side, each pair
  measured in turns (the ratio is the median of the turns' ratios).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

# The repository root first on the path: this tree's package, whatever is installed.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import argparse  # noqa: E402
import cProfile  # noqa: E402
import json  # noqa: E402
import pstats  # noqa: E402
import time  # noqa: E402
from types import SimpleNamespace  # noqa: E402
from typing import Any, Callable  # noqa: E402

import numpy as np  # noqa: E402
from numba import njit, prange  # noqa: E402

from keine_ahnung_env.benchmark import (Config, _aec_loop, _aec_rate, _median, _table, _warm,  # noqa: E402
                                        in_turns, machine_info, peer_rate, timed_repeats)
from keine_ahnung_env.sampling import sample_masked  # noqa: E402

SECTIONS = ("profile", "fill", "ceiling")


def section_profile(cfg: Config, top: int = 14) -> dict[str, Any]:
    """cProfile of random-play steps of the batched core: the top functions by own time."""
    from keine_ahnung_env.games.keine_ahnung import KeineAhnungCore, Rules

    batch = 1024 if cfg.quick else 4096
    batch = min(batch, max(cfg.batches))
    steps = 20 if cfg.quick else 60
    core = KeineAhnungCore(batch, Rules.make(4), seed=cfg.seed)
    rng = np.random.default_rng(cfg.seed)
    _warm(core, rng, sample_masked, cfg)
    profiler = cProfile.Profile()
    for _ in range(steps):
        a = sample_masked(rng, core.legal_mask)
        profiler.enable()
        core.step(a)
        done = np.flatnonzero(core.terminated | core.truncated)
        if done.size:
            core.reset_games(done)
        profiler.disable()
    stats = pstats.Stats(profiler)
    total = stats.total_tt
    rows = []
    for (filename, line, name), (cc, nc, tt, ct, _) in sorted(stats.stats.items(), key=lambda kv: -kv[1][2])[:top]:
        where = f"{os.path.basename(filename)}:{line}" if filename != "~" else "builtin"
        rows.append({"function": f"{name} ({where})", "calls_per_step": nc / steps, "own_ms_per_step": tt / steps * 1e3,
                     "cum_ms_per_step": ct / steps * 1e3, "own_share": tt / total})
    return {"players": 4, "batch": batch, "steps": steps, "profiled_ms_per_step": total / steps * 1e3, "rows": rows,
            "note": "step + legal mask + re-deals of finished games, under cProfile (which inflates call-heavy code)"}


@njit(cache=True, parallel=True)
def _fill_rows(out, chunks):
    """Writes zeros into every row of ``out``, in ``chunks`` ranges over the threads (as the observe kernel
    splits a batch)."""
    n = out.shape[0]
    for c in prange(chunks):
        for i in range(c * n // chunks, (c + 1) * n // chunks):
            for j in range(out.shape[1]):
                out[i, j] = 0.0


def measure_fill(num_players: int, batch: int, cfg: Config) -> float:
    """Rows per second of only writing a fresh ``[batch, O]`` float32 observation array (zeros, in parallel
    like the observe kernel): the memory traffic of the observations alone, a ceiling for the
    "with the observation" rate."""
    from keine_ahnung_env.games.keine_ahnung import KeineAhnungCore, Rules

    core = KeineAhnungCore(1, Rules.make(num_players), seed=cfg.seed)
    size, chunks = core.observation_size, max(1, core._chunks(batch))

    def once():
        n, start = 0, time.perf_counter()
        while True:
            _fill_rows(np.empty((batch, size), np.float32), chunks)
            n += batch
            if time.perf_counter() - start >= cfg.seconds:
                return n, time.perf_counter() - start, {}

    _fill_rows(np.empty((1, size), np.float32), 1)
    return _median([n / w for n, w, _ in timed_repeats(once, cfg.repeats)])


def aec_pair(make_env: Callable[[], Any], make_peer: Callable[[], Any], cfg: Config, seed: int) -> dict[str, Any]:
    """Two envs' agent loops measured in turns (the env's repeat, the peer's, the env's, ...): their
    median rates and the median of the per-turn ratios env / peer (``in_turns``)."""
    env, once = _aec_loop(make_env, cfg, seed)
    peer, peer_once = _aec_loop(make_peer, cfg, seed)
    rates = in_turns([once, peer_once], cfg.repeats)
    env.close()
    peer.close()
    ratios = [a / b for a, b in zip(*rates)]
    return {"rate": _median(rates[0]), "peer_rate": _median(rates[1]), "ratio": _median(ratios), "ratios": ratios}


def noop_aec_env(wrapped: bool = True):
    """A 4-player AEC env that does nothing (a fixed 8-value observation, 4 legal actions, 160
    decisions a game), wrapped like PettingZoo's classic games: no env stepped by the agent loop
    through those wrappers can be faster, so its rate is the ceiling of that loop."""
    from gymnasium import spaces
    from pettingzoo import AECEnv
    from pettingzoo.utils import wrappers

    class NoOpEnv(AECEnv):
        metadata = {"name": "noop_v0", "is_parallelizable": False, "render_modes": []}

        def __init__(self):
            super().__init__()
            self.possible_agents = [f"player_{i}" for i in range(4)]
            self._observation = {"observation": np.zeros(8, np.int8), "action_mask": np.ones(4, np.int8)}
            self._obs_space = spaces.Dict({"observation": spaces.Box(0, 1, (8,), np.int8),
                                           "action_mask": spaces.Box(0, 1, (4,), np.int8)})

        def observation_space(self, agent):
            return self._obs_space

        def action_space(self, agent):
            return spaces.Discrete(4)

        def observe(self, agent):
            return self._observation

        def reset(self, seed=None, options=None):
            self.agents = self.possible_agents[:]
            self.rewards = {a: 0 for a in self.agents}
            self._cumulative_rewards = {a: 0 for a in self.agents}
            self.terminations = {a: False for a in self.agents}
            self.truncations = {a: False for a in self.agents}
            self.infos = {a: {} for a in self.agents}
            self._decisions = 0
            self.agent_selection = self.agents[0]

        def step(self, action):
            if self.terminations[self.agent_selection] or self.truncations[self.agent_selection]:
                return self._was_dead_step(action)
            self._decisions += 1
            if self._decisions >= 160:
                self.terminations = {a: True for a in self.agents}
            self.agent_selection = self.agents[self._decisions % 4]
            self._cumulative_rewards[self.agent_selection] = 0
            self._accumulate_rewards()

    env = NoOpEnv()
    if wrapped:
        env = wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(
            wrappers.TerminateIllegalWrapper(env, illegal_reward=-1)))
    return env


def section_ceiling(cfg: Config) -> dict[str, Any]:
    """What the PettingZoo agent loop costs by itself: a do-nothing env through the classic wrappers and bare;
    the wrapped ``env()`` of Keine Ahnung (4 players) against the wrapped do-nothing env, and its
    unwrapped ``raw_env`` against ``connect_four_v3``'s, each pair measured in turns (``aec_pair``)."""
    from keine_ahnung_env import keine_ahnung_v0

    wrapped = aec_pair(lambda: keine_ahnung_v0.env(num_players=4), noop_aec_env, cfg, cfg.seed)
    out: dict[str, Any] = {"noop_wrapped": wrapped["peer_rate"],
                           "noop_raw": _aec_rate(lambda: noop_aec_env(wrapped=False), cfg, cfg.seed),
                           "keine_ahnung_wrapped_4p": wrapped["rate"], "wrapped_vs_noop": wrapped["ratio"],
                           "wrapped_vs_noop_per_turn": wrapped["ratios"]}
    connect_four, why = peer_rate("pettingzoo connect_four_v3", cfg)
    if connect_four is None:
        out["keine_ahnung_raw_4p"] = _aec_rate(lambda: keine_ahnung_v0.raw_env(num_players=4), cfg, cfg.seed)
        out["note"] = why
        return out
    from pettingzoo.classic import connect_four_v3

    raw = aec_pair(lambda: keine_ahnung_v0.raw_env(num_players=4), connect_four_v3.raw_env, cfg, cfg.seed)
    out.update(keine_ahnung_raw_4p=raw["rate"], connect_four_raw=raw["peer_rate"], raw_ratio=raw["ratio"],
               raw_ratio_per_turn=raw["ratios"])
    out["noop_wrapped_vs_connect_four"] = out["noop_wrapped"] / connect_four
    return out


def render(sections: dict[str, Any]) -> str:
    """The sections as text tables."""
    out = []
    if "profile" in sections:
        pr = sections["profile"]
        out.append(f"\n== profile: batched step, {pr['players']} players, batch {pr['batch']}, {pr['steps']} steps, "
                   f"{pr['profiled_ms_per_step']:.2f} ms/step under cProfile ==")
        out.append(_table(pr["rows"], [("function", "function", "str"), ("calls_per_step", "calls/step", "ms"),
                                       ("own_ms_per_step", "own ms/step", "ms"), ("cum_ms_per_step", "cum ms/step", "ms"),
                                       ("own_share", "own share", "pct")]))
    if "fill" in sections:
        out.append("\n== fill: writing fresh [batch, O] float32 observation rows (zeros, in parallel), no engine ==")
        out.append(_table(sections["fill"]["rows"], [("players", "P", "int"), ("batch", "batch", "int"),
                                                     ("fill_rows_per_s", "rows/s", "int")]))
    if "ceiling" in sections:
        c = sections["ceiling"]
        out.append("\n== ceiling: the PettingZoo agent loop by itself (random legal actions), decisions/s ==")
        out.append(f"   ceiling of this loop: a do-nothing env through the classic wrappers {c['noop_wrapped']:,.0f} "
                   f"dec/s, bare {c['noop_raw']:,.0f}")
        out.append(f"   keine_ahnung_v0 env(num_players=4) against the wrapped do-nothing env, in turns: "
                   f"{c['keine_ahnung_wrapped_4p']:,.0f} dec/s, {c['wrapped_vs_noop']:.2f}x the ceiling (median of the "
                   f"turns' ratios {', '.join(f'{r:.2f}' for r in c['wrapped_vs_noop_per_turn'])})")
        if "noop_wrapped_vs_connect_four" in c:
            out.append(f"   (the wrapped do-nothing env is {c['noop_wrapped_vs_connect_four']:.2f}x connect_four_v3); "
                       f"unwrapped raw_env: keine_ahnung_v0 4p {c['keine_ahnung_raw_4p']:,.0f}, connect_four_v3 "
                       f"{c['connect_four_raw']:,.0f} dec/s ({c['raw_ratio']:.2f}x, in turns: "
                       f"{', '.join(f'{r:.2f}' for r in c['raw_ratio_per_turn'])})")
        elif c.get("note"):
            out.append(f"   unwrapped raw_env: keine_ahnung_v0 4p {c['keine_ahnung_raw_4p']:,.0f} dec/s; {c['note']}")
    return "\n".join(out)


def main(argv=None) -> dict[str, Any]:
    """Runs the selected sections, prints them and writes the JSON if asked; returns the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sections", default=",".join(SECTIONS), help=f"comma-separated, from {','.join(SECTIONS)}")
    parser.add_argument("--quick", action="store_true", help="small repeat counts")
    parser.add_argument("--players", default="2,4", help="player counts of the fill section, comma-separated")
    parser.add_argument("--batches", default="1,1024,4096", help="batch sizes of the fill section (the profile's: "
                        "4096, --quick 1024, at most the largest of these)")
    parser.add_argument("--repeats", type=int, default=None, help="repeats per figure (default 5, quick 3)")
    parser.add_argument("--seconds", type=float, default=None, help="length of one repeat (default 1.0, quick 0.15)")
    parser.add_argument("--warmup", type=int, default=None, help="core steps before profiling (default 400, quick 20)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--json", default=None, help="also write the figures to this JSON file")
    args = parser.parse_args(argv)
    names = [x.strip() for x in args.sections.split(",") if x.strip()]
    if not names or set(names) - set(SECTIONS):
        parser.error(f"--sections {args.sections!r}: allowed: comma-separated, from {', '.join(SECTIONS)}")
    try:
        players = [int(x) for x in args.players.split(",")]
        batches = [int(x) for x in args.batches.split(",")]
    except ValueError:
        parser.error("--players and --batches take comma-separated integers")
    if min(players) < 2 or max(players) > 5 or min(batches) < 1:
        parser.error("--players must be 2-5 and --batches positive")
    cfg = Config(SimpleNamespace(quick=args.quick, sections=tuple(names), players=tuple(players),
                                 batches=tuple(batches), repeats=args.repeats, seconds=args.seconds,
                                 warmup=args.warmup, sb3_envs=None, sb3_opponent=None, seed=args.seed))
    sections: dict[str, Any] = {}
    if "profile" in names:
        sections["profile"] = section_profile(cfg)
    if "fill" in names:
        sections["fill"] = {"rows": [{"players": p, "batch": b, "fill_rows_per_s": measure_fill(p, b, cfg)}
                                     for p in cfg.players for b in cfg.batches]}
    if "ceiling" in names:
        sections["ceiling"] = section_ceiling(cfg)
    print(f"Machine: {machine_info()}")
    print(render(sections))
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"machine": machine_info(), "sections": sections}, f, indent=1, default=float)
    return sections


if __name__ == "__main__":
    main()
