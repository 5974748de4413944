"""The search agent ``ismcts`` (agents/ismcts.py, issue 18 item 2): determinized search over states
drawn from the belief sampler, batched roll-outs on the compiled engine."""

import numpy as np
import pytest

import agents
from agents.ismcts import SearchAgent
from keine_ahnung_env import registry
from keine_ahnung_env.games.keine_ahnung.actions import ACTION_CALL
from keine_ahnung_env.games.keine_ahnung.odds import batch_call_success_probability


def _positions(players: int, seed: int, steps: int, num_games: int = 24):
    """A core after ``steps`` moves of counter in every seat."""
    spec = registry.game_spec("keine_ahnung_v0", players)
    core = spec.make_core(num_games, seed)
    counter = agents.make("counter", seed=seed)
    for _ in range(steps):
        live = np.flatnonzero(~core.done)
        actions = np.zeros(num_games, np.int64)
        actions[live] = counter.act(core.observe(core.current[live], games=live), core.legal_mask[live])
        core.step(actions, active=~core.done)
    return core


def _refuses_bad_agent_specs(option: str, allowed: str) -> None:
    """An empty spec for ``option`` is refused naming what is allowed, an unknown agent by its name."""
    with pytest.raises(ValueError, match=rf"{option}=''; allowed: {allowed}"):
        agents.make("ismcts", **{option: ""})
    with pytest.raises(ValueError, match=r"unknown agent 'nobody'"):
        agents.make("ismcts", **{option: "nobody"})


def test_ismcts_is_registered_and_refuses_bad_arguments():
    agent = agents.make("ismcts", playouts=2, seed=0)
    assert isinstance(agent, SearchAgent) and agent.name == "ismcts" and agent.margin == 2.0
    assert "ismcts" in agents.available("keine_ahnung_v0")
    assert agents.make("ismcts:playouts=3:when=CALL").when == "CALL"
    for kwargs, message in [
        (dict(playouts=1), r"playouts=1; allowed: an integer >= 2"),
        (dict(margin=-1.0), r"margin=-1.0; allowed: a non-negative number"),
        (dict(when="NOPE"), r"when='NOPE': no action named 'NOPE' in keine_ahnung_v0"),
        (dict(when=""), r"when=''; allowed: 'all' or action names joined by '\+'"),
        (dict(max_rows=0), r"max_rows=0; allowed: a positive integer"),
        (dict(screen=1), r"screen=1; allowed: 0 \(no first look\) or an integer >= 2"),
        (dict(rollout="nobody"), r"unknown agent 'nobody'"),
    ]:
        with pytest.raises(ValueError, match=message):
            agents.make("ismcts", **kwargs)
    # Every game with a belief sampler can be searched; the roll-out agent defaults to the opponents of
    # the game's first advantage recipe (its strongest heuristic). A game without a sampler is refused,
    # naming those with one.
    assert agents.make("ismcts", game="gap_v0").rollout_spec == "planner"
    assert agents.make("ismcts", game="dnp_v0").rollout_spec == "tactician"
    assert agents.make("ismcts").rollout_spec == "counter"
    import dataclasses

    def blind_spec(num_players, **rules):
        spec = registry.game_spec("dnp_v0", num_players, **rules)
        return dataclasses.replace(spec, name="blind_v0", hooks=dataclasses.replace(spec.hooks, belief=None))

    registry.register_game(registry.GameEntry("blind_v0", blind_spec, 2, 5, 4))
    try:
        with pytest.raises(ValueError, match=r"blind_v0 offers no belief sampler .*games that offer it: "
                                             r"dnp_v0, gap_v0, keine_ahnung_v0"):
            agents.make("ismcts", game="blind_v0")
    finally:
        registry.unregister_game("blind_v0")
    agent = agents.make("ismcts", num_players=3, playouts=2)
    with pytest.raises(ValueError, match="made for 3 players"):
        agent.act(np.zeros((1, registry.game_spec("keine_ahnung_v0", 4).observation_size), np.float32),
                  np.ones((1, 44), bool))


