"""The viewer's server (``training.viewer``) through Flask's test client: replays stepped from every
view, live games played to the end, only the player's seat shown, bad requests answered with 4xx and a
message, and a game never broken by one."""

from __future__ import annotations

import re

import numpy as np
import pytest

from keine_ahnung_env import registry
from keine_ahnung_env.pictures import table_scene
from keine_ahnung_env.replay import Replay
from training import viewer


def record(folder, env: str, players: int, seed: int):
    """A game of random moves saved as a replay ``folder/<env>.json`` (also used by the browser tests)."""
    spec = registry.game_spec(env, players)
    core = spec.make_core(1, 0)
    core.seed(seed, game_ids=[0])
    core.reset_games(np.zeros(1, np.intp))
    rng, actions = np.random.default_rng(seed), []
    while not core.done[0]:
        actions.append(int(rng.choice(np.flatnonzero(core.legal_mask[0]))))
        core.step(np.array([actions[-1]]))
    return Replay.record(spec, core, 0, seed, 0, ["random"] * players, actions).save(folder / f"{env}.json")


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """Two recorded games: a gap game and a Keine Ahnung game (3 players each, random agents)."""
    out = tmp_path_factory.mktemp("viewer_replays")
    for env, seed in (("gap_v0", 1), ("keine_ahnung_v0", 2)):
        record(out, env, 3, seed)
    (out / "broken.json").write_text("{not json")
    return out


@pytest.fixture(scope="module")
def client(folder):
    return viewer.create_app(folder).test_client()


def test_the_page_and_the_replay_list(client):
    page = client.get("/")
    assert page.status_code == 200 and b'id="board"' in page.data and b"/api/replays" in page.data
    listed = client.get("/api/replays").json["replays"]
    assert [r["name"] for r in listed] == ["broken.json", "gap_v0.json", "keine_ahnung_v0.json"]
    assert "not a JSON replay file" in listed[0]["error"]
    assert listed[1]["env"] == "gap_v0" and listed[1]["agents"] == ["random"] * 3 and listed[1]["finished"]


@pytest.mark.parametrize("name", ["gap_v0.json", "keine_ahnung_v0.json"])
def test_a_replay_frame_is_the_scene_of_that_view(client, folder, name):
    replay = Replay.load(folder / name)
    spec = replay.spec
    for move, view, seat, reveal in [(0, "public", None, False), (7, "seat:2", 2, False), (20, "all", None, True),
                                     (len(replay.actions), "seat:0", 0, False)]:
        frame = client.get(f"/api/replays/{name}?move={move}&view={view}").json
        core = replay.core_at(move)
        assert frame["move"] == move and frame["moves"] == len(replay.actions) and frame["view"] == view
        assert frame["cards"] == table_scene(spec, core, 0, seat, reveal).cards()
        assert frame["picture"].startswith("data:image/png;base64,")
        if seat is not None:
            assert frame["observation"] == spec.observation_string(core.observe(seat)[0])
        else:
            assert "observation" not in frame
    assert client.get(f"/api/replays/{name}").json["move"] == 0  # defaults: the start, the public view
    last = client.get(f"/api/replays/{name}?move={len(replay.actions)}").json
    assert last["caption"].startswith("end - scores:")


@pytest.mark.parametrize("url,status,message", [
    ("/api/replays/nothing.json", 404, "no replay named 'nothing.json'"),
    ("/api/replays/broken.json", 422, "not a JSON replay file"),
    ("/api/replays/gap_v0.json?move=-1", 400, "move=-1; allowed: 0.."),
    ("/api/replays/gap_v0.json?move=x", 400, "move='x'; allowed: an integer"),
    ("/api/replays/gap_v0.json?move=100000", 400, "move=100000; allowed: 0.."),
    ("/api/replays/gap_v0.json?view=seat:3", 400, "view='seat:3'; allowed: public, all, seat:0, seat:1, seat:2"),
    ("/api/replays/gap_v0.json?view=god", 400, "view='god'"),
    ("/api/replays/gap_v0.json?seat=1", 400, r"unknown parameter\(s\) \['seat'\]"),
    ("/api/replays/..%2F..%2Fetc%2Fpasswd", 404, "Not Found"),
    ("/api/play/nope", 404, "no live game 'nope'"),
    ("/api/nothing", 404, "Not Found"),
])
def test_bad_replay_requests(client, url, status, message):
    answer = client.get(url)
    assert answer.status_code == status and re.search(message, answer.json["error"]), answer.json


