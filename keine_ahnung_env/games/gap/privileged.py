"""The hidden state an oracle critic may read (``GameSpec.privileged``; never the policy).

For each seat: per opponent in turn order (relative seats 1..P-1), its hand (66) and its hidden cards
(66); then the next two draw cards (66 each, one-hot; zeros where the pile is shorter); all in [0, 1].
"""

from __future__ import annotations

import numpy as np

from .core import LOC_HAND, LOC_HIDDEN
from .deck import NUM_CARDS

NEXT_DRAWS = 2


def privileged_size(num_players: int) -> int:
    return (num_players - 1) * 2 * NUM_CARDS + NEXT_DRAWS * NUM_CARDS


def privileged_features(core, seats: np.ndarray) -> np.ndarray:
    B, P = core.num_envs, core.num_players
    seats = np.broadcast_to(np.asarray(seats, np.int64), (B,))
    out = np.zeros((B, privileged_size(P)), np.float32)
    loc, owner = core.card_loc, core.card_owner.astype(np.int64)
    for rel in range(1, P):
        p = ((seats + rel) % P)[:, None]
        base = (rel - 1) * 2 * NUM_CARDS
        out[:, base:base + NUM_CARDS] = (loc == LOC_HAND) & (owner == p)
        out[:, base + NUM_CARDS:base + 2 * NUM_CARDS] = (loc == LOC_HIDDEN) & (owner == p)
    base = (P - 1) * 2 * NUM_CARDS
    rows = np.arange(B)
    for k in range(NEXT_DRAWS):
        pos = core.draw_pos.astype(np.int64) + k
        has = pos < core.draw_len
        card = core.draw_cards[rows, np.minimum(pos, NUM_CARDS - 1)].astype(np.int64)
        out[rows[has], base + k * NUM_CARDS + card[has]] = 1.0
    return out
