"""A text picture of one gap-game table, as the players around it would see it.

Hands and hidden cards show as counts, the draw pile as a size, unless ``reveal_all=True`` (for
debugging), which shows every card and the draw order.
"""

from __future__ import annotations

from .actions import ACTION_FLIP_BASE, ACTION_HIDE_BASE, ACTION_PASS, Phase
from .deck import PILE_NAMES, card_name, gap_width, stars
from .kernels import LOC_UNDER
from .reference import is_gap_card


def _cards(cards) -> str:
    return ", ".join(card_name(c) for c in cards) or "-"


def render_table(core, b: int = 0, reveal_all: bool = False) -> str:
    """The table of game ``b`` as text (hands, hidden cards and the draw order hidden unless ``reveal_all``)."""
    P = core.num_players
    phase = Phase(int(core.phase[b]))
    head = "game over" if phase == Phase.OVER else f"seat {int(core.current[b])} to act ({phase.name}" + (
        ", extra turn" if core.extra_turn[b] else "") + ")"
    lines = [f"The gap game - round {min(int(core.round[b]) + 1, core.rules.rounds)}/{core.rules.rounds}, "
             f"dealer seat {int(core.dealer[b])}, turn {int(core.turn[b])}: {head}"]
    draw = core.draw_cards[b, core.draw_pos[b]:core.draw_len[b]].tolist()
    under = int((core.card_loc[b] == LOC_UNDER).sum())
    if phase == Phase.HIDE and not reveal_all:
        lines.append("Discard piles: not laid yet (players are choosing their hidden cards)")
    else:
        left, right = (int(c) for c in core.pile_top[b])
        lines.append(f"Discard piles: left {card_name(left)} | right {card_name(right)}  (gap {gap_width(left, right)}; "
                     f"{under} below the tops)" + ("  [not laid yet]" if phase == Phase.HIDE else ""))
    lines.append(f"Draw pile: {len(draw)} cards" + (f" (top first: {_cards(draw)})" if reveal_all else ""))
    if core.pending[b] >= 0:
        lines.append(f"Turned up: {card_name(int(core.pending[b]))} (awaiting a pile)")
    for seat in range(P):
        marker = ">" if seat == core.current[b] and phase != Phase.OVER else " "
        hand, hidden = core.hand(b, seat), core.hidden(b, seat)
        if reveal_all:
            cards = f"hand [{_cards(hand)}] ({stars(hand)} stars), hidden [{_cards(hidden)}]"
        else:
            cards = f"{len(hand)} in hand, {len(hidden)} hidden"
        lines.append(f"{marker}seat {seat}: {cards}; score {int(core.score[b, seat])}")
    if phase == Phase.OVER:
        word = "truncated" if core.truncated[b] else "final"
        lines.append(f"{word.capitalize()} scores: " + ", ".join(f"seat {p}: {int(s)}" for p, s in enumerate(core.score[b])))
    return "\n".join(lines)


def describe_move(core, b: int, seat: int, action: int):
    """What everybody at the table sees ``seat`` do with ``action`` in game ``b`` (only public
    information: a hidden card or a drawn card is not named). Called before the move; returns
    ``after(core) -> str`` (``GameSpec.describe_move``)."""
    action = int(action)
    tops = [int(c) for c in core.pile_top[b]]
    pending = int(core.pending[b])
    round_before = int(core.round[b])
    outs_before = int(core.went_out[b].sum())

    def after(core) -> str:
        ended = int(core.round[b]) > round_before
        if action >= ACTION_FLIP_BASE:
            return f"no gap: turns up {card_name(pending)} onto the {PILE_NAMES[action - ACTION_FLIP_BASE]} pile"
        if action >= ACTION_HIDE_BASE:
            return "lays a card face down as a hidden card"
        if action == ACTION_PASS:
            took = "takes nothing (nothing left to draw)" if core.dry_passes[b] > 0 or (
                ended and int(core.went_out[b].sum()) == outs_before) else "takes a card"
            return f"passes and {took}" + ("; nobody can go out: the round ends" if ended else "")
        card, pile = divmod(action, 2)
        gap = is_gap_card(card, tops[0], tops[1])
        text = f"plays {card_name(card)} on the {PILE_NAMES[pile]} pile ({card_name(tops[pile])})"
        if ended:
            return text + ": last card, the round ends"
        return text + (": gap! another turn" if gap else "")

    return after
