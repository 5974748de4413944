"""Smoke test of ``python -m keine_ahnung_env.benchmark`` (a tiny configuration of every section) and
of the study beside it, ``research/engine_profile.py``.

No timing is asserted (the figures depend on the machine and its load); only that the commands run,
print their tables and write a JSON file with the expected keys and positive figures, and that a
missing peer or wrapper is reported as "not available" rather than failing.
"""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    out = tmp_path_factory.mktemp("bench") / "bench.json"
    cmd = [sys.executable, "-m", "keine_ahnung_env.benchmark", "--quick", "--players", "2", "--batches", "1,8",
           "--repeats", "2", "--seconds", "0.02", "--warmup", "3", "--sb3-envs", "4", "--json", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.stdout, json.loads(out.read_text())


def positive(x):
    return isinstance(x, (int, float)) and x > 0


def test_prints_every_section_and_the_machine(results):
    stdout, data = results
    for header in ("Machine:", "Command:", "== core", "== aec", "== sb3"):
        assert header in stdout
    assert "== profile" not in stdout  # the profile is research/engine_profile.py's
    assert set(data) >= {"command", "machine", "config", "sections", "seconds"}
    assert set(data["sections"]) == {"core", "aec", "sb3"}
    assert data["machine"]["cores"] >= 1 and data["machine"]["numpy"]


def test_core_section_has_every_batch_with_positive_figures(results):
    core = results[1]["sections"]["core"]
    assert [(r["players"], r["batch"]) for r in core["rows"]] == [(2, 1), (2, 8)]
    for row in core["rows"]:
        for key in ("decisions_per_s", "engine_decisions_per_s", "cpu_decisions_per_s", "step_ms",
                    "state_bytes_per_game"):
            assert positive(row[key]), (key, row)
        assert 0 <= row["sampler_share"] <= 1
    assert core["with_observation"] and all(positive(r["decisions_per_s"]) and 0 < r["observe_share"] <= 1
                                            for r in core["with_observation"])
    (pair,) = core["batch1_vs_reference"]
    assert positive(pair["reference_decisions_per_s"]) and positive(pair["core_batch1_decisions_per_s"])
    assert positive(pair["driver_decisions_per_s"])
    # Measured in turns (--repeats 2): the speed-up is the median (here the mean) of the turns' ratios.
    assert len(pair["core_over_reference_per_turn"]) == 2
    assert pair["core_over_reference"] == pytest.approx(sum(pair["core_over_reference_per_turn"]) / 2)
    assert positive(pair["ratio_ceiling"]) and positive(pair["reference_over_core"])
    if "hanabi_decisions_per_s" in core:
        assert positive(core["hanabi_decisions_per_s"]) and len(core["ratio_to_hanabi"]) == 2
    else:
        assert core["hanabi"].startswith("not available")


def test_aec_section_measures_keine_ahnung_and_reports_each_peer(results):
    rows = results[1]["sections"]["aec"]["rows"]
    ours = [r for r in rows if r["env"].startswith("keine_ahnung_v0")]
    assert ours and all(positive(r["decisions_per_s"]) for r in ours)
    peers = [r for r in rows if not r["env"].startswith("keine_ahnung_v0")]
    assert {r["env"] for r in peers} >= {"pettingzoo connect_four_v3", "openspiel hanabi"}
    for row in peers:
        if row["decisions_per_s"] is None:
            assert row["note"].startswith("not available")
        else:
            assert positive(row["decisions_per_s"]) and positive(row["ratio_2p"])
    assert "ceiling" not in results[1]["sections"]["aec"]  # the loop's ceiling is research/engine_profile.py's


def test_sb3_section_compares_the_vector_envs_or_says_why_not(results):
    sb3 = results[1]["sections"]["sb3"]
    if not sb3["available"]:
        assert sb3["reason"].startswith("not available")
        return
    assert positive(sb3["sb3_vec_env_steps_per_s"]) and positive(sb3["dummy_vec_env_steps_per_s"])
    assert len(sb3["speedup_per_turn"]) == 2  # measured in turns, one ratio per round (--repeats 2)
    assert sb3["speedup"] == pytest.approx(sum(sb3["speedup_per_turn"]) / 2) and positive(sb3["speedup"])
    assert sb3["opponents"] == "counter"  # the default opponents (--sb3-opponent)
    training = sb3["training"]
    if "env_share" in training:
        assert 0 < training["env_share"] <= 1 and positive(training["total_s"])
    else:
        assert training["reason"].startswith("not available")


@pytest.fixture(scope="module")
def profiled(tmp_path_factory):
    out = tmp_path_factory.mktemp("profile") / "profile.json"
    cmd = [sys.executable, "research/engine_profile.py", "--quick", "--players", "2", "--batches", "1,8", "--repeats", "2",
           "--seconds", "0.02", "--warmup", "3", "--json", str(out)]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900, cwd=ROOT)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return proc.stdout, json.loads(out.read_text())["sections"]


