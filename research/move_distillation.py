"""Can a network learn the one-step search's moves? Every legal move valued by roll-outs, distilled.

dnp's search agent beats the tactician by far (docs/results.md), and most of its departures are not
takes or turns but another set, or another card of a set (``SELECT < SELECT``). The game's advantage
recipe (``training.advantage``) decides one binary question; this study asks the whole question:

1. plays ``--games`` games with the game's strongest heuristic (the search's roll-out agent,
   ``agents.ismcts.default_rollout``) in one seat (rotating) and its copies in the others; at every
   decision of that seat with more than one legal action it draws ``--playouts`` states from the seat's
   belief and values **every legal action** the way the search does (the same states for every move,
   the heuristic rolling out every seat), and labels each action with its mean gain over the
   heuristic's own move;
2. fits a network (``--hidden``) from the game's feature set ``--features`` (observation, the
   heuristic's move, the belief's block) to one output per action, the squared error over the legal
   actions, holding out a tenth of the decisions;
3. reports, per epoch and margin, what choosing by the network would gain on the held-out decisions
   (the action with the largest prediction, unless none beats the heuristic's move by ``margin``:
   unbiased, each label is a noisy measure of its decision's gain);
4. plays the last epoch's network (the heuristic's move unless another is predicted to beat it by the
   margin) in one seat against the heuristic's copies, ``--eval-games`` games per margin on
   ``--eval-seed``, ``1e9`` being the heuristic itself through the same code.

    .venv/bin/python research/move_distillation.py --game dnp_v0 --players 2 --games 1000 --seed 74000

The search decides each position from its own states; the network pools noisy labels over positions
that look alike to it. Results: research/README.md.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter

import numpy as np

import agents
from agents.base import mlp_forward, next_decisions, play_seats, relu
from agents.ismcts import SearchAgent, default_rollout
from keine_ahnung_env import registry


def label(spec, game: str, players: int, games: int, playouts: int, seed: int, heuristic: str, features) -> dict:
    """Step 1: the labelled decisions (inputs, per-action gains, legal masks, the heuristic's moves)."""
    made = dict(game=game, num_players=players)
    base = agents.make(heuristic, seed=seed, **made)
    opponents = agents.make(heuristic, seed=seed + 1, **made)
    judge = SearchAgent(seed=seed + 2, playouts=playouts, rollout=heuristic, opponents=heuristic, screen=0,
                        margin=0.0, **made)
    rng = np.random.default_rng(seed + 3)
    core = spec.make_core(games, 0)
    core.seed(seed)
    core.reset_games(np.arange(games))
    seat = np.arange(games) % players
    others = np.where(np.arange(players)[None, :] == seat[:, None], -1, 0)
    inputs, gains, masks, moves_of = [], [], [], []
    while True:
        live = next_decisions(core, [opponents], others)
        if live.size == 0:
            break
        obs, mask = core.observe(core.current[live], games=live), np.array(core.legal_mask[live])
        moves = np.asarray(base.act(obs, mask), np.int64)
        rows = np.flatnonzero(mask.sum(1) > 1)
        if rows.size:
            jobs = [(spec.hooks.belief.sample_states(obs[r], playouts, rng), np.flatnonzero(mask[r]).tolist(),
                     np.arange(playouts)) for r in rows]
            values = judge._values(spec, jobs)
            inputs.append(features(obs[rows], mask[rows]))
            for (_, legal, _), v, r in zip(jobs, values, rows):
                gain = np.zeros(mask.shape[1], np.float32)
                gain[legal] = (v - v[legal.index(int(moves[r]))]).mean(1)
                gains.append(gain)
            masks.append(mask[rows])
            moves_of.append(moves[rows])
        actions = np.zeros(games, np.int64)
        actions[live] = moves
        active = np.zeros(games, bool)
        active[live] = True
        core.step(actions, active=active)
    return {"x": np.concatenate(inputs).astype(np.float32), "y": np.array(gains), "m": np.concatenate(masks),
            "d": np.concatenate(moves_of)}


def choose(predicted: np.ndarray, mask: np.ndarray, default: np.ndarray, margin: float) -> np.ndarray:
    """The action with the largest predicted gain, the heuristic's move unless another beats it by ``margin``."""
    p = np.where(mask, predicted, -np.inf)
    p[np.arange(len(default)), default] = margin
    return p.argmax(1)


def fit(data: dict, hidden: list[int], epochs: int, learning_rate: float, seed: int, margins: list[float]):
    """Steps 2-3: the network (its layers as NumPy arrays for ``agents.base.mlp_forward``, with the
    inputs' mean and spread)."""
    import torch

    x, y, m, d = data["x"], data["y"], data["m"], data["d"]
    rng = np.random.default_rng(seed)
    order = rng.permutation(len(x))
    held, train = order[: len(x) // 10], order[len(x) // 10:]
    mean, scale = x[train].mean(0), x[train].std(0) + 1e-3
    X, Y, M = torch.tensor((x - mean) / scale), torch.tensor(y), torch.tensor(m.astype(np.float32))
    torch.manual_seed(seed)
    sizes, layers = [x.shape[1], *hidden], []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        layers += [torch.nn.Linear(fan_in, fan_out), torch.nn.ReLU()]
    net = torch.nn.Sequential(*layers, torch.nn.Linear(sizes[-1], y.shape[1]))
    optimizer = torch.optim.Adam(net.parameters(), lr=learning_rate, weight_decay=1e-4)
    for epoch in range(epochs):
        shuffled = torch.as_tensor(rng.permutation(train))
        for at in range(0, len(shuffled), 512):
            rows = shuffled[at: at + 512]
            loss = (((net(X[rows]) - Y[rows]) ** 2) * M[rows]).sum() / M[rows].sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        with torch.no_grad():
            predicted = net(X[held]).numpy()
        parts = []
        for margin in margins:
            chosen = choose(predicted, m[held], d[held], margin)
            gain = y[held, chosen]
            parts.append(f"margin {margin}: {gain.mean():+.4f} ± {gain.std() / np.sqrt(gain.size):.4f} "
                         f"({np.mean(chosen != d[held]):.1%} departures)")
        print(f"epoch {epoch + 1}: held-out gain per decision, " + "; ".join(parts), flush=True)
    weights = [(layer.weight.detach().numpy().T.copy(), layer.bias.detach().numpy()) for layer in net
               if isinstance(layer, torch.nn.Linear)]
    return weights, mean, scale


class Distilled:
    """The heuristic, overruled where the network predicts another action beats its move by ``margin``."""

    def __init__(self, base, features, weights, mean, scale, margin: float):
        self.base, self.features, self.weights, self.mean, self.scale, self.margin = \
            base, features, weights, mean, scale, margin

    def act(self, observation, action_mask):
        mask = np.asarray(action_mask, bool)
        default = np.asarray(self.base.act(observation, mask), np.int64)
        predicted = mlp_forward((self.features(observation, mask) - self.mean) / self.scale, self.weights, relu)
        return choose(predicted, mask, default, self.margin).astype(np.int64)


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="dnp_v0")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--games", type=int, default=1000, help="games played to label decisions")
    parser.add_argument("--playouts", type=int, default=8, help="belief states per labelled decision")
    parser.add_argument("--features", default="belief", help="the game's feature set the network reads")
    parser.add_argument("--hidden", default="128,128")
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--learning-rate", type=float, default=3e-4)
    parser.add_argument("--margins", default="1e9,0.1,0.05,0.02", help="margins of the tournaments")
    parser.add_argument("--eval-games", type=int, default=1000)
    parser.add_argument("--eval-seed", type=int, default=555)
    parser.add_argument("--seed", type=int, default=74000)
    args = parser.parse_args(argv)
    spec = registry.game_spec(args.game, args.players)
    heuristic = default_rollout(spec)
    features = spec.features(args.features)
    margins = [float(m) for m in args.margins.split(",")]
    start = time.time()
    data = label(spec, args.game, args.players, args.games, args.playouts, args.seed, heuristic, features)
    kinds = Counter()
    names = spec.action_names
    for gains, mask, move in zip(data["y"], data["m"], data["d"]):
        best = int(np.argmax(np.where(mask, gains, -np.inf)))
        if gains[best] > 0:
            kinds[" < ".join(names[a].split("_")[0] for a in (best, move))] += 1
    print(f"{args.game}, {args.players} players, `{heuristic}`: {args.games} games, {len(data['y'])} decisions "
          f"labelled ({args.playouts} states each), {time.time() - start:.0f} s; the best measured move, where it is "
          f"not the heuristic's, by kind: {dict(kinds.most_common(6))}", flush=True)
    weights, mean, scale = fit(data, [int(h) for h in args.hidden.split(",")], args.epochs, args.learning_rate,
                               args.seed, [m for m in margins if m < 1e9] or [0.0])
    made = dict(game=args.game, num_players=args.players)
    results = {}
    for margin in margins:
        me = Distilled(agents.make(heuristic, seed=args.eval_seed + 7, **made), features, weights, mean, scale, margin)
        rest = agents.make(heuristic, seed=args.eval_seed + 1, **made)
        core = spec.make_core(args.eval_games, 0)
        core.seed(args.eval_seed)
        core.reset_games(np.arange(args.eval_games))
        seat = np.arange(args.eval_games) % args.players
        play_seats(core, np.arange(args.eval_games), [me, rest],
                   np.where(np.arange(args.players)[None, :] == seat[:, None], 0, 1))
        share = spec.seat_win_shares(core, seat)
        results[margin] = float(share.mean())
        print(f"distilled agent, margin {margin:g}, against {args.players - 1} x `{heuristic}`: "
              f"{100 * share.mean():.1f}% ± {100 * share.std() / np.sqrt(share.size):.1f} "
              f"({args.eval_games} games, seed {args.eval_seed}; fair {100 / args.players:.1f}%)", flush=True)
    return results


if __name__ == "__main__":
    main()
