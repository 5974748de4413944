"""``greedy`` and ``risk_caller`` compiled (``counter_kernel.py`` in greedy's mode) against their NumPy
reference (``GreedyAgent(compiled=False)``, ``RiskCallerAgent(t, compiled=False)``).

The pattern of ``tests/test_counter_kernel.py`` (its helpers are reused): observations and masks from
real play by ``risk_caller:0.5`` with a share of random moves (2-5 players, both memory modes,
``allow_keep``, a small deck, every phase, finished games too), then

* with the same tie-break numbers, the kernel chooses the reference's action on every row, for
  ``greedy`` and for ``risk_caller`` at thresholds 0, 0.5 and 1;
* with the agent's own generator, the kernel's action is one of the reference's tied actions;
* ``play_turns`` plays the same games as ``act``;
* bad inputs get the reference's errors, ``compiled`` is checked, subclasses that change a rule keep
  the Python path, and ``agents.make`` parses ``greedy:compiled=false``.
"""

from __future__ import annotations

import numpy as np
import pytest

from test_counter_kernel import (  # noqa: E402 (tests/ is on sys.path under pytest)
    SMALL_DECK, VARIANTS, _collect, _Keys, _reference, check_kernel_equals_reference, check_play_turns_against_act,
    reference_tie_sets,
)

import agents
from keine_ahnung_env.games.keine_ahnung import KeineAhnungCore, Rules
from keine_ahnung_env.games.keine_ahnung.actions import ACTION_CALL, NUM_ACTIONS
from keine_ahnung_env.games.keine_ahnung.agents import GreedyAgent, RiskCallerAgent
from keine_ahnung_env.games.keine_ahnung.observation import ObservationLayout

AGENTS = {
    "greedy": lambda **kw: GreedyAgent(**kw),
    "risk_caller:0": lambda **kw: RiskCallerAgent(0.0, **kw),
    "risk_caller:0.5": lambda **kw: RiskCallerAgent(0.5, **kw),
    "risk_caller:1": lambda **kw: RiskCallerAgent(1.0, **kw),
}


@pytest.fixture(scope="module")
def positions():
    return [(P, options, *_collect(P, options, seed=31 + i, games=24, steps=120, agent=RiskCallerAgent))
            for i, (P, options) in enumerate(VARIANTS)]


@pytest.mark.parametrize("name", list(AGENTS))
def test_kernel_equals_reference_given_the_same_tie_break_keys(positions, name):
    calls = decided_total = 0
    for P, options, obs, mask in positions:
        deck = options.get("deck")
        kernel = AGENTS[name](deck=deck)
        reference = AGENTS[name](deck=deck, compiled=False)
        assert kernel.compiled and not reference.compiled and kernel.name == reference.name
        got, keys, decided = check_kernel_equals_reference(kernel, reference, obs, mask, np.random.default_rng(P),
                                                           (name, P, options))
        kernel.rng = _Keys(keys[:100])  # the serial loop (small batch) agrees with the parallel kernel
        assert (kernel.act(obs[:100], mask[:100]) == got[:100]).all()
        calls += int((decided & (got == ACTION_CALL)).sum())
        decided_total += int(decided.sum())
    assert decided_total > 10000
    # The thresholds matter: 0 calls whenever allowed and no known card fits; 1 only when sure.
    assert calls > (2000 if name == "risk_caller:0" else 20), (name, calls)


def test_kernel_with_its_own_generator_is_one_of_the_reference_ties(positions):
    ties_seen = 0
    for P, options, obs, mask in (positions[0], positions[3], positions[4]):
        obs, mask = obs[::6], mask[::6]
        deck = options.get("deck")
        reference = RiskCallerAgent(0.5, deck=deck, compiled=False)
        tie_sets = reference_tie_sets(reference, obs, mask, np.random.default_rng(P))
        decided = tie_sets.any(1)
        got = RiskCallerAgent(0.5, seed=P, deck=deck).act(obs, mask)
        assert tie_sets[np.flatnonzero(decided), got[decided]].all(), P
        ties_seen += int((tie_sets.sum(1) > 1).sum())
    assert ties_seen > 300


