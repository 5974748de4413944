"""Heuristic agents for dnp (batched: ``act(observation [B, O], action_mask [B, A]) -> int64 [B]``).

They read only the observation and the mask. The player count and the number of cards are read from
the widths of the observation and the mask at every call, so one agent object plays every table size.

A move is chosen card by card (SELECT ..., then PLAY or ADD). The agents are stateless: at every
decision they rank the complete moves open to them from the position (which does not change while a
selection is built) and take the next step of the best one; with a selection in progress only moves
with the selection's value are ranked, so the plan chosen at the first card is the plan finished.

* ``shedder``: plays the largest legal set (a set that beats one on the table first, then the higher
  value; adding one card to another player's set counts as a set of one), turns its hand when that
  makes a larger set possible or nothing can be played; it never takes a set.
* ``tactician``: the strongest here. Its rules, in order:
  1. Go out when it can (one set of all its cards, or its last card added to a set).
  2. Otherwise rank moves by the moves they save: a hand needs at least ``finish_estimate`` more
     moves (one per distinct active value, or a turn plus one per distinct inactive value). A played
     set saves ``now - (p * after + (1 - p) * after_if_beaten)``, where a beaten set's cards come back
     turned and ``p = survive ** RISK``; ``survive`` estimates from the cards the seat has not seen,
     the cards known in each hand and the sets on the table that no opponent beats the set before
     its next turn. Adding a card to another player's set is a sure shed.
  3. Beating a set is worth the cards it sends back, more so when their owner is close to going out;
     beating one of its own sets (two players) costs the cards that come back; a finisher's set is
     worth nothing. Ties go to the larger set.
  4. Among cards of one value it plays those whose other value is rarest in its hand (the rest make
     larger sets after a turn of the hand).
  5. It turns its hand when the turned hand can go out next turn, or when its inactive side needs
     ``TURN_MARGIN`` fewer sets than it has values, or when nothing is playable. It never takes a set
     (taking back and forth loops; turning waits until the table clears).
  Tuned against three ``shedder`` at 4 players (300 games per setting); ``docs/dnp.md`` has the league.

``tactician`` decides with a Numba kernel by default (``agent_kernels.py``: the same action as the
Python methods here on every row; ``compiled=False``, spec ``tactician:compiled=false``, keeps these
methods, the reference the kernel is tested against) and plays whole tables of tacticians inside a
compiled core (``play_turns``, ``play_together``: search roll-outs).
"""

from __future__ import annotations

import numpy as np

from ...agent_base import check_lineup, lineup_arrays, no_legal_action, parallel_chunks, seats_held
from ...sampling import check_batch, sample_masked
from .actions import NUM_TARGETS
from .deck import MAX_VALUE
from .observation import ObservationLayout

__all__ = ["DnpAgent", "ShedderAgent", "TacticianAgent", "finish_estimate", "infer_layout", "play_lineup"]


def infer_layout(obs_width: int, mask_width: int) -> tuple[int, int]:
    """``(num_players, num_cards)`` of observations and masks of these widths (ValueError if none fits)."""
    N = mask_width - 2 - 2 * NUM_TARGETS
    for P in range(2, 6):
        if N >= P and ObservationLayout.make(P, N).size == obs_width:
            return P, N
    raise ValueError(f"observation width {obs_width} and mask width {mask_width} fit no dnp variant; "
                     "expected those of a dnp_v0 observation and its action mask")


class _View:
    """One row of observations decoded."""

    def __init__(self, obs: np.ndarray, layout: ObservationLayout):
        s = layout.split(obs)
        P, A, N, F = layout.num_players, layout.areas, layout.num_cards, layout.card_width
        T = layout.positions
        cards = s["cards"].reshape(N, F)
        self.P, self.A, self.N, self.T = P, A, N, T
        self.hand = np.flatnonzero(cards[:, 4] > 0)
        self.active = cards[:, 2].astype(np.int64)
        self.inactive = (cards[:, 0] + cards[:, 1] - cards[:, 2]).astype(np.int64)
        self.selected = cards[:, 5] > 0
        self.sel_count = int(s["selection"][0])
        self.sel_value = int(s["selection"][1])
        table = s["table"].reshape(T, 2).astype(np.int64)
        self.set_value, self.set_size = table[:, 0], table[:, 1]
        players = s["players"].reshape(P, 4).astype(np.int64)
        self.hand_sizes, self.out = players[:, 0], players[:, 2] > 0
        self.cards = cards
        self.known_in = cards[:, 7 + T: 7 + T + P - 1] > 0  # [N, P-1]: known in relative seat k+1's hand
        self.unseen = ~(cards[:, 4:].any(axis=1))  # in play, in some other hand, not known

    def can_play(self, value: int, size: int) -> bool:
        same = self.set_size == size
        return not (same & (self.set_value >= value)).any()

    def beaten(self, size: int, exclude: int = -1) -> int:
        """The relative position of the set of ``size`` (other than ``exclude``) a move would beat, or -1."""
        for pos in range(self.T):
            if pos != exclude and self.set_size[pos] == size:
                return pos
        return -1


