"""Heuristic agents for Keine Ahnung / No Idea (batched; NumPy in, NumPy out).

Every agent here reads only its observation (decoded through ``ObservationLayout`` by
:func:`keine_ahnung_env.games.keine_ahnung.odds.decode`) and the legal-action mask, and decides
for all rows of a batch at once. The player count is inferred from the observation width at every
call, so one agent object serves any player count; a non-default deck is given with ``deck=``.

Agents:

* ``never_call`` / ``always_call``: reveal a random unknown face-down card (a known one only when
  no unknown one is left), choose piles at random; never / always call "Nothing fits anymore!"
  when allowed. The two extremes of the calling question.
* ``greedy``: uses what the seat knows (:class:`GreedyAgent`); calls only when sure to succeed.
* ``risk_caller``: greedy, and calls when the exact success probability of a call is at least
  ``threshold`` (:class:`RiskCallerAgent`).
* ``counter``: the strongest heuristic here (:class:`CounterAgent`): known fitting cards held in
  reserve, call plans judged by the exact risk model, refill attacks, look-ahead pile choices.

``greedy``, ``risk_caller`` and ``counter`` decide with a Numba kernel by default
(``agent_kernels.py``; ``compiled=False``, spec ``greedy:compiled=false``, keeps the NumPy methods
here, the reference the kernel is tested against) and can play their seats inside a compiled core
(``play_turns``, used by the solo and SB3 envs).
"""

from __future__ import annotations

import numpy as np

from .actions import ACTION_CALL, ACTION_KEEP, ACTION_PLACE_BASE, NUM_ACTIONS, Phase
from .config import SLOTS, Rules
from .deck import FUNCTION_REFILL, FUNCTION_REMOVE, NUM_FACES, CardTables, DeckSpec
from .odds import (
    SLOT_KNOWN, SLOT_UNKNOWN, TableView, all_good_probability, batch_call_success_probability, decode, face_fit_counts,
    layout_for, pool_all_good_probability,
)

from ...agent_base import check_lineup, lineup_arrays, parallel_chunks, raise_if_stuck, seats_held
from ...sampling import check_batch, sample_masked

__all__ = ["KeineAhnungAgent", "NeverCallAgent", "AlwaysCallAgent", "GreedyAgent", "RiskCallerAgent", "CounterAgent",
           "TunedCounterAgent", "TUNED_CALL_THRESHOLD"]

_PLACE = slice(ACTION_PLACE_BASE, ACTION_KEEP)


def _validate_inputs(observation, action_mask) -> tuple[np.ndarray, np.ndarray]:
    return check_batch(observation, action_mask, NUM_ACTIONS, "Keine Ahnung")


