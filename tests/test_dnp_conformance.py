"""dnp through the shared reliability checks (``tests/conformance.py``) with its own adapter
(``tests/dnp_adapter.py``): the full invariants after every step of random programs with bad input
mixed in, and hidden information (a seat's view, mask, string view, feature sets and agents do not
change when the cards it cannot see are dealt differently among the other hands and lie the other
way round), plus the door's checks with the adapter (batch independence, copies on every surface)."""

from __future__ import annotations

import functools

import numpy as np
import pytest

import conformance as C
from dnp_adapter import DnpAdapter
from keine_ahnung_env import registry
from keine_ahnung_env.sampling import sample_masked

ADAPTER = DnpAdapter()


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_random_programs_keep_every_invariant(players):
    core = ADAPTER.make_core(4, {"num_players": players}, seed=players)
    kinds = len(C.BAD_STEP_KINDS)
    program = [("steps", 39), ("partial", 1)] + [("bad", k) for k in range(kinds)] + [("steps", 79), ("reset", 5)] \
        + [("steps", 39)] * 6 + [("partial", 2), ("steps", 38)]
    stats = C.run_program(ADAPTER, core, program, max_steps=600)
    assert stats["rejected"] >= kinds - 1 and stats["steps"] > 200


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_a_seat_sees_nothing_it_may_not_know(players):
    import agents

    spec = registry.game_spec("dnp_v0", players)
    core = ADAPTER.make_core(3, {"num_players": players}, seed=5)
    rng = np.random.default_rng(5)
    # Feature sets that read the mask (advice: the tactician's move, checked as an agent below) are left out.
    functions = [(f"features {kind}", spec.features(kind)) for kind in spec.feature_names
                 if not spec.features(kind).needs_mask]
    factories = [(name, functools.partial(agents.make, name, game="dnp_v0", seed=0)) for name in spec.agents]
    totals = {"variants": 0, "controls_changed": 0}
    for _ in range(6):
        stats = C.check_hidden_information(ADAPTER, core, rng, functions, factories)
        for key in totals:
            totals[key] += stats[key]
        for _ in range(int(rng.integers(3, 12))):
            if core.done.all():
                core.reset_games(np.arange(core.num_envs))
            core.step(sample_masked(rng, core.legal_mask))
    assert totals["variants"] > 0 and totals["controls_changed"] > 0


@pytest.mark.parametrize("players", [2, 5])
def test_batch_independence_and_copies_with_the_full_state(players):
    variant = {"num_players": players}
    assert C.check_batch_independence(ADAPTER, variant, seed=7, num_envs=5, steps=80)["steps"] > 0
    C.check_every_surface_copies(ADAPTER, variant, seed=4, warmup=10, steps=12)
