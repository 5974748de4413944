"""The PettingZoo AEC environment keine_ahnung_v0: PettingZoo's own API, seed and render tests, and
the behaviour the issue asks for (masks, rewards, final infos, illegal moves, hidden cards)."""

from __future__ import annotations

import functools
import importlib

import numpy as np
import pettingzoo
import pytest
from pettingzoo.test import api_test, render_test, seed_test

from keine_ahnung_env import keine_ahnung_v0
from keine_ahnung_env.games.keine_ahnung.core import LOC_LAYOUT

VARIANTS = [
    pytest.param({"num_players": 2}, id="2p"),
    pytest.param({"num_players": 3}, id="3p"),
    pytest.param({"num_players": 4}, id="4p"),
    pytest.param({"num_players": 5}, id="5p"),
    pytest.param({"num_players": 4, "memory": "none"}, id="4p-memory-none"),
    pytest.param({"num_players": 3, "normalize_obs": True, "reward": "rank"}, id="3p-normalized-rank"),
]


@pytest.fixture
def dict_observation_env(monkeypatch):
    """PettingZoo's api_test warns about dict observations and Dict observation spaces unless the
    env's name is on its hard-coded lists of such envs (its own classic games: chess, connect four,
    ...). keine_ahnung_v0 uses the same {"observation", "action_mask"} convention, so it is put on
    those lists; every other warning stays a failure."""
    module = importlib.import_module("pettingzoo.test.api_test")
    name = keine_ahnung_v0.raw_env.metadata["name"]
    monkeypatch.setattr(module, "env_obs_dicts", [*module.env_obs_dicts, name])
    monkeypatch.setattr(module, "env_obs_space", [*module.env_obs_space, name])


def play_random_game(env, seed: int, check=None):
    """Plays one game with uniformly random legal moves; returns the final infos and the rewards
    each agent collected through last()."""
    rng = np.random.default_rng(seed)
    env.reset(seed=seed)
    collected = dict.fromkeys(env.possible_agents, 0.0)
    finals = {}
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        collected[agent] += reward
        if check is not None:
            check(env, agent, obs, terminated or truncated)
        if terminated or truncated:
            finals[agent] = info
            env.step(None)
        else:
            env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return finals, collected


@pytest.mark.parametrize("options", VARIANTS)
@pytest.mark.filterwarnings("error")
def test_pettingzoo_api(options, dict_observation_env):
    api_test(keine_ahnung_v0.env(**options), num_cycles=1000)


@pytest.mark.parametrize("options", VARIANTS)
@pytest.mark.filterwarnings("error")
def test_pettingzoo_seed(options):
    seed_test(functools.partial(keine_ahnung_v0.env, **options), num_cycles=500)


@pytest.mark.parametrize("options", VARIANTS)
@pytest.mark.filterwarnings("error")
def test_pettingzoo_render(options, capsys, monkeypatch):
    # PettingZoo's check makes the env in every render mode, "human" (a window) too: SDL's dummy video
    # driver gives pygame a window without a screen.
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    render_test(functools.partial(keine_ahnung_v0.env, **options),
                custom_tests={"ansi": lambda text: "Keine Ahnung" in text and "seat 0" in text})


@pytest.mark.parametrize("memory", ["perfect", "none"])
def test_ansi_hides_face_down_cards_unless_reveal_all(memory):
    hidden_env = keine_ahnung_v0.env(num_players=4, render_mode="ansi", memory=memory)
    shown_env = keine_ahnung_v0.env(num_players=4, render_mode="ansi", render_reveal_all=True, memory=memory)
    hidden_env.reset(seed=3)
    shown_env.reset(seed=3)
    core = hidden_env.unwrapped.core
    name = core.tables.card_name
    visible = [name(int(c)) for c in core.pile_top[0, : core.pile_count[0]]]
    # Cards in a layout that nobody has seen, and whose name no face-up card shares.
    secret = [name(int(c)) for c in core.layout[0].reshape(-1)
              if c >= 0 and not core.card_known[0, c] and not any(name(int(c)) in v for v in visible)]
    assert secret, "the deal should leave unseen layout cards"
    text, full = hidden_env.render(), shown_env.render()
    assert "??" in text
    in_layout = core.card_loc[0] == LOC_LAYOUT
    shown_known = core.card_known[0] & in_layout if memory == "perfect" else np.zeros_like(in_layout)
    assert text.count("??") == int(in_layout.sum() - shown_known.sum())
    for card in secret:
        assert card not in text
    assert "??" not in full
    assert all(card in full for card in secret)


def test_human_render_needs_a_display(monkeypatch):
    # "human" shows the picture in a window (tests/test_pictures.py opens one with SDL's dummy driver);
    # without a display the env says so when it is made.
    for name in ("DISPLAY", "WAYLAND_DISPLAY", "SDL_VIDEODRIVER"):
        monkeypatch.delenv(name, raising=False)
    with pytest.raises(ValueError, match="render_mode='human' needs"):
        keine_ahnung_v0.env(num_players=3, render_mode="human")


