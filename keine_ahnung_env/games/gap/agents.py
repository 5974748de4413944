"""Heuristic agents for the gap game (batched; NumPy in, NumPy out).

Every agent reads only its observation (decoded through ``ObservationLayout``) and the legal-action
mask. The player count follows from the observation width at every call, so one agent object serves
any table size. Whatever an agent leaves illegal falls back to a uniformly random legal action.

Agents (``random`` is common to every game):

* ``gap_hunter`` (:class:`GapHunterAgent`): hides its two highest-star cards; plays a gap card whenever
  it can, the one leaving the smallest gap (then the highest-star card); otherwise the highest-star
  card that matches (then the smallest gap left); passes only when nothing can be played; a turned-up
  card goes where it gives it the most gap plays (then the widest gap).
* ``planner`` (:class:`PlannerAgent`), the strongest here: searches every sequence of plays of its turn
  (chains of gap plays, then a match play or a pass) and takes the first move of the best one; see the
  class for the value it maximises. Its play and flip decisions run as a Numba kernel by default
  (``agent_kernels.py``: the same search, the same action on every row); ``compiled=False``, spec
  ``planner:compiled=false``, keeps the Python search here, the reference the kernel is tested against.
  With ``in_engine=True`` (spec ``planner:in_engine=true``) it can also play its seats inside the
  compiled core (``play_turns``; :func:`play_lineup`, offered as such a planner's ``play_together``,
  for several planners), as roll-outs of search agents and labelling want: a turn or a whole game
  costs one call instead of a Python ``act`` per decision. Every play and flip decision there is
  ``act``'s; hiding breaks its ties with numbers from per-game streams instead of the agent's
  generator, so seeded games differ from ``act``'s (equally valid ones), which is why it is off by
  default: every seeded solo-env run, tournament and labelling run with planners stays the same.
"""

from __future__ import annotations

import numpy as np

from ...agent_base import check_lineup, lineup_arrays, parallel_chunks, raise_if_stuck, seats_held
from ...sampling import check_batch, sample_masked
from .actions import ACTION_FLIP_BASE, ACTION_HIDE_BASE, ACTION_PASS, NUM_ACTIONS, Phase
from .core import GAP_TABLE
from .deck import CARD_COLOUR, CARD_NUMBER, CARD_STARS, NUM_CARDS, NUM_COLOURS
from .observation import CARD_FEATURES, ObservationLayout, layout_for_width

__all__ = ["GapAgent", "GapHunterAgent", "PlannerAgent", "play_lineup"]

_PLAY_CARD = np.arange(ACTION_PASS) // 2
_PLAY_PILE = np.arange(ACTION_PASS) % 2
_COLOUR = CARD_COLOUR.astype(np.int64)
_NUMBER = CARD_NUMBER.astype(np.int64)
_STARS = CARD_STARS.astype(np.int64)


def _validate(observation, action_mask) -> tuple[np.ndarray, np.ndarray]:
    return check_batch(observation, action_mask, NUM_ACTIONS, "gap-game")


def _cards_of(features: np.ndarray) -> np.ndarray:
    """[B] card ids of [B, 17] colour+number encodings (-1 where empty)."""
    empty = ~features.any(axis=1)
    card = features[:, :NUM_COLOURS].argmax(axis=1) * 11 + features[:, NUM_COLOURS:].argmax(axis=1)
    return np.where(empty, -1, card).astype(np.int64)


def _width(a, b):
    return np.maximum(np.abs(_NUMBER[a] - _NUMBER[b]) - 1, 0)


def _is_gap(card, a, b):
    n, na, nb = _NUMBER[card], _NUMBER[a], _NUMBER[b]
    c = _COLOUR[card]
    return (c != _COLOUR[a]) & (c != _COLOUR[b]) & (n > np.minimum(na, nb)) & (n < np.maximum(na, nb))


