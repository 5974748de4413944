"""Calibration of Keine Ahnung's call-risk model in real play: forced calls beside their outcomes, and
the fit of the memory-none calibration curve.

    .venv/bin/python benchmarks/calibration.py --players 2,3,4,5 --memories perfect,none --calls 1000000 --seed 42000
    .venv/bin/python benchmarks/calibration.py --players 4 --memories none --calls 300000 --seed 43000 --policy greedy
    .venv/bin/python benchmarks/calibration.py --players 4 --memories none --calls 20000 --seed 1      # a quick one
    .venv/bin/python benchmarks/calibration.py --fit --players 2,3,4,5 --calls 4000000 --seed 41000 \\
        --out keine_ahnung_env/games/keine_ahnung/memory_none_calibration.json

**The check.** Games are played by ``--policy`` in every seat (``counter`` by default; any
``agents.make`` spec), and wherever a call is legal the seat to act is forced to call with
probability ``--force`` (0.3); every call, forced or chosen, is recorded with the risk model's value
on the caller's observation (``risk.batch_call_success_probability`` with the rules' memory mode:
with ``memory="none"`` the value calibrated among ``counter`` players, or the one-pool value with
``--among none``) and whether the caller's trophy count went up. Each variant (player count x memory
mode) runs one batched core of ``--batch`` games (default 2,048), dealing a new game wherever one
ends until it has recorded at least ``--calls`` calls, then plays the games still running to their end
(so that every game contributes all its calls); the seeds are ``--seed + P``. The calls are
binned by the prediction (ten equal bins of [0, 1]) and each bin is tested: the number of successes
among calls with probabilities p_i is a Poisson-binomial variable, and the bin passes when the
observed count lies inside its central ``1 - alpha`` interval, ``alpha`` = 0.01 divided by the
number of non-empty bins of the table (Bonferroni). Exit status 1 when a bin is outside.

**The interval.** The Poisson-binomial distribution is computed exactly up to rounding
(:func:`poisson_binomial_pmf`): the direct recursion for up to 512 calls; beyond, the recursion on
blocks of 256 calls at once and the blocks' distributions multiplied pairwise as polynomials by FFT
(O(n log^2 n); the rounding error, about 1e-13 of the largest probability, is far below the
Bonferroni tail of about 4e-4). ``tests/test_calibration.py`` checks it against the recursion.

**The fit** (``--fit``): per table size, ``--calls`` calls with ``memory="none"`` recorded with the
one-pool value; the calls with a value strictly between 0 and 1 (0 and 1 are certain) are sorted by
it, grouped into points of ``--per-point`` calls (default 1,000), and an isotonic regression
(pool-adjacent-violators) of success on the value over those points gives the curve's knots: each
block's mean value and success rate. ``--out`` writes them as plain JSON with the policy, seeds,
calls and command; ``risk`` reads that file (``risk.memory_none_calibration``).

``--json PATH`` writes the figures. The documented runs and their tables: ``docs/results.md``
("Calibration").
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # the core's small matrix products: faster single-threaded

import argparse  # noqa: E402
import dataclasses  # noqa: E402
import json  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402
from typing import Callable  # noqa: E402

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from keine_ahnung_env.games.keine_ahnung import odds as risk  # noqa: E402
from keine_ahnung_env.games.keine_ahnung.actions import ACTION_CALL  # noqa: E402
from keine_ahnung_env.games.keine_ahnung.config import Rules  # noqa: E402
from keine_ahnung_env.games.keine_ahnung.observation import ObservationLayout  # noqa: E402

Predictor = Callable[[np.ndarray, object], np.ndarray]
"""``(observations [B, O], tables) -> [B]`` success probabilities of a call by the observer."""

FORMAT = "keine_ahnung_env.call_risk_calibration/1"
"""The ``format`` field of the calibration file."""


def exact_model(observation: np.ndarray, tables, memory: str = "perfect", among: str | None = "counter") -> np.ndarray:
    """The risk model as shipped: :func:`risk.batch_call_success_probability` on the whole observation."""
    return risk.batch_call_success_probability(observation, tables, memory=memory, among=among)


def version1_model(observation: np.ndarray, tables) -> np.ndarray:
    """The risk model of observation version 1: the same formula on the version-1 prefix of the observation
    (one pool of "cards whose place I do not know"). For comparisons only."""
    P = risk.layout_for(observation.shape[1], tables).num_players
    width = ObservationLayout.for_tables(P, tables, version=1).size
    return risk.batch_call_success_probability(np.ascontiguousarray(observation[:, :width]), tables, among=None)


@dataclasses.dataclass
class CallRecords:
    """Every call of a run, one entry per call (arrays of equal length)."""

    predicted: np.ndarray
    """the model's success probability on the caller's observation."""
    success: np.ndarray
    """bool: the caller's trophy count went up."""
    forced: np.ndarray
    """bool: the call was forced (else the agent chose it)."""
    trophies_left: np.ndarray
    reshuffles: np.ndarray
    """reshuffles of the draw pile before the call."""
    earlier_pool: np.ndarray
    """bool: the caller held an unknown face-down card dealt from an earlier shuffle than the draw pile's."""
    ended: np.ndarray
    """bool: the call ended the game (it won the last trophy)."""
    predicted_v1: np.ndarray
    """the one-pool model of observation version 1 (:func:`version1_model`), for comparison (empty
    when the run did not record it)."""
    games: int
    """games played to the end."""
    raw: np.ndarray = None
    """the pool model's value before any calibration curve (``among=None``; the same as ``predicted``
    with perfect memory)."""
    seconds: float = 0.0
    """wall time of the run."""


