"""The generic names ``learned`` and ``search``: each game's declaration says which of its presets they
stand for at each table size (``GameDeclaration.shipped``), and every command passes its player count."""

from __future__ import annotations

import json

import numpy as np
import pytest

import agents
from keine_ahnung_env import dnp_v0, gap_v0, keine_ahnung_v0, registry
from keine_ahnung_env.game_declaration import GameDeclaration
from training import evaluate


LEARNED_SIZES = {"gap_v0": (2, 3, 4, 5), "dnp_v0": (2, 3, 4, 5)}
"""The table sizes at which the gap game and dnp ship a learned agent (their default recipe's checkpoint)."""
LEARNED_CASES = [(game, module, p) for game, module in (("gap_v0", gap_v0), ("dnp_v0", dnp_v0))
                 for p in LEARNED_SIZES[game]]


def test_every_declared_shipped_agent_is_a_preset_of_its_game_at_a_size_it_seats():
    for name in registry.games():
        entry = registry.game(name)
        for num_players, roles in entry.shipped.items():
            assert num_players in entry.players
            for role, preset in roles.items():
                assert role in agents.SHIPPED_ROLES and preset in entry.presets
                assert agents.shipped_preset(role, name, num_players) == preset
    assert registry.game("keine_ahnung_v0").shipped[4] == {"learned": "advantage_4p", "search": "ismcts_4p"}
    for game in ("gap_v0", "dnp_v0"):
        short = game.split("_")[0]
        assert registry.game(game).shipped == {p: {"learned": f"{short}_learned_{p}p", "search": f"{short}_search_{p}p"}
                                               for p in LEARNED_SIZES[game]}


def test_a_declaration_naming_a_missing_preset_or_size_is_refused():
    base = dict(name="toy_v0", make_spec="x:y", min_players=2, max_players=3, default_players=2)
    with pytest.raises(ValueError, match="'learned' agent at 2 players is 'nope'"):
        GameDeclaration(**base, shipped={2: {"learned": "nope"}}).check()
    with pytest.raises(ValueError, match="at 5 players; the game seats 2-3"):
        GameDeclaration(**base, shipped={5: {}}).check()
    with pytest.raises(ValueError, match="kind 'best'"):
        GameDeclaration(**base, shipped={2: {"best": "x"}}).check()


def test_keine_ahnung_learned_plays_as_advantage_4p_and_search_is_ismcts_4p():
    result = keine_ahnung_v0.vector_env(16, 4, seed=5).reset()
    for num_players in (None, 4):
        learned = agents.make("learned", game="keine_ahnung_v0", num_players=num_players, seed=3)
        reference = agents.make("advantage_4p", game="keine_ahnung_v0", seed=3)
        assert learned.name == "advantage_4p" and type(learned) is type(reference)
        np.testing.assert_array_equal(learned.act(result.observation, result.action_mask),
                                      reference.act(result.observation, result.action_mask))
    search = agents.make("search", game="keine_ahnung_v0", num_players=4, seed=3)
    reference = agents.make("ismcts_4p", game="keine_ahnung_v0", seed=3)
    assert search.name == "ismcts_4p" and type(search) is type(reference)
    assert {"learned", "search"} <= set(agents.available("keine_ahnung_v0"))
    assert "advantage_4p at 4 players" in agents.describe("keine_ahnung_v0")["learned"]


@pytest.mark.parametrize("game,module,num_players", LEARNED_CASES)
def test_learned_of_gap_and_dnp_is_the_shipped_recipe_checkpoint_and_plays_legal_moves(game, module, num_players):
    preset = f"{game.split('_')[0]}_learned_{num_players}p"
    agent = agents.make("learned", game=game, num_players=num_players, seed=0)
    assert agent.name == preset and agent.info.game == game and agent.info.num_players == num_players
    assert agent.info.features == "advice"
    assert agents.make("learned", game=game, seed=0).name == f"{game.split('_')[0]}_learned_4p"  # the default size
    assert preset in agents.available(game)
    env = module.vector_env(8, num_players, seed=11, autoreset=True)
    result = env.reset()
    rng = np.random.default_rng(0)
    for _ in range(20):
        actions = agent.act(result.observation, result.action_mask)
        assert actions.shape == (8,) and result.action_mask[np.arange(8), actions].all()
        legal = [rng.choice(np.flatnonzero(row)) for row in result.action_mask]
        # Mix in random legal moves so the batch reaches more varied positions.
        result = env.step(np.where(rng.random(8) < 0.5, actions, legal))


def _shipped_sizes(game: str) -> str:
    return ", ".join(f"learned at {p} players, search at {p} players" for p in LEARNED_SIZES[game])


