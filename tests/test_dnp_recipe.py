"""dnp's policy feature sets (``games/dnp/features.py``) and its training recipe (``spec.TRAINING_RECIPE``)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from keine_ahnung_env import registry
from keine_ahnung_env.games.dnp.agents import ShedderAgent, TacticianAgent
from keine_ahnung_env.games.dnp.features import DnpFeatures
from keine_ahnung_env.vector import VectorEnv


def played_rows(num_players: int, games: int = 24, steps: int = 30, seed: int = 7):
    """Observations and masks of real play (shedders against each other, so the rows differ from the
    tactician's own games), finished games included."""
    spec = registry.game_spec("dnp_v0", num_players)
    env = VectorEnv(spec, games, seed, autoreset=False)
    result = env.reset()
    player = ShedderAgent(seed=seed)
    observations, masks = [], []
    for _ in range(steps):
        observations.append(result.observation.copy())
        masks.append(result.action_mask.copy())
        live = ~(result.terminated | result.truncated)
        actions = np.zeros(games, np.int64)
        if live.any():
            actions[live] = player.act(result.observation[live], result.action_mask[live])
        result = env.step(actions)
    return spec, np.concatenate(observations), np.concatenate(masks)


@pytest.mark.parametrize("num_players", [2, 4])
def test_advice_carries_the_tacticians_move(num_players):
    spec, obs, mask = played_rows(num_players)
    features = spec.features("advice")
    assert isinstance(features, DnpFeatures) and features.needs_mask
    assert features.num_actions == spec.num_actions == mask.shape[1]
    assert features.size == spec.observation_size + spec.num_actions
    out = features(obs, mask)
    assert out.shape == (obs.shape[0], features.size) and out.dtype == np.float32
    raw, advice = out[:, :spec.observation_size], out[:, spec.observation_size:]
    np.testing.assert_array_equal(raw, spec.features("raw")(obs))
    np.testing.assert_array_equal(raw, obs * spec.observation_scale)
    legal = mask.any(axis=1)
    assert legal.sum() > 100
    np.testing.assert_array_equal(advice[legal].sum(axis=1), 1.0)
    np.testing.assert_array_equal(advice[legal].argmax(axis=1), TacticianAgent(seed=123).act(obs[legal], mask[legal]))
    assert mask[legal, advice[legal].argmax(axis=1)].all()
    np.testing.assert_array_equal(advice[~legal], 0.0)
    # A function of the inputs: the same rows give the same advice, in any batch and order.
    order = np.random.default_rng(0).permutation(obs.shape[0])
    np.testing.assert_array_equal(features(obs[order], mask[order]), out[order])
    np.testing.assert_array_equal(features(obs[:1], mask[:1]), out[:1])


def test_advice_needs_a_fitting_mask_and_sets_are_named():
    spec, obs, mask = played_rows(3, games=4, steps=2)
    features = spec.features("advice")
    with pytest.raises(ValueError, match="needs the legal-action mask"):
        features(obs)
    with pytest.raises(ValueError, match="action_mask must be"):
        features(obs, mask[:, :-1])
    assert spec.feature_names == ("raw", "advice", "belief") and spec.default_features == "raw"
    assert not spec.features("raw").needs_mask
    with pytest.raises(ValueError, match="allowed: raw, advice"):
        spec.features("hints")


def test_recipe_is_made_of_train_arguments():
    from training.train import Args, apply_recipe

    spec = registry.game_spec("dnp_v0", 4)
    recipe = dict(spec.training_recipe)
    fields = {field.name: field for field in dataclasses.fields(Args)}
    assert recipe["features"] in spec.feature_names and recipe["imitate"] == "tactician"
    for name, value in recipe.items():
        assert name in fields and name not in ("env", "recipe", "players", "resume", "seed", "rules"), name
        assert type(value) is type(getattr(Args(), name)), name
    for spec_text in recipe["opponents"].split(",") + recipe["final_opponents"].split(","):
        assert spec_text in spec.agents
    assert recipe["opponents"].split(",").count("tactician") * 2 > len(recipe["opponents"].split(","))
    args = apply_recipe(Args(env="dnp_v0", players=4), spec, given={"env", "players"})
    assert {name: getattr(args, name) for name in recipe} == recipe
    # A flag on the command line wins over the recipe; --recipe plain keeps the generic defaults.
    args = apply_recipe(Args(env="dnp_v0", players=4, features="raw"), spec, given={"env", "players", "features"})
    assert args.features == "raw" and args.imitate == "tactician"
    assert apply_recipe(Args(env="dnp_v0", recipe="plain"), spec, given={"env", "recipe"}) == Args(env="dnp_v0", recipe="plain")
