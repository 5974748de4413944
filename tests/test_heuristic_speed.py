"""``benchmarks/heuristic_speed.py`` (benchmarks/ is not installed) at a small size: it finds decisions
from real play, times both versions of each heuristic and stops where the gap game's or dnp's compiled
and reference heuristics choose differently."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def _benchmark():
    spec = importlib.util.spec_from_file_location("benchmarks_heuristic_speed", ROOT / "benchmarks" / "heuristic_speed.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_compiled_heuristics_are_timed_against_their_references_on_the_same_decisions(capsys):
    rows = _benchmark().main(["--games", "4", "--players", "3", "--only", "gap_v0,dnp_v0", "--seed", "5"])
    assert [(r["game"], r["heuristic"]) for r in rows] == [("gap_v0", "planner"), ("dnp_v0", "tactician")]
    for r in rows:
        assert r["decisions"] > 50 and r["compiled_per_s"] > 0 and r["reference_per_s"] > 0
        assert r["ratio"] == pytest.approx(r["compiled_per_s"] / r["reference_per_s"])
    out = capsys.readouterr().out
    assert "gap_v0" in out and "tactician" in out and out.count("x\n") == 2


def test_a_compiled_heuristic_that_differs_from_its_reference_stops_the_benchmark(monkeypatch):
    module = _benchmark()
    from keine_ahnung_env.games.dnp.agents import TacticianAgent

    monkeypatch.setattr(TacticianAgent, "BEAT_WEIGHT", 5.0)  # read by both versions: still equal
    assert module.main(["--games", "2", "--players", "3", "--only", "dnp_v0"])[0]["decisions"] > 0
    real = module.agents.make

    def shifted(name, **kwargs):  # the reference version weighs beaten sets differently
        agent = real(name, **kwargs)
        if name.endswith("compiled=false"):
            agent.BEAT_WEIGHT = 0.0
        return agent

    monkeypatch.setattr(module.agents, "make", shifted)
    with pytest.raises(SystemExit, match="tactician: the compiled and the reference act chose differently"):
        module.main(["--games", "4", "--players", "3", "--only", "dnp_v0"])
