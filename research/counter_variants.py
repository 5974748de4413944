"""How flat is the strategy landscape around ``counter``? One changed parameter against three defaults.

Each variant of :class:`keine_ahnung_env.games.keine_ahnung.agents.CounterAgent` plays seat-rotated 4-player games against
three default ``counter`` s (common deals); its win share and 95% Wilson interval are printed. A
variant that beat the fair 25% clearly would show a weakness of the default that a learner could
exploit as well.

    .venv/bin/python research/counter_variants.py [--games 4000] [--seed 200] [NAME ...]
"""

from __future__ import annotations

import argparse
import time

from keine_ahnung_env.games.keine_ahnung.agents import CounterAgent
from training.tournament import play_tournament

VARIANTS = {
    "default": {},
    "call_threshold=0.5": dict(call_threshold=(0.5, 0.5, 0.5)),
    "call_threshold=0.6": dict(call_threshold=(0.6, 0.6, 0.6)),
    "call_threshold=0.8": dict(call_threshold=(0.8, 0.8, 0.8)),
    # Issue 18's screen (docs/skill_ceiling.md, "Tuning counter's parameters"): lower call thresholds.
    "call_threshold=0.3": dict(call_threshold=(0.3, 0.3, 0.3)),
    "call_threshold=0.4": dict(call_threshold=(0.4, 0.4, 0.4)),
    "call_threshold=0.45": dict(call_threshold=(0.45, 0.45, 0.45)),
    "call_threshold=0.55": dict(call_threshold=(0.55, 0.55, 0.55)),
    "call_threshold=0.65": dict(call_threshold=(0.65, 0.65, 0.65)),
    "call_threshold=0.75": dict(call_threshold=(0.75, 0.75, 0.75)),
    "call_threshold=(0.5,0.7,0.7)": dict(call_threshold=(0.5, 0.7, 0.7)),
    "call_threshold=(0.7,0.5,0.7)": dict(call_threshold=(0.7, 0.5, 0.7)),
    "call_threshold=(0.7,0.7,0.5)": dict(call_threshold=(0.7, 0.7, 0.5)),
    "call_threshold=(0.9,0.7,0.7)": dict(call_threshold=(0.9, 0.7, 0.7)),
    "call_threshold=(0.7,0.9,0.7)": dict(call_threshold=(0.7, 0.9, 0.7)),
    "call_threshold=(0.7,0.7,0.9)": dict(call_threshold=(0.7, 0.7, 0.9)),
    "call_threshold=(0.6,0.6,0.7)": dict(call_threshold=(0.6, 0.6, 0.7)),
    "call_threshold=(0.5,0.5,0.7)": dict(call_threshold=(0.5, 0.5, 0.7)),
    "call_threshold=(0.4,0.5,0.6)": dict(call_threshold=(0.4, 0.5, 0.6)),
    "call_threshold=(0.6,0.5,0.4)": dict(call_threshold=(0.6, 0.5, 0.4)),
    "call_threshold=(0.6,0.55,0.5)": dict(call_threshold=(0.6, 0.55, 0.5)),
    "call_threshold=0.5,endgame_threshold=0.4": dict(call_threshold=(0.5,) * 3, endgame_threshold=(0.4,) * 3),
    "call_threshold=0.5,endgame_threshold=0.6": dict(call_threshold=(0.5,) * 3, endgame_threshold=(0.6,) * 3),
    "endgame_threshold=0.4": dict(endgame_threshold=(0.4, 0.4, 0.4)),
    "endgame_threshold=0.6": dict(endgame_threshold=(0.6, 0.6, 0.6)),
    "endgame_trophies=1": dict(endgame_trophies=1),
    "endgame_trophies=3": dict(endgame_trophies=3),
    "known_weight=0.7": dict(known_weight=0.7),
    "known_weight=1.5": dict(known_weight=1.5),
    "harm_weight=0.15": dict(harm_weight=0.15),
    "endgame_threshold=0.3": dict(endgame_threshold=(0.3, 0.3, 0.3)),
    "endgame_threshold=0.7": dict(endgame_threshold=(0.7, 0.7, 0.7)),
    "endgame_trophies=4": dict(endgame_trophies=4),
    "harm_weight=0": dict(harm_weight=0.0),
    "harm_weight=0.3": dict(harm_weight=0.3),
    "refill_attack=False": dict(refill_attack=False),
    "known_weight=0.5": dict(known_weight=0.5),
    "known_weight=2": dict(known_weight=2.0),
}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help=f"variants to play (default: all): {', '.join(VARIANTS)}")
    parser.add_argument("--games", type=int, default=4000, help="games per variant (default: 4000)")
    parser.add_argument("--seed", type=int, default=200, help="seed of the deals (default: 200)")
    args = parser.parse_args(argv)
    unknown = [n for n in args.names if n not in VARIANTS]
    if unknown:
        parser.error(f"unknown variants {unknown}; allowed: {', '.join(VARIANTS)}")
    print(f"4 players, one variant against 3 x counter, {args.games} games each, seed {args.seed}")
    for name in args.names or VARIANTS:
        start = time.time()
        lineup = [CounterAgent(seed=1, **VARIANTS[name])] + [CounterAgent(seed=s) for s in (2, 3, 4)]
        stats = play_tournament(lineup, num_players=4, games=args.games, seed=args.seed).agents[0]
        low, high = stats.win_interval
        print(f"{name:24s} {100 * stats.win_rate:5.1f}%  [{100 * low:.1f}, {100 * high:.1f}]  "
              f"({time.time() - start:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
