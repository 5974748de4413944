"""dnp's ``tactician`` compiled (``games/dnp/agent_kernels.py``) against its Python reference
(``TacticianAgent(compiled=False)``).

Observations and masks come from real play at 2-5 players (tacticians with a share of random moves, so
that positions vary: selections in progress, hands that turn, finished seats), plus now and then the
observation of a seat that is not to act with the actor's mask (where the reference's choice is often
illegal and its random fallback draws), and a variant with the first finisher's set closed. Checks:

* on every row the kernel chooses the reference's action, and the agents' generators are drawn from
  alike (the fallback is resolved in row order);
* the best plan's score and the turned hand's best score are the reference's bit for bit;
* the class constants are read at every call (instance and subclass), and a subclass that changes a
  rule keeps the Python path;
* whole seeded tournaments are the same with ``compiled`` True and False;
* in-engine play (``play_turns``, ``play_together``) plays the games ``act`` plays, byte for byte, and
  declines (touching nothing) where it could not;
* bad ``compiled`` values and bad inputs get clear errors.
"""

from __future__ import annotations

import numpy as np
import pytest

import agents
from keine_ahnung_env.games.dnp import agent_kernels as ak
from keine_ahnung_env.games.dnp.actions import ActionLayout
from keine_ahnung_env.games.dnp.agents import TacticianAgent, _View, infer_layout, play_lineup
from keine_ahnung_env.games.dnp.config import Rules
from keine_ahnung_env.games.dnp.core import DnpCore
from keine_ahnung_env.games.dnp.observation import ObservationLayout

VARIANTS = [(2, {}), (3, {}), (4, {}), (5, {}), (4, {"finisher_set": "closed"})]


def _collect(num_players: int, options: dict, seed: int, games: int = 24, steps: int = 220):
    """Observations of the seat to act (and, every tenth step, of the next seat, with the actor's mask)
    with their masks, from games of tacticians with one move in five random."""
    core = DnpCore(games, Rules.make(num_players, **options), seed=seed)
    player = TacticianAgent(seed=seed)
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    for step in range(steps):
        current = core.current.astype(np.intp)
        o, m = core.observe(current), core.legal_mask.copy()
        obs.append(o)
        masks.append(m)
        if step % 10 == 0:
            obs.append(core.observe((current + 1) % num_players))
            masks.append(m)
        actions = player.act(o, m)
        random = rng.random(games) < 0.2
        legal_random = np.array([rng.choice(np.flatnonzero(row)) if row.any() else 0 for row in m])
        actions = np.where(random, legal_random, actions)
        live = ~core.done
        if not live.any():
            break
        core.step(actions, active=live)
        if step % 80 == 79:
            core.reset_games(np.flatnonzero(core.done))
    return np.concatenate(obs), np.concatenate(masks)


@pytest.fixture(scope="module")
def positions():
    return [(P, options, *_collect(P, options, seed=20 + i)) for i, (P, options) in enumerate(VARIANTS)]


def _codes(obs, mask, agent=None):
    """The kernel's answer per row (an action or a code: FALLBACK, REFERENCE)."""
    P, N = infer_layout(obs.shape[1], mask.shape[1])
    return ak.decide(np.ascontiguousarray(obs), np.ascontiguousarray(mask), ak.layout_info(P, N),
                     ak.params(agent or TacticianAgent()))


def test_positions_cover_selections_turns_and_the_fallback(positions):
    for P, options, obs, mask in positions:
        layout = ObservationLayout.make(P, 40)
        acting = obs[:, layout.slice("acting")][:, 0] > 0
        selecting = obs[:, layout.slice("selection")][:, 0] > 0
        codes = _codes(obs, mask)
        turn = ActionLayout(40, P).turn
        assert obs.shape[0] > 4000 and selecting.sum() > 1000, (P, options)
        assert (codes == turn).sum() > 100 and (codes == ActionLayout(40, P).play).sum() > 300, (P, options)
        assert (codes == ak.FALLBACK).sum() > 50  # the seat that is not to act, with the actor's mask
        # The fallback from the seat to act: only where the finisher's set is closed (module docstring).
        assert ((codes == ak.FALLBACK) & acting).any() == (options.get("finisher_set") == "closed"), (P, options)
        assert not (codes == ak.REFERENCE).any()


