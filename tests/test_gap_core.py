"""The compiled gap-game core against the pure-Python reference engine, step by step: every snapshot
(piles, hands, hidden cards, draw order, phase, scores), every mask, every seat's observation, every
reward, on random games of every table size and rules option; plus the core's own surface (seeding,
``load``, bad input, views)."""

from __future__ import annotations

import numpy as np
import pytest

from keine_ahnung_env.games.gap import GapCore, Rules
from keine_ahnung_env.games.gap.actions import ACTION_PASS, Phase
from keine_ahnung_env.games.gap.reference import GapReference
from keine_ahnung_env.rng import GameRandom

VARIANTS = [
    {"num_players": 2}, {"num_players": 3}, {"num_players": 4}, {"num_players": 5},
    {"num_players": 2, "flip_on_extra_turns": False, "reward": "score"},
    {"num_players": 3, "reward": "rank", "round_reward_scale": 0.25},
    {"num_players": 4, "flip_on_extra_turns": False, "rounds": 2, "round_reward_scale": 1.0},
    {"num_players": 5, "max_turns": 60, "reward": "score"},
    {"num_players": 2, "rounds": 1, "max_turns": 25},
]


def _policy(rng: np.random.Generator, mask: np.ndarray, pass_weight: float) -> int:
    """A random legal action; ``pass_weight`` tilts it towards passing (long games, reshuffles, dry
    passes) or away from it (short rounds)."""
    legal = np.flatnonzero(mask)
    if mask[ACTION_PASS] and rng.random() < pass_weight:
        return ACTION_PASS
    return int(rng.choice(legal))


@pytest.mark.parametrize("variant", VARIANTS, ids=lambda v: "-".join(f"{k}={x}" for k, x in v.items()))
def test_core_matches_the_reference_step_by_step(variant):
    options = dict(variant)
    rules = Rules.make(options.pop("num_players"), **options)
    P, B, seed = rules.num_players, 6, 11
    core = GapCore(B, rules, seed=seed)
    refs = [GapReference(rules, GameRandom.for_game(seed, i)) for i in range(B)]
    rng = np.random.default_rng(P)
    pass_weight = rng.random(B)
    seen_phases, games, steps = set(), 0, 0
    while games < 2 * B and steps < 3000:
        for i in range(B):
            assert core.snapshot(i) == refs[i].snapshot(), f"game {i} at step {steps}"
            np.testing.assert_array_equal(core.legal_mask[i], refs[i].mask(), err_msg=f"game {i} mask at {steps}")
            seen_phases.add(int(core.phase[i]))
        for seat in range(P):
            obs = core.observe(seat)
            for i in range(B):
                np.testing.assert_array_equal(obs[i], refs[i].observe(seat), err_msg=f"game {i} seat {seat} at {steps}")
        active = rng.random(B) < 0.8
        actions = np.array([_policy(rng, core.legal_mask[i], pass_weight[i]) for i in range(B)])
        core.step(actions, active=active)
        steps += 1
        for i in range(B):
            if active[i]:
                refs[i].step(int(actions[i]))
                np.testing.assert_allclose(core.rewards[i], refs[i].rewards, rtol=1e-6, err_msg=f"game {i} rewards")
            else:
                assert not core.rewards[i].any()
            if core.done[i]:
                assert core.snapshot(i) == refs[i].snapshot()
                games += 1
                stream = core.rng_state[i].tolist()  # the row deals its next game from where its stream stands
                core.reset_games(np.array([i]))
                refs[i] = GapReference(rules, GameRandom(stream))
    assert games >= B and Phase.FLIP in seen_phases and Phase.HIDE in seen_phases


def test_reseeded_rows_deal_the_games_of_their_ids():
    rules = Rules(3)
    big = GapCore(9, rules, seed=4)
    small = GapCore(2, rules, seed=100)
    small.seed(4, indices=[0, 1], game_ids=[8, 3])
    small.reset_games(np.array([0, 1]))
    assert small.snapshot(0) == big.snapshot(8) and small.snapshot(1) == big.snapshot(3)
    ref = GapReference(rules, GameRandom.for_game(4, 8))
    assert ref.snapshot() == big.snapshot(8)


def test_illegal_actions_are_refused_naming_the_legal_ones_and_change_nothing():
    core = GapCore(3, Rules(2), seed=0)
    before = [core.snapshot(i) for i in range(3)]
    with pytest.raises(ValueError, match=r"illegal action 132 \(PASS\) for game 0.*legal there: \[1"):
        core.step(np.full(3, ACTION_PASS))
    with pytest.raises(ValueError, match=r"action 201 for game 0 is out of range; allowed: 0..200"):
        core.step(np.full(3, 201))
    with pytest.raises(ValueError, match=r"shape \(3,\)"):
        core.step(np.zeros(2, np.int64))
    with pytest.raises(ValueError, match=r"integers"):
        core.step(np.zeros(3))
    with pytest.raises(ValueError, match=r"seat must be in 0..1"):
        core.observe(2)
    with pytest.raises(ValueError, match=r"num_envs=0; allowed"):
        GapCore(0, Rules(2))
    assert [core.snapshot(i) for i in range(3)] == before


