"""The "Nothing fits anymore!" risk model: how likely a call made now succeeds, from one seat's view.

A call reveals the caller's face-down cards in slot order and fails on the first one that fits a
discard-pile top (same colour or number) or is a consolation prize; it succeeds (a trophy) when
every card is a non-fitting number card. Seen from a seat (its observation vector, nothing else):

* a face-down card the seat knows (layout state "known") is certain: it either fits now or not;
* the unknown face-down cards come from pools (``belief.py`` says why this is exact): the cards of
  one shuffle of the draw pile that nobody has seen since lie uniformly at random among that shuffle's
  unrevealed places. With ``memory="perfect"`` the current shuffle's pool is ``unknown_cards`` minus the
  earlier pools, spread over the draw pile and the face-down cards dealt from it; an earlier shuffle's
  pool (``earlier_pool`` / ``earlier_pool_cards``, observation version 2) is exactly the face-down
  cards still left from it. With ``memory="none"`` every card not face up is one pool.

For each pool k with ``n_k`` cards of which ``g_k`` are "good" (non-fitting number cards), holding
``u_k`` of the caller's unknown cards, the chance that those are all good is the hypergeometric
``C(g_k, u_k) / C(n_k, u_k)``; pools are independent, so the call succeeds with the product when every
known card is non-fitting, and never otherwise. The order of the reveal does not change the
probability of success (it only decides which card ends a failed call), so no sampling is needed.

Observation version 1 gave one pool (``unknown_cards``) for every unknown card. That is wrong
after a reshuffle: a card dealt before it comes from the old shuffle's leftovers, not from the new draw
pile of seen cards; ``docs/keine_ahnung.md`` ("Beliefs") has the measurements. Version-1
observations (old checkpoints) still decode and get the one-pool formula.

**The forgetful seat's value.** With ``memory="none"`` the one-pool value is exact only for a seat that
assumes nothing about how play went, and real play is not that uniform: the cards left face down in
layouts are often misfits revealed earlier and forgotten, and covered discards fitted what lies on
them. Among real players calls succeed more often than the one-pool value says (about 1-2 points in
most bins at 4 players). So with ``memory="none"`` :func:`batch_call_success_probability` returns, for
the observer (seat 0), the one-pool value mapped through a calibration curve fitted on real forced
calls among players of a stated policy (``among="counter"``, the default and the only curve shipped),
one curve per table size: an isotonic (pool-adjacent-violators) regression of success on the one-pool
value, stored as knots with linear interpolation in ``memory_none_calibration.json`` beside this
module (plain JSON; the file records the policy, seeds, calls and command of its fit). A one-pool
value of exactly 0 or 1 is certain and stays so. ``among=None`` gives the one-pool value itself; an
opponent's value (seat > 0) is always the one-pool value. The curve belongs to its policy: among other
players the forgetful seat's right belief differs (``docs/results.md``, "Calibration", measures it).
The observation cannot always tell the memory mode (early in a game both modes show the same vector),
so the caller names it: ``memory="perfect"`` (the default) or ``memory="none"``. The heuristic agents
pass ``among=None`` (their thresholds were tuned on the one-pool value).

Meaning outside a legal call: the value is computed for the table as it is *now* whatever the phase
or the seat to act (it answers "if this seat called against these tops"). It is the probability of a
legal call only in phase MAIN for the acting seat (``call_is_legal``). For a finished game
(phase OVER) it is NaN. An observation whose pool holds fewer cards than the seat has unknown
face-down cards (impossible in a real game) also gives NaN.

Besides the exact model the module holds the shared decoding of observations used by the heuristic
agents (:func:`decode`) and :func:`monte_carlo_call_success`, which checks the model against the real
engine by re-dealing the hidden cards of a game state (within their pools) and resolving an actual CALL
(``research/risk_engine_check.py`` runs that check over many states).
"""

from __future__ import annotations

import dataclasses
import json
from fractions import Fraction
from pathlib import Path
from typing import Sequence

import numpy as np