def test_the_profile_lists_the_top_functions_of_the_step(profiled):
    stdout, sections = profiled
    assert "== profile" in stdout and "== fill" in stdout and "== ceiling" in stdout
    profile = sections["profile"]
    assert profile["rows"] and positive(profile["profiled_ms_per_step"]) and profile["batch"] == 8
    for row in profile["rows"]:
        assert row["function"] and row["own_ms_per_step"] >= 0 and row["calls_per_step"] > 0
    assert [(r["players"], r["batch"]) for r in sections["fill"]["rows"]] == [(2, 1), (2, 8)]
    assert all(positive(r["fill_rows_per_s"]) for r in sections["fill"]["rows"])


def test_the_profile_measures_the_agent_loops_ceiling_in_turns(profiled):
    ceiling = profiled[1]["ceiling"]
    # Figures only: no rate is compared with another (they depend on the machine and its load).
    assert all(positive(ceiling[k]) for k in ("noop_raw", "noop_wrapped", "keine_ahnung_raw_4p",
                                              "keine_ahnung_wrapped_4p", "wrapped_vs_noop"))
    # The pairs are measured in turns (--repeats 2): one ratio per turn, the figure their median.
    turns = ceiling["wrapped_vs_noop_per_turn"]
    assert len(turns) == 2 and all(positive(r) for r in turns)
    assert ceiling["wrapped_vs_noop"] == pytest.approx(sum(turns) / 2)
    if "connect_four_raw" in ceiling:
        turns = ceiling["raw_ratio_per_turn"]
        assert len(turns) == 2 and ceiling["raw_ratio"] == pytest.approx(sum(turns) / 2)
    assert "ceiling of this loop" in profiled[0] and "against the wrapped do-nothing env, in turns" in profiled[0]


