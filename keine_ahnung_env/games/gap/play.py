"""Reading the play in the gap game: the :class:`~keine_ahnung_env.game_spec.PlayHooks` (``GameSpec.play``).

What the other players did says something about the cards they hold unseen (a player who passes while
the tops leave a wide gap probably holds no gap card). ``keine_ahnung_env.play_reading`` weighs the
belief's states by it; what it needs of the gap game is here.

**What is read.** The plays, passes and pile choices since the last moment the replay cannot repeat:

* the hidden cards are laid face down, so a hidden-card choice names a card nobody else sees; the
  reading starts once every seat has laid its two (until then, and at every hidden card laid, the log
  starts afresh: ``round_index`` counts the hidden cards laid);
* a reshuffle puts the cards below the tops back in an order nobody saw; the reading starts again
  after it (``restarts``: a card left the discard piles between two observations, which only a
  reshuffle or a new round does). The plays before it are not read: the belief at the current
  observation already holds everything the seat knows of where those cards went (the pools).

So a log holds plays (public: the card and the pile), passes (public: who passed; the card a pass took
is seen only by its taker) and pile choices for a turned-up card (public).

**Rewinding a sampled state to the log's start.** Every card the seat can place then (its hand and
hidden cards, the tops, the cards below them, the turned-up card) is in its observation then; the
opponents' hidden cards have not moved since; a card an opponent played since was in its hand; the
draw pile then was the cards drawn since, in the order they were drawn, on top of today's pile. The
cards the seat drew itself and the turned-up cards are seen; the card an opponent's pass took is not:
going back from the last step, it is drawn uniformly from the cards that opponent then held that could
have come from the draw pile (before the round's first reshuffle: any card of its hand, all unseen;
after one: the cards of the latest pool, whose labels the observation shows).

**Why the uniform choice leaves the weights right.** The belief draws the current state uniformly
among those consistent with the observation, and every round start consistent with the log leads to
exactly one current state. Going back, the number of choices at each opponent's pass is the number of
cards that opponent then held (of the latest pool, after a reshuffle): public, the same in every
sampled state. Every consistent current state therefore has the same number of round starts behind it,
each drawn with the same probability, so a rewound start is uniform among the consistent starts as the
deal makes them, and the play's likelihood alone weighs it (``play_reading``).
"""

from __future__ import annotations

import numpy as np

from .actions import ACTION_FLIP_BASE, ACTION_HIDE_BASE, ACTION_PASS, Phase
from .config import Rules
from .core import GapCore
from .deck import NUM_CARDS, NUM_COLOURS, NUM_NUMBERS
from .kernels import LOC_DRAW, LOC_HAND, LOC_HIDDEN, LOC_PENDING, LOC_TOP, LOC_UNDER
from .observation import CARD_FEATURES, ObservationLayout


def _card(features: np.ndarray) -> int:
    """The card id of a colour + number encoding, -1 if empty."""
    if not features.any():
        return -1
    return int(features[:NUM_COLOURS].argmax()) * NUM_NUMBERS + int(features[NUM_COLOURS:].argmax())


class _View:
    """The parts of one observation the rewind reads (relative seats)."""

    def __init__(self, layout: ObservationLayout, observation: np.ndarray):
        v = layout.split(np.rint(np.asarray(observation, np.float64)).astype(np.int64))
        self.phase = int(v["phase"].argmax())
        self.acting = int(v["acting_seat"].argmax())
        self.hand = v["hand"] > 0
        self.hidden = v["hidden"] > 0
        self.tops = [_card(v["pile_tops"][k * CARD_FEATURES:(k + 1) * CARD_FEATURES]) for k in range(2)]
        self.pending = _card(v["flip_card"])
        self.discards = v["discards"] > 0
        self.seen = v["seen"] > 0
        self.hand_sizes = v["hand_sizes"]
        self.hidden_sizes = v["hidden_sizes"]
        self.draw_size, _, _, self.rounds_played, self.dry_passes, self.extra_turn = v["table"].tolist()
        self.dealer = int(v["dealer"].argmax())
        scores = v["scores"].reshape(-1, 2)
        self.scores = scores[:, 0] - scores[:, 1]
        self.label = v["pool"]


