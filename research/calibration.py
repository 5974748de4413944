"""Calibration of the call-risk model in real play: forced calls beside their outcomes.

The Monte Carlo check (``risk.monte_carlo_call_success``) re-deals the hidden cards uniformly, which is
the model's own assumption, so it tests the arithmetic, not the assumption. Here the model meets real
outcomes instead: games are played (by ``counter`` in every seat unless told otherwise), and wherever a
call is legal the seat is forced to call with probability ``force``; every call (forced or chosen) is
recorded with the model's probability on the caller's observation and whether the caller's trophy count
went up. :func:`reliability_table` bins the calls by the prediction and tests each bin: the number of
successes in a bin of calls with probabilities p_i is a Poisson-binomial variable, and the bin passes
when the observed count lies inside its exact two-sided ``1 - alpha`` interval (Bonferroni: ``alpha``
divided by the number of bins tested).

``.venv/bin/python research/validate_risk.py --real`` prints the tables; ``tests/test_belief.py`` runs a small version.
"""

from __future__ import annotations

import dataclasses
from typing import Callable

import numpy as np

from keine_ahnung_env.games.keine_ahnung import odds as risk
from keine_ahnung_env.games.keine_ahnung.actions import ACTION_CALL
from keine_ahnung_env.games.keine_ahnung.config import SLOTS, Rules
from keine_ahnung_env.games.keine_ahnung.observation import ObservationLayout

Predictor = Callable[[np.ndarray, object], np.ndarray]
"""``(observations [B, O], tables) -> [B]`` success probabilities of a call by the observer."""


def exact_model(observation: np.ndarray, tables) -> np.ndarray:
    """The risk model as shipped: :func:`risk.batch_call_success_probability` on the whole observation."""
    return risk.batch_call_success_probability(observation, tables)


def version1_model(observation: np.ndarray, tables) -> np.ndarray:
    """The risk model of observation version 1: the same formula on the version-1 prefix of the observation (one
    pool of "cards whose place I do not know"). For comparisons only."""
    P = risk.layout_for(observation.shape[1], tables).num_players
    width = ObservationLayout.for_tables(P, tables, version=1).size
    return risk.batch_call_success_probability(np.ascontiguousarray(observation[:, :width]), tables)


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
    """the one-pool model of observation version 1 (:func:`version1_model`), for comparison."""
    games: int
    """games played to the end."""


def play_forced_calls(num_players: int, memory: str = "perfect", games: int = 200, force: float = 0.3,
                      seed: int = 0, num_envs: int = 64, predictor: Predictor | None = None,
                      agent_factory=None) -> CallRecords:
    """Plays ``games`` games of the variant and records every call (see the module docstring).

    ``agent_factory(seed, num_players, rules)`` makes the batched agent of every seat (default:
    ``counter``); ``predictor`` is the model under test (default: :func:`exact_model`)."""
    from keine_ahnung_env.games.keine_ahnung.agents import CounterAgent
    from keine_ahnung_env.games.keine_ahnung.core import KeineAhnungCore

    if not 0.0 <= force <= 1.0:
        raise ValueError(f"force={force!r}; allowed: a probability in [0, 1]")
    rules = Rules.make(num_players, memory=memory)
    tables = rules.tables()
    predictor = predictor or exact_model
    agent = (agent_factory or (lambda s, p, r: CounterAgent(seed=s, num_players=p)))(seed, num_players, rules)
    rng = np.random.default_rng(seed)
    envs = max(1, min(num_envs, games))
    core = KeineAhnungCore(envs, rules, seed=seed)
    started = envs
    finished = 0
    live = np.ones(envs, bool)
    out: dict[str, list] = {k: [] for k in ("predicted", "success", "forced", "trophies_left", "reshuffles",
                                            "earlier_pool", "ended", "predicted_v1")}
    while live.any():
        obs = core.observe(core.current)
        mask = core.legal_mask
        actions = agent.act(obs, mask)
        forced = live & mask[:, ACTION_CALL] & (rng.random(envs) < force) & (actions != ACTION_CALL)
        actions = np.where(forced, ACTION_CALL, actions)
        calls = np.flatnonzero(live & (actions == ACTION_CALL) & mask[:, ACTION_CALL])
        if calls.size:
            seats = core.current[calls].astype(np.intp)
            before = core.trophy_count[calls, seats].copy()
            out["predicted"].append(predictor(obs[calls], tables))
            out["predicted_v1"].append(version1_model(obs[calls], tables))
            out["forced"].append(forced[calls])
            out["trophies_left"].append(tables.num_trophies - core.trophy_pos[calls].astype(np.int64))
            out["reshuffles"].append(core.reshuffles[calls].astype(np.int64))
            cards = core.layout[calls, seats]  # [C, 6]
            safe = np.maximum(cards, 0)
            unknown = (cards >= 0) & ~core.card_known[calls[:, None], safe]
            older = core.card_epoch[calls[:, None], safe] < core.reshuffles[calls][:, None]
            out["earlier_pool"].append((unknown & older).any(1))
        core.step(actions, active=live)
        if calls.size:
            out["success"].append(core.trophy_count[calls, seats] > before)
            out["ended"].append(core.done[calls].copy())
        done = np.flatnonzero(live & core.done)
        if done.size:
            finished += done.size
            again = done[: max(0, games - started)]
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
                       predicted_v1=arrays["predicted_v1"].astype(np.float64), games=finished)


# --------------------------------------------------------------------------------- the reliability table


def poisson_binomial_pmf(p: np.ndarray) -> np.ndarray:
    """[n + 1] probabilities of 0..n successes among independent trials with probabilities ``p``."""
    pmf = np.zeros(len(p) + 1)
    pmf[0] = 1.0
    for i, q in enumerate(np.asarray(p, np.float64)):
        pmf[1 : i + 2] = pmf[1 : i + 2] * (1 - q) + pmf[: i + 1] * q
        pmf[0] *= 1 - q
    return pmf


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
