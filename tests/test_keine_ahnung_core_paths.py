"""The compiled core's execution paths: the serial kernel (small batches, on the calling thread) and the
parallel kernel (a ``prange`` over ranges of games, any number of Numba threads) give the same games,
bit for bit, as each other and as the pure-Python reference engine; state written from outside is
picked up; game i is the same alone or in a batch.

``test_keine_ahnung_core.py`` compares the default core with the reference on many more games.
"""

import copy

import numba
import numpy as np
import pytest

from agents.base import sample_masked
from keine_ahnung_env.games.keine_ahnung import KeineAhnungCore, ReferenceGame, Rules
from keine_ahnung_env.games.keine_ahnung.core import STATE_ARRAYS
from keine_ahnung_env.games.keine_ahnung.deck import DeckSpec
from keine_ahnung_env.rng import GameRandom

ALWAYS_PARALLEL, ALWAYS_SERIAL = 0, 10**9

CONFIGS = [
    dict(num_players=2),
    dict(num_players=3),
    dict(num_players=4),
    dict(num_players=5),
    dict(num_players=4, allow_keep=True, memory="none", reward="rank"),
    dict(num_players=3, reshuffle_discards=False, reward="score", max_turns=150),
]
IDS = ["-".join(f"{k}={v}" for k, v in c.items()) for c in CONFIGS]


def make_core(games, rules, seed, parallel_min_games):
    core = KeineAhnungCore(games, rules, seed=seed)
    core.parallel_min_games = parallel_min_games
    core.seed(seed)
    core.reset_games(np.arange(games))  # deal again on the forced path
    return core


def play_random_step(core, rng):
    """One random legal action per game; finished games are dealt again."""
    core.step(sample_masked(rng, core.legal_mask))
    done = np.flatnonzero(core.done)
    if done.size:
        core.reset_games(done)


def assert_same_state(a, b, where):
    for name in STATE_ARRAYS + ("rng_state",):
        x, y = getattr(a, name), getattr(b, name)
        assert x.dtype == y.dtype and np.array_equal(x, y), f"{name} differs {where}"


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_forced_paths_match_the_reference(config):
    config = dict(config)
    num_players = config.pop("num_players")
    rules = Rules.make(num_players, **config)
    games, seed = 24, 7 + num_players
    for parallel_min_games in (ALWAYS_PARALLEL, ALWAYS_SERIAL):
        core = make_core(games, rules, seed, parallel_min_games)
        refs = [ReferenceGame(rules, GameRandom.for_game(seed, i)) for i in range(games)]
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
                    assert core.snapshot(b) == refs[b].snapshot(), \
                        f"game {b}, step {steps}, parallel_min_games={parallel_min_games}"
            if steps % 40 == 0:
                seat = steps % num_players
                obs = core.observe(seat)
                for b in live[::5]:
                    np.testing.assert_array_equal(obs[b], refs[b].observe(seat))


@pytest.mark.parametrize("config", CONFIGS, ids=IDS)
def test_serial_parallel_and_thread_counts_agree_with_resets_and_partial_steps(config):
    config = dict(config)
    num_players = config.pop("num_players")
    rules = Rules.make(num_players, **config)
    games, seed = 40, 3
    serial = make_core(games, rules, seed, ALWAYS_SERIAL)
    parallel = make_core(games, rules, seed, ALWAYS_PARALLEL)
    threads = numba.get_num_threads()
    rng = np.random.default_rng(seed)
    try:
        for step in range(400):
            active = rng.random(games) < 0.6 if step % 5 == 2 else None
            if active is not None and not (active & ~serial.done).any():
                active = None
            actions = sample_masked(rng, serial.legal_mask)
            serial.step(actions, active=active)
            numba.set_num_threads(1 + step % threads)  # 1 thread, then 2, ...
            parallel.step(actions, active=active)
            assert_same_state(serial, parallel, f"after step {step}")
            if step % 50 == 0:
                seats = rng.integers(0, num_players, games)
                np.testing.assert_array_equal(parallel.observe(seats), serial.observe(seats))
            done = np.flatnonzero(serial.done)
            if done.size and step % 4 == 0:
                serial.reset_games(done)
                parallel.reset_games(done)
    finally:
        numba.set_num_threads(threads)


def test_batch_of_one_matches_a_big_batch():
    rules = Rules.make(4)
    big = KeineAhnungCore(300, rules, seed=11)  # over parallel_min_games: the parallel kernels
    singles = []
    for i in range(5):
        core = KeineAhnungCore(1, rules, seed=None)
        core.seed(11, [0], [i])
        core.reset_games(np.zeros(1, np.intp))
        singles.append(core)
    rng = np.random.default_rng(0)
    for step in range(600):
        if big.done[:5].all():
            break
        actions = sample_masked(rng, big.legal_mask)
        big.step(actions)
        for i, core in enumerate(singles):
            if not core.done[0]:
                core.step(actions[i : i + 1])
            assert core.snapshot(0) == big.snapshot(i)
            np.testing.assert_array_equal(core.observe(step % 4), big.observe(step % 4)[i : i + 1])


def test_state_written_from_outside_is_what_the_next_step_reads():
    """risk.py and the tests copy or replace state arrays between cores; the core keeps no caches."""
    rules = Rules.make(3)
    source = KeineAhnungCore(6, rules, seed=1)
    rng = np.random.default_rng(1)
    for _ in range(60):
        play_random_step(source, rng)
    replaced = KeineAhnungCore(6, rules, seed=99)  # different games: arrays replaced
    written = KeineAhnungCore(6, rules, seed=98)  # different games: arrays written in place
    for name in STATE_ARRAYS + ("rng_state",):
        setattr(replaced, name, getattr(source, name).copy())
        getattr(written, name)[...] = getattr(source, name)
    for _ in range(200):
        actions = sample_masked(rng, source.legal_mask)
        if source.done.all():
            break
        for core in (source, replaced, written):
            core.step(actions)
        assert_same_state(source, replaced, "after a replaced state")
        assert_same_state(source, written, "after a state written in place")


def test_deepcopy_continues_identically():
    core = KeineAhnungCore(300, Rules.make(4), seed=2)
    rng = np.random.default_rng(2)
    for _ in range(30):
        play_random_step(core, rng)
    twin = copy.deepcopy(core)
    for _ in range(100):
        actions = sample_masked(rng, core.legal_mask)
        core.step(actions)
        twin.step(actions)
        done = np.flatnonzero(core.done)
        core.reset_games(done)
        twin.reset_games(done)
    assert_same_state(core, twin, "after 100 steps")


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