@pytest.mark.parametrize("role,game,num_players,message", [
    ("search", "gap_v0", 6, f"no shipped 'search' agent for gap_v0 at 6 players; shipped: {_shipped_sizes('gap_v0')}"),
    ("search", "dnp_v0", 1, f"no shipped 'search' agent for dnp_v0 at 1 players; shipped: {_shipped_sizes('dnp_v0')}"),
    ("search", "keine_ahnung_v0", 6, "no shipped 'search' agent for keine_ahnung_v0 at 6 players; shipped: "),
    ("learned", "gap_v0", 6,
     f"no shipped 'learned' agent for gap_v0 at 6 players; shipped: {_shipped_sizes('gap_v0')}"),
])
def test_a_game_or_size_without_the_agent_is_refused_naming_what_exists(role, game, num_players, message):
    with pytest.raises(ValueError) as exc:
        agents.make(role, game=game, num_players=num_players)
    assert message in str(exc.value)


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_search_of_keine_ahnung_is_the_search_over_the_shipped_advantage_agent_of_the_size(num_players):
    agent = agents.make("search", game="keine_ahnung_v0", num_players=num_players, seed=0)
    assert agent.name == f"ismcts_{num_players}p" and agent.default_spec == f"advantage_{num_players}p"
    assert agent.num_players == num_players and agent.playouts == 128
    other = 3 if num_players == 2 else 2
    with pytest.raises(ValueError, match=f"ismcts_{num_players}p plays {num_players}-player"):
        agents.make(f"ismcts_{num_players}p", game="keine_ahnung_v0", num_players=other)


@pytest.mark.parametrize("game,module,num_players", LEARNED_CASES)
def test_a_shipped_preset_at_another_table_size_is_refused_naming_its_own(game, module, num_players):
    preset = f"{game.split('_')[0]}_learned_{num_players}p"
    other = 3 if num_players == 2 else 2
    with pytest.raises(ValueError, match=f"was trained for {num_players} players, not {other}"):
        agents.make(preset, game=game, num_players=other)


BEST_HEURISTIC = {"gap_v0": "planner", "dnp_v0": "tactician"}


@pytest.mark.parametrize("game,module,num_players", LEARNED_CASES)
def test_evaluate_passes_its_player_count_to_the_shipped_name(tmp_path, game, module, num_players):
    out = tmp_path / "result.json"
    heuristic = BEST_HEURISTIC[game]
    evaluate.main(["--env", game, "--players", str(num_players),
                   "--agents", ",".join(["learned"] + [heuristic] * (num_players - 1)),
                   "--games", str(2 * num_players), "--seed", "1", "--json", str(out), "--no-progress"])
    data = json.loads(out.read_text())
    assert data["players"] == num_players and data["games"] == 2 * num_players
    copies = [f"{heuristic}#{i}" for i in range(2, num_players)]
    assert [a["name"] for a in data["agents"]] == ["learned", heuristic] + copies


def test_evaluate_refuses_a_search_preset_at_another_size(capsys):
    with pytest.raises(SystemExit) as exc:
        evaluate.main(["--env", "gap_v0", "--players", "3", "--agents", "gap_search_4p,planner,planner", "--games", "3"])
    assert exc.value.code == 2
    assert "gap_search_4p plays 4-player gap_v0" in capsys.readouterr().err


@pytest.mark.parametrize("game,module,num_players", LEARNED_CASES)
def test_search_of_gap_and_dnp_is_the_declared_search_over_the_shipped_learned_agent(game, module, num_players):
    short = game.split("_")[0]
    agent = agents.make("search", game=game, num_players=num_players, seed=0)
    assert agent.name == f"{short}_search_{num_players}p" and agent.default_spec == "learned"
    assert agent.num_players == num_players and agent.rollout_spec.split(":")[0] == BEST_HEURISTIC[game]
    assert (agent.playouts, agent.screen, agent.margin) == {"gap_v0": (16, 4, 2.5), "dnp_v0": (64, 8, 1.5)}[game]
    assert agents.make(f"{short}_search_{num_players}p:playouts=4", game=game, seed=0).playouts == 4
    other = 3 if num_players == 2 else 2
    with pytest.raises(ValueError, match=f"{short}_search_{num_players}p plays {num_players}-player {game}"):
        agents.make(f"{short}_search_{num_players}p", game=game, num_players=other)
    with pytest.raises(ValueError, match=f"agent '{short}_search_{num_players}p' fixes budget; leave it out"):
        agents.make(f"{short}_search_{num_players}p", game=game, budget={})


@pytest.mark.parametrize("game,module", [("gap_v0", gap_v0), ("dnp_v0", dnp_v0)])
def test_a_shipped_search_of_gap_and_dnp_plays_legal_moves(game, module):
    agent = agents.make(f"{game.split('_')[0]}_search_3p:playouts=2:screen=0", game=game, seed=0)
    env = module.vector_env(4, 3, seed=7, autoreset=True)
    result = env.reset()
    for _ in range(6):
        actions = agent.act(result.observation, result.action_mask)
        assert actions.shape == (4,) and result.action_mask[np.arange(4), actions].all()
        result = env.step(actions)


def test_a_preset_keeps_the_arguments_its_declaration_binds():
    # gap_learned_<P>p and advantage_<P>p share one factory each; the declaration binds which file or size.
    assert registry.game("gap_v0").presets["gap_learned_3p"].bound == {"checkpoint": "gap_v0_3p_recipe.zip",
                                                                       "preset": "gap_learned_3p"}
    with pytest.raises(ValueError, match="agent 'gap_learned_3p' fixes checkpoint; leave it out"):
        agents.make("gap_learned_3p", game="gap_v0", checkpoint="gap_v0_2p_recipe.zip")
    with pytest.raises(ValueError, match="agent 'advantage_3p' fixes size; leave it out"):
        agents.make("advantage_3p:size=2", game="keine_ahnung_v0")
