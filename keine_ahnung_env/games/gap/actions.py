"""Action ids and decision phases of the gap game.

| id      | name                     | meaning                                                             |
|---------|--------------------------|---------------------------------------------------------------------|
| 0-131   | PLAY_<COLOUR>_<N>_<PILE> | play hand card (colour, number) on the left / right discard pile     |
| 132     | PASS                     | pass: take the top draw card into the hand (nothing if none is left) |
| 133-198 | HIDE_<COLOUR>_<N>        | lay hand card (colour, number) face down as a hidden card            |
| 199-200 | FLIP_LEFT, FLIP_RIGHT    | no gap: turn the top draw card face up onto the left / right pile    |

``PLAY`` id = ``2 * card + pile`` with ``card = colour * 11 + number - 1`` (pile 0 = left, 1 = right);
``HIDE`` id = ``133 + card``; ``FLIP`` id = ``199 + pile``.
"""

from __future__ import annotations

import enum

from .deck import COLOURS, NUM_CARDS, NUM_NUMBERS, NUM_PILES, PILE_NAMES

ACTION_PLAY_BASE = 0
ACTION_PASS = NUM_CARDS * NUM_PILES  # 132
ACTION_HIDE_BASE = ACTION_PASS + 1  # 133
ACTION_FLIP_BASE = ACTION_HIDE_BASE + NUM_CARDS  # 199
NUM_ACTIONS = ACTION_FLIP_BASE + NUM_PILES  # 201


def play_action(card: int, pile: int) -> int:
    """The id of playing ``card`` on ``pile`` (0 left, 1 right)."""
    return ACTION_PLAY_BASE + 2 * int(card) + int(pile)


def hide_action(card: int) -> int:
    return ACTION_HIDE_BASE + int(card)


def flip_action(pile: int) -> int:
    return ACTION_FLIP_BASE + int(pile)


def _members() -> dict[str, int]:
    members = {}
    for card in range(NUM_CARDS):
        colour, number = COLOURS[card // NUM_NUMBERS].upper(), card % NUM_NUMBERS + 1
        for pile in range(NUM_PILES):
            members[f"PLAY_{colour}_{number}_{PILE_NAMES[pile].upper()}"] = play_action(card, pile)
    members["PASS"] = ACTION_PASS
    for card in range(NUM_CARDS):
        members[f"HIDE_{COLOURS[card // NUM_NUMBERS].upper()}_{card % NUM_NUMBERS + 1}"] = hide_action(card)
    for pile in range(NUM_PILES):
        members[f"FLIP_{PILE_NAMES[pile].upper()}"] = flip_action(pile)
    return members


Action = enum.IntEnum("Action", _members())
Action.__doc__ = "Named action ids (see the module table)."


class Phase(enum.IntEnum):
    """What the seat to act is deciding."""

    HIDE = 0
    """Choose a hand card to lay face down as a hidden card (two per player, at the start of a round)."""
    FLIP = 1
    """No gap at the start of the turn: choose the pile for the turned-up top draw card."""
    PLAY = 2
    """Play a hand card on a pile, or pass."""
    OVER = 3
    """The game has ended (terminated or truncated); no seat acts."""


NUM_PHASES = len(Phase)


def action_name(action: int) -> str:
    """The readable name of an action id, e.g. ``'PLAY_RED_6_LEFT'``."""
    try:
        return Action(int(action)).name
    except ValueError:
        return f"<invalid action {action}>"
