"""Soak run: a million random games of every registered game, at every table size and with the
interesting rules options, and a long training run.

    .venv/bin/python benchmarks/soak.py --games 1000000                   # the documented run: 1,000,000 per game
    .venv/bin/python benchmarks/soak.py --games 20000 --game gap_v0       # one game only
    .venv/bin/python -m benchmarks.soak --games 20000 --batch 1024        # a quick one (as ``pytest -m soak`` runs it)
    .venv/bin/python benchmarks/soak.py --games 0 --train-minutes 10      # only the training soak

Games: ``--games N`` random games of each game (``registry.games()``, or the one ``--game`` names),
split evenly over its variants (:func:`variants`): every table size of its player range, plus the
rules options worth shaking (``RULES_VARIANTS``; Keine Ahnung: both memory modes, ``allow_keep``, no
reshuffle, every reward mode, small ``max_turns``, a small custom deck). Each variant runs one batched
core of ``--batch`` games made through the game door (``GameSpec.make_core``); every step plays a
uniformly random legal action in every live game and deals a new game (``reset_games``) in every slot
whose game ended, until the variant's share of games has ended.

Checks: every ``--check-every`` steps, over the whole batch, the invariants every game owes through the
``BatchedCore`` protocol (:class:`Checker`): masks non-empty exactly for live games, ``done`` =
``terminated | truncated`` and never both, the seat to act in range, rewards finite, paid only in the
step a game ends (unless the game's rules pay during it), nothing for a truncated game, summing to 0
where the reward mode is zero-sum, turn counters that never fall and stay within ``max_turns`` (a
truncated game at it), the acting seat's observation finite and inside ``[0, spec.observation_high]``;
every new deal starts live with no reward. Then the game's own invariants (cards conserved
and so on): the function ``violations(core)`` of the module ``invariants.py`` in the game's folder
(the package of its core class), where there is one. The first violation stops the game's soak with
:class:`SoakError`, naming the game, the variant and the state of the first game affected.

Memory: the resident set size (``VmRSS`` of ``/proc/self/status``) is sampled at every progress line;
per game the figures are the RSS after its first variant's warm-up, at its middle and at its end, the
process peak (``VmHWM``) and the growth from warm-up to the end.

Training (``--train-minutes N``): ``python -m training.train`` runs in a subprocess for the game
``--env`` names with a huge ``--total-timesteps``, self-play and periodic evaluation and checkpoints,
and is stopped after N minutes; its RSS is sampled every few seconds. The soak fails when the process
exits on its own before then.

Exit status 0 when every check passed; the figures are also written as JSON with ``--json PATH``
(``games``: per game, the totals, the variants and the memory figures).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # the core's small matrix products: faster single-threaded

import argparse  # noqa: E402
import importlib  # noqa: E402
import importlib.util  # noqa: E402
import json  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from types import ModuleType  # noqa: E402
from typing import Any  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from keine_ahnung_env import registry  # noqa: E402

DEFAULT_GAME = "keine_ahnung_v0"
"""The game of :func:`soak_games` and the training soak unless told otherwise."""

SMALL_DECK = {
    # 2 colours x 6 numbers x 3 copies, reveal/remove/refill on a few, 2 prizes, 4 trophies.
    "number_cards": [(c, n, {1: "reveal", 3: "remove", 5: "refill"}.get(n, "none") if k == 0 else "none")
                     for c in ("red", "blue") for n in range(1, 7) for k in range(3)],
    "prizes": [2, 0],
    "trophies": [3, 4, 5, 4],
}

VARIANTS: list[tuple[str, dict]] = [
    ("2p", dict(num_players=2)),
    ("3p memory=none", dict(num_players=3, memory="none")),
    ("4p", dict(num_players=4)),
    ("5p", dict(num_players=5)),
    ("4p allow_keep reward=rank", dict(num_players=4, allow_keep=True, reward="rank")),
    ("3p reshuffle_discards=False max_turns=150 reward=score",
     dict(num_players=3, reshuffle_discards=False, max_turns=150, reward="score")),
    ("5p memory=none allow_keep max_turns=300", dict(num_players=5, memory="none", allow_keep=True, max_turns=300)),
    ("2p small deck", dict(num_players=2, deck=SMALL_DECK)),
]
"""Keine Ahnung's variants (every table size among them)."""

