"""dnp's compiled core against the pure-Python reference engine (issue 16): on many random games of
every player count and several rules options, every snapshot, legal mask, observation of every seat,
reward and score agree step by step, the next rounds' deals included."""

from __future__ import annotations

import numpy as np
import pytest

from keine_ahnung_env.games.dnp.config import Rules
from keine_ahnung_env.games.dnp.core import DnpCore
from keine_ahnung_env.games.dnp.reference import DISCARD, HAND, OUT, TABLE, ReferenceGame
from keine_ahnung_env.rng import GameRandom

SMALL_DECK = [(1, 5, "none", True), (2, 5, "none"), (2, 7, "none"), (3, 4, "none"), (3, 6, "none"),
              (5, 10, "none"), (6, 10, "none"), (7, 9, "none"), (1, 9, "none")]
CROWDED_DECK = [(1, 5, "none", True)] + [(2, 3, "none")] * 45 + [(3, 2, "none")] * 30 + [(9, 4, "none")] * 4
"""The most cards a deck may hold (80), nearly all of values 2 and 3: sets and hands of far more cards of
one value than the real deck allows."""


def play_side_by_side(rules: Rules, seed: int, num_envs: int, steps: int, policy_seed: int = 0) -> dict:
    rng = np.random.default_rng(policy_seed)
    core = DnpCore(num_envs, rules, seed=seed)
    refs = [ReferenceGame(rules, GameRandom.for_game(seed, i)) for i in range(num_envs)]
    stats = {"ended": 0, "truncated": 0, "rounds": 0, "steps": 0}
    for step in range(steps):
        for b, ref in enumerate(refs):
            where = f"game {b}, step {step}"
            assert core.snapshot(b) == ref.snapshot(), where
            assert core.legal_mask[b].tolist() == ref.legal_mask(), where
            assert core.rewards[b].tolist() == np.float32(ref.rewards).tolist(), where
            assert core.scores[b].tolist() == ref.points, where
            obs = core.observe(np.arange(rules.num_players), games=np.full(rules.num_players, b))
            for seat in range(rules.num_players):
                np.testing.assert_array_equal(obs[seat], np.float32(ref.observe(seat)), err_msg=f"{where}, seat {seat}")
        actions = np.zeros(num_envs, np.int64)
        for b in range(num_envs):
            if core.done[b]:
                stats["ended"] += 1
                stats["truncated"] += int(core.truncated[b])
                stats["rounds"] += int(core.rounds[b])
                core.seed(seed + 1000 + step, [b])
                core.reset_games([b])
                refs[b] = ReferenceGame(rules, GameRandom.for_game(seed + 1000 + step, b))
            actions[b] = rng.choice(np.flatnonzero(core.legal_mask[b]))
        core.step(actions)
        for b, ref in enumerate(refs):
            ref.step(int(actions[b]))
        stats["steps"] += 1
    return stats


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_core_matches_the_reference_on_random_games(players):
    stats = play_side_by_side(Rules.make(players), seed=players, num_envs=4, steps=700)
    assert stats["ended"] >= 2 and stats["rounds"] >= 2


@pytest.mark.parametrize("options", [
    {"num_players": 3, "finisher_set": "closed", "reward": "rank"},
    {"num_players": 4, "reward": "score", "win_points": 2, "max_turns": 60},
    {"num_players": 2, "win_rounds": 3, "max_turns": 90},
    {"num_players": 3, "deck": SMALL_DECK, "win_points": 6},
    {"num_players": 2, "deck": CROWDED_DECK, "max_turns": 200},
])
def test_core_matches_the_reference_with_other_options(options):
    options = dict(options)
    stats = play_side_by_side(Rules.make(options.pop("num_players"), **options), seed=5, num_envs=3, steps=300)
    assert stats["ended"] >= 1


def test_game_i_is_the_same_in_any_batch_size_and_after_load():
    rules = Rules.make(4)
    big, small = DnpCore(70, rules, seed=3), DnpCore(2, rules, seed=3)  # 70: the parallel kernels
    assert big.snapshot(1) == small.snapshot(1) and big.snapshot(0) == small.snapshot(0)
    alone = DnpCore(1, rules, seed=0)
    alone.seed(3, [0], [65])
    alone.reset_games([0])
    assert alone.snapshot(0) == big.snapshot(65)
    np.testing.assert_array_equal(alone.observe(2), big.observe(2, games=np.array([65])))


def test_step_refuses_bad_actions_and_changes_nothing():
    core = DnpCore(3, Rules.make(3), seed=1)
    before = [core.snapshot(b) for b in range(3)]
    illegal = np.flatnonzero(~core.legal_mask[0])[0]
    for actions, message in (([illegal, 0, 0], r"illegal action .* legal there"), ([99, 0, 0], "out of range"),
                             ([0.5, 0, 0], "integers"), ([0, 0], "shape")):
        with pytest.raises(ValueError, match=message):
            core.step(np.array(actions))
    assert [core.snapshot(b) for b in range(3)] == before


