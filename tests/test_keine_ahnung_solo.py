"""The single-agent Gymnasium environment keine_ahnung_v0.solo_env: Gymnasium's and SB3's env
checkers, opponents, seats, seeding, rewards and illegal actions."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env as gymnasium_check_env
from stable_baselines3.common.env_checker import check_env as sb3_check_env

from agents.base import RandomAgent, sample_masked
from keine_ahnung_env import keine_ahnung_v0


def randoms(n: int, seed: int = 0) -> list[RandomAgent]:
    return [RandomAgent(seed=seed + j) for j in range(n)]


class RecordingAgent(RandomAgent):
    """A random agent that remembers the shapes and dtypes it was handed."""

    name = "recording"

    def __init__(self, seed=None):
        super().__init__(seed)
        self.calls: list[tuple] = []

    def act(self, observation, action_mask):
        self.calls.append((observation.shape, observation.dtype, action_mask.shape, action_mask.dtype))
        return super().act(observation, action_mask)


def play(env, seed: int, policy_seed: int = 0, max_steps: int = 5000):
    """One episode with random legal learner actions; returns the trajectory."""
    rng = np.random.default_rng(policy_seed)
    obs, info = env.reset(seed=seed)
    trajectory = [(obs, info)]
    for _ in range(max_steps):
        action = int(sample_masked(rng, env.action_masks()[None])[0])
        obs, reward, terminated, truncated, info = env.step(action)
        trajectory.append((obs, reward, terminated, truncated, info))
        if terminated or truncated:
            return trajectory
    raise AssertionError("episode did not end")


@pytest.mark.parametrize("num_players", [2, 4])
@pytest.mark.filterwarnings("error")
def test_gymnasium_check_env_through_the_registry(num_players, monkeypatch):
    # Made through gymnasium.make so that check_env also exercises every declared render mode ("human"
    # with SDL's dummy video driver: a window without a screen).
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    env = gymnasium.make(keine_ahnung_v0.GYMNASIUM_SOLO_ID, opponents=randoms(num_players - 1),
                         num_players=num_players)
    gymnasium_check_env(env.unwrapped)


@pytest.mark.parametrize("options", [{"num_players": 3}, {"num_players": 5, "memory": "none"},
                                     {"num_players": 2, "normalize_obs": False}])
@pytest.mark.filterwarnings("error")
def test_gymnasium_and_sb3_check_env(options):
    num_players = options["num_players"]
    env = keine_ahnung_v0.solo_env(randoms(num_players - 1), **options)
    gymnasium_check_env(env, skip_render_check=True)  # render modes: the registry test above
    sb3_check_env(keine_ahnung_v0.solo_env(randoms(num_players - 1), **options))


def test_spaces_and_masks():
    env = keine_ahnung_v0.solo_env(randoms(3))
    obs, info = env.reset(seed=0)
    assert env.observation_space.shape == (736,) and env.observation_space.dtype == np.float32
    assert env.observation_space.high.max() == 1.0  # normalize_obs defaults to True
    assert env.action_space.n == keine_ahnung_v0.NUM_ACTIONS
    mask = env.action_masks()
    assert mask.dtype == bool and mask.shape == (44,) and mask.any()
    assert env.observation_space.contains(obs)
    raw = keine_ahnung_v0.solo_env(randoms(3), normalize_obs=False)
    raw_obs, _ = raw.reset(seed=0)
    assert raw.observation_space.contains(raw_obs) and raw_obs.max() > 1.0


@pytest.mark.parametrize("count", [0, 2, 4])
def test_wrong_opponent_count_is_a_value_error(count):
    with pytest.raises(ValueError, match=rf"{count} opponents given for num_players=4; expected exactly 3"):
        keine_ahnung_v0.solo_env(randoms(count), num_players=4)


def test_bad_arguments_are_value_errors():
    with pytest.raises(ValueError, match="no act"):
        keine_ahnung_v0.solo_env([RandomAgent(), object()], num_players=3)
    with pytest.raises(ValueError, match="expected a list of 1 agents"):
        keine_ahnung_v0.solo_env(RandomAgent(), num_players=2)
    with pytest.raises(ValueError, match=r"seat=7; allowed: None, 'rotate', 'random' or a seat in 0..3"):
        keine_ahnung_v0.solo_env(randoms(3), seat=7)
    with pytest.raises(ValueError, match="render_mode='rgb'; allowed: None, 'human', 'ansi', 'rgb_array'"):
        keine_ahnung_v0.solo_env(randoms(3), render_mode="rgb")
    with pytest.raises(ValueError, match="unknown rules option"):
        keine_ahnung_v0.solo_env(randoms(3), speed=2)


def test_seeded_episodes_are_reproducible():
    a = play(keine_ahnung_v0.solo_env(randoms(3, seed=1)), seed=42)
    b = play(keine_ahnung_v0.solo_env(randoms(3, seed=99)), seed=42)  # reset(seed) re-seeds opponents
    assert len(a) == len(b)
    for step_a, step_b in zip(a, b):
        assert np.array_equal(step_a[0], step_b[0])
        assert step_a[1:] == step_b[1:]
    c = play(keine_ahnung_v0.solo_env(randoms(3, seed=1)), seed=43)
    assert len(c) != len(a) or not all(np.array_equal(x[0], y[0]) for x, y in zip(a, c))


def test_random_seat_each_game_and_fixed_seat():
    env = keine_ahnung_v0.solo_env(randoms(3))
    env.reset(seed=0)
    seats = [env.reset()[1]["learner_seat"] for _ in range(40)]
    assert set(seats) == {0, 1, 2, 3}
    again = keine_ahnung_v0.solo_env(randoms(3))
    again.reset(seed=0)
    assert [again.reset()[1]["learner_seat"] for _ in range(40)] == seats
    fixed = keine_ahnung_v0.solo_env(randoms(3), seat=2)
    assert {fixed.reset(seed=s)[1]["learner_seat"] for s in range(10)} == {2}
    rotating = keine_ahnung_v0.solo_env(randoms(3), seat="rotate")
    assert [rotating.reset(seed=0 if k == 0 else None)[1]["learner_seat"] for k in range(6)] == [0, 1, 2, 3, 0, 1]


def test_opponents_get_batched_raw_arrays_and_learner_acts_on_its_turn():
    recorders = [RecordingAgent(seed=j) for j in range(3)]
    env = keine_ahnung_v0.solo_env(recorders, seat=3)
    obs, _ = env.reset(seed=5)
    assert all(r.calls for r in recorders)  # seat 3 starts after seats 0-2 have played
    for r in recorders:
        for obs_shape, obs_dtype, mask_shape, mask_dtype in r.calls:
            assert obs_shape == (1, 736) and obs_dtype == np.float32
            assert mask_shape == (1, 44) and mask_dtype == bool
    core = env.unwrapped.games.core
    assert int(core.current[0]) == 3
    # The learner's own view: its relative seat 0 is the one to act.
    acting = slice(4, 4 + 4)
    assert obs[acting].tolist() == [1.0, 0.0, 0.0, 0.0]


def test_reward_and_final_info_follow_the_engine():
    trajectory = play(keine_ahnung_v0.solo_env(randoms(1), num_players=2, reward="score"), seed=3)
    *steps, last = trajectory[1:]
    assert all(step[1] == 0.0 and not step[2] and not step[3] for step in steps)
    obs, reward, terminated, truncated, info = last
    assert terminated and not truncated
    seat = info["learner_seat"]
    assert reward == info["scores"][seat]
    others = [score for p, score in enumerate(info["scores"]) if p != seat]
    if info["winner"]:
        assert info["scores"][seat] >= max(others)  # ties on score go to the larger holdings
        assert info["win_share"] in (1.0, 0.5)
    else:
        assert info["scores"][seat] <= max(others) and info["win_share"] == 0.0
    assert info["illegal_action"] is False


def test_illegal_action_ends_episode_with_penalty_or_raises():
    env = keine_ahnung_v0.solo_env(randoms(3))
    env.reset(seed=0)
    illegal = int(np.flatnonzero(~env.action_masks())[0])
    obs, reward, terminated, truncated, info = env.step(illegal)
    assert (reward, terminated, truncated, info["illegal_action"], info["winner"], info["win_share"]) \
        == (-1.0, True, False, True, False, 0.0)
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)
    strict = keine_ahnung_v0.solo_env(randoms(3), illegal_reward=None)
    strict.reset(seed=0)
    with pytest.raises(ValueError, match="legal there: "):
        strict.step(illegal)
    with pytest.raises(ValueError, match=r"outside the action space; allowed: 0..43"):
        strict.step(44)


def test_opponent_pool_draws_a_lineup_per_game():
    pool_members = randoms(4, seed=10)
    drawn = []

    def pool(rng):
        lineup = [pool_members[i] for i in rng.choice(4, size=3, replace=False)]
        drawn.append(lineup)
        return lineup

    env = keine_ahnung_v0.solo_env(pool)
    for s in range(5):
        env.reset(seed=s)
    assert len(drawn) == 5 and len({tuple(map(id, d)) for d in drawn}) > 1
    with pytest.raises(ValueError, match="expected exactly 3"):
        keine_ahnung_v0.solo_env(lambda rng: randoms(2)).reset(seed=0)


def test_render_modes(capsys):
    env = keine_ahnung_v0.solo_env(randoms(1), num_players=2, render_mode="ansi")
    env.reset(seed=0)
    assert "??" in env.render()
    shown = keine_ahnung_v0.solo_env(randoms(1), num_players=2, render_mode="ansi", render_reveal_all=True)
    shown.reset(seed=0)
    assert "??" not in shown.render()
    picture = keine_ahnung_v0.solo_env(randoms(1), num_players=2, render_mode="rgb_array")
    picture.reset(seed=0)
    image = picture.render()
    assert image.dtype == np.uint8 and image.ndim == 3 and image.shape[2] == 3


def test_truncation_at_max_turns():
    env = keine_ahnung_v0.solo_env(randoms(1), num_players=2, max_turns=6)
    *_, (obs, reward, terminated, truncated, info) = play(env, seed=0)
    assert (reward, terminated, truncated, info["winner"]) == (0.0, False, True, False)