class KeineAhnungAgent:
    """Shared machinery of the heuristics (each an :class:`~keine_ahnung_env.agent_base.Agent`):
    validation, decoding, phase dispatch and a legal fallback.

    Subclasses implement :meth:`_main` (reveal or call) and :meth:`_place` (pile choice) for the rows
    in those phases; anything they leave illegal falls back to a uniformly random legal action, so an
    agent can never return an illegal action for a row that has one.
    """

    name = "keine_ahnung"

    def __init__(self, seed: int | None = None, deck: DeckSpec | dict | None = None, num_players: int | None = None,
                 rules: dict | None = None):
        """``seed`` seeds the agent's generator (tie-breaks and random choices); ``deck`` is the card
        set of the game (default: the standard deck; ``rules["deck"]`` also works). The player count
        is read from the observation width; given ``num_players``, observations of another table
        size are refused."""
        self.rng = np.random.default_rng(seed)
        if rules is not None and not isinstance(rules, dict):
            raise ValueError(f"rules={rules!r}; allowed: None or a dict of rules options")
        if deck is None and rules:
            deck = rules.get("deck")
        self.tables: CardTables = Rules.make(2, deck=deck).tables()
        if num_players is not None:
            Rules.make(num_players)  # validates the player count with the rules' message
        self.num_players = num_players
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
        if self.num_players is not None and view.num_players != self.num_players:
            raise ValueError(f"{self.name}: made for {self.num_players} players but the observations are "
                             f"{view.num_players}-player ones (width {obs.shape[1]})")
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

    _DECISION_METHODS = ("_main", "_place", "_pick", "_own", "_known_fit_score", "_after_cover", "_pile_scores",
                         "_remaining_own", "_call_wanted", "act")
    """Methods the kernel replaces: a subclass overriding one of them keeps the Python path."""

    # play_together (set below the module's play_lineup): callers that seat several agents (the solo
    # and SB3 envs) play every seat held by agents that share this function in one call of it.

    def __init__(self, seed: int | None = None, deck=None, num_players: int | None = None, rules: dict | None = None,
                 compiled: bool = True):
        """``compiled``: decide with the Numba kernel (``agent_kernels.py`` in greedy's mode, the
        default) or with this class's NumPy methods (False: the readable reference). Both choose the
        same action on every row except where the reference breaks a tie at random; there both choose
        uniformly among the tied actions (the kernel from keys drawn from this agent's generator, one
        ``[B, 44]`` array per call). A subclass that overrides a decision method (``_main``,
        ``_place``, ``_call_wanted``, ...) is decided by its Python methods, whatever ``compiled``
        says: the kernel knows greedy's and counter's rules only."""
        super().__init__(seed=seed, deck=deck, num_players=num_players, rules=rules)
        if not isinstance(compiled, (bool, np.bool_)):
            raise ValueError(f"compiled={compiled!r}; allowed: True (the Numba kernel) or False (the NumPy reference)")
        # The class whose rules the kernel would play: counter's or greedy's (risk_caller is greedy's).
        rules_class = CounterAgent if isinstance(self, CounterAgent) else GreedyAgent
        overridden = [m for m in rules_class._DECISION_METHODS
                      if getattr(type(self), m) is not getattr(rules_class, m)]
        self.compiled = bool(compiled) and not overridden
        """Whether :meth:`act` runs the kernel (False for ``compiled=False`` and for subclasses that
        override a decision method)."""
        self._kernel_tables = None

    def _kernel_params(self) -> np.ndarray:
        """greedy's parameters for the kernel (``MODE_GREEDY``, this agent's call threshold)."""
        from . import agent_kernels as ck

        return ck.greedy_params(self.threshold)

    # ------------------------------------------------------------------ the compiled decision

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """One legal action per row (``int64 [B]``); rows without a legal action get 0. With
        ``compiled`` (the default) the Numba kernel decides (``agent_kernels.py``, in this class's
        mode); otherwise the NumPy methods."""
        if not self.compiled:
            return super().act(observation, action_mask)
        obs, mask = _validate_inputs(observation, action_mask)
        B = obs.shape[0]
        if B == 0:
            return np.zeros(0, np.int64)
        players, offsets, compat, type_face, type_is_prize, params = self._kernel_args(obs.shape[1])
        obs = np.ascontiguousarray(obs, np.float32)
        mask = np.ascontiguousarray(mask)
        keys = self.rng.random((B, NUM_ACTIONS))
        out = np.empty(B, np.int64)
        from . import agent_kernels as ck

        if B >= _PARALLEL_MIN_ROWS:
            ck.decide_kernel(obs, mask, keys, out, players, offsets, compat, type_face, type_is_prize, params,
                             parallel_chunks(B))
        else:
            ck.decide_range(obs, mask, keys, out, 0, B, players, offsets, compat, type_face, type_is_prize, params)
        return out

    def _kernel_args(self, width: int) -> tuple:
        """``(players, offsets, compat, type_face, type_is_prize, params)`` for the kernel, for
        observations ``width`` long; the reference's ValueErrors for a width no layout has and for
        another table size than ``num_players``."""
        from . import agent_kernels as ck

        if self._kernel_tables is None:
            t = self.tables
            self._kernel_tables = (t.compat.astype(np.int64), t.type_face.astype(np.int64),
                                   np.ascontiguousarray(t.type_is_prize, np.bool_), {})
        compat, type_face, type_is_prize, layouts = self._kernel_tables
        # Built at every call from the agent's attributes (a dozen floats), as the NumPy methods read them.
        params = self._kernel_params()
        if width not in layouts:
            layout = layout_for(width, self.tables)
            layouts[width] = (layout.num_players, ck.layout_offsets(layout))
        players, offsets = layouts[width]
        if self.num_players is not None and players != self.num_players:
            raise ValueError(f"{self.name}: made for {self.num_players} players but the observations are "
                             f"{players}-player ones (width {width})")
        return players, offsets, compat, type_face, type_is_prize, params

    def play_turns(self, core, games: np.ndarray, holds: np.ndarray) -> bool:
        """Plays this agent's seats in a Keine Ahnung core directly, without a round trip to Python
        per decision: in each game ``games[i]``, while the seat to act is one that ``holds[i]``
        ([n, P] bool) marks and the game is not over, the compiled engine observes the game as that
        seat, the kernel decides and the game is stepped. Afterwards each listed game's rewards are
        those of its last step (only the step that ends a game pays). Each decision is the one
        :meth:`act` makes for that observation and mask; tie-break keys come from one stream per
        game drawn from this agent's generator. (:func:`play_lineup` with this agent alone.)

        Returns False, touching nothing, where it cannot play directly: ``compiled`` is off, or the
        core is not a compiled Keine Ahnung core of this agent's deck (the caller then uses ``act``).
        Raises ValueError for ``games`` / ``holds`` of the wrong shape or out of range."""
        from .core import KeineAhnungCore

        if not self.compiled or not isinstance(core, KeineAhnungCore) or core.rules.tables() is not self.tables:
            return False
        return play_lineup(core, games, [self], seats_held(core, games, holds))

    def _call_wanted(self, view: TableView, p: np.ndarray) -> np.ndarray:
        return p >= self.threshold

    def _main(self, view: TableView, mask: np.ndarray) -> np.ndarray:
        unknown, known, fits = self._own(view)
        slot_legal = mask[:, :SLOTS]
        can_call = mask[:, ACTION_CALL]
        known_fit = slot_legal & known & (fits > 0)
        p = batch_call_success_probability(None, self.tables, view=view, among=None)  # thresholds tuned on this value
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

    def __init__(self, threshold: float = 0.5, seed: int | None = None, deck=None, num_players: int | None = None,
                 rules: dict | None = None, compiled: bool = True):
        """``threshold`` in [0, 1]: 0 calls whenever allowed, 1 only when success is certain.
        ``compiled``: as for :class:`GreedyAgent` (the kernel by default, False for the NumPy path)."""
        super().__init__(seed=seed, deck=deck, num_players=num_players, rules=rules, compiled=compiled)
        if isinstance(threshold, bool) or not isinstance(threshold, (int, float, np.floating, np.integer)) \
                or not 0.0 <= float(threshold) <= 1.0:
            raise ValueError(f"threshold={threshold!r}; allowed: a number from 0 to 1 (a success probability)")
        self.threshold = float(threshold)
        self.name = f"risk_caller:{self.threshold:g}"