from ...stats import binomial_interval_contains, wilson_interval  # re-exported: risk.wilson_interval
from .actions import ACTION_CALL, Phase
from .config import CALL_MAX_CARDS, SLOTS, Rules
from .deck import NO_FACE, NUM_COLOURS, NUM_FACES, NUM_NUMBERS, CardTables
from .observation import CARD_FEATURES, SLOT_FEATURES, ObservationLayout

__all__ = [
    "SLOT_EMPTY", "SLOT_UNKNOWN", "SLOT_KNOWN", "TableView", "decode", "layout_for", "call_is_legal",
    "call_success_probability", "batch_call_success_probability", "exact_call_success_probability",
    "unknown_fit_probability", "expected_trophy_value", "expected_call_value", "monte_carlo_call_success",
    "binomial_interval_contains", "wilson_interval", "collect_call_states", "face_fit_counts", "all_good_probability",
    "pool_all_good_probability", "calibrated_call_probability", "memory_none_calibration", "CALIBRATION_FILE",
]

SLOT_EMPTY, SLOT_UNKNOWN, SLOT_KNOWN = 0, 1, 2
"""Layout slot states as decoded from the observation (its first three slot features)."""

_FUNCTIONS_AT = NUM_COLOURS + NUM_NUMBERS


def _default_tables(tables: CardTables | None) -> CardTables:
    return Rules.make(2).tables() if tables is None else tables


def layout_for(width: int, tables: CardTables | None = None) -> ObservationLayout:
    """The :class:`ObservationLayout` whose vectors are ``width`` long, for the deck of ``tables``.

    The width fixes the player count (it grows by 112 per player), so agents and the risk model need
    no ``num_players`` argument. Raises ValueError for a width no player count 2-5 produces.
    """
    t = _default_tables(tables)
    for version in (2, 1):
        for P in range(2, 6):
            layout = ObservationLayout.for_tables(P, t, version)
            if layout.size == width:
                return layout
    sizes = {P: ObservationLayout.for_tables(P, t).size for P in range(2, 6)}
    raise ValueError(
        f"observation width {width} matches no player count for this deck ({t.num_types} card types); "
        f"allowed widths: {sizes} (players: width)")


@dataclasses.dataclass
class TableView:
    """An observation batch decoded into arrays (B rows, P relative seats; seat 0 is the observer).

    Attributes:
      layout: the observation layout used.
      phase [B] int: :class:`Phase` code.
      acting [B] int: relative seat to act, -1 when the game is over.
      tops [B, 36] int: discard piles whose top shows each face.
      slot_state [B, P, 6] int: SLOT_EMPTY / SLOT_UNKNOWN / SLOT_KNOWN.
      slot_face [B, P, 6] int: face (colour*6 + number-1) of known cards, 36 otherwise.
      slot_function [B, P, 6] int: extra function code (0 none, 1 reveal, 2 remove, 3 refill) of
        known cards, 0 otherwise.
      pending_face [B] int: face of the card awaiting a pile choice, 36 when none.
      pending_function [B] int: its extra function code.
      pending_slot [B] int: its layout slot (own revealed card) or -1 (drawn card / none).
      table_counts [B, 4] int: draw pile, set aside, trophies left, discard piles.
      players [B, P, 3] int: trophies won, prize points, prizes won per relative seat.
      own_trophy_points [B] int.
      pool [B, T] int: copies of each card type whose place the observer does not know.
      current_pool [B, T] int: the part of ``pool`` from the current shuffle (the draw pile's pool):
        ``pool`` minus the earlier pools.
      slot_pool [B, P, 6] int: pool of each unknown face-down card (0: current; k >= 1: earlier pool
        k), -1 for other slots.
      earlier_type [B, P, 6] int: for slots of an earlier pool, the type of one card of that pool
        (each pool's cards listed against its slots), -1 otherwise.
    """

    layout: ObservationLayout
    phase: np.ndarray
    acting: np.ndarray
    tops: np.ndarray
    slot_state: np.ndarray
    slot_face: np.ndarray
    slot_function: np.ndarray
    pending_face: np.ndarray
    pending_function: np.ndarray
    pending_slot: np.ndarray
    table_counts: np.ndarray
    players: np.ndarray
    own_trophy_points: np.ndarray
    pool: np.ndarray
    current_pool: np.ndarray = None
    slot_pool: np.ndarray = None
    earlier_type: np.ndarray = None

    @property
    def num_players(self) -> int:
        """Players at the table (from the observation width)."""
        return self.layout.num_players


