"""Policy networks beyond SB3's defaults: an actor-critic whose critic may read more than its actor.

:class:`OracleCriticPolicy` is MaskablePPO's actor-critic with an asymmetric split of its input
``[public (P) | privileged (K)]``: the actor (the policy that plays) reads only the first ``P``
columns, the public policy inputs of ``agents/features.py``; the value network reads all ``P + K``,
where training appends hidden state that no seat can see (``GameSpec.privileged``, e.g. ``games/keine_ahnung/privileged.py``). The critic exists
only to score the actor's decisions during training, so it may know the future draws: its value
estimates then carry much less of the game's luck, and the advantages PPO learns from are less noisy
("asymmetric actor-critic", as in perfect-information critics for card games). A trained agent plays
with the actor alone (``agents/ppo.py`` feeds zeros in the privileged columns, which the actor never
reads), so nothing hidden can reach a decision.
"""

from __future__ import annotations

import torch
from gymnasium import spaces
from sb3_contrib.common.maskable.policies import MaskableActorCriticPolicy
from stable_baselines3.common.torch_layers import BaseFeaturesExtractor, MlpExtractor
from torch import nn


ACTOR_PREFIXES = ("mlp_extractor.policy_net.", "action_net.")
"""State-dict key prefixes of the actor (the weights that decide actions) in SB3's actor-critic
policies and in :class:`OracleCriticPolicy` alike; everything else belongs to the critic."""


class PublicColumns(BaseFeaturesExtractor):
    """The first ``public_size`` columns of a flat observation: what the actor may read."""

    def __init__(self, observation_space: spaces.Box, public_size: int):
        super().__init__(observation_space, public_size)
        self.public_size = public_size

    def forward(self, observations: torch.Tensor) -> torch.Tensor:
        return observations[:, : self.public_size]


class AsymmetricMlpExtractor(nn.Module):
    """An actor MLP over the public columns and a critic MLP over all columns (same layer sizes)."""

    def __init__(self, public_size: int, full_size: int, net_arch, activation_fn, device):
        super().__init__()
        actor = MlpExtractor(public_size, net_arch=net_arch, activation_fn=activation_fn, device=device)
        critic = MlpExtractor(full_size, net_arch=net_arch, activation_fn=activation_fn, device=device)
        self.policy_net = actor.policy_net
        self.value_net = critic.value_net
        self.latent_dim_pi = actor.latent_dim_pi
        self.latent_dim_vf = critic.latent_dim_vf

    def forward(self, features):
        pi_features, vf_features = features
        return self.forward_actor(pi_features), self.forward_critic(vf_features)

    def forward_actor(self, features: torch.Tensor) -> torch.Tensor:
        return self.policy_net(features)

    def forward_critic(self, features: torch.Tensor) -> torch.Tensor:
        return self.value_net(features)


class OracleCriticPolicy(MaskableActorCriticPolicy):
    """MaskableActorCriticPolicy whose actor reads the first ``public_size`` input columns only.

    State-dict keys are those of the default policy (``mlp_extractor.policy_net.*``, ``action_net.*``
    for the actor), so an actor trained with the default policy can be copied in.
    """

    def __init__(self, observation_space: spaces.Box, action_space, lr_schedule, public_size: int, **kwargs):
        full = int(observation_space.shape[0])
        if not 0 < int(public_size) <= full:
            raise ValueError(f"public_size={public_size!r}; allowed: 1..{full} (the observation width)")
        # Read by _build_mlp_extractor, which the parent's __init__ calls.
        object.__setattr__(self, "public_size", int(public_size))
        kwargs["share_features_extractor"] = False
        super().__init__(observation_space, action_space, lr_schedule, **kwargs)
        self.pi_features_extractor = PublicColumns(observation_space, self.public_size)

    def _build_mlp_extractor(self) -> None:
        self.mlp_extractor = AsymmetricMlpExtractor(self.public_size, self.features_dim, self.net_arch,
                                                    self.activation_fn, self.device)

    def _get_constructor_parameters(self) -> dict:
        data = super()._get_constructor_parameters()
        data["public_size"] = self.public_size
        data.pop("share_features_extractor", None)
        return data
