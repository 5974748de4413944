"""The action space of dnp (N cards of the deck, P players, areas = 2 with two players else 1).

The space is the same at every player count (N + 10 actions: 50 with the default deck): card ids are
the deck's (a player count that removes a group never offers its cards) and there are always four
targets (unused ones are never legal).

A move is chosen card by card: SELECT the cards of a set one at a time, then PLAY them (action A) or,
with exactly one card selected, ADD it to a set in front of another player (action B). TAKE (action C)
and TURN (action D) are single decisions. The mask offers a SELECT only while the selection can still
become a legal set, so a selection never dead-ends and every legal set is reachable.

| id                      | name              | meaning                                                   |
|-------------------------|-------------------|-----------------------------------------------------------|
| 0 .. N-1                | SELECT_<c>        | put hand card c (card id) into the selection              |
| N                       | PLAY              | A: play the selection as a set in the current area        |
| N+1 .. N+4              | ADD_<target>      | B: add the one selected card to that set                  |
| N+5 .. N+8              | TAKE_<target>     | C: take that set into your hand, turned                   |
| N+9                     | TURN              | D: turn your whole hand                                   |

Targets (O = 4) are the other players' play areas relative to the actor: with 3-5 players target
``k - 1`` is the player ``k`` seats clockwise (``ADD_1`` is the next player; targets ``P-1``.. are
unused); with 2 players targets 0 and 1 are the opponent's areas 1 and 2 (``ADD_1A1``, ``ADD_1A2``)
and targets 2 and 3 are unused (``ADD_UNUSED3``...).
"""

from __future__ import annotations

import dataclasses
import enum
import functools

NUM_TARGETS = 4
"""Targets of ADD and TAKE at every player count: the most other play areas a player can face."""


@dataclasses.dataclass(frozen=True)
class ActionLayout:
    """Action ids of one variant."""

    num_cards: int
    num_players: int

    @property
    def areas(self) -> int:
        return 2 if self.num_players == 2 else 1

    @property
    def num_targets(self) -> int:
        return NUM_TARGETS

    @property
    def used_targets(self) -> int:
        """Targets that exist at this player count: (P - 1) * areas."""
        return (self.num_players - 1) * self.areas

    @property
    def play(self) -> int:
        return self.num_cards

    @property
    def add_base(self) -> int:
        return self.num_cards + 1

    @property
    def take_base(self) -> int:
        return self.num_cards + 1 + self.num_targets

    @property
    def turn(self) -> int:
        return self.num_cards + 1 + 2 * self.num_targets

    @property
    def num_actions(self) -> int:
        return self.turn + 1

    def target_name(self, target: int) -> str:
        if target >= self.used_targets:
            return f"UNUSED{target + 1}"
        k, a = divmod(target, self.areas)
        return f"{k + 1}" + (f"A{a + 1}" if self.areas == 2 else "")

    def names(self) -> tuple[str, ...]:
        out = [f"SELECT_{c}" for c in range(self.num_cards)] + ["PLAY"]
        out += [f"ADD_{self.target_name(t)}" for t in range(self.num_targets)]
        out += [f"TAKE_{self.target_name(t)}" for t in range(self.num_targets)]
        return tuple(out + ["TURN"])

    def target_position(self, seat: int, target: int) -> int:
        """The table position (``seat * areas + area``) of ``target`` seen from ``seat`` (-1: unused)."""
        if target >= self.used_targets:
            return -1
        k, a = divmod(target, self.areas)
        return ((seat + k + 1) % self.num_players) * self.areas + a


@functools.lru_cache(maxsize=None)
def action_enum(num_players: int = 4, num_cards: int = 40) -> type[enum.IntEnum]:
    """The actions of a variant as an IntEnum (``num_cards``: the deck's, 40 by default)."""
    n = num_cards
    layout = ActionLayout(n, num_players)
    return enum.IntEnum(f"DnpAction{num_players}p{n}", {name: i for i, name in enumerate(layout.names())})
