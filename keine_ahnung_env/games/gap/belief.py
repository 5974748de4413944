"""What a gap-game seat may know, exactly: its belief over the hidden cards, from its observation alone.

The gap game's :class:`~keine_ahnung_env.game_spec.BeliefHooks` (``GameSpec.belief``): exact
probabilities of named events and a sampler of complete states, built from one observation (version 2,
``observation.py``), so an ``act(observation, mask)`` agent can use them.

**What is hidden from a seat**: the opponents' hands and hidden cards, the order of the draw pile and,
while hidden cards are chosen, the two starting cards. **What the seat knows** falls in three kinds of
cards:

* *located* cards: its hand and hidden cards, the discard piles, the turned-up card;
* *unseen* cards (never face up this round): each lies in an opponent's hand, among an opponent's
  hidden cards, in the draw pile (only before the round's first reshuffle: a rebuilt draw pile is made
  of cards that were face up) or, while hidden cards are chosen, among the starting cards;
* *shuffled-back* cards (face up this round, shuffled into a rebuilt draw pile, not laid since): each
  lies in the draw pile or in the hand of a seat that drew from its pool. Which pool a card belongs to,
  and how many cards of each pool every opponent drew and still holds, is public (everybody saw the
  passes and the plays) but needs the round's history; the observation's ``pool`` and
  ``pool_holdings`` sections (version 2) carry it, so no history has to be kept outside it.

**The model.** The deal and every reshuffle are uniform shuffles. The opponents' decisions (which
cards they hide, play or pass) are taken as carrying no information about the cards the seat cannot
see: the probability of every opponent decision is the same in every hidden state consistent with what
the seat saw (the card-counter's model; exact for the hidden cards under a uniform choice of the two
cards, whose number of choices does not depend on the hand). Under this model the posterior is
uniform over the consistent states: the unseen cards are spread uniformly over the unseen places
(opponents' hands less their shuffled-back cards, opponents' hidden cards, the draw pile before the
first reshuffle, the starting cards while hiding), the cards of each pool uniformly over that pool's
places (the holdings of each opponent and, for the latest pool, the draw pile), the draw order
uniform. "Exact" means exact under this model, given everything the seat has seen this round (a new
round deals all 66 cards again, so earlier rounds say nothing of the cards). A real opponent's play
does say something (a pass hints that it had nothing to play); that is outside the model.

**Samples** (:meth:`GapBelief.sample_states`) are complete states of a :class:`~.core.GapCore` in which
the observing seat is to act with exactly the observed observation and legal mask. The observing seat's
absolute seat follows from the dealer (seat ``P-1`` deals the first round). The counters the
observation does not hold start at zero in a sample: ``turn`` (so ``max_turns`` counts from the
sample) and ``went_out`` (a statistic); the cards below the tops are all put in the left pile (which
pile holds them does not change the rules: a reshuffle takes them in card order). Later chance events
(reshuffles, new rounds) draw from streams seeded from ``rng``.

**Events** (:meth:`GapBelief.event_probabilities`; "the tops" are the pile tops as they stand, NaN
where an event is undefined: no tops laid yet, nothing to draw):

| event | probability that |
|---|---|
| ``next_draw_fits`` | the next card a draw takes (the top of the draw pile; from an empty pile, the top of the pile rebuilt from the cards below the tops; in a turn-up decision, the card after the turned-up one) can be played on the tops (a gap card, or a card matching a top's colour or number) |
| ``next_draw_gap_card`` | that card is a gap card for the tops |
| ``next_draw_opens_gap`` | that card, turned up onto the better pile, leaves a gap between the tops |
| ``can_play_seat_{r}`` | seat ``+r`` (r = 1 .. P-1, the next player is 1) holds at least one card it could play on the tops |
| ``gap_card_seat_{r}`` | seat ``+r`` holds at least one gap card for the tops |

:meth:`GapBelief.card_marginals` gives the exact probability of every card's place.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from ...rng import stream_states
from .actions import NUM_ACTIONS, Phase
from .config import Rules
from .core import GAP_TABLE, MATCH_TABLE, GapCore
from .deck import CARD_NUMBER, HAND_SIZE, HIDDEN_PER_PLAYER, NUM_CARDS, NUM_COLOURS, NUM_NUMBERS
from .kernels import LOC_DRAW, LOC_HAND, LOC_HIDDEN, LOC_PENDING, LOC_TOP, LOC_UNDER
from .observation import CARD_FEATURES, ObservationLayout

@dataclasses.dataclass
class Knowledge:
    """Everything one observation says, validated, with absolute seats where the engine needs them.

    Relative seats r = 0 .. P-1 (0 is the observer); card arrays hold card ids."""

    phase: int
    seat: int
    """the observer's absolute seat."""
    dealer: int
    rounds_played: int
    hand: np.ndarray
    own_hidden: np.ndarray
    tops: tuple[int, int] | None
    """left and right top (None while hidden cards are chosen)."""
    pending: int
    under: np.ndarray
    seen: np.ndarray
    """[66] bool."""
    label: np.ndarray
    """[66] pool label of every card in the draw pile or a hand that was shuffled back (0 otherwise)."""
    hand_sizes: np.ndarray
    hidden_sizes: np.ndarray
    draw_size: int
    dry_passes: int
    extra_turn: bool
    scores: np.ndarray
    unseen: np.ndarray
    """the unseen cards not the observer's (the ones spread over the unseen places)."""
    unseen_hand: np.ndarray
    """[P] unseen cards in each relative seat's hand (0 for the observer)."""
    pools: list[tuple[int, np.ndarray, np.ndarray, int]]
    """per pool: (label, its cards the observer cannot place, [P] cards held by each relative seat (0 for
    the observer), cards in the draw pile)."""
    draw_from_unseen: bool
    """the draw pile holds unseen cards (no reshuffle yet this round)."""


