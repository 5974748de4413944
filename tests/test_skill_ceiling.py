"""The skill ceiling (issue 18 item 1): privileged counter players (keine_ahnung/ceiling.py) and the
research command ``python -m training.skill_ceiling``."""

import json

import numpy as np
import pytest

import agents
from agents.base import sample_masked
from keine_ahnung_env import registry
from keine_ahnung_env.cli import UsageError
from keine_ahnung_env.games.keine_ahnung import KeineAhnungCore, Rules
from keine_ahnung_env.games.keine_ahnung.actions import ACTION_CALL
from keine_ahnung_env.games.keine_ahnung.agents import CounterAgent
from keine_ahnung_env.games.keine_ahnung.ceiling import CeilingPlayer, PrivilegedCounterAgent, privileged_observation
from keine_ahnung_env.games.keine_ahnung.deck import NO_FACE
from keine_ahnung_env.games.keine_ahnung.odds import SLOT_EMPTY, SLOT_KNOWN, SLOT_UNKNOWN, decode
from keine_ahnung_env.games.keine_ahnung.positions import load_named
from training import skill_ceiling


def _mid_game(players: int, seed: int, steps: int, num_games: int = 32) -> KeineAhnungCore:
    """Games after ``steps`` moves of counter in every seat."""
    core = KeineAhnungCore(num_games, Rules.make(players), seed=seed)
    counter = agents.make("counter", seed=seed)
    for _ in range(steps):
        live = np.flatnonzero(~core.done)
        actions = np.zeros(core.num_envs, np.int64)
        actions[live] = counter.act(core.observe(core.current[live], games=live), core.legal_mask[live])
        core.step(actions, active=~core.done)
    return core


@pytest.mark.parametrize("players", [2, 4])
def test_privileged_observation_shows_the_hidden_cards_as_known(players):
    core = _mid_game(players, seed=players, steps=40)
    games = np.flatnonzero(~core.done)
    seats = core.current[games].astype(np.intp)
    before = core.snapshot(int(games[0]))
    public = decode(core.observe(seats, games=games), core.tables)
    own = decode(privileged_observation(core, games, seats, "own"), core.tables)
    every = decode(privileged_observation(core, games, seats, "all"), core.tables)
    assert core.snapshot(int(games[0])) == before  # the game itself is untouched
    t = core.tables
    for i, (g, s) in enumerate(zip(games, seats)):
        for rel in range(players):
            cards = core.layout[g, (s + rel) % players]
            face = np.where(cards >= 0, t.face[np.maximum(cards, 0)], NO_FACE)
            shown = [every] if rel else [own, every]
            for view in shown:  # every face-down card is known, with its face
                np.testing.assert_array_equal(view.slot_state[i, rel], np.where(cards >= 0, SLOT_KNOWN, SLOT_EMPTY))
                np.testing.assert_array_equal(view.slot_face[i, rel], face)
            if rel:  # the "own" view shows the opponents as everybody sees them
                np.testing.assert_array_equal(own.slot_state[i, rel], public.slot_state[i, rel])
        newly = [(public.slot_state[i, r] == SLOT_UNKNOWN).sum() for r in range(players)]
        assert public.pool[i].sum() - own.pool[i].sum() == newly[0]
        assert public.pool[i].sum() - every.pool[i].sum() == sum(newly)
        assert every.pool[i].sum() == core.draw_len[g] - core.draw_pos[g]  # what is left unknown: the draw pile
    with pytest.raises(ValueError, match="reveal='some'; allowed: 'own', 'all'"):
        privileged_observation(core, games, seats, "some")
    forgetful = KeineAhnungCore(2, Rules.make(2, memory="none"), seed=0)
    with pytest.raises(ValueError, match="need memory='perfect'"):
        privileged_observation(forgetful, np.array([0]), np.array([0]), "own")


def test_privileged_counter_plays_like_counter_on_real_observations():
    core = _mid_game(3, seed=5, steps=25, num_games=64)
    live = np.flatnonzero(~core.done)
    obs, mask = core.observe(core.current[live], games=live), core.legal_mask[live]
    # The privileged agent is counter's NumPy reference plus its prize rules (a subclass keeps the Python path),
    # so it draws the same tie-breaks as the reference seeded alike.
    np.testing.assert_array_equal(PrivilegedCounterAgent(seed=3).act(obs, mask),
                                  CounterAgent(seed=3, compiled=False).act(obs, mask))


def _prize_position(layout):
    """Two players; seat 0 to decide (MAIN, no card drawn) with ``layout`` against a red 5 pile."""
    core = KeineAhnungCore(1, Rules.make(2), seed=0)
    load_named(core, layouts=[layout, ["grey 1", "grey 2", "grey 3", "grey 4", "grey 5", "grey 6"]],
               piles=[["red 5"]], start_turn=False)
    return core


