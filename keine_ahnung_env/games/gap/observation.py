"""What a seat may see, as a fixed-size float32 vector of named sections.

Seats are relative to the observer: relative seat 0 is the observer, 1 the next player in turn order
(to the left), and so on. Sections, in order (P players; card ids as in ``deck.py``):

| section       | length | content                                                                   |
|---------------|--------|---------------------------------------------------------------------------|
| phase         | 4      | one-hot Phase: HIDE, FLIP, PLAY, OVER                                     |
| acting_seat   | P      | one-hot relative seat of the player to act (zeros when over)              |
| hand          | 66     | 1 for each card in your hand                                              |
| hidden        | 66     | 1 for each of your own hidden cards                                       |
| pile_tops     | 34     | per pile (left, right): colour one-hot (6), number one-hot (11)           |
| flip_card     | 17     | the top draw card turned face up, awaiting your pile choice (FLIP phase)  |
| discards      | 66     | 1 for each card in the discard piles now (tops included)                  |
| seen          | 66     | 1 for each card seen face up this round (the two starting cards, every    |
|               |        | card played or flipped; also those shuffled back into the draw pile)      |
| hand_sizes    | P      | cards in each relative seat's hand                                        |
| hidden_sizes  | P      | hidden cards each relative seat has laid (2 once the round has begun)     |
| table         | 6      | draw pile size, cards below the pile tops, gap width (whole numbers       |
|               |        | strictly between the tops), rounds played, passes in a row that took      |
|               |        | nothing, 1 if this turn is an extra turn after a gap play                  |
| dealer        | P      | one-hot relative seat of this round's dealer                              |
| scores        | 2P     | per relative seat: plus part max(score, 0), minus part max(-score, 0)     |
| pool          | 66     | per card in the draw pile or a hand that was shuffled back into the draw  |
|               |        | pile this round (and not laid since): the label of its pool, 1 = the      |
|               |        | latest reshuffle, 2, 3, ... older ones still with cards in hands          |
|               |        | (version 2)                                                               |
| pool_holdings | 66(P-1)| per relative seat 1..P-1, per pool label 1..66: how many cards of that    |
|               |        | pool the seat holds (version 2)                                           |

Version 2 added the two pool sections: with them the observation holds everything a seat with perfect
memory knows of where the unseen and shuffled-back cards can be (``belief.py``): a card shuffled back
lies in the draw pile or in the hand of a seat that drew from its pool, and the seat knows how many of
each pool every opponent drew and has not laid since. Without them a seat would have to remember the
round's history (which pool each pass drew from) to know it. Version 1 (the sections up to ``scores``)
is no longer produced; a policy that recorded version 1 is refused when it is loaded.

While the hidden cards are being chosen (HIDE) the two starting cards are not laid yet: pile_tops,
discards and seen read 0. Nothing else is hidden from anybody but the opponents' hands, the opponents'
hidden cards and the order of the draw pile, none of which is encoded. Counts are raw numbers (as
float32); ``ObservationLayout.high`` bounds every feature and ``1 / high`` normalises them.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from ...sections import NamedSections
from .actions import NUM_PHASES, Phase
from .deck import (
    CARD_COLOUR, CARD_NUMBER, COLOURS, HIDDEN_PER_PLAYER, NUM_CARDS, NUM_COLOURS, NUM_NUMBERS, NUM_PILES, PILE_NAMES,
    card_name,
)

CARD_FEATURES = NUM_COLOURS + NUM_NUMBERS
"""colour one-hot (6), number one-hot (11)."""
TABLE_FEATURES = 6
MAX_PLUS_PER_ROUND = 8
"""Two 6s hidden."""
MAX_MINUS_PER_ROUND = 120
"""Every card's stars (a bound, not reachable)."""
OBSERVATION_VERSION = 2


