"""The gap game's default training recipe: the "advice" features carry planner's move, and the recipe
names only arguments of ``training.train`` and agents the game offers."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import agents
from keine_ahnung_env import registry
from keine_ahnung_env.games.gap.agents import PlannerAgent
from keine_ahnung_env.vector import VectorEnv
from training import train as train_module


def played_rows(spec, games: int = 12, steps: int = 60, seed: int = 5):
    """Observations and legal masks of every seat's decisions in planner-played games (hide, flip and
    play phases; finished games' rows carry no legal move)."""
    env = VectorEnv(spec, games, seed, autoreset=False)
    result = env.reset()
    player = PlannerAgent(seed=1)
    observations, masks = [], []
    for _ in range(steps):
        observations.append(result.observation.copy())
        masks.append(result.action_mask.copy())
        result = env.step(player.act(result.observation, result.action_mask))
    return np.concatenate(observations), np.concatenate(masks)


@pytest.mark.parametrize("players, rules", [(4, {}), (3, {"flip_on_extra_turns": False, "rounds": 2})])
def test_the_advice_features_are_the_hints_and_a_one_hot_of_planners_move(players, rules):
    spec = registry.game_spec("gap_v0", players, **rules)
    advice, hints = spec.features("advice"), spec.features("hints")
    assert advice.needs_mask and not hints.needs_mask and advice.num_actions == spec.num_actions
    assert advice.size == hints.size + spec.num_actions
    obs, mask = played_rows(spec)
    live = mask.any(axis=1)
    phases = obs[:, spec.features("raw").layout.slice("phase")].argmax(axis=1)
    assert live.sum() > 300 and len(set(phases[live])) == 3  # hide, flip and play decisions
    x = advice(obs, mask)
    assert x.shape == (len(obs), advice.size) and x.dtype == np.float32
    np.testing.assert_array_equal(x[:, :hints.size], hints(obs))
    block = x[:, hints.size:]
    # One legal move marked per row with a legal move, none elsewhere; the move is planner's (the
    # variant's rules, seed 0) on the same rows.
    assert (block.sum(axis=1) == live).all() and set(np.unique(block)) <= {0.0, 1.0}
    assert mask[live, block[live].argmax(axis=1)].all()
    planner = PlannerAgent(seed=0, num_players=players, rules=rules)
    np.testing.assert_array_equal(block[live].argmax(axis=1), planner.act(obs[live], mask[live]))
    # A function of the inputs: the same rows give the same advice, alone or in a batch.
    np.testing.assert_array_equal(advice(obs, mask), x)
    row = int(np.flatnonzero(live)[7])
    np.testing.assert_array_equal(advice(obs[row], mask[row])[0], x[row])


def test_the_advice_features_refuse_a_missing_or_misshapen_mask():
    features = registry.game_spec("gap_v0", 4).features("advice")
    obs = np.zeros((2, features.input_size), np.float32)
    with pytest.raises(ValueError, match='features="advice" needs the legal-action mask'):
        features(obs)
    with pytest.raises(ValueError, match=r"action_mask must be \[2, 201\]"):
        features(obs, np.ones((2, 5), bool))


def test_the_recipe_names_train_arguments_and_the_games_agents():
    spec = registry.game_spec("gap_v0", 4)
    recipe = spec.training_recipe
    fields = {field.name for field in dataclasses.fields(train_module.Args)}
    assert set(recipe) <= fields - {"env", "recipe", "players", "resume", "seed", "rules"}
    assert recipe["features"] == "advice" and recipe["imitate"] == "planner"
    args = train_module.apply_recipe(train_module.Args(env="gap_v0", players=4, seed=3), spec)
    assert {name: getattr(args, name) for name in recipe} == dict(recipe)
    assert train_module.check_args(args).name == "gap_v0"  # every value passes the command's checks
    # Mostly planners in the pool, and every agent it names is one the game makes.
    pool = [name.strip() for name in args.opponents.split(",")]
    assert pool.count("planner") > len(pool) / 2
    for name in pool + args.final_opponents.split(",") + [args.imitate]:
        assert agents.make(name, game="gap_v0", seed=0) is not None
    # The 15-minute budget on 2 cores leaves the PPO phase less than half of it.
    assert 0 < args.max_minutes <= 7.5
    # A flag the user gives wins over the recipe.
    given = train_module.apply_recipe(train_module.Args(env="gap_v0", learning_rate=1e-3), spec,
                                      given={"env", "learning_rate"})
    assert given.learning_rate == 1e-3 and given.features == "advice"
