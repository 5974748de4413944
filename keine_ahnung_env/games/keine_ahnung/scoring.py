"""End-of-game scoring: winners and rewards from final scores.

Score = trophy points + consolation-prize points. The highest score wins; a tie goes to the player
with more trophies and prizes in total; a remaining tie shares the win.

Reward modes (``reward=`` option):

| mode    | reward of seat p at the end of a terminated game                         | sum  |
|---------|---------------------------------------------------------------------------|------|
| "win"   | winners share +1, the others share -1 (0 for all when everybody ties)    | 0    |
| "score" | p's final score                                                           | >= 0 |
| "rank"  | (players p beats - players beating p) / (players - 1), in [-1, 1]         | 0    |

Every other step, and a truncated game's last step, rewards 0.
"""

from __future__ import annotations

import numpy as np


def standings_key(scores: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """One comparable number per seat: score first, then trophies+prizes held. Shape [B, P]."""
    return scores.astype(np.int64) * 1000 + counts.astype(np.int64)


def winners(scores: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Boolean [B, P]: the seats that share the win."""
    key = standings_key(scores, counts)
    return key == key.max(axis=-1, keepdims=True)


def win_shares(scores: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Float [B, P]: each seat's share of the win (1 / number of winners for a winner, else 0)."""
    win = winners(scores, counts)
    return win / win.sum(axis=-1, keepdims=True)


def final_rewards(scores: np.ndarray, counts: np.ndarray, mode: str) -> np.ndarray:
    """Rewards [B, P] float32 of finished games with scores and counts [B, P]."""
    scores = np.asarray(scores)
    counts = np.asarray(counts)
    num_players = scores.shape[-1]
    if mode == "score":
        return scores.astype(np.float32)
    key = standings_key(scores, counts)
    if mode == "win":
        win = key == key.max(axis=-1, keepdims=True)
        n_win = win.sum(-1, keepdims=True)
        n_lose = num_players - n_win
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.where(win, 1.0 / n_win, -1.0 / np.maximum(n_lose, 1))
        out = np.where(n_lose == 0, 0.0, out)
        return out.astype(np.float32)
    if mode == "rank":
        beats = (key[..., :, None] > key[..., None, :]).sum(-1)
        beaten = (key[..., :, None] < key[..., None, :]).sum(-1)
        return ((beats - beaten) / (num_players - 1)).astype(np.float32)
    raise ValueError(f"reward={mode!r}; allowed: 'win', 'score', 'rank'")