@pytest.mark.parametrize("players", [2, 4])
def test_ismcts_plays_legal_moves_and_searches_only_where_told(players):
    core = _positions(players, seed=players, steps=30, num_games=10)
    live = np.flatnonzero(~core.done)
    obs, mask = core.observe(core.current[live], games=live), core.legal_mask[live]
    agent = agents.make("ismcts", playouts=2, seed=1, max_rows=7)
    actions = agent.act(obs, mask)
    assert actions.dtype == np.int64 and mask[np.arange(live.size), actions].all()
    assert agent.decisions == live.size and 0 < agent.searched <= (mask.sum(1) > 1).sum()
    single = mask.sum(1) == 1
    np.testing.assert_array_equal(actions[single], mask[single].argmax(1))
    calls = agents.make("ismcts", playouts=4, screen=0, seed=1, when="CALL")
    assert mask[np.arange(live.size), calls.act(obs, mask)].all()
    assert calls.searched <= (mask[:, ACTION_CALL] & (mask.sum(1) > 1)).sum()
    assert agent.act(obs[:0], mask[:0]).shape == (0,)


def test_ismcts_finds_the_sure_trophy_its_rollout_agent_misses():
    # Positions where the seat to act may call and the call is sure to win a trophy (every face-down
    # card known not to fit): "never_call" reveals a card instead, the search sees the trophy.
    found_obs, found_mask = [], []
    for seed in range(6):
        core = _positions(3, seed=10 + seed, steps=0, num_games=48)
        # The NumPy reference: its tie-break stream gives the positions this test was written on
        # (the compiled counter breaks ties from another stream, and among its sure-trophy positions
        # some have a reveal nearly as good as the call, which 16 play-outs cannot tell apart).
        counter = agents.make("counter", seed=seed, compiled=False)
        for _ in range(150):
            live = np.flatnonzero(~core.done)
            if live.size == 0:
                break
            obs, mask = core.observe(core.current[live], games=live), core.legal_mask[live]
            sure = mask[:, ACTION_CALL] & (mask.sum(1) > 1) & (batch_call_success_probability(obs) == 1.0)
            found_obs.extend(obs[sure])
            found_mask.extend(mask[sure])
            actions = np.zeros(core.num_envs, np.int64)
            actions[live] = counter.act(obs, mask)
            core.step(actions, active=~core.done)
        if len(found_obs) >= 8:
            break
    obs, mask = np.array(found_obs[:8]), np.array(found_mask[:8])
    assert len(obs) == 8
    never = agents.make("never_call", seed=0)
    assert (never.act(obs, mask) != ACTION_CALL).all()
    agent = agents.make("ismcts", rollout="never_call", playouts=16, margin=0.0, screen=0, seed=0)
    chosen = agent.act(obs, mask)
    assert (chosen == ACTION_CALL).sum() >= 7 and agent.changed >= 7


def test_ismcts_can_seat_other_opponents_in_its_rollouts():
    """``opponents``: the roll-outs' other seats play that agent, the deciding seat the roll-out agent."""
    _refuses_bad_agent_specs("opponents", r"None .the roll-out agent in every seat. or an agent spec")
    core = _positions(4, seed=7, steps=20, num_games=12)
    live = np.flatnonzero(~core.done)
    obs = core.observe(core.current[live], games=live)
    spec = registry.game_spec("keine_ahnung_v0", 4)
    values = {}
    for opponents in (None, "always_call"):
        agent = agents.make("ismcts", playouts=8, seed=3, rollout="counter", opponents=opponents)
        assert agent.opponents_spec == opponents
        jobs = []
        for o in obs[:6]:
            states = spec.belief.sample_states(o, 8, np.random.default_rng(5))
            moves, _ = agent._moves(spec, states, int(np.flatnonzero(states.legal_mask[0])[0]))
            jobs.append((states, moves, np.arange(8)))
        values[opponents] = np.concatenate([v.ravel() for v in agent._values(spec, jobs)])
    # Against counters the deciding seat wins about its share; against always_call it nearly always wins.
    assert values[None].mean() < 0.5 < values["always_call"].mean()
    moves = agents.make("ismcts", playouts=2, seed=1, opponents="counter").act(obs, core.legal_mask[live])
    assert core.legal_mask[live][np.arange(live.size), moves].all()


