"""Heuristic agents for Keine Ahnung / No Idea (batched; NumPy in, NumPy out).

Every agent here reads only its observation (decoded through ``ObservationLayout`` by
:func:`keine_ahnung_env.games.keine_ahnung.risk.decode`) and the legal-action mask, and decides
for all rows of a batch at once. The player count is inferred from the observation width at every
call, so one agent object serves any player count; a non-default deck is given with ``deck=``.

Agents:

* ``never_call`` / ``always_call``: reveal a random unknown face-down card (a known one only when
  no unknown one is left), choose piles at random; never / always call "Nothing fits anymore!"
  when allowed. The two extremes of the calling question.
* ``greedy``: uses what the seat knows (:class:`GreedyAgent`); calls only when sure to succeed.
* ``risk_caller``: greedy, and calls when the exact success probability of a call is at least
  ``threshold`` (:class:`RiskCallerAgent`).
* ``counter``: the strongest heuristic here (:class:`CounterAgent`), card counting plus a tuned,
  situation-dependent call rule.
"""

from __future__ import annotations

import numpy as np

from keine_ahnung_env.games.keine_ahnung.actions import ACTION_CALL, ACTION_KEEP, ACTION_PLACE_BASE, NUM_ACTIONS, Phase
from keine_ahnung_env.games.keine_ahnung.config import SLOTS, Rules
from keine_ahnung_env.games.keine_ahnung.deck import FUNCTION_REFILL, FUNCTION_REMOVE, NUM_FACES, CardTables, DeckSpec
from keine_ahnung_env.games.keine_ahnung.risk import (
    SLOT_KNOWN, SLOT_UNKNOWN, TableView, batch_call_success_probability, decode, face_fit_counts,
)

from .base import sample_masked

__all__ = ["KeineAhnungAgent", "NeverCallAgent", "AlwaysCallAgent", "GreedyAgent", "RiskCallerAgent", "CounterAgent"]

_PLACE = slice(ACTION_PLACE_BASE, ACTION_KEEP)


def _validate_inputs(observation, action_mask) -> tuple[np.ndarray, np.ndarray]:
    obs = np.asarray(observation)
    mask = np.asarray(action_mask, bool)
    if obs.ndim != 2 or mask.ndim != 2:
        raise ValueError(f"observation and action_mask must be 2-D [batch, ...]; got shapes {obs.shape} and {mask.shape}")
    if obs.shape[0] != mask.shape[0]:
        raise ValueError(f"observation has {obs.shape[0]} rows but action_mask has {mask.shape[0]}; one row per game")
    if mask.shape[1] != NUM_ACTIONS:
        raise ValueError(f"action_mask must have {NUM_ACTIONS} columns (Keine Ahnung actions); got {mask.shape[1]}")
    return obs, mask


