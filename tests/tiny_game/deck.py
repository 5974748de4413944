"""The cards of tiny_v0: one each of 1-8; each seat holds two."""

from __future__ import annotations

CARDS = 8
"""Cards 1..CARDS, one of each (0 stands for "no card")."""
HAND = 2
"""Cards dealt to each seat."""
