"""A dnp table as a picture (``GameSpec.scene``): every seat's hand, the set(s) in front of it, its
points, and the cards discarded this round.

Points of view (the same as the observation's, ``observation.py``): a seat sees its own hand with
each card's active value upright (the inactive one printed upside down below it) and its own
selection in progress; everybody sees the sets on the table and the hand cards the table knows
(taken back or picked up, marked "seen"); other hand cards are backs, listed after the known ones so
that their place in the hand tells nothing. ``reveal_all`` shows every card and every selection.

A seat's panel spans the table's width, so that a hand of up to 13 cards lies in one row with every
card's two values and its "seen" mark in view; a larger hand takes further rows.

Targets (clicking to play, see ``keine_ahnung_env.pictures``), on the acting seat's own view: a hand
card selects it (SELECT), the acting seat's own set place plays the selection (PLAY), another
player's set adds the one selected card to it (ADD) or, with nothing selected, takes it (TAKE: ADD
and TAKE are never legal together). TURN (the whole hand) has no card and stays a button.
"""

from __future__ import annotations

from ...pictures import CARD_H, CARD_W, Box, Card, Scene, fanned, spread, view_label
from .kernels import LOC_DISCARD, LOC_TABLE

WIDTH = 960
MARGIN = 16
PANEL_W, PANEL_H = WIDTH - 2 * MARGIN, 118
"""A panel's width (the table's) and its height with a one-row hand."""
HAND_W = 600
"""Pixels of a panel given to the hand; the set(s) take the rest."""
HAND_STEP = 46
"""The least distance between overlapping hand cards: a card shows both values and its "seen" mark."""
ROW_CARDS = (HAND_W - CARD_W) // HAND_STEP + 1
"""Hand cards in a row; a larger hand takes more rows."""
ROW_H = CARD_H + 6


def card_face(tables, core, b: int, card: int) -> Card:
    """Card ``card`` as it lies in game ``b``: its active value upright, its other value upside down,
    its symbol face and the star; named like the text view, ``"active(inactive)"``."""
    rot = int(core.card_rot[b, card])
    values = tables.values[card]
    active, other = int(values[rot]), int(values[1 - rot])
    info = tables.cards[card]
    symbol = "" if info.symbol == "none" else info.symbol
    return Card("ivory", str(active), f"{active}({other})", symbol=symbol, lower=str(other), star=bool(info.star))


def hand_rows(count: int) -> int:
    """Rows a hand of ``count`` cards takes."""
    return max(1, -(-count // ROW_CARDS))


def table_scene(core, b: int, seat: int | None, reveal_all: bool) -> Scene:
    """Game ``b`` as ``seat`` sees it (None: what the whole table sees; ``reveal_all``: everything)."""
    t, P, A = core.tables, core.num_players, core.rules.areas
    L = core.actions
    unit = "round wins" if P == 2 else "points"
    over = bool(core.terminated[b] or core.truncated[b])
    top = 60
    extra = [(hand_rows(len(core.hand(b, p))) - 1) * ROW_H for p in range(P)]
    height = top + sum(PANEL_H + 10 + e for e in extra) + 6
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
    # Clicks make moves on the acting seat's own view (and the full view) only: elsewhere the boxes of
    # its hand would tell which back is which card.
    clicks = not over and (reveal_all or seat == current)
    legal = core.legal_mask[b]
    hand_boxes: dict[int, Box] = {}
    set_boxes: dict[int, Box] = {}
    y = top
    for p in range(P):
        x = MARGIN
        mine = seat == p
        acting = not over and current == p
        title = (f"seat {p}" + (" (you)" if mine else "") + f" - {int(core.points[b, p])} {unit}"
                 + f" - hand {len(core.hand(b, p))}" + (" - out" if core.out[b, p] else "") + ("  - to act" if acting else ""))
        scene.panel(x, y, PANEL_W, PANEL_H + extra[p], title, highlight=acting, seat=p)
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
        count = len(shown) + backs
        boxes = []
        for row in range(hand_rows(count)):
            indices = range(row * ROW_CARDS, min(count, (row + 1) * ROW_CARDS))
            row_boxes = []
            for dx, index in zip(spread(len(indices), HAND_W), indices):
                hx, hy = x + 10 + dx, y + 28 + row * ROW_H
                if index < len(shown):
                    c = shown[index]
                    mark = "selected" if see_selection and core.card_selected[b, c] else (
                        "known" if core.card_public[b, c] else "")
                    row_boxes.append(scene.card(hx, hy + (-6 if mark == "selected" else 0), card_face(t, core, b, c),
                                                "hand", seat=p, mark=mark))
                else:
                    row_boxes.append(scene.back(hx, hy, "hand", seat=p))
            boxes += fanned(row_boxes)
        if acting:
            hand_boxes = dict(zip(shown, boxes))
        set_w = (PANEL_W - 20 - HAND_W - 16) // A
        for a in range(A):
            pos = p * A + a
            sx = x + 10 + HAND_W + 16 + a * set_w
            cards = [c for c in range(t.num_cards) if core.card_loc[b, c] == LOC_TABLE and core.card_where[b, c] == pos]
            scene.text(sx, y + 6 if A == 1 else y + 22, "set" if A == 1 else f"area {a + 1}", size=12, colour="muted")
            if not cards:
                set_boxes[pos] = scene.empty(sx, y + 38, "set", seat=p)
            for dx, card in zip(spread(len(cards), set_w - 8), cards):
                box = scene.card(sx + dx, y + 38, card_face(t, core, b, card), "set", seat=p)
                set_boxes[pos] = set_boxes[pos].union(box) if pos in set_boxes else box
        y += PANEL_H + 10 + extra[p]
    if clicks:
        for card, box in hand_boxes.items():
            if legal[card]:
                scene.target(card, box)
        if legal[L.play]:
            scene.target(L.play, set_boxes[current * A + int(core.area[b])])
        for target in range(L.num_targets):
            pos = L.target_position(current, target)
            for action in (L.add_base + target, L.take_base + target):
                if pos >= 0 and legal[action]:
                    scene.target(action, set_boxes[pos])
    return scene