def test_kernel_equals_reference_on_every_row(positions):
    for P, options, obs, mask in positions:
        kernel, reference = TacticianAgent(seed=P), TacticianAgent(seed=P, compiled=False)
        assert kernel.compiled and not reference.compiled
        got, expected = kernel.act(obs, mask), reference.act(obs, mask)
        bad = np.flatnonzero(got != expected)
        assert bad.size == 0, (P, options, bad[:5], got[bad[:5]], expected[bad[:5]])
        assert kernel.rng.random() == reference.rng.random()  # the fallback drew alike
        # Small batches run the serial loop, large ones the parallel kernel: the same actions.
        assert np.array_equal(TacticianAgent(seed=P).act(obs[:100], mask[:100]), got[:100])


def _reference_top(agent, obs_row, layout):
    """The reference's first plan (sorted and, with a selection, filtered) and its turned hand's best score."""
    v = _View(obs_row, layout)
    values = np.array([v.sel_value]) if v.sel_count else np.unique(v.active[v.hand])
    ranked = sorted(agent.plans(v, values), key=lambda p: (-p[0], p[1], -p[2], p[3]))
    if v.sel_count:
        ranked = [p for p in ranked if (p[1] == "A" and p[3] >= v.sel_count) or (p[1] == "B" and v.sel_count == 1)]
    turned = agent._rank(v, v.inactive, v.active, np.unique(v.inactive[v.hand]).tolist())
    return (ranked[0] if ranked else None), max((p[0] for p in turned), default=-np.inf)


def test_scores_are_the_references_bit_for_bit(positions):
    reference = TacticianAgent(compiled=False)
    checked = 0
    for P, options, obs, mask in positions[:4]:
        obs = np.ascontiguousarray(obs[::5])
        layout = ObservationLayout.make(P, 40)
        info = ak.layout_info(P, 40)
        ak.add_exps(obs, info)
        out = np.zeros((obs.shape[0], 7))
        ak.top_plans(obs, info, ak.params(reference), ak.EXP_TABLE.keys, ak.EXP_TABLE.vals, out)
        for i in range(obs.shape[0]):
            top, best_turned = _reference_top(reference, obs[i], layout)
            if top is None:
                assert out[i, 0] == 0, i
            else:
                assert out[i, 0] == 1 and (out[i, 1], out[i, 2], out[i, 3], out[i, 4]) == (
                    top[0], "AB".index(top[1]), top[2], top[3]), (P, i, top, out[i])
            assert (out[i, 6] if out[i, 5] else -np.inf) == best_turned, (P, i, best_turned, out[i])
            checked += 1
    assert checked > 3000


def test_the_exponentials_are_numpys():
    """The table holds ``np.exp(-lam)`` as the reference computes it (NumPy's exponential, which on some
    machines differs from the C library's in the last bit), and keeps its values when it grows."""
    table = ak.ExpTable(capacity=8)
    lams = np.array([0.5, 1.0 / 3.0, 2.75, 0.0, 7.125, 1.0 / 3.0, 11.0 / 7.0])
    assert table.add(lams) == 5 and table.count == 5 and table.keys.size >= 16
    assert table.add(lams) == 0
    for lam in lams[lams > 0]:
        got = ak._exp_lookup(table.keys, table.vals, lam)
        assert got == np.exp(-lam), lam
    assert ak._exp_lookup(table.keys, table.vals, 0.25) == -1.0


@pytest.mark.parametrize("constants", [dict(RISK=0.5, BEAT_INTENT=0.9, BEAT_WEIGHT=0.6, TURN_MARGIN=0),
                                       dict(RISK=3, BEAT_INTENT=1.0, BEAT_WEIGHT=0.0, TURN_MARGIN=2.5)])
