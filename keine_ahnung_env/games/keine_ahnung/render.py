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


# ---------------------------------------------------------------------------------------------------
# The terminal game (``training.play``): stable move keys, a seat's table, a legend, moves in words.

COLOUR_CODES = {"blue": "bl", "grey": "gy", "green": "gn", "yellow": "ye", "red": "rd", "purple": "pu"}
"""Two-letter codes of the colours: a card shows as code and number, e.g. ``rd5`` for red 5."""


def face_code(face: int) -> str:
    """A pile top face (colour*6 + number-1) as its code, e.g. ``rd5``."""
    from .deck import COLOURS, NUM_NUMBERS

    return f"{COLOUR_CODES[COLOURS[face // NUM_NUMBERS]]}{face % NUM_NUMBERS + 1}"


def card_code(tables, card: int) -> str:
    """A card as its code: ``rd5``, ``rd5*`` (extra function) or ``P2`` (a consolation prize of 2)."""
    from .deck import FUNCTION_NONE

    if card < 0:
        return "--"
    if tables.is_prize[card]:
        return f"P{int(tables.prize_value[card])}"
    return face_code(int(tables.face[card])) + ("*" if tables.function[card] != FUNCTION_NONE else "")


class TerminalView:
    """What ``training.play`` shows of a Keine Ahnung table. Keys are derived from the action id, so a
    key means the same move on every turn: ``r0``..``r5`` reveal that layout slot, ``c`` calls,
    ``k`` keeps, and a pile's code (``rd5``) places the waiting card on that pile."""

    LEGEND = """\
Keine Ahnung / No Idea: clear your six face-down cards; a card fits a pile top of the same colour
or the same number. Win trophies by clearing all your cards or by a successful call.
  ??        a face-down card (nobody knows it)          --  an empty slot
  (rd5)     a face-down card everybody saw earlier: rd5 is red 5
  bl gy gn ye rd pu   blue, grey, green, yellow, red, purple
  *         the card has an extra function when played to a pile: reveal another card from the
            draw pile, remove the other piles, or make the opponents refill to 3 cards
  P2        a consolation prize worth 2 points (ends the turn of whoever turns it up)
  x2        two piles show the same top; they are the same for play
  CALL (c)  "Nothing fits anymore!": allowed with 1-3 cards left; your cards are turned up in slot
            order; if none fits a pile and none is a prize you win the top trophy
  >         the seat to act         trophies N (M pts): how many and what they are worth
Moves: r0-r5 reveal the card in that slot; c call; k keep a fitting card face down (if the rules
allow it); a pile's name (rd5) places the waiting card on that pile."""

    def __init__(self, spec):
        from .actions import ACTION_CALL, ACTION_KEEP, ACTION_PLACE_BASE, NUM_SLOT_ACTIONS

        self.spec = spec
        keys = {s: f"r{s}" for s in range(NUM_SLOT_ACTIONS)}
        keys[ACTION_CALL] = "c"
        keys[ACTION_KEEP] = "k"
        for a in range(ACTION_PLACE_BASE, ACTION_KEEP):
            keys[a] = face_code(a - ACTION_PLACE_BASE)
        self.keys = keys

    def group(self, action: int) -> str:
        """The kind of a move, for the list of moves: ``reveal``, ``call``, ``place on``, ``keep``."""
        from .actions import ACTION_CALL, ACTION_KEEP

        if action < SLOTS:
            return "reveal"
        return {ACTION_CALL: "call", ACTION_KEEP: "keep"}.get(action, "place on")

    def table(self, core, seat: int, label, paint) -> str:
        """The table as ``seat`` sees it (no more than its observation holds): ``label(s)`` names a
        seat, ``paint(text, role)`` colours a piece of text."""
        b, t, P = 0, core.tables, core.num_players
        phase = Phase(int(core.phase[b]))
        code = lambda c: paint(card_code(t, c), _colour_of(t, c))  # noqa: E731
        left = t.num_trophies - int(core.trophy_pos[b])
        aside = int((core.card_loc[b] == LOC_ASIDE).sum())
        draw = int(core.draw_len[b] - core.draw_pos[b])
        lines = [f"{self.spec.title}, turn {int(core.turn[b])}, draw pile {draw}, set aside {aside}, "
                 f"trophies left {left}"]
        tops: dict[int, int] = {}
        for face in core.pile_face[b, : core.pile_count[b]]:
            tops[int(face)] = tops.get(int(face), 0) + 1
        piles = [paint(face_code(f), _colour_of_face(f)) + (f" x{n}" if n > 1 else "") for f, n in tops.items()]
        lines.append("Piles: " + ("  ".join(piles) if piles else "none"))
        width = max(len(label(s)) for s in range(P))
        numbers = [f"{s:<6}" for s in range(SLOTS)]
        lines.append(f"  {'slot':<{width}}   {' '.join(numbers[:3])}   {' '.join(numbers[3:])}")
        for rel in range(P):
            s = (seat + rel) % P
            cells = []
            for slot in range(SLOTS):
                card = int(core.layout[b, s, slot])
                if card < 0:
                    cells.append(f"{'--':<6}")
                elif core.card_known[b, card] and core.rules.memory == "perfect":
                    text = f"({card_code(t, card)})"
                    cells.append(paint(text, _colour_of(t, card)) + " " * max(0, 6 - len(text)))
                else:
                    cells.append(f"{'??':<6}")
            marker = ">" if s == core.current[b] and phase != Phase.OVER else " "
            who = paint(f"{label(s):<{width}}", "you" if s == seat else "seat")
            points = f" ({int(core.trophy_points[b, s])} pts)" if s == seat else ""
            lines.append(f"{marker} {who}  [{' '.join(cells[:3])}] [{' '.join(cells[3:])}]  "
                         f"trophies {int(core.trophy_count[b, s])}{points}, prizes {int(core.prize_count[b, s])} "
                         f"({int(core.prize_points[b, s])} pts)")
        if core.pending[b] >= 0:
            slot = int(core.pending_slot[b])
            owner = "your" if int(core.current[b]) == seat else f"{label(int(core.current[b]))}'s"
            source = f"from {owner} slot {slot}" if slot >= 0 else "from the draw pile"
            lines.append(f"Waiting for a pile: {code(int(core.pending[b]))} ({source})")
        return "\n".join(lines)

    def decision(self, core, seat: int, legal) -> str:
        """What ``seat`` decides now, in words."""
        from .actions import ACTION_CALL, ACTION_KEEP

        phase = Phase(int(core.phase[0]))
        if phase == Phase.MAIN:
            return ("reveal a card (r + slot) or call 'Nothing fits anymore!' (c)" if ACTION_CALL in legal
                    else "reveal a card (r + slot)")
        card = card_code(core.tables, int(core.pending[0]))
        where = "from the draw pile" if phase == Phase.PLACE_DRAWN else "you revealed"
        keep = " or keep it face down (k)" if ACTION_KEEP in legal else ""
        return f"the card {card} {where} fits several piles: choose a pile{keep}"

    def details(self, core, seat: int, observation_text: str) -> str:
        """The long lists a seat may look up (``u``): the cards not seen yet, set aside, below the tops."""
        import re

        lines = observation_text.splitlines()
        start = next((i for i, line in enumerate(lines) if line.startswith("Unknown cards")), len(lines))
        text = "\n".join(lines[start:]) or "Nothing more to show."
        # the observation counts seats from the viewer (+1 is the next seat); the table names them
        P = core.num_players
        return re.sub(r"\+(\d+) slot", lambda m: f"seat {(seat + int(m.group(1))) % P} slot", text)

    def describe(self, core, seat: int, action: int, label):
        """What everybody saw ``seat`` do, in words (call before the move; call the result after it)."""
        from .actions import ACTION_CALL, ACTION_KEEP
        from .kernels import LOC_DRAW, LOC_LAYOUT

        b, t = 0, core.tables
        layout = core.layout[b, seat].copy()
        trophies = int(core.trophy_count[b, seat])
        pending = int(core.pending[b])
        in_draw = core.draw_cards[b, core.draw_pos[b]:core.draw_len[b]].copy()

        def after(core) -> str:
            text = what(core)
            # Cards the engine turned up from the draw pile within the move (a function's reveal, the
            # next turn's first card) are public; cards dealt face down (refills) are not named.
            shown = [int(c) for c in in_draw if core.card_loc[b, c] not in (LOC_DRAW, LOC_LAYOUT)]
            if shown:
                text += "; then from the draw pile: " + ", ".join(card_code(t, c) for c in shown)
            return text

        def what(core) -> str:
            if action < SLOTS:
                card = int(layout[action])
                placed = core.card_loc[b, card] != LOC_LAYOUT or core.pending[b] == card
                outcome = ("a consolation prize" if t.is_prize[card]
                           else "fits" if placed else "does not fit: face down again")
                return f"revealed slot {action}: {card_code(t, card)} ({outcome})"
            if action == ACTION_CALL:
                won = core.trophy_count[b, seat] > trophies
                return "called 'Nothing fits anymore!': " + ("success, a trophy" if won else "failed")
            if action == ACTION_KEEP:
                return "put the card back face down"
            return f"placed {card_code(t, pending)} on pile {self.keys[action]}" if pending >= 0 else self.keys[action]

        return after


def _colour_of_face(face: int) -> str:
    from .deck import COLOURS, NUM_NUMBERS

    return COLOURS[face // NUM_NUMBERS]


def _colour_of(tables, card: int) -> str:
    from .deck import COLOURS

    return "prize" if tables.is_prize[card] else COLOURS[int(tables.colour[card])]


def terminal_view(spec, core, seat: int = 0) -> TerminalView:
    """The terminal view of ``spec``'s game (``GameSpec.terminal_view``; the same for every seat and core)."""
    return TerminalView(spec)