RULES_VARIANTS: dict[str, list[tuple[str, dict]]] = {
    "keine_ahnung_v0": VARIANTS,
    "gap_v0": [
        ("2p", dict(num_players=2)),
        ("3p", dict(num_players=3)),
        ("4p", dict(num_players=4)),
        ("5p", dict(num_players=5)),
        ("4p flip_on_extra_turns=False reward=rank", dict(num_players=4, flip_on_extra_turns=False, reward="rank")),
        ("3p rounds=1 reward=score", dict(num_players=3, rounds=1, reward="score")),
        ("5p round_reward_scale=0.1 max_turns=400", dict(num_players=5, round_reward_scale=0.1, max_turns=400)),
        ("2p rounds=6 max_turns=300", dict(num_players=2, rounds=6, max_turns=300)),
    ],
    "dnp_v0": [
        ("2p", dict(num_players=2)),
        ("3p", dict(num_players=3)),
        ("4p", dict(num_players=4)),
        ("5p", dict(num_players=5)),
        ("4p finisher_set=closed reward=rank", dict(num_players=4, finisher_set="closed", reward="rank")),
        ("3p win_points=2 reward=score", dict(num_players=3, win_points=2, reward="score")),
        ("2p win_rounds=1 max_turns=60", dict(num_players=2, win_rounds=1, max_turns=60)),
        ("5p finisher_set=closed max_turns=300", dict(num_players=5, finisher_set="closed", max_turns=300)),
    ],
}
"""The variants each game is soaked with; a game missing here (or a table size no listed variant seats)
gets its default rules at that table size (:func:`variants`)."""


class SoakError(AssertionError):
    """An invariant failed during the soak."""


def variants(game: str) -> list[tuple[str, dict]]:
    """The variants ``game`` is soaked with: ``RULES_VARIANTS[game]``, plus the default rules at every
    table size of the game's player range that none of them seats; each ``(label, options)`` with
    ``options["num_players"]``."""
    listed = list(RULES_VARIANTS.get(game, []))
    seated = {options["num_players"] for _, options in listed}
    extra = [(f"{p}p", dict(num_players=p)) for p in registry.game(game).players if p not in seated]
    return sorted(extra + listed, key=lambda v: (v[1]["num_players"], v not in extra)) if extra else listed


_game_variants = variants  # for soak_games, whose argument of the same name it fills


def rss_mb(pid: int | str = "self") -> tuple[float, float]:
    """(VmRSS, VmHWM) of a process in MiB from ``/proc``; (nan, nan) where unavailable."""
    values = {"VmRSS": float("nan"), "VmHWM": float("nan")}
    try:
        with open(f"/proc/{pid}/status") as status:
            for line in status:
                key = line.split(":", 1)[0]
                if key in values:
                    values[key] = int(line.split()[1]) / 1024.0
    except OSError:
        pass
    return values["VmRSS"], values["VmHWM"]


def random_legal(rng: np.random.Generator, mask: np.ndarray) -> np.ndarray:
    """One uniformly random legal action per row (0 for rows without one)."""
    counts = mask.sum(axis=1)
    pick = (rng.random(mask.shape[0]) * counts).astype(np.int64)
    cum = np.cumsum(mask, axis=1)
    return np.where(counts > 0, (cum <= pick[:, None]).sum(axis=1), 0).astype(np.int64)


# ------------------------------------------------------------------------------------------ the checks


def invariants_module(core: Any) -> ModuleType | None:
    """The module ``invariants`` beside the game's core (``games/<game>/invariants.py``), or None."""
    package = type(core).__module__.rpartition(".")[0]
    name = f"{package}.invariants"
    try:
        if not package or importlib.util.find_spec(name) is None:
            return None
    except ModuleNotFoundError:
        return None
    return importlib.import_module(name)