class GapAgent:
    """Shared machinery of the heuristics (each an :class:`~keine_ahnung_env.agent_base.Agent`):
    validation, decoding, phase dispatch and a legal fallback. Subclasses implement :meth:`_hide`,
    :meth:`_flip` and :meth:`_play` for the rows in those phases."""

    name = "gap"

    def __init__(self, seed: int | None = None, num_players: int | None = None, rules: dict | None = None):
        self.rng = np.random.default_rng(seed)
        if rules is not None and not isinstance(rules, dict):
            raise ValueError(f"rules={rules!r}; allowed: None or a dict of rules options")
        if num_players is not None:
            from .config import Rules

            Rules.make(num_players)  # validates the player count with the rules' message
        self.num_players = num_players
        self.rules = dict(rules or {})

    def reseed(self, seed: int | None) -> None:
        self.rng = np.random.default_rng(seed)

    def act(self, observation: np.ndarray, action_mask: np.ndarray) -> np.ndarray:
        """One legal action per row (``int64 [B]``); rows without a legal action get 0."""
        obs, mask = _validate(observation, action_mask)
        B = obs.shape[0]
        actions = np.zeros(B, np.int64)
        if B == 0:
            return actions
        layout = layout_for_width(obs.shape[1])
        if self.num_players is not None and layout.num_players != self.num_players:
            raise ValueError(f"{self.name}: made for {self.num_players} players but the observations are "
                             f"{layout.num_players}-player ones (width {obs.shape[1]})")
        phase = obs[:, layout.slice("phase")].argmax(axis=1)
        for code, method in ((Phase.HIDE, self._hide), (Phase.FLIP, self._flip), (Phase.PLAY, self._play)):
            rows = np.flatnonzero((phase == code) & mask.any(axis=1))
            if rows.size:
                actions[rows] = method(obs[rows], mask[rows], layout)
        live = mask.any(axis=1)
        illegal = live & ~mask[np.arange(B), actions]
        if illegal.any():
            actions[illegal] = sample_masked(self.rng, mask[illegal])
        return actions

    # helpers -------------------------------------------------------------------------------------

    @staticmethod
    def tops(obs: np.ndarray, layout: ObservationLayout) -> tuple[np.ndarray, np.ndarray]:
        t = obs[:, layout.slice("pile_tops")]
        return _cards_of(t[:, :CARD_FEATURES]), _cards_of(t[:, CARD_FEATURES:])

    def _pick(self, score: np.ndarray, allowed: np.ndarray) -> np.ndarray:
        """Per row, the allowed column with the highest score; ties broken at random."""
        noisy = np.where(allowed, score + self.rng.random(score.shape) * 1e-6, -np.inf)
        return noisy.argmax(axis=1)

    def _hide(self, obs, mask, layout) -> np.ndarray:
        """The highest-star hand card (ties at random)."""
        hide = mask[:, ACTION_HIDE_BASE:ACTION_HIDE_BASE + NUM_CARDS]
        return ACTION_HIDE_BASE + self._pick(np.broadcast_to(_STARS, hide.shape).astype(float), hide)

    def _flip(self, obs, mask, layout) -> np.ndarray:
        return sample_masked(self.rng, mask)

    def _play(self, obs, mask, layout) -> np.ndarray:
        return sample_masked(self.rng, mask)


