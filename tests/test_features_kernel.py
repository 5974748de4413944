"""The policy features "hints", "advice" and "advice_tuned" by their Numba kernel (``counter_kernel.features_row``)
against the NumPy path they replaced (``KeineAhnungFeatures(..., compiled=False)``: ``risk``'s decode and
probabilities, ``CounterAgent.act`` for the advice).

Observations and masks come from real play (``test_counter_kernel._collect``: 2-5 players, both memory
modes, ``allow_keep``, a small deck, every phase, finished games, seats that are not to act); the
arrays must be equal, not close. Terminal observations (no legal move) are checked as the SB3 wrapper
passes them, one row with an all-false mask.
"""

from __future__ import annotations

import numpy as np
import pytest

from keine_ahnung_env.games.keine_ahnung.actions import ACTION_CALL
from keine_ahnung_env.games.keine_ahnung.agents import TunedCounterAgent
from keine_ahnung_env.games.keine_ahnung.features import HINT_WIDTH, KeineAhnungFeatures
from keine_ahnung_env.games.keine_ahnung.odds import decode

from test_counter_kernel import VARIANTS, _collect


@pytest.fixture(scope="module")
def positions():
    return [(P, options, *_collect(P, options, seed=301 + i, games=24, steps=120)) for i, (P, options)
            in enumerate(VARIANTS)]


@pytest.mark.parametrize("kind", ["hints", "advice", "advice_tuned"])
def test_kernel_features_equal_the_numpy_path(positions, kind):
    seen = np.zeros(4, bool)
    for P, options, obs, mask in positions:
        fast = KeineAhnungFeatures(kind, P, options)
        slow = KeineAhnungFeatures(kind, P, options, compiled=False)
        assert fast.compiled and not slow.compiled
        for rows in (slice(None), slice(0, 1), slice(5, 40)):  # the parallel kernel, one row, the serial loop
            got = fast(obs[rows], mask[rows])
            want = slow(obs[rows], mask[rows])
            assert got.dtype == want.dtype == np.float32 and got.shape == want.shape == (obs[rows].shape[0], fast.size)
            bad = np.argwhere(got != want)
            assert bad.size == 0, (P, options, kind, bad[:5], got[tuple(bad[0])], want[tuple(bad[0])])
        # The hints vary across the positions (the check compares something): calls that would fail
        # for sure and calls with a chance, unknown cards that may fit, known cards that fit and not.
        hints = fast(obs, mask)[:, obs.shape[1]:obs.shape[1] + HINT_WIDTH]
        seen |= [(hints[:, 0] == 0).any() and (hints[:, 0] > 0).any(), (hints[:, 1] > 0).any(),
                 hints[:, 3:9].any(), hints[:, 9:].any()]
    assert seen.all(), seen


def test_terminal_rows_and_advice_blocks(positions):
    P, options, obs, mask = positions[2]  # 4 players, the default deck
    fast = KeineAhnungFeatures("advice", P, options)
    slow = KeineAhnungFeatures("advice", P, options, compiled=False)
    over = np.flatnonzero(decode(obs).phase == 3)
    assert over.size, "the positions hold finished games"
    for row in over[:5]:
        none = np.zeros((1, fast.num_actions), bool)
        assert np.array_equal(fast(obs[row][None], none), slow(obs[row][None], none))
        assert not fast(obs[row][None], none)[0, -fast.num_actions:].any()  # nothing legal: no advice
    advice = fast(obs, mask)[:, -fast.num_actions:]
    legal = mask.any(1)
    assert (advice[legal].sum(1) >= 1).all() and not advice[~legal].any()
    assert (advice <= mask).all()  # advice is always legal
    assert (advice[legal].sum(1) > 1).any()  # some reveals of an unknown card mark every legal unknown card


def test_advice_tuned_carries_counter_tuneds_move(positions):
    """Same hints as "advice"; the advice block is counter_tuned's move, which calls where counter
    (threshold 0.7) does not when the call's success chance lies in [0.55, 0.7)."""
    P, options, obs, mask = positions[2]
    plain = KeineAhnungFeatures("advice", P, options)(obs, mask)
    tuned = KeineAhnungFeatures("advice_tuned", P, options)(obs, mask)
    width = obs.shape[1] + HINT_WIDTH
    assert np.array_equal(plain[:, :width], tuned[:, :width])
    adviser = TunedCounterAgent(seed=0, num_players=P)
    legal = np.flatnonzero(mask.any(1))
    adviser.reseed(0)
    chosen = adviser.act(obs[legal], mask[legal])
    assert (tuned[legal, width + chosen] == 1).all()  # its move is always marked
    call = width + ACTION_CALL
    differ = plain[:, call] != tuned[:, call]
    assert differ.any(), "no position where the two thresholds disagree on calling"
    success = tuned[:, obs.shape[1]]  # the exact call success probability hint
    more_calls = differ & (tuned[:, call] == 1)
    assert more_calls.any() and (success[more_calls] >= 0.55).all()


def test_bad_input_errors():
    fast = KeineAhnungFeatures("advice", 4)
    obs = np.zeros((2, fast.input_size), np.float32)
    with pytest.raises(ValueError, match="needs the legal-action mask"):
        fast(obs)
    with pytest.raises(ValueError, match="action_mask must be"):
        fast(obs, np.zeros((2, 3), bool))
    with pytest.raises(ValueError):
        KeineAhnungFeatures("hints", 4)(np.zeros((2, 17), np.float32))
