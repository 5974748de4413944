"""A Keine Ahnung table as a picture (``GameSpec.scene``): discard pile tops, the draw pile, the
trophy pile, the card awaiting a pile, and every seat's six layout slots, trophies and prizes.

Points of view (the same as the observation's, ``observation.py``): every seat sees the same table
except its own trophy values. A face-down layout card is a back unless the table has seen it and the
rules keep memory (``memory="perfect"``): then it shows with a "seen" band. Opponents' trophies are
face down (their count is public), so their scores show only once the game is over. ``reveal_all``
shows every card, the draw pile's next cards and every trophy.

Targets (clicking to play, see ``keine_ahnung_env.pictures``), on the acting seat's own view: a card
of its layout reveals it (REVEAL), a discard pile places the waiting card on it (PLACE; piles with
the same top are the same move), the waiting card itself keeps it face down (KEEP), and the trophy
pile calls "Nothing fits anymore!" (CALL: the call plays for the top trophy).
"""

from __future__ import annotations

from ...pictures import CARD_H, CARD_W, SMALL_W, Card, Scene, spread, view_label
from .actions import ACTION_CALL, ACTION_KEEP, Phase, place_action
from .config import SLOTS
from .core import LOC_ASIDE, LOC_PRIZE, KeineAhnungCore
from .deck import COLOURS, FUNCTIONS

WIDTH = 960
PANEL_W, PANEL_H = 472, 180
MARGIN = 16
PILE_X = 236
"""Where the discard piles start (left of it: the draw pile, trophies and the card awaiting a pile)."""


def card_face(tables, card: int) -> Card:
    """The face of card id ``card``: a number card in its colour (function symbol in the corner) or a
    golden consolation prize."""
    if tables.is_prize[card]:
        value = int(tables.prize_value[card])
        return Card("gold", f"+{value}", tables.card_name(card), note="prize")
    return Card(COLOURS[int(tables.colour[card])], str(int(tables.number[card])), tables.card_name(card),
                symbol="" if tables.function[card] == 0 else FUNCTIONS[int(tables.function[card])])


DECIDING = {Phase.MAIN: "reveal a card or call", Phase.PLACE_DRAWN: "place the drawn card",
            Phase.PLACE_REVEALED: "place the revealed card"}
"""What the seat to act decides, in words (the picture's header names no internal phase)."""


