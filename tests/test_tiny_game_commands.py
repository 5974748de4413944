"""The test game through the commands (issue 13, item 6): ``training.train --env tiny_v0`` trains a few
thousand steps and writes a checkpoint that ``agents.make("ppo", game="tiny_v0")`` loads and plays,
``training.evaluate --env tiny_v0`` prints its table and ``training.play --env tiny_v0`` plays a game.

``tiny_v0`` (``tiny_game.py``) is registered in this process only, for this module's tests: the commands
run in-process and know it through the registry alone.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest

import tiny_game
from play_keys import first_moves
from keine_ahnung_env import registry


@pytest.fixture(scope="module", autouse=True)
def tiny_registered():
    tiny_game.register()
    yield tiny_game.NAME
    tiny_game.unregister()


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> dict:
    from training import train

    out = tmp_path_factory.mktemp("tiny_runs")
    return train.main([
        "--env", "tiny_v0", "--players", "2", "--total-timesteps", "2048", "--num-envs", "16", "--n-steps", "32",
        "--batch-size", "256", "--n-epochs", "2", "--net-arch", "32,32", "--eval-every", "2", "--eval-games", "8",
        "--final-games", "16", "--opponents", "random,high_card", "--torch-threads", "1", "--no-progress",
        "--out-dir", str(out)])


def test_train_writes_a_checkpoint_of_the_test_game(trained):
    checkpoint = Path(trained["checkpoint"])
    assert checkpoint.exists() and trained["timesteps"] >= 2048
    sidecar = json.loads(checkpoint.with_suffix(".json").read_text())
    assert sidecar["game"] == "tiny_v0" and sidecar["num_players"] == 2
    assert sidecar["observation_size"] == registry.game_spec("tiny_v0", 2).observation_size
    assert set(trained["tournament"]) == {"random", "high_card"}
    assert all(0.0 <= row["win_rate"] <= 1.0 for row in trained["tournament"].values())


def test_the_trained_policy_loads_and_plays_legal_moves(trained):
    import agents

    agent = agents.make("ppo", game="tiny_v0", path=trained["checkpoint"], seed=0)
    env = tiny_game.vector_env(32, num_players=2, seed=3)
    result = env.reset()
    ended = 0
    for _ in range(40):
        actions = agent.act(result.observation, result.action_mask)
        assert actions.shape == (32,) and result.action_mask[np.arange(32), actions].all()
        result = env.step(actions)
        ended += result.final_index.size
    assert ended >= 32


def test_the_checkpoint_is_refused_for_another_game_or_table(trained):
    import agents

    with pytest.raises(ValueError, match=r"trained for 'tiny_v0', not 'keine_ahnung_v0'"):
        agents.make("ppo", game="keine_ahnung_v0", path=trained["checkpoint"])
    with pytest.raises(ValueError, match=r"trained for 2 players, not 3"):
        agents.make("ppo", game="tiny_v0", path=trained["checkpoint"], num_players=3)
    with pytest.raises(ValueError, match=r"other rules options: \['rounds'\]"):
        agents.make("ppo", game="tiny_v0", path=trained["checkpoint"], num_players=2, rules={"rounds": 1})


def test_evaluate_prints_the_test_games_table(trained, tmp_path, capsys):
    from training import evaluate

    out_json = tmp_path / "tiny.json"
    evaluate.run(["--env", "tiny_v0", "--players", "2", "--agents", f"random,high_card,ppo:{trained['checkpoint']}",
                  "--games", "24", "--seed", "1", "--no-progress", "--json", str(out_json)])
    printed = capsys.readouterr().out
    assert printed.startswith("tiny_v0, 2 players")
    for name in ("random", "high_card", "ppo"):
        assert name in printed
    assert "pass/g" in printed  # the game's own statistic (EpisodeStats column), not Keine Ahnung's
    data = json.loads(out_json.read_text())
    assert [a["name"] for a in data["agents"]][:2] == ["random", "high_card"] and data["players"] == 2
    assert all("passes_per_game" in a for a in data["agents"])


def test_evaluate_defaults_to_the_games_own_agents(capsys):
    from training import evaluate

    evaluate.run(["--env", "tiny_v0", "--players", "3", "--games", "9", "--no-progress"])
    printed = capsys.readouterr().out
    assert printed.startswith("tiny_v0, 3 players") and "high_card" in printed and "random" in printed


def test_play_plays_a_whole_game_of_the_test_game(trained):
    from training import play as play_module

    for opponents in ("high_card", f"ppo:{trained['checkpoint']}", "random,high_card"):
        out = io.StringIO()  # a bad line, then always the first legal move
        result = play_module.play(play_module.Args(env="tiny_v0", opponents=opponents, seat=1, seed=2),
                                  read=first_moves(out, ["what?"]), out=out)
        text = out.getvalue()
        assert not result["quit"] and "Game over. Scores:" in text and "'what?' is not one of your moves" in text
        assert "Your moves: moves: play_" in text and "your hand: " in text
        assert len(result["scores"]) == opponents.count(",") + 2


def test_play_by_move_name_and_quit():
    from training import play as play_module

    lines = iter(["pass", "q"])
    out = io.StringIO()
    result = play_module.play(play_module.Args(env="tiny_v0", opponents="random", seed=0), read=lambda: next(lines),
                              out=out)
    assert result["quit"] and "You: PASS" in out.getvalue()
    with pytest.raises(ValueError, match=r"--opponents names 3 agents; allowed: 1-2"):
        play_module.play(play_module.Args(env="tiny_v0", opponents="random,random,random"), read=lambda: "q", out=out)
