"""Keine Ahnung's :class:`conformance.GameAdapter`: variants, the thorough invariants, hidden information.

What a seat may not know (``RULES.md``, ``observation.py``): with ``memory="perfect"`` the identity
and order of the draw pile and the face-down cards never revealed (or shuffled back since); with
``memory="none"`` also every face-down card and every discard below a pile top. In both modes the
values of the trophies the seat does not own (the trophy pile's order and the opponents' trophies).
Everything else (pile tops, set-aside cards, prizes, counts, the card awaiting a pile) is public.
"""

from __future__ import annotations

import copy

import numpy as np
from hypothesis import strategies as st

from conformance import GameAdapter
from keine_ahnung_env import keine_ahnung_v0
from keine_ahnung_env.games.keine_ahnung import KeineAhnungCore, Rules
from keine_ahnung_env.games.keine_ahnung.actions import ACTION_CALL, ACTION_KEEP, ACTION_PLACE_BASE, NUM_ACTIONS, Phase
from keine_ahnung_env.games.keine_ahnung.config import CALL_MAX_CARDS, REWARD_MODES, SLOTS
from keine_ahnung_env.games.keine_ahnung.core import LOC_ASIDE, LOC_DRAW, LOC_LAYOUT, LOC_PENDING, LOC_PILE, LOC_PRIZE
from keine_ahnung_env.games.keine_ahnung.deck import COLOURS, NO_FACE, NUM_FACES
from keine_ahnung_env.games.keine_ahnung.observation import observation_string

MAX_TURNS = (1, 2, 3, 8, 40, 150, 4000)

REVEAL_DECK = {
    # A small deck with every function, reveal cards included, played with reshuffles on.
    "number_cards": [(c, n, "reveal" if n == 1 else ("remove" if n == 3 else ("refill" if n == 5 else "none")))
                     for c in ("red", "blue") for n in range(1, 7) for _ in range(3)],
    "prizes": [1],
    "trophies": [3, 4],
}


@st.composite
def decks(draw, num_players: int, reshuffle_discards: bool):
    """Random small decks that deal ``num_players`` layouts and leave a draw pile.

    With ``reshuffle_discards`` on, the random decks carry no "reveal" card: a deck whose reachable
    cards are all reveal cards chains forever (the engine hangs; see test_keine_ahnung_reliability's
    xfail test); ``REVEAL_DECK`` covers reveal cards with reshuffles."""
    needed = SLOTS * num_players + 1
    colours = draw(st.lists(st.sampled_from(COLOURS), min_size=1, max_size=6, unique=True))
    numbers = draw(st.lists(st.integers(1, 6), min_size=1, max_size=6, unique=True))
    functions = ["none", "none", "none", "remove", "refill"] + ([] if reshuffle_discards else ["reveal"])
    n_cards = draw(st.integers(max(1, needed - 4), needed + 30))
    cards = draw(st.lists(st.tuples(st.sampled_from(colours), st.sampled_from(numbers), st.sampled_from(functions)),
                          min_size=n_cards, max_size=n_cards))
    min_prizes = max(0, needed - n_cards)
    prizes = draw(st.lists(st.integers(0, 3), min_size=min_prizes, max_size=min_prizes + 4))
    trophies = draw(st.lists(st.integers(1, 6), min_size=1, max_size=8))
    return {"number_cards": cards, "prizes": prizes, "trophies": trophies}


@st.composite
def variants(draw, players=(2, 3, 4, 5), max_turns=MAX_TURNS, custom_decks: bool = True):
    num_players = draw(st.sampled_from(players))
    reshuffle = draw(st.booleans())
    variant = {
        "num_players": num_players,
        "memory": draw(st.sampled_from(["perfect", "none"])),
        "allow_keep": draw(st.booleans()),
        "reshuffle_discards": reshuffle,
        "reward": draw(st.sampled_from(REWARD_MODES)),
        "max_turns": draw(st.sampled_from(max_turns)),
    }
    if custom_decks:
        kind = draw(st.sampled_from(["default", "default", "random", "reveal"]))
        if kind == "random":
            variant["deck"] = draw(decks(num_players, reshuffle))
        elif kind == "reveal" and num_players <= 2:
            variant["deck"] = REVEAL_DECK
    return variant


