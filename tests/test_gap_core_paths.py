"""The gap-game core's execution paths: the serial range loop and the parallel kernel at 1 and 2
threads give the same games bit for bit; state written from outside is read; positions branch with
``state_arrays`` / ``from_state_arrays``."""

from __future__ import annotations

import numba
import numpy as np
import pytest

from keine_ahnung_env.games.gap import GapCore, Rules
from keine_ahnung_env.games.gap.actions import Phase, play_action
from keine_ahnung_env.games.gap.core import LOC_HAND
from keine_ahnung_env.games.gap.deck import parse_card


def _core(players: int, path: str, seed: int = 3, B: int = 40) -> GapCore:
    core = GapCore(B, Rules(players), seed=seed)
    core.parallel_min_games = 0 if path == "parallel" else 10**9
    core.seed(seed)
    core.reset_games(np.arange(B))  # dealt again on the chosen path
    return core


@pytest.mark.parametrize("players", [2, 4, 5])
def test_serial_and_parallel_paths_play_the_same_games(players):
    threads = numba.get_num_threads()
    cores = {"serial": _core(players, "serial"), "parallel": _core(players, "parallel")}
    rng = np.random.default_rng(players)
    try:
        for step in range(400):
            numba.set_num_threads(1 + step % min(2, threads))
            ref = cores["serial"]
            actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in ref.legal_mask])
            active = rng.random(ref.num_envs) < 0.9
            for core in cores.values():
                core.step(actions, active=active)
                done = np.flatnonzero(core.done)
                core.reset_games(done)
            other = cores["parallel"]
            np.testing.assert_array_equal(ref.legal_mask, other.legal_mask)
            np.testing.assert_array_equal(ref.rewards, other.rewards)
            seats = rng.integers(0, players, ref.num_envs)
            np.testing.assert_array_equal(ref.observe(seats), other.observe(seats))
            if step % 25 == 0:
                assert [ref.snapshot(b) for b in range(ref.num_envs)] == [other.snapshot(b) for b in range(ref.num_envs)]
                np.testing.assert_array_equal(ref.rng_state, other.rng_state)
    finally:
        numba.set_num_threads(threads)


def test_state_written_from_outside_is_read():
    core = GapCore(1, Rules(2), seed=0)
    C = parse_card
    core.load(0, hands=[[C("green 5"), C("grey 1")], [C("grey 2")]], hidden=[[], []],
              piles=[[C("red 4")], [C("blue 6")]], current=0)
    assert core.legal_mask[0, play_action(C("green 5"), 0)]
    # Move the right top to blue 5 by hand: green 5 is no gap card any more, but matches the number.
    core.card_loc[0, C("blue 5")], core.card_owner[0, C("blue 5")] = 3, 1
    core.card_loc[0, C("blue 6")] = 4
    core.pile_top[0, 1] = C("blue 5")
    core.refresh_masks()
    assert not core.legal_mask[0, play_action(C("green 5"), 0)] and core.legal_mask[0, play_action(C("green 5"), 1)]
    # A card given to seat 0's hand by hand is playable at once.
    core.card_loc[0, C("red 9")], core.card_owner[0, C("red 9")] = LOC_HAND, 0
    core.hand_count[0, 0] += 1
    core.refresh_masks()
    assert core.legal_mask[0, play_action(C("red 9"), 0)]


def test_positions_branch_with_state_arrays():
    core = GapCore(6, Rules(3), seed=5)
    rng = np.random.default_rng(0)
    for _ in range(30):
        core.step(np.array([rng.choice(np.flatnonzero(m)) for m in core.legal_mask]))
    games = np.array([1, 4, 4])
    branch = GapCore.from_state_arrays(core.rules, core.state_arrays(games), seeds=[7, 8, 9])
    for i, b in enumerate(games.tolist()):
        assert branch.snapshot(i) == core.snapshot(b)
        np.testing.assert_array_equal(branch.legal_mask[i], core.legal_mask[b])
        for seat in range(3):
            np.testing.assert_array_equal(branch.observe(seat, games=np.array([i])), core.observe(seat, games=np.array([b])))
    assert (branch.phase != Phase.OVER).all()
    with pytest.raises(ValueError, match="state arrays missing"):
        GapCore.from_state_arrays(core.rules, {}, seeds=[1])