def test_bad_render_mode_and_rules_option():
    with pytest.raises(ValueError, match="render_mode='rgb'; allowed: None, 'human', 'ansi', 'rgb_array'"):
        keine_ahnung_v0.env(render_mode="rgb")
    with pytest.raises(ValueError, match="unknown rules option"):
        keine_ahnung_v0.env(colour_blind=True)
    with pytest.raises(ValueError, match="num_players=6"):
        keine_ahnung_v0.raw_env(num_players=6)
    with pytest.raises(ValueError, match="memory="):
        keine_ahnung_v0.env(memory="some")


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_agents_spaces_and_masks(num_players):
    env = keine_ahnung_v0.env(num_players=num_players)
    env.reset(seed=1)
    assert env.possible_agents == [f"player_{p}" for p in range(num_players)]
    for agent in env.possible_agents:
        assert env.observation_space(agent) is env.observation_space(agent)
        assert env.action_space(agent) is env.action_space(agent)
        assert env.action_space(agent).n == keine_ahnung_v0.NUM_ACTIONS
        space = env.observation_space(agent)
        assert space["action_mask"].dtype == np.int8 and space["action_mask"].shape == (44,)
        assert space["observation"].dtype == np.float32 and space["observation"].shape == (240 + 124 * num_players,)  # observation version 2

    def check(env, agent, obs, done):
        for other in env.agents:
            mask = env.observe(other)["action_mask"]
            if other == agent and not done:
                assert mask.any(), "the agent to act must have a legal action"
            else:
                assert not mask.any(), "only the agent to act has legal actions"

    play_random_game(env, seed=2, check=check)


@pytest.mark.parametrize("reward", ["win", "score", "rank"])
def test_rewards_and_final_infos(reward):
    env = keine_ahnung_v0.env(num_players=3, reward=reward)
    finals, collected = play_random_game(env, seed=5)
    assert set(finals) == set(env.possible_agents)
    scores = finals["player_0"]["scores"]
    assert all(info["scores"] == scores for info in finals.values())
    best = max(scores)
    winners = [a for a, info in finals.items() if info["winner"]]
    assert winners and all(scores[finals[a]["seat"]] == best for a in winners)
    if reward == "score":
        assert [collected[f"player_{p}"] for p in range(3)] == pytest.approx(scores)
    else:
        assert sum(collected.values()) == pytest.approx(0.0, abs=1e-6)
        assert all(collected[a] > 0 for a in winners)


def test_normalized_observations_lie_in_unit_box():
    env = keine_ahnung_v0.env(num_players=2, normalize_obs=True)

    def check(env, agent, obs, done):
        assert env.observation_space(agent).contains(obs)
        assert obs["observation"].max() <= 1.0

    play_random_game(env, seed=4, check=check)


def test_raw_env_illegal_action_raises_naming_legal_actions():
    env = keine_ahnung_v0.raw_env(num_players=4)
    env.reset(seed=0)
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    legal = np.flatnonzero(mask).tolist()
    with pytest.raises(ValueError, match=r"illegal action .* for player_0; legal: ") as err:
        env.step(illegal)
    for a in legal:
        assert f"{a} (" in str(err.value)
    with pytest.raises(ValueError, match="legal: "):
        env.step(99)
    # Nothing changed: a legal move still works.
    env.step(legal[0])


def test_wrapped_env_illegal_action_ends_game_with_penalty():
    env = keine_ahnung_v0.env(num_players=4)
    env.reset(seed=0)
    mover = env.agent_selection
    mask = env.observe(mover)["action_mask"]
    env.step(int(np.flatnonzero(mask == 0)[0]))
    assert all(env.terminations.values())
    assert env._cumulative_rewards[mover] == -1
    assert all(env._cumulative_rewards[a] == 0 for a in env.agents if a != mover)
    with pytest.raises(AssertionError):  # out of the action space: PettingZoo's assertion
        env.reset(seed=0)
        env.step(44)


def test_seeded_reset_is_reproducible_and_unseeded_differs():
    a, b = keine_ahnung_v0.raw_env(), keine_ahnung_v0.raw_env()
    a.reset(seed=11)
    b.reset(seed=11)
    assert np.array_equal(a.observe("player_0")["observation"], b.observe("player_0")["observation"])
    first = a.observe("player_0")["observation"].copy()
    a.reset()
    a.reset(seed=11)
    assert np.array_equal(a.observe("player_0")["observation"], first)


def test_reachable_through_pettingzoo_registry():
    env = pettingzoo.make("aec", keine_ahnung_v0.PETTINGZOO_ID, num_players=3, memory="none")
    env.reset(seed=0)
    assert env.possible_agents == ["player_0", "player_1", "player_2"]
    assert str(env.unwrapped) == "keine_ahnung_v0"
