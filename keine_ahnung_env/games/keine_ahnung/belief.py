"""What a seat may know, exactly: Keine Ahnung's :class:`~keine_ahnung_env.game_spec.BeliefHooks`.

Everything here is computed from ONE observation (version 2, ``observation.py``), so an
``act(observation, mask)`` agent can use it. Nobody sees a face-down card, not even its owner, so every
seat's knowledge is the public history (plus its own trophies). Given that knowledge (``docs/keine_ahnung.md``,
"Beliefs", says why each step is exact):

* Every shuffle of the draw pile (the deal, and each reshuffle) is a uniform permutation of a multiset
  everyone knows (the whole deck; later the set-aside cards or the covered discards, all seen face up).
  Cards revealed since are known; decisions never depend on a face-down card. So the cards of one
  shuffle that nobody has seen since lie uniformly at random among that shuffle's unrevealed places,
  and different shuffles are independent.
* The current shuffle's unseen cards (``unknown_cards`` minus the earlier pools) fill the draw pile and
  the face-down cards dealt from it. An earlier shuffle's draw pile is used up (reshuffles happen only
  when it is empty), so its unseen cards are exactly the face-down cards still left from it: the pools
  of ``earlier_pool`` / ``earlier_pool_cards``.
* With ``memory="none"`` a seat remembers nothing: every card not face up now is one pool spread over
  the draw pile, every face-down slot and the covered discards. This is the belief of a seat that
  knows the table and assumes nothing about how play went. Real play is not that uniform (covered
  discards fitted the cards they lie under; layouts keep misfits revealed earlier and forgotten), and
  what a forgetful seat should believe depends on how the game was played: at 2 players the call
  probabilities built on it are measurably off in real play (``docs/reliability.md``).
* Trophies: the seat knows its own; every other trophy value is equally likely to be any opponent's
  or any position of the face-down pile. (Exact as long as opponents' moves do not reveal their secret
  trophy values; the shipped heuristics read their own trophy points only through expected values.)

Not in the observation, and therefore drawn, not known: which pile each covered discard lies in and the
age order of the piles (they matter only to which cards a later "remove" keeps on the table), the turn
count (the sampled games count turns from 0), and which consolation-prize cards of equal value a seat
holds (they are alike).

:func:`sample_states` returns ``KeineAhnungCore`` games in which the observer is seat 0 (relative seat
r is seat r) and is to act; :func:`event_probabilities` names the events below.

Events (``event_probabilities``), NaN where undefined:

* ``call_succeeds``: a call by the observer now succeeds (its layout's face-down cards are all number
  cards that fit no pile top); the value of ``risk.batch_call_success_probability``.
* ``unknown_card_fits`` / ``unknown_card_is_prize``: the observer's first unknown face-down card (in
  slot order, the one a reveal of "an unknown card" would show) fits a pile top now / is a consolation
  prize; ``unknown_card_fits_slot{i}`` the same for the card in slot i (NaN when it is not unknown).
* ``draw_card_fits`` / ``draw_card_is_prize``: the next card drawn (the top of the draw pile; after a
  reshuffle of the set-aside cards when the pile is empty) fits a pile top now / is a prize.
* ``refill_hurts``: a "refill" card played by the observer now would deal at least one opponent a card
  and none of the dealt cards is a consolation prize (which would give that opponent points); 0 when no
  opponent holds fewer than three cards.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from .actions import Phase
from .config import CALL_MAX_CARDS, REFILL_FUNCTION_TARGET, SLOTS, Rules
from .deck import NO_FACE, NUM_COLOURS, NUM_FACES, NUM_NUMBERS, CardTables
from .observation import CARD_FEATURES, SLOT_FEATURES, SLOT_STATES, ObservationLayout

_FUNCTIONS_AT = NUM_COLOURS + NUM_NUMBERS


def _type_lookup(tables: CardTables) -> dict[tuple[int, int], int]:
    """(face, function code) -> card type, for number cards."""
    return {(int(k[0]) * NUM_NUMBERS + int(k[1]) - 1, int(k[2])): t
            for t, k in enumerate(tables.type_keys) if k[0] != "prize"}


@dataclasses.dataclass
class Knowledge:
    """One observation decoded into what the observer knows (observer = relative seat 0).

    Hidden places are listed in ``hidden_kind`` order: draw-pile positions (top first), then face-down
    slots, then (memory "none") covered discards; ``hidden_group[i]`` is the pool each is drawn from
    (0: the current shuffle / everything unseen; k: earlier pool k) and ``group_types`` the cards of
    the pools, sorted by group, so that a permutation within groups is a draw from the belief.
    """

    phase: int
    slot_type: np.ndarray  # [P, 6] card type of known face-down cards, -1 unknown, -2 empty
    tops: np.ndarray  # [36] piles per top face
    top_types: np.ndarray  # [n_piles] card type of each pile top (piles in face order)
    covered_types: np.ndarray  # [n_covered] types of covered discards (perfect memory), else empty
    aside_types: np.ndarray
    prize_types: list  # per seat, the prize types it holds
    pending_type: int  # -1 none
    pending_slot: int  # -1 none or from the draw pile
    own_trophies: np.ndarray  # values
    trophies_won: np.ndarray  # [P]
    trophies_left: int
    n_draw: int
    hidden_slots: np.ndarray  # [H_slots, 2] (seat, slot) of face-down cards to draw
    hidden_group: np.ndarray  # [H] group of each hidden place (draw, slots, covered)
    group_types: np.ndarray  # [H] the pools' card types, pool 0's first, then pool 1's, ...
    n_covered_hidden: int  # covered discards among the hidden places (memory "none")
    slot_pool: np.ndarray  # [P, 6] pool number of unknown slots (0 current), -1 otherwise
    pools: list  # per group: [T] counts


class KeineAhnungBelief:
    """Keine Ahnung's beliefs for one variant (see the module docstring)."""

    def __init__(self, rules: Rules):
        self.rules = rules
        self.tables = t = rules.tables()
        self.num_players = P = rules.num_players
        self.perfect = rules.memory == "perfect"
        self.layout = ObservationLayout.for_tables(P, t)
        self._types = _type_lookup(t)
        self._type_of_code = np.full(NUM_FACES * 4, -1, np.int64)  # (face * 4 + function) -> type
        for (face, fn), ty in self._types.items():
            self._type_of_code[face * 4 + fn] = ty
        self._deck_trophy_counts = dict(zip(*(x.tolist() for x in np.unique(t.trophies, return_counts=True))))
        self._sorted_trophies = np.sort(t.trophies).astype(np.int64)
        self._ids_by_type = np.argsort(t.card_type, kind="stable").astype(np.int16)
        self._trophy_values = t.trophy_values
        # Cards per prize type, and the value of each prize type.
        self._prize_types = np.flatnonzero(t.type_is_prize)
        self._prize_type_value = {int(ty): int(t.type_keys[ty][1]) for ty in self._prize_types}
        self._good_cache: dict[bytes, np.ndarray] = {}

    # ------------------------------------------------------------------------------ decoding

    def _card_types(self, features: np.ndarray, where: str) -> np.ndarray:
        """Card types of card encodings [n, 15] (ValueError for a non-card or a card not in the deck)."""
        colour = features[:, :NUM_COLOURS]
        number = features[:, NUM_COLOURS:_FUNCTIONS_AT]
        fn = features[:, _FUNCTIONS_AT:CARD_FEATURES]
        if (colour.sum(1) != 1).any() or (number.sum(1) != 1).any() or (fn.sum(1) > 1).any():
            raise ValueError(f"observation: {where} is not a card encoding")
        code = (colour.argmax(1) * NUM_NUMBERS + number.argmax(1)) * 4 + np.where(fn.any(1), fn.argmax(1) + 1, 0)
        types = self._type_of_code[code]
        if (types < 0).any():
            raise ValueError(f"observation: {where} shows a card this deck does not have")
        return types

    def _card_type(self, features: np.ndarray, where: str) -> int:
        colour = features[:NUM_COLOURS]
        number = features[NUM_COLOURS:_FUNCTIONS_AT]
        fn = features[_FUNCTIONS_AT:CARD_FEATURES]
        if colour.sum() != 1 or number.sum() != 1 or fn.sum() > 1:
            raise ValueError(f"observation: {where} is not a card encoding")
        face = int(colour.argmax()) * NUM_NUMBERS + int(number.argmax())
        key = (face, int(fn.argmax()) + 1 if fn.any() else 0)
        if key not in self._types:
            raise ValueError(f"observation: {where} shows a card this deck does not have")
        return self._types[key]

    def knowledge(self, observation: np.ndarray) -> Knowledge:
        """Decodes one observation [O]; ValueError when no real game of this variant produces it."""
        obs = np.asarray(observation, np.float32)
        if obs.ndim != 1 or obs.shape[0] != self.layout.size:
            raise ValueError(f"observation of shape {obs.shape}; this variant ({self.num_players} players, "
                             f"observation version {self.layout.version}) needs [{self.layout.size}]")
        if not np.isfinite(obs).all() or (obs < 0).any() or (obs != np.rint(obs)).any():
            raise ValueError("observation: every feature of a real observation is a non-negative integer")
        t, P = self.tables, self.num_players
        sec = {k: np.rint(v).astype(np.int64) for k, v in self.layout.split(obs).items()}
        if sec["phase"].sum() != 1:
            raise ValueError("observation: the phase section must be one-hot")
        phase = int(sec["phase"].argmax())
        slots = sec["layouts"].reshape(P, SLOTS, SLOT_FEATURES)
        state = slots[:, :, :SLOT_STATES]
        if (state.sum(-1) != 1).any():
            raise ValueError("observation: every layout slot must be empty, unknown or known")
        kind = state.argmax(-1)
        slot_type = np.where(kind == 0, -2, -1).astype(np.int64)
        known = kind == 2
        if known.any():
            slot_type[known] = self._card_types(slots[known][:, SLOT_STATES:], "a known layout card")
        pending_type, pending_slot = -1, -1
        if sec["pending_card"].any():
            pending_type = self._card_type(sec["pending_card"], "the pending card")
            if sec["pending_slot"].any():
                pending_slot = int(sec["pending_slot"].argmax())
        draw, aside_n, left, n_piles = (int(x) for x in sec["table_counts"])
        players = sec["players"].reshape(P, 3)
        unknown = sec["unknown_cards"].copy()
        aside = sec["set_aside_cards"]
        covered = sec["covered_cards"]
        if aside.sum() != aside_n:
            raise ValueError("observation: set_aside_cards does not add up to the set-aside count")
        tops = sec["pile_tops"]
        if tops.sum() != n_piles:
            raise ValueError("observation: pile_tops does not add up to the number of piles")
        if t.type_is_prize[np.flatnonzero(aside)].any() or t.type_is_prize[np.flatnonzero(covered)].any():
            raise ValueError("observation: consolation prizes never lie set aside or on a pile")

        # The pools of unknown face-down cards.
        slot_pool = np.full((P, SLOTS), -1, np.int64)
        pool_number = sec["earlier_pool"].reshape(P, SLOTS)
        pool_card = sec["earlier_pool_cards"].reshape(P, SLOTS) - 1
        if not self.perfect and (pool_number.any() or covered.any()):
            raise ValueError("observation: with memory='none' the earlier-pool and covered-card sections are empty")
        hidden = slot_type == -1
        if self.perfect and phase == Phase.PLACE_REVEALED and pending_slot >= 0 and hidden[0, pending_slot]:
            raise ValueError("observation: the card awaiting a pile is shown unknown in its slot")
        if not self.perfect and phase == Phase.PLACE_REVEALED and pending_slot >= 0:
            if not hidden[0, pending_slot]:
                raise ValueError("observation: the pending card's slot is empty")
            hidden[0, pending_slot] = False  # face up now: the pending card
            slot_type[0, pending_slot] = pending_type
        if ((pool_number > 0) & ~hidden).any() or ((pool_number > 0) != (pool_card >= 0)).any() \
                or (pool_card >= t.num_types).any():
            raise ValueError("observation: earlier pools must name unknown face-down cards and card types")
        slot_pool[hidden] = pool_number[hidden]
        groups = int(slot_pool.max(initial=0))
        pools = [np.zeros(t.num_types, np.int64) for _ in range(groups + 1)]
        for k in range(1, groups + 1):
            sel = slot_pool == k
            if not sel.any():
                raise ValueError(f"observation: earlier pool {k} is missing (pools are numbered 1, 2, ... )")
            pools[k] = np.bincount(pool_card[sel], minlength=t.num_types)
        pools[0] = unknown - sum(pools[1:], np.zeros(t.num_types, np.int64))
        if (pools[0] < 0).any():
            raise ValueError("observation: the earlier pools hold cards unknown_cards does not count")
        n_slots0 = int((slot_pool == 0).sum())
        n_covered_hidden = 0
        if self.perfect:
            if pools[0].sum() != draw + n_slots0:
                raise ValueError("observation: unknown_cards does not match the draw pile plus the unknown "
                                 "face-down cards")
        else:
            n_covered_hidden = int(pools[0].sum()) - draw - n_slots0
            if n_covered_hidden < 0 or (n_covered_hidden > 0 and n_piles == 0):
                raise ValueError("observation: unknown_cards does not cover the draw pile and the face-down cards")

        # What is left is the pile tops and the won prizes.
        rest = t.type_total.astype(np.int64) - unknown - aside - covered
        known_slots = slot_type[slot_type >= 0]
        np.subtract.at(rest, known_slots, 1)
        if pending_type >= 0 and not (phase == Phase.PLACE_REVEALED and pending_slot >= 0):
            rest[pending_type] -= 1
        if (rest < 0).any():
            raise ValueError("observation: more cards of a type are accounted for than the deck has")
        top_faces = np.repeat(np.arange(NUM_FACES), tops)
        number_rest = np.where(t.type_is_prize, 0, rest)
        if not np.array_equal(np.bincount(t.type_face[np.repeat(np.arange(t.num_types), number_rest)],
                                          minlength=NUM_FACES + 1)[:NUM_FACES], tops):
            raise ValueError("observation: the cards not accounted for do not match the pile tops")
        top_types = np.empty(top_faces.size, np.int64)
        remaining = number_rest.copy()
        for i, face in enumerate(top_faces):
            ty = int(np.flatnonzero((t.type_face == face) & (remaining > 0))[0])
            top_types[i] = ty
            remaining[ty] -= 1
        prize_types = self._assign_prizes(np.where(t.type_is_prize, rest, 0), players)
        # Trophies.
        own = sec["own_trophies"]
        if own.sum() != players[0, 0]:
            raise ValueError("observation: own_trophies does not add up to the observer's trophy count")
        own_values = np.repeat(self._trophy_values, own)
        if int(own_values.sum()) != int(sec["own_trophy_points"][0]):
            raise ValueError("observation: own_trophies does not add up to own_trophy_points")
        if players[:, 0].sum() + left != t.num_trophies:
            raise ValueError("observation: trophies won and left do not add up to the deck's trophies")
        if any(c > self._deck_trophy_counts[int(v)] for v, c in zip(self._trophy_values, own)):
            raise ValueError("observation: own_trophies holds more trophies of a value than the deck has")

        hidden_slots = np.argwhere(slot_pool >= 0)  # row-major: (seat, slot) in order
        slot_groups = slot_pool[hidden_slots[:, 0], hidden_slots[:, 1]]
        hidden_group = np.concatenate([np.zeros(draw, np.int64), slot_groups, np.zeros(n_covered_hidden, np.int64)])
        group_types = np.concatenate([np.repeat(np.arange(t.num_types), pools[k]) for k in range(groups + 1)])
        if group_types.size != hidden_group.size or not np.array_equal(
                np.bincount(hidden_group, minlength=groups + 1), [p.sum() for p in pools]):
            raise ValueError("observation: the earlier pools do not match their slots")
        return Knowledge(
            phase=phase, slot_type=slot_type, tops=tops, top_types=top_types,
            covered_types=np.repeat(np.arange(t.num_types), covered), aside_types=np.repeat(np.arange(t.num_types), aside),
            prize_types=prize_types, pending_type=pending_type, pending_slot=pending_slot, own_trophies=own_values,
            trophies_won=players[:, 0].copy(), trophies_left=left, n_draw=draw, hidden_slots=hidden_slots,
            hidden_group=hidden_group, group_types=group_types,
            n_covered_hidden=n_covered_hidden, slot_pool=slot_pool, pools=pools)

    def _assign_prizes(self, rest_prizes: np.ndarray, players: np.ndarray) -> list:
        """Some assignment of the won prize cards (types, counts ``rest_prizes``) to the seats that
        matches every seat's prize count and points (prizes of equal value are alike)."""
        P = self.num_players
        counts, points = players[:, 2], players[:, 1]
        if counts.sum() != rest_prizes.sum():
            raise ValueError("observation: the prizes won do not match the prizes accounted for")
        available = {int(ty): int(rest_prizes[ty]) for ty in self._prize_types if rest_prizes[ty] > 0}
        values = self._prize_type_value

        def combos(left: dict, need: int, value: int, types: list) -> Any:
            if need == 0:
                if value == 0:
                    yield []
                return
            for i, ty in enumerate(types):
                if left[ty] > 0 and values[ty] <= value:
                    left[ty] -= 1
                    for more in combos(left, need - 1, value - values[ty], types[i:]):
                        yield [ty] + more
                    left[ty] += 1

        def solve(seat: int, left: dict):
            if seat == P:
                return []
            for combo in combos(left, int(counts[seat]), int(points[seat]), sorted(left)):
                rest = solve(seat + 1, dict(left))  # ``left`` holds the combination's cards taken
                if rest is not None:
                    return [combo] + rest
            return None

        result = solve(0, available)
        if result is None:
            raise ValueError("observation: no assignment of the won prizes matches every seat's prize points")
        return result

    # ------------------------------------------------------------------------------ sampling

    def sample_states(self, observation: np.ndarray, count: int, rng: np.random.Generator):
        """``count`` complete states drawn from the observer's belief, as a ``KeineAhnungCore`` whose game
        i draws its later reshuffles from a stream seeded from ``rng``. The observer is seat 0 and is to
        act in every game; its observation there equals ``observation`` (see the module docstring)."""
        from . import kernels as K
        from .core import LOC_ASIDE, LOC_DRAW, LOC_LAYOUT, LOC_PENDING, LOC_PILE, LOC_PRIZE, STATE_ARRAYS

        if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 1:
            raise ValueError(f"count={count!r}; allowed: a positive integer")
        know = self.knowledge(observation)
        sec = self.layout.split(np.asarray(observation, np.float32))
        if know.phase == Phase.OVER or not sec["acting_seat"].any() or int(sec["acting_seat"].argmax()) != 0:
            raise ValueError("sample_states needs an observation of the seat to act (its own decision)")
        t, P, S, N = self.tables, self.num_players, int(count), self.tables.num_cards
        rows = np.arange(S)[:, None]

        # Hidden cards: a uniform permutation within each pool.
        H = know.hidden_group.size
        if H:
            # Places sorted by pool; random keys within a pool's range permute only within it.
            by_group = np.argsort(know.hidden_group, kind="stable")
            keys = know.hidden_group[by_group][None, :] * 2.0 + rng.random((S, H))
            hidden_types = np.empty((S, H), np.int64)
            hidden_types[:, by_group] = know.group_types[np.argsort(keys, axis=1)]
        else:
            hidden_types = np.zeros((S, 0), np.int64)
        nd, nh = know.n_draw, know.hidden_slots.shape[0]

        # Every place of a card, with its type: slots, draw pile, tops, covered, aside, prizes, pending.
        occupied = np.argwhere(know.slot_type != -2)  # (seat, slot), row-major
        slot_types = np.broadcast_to(know.slot_type[occupied[:, 0], occupied[:, 1]], (S, occupied.shape[0])).copy()
        is_hidden = know.slot_pool[occupied[:, 0], occupied[:, 1]] >= 0  # the same row-major order as hidden_slots
        slot_types[:, is_hidden] = hidden_types[:, nd:nd + nh]
        covered_types = np.concatenate([np.broadcast_to(know.covered_types, (S, know.covered_types.size)),
                                        hidden_types[:, nd + nh:]], axis=1)
        prize_seats = np.concatenate([np.full(len(p), seat) for seat, p in enumerate(know.prize_types)] + [[]]).astype(np.int64)
        fixed_tail = np.concatenate([know.top_types, know.aside_types,
                                     np.array([ty for p in know.prize_types for ty in p], np.int64),
                                     np.array([know.pending_type] if know.pending_type >= 0 and know.pending_slot < 0
                                              else [], np.int64)]).astype(np.int64)
        place_types = np.concatenate([slot_types, hidden_types[:, :nd], covered_types,
                                      np.broadcast_to(fixed_tail, (S, fixed_tail.size))], axis=1)
        if place_types.shape[1] != N:
            raise ValueError(f"observation: {place_types.shape[1]} cards accounted for; the deck has {N}")
        order = np.argsort(place_types, axis=1, kind="stable")
        card_of = np.empty((S, N), np.int64)
        card_of[rows, order] = self._ids_by_type[None, :]
        n_slot, n_cov = occupied.shape[0], covered_types.shape[1]
        c_slots = card_of[:, :n_slot]
        c_draw = card_of[:, n_slot:n_slot + nd]
        c_cov = card_of[:, n_slot + nd:n_slot + nd + n_cov]
        at = n_slot + nd + n_cov
        n_tops, n_aside = know.top_types.size, know.aside_types.size
        c_tops = card_of[:, at:at + n_tops]
        c_aside = card_of[:, at + n_tops:at + n_tops + n_aside]
        n_prizes = prize_seats.size
        c_prizes = card_of[:, at + n_tops + n_aside:at + n_tops + n_aside + n_prizes]
        c_pending = card_of[:, at + n_tops + n_aside + n_prizes:]

        core = self._new_core(S)
        state = {name: getattr(core, name) for name in STATE_ARRAYS}
        state["phase"][:] = Phase.MAIN
        groups = len(know.pools) - 1
        state["reshuffles"][:] = groups
        state["card_epoch"][:] = groups
        seats, slots = occupied[:, 0], occupied[:, 1]
        state["layout"][:, seats, slots] = c_slots
        state["card_loc"][rows, c_slots] = LOC_LAYOUT
        state["card_where"][rows, c_slots] = seats[None, :]
        known_slot = np.array([know.slot_type[a, b] >= 0 for a, b in occupied], bool)
        if self.perfect:
            state["card_known"][rows, c_slots] = known_slot[None, :]
        pools_of_slots = know.slot_pool[seats, slots]
        state["card_epoch"][rows, c_slots] = np.where(pools_of_slots > 0, groups - pools_of_slots, groups)[None, :]
        state["draw_cards"][:, :nd] = c_draw
        state["draw_len"][:] = nd
        state["card_loc"][rows, c_draw] = LOC_DRAW
        # Piles: one per top, in face order; covered discards in random piles.
        n_piles = n_tops
        state["pile_count"][:] = n_piles
        state["pile_top"][:, :n_piles] = c_tops
        state["pile_face"][:, :n_piles] = t.face[c_tops]
        state["top_count"][:] = know.tops
        state["card_loc"][rows, c_tops] = LOC_PILE
        state["card_where"][rows, c_tops] = np.arange(n_piles)[None, :]
        state["card_known"][rows, c_tops] = True
        if n_cov:
            state["card_loc"][rows, c_cov] = LOC_PILE
            state["card_where"][rows, c_cov] = rng.integers(0, n_piles, size=(S, n_cov))
            state["card_known"][rows, c_cov] = True
        state["card_loc"][rows, c_aside] = LOC_ASIDE
        state["card_known"][rows, c_aside] = True
        if n_prizes:
            state["card_loc"][rows, c_prizes] = LOC_PRIZE
            state["card_where"][rows, c_prizes] = prize_seats[None, :]
            state["card_known"][rows, c_prizes] = True
            for seat in range(P):
                mine = c_prizes[:, prize_seats == seat]
                state["prize_count"][:, seat] = mine.shape[1]
                state["prize_points"][:, seat] = t.prize_value[mine].sum(1) if mine.shape[1] else 0
        # The decision pending.
        state["phase"][:] = know.phase
        state["current"][:] = 0
        if know.pending_type >= 0:
            if know.pending_slot >= 0:
                j = int(np.flatnonzero((seats == 0) & (slots == know.pending_slot))[0])
                state["pending"][:] = c_slots[:, j]
                state["pending_slot"][:] = know.pending_slot
                state["card_known"][np.arange(S), c_slots[:, j]] = True
            else:
                state["pending"][:] = c_pending[:, 0]
                state["card_loc"][rows, c_pending] = LOC_PENDING
                state["card_known"][rows, c_pending] = True
        state["clear_pending"][:] = know.phase == Phase.PLACE_DRAWN and not (know.slot_type[0] != -2).any()
        # Trophies: own ones known, every other value shuffled among the opponents' and the pile.
        T = t.num_trophies
        owners = np.repeat(np.arange(P), know.trophies_won)
        won = owners.size
        others = list(self._sorted_trophies)
        for v in know.own_trophies:
            others.remove(v)
        others = np.array(others, np.int64)
        shuffled = others[np.argsort(rng.random((S, others.size)), axis=1)]
        order_values = np.empty((S, T), np.int64)
        mine = owners == 0
        order_values[:, np.flatnonzero(mine)] = np.sort(know.own_trophies)[None, :]
        not_mine = np.concatenate([np.flatnonzero(~mine), np.arange(won, T)])
        order_values[:, not_mine] = shuffled
        state["trophy_order"][:] = order_values
        state["trophy_owner"][:, :won] = owners[None, :]
        state["trophy_pos"][:] = won
        state["trophy_count"][:] = know.trophies_won[None, :]
        hold = owners[None, :, None] == np.arange(P)[None, None, :]
        state["trophy_points"][:] = (order_values[:, :won, None] * hold).sum(1)
        # Later reshuffles draw from fresh xoshiro256** streams taken from ``rng`` (any state but all
        # zeros is a valid one).
        core.rng_state[:] = rng.integers(0, 2 ** 64, size=(S, 4), dtype=np.uint64, endpoint=False)
        core.rng_state[~core.rng_state.any(1), 0] = 1
        K.advance_kernel(core._state(), core._k, np.arange(S, dtype=np.intp), K.DECIDE)
        return core

    def _new_core(self, S: int):
        """An empty core of S games (a one-game template's constants shared, its arrays repeated:
        building the kernels' constants again for every sample batch would cost more than sampling)."""
        from .core import STATE_ARRAYS, KeineAhnungCore

        if not hasattr(self, "_template"):
            self._template = KeineAhnungCore.__new__(KeineAhnungCore)
            self._template._allocate(1, self.rules)
        core = KeineAhnungCore.__new__(KeineAhnungCore)
        core.__dict__.update(self._template.__dict__)
        for name in STATE_ARRAYS + ("rng_state",):
            setattr(core, name, np.repeat(getattr(self._template, name), S, axis=0))
        core.num_envs = S
        core._all_active = np.ones(S, bool)
        return core

    # ------------------------------------------------------------------------------ events

    def event_probabilities(self, observation: np.ndarray) -> dict[str, float]:
        """The named events of the module docstring, from the observer's point of view."""
        from . import odds as risk

        know = self.knowledge(observation)
        t = self.tables
        out: dict[str, float] = {}
        nan = float("nan")
        over = know.phase == Phase.OVER
        out["call_succeeds"] = nan if over else float(risk.batch_call_success_probability(
            np.asarray(observation, np.float32)[None], t)[0])
        fits_type = (np.asarray(know.tops, np.float64) @ t.compat[:NUM_FACES + 1, :NUM_FACES].T.astype(np.float64)
                     )[t.type_face] > 0  # [T]; prizes (face 36) fit nothing
        fits_type &= ~t.type_is_prize
        first = np.nan
        for s in range(SLOTS):
            k = int(know.slot_pool[0, s])
            if k < 0 or over:
                out[f"unknown_card_fits_slot{s}"] = nan
                continue
            pool = know.pools[k]
            n = pool.sum()
            value = float((pool * fits_type).sum() / n)
            out[f"unknown_card_fits_slot{s}"] = value
            if np.isnan(first):
                first = s
                out["unknown_card_is_prize"] = float((pool * t.type_is_prize).sum() / n)
        out["unknown_card_fits"] = nan if np.isnan(first) else out[f"unknown_card_fits_slot{first}"]
        out.setdefault("unknown_card_is_prize", nan)
        # The next card drawn: the current pool, or the set-aside cards reshuffled.
        pool0 = know.pools[0]
        if know.n_draw > 0 and not over:
            source = pool0
        elif know.aside_types.size and not over:
            source = np.bincount(know.aside_types, minlength=t.num_types)
        else:
            source = None
        if source is None:
            out["draw_card_fits"] = out["draw_card_is_prize"] = nan
        else:
            out["draw_card_fits"] = float((source * fits_type).sum() / source.sum())
            out["draw_card_is_prize"] = float((source * t.type_is_prize).sum() / source.sum())
        # A refill now: the dealt cards come off the draw pile top (a uniform draw from the current pool),
        # then from a reshuffle of seen cards (never prizes).
        counts = (know.slot_type != -2).sum(1)
        deal = int(np.maximum(REFILL_FUNCTION_TARGET - counts[1:], 0).sum())
        if over:
            out["refill_hurts"] = nan
        elif deal == 0:
            out["refill_hurts"] = 0.0
        else:
            from_pile = min(deal, know.n_draw)
            n, prizes = int(pool0.sum()), int((pool0 * t.type_is_prize).sum())
            p = 1.0
            for i in range(from_pile):
                p *= max(n - prizes - i, 0) / (n - i)
            out["refill_hurts"] = p if from_pile > 0 or know.aside_types.size or know.covered_types.size else 0.0
        return out


_BELIEFS: dict = {}


def belief_for(rules: Rules) -> KeineAhnungBelief:
    """The (cached) beliefs of a variant."""
    if rules not in _BELIEFS:
        _BELIEFS[rules] = KeineAhnungBelief(rules)
    return _BELIEFS[rules]
