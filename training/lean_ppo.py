"""``LeanMaskablePPO``: sb3-contrib's MaskablePPO with the same arithmetic and less overhead, and timed.

``training.train`` (the README's main job) spends most of its PPO phase in the network: the rollout's
forward passes and the PPO updates. The matrix products themselves cannot shrink without changing
what is learned (same float32 network, same minibatches), but sb3-contrib wraps them in work that
can go:

* every forward pass builds a ``MaskableCategorical`` twice (once for the raw logits, once more after
  masking), each time validating its arguments; here the same tensor operations run directly
  (``masked_log_probs``: the logits normalised, masked with -1e8, normalised again, exactly as
  ``MaskableCategorical.apply_masking`` does, then ``softmax``, ``multinomial`` and ``gather`` as
  ``Categorical`` does);
* each minibatch is copied twice (NumPy fancy indexing, then ``torch.tensor``); here the flattened
  rollout is turned into tensors once per update (no copy) and each minibatch is gathered once.

The numbers are the same: same random draws (NumPy's global ``permutation`` per epoch, torch's
``multinomial``), same operations in the same order. ``tests/test_lean_ppo.py`` checks it: the rollout
buffer, the weights and the optimizer state after two rollouts equal MaskablePPO's bit for bit under
the same seed (``benchmarks/ppo_speed.py --same-weights``: the trainer end to end, warm start
included). Not everything that looks free is: with ``ent_coef == 0`` the entropy term adds nothing to
the loss, yet computing it outside autograd changed the actor's weights in the last bits after a few
updates of the main job, so it stays in the graph.

What it buys is modest: near idle ~3% of the main job's PPO phase (within the noise of a shared
machine; benchmarks/README.md, "Wave 8: the main job's speed"), since the matrix products are ~70% of
an update.

``phase_seconds`` adds up the wall time of the rollout's network work (forward passes, buffer,
bookkeeping: everything in ``collect_rollouts`` outside ``env`` and the callback) and of the PPO
updates, so the trainer can print where the time went.
"""

from __future__ import annotations

import time

import numpy as np
import torch as th
from gymnasium import spaces
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks
from stable_baselines3.common.utils import explained_variance
from torch.nn import functional as F

HUGE_NEG = -1e8
"""The logit of a masked action (sb3-contrib's ``MaskableCategorical`` uses the same)."""


def masked_log_probs(logits: th.Tensor, masks: th.Tensor) -> th.Tensor:
    """The normalised log-probabilities of ``MaskableCategorical(logits=logits, masks=masks)``,
    computed by the same operations: ``Categorical`` normalises the raw logits, masking replaces the
    illegal ones by -1e8, and the second ``Categorical`` normalises again."""
    normalised = logits - logits.logsumexp(dim=-1, keepdim=True)
    masked = th.where(masks, normalised, th.tensor(HUGE_NEG, dtype=logits.dtype))
    return masked - masked.logsumexp(dim=-1, keepdim=True)


def masked_entropy(log_probs: th.Tensor, masks: th.Tensor) -> th.Tensor:
    """``MaskableCategorical.entropy``: masked actions contribute nothing (their -1e8 logits do not
    give exactly zero probability)."""
    p_log_p = log_probs * F.softmax(log_probs, dim=-1)
    return -th.where(masks, p_log_p, th.tensor(0.0)).sum(-1)


