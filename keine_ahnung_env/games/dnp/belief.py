"""What a dnp seat may know, exactly: its belief over the other hands, from its observation alone.

dnp's :class:`~keine_ahnung_env.game_spec.BeliefHooks` (``GameSpec.belief``): exact probabilities of
named events and a sampler of complete states, built from one observation (``observation.py``,
version 1), so an ``act(observation, mask)`` agent can use them.

**What is hidden from a seat**: the cards in the other hands the table has not seen this round (the
*unknown* cards), and which way each of them lies. Every card in play is dealt, so the unknown cards are
exactly the cards in play that are not in the seat's hand, on the table, discarded or known to be in
another hand (taken back after being beaten, or picked up with C, followed through their owner's turns
of the whole hand). Seat r holds ``hand size - known cards`` of them.

**The observation suffices.** Once a card has been face up this round it is known for the rest of the
round (on the table, discarded, or known in a hand until it leaves it), and the observation shows it;
a card that has not is one of the unknown cards, and nothing that happened to it (being dealt, being
turned with the whole hand) was seen. So no history beyond the observation is needed and the
observation is not extended.

**The model.** The deal is a uniform shuffle dealt round-robin and each card's orientation an
independent fair coin (``kernels._deal``); turning a whole hand flips every orientation in it, which
keeps an unknown card's orientation a fair coin. The other players' decisions are taken as carrying
no information about their unknown cards (the probability of every decision is the same in every
hidden state consistent with what the seat saw). Under this model the posterior is uniform: the
unknown cards are spread uniformly over the other hands with the right counts, each lying either way
with probability 1/2, independently. "Exact" means exact under this model, given everything the seat
has seen this round (a new round deals everything again). Real opponents do reveal something by their
choices (a whole-hand turn hints at a poor hand); that is outside the model.

**Samples** (:meth:`DnpBelief.sample_states`) are complete states of a :class:`~.core.DnpCore` in which
the observing seat is to act with exactly the observed observation and legal mask. The rules do not
depend on seat numbers (the star's holder starts each round), so the observing seat is seat 0 in
every sample and the others follow clockwise (relative seat r is seat r). What the observation does
not hold and the rules do not use is set plainly: the orientation of discarded cards (upright), the
round's deal order (unknown, -1), and the counters ``turn`` and ``rounds`` (0; ``max_turns`` counts
from the sample). Later chance events (the next rounds' deals) draw from streams seeded from ``rng``.

**Events** (:meth:`DnpBelief.event_probabilities`; seat ``+r`` is r seats clockwise, r = 1 .. P-1):

| event | probability that |
|---|---|
| ``holds_value_{v}_seat_{r}`` | seat +r holds at least one card whose active value is v (v = 1 .. 10): it could play a set of value v, or add to one |
| ``holds_above_{v}_seat_{r}`` | seat +r holds at least one card whose active value is above v (v = 1 .. 9): it could beat a single card of value v |

:meth:`DnpBelief.value_counts` gives the exact distribution of the number of cards of each active value
in each other hand (for sets of any size), :meth:`DnpBelief.card_marginals` each card's place.
"""

from __future__ import annotations

import dataclasses
import functools
import math

import numpy as np

from ...rng import stream_states
from .actions import ActionLayout
from .config import Rules
from .core import DnpCore
from .kernels import LOC_DISCARD, LOC_HAND, LOC_OUT, LOC_TABLE, MAX_VALUE
from .observation import ObservationLayout


@dataclasses.dataclass
class Knowledge:
    """Everything one observation says, validated (relative seats = the sample's seats)."""

    area: int
    selection: tuple[int, int]
    hand_sizes: np.ndarray
    points: np.ndarray
    out: np.ndarray
    known_counts: np.ndarray
    place: np.ndarray
    """[N] int: LOC_* of each card as the seat sees it, -1 for an unknown card."""
    where: np.ndarray
    """[N] int: holding seat (hand) or table position; 0 otherwise."""
    rot: np.ndarray
    """[N] int: orientation of every card the seat sees (0 elsewhere)."""
    public: np.ndarray
    selected: np.ndarray
    set_size: np.ndarray
    set_value: np.ndarray
    unknown: np.ndarray
    """the unknown card ids."""
    unknown_counts: np.ndarray
    """[P] unknown cards in each hand (0 for the seat itself)."""


