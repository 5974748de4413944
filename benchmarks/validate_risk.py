"""Checks the exact "Nothing fits anymore!" risk model against Monte Carlo play-outs of the engine.

    python benchmarks/validate_risk.py                 # 1,000 states x 4,000 play-outs (about a minute)
    python benchmarks/validate_risk.py --states 200 --playouts 1000

States come from games played by a uniformly random agent and by ``greedy`` (which knows more of
its cards), over 2-5 players and both memory modes, at moments where the seat to act may call. For
each state the cards that seat cannot place are re-dealt among their positions in every play-out
and a real CALL is resolved by the engine (``risk.monte_carlo_call_success``). Printed: the mean
absolute error between the exact value and the Monte Carlo estimate, how many exact values fall in
the per-state exact (Clopper-Pearson) 99% interval (about 1% may fall outside by chance), and how
many fall in the simultaneous 99% intervals (Bonferroni: each at 1 - 0.01 / states), all of which
should. Exits with status 1 when a state falls outside its simultaneous interval.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np


def validate(states: int = 1000, playouts: int = 4000, seed: int = 0, verbose: bool = True) -> dict:
    """Runs the check and returns its figures (see the module docstring)."""
    from keine_ahnung_env.games.keine_ahnung import risk

    check = risk.engine_check(states, playouts, seed=seed)
    exact, hits = check["exact"], check["hits"]
    by_variant = [f"{P}p/{memory}/{policy}" for P, memory, policy in check["variants"]]
    exact_arr = np.array(exact)
    hits_arr = np.array(hits)
    estimate = hits_arr / playouts
    count = exact_arr.size
    inside_99 = risk.binomial_interval_contains(exact_arr, hits_arr, playouts, 0.01)
    inside_family = risk.binomial_interval_contains(exact_arr, hits_arr, playouts, 0.01 / count)
    figures = {
        "states": int(count), "playouts": int(playouts),
        "mean_abs_error": float(np.abs(exact_arr - estimate).mean()),
        "max_abs_error": float(np.abs(exact_arr - estimate).max()),
        "inside_99": int(inside_99.sum()), "inside_99_simultaneous": int(inside_family.sum()),
        "mean_exact": float(exact_arr.mean()), "certain_failures": int((exact_arr == 0).sum()),
        "certain_successes": int((exact_arr == 1).sum()), "seconds": check["seconds"],
    }
    if verbose:
        print(f"{count} states x {playouts} play-outs ({figures['seconds']:.0f} s); mean exact probability "
              f"{figures['mean_exact']:.3f} ({figures['certain_failures']} certain failures, "
              f"{figures['certain_successes']} certain successes)")
        print(f"mean absolute error |exact - Monte Carlo| = {figures['mean_abs_error']:.5f} "
              f"(max {figures['max_abs_error']:.5f})")
        print(f"inside the per-state 99% interval:      {figures['inside_99']} / {count}")
        print(f"inside the simultaneous 99% intervals:  {figures['inside_99_simultaneous']} / {count}")
        for v in sorted(set(by_variant)):
            rows = [j for j, name in enumerate(by_variant) if name == v]
            err = np.abs(exact_arr[rows] - estimate[rows]).mean()
            print(f"  {v:<22} {len(rows):4d} states, mean |error| {err:.5f}, "
                  f"inside 99%: {int(inside_99[rows].sum())}/{len(rows)}")
    return figures


def main(argv: list[str] | None = None) -> int:
    """Command-line entry; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--states", type=int, default=1000, help="states to check (at least 1)")
    parser.add_argument("--playouts", type=int, default=4000, help="Monte Carlo play-outs per state (at least 1)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the games and the play-outs")
    args = parser.parse_args(argv)
    if args.states < 1 or args.playouts < 1:
        parser.error(f"--states {args.states} / --playouts {args.playouts}; allowed: positive integers")
    figures = validate(args.states, args.playouts, args.seed)
    return 0 if figures["inside_99_simultaneous"] == figures["states"] else 1


if __name__ == "__main__":
    sys.exit(main())