def table_scene(core: KeineAhnungCore, b: int, seat: int | None, reveal_all: bool) -> Scene:
    """Game ``b`` as ``seat`` sees it (None: any seat's common view; ``reveal_all``: everything)."""
    t, P = core.tables, core.num_players
    phase = Phase(int(core.phase[b]))
    over = phase == Phase.OVER
    perfect = core.rules.memory == "perfect"
    piles = [int(c) for c in core.pile_top[b, : core.pile_count[b]]]
    per_row = (WIDTH - PILE_X - MARGIN) // (CARD_W + 6)
    pile_rows = max(1, -(-len(piles) // per_row))
    top = 60
    seats_y = top + 20 + pile_rows * (CARD_H + 6) + 14
    height = seats_y + -(-P // 2) * (PANEL_H + 10) + 6
    scene = Scene(WIDTH, height, title="Keine Ahnung / No Idea", view=view_label(seat, reveal_all))

    head = f"Keine Ahnung / No Idea - turn {int(core.turn[b])}: " + (
        "game over" if over else f"seat {int(core.current[b])} to act: {DECIDING[phase]}")
    scene.text(MARGIN, 10, head, size=18)
    scene.text(MARGIN, 34, scene.view, size=13, colour="muted")
    current = int(core.current[b])
    # Clicks make moves on the acting seat's own view (and the full view) only.
    legal = core.legal_mask[b] if not over and (reveal_all or seat == current) else None

    # The middle of the table: draw pile, trophy pile, the card awaiting a pile, the discard piles.
    draw = core.draw_cards[b, core.draw_pos[b]: core.draw_len[b]]
    scene.text(MARGIN, top, "draw pile", size=12, colour="muted")
    if reveal_all and draw.size:
        scene.card(MARGIN, top + 18, card_face(t, int(draw[0])), "draw")
        scene.text(MARGIN, top + 18 + CARD_H + 2, f"{draw.size} cards", size=11, colour="muted")
    elif draw.size:
        scene.back(MARGIN, top + 18, "draw", label=str(int(draw.size)))
    else:
        scene.empty(MARGIN, top + 18, "draw")
    left = t.num_trophies - int(core.trophy_pos[b])
    scene.text(MARGIN + 60, top, "trophies", size=12, colour="muted")
    if left:
        next_value = int(core.trophy_order[b, core.trophy_pos[b]]) if reveal_all else None
        box = scene.trophy(MARGIN + 66, top + 22, next_value, "trophy_pile", label=f"{left}")
        if legal is not None and legal[ACTION_CALL]:
            scene.target(ACTION_CALL, box)
        scene.text(MARGIN + 60, top + 68, f"{left} left", size=11, colour="muted")
    if core.pending[b] >= 0:
        scene.text(MARGIN + 118, top, "to place", size=12, colour="muted")
        box = scene.card(MARGIN + 120, top + 18, card_face(t, int(core.pending[b])), "pending", mark="pending")
        if legal is not None and legal[ACTION_KEEP]:
            scene.target(ACTION_KEEP, box)
    aside = int((core.card_loc[b] == LOC_ASIDE).sum())
    scene.text(PILE_X, top, f"discard piles ({len(piles)}); set aside: {aside}", size=12, colour="muted")
    for k, card in enumerate(piles):
        row, col = divmod(k, per_row)
        box = scene.card(PILE_X + col * (CARD_W + 6), top + 18 + row * (CARD_H + 6), card_face(t, card), "pile")
        place = place_action(int(core.pile_face[b, k]))
        if legal is not None and legal[place]:
            scene.target(place, box)

    # The seats.
    scores = core.scores[b]
    for p in range(P):
        x = MARGIN + (p % 2) * PANEL_W
        y = seats_y + (p // 2) * (PANEL_H + 10)
        mine = seat == p
        show_values = reveal_all or mine or over
        title = f"seat {p}" + (" (you)" if mine else "")
        if show_values:
            title += f" - score {int(scores[p])}"
        acting = not over and int(core.current[b]) == p
        scene.panel(x, y, PANEL_W - 8, PANEL_H, title + ("  - to act" if acting else ""), highlight=acting, seat=p)
        for slot in range(SLOTS):
            cx = x + 10 + (slot % 3) * (CARD_W + 6)
            cy = y + 28 + (slot // 3) * (CARD_H + 6)
            card = int(core.layout[b, p, slot])
            if card < 0:
                scene.empty(cx, cy, "layout", seat=p)
                continue
            if reveal_all or (perfect and core.card_known[b, card]):
                box = scene.card(cx, cy, card_face(t, card), "layout", seat=p,
                                 mark="known" if perfect and core.card_known[b, card] else "")
            else:
                box = scene.back(cx, cy, "layout", seat=p)
            if legal is not None and p == current and legal[slot]:
                scene.target(slot, box)
        # Trophies: values for their owner (and everybody once the game is over), else face down.
        owned = core.trophy_order[b][core.trophy_owner[b] == p].tolist()
        tx = x + 190
        scene.text(tx, y + 28, f"trophies: {len(owned)}", size=12, colour="muted")
        for dx, value in zip(spread(len(owned), PANEL_W - 8 - 200, 34, 4), owned):
            scene.trophy(tx + dx, y + 46, int(value) if show_values else None, "trophies", seat=p)
        prizes = [c for c in range(t.num_cards) if core.card_loc[b, c] == LOC_PRIZE and core.card_where[b, c] == p]
        scene.text(tx, y + 98, f"prizes: {len(prizes)} ({int(core.prize_points[b, p])} pts)", size=12,
                   colour="muted")
        for dx, card in zip(spread(len(prizes), PANEL_W - 8 - 200, SMALL_W, 4), prizes):
            scene.card(tx + dx, y + 116, card_face(t, card), "prizes", seat=p, small=True)
    return scene
