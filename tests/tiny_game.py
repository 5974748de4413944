"""tiny_v0, "hidden high card", defined only in the tests: proof that a game needs nothing but the door
(a ``BatchedCore``, a ``GameSpec``, ``register_game``, ``make_entry_points``; issue 13). Cards 1-8; each of
2-3 players gets 2 face-down cards only its owner sees, the rest stay face down in the stock. In each of
``rounds`` rounds (default 2; round r opens at seat r % P) every seat in turn plays a card face up or
passes; the round's highest card scores a point. The most points win: winners share +1, the others -1.
"""

from __future__ import annotations

import gymnasium
import numpy as np
import pettingzoo

from keine_ahnung_env import registry
from keine_ahnung_env.entry_points import gymnasium_solo_id, make_entry_points, register_entry_points
from keine_ahnung_env.game_spec import AgentInfo, EpisodeStats, GameSpec, StatColumn

NAME, CARDS, HAND = "tiny_v0", 8, 2
PASS = HAND  # actions: PLAY_0 .. PLAY_{HAND-1} (the card in that hand slot), then PASS
ACTION_NAMES = tuple(f"PLAY_{k}" for k in range(HAND)) + ("PASS",)


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


def observation_string(obs) -> str:
    obs = np.asarray(obs).astype(int)
    P = (obs.size - HAND - 1) // 4
    hand, table, points, held, acting, rnd = np.split(obs, np.cumsum([HAND, P, P, P, P]))
    return "\n".join([f"round {rnd[0] + 1}; your hand: {' '.join(map(str, hand[hand > 0])) or '-'}"] + [
        f"{'you' if k == 0 else f'seat +{k}'}: played {table[k] or '-'}, {held[k]} in hand, {points[k]} points"
        + (" (to act)" if acting[k] else "") for k in range(P)])


def render(core: TinyCore, b: int, reveal_all: bool) -> str:
    head = "game over" if core.done[b] else f"round {core.round[b] + 1}/{core.rounds}, seat {core.current[b]} to act"
    return "\n".join([f"tiny_v0 hidden high card: {head}"] + [
        f"seat {p}: hand [{' '.join(str(c) if reveal_all else '??' for c in core.hands[b, p] if c) or '-'}], "
        f"played {core.table[b, p] or '-'}, {core.points[b, p]} points" for p in range(core.num_players)])


class HighCardAgent:
    """The heuristic: plays its highest card when it beats every card on the table, else passes."""

    name = "high_card"

    def __init__(self, seed: int | None = None, num_players: int | None = None, rules: dict | None = None):
        pass  # deterministic: nothing to seed

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        obs = np.asarray(observation)
        hand, table = obs[:, :HAND], obs[:, HAND:HAND + (obs.shape[1] - HAND - 1) // 4]
        slot = hand.argmax(axis=1)
        beats = (hand.max(axis=1) > table.max(axis=1)) & np.asarray(action_mask, bool)[np.arange(len(obs)), slot]
        return np.where(beats, slot, PASS).astype(np.int64)


EPISODE_STATS = EpisodeStats(  # passes of each seat, and its points at the end
    counters=("passes",), finals=("points",), final=lambda core: core.points[:, :, None].copy(),
    before_step=lambda core, actions, active: (np.asarray(active, bool) & ~core.done & (np.asarray(actions) == PASS)
                                               )[:, None] & (np.arange(core.num_players) == core.current[:, None]),
    after_step=lambda core, passed: passed[:, :, None].astype(np.int64),
    columns=(StatColumn("passes_per_game", "pass/g", "passes"), StatColumn("mean_points", "pts", "points")))


def make_spec(num_players: int, **rules) -> GameSpec:
    """The spec of a variant; the one rules option is ``rounds`` (1-2)."""
    if set(rules) - {"rounds"}:
        raise ValueError(f"unknown rules option(s) {sorted(set(rules) - {'rounds'})}; allowed: rounds")
    rounds, P = rules.get("rounds", HAND), num_players
    if isinstance(rounds, bool) or not isinstance(rounds, int) or not 1 <= rounds <= HAND:
        raise ValueError(f"rounds={rounds!r}; allowed: an integer 1-{HAND}")
    high = np.array([CARDS] * (HAND + P) + [rounds] * P + [HAND] * P + [1] * P + [rounds], np.float32)
    return GameSpec(
        name=NAME, title=ENTRY.title, num_players=P, min_players=2, max_players=3, num_actions=len(ACTION_NAMES),
        action_names=ACTION_NAMES, observation_high=high, make_core=lambda n, seed: TinyCore(n, P, rounds, seed),
        standings=lambda core: core.points, render=render, observation_string=observation_string,
        rules={"rounds": rounds}, episode_stats=EPISODE_STATS,
        agents={"high_card": AgentInfo(HighCardAgent, description="plays its best card when it beats the table")})


ENTRY = registry.GameEntry(name=NAME, make_spec=make_spec, min_players=2, max_players=3, default_players=2,
                           title="Hidden high card (a test game)", module=__name__, status="test")


def register() -> None:
    """Registers tiny_v0 and builds this module's entry points (``env``, ``raw_env``, ``solo_env``, ...)."""
    registry.register_game(ENTRY)
    made = make_entry_points(NAME, __name__)
    globals().update(zip(("env", "raw_env", "solo_env", "sb3_vec_env", "vector_env", "game_spec"), made))
    register_entry_points(NAME, __name__)


def unregister() -> None:
    """Removes tiny_v0 from the game registry and from Gymnasium's and PettingZoo's."""
    registry.unregister_game(NAME)
    gymnasium.registry.pop(gymnasium_solo_id(NAME), None)
    aec_registry = getattr(pettingzoo, "aec_registry", {})  # its keys are normalised ids (tiny-v0)
    for key in [key for key, spec in aec_registry.items() if spec.entry_point == f"{__name__}:env"]:
        del aec_registry[key]