"""Every registered game that offers beliefs (``GameSpec.belief``, issue 17) keeps the contract of
:class:`~keine_ahnung_env.game_spec.BeliefHooks` through the game door alone
(``conformance.check_belief_sampler``): sampled states reproduce the seat's observation and legal mask,
the same seed gives the same samples and futures, events are probabilities, bad observations are
refused. The games' own belief tests (``test_<game>_belief.py``) check the probabilities themselves."""

from __future__ import annotations

import pytest

import conformance as C
from keine_ahnung_env import registry

GAMES = [name for name in registry.games() if registry.game_spec(name).belief is not None]


def test_the_games_with_beliefs_include_gap_and_dnp():
    assert {"gap_v0", "dnp_v0"} <= set(GAMES)


@pytest.mark.parametrize("game", GAMES)
def test_a_games_beliefs_keep_the_contract(game):
    spec = registry.game_spec(game)
    stats = C.check_belief_sampler(spec, num_envs=4, seed=1, steps=100)
    assert stats["positions"] >= 20 and stats["refused"] >= 3
