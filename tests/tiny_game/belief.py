"""What a seat of tiny_v0 may know (``GameHooks.belief``): a state sampler from one seat's observation.

The observation shows the seat's own hand, the cards played this round, the points and how many cards
each seat holds, never another hand or the stock, nor where the observer sits at the table. A sampled
state deals the cards the seat has not seen (neither in its hand nor on the table) at random to the
other hands (as many as each holds) and the rest to the stock, and seats the observer at random among
the seats consistent with the table: every seat showing a played card must have acted this round,
before the observer. Every such state is equally likely (passes, which show nothing, are not read
into it). The game has no chance event after the deal, so the sampled games play on without one.
"""

from __future__ import annotations

import numpy as np

from .core import TinyCore
from .deck import CARDS, HAND


class TinyBelief:
    """The belief hooks of one tiny_v0 variant (``GameSpec.belief``)."""

    def __init__(self, num_players: int, rounds: int):
        self.num_players, self.rounds = num_players, rounds
        self.observation_size = HAND + 4 * num_players + 1

    def _read(self, observation: np.ndarray):
        obs = np.asarray(observation).reshape(-1)
        if obs.size != self.observation_size:
            raise ValueError(f"observation of width {obs.size}; tiny_v0 with {self.num_players} players has "
                             f"{self.observation_size}")
        P = self.num_players
        hand, table, points, held, acting, rnd = np.split(obs.astype(np.int64), np.cumsum([HAND, P, P, P, P]))
        if not acting[0] or int(rnd[0]) >= self.rounds:
            raise ValueError("the observation is not one of a seat to act")
        return hand, table, points, held, int(rnd[0])

    def seatings(self, observation: np.ndarray) -> list[int]:
        """The observer's possible absolute seats: those where every seat showing a card acted before it."""
        _, table, _, _, rnd = self._read(observation)
        P = self.num_players
        able = []
        for seat in range(P):
            acted = (seat - rnd) % P  # the seats before the observer this round: relative P - acted .. P - 1
            if all(k >= P - acted for k in np.flatnonzero(table > 0) if k > 0) and table[0] == 0:
                able.append(seat)
        if not able:
            raise ValueError("no seating agrees with the observation")
        return able

    def sample_states(self, observation: np.ndarray, count: int, rng: np.random.Generator) -> TinyCore:
        """``count`` complete states drawn uniformly from those the observation allows (module docstring)."""
        hand, table, points, held, rnd = self._read(observation)
        P = self.num_players
        seats = self.seatings(observation)
        core = TinyCore(count, P, self.rounds, seed=0)
        unseen = np.setdiff1d(np.arange(1, CARDS + 1), np.concatenate([hand, table]))
        for i in range(count):
            seat = seats[int(rng.integers(len(seats)))]
            rel = (seat + np.arange(P)) % P  # absolute seat of relative seat k
            cards = rng.permutation(unseen)
            core.hands[i, seat] = hand
            at = 0
            for k in range(1, P):
                core.hands[i, rel[k]] = 0
                core.hands[i, rel[k], : held[k]] = cards[at: at + held[k]]
                at += held[k]
            stock = cards[at: at + core.stock.shape[1]]
            core.stock[i] = 0
            core.stock[i, : stock.size] = stock
            core.table[i, rel], core.points[i, rel] = table, points
            core.round[i], core.acted[i], core.current[i] = rnd, (seat - rnd) % P, seat
            core.turn[i] = rnd * P + core.acted[i]
            core.rngs[i] = np.random.default_rng(rng.integers(2**63))
        return core

    def event_probabilities(self, observation: np.ndarray) -> dict[str, float]:
        """``"highest_card"``: the chance that the seat's best card is higher than every card it has not seen."""
        hand, table, _, _, _ = self._read(observation)
        unseen = np.setdiff1d(np.arange(1, CARDS + 1), np.concatenate([hand, table]))
        return {"highest_card": float(hand.max() > (unseen.max() if unseen.size else 0))}