def test_a_known_prize_is_revealed_for_its_points_never_called_into():
    core = _prize_position(["prize 2", "blue 1"])  # the prize, then a card that fits no pile
    assert core.legal_mask[0, ACTION_CALL]
    seat = np.array([0])
    obs = privileged_observation(core, np.array([0]), seat, "own")
    # counter's rules alone read the known prize as a misfit and see a sure call (it would stop on the
    # prize); the privileged player takes the prize instead.
    assert CounterAgent(seed=0).act(obs, core.legal_mask[:1])[0] == ACTION_CALL
    assert CeilingPlayer("own", seed=0)(core, np.array([0]), seat)[0] == 0
    # With a known fitting card the turn goes on first: play it, then the prize.
    core = _prize_position(["prize 1", "red 4", "blue 1"])
    assert CeilingPlayer("own", seed=0)(core, np.array([0]), seat)[0] == 1
    # The control reads the public observation: its cards are unknown to it.
    assert CeilingPlayer("control", seed=0)(core, np.array([0]), seat)[0] in (0, 1, 2, ACTION_CALL)
    with pytest.raises(ValueError, match="level='best'; allowed: control, own, all"):
        CeilingPlayer("best")


def test_skill_ceiling_command_reports_every_level(tmp_path, capsys):
    path = tmp_path / "ceiling.json"
    result = skill_ceiling.main(["--players", "2", "--games", "12", "--batch-size", "5", "--seed", "3",
                                 "--json", str(path), "--no-progress"])
    out = capsys.readouterr().out
    assert "| 2 | control: counter" in out and "| 2 | own: (a)" in out and "| 2 | all: (b)" in out
    levels = result["players"]["2"]["levels"]
    assert list(levels) == ["control", "own", "all"]
    for level, row in levels.items():
        assert row["games"] == 12 and row["win_interval"][0] <= row["win_rate"] <= row["win_interval"][1]
    # Seeing one's own cards wins at least 11 of 12 two-player games (4,096 of 4,096 on seed 2026).
    assert levels["own"]["win_rate"] >= 11 / 12
    shares = result["players"]["2"]["shares"]
    gain = np.mean(np.array(shares["own"]) - np.array(shares["control"]))
    assert levels["own"]["gain_over_control"][0] == pytest.approx(gain)
    assert json.loads(path.read_text())["players"]["2"]["levels"]["own"]["games"] == 12
    # The seed fixes every game (deals and agents, seeded per batch): the control alone, in two worker
    # processes, replays its games exactly.
    again = skill_ceiling.main(["--players", "2", "--games", "12", "--batch-size", "5", "--seed", "3",
                                "--levels", "control", "--processes", "2", "--no-progress"])
    assert again["players"]["2"]["shares"]["control"] == shares["control"]


@pytest.mark.parametrize("argv, message", [
    (["--levels", "best"], r"--levels 'best'; allowed: control, own, all"),
    (["--players", "2,9"], r"--players 9; allowed for keine_ahnung_v0: integers 2-5"),
    (["--players", "four"], r"--players 'four'; allowed: comma-separated player counts"),
    (["--env", "gap_v0"], r"gap_v0 offers no privileged players \(GameSpec.ceiling\); games that offer it: keine_ahnung_v0"),
])
def test_skill_ceiling_command_refuses_bad_arguments(argv, message):
    with pytest.raises(UsageError, match=message):
        skill_ceiling.main(argv + ["--games", "4", "--no-progress"])


def test_gather_branches_rows_that_play_on_alike():
    spec = registry.game_spec("keine_ahnung_v0", 3)
    a, b = spec.make_core(4, 1), spec.make_core(2, 2)
    rng = np.random.default_rng(0)
    for _ in range(30):
        a.step(np.where(a.done, 0, sample_masked(rng, a.legal_mask)), active=~a.done)
    live = int(np.flatnonzero(~a.done)[0])
    c = type(a).gather([(a, [live, live]), (b, [1])])
    assert c.num_envs == 3
    assert c.snapshot(0) == a.snapshot(live) and c.snapshot(2) == b.snapshot(1)
    # Copies of one row keep its random stream: the same moves give the same game, reshuffles included.
    for _ in range(400):
        moves = sample_masked(np.random.default_rng(len(c.turn)), c.legal_mask)
        moves[1] = moves[0]
        c.step(np.where(c.done, 0, moves), active=~c.done)
    assert {k: v for k, v in c.snapshot(0).items()} == c.snapshot(1)
    with pytest.raises(ValueError, match="same rules"):
        type(a).gather([(a, [0]), (registry.game_spec("keine_ahnung_v0", 4).make_core(1, 0), [0])])
    with pytest.raises(ValueError, match=r"rows must be in 0\.\.3"):
        type(a).gather([(a, [4])])
