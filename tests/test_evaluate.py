"""Tournaments: seat rotation, common deals, statistics, ratings, and the evaluate command."""

from __future__ import annotations

import json
from collections import Counter

import numpy as np
import pytest

import agents
from training import evaluate
from training.tournament import lineups, play_tournament, wilson_interval


class FirstLegal:
    """A deterministic agent: the lowest legal action."""

    def __init__(self, name: str):
        self.name = name

    def act(self, observation, action_mask):
        return np.argmax(action_mask, axis=1).astype(np.int64)


@pytest.mark.parametrize("num_agents", range(1, 8))
@pytest.mark.parametrize("num_players", range(2, 6))
def test_every_agent_sits_in_every_seat_equally_often(num_agents, num_players):
    table = np.array(lineups(num_agents, num_players))
    assert table.shape[1] == num_players
    for agent in range(num_agents):
        per_seat = (table == agent).sum(axis=0)
        assert per_seat.min() == per_seat.max() > 0
    if num_agents > num_players:
        # Every P-subset of the agents meets, in each of its rotations.
        assert len(table) == num_players * len({frozenset(row) for row in table.tolist()})
        assert all(len(set(row)) == num_players for row in table.tolist())


def test_common_deals_make_identical_players_play_identical_games():
    # Two copies of one deterministic agent: every line-up of a deal plays the same game.
    result = play_tournament([FirstLegal("a"), FirstLegal("b")], num_players=3, games=30, seed=5)
    assert result.games == 30 and result.deals == 10 and len(result.lineups) == 3
    assert result.agents[0].games + result.agents[1].games == 90
    for deal in range(result.deals):
        games = np.flatnonzero(result.game_deal == deal)
        assert len(games) == 3
        assert (result.game_scores[games] == result.game_scores[games[0]]).all()
        assert (result.game_turns[games] == result.game_turns[games[0]]).all()
    other = play_tournament([FirstLegal("a"), FirstLegal("b")], num_players=3, games=30, seed=6)
    assert (other.game_scores != result.game_scores).any()  # another seed, other deals


def test_statistics_add_up_and_ratings_order_the_agents():
    result = play_tournament([agents.make("greedy", seed=1), agents.make("random", seed=2),
                              agents.make("always_call", seed=3)], num_players=2, games=120, seed=1)
    assert result.games == 120 and result.num_players == 2
    assert sum(a.wins for a in result.agents) == pytest.approx(result.games)  # shared wins are split
    assert sum(a.games for a in result.agents) == 2 * result.games
    for a in result.agents:
        assert 0 <= a.call_successes <= a.calls
        # The game's own statistics: totals and the spec's columns, read as attributes too.
        assert set(a.totals) == {"calls", "call_successes", "trophies"} and a.totals["calls"] == a.calls
        assert a.calls_per_game == a.calls / a.games and a.mean_trophies == a.trophies / a.games
        if a.calls:
            assert a.call_success_rate == a.call_successes / a.calls
        else:
            assert np.isnan(a.call_success_rate)
        with pytest.raises(AttributeError, match="statistics are: calls, call_successes, trophies"):
            a.call_attempts
        low, high = a.win_interval
        assert 0 <= low <= a.win_rate <= high <= 1
    greedy, random, always = result.agents
    assert greedy.ordinal > random.ordinal and greedy.ordinal > always.ordinal
    assert always.calls_per_game > greedy.calls_per_game
    text = result.table()
    assert "greedy" in text and "ordinal" in text
    assert result.markdown().count("\n") == 4
    data = result.to_dict()
    assert json.loads(json.dumps(data))["agents"][0]["name"] == "greedy"


def test_tournament_input_errors():
    greedy = agents.make("greedy")
    with pytest.raises(ValueError, match="players=6 for keine_ahnung_v0; allowed: integers 2-5"):
        play_tournament([greedy], num_players=6, games=4)
    with pytest.raises(ValueError, match="games=0"):
        play_tournament([greedy], num_players=2, games=0)
    with pytest.raises(ValueError, match="env='chess'; allowed: .*keine_ahnung_v0"):
        play_tournament([greedy], num_players=2, games=2, env="chess")
    with pytest.raises(ValueError, match="memory"):
        play_tournament([greedy], num_players=2, games=2, memory="total")


def test_wilson_interval():
    low, high = wilson_interval(5, 10)
    assert low == pytest.approx(0.2366, abs=1e-4) and high == pytest.approx(0.7634, abs=1e-4)
    assert wilson_interval(0, 10)[0] == 0.0
    assert np.isnan(wilson_interval(0, 0)[0])


def test_evaluate_command_writes_json_and_png(tmp_path, capsys):
    out_json, out_png = tmp_path / "league" / "x.json", tmp_path / "x.png"
    evaluate.main(["--env", "keine_ahnung_v0", "--players", "3", "--agents", "random,greedy,risk_caller:0.6,counter",
                   "--games", "12", "--seed", "3", "--json", str(out_json), "--plot", str(out_png), "--no-progress",
                   "--rules", "memory=none"])
    printed = capsys.readouterr().out
    assert "risk_caller:0.6" in printed and "ordinal" in printed
    data = json.loads(out_json.read_text())
    assert data["players"] == 3 and data["games"] == 12 and data["rules"]["memory"] == "none"
    assert [a["name"] for a in data["agents"]] == ["random", "greedy", "risk_caller:0.6", "counter"]
    for a in data["agents"]:
        assert {"win_rate", "win_rate_ci95", "mean_score", "mean_trophies", "calls", "call_successes", "trophies",
                "calls_per_game", "call_success_rate", "mu", "sigma", "ordinal"} <= set(a)
    assert data["command"].startswith("python -m training.evaluate")
    assert out_png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out_png.stat().st_size > 5000


