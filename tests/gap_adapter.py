"""The gap game's :class:`conformance.GameAdapter`: its whole rules state, invariants and hidden information.

What a seat may not know (``games/gap/RULES.md``, ``observation.py``): the cards in the opponents'
hands, the opponents' hidden cards, the draw pile's cards and order, and, while hidden cards are being
chosen, the two starting cards. Its own hand and hidden cards, the pile tops, every card in the discard
piles, the turned-up card, which cards were seen this round, every count and score are known to it.
"""

from __future__ import annotations

import copy

import numpy as np

from conformance import SpecAdapter
from keine_ahnung_env.games.gap.actions import Phase
from keine_ahnung_env.games.gap.core import LOC_DRAW, LOC_HAND, LOC_HIDDEN, LOC_PENDING, LOC_TOP, LOC_UNDER


class GapAdapter(SpecAdapter):
    def __init__(self):
        super().__init__("gap_v0")

    def snapshot(self, core, b):
        return core.snapshot(b)

    def fingerprint(self, core, b):
        return (core.snapshot(b), core.legal_mask[b].tolist(), core.rewards[b].tolist(), core.rng_state[b].tolist())

    def check_game_invariants(self, core):
        P = core.num_players
        for b in range(core.num_envs):
            loc, owner = core.card_loc[b], core.card_owner[b]
            draw = core.draw_cards[b, core.draw_pos[b]:core.draw_len[b]]
            assert sorted(draw.tolist()) == np.flatnonzero(loc == LOC_DRAW).tolist(), f"game {b}: draw pile and locations"
            for p in range(P):
                assert core.hand_count[b, p] == ((loc == LOC_HAND) & (owner == p)).sum(), f"game {b}: hand count of {p}"
                assert core.hidden_count[b, p] == ((loc == LOC_HIDDEN) & (owner == p)).sum(), f"game {b}: hidden of {p}"
            for pile in range(2):
                top = int(core.pile_top[b, pile])
                assert loc[top] == LOC_TOP and owner[top] == pile, f"game {b}: pile {pile} top"
            assert (loc == LOC_TOP).sum() == 2
            pending = int(core.pending[b])
            assert (loc == LOC_PENDING).sum() == (pending >= 0) and (pending < 0 or loc[pending] == LOC_PENDING)
            assert (core.phase[b] == Phase.FLIP) == (pending >= 0)
            assert core.hand_count[b].sum() + core.hidden_count[b].sum() + (loc == LOC_UNDER).sum() + draw.size \
                + 2 + (pending >= 0) == 66, f"game {b}: 66 cards"
            if not core.done[b]:
                assert 0 <= core.round[b] < core.rules.rounds and core.legal_mask[b].any()
            if core.phase[b] in (Phase.FLIP, Phase.PLAY):
                assert (core.hidden_count[b] == 2).all()

    def hidden_cards(self, core, b, seat) -> np.ndarray:
        loc, owner = core.card_loc[b], core.card_owner[b]
        hidden = (loc == LOC_DRAW) | (((loc == LOC_HAND) | (loc == LOC_HIDDEN)) & (owner != seat))
        if core.phase[b] == Phase.HIDE:
            hidden |= loc == LOC_TOP
        return np.flatnonzero(hidden)

    def _relabel(self, core, b, perm: dict) -> None:
        """Where card ``c`` lay now lies ``perm[c]`` (the seen flag stays with the identity)."""
        loc, owner = core.card_loc[b].copy(), core.card_owner[b].copy()
        for old, new in perm.items():
            core.card_loc[b, new], core.card_owner[b, new] = loc[old], owner[old]
        for i in range(core.draw_pos[b], core.draw_len[b]):
            core.draw_cards[b, i] = perm.get(int(core.draw_cards[b, i]), int(core.draw_cards[b, i]))
        for pile in range(2):
            core.pile_top[b, pile] = perm.get(int(core.pile_top[b, pile]), int(core.pile_top[b, pile]))

    def hidden_variants(self, core, b, seat, rng, count=3):
        """The cards ``seat`` cannot see dealt again among their places: unseen cards among the places of
        unseen ones, and cards shuffled back among the places of the cards of the same pool (a seat knows
        how many of each pool every opponent holds: observation version 2)."""
        cards = self.hidden_cards(core, b, seat)
        seen, pool = core.card_seen[b, cards], core.card_pool[b, cards]
        groups = [cards[~seen]] + [cards[seen & (pool == label)] for label in np.unique(pool[seen])]
        for _ in range(count):
            other = copy.deepcopy(core)
            perm = {}
            for group in groups:
                perm.update(zip(group.tolist(), rng.permutation(group).tolist()))
            self._relabel(other, b, perm)
            other.refresh_masks([b])
            yield other

    def visible_variant(self, core, b, seat, rng):
        """One of the seat's own hand cards swapped with a card it cannot see: its view must change."""
        own = np.flatnonzero((core.card_loc[b] == LOC_HAND) & (core.card_owner[b] == seat))
        cards = [c for c in self.hidden_cards(core, b, seat).tolist() if core.card_seen[b, c] == False]  # noqa: E712
        if own.size == 0 or not cards:
            return None
        other = copy.deepcopy(core)
        a, c = int(own[0]), int(cards[0])
        self._relabel(other, b, {a: c, c: a})
        other.refresh_masks([b])
        return other
