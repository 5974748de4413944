"""dnp through the commands (issue 16): ``training.train --env dnp_v0`` trains a few thousand steps and
writes a checkpoint that ``agents.make("ppo", game="dnp_v0")`` loads and plays, ``training.evaluate``
prints dnp's own statistics and ``training.play`` plays a whole game against the heuristics."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import numpy as np
import pytest

from keine_ahnung_env import dnp_v0, registry


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> dict:
    from training import train

    out = tmp_path_factory.mktemp("dnp_runs")
    return train.main([
        "--env", "dnp_v0", "--players", "3", "--total-timesteps", "2048", "--num-envs", "16", "--n-steps", "32",
        "--batch-size", "256", "--n-epochs", "1", "--net-arch", "32,32", "--eval-every", "0",
        "--final-games", "6", "--opponents", "random,shedder", "--torch-threads", "1", "--no-progress",
        "--recipe", "plain", "--out-dir", str(out)])


def test_train_writes_a_dnp_checkpoint_that_plays_legal_moves(trained):
    import agents

    checkpoint = Path(trained["checkpoint"])
    sidecar = json.loads(checkpoint.with_suffix(".json").read_text())
    assert sidecar["game"] == "dnp_v0" and sidecar["num_players"] == 3 and sidecar["num_actions"] == 50
    assert sidecar["observation_size"] == registry.game_spec("dnp_v0", 3).observation_size
    agent = agents.make("ppo", game="dnp_v0", path=str(checkpoint), seed=0)
    env = dnp_v0.vector_env(16, num_players=3, seed=3)
    result = env.reset()
    for _ in range(60):
        actions = agent.act(result.observation, result.action_mask)
        assert result.action_mask[np.arange(16), actions].all()
        result = env.step(actions)


def test_evaluate_prints_dnps_own_statistics(tmp_path, capsys):
    from training import evaluate

    out_json = tmp_path / "dnp.json"
    evaluate.run(["--env", "dnp_v0", "--players", "3", "--games", "9", "--seed", "1", "--no-progress",
                  "--json", str(out_json)])
    printed = capsys.readouterr().out
    assert printed.startswith("dnp_v0, 3 players") and all(n in printed for n in ("random", "shedder", "tactician"))
    assert "D/g" in printed and "pts" in printed
    assert all("turns_per_game" in a for a in json.loads(out_json.read_text())["agents"])


def test_play_plays_a_whole_game_against_the_heuristics():
    from training import play as play_module

    from play_keys import first_moves

    out = io.StringIO()  # a bad line, then always the first legal move
    result = play_module.play(play_module.Args(env="dnp_v0", opponents="shedder,tactician", seat=1, seed=2),
                              read=first_moves(out, ["what?"]), out=out)
    text = out.getvalue()
    assert not result["quit"] and "Game over. Scores:" in text and "'what?' is not one of your moves" in text
    assert "Your moves: select card: " in text and re.search(r"> you +0 points; hand #\d+ \d+\(\d+\)", text)