def test_the_class_constants_are_read_at_every_call(positions, constants):
    P, options, obs, mask = positions[2]
    obs, mask = obs[::3], mask[::3]
    kernel, reference = TacticianAgent(seed=0), TacticianAgent(seed=0, compiled=False)
    default = TacticianAgent(seed=0).act(obs, mask)
    for agent in (kernel, reference):
        for name, value in constants.items():
            setattr(agent, name, value)
    changed = kernel.act(obs, mask)
    assert np.array_equal(changed, reference.act(obs, mask))
    assert (changed != default).any()
    Subclass = type("Tuned", (TacticianAgent,), dict(constants))
    assert Subclass().compiled and np.array_equal(Subclass(seed=0).act(obs, mask), changed)


def test_constants_the_kernel_does_not_reproduce_go_to_the_reference(positions):
    """A NaN score (an extreme RISK) or a constant float64 would not hold exactly: the Python path."""
    P, options, obs, mask = positions[1]
    obs, mask = obs[:600], mask[:600]
    for name, value in (("RISK", -800.0), ("RISK", np.float32(1.5)), ("BEAT_WEIGHT", np.inf)):
        kernel, reference = TacticianAgent(seed=1), TacticianAgent(seed=1, compiled=False)
        setattr(kernel, name, value)
        setattr(reference, name, value)
        with np.errstate(all="ignore"):
            assert np.array_equal(kernel.act(obs, mask), reference.act(obs, mask)), (name, value)
    extreme = TacticianAgent()
    extreme.RISK = -800.0
    with np.errstate(all="ignore"):
        assert (_codes(obs, mask, extreme) == ak.REFERENCE).any()
    assert ak.params(type("T", (), {"RISK": np.float32(1.5), "BEAT_INTENT": 0.7, "BEAT_WEIGHT": 0.3,
                                    "TURN_MARGIN": 1})()) is None


def test_subclasses_that_change_a_rule_keep_the_python_path():
    class Careful(TacticianAgent):
        def survive(self, v, value, size):
            return 0.5

    assert TacticianAgent().compiled and not TacticianAgent(compiled=False).compiled
    assert not Careful().compiled
    patched = TacticianAgent()
    patched.survive = lambda v, value, size: 0.5
    assert patched._kernel_params() is None
    assert agents.make("tactician", game="dnp_v0").compiled
    assert not agents.make("tactician:compiled=false", game="dnp_v0").compiled


def test_bad_compiled_values_are_refused():
    for bad in ("yes", 1, None, 0.0):
        with pytest.raises(ValueError, match=r"compiled=.*; allowed: True \(the Numba kernel\) or False"):
            TacticianAgent(compiled=bad)


def test_bad_inputs_get_the_reference_errors(positions):
    obs4, mask4 = positions[2][2][:2], positions[2][3][:2]
    cases = [
        (dict(), (obs4[0], mask4)),                                  # not 2-D
        (dict(), (obs4, mask4[:1])),                                 # rows differ
        (dict(), (obs4[:, :-1], mask4)),                             # a width no variant has
        (dict(num_players=3), (obs4, mask4)),                        # another table size
    ]
    for kwargs, args in cases:
        messages = []
        for compiled in (True, False):
            with pytest.raises(ValueError) as err:
                TacticianAgent(seed=0, compiled=compiled, **kwargs).act(*args)
            messages.append(str(err.value))
        assert messages[0] == messages[1], messages
    assert TacticianAgent().act(obs4[:0], mask4[:0]).shape == (0,)
    no_legal = np.zeros_like(mask4)
    assert (TacticianAgent().act(obs4, no_legal) == 0).all()


