"""What reading the play is worth, and what it costs: a game's belief with and without the opponents'
moves, checked against where the cards the seat cannot see really lie (dnp and the gap game).

    .venv/bin/python benchmarks/play_reading.py --players 4 --games 40 --particles 128 --seed 97000 --slack 0.4   # documented (dnp)
    .venv/bin/python benchmarks/play_reading.py --env gap_v0 --players 4 --games 12 --particles 128 --seed 99000 --slack 0.4   # documented (gap)
    .venv/bin/python benchmarks/play_reading.py --players 4 --games 4 --particles 32 --seed 1       # a quick one

**The check.** ``--games`` games of ``--env`` are played by ``--opponents`` (dnp ``tactician``, the
gap game ``planner``) in every seat, seeds ``--seed + i``. At every ``--every``-th decision of every
seat (default 4; never before the first opponent move of the seat's log), the seat's belief about each
card it cannot see is taken twice:

* *plain*: the belief from its observation alone (``GameSpec.belief.card_marginals``: exact under the
  belief's model, which takes the opponents' moves as saying nothing);
* *read*: the play-reading belief (``keine_ahnung_env.play_reading.read_play``) with ``--particles``
  states, the model ``--model`` (default: the opponents' own agent) and ``--slack``.

Each gives, for every unknown card, the probability of each *place* holding it (dnp: each opponent's
hand; the gap game: each opponent's hand, each opponent's hidden cards, the draw pile); the truth is
where it lies in the game being played. Printed per table: the mean log score of the true place
(natural log; higher is better) and the Brier score of the place probabilities, for both beliefs, with
the paired difference and its standard error over decisions; how far the read belief moves the
probabilities on average (mean absolute change); the effective sample size; and the cost of one
reading (wall time per decision on this machine, the opponents' model dominating it). A calibration
table bins the read belief's place probabilities (ten bins) beside the observed share.

``--json PATH`` writes the figures. The documented run: ``docs/results.md`` ("Reading the play").
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
from keine_ahnung_env import registry  # noqa: E402
from keine_ahnung_env.play_reading import PlayRecorder, read_play  # noqa: E402

BINS = 10


class DnpPlaces:
    """dnp: an unknown card lies in the hand of an opponent (place r = its relative seat; place 0, the
    seat's own hand, never holds one)."""

    scored = slice(1, None)

    def __init__(self, players: int):
        self.players = players

    def plain(self, belief, observation: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        unknown = belief.knowledge(observation).unknown
        return unknown, belief.card_marginals(observation)[:, unknown]

    def place(self, core, rows: np.ndarray, seat: np.ndarray, unknown: np.ndarray) -> np.ndarray:
        """``[len(rows), len(unknown)]`` the place of each unknown card in each row of ``core``."""
        return (np.asarray(core.card_where)[np.ix_(rows, unknown)].astype(np.int64) - seat[:, None]) % self.players

    def size(self) -> int:
        return self.players


class GapPlaces:
    """The gap game: an unknown card lies in the draw pile (place 0), in the hand of an opponent (place r,
    its relative seat) or among its hidden cards (place P - 1 + r)."""

    scored = slice(0, None)

    def __init__(self, players: int):
        self.players = players

    def plain(self, belief, observation: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        marginals = belief.card_marginals(observation)
        P = self.players
        table = np.stack([marginals["draw_pile"]] + [marginals[f"hand_seat_{r}"] for r in range(1, P)]
                         + [marginals[f"hidden_seat_{r}"] for r in range(1, P)])
        unknown = np.flatnonzero(table.sum(axis=0) > 0)
        return unknown, table[:, unknown]

    def place(self, core, rows: np.ndarray, seat: np.ndarray, unknown: np.ndarray) -> np.ndarray:
        from keine_ahnung_env.games.gap.kernels import LOC_HAND, LOC_HIDDEN

        loc = np.asarray(core.card_loc)[np.ix_(rows, unknown)]
        relative = (np.asarray(core.card_owner)[np.ix_(rows, unknown)].astype(np.int64) - seat[:, None]) % self.players
        return np.where(loc == LOC_HAND, relative, np.where(loc == LOC_HIDDEN, self.players - 1 + relative, 0))

    def size(self) -> int:
        return 2 * self.players - 1


PLACES = {"dnp_v0": DnpPlaces, "gap_v0": GapPlaces}
DEFAULT_OPPONENTS = {"dnp_v0": "tactician", "gap_v0": "planner"}


def read_marginals(places, reading, unknown: np.ndarray) -> np.ndarray:
    """``[K, len(unknown)]`` the read belief's probability of each place holding each card."""
    n = reading.states.num_envs
    where = places.place(reading.states, np.arange(n), np.asarray(reading.states.current).astype(np.int64), unknown)
    return np.stack([reading.weights @ (where == k) for k in range(places.size())])


def run(players: int, games: int, particles: int, seed: int, every: int, slack: float, opponents: str | None,
        model_spec: str | None, game: str = "dnp_v0") -> dict:
    spec = registry.game_spec(game, players)
    places = PLACES[game](players)
    opponents = opponents or DEFAULT_OPPONENTS[game]
    belief = spec.belief
    core = spec.make_core(games, 0)
    core.seed(seed)
    core.reset_games(np.arange(games))
    recorder = PlayRecorder(spec, core)
    opponent = agents.make(opponents, game=game, num_players=players, seed=seed)
    model = agents.make(model_spec or opponents, game=game, num_players=players)
    rng = np.random.default_rng(seed + 1)
    seen_decisions = np.zeros((games, players), np.int64)
    rows = {"plain_log": [], "read_log": [], "plain_brier": [], "read_brier": [], "moved": [], "ess": [],
            "seconds": []}
    calibration = np.zeros((BINS, 3))  # predictions, hits, sum of predictions
    while True:
        live = ~np.asarray(core.done)
        if not live.any():
            break
        seat = np.asarray(core.current).astype(np.int64)
        obs = core.observe(seat)
        for g in np.flatnonzero(live):
            s = int(seat[g])
            seen_decisions[g, s] += 1
            if seen_decisions[g, s] % every:
                continue
            log = recorder.log(int(g), s)
            if log is None or not (log.actors != 0).any():
                continue
            unknown, plain = places.plain(belief, obs[g])
            if unknown.size == 0:
                continue
            truth = places.place(core, np.array([g]), np.array([s]), unknown)[0]
            start = time.perf_counter()
            reading = read_play(spec, log, obs[g], particles, rng, model, slack=slack)
            rows["seconds"].append(time.perf_counter() - start)
            read = read_marginals(places, reading, unknown)
            onehot = np.zeros_like(plain)
            onehot[truth, np.arange(unknown.size)] = 1.0
            floor = 1e-3  # a finite sample can miss the true place; the read log score is floored there
            rows["plain_log"].append(np.log(np.maximum(plain[truth, np.arange(unknown.size)], floor)).mean())
            rows["read_log"].append(np.log(np.maximum(read[truth, np.arange(unknown.size)], floor)).mean())
            k = places.scored
            rows["plain_brier"].append(((plain[k] - onehot[k]) ** 2).sum(axis=0).mean())
            rows["read_brier"].append(((read[k] - onehot[k]) ** 2).sum(axis=0).mean())
            rows["moved"].append(np.abs(read[k] - plain[k]).mean())
            rows["ess"].append(reading.effective_size)
            p, hit = read[k].ravel(), onehot[k].ravel()
            b = np.minimum((p * BINS).astype(int), BINS - 1)
            np.add.at(calibration, (b, 0), 1)
            np.add.at(calibration, (b, 1), hit)
            np.add.at(calibration, (b, 2), p)
        actions = opponent.act(obs, core.legal_mask)
        core.step(actions, active=live)
        recorder.after_step(seat, actions, live)
    arr = {k: np.asarray(v, np.float64) for k, v in rows.items()}
    n = arr["ess"].size

    def paired(a: str, b: str) -> tuple[float, float]:
        d = arr[b] - arr[a]
        return float(d.mean()), float(d.std(ddof=1) / np.sqrt(max(n, 1)))

    return {"game": game, "players": players, "games": games, "seed": seed, "particles": particles,
            "slack": slack, "opponents": opponents, "model": model_spec or opponents, "decisions": n,
            "plain_log_score": float(arr["plain_log"].mean()), "read_log_score": float(arr["read_log"].mean()),
            "log_score_gain": paired("plain_log", "read_log"),
            "plain_brier": float(arr["plain_brier"].mean()), "read_brier": float(arr["read_brier"].mean()),
            "brier_change": paired("plain_brier", "read_brier"),
            "mean_abs_move": float(arr["moved"].mean()), "ess_mean": float(arr["ess"].mean()),
            "ess_median": float(np.median(arr["ess"])),
            "seconds_per_reading": float(arr["seconds"].mean()),
            "calibration": [{"bin": f"{i / BINS:.1f}-{(i + 1) / BINS:.1f}", "n": int(c[0]),
                             "predicted": float(c[2] / c[0]) if c[0] else None,
                             "observed": float(c[1] / c[0]) if c[0] else None} for i, c in enumerate(calibration)]}


def show(r: dict) -> None:
    print(f"{r['game']} {r['players']} players: {r['games']} games (seeds {r['seed']}..{r['seed'] + r['games'] - 1}) "
          f"of {r['opponents']}, model {r['model']}, slack {r['slack']}, {r['particles']} states; "
          f"{r['decisions']} decisions read")
    g, se = r["log_score_gain"]
    print(f"  log score of the true place:  plain {r['plain_log_score']:.4f}  read {r['read_log_score']:.4f}  "
          f"gain {g:+.4f} (se {se:.4f})")
    b, bse = r["brier_change"]
    print(f"  Brier score:                  plain {r['plain_brier']:.4f}  read {r['read_brier']:.4f}  "
          f"change {b:+.4f} (se {bse:.4f})")
    print(f"  mean |change| of a place probability {r['mean_abs_move']:.4f}; effective sample size mean "
          f"{r['ess_mean']:.1f}, median {r['ess_median']:.1f}; {1000 * r['seconds_per_reading']:.0f} ms per reading")
    print("  read belief, place probabilities:    bin      n   predicted  observed")
    for c in r["calibration"]:
        if c["n"]:
            print(f"  {'':36}{c['bin']:>8} {c['n']:>6}   {c['predicted']:.3f}     {c['observed']:.3f}")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--env", default="dnp_v0", choices=sorted(PLACES))
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--particles", type=int, default=128)
    parser.add_argument("--seed", type=int, default=97000)
    parser.add_argument("--every", type=int, default=4)
    parser.add_argument("--slack", type=float, default=0.4)
    parser.add_argument("--opponents", default=None, help="default: dnp tactician, gap planner")
    parser.add_argument("--model", default=None)
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    for name in ("games", "particles", "every"):
        if getattr(args, name) < 1:
            parser.error(f"--{name} {getattr(args, name)}; allowed: a positive integer")
    if args.players not in registry.game(args.env).players:
        parser.error(f"--players {args.players}; allowed: {list(registry.game(args.env).players)}")
    start = time.time()
    result = run(args.players, args.games, args.particles, args.seed, args.every, args.slack, args.opponents,
                 args.model, args.env)
    result["wall_seconds"] = time.time() - start
    show(result)
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