def test_games_and_their_bots(client):
    games = {g["env"]: g for g in client.get("/api/games").json["games"]}
    assert set(games) >= {"keine_ahnung_v0", "gap_v0", "dnp_v0"}
    assert "counter" in games["keine_ahnung_v0"]["bots"] and "ppo" not in games["keine_ahnung_v0"]["bots"]
    assert games["gap_v0"]["default_bot"] == "gap_hunter"
    assert client.get("/api/games").json["default"] == "keine_ahnung_v0"  # the page offers it first


@pytest.mark.parametrize("env", ["keine_ahnung_v0", "gap_v0", "dnp_v0"])
def test_a_live_games_moves_carry_the_terminal_keys_and_the_cards_to_click(env):
    from training.terminal import view_for

    games = viewer.LiveGames()
    game = games.start({"env": env, "players": 3, "seat": 1, "bots": ["random", "random"], "seed": 2})
    for _ in range(12):
        state = game.state()
        if state["over"]:
            break
        keys = view_for(game.spec, game.core, 1).keys
        assert [a["key"] for a in state["legal"]] == [keys[a["id"]] for a in state["legal"]]
        assert len({a["key"] for a in state["legal"]}) == len(state["legal"])  # a key names one move
        # The targets are the acting seat's scene's, for legal moves only.
        assert state["targets"] == table_scene(game.spec, game.core, 0, 1, False).targets()
        assert state["targets"] and {t["action"] for t in state["targets"]} <= {a["id"] for a in state["legal"]}
        game = games.act(game.id, {"action": state["targets"][-1]["action"]})
    assert game.actions


def test_a_replay_frame_has_no_targets(client):
    assert "targets" not in client.get("/api/replays/gap_v0.json?move=3&view=all").json


def own_view_only(state, spec, game) -> None:
    """The state shows the player's seat and nothing more: its scene, its observation."""
    seat = state["seat"]
    assert state["cards"] == table_scene(spec, game.core, 0, seat, False).cards()
    assert state["observation"] == spec.observation_string(game.core.observe(seat)[0])


def test_a_live_game_played_to_the_end(client, folder):
    app = viewer.create_app(folder)
    c = app.test_client()
    state = c.post("/api/play", json={"env": "gap_v0", "players": 3, "seat": 2, "bots": ["gap_hunter", "random"],
                                      "seed": 5}).json
    assert state["agents"] == ["gap_hunter", "random", "you"] and state["seat"] == 2
    moves = 0
    while not state["over"]:
        assert state["to_act"] == 2 and state["legal"]
        if moves < 3:
            assert c.get(f"/api/play/{state['id']}").json == state  # reading changes nothing
        # The other seats' hands are face down on the player's page.
        hands = [card for card in state["cards"] if card["region"] in ("hand", "hidden") and card["seat"] != 2]
        assert hands and not any(card["face_up"] or card["name"] for card in hands)
        state = c.post(f"/api/play/{state['id']}/act", json={"action": state["legal"][0]["id"]}).json
        moves += 1
    assert moves > 10 and state["legal"] == [] and len(state["scores"]) == 3 and state["result"]
    assert state["moves"] > moves  # the bots' moves too


def test_a_live_game_shows_the_players_seat_only():
    games = viewer.LiveGames()
    game = games.start({"env": "keine_ahnung_v0", "players": 2, "seat": 1, "bots": ["greedy"], "seed": 3})
    spec = registry.game_spec("keine_ahnung_v0", 2)
    own_view_only(game.state(), spec, game)
    action = game.state()["legal"][0]["id"]
    own_view_only(games.act(game.id, {"action": action}).state(), spec, game)


