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

The privileged observation (:func:`privileged_observation`) is the engine's own observation of copies
of the game in which those cards were revealed to the table, made for the privileged seat only;
nothing of it reaches the public API (``observe``), which never encodes a hidden card. The study needs
``memory="perfect"`` (the default), where a revealed card stays known. A face-down consolation prize shown as known has no colour and number (face 36), which a
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
from .odds import SLOT_KNOWN, TableView

LEVELS = {
    "control": "counter (sees what every seat sees)",
    "own": "(a) counter that sees its own face-down cards",
    "all": "(b) counter that sees every hidden card (and the draw order)",
}
"""The privileged levels of the study, by name, with what each sees."""

BASELINE = "counter"
"""The agent spec of the opponents (and of the control)."""

def privileged_observation(core, games: np.ndarray, seats: np.ndarray, reveal: str) -> np.ndarray:
    """``[n, O]`` float32: what ``seats[i]`` sees of game ``games[i]`` of ``core`` (a
    ``KeineAhnungCore`` with ``memory="perfect"``) once the face-down cards of ``reveal`` were shown to
    it: ``"own"`` its own layout, ``"all"`` every layout. The engine's own encoding of those cards as
    "known" (identity shown, out of the pool of unknown cards), made on copies of the games; ``core``
    is not changed. A research view: the public ``observe`` never shows these cards."""
    if reveal not in ("own", "all"):
        raise ValueError(f"reveal={reveal!r}; allowed: 'own', 'all'")
    if core.rules.memory != "perfect":
        raise ValueError(f"privileged observations need memory='perfect' (got memory={core.rules.memory!r}): "
                         "without memory a seat is shown no face-down card as known")
    games = np.asarray(games, np.intp).reshape(-1)
    seats = np.asarray(seats, np.intp).reshape(-1)
    if games.size == 0:
        return core.observe(seats, games=games)
    copies = type(core).gather([(core, games)])
    rows = np.arange(games.size)
    cards = copies.layout[rows, seats][:, None] if reveal == "own" else copies.layout  # [n, 1 or P, 6]
    row, seat, slot = np.nonzero(cards >= 0)
    copies.card_known[row, cards[row, seat, slot]] = True
    return copies.observe(seats)


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