def test_load_refuses_inconsistent_positions():
    core = GapCore(1, Rules(2), seed=0)
    with pytest.raises(ValueError, match="at most once"):
        core.load(0, hands=[[1, 2], [2]], piles=[[3], [4]])
    with pytest.raises(ValueError, match="two non-empty piles"):
        core.load(0, hands=[[1], [2]], piles=[[3], []])


def test_privileged_inputs_hold_the_opponents_cards_and_the_next_draws():
    from keine_ahnung_env import gap_v0
    from keine_ahnung_env.games.gap.deck import NUM_CARDS

    spec = gap_v0.game_spec(3)
    core = spec.make_core(2, 9)
    rng = np.random.default_rng(1)
    for _ in range(40):
        core.step(np.array([rng.choice(np.flatnonzero(m)) for m in core.legal_mask]))
    x = spec.privileged_features(core, np.array([0, 2]))
    assert x.shape == (2, spec.privileged_size) and x.dtype == np.float32
    for b, seat in ((0, 0), (1, 2)):
        for rel in (1, 2):
            p = (seat + rel) % 3
            hand = x[b, (rel - 1) * 2 * NUM_CARDS:(rel - 1) * 2 * NUM_CARDS + NUM_CARDS]
            hidden = x[b, (rel - 1) * 2 * NUM_CARDS + NUM_CARDS:rel * 2 * NUM_CARDS]
            assert np.flatnonzero(hand).tolist() == core.hand(b, p) and np.flatnonzero(hidden).tolist() == core.hidden(b, p)
        draws = core.snapshot(b)["draw_pile"][:2]
        tail = x[b, 4 * NUM_CARDS:].reshape(2, NUM_CARDS)
        assert [int(np.flatnonzero(row)[0]) for row in tail[:len(draws)]] == draws


def test_play_masks_for_every_pair_of_tops_equal_the_reference_rules():
    """The compiled play mask (fits computed from the cards' colours and numbers) for every ordered pair
    of pile tops, with all 64 other cards in the hand of the seat to act: each card's two play entries
    are the reference's ``is_gap_card`` / ``matches``."""
    from keine_ahnung_env.games.gap.core import LOC_HAND, LOC_TOP
    from keine_ahnung_env.games.gap.reference import is_gap_card, matches

    pairs = [(a, b) for a in range(66) for b in range(66) if a != b]
    core = GapCore(len(pairs), Rules(2), seed=0)
    core.card_loc[:], core.card_owner[:] = LOC_HAND, 0
    expected = np.zeros(core.legal_mask.shape, bool)
    for g, (a, b) in enumerate(pairs):
        core.card_loc[g, [a, b]], core.card_owner[g, [a, b]] = LOC_TOP, [0, 1]
        core.pile_top[g] = a, b
        for c in range(66):
            if c not in (a, b):
                gap = is_gap_card(c, a, b)
                expected[g, 2 * c] = gap or matches(c, a)
                expected[g, 2 * c + 1] = gap or matches(c, b)
    expected[:, ACTION_PASS] = True  # a pass is always legal
    core.phase[:], core.current[:] = Phase.PLAY, 0
    core.refresh_masks()
    bad = np.flatnonzero((core.legal_mask != expected).any(axis=1))
    assert bad.size == 0, f"{bad.size} pairs of tops differ, first {pairs[bad[0]] if bad.size else None}"


@pytest.mark.parametrize("players", [2, 5])
def test_masks_of_random_positions_equal_the_reference_legal_actions(players):
    """Positions no random game reaches as often (any tops, hands of 0-15 cards, any seat to act), in the
    play and the hidden-card phase: the compiled mask against the reference's ``legal_actions``."""
    rules, n = Rules(players), 300
    core = GapCore(n, rules, seed=0)
    rng = np.random.default_rng(players)
    refs = []
    for b in range(n):
        deck = rng.permutation(66).tolist()
        sizes = rng.integers(0, min(15, 60 // players) + 1, players)  # at most 60 cards in hands: 4 left for the piles
        hands, at = [], 0
        for size in sizes:
            hands.append(deck[at:at + size])
            at += size
        piles = [deck[at:at + 1 + int(rng.integers(0, 3))], deck[at + 3:at + 4]]
        current = int(rng.integers(players))
        core.load(b, hands=hands, piles=piles, current=current, start_turn=False)
        ref = GapReference(rules, GameRandom.for_game(0, b))
        ref.hands, ref.piles, ref.current, ref.phase = [list(h) for h in hands], [list(p) for p in piles], current, Phase.PLAY
        refs.append(ref)
    for phase in (Phase.PLAY, Phase.HIDE):
        core.phase[:] = phase
        core.refresh_masks()
        for b, ref in enumerate(refs):
            ref.phase = phase
            assert np.flatnonzero(core.legal_mask[b]).tolist() == ref.legal_actions(), f"position {b}, {phase!r}"
