"""openskill's Plackett-Luce rating updates, compiled, for many games of one-player teams.

The tournaments rate every game's final ranks with openskill's ``PlackettLuce`` model (default
parameters: mu 25, sigma 25/3, beta 25/6, kappa 1e-4, tau 25/300; Weng and Lin 2011, algorithm 4), in
several seeded game orders (``tournament._rate``). Through openskill's Python objects one update costs
about 0.3-0.5 ms, so rating 100,000 games eight times took longer than playing them. :func:`rate_games`
runs the same arithmetic in a Numba loop, operation for operation as ``PlackettLuce.rate`` does it for
teams of one player without weights, scores or ``limit_sigma`` (the sigma widened by tau, the teams
taken in rank order, ``c``, the sums over the teams ranked at least as low, ``A``, the omega and delta
of each team, gamma ``sqrt(sigma^2) / c``); ``tests/test_plackett_luce.py`` checks it against openskill
itself, ties and repeated agents included.

An agent that holds several seats of one game is rated, as before, seat by seat from its rating
before the game, and then takes the mean of its seats' new mu and sigma.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

MU = 25.0
SIGMA = 25.0 / 3.0
BETA = 25.0 / 6.0
KAPPA = 0.0001
TAU = 25.0 / 300.0
"""openskill's ``PlackettLuce()`` defaults (the model every tournament uses)."""


@njit(cache=True)
def _rate_game(mu, sigma, seats, ranks, frozen, work, int_work):
    """One game: ``seats [k]`` agent indices, ``ranks [k]`` (1 = best, ties share a rank); updates
    ``mu``/``sigma`` of the agents not ``frozen``. ``work [6, k]`` and ``int_work [3, k]`` are scratch."""
    new_mu, new_sigma, sig, var, expo, sum_q = work[0], work[1], work[2], work[3], work[4], work[5]
    order, rank_sorted, a_count = int_work[0], int_work[1], int_work[2]
    k = seats.shape[0]
    # openskill sorts the teams by rank (a stable sort) and unwinds the result afterwards.
    for i in range(k):
        order[i] = i
    for i in range(1, k):  # insertion sort: stable, k <= 5
        j = i
        while j > 0 and ranks[order[j - 1]] > ranks[order[j]]:
            order[j - 1], order[j] = order[j], order[j - 1]
            j -= 1
    beta_squared = BETA ** 2
    tau_squared = TAU * TAU
    collective = 0.0
    for i in range(k):
        s = sigma[seats[order[i]]]
        sig[i] = math.sqrt(s * s + tau_squared)
        rank_sorted[i] = ranks[order[i]]
        var[i] = 0.0 + (sig[i] * 1.0) ** 2  # the team's sigma squared (one player, weight 1)
        collective += var[i] + beta_squared
    c = math.sqrt(collective)
    for q in range(k):
        sum_q[q] = 0.0
        a_count[q] = 0
        for i in range(k):
            a_count[q] += rank_sorted[i] == rank_sorted[q]
    for i in range(k):
        expo[i] = math.exp((0.0 + mu[seats[order[i]]] * 1.0) / c)  # the team's mu is its player's
        for q in range(k):
            if rank_sorted[i] >= rank_sorted[q]:
                sum_q[q] += expo[i]
    for i in range(k):
        agent = seats[order[i]]
        team_sigma_squared = var[i]
        omega = 0.0
        delta = 0.0
        for q in range(k):
            ratio = expo[i] / sum_q[q]
            if rank_sorted[q] <= rank_sorted[i]:
                delta += ratio * (1 - ratio) / a_count[q]
                if q == i:
                    omega += (1 - ratio) / a_count[q]
                else:
                    omega -= ratio / a_count[q]
        omega *= team_sigma_squared / c
        delta *= team_sigma_squared / c ** 2
        delta *= math.sqrt(team_sigma_squared) / c
        s = sig[i]
        share = s ** 2 / team_sigma_squared
        m = mu[agent]
        if omega >= 0:
            m += share * omega * 1.0
            s *= math.sqrt(max(1 - share * delta * 1.0, KAPPA))
        else:
            m += share * omega / 1.0
            s *= math.sqrt(max(1 - share * delta / 1.0, KAPPA))
        new_mu[order[i]] = m
        new_sigma[order[i]] = s
    # Each agent takes the mean of its seats' new ratings (np.mean of the seats in seat order).
    for i in range(k):
        agent = seats[i]
        first = True
        for j in range(i):
            if seats[j] == agent:
                first = False
        if not first or frozen[agent]:
            continue
        total_mu = 0.0
        total_sigma = 0.0
        n = 0
        for j in range(i, k):
            if seats[j] == agent:
                total_mu += new_mu[j]
                total_sigma += new_sigma[j]
                n += 1
        mu[agent] = total_mu / n
        sigma[agent] = total_sigma / n


@njit(cache=True)
def _rate_all(mu, sigma, seat_agent, ranks, frozen, order_of_games):
    k = seat_agent.shape[1]
    work = np.zeros((6, k))
    int_work = np.zeros((3, k), np.int64)
    for g in order_of_games:
        _rate_game(mu, sigma, seat_agent[g], ranks[g], frozen, work, int_work)


def rate_games(seat_agent: np.ndarray, ranks: np.ndarray, order: np.ndarray, mu: np.ndarray | None = None,
               sigma: np.ndarray | None = None, frozen: np.ndarray | None = None,
               num_agents: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Online Plackett-Luce ratings after the games ``order`` (indices into the rows), in that order.

    ``seat_agent [G, P]``: the agent (0..A-1) of each seat of each game; ``ranks [G, P]``: each seat's
    final rank (1 = best; ties share one). ``mu``/``sigma`` ``[A]``: the ratings to start from (default
    openskill's 25 and 25/3 for everyone); agents marked ``frozen [A]`` keep theirs (reference players).
    Returns the new ``(mu, sigma)``, float64 ``[A]`` each."""
    seat_agent = np.ascontiguousarray(seat_agent, np.int64)
    ranks = np.ascontiguousarray(ranks, np.int64)
    if seat_agent.ndim != 2 or ranks.shape != seat_agent.shape:
        raise ValueError(f"seat_agent and ranks must be [games, players] of one shape; got {seat_agent.shape} "
                         f"and {ranks.shape}")
    A = int(num_agents if num_agents is not None else (seat_agent.max(initial=-1) + 1))
    if seat_agent.size and (seat_agent.min() < 0 or seat_agent.max() >= A):
        raise ValueError(f"seat_agent holds agents outside 0..{A - 1}")
    mu = np.full(A, MU) if mu is None else np.array(mu, np.float64)
    sigma = np.full(A, SIGMA) if sigma is None else np.array(sigma, np.float64)
    frozen = np.zeros(A, np.bool_) if frozen is None else np.asarray(frozen, np.bool_)
    order = np.ascontiguousarray(order, np.int64)
    if order.size and (order.min() < 0 or order.max() >= seat_agent.shape[0]):
        raise ValueError(f"order holds games outside 0..{seat_agent.shape[0] - 1}")
    _rate_all(mu, sigma, seat_agent, ranks, frozen, order)
    return mu, sigma
