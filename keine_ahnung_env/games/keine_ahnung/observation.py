"""What a seat may see, as a fixed-size float32 vector built from named sections.

Seats are relative to the observer: relative seat 0 is the observer, 1 the next player in turn order,
and so on. Sections, in order (P players, T card types of the deck; 57 for the default deck):

| section            | length      | content                                                            |
|--------------------|-------------|--------------------------------------------------------------------|
| phase              | 4           | one-hot Phase: MAIN, PLACE_DRAWN, PLACE_REVEALED, OVER              |
| acting_seat        | P           | one-hot relative seat of the player to act (zeros when over)       |
| pending_card       | 15          | card awaiting a pile choice: colour(6), number(6), function(3)      |
| pending_slot       | 6           | one-hot layout slot of that card when it was revealed from a layout |
| pile_tops          | 36          | number of discard piles whose top shows each colour*6+number-1     |
| layouts            | P*6*18      | per relative seat and slot: empty / face down unknown / face down    |
|                    |             | known (3), then the known card's colour, number, function (15)      |
| table_counts       | 4           | draw pile size, set-aside cards, trophies left, discard piles       |
| players            | P*3         | per relative seat: trophies won, prize points, prizes won           |
| own_trophy_points  | 1           | the observer's trophy points (opponents' trophy values stay secret)|
| unknown_cards      | T           | copies of each card type whose place the observer does not know    |

With ``memory="perfect"`` a face-down card that was ever revealed (and not shuffled back into the
draw pile since) is "known" with its identity, and ``unknown_cards`` counts the draw pile plus the
face-down cards never revealed. With ``memory="none"`` every face-down card shows as unknown and
``unknown_cards`` counts every card not face up on the table right now (pile tops, set-aside cards,
won prizes and the card awaiting a pile). Either way, every part of the vector is public knowledge or
the observer's own, so two seats see the same table except for their own trophy points.

Counts are raw integers (as float32); ``ObservationLayout.high`` bounds them and
``ObservationLayout.scale`` (``1/high``) normalises them for neural networks.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ...sections import NamedSections
from .actions import NUM_PHASES, Phase
from .config import SLOTS
from .deck import COLOURS, FUNCTION_NONE, NUM_COLOURS, NUM_FACES, NUM_NUMBERS, CardTables, describe_type

CARD_FEATURES = NUM_COLOURS + NUM_NUMBERS + 3
"""colour one-hot, number one-hot, extra function one-hot (reveal, remove, refill)."""
SLOT_STATES = 3
"""empty, face down and unknown, face down and known."""
SLOT_FEATURES = SLOT_STATES + CARD_FEATURES
TABLE_COUNTS = 4
PLAYER_FEATURES = 3
OBSERVATION_VERSION = 1
"""Bumped whenever the encoding changes; checkpoints record it."""


@dataclasses.dataclass(frozen=True)
class ObservationLayout(NamedSections):
    """Offsets and sizes of the named sections for one player count and deck."""

    num_players: int
    num_types: int
    sections: tuple[tuple[str, int], ...]

    @classmethod
    def make(cls, num_players: int, num_types: int) -> "ObservationLayout":
        P = num_players
        sections = (
            ("phase", NUM_PHASES),
            ("acting_seat", P),
            ("pending_card", CARD_FEATURES),
            ("pending_slot", SLOTS),
            ("pile_tops", NUM_FACES),
            ("layouts", P * SLOTS * SLOT_FEATURES),
            ("table_counts", TABLE_COUNTS),
            ("players", P * PLAYER_FEATURES),
            ("own_trophy_points", 1),
            ("unknown_cards", num_types),
        )
        return cls(num_players, num_types, sections)

    def high(self, tables: CardTables) -> np.ndarray:
        """Upper bound of every feature (lower bounds are 0)."""
        high = np.ones(self.size, np.float32)
        n_cards = float(tables.num_cards)
        prize_total = float(max(1, int(tables.prize_value[tables.is_prize].sum())))
        high[self.slice("pile_tops")] = n_cards
        high[self.slice("table_counts")] = [n_cards, n_cards, float(tables.num_trophies), n_cards]
        players = np.tile([float(tables.num_trophies), prize_total, float(max(1, int(tables.is_prize.sum())))],
                          self.num_players)
        high[self.slice("players")] = players
        high[self.slice("own_trophy_points")] = float(max(1, int(tables.trophies.sum())))
        high[self.slice("unknown_cards")] = np.maximum(tables.type_total, 1)
        return high

    def scale(self, tables: CardTables) -> np.ndarray:
        """``1 / high``: multiplies an observation into [0, 1]."""
        return (1.0 / self.high(tables)).astype(np.float32)


def card_feature_table(tables: CardTables) -> np.ndarray:
    """[N + 1, 15] float32 card encodings; the extra last row (card id -1) is all zeros."""
    out = np.zeros((tables.num_cards + 1, CARD_FEATURES), np.float32)
    for card in range(tables.num_cards):
        if tables.is_prize[card]:
            continue
        out[card, tables.colour[card]] = 1
        out[card, NUM_COLOURS + tables.number[card] - 1] = 1
        if tables.function[card] != FUNCTION_NONE:
            out[card, NUM_COLOURS + NUM_NUMBERS + tables.function[card] - 1] = 1
    return out


def observation_string(obs: np.ndarray, layout: ObservationLayout, tables: CardTables) -> str:
    """A human-readable view decoded from one observation vector (so it shows nothing more)."""
    sec = layout.split(np.asarray(obs))
    P = layout.num_players

    def card_text(features: np.ndarray) -> str:
        if not features.any():
            return "--"
        colour = COLOURS[int(features[:NUM_COLOURS].argmax())]
        number = int(features[NUM_COLOURS : NUM_COLOURS + NUM_NUMBERS].argmax()) + 1
        star = "*" if features[NUM_COLOURS + NUM_NUMBERS :].any() else ""
        return f"{colour} {number}{star}"

    def seat_name(rel: int) -> str:
        return "you" if rel == 0 else f"+{rel}"

    phase = Phase(int(sec["phase"].argmax()))
    lines = []
    if phase == Phase.OVER:
        lines.append("Game over.")
    else:
        acting = int(sec["acting_seat"].argmax())
        lines.append(f"To act: {seat_name(acting)} ({phase.name})")
    if sec["pending_card"].any():
        slot = f" from slot {int(sec['pending_slot'].argmax())}" if sec["pending_slot"].any() else " from the draw pile"
        lines.append(f"Card awaiting a pile: {card_text(sec['pending_card'])}{slot}")
    tops = []
    for face in np.flatnonzero(sec["pile_tops"]):
        count = int(sec["pile_tops"][face])
        label = f"{COLOURS[face // NUM_NUMBERS]} {face % NUM_NUMBERS + 1}"
        tops.append(label if count == 1 else f"{label} x{count}")
    lines.append("Pile tops: " + (", ".join(tops) if tops else "(no piles)"))
    draw, aside, trophies_left, piles = (int(x) for x in sec["table_counts"])
    lines.append(f"Draw pile {draw}, set aside {aside}, trophies left {trophies_left}, piles {piles}")
    slots = sec["layouts"].reshape(P, SLOTS, SLOT_FEATURES)
    players = sec["players"].reshape(P, PLAYER_FEATURES)
    for rel in range(P):
        cells = []
        for s in range(SLOTS):
            state = int(slots[rel, s, :SLOT_STATES].argmax())
            cells.append(["  ", "??", card_text(slots[rel, s, SLOT_STATES:])][state] if slots[rel, s, :SLOT_STATES].any() else "  ")
        trophies, prize_points, prizes = (int(x) for x in players[rel])
        extra = f", trophy points {int(sec['own_trophy_points'][0])}" if rel == 0 else ""
        lines.append(
            f"{seat_name(rel):>4}: [{' | '.join(cells[:3])}] [{' | '.join(cells[3:])}]  "
            f"trophies {trophies}{extra}, prizes {prizes} ({prize_points} pts)"
        )
    unknown = sec["unknown_cards"]
    parts = [f"{describe_type(tables.type_keys[t])} x{int(unknown[t])}" for t in np.flatnonzero(unknown)]
    lines.append(f"Unknown cards ({int(unknown.sum())}): " + ", ".join(parts))
    return "\n".join(lines)
