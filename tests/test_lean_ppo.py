"""``training.lean_ppo.LeanMaskablePPO`` learns exactly what sb3-contrib's MaskablePPO learns; the trainer's
OpenMP wait policy.

Both models are built on the same game, features and seed and learn two rollouts each: the rollout
buffer (observations, actions, action masks, values, log-probabilities, advantages, returns, episode
starts) and every weight and optimizer moment after the updates must be equal, bit for bit.
"""

import numpy as np
import pytest
import torch

import agents
from agents.features import feature_vec_env
from keine_ahnung_env import keine_ahnung_v0
from training.lean_ppo import LeanMaskablePPO, masked_entropy, masked_log_probs

BUFFER_FIELDS = ("observations", "actions", "action_masks", "values", "log_probs", "advantages", "returns",
                 "episode_starts", "rewards")


def _learned(model_class, ent_coef: float, oracle: bool = False, target_kl: float | None = None):
    """A model of ``model_class`` after two rollouts of 8 games x 16 steps on the advice features
    against counter and greedy, and its environment."""
    from agents.policies import OracleCriticPolicy
    from training.oracle import learner_privileged

    spec = keine_ahnung_v0.game_spec(4)
    features = spec.features("advice")
    opponents = [agents.make("counter", seed=1), agents.make("greedy", seed=2), agents.make("counter", seed=3)]
    games = keine_ahnung_v0.sb3_vec_env(8, opponents, num_players=4, seed=5, normalize_obs=False)
    hidden = spec.privileged_size if oracle else 0
    env = feature_vec_env(games, features, privileged=learner_privileged if oracle else None, privileged_width=hidden)
    policy_kwargs = dict(net_arch=[32, 32], activation_fn=torch.nn.Tanh)
    if oracle:
        policy_kwargs["public_size"] = features.size
    model = model_class(OracleCriticPolicy if oracle else "MlpPolicy", env, n_steps=16, batch_size=32, n_epochs=2,
                        learning_rate=1e-3, ent_coef=ent_coef, clip_range=0.1, gamma=0.999, seed=7, device="cpu",
                        policy_kwargs=policy_kwargs, target_kl=target_kl)
    model.learn(total_timesteps=2 * 8 * 16)
    return model


def _assert_same(plain, lean):
    for name in BUFFER_FIELDS:
        expected, got = getattr(plain.rollout_buffer, name), getattr(lean.rollout_buffer, name)
        assert expected.shape == got.shape, name
        np.testing.assert_array_equal(got, expected, err_msg=name)
    for key, value in plain.policy.state_dict().items():
        assert torch.equal(lean.policy.state_dict()[key], value), key
    plain_state = plain.policy.optimizer.state_dict()["state"]
    lean_state = lean.policy.optimizer.state_dict()["state"]
    for index, moments in plain_state.items():
        for key, value in moments.items():
            assert torch.equal(lean_state[index][key], value), (index, key)
    assert lean.num_timesteps == plain.num_timesteps and lean._n_updates == plain._n_updates
    # The episodes' returns and lengths (their "t" is wall time since creation).
    assert [(e["r"], e["l"]) for e in lean.ep_info_buffer] == [(e["r"], e["l"]) for e in plain.ep_info_buffer]
    assert len(plain.ep_info_buffer) > 0


@pytest.mark.parametrize("ent_coef", [0.0, 0.01])
def test_lean_ppo_learns_exactly_what_maskable_ppo_learns(ent_coef):
    from sb3_contrib import MaskablePPO

    plain = _learned(MaskablePPO, ent_coef)
    lean = _learned(LeanMaskablePPO, ent_coef)
    assert plain.rollout_buffer.advantages.any()  # the comparison is not between empty buffers
    _assert_same(plain, lean)
    assert lean.phase_seconds["rollout_network"] > 0 and lean.phase_seconds["update"] > 0


def test_lean_ppo_matches_with_the_oracle_critic_and_the_kl_guard():
    from sb3_contrib import MaskablePPO

    # A tiny target_kl stops the updates early, so the guard's break is compared too.
    plain = _learned(MaskablePPO, 0.0, oracle=True, target_kl=1e-6)
    lean = _learned(LeanMaskablePPO, 0.0, oracle=True, target_kl=1e-6)
    assert plain._n_updates < 2 * 2  # two rollouts of two epochs each, cut short
    _assert_same(plain, lean)


def test_masked_helpers_equal_maskable_categorical():
    from sb3_contrib.common.maskable.distributions import MaskableCategorical

    generator = torch.Generator().manual_seed(0)
    logits = torch.randn(64, 44, generator=generator) * 3
    masks = torch.rand(64, 44, generator=generator) < 0.3
    masks[:, 0] = True  # every row has a legal action
    reference = MaskableCategorical(logits=logits, masks=masks)
    log_probs = masked_log_probs(logits, masks)
    assert torch.equal(log_probs, reference.logits)
    assert torch.equal(masked_entropy(log_probs, masks), reference.entropy())
    assert (log_probs[~masks] < -1e7).all()


def test_the_trainer_asks_for_sleeping_openmp_threads_unless_told_otherwise(monkeypatch):
    import os

    from training import train

    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    assert train.passive_openmp() == "PASSIVE" and os.environ["OMP_WAIT_POLICY"] == "PASSIVE"
    monkeypatch.setenv("OMP_WAIT_POLICY", "ACTIVE")  # a policy the user names is kept
    assert train.passive_openmp() == "ACTIVE" and os.environ["OMP_WAIT_POLICY"] == "ACTIVE"
