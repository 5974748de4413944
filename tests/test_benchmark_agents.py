"""Your own agent on the command line (module paths, entry points, agents.batched), the standard
benchmark protocol (training.benchmark_agents: JSON, Markdown, --compare, --private-seed) and
multi-process tournaments."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from importlib.metadata import EntryPoint
from pathlib import Path

import numpy as np
import pytest

import agents
from keine_ahnung_env import keine_ahnung_v0, registry
from keine_ahnung_env.cli import UsageError
from training import benchmark_agents as bench
from training.tournament import play_tournament

ROOT = Path(__file__).resolve().parents[1]

USER_MODULE = """
    import numpy as np

    import agents

    class FirstLegal:
        '''A batched agent: the lowest legal action of every row.'''
        name = "first_legal"

        def __init__(self, seed=None, offset=0):
            self.seed, self.offset = seed, offset

        def act(self, observation, action_mask):
            return np.argmax(action_mask, axis=1).astype(np.int64)

    def last_legal(obs, mask):
        '''One observation at a time.'''
        return int(np.flatnonzero(mask)[-1])

    last = agents.batched(last_legal)

    class NoAct:
        def __init__(self, seed=None):
            pass

    not_an_agent = 42
"""


@pytest.fixture()
def user_module(tmp_path, monkeypatch):
    """A user's agent module ``kab_user_agents`` and a package ``kab_pkg.bots`` on sys.path."""
    (tmp_path / "kab_user_agents.py").write_text(textwrap.dedent(USER_MODULE))
    (tmp_path / "kab_pkg").mkdir()
    (tmp_path / "kab_pkg" / "__init__.py").write_text("")
    (tmp_path / "kab_pkg" / "bots.py").write_text(textwrap.dedent(USER_MODULE))
    (tmp_path / "kab_broken.py").write_text("raise RuntimeError('boom at import')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in ("kab_user_agents", "kab_pkg", "kab_pkg.bots", "kab_broken"):
        sys.modules.pop(name, None)
    return tmp_path


def _states(num_players=3, n=8, seed=0):
    result = keine_ahnung_v0.vector_env(n, num_players, seed=seed).reset()
    return result.observation, result.action_mask


# ------------------------------------------------------------------------------------ user agents


def test_a_user_agent_by_module_path_plays(user_module):
    obs, mask = _states()
    agent = agents.make("py:kab_user_agents:FirstLegal:offset=2", seed=5, num_players=3, rules={})
    assert agent.offset == 2 and agent.seed == 5 and agent.name == "py:kab_user_agents:FirstLegal:offset=2"
    assert (agent.act(obs, mask) == np.argmax(mask, axis=1)).all()
    dotted = agents.make("kab_pkg.bots:FirstLegal", seed=1)  # a dotted module path needs no prefix
    assert type(dotted).__module__ == "kab_pkg.bots"
    assert agents.parse_spec("kab_pkg.bots:FirstLegal:offset=1") == ("kab_pkg.bots:FirstLegal", {"offset": 1})
    assert agents.is_user_spec("py:kab_user_agents:FirstLegal") and not agents.is_user_spec("ppo:runs/a.b.zip")
    assert agents.parse_spec("ppo:runs/my.model.zip") == ("ppo", {"path": "runs/my.model.zip"})
    ready = agents.make("py:kab_user_agents:last")  # a ready agent object: agents.batched(function)
    assert (ready.act(obs, mask) == [np.flatnonzero(m)[-1] for m in mask]).all()
    result = play_tournament([agent, agents.make("greedy", seed=0)], num_players=2, games=2, seed=1)
    assert [a.name for a in result.agents] == ["py:kab_user_agents:FirstLegal:offset=2", "greedy"]


def test_a_one_at_a_time_agent_wrapped_with_batched():
    obs, mask = _states(4, 6)

    class Single:
        name = "single"
        reseeded = None

        def act(self, o, m):
            self.shapes = (o.ndim, m.ndim)
            return int(np.flatnonzero(m)[0])

        def reseed(self, seed):
            self.reseeded = seed

    single = Single()
    wrapped = agents.batched(single)
    assert wrapped.name == "single" and isinstance(wrapped, agents.Agent)
    actions = wrapped.act(obs, mask)
    assert actions.dtype == np.int64 and (actions == np.argmax(mask, axis=1)).all()
    assert single.shapes == (1, 1)  # one observation at a time
    wrapped.reseed(3)
    assert single.reseeded == 3
    illegal = agents.batched(lambda o, m: int(np.flatnonzero(~m)[0]), name="bad")
    with pytest.raises(ValueError, match="agent 'bad' returned the illegal action"):
        illegal.act(obs, mask)
    with pytest.raises(ValueError, match="expected an action id"):
        agents.batched(lambda o, m: "x").act(obs, mask)
    with pytest.raises(ValueError, match="agents.batched takes"):
        agents.batched(42)
    # An unwrapped one-at-a-time agent in a tournament: a clear error, not a NumPy one.
    with pytest.raises(ValueError, match="one action per row.*agents.batched"):
        play_tournament([single, agents.make("random")], num_players=2, games=2)


def test_bad_user_agents_are_clear_errors(user_module, capsys):
    cases = {
        "py:kab_nowhere:Agent": "no module named 'kab_nowhere'.*PYTHONPATH",
        "kab_nowhere.sub:Agent": "no module named 'kab_nowhere'",
        "py:kab_broken:Agent": "importing 'kab_broken' failed: RuntimeError: boom at import",
        "py:kab_user_agents:Missing": "'kab_user_agents' has no attribute 'Missing'",
        "py:kab_user_agents:NoAct": "without an act\\(observation, action_mask\\) method.*agents.batched",
        "py:kab_user_agents:not_an_agent": "neither an agent",
        "py:kab_user_agents:FirstLegal:colour=red": "rejected its arguments",
        "py:kab_user_agents:FirstLegal:3": "must be key=value",
        "kab_user_agents.py:FirstLegal": "is a file, not a module path",
        "py:kab_user_agents": "module:attribute",
    }
    for spec, message in cases.items():
        with pytest.raises(ValueError, match=message):
            agents.make(spec)
    # On the command line: one line and exit status 2.
    from training import evaluate

    with pytest.raises(SystemExit) as exit_info:
        evaluate.main(["--players", "2", "--agents", "py:kab_user_agents:NoAct,random", "--games", "2"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: --agents 'py:kab_user_agents:NoAct':") and "\n" not in err


def test_agents_of_installed_packages_come_from_entry_points(user_module, monkeypatch, request):
    import importlib.metadata

    published = [EntryPoint("kab_ep_bot", "kab_user_agents:FirstLegal", agents.ENTRY_POINT_GROUP),
                 EntryPoint("counter", "kab_user_agents:FirstLegal", agents.ENTRY_POINT_GROUP),  # a built-in wins
                 EntryPoint("kab_ep_broken", "kab_broken:Agent", agents.ENTRY_POINT_GROUP)]
    monkeypatch.setattr(importlib.metadata, "entry_points",
                        lambda group=None: [ep for ep in published if ep.group == group])
    agents.installed_entry_points.cache_clear()
    request.addfinalizer(agents.installed_entry_points.cache_clear)
    assert "kab_ep_bot" in agents.available("keine_ahnung_v0") and "kab_ep_bot" in agents.available("gap_v0")
    bot = agents.make("kab_ep_bot:offset=4", seed=2, num_players=3, rules={})
    assert type(bot).__name__ == "FirstLegal" and bot.offset == 4 and bot.name == "kab_ep_bot:offset=4"
    assert type(agents.make("counter")).__name__ == "CounterAgent"
    with pytest.raises(ValueError, match="'kab_ep_broken'.*cannot be loaded: RuntimeError"):
        agents.make("kab_ep_broken")


# ------------------------------------------------------------------------------------ the protocol


def test_the_protocol_from_the_command_line_with_a_user_agent(user_module, tmp_path):
    out, md = tmp_path / "mine.json", tmp_path / "mine.md"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(user_module), str(ROOT)]))
    proc = subprocess.run([sys.executable, "-m", "training.benchmark_agents", "--players", "3",
                           "--agents", "py:kab_user_agents:last,greedy", "--games", "3", "--json", str(out),
                           "--markdown", str(md), "--no-progress"], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(out.read_text())
    assert result["format"] == bench.FORMAT and result["protocol_version"] == bench.PROTOCOL_VERSION
    assert result["standard"] is False and "3 games per line-up" in result["not_standard_because"][0]
    assert result["seeds"] == {"kind": "published", "base": bench.PUBLISHED_SEED}
    assert result["env"] == "keine_ahnung_v0" and result["game_version"] == 0 and result["library_version"]
    run = result["runs"][0]
    assert run["players"] == 3 and run["games_per_lineup"] == 3
    assert [l["label"] for l in run["lineups"]] == ["counter", "greedy", "mixed"]
    assert [l["seed"] for l in run["lineups"]] == [bench.lineup_seed(bench.PUBLISHED_SEED, 3, i) for i in range(3)]
    assert set(run["reference"]["ratings"]) == {"counter", "greedy"}
    first = run["agents"][0]
    assert first["spec"] == "py:kab_user_agents:last"
    figures = first["overall"]
    assert figures["games"] == 9 and 0 <= figures["win_rate"] <= 1 and len(figures["win_rate_ci95"]) == 2
    for key in ("mean_score", "calls", "calls_per_game", "mean_trophies", "mu", "sigma", "ordinal"):
        assert key in figures
    assert set(first["lineups"]) == {"counter", "greedy", "mixed"}
    text = md.read_text()
    assert "| py:kab_user_agents:last |" in text and "not the standard protocol" in text
    assert "vs counter %" in text and "mean trophies" in text
    assert "| greedy |" in proc.stdout


def _quick(tmp_path, name, *extra):
    path = tmp_path / f"{name}.json"
    bench.run(["--players", "2", "--agents", name, "--games", "2", "--json", str(path), "--no-progress", *extra])
    return path


def test_compare_merges_results_and_refuses_another_protocol_version(tmp_path, capsys):
    a, b = _quick(tmp_path, "greedy"), _quick(tmp_path, "random")
    table = bench.run(["--compare", str(a), str(b), "--markdown", str(tmp_path / "board.md")])
    rows = [line for line in table.splitlines() if line.startswith("| ") and not line.startswith("| agent")]
    assert [r.split(" | ")[0] for r in rows] == ["| greedy", "| random"]  # one table, best first
    assert table.count("2 players") == 1 and (tmp_path / "board.md").read_text().strip() == table.strip()
    old = json.loads(a.read_text())
    old["protocol_version"] = bench.PROTOCOL_VERSION + 1
    (tmp_path / "old.json").write_text(json.dumps(old))
    with pytest.raises(UsageError, match="protocol version 2; this command merges version 1 only"):
        bench.run(["--compare", str(a), str(tmp_path / "old.json")])
    (tmp_path / "other.json").write_text(json.dumps({"format": "something else"}))
    with pytest.raises(UsageError, match="not a result of training.benchmark_agents"):
        bench.run(["--compare", str(tmp_path / "other.json")])
    with pytest.raises(SystemExit) as exit_info:
        bench.main(["--compare", str(tmp_path / "old.json")])
    assert exit_info.value.code == 2 and capsys.readouterr().err.count("\n") == 1
    # A result is data only: an agent named in it is never imported.
    planted = json.loads(a.read_text())
    planted["runs"][0]["agents"][0]["spec"] = "py:kab_planted_module:Agent"
    (tmp_path / "kab_planted_module.py").write_text(f"open({str(tmp_path / 'ran')!r}, 'w').close()\n")
    (tmp_path / "planted.json").write_text(json.dumps(planted))
    sys.path.insert(0, str(tmp_path))
    try:
        assert "py:kab_planted_module:Agent" in bench.run(["--compare", str(tmp_path / "planted.json")])
    finally:
        sys.path.remove(str(tmp_path))
    assert not (tmp_path / "ran").exists() and "kab_planted_module" not in sys.modules


def test_private_seed_changes_the_seeds_and_is_marked(tmp_path):
    public = json.loads(_quick(tmp_path, "greedy").read_text())
    path = tmp_path / "private.json"
    bench.run(["--players", "2", "--agents", "greedy", "--games", "2", "--private-seed", "12345", "--json", str(path),
               "--no-progress"])
    private = json.loads(path.read_text())
    assert private["seeds"] == {"kind": "private", "base": 12345}
    seeds = [l["seed"] for l in private["runs"][0]["lineups"]]
    assert seeds == [bench.lineup_seed(12345, 2, i) for i in range(2)]
    assert seeds != [l["seed"] for l in public["runs"][0]["lineups"]]
    # The reference pool stays rated on the published seeds.
    assert private["runs"][0]["reference"] == public["runs"][0]["reference"]
    assert "private seeds (12345)" in bench.markdown(private)
    with pytest.raises(UsageError, match="--private-seed -1"):
        bench.run(["--agents", "greedy", "--private-seed", "-1"])
    with pytest.raises(UsageError, match="--agents 'nope': unknown agent 'nope'"):  # refused before any game
        bench.run(["--players", "3", "--agents", "greedy,nope", "--games", "3"])
    with pytest.raises(UsageError, match="--players 9; allowed for keine_ahnung_v0: integers 2-5 or 'all'"):
        bench.run(["--players", "9", "--agents", "greedy"])


def test_line_ups_come_from_the_game():
    ka = bench.protocol_lineups("keine_ahnung_v0", 4)
    assert [label for label, _ in ka] == ["counter", "greedy", "mixed", "ppo_4p_v1"]
    assert all(len(opponents) == 3 for _, opponents in ka)
    assert [label for label, _ in bench.protocol_lineups("keine_ahnung_v0", 2)] == ["counter", "greedy"]
    assert bench.generic_lineups(["a", "b"], 4) == [("a", ("a",) * 3), ("b", ("b",) * 3), ("mixed", ("a", "b", "a"))]
    assert bench.STANDARD_GAMES % 60 == 0  # whole deals at every table size 2-5


@pytest.mark.parametrize("game,heuristics", [("gap_v0", ["gap_hunter", "planner"]),
                                             ("dnp_v0", ["shedder", "tactician"])])
def test_the_gap_game_and_dnp_have_a_learned_line_up_of_their_shipped_agent_whose_names_resolve(game, heuristics):
    assert bench.protocol_version(game) == 2 and bench.protocol_version("keine_ahnung_v0") == bench.PROTOCOL_VERSION
    shipped = registry.game(game).shipped
    assert set(bench.LEARNED_LINEUPS[game]) == {p for p, roles in shipped.items() if "learned" in roles}
    for players in registry.game(game).players:
        lineups = bench.protocol_lineups(game, players)
        preset = bench.LEARNED_LINEUPS[game].get(players)
        expected = heuristics + (["mixed"] if players >= 3 else []) + ([preset] if preset else [])
        assert [label for label, _ in lineups] == expected
        if preset:
            # The line-up names the agent that ``learned`` stands for at this size, by its preset name.
            assert preset == agents.shipped_preset("learned", game, players)
            assert lineups[-1] == (preset, (preset,) * (players - 1))
        for spec in bench.reference_pool(lineups):
            agent = agents.make(spec, game=game, num_players=players, seed=0)
            assert agent is not None
            if spec == preset:
                assert agent.name == preset and agent.info.num_players == players and agent.info.game == game


def test_a_result_of_another_protocol_version_for_its_game_is_refused(tmp_path):
    path = tmp_path / "gap.json"
    path.write_text(json.dumps({"format": bench.FORMAT, "protocol_version": 1, "env": "gap_v0", "runs": []}))
    with pytest.raises(ValueError, match="protocol version 1; this command merges version 2 only for gap_v0"):
        bench.read_result(path)


# ------------------------------------------------------------------------------------ processes


def test_processes_give_the_results_of_one_process():
    def league():
        return [agents.make(spec, seed=i) for i, spec in enumerate(["random", "greedy", "always_call"])]

    one = play_tournament(league(), num_players=3, games=24, seed=4, batch_size=6)
    two = play_tournament(league(), num_players=3, games=24, seed=4, batch_size=6, processes=2)
    assert one.to_dict() == two.to_dict()
    assert (one.game_scores == two.game_scores).all() and (one.game_ranks == two.game_ranks).all()
    assert (one.game_turns == two.game_turns).all()
    with pytest.raises(ValueError, match="processes=0"):
        play_tournament(league(), num_players=3, games=3, processes=0)
    with pytest.raises(ValueError, match="cannot be sent to a worker process"):
        play_tournament([agents.batched(lambda o, m: int(m.argmax()), name="lambda"), agents.make("random")],
                        num_players=2, games=4, batch_size=2, processes=2)