class DnpAgent:
    """Shared machinery of the heuristics (each an :class:`~keine_ahnung_env.agent_base.Agent`):
    decoding, the plan-by-plan choice, card order and a legal fallback."""

    name = "dnp"

    def __init__(self, seed: int | None = None, num_players: int | None = None, rules: dict | None = None,
                 deck=None):
        self.rng = np.random.default_rng(seed)
        if rules is not None and not isinstance(rules, dict):
            raise ValueError(f"rules={rules!r}; allowed: None or a dict of rules options")
        if num_players is not None and (isinstance(num_players, bool) or num_players not in range(2, 6)):
            raise ValueError(f"num_players={num_players!r}; allowed: integers 2-5")
        self.num_players = num_players

    def reseed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    # -------------------------------------------------------------- ranking (subclasses)

    def plans(self, v: _View, values: np.ndarray) -> list[tuple[float, str, int, int]]:
        """``(score, kind, value, size or target)`` of the complete moves A ("A", value, size) and B
        ("B", value, target) with a value in ``values``; the highest score is played."""
        raise NotImplementedError

    def card_order(self, v: _View, value: int) -> list[int]:
        """Hand cards of ``value`` in the order they are selected."""
        return [int(c) for c in v.hand if v.active[c] == value]

    def other_move(self, v: _View, mask: np.ndarray, best: float, layout) -> int:
        """With no selection in progress: TURN or TAKE instead of the best plan (-1: play the plan)."""
        return -1

    # -------------------------------------------------------------- acting

    def _inputs(self, observation, action_mask) -> tuple[np.ndarray, np.ndarray, int, int]:
        """``(observations as float32, masks, players, cards)``, checked (ValueError naming what is wrong)."""
        obs, mask = check_batch(observation, action_mask)
        obs = obs.astype(np.float32, copy=False)
        if obs.shape[0] == 0:
            return obs, mask, 0, 0
        P, N = infer_layout(obs.shape[1], mask.shape[1])
        if self.num_players is not None and P != self.num_players:
            raise ValueError(f"observations of a {P}-player game; this agent was made for {self.num_players}")
        return obs, mask, P, N

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        obs, mask, P, N = self._inputs(observation, action_mask)
        out = np.zeros(obs.shape[0], np.int64)
        if obs.shape[0] == 0:
            return out
        layout = ObservationLayout.make(P, N)
        from .actions import ActionLayout

        actions = ActionLayout(N, P)
        for i in range(obs.shape[0]):
            if not mask[i].any():
                continue
            choice = self._choose(_View(obs[i], layout), mask[i], actions)
            legal = 0 <= choice < mask.shape[1] and mask[i, choice]
            out[i] = choice if legal else sample_masked(self.rng, mask[i:i + 1])[0]
        return out

    def _choose(self, v: _View, mask: np.ndarray, L) -> int:
        if v.sel_count:
            values = np.array([v.sel_value])
        else:
            values = np.unique(v.active[v.hand])
        ranked = sorted(self.plans(v, values), key=lambda p: (-p[0], p[1], -p[2], p[3]))
        if v.sel_count:
            ranked = [p for p in ranked if (p[1] == "A" and p[3] >= v.sel_count) or (p[1] == "B" and v.sel_count == 1)]
        else:
            move = self.other_move(v, mask, ranked[0][0] if ranked else -np.inf, L)
            if move >= 0:
                return move
        if not ranked:
            return -1
        _, kind, value, arg = ranked[0]
        if kind == "B":
            if v.sel_count == 0:
                return self.card_order(v, value)[0]
            return L.add_base + arg - v.A
        if v.sel_count < arg:
            for c in self.card_order(v, value):
                if not v.selected[c]:
                    return c
        return L.play


def _a_sizes(v: _View, value: int) -> list[int]:
    n = int((v.active[v.hand] == value).sum())
    return [m for m in range(1, n + 1) if v.can_play(value, m)]


