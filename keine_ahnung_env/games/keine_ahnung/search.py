"""What the determinized roll-out planner (``training/search.py``) needs of Keine Ahnung: the
game's :class:`~keine_ahnung_env.game_spec.SearchHooks` (``GameSpec.search``).

* :func:`determinize`: the position as the seat to act may imagine it. Nobody at the table sees a
  face-down card (not even its owner), so the face-down cards nobody has seen since their shuffle are
  dealt again at random among the places of that shuffle (the draw pile with the cards dealt from it;
  each earlier shuffle's leftover face-down cards apart: ``belief.py``), and the trophy values the seat has
  not seen (the face-down pile and the opponents' trophies) shuffled: a fair draw from what it knows.
* :func:`candidate_moves`: one move per class of moves with the same effect (call, reveal an unknown
  card - they are alike -, each known fitting card, one known misfit, a known prize; each pile for a
  placement).
* :func:`trophies_left`: the planner searches only in the end game.
* :func:`branch`: a core holding the determinized copies (``KeineAhnungCore.from_state_arrays``).
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .actions import ACTION_CALL, Phase
from .config import SLOTS
from .core import LOC_DRAW, LOC_LAYOUT, KeineAhnungCore
from .deck import NUM_FACES


def determinize(core: KeineAhnungCore, game: int, copies: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
    """``copies`` versions of ``game``'s position (``core.state_arrays`` form) as the seat to act may
    imagine it: the draw pile and the face-down cards nobody has seen dealt again at random among
    their places, the trophy values that seat has not seen (face-down pile, opponents' trophies)
    shuffled, and the opponents' trophy points recomputed. What the seat sees is unchanged."""
    if core.rules.memory != "perfect":
        raise ValueError("determinize needs memory='perfect' (with memory='none' a seat forgets cards it saw, "
                         "which this re-deal does not model)")
    state = core.state_arrays(np.repeat(game, copies))
    rows = np.arange(copies)[:, None]
    draw_idx = np.arange(int(core.draw_pos[game]), int(core.draw_len[game]))
    layout, known = core.layout[game], core.card_known[game]
    seats, slots = np.nonzero((layout >= 0) & ~known[np.maximum(layout, 0)])
    places = np.concatenate([core.draw_cards[game, draw_idx], layout[seats, slots]]).astype(np.intp)
    if places.size:
        # Each shuffle's unseen cards are dealt again among that shuffle's places only (the draw pile
        # and the face-down cards dealt from it; each earlier shuffle's leftover face-down cards): what
        # a seat with perfect memory knows (``belief.py``). Sorted within a pool first, so that the
        # copies depend on which cards are hidden, never on where they lie.
        pool = int(core.reshuffles[game]) - core.card_epoch[game, places].astype(np.int64)
        by_pool = np.argsort(pool, kind="stable")
        hidden = places[np.lexsort((places, pool))]
        perm = np.argsort(np.sort(pool)[None, :] * 2 + rng.random((copies, places.size)), axis=1)
        dealt = np.empty((copies, places.size), np.intp)
        dealt[:, by_pool] = hidden[perm]
        to_draw, to_layout = dealt[:, : draw_idx.size], dealt[:, draw_idx.size :]
        state["draw_cards"][:, draw_idx] = to_draw
        state["card_loc"][rows, to_draw] = LOC_DRAW
        state["card_where"][rows, to_draw] = 0
        state["layout"][:, seats, slots] = to_layout
        state["card_loc"][rows, to_layout] = LOC_LAYOUT
        state["card_where"][rows, to_layout] = seats[None, :]
    seat = int(core.current[game])
    owner = core.trophy_owner[game]
    unseen = np.flatnonzero(owner != seat)
    if unseen.size > 1:
        values = np.sort(state["trophy_order"][:, unseen], axis=1)
        state["trophy_order"][:, unseen] = np.take_along_axis(values, np.argsort(rng.random(values.shape), axis=1), 1)
        won = owner[None, :, None] == np.arange(core.num_players)[None, None, :]  # [1, T, P]
        state["trophy_points"][:] = (state["trophy_order"][:, :, None] * won).sum(axis=1)
    return state


def candidate_moves(core: KeineAhnungCore, game: int, default: int) -> tuple[list[int], int]:
    """The distinct moves of the seat to act in ``game`` (one representative per class of moves with
    the same effect) and the index of ``default``'s class among them (``default`` itself is the
    representative of its class)."""
    legal = np.flatnonzero(core.legal_mask[game]).tolist()
    if int(core.phase[game]) != Phase.MAIN:
        return legal, legal.index(default)
    seat = int(core.current[game])
    tables = core.tables
    tops = core.top_count[game] > 0
    fits = tables.compat[:, :NUM_FACES]  # [face of a card, face of a pile top]
    classes: dict[object, list[int]] = {}
    for action in legal:
        if action == ACTION_CALL:
            key: object = "call"
        else:
            card = int(core.layout[game, seat, action])
            if not core.card_known[game, card]:
                key = "unknown"
            elif tables.is_prize[card]:
                key = "prize"
            elif (fits[tables.face[card]] & tops).any():
                key = ("fit", action)
            else:
                key = "misfit"
        classes.setdefault(key, []).append(action)
    moves, default_index = [], -1
    for members in classes.values():
        if default in members:
            default_index = len(moves)
            moves.append(default)
        else:
            moves.append(members[0])
    assert default_index >= 0 and all(m < SLOTS or m == ACTION_CALL for m in moves)
    return moves, default_index


def trophies_left(core: KeineAhnungCore, game: int) -> int:
    """Trophies still face down in ``game``: how much of the game is left."""
    return core.tables.num_trophies - int(core.trophy_pos[game])


def branch(core: KeineAhnungCore, states: Sequence[dict[str, np.ndarray]], seeds: np.ndarray) -> KeineAhnungCore:
    """A core of ``core``'s rules whose rows are the copies of ``states`` (``determinize`` results) in
    order; row i's reshuffles draw from ``seeds[i]``."""
    arrays = {name: np.concatenate([state[name] for state in states]) for name in states[0]}
    return KeineAhnungCore.from_state_arrays(core.rules, arrays, seeds)


class KeineAhnungSearch:
    """Keine Ahnung's :class:`~keine_ahnung_env.game_spec.SearchHooks` (the functions above)."""

    def remaining(self, core: Any, game: int) -> int:
        return trophies_left(core, game)

    def candidate_moves(self, core: Any, game: int, default: int) -> tuple[list[int], int]:
        return candidate_moves(core, game, default)

    def determinize(self, core: Any, game: int, copies: int, rng: np.random.Generator) -> dict[str, np.ndarray]:
        return determinize(core, game, copies, rng)

    def branch(self, core: Any, states: Sequence[Any], seeds: np.ndarray) -> KeineAhnungCore:
        return branch(core, states, seeds)


SEARCH = KeineAhnungSearch()
