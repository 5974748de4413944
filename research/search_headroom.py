"""How much can a one-step search with heuristic roll-outs add to a game's best heuristic? A high-budget look.

Plays ``--games`` games with the game's strongest heuristic (the roll-out agent of its search agents,
``agents.ismcts.default_rollout``) in every seat. At every ``--every``-th decision with more than one
distinct move it values each distinct move the way the search agents do: ``--playouts`` states drawn
from the deciding seat's belief (the same states for every move), each move played and rolled out by
the heuristic in every seat to the end of the game. Then, per decision:

* **the best measured move** over the heuristic's own move: the largest mean gain among the moves
  (inflated by the noise of ``playouts`` states: with few states it says little);
* **a search with half the states**: the move chosen on the first half of the states (best mean, the
  heuristic's move unless another is better), its gain measured on the other half (unbiased for what
  such a search adds at this decision, against these roll-outs);
* how often another move beats the heuristic's by more than 2 standard errors.

Multiplied by the seat's decisions with a choice per game, the second figure is what such a search
would add per game *if the belief and the roll-outs were the real game and the gains added up*. Both
are assumptions of the search itself: the belief spreads the unknown cards evenly over what the play
has not ruled out (it does not read the opponents' moves), and the real opponents meet the move, not
the roll-outs. The test is a tournament of the search agent against the heuristic
(``training.evaluate``); the difference between the two is what the search's own model overstates.

    .venv/bin/python research/search_headroom.py --game gap_v0 --players 4 --games 24 --every 6 --playouts 256 --seed 51
"""

from __future__ import annotations

import argparse
import time

import numpy as np

import agents
from agents.ismcts import SearchAgent, default_rollout
from keine_ahnung_env import registry


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="gap_v0")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=24)
    parser.add_argument("--every", type=int, default=6, help="value every Nth decision with a choice")
    parser.add_argument("--playouts", type=int, default=256, help="belief states per move (even)")
    parser.add_argument("--rollout", default=None, help="the heuristic (default: the game's search roll-out agent)")
    parser.add_argument("--seed", type=int, default=51)
    args = parser.parse_args(argv)
    if args.playouts < 4 or args.playouts % 2:
        parser.error(f"--playouts {args.playouts}; allowed: an even number >= 4")
    spec = registry.game_spec(args.game, args.players)
    heuristic = args.rollout or default_rollout(spec)
    rollout = f"{heuristic}:in_engine=true" if heuristic == "planner" else heuristic
    searcher = SearchAgent(seed=args.seed, game=args.game, num_players=args.players, playouts=args.playouts,
                           rollout=rollout, screen=0)
    players = [agents.make(heuristic, game=args.game, seed=args.seed + 1 + k, num_players=args.players)
               for k in range(args.players)]
    rng = np.random.default_rng(args.seed)
    core = spec.make_core(args.games, args.seed)
    best_gain, half_gain, significant, moves_count = [], [], [], []
    choices = 0  # decisions with a choice of more than one distinct move (over all seats)
    step = 0
    start = time.time()
    while not np.asarray(core.done).all():
        live = np.flatnonzero(~np.asarray(core.done))
        seat = np.asarray(core.current)[live]
        obs = core.observe(seat, games=live)
        mask = core.legal_mask[live]
        actions = np.zeros(core.num_envs, np.int64)
        for s in np.unique(seat):
            rows = np.flatnonzero(seat == s)
            actions[live[rows]] = players[int(s)].act(obs[rows], mask[rows])
        for i in np.flatnonzero(mask.sum(1) > 1):
            choices += 1  # legal actions (several may be one distinct move where the game groups them)
            if choices % args.every:
                continue
            states = spec.hooks.belief.sample_states(obs[i], args.playouts, rng)
            moves, base = searcher._moves(spec, states, int(actions[live[i]]))
            if len(moves) < 2:
                continue
            values = searcher.move_values(spec, states, moves)  # [M, playouts]
            diff = values - values[base]
            mean = diff.mean(1)
            se = diff.std(1, ddof=1) / np.sqrt(diff.shape[1])
            best_gain.append(float(mean.max()))
            significant.append(bool(((mean - 2 * se) > 0).any()))
            half = args.playouts // 2
            first = diff[:, :half].mean(1)
            pick = int(np.argmax(first)) if first.max() > 0 else base
            half_gain.append(float(diff[pick, half:].mean()))
            moves_count.append(len(moves))
        active = np.zeros(core.num_envs, bool)
        active[live] = True
        core.step(actions, active=active)
        step += 1
    n = len(best_gain)
    per_seat_game = choices / (args.games * args.players)
    best = np.array(best_gain)
    halfg = np.array(half_gain)
    result = {
        "game": args.game, "players": args.players, "games": args.games, "seed": args.seed,
        "heuristic": heuristic, "playouts": args.playouts, "valued_decisions": n,
        "choices_per_seat_and_game": per_seat_game, "mean_distinct_moves": float(np.mean(moves_count)),
        "best_measured_gain": float(best.mean()), "best_measured_gain_se": float(best.std(ddof=1) / np.sqrt(n)),
        "half_search_gain": float(halfg.mean()), "half_search_gain_se": float(halfg.std(ddof=1) / np.sqrt(n)),
        "share_significant": float(np.mean(significant)), "seconds": time.time() - start,
    }
    print(f"{args.game}, {args.players} players, {args.games} games of {heuristic} (seed {args.seed}): "
          f"{per_seat_game:.1f} decisions with a choice per seat and game, {n} valued "
          f"({result['mean_distinct_moves']:.1f} distinct moves on average, {args.playouts} belief states each), "
          f"{result['seconds']:.0f} s")
    print(f"  best measured move over the heuristic's: {best.mean():+.5f} (se {result['best_measured_gain_se']:.5f}) "
          f"win share per decision (noise-inflated)")
    print(f"  a search with {args.playouts // 2} states (chosen on one half, valued on the other): "
          f"{halfg.mean():+.5f} (se {result['half_search_gain_se']:.5f}) per decision, "
          f"summed over the seat's decisions {100 * halfg.mean() * per_seat_game:+.1f} points a game "
          "(the search's own model; see the module docstring)")
    print(f"  another move beats the heuristic's by more than 2 standard errors at {100 * np.mean(significant):.1f}% "
          "of the valued decisions")
    return result


if __name__ == "__main__":
    main()