class GapHunterAgent(GapAgent):
    """Gap plays first (leaving the smallest gap, then the highest-star card), then the highest-star
    matching card (then the smallest gap left), pass last; hides its highest-star cards; a turned-up
    card goes where it gives the most own gap plays, then the widest gap."""

    name = "gap_hunter"

    def _flip(self, obs, mask, layout) -> np.ndarray:
        t0, t1 = self.tops(obs, layout)
        flip = _cards_of(obs[:, layout.slice("flip_card")])
        hand = obs[:, layout.slice("hand")] > 0.5
        cards = np.arange(NUM_CARDS)
        score = np.zeros((obs.shape[0], 2))
        for pile, (a, b) in enumerate(((flip, t1), (t0, flip))):
            gaps = _is_gap(cards[None, :], a[:, None], b[:, None]) & hand
            score[:, pile] = gaps.sum(axis=1) * 100 + _width(a, b)
        allowed = mask[:, ACTION_FLIP_BASE:ACTION_FLIP_BASE + 2]
        return ACTION_FLIP_BASE + self._pick(score, allowed)

    def _play(self, obs, mask, layout) -> np.ndarray:
        t0, t1 = (x[:, None] for x in self.tops(obs, layout))
        card, pile = _PLAY_CARD[None, :], _PLAY_PILE[None, :]
        gap = _is_gap(card, t0, t1)
        new0 = np.where(pile == 0, card, t0)
        new1 = np.where(pile == 1, card, t1)
        left = _width(new0, new1)
        stars = _STARS[card]
        score = np.where(gap, 10_000 - 100 * left + stars, 1_000 + 100 * stars - left).astype(float)
        score = np.concatenate([score, np.zeros((obs.shape[0], 1))], axis=1)  # PASS scores 0
        allowed = mask[:, :ACTION_PASS + 1]
        return self._pick(score, allowed)


