"""The heuristic agent of tiny_v0 (the batched agent interface of ``keine_ahnung_env.agent_base``)."""

from __future__ import annotations

import numpy as np

from .actions import PASS
from .deck import HAND


class HighCardAgent:
    """The heuristic: plays its highest card when it beats every card on the table, else passes (where
    passing is not legal: its highest card)."""

    name = "high_card"

    def __init__(self, seed: int | None = None, num_players: int | None = None, rules: dict | None = None):
        pass  # deterministic: nothing to seed

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        obs = np.asarray(observation)
        hand, table = obs[:, :HAND], obs[:, HAND:HAND + (obs.shape[1] - HAND - 1) // 4]
        mask = np.asarray(action_mask, bool)
        slot = np.where(mask[:, :HAND], hand, -1).argmax(axis=1)  # the best card it may play
        beats = (hand.max(axis=1) > table.max(axis=1)) & mask[np.arange(len(obs)), slot]
        # Where passing is not offered (an advantage recipe asks for its best other move), it plays.
        return np.where(beats | ~mask[:, PASS], slot, PASS).astype(np.int64)