def random_position(rules: Rules, rng: np.random.Generator) -> dict:
    """A random position for ``DnpCore.load``: random orientations, random sets on the table (any
    sizes, several of one size, the mover's own position included), random hands, discards and
    finishers; positions play never reaches are welcome, the mask's rules must agree on all."""
    tables = rules.tables()
    P, T = rules.num_players, rules.num_players * rules.areas
    cards = rng.permutation(np.flatnonzero(tables.in_play)).tolist()
    rotated = [c for c in cards if rng.random() < 0.5]
    active = {c: int(tables.values[c, int(c in rotated)]) for c in cards}
    table = [[] for _ in range(T)]
    for pos in rng.permutation(T)[:rng.integers(0, T + 1)]:
        value = active[cards[0]]
        same = [c for c in cards if active[c] == value]
        largest = len(same) if rng.random() < 0.3 else max(1, len(same) // 2)  # mostly leave some to add
        table[pos] = same[:rng.integers(1, largest + 1)]
        cards = [c for c in cards if c not in table[pos]]
    discard = cards[:rng.integers(0, len(cards) // 4 + 1)]
    cards = cards[len(discard):]
    owners = rng.integers(0, P, len(cards))
    hands = [[c for c, o in zip(cards, owners) if o == p] for p in range(P)]
    out = [False] * P
    if P > 2 and rng.random() < 0.4:
        out[int(rng.integers(P))] = True
    current = int(rng.choice([p for p in range(P) if not out[p]]))
    public = [c for h in hands for c in h if rng.random() < 0.3]
    return dict(hands=hands, table=table, rotated=rotated, public=public, discard=discard, out=out,
                current=current, area=int(rng.integers(rules.areas)))


def reference_at(rules: Rules, position: dict) -> ReferenceGame:
    """The reference engine put in ``position`` (the fields its ``deal`` sets, overwritten)."""
    ref = ReferenceGame(rules, GameRandom.for_game(0, 0))
    ref.loc = [(OUT,)] * ref.N
    for seat, hand in enumerate(position["hands"]):
        for c in hand:
            ref.loc[c] = (HAND, seat)
    for pos, cards in enumerate(position["table"]):
        for c in cards:
            ref.loc[c] = (TABLE, pos)
    for c in position["discard"]:
        ref.loc[c] = (DISCARD,)
    ref.rot = [int(c in position["rotated"]) for c in range(ref.N)]
    ref.public = [c in position["public"] for c in range(ref.N)]
    ref.out, ref.finishers = list(position["out"]), sum(position["out"])
    ref.current, ref.area, ref.selection = position["current"], position["area"], []
    return ref


@pytest.mark.parametrize("options", [
    {"num_players": 2}, {"num_players": 3}, {"num_players": 4, "finisher_set": "closed"}, {"num_players": 5},
    {"num_players": 3, "deck": SMALL_DECK}, {"num_players": 2, "deck": CROWDED_DECK},
])
def test_masks_match_the_reference_on_random_positions(options):
    """The legal mask, and after each random SELECT the next one, on positions random play rarely or
    never reaches (large sets, several sets of one size, a set at the mover's own position)."""
    options = dict(options)
    rules = Rules.make(options.pop("num_players"), **options)
    rng = np.random.default_rng(len(options) * 10 + rules.num_players)
    core = DnpCore(1, rules, seed=0)
    seen = {"selected": 0, "play": 0, "add": 0}
    for trial in range(200):
        position = random_position(rules, rng)
        core.load(0, **position)
        ref = reference_at(rules, position)
        while True:
            mask = core.legal_mask[0]
            assert mask.tolist() == ref.legal_mask(), f"trial {trial}, selection {ref.selection}: {position}"
            seen["play"] += bool(mask[core.actions.play])
            seen["add"] += bool(mask[core.actions.add_base:core.actions.take_base].any())
            selects = np.flatnonzero(mask[:core.actions.play])
            if selects.size == 0 or rng.random() < 0.2:
                break
            card = int(rng.choice(selects))
            core.step(np.array([card]))
            ref.step(card)
            seen["selected"] += 1
    assert min(seen.values()) >= 10, seen


@pytest.mark.parametrize("set_size", [62, 63, 64, 70])
def test_masks_match_the_reference_with_sets_of_more_than_62_cards(set_size):
    """Sets and hands past the 64 sizes the mask's bit words hold (``kernels._blocked_sizes``): a set of
    ``set_size`` cards of value 2 in front of the opponent, the mover holding the other cards of value 2,
    then after each SELECT (adding one card to that set makes a set of ``set_size + 1``; playing them all
    makes a set of up to ``78 - set_size``)."""
    rules = Rules.make(2, deck=[(1, 5, "none", True)] + [(2, 3, "none")] * 79)
    table_cards = list(range(1, set_size + 1))
    position = dict(hands=[list(range(set_size + 1, 79)), [0, 79]], table=[[], [], table_cards, []],
                    current=0, area=1)
    core = DnpCore(1, rules, seed=0)
    core.load(0, **position)
    ref = reference_at(rules, {**position, "rotated": [], "public": [], "discard": [], "out": [False, False]})
    for card in position["hands"][0][:3]:
        assert core.legal_mask[0].tolist() == ref.legal_mask(), ref.selection
        core.step(np.array([card]))
        ref.step(card)
    assert core.legal_mask[0].tolist() == ref.legal_mask()


def test_parallel_and_serial_kernels_give_the_same_games():
    """The parallel kernels (ranges of games in a ``prange``) step, deal and observe exactly as the
    serial loop does, over many moves, re-deals and ended games included."""
    rules = Rules.make(4, max_turns=120)
    cores = [DnpCore(90, rules, seed=11), DnpCore(90, rules, seed=11)]
    cores[0].parallel_min_games, cores[1].parallel_min_games = 0, 10**9
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(400):
        done = np.flatnonzero(cores[0].done)
        ended += done.size
        for core in cores:
            if done.size:
                core.reset_games(done)
        for name in cores[0].state_array_names() + ("rng_state",):
            np.testing.assert_array_equal(getattr(cores[0], name), getattr(cores[1], name), err_msg=name)
        np.testing.assert_array_equal(cores[0].observe(cores[0].current), cores[1].observe(cores[1].current))
        draws = rng.random(90)
        actions = np.array([np.flatnonzero(m)[int(d * m.sum())] for m, d in zip(cores[0].legal_mask, draws)])
        for core in cores:
            core.step(actions)
    assert ended >= 20
