"""dnp's compiled core against the pure-Python reference engine (issue 16): on many random games of
every player count and several rules options, every snapshot, legal mask, observation of every seat,
reward and score agree step by step, the next rounds' deals included."""

from __future__ import annotations

import numpy as np
import pytest

from keine_ahnung_env.games.dnp.config import Rules
from keine_ahnung_env.games.dnp.core import DnpCore
from keine_ahnung_env.games.dnp.reference import ReferenceGame
from keine_ahnung_env.rng import GameRandom

SMALL_DECK = [(1, 5, "none", True), (2, 5, "none"), (2, 7, "none"), (3, 4, "none"), (3, 6, "none"),
              (5, 10, "none"), (6, 10, "none"), (7, 9, "none"), (1, 9, "none")]


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