def test_bad_arguments_are_rejected():
    proc = subprocess.run([sys.executable, "-m", "keine_ahnung_env.benchmark", "--sections", "core,gpu"],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode != 0 and "unknown section" in proc.stderr
    proc = subprocess.run([sys.executable, "-m", "keine_ahnung_env.benchmark", "--sections", "profile"],
                          capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert proc.returncode == 2 and "unknown section(s) profile" in proc.stderr  # research/engine_profile.py's


def test_sb3_opponent_option_takes_an_agent_and_its_options():
    from keine_ahnung_env.benchmark import parse_args

    assert parse_args(["--sb3-opponent", "greedy"]).sb3_opponent == ("greedy", {})
    assert parse_args(["--sb3-opponent", "counter:compiled=false:harm_weight=0.5"]).sb3_opponent == (
        "counter", {"compiled": False, "harm_weight": 0.5})
    with pytest.raises(ValueError, match="has no agent 'nope'; allowed: .*counter"):
        parse_args(["--sb3-opponent", "nope"])
    with pytest.raises(ValueError, match="'compiled' is not key=value"):
        parse_args(["--sb3-opponent", "counter:compiled"])


def test_counter_variants_script_prints_a_share_per_variant():
    cmd = [sys.executable, "research/counter_variants.py", "--games", "8", "default", "harm_weight=0"]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr[-2000:]
    rows = [line.split() for line in proc.stdout.splitlines()[1:]]
    assert [r[0] for r in rows] == ["default", "harm_weight=0"]
    assert all(0.0 <= float(r[1].rstrip("%")) <= 100.0 for r in rows)
    bad = subprocess.run([sys.executable, "research/counter_variants.py", "nonsense"], capture_output=True,
                         text=True, timeout=300, cwd=ROOT)
    assert bad.returncode == 2 and "unknown variants ['nonsense']" in bad.stderr


@pytest.mark.slow
def test_compile_section_times_each_games_first_use_fresh_and_cached():
    """Each game's first env step and its heuristic's first move, with an empty Numba cache and from the
    cache it left (a few minutes: six fresh compiles). The CPU time of a fresh first use stays near the
    30 s an idle two-core machine may take (1.5x of it: machines differ; compiling the step loop three
    times over, as before, took 34 s for Keine Ahnung's env alone)."""
    from keine_ahnung_env.benchmark import FIRST_USE_AGENTS, FIRST_USE_TARGET_SECONDS, measure_first_use

    figures = measure_first_use()
    rows = figures["rows"]
    assert [(r["game"], r["part"]) for r in rows] == [(g, p) for g in FIRST_USE_AGENTS for p in ("env", "agent")]
    for r in rows:
        assert all(positive(r[k]) for k in ("seconds", "cpu_seconds", "import_seconds", "cached_seconds",
                                            "cached_cpu_seconds")), r
        assert r["cached_cpu_seconds"] < r["cpu_seconds"], r
        assert r["cpu_seconds"] < 1.5 * FIRST_USE_TARGET_SECONDS, r
        assert r["agent"] == (FIRST_USE_AGENTS[r["game"]] if r["part"] == "agent" else None)


def test_compile_section_prints_a_row_per_game_and_use_and_marks_the_slow_ones(monkeypatch):
    from keine_ahnung_env import benchmark

    calls = []

    def fake_once(game, part, agent, cache):
        calls.append((game, part, agent, cache))
        fresh = len(calls) % 2 == 1  # the empty cache first, then the cache that run left
        cpu = (40.0 if game == "gap_v0" and part == "agent" else 12.0) if fresh else 0.5
        return {"seconds": cpu + 1.0, "cpu_seconds": cpu, "import_seconds": 0.4}

    monkeypatch.setattr(benchmark, "_first_use_once", fake_once)
    figures = benchmark.measure_first_use(games=["keine_ahnung_v0", "gap_v0"])
    # Each use gets a cache of its own, shared by its fresh and its cached run.
    caches = [c[3] for c in calls]
    assert caches[0] == caches[1] != caches[2] == caches[3] != caches[4]
    assert [c[:3] for c in calls[::2]] == [("keine_ahnung_v0", "env", "counter"), ("keine_ahnung_v0", "agent", "counter"),
                                           ("gap_v0", "env", "planner"), ("gap_v0", "agent", "planner")]
    text = benchmark.render({"machine": {"cpu": "x", "cores": 2, "python": "3", "numpy": "2"}, "command": "c",
                             "sections": {"compile": figures}})
    lines = text.splitlines()
    row = {(line.split()[0], line.split()[1]): line for line in lines if line.startswith(("keine_ahnung_v0", "gap_v0"))}
    assert set(row) == {("keine_ahnung_v0", "env"), ("keine_ahnung_v0", "agent"), ("gap_v0", "env"), ("gap_v0", "agent")}
    assert "agent planner" in row[("gap_v0", "agent")] and row[("gap_v0", "agent")].rstrip().endswith("over")
    assert not any(row[k].rstrip().endswith("over") for k in row if k != ("gap_v0", "agent"))
    assert "13.0" in row[("keine_ahnung_v0", "env")] and "12.0" in row[("keine_ahnung_v0", "env")]


def test_the_batch1_driver_ceiling_survives_a_game_that_ended_in_the_core_run(monkeypatch):
    # The driver alone takes its legal row from the batch-1 core; the core run may stop on a finished
    # game (an all-False row): the driver then deals a new one instead of failing on an empty range.
    from types import SimpleNamespace

    from keine_ahnung_env import benchmark
    from keine_ahnung_env.games.keine_ahnung import KeineAhnungCore

    step = KeineAhnungCore.step

    def step_and_end(self, actions, active=None):
        step(self, actions, active)
        self.terminated[:] = True
        self.legal_mask[:] = False

    monkeypatch.setattr(KeineAhnungCore, "step", step_and_end)
    pair = benchmark.measure_scalar_pair(4, SimpleNamespace(seed=0, seconds=0.02, repeats=1))
    assert pair["driver_decisions_per_s"] > 0 and pair["ratio_ceiling"] > 0


def test_in_turns_alternates_the_measurements():
    """Ratios of the aec, sb3 and batch-1 comparisons come from measurements taken in turns (one repeat
    of each side, then again), so that both sides of a ratio meet the machine in the same phase."""
    from keine_ahnung_env.benchmark import in_turns

    calls = []

    def measurement(name, count):
        def once():
            calls.append(name)
            return count, 2.0, {}
        return once

    rates = in_turns([measurement("ours", 10), measurement("peer", 4)], repeats=3)
    assert calls == ["ours", "peer"] * 3
    assert rates == [[5.0] * 3, [2.0] * 3]