def _b_targets(v: _View, value: int) -> list[int]:
    """Relative positions (of other players) where a card of ``value`` may be added."""
    out = []
    for pos in range(v.A, v.T):
        if v.set_size[pos] and v.set_value[pos] == value:
            size = v.set_size[pos] + 1
            if all(not (q != pos and v.set_size[q] == size and v.set_value[q] >= value) for q in range(v.T)):
                out.append(pos)
    return out


class ShedderAgent(DnpAgent):
    """The largest legal set first (a set that beats one first, then the higher value); turns its hand
    when that allows a larger set, or when nothing can be played (it never takes a set: two players
    taking each other's single sets back and forth never end)."""

    name = "shedder"

    def plans(self, v, values):
        out = []
        for value in values.tolist():
            for m in _a_sizes(v, value):
                out.append((m * 100 + 10 * (v.beaten(m, -1) >= 0) + 0.1 * value, "A", value, m))
            for pos in _b_targets(v, value):
                out.append((100 + 10 * (v.beaten(v.set_size[pos] + 1, pos) >= 0) + 0.1 * value - 0.05, "B", value, pos))
        return out

    def _largest(self, v: _View, active: np.ndarray) -> int:
        best = 0
        for value in np.unique(active[v.hand]).tolist():
            n = int((active[v.hand] == value).sum())
            best = max([best] + [m for m in range(1, n + 1) if v.can_play(value, m)])
        return best

    def other_move(self, v, mask, best, L):
        now = self._largest(v, v.active)
        turned = self._largest(v, v.inactive)
        if turned > now:
            return L.turn
        if now == 0 and best == -np.inf:
            return L.turn  # nothing to play: turning waits for the table to clear (taking sets can loop)
        return -1


def finish_estimate(active_values, inactive_values) -> int:
    """Moves a hand needs at least to go out: one set per distinct active value, or one turn of the
    hand plus one set per distinct inactive value."""
    if len(active_values) == 0:
        return 0
    return min(len(set(active_values)), len(set(inactive_values)) + 1)


