"""What does choosing the best-measured move gain, one decision at a time? A split-sample estimate.

Plays ``--games`` 4-player games: ``counter_tuned`` in one seat (rotating), three ``counter``s. At the
seat's decisions of the chosen ``--kind`` (``call``: "Nothing fits anymore!" legal beside other moves;
``place``: which pile a card goes on; ``other``: every other decision with a choice), a ``--sample``
share of them, it values every distinct move (``GameSpec.search.candidate_moves``) in ``--playouts``
states from the seat's belief (common states; ``counter_tuned`` plays the seat on, ``counter`` the
others). Half the states choose the move with the best mean gain over ``counter_tuned``'s own move
(that move where none is better), the other half measure what the choice gains, and the halves swap.
The mean is an unbiased estimate of what a one-step search with ``playouts / 2`` states per move and no
margin adds per decision: selection noise included, so a negative figure means such a search loses.

    .venv/bin/python research/split_headroom.py --kind place --games 5000 --playouts 32 --sample 0.15 --seed 85951
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import agents
from keine_ahnung_env import registry
from agents.base import play_seats

KINDS = ("call", "place", "other")


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kind", choices=KINDS, default="place")
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--playouts", type=int, default=32, help="belief states per move (an even number >= 4)")
    parser.add_argument("--sample", type=float, default=1.0, help="share of the decisions of that kind valued")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.playouts < 4 or args.playouts % 2:
        parser.error(f"--playouts {args.playouts}: an even number >= 4")
    players = 4
    spec = registry.game_spec("keine_ahnung_v0", players)
    call = spec.action_names.index("CALL")
    places = np.array([name.startswith("PLACE") for name in spec.action_names])
    core = spec.make_core(args.games, args.seed)
    tuned, counter = agents.make("counter_tuned", seed=args.seed), agents.make("counter", seed=args.seed + 1)
    roll = [agents.make("counter_tuned", seed=args.seed + 2), agents.make("counter", seed=args.seed + 3)]
    rng = np.random.default_rng(args.seed + 4)
    seat = np.arange(args.games) % players
    others = np.where(np.arange(players)[None, :] == seat[:, None], -1, 0)
    rollout_seats = np.ones((1, players), np.int64)
    rollout_seats[0, 0] = 0  # belief samples seat the observer at 0
    K, half = args.playouts, args.playouts // 2
    gains, started = [], time.time()
    while True:
        live = np.flatnonzero(~core.done)
        play_seats(core, live, [counter], others[live])
        live = np.flatnonzero(~core.done)
        if live.size == 0:
            break
        obs, mask = core.observe(core.current[live], games=live), core.legal_mask[live]
        moves = np.asarray(tuned.act(obs, mask), np.int64)
        choice = mask.sum(1) > 1
        kind = np.where(mask[:, call], 0, np.where(mask[:, places].any(1), 1, 2))
        for j in np.flatnonzero(choice & (kind == KINDS.index(args.kind))):
            if rng.random() >= args.sample:
                continue
            states = spec.belief.sample_states(obs[j], K, rng)
            candidates, base = spec.search.candidate_moves(states, 0, int(moves[j]))
            if len(candidates) < 2:
                continue
            sim = type(states).gather([(states, np.arange(K))] * len(candidates))
            sim.step(np.concatenate([np.full(K, m) for m in candidates]))
            going = np.flatnonzero(~sim.done)
            play_seats(sim, going, roll, np.repeat(rollout_seats, going.size, 0))
            value = spec.seat_win_shares(sim, np.zeros(sim.num_envs, np.intp)).reshape(len(candidates), K)
            first = value[:, :half].mean(1) - value[base, :half].mean()
            second = value[:, half:].mean(1) - value[base, half:].mean()
            pick1, pick2 = int(np.argmax(first)), int(np.argmax(second))
            gains.append(0.5 * ((second[pick1] if first[pick1] > 0 else 0.0) + (first[pick2] if second[pick2] > 0 else 0.0)))
        actions = np.zeros(core.num_envs, np.int64)
        actions[live] = moves
        active = np.zeros(core.num_envs, bool)
        active[live] = True
        core.step(actions, active=active)
    g = np.asarray(gains)
    se = float(g.std(ddof=1) / np.sqrt(g.size)) if g.size > 1 else float("nan")
    per_game = g.size / args.sample / args.games
    print(f"{args.kind}: {g.size} decisions valued (about {per_game:.2f} a game), {half} states choose: "
          f"gain {g.mean():+.5f} +- {se:.5f} win share per decision ({time.time() - started:.0f} s)")
    return {"kind": args.kind, "decisions": int(g.size), "per_game": per_game, "gain": float(g.mean()), "se": se}


if __name__ == "__main__":
    main()
