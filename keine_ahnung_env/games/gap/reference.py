"""A small, readable pure-Python engine of one gap game: the rules as a person would read them.

It plays exactly as the compiled core (``core.py`` / ``kernels.py``) and draws from the same random
stream (``GameRandom`` of ``keine_ahnung_env/rng.py``: each round's deal is a shuffle of the 66 card ids,
each reshuffle a shuffle of the cards below the tops in ascending id), so the two can be compared step
by step: ``tests/test_gap_core.py`` checks every snapshot, mask, observation, reward and score.
"""

from __future__ import annotations

import numpy as np

from ...rng import GameRandom
from .actions import ACTION_FLIP_BASE, ACTION_HIDE_BASE, ACTION_PASS, NUM_ACTIONS, Phase
from .config import Rules
from .deck import CARD_COLOUR, CARD_NUMBER, CARD_STARS, HAND_SIZE, HIDDEN_PER_PLAYER, NUM_CARDS
from .observation import CARD_FEATURES, ObservationLayout

NUM_COLOURS = 6


def colour(card: int) -> int:
    return int(CARD_COLOUR[card])


def number(card: int) -> int:
    return int(CARD_NUMBER[card])


def gap_width(a: int, b: int) -> int:
    """Whole numbers strictly between the two tops' numbers."""
    return max(abs(number(a) - number(b)) - 1, 0)


def is_gap_card(card: int, a: int, b: int) -> bool:
    """Option A: a colour matching neither top, a number strictly between the tops' numbers."""
    lo, hi = sorted((number(a), number(b)))
    return colour(card) not in (colour(a), colour(b)) and lo < number(card) < hi


def matches(card: int, top: int) -> bool:
    """Option B: same colour or same number as the top."""
    return colour(card) == colour(top) or number(card) == number(top)


