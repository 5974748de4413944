"""Text views of a dnp table: :func:`render_table` (one game) and :func:`describe_move` (what a move
showed the table, for ``training.play``'s recap)."""

from __future__ import annotations

import numpy as np

from .kernels import LOC_DISCARD, LOC_TABLE


def card_text(core, b: int, c: int) -> str:
    """``active(inactive)`` of card c as it lies now, e.g. ``3(6)``."""
    rot = int(core.card_rot[b, c])
    values = core.tables.values[c]
    return f"{values[rot]}({values[1 - rot]})"


def render_table(core, b: int, reveal_all: bool = False) -> str:
    """Game b as text; hands are hidden (``??``, cards known to the table shown) unless ``reveal_all``."""
    P, A = core.num_players, core.rules.areas
    unit = "round wins" if P == 2 else "points"
    if core.terminated[b]:
        head = f"game over after {int(core.turn[b])} moves"
    elif core.truncated[b]:
        head = f"cut off after {int(core.turn[b])} moves (max_turns)"
    else:
        head = f"round {int(core.rounds[b]) + 1}, move {int(core.turn[b]) + 1}: seat {int(core.current[b])} to act" \
               + (f" (area {int(core.area[b]) + 1})" if A == 2 else "")
    lines = [f"dnp, {P} players: {head}"]
    for p in range(P):
        hand = core.hand(b, p)
        hand.sort(key=lambda c: (core.tables.values[c, core.card_rot[b, c]], c))
        shown = [card_text(core, b, c) + ("*" if reveal_all and core.card_selected[b, c] else "")
                 if reveal_all or core.card_public[b, c] else "??" for c in hand]
        sets = []
        for a in range(A):
            pos = p * A + a
            cards = np.flatnonzero((core.card_loc[b] == LOC_TABLE) & (core.card_where[b] == pos)).tolist()
            sets.append(" ".join(card_text(core, b, c) for c in cards) or "-")
        lines.append(f"seat {p}: {int(core.points[b, p])} {unit}{' (out)' if core.out[b, p] else ''}; "
                     f"hand [{' '.join(shown) or '-'}]; set{'s' if A == 2 else ''}: {' | '.join(sets)}")
    gone = int((core.card_loc[b] == LOC_DISCARD).sum())
    lines.append(f"discarded this round: {gone} cards")
    return "\n".join(lines)


def describe_move(core, b: int, seat: int, action: int):
    """Called before ``action``; the returned function, called after, tells what the table saw."""
    L = core.actions
    a = int(action)
    if a < L.num_cards:
        return lambda after: f"seat {seat} selects a card"
    if a == L.play:
        cards = np.flatnonzero(core.card_selected[b]).tolist()
        text = " ".join(card_text(core, b, c) for c in cards)
        return lambda after: f"seat {seat} plays {text}"
    if a < L.take_base:
        card = int(np.flatnonzero(core.card_selected[b])[0])
        pos = L.target_position(seat, a - L.add_base)
        text = card_text(core, b, card)
        return lambda after: f"seat {seat} adds {text} to the set of seat {pos // core.rules.areas}"
    if a < L.turn:
        pos = L.target_position(seat, a - L.take_base)
        cards = np.flatnonzero((core.card_loc[b] == LOC_TABLE) & (core.card_where[b] == pos)).tolist()
        text = " ".join(card_text(core, b, c) for c in cards)
        return lambda after: f"seat {seat} takes {text} from seat {pos // core.rules.areas}"
    return lambda after: f"seat {seat} turns their hand"



# ---------------------------------------------------------------------------------------------------
# The terminal game (``training.play``): stable move keys, a seat's table, a legend, moves in words.

