"""The Stable-Baselines3 vector environment keine_ahnung_v0.sb3_vec_env: the VecEnv contract,
auto-reset, masks, batched opponents, and MaskablePPO learning to beat the random agent on it."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported
from stable_baselines3.common.monitor import Monitor
from stable_baselines3.common.vec_env import VecEnv, VecMonitor

from agents.base import RandomAgent, sample_masked
from keine_ahnung_env import keine_ahnung_v0


def randoms(n: int, seed: int = 0) -> list[RandomAgent]:
    return [RandomAgent(seed=seed + j) for j in range(n)]


class CountingAgent(RandomAgent):
    """A random agent that counts its calls and the rows it was handed."""

    name = "counting"

    def __init__(self, seed=None):
        super().__init__(seed)
        self.batch_sizes: list[int] = []

    def act(self, observation, action_mask):
        assert observation.shape[0] == action_mask.shape[0]
        self.batch_sizes.append(observation.shape[0])
        return super().act(observation, action_mask)


def random_actions(rng, venv) -> np.ndarray:
    return sample_masked(rng, np.stack(venv.env_method("action_masks")))


def test_is_a_vec_env_with_consistent_spaces():
    venv = keine_ahnung_v0.sb3_vec_env(8, opponents=randoms(3), seed=0)
    assert isinstance(venv, VecEnv) and venv.num_envs == 8
    obs = venv.reset()
    assert obs.shape == (8, 736) and obs.dtype == np.float32
    assert all(venv.observation_space.contains(o) for o in obs)
    masks = venv.env_method("action_masks")
    assert len(masks) == 8 and all(m.shape == (44,) and m.dtype == bool and m.any() for m in masks)
    assert get_action_masks(venv).shape == (8, 44) and is_masking_supported(venv)
    assert venv.env_method("action_masks", indices=[2, 5])[1].tolist() == masks[5].tolist()
    assert venv.env_is_wrapped(Monitor) == [False] * 8
    assert venv.get_attr("learner_seat") == [i % 4 for i in range(8)]
    assert venv.get_attr("render_mode") == [None] * 8
    venv.set_attr("normalize_obs", True)
    assert "??" in venv.env_method("render", indices=0)[0]
    with pytest.raises(AttributeError, match="allowed: 'action_masks', 'render'"):
        venv.env_method("fly")
    raw = keine_ahnung_v0.sb3_vec_env(2, opponents=randoms(1), num_players=2, normalize_obs=False)
    assert raw.reset().max() > 1.0 and raw.observation_space.shape == (488,)


def test_bad_arguments_are_value_errors():
    for bad in (0, -3, 2.5, True):
        with pytest.raises(ValueError, match="num_envs=.*allowed: a positive integer"):
            keine_ahnung_v0.sb3_vec_env(bad, opponents=randoms(3))
    with pytest.raises(ValueError, match="2 opponents given for num_players=4; expected exactly 3"):
        keine_ahnung_v0.sb3_vec_env(4, opponents=randoms(2))
    with pytest.raises(ValueError, match="seat='left'"):
        keine_ahnung_v0.sb3_vec_env(4, opponents=randoms(3), seat="left")
    with pytest.raises(ValueError, match="unknown rules option"):
        keine_ahnung_v0.sb3_vec_env(4, opponents=randoms(3), jokers=True)


def test_auto_reset_terminal_observation_and_vec_monitor():
    venv = VecMonitor(keine_ahnung_v0.sb3_vec_env(16, opponents=randoms(1), num_players=2, seed=1),
                      info_keywords=("winner",))
    rng = np.random.default_rng(0)
    obs = venv.reset()
    returns = np.zeros(16)
    finished = 0
    while finished < 20:
        obs, rewards, dones, infos = venv.step(random_actions(rng, venv))
        assert obs.shape == (16, 488) and rewards.dtype == np.float32 and dones.dtype == bool
        returns += rewards
        for i in np.flatnonzero(dones):
            info = infos[i]
            finished += 1
            terminal = info["terminal_observation"]
            assert terminal.shape == (488,) and venv.observation_space.contains(terminal)
            assert terminal[3] == 1.0  # phase one-hot: OVER
            assert obs[i][3] == 0.0  # the returned observation is already the next game's
            assert info["episode"]["r"] == pytest.approx(returns[i])
            assert info["episode"]["l"] > 0 and isinstance(info["winner"], bool)
            if returns[i] != 0.0:  # 0: everybody tied, sharing the win
                assert info["winner"] == (returns[i] > 0)
            assert len(info["scores"]) == 2 and info["learner_seat"] in (0, 1)
            assert info["TimeLimit.truncated"] is False
            returns[i] = 0.0
        for i in np.flatnonzero(~dones):
            assert infos[i] == {}


def test_learner_seat_rotates_per_game_and_episode():
    venv = keine_ahnung_v0.sb3_vec_env(3, opponents=randoms(3), seed=2)
    venv.reset()
    rng = np.random.default_rng(1)
    episodes = np.zeros(3, int)
    assert venv.learner_seat.tolist() == [0, 1, 2]
    while episodes.min() < 3:
        _, _, dones, infos = venv.step(random_actions(rng, venv))
        for i in np.flatnonzero(dones):
            assert infos[i]["learner_seat"] == (i + episodes[i]) % 4
            episodes[i] += 1
            assert venv.learner_seat[i] == (i + episodes[i]) % 4


def test_opponents_act_in_batches():
    opponents = [CountingAgent(seed=j) for j in range(3)]
    venv = keine_ahnung_v0.sb3_vec_env(64, opponents=opponents, seed=3)
    venv.reset()
    rng = np.random.default_rng(2)
    steps = 10
    for _ in range(steps):
        venv.step(random_actions(rng, venv))
    for agent in opponents:
        # One call per round of opponent play, on every game where this agent is to act.
        assert max(agent.batch_sizes) > 8
        assert sum(agent.batch_sizes) > 2 * len(agent.batch_sizes)


def test_same_game_as_the_solo_env_for_one_game():
    venv = keine_ahnung_v0.sb3_vec_env(1, opponents=randoms(2, seed=5), num_players=3, seat=1, seed=21)
    solo = keine_ahnung_v0.solo_env(randoms(2, seed=50), num_players=3, seat=1)
    vec_obs = venv.reset()
    solo_obs, _ = solo.reset(seed=21)
    rng = np.random.default_rng(0)
    for _ in range(60):
        assert np.array_equal(vec_obs[0], solo_obs)
        action = random_actions(rng, venv)
        assert np.array_equal(solo.action_masks(), venv.env_method("action_masks")[0])
        vec_obs, vec_reward, done, infos = venv.step(action)
        solo_obs, solo_reward, terminated, truncated, _ = solo.step(int(action[0]))
        assert vec_reward[0] == solo_reward and done[0] == (terminated or truncated)
        if done[0]:
            break


def test_seed_method_and_reproducibility():
    def rollout(venv):
        rng = np.random.default_rng(7)
        out = [venv.reset()]
        for _ in range(30):
            out.append(venv.step(random_actions(rng, venv))[0])
        return np.stack(out)

    a = rollout(keine_ahnung_v0.sb3_vec_env(6, opponents=randoms(3), seed=11))
    seeded_later = keine_ahnung_v0.sb3_vec_env(6, opponents=randoms(3, seed=500))
    assert seeded_later.seed(11)[0] == 11
    assert np.array_equal(a, rollout(seeded_later))
    assert not np.array_equal(a, rollout(keine_ahnung_v0.sb3_vec_env(6, opponents=randoms(3), seed=12)))


def test_illegal_action_ends_that_game_only():
    venv = keine_ahnung_v0.sb3_vec_env(4, opponents=randoms(3), seed=4)
    venv.reset()
    masks = np.stack(venv.env_method("action_masks"))
    actions = sample_masked(np.random.default_rng(0), masks)
    actions[1] = int(np.flatnonzero(~masks[1])[0])
    _, rewards, dones, infos = venv.step(actions)
    assert dones[1] and rewards[1] == -1.0 and infos[1]["illegal_action"] and not infos[1]["winner"]
    assert venv.env_method("action_masks", indices=1)[0].any()  # dealt again
    strict = keine_ahnung_v0.sb3_vec_env(2, opponents=randoms(3), seed=4, illegal_reward=None)
    strict.reset()
    masks = np.stack(strict.env_method("action_masks"))
    with pytest.raises(ValueError, match="legal there"):
        strict.step(np.array([int(np.flatnonzero(~masks[0])[0]), int(np.flatnonzero(masks[1])[0])]))


def test_opponent_pool_gives_each_game_its_lineup():
    members = [CountingAgent(seed=j) for j in range(5)]
    venv = keine_ahnung_v0.sb3_vec_env(
        32, opponents=lambda rng: [members[i] for i in rng.choice(5, size=3, replace=False)], seed=5)
    venv.reset()
    lineups = {tuple(row) for row in np.sort(venv.unwrapped.games.lineup, axis=1)}
    assert len(lineups) > 1
    rng = np.random.default_rng(3)
    for _ in range(5):
        venv.step(random_actions(rng, venv))
    assert all(m.batch_sizes for m in members)


def win_rate_against_random(model, num_players: int, games: int = 200, seed: int = 2024) -> float:
    """The learner's share of wins over ``games`` seat-rotated games (game i: seat i % P) against
    random opponents; each game's first episode counts."""
    venv = keine_ahnung_v0.sb3_vec_env(games, opponents=randoms(num_players - 1, seed=seed), num_players=num_players,
                                       seed=seed)
    obs = venv.reset()
    assert sorted(np.bincount(venv.learner_seat).tolist()) == [games // num_players] * num_players
    won = np.full(games, np.nan)
    while np.isnan(won).any():
        actions, _ = model.predict(obs, action_masks=get_action_masks(venv), deterministic=True)
        obs, _, dones, infos = venv.step(actions)
        for i in np.flatnonzero(dones & np.isnan(won)):
            won[i] = float(infos[i]["winner"])
    return float(won.mean())


def test_maskable_ppo_learns_to_beat_the_random_agent():
    # Two players, 40k steps. Learning on the raw observation is seed-sensitive: on observation
    # version 2 (issue 17's five new sections) seed 0 reached 0.97 with learning rate 3e-4 and 0.37 with
    # 1e-3, and seed 3 stayed below 0.07 with both (0.785-0.935 on version 1; an open finding, see the
    # issue 17 notes). The margin (fair share + 0.2) fails for a learner no better than random (about 0.5).
    num_players = 2
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        venv = VecMonitor(keine_ahnung_v0.sb3_vec_env(32, opponents=randoms(num_players - 1, seed=100),
                                                      num_players=num_players, seed=0))
        model = MaskablePPO("MlpPolicy", venv, n_steps=128, batch_size=512, n_epochs=4, learning_rate=3e-4,
                            gamma=0.999, ent_coef=0.01, policy_kwargs={"net_arch": [64, 64]}, seed=0,
                            device="cpu", verbose=0)
        model.learn(40_000)
        assert len(model.ep_info_buffer) > 50  # VecMonitor saw the episodes
        rate = win_rate_against_random(model, num_players)
    finally:
        torch.set_num_threads(threads)
    assert rate > 1 / num_players + 0.2, f"win rate {rate:.3f} against random opponents"


def test_truncated_games_are_flagged_for_bootstrapping():
    venv = keine_ahnung_v0.sb3_vec_env(8, opponents=randoms(1), num_players=2, seed=6, max_turns=6)
    venv.reset()
    rng = np.random.default_rng(4)
    seen = 0
    for _ in range(40):
        _, rewards, dones, infos = venv.step(random_actions(rng, venv))
        for i in np.flatnonzero(dones):
            seen += 1
            assert infos[i]["TimeLimit.truncated"] is True and infos[i]["winner"] is False
            assert rewards[i] == 0.0 and "terminal_observation" in infos[i]
    assert seen >= 8


def test_episode_infos_count_the_learners_calls_and_name_its_opponents():
    from agents.base import RandomAgent
    from keine_ahnung_env import keine_ahnung_v0

    venv = keine_ahnung_v0.sb3_vec_env(8, opponents=[RandomAgent(1), RandomAgent(2), RandomAgent(3)], seed=0)
    venv.reset()
    finished = []
    for _ in range(3000):
        masks = np.stack(venv.env_method("action_masks"))
        actions = np.where(masks[:, 6], 6, masks.argmax(axis=1))  # call whenever allowed
        _, _, dones, infos = venv.step(actions)
        finished += [info for done, info in zip(dones, infos) if done]
        if len(finished) >= 8:
            break
    assert len(finished) >= 8
    assert all(info["opponents"] == ["random"] * 3 for info in finished)
    assert sum(info["calls"] for info in finished) > 0
    assert all(0 <= info["call_successes"] <= info["calls"] for info in finished)
    # every trophy the learner holds came from a successful call or a cleared layout
    assert all(sum(info["trophies"]) >= info["call_successes"] for info in finished)
