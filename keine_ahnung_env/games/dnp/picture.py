"""A dnp table as a picture (``GameSpec.scene``): every seat's hand, the set(s) in front of it, its
points, and the cards discarded this round.

Points of view (the same as the observation's, ``observation.py``): a seat sees its own hand with
each card's active value upright (the inactive one printed upside down below it) and its own
selection in progress; everybody sees the sets on the table and the hand cards the table knows
(taken back or picked up, marked "seen"); other hand cards are backs, listed after the known ones so
that their place in the hand tells nothing. ``reveal_all`` shows every card and every selection.
"""

from __future__ import annotations

from ...pictures import Card, Scene, spread, view_label
from .kernels import LOC_DISCARD, LOC_TABLE

WIDTH = 960
PANEL_W, PANEL_H = 472, 118
MARGIN = 16
HAND_W = 236
"""Pixels of a panel given to the hand; the set(s) take the rest."""


def card_face(tables, core, b: int, card: int) -> Card:
    """Card ``card`` as it lies in game ``b``: its active value upright, its other value upside down,
    its symbol face and the star; named like the text view, ``"active(inactive)"``."""
    rot = int(core.card_rot[b, card])
    values = tables.values[card]
    active, other = int(values[rot]), int(values[1 - rot])
    info = tables.cards[card]
    symbol = "" if info.symbol == "none" else info.symbol
    return Card("ivory", str(active), f"{active}({other})", symbol=symbol, lower=str(other), star=bool(info.star))


def table_scene(core, b: int, seat: int | None, reveal_all: bool) -> Scene:
    """Game ``b`` as ``seat`` sees it (None: what the whole table sees; ``reveal_all``: everything)."""
    t, P, A = core.tables, core.num_players, core.rules.areas
    unit = "round wins" if P == 2 else "points"
    over = bool(core.terminated[b] or core.truncated[b])
    top = 60
    height = top + -(-P // 2) * (PANEL_H + 10) + 6
    scene = Scene(WIDTH, height, title="dnp", view=view_label(seat, reveal_all))
    if core.terminated[b]:
        head = f"game over after {int(core.turn[b])} moves"
    elif core.truncated[b]:
        head = f"cut off after {int(core.turn[b])} moves (max_turns)"
    else:
        head = (f"round {int(core.rounds[b]) + 1}, move {int(core.turn[b]) + 1}: seat {int(core.current[b])} to act"
                + (f" (area {int(core.area[b]) + 1})" if A == 2 else ""))
    scene.text(MARGIN, 10, f"dnp, {P} players - {head}", size=18)
    gone = int((core.card_loc[b] == LOC_DISCARD).sum())
    scene.text(MARGIN, 34, f"{scene.view}; discarded this round: {gone} cards", size=13, colour="muted")
    current = int(core.current[b])
    for p in range(P):
        x = MARGIN + (p % 2) * PANEL_W
        y = top + (p // 2) * (PANEL_H + 10)
        mine = seat == p
        acting = not over and current == p
        title = (f"seat {p}" + (" (you)" if mine else "") + f" - {int(core.points[b, p])} {unit}"
                 + f" - hand {len(core.hand(b, p))}" + (" - out" if core.out[b, p] else "") + ("  - to act" if acting else ""))
        scene.panel(x, y, PANEL_W - 8, PANEL_H, title, highlight=acting, seat=p)
        hand = core.hand(b, p)
        see_all = reveal_all or mine
        value = lambda c: (int(t.values[c, core.card_rot[b, c]]), c)  # noqa: E731
        if see_all:
            shown, backs = sorted(hand, key=value), 0
        else:
            shown = sorted((c for c in hand if core.card_public[b, c]), key=value)
            backs = len(hand) - len(shown)
        # The selection in progress is the selecting seat's own business.
        see_selection = acting and (reveal_all or mine)
        offsets = spread(len(shown) + backs, HAND_W)
        for dx, card in zip(offsets, shown):
            mark = "selected" if see_selection and core.card_selected[b, card] else (
                "known" if core.card_public[b, card] else "")
            scene.card(x + 10 + dx, y + 28 + (-6 if mark == "selected" else 0), card_face(t, core, b, card), "hand",
                       seat=p, mark=mark)
        for dx in offsets[len(shown):]:
            scene.back(x + 10 + dx, y + 28, "hand", seat=p)
        set_w = (PANEL_W - 8 - 20 - HAND_W - 16) // A
        for a in range(A):
            pos = p * A + a
            sx = x + 10 + HAND_W + 16 + a * set_w
            cards = [c for c in range(t.num_cards) if core.card_loc[b, c] == LOC_TABLE and core.card_where[b, c] == pos]
            scene.text(sx, y + 6 if A == 1 else y + 22, "set" if A == 1 else f"area {a + 1}", size=12, colour="muted")
            if not cards:
                scene.empty(sx, y + 38, "set", seat=p)
            for dx, card in zip(spread(len(cards), set_w - 8), cards):
                scene.card(sx + dx, y + 38, card_face(t, core, b, card), "set", seat=p)
    return scene
