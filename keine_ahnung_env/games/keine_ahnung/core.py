"""The batched NumPy rules engine of Keine Ahnung: B games stepped at once.

The core knows seats (0..P-1), not agent names. All state lives in one :class:`KeineAhnungCore`
object as arrays with a leading batch axis; :meth:`KeineAhnungCore.step` applies one action per game
(the decision of the seat to act) and resolves everything that is not a decision: the turn's
draw-pile card, automatic placements, extra functions and their chains, consolation prizes,
clearing, refills, reshuffles and the end of the game. The rules are those of ``reference.py``
(the readable scalar engine), which consumes randomness in exactly the same order; ``RULES.md``
states them and the choices made where the rulebook is silent.

State arrays (B games, P players, N cards, K pile capacity, T trophies):

| name          | shape    | dtype | meaning                                                        |
|---------------|----------|-------|----------------------------------------------------------------|
| draw_cards    | [B, N]   | int16 | draw pile card ids; the top is ``draw_cards[b, draw_pos[b]]``  |
| draw_pos      | [B]      | int16 | index of the top draw-pile card                                |
| draw_len      | [B]      | int16 | the pile is empty when ``draw_pos == draw_len``                |
| card_loc      | [B, N]   | int8  | LOC_* code: where each card is                                 |
| card_where    | [B, N]   | int8  | pile index (LOC_PILE) or seat (LOC_LAYOUT, LOC_PRIZE)          |
| card_known    | [B, N]   | bool  | revealed to the table and not shuffled into the draw pile since|
| layout        | [B, P, 6]| int16 | card id in each layout slot, -1 = empty                        |
| pile_top      | [B, K]   | int16 | top card of each discard pile (oldest first), -1 = no pile     |
| pile_face     | [B, K]   | int16 | face of each pile top, 36 = no pile                            |
| pile_count    | [B]      | int16 | number of discard piles                                        |
| top_count     | [B, 36]  | int16 | number of piles whose top shows each face                      |
| trophy_order  | [B, T]   | int16 | trophy values in pile order (top first)                        |
| trophy_owner  | [B, T]   | int8  | seat that won each trophy, -1 = still in the pile              |
| trophy_pos    | [B]      | int16 | trophies won so far (index of the top trophy)                  |
| trophy_count  | [B, P]   | int16 | trophies won per seat                                          |
| trophy_points | [B, P]   | int16 | trophy points per seat                                         |
| prize_count   | [B, P]   | int16 | consolation prizes per seat                                    |
| prize_points  | [B, P]   | int16 | consolation-prize points per seat                              |
| current       | [B]      | int8  | seat to act                                                    |
| phase         | [B]      | int8  | :class:`Phase` of the decision pending                         |
| pending       | [B]      | int16 | card awaiting a pile choice, -1 = none                         |
| pending_slot  | [B]      | int8  | its layout slot (PLACE_REVEALED), -1 = from the draw pile       |
| clear_pending | [B]      | bool  | the seat to act has emptied its layout this turn               |
| turn          | [B]      | int32 | turns completed                                                |
| terminated    | [B]      | bool  | the last trophy has been won                                   |
| truncated     | [B]      | bool  | ``max_turns`` turns were played first                          |
| rewards       | [B, P]   | float32 | rewards of the last step                                    |
| legal_mask    | [B, A]   | bool  | legal actions of the seat to act (all False when over)         |

Randomness: one ``numpy.random.Generator`` per game (``rngs[b]``), used only when a game is dealt
and when its draw pile is reshuffled, so game b's course depends on its own seed alone.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from .actions import ACTION_CALL, ACTION_KEEP, ACTION_PLACE_BASE, NUM_ACTIONS, Phase, action_name
from .config import CALL_MAX_CARDS, REFILL_FUNCTION_TARGET, SLOTS, Rules
from .deck import FUNCTION_REFILL, FUNCTION_REMOVE, FUNCTION_REVEAL, NO_FACE, NUM_FACES
from .observation import ObservationLayout, card_feature_table
from .scoring import final_rewards

LOC_DRAW, LOC_LAYOUT, LOC_PILE, LOC_ASIDE, LOC_PRIZE, LOC_PENDING = range(6)
"""Card locations: draw pile, a layout slot, a discard pile, set aside (face up, for the next
reshuffle), won as a consolation prize, revealed from the draw pile and awaiting a pile choice."""

INITIAL_PILE_CAPACITY = 16

# Automatic-flow codes: what a game does next inside step().
_DECIDE, _DRAW, _AFTER_CHAIN, _END_TURN = range(4)


def game_seed_sequences(seed: int | None, indices: Sequence[int]) -> list[np.random.SeedSequence]:
    """Seed sequence of each game index: independent of the batch size it is used in."""
    root = np.random.SeedSequence(seed)
    return [np.random.SeedSequence(root.entropy, spawn_key=(int(i),)) for i in indices]


class KeineAhnungCore:
    """B Keine Ahnung games as arrays (see the module docstring for every field)."""

    def __init__(self, num_envs: int, rules: Rules, seed: int | None = None):
        """Allocates and deals ``num_envs`` games; game i is seeded from ``(seed, i)``."""
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs={num_envs!r}; allowed: a positive integer")
        self.rules = rules
        self.tables = t = rules.tables()
        self.num_envs = B = int(num_envs)
        self.num_players = P = rules.num_players
        N, T = t.num_cards, t.num_trophies
        self._arange = np.arange(B)
        # Lookup tables extended by one entry so that card id -1 ("none") indexes a harmless row.
        self._face_of = np.append(t.face, NO_FACE).astype(np.intp)
        self._is_prize = np.append(t.is_prize, False)
        self._function_of = np.append(t.function, 0)
        self._prize_value = np.append(t.prize_value, 0)
        self._fits = np.ascontiguousarray(t.compat[:, :NUM_FACES])  # [37, 36]
        self._card_features = card_feature_table(t)
        self.obs_layout = ObservationLayout.make(P, t.num_types)

        self.draw_cards = np.zeros((B, N), np.int16)
        self.draw_pos = np.zeros(B, np.int16)
        self.draw_len = np.zeros(B, np.int16)
        self.card_loc = np.zeros((B, N), np.int8)
        self.card_where = np.zeros((B, N), np.int8)
        self.card_known = np.zeros((B, N), bool)
        self.layout = np.full((B, P, SLOTS), -1, np.int16)
        self.pile_top = np.full((B, INITIAL_PILE_CAPACITY), -1, np.int16)
        self.pile_face = np.full((B, INITIAL_PILE_CAPACITY), NO_FACE, np.int16)
        self.pile_count = np.zeros(B, np.int16)
        self.top_count = np.zeros((B, NUM_FACES), np.int16)
        self.trophy_order = np.zeros((B, T), np.int16)
        self.trophy_owner = np.full((B, T), -1, np.int8)
        self.trophy_pos = np.zeros(B, np.int16)
        self.trophy_count = np.zeros((B, P), np.int16)
        self.trophy_points = np.zeros((B, P), np.int16)
        self.prize_count = np.zeros((B, P), np.int16)
        self.prize_points = np.zeros((B, P), np.int16)
        self.current = np.zeros(B, np.int8)
        self.phase = np.full(B, Phase.OVER, np.int8)
        self.pending = np.full(B, -1, np.int16)
        self.pending_slot = np.full(B, -1, np.int8)
        self.clear_pending = np.zeros(B, bool)
        self.turn = np.zeros(B, np.int32)
        self.terminated = np.zeros(B, bool)
        self.truncated = np.zeros(B, bool)
        self.rewards = np.zeros((B, P), np.float32)
        self.legal_mask = np.zeros((B, NUM_ACTIONS), bool)
        self._ctl = np.zeros(B, np.int8)
        self.rngs: list[np.random.Generator] = []
        self.seed(seed)
        self.reset_games(self._arange)

    # ------------------------------------------------------------ seeding

    def seed(self, seed: int | None, indices: Sequence[int] | None = None) -> None:
        """Re-seeds games (all by default): game i's generator comes from ``(seed, i)``."""
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0):
            raise ValueError(f"seed={seed!r}; allowed: None or a non-negative integer")
        indices = range(self.num_envs) if indices is None else [int(i) for i in indices]
        sequences = game_seed_sequences(seed, indices)
        if not self.rngs:
            self.rngs = [np.random.Generator(np.random.PCG64(s)) for s in sequences]
        else:
            for i, s in zip(indices, sequences):
                self.rngs[i] = np.random.Generator(np.random.PCG64(s))

    # -------------------------------------------------------------- reset

    def reset_games(self, games: np.ndarray) -> None:
        """Deals new games at the given indices (each from its own generator) and resolves the
        first player's draw-pile card."""
        g = np.asarray(games, np.intp).reshape(-1)
        if g.size == 0:
            return
        t, P = self.tables, self.num_players
        N, T = t.num_cards, t.num_trophies
        orders = np.empty((g.size, N), np.int16)
        trophy_perm = np.empty((g.size, T), np.intp)
        for row, b in enumerate(g):
            orders[row] = self.rngs[b].permutation(N)
            trophy_perm[row] = self.rngs[b].permutation(T)
        dealt = SLOTS * P
        self.draw_cards[g] = orders
        self.draw_pos[g] = dealt
        self.draw_len[g] = N
        self.card_loc[g] = LOC_DRAW
        self.card_where[g] = 0
        self.card_known[g] = False
        self.layout[g] = orders[:, :dealt].reshape(-1, P, SLOTS)
        rows = np.repeat(g, dealt)
        cards = orders[:, :dealt].reshape(-1)
        self.card_loc[rows, cards] = LOC_LAYOUT
        self.card_where[rows, cards] = np.tile(np.repeat(np.arange(P), SLOTS), g.size)
        self.pile_top[g] = -1
        self.pile_face[g] = NO_FACE
        self.pile_count[g] = 0
        self.top_count[g] = 0
        self.trophy_order[g] = t.trophies[trophy_perm]
        self.trophy_owner[g] = -1
        self.trophy_pos[g] = 0
        for arr in (self.trophy_count, self.trophy_points, self.prize_count, self.prize_points, self.rewards):
            arr[g] = 0
        self.current[g] = 0
        self.phase[g] = Phase.MAIN
        self.pending[g] = -1
        self.pending_slot[g] = -1
        self.clear_pending[g] = False
        self.turn[g] = 0
        self.terminated[g] = False
        self.truncated[g] = False
        self._ctl[:] = _DECIDE
        self._ctl[g] = _DRAW
        self._advance()
        self._update_mask(g)

    def load(self, b: int, *, layouts, piles=(), draw=(), set_aside=(), prizes=None, trophies=None,
             won_trophies=(), current: int = 0, known=(), start_turn: bool = True) -> None:
        """Puts game ``b`` in an exact position (scripted deals, tests, research). Card ids throughout.

        Args:
          layouts: per seat, six card ids or -1 (empty slot).
          piles: discard piles, oldest first, each listed bottom to top.
          draw: the top of the draw pile, top first; every card not placed anywhere else follows
            in ascending id order, so all cards stay accounted for.
          set_aside: cards set aside (face up) for the next reshuffle.
          prizes: per seat, consolation-prize cards already won.
          trophies: trophy values in pile order, top first (default: the deck's list).
          won_trophies: seats that already won the first trophies of that pile, in order.
          current: the seat whose turn it is.
          known: face-down layout cards that were revealed before.
          start_turn: resolve the turn's draw-pile card now (True) or leave ``current`` at its
            main decision with no card drawn yet (False).
        """
        t, P = self.tables, self.num_players
        N = t.num_cards
        layouts = np.asarray(layouts, np.int64).reshape(P, SLOTS)
        prizes = prizes if prizes is not None else [[] for _ in range(P)]
        placed = [c for c in layouts.reshape(-1) if c >= 0] + [c for pile in piles for c in pile] + list(draw) \
            + list(set_aside) + [c for row in prizes for c in row]
        if len(set(placed)) != len(placed) or any(not 0 <= c < N for c in placed):
            raise ValueError("load: every card id must be in range and appear at most once")
        if any(t.is_prize[c] for pile in piles for c in pile):
            raise ValueError("load: consolation prizes cannot lie on discard piles")
        rest = sorted(set(range(N)) - set(placed))
        order = list(draw) + rest
        self.draw_cards[b] = 0
        self.draw_cards[b, : len(order)] = order
        self.draw_pos[b], self.draw_len[b] = 0, len(order)
        self.card_loc[b], self.card_where[b], self.card_known[b] = LOC_DRAW, 0, False
        self.layout[b] = layouts
        for seat in range(P):
            for card in layouts[seat]:
                if card >= 0:
                    self.card_loc[b, card], self.card_where[b, card] = LOC_LAYOUT, seat
        self._ensure_pile_capacity(len(piles))
        self.pile_top[b], self.pile_face[b], self.top_count[b] = -1, NO_FACE, 0
        for k, pile in enumerate(piles):
            for card in pile:
                self.card_loc[b, card], self.card_where[b, card], self.card_known[b, card] = LOC_PILE, k, True
            self.pile_top[b, k] = pile[-1]
            self.pile_face[b, k] = t.face[pile[-1]]
            self.top_count[b, t.face[pile[-1]]] += 1
        self.pile_count[b] = len(piles)
        for card in set_aside:
            self.card_loc[b, card], self.card_known[b, card] = LOC_ASIDE, True
        self.prize_count[b], self.prize_points[b] = 0, 0
        for seat, row in enumerate(prizes):
            for card in row:
                self.card_loc[b, card], self.card_where[b, card], self.card_known[b, card] = LOC_PRIZE, seat, True
                self.prize_count[b, seat] += 1
                self.prize_points[b, seat] += t.prize_value[card]
        for card in known:
            self.card_known[b, card] = True
        self.trophy_order[b] = t.trophies if trophies is None else trophies
        self.trophy_owner[b] = -1
        self.trophy_count[b], self.trophy_points[b] = 0, 0
        for pos, seat in enumerate(won_trophies):
            self.trophy_owner[b, pos] = seat
            self.trophy_count[b, seat] += 1
            self.trophy_points[b, seat] += self.trophy_order[b, pos]
        self.trophy_pos[b] = len(won_trophies)
        self.current[b], self.phase[b] = current, Phase.MAIN
        self.pending[b], self.pending_slot[b], self.clear_pending[b] = -1, -1, False
        self.turn[b] = 0
        self.terminated[b] = self.truncated[b] = False
        self.rewards[b] = 0
        self._ctl[:] = _DECIDE
        if start_turn:
            self._ctl[b] = _DRAW
            self._advance()
        self._update_mask(np.array([b]))

    # --------------------------------------------------------------- step

    def check_actions(self, actions, active: np.ndarray | None = None) -> np.ndarray:
        """Validates one action per game; returns them as intp. Raises ValueError, changing nothing.

        Games that are over (or not ``active``) ignore their entry (any integer is accepted there).
        """
        arr = np.asarray(actions)
        if arr.shape != (self.num_envs,):
            raise ValueError(f"actions must have shape ({self.num_envs},), one per game; got shape {arr.shape}")
        if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
            raise ValueError(f"actions must be integers in 0..{NUM_ACTIONS - 1}; got dtype {arr.dtype}")
        arr = arr.astype(np.intp)
        live = self.phase != Phase.OVER
        if not live.any():
            raise ValueError("every game is over; call reset() (or use autoreset) before stepping again")
        if active is not None:
            live = live & active
        out_of_range = live & ((arr < 0) | (arr >= NUM_ACTIONS))
        if out_of_range.any():
            b = int(np.flatnonzero(out_of_range)[0])
            raise ValueError(
                f"action {int(arr[b])} for game {b} is out of range; allowed: 0..{NUM_ACTIONS - 1}; "
                f"legal there: {np.flatnonzero(self.legal_mask[b]).tolist()}"
            )
        illegal = live & ~self.legal_mask[self._arange, np.clip(arr, 0, NUM_ACTIONS - 1)]
        if illegal.any():
            bad = np.flatnonzero(illegal)
            b = int(bad[0])
            raise ValueError(
                f"illegal action {int(arr[b])} ({action_name(arr[b])}) for game {b} "
                f"({bad.size} illegal in all); legal there: {np.flatnonzero(self.legal_mask[b]).tolist()}"
            )
        return arr

    def step(self, actions, active: np.ndarray | None = None) -> None:
        """Applies one action per game and resolves the games up to their next decision.

        Games already over, and games where ``active`` ([B] bool, default all) is False, are left
        untouched (their rewards read 0). Raises ValueError (and changes nothing) when an action
        has the wrong shape or type, is out of range or illegal.
        """
        if active is not None:
            active = np.asarray(active, bool)
            if active.shape != (self.num_envs,):
                raise ValueError(f"active must have shape ({self.num_envs},); got {active.shape}")
        actions = self.check_actions(actions, active)
        self.rewards[:] = 0.0
        phase = self.phase
        live = phase != Phase.OVER
        if active is not None:
            live &= active
        self._ctl[:] = _DECIDE
        main = live & (phase == Phase.MAIN)
        placing = live & (actions >= ACTION_PLACE_BASE) & (actions < ACTION_KEEP)
        g = np.flatnonzero(main & (actions < ACTION_CALL))
        if g.size:
            self._reveal(g, actions[g])
        g = np.flatnonzero(main & (actions == ACTION_CALL))
        if g.size:
            self._call(g)
        g = np.flatnonzero(placing & (phase == Phase.PLACE_DRAWN))
        if g.size:
            cards = self.pending[g].astype(np.intp)
            self.pending[g] = -1
            self._ctl[g] = self._place(g, cards, actions[g] - ACTION_PLACE_BASE)
        g = np.flatnonzero(placing & (phase == Phase.PLACE_REVEALED))
        if g.size:
            slots = self.pending_slot[g].astype(np.intp)
            self.pending[g] = -1
            self.pending_slot[g] = -1
            self._ctl[g] = self._play_from_layout(g, slots, actions[g] - ACTION_PLACE_BASE)
        g = np.flatnonzero(live & (actions == ACTION_KEEP))
        if g.size:
            self.pending[g] = -1
            self.pending_slot[g] = -1
            self._ctl[g] = _END_TURN
        self._advance()
        self._update_mask(np.flatnonzero(live))

    # ---------------------------------------------------------- decisions

    def _reveal(self, g: np.ndarray, slots: np.ndarray) -> None:
        seats = self.current[g].astype(np.intp)
        cards = self.layout[g, seats, slots].astype(np.intp)
        self.card_known[g, cards] = True
        prize = self._is_prize[cards]
        if prize.any():
            gp, sp, cp = g[prize], seats[prize], cards[prize]
            self.layout[gp, sp, slots[prize]] = -1
            self._give_prizes(gp, cp)
            self.clear_pending[gp] = ~(self.layout[gp, sp] >= 0).any(axis=1)
            self._ctl[gp] = _END_TURN
        keep = ~prize
        g, slots, cards = g[keep], slots[keep], cards[keep]
        fit = self._fitting(g, cards)
        n_fit = fit.sum(axis=1)
        self._ctl[g[n_fit == 0]] = _END_TURN  # back face down in its slot, now known
        auto = n_fit == 1 if not self.rules.allow_keep else np.zeros_like(n_fit, bool)
        if auto.any():
            ga = g[auto]
            self._ctl[ga] = self._play_from_layout(ga, slots[auto], fit[auto].argmax(axis=1))
        choose = (n_fit >= 1) & ~auto
        if choose.any():
            gc = g[choose]
            self.pending[gc] = cards[choose]
            self.pending_slot[gc] = slots[choose]
            self.phase[gc] = Phase.PLACE_REVEALED
            self._ctl[gc] = _DECIDE

    def _call(self, g: np.ndarray) -> None:
        """ "Nothing fits anymore!": reveal in slot order until a card fits or is a prize."""
        seats = self.current[g].astype(np.intp)
        revealing = np.ones(g.size, bool)
        for slot in range(SLOTS):
            cards = self.layout[g, seats, slot].astype(np.intp)
            has = revealing & (cards >= 0)
            if not has.any():
                continue
            self.card_known[g[has], cards[has]] = True
            prize = has & self._is_prize[cards]
            if prize.any():
                self.layout[g[prize], seats[prize], slot] = -1
                self._give_prizes(g[prize], cards[prize])
            fits = has & ~prize & self._fitting(g, cards).any(axis=1)
            revealing &= ~(prize | fits)
        over = np.zeros(g.size, bool)
        if revealing.any():
            over[revealing] = self._win_trophies(g[revealing])
        alive = g[~over]
        self._fill_layouts(alive, self.current[alive].astype(np.intp))
        self._ctl[alive] = _END_TURN

    def _play_from_layout(self, g: np.ndarray, slots: np.ndarray, faces: np.ndarray) -> np.ndarray:
        seats = self.current[g].astype(np.intp)
        cards = self.layout[g, seats, slots].astype(np.intp)
        self.layout[g, seats, slots] = -1
        emptied = ~(self.layout[g, seats] >= 0).any(axis=1)
        self.clear_pending[g[emptied]] = True
        return self._place(g, cards, faces)

    # ---------------------------------------------------------- placement

    def _fitting(self, g: np.ndarray, cards: np.ndarray) -> np.ndarray:
        """[n, 36] bool: the pile-top faces each card fits in its game (none for prizes / -1)."""
        return self._fits[self._face_of[cards]] & (self.top_count[g] > 0)

    def _place(self, g: np.ndarray, cards: np.ndarray, faces: np.ndarray) -> np.ndarray:
        """Puts card i on the oldest pile of game g[i] whose top shows faces[i] (-1: a new pile),
        resolves its extra function and returns each game's next flow code."""
        cards = cards.astype(np.intp)
        faces = np.asarray(faces, np.intp)
        card_faces = self._face_of[cards]
        piles = np.empty(g.size, np.intp)
        new = faces < 0
        if new.any():
            gn = g[new]
            piles[new] = self.pile_count[gn]
            self._ensure_pile_capacity(int(self.pile_count[gn].max()) + 1)
            self.pile_count[gn] += 1
        old = ~new
        if old.any():
            go = g[old]
            piles[old] = (self.pile_face[go] == faces[old, None]).argmax(axis=1)
            self.top_count[go, faces[old]] -= 1
        self.top_count[g, card_faces] += 1
        self.pile_top[g, piles] = cards
        self.pile_face[g, piles] = card_faces
        self.card_loc[g, cards] = LOC_PILE
        self.card_where[g, cards] = piles
        function = self._function_of[cards]
        nxt = np.where(function == FUNCTION_REVEAL, _DRAW, _AFTER_CHAIN).astype(np.int8)
        remove = function == FUNCTION_REMOVE
        if remove.any():
            self._remove_other_piles(g[remove], piles[remove])
        refill = function == FUNCTION_REFILL
        if refill.any():
            self._refill_opponents(g[refill])
        return nxt

    def _ensure_pile_capacity(self, needed: int) -> None:
        """Grows the pile arrays when a game opens more piles than they hold: no cap on piles."""
        capacity = self.pile_top.shape[1]
        if needed <= capacity:
            return
        extra = max(needed, 2 * capacity) - capacity
        self.pile_top = np.concatenate([self.pile_top, np.full((self.num_envs, extra), -1, np.int16)], axis=1)
        self.pile_face = np.concatenate([self.pile_face, np.full((self.num_envs, extra), NO_FACE, np.int16)], axis=1)

    def _remove_other_piles(self, g: np.ndarray, kept: np.ndarray) -> None:
        loc = self.card_loc[g]
        where = self.card_where[g]
        in_pile = loc == LOC_PILE
        others = in_pile & (where != kept[:, None])
        self.card_loc[g] = np.where(others, LOC_ASIDE, loc)
        self.card_where[g] = np.where(in_pile & ~others, 0, where)
        top, face = self.pile_top[g, kept], self.pile_face[g, kept]
        self.pile_top[g] = -1
        self.pile_face[g] = NO_FACE
        self.pile_top[g, 0] = top
        self.pile_face[g, 0] = face
        self.pile_count[g] = 1
        self.top_count[g] = 0
        self.top_count[g, face] = 1

    def _refill_opponents(self, g: np.ndarray) -> None:
        """The "refill" function: each opponent, in seat order after the player, draws up to 3."""
        for offset in range(1, self.num_players):
            seats = (self.current[g].astype(np.intp) + offset) % self.num_players
            for _ in range(REFILL_FUNCTION_TARGET):
                short = (self.layout[g, seats] >= 0).sum(axis=1) < REFILL_FUNCTION_TARGET
                if not short.any():
                    break
                gs, ss = g[short], seats[short]
                slots = (self.layout[gs, ss] < 0).argmax(axis=1)
                self._draw_into(gs, ss, slots)

    def _fill_layouts(self, g: np.ndarray, seats: np.ndarray) -> None:
        """Draws into every empty slot of the given seats' layouts, in slot order."""
        for slot in range(SLOTS):
            empty = self.layout[g, seats, slot] < 0
            if empty.any():
                self._draw_into(g[empty], seats[empty], np.full(int(empty.sum()), slot))

    def _draw_into(self, g: np.ndarray, seats: np.ndarray, slots: np.ndarray) -> None:
        cards = self._draw(g)
        ok = cards >= 0
        g, seats, slots, cards = g[ok], seats[ok], slots[ok], cards[ok]
        self.layout[g, seats, slots] = cards
        self.card_loc[g, cards] = LOC_LAYOUT
        self.card_where[g, cards] = seats

    # ---------------------------------------------------- automatic flow

    def _advance(self) -> None:
        """Resolves every game whose flow code is not _DECIDE until it reaches a decision or ends."""
        ctl = self._ctl
        while True:
            g = np.flatnonzero(ctl == _END_TURN)
            if g.size:
                self._end_turn(g)
            g = np.flatnonzero(ctl == _DRAW)
            if g.size:
                self._draw_step(g)
            g = np.flatnonzero(ctl == _AFTER_CHAIN)
            if g.size:
                clearing = self.clear_pending[g]
                ctl[g[clearing]] = _END_TURN
                gm = g[~clearing]
                self.phase[gm] = Phase.MAIN
                ctl[gm] = _DECIDE
            if not (ctl != _DECIDE).any():
                return

    def _draw_step(self, g: np.ndarray) -> None:
        """Reveals the top draw-pile card of each game and places it (or asks for a pile)."""
        ctl = self._ctl
        cards = self._draw(g)
        none = cards < 0
        ctl[g[none]] = _AFTER_CHAIN  # nothing can be drawn: the draw is skipped
        g, cards = g[~none], cards[~none]
        self.card_known[g, cards] = True
        prize = self._is_prize[cards]
        if prize.any():
            self._give_prizes(g[prize], cards[prize])
            ctl[g[prize]] = _END_TURN
            g, cards = g[~prize], cards[~prize]
        fit = self._fitting(g, cards)
        n_fit = fit.sum(axis=1)
        choose = n_fit >= 2
        if choose.any():
            gc = g[choose]
            self.pending[gc] = cards[choose]
            self.pending_slot[gc] = -1
            self.card_loc[gc, cards[choose]] = LOC_PENDING
            self.phase[gc] = Phase.PLACE_DRAWN
            ctl[gc] = _DECIDE
        auto = ~choose
        if auto.any():
            faces = np.where(n_fit[auto] == 1, fit[auto].argmax(axis=1), -1)
            ctl[g[auto]] = self._place(g[auto], cards[auto], faces)

    def _end_turn(self, g: np.ndarray) -> None:
        clearing = self.clear_pending[g]
        if clearing.any():
            gc = g[clearing]
            self.clear_pending[gc] = False
            over = self._win_trophies(gc)
            self._ctl[gc[over]] = _DECIDE
            refill = gc[~over]
            self._fill_layouts(refill, self.current[refill].astype(np.intp))
            g = g[self.phase[g] != Phase.OVER]
        self.current[g] = (self.current[g] + 1) % self.num_players
        self.turn[g] += 1
        cut = self.turn[g] >= self.rules.max_turns
        if cut.any():
            gt = g[cut]
            self.truncated[gt] = True
            self.phase[gt] = Phase.OVER
            self._ctl[gt] = _DECIDE
        self._ctl[g[~cut]] = _DRAW

    # ------------------------------------------------------------ helpers

    def _draw(self, g: np.ndarray) -> np.ndarray:
        """Takes the top draw-pile card of each game (reshuffling empty piles first); -1 = none."""
        empty = self.draw_pos[g] >= self.draw_len[g]
        if empty.any():
            for b in g[empty]:
                self._reshuffle(int(b))
        pos = self.draw_pos[g].astype(np.intp)
        ok = pos < self.draw_len[g]
        cards = np.full(g.size, -1, np.intp)
        cards[ok] = self.draw_cards[g[ok], pos[ok]]
        self.draw_pos[g[ok]] += 1
        return cards

    def _reshuffle(self, b: int) -> None:
        """Forms a new draw pile for game b from the set-aside cards (or, if there are none and
        ``reshuffle_discards`` is on, from every discard card below a pile top)."""
        loc = self.card_loc[b]
        source = np.flatnonzero(loc == LOC_ASIDE)
        if source.size == 0 and self.rules.reshuffle_discards:
            below_top = loc == LOC_PILE
            below_top[self.pile_top[b, : self.pile_count[b]]] = False
            source = np.flatnonzero(below_top)
        if source.size == 0:
            return
        new_pile = source[self.rngs[b].permutation(source.size)]
        self.draw_cards[b, : source.size] = new_pile
        self.draw_pos[b] = 0
        self.draw_len[b] = source.size
        self.card_loc[b, new_pile] = LOC_DRAW
        self.card_known[b, new_pile] = False

    def _give_prizes(self, g: np.ndarray, cards: np.ndarray) -> None:
        seats = self.current[g].astype(np.intp)
        self.prize_points[g, seats] += self._prize_value[cards].astype(np.int16)
        self.prize_count[g, seats] += 1
        self.card_loc[g, cards] = LOC_PRIZE
        self.card_where[g, cards] = seats

    def _win_trophies(self, g: np.ndarray) -> np.ndarray:
        """The seat to act wins the top trophy in each game; returns which games thereby end."""
        seats = self.current[g].astype(np.intp)
        pos = self.trophy_pos[g].astype(np.intp)
        self.trophy_owner[g, pos] = seats
        self.trophy_count[g, seats] += 1
        self.trophy_points[g, seats] += self.trophy_order[g, pos]
        self.trophy_pos[g] += 1
        over = self.trophy_pos[g] >= self.tables.num_trophies
        if over.any():
            go = g[over]
            self.terminated[go] = True
            self.phase[go] = Phase.OVER
            self.rewards[go] = final_rewards(self.scores[go], self.holdings[go], self.rules.reward)
        return over

    def _update_mask(self, g: np.ndarray) -> None:
        """Recomputes the legal-action mask of the given games."""
        if g.size == 0:
            return
        phase = self.phase[g]
        own = self.layout[g, self.current[g].astype(np.intp)] >= 0
        main = phase == Phase.MAIN
        mask = np.zeros((g.size, NUM_ACTIONS), bool)
        mask[:, :SLOTS] = own & main[:, None]
        mask[:, ACTION_CALL] = main & (own.sum(axis=1) <= CALL_MAX_CARDS)
        placing = (phase == Phase.PLACE_DRAWN) | (phase == Phase.PLACE_REVEALED)
        mask[:, ACTION_PLACE_BASE:ACTION_KEEP] = self._fitting(g, self.pending[g].astype(np.intp)) & placing[:, None]
        mask[:, ACTION_KEEP] = (phase == Phase.PLACE_REVEALED) & self.rules.allow_keep
        self.legal_mask[g] = mask

    # ------------------------------------------------------------ queries

    @property
    def scores(self) -> np.ndarray:
        """[B, P] int: trophy points + prize points."""
        return self.trophy_points.astype(np.int32) + self.prize_points

    @property
    def holdings(self) -> np.ndarray:
        """[B, P] int: trophies + prizes held (the tie-break)."""
        return self.trophy_count.astype(np.int32) + self.prize_count

    @property
    def done(self) -> np.ndarray:
        """[B] bool: terminated or truncated."""
        return self.terminated | self.truncated

    def observe(self, seats) -> np.ndarray:
        """[B, O] float32: each game's table as seen by ``seats`` (an int or one seat per game).

        See ``observation.py`` for the sections; nothing a seat may not know is read.
        """
        B, P, L = self.num_envs, self.num_players, self.obs_layout
        seats = np.broadcast_to(np.asarray(seats, np.intp), (B,))
        if seats.size and (seats.min() < 0 or seats.max() >= P):
            raise ValueError(f"seat must be in 0..{P - 1}; got {np.unique(seats).tolist()}")
        ar = self._arange
        obs = np.zeros((B, L.size), np.float32)
        phase = self.phase.astype(np.intp)
        obs[ar, L.slice("phase").start + phase] = 1.0
        live = phase != Phase.OVER
        rel_current = (self.current.astype(np.intp) - seats) % P
        obs[ar[live], L.slice("acting_seat").start + rel_current[live]] = 1.0
        obs[:, L.slice("pending_card")] = self._card_features[self.pending]
        from_slot = np.flatnonzero((phase == Phase.PLACE_REVEALED) & (self.pending_slot >= 0))
        obs[from_slot, L.slice("pending_slot").start + self.pending_slot[from_slot]] = 1.0
        obs[:, L.slice("pile_tops")] = self.top_count

        order = (seats[:, None] + np.arange(P)) % P  # relative seat -> absolute seat
        cards = self.layout[ar[:, None], order].astype(np.intp)  # [B, P, 6]
        present = cards >= 0
        known = present & self.card_known[ar[:, None, None], cards] if self.rules.memory == "perfect" else np.zeros_like(present)
        slots = np.concatenate(
            [(~present)[..., None], (present & ~known)[..., None], known[..., None],
             self._card_features[np.where(known, cards, -1)]], axis=-1, dtype=np.float32)
        obs[:, L.slice("layouts")] = slots.reshape(B, -1)

        loc = self.card_loc
        obs[:, L.slice("table_counts")] = np.stack(
            [self.draw_len - self.draw_pos, (loc == LOC_ASIDE).sum(axis=1),
             self.tables.num_trophies - self.trophy_pos, self.pile_count], axis=1)
        players = np.stack([self.trophy_count[ar[:, None], order], self.prize_points[ar[:, None], order],
                            self.prize_count[ar[:, None], order]], axis=-1)
        obs[:, L.slice("players")] = players.reshape(B, -1)
        obs[:, L.slice("own_trophy_points")] = self.trophy_points[ar, seats][:, None]

        onehot = self.tables.type_onehot
        if self.rules.memory == "perfect":
            unknown = (loc == LOC_DRAW) | ((loc == LOC_LAYOUT) & ~self.card_known)
            obs[:, L.slice("unknown_cards")] = unknown.astype(np.float32) @ onehot
        else:
            visible = (loc == LOC_ASIDE) | (loc == LOC_PRIZE) | (loc == LOC_PENDING)
            tops = self.pile_top >= 0
            visible[np.nonzero(tops)[0], self.pile_top[tops]] = True
            waiting = self.pending >= 0
            visible[ar[waiting], self.pending[waiting]] = True
            obs[:, L.slice("unknown_cards")] = self.tables.type_total - visible.astype(np.float32) @ onehot
        return obs

    def snapshot(self, b: int) -> dict:
        """Game b's state in the canonical form of ``ReferenceGame.snapshot``."""
        P = self.num_players
        loc, where = self.card_loc[b], self.card_where[b]
        piles = []
        for k in range(int(self.pile_count[b])):
            cards = np.flatnonzero((loc == LOC_PILE) & (where == k)).tolist()
            top = int(self.pile_top[b, k])
            cards.remove(top)
            piles.append(sorted(cards) + [top])
        owners = self.trophy_owner[b]
        return {
            "draw_pile": self.draw_cards[b, self.draw_pos[b] : self.draw_len[b]].tolist(),
            "trophy_pile": self.trophy_order[b, self.trophy_pos[b] :].tolist(),
            "set_aside": np.flatnonzero(loc == LOC_ASIDE).tolist(),
            "piles": piles,
            "layout": self.layout[b].tolist(),
            "known": np.flatnonzero(self.card_known[b]).tolist(),
            "trophies": [self.trophy_order[b][owners == p].tolist() for p in range(P)],
            "prizes": [np.flatnonzero((loc == LOC_PRIZE) & (where == p)).tolist() for p in range(P)],
            "current": int(self.current[b]),
            "turn": int(self.turn[b]),
            "phase": int(self.phase[b]),
            "pending": int(self.pending[b]),
            "pending_slot": int(self.pending_slot[b]),
            "terminated": bool(self.terminated[b]),
            "truncated": bool(self.truncated[b]),
            "scores": self.scores[b].tolist(),
        }
