"""A scripted player for ``training.play.play``: answers every prompt with the first key of the moves
the game listed last (``Your moves: kind: key key; kind: key``), after some lines given first."""

from __future__ import annotations

import io
import re
from typing import Callable, Iterable

ANSI = re.compile(r"\x1b\[[0-9;]*m")


def first_key(screen: str) -> str:
    """The first key of the last 'Your moves: ...' line of ``screen``."""
    line = [x for x in ANSI.sub("", screen).splitlines() if x.startswith("Your moves: ")][-1]
    return line[len("Your moves: "):].split("; ")[0].split(": ", 1)[1].split()[0]


def first_moves(out: io.StringIO, before: Iterable[str] = (), limit: int = 10_000) -> Callable[[], str]:
    """A ``read`` that answers ``before`` first, then the first listed key (at most ``limit`` times)."""
    lines = iter(before)
    count = [0]

    def read() -> str:
        for line in lines:
            return line
        count[0] += 1
        if count[0] > limit:
            raise EOFError
        return first_key(out.getvalue())

    return read
