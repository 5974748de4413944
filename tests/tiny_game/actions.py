"""The actions of tiny_v0: play the card in hand slot k (``PLAY_k``), or pass."""

from __future__ import annotations

from .deck import HAND

PASS = HAND
"""The id of PASS (after ``PLAY_0 .. PLAY_{HAND-1}``)."""
ACTION_NAMES = tuple(f"PLAY_{k}" for k in range(HAND)) + ("PASS",)
NUM_ACTIONS = len(ACTION_NAMES)
