"""Action ids and decision phases of Keine Ahnung.

| id     | name            | meaning                                                                  |
|--------|-----------------|--------------------------------------------------------------------------|
| 0-5    | REVEAL_0..5     | reveal the face-down card in layout slot s (rows: slots 0-2, 3-5)         |
| 6      | CALL            | "Nothing fits anymore!" (legal with 1-3 layout cards)                     |
| 7-42   | PLACE_<C>_<N>   | put the pending card on the discard pile whose top shows colour C, number N |
| 43     | KEEP            | put the revealed card back face down although it fits (``allow_keep``)    |

Piles whose tops show the same colour and number are equivalent for play; the card goes on the oldest
such pile.
"""

from __future__ import annotations

import enum

from .deck import COLOURS, NUM_FACES, NUMBERS

NUM_SLOT_ACTIONS = 6
ACTION_CALL = 6
ACTION_PLACE_BASE = 7
ACTION_KEEP = ACTION_PLACE_BASE + NUM_FACES
NUM_ACTIONS = ACTION_KEEP + 1


def _action_members() -> dict[str, int]:
    members = {f"REVEAL_{s}": s for s in range(NUM_SLOT_ACTIONS)}
    members["CALL"] = ACTION_CALL
    for c, colour in enumerate(COLOURS):
        for number in NUMBERS:
            members[f"PLACE_{colour.upper()}_{number}"] = ACTION_PLACE_BASE + c * len(NUMBERS) + number - 1
    members["KEEP"] = ACTION_KEEP
    return members


Action = enum.IntEnum("Action", _action_members())
Action.__doc__ = "Named action ids (see the module table)."


class Phase(enum.IntEnum):
    """What the seat to act is deciding."""

    MAIN = 0
    """Reveal a face-down layout card or call "Nothing fits anymore!"."""
    PLACE_DRAWN = 1
    """Choose the pile for a card from the draw pile that fits several piles."""
    PLACE_REVEALED = 2
    """Choose the pile for one's own revealed card (or keep it, with ``allow_keep``)."""
    OVER = 3
    """The game has ended (terminated or truncated); no seat acts."""


NUM_PHASES = len(Phase)


def place_action(face: int) -> int:
    """The PLACE action for a pile top face (colour*6 + number-1)."""
    return ACTION_PLACE_BASE + int(face)


def action_name(action: int) -> str:
    """The readable name of an action id, e.g. 'REVEAL_2', 'PLACE_RED_5'."""
    try:
        return Action(int(action)).name
    except ValueError:
        return f"<invalid action {action}>"