class GapReference:
    """One game; ``step(action)`` applies a legal decision and resolves everything automatic."""

    def __init__(self, rules: Rules, rng: GameRandom):
        self.rules = rules
        self.P = rules.num_players
        self.rng = rng
        self.score = [0] * self.P
        self.went_out = [0] * self.P
        self.round = 0
        self.turn = 0
        self.terminated = self.truncated = False
        self.rewards = [0.0] * self.P
        self.deal_round()

    # ------------------------------------------------------------------ dealing and drawing

    def deal_round(self) -> None:
        P = self.P
        deck = list(range(NUM_CARDS))
        self.rng.shuffle(deck)
        self.hands = [deck[p * HAND_SIZE:(p + 1) * HAND_SIZE] for p in range(P)]
        self.hidden = [[] for _ in range(P)]
        self.piles = [[deck[P * HAND_SIZE]], [deck[P * HAND_SIZE + 1]]]  # bottom to top
        self.draw_pile = deck[P * HAND_SIZE + 2:]  # top first
        self.seen: set[int] = set()
        self.pool: dict[int, int] = {}  # card -> pool label of the cards shuffled back (read in hands and the draw pile)
        self.pending = -1
        self.dry_passes = 0
        self.extra_turn = False
        self.dealer = (P - 1 + self.round) % P
        self.current = (self.dealer + 1) % P
        self.phase = Phase.HIDE

    def tops(self) -> tuple[int, int]:
        return self.piles[0][-1], self.piles[1][-1]

    def draw(self) -> int:
        """The top draw card; an empty pile is first rebuilt from the cards below the tops (ascending
        id, shuffled); -1 when there is nothing at all."""
        if not self.draw_pile:
            below = sorted(c for pile in self.piles for c in pile[:-1])
            if not below:
                return -1
            self.rng.shuffle(below)
            # pools that still have a card in a hand keep their order, renumbered 2, 3, ...; the new pile is pool 1
            held = {c: label for c, label in self.pool.items() if any(c in hand for hand in self.hands)}
            renumber = {label: i + 2 for i, label in enumerate(sorted(set(held.values())))}
            self.pool = {c: renumber[label] for c, label in held.items()}
            self.pool.update((c, 1) for c in below)
            self.draw_pile = below
            self.piles = [[pile[-1]] for pile in self.piles]
        return self.draw_pile.pop(0)

    def lay(self, card: int, pile: int) -> None:
        self.piles[pile].append(card)
        self.seen.add(card)

    # ------------------------------------------------------------------ flow

    def begin_turn(self, seat: int, extra: bool) -> None:
        self.current, self.extra_turn = seat, extra
        if (not extra or self.rules.flip_on_extra_turns) and gap_width(*self.tops()) == 0:
            card = self.draw()
            if card >= 0:
                self.pending = card
                self.seen.add(card)
                self.phase = Phase.FLIP
                return
        self.phase = Phase.PLAY

    def end_round(self, winner: int) -> None:
        for p in range(self.P):
            if p == winner:
                delta = sum(int(CARD_STARS[c]) for c in self.hidden[p])
            else:
                delta = -sum(int(CARD_STARS[c]) for c in self.hand(p))
            self.score[p] += delta
            self.rewards[p] = float(np.float32(self.rewards[p] + self.rules.round_reward_scale * delta))
        if winner >= 0:
            self.went_out[winner] += 1
        self.round += 1
        if self.round >= self.rules.rounds:
            self.terminated = True
            self.phase = Phase.OVER
            self.pending = -1
            self.final_rewards()
        else:
            self.deal_round()

    def final_rewards(self) -> None:
        P, s, mode = self.P, self.score, self.rules.reward
        for p in range(P):
            if mode == "score":
                r = s[p]
            elif mode == "win":
                best = max(s)
                n_win = s.count(best)
                r = 0.0 if n_win == P else (1.0 / n_win if s[p] == best else -1.0 / (P - n_win))
            else:
                r = sum((s[p] > s[q]) - (s[p] < s[q]) for q in range(P)) / (P - 1)
            self.rewards[p] = float(np.float32(self.rewards[p] + r))

    def after_turn(self, winner: int, round_over: bool, next_seat: int, extra: bool) -> None:
        self.turn += 1
        if round_over:
            self.end_round(winner)
            if self.phase == Phase.OVER:
                return
        if self.turn >= self.rules.max_turns:
            self.truncated = True
            self.phase = Phase.OVER
            self.pending = -1
            self.rewards = [0.0] * self.P
            return
        if not round_over:
            self.begin_turn(next_seat, extra)

    # ------------------------------------------------------------------ decisions

    def hand(self, seat: int) -> list[int]:
        return sorted(self.hands[seat])

    def legal_actions(self) -> list[int]:
        seat = self.current
        if self.phase == Phase.HIDE:
            return sorted(ACTION_HIDE_BASE + c for c in self.hands[seat])
        if self.phase == Phase.FLIP:
            return [ACTION_FLIP_BASE, ACTION_FLIP_BASE + 1]
        if self.phase == Phase.PLAY:
            a, b = self.tops()
            out = [ACTION_PASS]
            for c in self.hands[seat]:
                if is_gap_card(c, a, b):
                    out += [2 * c, 2 * c + 1]
                else:
                    out += [2 * c + pile for pile, top in enumerate((a, b)) if matches(c, top)]
            return sorted(out)
        return []

    def mask(self) -> np.ndarray:
        m = np.zeros(NUM_ACTIONS, bool)
        m[self.legal_actions()] = True
        return m

    def step(self, action: int) -> None:
        if action not in self.legal_actions():
            raise ValueError(f"illegal action {action}")
        self.rewards = [0.0] * self.P
        seat, P = self.current, self.P
        if self.phase == Phase.HIDE:
            card = action - ACTION_HIDE_BASE
            self.hands[seat].remove(card)
            self.hidden[seat].append(card)
            if len(self.hidden[seat]) < HIDDEN_PER_PLAYER:
                return
            nxt = (seat + 1) % P
            if len(self.hidden[nxt]) < HIDDEN_PER_PLAYER:
                self.current = nxt
                return
            self.seen.update(self.tops())  # the starting cards are laid face up
            self.begin_turn(nxt, False)
        elif self.phase == Phase.FLIP:
            self.lay(self.pending, action - ACTION_FLIP_BASE)
            self.pending = -1
            self.phase = Phase.PLAY
        elif action == ACTION_PASS:
            card = self.draw()
            if card >= 0:
                self.hands[seat].append(card)
                self.dry_passes = 0
            else:
                self.dry_passes += 1
            self.after_turn(-1, self.dry_passes >= P, (seat + 1) % P, False)
        else:
            card, pile = divmod(action, 2)
            gap = is_gap_card(card, *self.tops())
            self.hands[seat].remove(card)
            self.lay(card, pile)
            self.dry_passes = 0
            out = not self.hands[seat]
            self.after_turn(seat if out else -1, out, seat if gap else (seat + 1) % P, gap)

    # ------------------------------------------------------------------ views

    def snapshot(self) -> dict:
        P = self.P
        return {
            "draw_pile": list(self.draw_pile),
            "tops": list(self.tops()),
            "under": sorted(c for pile in self.piles for c in pile[:-1]),
            "hands": [self.hand(p) for p in range(P)],
            "hidden": [sorted(h) for h in self.hidden],
            "hidden_count": [len(h) for h in self.hidden],
            "seen": sorted(self.seen),
            "pending": self.pending,
            "phase": int(self.phase),
            "current": self.current,
            "dealer": self.dealer,
            "round": self.round,
            "extra_turn": self.extra_turn,
            "dry_passes": self.dry_passes,
            "scores": list(self.score),
            "went_out": list(self.went_out),
            "turn": self.turn,
            "terminated": self.terminated,
            "truncated": self.truncated,
        }

    def observe(self, seat: int) -> np.ndarray:
        """What ``seat`` sees (``observation.py``), built plainly."""
        P = self.P
        layout = ObservationLayout.make(P, self.rules.rounds)
        v = np.zeros(layout.size, np.float32)
        sec = {name: layout.slice(name).start for name, _ in layout.sections}
        v[sec["phase"] + int(self.phase)] = 1
        if self.phase != Phase.OVER:
            v[sec["acting_seat"] + (self.current - seat) % P] = 1
        for c in self.hands[seat]:
            v[sec["hand"] + c] = 1
        for c in self.hidden[seat]:
            v[sec["hidden"] + c] = 1
        laid = self.phase != Phase.HIDE

        def card(c: int, at: int) -> None:
            v[at + colour(c)] = 1
            v[at + NUM_COLOURS + number(c) - 1] = 1

        if laid:
            for k, top in enumerate(self.tops()):
                card(top, sec["pile_tops"] + k * CARD_FEATURES)
            for pile in self.piles:
                for c in pile:
                    v[sec["discards"] + c] = 1
            for c in self.seen:
                v[sec["seen"] + c] = 1
        if self.pending >= 0:
            card(self.pending, sec["flip_card"])
        for rel in range(P):
            p = (seat + rel) % P
            v[sec["hand_sizes"] + rel] = len(self.hands[p])
            v[sec["hidden_sizes"] + rel] = len(self.hidden[p])
            v[sec["scores"] + 2 * rel] = max(self.score[p], 0)
            v[sec["scores"] + 2 * rel + 1] = max(-self.score[p], 0)
        t = sec["table"]
        v[t] = len(self.draw_pile)
        v[t + 1] = sum(len(pile) - 1 for pile in self.piles)
        v[t + 2] = gap_width(*self.tops()) if laid else 0
        v[t + 3] = self.round
        v[t + 4] = self.dry_passes
        v[t + 5] = 1 if self.extra_turn and self.phase != Phase.OVER else 0
        v[sec["dealer"] + (self.dealer - seat) % P] = 1
        for c in self.draw_pile:
            v[sec["pool"] + c] = self.pool.get(c, 0)
        for p in range(P):
            rel = (p - seat) % P
            for c in self.hands[p]:
                label = self.pool.get(c, 0)
                if label:
                    v[sec["pool"] + c] = label
                    if rel:
                        v[sec["pool_holdings"] + (rel - 1) * NUM_CARDS + label - 1] += 1
        return v
