"""The compiled Plackett-Luce updates (``training/plackett_luce.py``) against openskill's own ``PlackettLuce``:
random games of 2-5 seats with ties and agents holding several seats, in a random order, and reference
players held fixed (as ``benchmark_agents.anchored_rating`` holds its opponents)."""

from __future__ import annotations

import numpy as np
import pytest
from openskill.models import PlackettLuce

from training.plackett_luce import rate_games


def _openskill(seat_agent, ranks, order, num_agents, mu=None, sigma=None, frozen=()):
    """The tournaments' former loop over openskill objects (``tournament._rate``, one pass), with a copy
    of the agent's rating per seat. (The former loop handed openskill the same object for every seat of
    an agent, so openskill widened its sigma once per seat and each seat's update overwrote the last:
    not the documented "each seat rated from the agent's rating, then the mean".)"""
    model = PlackettLuce()
    ratings = [model.rating() if mu is None else model.rating(mu=mu[a], sigma=sigma[a]) for a in range(num_agents)]
    for g in order:
        seats = seat_agent[g]
        new = model.rate([[model.rating(mu=ratings[a].mu, sigma=ratings[a].sigma)] for a in seats],
                         ranks=ranks[g].tolist())
        for a in np.unique(seats):
            if a in frozen:
                continue
            mine = np.flatnonzero(seats == a)
            ratings[a] = model.rating(mu=float(np.mean([new[s][0].mu for s in mine])),
                                      sigma=float(np.mean([new[s][0].sigma for s in mine])))
    return np.array([r.mu for r in ratings]), np.array([r.sigma for r in ratings])


def _games(rng, games, players, agents):
    seat_agent = rng.integers(agents, size=(games, players))
    scores = rng.integers(3, size=(games, players))  # few values: many ties
    ranks = 1 + (scores[:, None, :] > scores[:, :, None]).sum(axis=2)
    return seat_agent, ranks


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_equals_openskill(players):
    rng = np.random.default_rng(players)
    seat_agent, ranks = _games(rng, 300, players, agents=4)
    order = rng.permutation(300)
    want_mu, want_sigma = _openskill(seat_agent, ranks, order, 4)
    got_mu, got_sigma = rate_games(seat_agent, ranks, order, num_agents=4)
    np.testing.assert_allclose(got_mu, want_mu, rtol=1e-13, atol=0)
    np.testing.assert_allclose(got_sigma, want_sigma, rtol=1e-13, atol=0)
    assert np.ptp(got_mu) > 0.5  # the games moved the ratings apart: the comparison compares something


def test_frozen_reference_players_keep_their_ratings():
    rng = np.random.default_rng(7)
    seat_agent, ranks = _games(rng, 200, 4, agents=3)
    seat_agent[:, 0] = 0  # agent 0 in every game, against reference players 1 and 2
    seat_agent[:, 1:] = 1 + rng.integers(2, size=(200, 3))
    mu0, sigma0 = np.array([25.0, 30.0, 20.0]), np.array([25 / 3, 1.5, 2.0])
    order = rng.permutation(200)
    want_mu, want_sigma = _openskill(seat_agent, ranks, order, 3, mu0, sigma0, frozen=(1, 2))
    got_mu, got_sigma = rate_games(seat_agent, ranks, order, mu0, sigma0, frozen=[False, True, True])
    np.testing.assert_allclose(got_mu, want_mu, rtol=1e-13, atol=0)
    np.testing.assert_allclose(got_sigma, want_sigma, rtol=1e-13, atol=0)
    assert got_mu[1:].tolist() == [30.0, 20.0] and got_sigma[1:].tolist() == [1.5, 2.0]


def test_bad_input():
    with pytest.raises(ValueError, match="one shape"):
        rate_games(np.zeros((3, 4), int), np.ones((3, 3), int), np.arange(3))
    with pytest.raises(ValueError, match="outside 0..1"):
        rate_games(np.full((3, 4), 2), np.ones((3, 4), int), np.arange(3), num_agents=2)
    with pytest.raises(ValueError, match="order holds games outside"):
        rate_games(np.zeros((3, 4), int), np.ones((3, 4), int), np.arange(4))
