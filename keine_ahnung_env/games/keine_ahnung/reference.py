"""A small, readable scalar engine of Keine Ahnung: one game, plain Python lists.

It is the executable statement of the rules (``RULES.md``) that the compiled core in ``core.py`` /
``kernels.py`` is checked against, step by step, on thousands of random games. Both engines draw from
the same generator (``rng.py``: xoshiro256**, here in its plain-Python form :class:`GameRandom`) in
the same order, so the same stream gives the same game:

1. a new game shuffles ``range(num_cards)`` (the draw pile, top first), then the deck's trophy list
   (the trophy pile, top first); seat 0 gets the first six cards in slots 0-5, seat 1 the next six,
   and so on;
2. a reshuffle shuffles the ``n`` cards that form the new draw pile, taken in ascending card id;
   nothing is drawn from the generator when there is nothing to shuffle.

Speed is not a goal here; clarity is.
"""

from __future__ import annotations

import numpy as np

from .actions import ACTION_CALL, ACTION_KEEP, ACTION_PLACE_BASE, NUM_ACTIONS, Phase, action_name
from .config import CALL_MAX_CARDS, REFILL_FUNCTION_TARGET, SLOTS, Rules
from .deck import FUNCTION_REFILL, FUNCTION_REMOVE, FUNCTION_REVEAL, NUM_FACES
from .observation import ObservationLayout, card_feature_table
from ...rng import GameRandom
from .scoring import final_rewards

# What the engine does next when no decision is pending.
_DRAW = "draw"  # reveal the top draw-pile card (turn start or "reveal" extra function)
_AFTER_CHAIN = "after_chain"  # a card and its extra function have resolved
_END_TURN = "end_turn"  # the turn is over (clearing first, if the layout was emptied)


