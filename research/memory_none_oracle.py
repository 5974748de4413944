"""Why the risk model is off with ``memory="none"`` at 2 players: oracle pools that know more than the seat.

    .venv/bin/python research/memory_none_oracle.py                 # 2 players, 1,200 games (a few minutes)
    .venv/bin/python research/memory_none_oracle.py --players 3 --games 600

With ``memory="none"`` a seat sees only the table, and the risk model (and ``belief.py``) draws every card
that is not face up uniformly from one pool: the draw pile, every face-down card and the discards below
the pile tops. Real play is not that uniform: a covered discard fitted the card it lies under, and cards
left in a layout are often misfits that were revealed earlier and forgotten. This script plays the
calibration games of ``validate_risk.py --real`` (``counter`` everywhere, calls forced with probability
0.3) and judges every call three ways: the model; an oracle pool without the covered discards; an
oracle pool of the draw pile and the caller's own cards. Prints the three reliability tables.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

# research/ is not installed: its modules import each other from the repository root.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=2, help="players (2-5)")
    parser.add_argument("--games", type=int, default=1200, help="games to play (at least 1)")
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args(argv)
    if not 2 <= args.players <= 5 or args.games < 1:
        parser.error("--players must be 2-5 and --games at least 1")
    from keine_ahnung_env.games.keine_ahnung import odds as risk
    from research import calibration
    from keine_ahnung_env.games.keine_ahnung.actions import ACTION_CALL
    from keine_ahnung_env.games.keine_ahnung.agents import CounterAgent
    from keine_ahnung_env.games.keine_ahnung.config import Rules
    from keine_ahnung_env.games.keine_ahnung.core import LOC_DRAW, LOC_LAYOUT, KeineAhnungCore

    P, B = args.players, 200
    rules = Rules.make(P, memory="none")
    t = rules.tables()
    core = KeineAhnungCore(B, rules, seed=args.seed)
    agent = CounterAgent(seed=0, num_players=P)
    rng = np.random.default_rng(args.seed)
    judged = {"the model: every card not face up, one pool": [], "oracle: the pool without the covered discards": [],
              "oracle: the draw pile and the caller's own cards": []}
    success, games = [], 0
    while games < args.games:
        if core.done.any():
            games += int(core.done.sum())
            core.reset_games(np.flatnonzero(core.done))
        obs, mask = core.observe(core.current), core.legal_mask
        actions = agent.act(obs, mask)
        forced = mask[:, ACTION_CALL] & (rng.random(B) < 0.3)
        actions = np.where(forced, ACTION_CALL, actions)
        calls = np.flatnonzero(actions == ACTION_CALL)
        if calls.size:
            view = risk.decode(obs[calls], t)
            good = risk._good_types(view, t)
            u = (view.slot_state[:, 0] == risk.SLOT_UNKNOWN).sum(1)
            names = list(judged)
            judged[names[0]].append(risk.batch_call_success_probability(obs[calls], t))
            for name, own_only in ((names[1], False), (names[2], True)):
                pools = np.zeros((calls.size, t.num_types), np.int64)
                for i, b in enumerate(calls):
                    loc, seat = core.card_loc[b], core.current[b]
                    if own_only:
                        mine = core.layout[b, seat]
                        cards = np.union1d(np.flatnonzero(loc == LOC_DRAW), mine[mine >= 0])
                    else:
                        cards = np.flatnonzero((loc == LOC_DRAW) | (loc == LOC_LAYOUT))
                    pools[i] = np.bincount(t.card_type[cards], minlength=t.num_types)
                judged[name].append(risk.all_good_probability((pools * good).sum(1), pools.sum(1), u))
            seats = core.current[calls].astype(np.intp)
            before = core.trophy_count[calls, seats].copy()
        core.step(actions)
        if calls.size:
            success.append(core.trophy_count[calls, seats] > before)
    y = np.concatenate(success)
    print(f"{P} players, memory='none': {y.size} calls in {games} games (seed {args.seed})")
    for name, values in judged.items():
        rows, brier = calibration.reliability_table(np.concatenate(values), y)
        print(f"\n## {name}\n")
        print(calibration.format_table(rows, brier))
    return 0


if __name__ == "__main__":
    sys.exit(main())
