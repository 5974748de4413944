"""Statistics helpers shared by every layer: interval estimates of proportions.

One module for them (the tournament, the search planner, the risk-model checks and the notebooks all
use these), so a figure and its interval are computed the same way everywhere.
"""

from __future__ import annotations

import numpy as np

Z95 = 1.959963984540054
"""The standard normal quantile of a two-sided 95% interval."""


def wilson_interval(successes: np.ndarray | int, trials: np.ndarray | int, z: float = Z95
                    ) -> tuple[np.ndarray, np.ndarray]:
    """The Wilson score interval of a binomial proportion (default 95%): ``(low, high)``; (nan, nan)
    for zero trials. Vectorised; fractional successes allowed (shared wins)."""
    k = np.asarray(successes, np.float64)
    n = np.asarray(trials, np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        phat = k / n
        denom = 1 + z * z / n
        centre = (phat + z * z / (2 * n)) / denom
        half = z * np.sqrt(phat * (1 - phat) / n + z * z / (4 * n * n)) / denom
    return centre - half, centre + half


def proportion_interval(wins: float, n: float, z: float = Z95) -> tuple[float, float]:
    """The Wilson interval of ``wins / n`` as two floats, clipped so that it never lies beside its own
    estimate at 0 or 1 (rounding); (nan, nan) for ``n <= 0``."""
    if n <= 0:
        return float("nan"), float("nan")
    phat = wins / n
    low, high = wilson_interval(wins, n, z)
    return max(0.0, min(float(low), phat)), min(1.0, max(float(high), phat))


def binomial_interval_contains(p: float | np.ndarray, successes: int | np.ndarray, trials: int | np.ndarray,
                               alpha: float) -> np.ndarray:
    """Whether ``p`` lies in the exact (Clopper-Pearson, two-sided) ``1 - alpha`` confidence interval
    of ``successes`` out of ``trials``; equivalently, the exact two-tailed binomial test of ``p`` is
    not rejected at level ``alpha`` (each tail at ``alpha / 2``). Vectorised over its arguments."""
    p = np.atleast_1d(np.asarray(p, np.float64))
    k = np.atleast_1d(np.asarray(successes, np.int64))
    n = np.atleast_1d(np.asarray(trials, np.int64))
    p, k, n = np.broadcast_arrays(p, k, n)
    out = np.empty(p.shape, bool)
    for i in np.ndindex(p.shape):
        lower, upper = _binomial_tails(float(p[i]), int(k[i]), int(n[i]))
        out[i] = lower > alpha / 2 and upper > alpha / 2
    return out


def _binomial_tails(p: float, k: int, n: int) -> tuple[float, float]:
    """P(X <= k) and P(X >= k) for X ~ Binomial(n, p)."""
    if p <= 0.0:
        return 1.0, (1.0 if k == 0 else 0.0)
    if p >= 1.0:
        return (1.0 if k == n else 0.0), 1.0
    from math import lgamma, log

    x = np.arange(n + 1)
    logpmf = (lgamma(n + 1) - np.array([lgamma(i + 1) + lgamma(n - i + 1) for i in x])
              + x * log(p) + (n - x) * np.log1p(-p))
    pmf = np.exp(logpmf)
    return float(pmf[: k + 1].sum()), float(pmf[k:].sum())