@pytest.mark.parametrize("argv,message", [
    (["--players", "6"], "--players 6; allowed for keine_ahnung_v0: integers 2-5"),
    (["--players", "four"], "--players 'four'"),
    (["--games", "0"], "--games 0; allowed: a positive integer"),
    (["--agents", "greedy,wizard"], "unknown agent 'wizard'.*available:"),
    (["--agents", " , "], "--agents"),
    (["--env", "uno"], "--env 'uno'"),
    (["--agents", "risk_caller:7"], "threshold=7"),
])
def test_evaluate_command_rejects_bad_arguments(argv, message, capsys):
    with pytest.raises(SystemExit) as exc:
        evaluate.main(argv + ["--games", "2"] if "--games" not in argv else argv)
    assert exc.value.code == 2
    import re

    assert re.search(message, capsys.readouterr().err)


def test_same_agent_object_in_several_seats():
    # The training code passes one opponent object for all other seats.
    greedy = agents.make("greedy", seed=0)
    result = play_tournament([agents.make("counter", seed=1)] + [greedy] * 3, num_players=4, games=8, seed=0)
    names = [a.name for a in result.agents]
    assert names == ["counter", "greedy", "greedy#2", "greedy#3"]
    assert Counter(a.games for a in result.agents) == Counter({8: 4})


def _stripped_game(name: str):
    """A registered copy of Keine Ahnung that declares no statistics, move texts or agents of its own:
    what the game-independent layers must cope with for any game."""
    import dataclasses

    from keine_ahnung_env import registry

    def make_spec(num_players, **rules):
        spec = registry.game_spec("keine_ahnung_v0", num_players, **rules)
        return dataclasses.replace(spec, name=name, episode_stats=None, describe_move=None, terminal_view=None,
                                   hooks=dataclasses.replace(spec.hooks, search=None), agents={})

    return registry.register_game(registry.GameEntry(name, make_spec, 2, 3, 2))


def test_tournament_and_evaluate_read_only_the_spec_of_any_registered_game(capsys):
    from keine_ahnung_env import registry

    _stripped_game("plain_v0")
    try:
        result = play_tournament([FirstLegal("a"), agents.make("random", game="plain_v0", seed=1)], num_players=2,
                                 games=6, seed=5, env="plain_v0")
        same = play_tournament([FirstLegal("a"), agents.make("random", seed=1)], num_players=2, games=6, seed=5)
        np.testing.assert_array_equal(result.game_scores, same.game_scores)  # the same engine, the same deals
        assert result.env == "plain_v0" and result.columns == ()
        assert all(a.totals == {} for a in result.agents)
        data = result.to_dict()["agents"][0]
        assert "calls" not in data and "mean_trophies" not in data and data["games"] == 6
        assert "troph" not in result.table() and "calls" not in result.markdown()
        assert result.markdown().splitlines()[0].count("|") == 9
        with pytest.raises(ValueError, match="players=4 for plain_v0; allowed: integers 2-3"):
            play_tournament([FirstLegal("a")], num_players=4, games=2, env="plain_v0")
        # Default players and agents come from the game: its default table, random (it has no own agents).
        evaluate.main(["--env", "plain_v0", "--games", "2", "--no-progress"])
        printed = capsys.readouterr().out
        assert printed.startswith("plain_v0, 2 players") and "random" in printed
        with pytest.raises(SystemExit):
            evaluate.main(["--env", "plain_v0", "--agents", "greedy", "--games", "2"])
        assert "unknown agent 'greedy' for plain_v0" in capsys.readouterr().err
    finally:
        registry.unregister_game("plain_v0")


def test_play_any_registered_game_names_moves_without_a_describer():
    import io

    from keine_ahnung_env import registry
    from training import play

    _stripped_game("plain_v0")
    try:
        from play_keys import first_moves

        out = io.StringIO()
        result = play.play(play.Args(env="plain_v0", opponents="random", seed=2), read=first_moves(out, limit=400),
                           out=out)
        text = out.getvalue()
        assert not result["quit"] and "Game over. Scores:" in text
        assert "seat 1 (random): REVEAL_" in text and "(fits)" not in text  # the action's name only
        with pytest.raises(ValueError, match=r"--opponents names 3 agents; allowed: 1-2 \(2-3 players\)"):
            play.play(play.Args(env="plain_v0", opponents="random,random,random"), read=lambda: "q", out=out)
        with pytest.raises(ValueError, match="--env 'chess'; allowed: .*plain_v0"):
            play.play(play.Args(env="chess"), read=lambda: "q", out=out)
    finally:
        registry.unregister_game("plain_v0")
