"""dnp's heuristic agents: legal moves at every table size, stateless plans that finish what they
start, clear errors for foreign input, and the ordering the docs report (a slow league run)."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from keine_ahnung_env import registry
from keine_ahnung_env.games.dnp.agents import ShedderAgent, TacticianAgent, infer_layout
from keine_ahnung_env.games.dnp.config import Rules
from keine_ahnung_env.games.dnp.core import DnpCore

NAMES = ("shedder", "tactician")


def play(players: int, line_up, games: int = 24, seed: int = 0, max_steps: int = 20000):
    """Plays ``games`` games with ``line_up[p]`` at seat p; returns the core (every game finished)."""
    core = DnpCore(games, Rules.make(players), seed=seed)
    for _ in range(max_steps):
        live = ~core.done
        if not live.any():
            return core
        actions = np.zeros(games, np.int64)
        obs = core.observe(core.current.astype(np.int64))
        for seat, agent in enumerate(line_up):
            rows = np.flatnonzero(live & (core.current == seat))
            if rows.size:
                actions[rows] = agent.act(obs[rows], core.legal_mask[rows])
        assert core.legal_mask[np.flatnonzero(live), actions[live]].all()
        core.step(actions, active=live)
    raise AssertionError("games did not finish")


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_agents_play_whole_games_legally(players):
    line_up = [agents.make(NAMES[p % 2], game="dnp_v0", seed=p) for p in range(players)]
    core = play(players, line_up)
    assert core.terminated.mean() > 0.9 and (core.points.max(axis=1)[core.terminated] >= core.rules.target).all()


def test_a_plan_started_is_finished_the_same_way():
    """With a selection in progress the agent continues the plan it chose at the first card."""
    core = DnpCore(64, Rules.make(4), seed=3)
    for agent in (ShedderAgent(seed=0), TacticianAgent(seed=0)):
        for b in range(64):
            single = DnpCore(1, Rules.make(4), seed=3)
            single.seed(3, [0], [b])
            single.reset_games([0])
            first = int(agent.act(single.observe(single.current.astype(np.int64)), single.legal_mask)[0])
            if first >= single.actions.play:
                continue
            chosen = [first]
            while chosen[-1] < single.actions.play:
                single.step(np.array([chosen[-1]]))
                chosen.append(int(agent.act(single.observe(single.current.astype(np.int64)), single.legal_mask)[0]))
            assert chosen[-1] in (single.actions.play,) or single.actions.add_base <= chosen[-1] < single.actions.take_base
        assert core.num_envs == 64


def test_agents_are_seeded_and_refuse_foreign_input():
    spec = registry.game_spec("dnp_v0", 3)
    core = spec.make_core(8, 1)
    obs, mask = core.observe(core.current.astype(np.int64)), core.legal_mask
    for name in NAMES:
        a, b = agents.make(name, game="dnp_v0", seed=4), agents.make(name, game="dnp_v0", seed=4)
        np.testing.assert_array_equal(a.act(obs, mask), b.act(obs, mask))
        assert a.act(obs[:0], mask[:0]).shape == (0,)
        with pytest.raises(ValueError, match="fit no dnp variant"):
            a.act(obs[:, :-1], mask)
        with pytest.raises(ValueError, match="one row per game"):
            a.act(obs, mask[:2])
        with pytest.raises(ValueError, match="made for 4"):
            agents.make(name, game="dnp_v0", num_players=4).act(obs, mask)
    assert infer_layout(obs.shape[1], mask.shape[1]) == (3, 40)


@pytest.mark.slow
def test_tactician_beats_shedder_and_both_beat_random():
    for players in (2, 4):
        wins = np.zeros(3)
        for order in range(2):
            line_up = [TacticianAgent(seed=1), ShedderAgent(seed=2)] + [agents.make("random", seed=9)] * (players - 2)
            if order:
                line_up[0], line_up[1] = line_up[1], line_up[0]
            core = play(players, line_up, games=200, seed=order)
            winner = core.points.argmax(axis=1)[core.terminated]
            wins[0] += (winner == order).sum() if players > 1 else 0
            wins[1] += (winner == 1 - order).sum()
            wins[2] += (winner >= 2).sum()
        assert wins[0] > wins[1] > wins[2], (players, wins)