def rules_of(variant: dict) -> Rules:
    options = dict(variant)
    return Rules.make(options.pop("num_players"), **options)


def hidden_cards(core: KeineAhnungCore, b: int) -> np.ndarray:
    """Card ids of game ``b`` whose identity no seat may know (see the module docstring)."""
    loc = core.card_loc[b]
    if core.rules.memory == "perfect":
        return np.flatnonzero((loc == LOC_DRAW) | ((loc == LOC_LAYOUT) & ~core.card_known[b]))
    visible = set(core.pile_top[b, : core.pile_count[b]].tolist()) | {int(core.pending[b])}
    candidates = np.flatnonzero((loc == LOC_DRAW) | (loc == LOC_LAYOUT) | (loc == LOC_PILE))
    return np.array([c for c in candidates.tolist() if c not in visible], np.int64)


def hidden_permutation(core: KeineAhnungCore, b: int, rng: np.random.Generator) -> np.ndarray:
    """A random relabelling of game ``b``'s hidden cards that keeps the state legal and the knowledge
    of every seat intact: the hidden cards off the discard piles are shuffled among themselves, then
    the hidden number cards among themselves (a seat knows that a buried discard is no prize)."""
    perm = np.arange(core.tables.num_cards)
    hidden = hidden_cards(core, b)
    if hidden.size < 2:
        return perm
    if core.rules.memory == "perfect":
        # A seat that remembers knows which shuffle dealt each hidden card and what every earlier
        # shuffle's leftovers are (observation version 2): only cards of one pool are interchangeable.
        for epoch in np.unique(core.card_epoch[b, hidden]):
            pool = hidden[core.card_epoch[b, hidden] == epoch]
            perm[pool] = rng.permutation(pool)
        return perm
    off_pile = hidden[core.card_loc[b, hidden] != LOC_PILE]
    perm[off_pile] = rng.permutation(off_pile)
    numbers = hidden[~core.tables.is_prize[hidden]]
    second = np.arange(core.tables.num_cards)
    second[numbers] = rng.permutation(numbers)
    return second[perm]


def permute_cards(core: KeineAhnungCore, b: int, perm: np.ndarray) -> None:
    """Relabels game ``b``: where card ``c`` lay (layout slot, draw-pile position, pile, ...) now lies
    card ``perm[c]``, with that place's location and knowledge flags; the pile faces and counts are
    recomputed from the new tops."""
    for name in ("draw_cards", "layout", "pile_top"):
        arr = getattr(core, name)[b]
        present = arr >= 0
        arr[present] = perm[arr[present]]
    if core.pending[b] >= 0:
        core.pending[b] = perm[core.pending[b]]
    for name in ("card_loc", "card_where", "card_known", "card_epoch"):
        arr = getattr(core, name)
        old = arr[b].copy()
        arr[b, perm] = old
    face = core.tables.face
    count = int(core.pile_count[b])
    core.pile_face[b, :count] = face[core.pile_top[b, :count]]
    tops = np.zeros(NUM_FACES + 1, np.int64)
    np.add.at(tops, face[core.pile_top[b, :count]], 1)
    core.top_count[b] = tops[:NUM_FACES]


def shuffle_trophies(core: KeineAhnungCore, b: int, keep_seat: int, rng: np.random.Generator) -> None:
    """Permutes the values of every trophy ``keep_seat`` does not own (pile and opponents'), then
    recomputes the trophy points of every seat."""
    owner = core.trophy_owner[b]
    positions = np.flatnonzero(owner != keep_seat)
    core.trophy_order[b, positions] = rng.permutation(core.trophy_order[b, positions])
    for seat in range(core.num_players):
        core.trophy_points[b, seat] = int(core.trophy_order[b][owner == seat].sum())