def test_ismcts_keeps_its_default_agents_move_where_it_does_not_search():
    """``default``: the move the search keeps is that agent's, not the roll-out agent's."""
    _refuses_bad_agent_specs("default", r"None .the roll-out agent's move. or an agent spec")
    core = _positions(4, seed=9, steps=25, num_games=24)
    live = np.flatnonzero(~core.done)
    obs, mask = core.observe(core.current[live], games=live), core.legal_mask[live]
    unsearched = ~mask[:, ACTION_CALL]
    greedy = agents.make("greedy", seed=2).act(obs, mask)  # the default agent is seeded seed + 2
    counter = agents.make("counter", seed=0).act(obs, mask)
    assert unsearched.sum() >= 3 and (greedy != counter)[unsearched].any()  # positions that tell them apart
    agent = agents.make("ismcts", playouts=2, screen=0, seed=0, when="CALL", rollout="counter", default="greedy")
    assert agent.default_spec == "greedy" and agent.rollout_spec == "counter"
    actions = agent.act(obs, mask)
    np.testing.assert_array_equal(actions[unsearched], greedy[unsearched])
    assert mask[np.arange(live.size), actions].all()


def test_ismcts_4p_is_the_documented_search_over_advantage_4p():
    agent = agents.make("ismcts_4p", seed=0)
    assert isinstance(agent, SearchAgent) and agent.name == "ismcts_4p"
    assert (agent.playouts, agent.screen, agent.margin, agent.when) == (128, 8, 2.5, "all")
    assert (agent.default_spec, agent.rollout_spec, agent.opponents_spec) == ("advantage_4p", "counter_tuned", "counter")
    assert agents.make("ismcts_4p:playouts=16", seed=0).playouts == 16
    with pytest.raises(ValueError, match="ismcts_4p plays 4-player keine_ahnung_v0"):
        agents.make("ismcts_4p", num_players=3)
    # Where it does not search (a single distinct move) it plays advantage_4p's move.
    core = _positions(4, seed=4, steps=12, num_games=8)
    live = np.flatnonzero(~core.done)
    obs, mask = core.observe(core.current[live], games=live), core.legal_mask[live]
    single = mask.sum(1) == 1
    cheap = agents.make("ismcts_4p:playouts=2:screen=0:when=CALL", seed=0)
    actions = cheap.act(obs, mask)
    expected = agents.make("advantage_4p", seed=2).act(obs, mask)
    untouched = single | ~mask[:, ACTION_CALL]
    assert untouched.any()
    np.testing.assert_array_equal(actions[untouched], expected[untouched])


def test_act_and_default_and_move_values_expose_what_the_search_weighed():
    core = _positions(4, seed=5, steps=20, num_games=16)
    live = np.flatnonzero(~core.done)
    obs, mask = core.observe(core.current[live], games=live), core.legal_mask[live]
    spec_args = dict(playouts=4, screen=0, margin=0.0, seed=2, rollout="counter", default="greedy")
    actions, defaults = agents.make("ismcts", **spec_args).act_and_default(obs, mask)
    np.testing.assert_array_equal(actions, agents.make("ismcts", **spec_args).act(obs, mask))
    np.testing.assert_array_equal(defaults, agents.make("greedy", seed=4).act(obs, mask))
    agent = agents.make("ismcts", **spec_args)
    spec = registry.game_spec("keine_ahnung_v0", 4)
    states = spec.belief.sample_states(obs[0], 6, np.random.default_rng(0))
    legal = np.flatnonzero(mask[0])[:2].tolist()
    values = agent.move_values(spec, states, legal)
    assert values.shape == (len(legal), 6) and ((values >= 0) & (values <= 1)).all()


def test_search_departures_benchmark_judges_every_departure():
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "research" / "search_departures.py"
    module_spec = importlib.util.spec_from_file_location("search_departures", path)
    module = importlib.util.module_from_spec(module_spec)
    module_spec.loader.exec_module(module)
    out = module.main(["--agent", "ismcts:playouts=2:screen=0:margin=0:when=CALL:rollout=counter:default=greedy",
                       "--games", "4", "--seed", "1", "--judge", "4", "--judge-rollout", "counter"])
    assert out["departures"] > 0 and out["searched"] >= out["departures"] and np.isfinite(out["gain_points"])