class PlannerAgent(GapAgent):
    """The strongest heuristic: at each play decision it searches every sequence of plays its turn
    allows (depth-first, memoised, at most ``max_nodes`` positions per decision) and plays the first
    move of the best sequence. A sequence is any number of gap plays (each gives another turn) ended
    by a match play or a pass (or by laying the last card). Its value, from the planner's view:

    * laying the last card: ``+win_bonus`` plus the stars of its hidden cards (it ends the round: the
      others lose their hands' stars);
    * otherwise ``-(stars left in hand) - card_weight * (cards left)``, a pass adding one card worth
      the mean stars of the cards whose place it does not know (card counting: its hand, its hidden
      cards and the cards in the discard piles are excluded) plus ``card_weight``;
    * minus the danger of the position handed on: ``gap_weight`` times the gap width left to the next
      player (a gap lets them shed cards and go on; no gap counts as ``no_gap_width``, since they then
      turn up a card and usually make one), times ``1 + threat_scale / (the next player's hand size)``;
      with ``count_cards=True`` the danger counts the unplaced cards that fit the gap instead
      (``count_weight`` each, ``no_gap_cards`` for no gap: it played no better);
    * a gap play that leaves no gap, with ``flip_on_extra_turns`` on, is valued as the position
      without the turned-up card plus ``flip_bonus`` (the card the planner then turns up is its own).

    Hidden cards: the two highest-star cards (they count as plus points and leave the hand; with
    ``hide_hard`` > 0, cards that can never or hardly be played in a gap, 1 and 11, 2 and 10, count that
    much more). A turned-up card goes on the pile that gives the best plan afterwards. The weights were
    tuned in seat-rotated 4-player matches against ``gap_hunter`` (``docs/gap.md``).

    ``compiled`` (default True): the play and flip decisions run as a Numba kernel
    (``agent_kernels.py``), the same search as the Python methods here (:meth:`_search`,
    :meth:`_stop_value`, :meth:`_context`), so the same action on every row and the same value bit for
    bit; False keeps the Python search, the readable reference. The play and flip decisions draw no
    random numbers, and hiding, the phase dispatch and the random fallback are the same on both paths,
    so a seeded game is the same with either. A subclass that overrides a method of the search
    (``_search``, ``_stop_value``, ``_context``, ``_play``, ``_flip``) is decided by its Python methods,
    whatever ``compiled`` says.

    ``in_engine`` (default False): with True (and ``compiled``), :meth:`play_turns` and
    ``play_together`` (:func:`play_lineup`) play the agent's seats inside a compiled gap core, without
    a round trip to Python per decision (search roll-outs, expert-iteration labelling: spec
    ``planner:in_engine=true``). There every play and flip decision is the one :meth:`act` makes for
    that observation; a hidden card is chosen by :meth:`_hide`'s rule (the allowed card with the most
    ``stars + hide_hard * hard``), its ties broken uniformly by keys from one stream per game drawn from
    the agent's generator, not by ``act``'s draws. So a seeded game played in the engine is another
    (equally valid) game than the one ``act`` plays, and the default False keeps every seeded result
    (solo-env training runs with planner opponents, tournaments, labelling) as it was: ``play_turns``
    then returns False, ``play_together`` is None and callers use ``act``. Without ``compiled``, and
    for a subclass that overrides a decision method (those of the search, ``_hide``, ``_pick``,
    ``act``), ``in_engine`` is False whatever was asked.
    """

    name = "planner"

    _DECISION_METHODS = ("_search", "_stop_value", "_context", "_play", "_flip")
    """Methods the kernel replaces: a subclass overriding one of them keeps the Python path."""

    _IN_ENGINE_METHODS = _DECISION_METHODS + ("_hide", "_pick", "act", "_kernel_params")
    """Methods the play kernels replace: a subclass overriding one of them is asked through ``act``."""

    # play_together (a property set below the module's play_lineup): callers that seat several agents
    # (search roll-outs, labelling, the solo env) play every seat held by agents that share this
    # function in one call of it. Only in-engine planners offer it (None otherwise).

    def __init__(self, seed: int | None = None, num_players: int | None = None, rules: dict | None = None,
                 max_nodes: int = 4000, card_weight: float = 0.5, gap_weight: float = 0.2,
                 no_gap_width: float = 2.5, flip_bonus: float = 0.5, win_bonus: float = 40.0,
                 hide_hard: float = 0.0, threat_scale: float = 2.0, count_cards: bool = False,
                 count_weight: float = 0.06, no_gap_cards: float = 8.0, compiled: bool = True,
                 in_engine: bool = False):
        super().__init__(seed=seed, num_players=num_players, rules=rules)
        if not isinstance(compiled, (bool, np.bool_)):
            raise ValueError(f"compiled={compiled!r}; allowed: True (the Numba kernel) or False (the Python reference)")
        if not isinstance(in_engine, (bool, np.bool_)):
            raise ValueError(f"in_engine={in_engine!r}; allowed: True (play_turns / play_together play the seats "
                             "inside the compiled core) or False (the default: callers use act)")
        overridden = [m for m in PlannerAgent._DECISION_METHODS
                      if getattr(type(self), m) is not getattr(PlannerAgent, m)]
        self.compiled = bool(compiled) and not overridden
        """Whether the play and flip decisions run the kernel (False for ``compiled=False`` and for
        subclasses that override a method of the search)."""
        replaced = [m for m in PlannerAgent._IN_ENGINE_METHODS
                    if getattr(type(self), m) is not getattr(PlannerAgent, m)]
        self.in_engine = bool(in_engine) and self.compiled and not replaced
        """Whether :meth:`play_turns` and ``play_together`` play inside the core (False for
        ``in_engine=False``, without ``compiled`` and for subclasses that override a decision method)."""
        self._kernel_offsets: dict[int, np.ndarray] = {}
        self.hide_hard, self.threat_scale = float(hide_hard), float(threat_scale)
        self.count_cards, self.count_weight, self.no_gap_cards = bool(count_cards), float(count_weight), float(no_gap_cards)
        self.max_nodes = int(max_nodes)
        self.card_weight, self.gap_weight = float(card_weight), float(gap_weight)
        self.no_gap_width, self.flip_bonus, self.win_bonus = float(no_gap_width), float(flip_bonus), float(win_bonus)
        self.flip_on_extra_turns = bool(self.rules.get("flip_on_extra_turns", True))

    # one position: which hand, which tops ------------------------------------------------------------

    def _context(self, row: np.ndarray, layout: ObservationLayout) -> dict:
        v = {name: row[layout.slice(name)] for name, _ in layout.sections}
        hand = np.flatnonzero(v["hand"] > 0.5)
        hidden = np.flatnonzero(v["hidden"] > 0.5)
        known = (v["hand"] > 0.5) | (v["hidden"] > 0.5) | (v["discards"] > 0.5)
        unknown = np.flatnonzero(~known)  # in an opponent's hand or hidden, or in the draw pile
        draw, under = float(v["table"][0]), float(v["table"][1])
        P = layout.num_players
        next_hand = float(v["hand_sizes"][1 % P]) if P > 1 else 10.0
        return {
            "hand": [int(c) for c in hand],
            "hidden_stars": int(_STARS[hidden].sum()),
            "draw_stars": float(_STARS[unknown].mean()) if unknown.size else 2.0,
            "can_draw": draw + under > 0,
            "threat": 1.0 + self.threat_scale / max(next_hand, 1.0),
            "unknown": ~known,
        }

    def _stop_value(self, ctx: dict, hand: tuple, t0: int, t1: int) -> float:
        """The value of ending the turn with ``hand`` and tops ``t0``, ``t1`` (the next player's start)."""
        w = max(abs(int(_NUMBER[t0]) - int(_NUMBER[t1])) - 1, 0)
        if self.count_cards:  # the cards the planner cannot place that would fit the gap it leaves
            fits = int((GAP_TABLE[t0, t1] & ctx["unknown"]).sum()) if w > 0 else self.no_gap_cards
            danger = self.count_weight * ctx["threat"] * fits
        else:
            danger = self.gap_weight * ctx["threat"] * (w if w > 0 else self.no_gap_width)
        return -float(sum(int(_STARS[c]) for c in hand)) - self.card_weight * len(hand) - danger

    def _search(self, ctx: dict, hand: tuple, t0: int, t1: int, memo: dict, budget: list) -> tuple[float, int]:
        """(best value, first action) of the turn from a play decision with ``hand`` and tops."""
        key = (hand, t0, t1)
        if key in memo:
            return memo[key]
        budget[0] -= 1
        pass_value = self._stop_value(ctx, hand, t0, t1) - (
            ctx["draw_stars"] + self.card_weight if ctx["can_draw"] else 0.0)
        best, best_action = pass_value, ACTION_PASS
        na, nb = int(_NUMBER[t0]), int(_NUMBER[t1])
        lo, hi = min(na, nb), max(na, nb)
        ca, cb = int(_COLOUR[t0]), int(_COLOUR[t1])
        for i, c in enumerate(hand):
            rest = hand[:i] + hand[i + 1:]
            col, num = int(_COLOUR[c]), int(_NUMBER[c])
            gap = col != ca and col != cb and lo < num < hi
            for pile in (0, 1):
                top = t0 if pile == 0 else t1
                if not gap and col != int(_COLOUR[top]) and num != int(_NUMBER[top]):
                    continue
                n0, n1 = (c, t1) if pile == 0 else (t0, c)
                if not rest:
                    value = self.win_bonus + ctx["hidden_stars"]
                elif not gap:
                    value = self._stop_value(ctx, rest, n0, n1)
                elif budget[0] <= 0:
                    value = self._stop_value(ctx, rest, n0, n1) + self.flip_bonus
                else:
                    value = self._search(ctx, rest, n0, n1, memo, budget)[0]
                    w = max(abs(int(_NUMBER[n0]) - int(_NUMBER[n1])) - 1, 0)
                    if w == 0 and self.flip_on_extra_turns and ctx["can_draw"]:
                        value += self.flip_bonus
                if value > best + 1e-9:
                    best, best_action = value, 2 * c + pile
        memo[key] = (best, best_action)
        return best, best_action

    # the compiled decision --------------------------------------------------------------------------

    def _kernel_params(self) -> np.ndarray:
        """The parameters for the kernel, built at every call from the attributes, as the Python
        methods read them."""
        from . import agent_kernels as pk

        return pk.planner_params(self.max_nodes, self.card_weight, self.gap_weight, self.no_gap_width,
                                 self.flip_bonus, self.win_bonus, self.threat_scale, self.count_cards,
                                 self.count_weight, self.no_gap_cards, self.flip_on_extra_turns)

    def _plays_in(self, core) -> bool:
        """Whether this agent can play its seats of ``core`` inside it: ``compiled`` and ``in_engine``
        on, a gap core, and a player count that fits ``num_players``."""
        from .core import GapCore

        return (self.compiled and self.in_engine and isinstance(core, GapCore)
                and (self.num_players is None or self.num_players == core.num_players))

    def play_turns(self, core, games: np.ndarray, holds: np.ndarray) -> bool:
        """Plays this agent's seats in a gap core directly, without a round trip to Python per decision:
        in each game ``games[i]``, while the seat to act is one that ``holds[i]`` ([n, P] bool) marks and
        the game is not over, the compiled engine observes the game as that seat, the kernel decides and
        the game is stepped. Afterwards each listed game's rewards are those of its last step (only the
        steps that end a round or the game pay). Each play and flip decision is the one :meth:`act`
        makes for that observation; hiding ties are broken by keys from one stream per game drawn from
        this agent's generator. (:func:`play_lineup` with this agent alone.)

        Returns False, touching nothing, where it does not play directly: ``in_engine`` or ``compiled``
        is off, or the core is not a gap core of this agent's player count (the caller then uses
        ``act``). Raises ValueError for ``games`` / ``holds`` of the wrong shape or out of range."""
        if not self._plays_in(core):
            return False
        return play_lineup(core, games, [self], seats_held(core, games, holds))

    def _decide_compiled(self, obs: np.ndarray, layout: ObservationLayout, flip: bool) -> np.ndarray:
        """The kernel's actions for rows all in the PLAY phase (``flip`` False) or all in FLIP."""
        from . import agent_kernels as pk

        width = obs.shape[1]
        if width not in self._kernel_offsets:
            self._kernel_offsets[width] = pk.layout_offsets(layout)
        offsets = self._kernel_offsets[width]
        # float32 rows as they are, anything else as float64: both hold every value exactly as the
        # reference reads it.
        obs = np.ascontiguousarray(obs, np.float32 if obs.dtype == np.float32 else np.float64)
        B = obs.shape[0]
        out = np.empty(B, np.int64)
        params = self._kernel_params()
        slots = pk.memo_slots(self.max_nodes)
        if B >= _PARALLEL_MIN_ROWS:
            pk.decide_kernel(obs, flip, out, layout.num_players, offsets, params, pk.GAP_BITS, slots,
                             parallel_chunks(B))
        else:
            pk.decide_range(obs, flip, out, 0, B, layout.num_players, offsets, params, pk.GAP_BITS, slots)
        return out

    # the decisions -----------------------------------------------------------------------------------

    def _play(self, obs, mask, layout) -> np.ndarray:
        if self.compiled:
            return self._decide_compiled(obs, layout, flip=False)
        t0, t1 = self.tops(obs, layout)
        out = np.empty(obs.shape[0], np.int64)
        for r in range(obs.shape[0]):
            ctx = self._context(obs[r], layout)
            _, out[r] = self._search(ctx, tuple(ctx["hand"]), int(t0[r]), int(t1[r]), {}, [self.max_nodes])
        return out

    def _hide(self, obs, mask, layout) -> np.ndarray:
        """The card with the most stars plus ``hide_hard`` for numbers that can never (1, 11) or
        hardly (2, 10) be played in a gap."""
        hide = mask[:, ACTION_HIDE_BASE:ACTION_HIDE_BASE + NUM_CARDS]
        hard = np.where((_NUMBER == 1) | (_NUMBER == 11), 1.0, np.where((_NUMBER == 2) | (_NUMBER == 10), 0.5, 0.0))
        score = np.broadcast_to(_STARS + self.hide_hard * hard, hide.shape).astype(float)
        return ACTION_HIDE_BASE + self._pick(score, hide)

    def _flip(self, obs, mask, layout) -> np.ndarray:
        if self.compiled:
            return self._decide_compiled(obs, layout, flip=True)
        t0, t1 = self.tops(obs, layout)
        flip = _cards_of(obs[:, layout.slice("flip_card")])
        out = np.empty(obs.shape[0], np.int64)
        for r in range(obs.shape[0]):
            ctx = self._context(obs[r], layout)
            hand = tuple(ctx["hand"])
            values = [self._search(ctx, hand, int(flip[r]), int(t1[r]), {}, [self.max_nodes])[0],
                      self._search(ctx, hand, int(t0[r]), int(flip[r]), {}, [self.max_nodes])[0]]
            out[r] = ACTION_FLIP_BASE + int(np.argmax(values))
        return out