class CounterAgent(GreedyAgent):
    """The strongest heuristic here: counts cards, holds known fitting cards in reserve and calls
    "Nothing fits anymore!" by plan. Found by seat-rotated tournaments against ``greedy`` and
    ``risk_caller``; every rule reads only the observation. Its rules (each with its reason at the
    line that applies it), from the highest priority down:

    1. Refill attack: a known fitting "refill" card is played at once when an opponent holds fewer
       than three cards.
    2. Call plans: call now, play all known fitting cards and then call, or play a known "remove"
       card (one pile left) and then call - the plan with the best exact success chance, when that
       chance reaches the threshold for the number of unknown cards (lower in the endgame). With no
       unknown card left such a plan is a sure trophy and always taken.
    3. Reserve: reveal an unknown card while one is left, keeping known fitting cards back.
    4. Known fitting cards, when no unknown card is left, in the order that keeps most of the rest
       playable (and reaches a sure trophy if one is in reach).
    5. Otherwise any legal reveal (every card left is a known misfit and calling is not allowed).
    6. Pile choice: most own known cards kept playable plus the expected playable unknown ones
       (a sure trophy first); a small penalty for the next player's expected playable cards; when
       the placement empties the layout, only the next player's prospects count.
    7. KEEP (``allow_keep``) is never chosen: placing a fitting card is always progress.

    Parameters:
      call_threshold: success probability needed for a planned call with 1, 2 or 3 unknown cards.
      endgame_threshold: the same when at most ``endgame_trophies`` trophies are left.
      known_weight: worth of one own known card kept playable, against an unknown card's chance.
      harm_weight: weight of the next player's expected playable cards in pile choices.
      refill_attack: play a known "refill" card at once when an opponent holds fewer than 3 cards.
      compiled: decide with the Numba kernel (``agent_kernels.py``, the default) or with this class's
        NumPy methods (False: the readable reference). Both choose the same action on every row except
        where the reference breaks a tie at random; there both choose uniformly among the tied
        actions (the kernel from keys drawn from this agent's generator, one ``[B, 44]`` array per
        call). A subclass that overrides a decision method (``_main``, ``_place``, ...) is decided by
        its Python methods, whatever ``compiled`` says: the kernel knows counter's rules only.
    """

    name = "counter"

    _DECISION_METHODS = ("_main", "_place", "_pick", "_own", "_known_fit_score", "_after_cover", "_own_value",
                         "_pile_scores", "_remaining_own", "act")
    """Methods the kernel replaces: a subclass overriding one of them keeps the Python path."""

    def __init__(self, seed: int | None = None, deck=None, call_threshold=(0.7, 0.7, 0.7),
                 endgame_threshold=(0.5, 0.5, 0.5), endgame_trophies: int = 2, known_weight: float = 1.0,
                 harm_weight: float = 0.05, refill_attack: bool = True, num_players: int | None = None,
                 rules: dict | None = None, compiled: bool = True):
        """See the class docstring for the parameters; bad values raise ValueError."""
        super().__init__(seed=seed, deck=deck, num_players=num_players, rules=rules, compiled=compiled)
        self.call_threshold = np.array(_probabilities(call_threshold, "call_threshold"))
        self.endgame_threshold = np.array(_probabilities(endgame_threshold, "endgame_threshold"))
        if isinstance(endgame_trophies, bool) or not isinstance(endgame_trophies, (int, np.integer)) or endgame_trophies < 0:
            raise ValueError(f"endgame_trophies={endgame_trophies!r}; allowed: a non-negative integer")
        self.endgame_trophies = int(endgame_trophies)
        self.known_weight = float(known_weight)
        self.harm_weight = float(harm_weight)
        if not isinstance(refill_attack, (bool, np.bool_)):
            raise ValueError(f"refill_attack={refill_attack!r}; allowed: True or False")
        self.refill_attack = bool(refill_attack)
        good = ~self.tables.compat[self.tables.type_face][:, :NUM_FACES] & ~self.tables.type_is_prize[:, None]
        self._good_vs_single = good.astype(np.int64)  # [T, 36]: type does not end a call against one top

    def _kernel_params(self) -> np.ndarray:
        """counter's parameters for the kernel (``MODE_COUNTER``)."""
        from . import agent_kernels as ck

        return ck.agent_params(self.call_threshold, self.endgame_threshold, self.endgame_trophies, self.known_weight,
                               self.harm_weight, self.refill_attack)

    # ------------------------------------------------------------------ reveal or call

    def _main(self, view: TableView, mask: np.ndarray) -> np.ndarray:
        unknown, known, fits = self._own(view)
        slot_legal = mask[:, :SLOTS]
        can_call = mask[:, ACTION_CALL]
        fit = slot_legal & known & (fits > 0)
        reveal_unknown = slot_legal & unknown
        k = (view.slot_state[:, 0] != 0).sum(1)
        u = unknown.sum(1)
        n_fit = fit.sum(1)
        pool = view.pool
        n = pool.sum(1)
        # The exact chance that the unknown cards fit nothing now, each drawn from its own shuffle's pool
        # (the remove plan below still uses the one-pool approximation).
        p_now = np.nan_to_num(pool_all_good_probability(view, self.tables), nan=0.0)
        late = view.table_counts[:, 2] <= self.endgame_trophies
        level = np.clip(u, 1, 3) - 1
        threshold = np.where(late, self.endgame_threshold[level], self.call_threshold[level])
        threshold = np.where(u == 0, 0.0, threshold)

        # Plan "call now": no known card fits, so the unknown cards alone decide the call.
        p_call = np.where(can_call & (n_fit == 0), p_now, -1.0)
        # Plan "play the known fitting cards, then call": open when that leaves at most 3 cards.
        p_fits = np.where((n_fit > 0) & (k - n_fit <= 3), p_now, -1.0)
        # Plan "play a known remove card, then call": one pile is left, which few cards fit.
        remove = fit & (view.slot_function[:, 0] == FUNCTION_REMOVE) & (k - 1 <= 3)[:, None]
        single = np.minimum(view.slot_face[:, 0], NUM_FACES - 1)
        g_single = np.einsum("bt,bts->bs", pool, self._good_vs_single[:, single].transpose(1, 0, 2))
        p_remove = np.where(remove, np.nan_to_num(all_good_probability(g_single, n[:, None], u[:, None]), nan=0.0), -1.0)
        best_remove = p_remove.max(1)

        z = np.zeros(slot_legal.shape)
        # With nothing better, reveal any legal card (all remaining cards are known misfits).
        out = np.where(slot_legal.any(1), self._pick(z, slot_legal), ACTION_CALL)
        best_fit = self._pick(self._known_fit_score(view, fits, fit.any(1)), fit)
        # Known fitting cards are a reserve: while unknown cards are left, reveal those first (a known
        # card kept back can still be played later, or joins a sure call after the piles change).
        out = np.where(fit.any(1), best_fit, out)
        out = np.where(reveal_unknown.any(1), self._pick(z, reveal_unknown), out)
        # A call plan is taken when its success chance reaches the threshold (always when sure).
        take_fits = (p_fits >= threshold) & (p_fits >= p_call) & (p_fits >= best_remove)
        take_remove = ~take_fits & (best_remove >= threshold) & (best_remove >= p_call)
        take_call = ~take_fits & ~take_remove & (p_call >= threshold)
        out = np.where(take_fits, best_fit, out)
        out = np.where(take_remove, self._pick(p_remove, remove), out)
        out = np.where(take_call, ACTION_CALL, out)
        # A known refill card played now tops every opponent with fewer than 3 cards back up to 3,
        # spoiling their sure calls: an attack worth more than any plan of one's own.
        if self.refill_attack:
            short = ((view.slot_state[:, 1:] != 0).sum(-1) < 3).any(1)
            refill = fit & (view.slot_function[:, 0] == FUNCTION_REFILL) & short[:, None]
            out = np.where(refill.any(1), self._pick(z, refill), out)
        return out

    def _known_fit_score(self, view: TableView, fits: np.ndarray, where: np.ndarray | None = None) -> np.ndarray:
        # Among known fitting cards, play first the one whose best placement leaves the best own
        # prospects (most known cards still playable, a sure trophy in reach).
        B = fits.shape[0]
        unknown, known, _ = self._own(view)
        score = np.zeros((B, SLOTS))
        for s in range(SLOTS):
            playable = known[:, s] & (fits[:, s] > 0) & (True if where is None else where)
            if not playable.any():
                continue
            rows = np.flatnonzero(playable)
            sub = _rows(view, rows)
            c = sub.slot_face[:, 0, s]
            after = self._after_cover(sub, c, sub.slot_function[:, 0, s])
            others = known[rows].copy()
            others[:, s] = False
            own = self._own_value(sub, after, others, unknown[rows])
            options = (self._compat[c] > 0) & (sub.tops > 0)
            score[rows, s] = np.where(options, own, -np.inf).max(1)
        return score

    # ------------------------------------------------------------------ pile choice

    def _after_cover(self, view: TableView, card_face: np.ndarray | None = None,
                     card_function: np.ndarray | None = None) -> np.ndarray:
        """[B, 37, 36] bool: would a card of face x fit after the card (default: the pending one)
        covers the pile showing face f? A remove card leaves its own pile only."""
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
        """[B, 36]: per pile covered, own known cards kept playable (weighted) plus the expected
        playable unknown ones; with no unknown card left, reaching a sure trophy (at most three
        cards that do not fit once the fitting ones are played) is worth more than anything."""
        known_fit = np.take_along_axis(after, view.slot_face[:, 0][:, :, None], axis=1)
        n_known = (known_fit & known[:, :, None]).sum(1)
        pool = view.pool.astype(np.float64)
        q = np.einsum("bt,btf->bf", pool, after[:, self.tables.type_face, :]) / np.maximum(pool.sum(1, keepdims=True), 1.0)
        u = unknown.sum(1, keepdims=True)
        k = known.sum(1, keepdims=True) + u
        sure = (u == 0) & (k - n_known <= 3)
        return self.known_weight * n_known + u * q + 10.0 * sure

    def _pile_scores(self, view: TableView) -> np.ndarray:
        # Own prospects first; the next player's expected playable cards count against a pile.
        # When this placement empties the layout (the turn ends with a trophy) only the harm done
        # to the next player matters.
        after = self._after_cover(view)
        known, unknown = self._remaining_own(view)
        own = self._own_value(view, after, known, unknown)
        nxt_state = view.slot_state[:, 1]
        nxt_fit = np.take_along_axis(after, view.slot_face[:, 1][:, :, None], axis=1)
        pool = view.pool.astype(np.float64)
        q = np.einsum("bt,btf->bf", pool, after[:, self.tables.type_face, :]) / np.maximum(pool.sum(1, keepdims=True), 1.0)
        harm = (nxt_fit & (nxt_state == SLOT_KNOWN)[:, :, None]).sum(1) + (nxt_state == SLOT_UNKNOWN).sum(1, keepdims=True) * q
        clearing = ~(known.any(1) | unknown.any(1))[:, None] & (view.pending_slot >= 0)[:, None]
        return np.where(clearing, -harm, own - self.harm_weight * harm)



