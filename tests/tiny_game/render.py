"""The text view of one tiny_v0 game (face-down cards hidden unless ``reveal_all``)."""

from __future__ import annotations

from .core import TinyCore


def render_table(core: TinyCore, b: int, reveal_all: bool) -> str:
    head = "game over" if core.done[b] else f"round {core.round[b] + 1}/{core.rounds}, seat {core.current[b]} to act"
    return "\n".join([f"tiny_v0 hidden high card: {head}"] + [
        f"seat {p}: hand [{' '.join(str(c) if reveal_all else '??' for c in core.hands[b, p] if c) or '-'}], "
        f"played {core.table[b, p] or '-'}, {core.points[b, p]} points" for p in range(core.num_players)])
