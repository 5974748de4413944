"""The call-risk model's calibration (``benchmarks/calibration.py``): the memory-none calibration curve
shipped beside ``odds.py``, the value ``risk.batch_call_success_probability`` gives with it, a small
forced-call run at 4 players with memory "none" (the documented check is the command's run on
1,000,000 calls per variant), the Poisson-binomial interval and the curve's fit."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from keine_ahnung_env.games.keine_ahnung import odds as risk
from keine_ahnung_env.games.keine_ahnung.config import Rules
from keine_ahnung_env.games.keine_ahnung.core import KeineAhnungCore

ROOT = Path(__file__).resolve().parents[1]


def load_calibration():
    """``benchmarks/calibration.py`` (benchmarks/ is not installed), loaded by its path under the name
    ``research/calibration.py`` uses too."""
    name = "benchmarks_calibration"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / "calibration.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # before running it: its dataclasses look their module up there
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture(scope="module")
def calibration():
    return load_calibration()


def test_the_calibration_file_is_plain_json_with_a_monotone_curve_per_table_size():
    data = json.loads(risk.CALIBRATION_FILE.read_text(encoding="utf-8"))
    assert data["format"] == "keine_ahnung_env.call_risk_calibration/1" and data["memory"] == "none"
    assert data["policy"] == "counter" and data["command"].startswith("benchmarks/calibration.py --fit")
    assert set(data["curves"]) == {"counter"}
    for P in (2, 3, 4, 5):
        curve = data["curves"]["counter"][str(P)]
        assert curve["calls"] >= 1_000_000  # fitted on at least a million forced-call outcomes
        x, y = risk.memory_none_calibration(P)
        assert len(x) == len(y) >= 20
        assert (np.diff(x) > 0).all() and (np.diff(y) >= 0).all()
        assert (x > 0).all() and (x < 1).all() and (y >= 0).all() and (y <= 1).all()
        # Among counter players the forgetful seat's calls succeed more often than the one-pool value says.
        grid = np.linspace(0.02, 0.6, 30)
        assert (risk.calibrated_call_probability(grid, P) > grid).mean() > 0.8
    # The package ships the file.
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert "memory_none_calibration.json" in pyproject


def test_calibrated_values_keep_certainties_nan_and_refuse_bad_arguments():
    raw = np.array([0.0, 1e-9, 0.05, 0.3, 0.7, 0.999, 1.0, np.nan])
    for P in (2, 3, 4, 5):
        p = risk.calibrated_call_probability(raw, P)
        assert p[0] == 0.0 and p[6] == 1.0 and np.isnan(p[7])
        assert (np.diff(p[:7]) >= 0).all() and ((p[:7] >= 0) & (p[:7] <= 1)).all()
        np.testing.assert_array_equal(risk.calibrated_call_probability(raw, P, among=None), raw)
        np.testing.assert_array_equal(risk.calibrated_call_probability(raw, P, memory="perfect"), raw)
    with pytest.raises(ValueError, match="among='greedy'.*'counter'"):
        risk.calibrated_call_probability(raw, 4, among="greedy")
    with pytest.raises(ValueError, match="6 players"):
        risk.memory_none_calibration(6)
    with pytest.raises(ValueError, match="memory='forgetful'"):
        risk.calibrated_call_probability(raw, 4, memory="forgetful")


def _observations(memory: str, players: int = 4, steps: int = 300, envs: int = 32):
    core = KeineAhnungCore(envs, Rules.make(players, memory=memory), seed=3)
    rng = np.random.default_rng(3)
    seen = []
    for step in range(steps):
        if step % 10 == 0:
            seen.append(core.observe(core.current))
        if core.done.any():
            core.reset_games(np.flatnonzero(core.done))
        mask = core.legal_mask
        core.step(np.array([rng.choice(np.flatnonzero(m)) for m in mask]))
    return np.concatenate(seen), core.rules.tables()


def test_batch_call_success_probability_in_both_memory_modes():
    obs, tables = _observations("none")
    raw = risk.batch_call_success_probability(obs, tables, memory="none", among=None)
    np.testing.assert_array_equal(raw, risk.batch_call_success_probability(obs, tables))  # the pool model
    calibrated = risk.batch_call_success_probability(obs, tables, memory="none")
    np.testing.assert_array_equal(calibrated, risk.calibrated_call_probability(raw, 4))
    live = ~np.isnan(raw)
    assert (calibrated[live] != raw[live]).mean() > 0.5
    assert risk.call_success_probability(obs[5], tables, memory="none") == calibrated[5]
    # An opponent's value stays the one-pool value.
    np.testing.assert_array_equal(risk.batch_call_success_probability(obs, tables, seat=2, memory="none"),
                                  risk.batch_call_success_probability(obs, tables, seat=2))
    # Perfect memory: the exact value whatever `among` says.
    obs_p, _ = _observations("perfect")
    np.testing.assert_array_equal(risk.batch_call_success_probability(obs_p, tables),
                                  risk.batch_call_success_probability(obs_p, tables, among=None))
    # A perfect-memory observation that shows a known face-down card is no memory-none observation.
    view = risk.decode(obs_p, tables)
    assert (view.slot_state == risk.SLOT_KNOWN).any()
    with pytest.raises(ValueError, match="known face-down card"):
        risk.batch_call_success_probability(obs_p, tables, memory="none")
    with pytest.raises(ValueError, match="memory='total'"):
        risk.batch_call_success_probability(obs_p, tables, memory="total")


def test_forced_calls_at_4_players_without_memory_are_calibrated_and_the_curve_beats_the_one_pool_value(calibration):
    """About 40,000 forced-call outcomes among ``counter`` players on a seed the curve was not fitted on:
    every bin of the calibrated value inside its Bonferroni 99% interval, and the calibrated value
    closer to the outcomes than the one-pool value (mean error and Brier score), which predicts too
    few successes."""
    run = calibration.play_forced_calls(4, "none", seed=77, num_envs=1024, calls=40_000, record_v1=False)
    assert run.predicted.size >= 40_000 and run.games >= 1024
    rows, brier = calibration.reliability_table(run.predicted, run.success)
    assert all(r.inside for r in rows), calibration.format_table(rows, brier)
    _, brier_raw = calibration.reliability_table(run.raw, run.success)
    observed = run.success.mean()
    assert observed - run.raw.mean() > 0.004  # the one-pool value is too cautious
    assert abs(observed - run.predicted.mean()) < abs(observed - run.raw.mean())
    assert brier < brier_raw


def test_poisson_binomial_blocks_and_ffts_agree_with_the_recursion(calibration):
    rng = np.random.default_rng(0)
    for n, p in ((3000, rng.random(3000) ** 3), (1537, np.concatenate([np.zeros(500), np.ones(37), rng.random(1000)])),
                 (700, np.full(700, 0.01))):
        exact = calibration._pmf_direct(p)
        fast = calibration.poisson_binomial_pmf(p)
        assert fast.shape == (n + 1,)
        np.testing.assert_allclose(fast, exact, atol=1e-12)
        for alpha in (0.01, 0.001 / 13):
            below, above = np.cumsum(exact), np.cumsum(exact[::-1])[::-1]
            ks = np.flatnonzero((below > alpha / 2 - 1e-12) & (above > alpha / 2 - 1e-12))
            assert calibration.poisson_binomial_interval(p, alpha) == (ks.min(), ks.max())
    assert calibration.poisson_binomial_pmf(np.array([0.5, 0.5])) == pytest.approx([0.25, 0.5, 0.25])
    # Large bins: the interval of a normal count, in well under a second.
    p = rng.random(200_000) * 0.1
    lo, hi = calibration.poisson_binomial_interval(p, 0.001)
    mean, sd = p.sum(), np.sqrt((p * (1 - p)).sum())
    assert lo < mean < hi and 6.3 * sd < hi - lo < 6.9 * sd  # about +-3.29 standard deviations


def test_isotonic_fit_recovers_a_monotone_map(calibration):
    x, y, w = calibration.isotonic(np.arange(5.0), np.array([0.1, 0.3, 0.2, 0.5, 0.4]), np.ones(5))
    np.testing.assert_allclose(y, [0.1, 0.25, 0.45])
    np.testing.assert_allclose(x, [0.0, 1.5, 3.5])
    np.testing.assert_allclose(w, [1, 2, 2])
    rng = np.random.default_rng(1)
    raw = np.concatenate([rng.random(200_000), np.zeros(100), np.ones(50)])
    success = rng.random(raw.size) < np.sqrt(raw)
    curve = calibration.fit_curve(raw, success, per_point=2000)
    assert curve["calls"] == raw.size and curve["certain_zero"] == [100, 0] and curve["certain_one"] == [50, 50]
    kx, ky = np.array(curve["x"]), np.array(curve["y"])
    assert (np.diff(kx) > 0).all() and (np.diff(ky) >= 0).all()
    assert np.abs(ky - np.sqrt(kx))[kx > 0.05].max() < 0.05


def test_the_command_prints_tables_and_writes_figures(calibration, tmp_path, capsys):
    out = tmp_path / "figures.json"
    status = calibration.main(["--players", "3", "--memories", "perfect,none", "--calls", "3000", "--seed", "5",
                               "--batch", "256", "--json", str(out)])
    text = capsys.readouterr().out
    figures = json.loads(out.read_text())
    assert status == 0 and "| bin | calls | predicted | observed |" in text and "calls/s" in text
    assert [(v["players"], v["memory"]) for v in figures["variants"]] == [(3, "perfect"), (3, "none")]
    assert all(v["calls"] >= 3000 and v["bins_outside"] == 0 for v in figures["variants"])
    fitted = tmp_path / "curve.json"
    assert calibration.main(["--fit", "--players", "2", "--calls", "3000", "--seed", "5", "--batch", "128",
                             "--per-point", "100", "--out", str(fitted)]) == 0
    data = json.loads(fitted.read_text())
    assert data["policy"] == "counter" and data["curves"]["counter"]["2"]["calls"] >= 3000
    with pytest.raises(SystemExit):
        calibration.main(["--fit", "--players", "2"])  # no --out
