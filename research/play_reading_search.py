"""Does reading the play make the search agent decide better? Paired decisions valued in the real position.

    .venv/bin/python research/play_reading_search.py --game dnp_v0 --players 4 --games 24 --seed 98000

Games are played by ``--opponents`` in every seat (``tactician``; seeds ``--seed + i``, never used to
tune the reading). At every ``--every``-th decision of every seat with more than one legal action and
at least one opponent move this round, two search agents decide from the seat's observation alone:
``ismcts`` with ``belief="observation"`` and the same agent with ``belief="play"`` (``--particles``,
``--slack``; model: the opponents' agent), each with ``--playouts`` states per move. Where they choose
different moves, each move is valued **in the real position** (a research instrument: it reads the
hidden cards of the game being played, which no agent may): the true state is branched ``--rollouts``
times with fresh later chance, the move played, and the roll-out agent plays every seat to the end;
the value is the deciding seat's mean win share. Printed: decisions, disagreements, the mean value
difference (play minus observation) per decision with its standard error (over decisions; zero where
they agree), and the same per disagreement. A positive difference many standard errors from zero
says the play-reading search decides better in real positions.
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import agents  # noqa: E402
from agents.ismcts import play_out  # noqa: E402
from keine_ahnung_env import registry  # noqa: E402
from keine_ahnung_env.play_reading import PlayRecorder  # noqa: E402


def true_values(spec, core, game: int, moves: list[int], rollouts: int, agent, seed: int) -> np.ndarray:
    """The deciding seat's mean win share after each of ``moves`` in the real position of ``game``."""
    seat = int(core.current[game])
    parts = [(core, np.full(rollouts, game))] * len(moves)
    sim = type(core).gather(parts)
    # fresh later chance per branch (the next rounds' deals), the same for every move
    sim.seed(seed, game_ids=np.tile(np.arange(rollouts), len(moves)))
    sim.step(np.repeat(np.asarray(moves, np.int64), rollouts))
    play_out(sim, agent)
    return spec.seat_win_shares(sim, np.full(sim.num_envs, seat)).reshape(len(moves), rollouts).mean(axis=1)


def run(game: str, players: int, games: int, seed: int, every: int, playouts: int, particles: int, slack: float,
        rollouts: int, opponents: str) -> dict:
    spec = registry.game_spec(game, players)
    core = spec.make_core(games, 0)
    core.seed(seed)
    core.reset_games(np.arange(games))
    recorder = PlayRecorder(spec, core)
    player = agents.make(opponents, game=game, num_players=players, seed=seed)
    roller = agents.make(opponents, game=game, num_players=players, seed=seed + 1)
    common = dict(game=game, num_players=players, playouts=playouts, rollout=opponents)
    plain = agents.make("ismcts", seed=seed + 2, **common)
    reading = agents.make("ismcts", seed=seed + 3, belief="play", particles=particles, slack=slack, model=opponents,
                          **common)
    count = np.zeros((games, players), np.int64)
    diffs, disagreements, started = [], 0, time.time()
    while True:
        live = ~np.asarray(core.done)
        if not live.any():
            break
        seat = np.asarray(core.current).astype(np.int64)
        obs = core.observe(seat)
        mask = np.asarray(core.legal_mask)
        for g in np.flatnonzero(live & (mask.sum(axis=1) > 1)):
            s = int(seat[g])
            count[g, s] += 1
            if count[g, s] % every:
                continue
            log = recorder.log(int(g), s)
            if log is None or not (log.actors != 0).any():
                continue
            a = int(plain.act(obs[g:g + 1], mask[g:g + 1])[0])
            b = int(reading.act_reading(obs[g:g + 1], mask[g:g + 1], [log])[0])
            if a == b:
                diffs.append(0.0)
                continue
            disagreements += 1
            v = true_values(spec, core, int(g), [a, b], rollouts, roller, seed * 1000 + len(diffs))
            diffs.append(float(v[1] - v[0]))
        actions = player.act(obs, mask)
        core.step(actions, active=live)
        recorder.after_step(seat, actions, live)
    d = np.asarray(diffs)
    n = d.size
    nz = d[np.flatnonzero(d)] if disagreements else d[:0]
    return {"game": game, "players": players, "games": games, "seeds": [seed, seed + games - 1],
            "opponents": opponents, "playouts": playouts, "particles": particles, "slack": slack,
            "rollouts": rollouts, "decisions": n, "disagreements": disagreements,
            "mean_difference": float(d.mean()) if n else 0.0,
            "standard_error": float(d.std(ddof=1) / np.sqrt(n)) if n > 1 else 0.0,
            "per_disagreement": float(d.sum() / disagreements) if disagreements else 0.0,
            "nonzero_differences": int(nz.size),
            "mean_readings_ess": reading.effective_sizes / max(reading.readings, 1),
            "wall_seconds": time.time() - started}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="dnp_v0")
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=24)
    parser.add_argument("--seed", type=int, default=98000)
    parser.add_argument("--every", type=int, default=3)
    parser.add_argument("--playouts", type=int, default=16)
    parser.add_argument("--particles", type=int, default=64)
    parser.add_argument("--slack", type=float, default=0.4)
    parser.add_argument("--rollouts", type=int, default=8)
    parser.add_argument("--opponents", default="tactician")
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    r = run(args.game, args.players, args.games, args.seed, args.every, args.playouts, args.particles, args.slack,
            args.rollouts, args.opponents)
    print(f"{r['game']} {r['players']} players, {r['games']} games of {r['opponents']} (seeds {r['seeds'][0]}.."
          f"{r['seeds'][1]}), {r['playouts']} playouts, {r['particles']} states, slack {r['slack']}: "
          f"{r['decisions']} decisions, {r['disagreements']} disagreements")
    print(f"  value of the play-reading search's move minus the observation search's, in the real position: "
          f"{r['mean_difference']:+.4f} per decision (se {r['standard_error']:.4f}); "
          f"{r['per_disagreement']:+.4f} per disagreement; mean effective sample size {r['mean_readings_ess']:.1f}; "
          f"{r['wall_seconds']:.0f} s")
    if args.json:
        Path(args.json).write_text(json.dumps(r, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
