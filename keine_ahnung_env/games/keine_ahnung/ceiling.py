"""Privileged players for the skill-ceiling study (``python -m training.skill_ceiling``): ``counter``'s
decision rules fed more knowledge than a seat has, offered as ``GameSpec.ceiling``.

How much of Keine Ahnung is skill? A player that sees more than the rules allow shows how far better
decisions could carry ``counter``'s way of playing. Three levels, each seated against ``players - 1``
plain ``counter``s:

* ``control``: ``counter`` itself (its own observation): the fair share, measured the same way;
* ``own`` (a): ``counter`` that sees its own face-down cards: every face-down card of its layout is
  shown to it as "known" with its identity (and taken out of its pool of unknown cards), so its call
  plans are sure or impossible, it plays its fitting cards in the order its look-ahead prefers and it
  never reveals a card that does not fit while one that fits is left;
* ``all`` (b): ``counter`` that sees every hidden card: its own and every opponent's face-down cards
  (so its pile choices weigh the next player's actual cards), and its pool of unknown cards is the
  draw pile itself. ``counter``'s rules never ask about the order of the draw pile or the trophy
  values once every face-down card is known, so this level measures what complete knowledge of the
  cards brings to those rules; the draw order is in the state they read but changes no decision.

The privileged observation (:func:`privileged_observation`) is made here from the engine's state for
the privileged seat only; nothing of it reaches the public API (``observe``), which never encodes a
hidden card. A face-down consolation prize shown as known has no colour and number (face 36), which a
real observation never holds (a revealed prize is taken at once), so :class:`PrivilegedCounterAgent`
reads it as "a known prize": it never calls while holding one (the call would stop on it) and reveals
it, for its points, where ``counter`` would reveal a card known not to fit.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from .actions import ACTION_CALL
from .agents import CounterAgent
from .config import SLOTS
from .deck import NO_FACE
from .observation import SLOT_FEATURES, card_feature_table
from .risk import SLOT_KNOWN, TableView

LEVELS = {
    "control": "counter (sees what every seat sees)",
    "own": "(a) counter that sees its own face-down cards",
    "all": "(b) counter that sees every hidden card (and the draw order)",
}
"""The privileged levels of the study, by name, with what each sees."""

BASELINE = "counter"
"""The agent spec of the opponents (and of the control)."""

_FEATURES: dict[int, np.ndarray] = {}


def _card_features(tables) -> np.ndarray:
    key = id(tables.compat)
    if key not in _FEATURES:
        _FEATURES[key] = card_feature_table(tables)
    return _FEATURES[key]


def privileged_observation(core, games: np.ndarray, seats: np.ndarray, reveal: str) -> np.ndarray:
    """``[n, O]`` float32: what ``seats[i]`` sees of game ``games[i]`` of ``core`` (a
    ``KeineAhnungCore``), with the face-down cards of ``reveal`` shown as known (identity encoded, slot
    state "known") and taken out of the ``unknown_cards`` pool: ``"own"`` the seat's own layout,
    ``"all"`` every layout. A research view: the public ``observe`` never shows these cards."""
    if reveal not in ("own", "all"):
        raise ValueError(f"reveal={reveal!r}; allowed: 'own', 'all'")
    games = np.asarray(games, np.intp).reshape(-1)
    seats = np.asarray(seats, np.intp).reshape(-1)
    obs = core.observe(seats, games=games).copy()
    n, P = games.size, core.num_players
    if n == 0:
        return obs
    layout = core.obs_layout
    order = (seats[:, None] + np.arange(P)) % P  # relative seat -> absolute seat
    cards = core.layout[games[:, None], order].astype(np.intp)  # [n, P, 6]
    slots = obs[:, layout.slice("layouts")].reshape(n, P, SLOTS, SLOT_FEATURES)
    hidden = (cards >= 0) & (slots[..., 1] == 1.0)  # face down and unknown to the seat
    if reveal == "own":
        hidden[:, 1:] = False
    rows, rel, slot = np.nonzero(hidden)
    card = cards[rows, rel, slot]
    slots[rows, rel, slot, :3] = (0.0, 0.0, 1.0)
    slots[rows, rel, slot, 3:] = _card_features(core.tables)[card]
    obs[:, layout.slice("layouts")] = slots.reshape(n, -1)
    pool = obs[:, layout.slice("unknown_cards")]
    np.subtract.at(pool, (rows, core.tables.card_type[card]), 1.0)
    obs[:, layout.slice("unknown_cards")] = pool
    return obs


class PrivilegedCounterAgent(CounterAgent):
    """``counter`` reading a privileged observation, where a face-down card may be a known prize
    (known slot without a face). Its rules are ``counter``'s; a known prize only adds: never call
    while holding one, and reveal it instead of a card known not to fit. On a real observation (no
    known prize) it plays exactly like ``counter``."""

    name = "privileged_counter"

    def _prizes(self, view: TableView) -> np.ndarray:
        """[B, 6] own face-down slots holding a known prize."""
        return (view.slot_state[:, 0] == SLOT_KNOWN) & (view.slot_face[:, 0] == NO_FACE)

    def _main(self, view: TableView, mask: np.ndarray) -> np.ndarray:
        prize = self._prizes(view)
        holding = prize.any(1)
        if not holding.any():
            return super()._main(view, mask)
        mask = mask.copy()
        # A call reveals the cards in slot order and stops on the prize: it can never win a trophy.
        mask[holding, ACTION_CALL] = mask[holding, ACTION_CALL] & ~mask[holding, :SLOTS].any(1)
        out = super()._main(view, mask)
        # Where counter would end its turn on a card known not to fit, the prize ends it with points
        # (and clears the layout when it is the last card).
        _, known, fits = self._own(view)
        chosen = np.minimum(out, SLOTS - 1)
        rows = np.arange(out.size)
        misfit = (out < SLOTS) & known[rows, chosen] & (fits[rows, chosen] == 0) & ~prize[rows, chosen]
        take = holding & misfit & (prize & mask[:, :SLOTS]).any(1)
        if take.any():
            out[take] = self._pick(np.zeros(prize[take].shape), (prize & mask[:, :SLOTS])[take])
        return out


class CeilingPlayer:
    """One privileged level as a player: ``player(core, games, seats) -> int64 actions`` for the seats
    to act in those games of a ``KeineAhnungCore``."""

    def __init__(self, level: str, seed: int | None = None, rules: dict | None = None):
        if level not in LEVELS:
            raise ValueError(f"level={level!r}; allowed: {', '.join(LEVELS)}")
        self.level = level
        self.name = level
        agent_type = CounterAgent if level == "control" else PrivilegedCounterAgent
        self.agent = agent_type(seed=seed, rules=rules)

    def __call__(self, core, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        games = np.asarray(games, np.intp)
        if self.level == "control":
            obs = core.observe(np.asarray(seats, np.intp), games=games)
        else:
            obs = privileged_observation(core, games, seats, self.level)
        return self.agent.act(obs, core.legal_mask[games])


class KeineAhnungCeiling:
    """Keine Ahnung's :class:`~keine_ahnung_env.game_spec.CeilingHooks`."""

    levels = LEVELS
    baseline = BASELINE

    def player(self, level: str, seed: int | None = None, rules: dict | None = None) -> Callable[[Any, np.ndarray,
                                                                                                  np.ndarray], np.ndarray]:
        return CeilingPlayer(level, seed=seed, rules=rules)


CEILING = KeineAhnungCeiling()

__all__ = ["LEVELS", "BASELINE", "privileged_observation", "PrivilegedCounterAgent", "CeilingPlayer",
           "KeineAhnungCeiling", "CEILING"]