@pytest.mark.parametrize("num_players, rules, games", [(3, {"finisher_set": "closed"}, 12), (2, {}, 6)])
def test_whole_tournaments_are_the_same_compiled_or_not(num_players, rules, games):
    """Seeded tournaments give the same games (every action) and results; with the finisher's set closed
    the tacticians' random fallback draws in them (once in these 12 games)."""
    from training.tournament import play_tournament

    results = []
    for compiled in (True, False):
        line_up = [TacticianAgent(compiled=compiled), agents.make("shedder", game="dnp_v0"),
                   TacticianAgent(compiled=compiled)]
        results.append(play_tournament(line_up, num_players=num_players, games=games, seed=3, env="dnp_v0",
                                       record=True, **rules))
    fast, slow = results
    assert fast.to_dict() == slow.to_dict()
    assert len(fast.game_actions) == len(slow.game_actions)
    assert all(np.array_equal(a, b) for a, b in zip(fast.game_actions, slow.game_actions))


# ------------------------------------------------------------------------ in-engine play

def _by_act(core, agent_list, seat_agent):
    """Every held seat by ``act``, round by round (what callers do without ``play_together``); returns each
    game's rewards of its last step (a step over the batch resets every game's rewards)."""
    games = np.arange(core.num_envs)
    actions = np.zeros(core.num_envs, np.int64)
    final = np.zeros(core.rewards.shape, np.float32)
    while True:
        live = games[~core.done]
        if live.size == 0:
            return final
        who = seat_agent[live, core.current[live]]
        for k in np.unique(who):
            rows = live[who == k]
            actions[rows] = agent_list[k].act(core.observe(core.current[rows], games=rows), core.legal_mask[rows])
        active = np.zeros(core.num_envs, bool)
        active[live] = True
        core.step(actions, active=active)
        final[live] = core.rewards[live]


def _same_games(a, b):
    """The same positions and random streams (rewards apart: see ``_by_act``)."""
    sa, sb = a.state_arrays(np.arange(a.num_envs)), b.state_arrays(np.arange(b.num_envs))
    return all(np.array_equal(sa[k], sb[k]) for k in sa if k != "rewards") and np.array_equal(a.rng_state, b.rng_state)


@pytest.mark.parametrize("num_players, games", [(2, 12), (3, 80), (4, 16), (5, 10)])
def test_play_together_plays_the_games_of_act(num_players, games):
    """A table of tacticians (two agents with other constants) played in the engine, in one call, is the
    table played round by round by ``act``: the same states, rewards and random streams."""
    tuned = TacticianAgent(seed=2)
    tuned.RISK, tuned.TURN_MARGIN = 1.0, 0
    line_up = [TacticianAgent(seed=1), tuned]
    seat_agent = (np.arange(games)[:, None] + np.arange(num_players)[None, :]) % 2
    fast, slow = (DnpCore(games, Rules.make(num_players), seed=9) for _ in range(2))
    assert TacticianAgent.play_together(fast, np.arange(games), line_up, seat_agent)
    final = _by_act(slow, line_up, seat_agent)
    assert fast.done.all() and _same_games(fast, slow)
    assert np.array_equal(fast.rewards, final) and (final != 0).any()


def test_play_together_hands_the_rows_it_does_not_decide_to_python(monkeypatch):
    """With an extreme RISK some scores are NaN, where the kernel leaves the row to the reference: the
    game pauses, ``act`` decides it in Python, and the games are still those of ``act``."""
    calls = []
    decide = ak.decide

    def recording(obs, *args):
        calls.append(obs.shape[0])
        return decide(obs, *args)

    extreme = TacticianAgent(seed=0)
    extreme.RISK = -800.0
    seat_agent = np.zeros((12, 3), np.int64)
    fast, slow = (DnpCore(12, Rules.make(3), seed=2) for _ in range(2))
    with np.errstate(all="ignore"):
        monkeypatch.setattr(ak, "decide", recording)
        assert play_lineup(fast, np.arange(12), [extreme], seat_agent)
        monkeypatch.setattr(ak, "decide", decide)
        _by_act(slow, [extreme], seat_agent)
    assert len(calls) > 0 and _same_games(fast, slow)


