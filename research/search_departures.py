"""What are a search agent's departures from its default move worth? Each one judged again.

Plays ``--games`` Keine Ahnung games with the search agent (``--agent``, an ``ismcts`` spec, e.g.
``ismcts_4p``) in seat 0 and ``--opponents`` in the others. Wherever the search departs from its
default move (``default=``: for ``ismcts_4p`` the move of ``advantage_4p``), a judge values both moves
again in ``--judge`` fresh states from the seat's belief, common to both moves, with ``--judge-rollout``
playing the seat on and ``--opponents`` the other seats. By the performance-difference identity the
sum of those differences per game is what the departures gain over the default agent (the new policy's
gain is the sum, over the states it visits, of the old policy's advantage of the new move), at the cost
of judging the departures alone: a fraction of a point is resolved in a few hundred games, where a
tournament needs tens of thousands. It is a model of the gain (the belief's states, the judge's
roll-outs); the tournament on fresh seeds is what really happens.

    .venv/bin/python research/search_departures.py --agent ismcts_4p --games 200 --seed 87022

prints the departures, their kinds (chosen < default, by action name) and the judged gain per game in
win-share points with its standard error.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

import numpy as np

import agents
from agents.ismcts import SearchAgent
from keine_ahnung_env import registry


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--agent", default="ismcts_4p", help="an ismcts spec (default: ismcts_4p)")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--opponents", default="counter", help="the other seats, in the games and the judge's roll-outs")
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--judge", type=int, default=512, help="belief states per judged departure")
    parser.add_argument("--judge-rollout", default="advantage_4p",
                        help="the agent that plays the seat on in the judge's roll-outs")
    args = parser.parse_args(argv)
    spec = registry.game_spec("keine_ahnung_v0", args.players)
    searcher = agents.make(args.agent, seed=args.seed, num_players=args.players)
    if not isinstance(searcher, SearchAgent):
        raise SystemExit(f"--agent {args.agent!r} is not a search agent (ismcts, ismcts_4p)")
    judge = SearchAgent(seed=args.seed + 1, playouts=max(2, args.judge), rollout=args.judge_rollout,
                        opponents=args.opponents, num_players=args.players, screen=0, margin=0.0)
    opponents = agents.make(args.opponents, seed=args.seed + 2, num_players=args.players)
    rng = np.random.default_rng(args.seed + 3)
    core = spec.make_core(args.games, 0)
    core.seed(args.seed)
    core.reset_games(np.arange(args.games))
    start = time.time()
    gains, errors, kinds = [], [], []
    while not core.done.all():
        seat = np.asarray(core.current).astype(np.intp)
        live = ~np.asarray(core.done)
        obs, mask = core.observe(seat), np.array(core.legal_mask, copy=True)
        actions = np.zeros(args.games, np.int64)
        other, mine = np.flatnonzero(live & (seat != 0)), np.flatnonzero(live & (seat == 0))
        if other.size:
            actions[other] = opponents.act(obs[other], mask[other])
        if mine.size:
            chosen, default = searcher.act_and_default(obs[mine], mask[mine])
            actions[mine] = chosen
            for i in np.flatnonzero(chosen != default):
                states = spec.belief.sample_states(obs[mine[i]], args.judge, rng)
                value = judge.move_values(spec, states, [int(default[i]), int(chosen[i])])
                diff = value[1] - value[0]
                gains.append(diff.mean())
                errors.append(diff.std(ddof=1) / np.sqrt(diff.size))
                kinds.append(" < ".join(spec.action_names[int(move)].split("_")[0] for move in (chosen[i], default[i])))
        core.step(actions, active=live)
    gains, errors = np.array(gains), np.array(errors)
    per_game = 100 * gains.sum() / args.games
    error = 100 * np.sqrt((errors ** 2).sum()) / args.games
    print(f"{args.agent}, {args.players} players, {args.games} games (seed {args.seed}), {time.time() - start:.0f} s: "
          f"{searcher.decisions} decisions of seat 0, {searcher.searched} searched, {searcher.changed} departures")
    print(f"judged gain over the default move: {per_game:+.2f} ± {error:.2f} points a game "
          f"({args.judge} states, {args.judge_rollout} roll-outs)")
    if gains.size:
        print(f"per departure: mean {gains.mean():+.4f}, better in the judge's eyes at {np.mean(gains > 0):.0%}")
        print("kinds (chosen < default, action names without their card):")
        for kind, count in Counter(kinds).most_common():
            print(f"  {kind}: {count}")
    return {"gain_points": per_game, "error_points": error, "departures": int(gains.size),
            "decisions": searcher.decisions, "searched": searcher.searched}


if __name__ == "__main__":
    main()