def _agent_factory(policy: str) -> Callable:
    """``(seed, num_players, rules) -> agent`` for an ``agents.make`` spec."""
    def make(seed, num_players, rules):
        import agents
        from keine_ahnung_env.games.keine_ahnung.agents import CounterAgent

        if policy == "counter":
            return CounterAgent(seed=seed, num_players=num_players)
        return agents.make(policy, seed=seed, num_players=num_players)
    return make


def play_forced_calls(num_players: int, memory: str = "perfect", games: int = 200, force: float = 0.3,
                      seed: int = 0, num_envs: int = 64, predictor: Predictor | None = None,
                      agent_factory=None, calls: int | None = None, among: str | None = "counter",
                      record_v1: bool = True) -> CallRecords:
    """Plays the variant and records every call (see the module docstring).

    Without ``calls``: plays exactly ``games`` games in a batch of ``num_envs``. With ``calls``: plays
    in a batch of ``num_envs`` games, dealing a new game wherever one ends until at least ``calls``
    calls are recorded, then plays the games still running to their end (``games`` is ignored), so
    every game contributes all its calls.
    ``agent_factory(seed, num_players, rules)`` makes the batched agent of every seat (default:
    ``counter``); ``predictor`` is the model under test (default: :func:`exact_model` with the
    variant's memory mode and ``among``). ``record_v1`` also records :func:`version1_model`."""
    from keine_ahnung_env.games.keine_ahnung.core import KeineAhnungCore

    if not 0.0 <= force <= 1.0:
        raise ValueError(f"force={force!r}; allowed: a probability in [0, 1]")
    if calls is not None and calls < 1:
        raise ValueError(f"calls={calls!r}; allowed: a positive integer or None")
    start_time = time.time()
    rules = Rules.make(num_players, memory=memory)
    tables = rules.tables()
    agent = (agent_factory or _agent_factory("counter"))(seed, num_players, rules)
    rng = np.random.default_rng(seed)
    envs = max(1, num_envs if calls is not None else min(num_envs, games))
    core = KeineAhnungCore(envs, rules, seed=seed)
    started = envs
    finished = recorded = 0
    live = np.ones(envs, bool)
    out: dict[str, list] = {k: [] for k in ("predicted", "raw", "success", "forced", "trophies_left", "reshuffles",
                                            "earlier_pool", "ended", "predicted_v1")}
    while live.any():
        obs = core.observe(core.current)
        mask = core.legal_mask
        actions = agent.act(obs, mask)
        forced = live & mask[:, ACTION_CALL] & (rng.random(envs) < force) & (actions != ACTION_CALL)
        actions = np.where(forced, ACTION_CALL, actions)
        made = np.flatnonzero(live & (actions == ACTION_CALL) & mask[:, ACTION_CALL])
        if made.size:
            seats = core.current[made].astype(np.intp)
            before = core.trophy_count[made, seats].copy()
            seen = obs[made]
            raw = risk.batch_call_success_probability(seen, tables, among=None)
            out["raw"].append(raw)
            if predictor is None:
                out["predicted"].append(risk.calibrated_call_probability(raw, num_players, memory, among))
            else:
                out["predicted"].append(predictor(seen, tables))
            if record_v1:
                out["predicted_v1"].append(version1_model(seen, tables))
            out["forced"].append(forced[made])
            out["trophies_left"].append(tables.num_trophies - core.trophy_pos[made].astype(np.int64))
            out["reshuffles"].append(core.reshuffles[made].astype(np.int64))
            cards = core.layout[made, seats]  # [C, 6]
            safe = np.maximum(cards, 0)
            unknown = (cards >= 0) & ~core.card_known[made[:, None], safe]
            older = core.card_epoch[made[:, None], safe] < core.reshuffles[made][:, None]
            out["earlier_pool"].append((unknown & older).any(1))
            recorded += made.size
        core.step(actions, active=live)
        if made.size:
            out["success"].append(core.trophy_count[made, seats] > before)
            out["ended"].append(core.done[made].copy())
        done = np.flatnonzero(live & core.done)
        if done.size:
            finished += done.size
            again = (done if recorded < calls else done[:0]) if calls is not None else done[: max(0, games - started)]
            live[done] = False
            if again.size:
                core.reset_games(again)
                live[again] = True
                started += again.size
    arrays = {k: (np.concatenate(v) if v else np.zeros(0)) for k, v in out.items()}
    return CallRecords(predicted=arrays["predicted"].astype(np.float64), success=arrays["success"].astype(bool),
                       forced=arrays["forced"].astype(bool), trophies_left=arrays["trophies_left"].astype(np.int64),
                       reshuffles=arrays["reshuffles"].astype(np.int64),
                       earlier_pool=arrays["earlier_pool"].astype(bool), ended=arrays["ended"].astype(bool),
                       predicted_v1=arrays["predicted_v1"].astype(np.float64), games=finished,
                       raw=arrays["raw"].astype(np.float64), seconds=time.time() - start_time)


