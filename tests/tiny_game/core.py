"""The batched core of tiny_v0 (the ``BatchedCore`` protocol of ``keine_ahnung_env.game_spec``), in NumPy:
B games as arrays, stepped together; game i is reproducible from ``(seed, i)``."""

from __future__ import annotations

import numpy as np

from .actions import ACTION_NAMES
from .deck import CARDS, HAND


class TinyCore:
    """B games as arrays (the BatchedCore protocol); ``hands`` [B, P, HAND] and ``table`` [B, P] hold
    card values (0: none), ``stock`` [B, CARDS - P * HAND] the cards nobody sees."""

    def __init__(self, num_envs: int, num_players: int, rounds: int, seed: int | None = None):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs={num_envs!r}; allowed: a positive integer")
        B, P = self.num_envs, self.num_players = int(num_envs), num_players
        self.hands, self.table = np.zeros((B, P, HAND), np.int64), np.zeros((B, P), np.int64)
        self.stock, self.points = np.zeros((B, CARDS - P * HAND), np.int64), np.zeros((B, P), np.int64)
        self.round, self.acted, self.current, self.turn = (np.zeros(B, np.int64) for _ in range(4))
        self.terminated, self.truncated = np.zeros(B, bool), np.zeros(B, bool)  # never truncated: 2-6 moves
        self.rounds, self.rewards, self.rngs = rounds, np.zeros((B, P), np.float32), []
        self.seed(seed)
        self.reset_games(np.arange(B))

    @classmethod
    def gather(cls, parts) -> "TinyCore":
        """A new core whose rows are copies of the listed rows of ``parts`` (``(core, rows)`` pairs, in
        order; repeats allowed), each with its game's state and its own copy of the game's generator."""
        import copy

        picks = [(core, np.asarray(rows, np.intp).reshape(-1)) for core, rows in parts]
        first = picks[0][0]
        out = cls(sum(r.size for _, r in picks), first.num_players, first.rounds, seed=0)
        for name in ("hands", "table", "stock", "points", "round", "acted", "current", "turn", "terminated",
                     "truncated", "rewards"):
            setattr(out, name, np.concatenate([getattr(core, name)[r] for core, r in picks]))
        out.rngs = [copy.deepcopy(core.rngs[i]) for core, r in picks for i in r.tolist()]
        return out

    scores = property(lambda self: self.points)
    done = property(lambda self: self.terminated | self.truncated)

    @property
    def legal_mask(self) -> np.ndarray:  # PLAY_k while hand slot k holds a card; PASS always; nothing once over
        holding = self.hands[np.arange(self.num_envs), self.current] > 0
        return np.concatenate([holding, np.ones((self.num_envs, 1), bool)], axis=1) & ~self.done[:, None]

    def seed(self, seed, indices=None, game_ids=None) -> None:
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
            raise ValueError(f"seed={seed!r}; allowed: None or a non-negative integer")
        indices = range(self.num_envs) if indices is None else [int(i) for i in indices]
        ids = indices if game_ids is None else [int(i) for i in game_ids]
        if len(ids) != len(indices):
            raise ValueError(f"game_ids has {len(ids)} entries for {len(indices)} rows; allowed: one per row")
        root = np.random.SeedSequence(seed)  # game i's stream is (seed, i), whatever the batch size
        rngs = [np.random.default_rng(np.random.SeedSequence(root.entropy, spawn_key=(i,))) for i in ids]
        self.rngs = self.rngs or rngs
        for i, rng in zip(indices, rngs):
            self.rngs[i] = rng

    def reset_games(self, indices) -> None:
        rows = np.asarray(indices, np.intp).reshape(-1)
        for i in rows.tolist():
            deal = self.rngs[i].permutation(CARDS) + 1
            self.hands[i], self.stock[i] = deal[: self.hands[i].size].reshape(-1, HAND), deal[self.hands[i].size:]
        for array in (self.table, self.points, self.round, self.acted, self.current, self.turn, self.terminated,
                      self.rewards):
            array[rows] = 0

    def step(self, actions, active=None) -> None:
        B, A, P = self.num_envs, len(ACTION_NAMES), self.num_players
        a = np.asarray(actions)
        if np.shape(active) not in ((), (B,)) or a.shape != (B,):
            raise ValueError(f"actions and active must have shape ({B},); got {a.shape} and {np.shape(active)}")
        if a.dtype.kind not in "iu":
            raise ValueError(f"actions must be integers in 0..{A - 1}; got dtype {a.dtype}")
        if self.done.all():
            raise ValueError("every game is over; call reset() before stepping again")
        live = ~self.done & (True if active is None else np.asarray(active, bool))
        inside = (a >= 0) & (a < A)
        legal = inside & self.legal_mask[np.arange(B), np.where(inside, a, 0).astype(np.intp)]
        for b in np.flatnonzero(live & ~legal)[:1].tolist():
            what = "is out of range" if not inside[b] else f"({ACTION_NAMES[a[b]]}) is illegal"
            raise ValueError(f"illegal action {a[b]} {what} for game {b}; allowed: 0..{A - 1}, "
                             f"legal there: {np.flatnonzero(self.legal_mask[b]).tolist()}")
        self.rewards.fill(0.0)
        g = np.flatnonzero(live)
        seat, act = self.current[g], a[g].astype(np.intp)
        gp, sp, slot = g[act < HAND], seat[act < HAND], act[act < HAND]
        self.table[gp, sp], self.hands[gp, sp, slot] = self.hands[gp, sp, slot], 0
        self.acted[g], self.turn[g] = self.acted[g] + 1, self.turn[g] + 1
        self.current[g] = (seat + 1) % P
        end = g[self.acted[g] == P]  # the round is complete: the high card scores
        best, top = self.table[end].argmax(axis=1), self.table[end].max(axis=1)
        self.points[end[top > 0], best[top > 0]] += 1
        self.table[end], self.acted[end], self.round[end] = 0, 0, self.round[end] + 1
        self.current[end] = self.round[end] % P
        over = end[self.round[end] == self.rounds]
        self.terminated[over] = True
        win = self.points[over] == self.points[over].max(axis=1, keepdims=True)
        n = win.sum(axis=1, keepdims=True)
        self.rewards[over] = np.where(n == P, 0.0, np.where(win, 1.0 / n, -1.0 / np.maximum(P - n, 1)))

    def observe(self, seats, games=None) -> np.ndarray:
        """Relative to the observer (0 = you): your hand [HAND], then per seat the card it played this
        round, its points, its cards in hand and whether it is to act [4 x P], then the round [1]."""
        g = np.arange(self.num_envs) if games is None else np.asarray(games, np.intp).reshape(-1)
        s = np.broadcast_to(np.asarray(seats, np.intp), g.shape)
        if ((s < 0) | (s >= self.num_players)).any():
            raise ValueError(f"seat={seats!r}; allowed: seats 0..{self.num_players - 1}")
        rel, rows = (s[:, None] + np.arange(self.num_players)) % self.num_players, g[:, None]
        parts = [self.hands[g, s], self.table[rows, rel], self.points[rows, rel], (self.hands[rows, rel] > 0).sum(2),
                 (rel == self.current[rows]) & ~self.done[rows], self.round[g, None]]
        return np.concatenate(parts, axis=1).astype(np.float32)