class GapPlay:
    """The play hooks of one gap-game variant (see the module docstring)."""

    reveals_nothing = False

    def __init__(self, rules: Rules):
        self.rules = rules
        self.num_players = rules.num_players
        self.layout = ObservationLayout.make(rules.num_players, rules.rounds)

    def round_index(self, core: GapCore) -> np.ndarray:
        # Every hidden card laid starts the log afresh, so it holds no hidden-card choice.
        laid = np.asarray(core.hidden_count).astype(np.int64).sum(axis=1)
        return np.asarray(core.round).astype(np.int64) * 16 + laid

    def game_start(self, core: GapCore) -> np.ndarray:
        return (np.asarray(core.phase) == Phase.HIDE) & (np.asarray(core.hidden_count).sum(axis=1) == 0)

    def public_action(self, action: int) -> int:
        # A hidden-card choice never enters a log (see round_index); its card is not public.
        return ACTION_HIDE_BASE if ACTION_HIDE_BASE <= action < ACTION_FLIP_BASE else int(action)

    def restarts(self, before: np.ndarray, after: np.ndarray) -> bool:
        L = self.layout
        gone = (L.split(np.asarray(before))["discards"] > 0) & ~(L.split(np.asarray(after))["discards"] > 0)
        return bool(gone.any())

    def rewind(self, states: GapCore, log) -> GapCore:
        P, L, n = self.num_players, self.layout, states.num_envs
        if len(log) == 0:
            return GapCore.gather([(states, np.arange(n))])
        start = _View(L, log.start)
        if start.phase == Phase.HIDE or start.phase == Phase.OVER:
            raise ValueError("the log's start is not a gap-game position after the hidden cards are laid")
        reader = np.asarray(states.current).astype(np.int64)
        rows = np.arange(n)
        card_loc = np.asarray(states.card_loc)
        card_owner = np.asarray(states.card_owner).astype(np.int64)
        holder = np.where((card_loc == LOC_HAND) & (card_owner != reader[:, None]), card_owner, -1)
        # The draws of the round from the log's start, the first at index 0 (per row: some are chosen).
        drawn: list[np.ndarray] = []
        want = 1 if (start.label > 0).any() else 0  # after a reshuffle every draw is of the latest pool
        choice = np.random.default_rng(np.asarray(states.rng_state, np.uint64)[:, 0])
        views = [start] + [_View(L, seen) for seen in log.seen]
        for t in range(len(log) - 1, -1, -1):
            before, after = views[t], views[t + 1]
            relative, action = int(log.actors[t]), int(log.actions[t])
            if self.restarts(log.start if t == 0 else log.seen[t - 1], log.seen[t]):
                raise ValueError(f"the log holds a reshuffle (step {t}); a log starts after the last one")
            taken = before.draw_size - after.draw_size
            turned_up = after.pending >= 0
            from_pass = taken - int(turned_up)
            if from_pass not in (0, 1) or (from_pass and action != ACTION_PASS):
                raise ValueError(f"step {t} of the log takes {taken} draw cards with action {action}")
            if turned_up:
                drawn.append(np.full(n, after.pending, np.int64))
            if from_pass:
                if relative == 0:
                    (card,) = np.flatnonzero(after.hand & ~before.hand)
                    drawn.append(np.full(n, card, np.int64))
                else:
                    actor = (reader + relative) % P
                    could = (holder == actor[:, None]) & (after.label == want)[None, :]
                    if not could.any(axis=1).all():
                        raise ValueError(f"the sampled states give the opponent passing at step {t} no card it "
                                         "could have drawn")
                    keys = np.where(could, choice.random((n, NUM_CARDS)), -1.0)
                    card = keys.argmax(axis=1)
                    holder[rows, card] = -1
                    drawn.append(card)
            if action < ACTION_PASS and relative != 0:
                holder[:, action // 2] = (reader + relative) % P
        return self._start_position(states, start, reader, holder, drawn[::-1])

    def _start_position(self, states: GapCore, start: _View, reader: np.ndarray, holder: np.ndarray,
                        drawn: list[np.ndarray]) -> GapCore:
        """The core of the log's start: the seat's cards and the table from its observation then, the
        opponents' hands ``holder``, their hidden cards as sampled, the draw pile ``drawn`` then today's."""
        P, n = self.num_players, states.num_envs
        rows = np.arange(n)[:, None]
        card_loc = np.full((n, NUM_CARDS), -1, np.int64)
        card_owner = np.full((n, NUM_CARDS), -1, np.int64)
        placed = np.zeros((n, NUM_CARDS), np.int64)

        def place(cards: np.ndarray, loc: int, owner) -> None:
            card_loc[cards] = loc
            card_owner[cards] = owner
            placed[cards] += 1

        opponents = holder >= 0
        place(opponents, LOC_HAND, holder[opponents])
        now_loc = np.asarray(states.card_loc)
        now_owner = np.asarray(states.card_owner).astype(np.int64)
        hidden = (now_loc == LOC_HIDDEN) & (now_owner != reader[:, None])
        place(hidden, LOC_HIDDEN, now_owner[hidden])
        for cards, loc, owner in ((start.hand, LOC_HAND, reader), (start.hidden, LOC_HIDDEN, reader)):
            mask = np.broadcast_to(cards, (n, NUM_CARDS))
            place(mask, loc, np.broadcast_to(owner[:, None], (n, NUM_CARDS))[mask])
        under = start.discards.copy()
        for pile, top in enumerate(start.tops):
            mask = np.zeros((n, NUM_CARDS), bool)
            mask[:, top] = True
            place(mask, LOC_TOP, pile)
            under[top] = False
        place(np.broadcast_to(under, (n, NUM_CARDS)), LOC_UNDER, 0)
        if start.pending >= 0:
            mask = np.zeros((n, NUM_CARDS), bool)
            mask[:, start.pending] = True
            place(mask, LOC_PENDING, -1)
        pos, length = np.asarray(states.draw_pos).astype(np.int64), np.asarray(states.draw_len).astype(np.int64)
        if not (length - pos == length[0] - pos[0]).all():
            raise ValueError("the sampled states' draw piles differ in size")
        today = np.stack([np.asarray(states.draw_cards)[i, pos[i]:length[i]] for i in range(n)]).astype(np.int64) \
            if n else np.zeros((0, 0), np.int64)
        pile = np.concatenate([np.stack(drawn, axis=1) if drawn else np.zeros((n, 0), np.int64), today], axis=1)
        if pile.shape[1] != start.draw_size:
            raise ValueError(f"the rewound draw pile holds {pile.shape[1]} cards; the log's start shows "
                             f"{start.draw_size}")
        mask = np.zeros((n, NUM_CARDS), bool)
        mask[rows, pile] = True
        place(mask, LOC_DRAW, -1)
        if (placed != 1).any():
            raise ValueError("the rewound states put a card in two places or none: the log and the sampled states "
                             "disagree")
        absolute = (reader[:, None] + np.arange(P)[None, :]) % P  # [n, relative seat]

        def per_seat(values: np.ndarray, dtype) -> np.ndarray:
            out = np.zeros((n, P), dtype)
            out[rows, absolute] = np.asarray(values)[None, :]
            return out

        hand_count = per_seat(start.hand_sizes, np.int16)
        counts = np.stack([((card_loc == LOC_HAND) & (card_owner == s)).sum(axis=1) for s in range(P)], axis=1)
        if not (counts == hand_count).all():
            raise ValueError(f"the rewound hands hold {counts[0].tolist()} cards; the log's start shows "
                             f"{hand_count[0].tolist()}")
        draw_cards = np.zeros((n, NUM_CARDS), np.int8)
        draw_cards[:, :pile.shape[1]] = pile

        def same(value, dtype) -> np.ndarray:
            return np.full(n, value, dtype)

        tops = np.broadcast_to(np.asarray(start.tops, np.int8), (n, 2)).copy()
        arrays = {
            "card_loc": card_loc.astype(np.int8), "card_owner": card_owner.astype(np.int8),
            "card_seen": np.broadcast_to(start.seen, (n, NUM_CARDS)).copy(),
            "card_pool": np.broadcast_to(start.label.astype(np.int8), (n, NUM_CARDS)).copy(),
            "draw_cards": draw_cards, "draw_pos": same(0, np.int16), "draw_len": same(start.draw_size, np.int16),
            "pile_top": tops, "hand_count": hand_count, "hidden_count": per_seat(start.hidden_sizes, np.int8),
            "pending": same(start.pending, np.int8), "phase": same(start.phase, np.int8),
            "current": ((reader + start.acting) % P).astype(np.int8),
            "dealer": ((reader + start.dealer) % P).astype(np.int8), "round": same(start.rounds_played, np.int16),
            "extra_turn": same(bool(start.extra_turn), bool), "dry_passes": same(start.dry_passes, np.int8),
            "score": per_seat(start.scores, np.int32), "went_out": np.zeros((n, P), np.int16),
            "turn": same(0, np.int32), "terminated": same(False, bool), "truncated": same(False, bool),
            "rewards": np.zeros((n, P), np.float32), "legal_mask": np.zeros((n, states.legal_mask.shape[1]), bool),
        }
        core = GapCore.from_state_arrays(self.rules, arrays, range(n),
                                         rng_state=np.asarray(states.rng_state).copy())
        core.refresh_masks()
        return core