# --------------------------------------------------------------------------------- the reliability table

DIRECT_LIMIT = 512
"""Up to this many trials the Poisson-binomial distribution comes from the direct recursion."""
BLOCK = 256
"""Beyond it, the trials per block of the blockwise recursion before the FFT products."""


def _pmf_direct(p: np.ndarray) -> np.ndarray:
    pmf = np.zeros(len(p) + 1)
    pmf[0] = 1.0
    for i, q in enumerate(p):
        pmf[1: i + 2] = pmf[1: i + 2] * (1 - q) + pmf[: i + 1] * q
        pmf[0] *= 1 - q
    return pmf


def _fft_products(rows: np.ndarray) -> np.ndarray:
    """The product of the polynomials in ``rows`` [k, d] (coefficients in ascending order), pairwise by FFT."""
    while rows.shape[0] > 1:
        if rows.shape[0] % 2:
            rows = np.concatenate([rows, np.zeros((1, rows.shape[1]))])
            rows[-1, 0] = 1.0
        d = rows.shape[1]
        size = 1 << int(np.ceil(np.log2(2 * d - 1)))
        spectra = np.fft.rfft(rows, size, axis=1)
        rows = np.fft.irfft(spectra[0::2] * spectra[1::2], size, axis=1)[:, : 2 * d - 1]
    return rows[0]


