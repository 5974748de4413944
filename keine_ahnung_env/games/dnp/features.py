"""What a learning policy reads: the observation scaled into [0, 1], optionally with a heuristic's advice.

| feature set | width | content                                                                  |
|-------------|-------|--------------------------------------------------------------------------|
| "raw"       | O     | the observation divided by ``ObservationLayout.high`` (the spec's scale)  |
| "advice"    | O + A | raw, then the ``tactician`` heuristic's choice for this decision as a    |
|             |       | one-hot over the A actions. Residual learning: the policy starts from the |
|             |       | strongest heuristic's move and learns where to differ. Needs the mask.   |
| "belief"    | O + A | advice, then what the seat's exact belief (``DnpBelief``) says of each    |
|             | + 50  | opponent r = 1 .. P-1 (relative seats): the chance that it holds each     |
|             | (P-1) | card of the deck (N = 40 card ids), then how many cards of each active    |
|             |       | value 1-10 it is expected to hold (/ 8): what the others can still play.  |

The advice is computed from the observation and the mask alone (the tactician reads nothing more), so
the policy sees no more than a seat does. The tactician is reseeded at 0 on every call: its only
randomness is a fallback for a move it cannot rank, and the advice is then a function of the inputs.
The game spec offers these sets (``GameSpec.features(kind)``); training records the set in the
checkpoint sidecar and the PPO agent applies the same.
"""

from __future__ import annotations

import numpy as np

from ...agent_base import advice_one_hot
from .actions import ActionLayout
from .agents import TacticianAgent
from .config import Rules
from .deck import MAX_VALUE
from .observation import ObservationLayout

FEATURE_SETS = ("raw", "advice", "belief")
ADVISERS = {"advice": TacticianAgent, "belief": TacticianAgent}
"""The heuristic whose move each advice set carries."""


class DnpFeatures:
    """Maps raw observations ``[B, O]`` (and, for "advice", the legal masks ``[B, A]``) to policy inputs
    ``[B, size]`` float32."""

    def __init__(self, kind: str, num_players: int, rules: dict | None = None):
        if kind not in FEATURE_SETS:
            raise ValueError(f"features={kind!r}; allowed: {', '.join(FEATURE_SETS)}")
        options = {k: v for k, v in (rules or {}).items() if k != "num_players"}
        variant = Rules.make(num_players, **options)
        num_cards = variant.tables().num_cards
        layout = ObservationLayout.make(variant.num_players, num_cards)
        self.kind = kind
        # The same scale as the spec's (``GameSpec.observation_scale``), so "raw" is the generic raw set.
        self.scale = (1.0 / np.maximum(layout.high(variant.target), 1e-12)).astype(np.float32)
        self.input_size = layout.size
        self._adviser = ADVISERS[kind](seed=0, num_players=variant.num_players) if kind in ADVISERS else None
        self.num_actions = ActionLayout(num_cards, variant.num_players).num_actions if self._adviser else 0
        """Width of the advice block (the action count; 0 without advice)."""
        self.size = self.input_size + self.num_actions
        self._belief = None
        if kind == "belief":
            from .belief import DnpBelief

            self._belief = DnpBelief(variant)
            self.belief_width = (variant.num_players - 1) * (num_cards + MAX_VALUE)
            """Width of the belief block: per opponent, a chance per card and an expected count per value."""
            self.size += self.belief_width

    @property
    def needs_mask(self) -> bool:
        """Whether ``__call__`` needs the legal-action mask (the advice set)."""
        return self._adviser is not None

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray | None = None) -> np.ndarray:
        """Policy inputs of the observations ``[B, O]``; ``action_mask [B, A]`` is required for the advice
        set (rows without a legal action, e.g. finished games, get no advice)."""
        obs = np.asarray(observation, np.float32)
        if obs.ndim == 1:
            obs = obs[None]
        raw = obs * self.scale
        if self._adviser is None:
            return raw
        parts = [raw, self.advice(obs, action_mask)]
        if self._belief is not None:
            parts.append(self.belief(obs))
        return np.concatenate(parts, axis=1)

    def belief(self, observation: np.ndarray) -> np.ndarray:
        """``[B, (P-1) * (N + 10)]`` float32, the belief block of each observation (the module table):
        every opponent's card chances, then every opponent's expected count per active value / 8."""
        obs = np.asarray(observation, np.float32)
        out = np.zeros((obs.shape[0], self.belief_width), np.float32)
        for r in range(obs.shape[0]):
            cards = self._belief.card_marginals(obs[r])[1:]
            counts = self._belief.value_counts(obs[r])[1:]
            expected = (counts * np.arange(counts.shape[2])).sum(axis=2) / 8.0
            out[r] = np.concatenate([cards.ravel(), np.minimum(expected, 1.0).ravel()])
        return out

    def advice(self, observation: np.ndarray, action_mask: np.ndarray | None) -> np.ndarray:
        """``[B, A]`` float32 one-hot of the adviser's move in each row with a legal move (zeros elsewhere)."""
        return advice_one_hot(self._adviser, observation, action_mask, self.num_actions, self.kind)