class ReferenceGame:
    """One Keine Ahnung game with the same rules, actions and randomness as the compiled core."""

    def __init__(self, rules: Rules, rng):
        """Creates and deals a game; ``rng`` is consumed as described in the module docstring.

        ``rng``: a :class:`GameRandom` (``GameRandom.for_game(seed, i)`` plays game i of a core seeded
        with ``seed``); an int seed or a ``numpy.random.Generator`` is turned into one
        (``GameRandom.coerce``)."""
        self.rules = rules
        self.tables = rules.tables()
        self.rng = GameRandom.coerce(rng)
        self.reset()

    # ----------------------------------------------------------------- setup

    def reset(self) -> None:
        """Shuffles, deals and resolves the first player's draw-pile card."""
        t, num_players = self.tables, self.rules.num_players
        self.draw_pile = self.rng.permutation(t.num_cards)  # top first
        self.trophy_pile = [int(v) for v in t.trophies]
        self.rng.shuffle(self.trophy_pile)  # top first
        self.set_aside: list[int] = []
        self.piles: list[list[int]] = []  # oldest pile first, each bottom..top
        self.layout = [[-1] * SLOTS for _ in range(num_players)]
        self.known: set[int] = set()  # cards revealed to the table and not shuffled since
        self.reshuffles = 0  # reshuffles of the draw pile so far
        self.card_epoch = [0] * t.num_cards  # ``reshuffles`` when each card was last shuffled in
        self.trophies: list[list[int]] = [[] for _ in range(num_players)]
        self.prizes: list[list[int]] = [[] for _ in range(num_players)]
        for seat in range(num_players):
            for slot in range(SLOTS):
                self.layout[seat][slot] = self._draw()
        self.current = 0
        self.turn = 0
        self.phase = Phase.MAIN
        self.pending = -1
        self.pending_slot = -1
        self.clear_pending = False
        self.terminated = False
        self.truncated = False
        self.rewards = np.zeros(num_players, np.float32)
        self._advance(_DRAW)

    # --------------------------------------------------------------- queries

    def scores(self) -> list[int]:
        """Trophy points plus prize points per seat."""
        value = self.tables.prize_value
        return [sum(self.trophies[p]) + sum(int(value[c]) for c in self.prizes[p]) for p in range(self.rules.num_players)]

    def layout_count(self, seat: int) -> int:
        """Cards in a seat's layout."""
        return sum(c >= 0 for c in self.layout[seat])

    def top_face(self, pile: list[int]) -> int:
        """The face (colour*6 + number-1) of a pile's top card."""
        return int(self.tables.face[pile[-1]])

    def fitting_faces(self, card: int) -> list[int]:
        """Distinct pile-top faces the card fits (same colour or number), ascending."""
        face = int(self.tables.face[card])
        return sorted({self.top_face(p) for p in self.piles if self.tables.compat[face, self.top_face(p)]})

    def legal_actions(self) -> list[int]:
        """Legal action ids for the seat to act, ascending."""
        if self.phase == Phase.MAIN:
            own = self.layout[self.current]
            actions = [s for s in range(SLOTS) if own[s] >= 0]
            if self.layout_count(self.current) <= CALL_MAX_CARDS:
                actions.append(ACTION_CALL)
            return actions
        if self.phase in (Phase.PLACE_DRAWN, Phase.PLACE_REVEALED):
            actions = [ACTION_PLACE_BASE + f for f in self.fitting_faces(self.pending)]
            if self.phase == Phase.PLACE_REVEALED and self.rules.allow_keep:
                actions.append(ACTION_KEEP)
            return actions
        return []

    def legal_mask(self) -> np.ndarray:
        """Boolean mask over all actions."""
        mask = np.zeros(NUM_ACTIONS, bool)
        mask[self.legal_actions()] = True
        return mask

    # ---------------------------------------------------------------- acting

    def step(self, action: int) -> None:
        """Applies the acting seat's decision and resolves everything up to the next decision."""
        legal = self.legal_actions()
        if action not in legal:
            raise ValueError(f"illegal action {action} ({action_name(action)}); legal: {legal}")
        self.rewards = np.zeros(self.rules.num_players, np.float32)
        if self.phase == Phase.MAIN:
            next_step = self._call() if action == ACTION_CALL else self._reveal(action)
        elif action == ACTION_KEEP:
            self.pending, self.pending_slot = -1, -1
            next_step = _END_TURN
        else:
            face = action - ACTION_PLACE_BASE
            card, slot = self.pending, self.pending_slot
            self.pending, self.pending_slot = -1, -1
            if slot >= 0:
                next_step = self._play_from_layout(slot, face)
            else:
                next_step = self._place(card, face)
        if next_step is not None:
            self._advance(next_step)

    def _reveal(self, slot: int) -> str | None:
        card = self.layout[self.current][slot]
        self.known.add(card)
        if self.tables.is_prize[card]:
            self.layout[self.current][slot] = -1
            self._give_prize(card)
            self.clear_pending = self.layout_count(self.current) == 0
            return _END_TURN
        faces = self.fitting_faces(card)
        if not faces:
            return _END_TURN  # back face down in the same slot, now known to everyone
        if len(faces) == 1 and not self.rules.allow_keep:
            return self._play_from_layout(slot, faces[0])
        self.pending, self.pending_slot, self.phase = card, slot, Phase.PLACE_REVEALED
        return None

    def _call(self) -> str | None:
        """ "Nothing fits anymore!": reveal in slot order until a card fits or is a prize."""
        own = self.layout[self.current]
        success = True
        for slot in range(SLOTS):
            card = own[slot]
            if card < 0:
                continue
            self.known.add(card)
            if self.tables.is_prize[card]:
                own[slot] = -1
                self._give_prize(card)
                success = False
                break
            if self.fitting_faces(card):
                success = False
                break
        if success:
            self._win_trophy()
            if self.phase == Phase.OVER:
                return None
        self._fill_layout(self.current)
        return _END_TURN

    def _play_from_layout(self, slot: int, face: int) -> str:
        card = self.layout[self.current][slot]
        self.layout[self.current][slot] = -1
        if self.layout_count(self.current) == 0:
            self.clear_pending = True
        return self._place(card, face)

    def _place(self, card: int, face: int | None) -> str:
        """Puts a card on the oldest pile showing ``face`` (None: a new pile) and resolves its function."""
        if face is None:
            self.piles.append([card])
            pile = self.piles[-1]
        else:
            pile = next(p for p in self.piles if self.top_face(p) == face)
            pile.append(card)
        function = self.tables.function[card]
        if function == FUNCTION_REVEAL:
            return _DRAW
        if function == FUNCTION_REMOVE:
            for other in self.piles:
                if other is not pile:
                    self.set_aside.extend(other)
            self.piles = [pile]
        elif function == FUNCTION_REFILL:
            for offset in range(1, self.rules.num_players):
                seat = (self.current + offset) % self.rules.num_players
                for _ in range(max(0, REFILL_FUNCTION_TARGET - self.layout_count(seat))):
                    self._put_in_first_empty_slot(seat, self._draw())
        return _AFTER_CHAIN

    # ------------------------------------------------------- automatic flow

    def _advance(self, next_step: str) -> None:
        """Resolves everything that is not a decision, until a decision or the end of the game."""
        while True:
            if next_step == _DRAW:
                card = self._draw()
                if card < 0:
                    next_step = _AFTER_CHAIN  # nothing can be drawn: the draw is skipped
                    continue
                self.known.add(card)
                if self.tables.is_prize[card]:
                    self._give_prize(card)
                    next_step = _END_TURN
                    continue
                faces = self.fitting_faces(card)
                if len(faces) >= 2:
                    self.pending, self.pending_slot, self.phase = card, -1, Phase.PLACE_DRAWN
                    return
                next_step = self._place(card, faces[0] if faces else None)
            elif next_step == _AFTER_CHAIN:
                if self.clear_pending:
                    next_step = _END_TURN
                    continue
                self.phase = Phase.MAIN
                return
            else:  # _END_TURN
                if self.clear_pending:
                    self.clear_pending = False
                    self._win_trophy()
                    if self.phase == Phase.OVER:
                        return
                    self._fill_layout(self.current)
                self.current = (self.current + 1) % self.rules.num_players
                self.turn += 1
                if self.turn >= self.rules.max_turns:
                    self.truncated = True
                    self.phase = Phase.OVER
                    return
                next_step = _DRAW

    # -------------------------------------------------------------- helpers

    def _draw(self) -> int:
        """Takes the top draw-pile card (reshuffling first if empty); -1 when nothing can be drawn."""
        if not self.draw_pile:
            self._reshuffle()
        return self.draw_pile.pop(0) if self.draw_pile else -1

    def _reshuffle(self) -> None:
        if self.set_aside:
            source = sorted(self.set_aside)
            self.set_aside = []
        elif self.rules.reshuffle_discards:
            source = sorted(c for pile in self.piles for c in pile[:-1])
            self.piles = [[pile[-1]] for pile in self.piles]
        else:
            return
        if not source:
            return
        self.known -= set(source)
        self.reshuffles += 1
        for card in source:
            self.card_epoch[card] = self.reshuffles
        self.rng.shuffle(source)
        self.draw_pile = source

    def _put_in_first_empty_slot(self, seat: int, card: int) -> None:
        if card >= 0:
            self.layout[seat][self.layout[seat].index(-1)] = card

    def _fill_layout(self, seat: int) -> None:
        """Draws into every empty slot of the seat's layout, in slot order."""
        for slot in range(SLOTS):
            if self.layout[seat][slot] < 0:
                self.layout[seat][slot] = self._draw()

    def _give_prize(self, card: int) -> None:
        self.prizes[self.current].append(card)

    def _win_trophy(self) -> None:
        self.trophies[self.current].append(self.trophy_pile.pop(0))
        if not self.trophy_pile:
            self.terminated = True
            self.phase = Phase.OVER
            trophy_counts = [len(t) + len(p) for t, p in zip(self.trophies, self.prizes)]
            self.rewards = final_rewards(
                np.array([self.scores()]), np.array([trophy_counts]), self.rules.reward
            )[0]

    # --------------------------------------------------------- observation

    def observe(self, seat: int) -> np.ndarray:
        """The observation vector of ``seat`` (sections documented in ``observation.py``)."""
        t, P = self.tables, self.rules.num_players
        layout = ObservationLayout.for_tables(P, t)
        if not hasattr(self, "_features"):
            self._features = card_feature_table(t)
        features = self._features
        sec = {name: np.zeros(n, np.float32) for name, n in layout.sections}
        sec["phase"][int(self.phase)] = 1
        if self.phase != Phase.OVER:
            sec["acting_seat"][(self.current - seat) % P] = 1
        if self.pending >= 0:
            sec["pending_card"][:] = features[self.pending]
            if self.phase == Phase.PLACE_REVEALED:
                sec["pending_slot"][self.pending_slot] = 1
        for pile in self.piles:
            sec["pile_tops"][self.top_face(pile)] += 1
        perfect = self.rules.memory == "perfect"
        slots = sec["layouts"].reshape(P, SLOTS, -1)
        for rel in range(P):
            for slot, card in enumerate(self.layout[(seat + rel) % P]):
                if card < 0:
                    slots[rel, slot, 0] = 1
                elif perfect and card in self.known:
                    slots[rel, slot, 2] = 1
                    slots[rel, slot, 3:] = features[card]
                else:
                    slots[rel, slot, 1] = 1
        sec["table_counts"][:] = [len(self.draw_pile), len(self.set_aside), len(self.trophy_pile), len(self.piles)]
        value = t.prize_value
        for rel in range(P):
            p = (seat + rel) % P
            sec["players"][3 * rel : 3 * rel + 3] = [
                len(self.trophies[p]), sum(int(value[c]) for c in self.prizes[p]), len(self.prizes[p])]
        sec["own_trophy_points"][0] = sum(self.trophies[seat])
        if perfect:
            unknown = list(self.draw_pile) + [c for row in self.layout for c in row if c >= 0 and c not in self.known]
            for card in unknown:
                sec["unknown_cards"][t.card_type[card]] += 1
        else:
            visible = list(self.set_aside) + [p[-1] for p in self.piles] + [c for ps in self.prizes for c in ps]
            if self.pending >= 0:
                visible.append(self.pending)
            sec["unknown_cards"][:] = t.type_total
            for card in visible:
                sec["unknown_cards"][t.card_type[card]] -= 1
        self._observe_belief_sections(seat, sec, perfect)
        return np.concatenate([sec[name] for name, _ in layout.sections])

    def _observe_belief_sections(self, seat: int, sec: dict, perfect: bool) -> None:
        """Observation version 2's sections (``observation.py``), written the plain way."""
        t, P = self.tables, self.rules.num_players
        values = list(t.trophy_values)
        for value in self.trophies[seat]:
            sec["own_trophies"][values.index(value)] += 1
        for card in self.set_aside:
            sec["set_aside_cards"][t.card_type[card]] += 1
        if not perfect:
            return
        for pile in self.piles:
            for card in pile[:-1]:
                sec["covered_cards"][t.card_type[card]] += 1
        ages = []  # (flat relative slot, age, type) of unknown cards from earlier shuffles
        for rel in range(P):
            for slot, card in enumerate(self.layout[(seat + rel) % P]):
                if card >= 0 and card not in self.known and self.reshuffles - self.card_epoch[card] >= 1:
                    ages.append((rel * SLOTS + slot, self.reshuffles - self.card_epoch[card], int(t.card_type[card])))
        pools = sorted({age for _, age, _ in ages})
        for age in pools:
            group = [entry for entry in ages if entry[1] == age]
            for (flat, _, _), card_type in zip(group, sorted(c for _, _, c in group)):
                sec["earlier_pool"][flat] = pools.index(age) + 1
                sec["earlier_pool_cards"][flat] = card_type + 1

    # ------------------------------------------------------------ snapshot

    def snapshot(self) -> dict:
        """The full state in a canonical form, for comparison with the batched core."""
        return {
            "draw_pile": list(self.draw_pile),
            "trophy_pile": list(self.trophy_pile),
            "set_aside": sorted(self.set_aside),
            "piles": [sorted(p[:-1]) + [p[-1]] for p in self.piles],  # order below the top is not tracked
            "layout": [list(row) for row in self.layout],
            "known": sorted(self.known),
            "trophies": [list(t) for t in self.trophies],
            "prizes": [sorted(p) for p in self.prizes],
            "current": self.current,
            "turn": self.turn,
            "phase": int(self.phase),
            "pending": self.pending,
            "pending_slot": self.pending_slot,
            "terminated": self.terminated,
            "truncated": self.truncated,
            "scores": self.scores(),
        }


assert NUM_FACES == ACTION_KEEP - ACTION_PLACE_BASE
