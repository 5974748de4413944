"""Calibration of the call-risk model in real play: the machinery lives in ``benchmarks/calibration.py``
(forced calls beside their outcomes, the reliability table, the Poisson-binomial interval, the fit of
the memory-none calibration curve); this module re-exports it under its old names for the studies
here (``research/validate_risk.py --real``).

``.venv/bin/python benchmarks/calibration.py --players 2,3,4,5 --memories perfect,none --calls 1000000``
is the documented check; ``tests/test_calibration.py`` runs a small version.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "calibration.py"
_NAME = "benchmarks_calibration"


def _load():
    # benchmarks/ is not a package: load the file by its path, under one name for every importer.
    if _NAME not in sys.modules:
        spec = importlib.util.spec_from_file_location(_NAME, _PATH)
        module = importlib.util.module_from_spec(spec)
        sys.modules[_NAME] = module  # before running it: its dataclasses look their module up there
        spec.loader.exec_module(module)
    return sys.modules[_NAME]


_bench = _load()
Predictor = _bench.Predictor
CallRecords = _bench.CallRecords
BinRow = _bench.BinRow
exact_model = _bench.exact_model
version1_model = _bench.version1_model
play_forced_calls = _bench.play_forced_calls
poisson_binomial_pmf = _bench.poisson_binomial_pmf
poisson_binomial_interval = _bench.poisson_binomial_interval
reliability_table = _bench.reliability_table
format_table = _bench.format_table
fit_curve = _bench.fit_curve
isotonic = _bench.isotonic

__all__ = ["Predictor", "CallRecords", "BinRow", "exact_model", "version1_model", "play_forced_calls",
           "poisson_binomial_pmf", "poisson_binomial_interval", "reliability_table", "format_table", "fit_curve",
           "isotonic"]