class TerminalView:
    """What ``training.play`` shows of a dnp table to ``seat``. Keys are derived from the action id,
    so a key means the same move all game: a card's number (``12``: card #12) selects it, ``p`` plays
    the selection, ``a2`` / ``t2`` add the selected card to / take the set of seat 2 (two players:
    ``a1`` / ``a2``, ``t1`` / ``t2`` name the opponent's area 1 or 2), ``turn`` turns your hand."""

    LEGEND = """\
dnp: be the first to play out your hand. A set is one or more cards of the same value.
  #12 3(6)  card number 12 (type 12 to select it): value 3 now, 6 when turned
  *         a card you have selected          (out)  that player has no cards left this round
  known     cards of another player's hand that everybody saw
  set       the set in front of a player; it is discarded when its owner's next turn starts
A turn is one action: A play a set from your hand (select its cards, then p); a set of the same
size on the table must be beaten by a higher value. B add one selected card to another player's
set of its value (a + seat). C take another player's set into your hand, turned (t + seat).
With two players a and t name the opponent's area instead: a1, a2, t1, t2.
D turn your whole hand (turn). Cards that come into a hand are turned: the other value counts.
The first to empty their hand scores 2 points, the second 1; the first to the target wins."""

    def __init__(self, spec, core, seat: int = 0):
        self.spec = spec
        self.seat = seat
        self.keys = self._keys(core)  # the keys depend on the variant's action layout and the seat

    def _keys(self, core) -> dict:
        L = core.actions
        keys = {c: str(c) for c in range(L.num_cards)}
        keys[L.play] = "p"
        for t in range(L.num_targets):
            pos = L.target_position(self.seat, t)
            if pos < 0:
                where = f"unused{t + 1}"
            elif L.areas == 2:
                where = str(pos % 2 + 1)
            else:
                where = str(pos // L.areas)
            keys[L.add_base + t] = "a" + where
            keys[L.take_base + t] = "t" + where
        keys[L.turn] = "turn"
        return keys

    def group(self, action: int) -> str:
        name = self.spec.action_name(action)
        return {"SELECT": "select card", "PLAY": "play", "ADD": "add to", "TAKE": "take", "TURN": "turn hand"}[
            name.split("_")[0]]

    def table(self, core, seat: int, label, paint) -> str:
        """The table as ``seat`` sees it: its own hand, the cards of others everybody saw, every set."""
        b, P, A = 0, core.num_players, core.rules.areas
        unit = "round wins" if P == 2 else "points"
        head = f"round {int(core.rounds[b]) + 1}, move {int(core.turn[b]) + 1}"
        if A == 2 and not core.done[b]:
            head += f", {label(int(core.current[b]))} to move in area {int(core.area[b]) + 1}"
        gone = int((core.card_loc[b] == LOC_DISCARD).sum())
        goal = f"win {core.rules.win_rounds} rounds" if P == 2 else f"reach {core.rules.win_points} points"
        lines = [f"{self.spec.title}, {head}, {gone} cards discarded this round, first to {goal} wins"]
        width = max(len(label(s)) for s in range(P))
        for rel in range(P):
            p = (seat + rel) % P
            hand = core.hand(b, p)
            hand.sort(key=lambda c: (core.tables.values[c, core.card_rot[b, c]], c))
            if p == seat:
                cards = " ".join(paint(f"#{c}", "key") + " " + card_text(core, b, c)
                                 + ("*" if core.card_selected[b, c] else "") for c in hand)
                hand_text = f"hand {cards or '-'}"
            else:
                known = [card_text(core, b, c) for c in hand if core.card_public[b, c]]
                hand_text = f"{len(hand)} cards" + (f" (known: {' '.join(known)})" if known else "")
            sets = []
            for a in range(A):
                pos = p * A + a
                on = np.flatnonzero((core.card_loc[b] == LOC_TABLE) & (core.card_where[b] == pos)).tolist()
                sets.append(" ".join(card_text(core, b, c) for c in on) or "-")
            marker = ">" if p == core.current[b] and not core.done[b] else " "
            who = paint(f"{label(p):<{width}}", "you" if p == seat else "seat")
            lines.append(f"{marker} {who}  {int(core.points[b, p])} {unit}{' (out)' if core.out[b, p] else ''}; "
                         f"{hand_text}; set{'s' if A == 2 else ''}: {' | '.join(sets)}")
        return "\n".join(lines)

    def decision(self, core, seat: int, legal) -> str:
        L = core.actions
        target = "area" if L.areas == 2 else "seat"
        kinds = {self.group(a) for a in legal}
        words = []
        if core.sel_count[0] > 0:
            head = f"selected {int(core.sel_count[0])} x {int(core.sel_value[0])}: "
            if "select card" in kinds:
                words.append("select more cards of that value")
        else:
            head = ""
            if "select card" in kinds:
                words.append("select cards for a set (their numbers)")
        for kind, text in (("play", "play the selection (p)"), ("add to", f"add it to a set (a + {target})"),
                           ("take", f"take a set (t + {target})"), ("turn hand", "turn your hand (turn)")):
            if kind in kinds:
                words.append(text)
        return head + (", ".join(words[:-1]) + " or " + words[-1] if len(words) > 1 else "".join(words))

    def details(self, core, seat: int, observation_text: str) -> str:
        """The cards discarded this round (``u``)."""
        lines = [line for line in observation_text.splitlines() if line.startswith("discarded")]
        return "\n".join(lines) or "Nothing more to show."

    def describe(self, core, seat: int, action: int, label):
        """What everybody saw ``seat`` do, in words (call before the move; call the result after it)."""
        L, b, A = core.actions, 0, core.rules.areas
        a = int(action)

        def where(pos: int) -> str:
            owner = label(pos // A)
            return f"{owner}'s set" + (f" in area {pos % A + 1}" if A == 2 else "")

        if a < L.num_cards:
            text = (f"selected #{a} {card_text(core, b, a)}" if seat == self.seat else "selects a card")
            return lambda after: text
        if a == L.play:
            cards = " ".join(card_text(core, b, c) for c in np.flatnonzero(core.card_selected[b]))
            return lambda after: f"plays {cards}"
        if a < L.take_base:
            card = int(np.flatnonzero(core.card_selected[b])[0])
            text = f"adds {card_text(core, b, card)} to {where(L.target_position(seat, a - L.add_base))}"
            return lambda after: text
        if a < L.turn:
            pos = L.target_position(seat, a - L.take_base)
            cards = np.flatnonzero((core.card_loc[b] == LOC_TABLE) & (core.card_where[b] == pos)).tolist()
            text = f"takes {' '.join(card_text(core, b, c) for c in cards)} from {where(pos)}"
            return lambda after: text
        return lambda after: "turns their whole hand"


def terminal_view(spec, core, seat: int = 0) -> TerminalView:
    """The terminal view of ``spec``'s game for ``seat`` at ``core``'s table (``GameSpec.terminal_view``)."""
    return TerminalView(spec, core, seat)