def poisson_binomial_pmf(p: np.ndarray) -> np.ndarray:
    """[n + 1] probabilities of 0..n successes among independent trials with probabilities ``p``
    (exact up to rounding; see the module docstring)."""
    p = np.asarray(p, np.float64).ravel()
    n = p.size
    if n <= DIRECT_LIMIT:
        return _pmf_direct(p)
    blocks = -(-n // BLOCK)
    q = np.zeros(blocks * BLOCK)
    q[:n] = p
    q = q.reshape(blocks, BLOCK)
    pmf = np.zeros((blocks, BLOCK + 1))
    pmf[:, 0] = 1.0
    for i in range(BLOCK):  # the recursion on every block at once
        qi = q[:, i: i + 1]
        pmf[:, 1: i + 2] = pmf[:, 1: i + 2] * (1 - qi) + pmf[:, : i + 1] * qi
        pmf[:, 0] *= 1 - q[:, i]
    out = np.clip(_fft_products(pmf)[: n + 1], 0.0, None)
    return out / out.sum()


def poisson_binomial_interval(p: np.ndarray, alpha: float) -> tuple[int, int]:
    """The smallest ``lo`` and largest ``hi`` success counts not rejected by the exact two-sided test at
    level ``alpha`` (each tail ``alpha / 2``): the central ``1 - alpha`` interval of the count."""
    pmf = poisson_binomial_pmf(p)
    below = np.cumsum(pmf)  # P(X <= k)
    above = np.cumsum(pmf[::-1])[::-1]  # P(X >= k)
    ok = (below > alpha / 2 - 1e-12) & (above > alpha / 2 - 1e-12)
    ks = np.flatnonzero(ok)
    return int(ks.min()), int(ks.max())


@dataclasses.dataclass
class BinRow:
    low: float
    high: float
    calls: int
    predicted: float
    """mean predicted probability."""
    observed: float
    interval: tuple[float, float]
    """the observed rate's central interval under the model (Bonferroni-corrected level)."""
    inside: bool


def reliability_table(predicted: np.ndarray, success: np.ndarray, bins: int = 10, alpha: float = 0.01
                      ) -> tuple[list[BinRow], float]:
    """Bins calls by prediction (``bins`` equal bins of [0, 1]; 1.0 falls in the last) and tests every
    non-empty bin at level ``alpha / (non-empty bins)`` (Bonferroni). Returns the rows and the Brier score."""
    p = np.asarray(predicted, np.float64)
    y = np.asarray(success, bool)
    if p.shape != y.shape or np.isnan(p).any():
        raise ValueError("predicted and success must be equal-length arrays without NaN")
    index = np.minimum((p * bins).astype(np.int64), bins - 1)
    used = [b for b in range(bins) if (index == b).any()]
    level = alpha / max(1, len(used))
    rows = []
    for b in used:
        sel = index == b
        lo, hi = poisson_binomial_interval(p[sel], level)
        n, k = int(sel.sum()), int(y[sel].sum())
        rows.append(BinRow(b / bins, (b + 1) / bins, n, float(p[sel].mean()), k / n, (lo / n, hi / n),
                           lo <= k <= hi))
    brier = float(np.mean((p - y) ** 2)) if p.size else float("nan")
    return rows, brier


def format_table(rows: list[BinRow], brier: float) -> str:
    """The table as Markdown."""
    lines = ["| bin | calls | predicted | observed | interval (Bonferroni 99%) | inside |",
             "|-----|------:|----------:|---------:|--------------------------|:------:|"]
    for r in rows:
        lines.append(f"| {r.low:.1f}-{r.high:.1f} | {r.calls} | {r.predicted:.3f} | {r.observed:.3f} | "
                     f"[{r.interval[0]:.3f}, {r.interval[1]:.3f}] | {'yes' if r.inside else '**no**'} |")
    lines.append(f"\nBrier score {brier:.4f}")
    return "\n".join(lines)


# --------------------------------------------------------------------------------- the curve


def isotonic(x: np.ndarray, y: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pool-adjacent-violators: the non-decreasing fit of ``y`` (ordered by increasing ``x``) with
    weights ``w``. Returns each block's weighted mean x, weighted mean y and weight."""
    means, xs, weights = [], [], []
    for xi, yi, wi in zip(np.asarray(x, np.float64), np.asarray(y, np.float64), np.asarray(w, np.float64)):
        means.append(yi)
        xs.append(xi * wi)
        weights.append(wi)
        while len(means) > 1 and means[-2] > means[-1]:
            w2 = weights[-2] + weights[-1]
            means[-2] = (means[-2] * weights[-2] + means[-1] * weights[-1]) / w2
            xs[-2] += xs[-1]
            weights[-2] = w2
            del means[-1], xs[-1], weights[-1]
    weights_a = np.array(weights)
    return np.array(xs) / weights_a, np.array(means), weights_a


def fit_curve(raw: np.ndarray, success: np.ndarray, per_point: int = 1000) -> dict:
    """The calibration curve of calls with one-pool values ``raw`` and outcomes ``success`` (see the
    module docstring): ``{"x": [...], "y": [...], "calls": n}`` with x increasing and y non-decreasing."""
    raw = np.asarray(raw, np.float64)
    success = np.asarray(success, bool)
    inner = (raw > 0.0) & (raw < 1.0)
    order = np.argsort(raw[inner], kind="stable")
    x, y = raw[inner][order], success[inner][order].astype(np.float64)
    points = max(1, x.size // per_point)
    edges = np.linspace(0, x.size, points + 1).astype(np.int64)
    counts = np.diff(edges).astype(np.float64)
    px = np.add.reduceat(x, edges[:-1]) / counts
    py = np.add.reduceat(y, edges[:-1]) / counts
    kx, ky, kw = isotonic(px, py, counts)
    # Seven significant digits; knots whose x then coincide (runs of one value) become one, their
    # weighted mean, so that x stays strictly increasing and y non-decreasing.
    kx = np.array([float(f"{v:.7g}") for v in kx])
    first = np.concatenate([[True], np.diff(kx) > 0])
    group = np.cumsum(first) - 1
    ky = np.bincount(group, ky * kw) / np.bincount(group, kw)
    return {"x": kx[first].tolist(), "y": [float(f"{v:.7g}") for v in ky],
            "calls": int(raw.size), "calls_inside": int(x.size),
            "certain_zero": [int((raw <= 0).sum()), int(success[raw <= 0].sum())],
            "certain_one": [int((raw >= 1).sum()), int(success[raw >= 1].sum())]}


# --------------------------------------------------------------------------------- the command


def run_variant(players: int, memory: str, calls: int, seed: int, batch: int, force: float, policy: str,
                among: str | None, verbose: bool = True) -> dict:
    """One variant of the check: its calls, table and figures."""
    run = play_forced_calls(players, memory, force=force, seed=seed, num_envs=batch, calls=calls, among=among,
                            agent_factory=_agent_factory(policy), record_v1=False)
    start = time.time()
    rows, brier = reliability_table(run.predicted, run.success)
    rows_raw, brier_raw = reliability_table(run.raw, run.success)
    figures = {"players": players, "memory": memory, "policy": policy, "among": among, "seed": seed,
               "calls": int(run.predicted.size), "forced": int(run.forced.sum()), "games": run.games,
               "brier": brier, "brier_one_pool": brier_raw,
               "mean_error": float(np.mean(run.success) - np.mean(run.predicted)),
               "mean_error_one_pool": float(np.mean(run.success) - np.mean(run.raw)),
               "bins_outside": sum(not r.inside for r in rows), "bins": len(rows),
               "rows": [dataclasses.asdict(r) for r in rows],
               "one_pool_bins_outside": sum(not r.inside for r in rows_raw),
               "one_pool_rows": [dataclasses.asdict(r) for r in rows_raw], "play_seconds": run.seconds,
               "table_seconds": time.time() - start}
    figures["calls_per_second"] = figures["calls"] / max(run.seconds, 1e-9)
    if verbose:
        print(f"\n### {players} players, memory={memory}, {policy} in every seat (seed {seed}): "
              f"{figures['calls']:,} calls ({figures['forced']:,} forced), {run.games:,} games finished, "
              f"{run.seconds:.0f} s ({figures['calls_per_second']:,.0f} calls/s), "
              f"table {figures['table_seconds']:.1f} s\n")
        print(format_table(rows, brier))
        if memory == "none" and among is not None:
            print(f"one-pool value (among=None) on the same calls: {figures['one_pool_bins_outside']} of "
                  f"{len(rows_raw)} bins outside, Brier {brier_raw:.4f}, mean observed - predicted "
                  f"{figures['mean_error_one_pool']:+.4f} (calibrated: {figures['mean_error']:+.4f})")
        print(f"bins outside: {figures['bins_outside']} of {figures['bins']}", flush=True)
    return figures


def fit(players: list[int], calls: int, seed: int, batch: int, force: float, policy: str, per_point: int,
        command: str, verbose: bool = True) -> dict:
    """The memory-none calibration curves of ``players`` (the calibration file's ``curves[policy]``)."""
    curves = {}
    for P in players:
        run = play_forced_calls(P, "none", force=force, seed=seed + P, num_envs=batch, calls=calls, among=None,
                                agent_factory=_agent_factory(policy), record_v1=False)
        curve = fit_curve(run.raw, run.success, per_point)
        curve.update(seed=seed + P, games=run.games, seconds=round(run.seconds, 1))
        curves[str(P)] = curve
        if verbose:
            print(f"{P} players: {curve['calls']:,} calls in {run.games:,} finished games ({run.seconds:.0f} s); "
                  f"{len(curve['x'])} knots; one-pool mean {run.raw.mean():.4f}, observed {run.success.mean():.4f}; "
                  f"certain 0: {curve['certain_zero']}, certain 1: {curve['certain_one']} (calls, successes)",
                  flush=True)
    return {"format": FORMAT, "memory": "none", "force": force, "policy": policy, "per_point": per_point,
            "command": command, "curves": {policy: curves}}


def _int_list(text: str, name: str, parser) -> list[int]:
    try:
        return [int(v) for v in text.split(",")]
    except ValueError:
        parser.error(f"{name} {text!r}; allowed: comma-separated integers")


def main(argv: list[str] | None = None) -> int:
    """Command-line entry; returns the exit status."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     epilog="examples:\n" + __doc__.split("\n\n")[1],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--players", default="2,3,4,5", help="player counts, comma-separated (2-5)")
    parser.add_argument("--memories", default="perfect,none", help="memory modes, comma-separated (perfect, none)")
    parser.add_argument("--calls", type=int, default=1_000_000, help="calls per variant, at least (default 1,000,000)")
    parser.add_argument("--seed", type=int, default=0, help="base seed; a variant with P players uses seed + P")
    parser.add_argument("--policy", default="counter",
                        help="the agent in every seat (an agents.make spec; default counter)")
    parser.add_argument("--among", default="counter",
                        help="memory none: the curve's policy, or 'none' for the one-pool value (default counter)")
    parser.add_argument("--force", type=float, default=0.3, help="chance a legal call is forced (default 0.3)")
    parser.add_argument("--batch", type=int, default=2048, help="games played at once (default 2,048)")
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    parser.add_argument("--fit", action="store_true", help="fit the memory-none calibration curves instead")
    parser.add_argument("--per-point", type=int, default=1000, help="--fit: calls per point of the regression")
    parser.add_argument("--out", default=None, help="--fit: the calibration file to write")
    args = parser.parse_args(argv)
    players = _int_list(args.players, "--players", parser)
    memories = [m.strip() for m in args.memories.split(",")]
    among = None if args.among.strip().lower() == "none" else args.among.strip()
    if not all(2 <= p <= 5 for p in players) or not set(memories) <= {"perfect", "none"} or args.calls < 1 \
            or not 0 <= args.force <= 1 or args.batch < 1 or args.per_point < 1:
        parser.error("needs --players in 2-5, --memories perfect/none, --calls >= 1, --force in [0, 1], --batch >= 1, "
                     "--per-point >= 1")
    command = "benchmarks/calibration.py " + " ".join(sys.argv[1:] if argv is None else argv)
    if args.fit:
        if args.out is None:
            parser.error("--fit needs --out PATH (the calibration file to write)")
        data = fit(players, args.calls, args.seed, args.batch, args.force, args.policy, args.per_point, command)
        Path(args.out).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {args.out}")
        return 0
    results = [run_variant(P, memory, args.calls, args.seed + P, args.batch, args.force, args.policy, among)
               for P in players for memory in memories]
    print("\n| players | memory | calls | bins outside | Brier | seconds | calls/s |\n"
          "|---:|---|---:|---:|---:|---:|---:|")
    for r in results:
        print(f"| {r['players']} | {r['memory']} | {r['calls']:,} | {r['bins_outside']} of {r['bins']} | "
              f"{r['brier']:.4f} | {r['play_seconds']:.0f} | {r['calls_per_second']:,.0f} |")
    if args.json:
        Path(args.json).write_text(json.dumps({"command": command, "variants": results}, indent=1) + "\n",
                                   encoding="utf-8")
    return 0 if all(r["bins_outside"] == 0 for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
