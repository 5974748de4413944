"""``counter_tuned``: counter's rules with the call threshold tuned against counter (issue 18).

Its strength is measured in docs/skill_ceiling.md (tens of thousands of games, too long for a test);
here: it is built by name, plays on the compiled kernel, and its threshold changes decisions on a
built position where ``counter`` reveals and ``counter_tuned`` calls.
"""

from __future__ import annotations

import numpy as np
import pytest

import agents
from keine_ahnung_env.games.keine_ahnung import odds as risk
from keine_ahnung_env.games.keine_ahnung.actions import ACTION_CALL
from keine_ahnung_env.games.keine_ahnung.agents import TUNED_CALL_THRESHOLD, CounterAgent, TunedCounterAgent

from test_agents import face, mask_for  # noqa: E402 (tests/ is on sys.path under pytest)
from test_risk import BAD, GOOD, build_obs  # noqa: E402


def test_counter_tuned_is_registered_and_compiled():
    agent = agents.make("counter_tuned", game="keine_ahnung_v0", seed=1)
    assert isinstance(agent, TunedCounterAgent) and agent.name == "counter_tuned" and agent.compiled
    np.testing.assert_array_equal(agent.call_threshold, [TUNED_CALL_THRESHOLD] * 3)
    np.testing.assert_array_equal(agent.endgame_threshold, [0.5] * 3)  # counter's, unchanged
    assert 0.5 < TUNED_CALL_THRESHOLD < 0.7
    # Every counter parameter is still an option, the threshold too.
    other = agents.make("counter_tuned:harm_weight=0.1:call_threshold=0.6", seed=1)
    assert other.harm_weight == 0.1 and (other.call_threshold == 0.6).all()
    with pytest.raises(ValueError, match="call_threshold"):
        agents.make("counter_tuned", call_threshold=1.5)
    with pytest.raises(ValueError, match="rejected its arguments"):
        agents.make("counter_tuned", colour="red")
    # The same defaults as counter's apart from the call threshold.
    tuned, counter = TunedCounterAgent(seed=0), CounterAgent(seed=0)
    assert (tuned.endgame_trophies, tuned.known_weight, tuned.harm_weight, tuned.refill_attack) == \
        (counter.endgame_trophies, counter.known_weight, counter.harm_weight, counter.refill_attack)


@pytest.mark.parametrize("compiled", [True, False])
def test_counter_tuned_calls_where_counter_reveals(compiled):
    def early(obs):
        """Twelve trophies left: the position is not in counter's endgame (threshold 0.5 there)."""
        obs[risk.layout_for(obs.size).slice("table_counts")][2] = 12
        return obs

    # One known misfit (blue 1 on a red 5) and one unknown card; 4 of the 6 unknown cards miss: the
    # call succeeds with p = 2/3, between counter's threshold (0.7) and counter_tuned's.
    risky = early(build_obs(tops=[face("red", 5)], own=[face("blue", 1), "?"], pool={GOOD[0]: 2, GOOD[1]: 2, BAD[0]: 2}))
    assert risk.call_success_probability(risky) == pytest.approx(2 / 3)
    obs, mask = np.repeat(risky[None], 16, 0), np.repeat(mask_for(risky), 16, 0)
    assert (CounterAgent(seed=0, compiled=compiled).act(obs, mask) == 1).all()  # reveals the unknown card
    assert (TunedCounterAgent(seed=0, compiled=compiled).act(obs, mask) == ACTION_CALL).all()
    # Below both thresholds (p = 1/3: 2 of the 6 unknown cards miss) both reveal.
    worse = early(build_obs(tops=[face("red", 5)], own=[face("blue", 1), "?"], pool={GOOD[0]: 2, BAD[0]: 2, BAD[1]: 2}))
    assert risk.call_success_probability(worse) == pytest.approx(1 / 3)
    assert (TunedCounterAgent(seed=0, compiled=compiled).act(np.repeat(worse[None], 16, 0),
                                                              np.repeat(mask_for(worse), 16, 0)) == 1).all()
