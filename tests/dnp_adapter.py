"""dnp's :class:`conformance.GameAdapter`: its whole rules state, invariants and hidden information.

What a seat may not know (``games/dnp/RULES.md``, ``observation.py``): which cards the other hands
hold, beyond those the table saw go in (taken back or picked up), and which way those unseen cards
lie; another player's selection in progress; the deal order and the random stream. Its own hand,
every set on the table, the discards, hand sizes, points and the known cards are public to it.
"""

from __future__ import annotations

import copy

import numpy as np

from conformance import SpecAdapter
from keine_ahnung_env.games.dnp.core import LOC_DISCARD, LOC_HAND, LOC_OUT, LOC_TABLE


class DnpAdapter(SpecAdapter):
    """dnp's rules state, invariants and hidden information: a seat may not know which cards the other
    hands hold (beyond those the table saw go in) nor which way they lie, nor a selection in progress."""

    def __init__(self):
        super().__init__("dnp_v0")

    def snapshot(self, core, b):
        return (repr(core.snapshot(b)), core.deal_order[b].tolist())

    def fingerprint(self, core, b):
        return (self.snapshot(core, b), core.legal_mask[b].tolist(), core.rewards[b].tolist(),
                core.rng_state[b].tolist())

    def check_game_invariants(self, core):
        P, A, N = core.num_players, core.rules.areas, core.tables.num_cards
        values = core.tables.values
        for b in range(core.num_envs):
            loc, where = core.card_loc[b], core.card_where[b]
            active = values[np.arange(N), core.card_rot[b]]
            assert ((loc == LOC_OUT) == ~core.tables.in_play).all()
            assert set(np.unique(loc[core.tables.in_play])) <= {LOC_HAND, LOC_TABLE, LOC_DISCARD}
            for p in range(P):
                assert core.hand_count[b, p] == ((loc == LOC_HAND) & (where == p)).sum(), (b, p)
            sizes = []
            for pos in range(P * A):
                on = (loc == LOC_TABLE) & (where == pos)
                assert core.set_size[b, pos] == on.sum(), (b, pos)
                if on.any():
                    assert set(active[on].tolist()) == {core.set_value[b, pos]}, (b, pos)
                    sizes.append(int(on.sum()))
            assert len(sizes) == len(set(sizes)), f"game {b}: two sets of one size {sizes}"
            assert not (core.card_public[b] & (loc != LOC_HAND)).any()
            selected = core.card_selected[b]
            assert selected.sum() == core.sel_count[b]
            if selected.any():
                assert ((loc[selected] == LOC_HAND) & (where[selected] == core.current[b])).all()
                assert set(active[selected].tolist()) == {core.sel_value[b]}
            target = core.rules.target
            assert core.terminated[b] == (core.points[b].max() >= target), b
            if not core.done[b]:
                assert core.hand_count[b, core.current[b]] > 0 and not core.out[b, core.current[b]]
                assert core.out[b].sum() == core.finishers[b] <= 1
                assert all(core.hand_count[b, p] == 0 for p in range(P) if core.out[b, p])

    def hidden_cards(self, core, b, seat):
        loc, where = core.card_loc[b], core.card_where[b]
        return np.flatnonzero((loc == LOC_HAND) & (where != seat) & ~core.card_public[b] & ~core.card_selected[b])

    def hidden_variants(self, core, b, seat, rng, count: int = 3):
        cards = self.hidden_cards(core, b, seat)
        for _ in range(count):
            other = copy.deepcopy(core)
            other.card_where[b, cards] = core.card_where[b, rng.permutation(cards)]
            other.card_rot[b, cards] = rng.integers(0, 2, cards.size)
            yield other

    def visible_variant(self, core, b, seat, rng):
        mine = np.flatnonzero((core.card_loc[b] == LOC_HAND) & (core.card_where[b] == seat) & ~core.card_selected[b])
        theirs = self.hidden_cards(core, b, seat)
        if not mine.size or not theirs.size:
            return None
        other = copy.deepcopy(core)
        x, y = int(mine[0]), int(theirs[0])
        other.card_where[b, x], other.card_where[b, y] = core.card_where[b, y], core.card_where[b, x]
        other.card_public[b, x] = False
        return other