def spec_of(core: Any):
    """The registered game spec of ``core``'s variant (for callers that hold only a core): the game
    whose cores are of the same class, with the core's player count and rules options."""
    options = dict(core.rules.options())
    options.pop("num_players", None)
    for name in registry.games():
        if registry.game(name).rules_class is type(core.rules):
            return registry.game_spec(name, core.num_players, **options)
    raise ValueError(f"no registered game makes cores of type {type(core).__name__}")


class Checker:
    """The soak's checks of one variant: the game-independent ones through the ``BatchedCore``
    protocol and ``spec`` (see the module docstring), then the game's ``invariants.violations``."""

    def __init__(self, spec: Any, core: Any, label: str = ""):
        self.spec = spec
        self.label = label or f"{spec.name} {spec.num_players}p"
        self.high = np.asarray(spec.observation_high, np.float32)
        rules = dict(spec.rules)
        self.max_turns = rules.get("max_turns")
        self.invariants = invariants_module(core)
        only_at_end = getattr(self.invariants, "rewards_only_at_end", None)
        zero_sum = getattr(self.invariants, "zero_sum", None)
        self.rewards_only_at_end = bool(only_at_end(rules)) if only_at_end else True
        self.zero_sum = bool(zero_sum(rules)) if zero_sum else rules.get("reward") in ("win", "rank")

    def fail(self, core: Any, what: str, rows: np.ndarray) -> None:
        rows = np.asarray(rows, bool)
        b = int(np.flatnonzero(rows)[0])
        state = core.snapshot(b) if hasattr(core, "snapshot") else {}
        raise SoakError(f"[{self.label}] {what} (game {b} of {core.num_envs}; {int(rows.sum())} games affected): "
                        f"{state}")

    def batch(self, core: Any, check_observation: bool = True) -> None:
        """Whole-batch invariants of the state as it stands; raises SoakError at the first violation."""
        B, P = core.num_envs, core.num_players
        terminated, truncated = np.asarray(core.terminated, bool), np.asarray(core.truncated, bool)
        done = terminated | truncated
        for what, rows in self._generic(core, B, P, terminated, truncated, done, check_observation):
            if rows.any():
                self.fail(core, what, rows)
        if self.invariants is not None:
            for what, rows in self.invariants.violations(core):
                rows = np.asarray(rows, bool)
                if rows.any():
                    self.fail(core, what, rows)

    def _generic(self, core, B, P, terminated, truncated, done, check_observation):
        yield "done does not match terminated | truncated", np.asarray(core.done, bool) != done
        yield "a game both terminated and truncated", terminated & truncated
        current = np.asarray(core.current).astype(np.int64)
        yield "the seat to act is out of range", ~done & ((current < 0) | (current >= P))
        any_legal = np.asarray(core.legal_mask).any(axis=1)
        yield "a live game without a legal action, or a finished game with one", any_legal == done
        yield "non-finite rewards", ~np.isfinite(core.rewards).all(axis=1)
        turn = np.asarray(core.turn).astype(np.int64)
        yield "a negative turn counter", turn < 0
        if self.max_turns is not None:
            yield "more turns than max_turns", turn > self.max_turns
            yield "a game truncated before max_turns", truncated & (turn < self.max_turns)
        if check_observation:
            obs = core.observe(np.where(done, 0, current))
            bad = ~np.isfinite(obs).all(axis=1) | (obs < 0).any(axis=1) | (obs > self.high[None, :]).any(axis=1)
            yield "an observation is non-finite or outside [0, spec.observation_high]", bad

    def step(self, core: Any, live_before: np.ndarray, turn_before: np.ndarray) -> None:
        """The step just played: rewards only in the step a game ends (unless the rules pay during the
        game), none for a truncated game or a game over before the step, zero-sum where the reward mode
        says so; turn counters never fall, and stay put in a finished game."""
        rewards = np.asarray(core.rewards)
        terminated, truncated = np.asarray(core.terminated, bool), np.asarray(core.truncated, bool)
        done = terminated | truncated
        paid = (rewards != 0).any(axis=1)
        turn = np.asarray(core.turn).astype(np.int64)
        checks = [
            ("a game over before this step was paid a reward", ~live_before & paid),
            ("a truncated game was paid a reward", live_before & truncated & paid),
            ("a turn counter fell", turn < turn_before),
            ("a finished game's turn counter moved", ~live_before & (turn != turn_before)),
        ]
        if self.rewards_only_at_end:
            checks.append(("a game that did not end was paid a reward", live_before & ~done & paid))
        if self.zero_sum:
            ended = live_before & terminated
            checks.append((f"rewards of a finished game do not sum to 0 ({self.spec.rules.get('reward')!r})",
                           ended & (np.abs(rewards.sum(axis=1)) > 1e-4)))
        for what, rows in checks:
            if rows.any():
                self.fail(core, what, rows)

    def dealt(self, core: Any, games: np.ndarray) -> None:
        """Games just dealt again: live, with a legal action and no reward. (Not always at turn 0: a
        game may play turns that need no decision before its first one, as Keine Ahnung does when the
        first seat's drawn card is placed for it.)"""
        bad = (np.asarray(core.done, bool)[games] | (core.rewards[games] != 0).any(axis=1)
               | ~np.asarray(core.legal_mask)[games].any(axis=1))
        if bad.any():
            rows = np.zeros(core.num_envs, bool)
            rows[games[bad]] = True
            self.fail(core, "a new deal is not a live game without rewards", rows)


