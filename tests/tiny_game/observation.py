"""What a seat of tiny_v0 observes (``TinyCore.observe`` encodes it): relative to the observer (0 = you),
its hand [HAND], then per seat the card it played this round, its points, its cards in hand and whether
it is to act [4 x P], then the round [1]. Nothing of another seat's hand or of the stock."""

from __future__ import annotations

import numpy as np

from .deck import CARDS, HAND


def observation_high(num_players: int, rounds: int) -> np.ndarray:
    """[O] float32 upper bound of every feature."""
    P = num_players
    return np.array([CARDS] * (HAND + P) + [rounds] * P + [HAND] * P + [1] * P + [rounds], np.float32)


def observation_string(obs) -> str:
    obs = np.asarray(obs).astype(int)
    P = (obs.size - HAND - 1) // 4
    hand, table, points, held, acting, rnd = np.split(obs, np.cumsum([HAND, P, P, P, P]))
    return "\n".join([f"round {rnd[0] + 1}; your hand: {' '.join(map(str, hand[hand > 0])) or '-'}"] + [
        f"{'you' if k == 0 else f'seat +{k}'}: played {table[k] or '-'}, {held[k]} in hand, {points[k]} points"
        + (" (to act)" if acting[k] else "") for k in range(P)])
