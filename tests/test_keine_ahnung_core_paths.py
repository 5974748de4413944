"""The batched core's two execution paths (whole-batch array rounds, one-game scalar steps) and its
private caches: every path gives the same games, bit for bit, as the scalar reference engine.

``test_keine_ahnung_core.py`` compares the default core (batched rounds, scalar tails) with the
reference; here each path is forced on its own and the paths are compared with each other.
"""

import copy

import numpy as np
import pytest

from agents.base import sample_masked
from keine_ahnung_env.games.keine_ahnung import KeineAhnungCore, ReferenceGame, Rules
from keine_ahnung_env.games.keine_ahnung.core import _STATE_ARRAYS, game_seed_sequences
from keine_ahnung_env.games.keine_ahnung.deck import DeckSpec

ALWAYS_BATCHED, ALWAYS_SCALAR = 0, 10**9

CONFIGS = [
    dict(num_players=2),
    dict(num_players=3),
    dict(num_players=4),
    dict(num_players=5),
    dict(num_players=4, allow_keep=True, memory="none", reward="rank"),
    dict(num_players=3, reshuffle_discards=False, reward="score", max_turns=150),
]
IDS = ["-".join(f"{k}={v}" for k, v in c.items()) for c in CONFIGS]


def make_core(games, rules, seed, scalar_max):
    core = KeineAhnungCore(games, rules, seed=seed)
    core._SCALAR_MAX = scalar_max
    if scalar_max != KeineAhnungCore._SCALAR_MAX:  # deal again on the forced path
        core.seed(seed)
        core.reset_games(np.arange(games))
    return core


def play_random_step(core, rng):
    """One random legal action per game; finished games are dealt again."""
    core.step(sample_masked(rng, core.legal_mask))
    done = np.flatnonzero(core.done)
    if done.size:
        core.reset_games(done)


def assert_same_state(a, b, where):
    for name in _STATE_ARRAYS:
        x, y = getattr(a, name), getattr(b, name)
        if name in ("pile_top", "pile_face"):  # capacity may have grown differently
            k = min(x.shape[1], y.shape[1])
            x, y = x[:, :k], y[:, :k]
        assert x.dtype == y.dtype and np.array_equal(x, y), f"{name} differs {where}"


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_forced_paths_match_the_reference(config):
    config = dict(config)
    num_players = config.pop("num_players")
    rules = Rules.make(num_players, **config)
    games, seed = 24, 7 + num_players
    for scalar_max in (ALWAYS_BATCHED, ALWAYS_SCALAR):
        core = make_core(games, rules, seed, scalar_max)
        refs = [ReferenceGame(rules, np.random.Generator(np.random.PCG64(s)))
                for s in game_seed_sequences(seed, range(games))]
        rng = np.random.default_rng(seed)
        steps = 0
        while not core.done.all():
            live = np.flatnonzero(~core.done)
            actions = sample_masked(rng, core.legal_mask)
            for b in live:
                refs[b].step(int(actions[b]))
            core.step(actions)
            steps += 1
            for b in live:
                assert np.flatnonzero(core.legal_mask[b]).tolist() == refs[b].legal_actions()
                assert core.rewards[b].tolist() == refs[b].rewards.tolist()
                if steps % 25 == 0 or core.done[b]:
                    assert core.snapshot(b) == refs[b].snapshot(), f"game {b}, step {steps}, scalar_max={scalar_max}"
            if steps % 40 == 0:
                seat = steps % num_players
                obs = core.observe(seat)
                for b in live[::5]:
                    np.testing.assert_array_equal(obs[b], refs[b].observe(seat))


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_batched_scalar_and_default_paths_agree_with_resets_and_partial_steps(config):
    config = dict(config)
    num_players = config.pop("num_players")
    rules = Rules.make(num_players, **config)
    games, seed = 40, 3
    cores = [make_core(games, rules, seed, m) for m in (ALWAYS_BATCHED, KeineAhnungCore._SCALAR_MAX, ALWAYS_SCALAR)]
    rng = np.random.default_rng(seed)
    for step in range(700):
        active = rng.random(games) < 0.6 if step % 5 == 2 else None
        if active is not None and not (active & ~cores[0].done).any():
            active = None
        actions = sample_masked(rng, cores[0].legal_mask)
        for core in cores:
            core.step(actions, active=active)
        for core in cores[1:]:
            assert_same_state(cores[0], core, f"after step {step}")
        if step % 50 == 0:
            seats = rng.integers(0, num_players, games)
            expected = cores[0].observe(seats)
            for core in cores[1:]:
                np.testing.assert_array_equal(core.observe(seats), expected)
        done = np.flatnonzero(cores[0].done)
        if done.size and step % 4 == 0:
            for core in cores:
                core.reset_games(done)


