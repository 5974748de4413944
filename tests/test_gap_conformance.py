"""The gap game under the conformance suite with its own adapter (``tests/gap_adapter.py``): the
hidden-information (leak) checks, its invariants under random programs, determinism and bad input."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import conformance as C
from gap_adapter import GapAdapter
from keine_ahnung_env import registry
from keine_ahnung_env.sampling import sample_masked

GAP = GapAdapter()
PLAYERS = [2, 3, 4, 5]


@pytest.mark.parametrize("players", PLAYERS)
def test_a_seat_sees_nothing_it_may_not_know(players):
    import agents

    spec = registry.game_spec("gap_v0", players)
    core = GAP.make_core(3, {"num_players": players}, seed=5)
    rng = np.random.default_rng(players)
    # Feature sets that read the mask (advice: planner's move, checked as an agent below) are left out:
    # the check calls them with observations only.
    functions = [(f"features {kind}", spec.features(kind)) for kind in spec.feature_names
                 if not spec.features(kind).needs_mask]
    factories = [(name, functools.partial(agents.make, name, game="gap_v0", seed=0)) for name in spec.agents]
    totals = {"variants": 0, "controls_changed": 0}
    for k in range(10):
        stats = C.check_hidden_information(GAP, core, rng, functions, factories)
        for key in totals:
            totals[key] += stats[key]
        for _ in range(int(rng.integers(1, 4 if k < 4 else 40))):  # the hide phase first, then deep into rounds
            if core.done.all():
                core.reset_games(np.arange(core.num_envs))
            core.step(sample_masked(rng, core.legal_mask))
    assert totals["variants"] > 0 and totals["controls_changed"] > 0


@pytest.mark.parametrize("players", PLAYERS)
def test_invariants_hold_along_random_programs(players):
    core = GAP.make_core(4, {"num_players": players}, seed=players)
    kinds = len(C.BAD_STEP_KINDS)
    program = [("steps", 30), ("partial", 3)] + [("bad", k) for k in range(kinds)] + [("reset", 5), ("steps", 200),
                                                                                      ("partial", 20), ("steps", 200)]
    stats = C.run_program(GAP, core, program, max_steps=2000)
    assert stats["rejected"] >= kinds


@pytest.mark.parametrize("players", [2, 4])
def test_game_i_is_the_same_in_any_batch_and_with_the_same_seed(players):
    variant = {"num_players": players}
    assert C.check_batch_independence(GAP, variant, seed=7, num_envs=4, steps=300)["steps"] > 0
    C.check_same_seed(GAP, variant, seed=8, num_envs=3, steps=300)