def check_batch(core: Any, variant: str, check_observation: bool = True, spec: Any = None) -> None:
    """Whole-batch invariants of ``core`` (game-independent and the game's own); raises SoakError naming
    the first violation. ``spec``: the variant's spec (default: looked up from the core)."""
    Checker(spec if spec is not None else spec_of(core), core, variant).batch(core, check_observation)


# ------------------------------------------------------------------------------------------ the games


class Figures:
    """Running totals of one soak."""

    def __init__(self):
        self.games = 0
        self.decisions = 0
        self.truncated = 0
        self.turn_min = np.iinfo(np.int64).max
        self.turn_max = 0
        self.turn_sum = 0
        self.checks = 0

    def add(self, turns: np.ndarray, truncated: int) -> None:
        if turns.size:
            self.games += int(turns.size)
            self.turn_min = min(self.turn_min, int(turns.min()))
            self.turn_max = max(self.turn_max, int(turns.max()))
            self.turn_sum += int(turns.sum())
            self.truncated += int(truncated)

    def as_dict(self, seconds: float) -> dict:
        return {
            "games": self.games, "decisions": self.decisions, "truncated": self.truncated,
            "turns_min": self.turn_min if self.games else None, "turns_max": self.turn_max if self.games else None,
            "turns_mean": self.turn_sum / self.games if self.games else None,
            "decisions_per_game": self.decisions / self.games if self.games else None,
            "seconds": seconds, "games_per_s": self.games / seconds if seconds else None,
            "decisions_per_s": self.decisions / seconds if seconds else None, "invariant_checks": self.checks,
        }