def _card_faces(features: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Face and function code of encoded cards (all-zero encodings give face 36, function 0)."""
    colour = features[..., :NUM_COLOURS].argmax(-1)
    number = features[..., NUM_COLOURS:_FUNCTIONS_AT].argmax(-1)
    present = features[..., :NUM_COLOURS].any(-1)
    face = np.where(present, colour * NUM_NUMBERS + number, NO_FACE)
    fn = features[..., _FUNCTIONS_AT:CARD_FEATURES]
    function = np.where(fn.any(-1), fn.argmax(-1) + 1, 0)
    return face.astype(np.intp), function.astype(np.intp)


def decode(observation: np.ndarray, tables: CardTables | None = None) -> TableView:
    """Decodes observations ``[B, O]`` (or one ``[O]``, giving B = 1) through ObservationLayout.

    ``tables`` is the deck's :class:`CardTables` (default deck when None); the player count comes from
    the width. Raises ValueError for an array that is not 1-D or 2-D or has a width no layout has.
    """
    obs = np.asarray(observation)
    if obs.ndim == 1:
        obs = obs[None]
    if obs.ndim != 2:
        raise ValueError(f"observation must be [O] or [B, O]; got shape {np.shape(observation)}")
    layout = layout_for(obs.shape[1], tables)
    sec = layout.split(obs)
    B, P = obs.shape[0], layout.num_players
    phase = sec["phase"].argmax(-1).astype(np.intp)
    acting = np.where(sec["acting_seat"].any(-1), sec["acting_seat"].argmax(-1), -1).astype(np.intp)
    slots = sec["layouts"].reshape(B, P, SLOTS, SLOT_FEATURES)
    state = slots[..., :3].argmax(-1).astype(np.intp)
    face, function = _card_faces(slots[..., 3:])
    known = state == SLOT_KNOWN
    pending_face, pending_function = _card_faces(sec["pending_card"])
    pending_slot = np.where(sec["pending_slot"].any(-1), sec["pending_slot"].argmax(-1), -1).astype(np.intp)
    pool = np.rint(sec["unknown_cards"]).astype(np.int64)
    unknown = state == SLOT_UNKNOWN
    if "earlier_pool" in sec:
        number = np.rint(sec["earlier_pool"]).astype(np.int64).reshape(B, P, SLOTS)
        earlier_type = np.rint(sec["earlier_pool_cards"]).astype(np.int64).reshape(B, P, SLOTS) - 1
        earlier_type = np.where(unknown & (number > 0), earlier_type, -1)
        slot_pool = np.where(unknown, np.where(earlier_type >= 0, number, 0), -1)
        flat = earlier_type.reshape(B, -1)
        counts = np.zeros((B, t_types(layout)), np.int64)
        r, c = np.nonzero(flat >= 0)
        np.add.at(counts, (r, flat[r, c]), 1)
        current = pool - counts
    else:  # observation version 1: one pool
        slot_pool = np.where(unknown, 0, -1)
        earlier_type = np.full((B, P, SLOTS), -1, np.int64)
        current = pool
    return TableView(
        layout=layout,
        phase=phase,
        acting=acting,
        tops=np.rint(sec["pile_tops"]).astype(np.int64),
        slot_state=state,
        slot_face=np.where(known, face, NO_FACE),
        slot_function=np.where(known, function, 0),
        pending_face=pending_face,
        pending_function=pending_function,
        pending_slot=pending_slot,
        table_counts=np.rint(sec["table_counts"]).astype(np.int64),
        players=np.rint(sec["players"]).reshape(B, P, 3).astype(np.int64),
        own_trophy_points=np.rint(sec["own_trophy_points"][:, 0]).astype(np.int64),
        pool=pool,
        current_pool=current,
        slot_pool=slot_pool,
        earlier_type=earlier_type,
    )


def t_types(layout: ObservationLayout) -> int:
    """T, the number of card types of a layout."""
    return layout.num_types


def face_fit_counts(tops: np.ndarray, tables: CardTables) -> np.ndarray:
    """[B, 37] int: how many pile tops a card of each face fits (the last column, prizes, is 0)."""
    # A float matmul (BLAS) is much faster than an integer one; the counts are small and exact.
    return np.rint(np.asarray(tops, np.float64) @ _compat_t(tables)).astype(np.int64)


_COMPAT_T: dict[int, np.ndarray] = {}


def _compat_t(tables: CardTables) -> np.ndarray:
    key = id(tables.compat)
    if key not in _COMPAT_T:
        _COMPAT_T[key] = tables.compat[:, :NUM_FACES].T.astype(np.float64)
    return _COMPAT_T[key]


def _fit_counts(faces: np.ndarray, tops: np.ndarray, tables: CardTables) -> np.ndarray:
    """How many pile tops each face fits: faces [B, ...] against tops [B, 36] (0 for face 36)."""
    B = tops.shape[0]
    counts = face_fit_counts(tops, tables)
    return np.take_along_axis(counts, faces.reshape(B, -1), axis=1).reshape(faces.shape)


def _bad_pool_counts(view: TableView, tables: CardTables) -> tuple[np.ndarray, np.ndarray]:
    """Per row: pool size n and the number g of pool cards that would not end a call (non-fitting
    number cards)."""
    fits = face_fit_counts(view.tops, tables)[:, tables.type_face] > 0
    good = ~fits & ~tables.type_is_prize[None, :]
    return view.pool.sum(-1), (view.pool * good).sum(-1)


def all_good_probability(g: np.ndarray, n: np.ndarray, u: np.ndarray) -> np.ndarray:
    """C(g, u) / C(n, u) as float64, i.e. prod_{i<u} (g-i)/(n-i): the chance that ``u`` cards drawn
    without replacement from ``n``, of which ``g`` are good, are all good. NaN where n < u."""
    g, n, u = (np.asarray(x, np.float64) for x in (g, n, u))
    out = np.ones(np.broadcast(g, n, u).shape, np.float64)
    for i in range(SLOTS):
        use = u > i
        with np.errstate(divide="ignore", invalid="ignore"):
            factor = np.where(use, np.maximum(g - i, 0.0) / (n - i), 1.0)
        out = out * np.where(use & (n - i > 0), factor, np.where(use, np.nan, 1.0))
    return out


MEMORY_MODES = ("perfect", "none")
CALIBRATION_FILE = Path(__file__).with_name("memory_none_calibration.json")
"""The memory-none calibration curves (plain JSON, read with ``json.load``; never code)."""
_CURVES: dict | None = None


def _calibration_data() -> dict:
    global _CURVES
    if _CURVES is None:
        with open(CALIBRATION_FILE, encoding="utf-8") as f:
            _CURVES = json.load(f)
    return _CURVES


def memory_none_calibration(num_players: int, among: str = "counter") -> tuple[np.ndarray, np.ndarray]:
    """The memory-none calibration curve of a table size among players of policy ``among``: knots
    ``(x, y)`` (one-pool value, calibrated value; x increasing, y non-decreasing, both in (0, 1)),
    interpolated linearly and held constant beyond the end knots. Raises ValueError for a policy or
    table size without a curve (the error lists those there are)."""
    data = _calibration_data()
    curves = data["curves"]
    if among not in curves:
        raise ValueError(f"among={among!r}; allowed: None (the one-pool value) or a policy with a fitted curve: "
                         f"{', '.join(map(repr, sorted(curves)))}")
    by_players = curves[among]
    if str(num_players) not in by_players:
        raise ValueError(f"no memory-none calibration curve for {num_players} players among {among!r}; "
                         f"fitted: {sorted(int(k) for k in by_players)} players")
    curve = by_players[str(num_players)]
    return np.asarray(curve["x"], np.float64), np.asarray(curve["y"], np.float64)


def calibrated_call_probability(raw: np.ndarray, num_players: int, memory: str = "none",
                                among: str | None = "counter") -> np.ndarray:
    """The call-success value a seat should hold given the value ``raw`` of the pool model (the
    module docstring): with ``memory="perfect"`` or ``among=None`` the value itself; with
    ``memory="none"`` its image under the table size's calibration curve (exactly 0 and 1 stay, NaN
    stays NaN)."""
    if memory not in MEMORY_MODES:
        raise ValueError(f"memory={memory!r}; allowed: {', '.join(map(repr, MEMORY_MODES))}")
    p = np.asarray(raw, np.float64)
    if memory == "perfect" or among is None:
        return p
    x, y = memory_none_calibration(num_players, among)
    out = np.interp(p, x, y)
    out = np.where(p <= 0.0, 0.0, np.where(p >= 1.0, 1.0, out))
    return np.where(np.isnan(p), np.nan, out)


def batch_call_success_probability(observation: np.ndarray, tables: CardTables | None = None,
                                   seat: int = 0, view: TableView | None = None, memory: str = "perfect",
                                   among: str | None = "counter") -> np.ndarray:
    """[B] float64: the chance that a call by relative ``seat`` (0 = the observer) succeeds now.

    ``observation`` is ``[B, O]`` (one ``[O]`` gives ``[1]``); pass an already decoded ``view`` to
    skip decoding. Opponents (seat > 0) are judged from the observer's knowledge: their known cards
    are public, their unknown ones come from the same pools. See the module docstring for the model
    and for what the value means outside phase MAIN (NaN when the game is over).

    ``memory``: the rules' memory mode, ``"perfect"`` (default; the value is exact) or ``"none"``
    (the observation cannot always tell). With ``"none"`` the observer's value is the one-pool value
    mapped through the calibration curve fitted among players of policy ``among`` (default
    ``"counter"``; :func:`memory_none_calibration`); ``among=None`` returns the one-pool value, as
    the heuristic agents use it. For seat > 0 the value is always the one-pool value. Raises
    ValueError for ``memory="none"`` with an observation that shows a known face-down card (only
    perfect memory shows one).
    """
    t = _default_tables(tables)
    v = decode(observation, t) if view is None else view
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < v.num_players:
        raise ValueError(f"seat={seat!r}; allowed: a relative seat 0..{v.num_players - 1}")
    if memory not in MEMORY_MODES:
        raise ValueError(f"memory={memory!r}; allowed: {', '.join(map(repr, MEMORY_MODES))}")
    state = v.slot_state[:, seat]
    known_fit = ((_fit_counts(v.slot_face[:, seat], v.tops, t) > 0) & (state == SLOT_KNOWN)).any(-1)
    p = np.where(known_fit, 0.0, pool_all_good_probability(v, t, seat))
    p = np.where(v.phase == Phase.OVER, np.nan, p)
    if memory == "none" and among is not None and seat == 0:
        if (v.slot_state == SLOT_KNOWN).any():
            raise ValueError("memory='none', but the observation shows a known face-down card (only "
                             "memory='perfect' shows one); pass the rules' memory mode")
        p = calibrated_call_probability(p, v.num_players, "none", among)
    return p


def _good_types(view: TableView, tables: CardTables) -> np.ndarray:
    """[B, T] bool: the card types that would not end a call now (non-fitting number cards)."""
    fits = face_fit_counts(view.tops, tables)[:, tables.type_face] > 0
    return ~fits & ~tables.type_is_prize[None, :]


def pool_all_good_probability(view: TableView, tables: CardTables, seat: int = 0,
                              slots: np.ndarray | None = None) -> np.ndarray:
    """[B] float64: the chance that the unknown face-down cards of relative ``seat`` (only those in
    ``slots`` [B, 6] bool, when given) are all non-fitting number cards, pool by pool (see the module
    docstring). NaN where a pool holds fewer cards than the seat's unknown cards drawn from it."""
    good = _good_types(view, tables)
    B = good.shape[0]
    mine = view.slot_pool[:, seat]  # [B, 6]
    if slots is not None:
        mine = np.where(slots, mine, -1)
    n0 = view.current_pool.sum(-1)
    g0 = (view.current_pool * good).sum(-1)
    p = all_good_probability(g0, n0, (mine == 0).sum(-1))
    flat_pool = view.slot_pool.reshape(B, -1)
    flat_type = view.earlier_type.reshape(B, -1)
    flat_good = np.take_along_axis(good, np.maximum(flat_type, 0), axis=1) & (flat_type >= 0)
    for k in range(1, int(mine.max(initial=0)) + 1):
        u = (mine == k).sum(-1)
        if not u.any():
            continue
        in_pool = flat_pool == k
        p = p * all_good_probability((in_pool & flat_good).sum(-1), in_pool.sum(-1), u)
    return p


