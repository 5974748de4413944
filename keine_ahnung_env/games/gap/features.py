"""What a learning policy reads: the observation scaled into [0, 1], optionally with derived hints.

| feature set     | width   | content                                                            |
|-----------------|---------|--------------------------------------------------------------------|
| "raw"           | O       | the observation divided by ``ObservationLayout.high``              |
| "hints" (default) | O + 200 | raw, then for each of the 66 cards: in your hand and a gap card   |
|                 |         | now (66), in your hand and matching the left top (66), the right   |
|                 |         | top (66); then your hand's stars / 40 and your hidden cards' / 8   |
| "advice"        | O + 200 | hints, then the ``planner`` heuristic's choice for this decision   |
|                 | + A     | as a one-hot over the A actions. Residual learning: the policy     |
|                 |         | starts from the strongest heuristic's move and learns where to     |
|                 |         | differ from it. Needs the legal-action mask.                       |
| "belief"        | advice  | advice, then what the seat's exact belief (``GapBelief``) says of  |
|                 | + 198   | each of the 66 cards: the chance that an opponent holds it (66),   |
|                 |         | that it lies in the draw pile (66), that the next draw takes it    |
|                 |         | (66). What is left to draw and what the others can still play, as  |
|                 |         | the roll-out valued advantage recipe reads it.                     |

The hints, the advice and the belief are computed from the observation (and the mask) alone (nothing more is
seen), so a policy need not learn the gap rule from one-hot colours and numbers before it can play.
The adviser is reseeded at 0 on every call (its only chance is the tie-break between hand cards of
equal stars when it hides one), so the advice is a function of the inputs.
"""

from __future__ import annotations

import numpy as np

from ...agent_base import advice_one_hot
from .actions import NUM_ACTIONS
from .agents import PlannerAgent
from .deck import CARD_COLOUR, CARD_NUMBER, CARD_STARS, NUM_CARDS, NUM_COLOURS
from .observation import CARD_FEATURES, ObservationLayout

FEATURE_SETS = ("raw", "hints", "advice", "belief")
ADVISERS = {"advice": PlannerAgent, "belief": PlannerAgent}
"""The heuristic whose move each advice set carries."""
HINT_WIDTH = 3 * NUM_CARDS + 2
BELIEF_WIDTH = 3 * NUM_CARDS
"""The belief block: per card, held by an opponent, in the draw pile, taken by the next draw."""
_COLOUR = CARD_COLOUR.astype(np.int64)
_NUMBER = CARD_NUMBER.astype(np.int64)


def _top_parts(features: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(present [B], colour [B], number [B]) of [B, 17] top encodings."""
    present = features.any(axis=1)
    return present, features[:, :NUM_COLOURS].argmax(axis=1), features[:, NUM_COLOURS:].argmax(axis=1) + 1


class GapFeatures:
    """Maps raw observations ``[B, O]`` (and, for "advice", the legal masks ``[B, A]``) to policy
    inputs ``[B, size]`` float32."""

    def __init__(self, kind: str, num_players: int, rounds: int, rules: dict | None = None):
        """``rules``: the variant's rules options (the adviser plans with them: ``flip_on_extra_turns``)."""
        if kind not in FEATURE_SETS:
            raise ValueError(f"features={kind!r}; allowed: {', '.join(FEATURE_SETS)}")
        self.kind = kind
        self.layout = ObservationLayout.make(num_players, rounds)
        self.scale = (1.0 / self.layout.high()).astype(np.float32)
        self.input_size = self.layout.size
        self.size = self.input_size + (HINT_WIDTH if kind != "raw" else 0)
        options = {k: v for k, v in (rules or {}).items() if k != "num_players"}
        self._adviser = ADVISERS[kind](seed=0, num_players=num_players, rules=options) if kind in ADVISERS else None
        self.num_actions = NUM_ACTIONS if self._adviser is not None else 0
        """Width of the advice block (the action count; 0 without advice)."""
        self.size += self.num_actions
        self._belief = None
        if kind == "belief":
            from .belief import GapBelief
            from .config import Rules

            self._belief = GapBelief(Rules.make(num_players, **{"rounds": rounds, **options}))
            self.size += BELIEF_WIDTH

    @property
    def needs_mask(self) -> bool:
        """Whether ``__call__`` needs the legal-action mask (the advice set)."""
        return self._adviser is not None

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray | None = None) -> np.ndarray:
        """Policy inputs of the observations ``[B, O]``; ``action_mask [B, A]`` is required for the
        advice set (rows without a legal action, e.g. finished games, get no advice)."""
        obs = np.asarray(observation, np.float32)
        if obs.ndim == 1:
            obs = obs[None]
        raw = obs * self.scale
        if self.kind == "raw":
            return raw
        hints = self._hints(obs, raw)
        if self._adviser is None:
            return hints
        parts = [hints, self._advice(obs, action_mask)]
        if self._belief is not None:
            parts.append(self.belief(obs))
        return np.concatenate(parts, axis=1)

    def belief(self, obs: np.ndarray) -> np.ndarray:
        """``[B, 198]`` float32, the belief block of each observation (the module table)."""
        out = np.zeros((obs.shape[0], BELIEF_WIDTH), np.float32)
        P = self.layout.num_players
        for r in range(obs.shape[0]):
            marginals = self._belief.card_marginals(obs[r])
            held = sum(marginals[f"hand_seat_{k}"] for k in range(1, P))
            out[r] = np.concatenate([held, marginals["draw_pile"], marginals["next_draw"]])
        return out

    def _advice(self, obs: np.ndarray, action_mask: np.ndarray | None) -> np.ndarray:
        """[B, A] one-hot of the adviser's move (zeros where no move is legal)."""
        return advice_one_hot(self._adviser, obs, action_mask, self.num_actions, self.kind)

    def _hints(self, obs: np.ndarray, raw: np.ndarray) -> np.ndarray:
        """The "hints" features: raw, then the hand's gap and match flags and the star sums."""
        hand = obs[:, self.layout.slice("hand")] > 0.5
        tops = obs[:, self.layout.slice("pile_tops")]
        p0, c0, n0 = _top_parts(tops[:, :CARD_FEATURES])
        p1, c1, n1 = _top_parts(tops[:, CARD_FEATURES:])
        laid = (p0 & p1)[:, None]
        col, num = _COLOUR[None, :], _NUMBER[None, :]
        lo, hi = np.minimum(n0, n1)[:, None], np.maximum(n0, n1)[:, None]
        gap = hand & laid & (col != c0[:, None]) & (col != c1[:, None]) & (num > lo) & (num < hi)
        left = hand & laid & ((col == c0[:, None]) | (num == n0[:, None]))
        right = hand & laid & ((col == c1[:, None]) | (num == n1[:, None]))
        hidden = obs[:, self.layout.slice("hidden")] > 0.5
        stars = np.stack([(hand * CARD_STARS).sum(axis=1) / 40.0, (hidden * CARD_STARS).sum(axis=1) / 8.0], axis=1)
        return np.concatenate([raw, gap, left, right, np.minimum(stars, 1.0)], axis=1).astype(np.float32)
