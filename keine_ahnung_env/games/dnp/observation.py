"""The observation of a dnp seat: a float32 vector of named sections, seats relative to the observer
(0 = you, 1 = the next player clockwise, ...). P players, N cards, areas = 2 with two players else 1,
T = P * areas table positions; relative position ``k * areas + a`` is area ``a`` of relative seat k.

| section     | length  | content                                                                  |
|-------------|---------|--------------------------------------------------------------------------|
| acting      | P       | one-hot relative seat of the player to act (zeros once the game is over) |
| area        | areas   | one-hot area of the current move (two players: area 1 or 2)              |
| selection   | 2       | your selection in progress: number of cards, their value (0 if none)     |
| players     | 4 * P   | per relative seat: hand size, points (2 players: round wins), out of the  |
|             |         | round (first finisher), hand cards known to the table                    |
| table       | 2 * T   | per relative position: the set's value and size (0, 0: no set)            |
| hand_values | 20      | your hand cards by active value 1-10, then by inactive value 1-10        |
| cards       | N * F   | per card id of the deck (F = 8 + T + P), below                           |

Per card: its upright and rotated values (printed, always shown); its active value and whether the
rotated value is the active one (only where the seat can see the card: its own hand, the table, a
card known to be in an opponent's hand); then flags: in your hand, in your selection, in your hand and
known to the table; on the table at relative position 0..T-1; known to be in the hand of relative seat
1..P-1; discarded this round; not in this game (its symbol group is removed at this player count).
A card in an opponent's hand that the table has not seen has no flag and no active value. Cards
taken back or picked up are known (with the orientation they got, followed through their owner's
turns of the whole hand) until they leave the hand; a new round forgets them.
Nothing else of other hands is encoded; the selection is shown to the selecting seat only.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ...sections import NamedSections
from .deck import MAX_VALUE, CardTables

OBSERVATION_VERSION = 1


@dataclasses.dataclass(frozen=True)
class ObservationLayout(NamedSections):
    num_players: int
    num_cards: int

    @classmethod
    def make(cls, num_players: int, num_cards: int) -> "ObservationLayout":
        return cls(num_players, num_cards)

    @property
    def areas(self) -> int:
        return 2 if self.num_players == 2 else 1

    @property
    def positions(self) -> int:
        return self.num_players * self.areas

    @property
    def card_width(self) -> int:
        return 8 + self.positions + self.num_players

    @property
    def sections(self) -> tuple[tuple[str, int], ...]:
        P, T = self.num_players, self.positions
        return (("acting", P), ("area", self.areas), ("selection", 2), ("players", 4 * P), ("table", 2 * T),
                ("hand_values", 2 * MAX_VALUE), ("cards", self.num_cards * self.card_width))

    def high(self, target: int) -> np.ndarray:
        """[O] upper bound of every feature (``target``: points or round wins that win)."""
        N, P, T = self.num_cards, self.num_players, self.positions
        parts = [np.ones(P), np.ones(self.areas), [N, MAX_VALUE], np.tile([N, target + 1, 1, N], P),
                 np.tile([MAX_VALUE, N], T), np.full(2 * MAX_VALUE, N),
                 np.tile(np.r_[[MAX_VALUE] * 3, np.ones(self.card_width - 3)], N)]
        return np.concatenate([np.asarray(p, np.float32) for p in parts]).astype(np.float32)


def observation_string(obs: np.ndarray, layout: ObservationLayout, tables: CardTables) -> str:
    """What a seat knows, readably."""
    s = layout.split(np.asarray(obs, np.float32))
    P, A, N, F = layout.num_players, layout.areas, layout.num_cards, layout.card_width
    cards = s["cards"].reshape(N, F)
    lines = []
    acting = np.flatnonzero(s["acting"])
    if acting.size:
        area = int(np.argmax(s["area"])) + 1
        lines.append(f"to act: {'you' if acting[0] == 0 else f'seat +{acting[0]}'}"
                     + (f" (area {area})" if A == 2 else ""))
    else:
        lines.append("game over")

    def show(c: int) -> str:
        return f"{int(cards[c, 2])}({int(cards[c, 0] + cards[c, 1] - cards[c, 2])})"

    mine = [c for c in range(N) if cards[c, 4]]
    mine.sort(key=lambda c: (cards[c, 2], c))
    lines.append("your hand (value(other value) #card id, * selected): "
                 + (" ".join(f"{show(c)}#{c}" + ("*" if cards[c, 5] else "") for c in mine) or "-"))
    if s["selection"][0]:
        lines.append(f"selected: {int(s['selection'][0])} x {int(s['selection'][1])}")
    T = layout.positions
    for rel in range(P):
        hand, pts, out, known = s["players"][4 * rel: 4 * rel + 4].astype(int)
        name = "you" if rel == 0 else f"seat +{rel}"
        sets = []
        for a in range(A):
            pos = rel * A + a
            on = [c for c in range(N) if cards[c, 7 + pos]]
            sets.append(" ".join(show(c) for c in on) or "-")
        known_cards = [show(c) for c in range(N) if rel > 0 and cards[c, 7 + T + rel - 1]]
        lines.append(f"{name}: {hand} cards, {pts} {'rounds' if P == 2 else 'points'}{' (out)' if out else ''}; "
                     f"set{'s' if A == 2 else ''}: {' | '.join(sets)}"
                     + (f"; known: {' '.join(known_cards)}" if known_cards else ""))
    gone = [c for c in range(N) if cards[c, 7 + T + P - 1]]
    lines.append(f"discarded: {' '.join(tables.label(c) for c in gone) or '-'}")
    return "\n".join(lines)
