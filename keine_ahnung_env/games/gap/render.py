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


# ---------------------------------------------------------------------------------------------------
# The terminal game (``training.play``): stable move keys, a seat's table, a legend, moves in words.

COLOUR_CODES = {"blue": "bl", "grey": "gy", "green": "gn", "yellow": "ye", "red": "rd", "purple": "pu"}
"""Two-letter codes of the colours: a card shows as code and number, e.g. ``rd6`` for red 6."""


def card_code(card: int) -> str:
    """A card as its code, e.g. ``rd6`` (``--`` for none)."""
    from .deck import COLOURS, NUM_NUMBERS

    if card < 0:
        return "--"
    return f"{COLOUR_CODES[COLOURS[card // NUM_NUMBERS]]}{card % NUM_NUMBERS + 1}"


class TerminalView:
    """What ``training.play`` shows of a gap-game table. Keys are derived from the action id, so a key
    means the same move on every turn: ``rd6l`` / ``rd6r`` play red 6 on the left / right pile, ``p``
    passes, a card's code (``rd6``) lays it face down as a hidden card, ``l`` / ``r`` put the
    turned-up card on the left / right pile."""

    LEGEND = """\
The gap game: get rid of your hand. Play a card on a pile top of the same colour or number (your
turn ends), or a gap card (another turn), or pass and take a card.
  rd6       a card: colour code and number 1-11; bl gy gn ye rd pu = blue, grey, green, yellow,
            red, purple
  gap N     N numbers lie strictly between the two pile tops. A gap card has a number in between
            and a colour of neither top; playing one gives you another turn
  no gap    at the start of a turn with no gap, the top draw card is turned up and you choose
            its pile (l or r)
  hidden    two cards each player lays face down at the start of a round; whoever goes out scores
            the stars of their two hidden cards, everybody else loses the stars in their hand
  stars     1 and 11: 0; 2 and 10: 1; 3, 4, 8, 9: 2; 5 and 7: 3; 6: 4
  >         the seat to act
Moves: card + l or r (rd6l) plays the card on the left or right pile; p passes and takes a card;
a card alone (rd6) hides it at the start of a round; l or r places the turned-up card."""

    def __init__(self, spec):
        from .actions import ACTION_FLIP_BASE, ACTION_HIDE_BASE, ACTION_PASS
        from .deck import NUM_CARDS

        self.spec = spec
        keys = {}
        for card in range(NUM_CARDS):
            keys[2 * card] = card_code(card) + "l"
            keys[2 * card + 1] = card_code(card) + "r"
            keys[ACTION_HIDE_BASE + card] = card_code(card)
        keys[ACTION_PASS] = "p"
        keys[ACTION_FLIP_BASE], keys[ACTION_FLIP_BASE + 1] = "l", "r"
        self.keys = keys

    def group(self, action: int) -> str:
        from .actions import ACTION_FLIP_BASE, ACTION_HIDE_BASE, ACTION_PASS

        if action >= ACTION_FLIP_BASE:
            return "put the turned-up card on"
        if action >= ACTION_HIDE_BASE:
            return "hide"
        if action == ACTION_PASS:
            return "pass"
        return "play"

    def table(self, core, seat: int, label, paint) -> str:
        """The table as ``seat`` sees it: its own hand and hidden cards, the others' counts."""
        from .deck import COLOURS, NUM_NUMBERS, stars

        b, P = 0, core.num_players
        phase = Phase(int(core.phase[b]))
        code = lambda c: paint(card_code(c), COLOURS[c // NUM_NUMBERS]) if c >= 0 else "--"  # noqa: E731
        rounds = core.rules.rounds
        draw = int(core.draw_len[b] - core.draw_pos[b])
        under = int((core.card_loc[b] == LOC_UNDER).sum())
        lines = [f"{self.spec.title}, round {min(int(core.round[b]) + 1, rounds)} of {rounds}, dealer "
                 f"{label(int(core.dealer[b]))}, draw pile {draw}, {under} below the pile tops"]
        if phase == Phase.HIDE:
            lines.append("Piles: not laid yet (everybody is choosing hidden cards)")
        else:
            left, right = (int(c) for c in core.pile_top[b])
            width = gap_width(left, right)
            lines.append(f"Piles: left {code(left)} | right {code(right)}   "
                         + (paint(f"gap {width}", "good") if width > 0 else "no gap"))
        if core.pending[b] >= 0:
            lines.append(f"Turned up: {code(int(core.pending[b]))} (waiting for a pile: l or r)")
        width = max(len(label(s)) for s in range(P))
        for rel in range(P):
            s = (seat + rel) % P
            marker = ">" if s == core.current[b] and phase != Phase.OVER else " "
            who = paint(f"{label(s):<{width}}", "you" if s == seat else "seat")
            if s == seat:
                hand = core.hand(b, s)
                text = (f"hand {' '.join(code(c) for c in hand) or '-'} ({stars(hand)} stars); hidden "
                        f"{' '.join(code(c) for c in core.hidden(b, s)) or '-'}")
            else:
                text = f"{int(core.hand_count[b, s])} in hand, {int(core.hidden_count[b, s])} hidden"
            lines.append(f"{marker} {who}  {text}; score {int(core.score[b, s])}")
        return "\n".join(lines)

    def decision(self, core, seat: int, legal) -> str:
        phase = Phase(int(core.phase[0]))
        if phase == Phase.HIDE:
            return f"lay a card face down as a hidden card ({int(core.hidden_count[0, seat]) + 1} of 2)"
        if phase == Phase.FLIP:
            return f"no gap: {card_code(int(core.pending[0]))} was turned up; put it on the left (l) or right (r) pile"
        extra = " (another turn after your gap card)" if core.extra_turn[0] else ""
        return f"play a card (card + l or r) or pass (p){extra}"

    def details(self, core, seat: int, observation_text: str) -> str:
        """The cards seen face up this round (``u``)."""
        lines = [line for line in observation_text.splitlines() if line.startswith("seen this round")]
        return "\n".join(lines) or "Nothing more to show."

    def describe(self, core, seat: int, action: int, label):
        """What everybody saw ``seat`` do, in words (call before the move; call the result after it)."""
        plain = describe_move(core, 0, seat, action)
        tops = [int(c) for c in core.pile_top[0]]
        pending = int(core.pending[0])
        hand = set(core.hand(0, seat))

        def after(core) -> str:
            if action == ACTION_PASS and label(seat) == "you":  # only you saw the card you took
                took = sorted(set(core.hand(0, seat)) - hand)
                text = plain(core)
                return text.replace("takes a card", f"takes {card_code(took[0])}") if len(took) == 1 else text
            if action >= ACTION_FLIP_BASE:
                return f"no gap: turned up {card_code(pending)} onto the {PILE_NAMES[action - ACTION_FLIP_BASE]} pile"
            if action >= ACTION_HIDE_BASE and label(seat) == "you":  # only you saw which card
                return f"lays {card_code(action - ACTION_HIDE_BASE)} face down as a hidden card"
            if action >= ACTION_HIDE_BASE or action == ACTION_PASS:
                return plain(core)
            card, pile = divmod(action, 2)
            text = plain(core)
            tail = text.split(")", 1)[1] if ")" in text else ""
            return f"plays {card_code(card)} on the {PILE_NAMES[pile]} pile ({card_code(tops[pile])}){tail}"

        return after


def terminal_view(spec, core, seat: int = 0) -> TerminalView:
    """The terminal view of ``spec``'s game (``GameSpec.terminal_view``; the same for every seat and core)."""
    return TerminalView(spec)