class KeineAhnungAgent:
    """Shared machinery: validation, decoding, phase dispatch and a legal fallback.

    Subclasses implement :meth:`_main` (reveal or call) and :meth:`_place` (pile choice) for the rows
    in those phases; anything they leave illegal falls back to a uniformly random legal action, so an
    agent can never return an illegal action for a row that has one.
    """

    name = "keine_ahnung"

    def __init__(self, seed: int | None = None, deck: DeckSpec | dict | None = None):
        """``seed`` seeds the agent's generator (tie-breaks and random choices); ``deck`` is the
        card set of the game (default: the standard deck)."""
        self.rng = np.random.default_rng(seed)
        self.tables: CardTables = Rules.make(2, deck=deck).tables()
        self._compat = self.tables.compat[:, :NUM_FACES].astype(np.int64)  # [37, 36]

    def reseed(self, seed: int | None) -> None:
        """Restarts the agent's generator from ``seed``."""
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """One legal action per row (``int64 [B]``); rows without a legal action get 0."""
        obs, mask = _validate_inputs(observation, action_mask)
        B = obs.shape[0]
        actions = np.zeros(B, np.int64)
        if B == 0:
            return actions
        view = decode(obs, self.tables)
        main = np.flatnonzero((view.phase == Phase.MAIN) & mask[:, :ACTION_PLACE_BASE].any(1))
        place = np.flatnonzero(((view.phase == Phase.PLACE_DRAWN) | (view.phase == Phase.PLACE_REVEALED))
                               & mask[:, ACTION_PLACE_BASE:].any(1))
        if main.size:
            actions[main] = self._main(_rows(view, main), mask[main])
        if place.size:
            actions[place] = self._place(_rows(view, place), mask[place])
        illegal = ~mask[np.arange(B), actions]
        if illegal.any():
            actions[illegal] = sample_masked(self.rng, mask[illegal])
        return actions

    # Hooks -------------------------------------------------------------------------------------

    def _main(self, view: TableView, mask: np.ndarray) -> np.ndarray:
        return sample_masked(self.rng, mask)

    def _place(self, view: TableView, mask: np.ndarray) -> np.ndarray:
        return sample_masked(self.rng, mask)

    # Helpers -----------------------------------------------------------------------------------

    def _pick(self, score: np.ndarray, allowed: np.ndarray) -> np.ndarray:
        """Per row, the allowed column with the highest score; ties broken at random."""
        noisy = np.where(allowed, score + self.rng.random(score.shape) * 1e-6, -np.inf)
        return noisy.argmax(axis=1)

    def _own(self, view: TableView) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Own slots: unknown [B, 6], known [B, 6], and how many pile tops each known card fits."""
        state = view.slot_state[:, 0]
        fits = np.take_along_axis(face_fit_counts(view.tops, self.tables), view.slot_face[:, 0], axis=1)
        return state == SLOT_UNKNOWN, state == SLOT_KNOWN, fits


def _rows(view: TableView, rows: np.ndarray) -> TableView:
    """The view restricted to some rows."""
    fields = {name: getattr(view, name)[rows] for name in view.__dataclass_fields__ if name != "layout"}
    return TableView(layout=view.layout, **fields)


class _RevealUnknownAgent(KeineAhnungAgent):
    """Reveals a random unknown card (a known one only when none is unknown); random piles."""

    call_policy = "never"

    def _main(self, view: TableView, mask: np.ndarray) -> np.ndarray:
        unknown, _, _ = self._own(view)
        slot_legal = mask[:, :SLOTS]
        prefer = slot_legal & unknown
        choice = np.where(prefer.any(1), self._pick(np.zeros(prefer.shape), prefer),
                          self._pick(np.zeros(prefer.shape), slot_legal))
        can_call = mask[:, ACTION_CALL]
        if self.call_policy == "always":
            return np.where(can_call, ACTION_CALL, choice)
        # Calling is the only legal move only when the layout is empty (the engine allows it).
        return np.where(slot_legal.any(1), choice, ACTION_CALL)


class NeverCallAgent(_RevealUnknownAgent):
    """Reveals unknown cards at random and never calls "Nothing fits anymore!" (unless it is the
    only legal action)."""

    name = "never_call"
    call_policy = "never"


class AlwaysCallAgent(_RevealUnknownAgent):
    """Calls "Nothing fits anymore!" whenever allowed; otherwise reveals unknown cards at random."""

    name = "always_call"
    call_policy = "always"


class GreedyAgent(KeineAhnungAgent):
    """Plays on what the seat knows.

    * Reveal a known card that fits a pile now, if any (a sure placement).
    * Call "Nothing fits anymore!" when the exact success probability is at least ``threshold``
      (1.0 here: only calls that cannot fail, e.g. every remaining card known not to fit).
    * Otherwise reveal an unknown card; reveal a card known not to fit only when no unknown card is
      left and calling is not allowed.
    * Pile choice: the pile whose replacement keeps the most of its own known cards playable, plus
      the expected number of its unknown cards that will fit.
    """

    name = "greedy"
    threshold = 1.0

    def _call_wanted(self, view: TableView, p: np.ndarray) -> np.ndarray:
        return p >= self.threshold

    def _main(self, view: TableView, mask: np.ndarray) -> np.ndarray:
        unknown, known, fits = self._own(view)
        slot_legal = mask[:, :SLOTS]
        can_call = mask[:, ACTION_CALL]
        known_fit = slot_legal & known & (fits > 0)
        p = batch_call_success_probability(None, self.tables, view=view)
        p = np.nan_to_num(p, nan=0.0)
        reveal_unknown = slot_legal & unknown
        out = np.where(slot_legal.any(1), self._pick(np.zeros(slot_legal.shape), slot_legal), ACTION_CALL)
        out = np.where(reveal_unknown.any(1), self._pick(np.zeros(slot_legal.shape), reveal_unknown), out)
        # Sure calls (no unknown card left) are taken whatever the threshold.
        sure = can_call & ~reveal_unknown.any(1) & (p >= 1.0)
        out = np.where(can_call & (self._call_wanted(view, p) | sure), ACTION_CALL, out)
        out = np.where(known_fit.any(1), self._pick(self._known_fit_score(view, fits), known_fit), out)
        return out

    def _known_fit_score(self, view: TableView, fits: np.ndarray) -> np.ndarray:
        """Which known fitting card to reveal first: all equal for greedy."""
        return np.zeros(fits.shape)

    def _place(self, view: TableView, mask: np.ndarray) -> np.ndarray:
        legal = mask[:, _PLACE]
        score = self._pile_scores(view)
        return ACTION_PLACE_BASE + self._pick(score, legal)

    def _after_cover(self, view: TableView) -> np.ndarray:
        """[B, 37, 36] bool: would a card of face x (row) fit some pile if the pending card covered
        the pile showing face f (column)?"""
        counts = face_fit_counts(view.tops, self.tables)  # [B, 37]
        c = np.minimum(view.pending_face, NUM_FACES - 1)
        gained = self._compat[:, c].T  # [B, 37]: x fits the new top
        after = counts[:, :, None] - self._compat[None, :, :] + gained[:, :, None]
        return after > 0

    def _remaining_own(self, view: TableView) -> tuple[np.ndarray, np.ndarray]:
        """Own known [B, 6] and unknown [B, 6] slots other than the card being placed."""
        unknown, known, _ = self._own(view)
        B = unknown.shape[0]
        from_slot = view.pending_slot >= 0
        rows = np.flatnonzero(from_slot)
        known = known.copy()
        unknown = unknown.copy()
        known[rows, view.pending_slot[rows]] = False
        unknown[rows, view.pending_slot[rows]] = False
        return known, unknown

    def _pile_scores(self, view: TableView) -> np.ndarray:
        """[B, 36]: own known cards still playable plus expected playable unknown cards, per pile
        top covered."""
        after = self._after_cover(view)
        known, unknown = self._remaining_own(view)
        known_fit = np.take_along_axis(after, view.slot_face[:, 0][:, :, None], axis=1)  # [B, 6, 36]
        n_known = (known_fit & known[:, :, None]).sum(1)
        pool = view.pool.astype(np.float64)
        pool_fit = np.einsum("bt,btf->bf", pool, after[:, self.tables.type_face, :])
        q = pool_fit / np.maximum(pool.sum(1, keepdims=True), 1.0)
        return n_known + unknown.sum(1, keepdims=True) * q


class RiskCallerAgent(GreedyAgent):
    """Greedy, and calls "Nothing fits anymore!" when the exact success probability (the risk model
    of ``risk.call_success_probability``) is at least ``threshold`` (0-1)."""

    name = "risk_caller"

    def __init__(self, threshold: float = 0.5, seed: int | None = None, deck=None):
        """``threshold`` in [0, 1]: 0 calls whenever allowed, 1 only when success is certain."""
        super().__init__(seed=seed, deck=deck)
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float, np.floating, np.integer)) \
                or not 0.0 <= float(threshold) <= 1.0:
            raise ValueError(f"threshold={threshold!r}; allowed: a number from 0 to 1 (a success probability)")
        self.threshold = float(threshold)
        self.name = f"risk_caller:{self.threshold:g}"


class CounterAgent(GreedyAgent):
    """The strongest heuristic here: card counting, tempo-aware calls and pile choices that look
    one card ahead. Every rule below reads only the observation.

    Parameters (tuned by seat-rotated tournaments against ``greedy`` and ``risk_caller``):
      call_threshold: success probability needed to call with 1, 2 or 3 unknown own cards.
      endgame_threshold: the same when at most ``endgame_trophies`` trophies are left.
      harm_weight: weight of the next player's expected playable cards in pile choices.
    """

    name = "counter"

    def __init__(self, seed: int | None = None, deck=None, call_threshold=(0.7, 0.7, 0.7),
                 endgame_threshold=(0.5, 0.5, 0.5), endgame_trophies: int = 2, harm_weight: float = 0.2,
                 refill_weight: float = 0.5, remove_penalty: float = 0.5, call_aware_piles: bool = True):
        super().__init__(seed=seed, deck=deck)
        self.call_threshold = np.array(_probabilities(call_threshold, "call_threshold"))
        self.endgame_threshold = np.array(_probabilities(endgame_threshold, "endgame_threshold"))
        self.endgame_trophies = int(endgame_trophies)
        self.harm_weight = float(harm_weight)
        self.refill_weight = float(refill_weight)
        self.remove_penalty = float(remove_penalty)
        self.call_aware_piles = bool(call_aware_piles)

    def _call_wanted(self, view: TableView, p: np.ndarray) -> np.ndarray:
        # Calls with unknown cards trade a sure trophy next turn for one now: worth it only when
        # the chance is high, and more readily when few trophies are left to race for.
        u = (view.slot_state[:, 0] == SLOT_UNKNOWN).sum(1)
        index = np.clip(u, 1, 3) - 1
        late = view.table_counts[:, 2] <= self.endgame_trophies
        threshold = np.where(late, self.endgame_threshold[index], self.call_threshold[index])
        return p >= threshold

    def _known_fit_score(self, view: TableView, fits: np.ndarray) -> np.ndarray:
        # Among known fitting cards, play first the one whose best placement keeps the most of the
        # rest playable; a refill card goes first when it would hand opponents cards, last when it
        # would be wasted; a remove card (which leaves one pile) goes last while unknown cards remain.
        B = fits.shape[0]
        unknown, known, _ = self._own(view)
        score = np.zeros((B, SLOTS))
        short = np.clip(3 - (view.slot_state[:, 1:] != 0).sum(-1), 0, None).sum(1)  # cards opponents would get
        for s in range(SLOTS):
            c = view.slot_face[:, 0, s]
            playable = known[:, s] & (fits[:, s] > 0)
            if not playable.any():
                continue
            after = self._after_cover(view, c, view.slot_function[:, 0, s])
            others = known.copy()
            others[:, s] = False
            own = self._own_value(view, after, others, unknown)  # [B, 36]
            options = (self._compat[np.minimum(c, NUM_FACES)] > 0) & (view.tops > 0)
            best = np.where(options, own, -np.inf).max(1)
            fn = view.slot_function[:, 0, s]
            bonus = np.where(fn == FUNCTION_REFILL, np.where(short > 0, self.refill_weight * short, -self.refill_weight), 0.0)
            bonus = bonus - np.where((fn == FUNCTION_REMOVE) & unknown.any(1), self.remove_penalty, 0.0)
            score[:, s] = np.where(playable, best + bonus, 0.0)
        return score

    def _after_cover(self, view: TableView, card_face: np.ndarray | None = None,
                     card_function: np.ndarray | None = None) -> np.ndarray:
        """[B, 37, 36] bool: would a card of face x fit after ``card_face`` (default: the pending
        card) covers the pile showing face f? A remove card leaves its own pile only."""
        c = view.pending_face if card_face is None else card_face
        fn = view.pending_function if card_function is None else card_function
        c = np.minimum(c, NUM_FACES - 1)
        counts = face_fit_counts(view.tops, self.tables)
        gained = self._compat[:, c].T  # [B, 37]
        after = (counts[:, :, None] - self._compat[None, :, :] + gained[:, :, None]) > 0
        remove = fn == FUNCTION_REMOVE
        if remove.any():
            after[remove] = (gained[remove] > 0)[:, :, None]
        return after

    def _own_value(self, view: TableView, after: np.ndarray, known: np.ndarray, unknown: np.ndarray) -> np.ndarray:
        """[B, 36]: own known cards playable after each cover plus expected playable unknown ones;
        when the layout will be down to three cards or fewer, the chance of a successful call
        counts too (narrow tops favour a call)."""
        known_fit = np.take_along_axis(after, view.slot_face[:, 0][:, :, None], axis=1)
        n_known = (known_fit & known[:, :, None]).sum(1)
        pool = view.pool.astype(np.float64)
        n = np.maximum(pool.sum(1, keepdims=True), 1.0)
        q = np.einsum("bt,btf->bf", pool, after[:, self.tables.type_face, :]) / n
        u = unknown.sum(1, keepdims=True)
        value = n_known + u * q
        if self.call_aware_piles:
            k = known.sum(1) + unknown.sum(1)
            dead = (known_fit & known[:, :, None]).any(1)  # a known card fits: play it rather than call
            prizes = (pool * self.tables.type_is_prize[None]).sum(1, keepdims=True) / n
            good = np.clip(1.0 - q - prizes, 0.0, 1.0)
            p = good ** u  # with-replacement approximation of the hypergeometric
            callable_ = ((k <= 3) & (k > 0))[:, None] & ~dead & (u > 0)
            value = np.where(callable_, np.maximum(value, u * p), value)
        return value

    def _pile_scores(self, view: TableView) -> np.ndarray:
        # Own prospects first; the next player's expected playable cards count against a pile.
        # When this placement empties the layout (the turn ends with a trophy) only the harm done
        # to the next player matters.
        after = self._after_cover(view)
        known, unknown = self._remaining_own(view)
        own = self._own_value(view, after, known, unknown)
        nxt_state = view.slot_state[:, 1]
        nxt_known = nxt_state == SLOT_KNOWN
        nxt_fit = np.take_along_axis(after, view.slot_face[:, 1][:, :, None], axis=1)
        pool = view.pool.astype(np.float64)
        q = np.einsum("bt,btf->bf", pool, after[:, self.tables.type_face, :]) / np.maximum(pool.sum(1, keepdims=True), 1.0)
        nxt = (nxt_fit & nxt_known[:, :, None]).sum(1) + (nxt_state == SLOT_UNKNOWN).sum(1, keepdims=True) * q
        big = ((nxt_state != 0).sum(1) > 3)[:, None]
        harm = np.where(big, nxt, 0.0)
        clearing = ~(known.any(1) | unknown.any(1))[:, None] & (view.pending_slot >= 0)[:, None]
        return np.where(clearing, -harm, own - self.harm_weight * harm)


def _probabilities(values, name: str) -> tuple[float, float, float]:
    """Validates a probability or a triple of probabilities (for 1, 2, 3 unknown cards)."""
    if isinstance(values, (int, float, np.floating, np.integer)) and not isinstance(values, bool):
        values = (values,) * 3
    try:
        values = tuple(float(v) for v in values)
    except (TypeError, ValueError):
        raise ValueError(f"{name}={values!r}; allowed: a probability or three (for 1, 2, 3 unknown cards)") from None
    if len(values) != 3 or not all(0.0 <= v <= 1.0 for v in values):
        raise ValueError(f"{name}={values!r}; allowed: a probability or three (for 1, 2, 3 unknown cards), each 0-1")
    return values
