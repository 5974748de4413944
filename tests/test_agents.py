"""Agents: the registry, legality on many states, the heuristics' rules on built tables, and
strength (greedy over random and never_call, counter over greedy)."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from keine_ahnung_env import keine_ahnung_v0
from keine_ahnung_env.games.keine_ahnung import odds as risk
from keine_ahnung_env.games.keine_ahnung.actions import ACTION_CALL, ACTION_KEEP, ACTION_PLACE_BASE, NUM_ACTIONS, Phase
from keine_ahnung_env.games.keine_ahnung.agents import CounterAgent, GreedyAgent, RiskCallerAgent
from keine_ahnung_env.games.keine_ahnung.config import Rules
from keine_ahnung_env.games.keine_ahnung.deck import COLOURS, NUM_NUMBERS
from training.tournament import play_tournament

from test_risk import BAD, GOOD, build_obs  # noqa: E402 (tests/ is on sys.path under pytest)

HEURISTICS = ["random", "never_call", "always_call", "greedy", "risk_caller:0.6", "counter"]


def face(colour: str, number: int) -> int:
    return COLOURS.index(colour) * NUM_NUMBERS + number - 1


def mask_for(obs: np.ndarray, extra=()) -> np.ndarray:
    """The MAIN-phase mask of a built observation: reveal every own card, call with 1-3 cards."""
    view = risk.decode(obs)
    mask = np.zeros((1, NUM_ACTIONS), bool)
    cards = view.slot_state[0, 0] != risk.SLOT_EMPTY
    mask[0, :6] = cards
    mask[0, ACTION_CALL] = cards.sum() <= 3
    for a in extra:
        mask[0, a] = True
    return mask


# ------------------------------------------------------------------------------------- registry


def test_registry_lists_and_builds_every_agent():
    names = agents.available("keine_ahnung_v0")
    assert {"random", "never_call", "always_call", "greedy", "risk_caller", "counter", "ppo"} <= set(names)
    for spec in HEURISTICS:
        agent = agents.make(spec, game="keine_ahnung_v0", seed=1)
        assert agent.name == spec
        assert hasattr(agent, "act") and hasattr(agent, "reseed")
    assert agents.make("risk_caller", threshold=0.25).threshold == 0.25
    assert agents.make("risk_caller:threshold=0.3").threshold == 0.3
    assert agents.make("risk_caller:0.6", threshold=0.7).threshold == 0.7  # keywords win
    assert isinstance(agents.make("counter", call_threshold=0.9, num_players=3), CounterAgent)


def test_registry_errors_are_clear():
    with pytest.raises(ValueError, match="unknown agent 'nope'.*available: advantage, advantage_2p, advantage_3p, advantage_4p, advantage_4p_call, advantage_5p, always_call, counter, counter_tuned, greedy"):
        agents.make("nope")
    with pytest.raises(ValueError, match="unknown game"):
        agents.make("greedy", game="chess")
    with pytest.raises(ValueError, match=r"threshold=1\.5; allowed: a number from 0 to 1"):
        agents.make("risk_caller:1.5")
    with pytest.raises(ValueError, match="threshold='high'"):
        agents.make("risk_caller:high")
    with pytest.raises(ValueError, match="'greedy' takes: none"):
        agents.make("greedy:3")
    with pytest.raises(ValueError, match="rejected its arguments"):
        agents.make("greedy", colour="red")
    with pytest.raises(ValueError, match="num_players"):
        agents.make("greedy", num_players=9)
    with pytest.raises(ValueError, match="call_threshold"):
        agents.make("counter", call_threshold=(0.5, 2.0, 0.5))
    # A ppo path keeps its colons (a Windows drive); only trailing key=value segments are keywords.
    assert agents.parse_spec("ppo:C:\\runs\\x.zip:deterministic=false") == (
        "ppo", {"path": "C:\\runs\\x.zip", "deterministic": False})
    assert agents.parse_spec("ppo:runs/a:b.zip") == ("ppo", {"path": "runs/a:b.zip"})
    assert agents.parse_spec("ppo:path=x.zip:seed=3") == ("ppo", {"path": "x.zip", "seed": 3})
    # Spec values true/false are booleans (a string "False" would be truthy); anything else is refused.
    assert agents.make("counter:refill_attack=False").refill_attack is False
    assert agents.make("counter:refill_attack=true").refill_attack is True
    with pytest.raises(ValueError, match="refill_attack='maybe'; allowed: True or False"):
        agents.make("counter:refill_attack=maybe")


def test_lazy_entries_fail_clearly_when_their_module_is_missing():
    agents.register("future_agent", "agents.not_written_yet:make_agent", positional=("path",))
    try:
        assert "future_agent" in agents.available("keine_ahnung_v0")
        with pytest.raises(ValueError, match="cannot be built.*agents.not_written_yet"):
            agents.make("future_agent:some/file.zip")
    finally:
        agents.unregister("future_agent", game="keine_ahnung_v0")
    assert "future_agent" not in agents.available("keine_ahnung_v0")
    with pytest.raises(ValueError, match="unknown game 'chess_v0'; registered games: .*keine_ahnung_v0"):
        agents.make("random", game="chess_v0")
    # The PPO entry resolves lazily to agents/ppo.py, which wants a checkpoint path.
    with pytest.raises(ValueError, match="path"):
        agents.make("ppo")
    assert agents.parse_spec("ppo:C:/runs/a:b.zip") == ("ppo", {"path": "C:/runs/a:b.zip"})
    assert agents.parse_spec("risk_caller:0.6") == ("risk_caller", {"threshold": 0.6})


# ------------------------------------------------------------------------------------- legality


@pytest.mark.parametrize("num_players,rules", [(2, {}), (3, {"memory": "none"}), (4, {"allow_keep": True}),
                                               (5, {}), (4, {"memory": "none", "allow_keep": True})])
def test_every_agent_returns_legal_actions_on_many_states(num_players, rules):
    pool = [agents.make(spec, seed=i) for i, spec in enumerate(HEURISTICS)]
    env = keine_ahnung_v0.vector_env(48, num_players, seed=num_players, autoreset=True, **rules)
    result = env.reset()
    rng = np.random.default_rng(0)
    checked = 0
    for step in range(150):
        obs, mask = result.observation, result.action_mask
        choices = []
        for agent in pool:
            actions = agent.act(obs, mask)
            assert actions.dtype == np.int64 and actions.shape == (48,)
            assert mask[np.arange(48), actions].all(), agent.name
            choices.append(actions)
        if rules.get("allow_keep"):
            assert not (np.stack(choices[3:]) == ACTION_KEEP).any()  # the heuristics never keep
        checked += 48
        result = env.step(np.stack(choices)[rng.integers(len(pool), size=48), np.arange(48)])
    assert checked >= 7000


def test_agents_infer_the_table_size_and_refuse_a_wrong_one():
    agent = agents.make("counter", seed=0)
    for P in (2, 5):
        result = keine_ahnung_v0.vector_env(4, P, seed=1).reset()
        assert agent.act(result.observation, result.action_mask).shape == (4,)
    fixed = agents.make("greedy", num_players=3)
    result = keine_ahnung_v0.vector_env(2, 4, seed=1).reset()
    with pytest.raises(ValueError, match="made for 3 players but the observations are 4-player"):
        fixed.act(result.observation, result.action_mask)
    with pytest.raises(ValueError, match="matches no player count"):
        agent.act(np.zeros((2, 99), np.float32), np.ones((2, NUM_ACTIONS), bool))
    with pytest.raises(ValueError, match="columns"):
        agent.act(result.observation, np.ones((2, 5), bool))
    assert agent.act(np.zeros((0, result.observation.shape[1])), np.zeros((0, NUM_ACTIONS), bool)).shape == (0,)


def test_seeded_agents_are_reproducible():
    result = keine_ahnung_v0.vector_env(64, 4, seed=3).reset()
    for spec in HEURISTICS:
        a = agents.make(spec, seed=7).act(result.observation, result.action_mask)
        b = agents.make(spec, seed=7).act(result.observation, result.action_mask)
        np.testing.assert_array_equal(a, b)


# ------------------------------------------------------------------------------ the rules, built


def test_greedy_plays_a_known_fitting_card_first():
    obs = build_obs(tops=[face("red", 5)], own=["?", face("blue", 1), face("red", 2), "?"],
                    pool={GOOD[0]: 3, BAD[0]: 3})
    assert GreedyAgent(seed=0).act(obs[None], mask_for(obs))[0] == 2


def test_greedy_never_reveals_a_known_misfit_while_an_unknown_card_is_left():
    obs = build_obs(tops=[face("red", 5)], own=[face("blue", 1), face("grey", 2), "?", face("green", 3), "?"],
                    pool={GOOD[0]: 3, BAD[0]: 3})
    picks = GreedyAgent(seed=0).act(np.repeat(obs[None], 200, 0), np.repeat(mask_for(obs), 200, 0))
    assert set(picks.tolist()) == {2, 4}
    # Only known misfits and four cards: calling is not allowed, a (useless) reveal is the only move.
    stuck = build_obs(tops=[face("red", 5)], own=[face("blue", 1), face("grey", 2), face("green", 3), face("blue", 4)],
                      pool={GOOD[0]: 3})
    assert GreedyAgent(seed=0).act(stuck[None], mask_for(stuck))[0] in range(4)


def test_greedy_calls_a_sure_call_and_risk_caller_follows_its_threshold():
    sure = build_obs(tops=[face("red", 5)], own=[face("blue", 1), None, face("grey", 2)], pool={GOOD[0]: 3, BAD[0]: 3})
    assert GreedyAgent(seed=0).act(sure[None], mask_for(sure))[0] == ACTION_CALL
    # One known misfit and one unknown card, 4 of 6 unknown cards miss: p = 2/3.
    risky = build_obs(tops=[face("red", 5)], own=[face("blue", 1), "?"], pool={GOOD[0]: 2, GOOD[1]: 2, BAD[0]: 2})
    assert risk.call_success_probability(risky) == pytest.approx(2 / 3)
    assert GreedyAgent(seed=0).act(risky[None], mask_for(risky))[0] == 1
    assert RiskCallerAgent(0.6, seed=0).act(risky[None], mask_for(risky))[0] == ACTION_CALL
    assert RiskCallerAgent(0.7, seed=0).act(risky[None], mask_for(risky))[0] == 1
    assert agents.make("always_call").act(risky[None], mask_for(risky))[0] == ACTION_CALL
    assert agents.make("never_call").act(risky[None], mask_for(risky))[0] == 1


def test_greedy_pile_choice_keeps_its_known_card_playable():
    # Pending blue 5 (drawn) fits both tops, red 5 and blue 2; the seat holds a known red 1, which
    # fits only the red 5: covering the blue 2 keeps it playable.
    obs = build_obs(tops=[face("red", 5), face("blue", 2)], own=[face("red", 1), "?", "?", "?"],
                    pool={GOOD[0]: 3, BAD[0]: 3}, phase=Phase.PLACE_DRAWN)
    layout = risk.layout_for(obs.size)
    obs[layout.slice("pending_card")][[0, 6 + 4]] = 1  # blue, 5
    mask = np.zeros((1, NUM_ACTIONS), bool)
    mask[0, ACTION_PLACE_BASE + face("red", 5)] = mask[0, ACTION_PLACE_BASE + face("blue", 2)] = True
    for agent in (GreedyAgent(seed=0), CounterAgent(seed=0)):
        picks = agent.act(np.repeat(obs[None], 20, 0), np.repeat(mask, 20, 0))
        assert (picks == ACTION_PLACE_BASE + face("blue", 2)).all(), agent.name


def test_counter_keeps_known_fitting_cards_in_reserve():
    obs = build_obs(tops=[face("red", 5)], own=["?", face("red", 2), "?", "?", face("blue", 1)],
                    pool={GOOD[0]: 3, BAD[0]: 3})
    assert CounterAgent(seed=0).act(obs[None], mask_for(obs))[0] in (0, 2, 3)
    # With no unknown card left, the known fitting card is played, then the rest is called.
    obs = build_obs(tops=[face("red", 5)], own=[face("blue", 3), face("red", 2), face("green", 1), face("blue", 1)],
                    pool={GOOD[0]: 3, BAD[0]: 3})
    assert CounterAgent(seed=0).act(obs[None], mask_for(obs))[0] == 1


def test_counter_refills_an_opponent_about_to_call():
    tables = Rules.make(3).tables()
    # The red card with the refill function (function code 3).
    red_refill = next(key for key in tables.type_keys if key[0] == COLOURS.index("red") and key[2] == 3)
    obs = build_obs(P=3, tops=[face("red", 5)], own=["?", "?", face("red", red_refill[1]), "?"],
                    pool={GOOD[0]: 3, BAD[0]: 3}, seat_cards={1: [face("blue", 1), face("grey", 2)], 2: ["?"] * 6})
    layout = risk.layout_for(obs.size)
    slots = obs[layout.slice("layouts")].reshape(3, 6, 18)
    slots[0, 2, 3 + 6 + 6 + 2] = 1  # the refill function flag
    assert CounterAgent(seed=0).act(obs[None], mask_for(obs))[0] == 2
    assert CounterAgent(seed=0, refill_attack=False).act(obs[None], mask_for(obs))[0] in (0, 1, 3)


# ------------------------------------------------------------------------------------- strength


def test_greedy_beats_random_and_never_call():
    result = play_tournament([agents.make("greedy", seed=1), agents.make("never_call", seed=2),
                              agents.make("random", seed=3)], num_players=3, games=300, seed=4)
    greedy, never_call, random = result.agents
    assert greedy.win_interval[0] > never_call.win_interval[1]
    assert greedy.win_rate > 0.6 and random.win_rate < 0.05
    assert greedy.mean_score > never_call.mean_score + 3
    assert never_call.calls == 0 and greedy.call_success_rate == 1.0


def test_counter_beats_greedy():
    """Seat-rotated 3-player games against two greedy agents: the Wilson lower bound of counter's
    win rate is above the fair third (the deals are seeded, so this is deterministic)."""
    greedy = agents.make("greedy", seed=2)
    result = play_tournament([agents.make("counter", seed=1), greedy, greedy], num_players=3, games=1500, seed=21,
                             rating_passes=1)
    counter = result.agents[0]
    assert counter.win_interval[0] > 1 / 3, result.table()


# ------------------------------------------------------------------------------- masked sampling


def test_sample_masked_is_uniform_over_legal_actions_and_matches_the_weighted_path():
    from agents.base import sample_masked

    rng = np.random.default_rng(3)
    mask = rng.random((5000, NUM_ACTIONS)) < 0.3
    mask[:10] = False  # rows without a legal action get 0
    uniform = sample_masked(np.random.default_rng(8), mask)
    weighted = sample_masked(np.random.default_rng(8), mask, weights=np.ones(mask.shape))
    # The integer fast path draws the same action from the same random number as the float path.
    np.testing.assert_array_equal(uniform, weighted)
    assert (uniform[:10] == 0).all() and mask[np.arange(10, 5000), uniform[10:]].all()
    # One row, many draws: every legal action about equally often, never an illegal one.
    row = np.zeros((20000, NUM_ACTIONS), bool)
    row[:, [1, 7, 30, 43]] = True
    counts = np.bincount(sample_masked(np.random.default_rng(9), row), minlength=NUM_ACTIONS)
    assert counts.sum() == counts[[1, 7, 30, 43]].sum()
    assert np.abs(counts[[1, 7, 30, 43]] / 20000 - 0.25).max() < 0.015  # 5 sigma is about 0.0153
    # Weights still bias the draw; a 3-D mask is refused.
    biased = sample_masked(np.random.default_rng(9), row, weights=np.where(np.arange(NUM_ACTIONS) == 43, 9.0, 1.0))
    assert (biased == 43).mean() > 0.7
    with pytest.raises(ValueError, match="2-D"):
        sample_masked(rng, mask[None])
    assert sample_masked(rng, np.zeros((3, 0), bool)).tolist() == [0, 0, 0]


def test_sample_masked_compiled_uniform_path_gives_the_actions_of_the_former_numpy_one():
    """The uniform path is a compiled pass now; seeded runs and published figures need the same
    actions from the same draws as the NumPy cumsum/argmax it replaced, written out here."""
    from agents.base import sample_masked

    class Draws:  # a generator stand-in that hands out chosen uniforms
        def __init__(self, u):
            self.u = np.asarray(u, np.float64)

        def random(self, n):
            assert n == self.u.size
            return self.u

    def former(u, mask):
        dtype = np.uint8 if mask.shape[1] < 256 else np.int64
        cum = np.cumsum(mask, axis=1, dtype=dtype)
        k = (u * cum[:, -1]).astype(dtype)
        return (cum > k[:, None]).argmax(axis=1).astype(np.int64)

    rng = np.random.default_rng(12)
    # Widths on both sides of the one-word path's edges (8-byte loads, the 64-action word) and beyond it.
    for width, density in ((1, 0.5), (7, 0.5), (8, 0.5), (9, 0.5), (NUM_ACTIONS, 0.1), (NUM_ACTIONS, 0.9),
                           (63, 0.5), (64, 0.05), (64, 0.95), (65, 0.5), (255, 0.99), (300, 0.6)):
        mask = rng.random((3000, width)) < density
        mask[:5] = False
        mask[5:10] = True
        u = rng.random(3000)
        u[:40] = np.nextafter(1.0, 0.0)  # the largest draw: the last legal action
        u[40:60] = 0.0
        got = sample_masked(Draws(u), mask)
        np.testing.assert_array_equal(got, former(u, mask))
        assert got.dtype == np.int64
        strided = np.repeat(mask, 2, axis=1)[:, ::2]  # not contiguous: the same mask, the same actions
        np.testing.assert_array_equal(sample_masked(Draws(u), strided), former(u, mask))
    # And from a real generator: the same actions as the former path on the same stream.
    mask = rng.random((4096, NUM_ACTIONS)) < 0.2
    np.testing.assert_array_equal(sample_masked(np.random.default_rng(5), mask),
                                  former(np.random.default_rng(5).random(4096), mask))


def test_sample_masked_parallel_pass_gives_the_serial_pass_actions(monkeypatch):
    """From ``PARALLEL_MIN_ROWS`` rows the uniform draw runs over Numba's threads: every row must get
    the action the serial pass gives for the same draw (empty rows 0, the others a legal action)."""
    from keine_ahnung_env import sampling

    rng = np.random.default_rng(21)
    mask = rng.random((3001, NUM_ACTIONS)) < rng.random((3001, 1))
    mask[:7] = False
    mask[7] = True
    got = {}
    for threshold in (1, 10**9):  # every batch parallel / every batch serial
        monkeypatch.setattr(sampling, "PARALLEL_MIN_ROWS", threshold)
        got[threshold] = sampling.sample_masked(np.random.default_rng(3), mask)
    np.testing.assert_array_equal(got[1], got[10**9])
    some = mask.any(axis=1)
    assert (got[1][~some] == 0).all() and (~some).sum() >= 7
    assert mask[np.flatnonzero(some), got[1][some]].all()
    assert len(set(got[1][some].tolist())) > NUM_ACTIONS // 2  # not one action for every row
