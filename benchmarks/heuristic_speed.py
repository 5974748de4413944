"""How fast the games' compiled heuristics decide, against their readable Python references.

For each game it plays ``--games`` games of the heuristic (a fifth of the moves random, so that the
positions vary), keeps the observations and masks of the seats to act, then times ``act`` on all of
them at once, with ``compiled=True`` and with ``compiled=False`` (the reference), and checks that both
chose the same actions. Prints decisions per second and their ratio; ``--threads`` sets Numba's
threads (the compiled ``act`` splits large batches over them).

    .venv/bin/python benchmarks/heuristic_speed.py --players 4 --games 64 --seed 3
"""

from __future__ import annotations

import argparse
import time

import numba
import numpy as np

import agents
from keine_ahnung_env import registry

HEURISTICS = {"keine_ahnung_v0": "counter", "gap_v0": "planner", "dnp_v0": "tactician"}
"""The compiled heuristic of each game (each has ``compiled=False``, its Python reference)."""


def positions(game: str, heuristic: str, players: int, games: int, seed: int, steps: int = 400):
    """Observations and masks of the seats to act, from games of ``heuristic`` with random moves mixed in."""
    core = registry.game_spec(game, players).make_core(games, seed)
    player = agents.make(heuristic, game=game, seed=seed, num_players=players)
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    for _ in range(steps):
        live = np.flatnonzero(~np.asarray(core.done))
        if live.size == 0:
            break
        o, m = core.observe(np.asarray(core.current)[live], games=live), core.legal_mask[live]
        choice = m.sum(1) > 1
        obs.append(o[choice])
        masks.append(m[choice])
        actions = np.zeros(core.num_envs, np.int64)
        chosen = player.act(o, m)
        random = np.array([rng.choice(np.flatnonzero(row)) for row in m])
        actions[live] = np.where(rng.random(live.size) < 0.2, random, chosen)
        active = np.zeros(core.num_envs, bool)
        active[live] = True
        core.step(actions, active=active)
    return np.concatenate(obs), np.concatenate(masks)


def timed(agent, obs, mask, repeats: int) -> tuple[float, np.ndarray]:
    """(best seconds of ``repeats`` calls, the actions)."""
    best, out = np.inf, None
    for _ in range(repeats):
        start = time.perf_counter()
        out = agent.act(obs, mask)
        best = min(best, time.perf_counter() - start)
    return best, out


def main(argv=None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=64)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1, help="Numba threads of the compiled act")
    parser.add_argument("--only", default=",".join(HEURISTICS), help="games, comma-separated")
    args = parser.parse_args(argv)
    numba.set_num_threads(args.threads)
    rows = []
    print(f"{args.players} players, decisions with a choice from {args.games} games per game (seed {args.seed}), "
          f"{args.threads} Numba thread(s)")
    print(f"{'game':<16} {'heuristic':<10} {'decisions':>9} {'compiled /s':>12} {'reference /s':>13} {'ratio':>6}")
    for game in args.only.split(","):
        heuristic = HEURISTICS[game]
        obs, mask = positions(game, heuristic, args.players, args.games, args.seed)
        compiled = agents.make(heuristic, game=game, seed=0, num_players=args.players)
        reference = agents.make(f"{heuristic}:compiled=false", game=game, seed=0, num_players=args.players)
        timed(compiled, obs[:8], mask[:8], 1)  # compiles (or loads) the kernels outside the timing
        fast, _ = timed(compiled, obs, mask, 3)
        compiled.reseed(0)  # both draw their tie-breaks from the same numbers for the comparison
        a = compiled.act(obs, mask)
        slow, b = timed(reference, obs, mask, 1)
        if not np.array_equal(a, b) and heuristic != "counter":  # counter breaks ties from its generator
            raise SystemExit(f"{heuristic}: the compiled and the reference act chose differently")
        row = {"game": game, "heuristic": heuristic, "decisions": int(len(obs)),
               "compiled_per_s": len(obs) / fast, "reference_per_s": len(obs) / slow, "ratio": slow / fast}
        rows.append(row)
        print(f"{game:<16} {heuristic:<10} {row['decisions']:>9,} {row['compiled_per_s']:>12,.0f} "
              f"{row['reference_per_s']:>13,.0f} {row['ratio']:>5.0f}x")
    return rows


if __name__ == "__main__":
    main()
