"""A gap-game table as a picture (``GameSpec.scene``): the two discard piles (the gap between their
numbers), the draw pile, the turned-up card, and every seat's hand, hidden cards and score.

Points of view (the same as the observation's, ``observation.py``): a seat sees its own hand and
hidden cards; everybody sees the pile tops (once laid: while hidden cards are being chosen the
starting cards are backs), the turned-up card, hand sizes and scores. Opponents' hands and hidden
cards are backs, the draw pile a count. ``reveal_all`` shows every hand, every hidden card and the
draw pile's next cards.

Targets (clicking to play, see ``keine_ahnung_env.pictures``), on the acting seat's own view: a hand
card lays it face down while hidden cards are chosen (HIDE) and is played otherwise (PLAY: the card,
then the pile; both PLAY moves of a card share the card's box and are told apart by the pile); the
draw pile passes (PASS); with no gap, a pile takes the turned-up draw card (FLIP).
"""

from __future__ import annotations

from ...pictures import CARD_H, CARD_W, SMALL_W, Card, Scene, fanned, spread, view_label
from .actions import ACTION_PASS, Phase, flip_action, hide_action, play_action
from .deck import CARD_STARS, COLOURS, NUM_NUMBERS, PILE_NAMES, card_name, gap_width
from .kernels import LOC_UNDER

WIDTH = 960
PANEL_W, PANEL_H = 472, 118
MARGIN = 16
PREVIEW = 12
"""Draw-pile cards shown face up with ``reveal_all``."""


def card_face(card: int) -> Card:
    """A gap card: its number in its colour, its stars (minus points) as pips."""
    card = int(card)
    return Card(COLOURS[card // NUM_NUMBERS], str(card % NUM_NUMBERS + 1), card_name(card), pips=int(CARD_STARS[card]))


DECIDING = {Phase.HIDE: "lay a hidden card", Phase.FLIP: "place the turned-up card",
            Phase.PLAY: "play a card or pass"}
"""What the seat to act decides, in words (the picture's header names no internal phase)."""


def table_scene(core, b: int, seat: int | None, reveal_all: bool) -> Scene:
    """Game ``b`` as ``seat`` sees it (None: what the whole table sees; ``reveal_all``: everything)."""
    P = core.num_players
    phase = Phase(int(core.phase[b]))
    over = phase == Phase.OVER
    top = 60
    seats_y = top + 20 + CARD_H + 40
    height = seats_y + -(-P // 2) * (PANEL_H + 10) + 6
    scene = Scene(WIDTH, height, title="The gap game", view=view_label(seat, reveal_all))
    rounds = core.rules.rounds
    head = (f"The gap game - round {min(int(core.round[b]) + 1, rounds)}/{rounds}, turn {int(core.turn[b])}: "
            + ("game over" if over else f"seat {int(core.current[b])} to act: {DECIDING[phase]}"
               + (" (extra turn)" if core.extra_turn[b] else "")))
    scene.text(MARGIN, 10, head, size=18)
    scene.text(MARGIN, 34, scene.view, size=13, colour="muted")
    current = int(core.current[b])
    # Clicks make moves on the acting seat's own view (and the full view) only.
    legal = core.legal_mask[b] if not over and (reveal_all or seat == current) else None

    draw = core.draw_cards[b, core.draw_pos[b]:core.draw_len[b]].tolist()
    scene.text(MARGIN, top, f"draw pile ({len(draw)})", size=12, colour="muted")
    if draw:
        draw_box = scene.back(MARGIN, top + 18, "draw", label=str(len(draw)))
    else:
        draw_box = scene.empty(MARGIN, top + 18, "draw")
    if legal is not None and legal[ACTION_PASS]:
        scene.target(ACTION_PASS, draw_box)
    laid = phase != Phase.HIDE
    x = MARGIN + 90
    tops = [int(c) for c in core.pile_top[b]]
    pile_boxes = []
    for pile in range(2):
        px = x + pile * (CARD_W + 14)
        scene.text(px, top, PILE_NAMES[pile], size=12, colour="muted")
        if laid or reveal_all:
            pile_boxes.append(scene.card(px, top + 18, card_face(tops[pile]), "pile"))
        else:
            pile_boxes.append(scene.back(px, top + 18, "pile"))
        if legal is not None and legal[flip_action(pile)]:
            scene.target(flip_action(pile), pile_boxes[pile])
    under = int((core.card_loc[b] == LOC_UNDER).sum())
    gap = f"gap: {gap_width(*tops)}" if laid else "starting cards not laid yet"
    scene.text(x, top + 18 + CARD_H + 4, f"{gap}; {under} below the tops", size=12, colour="muted")
    if core.pending[b] >= 0:
        scene.text(x + 140, top, "turned up", size=12, colour="muted")
        scene.card(x + 140, top + 18, card_face(int(core.pending[b])), "pending", mark="pending")
    if reveal_all and draw:
        px = x + 220
        scene.text(px, top, "next draw cards (top first)", size=12, colour="muted")
        for dx, card in zip(spread(min(len(draw), PREVIEW), WIDTH - MARGIN - px, SMALL_W, 4), draw[:PREVIEW]):
            scene.card(px + dx, top + 18, card_face(card), "draw_order", small=True)

    for p in range(P):
        x = MARGIN + (p % 2) * PANEL_W
        y = seats_y + (p // 2) * (PANEL_H + 10)
        mine = seat == p
        acting = not over and int(core.current[b]) == p
        title = (f"seat {p}" + (" (you)" if mine else "") + f" - score {int(core.score[b, p])}"
                 + f" - hand {int(core.hand_count[b, p])}"
                 + (" - dealer" if int(core.dealer[b]) == p else "") + ("  - to act" if acting else ""))
        scene.panel(x, y, PANEL_W - 8, PANEL_H, title, highlight=acting, seat=p)
        see = reveal_all or mine
        hand = core.hand(b, p)
        hidden = core.hidden(b, p)
        hand_w = PANEL_W - 8 - 20 - 2 * (CARD_W + 6) - 10
        boxes = []
        for dx, card in zip(spread(len(hand), hand_w), hand):
            if see:
                boxes.append(scene.card(x + 10 + dx, y + 28, card_face(card), "hand", seat=p))
            else:
                boxes.append(scene.back(x + 10 + dx, y + 28, "hand", seat=p))
        if legal is not None and p == current and see:
            for card, box in zip(hand, fanned(boxes)):
                if legal[hide_action(card)]:
                    scene.target(hide_action(card), box)
                for pile in range(2):
                    if legal[play_action(card, pile)]:
                        scene.target(play_action(card, pile), box, then=pile_boxes[pile])
        hx = x + PANEL_W - 8 - 2 * (CARD_W + 6) - 4
        for k, card in enumerate(hidden):
            if see:
                scene.card(hx + k * (CARD_W + 6), y + 28, card_face(card), "hidden", seat=p, mark="hidden")
            else:
                scene.back(hx + k * (CARD_W + 6), y + 28, "hidden", seat=p, mark="hidden")
    return scene
