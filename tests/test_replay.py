"""Replays: recorded by ``training.evaluate --record`` and ``training.play --record``, replayed exactly,
bad files refused with clear errors, turned into GIFs by ``training.replay``."""

from __future__ import annotations

import io
import json
import pickle

import numpy as np
import pytest
from PIL import Image

from keine_ahnung_env import registry
from keine_ahnung_env.cli import UsageError
from keine_ahnung_env.replay import Replay, ReplayError, list_replays, replay_frames
from training import evaluate, play
from training import replay as replay_command


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """Six gap games (3 players, 2 deals x 3 seatings) recorded by the evaluate command."""
    folder = tmp_path_factory.mktemp("replays")
    result = evaluate.run(["--env", "gap_v0", "--players", "3", "--agents", "random,gap_hunter", "--games", "6",
                           "--seed", "11", "--record", str(folder), "--no-progress"])
    return folder, result


def test_evaluate_records_every_game_and_each_replays_exactly(recorded):
    folder, result = recorded
    files = list_replays(folder)
    assert len(files) == result.games == 6
    seen = set()
    for g, path in enumerate(files):
        replay = Replay.load(path)
        core = replay.play()
        assert replay.env == "gap_v0" and replay.num_players == 3 and replay.seed == 11 and replay.finished
        assert sorted(set(replay.agents)) == ["gap_hunter", "random"]
        # The file's own result is the tournament's for that game (files sort by deal, then line-up).
        assert list(replay.scores) == result.game_scores[g].tolist() == core.scores[0].tolist()
        assert replay.turns == int(result.game_turns[g])
        lineup = result.lineups[int(result.game_lineup[g])]
        assert replay.agents == tuple(["random", "gap_hunter"][a] for a in lineup)
        seen.add((replay.game_id, replay.agents))
    assert len(seen) == 6


def test_round_trip_keeps_every_field(recorded, tmp_path):
    folder, _ = recorded
    replay = Replay.load(list_replays(folder)[0])
    again = Replay.load(replay.save(tmp_path / "copy.json"))
    assert again == replay
    assert json.loads((tmp_path / "copy.json").read_text())["format"] == "keine_ahnung_env.replay"


def test_a_changed_game_does_not_replay(recorded, tmp_path):
    folder, _ = recorded
    data = json.loads(list_replays(folder)[0].read_text())
    changed = dict(data, scores=[s + 1 for s in data["scores"]])
    with pytest.raises(ReplayError, match="does not replay exactly: recorded scores"):
        Replay.from_json(changed).play()
    # Another deal: the first recorded hidden card is no longer in the hand that lays it.
    other = dict(data, game_id=data["game_id"] + 100)
    with pytest.raises(ReplayError, match=r"move \d+: action \d+ \(\w+\) is illegal there; legal: "):
        Replay.from_json(other).play()
    longer = dict(data, actions=data["actions"] + [data["actions"][-1]])
    with pytest.raises(ReplayError, match="the game ended after move"):
        Replay.from_json(longer).play()
    shorter = dict(data, actions=data["actions"][:-1])
    with pytest.raises(ReplayError, match="recorded finished=True, replayed False"):
        Replay.from_json(shorter).play()


@pytest.mark.parametrize("change,message", [
    ({"format": "pickle"}, "format='pickle'; allowed: 'keine_ahnung_env.replay'"),
    ({"format_version": 2}, "format_version=2; this library reads 1"),
    ({"env": "chess_v0"}, "env='chess_v0'; registered games: "),
    ({"num_players": 7}, "num_players=7; allowed: an integer 2..5"),
    ({"num_players": "3"}, "num_players='3'; allowed: an integer 2..5"),
    ({"rules": {"speed": 2}}, r"rules: unknown rules option\(s\) \['speed'\]"),
    ({"rules": []}, "rules=\\[\\]; allowed: a JSON object"),
    ({"version": 1}, "version=1: a replay of gap_v0 version 1; this library plays version 0"),
    ({"seed": -1}, "seed=-1; allowed: an integer 0..4294967295"),
    ({"seed": 1.5}, "seed=1.5; allowed: an integer"),
    ({"agents": ["a", "b"]}, "agents=\\['a', 'b'\\]; allowed: a list of 3 names"),
    ({"actions": [0, 999]}, "actions: allowed a list of action ids 0..200"),
    ({"actions": [True]}, "actions: allowed a list of action ids"),
    ({"scores": [1, 2]}, "scores=\\[1, 2\\]; a finished game records 3 integer scores"),
    ({"standings": [1, "x", 3]}, "a finished game records 3 numbers"),
    ({"finished": "yes"}, "finished='yes'; allowed: true or false"),
    ({"turns": -4}, "turns=-4; allowed: a non-negative integer or null"),
    ({"code": "import os"}, r"unknown field\(s\) \['code'\]"),
])
def test_bad_replays_are_refused_with_what_is_wrong(recorded, tmp_path, change, message):
    folder, _ = recorded
    data = json.loads(list_replays(folder)[0].read_text())
    path = tmp_path / "bad.json"
    path.write_text(json.dumps({**data, **change}))
    with pytest.raises(ReplayError, match=message):
        Replay.load(path)


