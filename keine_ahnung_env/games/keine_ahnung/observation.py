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
| own_trophies       | V           | the observer's trophies of each distinct trophy value (ascending)  |
| set_aside_cards    | T           | set-aside cards (face up, for the next reshuffle) of each type     |
| covered_cards      | T           | discard-pile cards below the tops, per type (perfect memory only)  |
| earlier_pool       | P*6         | per relative seat and slot, for an unknown face-down card dealt    |
|                    |             | from an earlier shuffle than the draw pile's: its pool's number    |
|                    |             | (1 = the most recent such shuffle, 2 = the next older, ...); else 0 |
| earlier_pool_cards | P*6         | for those slots: 1 + the type of one card of that pool (the pool's |
|                    |             | cards sorted by type against its slots in order); else 0           |

The last five sections are observation version 2 (what a seat may know, exactly); version 1
is the first ``ObservationLayout.make(..., version=1).size`` features of a version-2 vector, so a policy
trained on version 1 reads the prefix (``agents.ppo``). Why they are needed (``docs/keine_ahnung.md``,
"Beliefs"): with perfect memory a seat knows more than the ``unknown_cards`` counts. Every reshuffle
makes a new draw pile of cards everyone has seen, so a face-down card dealt from an earlier shuffle
comes from that shuffle's pool, not from the current one: an earlier pool's cards never revealed
since are exactly the cards still face down from it, a multiset every seat can work out (its order
among its slots stays hidden). Which seen cards lie set aside (the next draw pile) and which below the
pile tops, and the values of the seat's own trophies, are known too. ``earlier_pool`` and
``earlier_pool_cards`` are zero with ``memory="none"`` (nothing is remembered) and ``covered_cards``
is zero there too (covered cards are out of sight and counted in ``unknown_cards``).

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
OBSERVATION_VERSION = 2
"""Bumped whenever the encoding changes; checkpoints record it. Version 1 is the
prefix of version 2 without the last five sections."""
V1_SECTIONS = 10
"""Version 1 had the first ten sections."""


@dataclasses.dataclass(frozen=True)
class ObservationLayout(NamedSections):
    """Offsets and sizes of the named sections for one player count and deck."""

    num_players: int
    num_types: int
    sections: tuple[tuple[str, int], ...]
    num_trophy_values: int = 3
    version: int = OBSERVATION_VERSION

    @classmethod
    def make(cls, num_players: int, num_types: int, num_trophy_values: int = 3,
             version: int = OBSERVATION_VERSION) -> "ObservationLayout":
        """The layout for ``num_players``, a deck of ``num_types`` card types and ``num_trophy_values``
        distinct trophy values (3 for the default deck), in observation ``version`` (1 or 2)."""
        if version not in (1, 2):
            raise ValueError(f"observation version {version!r}; allowed: 1, 2")
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
            ("own_trophies", num_trophy_values),
            ("set_aside_cards", num_types),
            ("covered_cards", num_types),
            ("earlier_pool", P * SLOTS),
            ("earlier_pool_cards", P * SLOTS),
        )
        if version == 1:
            sections = sections[:V1_SECTIONS]
        return cls(num_players, num_types, sections, num_trophy_values, version)

    @classmethod
    def for_tables(cls, num_players: int, tables: CardTables, version: int = OBSERVATION_VERSION) -> "ObservationLayout":
        """The layout for ``num_players`` and the deck of ``tables``."""
        return cls.make(num_players, tables.num_types, tables.num_trophy_values, version)

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
        if self.version >= 2:
            values, counts = np.unique(tables.trophies, return_counts=True)
            high[self.slice("own_trophies")] = counts
            high[self.slice("set_aside_cards")] = np.maximum(tables.type_total, 1)
            high[self.slice("covered_cards")] = np.maximum(tables.type_total, 1)
            high[self.slice("earlier_pool")] = self.num_players * SLOTS
            high[self.slice("earlier_pool_cards")] = self.num_types
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
    def type_list(counts: np.ndarray) -> str:
        return ", ".join(f"{describe_type(tables.type_keys[t])} x{int(counts[t])}" for t in np.flatnonzero(counts))

    unknown = sec["unknown_cards"]
    lines.append(f"Unknown cards ({int(unknown.sum())}): " + type_list(unknown))
    if "own_trophies" in sec:  # observation version 2
        values = tables.trophy_values
        own = [f"{int(v)} x{int(n)}" for v, n in zip(values, sec["own_trophies"]) if n]
        lines.append("Your trophies: " + (", ".join(own) if own else "none"))
        if sec["set_aside_cards"].any():
            lines.append(f"Set aside ({int(sec['set_aside_cards'].sum())}): " + type_list(sec["set_aside_cards"]))
        if sec["covered_cards"].any():
            lines.append(f"Below the pile tops ({int(sec['covered_cards'].sum())}): " + type_list(sec["covered_cards"]))
        pools = sec["earlier_pool"].reshape(P, SLOTS)
        cards = sec["earlier_pool_cards"].reshape(P, SLOTS)
        for k in range(1, int(pools.max(initial=0)) + 1):
            where = [f"{seat_name(int(r))} slot {int(s)}" for r, s in np.argwhere(pools == k)]
            content = [describe_type(tables.type_keys[int(c) - 1]) for c in cards[pools == k]]
            lines.append(f"Dealt {k} shuffle(s) back: {', '.join(where)} hold {', '.join(content)} in some order")
    return "\n".join(lines)
