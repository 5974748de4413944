"""The step-kernel A/B (``keine_ahnung_env.kernel_ab``, dnp's ``games/dnp/kernel_ab.py``): its exact-replay
check is the proof a speed change made that no rule or random draw changed, so it must pass this tree's
kernels and catch a changed rule. Slow (two copies of the kernels compile: a few minutes)."""

from __future__ import annotations

import pytest

from keine_ahnung_env.games.dnp import kernel_ab, kernels


@pytest.mark.slow
def test_dnp_kernel_ab_reproduces_this_tree_and_catches_a_changed_rule(tmp_path):
    source = open(kernels.__file__).read()
    turn = "s.card_rot[b, c] ^= np.int8((s.card_loc[b, c] == hand) & (s.card_where[b, c] == holder))"
    assert source.count(turn) == 1, "the TURN loop moved: update this test"
    changed = tmp_path / "kernels.py"
    changed.write_text(source.replace(turn, "pass  # TURN no longer turns the hand"))
    result = kernel_ab.run(kernels.__file__, str(changed), batch=64, steps=40, rounds=2)
    assert result["before_identical"] and not result["after_identical"] and not result["identical"]
    assert result["before_median_ns"] > 0 and result["after_median_ns"] > 0
