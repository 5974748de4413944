"""A text picture of one Keine Ahnung table, as the players around it would see it.

Face-down cards show as ``??`` and opponents' trophy values as a count only, unless
``reveal_all=True`` (for debugging), which shows every card, the draw pile and every trophy.
"""

from __future__ import annotations

from .actions import Phase
from .config import SLOTS
from .core import LOC_ASIDE, KeineAhnungCore


def render_table(core: KeineAhnungCore, b: int = 0, reveal_all: bool = False) -> str:
    """The table of game ``b`` as text (face-down cards hidden unless ``reveal_all``)."""
    t, P = core.tables, core.num_players
    name = t.card_name
    phase = Phase(int(core.phase[b]))
    lines = [f"Keine Ahnung - turn {int(core.turn[b])}, "
             + ("game over" if phase == Phase.OVER else f"seat {int(core.current[b])} to act ({phase.name})")]
    piles = [name(int(c)) for c in core.pile_top[b, : core.pile_count[b]]]
    lines.append(f"Discard piles ({len(piles)}): " + (" | ".join(piles) if piles else "none"))
    draw = core.draw_cards[b, core.draw_pos[b] : core.draw_len[b]]
    aside = int((core.card_loc[b] == LOC_ASIDE).sum())
    lines.append(f"Draw pile: {draw.size} cards"
                 + (f" (top first: {', '.join(name(int(c)) for c in draw)})" if reveal_all else "")
                 + f"; set aside: {aside}; trophies left: {t.num_trophies - int(core.trophy_pos[b])}")
    if core.pending[b] >= 0:
        source = f"slot {int(core.pending_slot[b])}" if core.pending_slot[b] >= 0 else "the draw pile"
        lines.append(f"Awaiting a pile: {name(int(core.pending[b]))} (from {source})")
    for seat in range(P):
        cells = []
        for slot in range(SLOTS):
            card = int(core.layout[b, seat, slot])
            if card < 0:
                cells.append("  --  ")
            elif reveal_all or core.card_known[b, card] and core.rules.memory == "perfect":
                cells.append(f"{name(card):^6}" if reveal_all else f"({name(card)})")
            else:
                cells.append("  ??  ")
        owned = core.trophy_order[b][core.trophy_owner[b] == seat]
        trophies = f"{owned.size} ({', '.join(map(str, owned.tolist()))})" if reveal_all else f"{owned.size}"
        marker = ">" if seat == core.current[b] and phase != Phase.OVER else " "
        lines.append(f"{marker}seat {seat}: [{' '.join(cells[:3])}] [{' '.join(cells[3:])}]  trophies {trophies}, "
                     f"prizes {int(core.prize_count[b, seat])} ({int(core.prize_points[b, seat])} pts)")
    if phase == Phase.OVER:
        lines.append("Final scores: " + ", ".join(f"seat {p}: {int(s)}" for p, s in enumerate(core.scores[b])))
    return "\n".join(lines)


def describe_move(core: KeineAhnungCore, b: int, seat: int, action: int):
    """What everybody at the table sees ``seat`` do with ``action`` in game ``b`` (only public
    information). Called before the move is played; returns ``after(core) -> str`` to call once it is
    (``GameSpec.describe_move``; ``training.play``'s recap)."""
    from .actions import ACTION_CALL, ACTION_KEEP, action_name
    from .core import LOC_LAYOUT

    layout = core.layout[b, seat].copy()
    trophies = int(core.trophy_count[b, seat])
    pending = int(core.pending[b])

    def after(core: KeineAhnungCore) -> str:
        t = core.tables
        name = action_name(action)
        if action < SLOTS:
            card = int(layout[action])
            placed = core.card_loc[b, card] != LOC_LAYOUT or core.pending[b] == card
            outcome = ("a consolation prize" if t.is_prize[card]
                       else "fits" if placed else "does not fit; face down again")
            return f"{name}: {t.card_name(card)} ({outcome})"
        if action == ACTION_CALL:
            won = core.trophy_count[b, seat] > trophies
            return f"CALL 'Nothing fits anymore!': {'success, a trophy' if won else 'failed'}"
        if action == ACTION_KEEP:
            return "KEEP: put the card back face down"
        return f"{name}: placed {t.card_name(pending)}" if pending >= 0 else name

    return after