class KeineAhnungAdapter(GameAdapter):
    name = "keine_ahnung_v0"
    num_actions = NUM_ACTIONS
    engine_paths = ("auto", "parallel", "serial")

    def variant_strategy(self, **kwargs):
        return variants(**kwargs)

    def quick_variant(self, variant: dict) -> dict:
        out = dict(variant)
        out["max_turns"] = min(out.get("max_turns", 4000), 60)
        return out

    # ------------------------------------------------------------------ construction
    def make_core(self, num_envs, variant, seed, engine_path="auto"):
        core = KeineAhnungCore(num_envs, rules_of(variant), seed=seed)
        if engine_path == "parallel":
            core.parallel_min_games = 0  # every call through the prange kernels, whatever the batch
        elif engine_path == "serial":
            core.parallel_min_games = 10 ** 9  # every call on the calling thread
        elif engine_path != "auto":
            raise ValueError(f"engine_path={engine_path!r}; allowed: {self.engine_paths}")
        if engine_path != "auto":
            core.seed(seed)
            core.reset_games(np.arange(num_envs))  # deal again on the forced path
        return core

    def make_lone_game(self, variant, seed, index, engine_path="auto"):
        core = self.make_core(1, variant, seed, engine_path)
        core.seed(seed, [0], [index])  # row 0 takes game `index`'s stream (the BatchedCore protocol)
        core.reset_games(np.array([0]))
        return core

    def _options(self, variant):
        options = dict(variant)
        return options.pop("num_players"), options

    def vector_env(self, num_envs, variant, seed=None, autoreset=True):
        num_players, options = self._options(variant)
        return keine_ahnung_v0.vector_env(num_envs, num_players=num_players, seed=seed, autoreset=autoreset, **options)

    def raw_env(self, variant, **kwargs):
        num_players, options = self._options(variant)
        return keine_ahnung_v0.raw_env(num_players=num_players, **kwargs, **options)

    def env(self, variant, **kwargs):
        num_players, options = self._options(variant)
        return keine_ahnung_v0.env(num_players=num_players, **kwargs, **options)

    def solo_env(self, variant, opponents, **kwargs):
        num_players, options = self._options(variant)
        return keine_ahnung_v0.solo_env(opponents, num_players=num_players, **kwargs, **options)

    def sb3_vec_env(self, num_envs, variant, opponents, **kwargs):
        num_players, options = self._options(variant)
        return keine_ahnung_v0.sb3_vec_env(num_envs, opponents, num_players=num_players, **kwargs, **options)

    def random_agent(self, seed):
        from agents.base import RandomAgent

        return RandomAgent(seed)

    # ------------------------------------------------------------------ state
    def snapshot(self, core, b):
        return core.snapshot(b)

    def fingerprint(self, core, b):
        return (core.snapshot(b), core.legal_mask[b].tolist(), core.rewards[b].tolist(),
                core.rng_state[b].tolist())

    def observation_high(self, core):
        return core.obs_layout.high(core.tables)

    def observation_string(self, core, observation):
        return observation_string(observation, core.obs_layout, core.tables)

    def check_final_rewards(self, core, ended):
        rewards = core.rewards[ended].astype(np.float64)
        assert np.isfinite(rewards).all()
        truncated = core.truncated[ended] & ~core.terminated[ended]
        assert not rewards[truncated].any(), "a truncated game was paid a reward"
        term = ~truncated
        mode = core.rules.reward
        if mode in ("win", "rank"):
            np.testing.assert_allclose(rewards[term].sum(axis=1), 0.0, atol=1e-5, err_msg=f"{mode!r} is zero-sum")
            assert (np.abs(rewards[term]) <= 1.0 + 1e-6).all()
        if mode == "score":
            np.testing.assert_array_equal(rewards[term], core.scores[ended][term])
        if mode == "win":
            scores, holdings = core.scores[ended][term], core.holdings[ended][term]
            for row, r in zip(zip(scores, holdings), rewards[term]):
                s, h = row
                best = max(zip(s.tolist(), h.tolist()))
                winners = np.array([(x, y) == best for x, y in zip(s.tolist(), h.tolist())])
                assert (r[winners] >= 0).all() and (winners.all() or (r[winners] > 0).all()), "the winners were not paid"

    def check_game_invariants(self, core):
        """Every card in exactly one consistent place, trophies conserved, phases, masks and scores
        (whole-batch array checks; a failure names the games)."""
        t, P, B = core.tables, core.num_players, core.num_envs
        N, T = t.num_cards, t.num_trophies
        rules = core.rules
        games = np.arange(B)

        def check(ok, what):
            ok = np.asarray(ok)
            if not ok.all():
                bad = np.flatnonzero(~ok.reshape(B, -1).all(axis=1)) if ok.ndim else games
                raise AssertionError(f"{what} (games {bad.tolist()[:8]}); game {int(bad[0])}: {core.snapshot(int(bad[0]))}")

        loc, where, known = core.card_loc, core.card_where, core.card_known
        check((loc >= LOC_DRAW) & (loc <= LOC_PENDING), "a card has no valid location")
        # Layouts and the draw pile: every listed card lies there (per card_loc/card_where), no card
        # is listed twice, and every card card_loc puts there is listed.
        layout = core.layout.reshape(B, P * SLOTS)
        seat_of_slot = np.repeat(np.arange(P), SLOTS)[None, :]
        present = layout >= 0
        ids = np.where(present, layout, 0)
        check(~present | ((loc[games[:, None], ids] == LOC_LAYOUT) & (where[games[:, None], ids] == seat_of_slot)),
              "a layout card is not LOC_LAYOUT of its seat")
        check(present.sum(axis=1) == (loc == LOC_LAYOUT).sum(axis=1), "LOC_LAYOUT cards outside the layouts")
        check((0 <= core.draw_pos) & (core.draw_pos <= core.draw_len) & (core.draw_len <= N), "draw pile bounds")
        pos = np.arange(N)[None, :]
        in_draw = (pos >= core.draw_pos[:, None]) & (pos < core.draw_len[:, None])
        draw_ids = np.where(in_draw, core.draw_cards, 0)
        check(~in_draw | (loc[games[:, None], draw_ids] == LOC_DRAW), "a draw-pile card is not LOC_DRAW")
        check(in_draw.sum(axis=1) == (loc == LOC_DRAW).sum(axis=1), "LOC_DRAW cards outside the draw pile")
        check(~(known & (loc == LOC_DRAW)), "a card in the draw pile is marked known")
        listed = np.concatenate([np.where(present, games[:, None] * N + layout, -1),
                                 np.where(in_draw, games[:, None] * N + core.draw_cards, -1)], axis=1)
        counts = np.bincount(listed[listed >= 0], minlength=B * N).reshape(B, N)
        check(counts <= 1, "a card is listed twice (layouts and draw pile)")
        # Discard piles: tops consistent with piles, faces and counts; no prizes; all known.
        count = core.pile_count.astype(np.int64)
        k = np.arange(core.pile_top.shape[1])[None, :]
        is_pile = k < count[:, None]
        tops = np.where(is_pile, core.pile_top, 0)
        check(np.where(is_pile, core.pile_top >= 0, core.pile_top < 0), "pile_top and pile_count disagree")
        check(~is_pile | ((loc[games[:, None], tops] == LOC_PILE) & (where[games[:, None], tops] == k)),
              "a pile top is not on its pile")
        check(np.where(is_pile, core.pile_face == t.face[tops], core.pile_face == NO_FACE), "pile_face is stale")
        faces = np.zeros((B, NUM_FACES + 1), np.int64)
        np.add.at(faces, (np.broadcast_to(games[:, None], tops.shape)[is_pile], t.face[tops][is_pile]), 1)
        check(faces[:, :NUM_FACES] == core.top_count, "top_count does not count the pile tops")
        on_pile = loc == LOC_PILE
        check(~on_pile | (where < count[:, None]), "a card on a pile that does not exist")
        check(~(on_pile & t.is_prize[None, :]), "a consolation prize on a discard pile")
        check(~on_pile | known, "a discard-pile card is not marked known")
        check(~(loc == LOC_ASIDE) | known, "a set-aside card is not marked known")
        # Prizes: won prizes are prizes of a seat and add up.
        won = loc == LOC_PRIZE
        check(~won | (t.is_prize[None, :] & (where >= 0) & (where < P)), "a won prize is not a prize of a seat")
        for seat in range(P):
            mine = won & (where == seat)
            check(core.prize_count[:, seat] == mine.sum(axis=1), f"prize count of seat {seat}")
            check(core.prize_points[:, seat] == np.where(mine, t.prize_value[None, :], 0).sum(axis=1),
                  f"prize points of seat {seat}")
        # The pending card and the phase.
        phase, pending, slot, current = (core.phase.astype(np.int64), core.pending.astype(np.int64),
                                         core.pending_slot.astype(np.int64), core.current.astype(np.int64))
        check((current >= 0) & (current < P), "the seat to act is out of range")
        drawn, revealed = phase == Phase.PLACE_DRAWN, phase == Phase.PLACE_REVEALED
        safe = np.maximum(pending, 0)
        check(~drawn | ((pending >= 0) & (loc[games, safe] == LOC_PENDING) & (slot == -1)), "PLACE_DRAWN pending card")
        in_slot = core.layout[games, current, np.clip(slot, 0, SLOTS - 1)]
        check(~revealed | ((slot >= 0) & (pending >= 0) & (in_slot == pending) & known[games, safe]),
              "PLACE_REVEALED pending card")
        check(drawn | revealed | ((pending == -1) & (slot == -1)), "a pending card outside a placing phase")
        check((loc == LOC_PENDING).sum(axis=1) == drawn, "LOC_PENDING outside PLACE_DRAWN")
        # Trophies: the set is conserved; won = owned; counts and points add up.
        order, owner = core.trophy_order, core.trophy_owner
        tpos = core.trophy_pos.astype(np.int64)
        check(np.sort(order, axis=1) == np.sort(t.trophies)[None, :], "the trophy set changed")
        j = np.arange(T)[None, :]
        check(np.where(j < tpos[:, None], owner >= 0, owner == -1), "trophy owners and trophy_pos disagree")
        check((owner < P), "a trophy owner is not a seat")
        for seat in range(P):
            check(core.trophy_count[:, seat] == (owner == seat).sum(axis=1), f"trophy count of seat {seat}")
            check(core.trophy_points[:, seat] == np.where(owner == seat, order, 0).sum(axis=1),
                  f"trophy points of seat {seat}")
        check(core.scores == core.trophy_points.astype(np.int64) + core.prize_points, "scores")
        # The end of the game.
        term, trunc = core.terminated, core.truncated
        check(~(term & trunc), "terminated and truncated at once")
        check(term == (tpos == T), "terminated is not 'the last trophy was won'")
        check((phase == Phase.OVER) == (term | trunc), "phase OVER is not 'terminated or truncated'")
        check((core.turn >= 0) & (core.turn <= rules.max_turns), "turn out of range")
        check(~trunc | (core.turn == rules.max_turns), "truncated before max_turns")
        # The legal actions of the seat to act, by phase.
        mask = core.legal_mask
        main, placing, over = phase == Phase.MAIN, drawn | revealed, phase == Phase.OVER
        check(~over | ~mask.any(axis=1), "legal actions in a finished game")
        occupied = core.layout[games, current] >= 0
        check(~main[:, None] | (mask[:, :SLOTS] == occupied), "reveal actions are not the occupied slots")
        check(~main | (mask[:, ACTION_CALL] == (occupied.sum(axis=1) <= CALL_MAX_CARDS)), "CALL legality")
        check(~main[:, None] | ~mask[:, ACTION_PLACE_BASE:], "placing actions in MAIN")
        fits = t.compat[np.where(pending >= 0, t.face[safe], NO_FACE), :NUM_FACES] & (core.top_count > 0)
        check(~placing[:, None] | ~mask[:, :ACTION_PLACE_BASE], "MAIN actions while placing")
        check(~placing[:, None] | (mask[:, ACTION_PLACE_BASE:ACTION_KEEP] == fits), "the piles offered are not the fitting ones")
        keep = revealed & rules.allow_keep
        check(~placing | (mask[:, ACTION_KEEP] == keep), "KEEP legality")
        check(~placing | (fits.sum(axis=1) >= np.where(keep, 1, 2)), "a pile choice without a choice")

    # ------------------------------------------------------------------ hidden information
    def hidden_variants(self, core, b, seat, rng, count: int = 2):
        for _ in range(count):
            other = copy.deepcopy(core)
            permute_cards(other, b, hidden_permutation(core, b, rng))
            shuffle_trophies(other, b, seat, rng)
            yield other

    def visible_variant(self, core, b, seat, rng):
        """Every card relabelled at random (visible ones included): the seat's view should change."""
        other = copy.deepcopy(core)
        permute_cards(other, b, rng.permutation(core.tables.num_cards))
        return other

    # ------------------------------------------------------------------ bad input
    def bad_options(self):
        return [
            ({"num_players": 6}, r"num_players=6 for keine_ahnung_v0; allowed: integers 2-5"),  # the registry's check
            ({"num_players": 1}, r"num_players=1 for keine_ahnung_v0; allowed"),
            ({"num_players": "4"}, r"num_players='4' for keine_ahnung_v0; allowed"),
            ({"num_players": 4.0}, r"num_players=4.0 for keine_ahnung_v0; allowed"),
            ({"memory": "partial"}, r"memory='partial'; allowed: 'perfect', 'none'"),
            ({"memory": None}, r"memory=None; allowed"),
            ({"reward": "points"}, r"reward='points'; allowed: 'win', 'score', 'rank'"),
            ({"max_turns": 0}, r"max_turns=0; allowed: a positive integer"),
            ({"max_turns": 2.5}, r"max_turns=2.5; allowed"),
            ({"max_turns": True}, r"max_turns=True; allowed"),
            ({"allow_keep": "yes"}, r"allow_keep='yes'; allowed: True or False"),
            ({"reshuffle_discards": 1}, r"reshuffle_discards=1; allowed: True or False"),
            ({"colour_blind": True}, r"unknown rules option\(s\) \['colour_blind'\]; allowed: "),
            ({"deck": "default"}, r"deck: expected None, a DeckSpec or a mapping"),
            ({"deck": {"cards": []}}, r"deck: unknown keys \['cards'\]; allowed"),
            ({"deck": {"prizes": [1]}}, r"deck: a mapping needs the key 'number_cards'"),
            ({"deck": {"number_cards": []}}, r"number_cards is empty"),
            ({"deck": {"number_cards": [("pink", 1, "none")] * 40}}, r"colour 'pink'; allowed: blue"),
            ({"deck": {"number_cards": [("red", 7, "none")] * 40}}, r"number 7; allowed: 1-6"),
            ({"deck": {"number_cards": [("red", 1.0, "none")] * 40}}, r"number 1.0; allowed: 1-6"),
            ({"deck": {"number_cards": [("red", 1, "teleport")] * 40}}, r"function 'teleport'; allowed"),
            ({"deck": {"number_cards": [("red", 1)] * 40}}, r"not a \(colour, number, function\) triple"),
            ({"deck": {"number_cards": [("red", 1, "none")] * 40, "prizes": [-1]}}, r"prizes\[0\]=-1; allowed"),
            ({"deck": {"number_cards": [("red", 1, "none")] * 40, "trophies": []}}, r"trophies is empty"),
            ({"deck": {"number_cards": [("red", 1, "none")] * 40, "trophies": [0]}}, r"trophies\[0\]=0; allowed"),
            ({"deck": {"number_cards": [("red", 1, "none")] * 12, "prizes": []}},
             r"cannot deal 6 to each of \d players and leave a draw pile; allowed: at least"),
        ]


KA = KeineAhnungAdapter()
