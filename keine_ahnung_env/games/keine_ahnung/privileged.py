"""Keine Ahnung's hidden state for the critic of an asymmetric actor-critic (``--critic oracle``; training
only), offered to training as ``GameSpec.privileged``.

Keine Ahnung is mostly luck from one decision to the next: whether the next revealed card fits
decides a turn. A critic that reads only the public table must average over that luck, so the
advantages PPO learns from are dominated by it. With ``--critic oracle`` the value network also
reads the hidden state below, computed from the core's true state for the learner's seat; the actor
(:class:`agents.policies.OracleCriticPolicy`) never reads these columns, and a trained agent plays
without them (``agents/ppo.py`` passes zeros).

Privileged columns, per game (``privileged_size(P)`` of them, all in [0, 1]):

| section        | width          | content                                                       |
|----------------|----------------|---------------------------------------------------------------|
| layouts        | P x 6 x 2      | per seat from the learner's (relative order) and slot: the     |
|                |                | card fits a pile top now; the card is a consolation prize      |
| next draws     | 8 x 6          | the next 8 draw-pile cards: present, fits now, prize, and its |
|                |                | function (reveal, remove, refill)                             |
| next trophies  | 3              | values of the next 3 trophies / the highest (0: none left)    |
"""

from __future__ import annotations

import numpy as np

from .config import SLOTS
from .deck import FUNCTION_REFILL, FUNCTION_REMOVE, FUNCTION_REVEAL
from .odds import face_fit_counts

DRAW_LOOKAHEAD = 8
TROPHY_LOOKAHEAD = 3


def privileged_size(num_players: int) -> int:
    """Width of :func:`privileged_features` for ``num_players`` seats."""
    return num_players * SLOTS * 2 + DRAW_LOOKAHEAD * 6 + TROPHY_LOOKAHEAD


def privileged_features(core, seats: np.ndarray) -> np.ndarray:
    """``[B, privileged_size(P)] float32``: the hidden state of each game of ``core`` (a
    ``KeineAhnungCore``) seen from ``seats[b]`` (see the module docstring)."""
    t = core.tables
    B, P, N = core.num_envs, core.num_players, t.num_cards
    seats = np.asarray(seats, np.int64).reshape(B)
    fits_now = face_fit_counts(core.top_count, t) > 0  # [B, 37]; face 36 (prizes) fits nothing

    order = (seats[:, None] + np.arange(P)) % P
    cards = np.take_along_axis(core.layout, order[:, :, None], axis=1).astype(np.int64)  # [B, P, 6]
    present = cards >= 0
    card = np.where(present, cards, 0)
    fit = present & np.take_along_axis(fits_now, t.face[card].reshape(B, -1), axis=1).reshape(B, P, SLOTS)
    prize = present & t.is_prize[card]
    layouts = np.stack([fit, prize], axis=-1).reshape(B, -1)

    index = core.draw_pos[:, None].astype(np.int64) + np.arange(DRAW_LOOKAHEAD)
    drawn = index < core.draw_len[:, None]
    nxt = np.where(drawn, np.take_along_axis(core.draw_cards, np.minimum(index, N - 1), axis=1), 0).astype(np.int64)
    function = t.function[nxt]
    draws = np.stack([drawn,
                      drawn & np.take_along_axis(fits_now, t.face[nxt].astype(np.int64), axis=1),
                      drawn & t.is_prize[nxt],
                      drawn & (function == FUNCTION_REVEAL),
                      drawn & (function == FUNCTION_REMOVE),
                      drawn & (function == FUNCTION_REFILL)], axis=-1).reshape(B, -1)

    T = core.trophy_order.shape[1]
    tindex = core.trophy_pos[:, None].astype(np.int64) + np.arange(TROPHY_LOOKAHEAD)
    left = tindex < T
    top = max(1.0, float(np.max(t.trophies)))
    values = np.where(left, np.take_along_axis(core.trophy_order, np.minimum(tindex, T - 1), axis=1), 0) / top
    return np.concatenate([layouts, draws, values], axis=1).astype(np.float32)
