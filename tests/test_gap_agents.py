"""The gap game's heuristic agents: legal moves in every phase, their documented preferences, only
their observation read, and the league order (planner > gap_hunter > random)."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from keine_ahnung_env.games.gap import GapCore, Rules
from keine_ahnung_env.games.gap.actions import Action, Phase, flip_action, play_action
from keine_ahnung_env.games.gap.agents import GapHunterAgent, PlannerAgent
from keine_ahnung_env.games.gap.deck import CARD_STARS, parse_card, stars

NAMES = ["random", "gap_hunter", "planner"]


def C(text):
    return parse_card(text)


def position(hands, piles, current=0, draw=(), hidden=None, P=4):
    core = GapCore(1, Rules(P), seed=0)
    core.load(0, hands=[[C(c) for c in h] for h in hands], hidden=hidden or [[] for _ in range(P)],
              piles=[[C(c) for c in p] for p in piles], draw=[C(c) for c in draw], current=current)
    return core


def turn_of(agent, core, seat):
    """The actions ``agent`` takes until its turn is over."""
    out = []
    while core.current[0] == seat and not core.done[0]:
        a = agent.act(core.observe(seat), core.legal_mask)
        out.append(Action(int(a[0])).name)
        core.step(a)
    return out


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_agents_play_whole_games_legally(name, players):
    core = GapCore(6, Rules(players, rounds=1), seed=players)
    agent = agents.make(name, game="gap_v0", seed=0)
    phases = set()
    for _ in range(3000):
        if core.done.all():
            break
        live = ~core.done
        actions = np.zeros(core.num_envs, np.int64)
        actions[live] = agent.act(core.observe(core.current)[live], core.legal_mask[live])
        assert actions.dtype == np.int64 and core.legal_mask[live, actions[live]].all()
        phases.update(core.phase[live].tolist())
        core.step(actions)
    assert core.done.all() and {Phase.HIDE, Phase.PLAY} <= phases


def test_agents_refuse_bad_input_and_other_tables():
    agent = GapHunterAgent(seed=0, num_players=3)
    core = GapCore(2, Rules(4), seed=0)
    with pytest.raises(ValueError, match="made for 3 players"):
        agent.act(core.observe(0), core.legal_mask)
    with pytest.raises(ValueError, match="201 columns"):
        agent.act(core.observe(0), core.legal_mask[:, :10])
    with pytest.raises(ValueError, match="no gap-game observation"):
        GapHunterAgent().act(np.zeros((1, 50), np.float32), np.ones((1, 201), bool))
    assert GapHunterAgent().act(np.zeros((0, 613), np.float32), np.zeros((0, 201), bool)).shape == (0,)


def test_gap_hunter_hides_its_highest_star_cards():
    core = GapCore(1, Rules(4), seed=3)
    seat = int(core.current[0])
    hand = core.hand(0, seat)
    agent = GapHunterAgent(seed=0)
    for _ in range(2):
        core.step(agent.act(core.observe(seat), core.legal_mask))
    best = sorted((int(CARD_STARS[c]) for c in hand), reverse=True)
    assert stars(core.hidden(0, seat)) == best[0] + best[1]


def test_gap_hunter_prefers_the_gap_play_leaving_the_smallest_gap_then_high_stars():
    # Tops red 2 / blue 10: green 9 on the red pile leaves 9-10 (no gap), on the blue pile 2-9 (gap 6);
    # yellow 6 leaves 6-10 or 2-6 (gap 3); red 8 only matches (red) and blue 3 only matches (blue).
    core = position([("green 9", "yellow 6", "red 8", "blue 3"), ("grey 1",), ("grey 2",), ("grey 3",)],
                    piles=[("red 2",), ("blue 10",)], draw=("purple 11", "purple 1"))
    a = GapHunterAgent(seed=0).act(core.observe(0), core.legal_mask)[0]
    assert a == play_action(C("green 9"), 0)
    # Without gap cards it sheds its highest-star matching card.
    core = position([("red 8", "blue 3", "red 11"), ("grey 1",), ("grey 2",), ("grey 3",)],
                    piles=[("red 2",), ("blue 10",)])
    assert GapHunterAgent(seed=0).act(core.observe(0), core.legal_mask)[0] in (play_action(C("red 8"), 0),
                                                                              play_action(C("blue 3"), 1))


def test_gap_hunter_turns_up_where_it_gets_gap_plays():
    core = position([("grey 1",), ("green 5", "green 6"), ("grey 2",), ("grey 3",)],
                    piles=[("red 4",), ("blue 5",)], draw=("purple 10",), current=1)
    assert core.phase[0] == Phase.FLIP
    # purple 10 on the left: 10 / 5 (green 6 fits the gap); on the right: 4 / 10 (green 5 and 6 fit).
    assert GapHunterAgent(seed=0).act(core.observe(1), core.legal_mask)[0] == flip_action(1)


def test_planner_finds_annes_perfect_turn():
    core = position([("grey 1", "grey 2"), ("green 1",), ("green 2",), ("blue 7", "grey 4", "red 6", "red 2", "purple 11")],
                    piles=[("grey 10",), ("red 3",)], current=3)
    assert turn_of(PlannerAgent(seed=0), core, 3) == ["PLAY_BLUE_7_LEFT", "PLAY_GREY_4_RIGHT", "PLAY_RED_6_LEFT",
                                                       "PLAY_RED_2_LEFT"]
    assert core.pile_top[0].tolist() == [C("red 2"), C("grey 4")]


def test_planner_goes_out_when_a_chain_empties_its_hand():
    core = position([("yellow 8", "green 5", "yellow 4"), ("grey 1",), ("grey 2",), ("grey 3",)],
                    piles=[("red 3",), ("blue 10",)], hidden=[[C("red 6"), C("blue 6")], [], [], []])
    # yellow 8 first leaves yellow on top, which blocks yellow 4 as a gap card: the order matters.
    turn_of(PlannerAgent(seed=0), core, 0)
    assert core.went_out[0].tolist() == [1, 0, 0, 0] and core.score[0, 0] == 8


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4])
def test_league_order_planner_over_gap_hunter_over_random(players):
    """Seat-rotated games of planner, gap_hunter and random (the remaining seats random): mean win
    shares in that order."""
    names = ["planner", "gap_hunter"] + ["random"] * (players - 2)
    shares = {name: [] for name in set(names)}
    for rotation in range(players):
        core = GapCore(200, Rules(players), seed=rotation)
        seats = [names[(s + rotation) % players] for s in range(players)]
        lineup = [agents.make(name, game="gap_v0", seed=s) for s, name in enumerate(seats)]
        while not core.done.all():
            actions = np.zeros(core.num_envs, np.int64)
            for s, agent in enumerate(lineup):
                g = np.flatnonzero((core.current == s) & ~core.done)
                if g.size:
                    actions[g] = agent.act(core.observe(s, games=g), core.legal_mask[g])
            core.step(actions)
        win = core.score == core.score.max(axis=1, keepdims=True)
        share = win / win.sum(axis=1, keepdims=True)
        for s, name in enumerate(seats):
            shares[name].append(share[:, s].mean())
    mean = {name: float(np.mean(v)) for name, v in shares.items()}
    assert mean["planner"] > mean["gap_hunter"] > mean.get("random", -1.0), mean


def test_hint_features_agree_with_the_legal_plays():
    from keine_ahnung_env import gap_v0

    spec = gap_v0.game_spec(3)
    assert spec.default_features == "hints" and spec.feature_names == ("raw", "hints", "advice", "belief")
    core = spec.make_core(16, 4)
    rng = np.random.default_rng(0)
    features = spec.features("hints")
    checked = 0
    for _ in range(200):
        obs = core.observe(core.current)
        x = features(obs)
        assert x.shape == (16, features.size) and 0.0 <= x.min() and x.max() <= 1.0
        hints = x[:, spec.observation_size:spec.observation_size + 198].reshape(16, 3, 66).astype(bool)
        for b in np.flatnonzero(core.phase == Phase.PLAY):
            plays = core.legal_mask[b, :132].reshape(66, 2)
            np.testing.assert_array_equal(plays[:, 0], hints[b, 0] | hints[b, 1])
            np.testing.assert_array_equal(plays[:, 1], hints[b, 0] | hints[b, 2])
            checked += 1
        core.step(np.array([rng.choice(np.flatnonzero(m)) for m in core.legal_mask]))
        if core.done.any():
            core.reset_games(np.flatnonzero(core.done))
    assert checked > 500