def play_lineup(core, games, agents, seat_agent) -> bool:
    """Plays the seats of a line-up of planners (:class:`PlannerAgent` s made with ``in_engine=True``,
    any parameters) in a gap core directly: in each game ``games[i]``, while the seat to act is held
    (``seat_agent[i, seat]`` = the index of its agent in ``agents``; -1: not held, e.g. a learner's
    seat) and the game is not over, the compiled engine observes the game as that seat, the kernel
    decides with that agent's parameters and the game is stepped. So a whole round of opponents, or
    roll-outs to the end, cost one call, however many planners share it. Each play and flip decision
    is the one its agent's :meth:`~PlannerAgent.act` makes for that observation; a hidden card follows
    :meth:`~PlannerAgent._hide`'s rule, its ties broken by keys from one stream per game and agent,
    drawn from that agent's generator (agents in the order given). Afterwards each listed game's
    rewards are those of its last step.

    Returns False, touching nothing, where it does not play directly: an agent that is not a planner
    with ``compiled`` and ``in_engine`` on, or a core that is not a gap core of the agents' player
    count (the caller then uses ``act``). Raises ValueError for ``games`` / ``seat_agent`` of the wrong
    shape or out of range, RuntimeError naming the agent and the game if a live game offers a held
    seat nothing legal."""
    from . import agent_kernels as pk
    from ...rng import stream_states

    agents = list(agents)
    if not agents or not all(isinstance(a, PlannerAgent) and a._plays_in(core) for a in agents):
        return False
    games, seat_agent = lineup_arrays(core, games, seat_agent)
    P = core.num_players
    check_lineup(core, games, seat_agent, len(agents))
    if games.size == 0:
        return True
    offsets = pk.layout_offsets(core.obs_layout)
    params = np.stack([pk.play_params(a._kernel_params(), a.hide_hard) for a in agents])
    slots = max(pk.memo_slots(a.max_nodes) for a in agents)
    streams = np.concatenate([stream_states(a.rng, games.size) for a in agents])
    seat_agent = np.ascontiguousarray(seat_agent, np.int64)
    stuck = np.zeros(games.size, np.bool_)
    chunks = parallel_chunks(games.size) if games.size >= _PLAY_PARALLEL_MIN_GAMES else 0
    if chunks:
        core._run(pk.play_kernel, games, seat_agent, streams, stuck, P, offsets, params, pk.GAP_BITS, slots, chunks)
    else:
        core._run(pk.play_range, games, seat_agent, streams, stuck, 0, games.size, P, offsets, params, pk.GAP_BITS,
                  slots)
    raise_if_stuck(core, games, seat_agent, agents, stuck)
    return True


def _play_together(agent: PlannerAgent):
    """``play_together(core, games, agents, seat_agent)`` of a planner made with ``in_engine=True``:
    :func:`play_lineup`, the one function every such planner shares; None for the others. Callers take
    an agent with this function for one that plays inside the engine (``training/advantage.py`` then
    plays its roll-outs at once instead of gathering them into large batches for ``act``), so a
    planner that answers by ``act`` must not offer it: its seeded results stay what they were."""
    return play_lineup if agent.in_engine else None


PlannerAgent.play_together = property(_play_together, doc=_play_together.__doc__)


_PARALLEL_MIN_ROWS = 32
"""Batches of play or flip rows from this size up are split over Numba's threads (smaller ones run in
one serial loop): a planner decision is a search of up to ``max_nodes`` positions, far more work per
row than a rules step."""


_PLAY_PARALLEL_MIN_GAMES = 8
"""``play_turns`` / :func:`play_lineup` split the games over Numba's threads from this many up: a game's
turn is several planner searches, each far more work than waking the threads."""