@functools.lru_cache(maxsize=4096)
def _hypergeometric(total: int, marked: int, drawn: int) -> np.ndarray:
    """[drawn + 1] P(i of the ``marked`` items among a uniform ``drawn``-subset of ``total``)."""
    out = np.zeros(drawn + 1)
    if drawn > total:
        return out
    whole = math.comb(total, drawn)
    for i in range(min(marked, drawn) + 1):
        out[i] = math.comb(marked, i) * math.comb(total - marked, drawn - i) / whole
    return out


@functools.lru_cache(maxsize=4096)
def _thinned(total: int, marked: int, drawn: int) -> np.ndarray:
    """[drawn + 1] distribution of how many of the drawn marked items also win a fair coin each."""
    hyper = _hypergeometric(total, marked, drawn)
    out = np.zeros(drawn + 1)
    for i, p in enumerate(hyper):
        if p:
            out[:i + 1] += p * np.array([math.comb(i, k) for k in range(i + 1)]) / 2.0 ** i
    return out


class DnpBelief:
    """The belief hooks of one dnp variant (``GameSpec.belief``); see the module docstring."""

    def __init__(self, rules: Rules):
        self.rules = rules
        self.tables = rules.tables()
        self.num_players = rules.num_players
        self.layout = ObservationLayout.make(rules.num_players, self.tables.num_cards)
        self.num_actions = ActionLayout(self.tables.num_cards, rules.num_players).num_actions

    # ------------------------------------------------------------------ reading an observation

    def knowledge(self, observation: np.ndarray) -> Knowledge:
        """What ``observation`` (one seat's, at its decision) says; ValueError if no real game gives it."""
        P, L, t = self.num_players, self.layout, self.tables
        N, F, A, T = t.num_cards, L.card_width, L.areas, L.positions
        obs = np.asarray(observation, np.float64)
        if obs.shape != (L.size,):
            raise ValueError(f"observation of shape {np.shape(observation)}; dnp_v0 with {P} players needs "
                             f"[{L.size}] (one observation)")
        rounded = np.rint(obs)
        if not np.isfinite(obs).all() or not np.array_equal(rounded, obs) or (rounded < 0).any():
            raise ValueError("a dnp observation holds non-negative whole numbers only")
        v = L.split(rounded.astype(np.int64))
        acting = np.flatnonzero(v["acting"])
        if acting.size == 0:
            raise ValueError("the observation is of a finished game: no seat is to act")
        if acting.size != 1 or v["acting"].max() > 1 or acting[0] != 0:
            raise ValueError("the observation is not at the observing seat's decision (acting is not you)")
        if v["area"].sum() != 1 or v["area"].max() > 1:
            raise ValueError("observation section area must be one-hot")
        area = int(np.argmax(v["area"]))
        players = v["players"].reshape(P, 4)
        hand_sizes, points, out, known_counts = (players[:, i].copy() for i in range(4))
        if out.max() > 1 or points.max() >= self.rules.target or (P == 2 and out.any()):
            raise ValueError("observation section players out of range (points below the target, out 0/1)")
        if out[0] or (P > 2 and out.sum() > 1):
            raise ValueError("observation: the seat to act is out of the round, or more than one seat is out")
        cards = v["cards"].reshape(N, F)
        if not np.array_equal(cards[:, :2], t.values.astype(np.int64)):
            raise ValueError("observation: the cards' printed values are not this variant's deck")
        flags = cards[:, 4:]
        if flags.max() > 1:
            raise ValueError("observation: card flags must be 0/1")
        mine, selected, mine_public = flags[:, 0] > 0, flags[:, 1] > 0, flags[:, 2] > 0
        on_table = flags[:, 3:3 + T] > 0
        known = flags[:, 3 + T:3 + T + P - 1] > 0
        discarded, gone = flags[:, 3 + T + P - 1] > 0, flags[:, 3 + T + P] > 0
        places = mine.astype(int) + on_table.sum(axis=1) + known.sum(axis=1) + discarded + gone
        if places.max() > 1:
            raise ValueError("observation: a card is in two places")
        if not np.array_equal(gone, ~t.in_play):
            raise ValueError("observation: the cards out of the game are not this player count's")
        if (selected & ~mine).any() or (mine_public & ~mine).any():
            raise ValueError("observation: a selected or public card outside the seat's hand")
        visible = mine | on_table.any(axis=1) | known.any(axis=1)
        rot = cards[:, 3]
        if rot.max() > 1 or (rot[~visible] != 0).any() or (cards[~visible, 2] != 0).any() or \
                not np.array_equal(cards[visible, 2], t.values[visible, rot[visible]]):
            raise ValueError("observation: a card's active value disagrees with its orientation (or is shown "
                             "for a card the seat cannot see)")
        place = np.full(N, -1)
        where = np.zeros(N, np.int64)
        place[~t.in_play] = LOC_OUT
        place[mine] = LOC_HAND
        place[discarded] = LOC_DISCARD
        for r in range(1, P):
            place[known[:, r - 1]] = LOC_HAND
            where[known[:, r - 1]] = r
        rows, positions = np.nonzero(on_table)
        place[rows] = LOC_TABLE
        where[rows] = positions
        if hand_sizes[0] != mine.sum() or not np.array_equal(known_counts[1:], known.sum(axis=0)) or \
                known_counts[0] != mine_public.sum():
            raise ValueError("observation: hand sizes or known-card counts disagree with the cards")
        unknown = np.flatnonzero(place < 0)
        unknown_counts = hand_sizes - known_counts
        unknown_counts[0] = 0
        if (unknown_counts < 0).any() or unknown_counts.sum() != unknown.size:
            raise ValueError(f"observation: {unknown.size} unknown cards for {int(unknown_counts.sum())} unknown "
                             f"places in the other hands")
        table = v["table"].reshape(T, 2)
        set_value, set_size = table[:, 0], table[:, 1]
        for pos in range(T):
            here = np.flatnonzero(on_table[:, pos])
            values = set(cards[here, 2].tolist())
            if set_size[pos] != here.size or (here.size and values != {set_value[pos]}) or \
                    (not here.size and set_value[pos]):
                raise ValueError(f"observation: the set at relative position {pos} disagrees with its cards")
        sel_count, sel_value = (int(x) for x in v["selection"])
        if sel_count != selected.sum() or (sel_count and set(cards[selected, 2].tolist()) != {sel_value}) or \
                (not sel_count and sel_value):
            raise ValueError("observation: the selection disagrees with the selected cards")
        if A == 1 and area != 0:
            raise ValueError("observation: only two-player games have a second area")
        public = mine_public | known.any(axis=1)
        return Knowledge(area=area, selection=(sel_count, sel_value), hand_sizes=hand_sizes, points=points,
                         out=out > 0, known_counts=known_counts, place=place, where=where,
                         rot=np.where(visible, rot, 0), public=public, selected=selected, set_size=set_size,
                         set_value=set_value, unknown=unknown, unknown_counts=unknown_counts)

    # ------------------------------------------------------------------ the sampler

    def sample_states(self, observation: np.ndarray, count: int, rng: np.random.Generator) -> DnpCore:
        """A :class:`DnpCore` of ``count`` complete states drawn from the seat's exact belief (see the
        module docstring); ValueError for an observation no real game gives."""
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 1:
            raise ValueError(f"count={count!r}; allowed: a positive integer")
        know = self.knowledge(observation)
        n, P, N = int(count), self.num_players, self.tables.num_cards
        rows = np.arange(n)[:, None]
        card_loc = np.broadcast_to(np.where(know.place < 0, LOC_HAND, know.place).astype(np.int8), (n, N)).copy()
        card_where = np.broadcast_to(know.where.astype(np.int8), (n, N)).copy()
        card_rot = np.broadcast_to(know.rot.astype(np.int8), (n, N)).copy()
        unknown = know.unknown[np.argsort(rng.random((n, know.unknown.size)), axis=1)]
        owners = np.repeat(np.arange(P), know.unknown_counts).astype(np.int8)
        card_where[rows, unknown] = owners[None, :]
        card_rot[:, know.unknown] = rng.integers(0, 2, size=(n, know.unknown.size), dtype=np.int8)
        core = DnpCore.from_positions(
            self.rules, stream_states(rng, n), card_loc=card_loc, card_where=card_where, card_rot=card_rot,
            card_public=know.public, card_selected=know.selected, set_size=know.set_size, set_value=know.set_value,
            hand_count=know.hand_sizes, sel_count=know.selection[0], sel_value=know.selection[1],
            points=know.points, out=know.out, finishers=int(know.out.sum()), area=know.area)
        seen_now = core.observe(0)
        if not np.array_equal(seen_now, np.broadcast_to(np.asarray(observation, np.float32), seen_now.shape)):
            raise ValueError("no real game gives this observation (a state built from it shows the seat "
                             "something else)")
        return core

    # ------------------------------------------------------------------ exact probabilities

    def card_marginals(self, observation: np.ndarray) -> np.ndarray:
        """``[P, N]`` float64: the probability that each card is in the hand of relative seat r (row r; row
        0 is the seat's own hand, certain). Cards on the table, discarded or out have zeros."""
        know = self.knowledge(observation)
        out = np.zeros((self.num_players, self.tables.num_cards))
        hands = know.place == LOC_HAND
        out[know.where[hands], np.flatnonzero(hands)] = 1.0
        if know.unknown.size:
            out[:, know.unknown] = (know.unknown_counts / know.unknown.size)[:, None]
        return out

    def value_counts(self, observation: np.ndarray) -> np.ndarray:
        """``[P, 10, H + 1]`` float64 (H the largest hand): row r, value v-1, k: the probability that
        relative seat r holds exactly k cards whose active value is v (row 0, the seat's own hand, is
        certain)."""
        know = self.knowledge(observation)
        P, values = self.num_players, self.tables.values.astype(np.int64)
        H = int(know.hand_sizes.max())
        out = np.zeros((P, MAX_VALUE, H + 1))
        hands = know.place == LOC_HAND
        active = values[np.arange(values.shape[0]), know.rot]
        carries = (values[know.unknown, 0:1] == np.arange(1, MAX_VALUE + 1)) | \
            (values[know.unknown, 1:2] == np.arange(1, MAX_VALUE + 1))  # [unknown, 10]
        for r in range(P):
            held = hands & (know.where == r)
            for value in range(1, MAX_VALUE + 1):
                sure = int((active[held] == value).sum())
                extra = _thinned(know.unknown.size, int(carries[:, value - 1].sum()), int(know.unknown_counts[r])) \
                    if r else np.ones(1)
                out[r, value - 1, sure:sure + extra.size] = extra
        return out

    def event_probabilities(self, observation: np.ndarray) -> dict[str, float]:
        """Exact probabilities of the events in the module docstring's table."""
        know = self.knowledge(observation)
        P, values = self.num_players, self.tables.values.astype(np.int64)
        active = values[np.arange(values.shape[0]), know.rot]
        hands = know.place == LOC_HAND
        low, high = values[know.unknown].min(axis=1), values[know.unknown].max(axis=1)
        U = know.unknown.size
        events = {}
        for r in range(1, P):
            held = active[hands & (know.where == r)]
            u = int(know.unknown_counts[r])
            for value in range(1, MAX_VALUE + 1):
                carriers = int(((low == value) | (high == value)).sum())
                none = _thinned(U, carriers, u)[0]  # no carrier drawn shows v
                events[f"holds_value_{value}_seat_{r}"] = 1.0 if (held == value).any() else float(1.0 - none)
            for value in range(1, MAX_VALUE):
                both = int((low > value).sum())
                half = int(((high > value) & (low <= value)).sum())
                # none above v: no card with both values above v, and every card with one such value upright
                # the other way
                none = 0.0
                if u <= U - both:
                    none = _thinned(U - both, half, u)[0] * (math.comb(U - both, u) / math.comb(U, u))
                events[f"holds_above_{value}_seat_{r}"] = 1.0 if (held > value).any() else float(1.0 - none)
        return events


__all__ = ["DnpBelief", "Knowledge"]