class TacticianAgent(DnpAgent):
    """The strongest heuristic here; its rules are listed in the module docstring.

    ``compiled`` (the default): :meth:`act` decides with the Numba kernel (``agent_kernels.py``), which
    makes the reference's decision on every row; ``compiled=False``: with the Python methods below (the
    readable reference). The class constants (RISK, BEAT_INTENT, BEAT_WEIGHT, TURN_MARGIN) are read at
    every call, from the instance or its class, by both. A subclass that overrides a decision method
    (``plans``, ``_rank``, ``survive``, ...; :attr:`_DECISION_METHODS`) is decided by its Python methods,
    whatever ``compiled`` says: the kernel knows this class's rules only. :meth:`play_turns` and
    ``play_together`` (:func:`play_lineup`) play tables held by tacticians alone inside a compiled core."""

    name = "tactician"
    _DECISION_METHODS = ("plans", "card_order", "other_move", "_rank", "_order", "survive", "_threats",
                         "_beat_value", "_choose", "act")
    """Methods the kernel replaces: a subclass (or an instance) that overrides one keeps the Python path."""
    RISK = 2.0
    """How much the chance of being beaten counts (``survive ** RISK``; tuned: 0, 0.5, 1, 2, 3 tried)."""
    BEAT_INTENT = 0.7
    """The chance an opponent who can beat a set does so (``survive``)."""
    BEAT_WEIGHT = 1.0 / 3.0
    """Weight of the cards a move sends back to an opponent (``_beat_value``) against moves saved."""
    TURN_MARGIN = 1
    """Turn the hand when its inactive side has at least this many fewer distinct values than it
    needs more (tuned: 0, 1, 2 tried)."""

    # play_together (set below the module's play_lineup): callers that seat several agents play every
    # seat held by agents that share this function in one call of it.

    def __init__(self, seed: int | None = None, num_players: int | None = None, rules: dict | None = None,
                 deck=None, compiled: bool = True):
        """``compiled``: decide with the Numba kernel (the default) or with the Python methods (False)."""
        super().__init__(seed=seed, num_players=num_players, rules=rules, deck=deck)
        if not isinstance(compiled, (bool, np.bool_)):
            raise ValueError(f"compiled={compiled!r}; allowed: True (the Numba kernel) or False (the Python reference)")
        overridden = [m for m in self._DECISION_METHODS if getattr(type(self), m) is not getattr(TacticianAgent, m)]
        self.compiled = bool(compiled) and not overridden
        """Whether :meth:`act` runs the kernel (False for ``compiled=False`` and for subclasses that override a
        decision method)."""

    # ------------------------------------------------------------------ the compiled decision

    def _kernel_params(self) -> np.ndarray | None:
        """The class constants for the kernel as they are now, or None where the Python path must decide: not
        compiled, a decision method replaced on the instance, or a constant the kernel's float64 arithmetic
        would not reproduce (``agent_kernels.params``)."""
        if not self.compiled or any(m in self.__dict__ for m in self._DECISION_METHODS):
            return None
        from . import agent_kernels as ak

        return ak.params(self)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """One legal action per row (``int64 [B]``); rows without a legal action get 0. With ``compiled``
        the kernel decides; the rows it leaves to Python (the random fallback where the chosen action is
        illegal, rows it does not decode) are resolved afterwards in row order, so the agent's generator
        is drawn from as the reference draws from it."""
        params = self._kernel_params()
        if params is None:
            return super().act(observation, action_mask)
        obs, mask, P, N = self._inputs(observation, action_mask)
        if obs.shape[0] == 0:
            return np.zeros(0, np.int64)
        from . import agent_kernels as ak

        out = ak.decide(np.ascontiguousarray(obs), np.ascontiguousarray(mask), _layout_info(P, N), params)
        left = np.flatnonzero(out < 0)
        if left.size:
            from .actions import ActionLayout

            layout, actions = ObservationLayout.make(P, N), ActionLayout(N, P)
            for i in left.tolist():
                choice = out[i]
                if choice == ak.REFERENCE:
                    choice = self._choose(_View(obs[i], layout), mask[i], actions)
                legal = 0 <= choice < mask.shape[1] and mask[i, choice]
                out[i] = choice if legal else sample_masked(self.rng, mask[i:i + 1])[0]
        return out

    def play_turns(self, core, games: np.ndarray, holds: np.ndarray) -> bool:
        """Plays this agent's seats in a dnp core directly, without a round trip to Python per decision:
        in each game ``games[i]``, while the seat to act is one that ``holds[i]`` ([n, P] bool) marks and
        the game is not over, the compiled engine observes the game as that seat, the kernel decides and
        the game is stepped. Each decision is the one :meth:`act` makes. (:func:`play_lineup` with this
        agent alone: it plays only where the agent holds every seat, and returns False otherwise.)

        Returns False, touching nothing, where it cannot play directly (the caller then uses ``act``).
        Raises ValueError for ``games`` / ``holds`` of the wrong shape or out of range."""
        from .core import DnpCore

        if self._kernel_params() is None or not isinstance(core, DnpCore):
            return False
        return play_lineup(core, games, [self], seats_held(core, games, holds))

    # ------------------------------------------------------------------ estimates

    def _threats(self, v: _View) -> np.ndarray:
        """[P, 11]: expected cards of each active value in each opponent's hand (relative seats): the
        cards it is known to hold, plus its share of the unseen cards, each counted half for each value."""
        if getattr(v, "_threat", None) is not None:
            return v._threat
        per_value = np.zeros(MAX_VALUE + 1)
        for c in np.flatnonzero(v.unseen).tolist():
            per_value[int(v.cards[c, 0])] += 0.5
            per_value[int(v.cards[c, 1])] += 0.5
        hidden = np.array([v.hand_sizes[k] - v.known_in[:, k - 1].sum() if k else 0 for k in range(v.P)], float)
        total = max(hidden.sum(), 1.0)
        out = np.zeros((v.P, MAX_VALUE + 1))
        for k in range(1, v.P):
            if v.out[k]:
                continue
            out[k] = per_value * hidden[k] / total
            for c in np.flatnonzero(v.known_in[:, k - 1]).tolist():
                out[k, int(v.active[c])] += 1.0
        v._threat = out
        return out

    def survive(self, v: _View, value: int, size: int) -> float:
        """Estimated chance that a set of ``value`` and ``size`` is not beaten before the next turn: for
        every opponent and every higher value, the chance (Poisson) that it holds ``size`` such cards,
        or one such card to add to a set of ``size - 1`` of that value on the table."""
        if value >= MAX_VALUE:
            return 1.0
        threat = self._threats(v)
        moves = 2 if v.P == 2 else 1
        p_safe = 1.0
        for k in range(1, v.P):
            if v.out[k]:
                continue
            for w in range(value + 1, MAX_VALUE + 1):
                lam = threat[k, w]
                if lam <= 0:
                    continue
                cdf, term = 0.0, np.exp(-lam)
                for i in range(size):
                    cdf += term
                    term *= lam / (i + 1)
                p_beat = 1.0 - cdf
                if size > 1:
                    for pos in range(v.T):
                        if v.set_size[pos] == size - 1 and v.set_value[pos] == w and pos // v.A != k:
                            p_beat = max(p_beat, 1.0 - np.exp(-lam))
                p_safe *= (1.0 - self.BEAT_INTENT * p_beat) ** moves
        return p_safe

    def _beat_value(self, v: _View, pos: int) -> float:
        """What sending the set at relative position ``pos`` back is worth (0: no set)."""
        if pos < 0:
            return 0.0
        owner = pos // v.A
        size = float(v.set_size[pos])
        if owner == 0:
            return -1.5 * size  # one's own set (two players) comes back
        if v.out[owner]:
            return 0.0  # a finisher's set is discarded: no harm to anybody
        return size * (0.6 + 2.0 / (1.0 + v.hand_sizes[owner]))

    # ------------------------------------------------------------------ ranking

    def _order(self, v: _View, active, inactive, value: int) -> list[int]:
        """Cards of ``value``: those whose other value is rarest in the hand first (rule 5)."""
        cards = [int(c) for c in v.hand if active[c] == value]
        others = [int(inactive[c]) for c in v.hand]
        return sorted(cards, key=lambda c: (others.count(int(inactive[c])), c))

    def _rank(self, v: _View, active, inactive, values) -> list[tuple[float, str, int, int]]:
        hand = v.hand.tolist()
        f_now = finish_estimate([int(active[c]) for c in hand], [int(inactive[c]) for c in hand])
        out = []
        for value in values:
            cards = self._order(v, active, inactive, value)
            for m in range(1, len(cards) + 1):
                if not v.can_play(value, m):
                    continue
                if m == len(hand):
                    out.append((1000.0, "A", value, m))  # rule 1: go out
                    continue
                played = set(cards[:m])
                rest = [c for c in hand if c not in played]
                f_ok = finish_estimate([int(active[c]) for c in rest], [int(inactive[c]) for c in rest])
                # beaten: the cards come back turned
                f_bad = finish_estimate([int(active[c]) for c in rest] + [int(inactive[c]) for c in played],
                                        [int(inactive[c]) for c in rest] + [int(active[c]) for c in played])
                p = self.survive(v, value, m) ** self.RISK
                score = f_now - (p * f_ok + (1 - p) * f_bad) + 0.05 * m \
                    + self.BEAT_WEIGHT * self._beat_value(v, v.beaten(m, -1))
                out.append((score, "A", value, m))
            if active is not v.active:
                continue
            for pos in _b_targets(v, value):
                if len(hand) == 1:
                    out.append((1000.0, "B", value, pos))
                    continue
                rest = [c for c in hand if c != cards[0]]
                f_ok = finish_estimate([int(active[c]) for c in rest], [int(inactive[c]) for c in rest])
                score = f_now - f_ok + 0.06 + self.BEAT_WEIGHT * self._beat_value(v, v.beaten(v.set_size[pos] + 1, pos))
                out.append((score, "B", value, pos))
        return out

    def plans(self, v, values):
        return self._rank(v, v.active, v.inactive, values.tolist())

    def card_order(self, v, value):
        return self._order(v, v.active, v.inactive, value)

    def other_move(self, v, mask, best, L):
        """Rule 5: turn the hand when the turned hand goes out next, needs clearly fewer moves, or when
        nothing can be played now."""
        turned = self._rank(v, v.inactive, v.active, np.unique(v.inactive[v.hand]).tolist())
        best_turned = max((p[0] for p in turned), default=-np.inf)
        if best_turned >= 1000 > best:
            return L.turn
        hand = v.hand.tolist()
        groups = len(set(int(v.active[c]) for c in hand))
        groups_turned = len(set(int(v.inactive[c]) for c in hand))
        if best == -np.inf or groups_turned + self.TURN_MARGIN < groups:
            return L.turn
        return -1


