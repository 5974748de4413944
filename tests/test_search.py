"""The determinized roll-out planner (training/search.py), Keine Ahnung's search hooks
(keine_ahnung_env/games/keine_ahnung/search.py) and the core's state branching."""

import json

import numpy as np
import pytest

import agents
from agents.base import sample_masked
from keine_ahnung_env.games.keine_ahnung import KeineAhnungCore, Rules
from keine_ahnung_env.games.keine_ahnung.actions import ACTION_CALL
from keine_ahnung_env.games.keine_ahnung.core import LOC_DRAW, LOC_LAYOUT
from keine_ahnung_env.games.keine_ahnung.positions import load_named
from keine_ahnung_env.games.keine_ahnung.search import candidate_moves, determinize
from training import search


def _mid_game(seed: int, steps: int, num_games: int = 8) -> KeineAhnungCore:
    """Games after ``steps`` random legal moves (finished games left as they are)."""
    core = KeineAhnungCore(num_games, Rules.make(4), seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        live = ~core.done
        core.step(np.where(live, sample_masked(rng, core.legal_mask), 0), active=live)
    return core


def test_state_arrays_branch_a_position_that_plays_on_like_the_original():
    core = _mid_game(seed=1, steps=15)
    games = np.flatnonzero(~core.done)[:3]
    branch = KeineAhnungCore.from_state_arrays(core.rules, core.state_arrays(games), seeds=[1, 2, 3])
    np.testing.assert_array_equal(branch.observe(branch.current), core.observe(core.current[games], games=games))
    np.testing.assert_array_equal(branch.legal_mask, core.legal_mask[games])
    moves = sample_masked(np.random.default_rng(0), branch.legal_mask)
    full = np.zeros(core.num_envs, np.int64)
    full[games] = moves
    active = np.zeros(core.num_envs, bool)
    active[games] = True
    branch.step(moves)
    core.step(full, active=active)
    for i, g in enumerate(games):
        assert branch.snapshot(i) == core.snapshot(int(g))  # early in the game: no reshuffle in between
    with pytest.raises(ValueError, match="missing"):
        KeineAhnungCore.from_state_arrays(core.rules, {"layout": core.layout}, seeds=[0])
    with pytest.raises(ValueError, match="one row per seed"):
        KeineAhnungCore.from_state_arrays(core.rules, core.state_arrays(games), seeds=[0])


def test_determinize_keeps_what_the_seat_sees_and_redeals_what_it_cannot():
    core = _mid_game(seed=2, steps=60)
    for g in np.flatnonzero(~core.done)[:4]:
        g = int(g)
        seat = int(core.current[g])
        state = determinize(core, g, 16, np.random.default_rng(g))
        copies = KeineAhnungCore.from_state_arrays(core.rules, state, seeds=range(16))
        seen = core.observe(seat, games=np.array([g]))
        np.testing.assert_array_equal(copies.observe(seat), np.repeat(seen, 16, axis=0))
        np.testing.assert_array_equal(copies.legal_mask, np.repeat(core.legal_mask[[g]], 16, axis=0))
        # Every card is where its location code says, once.
        for i in range(16):
            draw = copies.draw_cards[i, copies.draw_pos[i]:copies.draw_len[i]]
            assert (copies.card_loc[i, draw] == LOC_DRAW).all()
            lay = copies.layout[i][copies.layout[i] >= 0]
            assert (copies.card_loc[i, lay] == LOC_LAYOUT).all()
            assert np.unique(np.concatenate([draw, lay])).size == draw.size + lay.size
        hidden = (core.draw_len[g] - core.draw_pos[g]) + ((core.layout[g] >= 0) & ~core.card_known[g][core.layout[g]]).sum()
        if hidden > 1:
            assert len({copies.snapshot(i)["draw_pile"].__repr__() + repr(copies.layout[i].tolist())
                        for i in range(16)}) > 1
        # Opponents' trophy values are secret: shuffled with the face-down pile, points recomputed.
        np.testing.assert_array_equal(np.sort(copies.trophy_order, 1), np.sort(core.trophy_order[[g] * 16], 1))
        owners = copies.trophy_owner[:, :, None] == np.arange(4)
        np.testing.assert_array_equal(copies.trophy_points, (copies.trophy_order[:, :, None] * owners).sum(1))
        assert (copies.trophy_points[:, seat] == core.trophy_points[g, seat]).all()
        search.play_out(copies, agents.make("counter", seed=0))
        assert copies.done.all()


def test_determinize_cannot_tell_where_hidden_cards_lie():
    # Two positions that differ only in cards nobody has seen give identical copies.
    core = _mid_game(seed=3, steps=30, num_games=4)
    g = int(np.flatnonzero(~core.done)[0])
    twin = KeineAhnungCore.from_state_arrays(core.rules, core.state_arrays([g]), seeds=[0])
    draw = twin.draw_cards[0, twin.draw_pos[0]:twin.draw_len[0]]
    a, b = int(draw[0]), int(draw[-1])
    twin.draw_cards[0, twin.draw_pos[0]] = b
    twin.draw_cards[0, twin.draw_len[0] - 1] = a
    # ... and in the values of the trophies still face down.
    tp = int(twin.trophy_pos[0])
    twin.trophy_order[0, tp:] = twin.trophy_order[0, tp:][::-1].copy()
    one = determinize(core, g, 8, np.random.default_rng(5))
    two = determinize(twin, 0, 8, np.random.default_rng(5))
    for name in one:
        np.testing.assert_array_equal(one[name], two[name], err_msg=name)
    with pytest.raises(ValueError, match="memory='perfect'"):
        determinize(KeineAhnungCore(1, Rules.make(2, memory="none")), 0, 2, np.random.default_rng(0))


def test_candidate_moves_group_moves_with_the_same_effect():
    core = KeineAhnungCore(1, Rules.make(2), seed=0)
    ids = load_named(core, layouts=[["red 2", "blue 6", "green 3", "grey 1"], ["grey 4"]], piles=[["red 5"]],
                     known=["red 2", "blue 6"], start_turn=False)
    assert ids
    # red 2 fits red 5 (its own class), blue 6 is a known misfit, green 3 and grey 1 are alike.
    moves, default = candidate_moves(core, 0, default=3)
    assert sorted(moves) == [0, 1, 3] and moves[default] == 3
    moves, default = candidate_moves(core, 0, default=2)
    assert sorted(moves) == [0, 1, 2] and moves[default] == 2
    load_named(core, layouts=[["red 2", "blue 6", "green 3"], ["grey 4"]], piles=[["red 5"]], known=["red 2"],
               start_turn=False)
    moves, default = candidate_moves(core, 0, default=ACTION_CALL)
    assert sorted(moves) == [0, 1, ACTION_CALL] and moves[default] == ACTION_CALL


def test_planner_plays_legal_moves_and_keeps_the_default_without_evidence():
    counter = agents.make("counter", seed=0)
    core = _mid_game(seed=4, steps=40)
    games = np.flatnonzero(~core.done)
    default = counter.act(core.observe(core.current[games], games=games), core.legal_mask[games])
    stubborn = search.RolloutPlanner(counter, playouts=4, margin=1e9, trophies_left=12, seed=0)
    np.testing.assert_array_equal(stubborn.improve(core, games, default), default)
    assert stubborn.searches > 0 and stubborn.changed == 0
    assert len(stubborn.standard_errors) >= stubborn.searches and min(stubborn.standard_errors) >= 0
    eager = search.RolloutPlanner(counter, playouts=4, margin=0.0, trophies_left=12, seed=0)
    chosen = eager.improve(core, games, default)
    assert core.legal_mask[games, chosen].all()
    again = search.RolloutPlanner(agents.make("counter", seed=0), playouts=4, margin=0.0, trophies_left=12, seed=0)
    np.testing.assert_array_equal(again.improve(core, games, default), chosen)  # seeded: reproducible
    for bad in ({"playouts": 1}, {"margin": -1.0}, {"trophies_left": -2}, {"playouts": True}):
        with pytest.raises(ValueError):
            search.RolloutPlanner(counter, **bad)


def test_search_command_plays_and_reports(capsys, tmp_path):
    summary = search.main(["--players", "3", "--games", "6", "--playouts", "2", "--trophies-left", "2",
                           "--batch-size", "3", "--seed", "1", "--json", str(tmp_path / "s.json")])
    written = json.loads((tmp_path / "s.json").read_text())
    assert len(written["shares"]) == 6 and written["win_rate"] == pytest.approx(np.mean(written["shares"]))
    assert summary["games"] == 6 and 0.0 <= summary["win_rate"] <= 1.0
    low, high = summary["win_interval"]
    assert low <= summary["win_rate"] <= high
    assert "vs 2 x counter" in capsys.readouterr().out
    with pytest.raises(ValueError, match="--players"):
        search.main(["--players", "7"])


def test_search_refuses_a_game_without_search_hooks():
    import dataclasses

    from keine_ahnung_env import registry

    def no_search(num_players, **rules):
        spec = registry.game_spec("keine_ahnung_v0", num_players, **rules)
        return dataclasses.replace(spec, name="no_search_v0", hooks=dataclasses.replace(spec.hooks, search=None))

    registry.register_game(registry.GameEntry("no_search_v0", no_search, 2, 5, 4))
    try:
        with pytest.raises(ValueError, match="no_search_v0 offers no search hooks.*games that offer it: .*keine_ahnung_v0"):
            search.main(["--env", "no_search_v0", "--games", "2"])
        with pytest.raises(ValueError, match="no_search_v0 offers no search hooks"):
            search.RolloutPlanner(agents.make("random"), game="no_search_v0")
    finally:
        registry.unregister_game("no_search_v0")
    with pytest.raises(ValueError, match="--env 'chess'; allowed: .*keine_ahnung_v0"):
        search.main(["--env", "chess"])
