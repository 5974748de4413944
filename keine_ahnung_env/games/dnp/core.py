"""The compiled rules engine of dnp: B games as NumPy arrays, stepped by Numba kernels (``kernels.py``).

A game's whole state is one row of the arrays below; :meth:`DnpCore.step` applies one decision per
game (a card selection or a move A-D of the seat to act) and resolves everything automatic: discards
at the start of a move, beaten sets returning, finishers, the end of a round and the next deal, the
end of the game. The rules are written once in ``kernels.py`` and mirror ``reference.py``, the
readable engine this core is tested against; ``RULES.md`` states them and every choice made where
the rulebook is silent.

State arrays (B games, P players, N cards of the deck (those of the groups removed at this player
count lie LOC_OUT for the whole game), T = P * areas table positions, A actions;
areas = 2 with two players, else 1; position ``seat * areas + area``):

| name          | shape     | dtype   | meaning                                                          |
|---------------|-----------|---------|------------------------------------------------------------------|
| card_loc      | [B, N]    | int8    | LOC_HAND, LOC_TABLE, LOC_DISCARD or LOC_OUT (not in this game)   |
| card_where    | [B, N]    | int8    | the holding seat (hand) or the position (table); 0 if discarded  |
| card_rot      | [B, N]    | int8    | 1: the card lies rotated (its second value is active), 0 upright |
| card_public   | [B, N]    | bool    | a hand card the whole table knows (taken back or picked up)      |
| card_selected | [B, N]    | bool    | in the mover's selection in progress                             |
| deal_order    | [B, N]    | int16   | the round's deal: the k-th card went to seat ``k % P`` (-1 pads) |
| set_size      | [B, T]    | int8    | cards in the set at each position (0: none); kept with the cards |
| set_value     | [B, T]    | int8    | that set's value (0: none)                                       |
| hand_count    | [B, P]    | int8    | cards in each hand (kept with the cards)                         |
| sel_count     | [B]       | int8    | cards selected so far (0: no selection in progress)              |
| sel_value     | [B]       | int8    | their active value                                               |
| points        | [B, P]    | int16   | points (3-5 players) or round wins (2 players)                   |
| out           | [B, P]    | bool    | the first finisher of the round (takes no more turns)            |
| finishers     | [B]       | int8    | players who emptied their hand this round                        |
| current       | [B]       | int8    | seat to act                                                      |
| area          | [B]       | int8    | area of the current move (two players; else 0)                   |
| turn          | [B]       | int32   | moves (A-D) played in this game                                  |
| rounds        | [B]       | int16   | rounds completed                                                 |
| terminated    | [B]       | bool    | somebody reached the target                                      |
| truncated     | [B]       | bool    | ``max_turns`` moves were played first                            |
| rewards       | [B, P]    | float32 | rewards of the last step                                         |
| legal_mask    | [B, A]    | bool    | legal actions of the seat to act (all False when over)           |
| rng_state     | [B, 4]    | uint64  | the game's xoshiro256** stream (``rng.py``)                      |

``set_size``, ``set_value`` and ``hand_count`` are derived from the card arrays and kept in step with
them by every kernel (code that edits the cards in place must update them; :meth:`DnpCore.load` does).

Randomness: game b draws only from ``rng_state[b]`` (each round's deal and the cards' orientations),
seeded from ``(seed, game id)``, so game i's course is the same whatever the batch size.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from . import kernels as K
from .actions import ActionLayout
from .config import Rules
from .kernels import LOC_DISCARD, LOC_HAND, LOC_OUT, LOC_TABLE  # noqa: F401 (re-exported)
from .observation import ObservationLayout

from ...rng import game_rng_states

PARALLEL_MIN_GAMES = 64
_REWARD_CODES = {"win": K.REWARD_WIN, "score": K.REWARD_SCORE, "rank": K.REWARD_RANK}


def _consts(rules: Rules, actions: ActionLayout, layout: ObservationLayout) -> K.Consts:
    t = rules.tables()
    off = {name: layout.slice(name).start for name, _ in layout.sections}
    return K.Consts(
        values=np.ascontiguousarray(t.values), in_play=np.ascontiguousarray(t.in_play), star=int(t.star),
        num_players=int(rules.num_players),
        areas=int(rules.areas), target=int(rules.target), max_turns=int(rules.max_turns),
        reward_mode=_REWARD_CODES[rules.reward], finisher_closed=rules.finisher_set == "closed",
        num_targets=actions.used_targets, play=actions.play, add_base=actions.add_base,
        take_base=actions.take_base, turn_action=actions.turn, obs_size=layout.size, card_width=layout.card_width,
        off_acting=off["acting"], off_area=off["area"], off_selection=off["selection"], off_players=off["players"],
        off_table=off["table"], off_hand_values=off["hand_values"], off_cards=off["cards"])


class DnpCore:
    """B dnp games as arrays (the module docstring documents every field)."""

    def __init__(self, num_envs: int, rules: Rules, seed: int | None = None):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs={num_envs!r}; allowed: a positive integer")
        self._allocate(int(num_envs), rules)
        self.seed(seed)
        self.reset_games(np.arange(self.num_envs))

    def _allocate(self, B: int, rules: Rules) -> None:
        self.rules = rules
        self.tables = rules.tables()
        self.num_envs = B
        self.num_players = P = rules.num_players
        N, T = self.tables.num_cards, P * rules.areas
        self.actions = ActionLayout(N, P)
        self.obs_layout = ObservationLayout.make(P, N)
        self._k = _consts(rules, self.actions, self.obs_layout)
        self._all_active = np.ones(B, bool)
        self.card_loc = np.zeros((B, N), np.int8)
        self.card_where = np.zeros((B, N), np.int8)
        self.card_rot = np.zeros((B, N), np.int8)
        self.card_public = np.zeros((B, N), bool)
        self.card_selected = np.zeros((B, N), bool)
        self.deal_order = np.zeros((B, N), np.int16)
        self.set_size = np.zeros((B, T), np.int8)
        self.set_value = np.zeros((B, T), np.int8)
        self.hand_count = np.zeros((B, P), np.int8)
        self.sel_count = np.zeros(B, np.int8)
        self.sel_value = np.zeros(B, np.int8)
        self.points = np.zeros((B, P), np.int16)
        self.out = np.zeros((B, P), bool)
        self.finishers = np.zeros(B, np.int8)
        self.current = np.zeros(B, np.int8)
        self.area = np.zeros(B, np.int8)
        self.turn = np.zeros(B, np.int32)
        self.rounds = np.zeros(B, np.int16)
        self.terminated = np.zeros(B, bool)
        self.truncated = np.zeros(B, bool)
        self.rewards = np.zeros((B, P), np.float32)
        self.legal_mask = np.zeros((B, self.actions.num_actions), bool)
        self.rng_state = np.zeros((B, 4), np.uint64)

    def _state(self) -> K.State:
        d = self.__dict__
        return K.State(*[d[name] for name in K.STATE_FIELDS])

    # ------------------------------------------------------------ seeding and dealing

    def seed(self, seed: int | None, indices: Sequence[int] | None = None,
             game_ids: Sequence[int] | None = None) -> None:
        """Row ``indices[k]`` takes the stream of game ``game_ids[k]`` (default ``indices[k]``) of a batch
        seeded with ``seed``; its next ``reset_games`` deals that game."""
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
            raise ValueError(f"seed={seed!r}; allowed: None or a non-negative integer")
        indices = list(range(self.num_envs)) if indices is None else [int(i) for i in indices]
        ids = indices if game_ids is None else [int(i) for i in game_ids]
        if len(ids) != len(indices):
            raise ValueError(f"game_ids has {len(ids)} entries for {len(indices)} rows; allowed: one per row")
        if any(not -self.num_envs <= i < self.num_envs for i in indices):
            raise ValueError(f"indices must be in 0..{self.num_envs - 1}")
        self.rng_state[indices] = game_rng_states(seed, ids)

    def reset_games(self, games) -> None:
        """Deals new games in the rows ``games`` (each from its own stream)."""
        g = np.asarray(games, np.intp).reshape(-1)
        if g.size == 0:
            return
        if g.min() < 0 or g.max() >= self.num_envs:
            g = np.arange(self.num_envs)[g]
        kernel = K.reset_kernel if g.size >= PARALLEL_MIN_GAMES else K.reset_kernel_seq
        kernel(self._state(), self._k, np.ascontiguousarray(g))

    def load(self, b: int, *, hands, table=None, rotated=(), public=(), discard=(), points=None, out=None,
             current: int = 0, area: int | None = None, finishers: int | None = None) -> None:
        """Puts game ``b`` in an exact position (scripted rulebook examples, tests). Card ids throughout.

        Args:
          hands: per seat, the card ids in hand.
          table: per position (``seat * areas + area``), the card ids of the set there (one value).
          rotated: the cards that lie rotated (second value active); every other card lies upright.
          public: hand cards the table knows.
          discard: discarded cards; every card in play must be in exactly one place.
          points, out: per seat (default zeros, nobody out); ``finishers`` defaults to ``sum(out)``.
          current, area: the seat to move and its area (default: the last area, as at a round's start
            with two players, else 0). No discard happens: the position is the mover's decision.
        """
        P, A = self.num_players, self.rules.areas
        table = table if table is not None else [[] for _ in range(P * A)]
        if len(hands) != P or len(table) != P * A:
            raise ValueError(f"load: {len(hands)} hands and {len(table)} table positions; allowed: {P} and {P * A}")
        placed = [c for h in hands for c in h] + [c for st in table for c in st] + list(discard)
        in_play = np.flatnonzero(self.tables.in_play).tolist()
        if sorted(placed) != in_play:
            raise ValueError(f"load: every card in play ({in_play}) must be placed exactly once")
        self.card_loc[b], self.card_where[b] = LOC_OUT, 0
        self.card_rot[b] = 0
        self.card_rot[b, list(rotated)] = 1
        self.card_public[b], self.card_selected[b] = False, False
        self.hand_count[b], self.set_size[b], self.set_value[b] = 0, 0, 0
        for seat, hand in enumerate(hands):
            for c in hand:
                self.card_loc[b, c], self.card_where[b, c] = LOC_HAND, seat
            self.hand_count[b, seat] = len(hand)
        for pos, cards in enumerate(table):
            values = {int(self.tables.values[c, self.card_rot[b, c]]) for c in cards}
            if len(values) > 1:
                raise ValueError(f"load: the set at position {pos} mixes values {sorted(values)}")
            for c in cards:
                self.card_loc[b, c], self.card_where[b, c] = LOC_TABLE, pos
            self.set_size[b, pos] = len(cards)
            self.set_value[b, pos] = values.pop() if cards else 0
        for c in discard:
            self.card_loc[b, c], self.card_where[b, c] = LOC_DISCARD, 0
        self.card_public[b, list(public)] = True
        self.points[b] = 0 if points is None else points
        self.out[b] = False if out is None else out
        self.finishers[b] = int(self.out[b].sum()) if finishers is None else finishers
        self.current[b] = current
        self.area[b] = (A - 1) if area is None else area
        self.sel_count[b] = self.sel_value[b] = 0
        self.turn[b], self.rounds[b] = 0, 0
        self.terminated[b] = self.truncated[b] = False
        self.rewards[b] = 0
        K.mask_kernel(self._state(), self._k, np.array([b], np.intp))

    # --------------------------------------------------------------- step

    def check_actions(self, actions, active: np.ndarray | None = None) -> np.ndarray:
        """Validates one action per game; returns them as intp. Raises ValueError, changing nothing."""
        arr = np.asarray(actions)
        A = self.actions.num_actions
        if arr.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), one per game; got shape {arr.shape}")
        if arr.dtype.kind not in "iu":
            raise ValueError(f"actions must be integers in 0..{A - 1}; got dtype {arr.dtype}")
        arr = arr.astype(np.intp)
        act = self._all_active if active is None else np.asarray(active, bool)
        live, first_out, first_bad, bad = K.check_actions_kernel(arr, act, self.terminated, self.truncated,
                                                                 self.legal_mask)
        if live == 0:
            raise ValueError("every game is over; call reset() (or use autoreset) before stepping again")
        if first_out >= 0:
            b = first_out
            raise ValueError(f"action {int(arr[b])} for game {b} is out of range; allowed: 0..{A - 1}; "
                             f"legal there: {np.flatnonzero(self.legal_mask[b]).tolist()}")
        if first_bad >= 0:
            b = first_bad
            names = self.actions.names()
            raise ValueError(f"illegal action {int(arr[b])} ({names[arr[b]]}) for game {b} ({bad} illegal in all); "
                             f"legal there: {np.flatnonzero(self.legal_mask[b]).tolist()}")
        return arr

    def step(self, actions, active: np.ndarray | None = None) -> None:
        """Applies one action per game (ignored where ``active`` is False and for finished games) and
        resolves each game to its next decision. Bad input raises ValueError and changes nothing."""
        if active is not None:
            active = np.asarray(active, bool)
            if active.shape != (self.num_envs,):
                raise ValueError(f"active must have shape ({self.num_envs},); got {active.shape}")
        actions = self.check_actions(actions, active)
        kernel = K.step_kernel if self.num_envs >= PARALLEL_MIN_GAMES else K.step_kernel_seq
        kernel(self._state(), self._k, actions, self._all_active if active is None else active)

    # ------------------------------------------------------------ queries

    @property
    def scores(self) -> np.ndarray:
        """[B, P] points (3-5 players) or round wins (2 players)."""
        return self.points

    @property
    def done(self) -> np.ndarray:
        return self.terminated | self.truncated

    def observe(self, seats, games=None) -> np.ndarray:
        """[B, O] float32 (or ``[len(games), O]``): each game as ``seats`` sees it (``observation.py``)."""
        P = self.num_players
        if games is None:
            g = np.arange(self.num_envs)
        else:
            g = np.asarray(games, np.intp).reshape(-1)
            if g.size and (g.min() < -self.num_envs or g.max() >= self.num_envs):
                raise ValueError(f"games must be in 0..{self.num_envs - 1}")
            g = g % self.num_envs
        n = g.size
        seats = np.asarray(seats)
        if seats.dtype.kind not in "iu":
            raise ValueError(f"seat must be integers in 0..{P - 1}; got dtype {seats.dtype}")
        seats = np.ascontiguousarray(np.broadcast_to(seats.astype(np.intp), (n,)))
        if seats.size and (seats.min() < 0 or seats.max() >= P):
            raise ValueError(f"seat must be in 0..{P - 1}; got {np.unique(seats).tolist()}")
        obs = np.empty((n, self._k.obs_size), np.float32)
        kernel = K.observe_kernel if n >= PARALLEL_MIN_GAMES else K.observe_kernel_seq
        kernel(self._state(), self._k, np.ascontiguousarray(g), seats, obs)
        return obs

    def hand(self, b: int, seat: int) -> list[int]:
        """The card ids in ``seat``'s hand in game ``b``."""
        return np.flatnonzero((self.card_loc[b] == LOC_HAND) & (self.card_where[b] == seat)).tolist()

    def active_values(self, b: int) -> np.ndarray:
        """[N] the active value of every card of game ``b``."""
        return self.tables.values[np.arange(self.tables.num_cards), self.card_rot[b]].astype(np.int64)

    def snapshot(self, b: int) -> dict:
        """Game b's state in the canonical form of ``ReferenceGame.snapshot``."""
        P, T = self.num_players, self.num_players * self.rules.areas
        loc, where = self.card_loc[b], self.card_where[b]
        return {
            "hands": [self.hand(b, p) for p in range(P)],
            "table": [np.flatnonzero((loc == LOC_TABLE) & (where == pos)).tolist() for pos in range(T)],
            "discard": np.flatnonzero(loc == LOC_DISCARD).tolist(),
            "rot": self.card_rot[b].tolist(),
            "public": np.flatnonzero(self.card_public[b]).tolist(),
            "selection": np.flatnonzero(self.card_selected[b]).tolist(),
            "points": self.points[b].tolist(),
            "out": self.out[b].tolist(),
            "current": int(self.current[b]),
            "area": int(self.area[b]),
            "turn": int(self.turn[b]),
            "rounds": int(self.rounds[b]),
            "terminated": bool(self.terminated[b]),
            "truncated": bool(self.truncated[b]),
        }
