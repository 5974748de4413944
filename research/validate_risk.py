"""Checks the exact "Nothing fits anymore!" risk model: against Monte Carlo play-outs of the engine (the
arithmetic, and the belief's state sampler) and against the outcomes of real calls (calibration).

    .venv/bin/python research/validate_risk.py                 # 1,000 states x 4,000 play-outs (a few minutes)
    .venv/bin/python research/validate_risk.py --states 200 --playouts 1000
    .venv/bin/python research/validate_risk.py --real          # calibration in real play, 2-5 players, both memories
    .venv/bin/python research/validate_risk.py --real --games 1500 --players 4 --memories perfect --one-pool-table

**Monte Carlo (default).** States come from games played by a uniformly random agent and by ``greedy``
(which knows more of its cards), over 2-5 players and both memory modes, at moments where the seat to
act may call. For each state the cards that seat cannot place are re-dealt among their positions (each
shuffle's unseen cards among that shuffle's places: ``belief.py``) in every play-out and a real CALL is
resolved by the engine (``risk.monte_carlo_call_success``); the same number of games drawn by the
belief's sampler from the caller's observation alone (``belief.sample_states``) resolve a CALL too.
Printed: the mean absolute error between the exact value and the Monte Carlo estimate, how many exact
values fall in the per-state exact (Clopper-Pearson) 99% interval (about 1% may fall outside by
chance), and how many fall in the simultaneous 99% intervals (Bonferroni: each at 1 - 0.01 / states),
all of which should, for the play-outs and for the sampler. Exits with status 1 when a state falls
outside its simultaneous interval. These play-outs share the model's own assumption (the hidden cards
are a uniform draw from their pools), so they test the arithmetic, not the assumption.

**Real play (``--real``).** The assumption meets real outcomes: ``counter`` in every seat, a call forced
with probability ``--force`` (0.3) wherever it is legal, and every call (forced or chosen) recorded with
the model's value on the caller's observation (with ``memory="none"`` the value calibrated among
``counter`` players) and whether the caller's trophy count went up (``play_forced_calls`` of
``benchmarks/calibration.py``, the documented check on 1,000,000 calls per variant; this mode plays a
number of games, 1,024 at a time). Per player count and memory mode: the reliability table (calls,
mean predicted, observed, the observed rate's Poisson-binomial interval at 99% Bonferroni over the
table's bins, inside or not) and the Brier score, beside the Brier score of the one-pool model of
observation version 1. Exits with status 1 when a bin falls outside its interval.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

# research/ is not installed: its modules import each other from the repository root.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def validate(states: int = 1000, playouts: int = 4000, seed: int = 0, verbose: bool = True) -> dict:
    """Runs the check and returns its figures (see the module docstring)."""
    from keine_ahnung_env.stats import binomial_interval_contains
    from research.risk_engine_check import engine_check

    check = engine_check(states, playouts, seed=seed, sampler=True)
    exact, hits = check["exact"], check["hits"]
    sampled = np.array(check["sampled"])
    by_variant = [f"{P}p/{memory}/{policy}" for P, memory, policy in check["variants"]]
    exact_arr = np.array(exact)
    hits_arr = np.array(hits)
    estimate = hits_arr / playouts
    count = exact_arr.size
    inside_99 = binomial_interval_contains(exact_arr, hits_arr, playouts, 0.01)
    inside_family = binomial_interval_contains(exact_arr, hits_arr, playouts, 0.01 / count)
    figures = {
        "states": int(count), "playouts": int(playouts),
        "mean_abs_error": float(np.abs(exact_arr - estimate).mean()),
        "max_abs_error": float(np.abs(exact_arr - estimate).max()),
        "inside_99": int(inside_99.sum()), "inside_99_simultaneous": int(inside_family.sum()),
        "mean_exact": float(exact_arr.mean()), "certain_failures": int((exact_arr == 0).sum()),
        "certain_successes": int((exact_arr == 1).sum()), "seconds": check["seconds"],
        "sampler_inside_99_simultaneous": int(binomial_interval_contains(
            exact_arr, sampled, playouts, 0.01 / count).sum()),
        "sampler_mean_abs_error": float(np.abs(exact_arr - sampled / playouts).mean()),
    }
    if verbose:
        print(f"{count} states x {playouts} play-outs ({figures['seconds']:.0f} s); mean exact probability "
              f"{figures['mean_exact']:.3f} ({figures['certain_failures']} certain failures, "
              f"{figures['certain_successes']} certain successes)")
        print(f"mean absolute error |exact - Monte Carlo| = {figures['mean_abs_error']:.5f} "
              f"(max {figures['max_abs_error']:.5f})")
        print(f"inside the per-state 99% interval:      {figures['inside_99']} / {count}")
        print(f"inside the simultaneous 99% intervals:  {figures['inside_99_simultaneous']} / {count}")
        print(f"the belief's sampler (CALL in {playouts} sampled games per state): mean |exact - sampled| = "
              f"{figures['sampler_mean_abs_error']:.5f}, inside the simultaneous 99% intervals: "
              f"{figures['sampler_inside_99_simultaneous']} / {count}")
        for v in sorted(set(by_variant)):
            rows = [j for j, name in enumerate(by_variant) if name == v]
            err = np.abs(exact_arr[rows] - estimate[rows]).mean()
            print(f"  {v:<22} {len(rows):4d} states, mean |error| {err:.5f}, "
                  f"inside 99%: {int(inside_99[rows].sum())}/{len(rows)}")
    return figures


def real_play(players=(2, 3, 4, 5), memories=("perfect", "none"), games: int = 400, force: float = 0.3,
              seed: int = 0, verbose: bool = True, one_pool_table: bool = False) -> list[dict]:
    """The calibration tables of real play (see the module docstring); one dict per variant."""
    import time

    from research import calibration

    out = []
    for P in players:
        for memory in memories:
            start = time.time()
            run = calibration.play_forced_calls(P, memory, games=games, force=force, seed=seed + P, num_envs=1024)
            rows, brier = calibration.reliability_table(run.predicted, run.success)
            _, brier_v1 = calibration.reliability_table(run.predicted_v1, run.success)
            differ = np.abs(run.raw - run.predicted_v1) > 1e-9
            figures = {"players": P, "memory": memory, "games": run.games, "calls": int(run.predicted.size),
                       "forced": int(run.forced.sum()), "brier": brier, "brier_one_pool": brier_v1,
                       "calls_models_differ": int(differ.sum()), "rows": rows,
                       "all_inside": all(r.inside for r in rows), "seconds": time.time() - start}
            misread, _ = calibration.reliability_table(run.predicted, run.success & ~run.ended)
            figures["ended"] = int(run.ended.sum())
            figures["misread_bins_outside"] = [(r.low, r.calls, r.predicted, r.observed) for r in misread if not r.inside]
            out.append(figures)
            if verbose:
                print(f"\n### {P} players, memory={memory}: {figures['calls']} calls ({figures['forced']} forced) in "
                      f"{run.games} games ({figures['seconds']:.0f} s)\n")
                print(calibration.format_table(rows, brier))
                if differ.any() and one_pool_table:
                    rows_v1, _ = calibration.reliability_table(run.predicted_v1, run.success)
                    print("\nThe one-pool model of observation version 1 on the same calls:\n")
                    print(calibration.format_table(rows_v1, brier_v1))
                if differ.any():
                    print(f"One-pool model (observation version 1): Brier {brier_v1:.4f}; it differs from the exact "
                          f"model on {int(differ.sum())} calls (mean |difference| "
                          f"{np.abs(run.raw - run.predicted_v1)[differ].mean():.3f}), where the exact model's "
                          f"mean is {run.raw[differ].mean():.3f}, the one-pool model's "
                          f"{run.predicted_v1[differ].mean():.3f} and the observed rate {run.success[differ].mean():.3f}"
                          f"; Brier there {np.mean((run.raw[differ] - run.success[differ]) ** 2):.4f} against "
                          f"{np.mean((run.predicted_v1[differ] - run.success[differ]) ** 2):.4f}.")
                else:
                    print(f"One-pool model (observation version 1): the pool model's value before any calibration "
                          f"curve, on every call (Brier {brier_v1:.4f}).")
                bad = figures["misread_bins_outside"]
                print(f"Calls that won the last trophy: {figures['ended']} (every one a success). Read as failures (what "
                      f"a reader of the core after an autoreset sees: the next game's trophy count) they put "
                      f"{len(bad)} bin(s) outside: " + (", ".join(f"{lo:.1f}+ ({n} calls) predicted {p:.3f} observed "
                                                           f"{o:.3f}" for lo, n, p, o in bad) or "none") + ".")
    return out


def main(argv: list[str] | None = None) -> int:
    """Command-line entry; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--states", type=int, default=1000, help="states to check (at least 1)")
    parser.add_argument("--playouts", type=int, default=4000, help="Monte Carlo play-outs per state (at least 1)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the games and the play-outs")
    parser.add_argument("--real", action="store_true", help="calibration in real play instead of play-outs")
    parser.add_argument("--games", type=int, default=400, help="--real: games per player count and memory mode")
    parser.add_argument("--players", default="2,3,4,5", help="--real: player counts, comma-separated (2-5)")
    parser.add_argument("--memories", default="perfect,none", help="--real: memory modes, comma-separated")
    parser.add_argument("--force", type=float, default=0.3, help="--real: chance a legal call is forced")
    parser.add_argument("--one-pool-table", action="store_true",
                        help="--real: also print the one-pool model's table (observation version 1)")
    args = parser.parse_args(argv)
    if args.real:
        try:
            players = tuple(int(p) for p in args.players.split(","))
        except ValueError:
            parser.error(f"--players {args.players!r}; allowed: comma-separated integers 2-5")
        memories = tuple(m.strip() for m in args.memories.split(","))
        if not all(2 <= p <= 5 for p in players) or not set(memories) <= {"perfect", "none"} or args.games < 1 \
                or not 0 <= args.force <= 1:
            parser.error("--real needs --players in 2-5, --memories perfect/none, --games >= 1, --force in [0, 1]")
        results = real_play(players, memories, args.games, args.force, args.seed, one_pool_table=args.one_pool_table)
        return 0 if all(r["all_inside"] for r in results) else 1
    if args.states < 1 or args.playouts < 1:
        parser.error(f"--states {args.states} / --playouts {args.playouts}; allowed: positive integers")
    figures = validate(args.states, args.playouts, args.seed)
    return 0 if figures["inside_99_simultaneous"] == figures["states"] else 1


if __name__ == "__main__":
    sys.exit(main())