def call_success_probability(observation: np.ndarray, tables: CardTables | None = None, seat: int = 0,
                             memory: str = "perfect", among: str | None = "counter"):
    """The chance that a call made now succeeds, from the observer's knowledge.

    One observation ``[O]`` gives a Python float; a batch ``[B, O]`` gives ``[B]`` float64 (the same
    as :func:`batch_call_success_probability`, with the same ``memory`` and ``among``). See the
    module docstring for the model.
    """
    p = batch_call_success_probability(observation, tables, seat, memory=memory, among=among)
    return float(p[0]) if np.ndim(observation) == 1 else p


def exact_call_success_probability(observation: np.ndarray, tables: CardTables | None = None,
                                   seat: int = 0) -> Fraction | None:
    """The pool model's probability for one observation ``[O]`` as an exact :class:`fractions.Fraction`
    (None when the game is over or the observation is inconsistent); with ``memory="none"`` the
    one-pool value, before any calibration curve."""
    t = _default_tables(tables)
    obs = np.asarray(observation)
    if obs.ndim != 1:
        raise ValueError(f"exact_call_success_probability takes one observation [O]; got shape {obs.shape}")
    v = decode(obs, t)
    if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < v.num_players:
        raise ValueError(f"seat={seat!r}; allowed: a relative seat 0..{v.num_players - 1}")
    if v.phase[0] == Phase.OVER:
        return None
    state = v.slot_state[0, seat]
    if ((_fit_counts(v.slot_face[:, seat], v.tops, t)[0] > 0) & (state == SLOT_KNOWN)).any():
        return Fraction(0)
    good = _good_types(v, t)[0]
    mine = v.slot_pool[0, seat]
    pools = [(int(v.current_pool[0].sum()), int((v.current_pool[0] * good).sum()), int((mine == 0).sum()))]
    flat_pool, flat_type = v.slot_pool[0].reshape(-1), v.earlier_type[0].reshape(-1)
    for k in range(1, int(mine.max(initial=0)) + 1):
        in_pool = flat_pool == k
        pools.append((int(in_pool.sum()), int(good[flat_type[in_pool]].sum()), int((mine == k).sum())))
    p = Fraction(1)
    for n, g, u in pools:
        if n < u:
            return None
        for i in range(u):
            p *= Fraction(max(g - i, 0), n - i)
    return p


