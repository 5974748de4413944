"""Soak run: a million random games across player counts and rules options, and a long training run.

    .venv/bin/python benchmarks/soak.py --games 1000000               # about 15-25 minutes on 2 busy cores
    .venv/bin/python -m benchmarks.soak --games 20000 --batch 1024    # a quick one (what ``pytest -m soak`` runs)
    .venv/bin/python benchmarks/soak.py --games 0 --train-minutes 10  # only the training soak

Games: the games are split evenly over ``VARIANTS`` (2-5 players, both memory modes, ``allow_keep``,
no reshuffle, every reward mode, small ``max_turns``, a small custom deck). Each variant runs one
batched core of ``--batch`` games; every step plays a uniformly random legal action in every live game
and deals a new game (``reset_games``) in every slot whose game ended, until the variant's share of
games has ended. Every ``--check-every`` steps cheap invariants are checked over the whole batch
(cards conserved, trophies conserved, masks non-empty exactly for live games, rewards only at the end
and zero-sum where the reward mode says so, the acting seat's observation finite and inside its
bounds); the first violation stops the run with an error.

Memory: the resident set size (``VmRSS`` of ``/proc/self/status``) is sampled at every progress line;
the figures printed are the RSS after the first variant's warm-up, at the middle and at the end, the
peak (``VmHWM``) and the growth from warm-up to the end.

Training (``--train-minutes N``): ``python -m training.train`` runs in a subprocess with a huge
``--total-timesteps``, self-play and periodic evaluation and checkpoints, and is stopped after N minutes;
its RSS is sampled every few seconds. The soak fails when the process exits on its own before then.

Exit status 0 when every check passed; the figures are also written as JSON with ``--json PATH``.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # the core's small matrix products: faster single-threaded

import argparse  # noqa: E402
import json  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from keine_ahnung_env.games.keine_ahnung import KeineAhnungCore, Rules  # noqa: E402
from keine_ahnung_env.games.keine_ahnung.actions import Phase  # noqa: E402
from keine_ahnung_env.games.keine_ahnung.core import (LOC_DRAW, LOC_LAYOUT, LOC_PENDING, LOC_PILE,  # noqa: E402
                                                      LOC_PRIZE)

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


class SoakError(AssertionError):
    """An invariant failed during the soak."""


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


def check_batch(core: KeineAhnungCore, variant: str, check_observation: bool = True) -> None:
    """Cheap whole-batch invariants (vectorised); raises SoakError naming the first violation."""
    t = core.tables
    B, N, T = core.num_envs, t.num_cards, t.num_trophies
    loc = core.card_loc

    def fail(what: str, rows: np.ndarray) -> None:
        b = int(np.flatnonzero(rows)[0])
        raise SoakError(f"[{variant}] {what} (game {b} of {B}; {int(rows.sum())} games affected): "
                        f"{core.snapshot(b)}")

    in_layout = (core.layout >= 0).sum(axis=(1, 2))
    bad = (loc == LOC_LAYOUT).sum(axis=1) != in_layout
    if bad.any():
        fail("layout cards and LOC_LAYOUT disagree", bad)
    bad = (loc == LOC_DRAW).sum(axis=1) != (core.draw_len - core.draw_pos)
    if bad.any():
        fail("draw pile size and LOC_DRAW disagree", bad)
    bad = (loc == LOC_PENDING).sum(axis=1) != (core.phase == Phase.PLACE_DRAWN)
    if bad.any():
        fail("a drawn card awaits a pile outside PLACE_DRAWN (or none inside it)", bad)
    bad = (loc < 0).any(axis=1) | (loc > 5).any(axis=1)
    if bad.any():
        fail("a card has no valid location", bad)
    # Every card id in a layout, the draw pile, a pile top or awaiting a pile (from the draw pile) lies
    # exactly there, and no id is in two of these places.
    pos = np.arange(N)[None, :]
    in_draw = (pos >= core.draw_pos[:, None]) & (pos < core.draw_len[:, None])
    drawn = np.where(core.phase == Phase.PLACE_DRAWN, core.pending, -1)[:, None]
    places = [(core.layout.reshape(B, -1), LOC_LAYOUT), (np.where(in_draw, core.draw_cards, -1), LOC_DRAW),
              (core.pile_top, LOC_PILE), (drawn, LOC_PENDING)]
    ids = []
    for cards, where in places:
        present = cards >= 0
        games = np.broadcast_to(np.arange(B)[:, None], cards.shape)
        bad = (present & (loc[games, np.where(present, cards, 0)] != where)).any(axis=1)
        if bad.any():
            fail(f"a card listed in location {where} has another card_loc", bad)
        ids.append((games * N + cards)[present])
    counts = np.bincount(np.concatenate(ids), minlength=B * N).reshape(B, N)
    if (counts > 1).any():
        fail("a card lies in two places", (counts > 1).any(axis=1))
    prize_points = np.where(loc == LOC_PRIZE, np.maximum(t.prize_value, 0)[None, :], 0).sum(axis=1)
    bad = prize_points != core.prize_points.sum(axis=1)
    if bad.any():
        fail("prize points do not add up to the won prizes", bad)
    # Trophies conserved: won = owned, points = sum of owned values, pile = the rest.
    won = core.trophy_owner >= 0
    bad = (won.sum(axis=1) != core.trophy_pos) | (core.trophy_count.sum(axis=1) != core.trophy_pos)
    if bad.any():
        fail("trophies won and trophy counts disagree", bad)
    bad = np.where(won, core.trophy_order, 0).sum(axis=1) != core.trophy_points.sum(axis=1)
    if bad.any():
        fail("trophy points do not add up to the won trophies", bad)
    bad = np.sort(core.trophy_order, axis=1) != np.sort(t.trophies)[None, :]
    if bad.any():
        fail("the trophy set changed", bad.any(axis=1))
    done = core.terminated | core.truncated
    bad = core.terminated != (core.trophy_pos == T)
    if bad.any():
        fail("terminated does not match 'the last trophy was won'", bad)
    bad = (core.phase == Phase.OVER) != done
    if bad.any():
        fail("phase OVER does not match terminated | truncated", bad)
    bad = core.turn > core.rules.max_turns
    if bad.any():
        fail("more turns than max_turns", bad)
    any_legal = core.legal_mask.any(axis=1)
    if (any_legal == done).any():
        fail("a live game without a legal action, or a finished game with one", any_legal == done)
    if not np.isfinite(core.rewards).all():
        fail("non-finite rewards", ~np.isfinite(core.rewards).all(axis=1))
    if check_observation:
        obs = core.observe(core.current)
        high = core.obs_layout.high(t)
        bad = ~np.isfinite(obs).all(axis=1) | (obs < 0).any(axis=1) | (obs > high).any(axis=1)
        if bad.any():
            fail("an observation is non-finite or outside [0, high]", bad)


def check_rewards(core: KeineAhnungCore, ended: np.ndarray, live_before: np.ndarray, variant: str) -> None:
    """Rewards only in the step a game ends; zero-sum for "win" and "rank"; 0 when truncated."""
    rewards = core.rewards
    still = live_before & ~(core.terminated | core.truncated)
    if np.abs(rewards[still]).max(initial=0.0) != 0.0:
        raise SoakError(f"[{variant}] a game that did not end was paid a reward")
    trunc = ended[core.truncated[ended] & ~core.terminated[ended]]
    if np.abs(rewards[trunc]).max(initial=0.0) != 0.0:
        raise SoakError(f"[{variant}] a truncated game was paid a reward")
    if core.rules.reward in ("win", "rank"):
        term = ended[core.terminated[ended]]
        if term.size and np.abs(rewards[term].sum(axis=1)).max() > 1e-4:
            raise SoakError(f"[{variant}] rewards of a finished game do not sum to 0 ({core.rules.reward!r})")


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
               variants: list[tuple[str, dict]] | None = None, out=sys.stdout) -> dict:
    """Plays ``games`` random games split over ``variants``; returns the figures (see the module docstring)."""
    variants = VARIANTS if variants is None else variants
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
        rules = Rules.make(options.pop("num_players"), **options)
        core = KeineAhnungCore(min(batch, target), rules, seed=seed + v)
        rng = np.random.default_rng([seed, v])
        figures = Figures()
        v_start = time.perf_counter()
        steps = 0
        started = core.num_envs  # games dealt; every dealt game is played to its end (no bias to short games)
        while figures.games < target:
            live_before = ~(core.terminated | core.truncated)
            core.step(random_legal(rng, core.legal_mask))
            n_live = int(live_before.sum())
            figures.decisions += n_live
            total.decisions += n_live
            steps += 1
            done = core.terminated | core.truncated
            ended = np.flatnonzero(done & live_before)
            if steps % check_every == 0:
                check_rewards(core, ended, live_before, name)
                check_batch(core, name)
                figures.checks += 1
                total.checks += 1
            if ended.size:
                turns = core.turn[ended].astype(np.int64)
                trunc = int((core.truncated[ended] & ~core.terminated[ended]).sum())
                figures.add(turns, trunc)
                total.add(turns, trunc)
                deal = ended[: target - started]
                if deal.size:
                    core.reset_games(deal)
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
                      f"games/s  RSS {rss:7.1f} MiB  [{name}]", file=out, flush=True)
        check_batch(core, name)
        seconds = time.perf_counter() - v_start
        per_variant[name] = figures.as_dict(seconds)
        print(f"{name:<55} {figures.games:>8,} games {per_variant[name]['games_per_s']:7.0f}/s  turns "
              f"{figures.turn_min}-{figures.turn_max} (mean {per_variant[name]['turns_mean']:.1f})  "
              f"truncated {figures.truncated}", file=out, flush=True)
        del core
    seconds = time.perf_counter() - start
    memory["end_mb"], memory["peak_mb"] = rss_mb()
    memory.setdefault("warm_mb", memory["start_mb"])
    memory.setdefault("middle_mb", memory["end_mb"])
    memory["growth_after_warmup_mb"] = memory["end_mb"] - memory["warm_mb"]
    memory["samples"] = samples
    result = {"total": total.as_dict(seconds), "variants": per_variant, "memory": memory, "batch": batch,
              "seed": seed}
    t = result["total"]
    print(f"\nsoak: {t['games']:,} games, {t['decisions']:,} decisions in {seconds:,.0f} s "
          f"({t['games_per_s']:,.0f} games/s, {t['decisions_per_s']:,.0f} decisions/s)", file=out)
    if t["games"]:
        print(f"turns per game: min {t['turns_min']}, max {t['turns_max']}, mean {t['turns_mean']:.1f}; "
              f"truncated {t['truncated']:,}; decisions per game {t['decisions_per_game']:.1f}; "
              f"invariant checks {t['invariant_checks']:,} (each over a whole batch)", file=out)
    print(f"RSS MiB: start {memory['start_mb']:.1f}, after warm-up {memory['warm_mb']:.1f}, middle "
          f"{memory['middle_mb']:.1f}, end {memory['end_mb']:.1f}, peak {memory['peak_mb']:.1f} "
          f"(growth after warm-up {memory['growth_after_warmup_mb']:+.1f})", file=out, flush=True)
    return result


def soak_training(minutes: float, players: int = 4, seed: int = 0, out_dir: str | None = None,
                  sample_every: float = 5.0, extra_args: list[str] | None = None, out=sys.stdout) -> dict:
    """Runs ``training.train`` in a subprocess for ``minutes`` and samples its memory; see the docstring."""
    work = Path(out_dir) if out_dir else Path(tempfile.mkdtemp(prefix="soak_train_"))
    work.mkdir(parents=True, exist_ok=True)
    log_path = work / "train.log"
    cmd = [sys.executable, "-m", "training.train", "--players", str(players), "--total-timesteps", "1000000000",
           "--seed", str(seed), "--out-dir", str(work), "--run-name", "soak", "--no-progress", "--self-play",
           "--snapshot-every", "2", "--eval-every", "10", "--eval-games", "20", "--torch-threads", "1",
           "--recipe", "plain"]
    cmd += list(extra_args or [])
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", PYTHONUNBUFFERED="1")
    samples: list[tuple[float, float]] = []
    print(f"training soak for {minutes:g} min: {' '.join(cmd[1:])}\n  log: {log_path}", file=out, flush=True)
    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd, cwd=str(ROOT), stdout=log, stderr=subprocess.STDOUT, env=env)
        start = time.monotonic()
        deadline = start + minutes * 60.0
        next_print = start + 60.0
        while time.monotonic() < deadline and proc.poll() is None:
            time.sleep(min(sample_every, max(0.0, deadline - time.monotonic())))
            rss = rss_mb(proc.pid)[0]
            if rss == rss:  # not NaN: the process is still there
                samples.append((time.monotonic() - start, rss))
            if time.monotonic() >= next_print:
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
        "minutes": elapsed / 60.0, "exited_early": exited_early, "returncode": proc.returncode,
        "rss_first_mb": rss[0] if rss else None, "rss_after_warmup_mb": after[0] if after else None,
        "rss_middle_mb": after[len(after) // 2] if after else None, "rss_end_mb": rss[-1] if rss else None,
        "rss_max_mb": max(rss) if rss else None, "peak_mb": peak if peak == peak else None,
        "checkpoints_written": len(checkpoints), "log_tail": tail, "work_dir": str(work),
    }
    if after:
        result["growth_after_warmup_mb"] = after[-1] - after[0]
    print(f"training soak: {result['minutes']:.1f} min, {'EXITED EARLY (rc ' + str(proc.returncode) + ')' if exited_early else 'stopped as planned'}, "
          f"{len(checkpoints)} checkpoints; RSS MiB first {result['rss_first_mb']}, after warm-up "
          f"{result['rss_after_warmup_mb']}, middle {result['rss_middle_mb']}, end {result['rss_end_mb']}, "
          f"max {result['rss_max_mb']}", file=out, flush=True)
    if exited_early:
        print("  last lines of the log:\n    " + "\n    ".join(tail), file=out, flush=True)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=1_000_000, help="random games in all (split over the variants)")
    parser.add_argument("--batch", type=int, default=4096, help="games per batched core")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--check-every", type=int, default=25, help="steps between whole-batch invariant checks")
    parser.add_argument("--report-every", type=float, default=30.0, help="seconds between progress lines")
    parser.add_argument("--train-minutes", type=float, default=0.0, help="also run training.train for this long")
    parser.add_argument("--train-players", type=int, default=4)
    parser.add_argument("--train-dir", default=None, help="where the training soak writes (default: a temp dir)")
    parser.add_argument("--json", default=None, help="write the figures here as JSON")
    args = parser.parse_args(argv)
    if args.games < 0 or args.batch < 1 or args.check_every < 1:
        parser.error("--games >= 0, --batch >= 1 and --check-every >= 1 are required")
    result: dict = {"argv": sys.argv[1:] if argv is None else list(argv)}
    status = 0
    if args.games:
        print(f"soak: {args.games:,} games over {len(VARIANTS)} variants, batch {args.batch}, seed {args.seed}",
              flush=True)
        result["games"] = soak_games(args.games, batch=args.batch, seed=args.seed, check_every=args.check_every,
                                     report_every=args.report_every)
    if args.train_minutes > 0:
        result["training"] = soak_training(args.train_minutes, players=args.train_players, seed=args.seed,
                                           out_dir=args.train_dir)
        status = 1 if result["training"]["exited_early"] else 0
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=2, default=float))
    return status


if __name__ == "__main__":
    sys.exit(main())