TUNED_CALL_THRESHOLD = 0.55
"""``counter_tuned``'s call threshold (for 1, 2 and 3 unknown cards; ``counter``'s is 0.7), chosen on
development seeds against three ``counter`` s (docs/skill_ceiling.md, "Tuning counter's parameters")."""


class TunedCounterAgent(CounterAgent):
    """``counter`` with its call threshold tuned against ``counter`` opponents (``counter_tuned``).

    The same rules and kernel as :class:`CounterAgent`; only the default ``call_threshold`` differs:
    :data:`TUNED_CALL_THRESHOLD` instead of 0.7, so a planned call is taken from a success chance of
    0.55 on (the endgame threshold stays 0.5). Tuned on development seeds against three ``counter`` s
    at 4 players, where counter's other parameters changed nothing measurable; every figure and the
    seeds are in docs/skill_ceiling.md. Every other parameter of ``counter`` may still be given
    (``counter_tuned:harm_weight=0.1``), ``call_threshold`` too.
    """

    name = "counter_tuned"

    def __init__(self, seed: int | None = None, deck=None, call_threshold=TUNED_CALL_THRESHOLD,
                 endgame_threshold=(0.5, 0.5, 0.5), endgame_trophies: int = 2, known_weight: float = 1.0,
                 harm_weight: float = 0.05, refill_attack: bool = True, num_players: int | None = None,
                 rules: dict | None = None, compiled: bool = True):
        """``call_threshold`` defaults to :data:`TUNED_CALL_THRESHOLD`; the rest as :class:`CounterAgent`
        (the same defaults, written out so that only these arguments are accepted)."""
        super().__init__(seed=seed, deck=deck, call_threshold=call_threshold, endgame_threshold=endgame_threshold,
                         endgame_trophies=endgame_trophies, known_weight=known_weight, harm_weight=harm_weight,
                         refill_attack=refill_attack, num_players=num_players, rules=rules, compiled=compiled)