def test_files_that_are_not_replays_are_refused(tmp_path):
    (tmp_path / "pickle.json").write_bytes(pickle.dumps({"format": "keine_ahnung_env.replay"}))
    with pytest.raises(ReplayError, match="not a JSON replay file"):
        Replay.load(tmp_path / "pickle.json")
    (tmp_path / "list.json").write_text("[1, 2]")
    with pytest.raises(ReplayError, match="a replay is a JSON object; got list"):
        Replay.load(tmp_path / "list.json")
    with pytest.raises(ReplayError, match="no such file"):
        Replay.load(tmp_path / "missing.json")
    with pytest.raises(ReplayError, match="replay folder .* does not exist"):
        list_replays(tmp_path / "nowhere")


def test_play_records_the_game_it_played(tmp_path):
    from play_keys import first_moves

    out = io.StringIO()
    result = play.play(play.Args(env="dnp_v0", opponents="tactician", seat=1, seed=9, record=str(tmp_path)),
                       read=first_moves(out), out=out)
    (path,) = list_replays(tmp_path)
    replay = Replay.load(path)
    assert path.name == "dnp_v0_2p_seed9_game000000.json"
    assert replay.agents == ("tactician", "you") and replay.finished and replay.note == "python -m training.play"
    assert list(replay.play().scores[0]) == result["scores"] == list(replay.scores)


def test_play_records_a_game_left_early(tmp_path):
    lines = iter(["r0", "q"])
    result = play.play(play.Args(env="keine_ahnung_v0", opponents="greedy", seed=2, record=str(tmp_path)),
                       read=lambda: next(lines), out=open("/dev/null", "w"))
    replay = Replay.load(list_replays(tmp_path)[0])
    assert result["quit"] and not replay.finished and replay.scores is None
    assert replay.play().scores[0].tolist() == result["scores"]


def test_record_folder_must_be_a_folder(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(UsageError, match="--record .*file.*; allowed: a folder for the replay files"):
        evaluate.run(["--env", "gap_v0", "--players", "2", "--agents", "random", "--games", "1",
                      "--record", str(tmp_path / "file")])


def test_replay_command_makes_a_gif(recorded, tmp_path, capsys):
    folder, _ = recorded
    path = list_replays(folder)[0]
    summary = replay_command.run([str(path), "--gif", str(tmp_path / "g.gif"), "--seat", "1", "--to-move", "5",
                                  "--scale", "0.5"])
    assert "replays exactly" in capsys.readouterr().out
    assert summary["frames"] == 6
    with Image.open(tmp_path / "g.gif") as gif:
        assert gif.n_frames == 6 and gif.size[0] == 480
    for argv, message in [([str(path), "--seat", "3"], "--seat 3; allowed: 0..2"),
                          ([str(path), "--seat", "0", "--reveal-all"], "--seat and --reveal-all"),
                          ([str(path), "--gif", str(tmp_path / "x.gif"), "--from-move", "9", "--to-move", "2"],
                           "moves 9..2; allowed"),
                          ([str(tmp_path / "none.json")], "no such file")]:
        with pytest.raises(UsageError, match=message):
            replay_command.run(argv)


def test_frames_follow_the_game_and_name_the_moves(recorded):
    folder, _ = recorded
    replay = Replay.load(list_replays(folder)[0])
    frames = list(replay_frames(replay, reveal_all=True, first=0, last=3))
    assert len(frames) == 4 and not np.array_equal(frames[0], frames[1])
    spec = registry.game_spec("gap_v0", 3)
    core = replay.new_core()
    # The frame is the table picture with a caption strip below it.
    assert np.array_equal(frames[0][: -30], spec.draw(core, 0, reveal_all=True))
