"""The readable pure-Python rules of dnp: one game, plain lists. The compiled core (``kernels.py``)
mirrors this engine step for step; ``tests/test_dnp_core.py`` plays both side by side on many random
games and compares every observation, mask, reward and score. Both draw from the same random stream
(``rng.py``'s xoshiro256**), in the same order:

* a round's deal: ``shuffle`` of the ids of the cards in play, ascending (the k-th card of the
  shuffled order goes to seat ``k % P``), then one ``bounded(2)`` per card in play in ascending id
  order: 1 = the card lands rotated (its second value active), 0 = upright.

Positions on the table: ``seat * areas + area`` (areas = 2 with two players, else 1).
"""

from __future__ import annotations

from .actions import ActionLayout
from .config import Rules

HAND, TABLE, DISCARD, OUT = 0, 1, 2, 3


class ReferenceGame:
    """One dnp game (``rng``: a ``GameRandom``)."""

    def __init__(self, rules: Rules, rng):
        self.rules, self.rng = rules, rng
        self.tables = rules.tables()
        self.N, self.P, self.areas = self.tables.num_cards, rules.num_players, rules.areas
        self.T = self.P * self.areas
        self.layout = ActionLayout(self.N, self.P)
        self.points = [0] * self.P
        self.turn = 0
        self.rounds = 0
        self.terminated = self.truncated = False
        self.rewards = [0.0] * self.P
        self.deal()

    # ----------------------------------------------------------------- helpers

    def active(self, card: int) -> int:
        return int(self.tables.values[card, self.rot[card]])

    def hand(self, seat: int) -> list[int]:
        return [c for c in range(self.N) if self.loc[c] == (HAND, seat)]

    def set_at(self, pos: int) -> list[int]:
        return [c for c in range(self.N) if self.loc[c] == (TABLE, pos)]

    def value_at(self, pos: int) -> int:
        cards = self.set_at(pos)
        return self.active(cards[0]) if cards else 0

    def owner(self, pos: int) -> int:
        return pos // self.areas

    @property
    def done(self) -> bool:
        return self.terminated or self.truncated

    # ----------------------------------------------------------------- round flow

    def deal(self) -> None:
        in_play = self.tables.in_play
        order = [c for c in range(self.N) if in_play[c]]
        self.rng.shuffle(order)
        self.loc = [(OUT,)] * self.N
        for k, card in enumerate(order):
            self.loc[card] = (HAND, k % self.P)
        self.rot = [self.rng.bounded(2) if in_play[c] else 0 for c in range(self.N)]
        self.public = [False] * self.N
        self.selection: list[int] = []
        self.out = [False] * self.P
        self.finishers = 0
        self.current = self.loc[self.tables.star][1]
        self.area = self.areas - 1  # two players: the star's holder moves for area 2 only
        self.begin_move()

    def discard(self, pos: int) -> None:
        for c in self.set_at(pos):
            self.loc[c] = (DISCARD,)
            self.public[c] = False

    def begin_move(self) -> None:
        """Step 1 of a move: the set in the mover's current area is discarded."""
        self.discard(self.current * self.areas + self.area)

    def to_hand(self, cards: list[int], seat: int) -> None:
        """Cards from the table into a hand: turned 180 degrees, known to everybody."""
        for c in cards:
            self.loc[c] = (HAND, seat)
            self.rot[c] ^= 1
            self.public[c] = True

    def remove_beaten(self, pos: int) -> None:
        """A beaten set goes back to its owner's hand, turned (a finished player's is discarded)."""
        owner = self.owner(pos)
        if self.out[owner]:
            self.discard(pos)
        else:
            self.to_hand(self.set_at(pos), owner)

    def collision(self, size: int, exclude: int) -> int:
        """The position of a set of ``size`` other than ``exclude`` (-1: none)."""
        for pos in range(self.T):
            if pos != exclude and len(self.set_at(pos)) == size:
                return pos
        return -1

    # ----------------------------------------------------------------- legality

    def can_play(self, value: int, size: int) -> bool:
        """A: a set of ``value`` and ``size`` beats every set of its size on the table."""
        return all(value > self.value_at(pos) for pos in range(self.T) if len(self.set_at(pos)) == size)

    def target_open(self, pos: int) -> bool:
        if not self.set_at(pos):
            return False
        return not (self.rules.finisher_set == "closed" and self.out[self.owner(pos)])

    def can_add(self, value: int, pos: int) -> bool:
        """B: one card of ``value`` onto the set at ``pos`` (another player's)."""
        if not self.target_open(pos) or self.value_at(pos) != value:
            return False
        size = len(self.set_at(pos)) + 1
        return all(value > self.value_at(q) for q in range(self.T) if q != pos and len(self.set_at(q)) == size)

    def legal_mask(self) -> list[bool]:
        L = self.layout
        mask = [False] * L.num_actions
        if self.done:
            return mask
        seat = self.current
        hand = self.hand(seat)
        targets = [L.target_position(seat, t) for t in range(L.used_targets)]
        count = {}
        for c in hand:
            count[self.active(c)] = count.get(self.active(c), 0) + 1
        k = len(self.selection)
        if k == 0:
            for c in hand:
                v = self.active(c)
                mask[c] = any(self.can_play(v, m) for m in range(1, count[v] + 1)) \
                    or any(self.can_add(v, pos) for pos in targets)
            for t, pos in enumerate(targets):
                mask[L.take_base + t] = self.target_open(pos)
            mask[L.turn] = True
        else:
            v = self.active(self.selection[0])
            more = any(self.can_play(v, m) for m in range(k + 1, count[v] + 1))
            for c in hand:
                mask[c] = more and c not in self.selection and self.active(c) == v
            mask[L.play] = self.can_play(v, k)
            if k == 1:
                for t, pos in enumerate(targets):
                    mask[L.add_base + t] = self.can_add(v, pos)
        return mask

    # ----------------------------------------------------------------- a decision

    def step(self, action: int) -> None:
        L = self.layout
        if not self.legal_mask()[action]:
            raise ValueError(f"illegal action {action}")
        self.rewards = [0.0] * self.P
        seat = self.current
        if action < self.N:
            self.selection.append(action)
            return
        shed = False
        if action == L.play:
            cards, self.selection = self.selection, []
            pos = seat * self.areas + self.area
            beaten = self.collision(len(cards), pos)
            if beaten >= 0:
                self.remove_beaten(beaten)
            for c in cards:
                self.loc[c], self.public[c] = (TABLE, pos), False
            shed = True
        elif action < L.take_base:
            card, self.selection = self.selection[0], []
            pos = L.target_position(seat, action - L.add_base)
            beaten = self.collision(len(self.set_at(pos)) + 1, pos)
            if beaten >= 0:
                self.remove_beaten(beaten)
            self.loc[card], self.public[card] = (TABLE, pos), False
            shed = True
        elif action < L.turn:
            pos = L.target_position(seat, action - L.take_base)
            self.to_hand(self.set_at(pos), seat)
        else:
            for c in self.hand(seat):
                self.rot[c] ^= 1
        self.turn += 1
        if shed and not self.hand(seat) and self.finish(seat):
            return  # the round ended (the next one is dealt) or the game did
        if self.turn >= self.rules.max_turns:
            self.truncated = True
            return
        self.advance()

    def finish(self, seat: int) -> bool:
        """``seat`` has played its last card. Returns True when the round (or the game) ended here."""
        if self.P == 2:
            self.points[seat] += 1
            round_over = True
        elif self.finishers == 0:
            self.points[seat] += 2
            self.out[seat] = True
            self.finishers = 1
            round_over = False
        else:
            self.points[seat] += 1
            round_over = True
        if self.points[seat] >= self.rules.target:
            self.terminated = True
            self.selection = []
            self.set_rewards()
            return True
        if round_over:
            self.rounds += 1
            if self.turn >= self.rules.max_turns:
                self.truncated = True
                return True
            self.deal()
            return True
        return False

    def advance(self) -> None:
        if self.areas == 2:
            if self.area == 0:
                self.area = 1
            else:
                self.current, self.area = 1 - self.current, 0
        else:
            nxt = (self.current + 1) % self.P
            while self.out[nxt]:
                self.discard(nxt)  # every other player has had a turn: the finisher's set goes
                nxt = (nxt + 1) % self.P
            self.current = nxt
        self.begin_move()

    def set_rewards(self) -> None:
        P, pts = self.P, self.points
        if self.rules.reward == "score":
            self.rewards = [float(x) for x in pts]
            return
        best = max(pts)
        n_win = sum(x == best for x in pts)
        if self.rules.reward == "win":
            self.rewards = [0.0 if n_win == P else (1.0 / n_win if x == best else -1.0 / (P - n_win)) for x in pts]
        else:
            self.rewards = [sum((x > y) - (x < y) for y in pts) / (P - 1) for x in pts]

    # ----------------------------------------------------------------- views

    def observe(self, seat: int) -> list[float]:
        """The observation of ``seat`` (``observation.py`` documents the sections)."""
        from .observation import ObservationLayout

        lay = ObservationLayout.make(self.P, self.N)
        out = [0.0] * lay.size
        o = {name: lay.slice(name).start for name, _ in lay.sections}
        P, A, T = self.P, self.areas, self.T
        if not self.done:
            out[o["acting"] + (self.current - seat) % P] = 1.0
            out[o["area"] + self.area] = 1.0
            if self.current == seat and self.selection:
                out[o["selection"]] = len(self.selection)
                out[o["selection"] + 1] = self.active(self.selection[0])
        for rel in range(P):
            p = (seat + rel) % P
            hand = self.hand(p)
            base = o["players"] + 4 * rel
            out[base] = len(hand)
            out[base + 1] = self.points[p]
            out[base + 2] = float(self.out[p])
            out[base + 3] = sum(self.public[c] for c in hand)
        for rel_pos in range(T):
            pos = ((seat + rel_pos // A) % P) * A + rel_pos % A
            cards = self.set_at(pos)
            out[o["table"] + 2 * rel_pos] = self.value_at(pos)
            out[o["table"] + 2 * rel_pos + 1] = len(cards)
        for c in self.hand(seat):
            out[o["hand_values"] + self.active(c) - 1] += 1
            out[o["hand_values"] + 10 + int(self.tables.values[c, 1 - self.rot[c]]) - 1] += 1
        F = lay.card_width
        for c in range(self.N):
            base = o["cards"] + c * F
            out[base] = self.tables.values[c, 0]
            out[base + 1] = self.tables.values[c, 1]
            where = self.loc[c]
            visible = False
            if where[0] == HAND and where[1] == seat:
                visible = True
                out[base + 4] = 1.0
                if self.current == seat and c in self.selection and not self.done:
                    out[base + 5] = 1.0
                out[base + 6] = float(self.public[c])
            elif where[0] == TABLE:
                visible = True
                pos = where[1]
                rel_pos = ((pos // A - seat) % P) * A + pos % A
                out[base + 7 + rel_pos] = 1.0
            elif where[0] == HAND and self.public[c]:
                visible = True
                out[base + 7 + T + (where[1] - seat) % P - 1] = 1.0
            elif where[0] == DISCARD:
                out[base + 7 + T + P - 1] = 1.0
            elif where[0] == OUT:
                out[base + 7 + T + P] = 1.0
            if visible:
                out[base + 2] = self.active(c)
                out[base + 3] = float(self.rot[c])
        return out

    def snapshot(self) -> dict:
        """The whole rules state in a canonical form (the core's ``snapshot`` gives the same)."""
        return {
            "hands": [self.hand(p) for p in range(self.P)],
            "table": [self.set_at(pos) for pos in range(self.T)],
            "discard": [c for c in range(self.N) if self.loc[c] == (DISCARD,)],
            "rot": list(self.rot),
            "public": [c for c in range(self.N) if self.public[c]],
            "selection": sorted(self.selection),
            "points": list(self.points),
            "out": list(self.out),
            "current": self.current,
            "area": self.area,
            "turn": self.turn,
            "rounds": self.rounds,
            "terminated": self.terminated,
            "truncated": self.truncated,
        }