_LAYOUT_INFO: dict = {}


def _layout_info(num_players: int, num_cards: int) -> np.ndarray:
    """The kernel's ``info`` for a table size, built once (``agent_kernels.layout_info``)."""
    key = (num_players, num_cards)
    info = _LAYOUT_INFO.get(key)
    if info is None:
        from . import agent_kernels as ak

        info = _LAYOUT_INFO[key] = ak.layout_info(num_players, num_cards)
    return info


def play_lineup(core, games, agents, seat_agent) -> bool:
    """Plays a table of compiled tacticians in a dnp core directly: in each game ``games[i]``, while the
    game is not over, the compiled engine observes it as the seat to act (held by
    ``agents[seat_agent[i, seat]]``), the kernel decides with that agent's constants and the game is
    stepped, so whole games cost one call. Each decision is the one that agent's
    :meth:`~TacticianAgent.act` makes for that observation and mask; afterwards each listed game's
    rewards are those of its last step.

    It plays only where the result is the one ``act`` round by round gives: every seat of every listed
    game held by the agents (a seat held by anyone else, -1, may be an agent with a random generator,
    which would be asked about other batches of games than round by round, and draw differently), and
    the finisher's set open (with ``finisher_set="closed"`` the tactician may choose an ADD the rules
    refuse, and its random fallback must draw in the order ``act`` draws). Nothing in a tactician is
    random otherwise, so then the games are those ``act`` plays.

    Returns False, touching nothing, where it does not play (the caller then uses ``act``): an agent
    that is not a compiled tactician, a core that is not a dnp core, a seat not held, a closed
    finisher's set. Raises ValueError for ``games`` / ``seat_agent`` of the wrong shape or out of range,
    and for an agent made for another table size."""
    from . import agent_kernels as ak
    from .core import DnpCore
    from .kernels import step_range

    agents = list(agents)
    if not agents or not isinstance(core, DnpCore) or not all(isinstance(a, TacticianAgent) for a in agents):
        return False
    params = [a._kernel_params() for a in agents]
    if any(p is None for p in params):
        return False
    games, seat_agent = lineup_arrays(core, games, seat_agent)
    P = core.num_players
    # Declined before the remaining checks: the solo driver offers every opponents' round here, with the
    # learner's seat not held.
    if (seat_agent == -1).any() or core.rules.finisher_set == "closed":
        return False
    check_lineup(core, games, seat_agent, len(agents))
    for a in agents:
        if a.num_players is not None and a.num_players != P:
            raise ValueError(f"observations of a {P}-player game; this agent was made for {a.num_players}")
    if games.size == 0:
        return True
    info = _layout_info(P, core.tables.num_cards)
    params = np.ascontiguousarray(np.stack(params))
    seat_agent = np.ascontiguousarray(seat_agent, np.int64)
    todo = np.arange(games.size)
    while todo.size:
        listed, rows = games[todo], seat_agent[todo]
        paused = np.zeros(todo.size, np.int64)
        table = ak.EXP_TABLE
        chunks = parallel_chunks(listed.size) if listed.size >= _PLAY_PARALLEL_MIN_GAMES else 0
        if chunks:
            core._run(ak.play_kernel, listed, rows, paused, info, params, table.keys, table.vals, chunks)
        else:
            core._run(ak.play_range, listed, rows, paused, 0, listed.size, info, params, table.keys, table.vals)
        todo = todo[paused != 0]
        if todo.size == 0:
            break
        codes = paused[paused != 0]
        stuck = np.flatnonzero(codes == ak.STUCK)
        if stuck.size:
            b = int(games[todo[stuck[0]]])
            raise no_legal_action("tactician", core, b)
        seats = core.current[games[todo]].astype(np.intp)
        obs = core.observe(seats, games=games[todo])
        need = codes == ak.NEED_EXP
        if need.any():
            ak.add_exps(np.ascontiguousarray(obs[need]), info)
        # Decisions the kernel leaves to Python (never the random fallback here: see the docstring): that
        # agent's act, one game at a time, then that game alone is stepped (a step over more games would
        # reset the rewards of games that ended in the kernel).
        actions = np.zeros(core.num_envs, np.intp)
        active = np.zeros(core.num_envs, np.bool_)
        for j in np.flatnonzero(~need).tolist():
            b = int(games[todo[j]])
            agent = agents[int(seat_agent[todo[j], seats[j]])]
            actions[b] = int(agent.act(obs[j:j + 1], core.legal_mask[b:b + 1])[0])
            active[b] = True
            core._run(step_range, actions, active, b, b + 1)
            active[b] = False
    return True


TacticianAgent.play_together = staticmethod(play_lineup)
"""``play_together(core, games, agents, seat_agent)`` of every tactician: :func:`play_lineup`."""

_PLAY_PARALLEL_MIN_GAMES = 64
"""``play_lineup`` splits the games over Numba's threads from this many up."""