@dataclasses.dataclass(frozen=True)
class ObservationLayout(NamedSections):
    """Offsets and sizes of the named sections for one player count."""

    num_players: int
    rounds: int
    sections: tuple[tuple[str, int], ...]

    @classmethod
    def make(cls, num_players: int, rounds: int) -> "ObservationLayout":
        P = num_players
        sections = (
            ("phase", NUM_PHASES),
            ("acting_seat", P),
            ("hand", NUM_CARDS),
            ("hidden", NUM_CARDS),
            ("pile_tops", NUM_PILES * CARD_FEATURES),
            ("flip_card", CARD_FEATURES),
            ("discards", NUM_CARDS),
            ("seen", NUM_CARDS),
            ("hand_sizes", P),
            ("hidden_sizes", P),
            ("table", TABLE_FEATURES),
            ("dealer", P),
            ("scores", 2 * P),
            ("pool", NUM_CARDS),
            ("pool_holdings", NUM_CARDS * max(P - 1, 0)),
        )
        return cls(num_players, rounds, sections)

    def high(self) -> np.ndarray:
        """[O] float32 upper bound of every feature (lower bounds are 0)."""
        P, R = self.num_players, self.rounds
        out = np.ones(self.size, np.float32)
        out[self.slice("hand_sizes")] = NUM_CARDS
        out[self.slice("hidden_sizes")] = HIDDEN_PER_PLAYER
        table = self.slice("table").start
        out[table: table + 6] = (NUM_CARDS, NUM_CARDS, NUM_NUMBERS - 2, R, P, 1)
        scores = self.slice("scores").start
        out[scores: scores + 2 * P: 2] = MAX_PLUS_PER_ROUND * R
        out[scores + 1: scores + 2 * P: 2] = MAX_MINUS_PER_ROUND * R
        out[self.slice("pool")] = NUM_CARDS
        out[self.slice("pool_holdings")] = NUM_CARDS
        return out

def layout_for_width(width: int, rounds: int | None = None) -> ObservationLayout:
    """The layout of an observation ``width`` floats wide (the player count follows from it)."""
    widths = {ObservationLayout.make(p, 1).size: p for p in range(2, 6)}
    if width not in widths:
        raise ValueError(f"an observation of width {width} is no gap-game observation (2-5 players: "
                         f"{', '.join(map(str, widths))})")
    return ObservationLayout.make(widths[width], rounds or 1)


def _card_of(features: np.ndarray) -> int:
    """The card id of a colour+number encoding, -1 if empty."""
    if not features.any():
        return -1
    return int(features[:NUM_COLOURS].argmax()) * NUM_NUMBERS + int(features[NUM_COLOURS:].argmax())


def decode_cards(section: np.ndarray) -> list[int]:
    return np.flatnonzero(np.asarray(section) > 0.5).tolist()


def observation_string(observation: np.ndarray, layout: ObservationLayout | None = None) -> str:
    """What one seat knows, readably (one raw observation vector)."""
    obs = np.asarray(observation, np.float32)
    layout = layout or layout_for_width(obs.shape[-1])
    P = layout.num_players
    v = layout.split(obs)
    phase = Phase(int(v["phase"].argmax()))
    acting = int(v["acting_seat"].argmax()) if v["acting_seat"].any() else -1
    names = lambda cards: ", ".join(card_name(c) for c in cards) or "-"  # noqa: E731
    tops = [_card_of(v["pile_tops"][k * CARD_FEATURES:(k + 1) * CARD_FEATURES]) for k in range(NUM_PILES)]
    draw, under, gap, played, dry, extra = v["table"].astype(int).tolist()
    dealer = "you" if v["dealer"][0] else f"seat +{int(v['dealer'].argmax())}"
    lines = [f"phase {phase.name}; " + ("game over" if phase == Phase.OVER else
                                         "you to act" if acting == 0 else f"seat +{acting} to act")
             + f"; rounds played {played}; dealer {dealer}",
             "piles: " + " | ".join(f"{PILE_NAMES[k]} {card_name(tops[k])}" for k in range(NUM_PILES))
             + f"; gap {gap}; draw pile {draw}; below the tops {under}"
             + ("; extra turn" if extra else "") + (f"; {dry} passes in a row took nothing" if dry else "")]
    flip = _card_of(v["flip_card"])
    if flip >= 0:
        lines.append(f"turned up: {card_name(flip)} (choose a pile)")
    lines.append(f"your hand: {names(decode_cards(v['hand']))}")
    lines.append(f"your hidden cards: {names(decode_cards(v['hidden']))}")
    lines.append(f"seen this round: {names(decode_cards(v['seen']))}")
    for rel in range(P):
        plus, minus = v["scores"][2 * rel], v["scores"][2 * rel + 1]
        who = "you" if rel == 0 else f"seat +{rel}"
        lines.append(f"{who}: {int(v['hand_sizes'][rel])} in hand, {int(v['hidden_sizes'][rel])} hidden, "
                     f"score {int(plus - minus)}")
    return "\n".join(lines)


__all__ = ["ObservationLayout", "OBSERVATION_VERSION", "CARD_FEATURES", "observation_string", "layout_for_width",
           "decode_cards", "COLOURS", "CARD_COLOUR", "CARD_NUMBER"]