class LeanMaskablePPO(MaskablePPO):
    """MaskablePPO with the same updates and less overhead per step and minibatch (module docstring);
    for a discrete action space and a plain ``MaskableRolloutBuffer`` (Box observations), which is what
    ``training.train`` builds. ``phase_seconds``: wall seconds of the rollout's network work and of the
    PPO updates since the model was made."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if not isinstance(self.action_space, spaces.Discrete):
            raise ValueError(f"LeanMaskablePPO needs a Discrete action space; got {self.action_space}")
        self.phase_seconds = {"rollout_network": 0.0, "update": 0.0}

    # ------------------------------------------------------------------ the networks, without wrappers

    def _latents(self, obs: th.Tensor) -> tuple[th.Tensor, th.Tensor]:
        """The actor's and the critic's latent vectors (``MaskableActorCriticPolicy.forward``'s first half)."""
        policy = self.policy
        features = policy.extract_features(obs)
        if policy.share_features_extractor:
            return policy.mlp_extractor(features)
        pi_features, vf_features = features
        return policy.mlp_extractor.forward_actor(pi_features), policy.mlp_extractor.forward_critic(vf_features)

    def _act(self, obs: th.Tensor, masks: th.Tensor) -> tuple[th.Tensor, th.Tensor, th.Tensor]:
        """Sampled actions, values and log-probabilities: ``policy(obs, action_masks=masks)``."""
        latent_pi, latent_vf = self._latents(obs)
        values = self.policy.value_net(latent_vf)
        log_probs = masked_log_probs(self.policy.action_net(latent_pi), masks)
        probs = F.softmax(log_probs, dim=-1)  # Categorical.probs
        actions = th.multinomial(probs, 1, True).T.reshape(-1)  # Categorical.sample()
        return actions, values, log_probs.gather(-1, actions.unsqueeze(-1)).squeeze(-1)

    # ------------------------------------------------------------------ rollouts

    def collect_rollouts(self, env, callback, rollout_buffer, n_rollout_steps: int, use_masking: bool = True) -> bool:
        """``MaskablePPO.collect_rollouts`` step for step (same callbacks, info buffer, time-limit
        bootstrap, buffer contents), with the forward pass of ``_act``. The time in the environment
        (``env.step``, its masks) and in the callback is left out of ``phase_seconds["rollout_network"]``."""
        if not use_masking:
            return super().collect_rollouts(env, callback, rollout_buffer, n_rollout_steps, use_masking)
        assert self._last_obs is not None, "No previous observation was provided"
        start = time.perf_counter()
        outside = 0.0  # seconds in the environment and the callback, left out of the network's time
        self.policy.set_training_mode(False)
        n_steps = 0
        rollout_buffer.reset()
        callback.on_rollout_start()
        while n_steps < n_rollout_steps:
            clock = time.perf_counter()
            action_masks = get_action_masks(env)
            outside += time.perf_counter() - clock
            with th.no_grad():
                obs_tensor = th.as_tensor(self._last_obs, device=self.device)
                actions, values, log_probs = self._act(obs_tensor, th.as_tensor(action_masks, dtype=th.bool))
            actions = actions.cpu().numpy()
            clock = time.perf_counter()
            new_obs, rewards, dones, infos = env.step(actions)
            self.num_timesteps += env.num_envs
            callback.update_locals(locals())
            going_on = callback.on_step()
            outside += time.perf_counter() - clock
            if not going_on:
                self.phase_seconds["rollout_network"] += time.perf_counter() - start - outside
                return False

            self._update_info_buffer(infos, dones)
            n_steps += 1
            actions = actions.reshape(-1, 1)
            # Timeouts bootstrap with the value of the last observation (SB3 issue #633).
            for idx in np.flatnonzero(dones):
                if infos[idx].get("terminal_observation") is not None and infos[idx].get("TimeLimit.truncated", False):
                    terminal_obs = self.policy.obs_to_tensor(infos[idx]["terminal_observation"])[0]
                    with th.no_grad():
                        terminal_value = self.policy.predict_values(terminal_obs)[0]
                    rewards[idx] += self.gamma * terminal_value

            rollout_buffer.add(self._last_obs, actions, rewards, self._last_episode_starts, values, log_probs,
                               action_masks=action_masks)
            self._last_obs = new_obs
            self._last_episode_starts = dones

        with th.no_grad():
            # The value of the last observation (the action does not matter, so no mask).
            values = self.policy.predict_values(th.as_tensor(new_obs, device=self.device))
        rollout_buffer.compute_returns_and_advantage(last_values=values, dones=dones)
        self.phase_seconds["rollout_network"] += time.perf_counter() - start - outside
        callback.on_rollout_end()
        return True

    # ------------------------------------------------------------------ updates

    def _flattened_rollout(self) -> dict[str, th.Tensor]:
        """The rollout as ``MaskableRolloutBuffer.get`` flattens it (``[n_envs * n_steps, ...]``, env-major),
        each array made a tensor without a copy."""
        buffer = self.rollout_buffer
        names = ("observations", "actions", "values", "log_probs", "advantages", "returns", "action_masks")
        if not buffer.generator_ready:
            for name in names:
                buffer.__dict__[name] = buffer.swap_and_flatten(buffer.__dict__[name])
            buffer.generator_ready = True
        data = {name: th.from_numpy(np.ascontiguousarray(buffer.__dict__[name])) for name in names}
        data["actions"] = data["actions"].long().flatten()
        for name in ("values", "log_probs", "advantages", "returns"):
            data[name] = data[name].flatten()
        data["action_masks"] = data["action_masks"].reshape(-1, buffer.mask_dims).bool()
        return data

    def train(self) -> None:
        """``MaskablePPO.train``: the same epochs, minibatches (``np.random.permutation`` per epoch),
        losses, clipping, KL guard and logs."""
        start = time.perf_counter()
        try:
            self._train()
        finally:
            self.phase_seconds["update"] += time.perf_counter() - start

    def _train(self) -> None:
        self.policy.set_training_mode(True)
        self._update_learning_rate(self.policy.optimizer)
        clip_range = self.clip_range(self._current_progress_remaining)
        if self.clip_range_vf is not None:
            clip_range_vf = self.clip_range_vf(self._current_progress_remaining)
        entropy_losses, pg_losses, value_losses, clip_fractions = [], [], [], []
        continue_training = True
        rollout = self._flattened_rollout()
        size = rollout["observations"].shape[0]
        for epoch in range(self.n_epochs):
            approx_kl_divs = []
            indices = th.from_numpy(np.random.permutation(size))  # the draw MaskableRolloutBuffer.get makes
            for begin in range(0, size, self.batch_size):
                batch = indices[begin:begin + self.batch_size]
                observations, actions, masks = (rollout[k][batch] for k in ("observations", "actions", "action_masks"))
                old_values, old_log_prob, advantages, returns = (
                    rollout[k][batch] for k in ("values", "log_probs", "advantages", "returns"))

                latent_pi, latent_vf = self._latents(observations)
                log_probs_all = masked_log_probs(self.policy.action_net(latent_pi), masks)
                log_prob = log_probs_all.gather(-1, actions.unsqueeze(-1)).squeeze(-1)
                values = self.policy.value_net(latent_vf).flatten()
                if self.normalize_advantage:
                    advantages = (advantages - advantages.mean()) / (advantages.std() + 1e-8)

                ratio = th.exp(log_prob - old_log_prob)
                policy_loss_1 = advantages * ratio
                policy_loss_2 = advantages * th.clamp(ratio, 1 - clip_range, 1 + clip_range)
                policy_loss = -th.min(policy_loss_1, policy_loss_2).mean()
                pg_losses.append(policy_loss.item())
                clip_fractions.append(th.mean((th.abs(ratio - 1) > clip_range).float()).item())

                if self.clip_range_vf is None:
                    values_pred = values
                else:
                    values_pred = old_values + th.clamp(values - old_values, -clip_range_vf, clip_range_vf)
                value_loss = F.mse_loss(returns, values_pred)
                value_losses.append(value_loss.item())

                # With ent_coef 0 (the Keine Ahnung recipe) this term adds nothing, but leaving it out of
                # the graph changes how autograd accumulates the actor's gradient, and the weights then
                # differ from MaskablePPO's in the last bits: it stays.
                entropy_loss = -th.mean(masked_entropy(log_probs_all, masks))
                loss = policy_loss + self.ent_coef * entropy_loss + self.vf_coef * value_loss
                entropy_losses.append(entropy_loss.item())

                with th.no_grad():
                    log_ratio = log_prob - old_log_prob
                    approx_kl_div = th.mean((th.exp(log_ratio) - 1) - log_ratio).cpu().numpy()
                    approx_kl_divs.append(approx_kl_div)
                if self.target_kl is not None and approx_kl_div > 1.5 * self.target_kl:
                    continue_training = False
                    if self.verbose >= 1:
                        print(f"Early stopping at step {epoch} due to reaching max kl: {approx_kl_div:.2f}")
                    break

                self.policy.optimizer.zero_grad()
                loss.backward()
                th.nn.utils.clip_grad_norm_(self.policy.parameters(), self.max_grad_norm)
                self.policy.optimizer.step()

            self._n_updates += 1
            if not continue_training:
                break
        explained_var = explained_variance(self.rollout_buffer.values.flatten(), self.rollout_buffer.returns.flatten())
        self.logger.record("train/entropy_loss", np.mean(entropy_losses))
        self.logger.record("train/policy_gradient_loss", np.mean(pg_losses))
        self.logger.record("train/value_loss", np.mean(value_losses))
        self.logger.record("train/approx_kl", np.mean(approx_kl_divs))
        self.logger.record("train/clip_fraction", np.mean(clip_fractions))
        self.logger.record("train/loss", loss.item())
        self.logger.record("train/explained_variance", explained_var)
        self.logger.record("train/n_updates", self._n_updates, exclude="tensorboard")
        self.logger.record("train/clip_range", clip_range)
        if self.clip_range_vf is not None:
            self.logger.record("train/clip_range_vf", clip_range_vf)