def test_batch_of_one_matches_a_big_batch():
    rules = Rules.make(4)
    big = KeineAhnungCore(5, rules, seed=11)
    singles = []
    for i in range(5):
        core = KeineAhnungCore(1, rules, seed=None)
        core.rngs[0] = np.random.Generator(np.random.PCG64(game_seed_sequences(11, [i])[0]))
        core.reset_games(np.zeros(1, np.intp))
        singles.append(core)
    rng = np.random.default_rng(0)
    for step in range(600):
        if big.done.all():
            break
        actions = sample_masked(rng, big.legal_mask)
        big.step(actions)
        for i, core in enumerate(singles):
            if not core.done[0]:
                core.step(actions[i : i + 1])
            assert core.snapshot(0) == big.snapshot(i)
            np.testing.assert_array_equal(core.observe(step % 4), big.observe(step % 4)[i : i + 1])


def test_state_replaced_from_outside_rebuilds_the_private_caches():
    """risk.py copies states between cores by assigning new arrays; the caches must follow."""
    rules = Rules.make(3)
    source = KeineAhnungCore(6, rules, seed=1)
    rng = np.random.default_rng(1)
    for _ in range(60):
        play_random_step(source, rng)
    target = KeineAhnungCore(6, rules, seed=99)  # different games, different caches
    for name in _STATE_ARRAYS:
        setattr(target, name, getattr(source, name).copy())
    target.rngs = copy.deepcopy(source.rngs)
    for _ in range(200):
        actions = sample_masked(rng, source.legal_mask)
        if source.done.all():
            break
        source.step(actions)
        target.step(actions)
        assert_same_state(source, target, "after a copied-in state")


def test_observe_of_listed_games_equals_those_rows():
    cards = [(c, n, "reveal" if n == 1 else "none") for c in ("red", "blue") for n in range(1, 7) for _ in range(3)]
    deck = DeckSpec(number_cards=cards, prizes=(1, 0, 2), trophies=(3, 4))
    for rules in (Rules.make(3), Rules.make(2, memory="none", deck=deck)):
        core = KeineAhnungCore(20, rules, seed=1)
        rng = np.random.default_rng(1)
        for _ in range(60):
            seats = rng.integers(0, rules.num_players, 20)
            games = rng.choice(20, 7, replace=False)
            np.testing.assert_array_equal(core.observe(seats[games], games=games), core.observe(seats)[games])
            np.testing.assert_array_equal(core.observe(1, games=games), core.observe(1)[games])
            play_random_step(core, rng)
    with pytest.raises(ValueError, match="seat"):
        core.observe(5, games=[0])
    with pytest.raises(ValueError, match="games"):
        core.observe(0, games=[20])


@pytest.mark.parametrize("scalar_max", [ALWAYS_BATCHED, KeineAhnungCore._SCALAR_MAX, ALWAYS_SCALAR])
def test_private_caches_always_equal_a_rebuild_from_the_state(scalar_max):
    rules = Rules.make(4, allow_keep=True)
    core = make_core(16, rules, 5, scalar_max)
    fresh = KeineAhnungCore(16, rules, seed=5)
    rng = np.random.default_rng(5)
    for step in range(500):
        play_random_step(core, rng)
        for name in _STATE_ARRAYS:
            setattr(fresh, name, getattr(core, name).copy())
        fresh._rebuild_caches()
        for cache in ("_top_bits", "_occ", "_face_pile"):
            np.testing.assert_array_equal(getattr(core, cache), getattr(fresh, cache), err_msg=f"{cache}, step {step}")