def _comb_ratio_none(total: int, marked: int, drawn: int) -> float:
    """P(a uniform ``drawn``-subset of ``total`` items contains none of ``marked`` of them)."""
    if drawn <= 0 or marked <= 0:
        return 1.0
    if total - marked < drawn:
        return 0.0
    return math.comb(total - marked, drawn) / math.comb(total, drawn)


def _whole(values: np.ndarray, what: str) -> np.ndarray:
    rounded = np.rint(values)
    if not np.array_equal(rounded, values) or (rounded < 0).any():
        raise ValueError(f"observation section {what} must hold non-negative whole numbers")
    return rounded.astype(np.int64)


def _flags(values: np.ndarray, what: str) -> np.ndarray:
    if not ((values == 0.0) | (values == 1.0)).all():
        raise ValueError(f"observation section {what} must hold 0/1 flags")
    return values > 0.5


def _one_hot(values: np.ndarray, what: str, allow_empty: bool = False) -> int:
    flags = _flags(values, what)
    if flags.sum() != 1 and not (allow_empty and flags.sum() == 0):
        raise ValueError(f"observation section {what} must be one-hot")
    return int(flags.argmax()) if flags.any() else -1


def _card(features: np.ndarray, what: str) -> int:
    """The card of a colour+number encoding (-1 for all zeros)."""
    if not features.any():
        return -1
    colour = _one_hot(features[:NUM_COLOURS], what)
    number = _one_hot(features[NUM_COLOURS:], what)
    return colour * NUM_NUMBERS + number


