"""The terminal side of ``training.play``: colour where the terminal has it, and each game's view.

A game's terminal view is its ``GameSpec.terminal_view(spec, core, seat)`` (in its ``render.py``): an
object with ``keys`` (action id -> the key typed for it, derived from the id so it never changes
meaning), ``group``, ``table``, ``decision``, ``details``, ``describe``
and ``LEGEND`` (``keine_ahnung_env/games/keine_ahnung/render.py`` is the example). A game without
one is shown through the generic :class:`PlainView`: its observation text and its action names.
"""

from __future__ import annotations

import os
from typing import Any, Callable, TextIO

ANSI = {
    "blue": "34", "grey": "90", "green": "32", "yellow": "33", "red": "31", "purple": "35", "prize": "1;36",
    "you": "1", "seat": "0", "key": "1;36", "title": "1", "good": "32", "bad": "31", "dim": "2",
}


def colour_wanted(stream: TextIO) -> bool:
    """Colour on ``stream``: a terminal (isatty) whose TERM is not ``dumb``, and no ``NO_COLOR``
    in the environment (https://no-color.org)."""
    if "NO_COLOR" in os.environ:
        return False
    if os.environ.get("TERM", "") in ("", "dumb"):
        return False
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def painter(enabled: bool) -> Callable[[str, str], str]:
    """``paint(text, role) -> text``: wraps ``text`` in the ANSI colour of ``role`` (a colour name of
    the games, ``you``, ``key``, ``good``...) when ``enabled``; unchanged otherwise."""
    if not enabled:
        return lambda text, role="": text

    def paint(text: str, role: str = "") -> str:
        code = ANSI.get(role)
        return f"\x1b[{code}m{text}\x1b[0m" if code and code != "0" else text

    return paint


class PlainView:
    """The view of a game without its own terminal view: the seat's observation text, keys that are
    the action names in lower case."""

    LEGEND = "Moves are named by the game's action names; the table is the game's own text view of what you know."

    def __init__(self, spec: Any):
        self.spec = spec
        self.keys = {a: name.lower() for a, name in enumerate(spec.action_names)}

    def group(self, action: int) -> str:
        return "moves"

    def table(self, core: Any, seat: int, label: Callable[[int], str], paint: Callable[[str, str], str]) -> str:
        return self.spec.observation_string(core.observe(seat)[0])

    def decision(self, core: Any, seat: int, legal: list[int]) -> str:
        return "choose a move"

    def details(self, core: Any, seat: int, observation_text: str) -> str:
        return observation_text

    def describe(self, core: Any, seat: int, action: int, label: Callable[[int], str]):
        spec = self.spec
        if spec.describe_move is not None:
            return spec.describe_move(core, 0, seat, action)
        name = spec.action_name(action)
        return lambda core: name


def view_for(spec: Any, core: Any, seat: int = 0) -> Any:
    """The terminal view of ``spec``'s game for ``seat`` at ``core``'s table: the game's
    ``GameSpec.terminal_view``, or :class:`PlainView` for a game without one."""
    return spec.terminal_view(spec, core, seat) if spec.terminal_view is not None else PlainView(spec)


def moves_line(view: Any, legal: list[int], paint: Callable[[str, str], str]) -> str:
    """The legal moves as their keys, grouped by kind: ``reveal: r0 r2 r5; call: c``."""
    groups: dict[str, list[str]] = {}
    for action in legal:
        groups.setdefault(view.group(action), []).append(paint(view.keys[action], "key"))
    return "; ".join(f"{kind}: {' '.join(keys)}" for kind, keys in groups.items())


COMMANDS = """\
Commands: type a move's key and Enter. Keys never change their meaning during a game.
  ?   this help        u   the long lists (cards not seen yet ...)        t   the table again
  q   leave the game (Ctrl-C and Ctrl-D too; with --record the replay is written)"""
