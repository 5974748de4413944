"""Reduced soak runs (``-m soak``; not in the default run): the full ones are
``python benchmarks/soak.py --games 1000000`` and ``--train-minutes 10`` (figures in benchmarks/README.md, "Soak")."""

from __future__ import annotations

import importlib.util
import io
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def load_soak():
    spec = importlib.util.spec_from_file_location("benchmarks_soak", ROOT / "benchmarks" / "soak.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.soak
def test_twenty_thousand_random_games_without_error_and_flat_memory():
    soak = load_soak()
    out = io.StringIO()
    result = soak.soak_games(20_000, batch=1024, seed=1, check_every=10, report_every=60.0, out=out)
    total = result["total"]
    assert total["games"] == 20_000
    assert set(result["variants"]) == {name for name, _ in soak.VARIANTS}
    assert all(v["games"] == 20_000 // len(soak.VARIANTS) for v in result["variants"].values())
    assert total["invariant_checks"] > 100
    assert 0 < total["turns_min"] <= total["turns_mean"] <= total["turns_max"]
    assert result["memory"]["growth_after_warmup_mb"] < 100, out.getvalue()


@pytest.mark.soak
def test_the_invariant_check_catches_a_broken_state():
    """The soak's whole-batch checks are not vacuous: a card put in two places is reported."""
    soak = load_soak()
    from keine_ahnung_env.games.keine_ahnung import KeineAhnungCore, Rules

    core = KeineAhnungCore(8, Rules.make(3), seed=0)
    soak.check_batch(core, "control")
    core.layout[5, 1, 0] = core.layout[5, 0, 0]
    with pytest.raises(soak.SoakError, match=r"game 5"):
        soak.check_batch(core, "control")


@pytest.mark.soak
def test_training_runs_for_a_minute_without_error(tmp_path):
    soak = load_soak()
    result = soak.soak_training(1.0, players=2, seed=0, out_dir=str(tmp_path), sample_every=2.0, out=io.StringIO())
    assert not result["exited_early"], "\n".join(result["log_tail"])
    assert result["rss_max_mb"] is not None
