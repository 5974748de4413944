"""The step-kernel A/B (``research/kernel_ab.py``): its exact-replay check is the proof a speed change
made that no rule or random draw changed, so it must pass this tree's kernels and catch a changed rule.
Slow (two copies of the kernels compile: a few minutes)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # research/ is not installed
from research import kernel_ab  # noqa: E402


@pytest.mark.slow
def test_dnp_kernel_ab_reproduces_this_tree_and_catches_a_changed_rule(tmp_path):
    from keine_ahnung_env.games.dnp import kernels

    source = open(kernels.__file__).read()
    turn = "s.card_rot[b, c] ^= np.int8((s.card_loc[b, c] == hand) & (s.card_where[b, c] == holder))"
    assert source.count(turn) == 1, "the TURN loop moved: update this test"
    changed = tmp_path / "kernels.py"
    changed.write_text(source.replace(turn, "pass  # TURN no longer turns the hand"))
    result = kernel_ab.run(kernels.__file__, str(changed), game="dnp_v0", batch=64, steps=40, rounds=2)
    assert result["before_identical"] and not result["after_identical"] and not result["identical"]
    assert result["before_median_ns"] > 0 and result["after_median_ns"] > 0


def test_each_game_defaults_to_its_own_kernels_and_the_command_checks_its_files():
    from keine_ahnung_env.games.dnp import kernels as dnp_kernels
    from keine_ahnung_env.games.keine_ahnung import kernels as keine_ahnung_kernels

    assert kernel_ab.kernels_file("dnp_v0") == dnp_kernels.__file__
    assert kernel_ab.kernels_file("keine_ahnung_v0") == keine_ahnung_kernels.__file__
    missing = subprocess.run([sys.executable, "research/kernel_ab.py", "--game", "dnp_v0", "--before", "nowhere.py"],
                             capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert missing.returncode == 2 and "--before 'nowhere.py' is not a file" in missing.stderr
    unknown = subprocess.run([sys.executable, "research/kernel_ab.py", "--game", "gap_v0", "--before", "x.py"],
                             capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert unknown.returncode == 2 and "invalid choice: 'gap_v0'" in unknown.stderr