def test_a_threshold_changed_after_the_first_act_is_used(positions):
    # The kernel's parameters come from the agent's attributes at every call, as the NumPy methods read them.
    P, options, obs, mask = positions[2]
    deck = options.get("deck")
    kernel = RiskCallerAgent(0.0, deck=deck)
    kernel.act(obs[:50], mask[:50])
    kernel.threshold = 1.0
    got, _, decided = check_kernel_equals_reference(kernel, RiskCallerAgent(1.0, deck=deck, compiled=False), obs, mask,
                                                    np.random.default_rng(P), ("threshold changed", P))
    calls_at_zero = RiskCallerAgent(0.0, deck=deck, seed=P).act(obs, mask) == ACTION_CALL
    assert (decided & calls_at_zero & (got != ACTION_CALL)).sum() > 100  # the change mattered


def test_version_1_observations_decode_the_same(positions):
    P, options, obs, mask = positions[2]
    layout = ObservationLayout.make(P, Rules.make(P).tables().num_types, version=1)
    old = obs[:600, :layout.size]
    keys = np.random.default_rng(3).random((old.shape[0], NUM_ACTIONS))
    expected = _reference(RiskCallerAgent(0.5, compiled=False), old, mask[:600], keys)
    kernel = RiskCallerAgent(0.5)
    kernel.rng = _Keys(keys)
    got = kernel.act(old, mask[:600])
    assert ((got == expected) | (expected < 0)).all()


@pytest.mark.parametrize("num_players, options, games, rounds, name", [
    (4, {}, 40, 30, "greedy"), (3, {"memory": "none", "allow_keep": True}, 300, 6, "risk_caller:0.5"),
    (2, {"deck": SMALL_DECK}, 24, 30, "risk_caller:0")])
def test_play_turns_makes_the_decisions_of_act(num_players, options, games, rounds, name):
    check_play_turns_against_act(AGENTS[name], num_players, options, games, rounds)


def test_play_turns_refuses_what_it_cannot_play():
    core = KeineAhnungCore(4, Rules.make(3), seed=0)
    holds = np.ones((2, 3), bool)
    assert not GreedyAgent(compiled=False).play_turns(core, [0, 1], holds)
    assert not RiskCallerAgent(0.5, deck=SMALL_DECK).play_turns(core, [0, 1], holds)
    with pytest.raises(ValueError, match=r"holds must have shape \(2, 3\)"):
        GreedyAgent().play_turns(core, [0, 1], np.ones((2, 4), bool))


def test_bad_inputs_get_the_reference_errors(positions):
    obs4 = positions[2][2][:2]
    mask = np.ones((2, NUM_ACTIONS), bool)
    cases = [
        (dict(), (obs4[0], mask)),
        (dict(), (obs4, mask[:1])),
        (dict(), (obs4, np.ones((2, 5), bool))),
        (dict(), (np.zeros((2, 99), np.float32), mask)),
        (dict(num_players=3), (obs4, mask)),
    ]
    for name in ("greedy", "risk_caller:0.5"):
        for kwargs, args in cases:
            messages = []
            for compiled in (True, False):
                with pytest.raises(ValueError) as err:
                    AGENTS[name](seed=0, compiled=compiled, **kwargs).act(*args)
                messages.append(str(err.value))
            assert messages[0] == messages[1], messages
    for make in (GreedyAgent, lambda **kw: RiskCallerAgent(0.5, **kw)):
        with pytest.raises(ValueError, match="compiled='yes'; allowed: True"):
            make(compiled="yes")
    with pytest.raises(ValueError, match="threshold=2; allowed: a number from 0 to 1"):
        RiskCallerAgent(2)
    assert GreedyAgent().act(np.zeros((0, obs4.shape[1])), np.zeros((0, NUM_ACTIONS), bool)).shape == (0,)


def test_subclasses_that_change_a_rule_keep_the_python_path():
    class Cautious(RiskCallerAgent):
        def _call_wanted(self, view, p):
            return p >= 0.99

    assert GreedyAgent().compiled and RiskCallerAgent().compiled
    assert not Cautious().compiled and not GreedyAgent(compiled=False).compiled


def test_specs_choose_the_path():
    assert agents.make("greedy").compiled and agents.make("risk_caller:0.5").compiled
    plain = agents.make("greedy:compiled=false", seed=1)
    assert isinstance(plain, GreedyAgent) and not plain.compiled
    risky = agents.make("risk_caller:0.25:compiled=false")
    assert not risky.compiled and risky.threshold == 0.25 and risky.name == "risk_caller:0.25"