def soak_games(games: int, batch: int = 4096, seed: int = 0, check_every: int = 25, report_every: float = 30.0,
               variants: list[tuple[str, dict]] | None = None, out=sys.stdout, game: str = DEFAULT_GAME) -> dict:
    """Plays ``games`` random games of ``game`` split over ``variants`` (default: :func:`variants`);
    returns the figures (see the module docstring). Variant v's core is seeded ``seed + v`` and its
    moves drawn from ``np.random.default_rng([seed, v])``."""
    variants = _game_variants(game) if variants is None else variants
    share = [games // len(variants) + (1 if i < games % len(variants) else 0) for i in range(len(variants))]
    total = Figures()
    per_variant = {}
    memory = {"start_mb": rss_mb()[0]}
    samples: list[tuple[int, float]] = []
    start = last_report = time.perf_counter()
    middle_logged = False
    for v, ((name, options), target) in enumerate(zip(variants, share)):
        if target == 0:
            continue
        options = dict(options)
        spec = registry.game_spec(game, options.pop("num_players"), **options)
        core = spec.make_core(min(batch, target), seed + v)
        checker = Checker(spec, core, f"{game} {name}")
        rng = np.random.default_rng([seed, v])
        figures = Figures()
        v_start = time.perf_counter()
        steps = 0
        started = core.num_envs  # games dealt; every dealt game is played to its end (no bias to short games)
        checker.batch(core)
        while figures.games < target:
            live_before = ~core.done
            check_now = (steps + 1) % check_every == 0
            if check_now:
                turn_before = np.asarray(core.turn).astype(np.int64)
            core.step(random_legal(rng, core.legal_mask))
            n_live = int(live_before.sum())
            figures.decisions += n_live
            total.decisions += n_live
            steps += 1
            done = core.done
            ended = np.flatnonzero(done & live_before)
            if check_now:
                checker.step(core, live_before, turn_before)
                checker.batch(core)
                figures.checks += 1
                total.checks += 1
            if ended.size:
                turns = np.asarray(core.turn)[ended].astype(np.int64)
                trunc = int((core.truncated[ended] & ~core.terminated[ended]).sum())
                figures.add(turns, trunc)
                total.add(turns, trunc)
                deal = ended[: target - started]
                if deal.size:
                    core.reset_games(deal)
                    checker.dealt(core, deal)
                    started += deal.size
            if v == 0 and "warm_mb" not in memory and figures.games >= min(target, max(batch, target // 20)):
                memory["warm_mb"] = rss_mb()[0]
            if not middle_logged and total.games >= games // 2:
                memory["middle_mb"] = rss_mb()[0]
                middle_logged = True
            now = time.perf_counter()
            if now - last_report >= report_every:
                last_report = now
                rss = rss_mb()[0]
                samples.append((total.games, rss))
                print(f"  {total.games:>9,} games  {total.decisions:>13,} decisions  {total.games / (now - start):7.0f} "
                      f"games/s  RSS {rss:7.1f} MiB  [{game} {name}]", file=out, flush=True)
        checker.batch(core)
        seconds = time.perf_counter() - v_start
        per_variant[name] = figures.as_dict(seconds)
        print(f"{game} {name:<55} {figures.games:>8,} games {per_variant[name]['games_per_s']:7.0f}/s  turns "
              f"{figures.turn_min}-{figures.turn_max} (mean {per_variant[name]['turns_mean']:.1f})  "
              f"truncated {figures.truncated}", file=out, flush=True)
        del core
    seconds = time.perf_counter() - start
    memory["end_mb"], memory["peak_mb"] = rss_mb()
    memory.setdefault("warm_mb", memory["start_mb"])
    memory.setdefault("middle_mb", memory["end_mb"])
    memory["growth_after_warmup_mb"] = memory["end_mb"] - memory["warm_mb"]
    memory["samples"] = samples
    result = {"game": game, "total": total.as_dict(seconds), "variants": per_variant, "memory": memory,
              "batch": batch, "seed": seed}
    t = result["total"]
    print(f"\n{game}: {t['games']:,} games, {t['decisions']:,} decisions in {seconds:,.0f} s "
          f"({t['games_per_s'] or 0:,.0f} games/s, {t['decisions_per_s'] or 0:,.0f} decisions/s)", file=out)
    if t["games"]:
        print(f"turns per game: min {t['turns_min']}, max {t['turns_max']}, mean {t['turns_mean']:.1f}; "
              f"truncated {t['truncated']:,}; decisions per game {t['decisions_per_game']:.1f}; "
              f"invariant checks {t['invariant_checks']:,} (each over a whole batch)", file=out)
    print(f"RSS MiB: start {memory['start_mb']:.1f}, after warm-up {memory['warm_mb']:.1f}, middle "
          f"{memory['middle_mb']:.1f}, end {memory['end_mb']:.1f}, peak {memory['peak_mb']:.1f} "
          f"(growth after warm-up {memory['growth_after_warmup_mb']:+.1f})\n", file=out, flush=True)
    return result


def soak_all(games: int, names: list[str] | None = None, out=sys.stdout, **kwargs: Any) -> dict:
    """:func:`soak_games` of ``games`` games for each game in ``names`` (default: every registered game);
    returns ``{game: figures}``, with ``{"error": message}`` for a game whose checks failed (the others
    still run)."""
    results = {}
    for name in names or registry.games():
        print(f"{name}: {games:,} games over {len(variants(name))} variants", file=out, flush=True)
        try:
            results[name] = soak_games(games, game=name, out=out, **kwargs)
        except SoakError as error:
            print(f"{name}: FAILED: {error}", file=out, flush=True)
            results[name] = {"game": name, "error": str(error)}
    return results


def summary_table(results: dict) -> str:
    """The per-game figures as a Markdown table."""
    lines = ["| game | variants | games | decisions | wall time (s) | games/s | RSS growth after warm-up (MiB) | checks |",
             "|---|---|---:|---:|---:|---:|---:|---|"]
    for name, r in results.items():
        if "error" in r:
            lines.append(f"| {name} | | | | | | | FAILED: {r['error'][:200]} |")
            continue
        t, m = r["total"], r["memory"]
        lines.append(f"| {name} | {', '.join(r['variants'])} | {t['games']:,} | {t['decisions']:,} | "
                     f"{t['seconds']:,.0f} | {t['games_per_s'] or 0:,.0f} | {m['growth_after_warmup_mb']:+.1f} | "
                     f"{t['invariant_checks']:,} passed |")
    return "\n".join(lines)


# ------------------------------------------------------------------------------------------ training


def soak_training(minutes: float, players: int = 4, seed: int = 0, out_dir: str | None = None,
                  sample_every: float = 5.0, extra_args: list[str] | None = None, out=sys.stdout,
                  env: str = DEFAULT_GAME) -> dict:
    """Runs ``training.train`` on game ``env`` in a subprocess for ``minutes`` and samples its memory;
    see the module docstring."""
    work = Path(out_dir) if out_dir else Path(tempfile.mkdtemp(prefix="soak_train_"))
    work.mkdir(parents=True, exist_ok=True)
    log_path = work / "train.log"
    cmd = [sys.executable, "-m", "training.train", "--env", env, "--players", str(players),
           "--total-timesteps", "1000000000", "--seed", str(seed), "--out-dir", str(work), "--run-name", "soak",
           "--no-progress", "--self-play", "--snapshot-every", "2", "--eval-every", "10", "--eval-games", "20",
           "--torch-threads", "1", "--recipe", "plain"]
    cmd += list(extra_args or [])
    environ = dict(os.environ, OPENBLAS_NUM_THREADS="1", PYTHONUNBUFFERED="1")
    samples: list[tuple[float, float]] = []
    print(f"training soak for {minutes:g} min: {' '.join(cmd[1:])}\n  log: {log_path}", file=out, flush=True)
    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd, cwd=str(ROOT), stdout=log, stderr=subprocess.STDOUT, env=environ)
        start = time.monotonic()
        deadline = start + minutes * 60.0
        next_print = start + 60.0
        while time.monotonic() < deadline and proc.poll() is None:
            time.sleep(min(sample_every, max(0.0, deadline - time.monotonic())))
            rss = rss_mb(proc.pid)[0]
            if rss == rss:  # not NaN: the process is still there
                samples.append((time.monotonic() - start, rss))
            if time.monotonic() >= next_print and samples:
                next_print += 60.0
                print(f"  {samples[-1][0] / 60:5.1f} min  RSS {samples[-1][1]:7.1f} MiB", file=out, flush=True)
        exited_early = proc.poll() is not None
        peak = rss_mb(proc.pid)[1]
        if not exited_early:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    elapsed = time.monotonic() - start
    tail = log_path.read_text(errors="replace").splitlines()[-15:]
    checkpoints = sorted((work / "soak" / "checkpoints").glob("step_*.zip")) if (work / "soak").exists() else []
    rss = [r for _, r in samples]
    after = [r for t, r in samples if t >= min(60.0, elapsed / 4)] or rss
    result = {
        "env": env, "minutes": elapsed / 60.0, "exited_early": exited_early, "returncode": proc.returncode,
        "rss_first_mb": rss[0] if rss else None, "rss_after_warmup_mb": after[0] if after else None,
        "rss_middle_mb": after[len(after) // 2] if after else None, "rss_end_mb": rss[-1] if rss else None,
        "rss_max_mb": max(rss) if rss else None, "peak_mb": peak if peak == peak else None,
        "checkpoints_written": len(checkpoints), "log_tail": tail, "work_dir": str(work),
    }
    if after:
        result["growth_after_warmup_mb"] = after[-1] - after[0]
    print(f"training soak ({env}): {result['minutes']:.1f} min, "
          f"{'EXITED EARLY (rc ' + str(proc.returncode) + ')' if exited_early else 'stopped as planned'}, "
          f"{len(checkpoints)} checkpoints; RSS MiB first {result['rss_first_mb']}, after warm-up "
          f"{result['rss_after_warmup_mb']}, middle {result['rss_middle_mb']}, end {result['rss_end_mb']}, "
          f"max {result['rss_max_mb']}", file=out, flush=True)
    if exited_early:
        print("  last lines of the log:\n    " + "\n    ".join(tail), file=out, flush=True)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=1_000_000,
                        help="random games of each game (split over its variants)")
    parser.add_argument("--game", default=None, help="soak only this game (default: every registered game)")
    parser.add_argument("--batch", type=int, default=4096, help="games per batched core")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--check-every", type=int, default=25, help="steps between whole-batch invariant checks")
    parser.add_argument("--report-every", type=float, default=30.0, help="seconds between progress lines")
    parser.add_argument("--train-minutes", type=float, default=0.0, help="also run training.train for this long")
    parser.add_argument("--env", default=DEFAULT_GAME, help="the game of the training soak")
    parser.add_argument("--train-players", type=int, default=4)
    parser.add_argument("--train-dir", default=None, help="where the training soak writes (default: a temp dir)")
    parser.add_argument("--json", default=None, help="write the figures here as JSON")
    args = parser.parse_args(argv)
    if args.games < 0 or args.batch < 1 or args.check_every < 1:
        parser.error("--games >= 0, --batch >= 1 and --check-every >= 1 are required")
    for option, value in (("--game", args.game), ("--env", args.env)):
        if value is not None and value not in registry.games():
            parser.error(f"{option} {value!r}; registered games: {', '.join(registry.games())}")
    result: dict = {"argv": sys.argv[1:] if argv is None else list(argv), "games_per_game": args.games,
                    "batch": args.batch, "seed": args.seed, "check_every": args.check_every}
    status = 0

    def write() -> None:
        if args.json:
            Path(args.json).write_text(json.dumps(result, indent=2, default=float))

    if args.games:
        names = [args.game] if args.game else registry.games()
        print(f"soak: {args.games:,} games of each of {', '.join(names)}; batch {args.batch}, seed {args.seed}",
              flush=True)
        result["games"] = {}
        for name in names:
            result["games"].update(soak_all(args.games, [name], batch=args.batch, seed=args.seed,
                                            check_every=args.check_every, report_every=args.report_every))
            write()  # a long run leaves the games finished so far behind, whatever happens later
        print(summary_table(result["games"]), flush=True)
        status = 1 if any("error" in r for r in result["games"].values()) else 0
    if args.train_minutes > 0:
        result["training"] = soak_training(args.train_minutes, players=args.train_players, seed=args.seed,
                                           out_dir=args.train_dir, env=args.env)
        status = status or (1 if result["training"]["exited_early"] else 0)
    write()
    return status


if __name__ == "__main__":
    sys.exit(main())
