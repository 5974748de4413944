"""The expert-iteration recipe on any game (``training/advantage.py``, ``agents/advantage.py``,
``agents/ismcts.py``): it reaches a game only through its door, and a game joins by declaring data
(``GameSpec.advantage``, the belief sampler, a core that branches rows, its agents and feature sets).

The test game ``tiny_v0`` (``tests/tiny_game``) declares one recipe, ``pass``: its labels are checked
against roll-outs computed here move by move, a hand-made network against the moves the agent makes,
and the refusals against games that lack what the recipe needs. The gap game and dnp get a smoke test
of their recipes."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import agents
import tiny_game
from agents.advantage import AdvantageModelInfo, advantage_recipe, load_model, write_model
from agents.ismcts import SearchAgent, default_rollout, make_recipe_search_agent, recipe_search_options
from keine_ahnung_env import registry
from keine_ahnung_env.game_spec import AdvantageRecipe
from training import advantage as command


@pytest.fixture(scope="module")
def tiny():
    tiny_game.register()
    yield tiny_game.NAME
    tiny_game.unregister()


def _register_stripped(name: str, base: str, **hooks) -> None:
    """Registers a copy of game ``base`` named ``name`` whose hooks ``hooks`` replaces (e.g. ``belief=None``)."""
    entry = registry.game(base)

    def make_spec(num_players, **rules):
        spec = registry.game_spec(base, num_players, **rules)
        return dataclasses.replace(spec, name=name, hooks=dataclasses.replace(spec.hooks, **hooks))

    registry.register_game(registry.GameEntry(name, make_spec, entry.min_players, entry.max_players,
                                              entry.default_players))


def _play_out(spec, core, agent) -> None:
    """Plays every game of ``core`` to its end with ``agent`` in every seat, one ``act`` per round."""
    while not core.done.all():
        live = np.flatnonzero(~core.done)
        actions = np.zeros(core.num_envs, np.int64)
        actions[live] = agent.act(core.observe(core.current[live], games=live), core.legal_mask[live])
        core.step(actions, active=~core.done)


def test_the_labels_are_the_paired_roll_out_differences_computed_move_by_move(tiny):
    players, seed, games, playouts = 3, 7, 12, 4
    labelled = command.label_batch((tiny, players, {}, "", seed, 0, 0, games, playouts, ""))
    spec = registry.game_spec(tiny, players)
    _, recipe = advantage_recipe(spec)
    first = spec.action_names.index(recipe.action)
    high_card = agents.make("high_card", game=tiny)
    deal, *_, belief_seed = command._batch_seeds(seed, 0)
    rng = np.random.default_rng(belief_seed)
    # Replay the games (high_card everywhere; the labelled seat of game i is i % players) as the command
    # steps them (the other seats move until the labelled seat is to act, then it decides in every game)
    # and value each of its decisions here: both moves in the same sampled states, high_card playing on.
    core = spec.make_core(games, deal)
    seat = np.arange(games) % players
    labels, takes = [], []
    while True:
        waiting = np.flatnonzero(~core.done & (core.current != seat))
        while waiting.size:
            actions = np.zeros(games, np.int64)
            actions[waiting] = high_card.act(core.observe(core.current[waiting], games=waiting),
                                             core.legal_mask[waiting])
            active = np.zeros(games, bool)
            active[waiting] = True
            core.step(actions, active=active)
            waiting = np.flatnonzero(~core.done & (core.current != seat))
        live = np.flatnonzero(~core.done)
        if live.size == 0:
            break
        obs, mask = core.observe(core.current[live], games=live), core.legal_mask[live]
        moves = high_card.act(obs, mask)
        for j in range(live.size):
            if not mask[j, first] or mask[j].sum() < 2:
                continue
            other = mask[j].copy()
            other[first] = False
            alternative = int(high_card.act(obs[j:j + 1], other[None])[0])
            sampled = spec.belief.sample_states(obs[j], playouts, rng)
            values = []
            for move in (first, alternative):
                copy = type(sampled).gather([(sampled, np.arange(playouts))])
                copy.step(np.full(playouts, move))
                _play_out(spec, copy, high_card)
                values.append(spec.seat_win_shares(copy, sampled.current))
            labels.append(float(np.mean(values[0] - values[1])))
            takes.append(moves[j] == first)
        actions = np.zeros(games, np.int64)
        actions[live] = moves
        active = np.zeros(games, bool)
        active[live] = True
        core.step(actions, active=active)
    assert len(labels) == labelled["labels"].size > games  # every game has at least one such decision
    np.testing.assert_allclose(labelled["labels"], labels, atol=1e-6)
    np.testing.assert_array_equal(labelled["takes"], takes)
    assert np.ptp(labels) > 0.5  # the labels tell decisions apart: passing wins some, loses others
    assert labelled["inputs"].shape == (len(labels), recipe.input_columns().size)


def test_a_sure_trick_is_labelled_as_a_sure_loss_for_passing(tiny):
    # Two players, one round. Seat 0 opens with its best card (high_card on an empty table), so seat 1
    # knows where it sits; when it holds a higher card it wins by playing it and loses by passing (label
    # exactly -1), otherwise it loses either way (label 0).
    labels = command.label_batch((tiny, 2, {"rounds": 1}, "pass", 3, 0, 0, 40, 4, ""))["labels"]
    dealt = registry.game_spec(tiny, 2, rounds=1).make_core(40, command._batch_seeds(3, 0)[0])
    assert labels.size == 40  # one decision a game, in game order
    second = np.arange(40) % 2 == 1  # the labelled seat is seat 1
    higher = dealt.hands[:, 1].max(1) > dealt.hands[:, 0].max(1)
    assert (second & higher).any() and (second & ~higher).any()
    np.testing.assert_array_equal(labels[second], np.where(higher[second], -1.0, 0.0))


def _hand_made_model(path, tiny, players: int = 3):
    """A model of the tiny recipe whose network predicts ``relu(x0) - 0.5``: x0 the scaled card in hand
    slot 0, so passing is predicted to pay exactly where that card is 5 or higher."""
    spec = registry.game_spec(tiny, players)
    name, recipe = advantage_recipe(spec)
    width = recipe.input_columns().size
    w0 = np.zeros((1, width), np.float32)
    w0[0, 0] = 1.0
    arrays = {"input_mean": np.zeros(width), "input_scale": np.ones(width), "layer.0.weight": w0,
              "layer.0.bias": np.zeros(1), "layer.1.weight": np.ones((1, 1)), "layer.1.bias": np.full(1, -0.5)}
    info = AdvantageModelInfo(game=tiny, num_players=players, rules=dict(spec.rules),
                              observation_version=spec.observation_version, observation_size=spec.observation_size,
                              num_actions=spec.num_actions, features=recipe.features, net_arch=(1,),
                              recipe=recipe.as_record(), decision=name, game_version=spec.version,
                              continuation=recipe.base)
    return write_model(arrays, path, info)


def test_the_agent_overrules_the_heuristic_exactly_where_the_network_says_it_pays(tiny, tmp_path):
    path = _hand_made_model(tmp_path / "tiny", tiny)
    agent = agents.make(f"advantage:{path}", game=tiny, num_players=3, seed=0)
    spec = registry.game_spec(tiny, 3)
    high_card = agents.make("high_card", game=tiny)
    core = spec.make_core(300, 11)
    checked = departed = 0
    while not core.done.all():
        live = np.flatnonzero(~core.done)
        obs, mask = core.observe(core.current[live], games=live), core.legal_mask[live]
        moves, base = agent.act(obs, mask), high_card.act(obs, mask)
        decides = mask[:, 2] & (mask.sum(1) > 1)
        rest = mask.copy()
        rest[:, 2] = False
        other = high_card.act(obs, rest)
        wants_pass = obs[:, 0] / 8.0 > 0.5  # relu(x0) - 0.5 > 0, x0 = card / 8 (the raw scale)
        expected = np.where(decides, np.where(wants_pass, 2, other), base)
        np.testing.assert_array_equal(moves, expected)
        checked += int(decides.sum())
        departed += int((decides & (moves != base)).sum())
        core.step(np.where(core.done, 0, np.bincount(live, moves, core.num_envs).astype(np.int64)), active=~core.done)
    assert checked > 300 and 0 < departed < checked
    assert agent.decisions == checked and agent.changed == departed


def test_the_command_labels_fits_and_writes_an_agent_for_the_test_game(tiny, tmp_path, capsys):
    summary = command.main(["--env", tiny, "--players", "2", "--games", "300", "--batch-size", "30", "--epochs", "2",
                            "--seed", "4", "--out", str(tmp_path / "m"), "--no-progress"])
    assert summary["labelled"] > 300 and summary["validation"]["decisions"] > 0
    printed = capsys.readouterr().out
    assert printed.startswith(f"{tiny}, 2 players, the 'pass' decision")
    _, info = load_model(tmp_path / "m.npz", tiny)
    assert (info.game, info.decision, info.continuation, info.features) == (tiny, "pass", "high_card", "raw")
    agent = agents.make(f"advantage:{tmp_path / 'm.npz'}", game=tiny, num_players=2, seed=0)
    venv = tiny_game.vector_env(64, num_players=2, seed=5)
    step = venv.reset()
    for _ in range(4):
        actions = agent.act(step.observation, step.action_mask)
        assert step.action_mask[np.arange(64), actions].all()
        step = venv.step(actions)
    assert agent.decisions > 0


def test_the_recipe_is_refused_where_a_game_lacks_it_naming_what_exists(tiny, tmp_path):
    _register_stripped("tinyplain_v0", tiny, advantage=None, belief=None)
    _register_stripped("tinyblind_v0", tiny, belief=None)
    try:
        with pytest.raises(ValueError, match=r"--env .tinyplain_v0.: tinyplain_v0 offers no advantage recipe "
                                             r".*games that offer it: dnp_v0, gap_v0, keine_ahnung_v0, tiny_v0"):
            command.main(["--env", "tinyplain_v0", "--out", str(tmp_path / "m")])
        with pytest.raises(ValueError, match=r"--decision .call.: decision .call. for tiny_v0; allowed: pass"):
            command.main(["--env", tiny, "--decision", "call", "--out", str(tmp_path / "m")])
        with pytest.raises(ValueError, match=r"tinyblind_v0's advantage recipe 'pass': tinyblind_v0 offers no belief "
                                             r"sampler"):
            command.main(["--env", "tinyblind_v0", "--out", str(tmp_path / "m")])
        with pytest.raises(ValueError, match=r"tinyplain_v0 offers no belief sampler .*games that offer it: "
                                             r"dnp_v0, gap_v0, keine_ahnung_v0, tiny_v0"):
            agents.make("ismcts", game="tinyplain_v0")
        with pytest.raises(ValueError, match=r"tinyplain_v0 offers no advantage recipe"):
            recipe_search_options("tinyplain_v0", 2)
        with pytest.raises(ValueError, match=r"decision 'nope' for dnp_v0; allowed: turn"):
            recipe_search_options("dnp_v0", 4, decision="nope")
        assert not list(tmp_path.iterdir())
    finally:
        registry.unregister_game("tinyplain_v0")
        registry.unregister_game("tinyblind_v0")
    spec = registry.game_spec(tiny, 2)
    _, recipe = advantage_recipe(spec)
    for change, message in [(dict(action="FOLD"), r"names the action 'FOLD', which tiny_v0 does not have"),
                            (dict(features="belief"), r"features='belief' for tiny_v0; allowed: raw"),
                            (dict(inputs=((0, 99),)), r"inputs \(0, 99\) lies outside the 'raw' feature set")]:
        with pytest.raises(ValueError, match=message):
            dataclasses.replace(recipe, **change).check(spec, "pass")
    recipe.check(spec, "pass")
    path = _hand_made_model(tmp_path / "tiny", tiny)
    with pytest.raises(ValueError, match=r"trained for 'tiny_v0', not 'gap_v0'"):
        agents.make(f"advantage:{path}", game="gap_v0")
    with pytest.raises(ValueError, match=r"trained for 3 players, not 2"):
        agents.make(f"advantage:{path}", game=tiny, num_players=2)


def test_a_heuristic_that_leaves_the_mask_is_refused_by_name(tiny):
    from agents.advantage import recipe_decisions

    spec = registry.game_spec(tiny, 2)
    _, recipe = advantage_recipe(spec)

    class Stubborn:
        name = "stubborn"

        def act(self, observation, action_mask):
            return np.full(len(observation), 2, np.int64)  # always PASS, even where it is masked out

    core = spec.make_core(4, 0)
    obs, mask = core.observe(core.current), core.legal_mask
    with pytest.raises(ValueError, match=r"stubborn answered 2, a move outside the mask"):
        recipe_decisions(recipe, 2, np.zeros(0, np.int64), Stubborn(), spec.features("raw"), obs, mask)


def test_the_search_over_a_learned_agent_is_read_from_the_recipe(tiny, tmp_path):
    assert default_rollout(registry.game_spec("keine_ahnung_v0", 4)) == "counter"
    assert default_rollout(registry.game_spec("gap_v0", 4)) == "planner"
    assert default_rollout(registry.game_spec("dnp_v0", 4)) == "tactician"
    options = recipe_search_options("keine_ahnung_v0", 4, default="advantage_4p")
    from agents.ismcts import SEARCH_4P

    assert options == SEARCH_4P  # Keine Ahnung's shipped search is the recipe's search over advantage_4p
    path = _hand_made_model(tmp_path / "tiny", tiny)
    agent = make_recipe_search_agent(seed=0, game=tiny, num_players=3, default=f"advantage:{path}", playouts=4,
                                     screen=0, margin=0.0)
    assert isinstance(agent, SearchAgent) and (agent.rollout_spec, agent.opponents_spec) == ("high_card", "high_card")
    core = registry.game_spec(tiny, 3).make_core(32, 2)
    obs, mask = core.observe(core.current), core.legal_mask
    moves = agent.act(obs, mask)
    assert mask[np.arange(32), moves].all() and agent.searched == 32


@pytest.mark.parametrize("game", ["gap_v0", "dnp_v0"])
def test_the_gap_game_and_dnp_label_and_play_their_recipes(game, tmp_path):
    spec = registry.game_spec(game, 4)
    decision, recipe = advantage_recipe(spec)
    recipe.check(spec, decision)
    assert decision == {"gap_v0": "pass", "dnp_v0": "turn"}[game]
    assert recipe.features == "belief" and recipe.base == {"gap_v0": "planner", "dnp_v0": "tactician"}[game]
    # The labels of the first decisions of one game, two belief states each.
    labelled = command.label_batch((game, 4, {}, decision, 1, 0, 0, 1, 2, ""))
    labels = labelled["labels"]
    assert labels.size > 5 and np.isfinite(labels).all() and (np.abs(labels) <= 1).all()
    assert labelled["inputs"].shape == (labels.size, recipe.input_columns().size)
    arrays = command.fit(labelled["inputs"], labels, [8], 1, 1e-3, 0.0, 0, np.arange(labels.size))
    info = AdvantageModelInfo(game=game, num_players=4, rules=dict(spec.rules),
                              observation_version=spec.observation_version, observation_size=spec.observation_size,
                              num_actions=spec.num_actions, features=recipe.features, net_arch=(8,),
                              recipe=recipe.as_record(), decision=decision, game_version=spec.version,
                              continuation=recipe.base)
    path = write_model(arrays, tmp_path / "m", info)
    agent = agents.make(f"advantage:{path}", game=game, num_players=4, seed=0)
    heuristic = agents.make(recipe.base, game=game, num_players=4, seed=0)
    core = spec.make_core(16, 9)
    for _ in range(24):  # past the gap game's hiding of cards
        live = np.flatnonzero(~core.done)
        obs, mask = core.observe(core.current[live], games=live), core.legal_mask[live]
        moves = agent.act(obs, mask)
        assert mask[np.arange(live.size), moves].all()
        core.step(np.bincount(live, moves, core.num_envs).astype(np.int64), active=~core.done)
    assert agent.decisions > 0
    # The belief block: the chances that the opponents hold the cards add up to the hand sizes they show
    # (and, in the gap game, the chances of the draw pile to its size).
    live = np.flatnonzero(~core.done)
    obs, mask = core.observe(core.current[live], games=live), core.legal_mask[live]
    features = spec.features("belief")
    block = features(obs, mask)[:, features.size - (198 if game == "gap_v0" else 150):]
    layout = spec.belief.layout
    if game == "gap_v0":
        np.testing.assert_allclose(block[:, :66].sum(1), obs[:, layout.slice("hand_sizes")][:, 1:].sum(1), atol=1e-4)
        np.testing.assert_allclose(block[:, 66:132].sum(1), obs[:, layout.slice("table")][:, 0], atol=1e-4)
    else:
        held = block[:, :120].reshape(-1, 3, 40).sum(2)
        np.testing.assert_allclose(held, obs[:, layout.slice("players")].reshape(-1, 4, 4)[:, 1:, 0], atol=1e-4)
    with pytest.raises(ValueError, match=rf"no action named 'CALL' in {game}"):
        agents.make("ismcts", game=game, when="CALL")
    assert heuristic.name == recipe.base