def play_lineup(core, games, agents, seat_agent) -> bool:
    """Plays the seats of a line-up of compiled agents (``greedy``, ``risk_caller``, ``counter``,
    ``counter_tuned``, in any mix) in a Keine Ahnung core directly: in each game ``games[i]``, while
    the seat to act is held (``seat_agent[i, seat]`` = the index of its agent in ``agents``; -1: not
    held, e.g. a learner's seat) and the game is not over, the compiled engine observes the game as
    that seat, the kernel decides with that agent's rules and the game is stepped. So a whole round of
    opponents costs one call, however many agents share it. Each decision is the one its agent's
    :meth:`~GreedyAgent.act` makes for that observation and mask; tie-break keys come from one stream
    per game and agent, drawn from that agent's generator (agents in the order given). Afterwards each
    listed game's rewards are those of its last step.

    Returns False, touching nothing, where it cannot play directly: an agent that is not compiled, or
    a core that is not a compiled Keine Ahnung core of the agents' deck (the caller then uses ``act``).
    Raises ValueError for ``games`` / ``seat_agent`` of the wrong shape or out of range."""
    from . import agent_kernels as ck
    from .core import KeineAhnungCore
    from ...rng import stream_states

    agents = list(agents)
    if not agents or not isinstance(core, KeineAhnungCore) or not all(
            isinstance(a, GreedyAgent) and a.compiled and core.rules.tables() is a.tables for a in agents):
        return False
    games, seat_agent = lineup_arrays(core, games, seat_agent)
    P = core.num_players
    check_lineup(core, games, seat_agent, len(agents))
    if games.size == 0:
        return True
    kernel_args = [a._kernel_args(core.observation_size) for a in agents]  # also checks each one's table size
    players, offsets, compat, type_face, type_is_prize = kernel_args[0][:5]  # the deck's: the same for all
    params = np.stack([args[5] for args in kernel_args])
    streams = np.concatenate([stream_states(a.rng, games.size) for a in agents])
    seat_agent = np.ascontiguousarray(seat_agent, np.int64)
    stuck = np.zeros(games.size, np.bool_)
    chunks = parallel_chunks(games.size) if games.size >= _PLAY_PARALLEL_MIN_GAMES else 0
    if chunks:
        core._run(ck.play_kernel, games, seat_agent, streams, stuck, players, offsets, compat, type_face,
                  type_is_prize, params, chunks)
    else:
        core._run(ck.play_range, games, seat_agent, streams, stuck, 0, games.size, players, offsets, compat,
                  type_face, type_is_prize, params)
    raise_if_stuck(core, games, seat_agent, agents, stuck)
    return True


GreedyAgent.play_together = staticmethod(play_lineup)
"""``play_together(core, games, agents, seat_agent)`` of every compiled agent here: :func:`play_lineup`."""


_PARALLEL_MIN_ROWS = 256
"""Batches from this size up are split over Numba's threads (smaller ones run in one serial loop)."""


_PLAY_PARALLEL_MIN_GAMES = 64
"""``play_turns`` splits the games over Numba's threads from this many up (a game's turn is several
decisions, each an observation, a decision and a step: more work per row than ``act``)."""


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
