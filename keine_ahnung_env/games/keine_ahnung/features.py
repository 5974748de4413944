"""What a learning policy reads: the observation scaled into [0, 1], optionally with derived hints.

The environment's observation stays the pure, public table (``observation.py``). A policy may add
features computed from that observation alone, so it learns faster without seeing more:

| feature set | width  | content                                                                |
|-------------|--------|------------------------------------------------------------------------|
| "raw"       | O      | the observation times ``ObservationLayout.scale`` (counts / their maxima) |
| "hints"     | O + 15 | raw, then: exact call success probability (risk model), chance that an |
|             |        | unknown card fits / is a prize, own known cards that fit now (6) and   |
|             |        | own known cards that do not (6)                                        |
| "advice"    | O + 15 | hints, then the ``counter`` heuristic's choice for this decision as a  |
|             | + A    | one-hot over the A actions (every legal unknown card when it reveals   |
|             |        | one: those are alike). Residual learning: the policy starts from the   |
|             |        | strongest heuristic's move and learns where to differ. Needs the mask. |
| "advice_tuned" | O + 15 | as "advice", with ``counter_tuned``'s move (``counter`` calling from a |
|             | + A    | success chance of 0.55 instead of 0.7, docs/skill_ceiling.md): the     |
|             |        | stronger heuristic as the starting point. The hints are the same.      |

The game spec offers these sets (``GameSpec.features(kind)``); training records the set in the
checkpoint sidecar and :class:`agents.ppo.PPOAgent` applies the same.

"hints" and "advice" are computed by a Numba kernel (``agent_kernels.features_row``: one pass per row,
decoding the observation once for the hints and counter's move); ``compiled=False`` gives the NumPy
path (``risk``'s functions and ``CounterAgent.act``), the reference it is tested against
(``tests/test_features_kernel.py``: equal arrays on real-play observations).
"""

from __future__ import annotations

import numpy as np

from ...agent_base import parallel_chunks
from . import odds as risk
from .actions import NUM_ACTIONS
from .agents import CounterAgent, TunedCounterAgent
from .config import SLOTS, Rules
from .observation import ObservationLayout

FEATURE_SETS = ("raw", "hints", "advice", "advice_tuned")
HINT_WIDTH = 15
ADVISERS = {"advice": CounterAgent, "advice_tuned": TunedCounterAgent}
"""The heuristic whose move each advice set carries (the hints never read its thresholds)."""