def test_bad_play_requests_change_nothing(client):
    state = client.post("/api/play", json={"env": "dnp_v0", "bots": ["random"], "seed": 1}).json
    url = f"/api/play/{state['id']}/act"
    legal = {a["id"] for a in state["legal"]}
    illegal = next(a for a in range(60) if a not in legal)
    for body, status, message in [
        ({"action": illegal}, 400, rf"action={illegal} is not legal now; legal: \d+ \("),
        ({"action": "PLAY"}, 400, "action='PLAY' is not legal now"),
        ({"action": True}, 400, "action=True is not legal now"),
        ({}, 400, r"missing field\(s\) \['action'\]"),
        ({"action": 1, "seat": 0}, 400, r"unknown field\(s\) \['seat'\]"),
        ([1], 400, "the request body must be a JSON object"),
    ]:
        answer = client.post(url, json=body)
        assert answer.status_code == status and re.search(message, answer.json["error"]), answer.json
    assert client.post(url, data="action=1").status_code == 400
    assert client.get(f"/api/play/{state['id']}").json == state  # unchanged
    for body, message in [
        ({"env": "chess"}, "env='chess'; allowed: dnp_v0, gap_v0, keine_ahnung_v0"),
        ({"env": "gap_v0", "players": 6}, "players=6; allowed: 2-5 for gap_v0"),
        ({"env": "gap_v0", "bots": ["random"] * 2, "players": 4}, "bots: 2 given for 4 players; allowed: 3"),
        ({"env": "gap_v0", "bots": ["py:os:system"]},
         "bot 'py:os:system' for gap_v0; allowed: gap_hunter, gap_learned_2p, gap_learned_3p, gap_learned_4p, "
         "gap_learned_5p, gap_search_2p, gap_search_3p, gap_search_4p, gap_search_5p, ismcts, learned, planner, "
         "random, search"),
        ({"env": "keine_ahnung_v0", "bots": ["ppo:/etc/passwd"]}, "bot 'ppo:/etc/passwd'"),
        ({"env": "keine_ahnung_v0", "bots": ["rllib:/etc/passwd"]}, "bot 'rllib:/etc/passwd'"),
        ({"env": "gap_v0", "bots": "random"}, "bots='random'; allowed: a list of agent names"),
        ({"env": "gap_v0", "seat": 4}, "seat=4; allowed: 0..3"),
        ({"env": "gap_v0", "seed": -3}, "seed=-3; allowed: an integer"),
        ({"env": "keine_ahnung_v0", "bots": ["risk_caller:lots"]}, "bot 'risk_caller:lots'"),
        ({"players": 3}, "missing field(s) ['env']"),
    ]:
        answer = client.post("/api/play", json=body)
        assert answer.status_code == 400 and message in answer.json["error"], answer.json
    assert client.get("/api/play").status_code == 405


def test_finished_browser_games_can_be_recorded(tmp_path):
    c = viewer.create_app(tmp_path, record=True).test_client()
    state = c.post("/api/play", json={"env": "dnp_v0", "bots": ["random"], "seed": 4}).json
    while not state["over"]:
        state = c.post(f"/api/play/{state['id']}/act", json={"action": state["legal"][-1]["id"]}).json
    (path,) = tmp_path.glob("*.json")
    replay = Replay.load(path)
    assert replay.agents == ("you", "random") and list(replay.play().scores[0]) == state["scores"]
    listed = c.get("/api/replays").json["replays"]
    assert [r["name"] for r in listed] == [path.name]


def test_the_command_refuses_bad_arguments(tmp_path):
    from keine_ahnung_env.cli import UsageError

    (tmp_path / "f").write_text("")
    with pytest.raises(UsageError, match="--replays .*; allowed: a folder"):
        viewer.run(["--replays", str(tmp_path / "f")])
    with pytest.raises(UsageError, match="--port 70000; allowed: 0-65535"):
        viewer.run(["--port", "70000"])