def call_is_legal(observation: np.ndarray, tables: CardTables | None = None) -> np.ndarray:
    """[B] bool: the observer is to act in phase MAIN with at most three layout cards (the
    engine's condition for CALL)."""
    v = decode(observation, tables)
    cards = (v.slot_state[:, 0] != SLOT_EMPTY).sum(-1)
    return (v.phase == Phase.MAIN) & (v.acting == 0) & (cards <= CALL_MAX_CARDS)


def unknown_fit_probability(observation: np.ndarray, tables: CardTables | None = None,
                            view: TableView | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the chance that the observer's next unknown face-down card (the first in slot order)
    fits a pile now, and that it is a prize ([B] float64 each), from that card's pool; with no unknown
    card of its own, a card of the current pool (the draw pile's). NaN for an empty pool."""
    t = _default_tables(tables)
    v = decode(observation, t) if view is None else view
    fits = face_fit_counts(v.tops, t)[:, t.type_face] > 0
    pool = v.current_pool.copy()
    mine = v.slot_pool[:, 0]
    first = np.where((mine >= 0).any(-1), mine[np.arange(mine.shape[0]), (mine >= 0).argmax(-1)], 0)
    for b in np.flatnonzero(first > 0):
        in_pool = v.slot_pool[b].reshape(-1) == first[b]
        pool[b] = np.bincount(v.earlier_type[b].reshape(-1)[in_pool], minlength=pool.shape[1])
    n = pool.sum(-1).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (pool * fits).sum(-1) / n, (pool * t.type_is_prize[None]).sum(-1) / n


def expected_trophy_value(observation: np.ndarray, tables: CardTables | None = None) -> np.ndarray:
    """[B] float64: expected value of the next trophy from the observer's view.

    Opponents' trophy values are secret, so every trophy the observer has not won is equally likely
    to be the top of the pile: (all trophy points - own points) / (trophies - own trophies). NaN when
    none is left.
    """
    t = _default_tables(tables)
    v = decode(observation, t)
    total, count = float(t.trophies.sum()), t.num_trophies
    own_count = v.players[:, 0, 0]
    left = v.table_counts[:, 2]
    with np.errstate(divide="ignore", invalid="ignore"):
        value = (total - v.own_trophy_points) / (count - own_count)
    return np.where(left > 0, value, np.nan)


def expected_call_value(observation: np.ndarray, tables: CardTables | None = None) -> np.ndarray:
    """[B] float64: expected trophy points a call made now brings (success chance x expected next
    trophy value). A failed call's cost (a layout refilled to six) is not in this number."""
    return batch_call_success_probability(observation, tables) * expected_trophy_value(observation, tables)


# --------------------------------------------------------------------------------------------------
# Monte Carlo check against the real engine
# --------------------------------------------------------------------------------------------------

def _copy_game_into(src, b: int, dst) -> None:
    """Puts game ``b`` of core ``src`` into every game of core ``dst`` (same rules); ``dst`` keeps its
    own random streams."""
    from .core import STATE_ARRAYS  # core imports this module's package

    for name in STATE_ARRAYS:
        getattr(dst, name)[...] = getattr(src, name)[b]


def monte_carlo_call_success(core, game: int, playouts: int, rng: np.random.Generator,
                             scratch=None) -> tuple[int, int]:
    """Resolves a real CALL in ``playouts`` copies of ``core``'s game ``game`` after re-dealing, in
    each copy, the cards the acting seat cannot place among their positions; returns
    ``(successes, playouts)``.

    The re-dealt cards are those the observation counts as unknown: the draw pile and the face-down
    cards nobody has seen since the last shuffle (``memory="perfect"``), or every card that is not face
    up (``memory="none"``: the draw pile, all face-down cards, and discard cards below the tops). The
    CALL must be legal in that game. ``scratch`` may be a core of ``playouts`` games of the same rules
    to reuse (it is overwritten). A success is the caller's trophy count going up.
    """
    from .core import LOC_DRAW, LOC_LAYOUT, LOC_PILE, KeineAhnungCore  # core imports this module's package

    if not core.legal_mask[game, ACTION_CALL]:
        raise ValueError(f"CALL is not legal in game {game}; legal there: {np.flatnonzero(core.legal_mask[game]).tolist()}")
    M = int(playouts)
    sim = scratch if scratch is not None else KeineAhnungCore(M, core.rules, seed=int(rng.integers(2**31)))
    if sim.num_envs != M or sim.rules != core.rules:
        raise ValueError("scratch core must have `playouts` games and the same rules")
    _copy_game_into(core, game, sim)
    P = core.num_players
    perfect = core.rules.memory == "perfect"
    loc, known = core.card_loc[game], core.card_known[game]

    # The hidden positions, as (kind, index) pairs in a fixed order: draw-pile positions, layout
    # slots, then (memory "none" only) cards below a pile top.
    draw_idx = np.arange(int(core.draw_pos[game]), int(core.draw_len[game]))
    layout = core.layout[game]
    seat_slot = [(p, s) for p in range(P) for s in range(SLOTS)
                 if layout[p, s] >= 0 and (not perfect or not known[layout[p, s]])]
    below = []
    if not perfect:
        tops = set(core.pile_top[game, : core.pile_count[game]].tolist())
        below = [c for c in np.flatnonzero(loc == LOC_PILE).tolist() if c not in tops]
    cards = np.concatenate([core.draw_cards[game, draw_idx].astype(np.intp),
                            np.array([layout[p, s] for p, s in seat_slot], np.intp),
                            np.array(below, np.intp)])
    H = cards.size
    if H == 0:
        sim.step(np.full(M, ACTION_CALL))
        won = sim.trophy_count[:, core.current[game]] > core.trophy_count[game, core.current[game]]
        return int(won.sum()), M
    # With perfect memory the cards of one shuffle nobody has seen since are re-dealt among that
    # shuffle's places only (``belief.py``): the draw pile and the current shuffle's face-down cards
    # form one pool, each earlier shuffle's leftover face-down cards another.
    if perfect:
        group = (int(core.reshuffles[game]) - core.card_epoch[game, cards]).astype(np.float64)
    else:
        group = np.zeros(H)
    perm = np.argsort(group[None, :] * 2 + rng.random((M, H)), axis=1)  # within groups, groups in place
    by_group = np.argsort(group, kind="stable")
    dealt = np.empty((M, H), np.intp)
    dealt[:, by_group] = cards[perm]  # [M, H]: the card put in each hidden position
    rows = np.arange(M)[:, None]
    nd, nl = draw_idx.size, len(seat_slot)
    if nd:
        sim.draw_cards[:, draw_idx] = dealt[:, :nd]
        sim.card_loc[rows, dealt[:, :nd]] = LOC_DRAW
        sim.card_where[rows, dealt[:, :nd]] = 0
    if nl:
        seats = np.array([p for p, _ in seat_slot], np.intp)
        slots = np.array([s for _, s in seat_slot], np.intp)
        sim.layout[:, seats, slots] = dealt[:, nd:nd + nl]
        sim.card_loc[rows, dealt[:, nd:nd + nl]] = LOC_LAYOUT
        sim.card_where[rows, dealt[:, nd:nd + nl]] = seats[None, :]
    if below:
        where = core.card_where[game, np.array(below, np.intp)]
        sim.card_loc[rows, dealt[:, nd + nl:]] = LOC_PILE
        sim.card_where[rows, dealt[:, nd + nl:]] = where[None, :]
    sim.card_known[rows, dealt] = False
    caller = int(core.current[game])
    before = int(core.trophy_count[game, caller])
    sim.step(np.full(M, ACTION_CALL))
    won = sim.trophy_count[:, caller] > before
    return int(won.sum()), M


def collect_call_states(num_players: Sequence[int] = (2, 3, 4, 5), memories: Sequence[str] = ("perfect", "none"),
                        per_variant: int = 25, seed: int = 0, policy=None, num_envs: int = 64):
    """Plays games and yields ``(core, game_index)`` at states where the acting seat may call.

    Games are played by ``policy`` (an agent with ``act(observation, mask)``; default: a uniformly
    random one) across every player count and memory mode given; each variant yields ``per_variant``
    states, taken at random moments (each eligible state is kept with probability 1/4) so they vary
    in layouts, tops and pool sizes. The yielded core is live: use the state before advancing.
    """
    from .core import KeineAhnungCore

    rng = np.random.default_rng(seed)
    for P in num_players:
        for memory in memories:
            rules = Rules.make(P, memory=memory)
            core = KeineAhnungCore(num_envs, rules, seed=int(rng.integers(2**31)))
            found = 0
            while found < per_variant:
                done = core.done
                if done.any():
                    core.reset_games(np.flatnonzero(done))
                mask = core.legal_mask
                if policy is None:
                    cum = np.cumsum(mask, axis=1)
                    actions = np.minimum((cum <= rng.random(num_envs)[:, None] * cum[:, -1:]).sum(axis=1),
                                         mask.shape[1] - 1)
                else:
                    actions = policy.act(core.observe(core.current), mask)
                eligible = np.flatnonzero(mask[:, ACTION_CALL] & (rng.random(num_envs) < 0.25))
                for b in eligible[: per_variant - found]:
                    yield core, int(b)
                    found += 1
                core.step(actions)