class KeineAhnungFeatures:
    """Maps raw observations ``[B, O]`` (and, for "advice", the legal masks ``[B, A]``) to policy
    inputs ``[B, size]`` (float32)."""

    def __init__(self, kind: str, num_players: int, rules: dict | None = None, compiled: bool = True):
        """``compiled``: the Numba kernel (default) or the NumPy reference path; both give equal arrays."""
        if kind not in FEATURE_SETS:
            raise ValueError(f"features={kind!r}; allowed: {', '.join(FEATURE_SETS)}")
        options = {k: v for k, v in (rules or {}).items() if k != "num_players"}
        self.kind = kind
        self.tables = Rules.make(num_players, **options).tables()
        self.layout = ObservationLayout.for_tables(num_players, self.tables)
        self.scale = self.layout.scale(self.tables)
        self.input_size = self.layout.size
        self.size = self.input_size + (HINT_WIDTH if kind != "raw" else 0)
        self.compiled = bool(compiled)
        # The heuristic's kernel arguments decode the rows of every derived set; an advice set asks it
        # for its move (counter's or counter_tuned's: the same kernel, other call thresholds).
        heuristic = ADVISERS.get(kind, CounterAgent)
        self._counter = heuristic(seed=0, deck=options.get("deck"), num_players=num_players) \
            if kind != "raw" else None
        self._adviser = self._counter if kind in ADVISERS else None
        self.num_actions = 0
        """Width of the advice block (the action count; 0 without advice)."""
        if kind in ADVISERS:
            self.num_actions = NUM_ACTIONS
            self.size += NUM_ACTIONS

    @property
    def needs_mask(self) -> bool:
        """Whether ``__call__`` needs the legal-action mask (the advice sets)."""
        return self._adviser is not None

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray | None = None) -> np.ndarray:
        """Policy inputs of the observations ``[B, O]``; ``action_mask [B, A]`` is required for the
        advice sets (rows without a legal action, e.g. finished games, get no advice)."""
        obs = np.asarray(observation, np.float32)
        if self.kind == "raw":
            return obs * self.scale
        if self.compiled:
            return self._compiled(obs, action_mask)
        scaled = obs * self.scale
        view = risk.decode(obs, self.tables)
        success = risk.batch_call_success_probability(obs, self.tables, view=view)
        fit, prize = risk.unknown_fit_probability(obs, self.tables, view=view)
        known = view.slot_state[:, 0] == risk.SLOT_KNOWN
        fits_now = risk.face_fit_counts(view.tops, self.tables)
        own_fits = np.take_along_axis(fits_now, view.slot_face[:, 0], axis=1) > 0  # [B, 37]: face 36 fits nothing
        hints = np.concatenate([np.stack([success, fit, prize], axis=1), known & own_fits, known & ~own_fits],
                               axis=1)
        out = [scaled, np.nan_to_num(hints, nan=0.0).astype(np.float32)]
        if self._adviser is not None:
            out.append(self._advice(obs, action_mask, view))
        return np.concatenate(out, axis=1)

    def _compiled(self, obs: np.ndarray, action_mask: np.ndarray | None) -> np.ndarray:
        """The "hints" / "advice" features by the kernel: the same arrays as the NumPy path below."""
        from . import agent_kernels as ck

        if obs.ndim != 2:
            raise ValueError(f"observation must be [B, O]; got shape {obs.shape}")
        advise = self._adviser is not None
        B = obs.shape[0]
        mask = np.ascontiguousarray(self._legal_mask(action_mask, B)) if advise else np.zeros((B, NUM_ACTIONS), bool)
        players, offsets, compat, type_face, type_is_prize, params = self._counter._kernel_args(obs.shape[1])
        keys = np.zeros((B, NUM_ACTIONS))
        if advise:
            # The NumPy path's tie-break keys: the adviser reseeded at 0, one row per row with a legal move.
            rows = np.flatnonzero(mask.any(1))
            self._adviser.reseed(0)
            keys[rows] = self._adviser.rng.random((rows.size, NUM_ACTIONS))
        out = np.empty((B, self.size), np.float32)
        obs = np.ascontiguousarray(obs)
        if B >= 64:
            ck.features_kernel(obs, mask, keys, self.scale, advise, out, players, offsets, compat, type_face,
                               type_is_prize, params, parallel_chunks(B))
        elif B:
            ck.features_range(obs, mask, keys, self.scale, advise, out, 0, B, players, offsets, compat, type_face,
                              type_is_prize, params)
        return out

    def _legal_mask(self, action_mask: np.ndarray | None, rows: int) -> np.ndarray:
        """An advice set's legal masks ``[rows, A]`` as bool; ValueError when missing or misshapen."""
        if action_mask is None:
            raise ValueError(f'features="{self.kind}" needs the legal-action mask: call features(observation, action_mask)')
        mask = np.asarray(action_mask, bool)
        if mask.shape != (rows, self.num_actions):
            raise ValueError(f"action_mask must be [{rows}, {self.num_actions}]; got {mask.shape}")
        return mask

    def _advice(self, obs: np.ndarray, action_mask: np.ndarray | None, view) -> np.ndarray:
        """[B, A] one-hot of the adviser's move, counter's or counter_tuned's (all legal unknown cards for a
        reveal of one)."""
        mask = self._legal_mask(action_mask, obs.shape[0])
        advice = np.zeros(mask.shape, np.float32)
        rows = np.flatnonzero(mask.any(1))
        if rows.size == 0:
            return advice
        # A fixed seed per call: the advice is a function of the inputs (ties broken the same way).
        self._adviser.reseed(0)
        chosen = self._adviser.act(obs[rows], mask[rows])
        advice[rows, chosen] = 1.0
        unknown = view.slot_state[rows, 0] == risk.SLOT_UNKNOWN  # [R, 6]
        reveals_unknown = (chosen < SLOTS) & unknown[np.arange(rows.size), np.minimum(chosen, SLOTS - 1)]
        r = np.flatnonzero(reveals_unknown)
        advice[rows[r], :SLOTS] = (unknown[r] & mask[rows[r], :SLOTS]).astype(np.float32)
        return advice


def feature_sets() -> dict:
    """The ``GameSpec.feature_sets`` entries: ``spec -> KeineAhnungFeatures`` per kind."""
    def maker(kind):
        return lambda spec: KeineAhnungFeatures(kind, spec.num_players, spec.rules)

    return {kind: maker(kind) for kind in FEATURE_SETS}