class GapBelief:
    """The belief hooks of one gap-game variant (``GameSpec.belief``); see the module docstring."""

    def __init__(self, rules: Rules):
        self.rules = rules
        self.num_players = rules.num_players
        self.layout = ObservationLayout.make(rules.num_players, rules.rounds)

    # ------------------------------------------------------------------ reading an observation

    def knowledge(self, observation: np.ndarray) -> Knowledge:
        """What ``observation`` (one seat's, at its decision) says; ValueError if no real game gives it."""
        P, L = self.num_players, self.layout
        obs = np.asarray(observation, np.float64)
        if obs.shape != (L.size,):
            raise ValueError(f"observation of shape {np.shape(observation)}; gap_v0 with {P} players needs "
                             f"[{L.size}] (one observation)")
        if not np.isfinite(obs).all():
            raise ValueError("observation holds non-finite values")
        v = L.split(obs)
        phase = _one_hot(v["phase"], "phase")
        if phase == Phase.OVER:
            raise ValueError("the observation is of a finished game: no seat is to act")
        if _one_hot(v["acting_seat"], "acting_seat") != 0:
            raise ValueError("the observation is not at the observing seat's decision (acting_seat is not 0)")
        hand = np.flatnonzero(_flags(v["hand"], "hand"))
        own_hidden = np.flatnonzero(_flags(v["hidden"], "hidden"))
        discards = _flags(v["discards"], "discards")
        seen = _flags(v["seen"], "seen")
        pending = _card(v["flip_card"], "flip_card")
        hand_sizes = _whole(v["hand_sizes"], "hand_sizes")
        hidden_sizes = _whole(v["hidden_sizes"], "hidden_sizes")
        draw_size, under_count, gap, rounds_played, dry, extra = _whole(v["table"], "table").tolist()
        dealer_rel = _one_hot(v["dealer"], "dealer")
        score_parts = _whole(v["scores"], "scores").reshape(P, 2)
        label = _whole(v["pool"], "pool")
        holdings = _whole(v["pool_holdings"], "pool_holdings").reshape(P - 1, NUM_CARDS)
        if rounds_played >= self.rules.rounds or dry >= P or extra > 1:
            raise ValueError(f"observation table out of range (rounds played {rounds_played} of {self.rules.rounds}, "
                             f"passes that took nothing {dry}, extra turn {extra})")
        if (score_parts.min(axis=1) > 0).any():
            raise ValueError("observation scores: a seat has both a plus and a minus part")
        seat = ((P - 1 + rounds_played) % P - dealer_rel) % P  # seat P-1 deals the first round
        if hand.size != hand_sizes[0] or own_hidden.size != hidden_sizes[0]:
            raise ValueError("observation: the hand or hidden section disagrees with the seat's own counts")
        if (hidden_sizes > HIDDEN_PER_PLAYER).any():
            raise ValueError(f"observation: more than {HIDDEN_PER_PLAYER} hidden cards for a seat")
        located = np.zeros(NUM_CARDS, np.int64)
        located[hand] += 1
        located[own_hidden] += 1
        located += discards
        if pending >= 0:
            located[pending] += 1
        if located.max() > 1:
            raise ValueError("observation: a card is in two places (hand, hidden, discards, turned up)")
        if (phase == Phase.FLIP) != (pending >= 0):
            raise ValueError("observation: a turned-up card exactly when a pile must be chosen for it")
        if phase == Phase.HIDE:
            tops = None
            if v["pile_tops"].any() or discards.any() or seen.any() or label.any() or holdings.any() \
                    or under_count or gap or dry or extra:
                raise ValueError("observation: while hidden cards are chosen no card is laid or seen yet")
            if draw_size != NUM_CARDS - P * HAND_SIZE - 2 or (hand_sizes + hidden_sizes != HAND_SIZE).any():
                raise ValueError("observation: while hidden cards are chosen every seat holds its 12 dealt cards")
            # seats choose in turn from the one left of the dealer: those before the observer have chosen
            order = [(dealer_rel + 1 + i) % P for i in range(P)]
            done = order[:order.index(0)]
            if any(hidden_sizes[r] != HIDDEN_PER_PLAYER for r in done) or \
                    any(hidden_sizes[r] != 0 for r in order[order.index(0) + 1:]) or hidden_sizes[0] >= HIDDEN_PER_PLAYER:
                raise ValueError("observation: the hidden-card counts do not follow the choosing order")
        else:
            tops = (_card(v["pile_tops"][:CARD_FEATURES], "pile_tops"),
                    _card(v["pile_tops"][CARD_FEATURES:], "pile_tops"))
            if min(tops) < 0 or not (discards[tops[0]] and discards[tops[1]]) or tops[0] == tops[1]:
                raise ValueError("observation: both pile tops must be laid and among the discards")
            if (hidden_sizes != HIDDEN_PER_PLAYER).any():
                raise ValueError("observation: every seat has laid its hidden cards once the round is under way")
            if under_count != discards.sum() - 2:
                raise ValueError("observation: the count of cards below the tops disagrees with the discards")
            if gap != max(abs(int(CARD_NUMBER[tops[0]]) - int(CARD_NUMBER[tops[1]])) - 1, 0):
                raise ValueError("observation: the gap width disagrees with the tops")
            if not seen[discards].all() or (pending >= 0 and not seen[pending]):
                raise ValueError("observation: a laid or turned-up card must be seen")
        if extra and phase == Phase.HIDE:
            raise ValueError("observation: no extra turn while hidden cards are chosen")
        under = np.flatnonzero(discards)
        if tops is not None:
            under = under[(under != tops[0]) & (under != tops[1])]

        # shuffled-back cards: labelled, seen, in the draw pile or a hand
        labelled = label > 0
        if (labelled & ~seen).any() or labelled[own_hidden].any() or labelled[discards].any() or \
                (pending >= 0 and labelled[pending]):
            raise ValueError("observation: a pool label on a card that was not shuffled back or lies on the table")
        mine = np.zeros(NUM_CARDS, bool)
        mine[hand] = True
        unplaced_seen = seen & (located == 0)
        if (unplaced_seen & ~labelled).any():
            raise ValueError("observation: a seen card the seat cannot place carries no pool label")
        pools = []
        draw_pools = []
        others = label * ~mine
        for lab in np.union1d(np.unique(others[others > 0]), np.flatnonzero(holdings.any(axis=0)) + 1).tolist():
            cards = np.flatnonzero(others == lab)
            held = np.r_[0, holdings[:, lab - 1]]
            rest = cards.size - int(held.sum())
            if rest < 0:
                raise ValueError(f"observation: opponents hold more cards of pool {lab} than it has")
            pools.append((lab, cards, held, rest))
            if rest:
                draw_pools.append((lab, rest))
        unseen_hand = hand_sizes - np.r_[0, holdings.sum(axis=1)]
        unseen_hand[0] = 0
        if (unseen_hand < 0).any():
            raise ValueError("observation: an opponent holds more shuffled-back cards than cards")
        if draw_pools:
            if len(draw_pools) > 1 or draw_pools[0] != (1, draw_size):
                raise ValueError("observation: the cards of the pools that cannot be placed must be the draw pile "
                                 "(of the latest pool, label 1)")
            draw_from_unseen = False
        else:
            draw_from_unseen = draw_size > 0
            if draw_from_unseen and labelled.any():
                raise ValueError("observation: after a reshuffle the draw pile holds cards of pool 1 only")
        unseen = np.flatnonzero(~seen & (located == 0))
        places = int(unseen_hand.sum() + hidden_sizes[1:].sum()) + (draw_size if draw_from_unseen else 0) \
            + (2 if phase == Phase.HIDE else 0)
        if unseen.size != places:
            raise ValueError(f"observation: {unseen.size} unseen cards for {places} unseen places")
        return Knowledge(phase=phase, seat=seat, dealer=(seat + dealer_rel) % P, rounds_played=rounds_played,
                         hand=hand, own_hidden=own_hidden, tops=tops, pending=pending, under=under, seen=seen,
                         label=label * (mine | unplaced_seen), hand_sizes=hand_sizes, hidden_sizes=hidden_sizes,
                         draw_size=draw_size, dry_passes=dry, extra_turn=bool(extra),
                         scores=score_parts[:, 0] - score_parts[:, 1], unseen=unseen, unseen_hand=unseen_hand,
                         pools=pools, draw_from_unseen=draw_from_unseen)

    # ------------------------------------------------------------------ the sampler

    def sample_states(self, observation: np.ndarray, count: int, rng: np.random.Generator) -> GapCore:
        """A :class:`GapCore` of ``count`` complete states drawn from the seat's exact belief (see the
        module docstring); ValueError for an observation no real game gives."""
        if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 1:
            raise ValueError(f"count={count!r}; allowed: a positive integer")
        know = self.knowledge(observation)
        arrays = self._arrays(know, int(count), rng)
        core = GapCore.from_state_arrays(self.rules, arrays, range(count), rng_state=stream_states(rng, count))
        core.refresh_masks()
        seen_now = core.observe(know.seat)
        if not np.array_equal(seen_now, np.broadcast_to(np.asarray(observation, np.float32), seen_now.shape)):
            raise ValueError("no real game gives this observation (a state built from it shows the seat "
                             "something else)")
        return core

    def _arrays(self, know: Knowledge, n: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        """The state arrays of ``n`` samples."""
        P = self.num_players
        rows = np.arange(n)[:, None]
        card_loc = np.zeros((n, NUM_CARDS), np.int8)
        card_owner = np.full((n, NUM_CARDS), -1, np.int8)
        draw_cards = np.zeros((n, NUM_CARDS), np.int8)
        pile_top = np.zeros((n, 2), np.int8)
        card_loc[:, know.hand] = LOC_HAND
        card_owner[:, know.hand] = know.seat
        card_loc[:, know.own_hidden] = LOC_HIDDEN
        card_owner[:, know.own_hidden] = know.seat
        card_loc[:, know.under] = LOC_UNDER
        card_owner[:, know.under] = 0
        if know.pending >= 0:
            card_loc[:, know.pending] = LOC_PENDING
        absolute = [(know.seat + r) % P for r in range(P)]

        def shuffled(cards: np.ndarray) -> np.ndarray:
            return cards[np.argsort(rng.random((n, cards.size)), axis=1)]

        def place(cards: np.ndarray, loc: int, owner: int) -> None:
            card_loc[rows, cards] = loc
            card_owner[rows, cards] = owner

        draw = None
        unseen = shuffled(know.unseen)
        at = 0
        for r in range(1, P):
            for size, loc in ((int(know.hidden_sizes[r]), LOC_HIDDEN), (int(know.unseen_hand[r]), LOC_HAND)):
                place(unseen[:, at:at + size], loc, absolute[r])
                at += size
        if know.tops is None:
            starting = unseen[:, at:at + 2]
            at += 2
        else:
            starting = np.broadcast_to(np.asarray(know.tops, np.int64), (n, 2))
        if know.draw_from_unseen:
            draw = unseen[:, at:at + know.draw_size]
            at += know.draw_size
        assert at == know.unseen.size
        for lab, cards, held, rest in know.pools:
            cards = shuffled(cards)
            at = 0
            for r in range(1, P):
                place(cards[:, at:at + held[r]], LOC_HAND, absolute[r])
                at += held[r]
            if rest:
                draw = cards[:, at:]
        for pile in range(2):
            place(starting[:, pile:pile + 1], LOC_TOP, pile)
            pile_top[:, pile] = starting[:, pile]
        if draw is not None:
            place(draw, LOC_DRAW, -1)
            draw_cards[:, :draw.shape[1]] = draw
        hand_count = np.zeros(P, np.int16)
        hidden_count = np.zeros(P, np.int8)
        score = np.zeros(P, np.int32)
        for r in range(P):
            hand_count[absolute[r]] = know.hand_sizes[r]
            hidden_count[absolute[r]] = know.hidden_sizes[r]
            score[absolute[r]] = know.scores[r]
        seen = know.seen.copy()

        def same(value, dtype, shape=()):
            return np.full((n,) + shape, value, dtype)

        return {
            "card_loc": card_loc, "card_owner": card_owner,
            "card_seen": np.broadcast_to(seen, (n, NUM_CARDS)).copy(),
            "card_pool": np.broadcast_to(know.label.astype(np.int8), (n, NUM_CARDS)).copy(),
            "draw_cards": draw_cards, "draw_pos": same(0, np.int16), "draw_len": same(know.draw_size, np.int16),
            "pile_top": pile_top, "hand_count": np.broadcast_to(hand_count, (n, P)).copy(),
            "hidden_count": np.broadcast_to(hidden_count, (n, P)).copy(), "pending": same(know.pending, np.int8),
            "phase": same(know.phase, np.int8), "current": same(know.seat, np.int8),
            "dealer": same(know.dealer, np.int8), "round": same(know.rounds_played, np.int16),
            "extra_turn": same(know.extra_turn, bool), "dry_passes": same(know.dry_passes, np.int8),
            "score": np.broadcast_to(score, (n, P)).copy(), "went_out": np.zeros((n, P), np.int16),
            "turn": same(0, np.int32), "terminated": same(False, bool), "truncated": same(False, bool),
            "rewards": np.zeros((n, P), np.float32), "legal_mask": np.zeros((n, NUM_ACTIONS), bool),
        }

    # ------------------------------------------------------------------ exact probabilities

    def card_marginals(self, observation: np.ndarray) -> dict[str, np.ndarray]:
        """The exact probability of every card's place from the seat's point of view, ``[66]`` float64
        arrays by place: ``hand_seat_{r}`` and ``hidden_seat_{r}`` (r = 1 .. P-1), ``draw_pile``,
        ``starting_cards`` (the two not yet laid while hidden cards are chosen) and ``next_draw`` (the
        card the next draw takes, as for the event ``next_draw_fits``; all zeros where nothing can be drawn
        or it is undefined). Cards the seat can place have probability 0 everywhere."""
        know = self.knowledge(observation)
        P = self.num_players
        out = {f"hand_seat_{r}": np.zeros(NUM_CARDS) for r in range(1, P)}
        out.update({f"hidden_seat_{r}": np.zeros(NUM_CARDS) for r in range(1, P)})
        out["draw_pile"] = np.zeros(NUM_CARDS)
        out["starting_cards"] = np.zeros(NUM_CARDS)
        n = know.unseen.size
        if n:
            for r in range(1, P):
                out[f"hand_seat_{r}"][know.unseen] = know.unseen_hand[r] / n
                out[f"hidden_seat_{r}"][know.unseen] = know.hidden_sizes[r] / n
            if know.draw_from_unseen:
                out["draw_pile"][know.unseen] = know.draw_size / n
            if know.tops is None:
                out["starting_cards"][know.unseen] = 2 / n
        for lab, cards, held, rest in know.pools:
            if cards.size:
                for r in range(1, P):
                    out[f"hand_seat_{r}"][cards] = held[r] / cards.size
                out["draw_pile"][cards] = rest / cards.size
        out["next_draw"] = np.zeros(NUM_CARDS)
        source = self._next_draw_source(know)
        if source is not None and source.size:
            out["next_draw"][source] = 1.0 / source.size
        return out

    def _next_draw_source(self, know: Knowledge) -> np.ndarray | None:
        """The cards the next draw takes one of, uniformly (None: undefined or nothing to draw)."""
        if know.phase == Phase.HIDE:
            return None
        if know.draw_size > 0:
            if know.draw_from_unseen:
                return know.unseen
            return next(cards for lab, cards, held, rest in know.pools if rest)
        if know.phase == Phase.FLIP:
            return None  # the rebuilt pile would depend on the pile chosen for the turned-up card
        return know.under if know.under.size else None

    def event_probabilities(self, observation: np.ndarray) -> dict[str, float]:
        """Exact probabilities of the events in the module docstring's table, NaN where undefined."""
        know = self.knowledge(observation)
        P = self.num_players
        nan = float("nan")
        events = {"next_draw_fits": nan, "next_draw_gap_card": nan, "next_draw_opens_gap": nan}
        events.update({f"can_play_seat_{r}": nan for r in range(1, P)})
        events.update({f"gap_card_seat_{r}": nan for r in range(1, P)})
        if know.tops is None:
            return events
        t0, t1 = know.tops
        gap = GAP_TABLE[t0, t1]
        playable = gap | MATCH_TABLE[t0] | MATCH_TABLE[t1]
        source = self._next_draw_source(know)
        if source is not None:
            events["next_draw_fits"] = float(playable[source].mean())
            events["next_draw_gap_card"] = float(gap[source].mean())
            number = CARD_NUMBER.astype(np.int64)
            opens = (np.abs(number[source] - number[t0]) > 1) | (np.abs(number[source] - number[t1]) > 1)
            events["next_draw_opens_gap"] = float(opens.mean())
        for name, marked in (("can_play", playable), ("gap_card", gap)):
            for r in range(1, P):
                none = _comb_ratio_none(know.unseen.size, int(marked[know.unseen].sum()), int(know.unseen_hand[r]))
                for lab, cards, held, rest in know.pools:
                    none *= _comb_ratio_none(cards.size, int(marked[cards].sum()), int(held[r]))
                events[f"{name}_seat_{r}"] = 1.0 - none
        return events


__all__ = ["GapBelief", "Knowledge"]