def test_play_seats_and_search_roll_outs_are_unchanged():
    """``agents.base.play_seats`` (tournament-style line-ups, advantage roll-outs) and the search's
    ``play_out`` give the same games with the tactician's in-engine play as round by round."""
    from agents.base import play_seats
    from agents.ismcts import play_out

    class ActOnly(TacticianAgent):
        play_together = None
        play_turns = None

    for make in (TacticianAgent, ActOnly):
        assert make().compiled
    for num_players in (3, 4):
        cores = []
        for make in (TacticianAgent, ActOnly):
            core = DnpCore(24, Rules.make(num_players), seed=4)
            seat_agent = np.tile(np.arange(num_players) % 2, (24, 1))
            play_seats(core, np.arange(24), [make(seed=0), make(seed=1)], seat_agent)
            cores.append(core)
        assert cores[0].done.all() and _same_games(*cores)
        cores = []
        for make in (TacticianAgent, ActOnly):
            core = DnpCore(16, Rules.make(num_players), seed=5)
            play_out(core, make(seed=0))
            cores.append(core)
        assert cores[0].done.all() and _same_games(*cores)


def test_solo_games_with_tactician_opponents_are_unchanged():
    """The solo driver's opponents (a learner seat is never held by the tacticians): the same games with and
    without ``play_together``, and so with and without ``play_turns``."""
    from keine_ahnung_env import registry
    from keine_ahnung_env.sampling import sample_masked
    from keine_ahnung_env.solo import LearnerGames

    class ActOnly(TacticianAgent):
        play_together = None
        play_turns = None

    spec = registry.game_spec("dnp_v0", 4)
    runs = []
    for make in (TacticianAgent, ActOnly):
        line_up = [make(seed=1), make(seed=2), agents.make("shedder", game="dnp_v0", seed=3)]
        games = LearnerGames(spec, 16, line_up, seed=6)
        games.deal(np.arange(16))
        rng = np.random.default_rng(2)
        rewards = []
        for _ in range(150):
            r, terminated, truncated, _ = games.learner_step(sample_masked(rng, games.core.legal_mask))
            rewards.append(r)
            games.deal(np.flatnonzero(terminated | truncated))
        runs.append((games.core, np.array(rewards)))
    assert _same_games(runs[0][0], runs[1][0]) and np.array_equal(runs[0][1], runs[1][1])


def test_play_together_declines_what_it_cannot_play_exactly():
    core = DnpCore(4, Rules.make(3), seed=0)
    before = core.state_arrays(np.arange(4))
    all_seats = np.zeros((2, 3), np.int64)
    assert not play_lineup(core, [0, 1], [TacticianAgent(compiled=False)], all_seats)
    assert not play_lineup(core, [0, 1], [TacticianAgent(), agents.make("shedder", game="dnp_v0")],
                           np.array([[0, 1, 0], [0, 0, 0]]))
    assert not play_lineup(core, [0, 1], [TacticianAgent()], np.array([[0, -1, 0], [0, 0, 0]]))  # a seat not held
    closed = DnpCore(4, Rules.make(3, finisher_set="closed"), seed=0)
    assert not play_lineup(closed, [0, 1], [TacticianAgent()], all_seats)
    assert not TacticianAgent(compiled=False).play_turns(core, [0, 1], np.ones((2, 3), bool))
    from keine_ahnung_env.games.keine_ahnung import KeineAhnungCore, Rules as KaRules

    assert not play_lineup(KeineAhnungCore(2, KaRules.make(3), seed=0), [0, 1], [TacticianAgent()], all_seats)
    with pytest.raises(ValueError, match=r"holds must have shape \(2, 3\)"):
        TacticianAgent().play_turns(core, [0, 1], np.ones((2, 4), bool))
    with pytest.raises(ValueError, match="games must be distinct indices in 0..3"):
        play_lineup(core, [0, 0], [TacticianAgent()], all_seats)
    with pytest.raises(ValueError, match="made for 4"):
        play_lineup(core, [0, 1], [TacticianAgent(num_players=4)], all_seats)
    after = core.state_arrays(np.arange(4))
    assert all(np.array_equal(before[k], after[k]) for k in before)
