"""``planner`` compiled (``gap/agent_kernels.py``) against its Python reference (``PlannerAgent(compiled=False)``).

Observations and masks come from real play (2-5 players, ``flip_on_extra_turns`` on and off, a share of
random moves and passes so that hands grow and positions vary, now and then the observation of a seat
that is not to act, and a few hand-made rows with a card missing). Checks:

* on every PLAY and FLIP row the kernel chooses the reference's action, for the default planner and for
  planners whose node budget runs out (``max_nodes=5``, 40), that count cards, or whose weights differ;
* through ``act`` the two agents give the same actions on whole batches (hiding draws the same tie
  noise), serial and parallel, and the kernel's memo grows where a search fills it;
* seeded tournaments are the same game for game with ``compiled`` True and False;
* bad ``compiled`` values are refused, subclasses that change the search keep the Python path, and
  the spec ``planner:compiled=false`` gives the reference.

Playing seats in the engine (``in_engine=True``: ``play_turns``, ``play_lineup``):

* mixed line-ups on every table size play the held seats to the end or to an unheld seat, the state
  consistent and the rewards those of the last step;
* turn by turn, a copy of the games played through ``act`` (validated steps) ends each turn in the
  same state: every play and flip decision in the engine is ``act``'s;
* hiding takes the tied best cards, uniformly among them;
* a seeded run repeats, whatever the split over threads and the other games;
* ``in_engine=False`` (the default) plays nothing and offers no ``play_together``, so ``play_seats``
  and the solo driver play the games they played before; bad arguments are refused.
"""

from __future__ import annotations

import numpy as np
import pytest

import agents
from keine_ahnung_env.games.gap import GapCore, Rules
from keine_ahnung_env.games.gap import agent_kernels as pk
from keine_ahnung_env.games.gap import agents as gap_agents
from keine_ahnung_env.games.gap import invariants
from keine_ahnung_env.games.gap.actions import ACTION_PASS, Phase
from keine_ahnung_env.games.gap.agents import GapHunterAgent, PlannerAgent, _cards_of, play_lineup
from keine_ahnung_env.games.gap.observation import CARD_FEATURES, layout_for_width
from keine_ahnung_env.rng import stream_states

VARIANTS = [(2, {}), (3, {}), (4, {}), (5, {}), (4, {"flip_on_extra_turns": False}),
            (3, {"flip_on_extra_turns": False})]

PLANNERS = [
    ({}, slice(None)),
    ({"max_nodes": 5}, slice(0, None, 2)),
    ({"count_cards": True}, slice(1, None, 2)),
    ({"max_nodes": 40, "count_cards": True, "count_weight": 0.1, "no_gap_cards": 5.0}, slice(0, None, 2)),
    ({"max_nodes": 300, "card_weight": 0.3, "gap_weight": 0.7, "no_gap_width": 1.0, "flip_bonus": 1.5,
      "win_bonus": 20.0, "threat_scale": 0.5}, slice(1, None, 2)),
]
"""Planner parameters, each with the variants (of :data:`VARIANTS`) it is checked on: the default on all,
the others on every other one (the reference's search is the test's cost)."""


def _collect(num_players: int, rules: dict, seed: int, games: int = 20, steps: int = 220):
    """Observations of the seat to act (and every 10 steps of the next seat) with the legal masks, from
    games of the planner with a fifth of the moves random and many passes by seat 1."""
    core = GapCore(games, Rules(num_players, **rules), seed=seed)
    player = PlannerAgent(seed=seed, rules=rules)
    rng = np.random.default_rng(seed)
    obs, masks = [], []
    for step in range(steps):
        current = core.current.astype(np.intp)
        o, m = core.observe(current), core.legal_mask.copy()
        obs.append(o)
        masks.append(m)
        if step % 10 == 0:  # a seat that is not to act (its mask is the acting seat's: any input is fair)
            obs.append(core.observe((current + 1) % num_players))
            masks.append(m)
        actions = player.act(o, m)
        random = rng.random(games) < 0.2
        legal_random = np.array([rng.choice(np.flatnonzero(row)) if row.any() else 0 for row in m])
        actions = np.where(random, legal_random, actions)
        # Seat 1 passes half the time: its hand grows, and so do the searches over it.
        passes = (rng.random(games) < np.where(current == 1, 0.5, 0.05)) & m[:, ACTION_PASS]
        actions = np.where(passes, ACTION_PASS, actions)
        core.step(actions, active=~core.done)
        if core.done.any():
            core.reset_games(np.flatnonzero(core.done))
    obs, masks = np.concatenate(obs), np.concatenate(masks)
    # Hand-made rows: a FLIP row without its turned-up card, a PLAY row without its left top (the
    # reference reads a missing card as -1, an index of its tables' last card).
    layout = layout_for_width(obs.shape[1])
    flip, play = _rows(obs, masks, Phase.FLIP)[:40], _rows(obs, masks, Phase.PLAY)[:40]
    blank_flip, blank_top = obs[flip].copy(), obs[play].copy()
    blank_flip[:, layout.slice("flip_card")] = 0
    blank_top[:, layout.slice("pile_tops").start:layout.slice("pile_tops").start + CARD_FEATURES] = 0
    return np.concatenate([obs, blank_flip, blank_top]), np.concatenate([masks, masks[flip], masks[play]])


@pytest.fixture(scope="module")
def positions():
    return [(P, rules, *_collect(P, rules, seed=21 + i)) for i, (P, rules) in enumerate(VARIANTS)]


def _rows(obs, mask, phase):
    layout = layout_for_width(obs.shape[1])
    return np.flatnonzero((obs[:, layout.slice("phase")].argmax(axis=1) == phase) & mask.any(axis=1))


def _budget_ran_out(agent: PlannerAgent, obs, rows) -> int:
    """How many of the PLAY ``rows`` spend the reference's whole node budget."""
    layout = layout_for_width(obs.shape[1])
    t0, t1 = agent.tops(obs[rows], layout)
    out = 0
    for r, a, b in zip(rows, t0, t1):
        ctx = agent._context(obs[r], layout)
        budget = [agent.max_nodes]
        agent._search(ctx, tuple(ctx["hand"]), int(a), int(b), {}, budget)
        out += budget[0] <= 0
    return out


def test_positions_cover_play_and_flip_rows_deep_searches_and_missing_cards(positions):
    for P, rules, obs, mask in positions:
        layout = layout_for_width(obs.shape[1])
        play, flip = _rows(obs, mask, Phase.PLAY), _rows(obs, mask, Phase.FLIP)
        assert play.size > 1000 and flip.size > 50, (P, rules, play.size, flip.size)
        hands = (obs[play][:, layout.slice("hand")] > 0.5).sum(axis=1)
        assert hands.max() >= 15, (P, rules)
        assert (_cards_of(obs[flip][:, layout.slice("flip_card")]) < 0).sum() == 40
        assert (_cards_of(obs[play][:, layout.slice("pile_tops")][:, :CARD_FEATURES]) < 0).sum() == 40
    P, rules, obs, mask = positions[2]
    play = _rows(obs, mask, Phase.PLAY)
    assert _budget_ran_out(PlannerAgent(max_nodes=5), obs, play) > 200
    assert _budget_ran_out(PlannerAgent(max_nodes=40, count_cards=True), obs, play) > 20


@pytest.mark.parametrize("params, variants", PLANNERS,
                         ids=[",".join(f"{k}={v}" for k, v in p.items()) or "default" for p, _ in PLANNERS])
def test_kernel_chooses_the_references_action_on_every_play_and_flip_row(positions, params, variants):
    for P, rules, obs, mask in positions[variants]:
        layout = layout_for_width(obs.shape[1])
        kernel = PlannerAgent(seed=0, rules=rules, **params)
        reference = PlannerAgent(seed=0, rules=rules, compiled=False, **params)
        assert kernel.compiled and not reference.compiled
        for phase, decide in ((Phase.PLAY, "_play"), (Phase.FLIP, "_flip")):
            rows = _rows(obs, mask, phase)
            expected = getattr(reference, decide)(obs[rows], mask[rows], layout)
            got = getattr(kernel, decide)(obs[rows], mask[rows], layout)
            bad = np.flatnonzero(got != expected)
            assert bad.size == 0, (P, rules, params, phase, rows[bad[:5]], got[bad[:5]], expected[bad[:5]])


def test_act_is_the_references_on_whole_batches_serial_and_parallel(positions):
    for P, rules, obs, mask in positions[2::3]:
        kernel = PlannerAgent(seed=3, rules=rules, count_cards=True)
        reference = PlannerAgent(seed=3, rules=rules, count_cards=True, compiled=False)
        expected = reference.act(obs, mask)
        np.testing.assert_array_equal(kernel.act(obs, mask), expected)  # parallel kernel for the play rows
        assert kernel.rng.random() == reference.rng.random()  # the generators consumed alike
        # The serial loop (batches under the parallel threshold), with the generators still in step.
        kernel, reference = (PlannerAgent(seed=5, rules=rules, compiled=c) for c in (True, False))
        small = [(kernel.act(obs[lo:lo + 9], mask[lo:lo + 9]), reference.act(obs[lo:lo + 9], mask[lo:lo + 9]))
                 for lo in range(0, 900, 9)]
        np.testing.assert_array_equal(np.concatenate([k for k, _ in small]), np.concatenate([r for _, r in small]))
    # Other input dtypes are read as the reference reads them.
    P, rules, obs, mask = positions[0]
    np.testing.assert_array_equal(PlannerAgent(seed=1).act(obs[:500].astype(np.float64), mask[:500]),
                                  PlannerAgent(seed=1, compiled=False).act(obs[:500], mask[:500]))


def test_a_memo_that_fills_up_grows_and_the_search_is_the_same(positions):
    P, rules, obs, mask = positions[3]
    layout = layout_for_width(obs.shape[1])
    rows = _rows(obs, mask, Phase.PLAY)[:1500]
    agent = PlannerAgent(seed=0, max_nodes=100_000)
    params, offsets = agent._kernel_params(), pk.layout_offsets(layout)
    x = np.ascontiguousarray(obs[rows])
    # A 64-slot memo holds 32 positions; some of these searches store more.
    memo, stack = pk._memo(64), pk._stack()
    full = [pk.decide_row(x[i], False, P, offsets, params, pk.GAP_BITS, memo, 2 * i + 2, stack) for i in range(len(x))]
    assert min(full) == -1
    out = np.empty(len(rows), np.int64)
    pk.decide_range(x, False, out, 0, len(rows), P, offsets, params, pk.GAP_BITS, 64)
    np.testing.assert_array_equal(out, PlannerAgent(max_nodes=100_000, compiled=False)._play(x, mask[rows], layout))


@pytest.mark.parametrize("players, rules", [(3, {}), (4, {"flip_on_extra_turns": False})])
def test_seeded_tournaments_are_the_same_game_for_game(players, rules):
    from training.tournament import play_tournament

    results = []
    for compiled in (True, False):
        lineup = [PlannerAgent(seed=1, rules=rules, compiled=compiled), GapHunterAgent(seed=2),
                  PlannerAgent(seed=3, rules=rules, count_cards=True, max_nodes=30, compiled=compiled)]
        results.append(play_tournament(lineup, num_players=players, games=12, seed=4, env="gap_v0", record=True,
                                       batch_size=6, **rules))
    a, b = results
    np.testing.assert_array_equal(a.game_scores, b.game_scores)
    np.testing.assert_array_equal(a.game_turns, b.game_turns)
    assert len(a.game_actions) == len(b.game_actions) == a.games
    for x, y in zip(a.game_actions, b.game_actions):
        np.testing.assert_array_equal(x, y)
    assert a.to_dict() == b.to_dict()


def test_compiled_must_be_a_bool_and_overriding_the_search_keeps_python():
    for bad in ("yes", 1, None, 0.0):
        with pytest.raises(ValueError, match=r"compiled=.*; allowed: True \(the Numba kernel\) or False"):
            PlannerAgent(compiled=bad)
    assert PlannerAgent().compiled and PlannerAgent(compiled=np.True_).compiled
    assert not PlannerAgent(compiled=False).compiled

    class Cautious(PlannerAgent):
        def _stop_value(self, ctx, hand, t0, t1):
            return super()._stop_value(ctx, hand, t0, t1) - 1.0

    class Flipper(PlannerAgent):
        def _flip(self, obs, mask, layout):
            return super()._flip(obs, mask, layout)

    assert not Cautious().compiled and not Flipper().compiled
    plain = agents.make("planner:compiled=false", game="gap_v0", seed=1)
    assert isinstance(plain, PlannerAgent) and not plain.compiled
    assert agents.make("planner", game="gap_v0").compiled


# ============================================================================ playing seats in the engine
# ``PlannerAgent(in_engine=True)``: ``play_turns`` / ``play_lineup`` (``play_together``) play the held seats
# inside the core (``agent_kernels.play_range`` / ``play_kernel``).

_NUMBERS = np.tile(np.arange(1, 12), 6)
_STAR_VALUES = np.array([(0, 1, 2, 2, 3, 4, 3, 2, 2, 1, 0)[n - 1] for n in _NUMBERS], float)
"""Each card's number and stars (``deck.py``), written out."""


def _state(core, games=None):
    """Every state array of ``games`` (default all), the random streams included."""
    g = np.arange(core.num_envs) if games is None else np.asarray(games)
    return {**core.state_arrays(g), "rng_state": core.rng_state[g].copy()}


def _assert_same_state(a: dict, b: dict, skip=()):
    for name in a:
        if name not in skip:
            np.testing.assert_array_equal(a[name], b[name], err_msg=name)


def _lineup(rules, seed):
    """Two in-engine planners of different parameters (one hides hard-to-play cards first)."""
    return [PlannerAgent(seed=seed, rules=rules, in_engine=True),
            PlannerAgent(seed=seed + 1, rules=rules, in_engine=True, count_cards=True, max_nodes=40, hide_hard=1.5)]


def _no_violations(core):
    for what, rows in invariants.violations(core):
        assert not rows.any(), (what, np.flatnonzero(rows)[:5])
    masks = core.legal_mask.copy()
    core.refresh_masks()
    np.testing.assert_array_equal(core.legal_mask, masks)


@pytest.mark.parametrize("players, rules", VARIANTS)
def test_play_lineup_plays_the_held_seats_to_the_end_or_to_an_unheld_seat(players, rules):
    """Mixed line-ups (some seats held by one of two planners, some by nobody, some games wholly held):
    each call leaves every listed game over or at a seat nobody holds, the state consistent (cards
    conserved, masks the engine's), the rewards those of the last step; the unheld seats then move
    through ``core.step``, which refuses anything illegal."""
    n = 24
    core = GapCore(n, Rules(players, **rules), seed=40 + players)
    lineup = _lineup(rules, seed=players)
    rng = np.random.default_rng(players)
    seat_agent = rng.integers(-1, 2, size=(n, players))
    seat_agent[: n // 3] = rng.integers(0, 2, size=(n // 3, players))  # wholly held: one call plays them out
    calls = 0
    while not core.done.all():
        live = np.flatnonzero(~core.done)
        assert play_lineup(core, live, lineup, seat_agent[live])
        calls += 1
        _no_violations(core)
        ended = live[core.done[live]]
        assert (seat_agent[live[~core.done[live]], core.current[live[~core.done[live]]]] == -1).all()
        for b in ended[core.terminated[ended]]:  # "win": winners share +1, the others -1
            best = core.scores[b] == core.scores[b].max()
            expected = np.where(best, 1.0 / best.sum(), -1.0 / max((~best).sum(), 1)) if not best.all() else 0.0
            np.testing.assert_allclose(core.rewards[b], expected, rtol=1e-6)
        if calls == 1:
            assert core.done[: n // 3].all()
        waiting = np.flatnonzero(~core.done)
        if waiting.size == 0:
            break
        actions = np.zeros(n, np.int64)
        actions[waiting] = [rng.choice(np.flatnonzero(core.legal_mask[b])) for b in waiting]
        core.step(actions, active=~core.done)
    assert calls > 10 and core.terminated.sum() >= n - 2


def _follow_with_act(twin, games, seats, agent):
    """Steps ``twin``'s ``games`` with ``agent.act`` while ``seats`` are to act in a PLAY or FLIP phase;
    returns how many decisions that took."""
    decisions = 0
    actions = np.zeros(twin.num_envs, np.int64)
    while True:
        going = games[~twin.done[games] & (twin.current[games] == seats) & (twin.phase[games] != Phase.HIDE)]
        if going.size == 0:
            return decisions
        actions[:] = 0
        actions[going] = agent.act(twin.observe(twin.current[going], games=going), twin.legal_mask[going])
        active = np.zeros(twin.num_envs, bool)
        active[going] = True
        twin.step(actions, active=active)  # refuses an illegal action
        decisions += going.size
        seats = seats[np.isin(games, going)]
        games = going


@pytest.mark.parametrize("players, rules, params", [(2, {}, {}), (3, {"flip_on_extra_turns": False}, {}),
                                                    (4, {}, {"count_cards": True}), (5, {}, {"max_nodes": 30})])
def test_every_play_and_flip_decision_in_the_engine_is_acts(players, rules, params):
    """Turn by turn: the seat to act plays its turn in the engine, while a copy of the games (random
    streams too) plays the same turn through ``act``, one validated step at a time; after each turn the
    two cores are equal, so every play and flip decision of the engine was ``act``'s. (Turns that
    begin with hiding, or that end a round with the same seat to hide next, are played in the engine
    only: hiding ties are broken by other random numbers.)"""
    n = 16
    core = GapCore(n, Rules(players, **rules), seed=60 + players)
    engine = PlannerAgent(seed=1, rules=rules, in_engine=True, **params)
    python = PlannerAgent(seed=1, rules=rules, **params)
    compared = turns = 0
    while not core.done.all():
        live = np.flatnonzero(~core.done)
        twin = GapCore.gather([(core, np.arange(n))])
        seats = core.current[live].astype(np.int64)
        assert engine.play_turns(core, live, np.arange(players)[None, :] == seats[:, None])
        play = live[twin.phase[live] != Phase.HIDE]
        compared += _follow_with_act(twin, play, seats[np.isin(live, play)], python)
        # Same seat to hide next (a round ended in its turn): the engine went on hiding, the twin stopped.
        same = play[(twin.phase[play] == Phase.HIDE) & (twin.current[play] == seats[np.isin(live, play)])
                    & ~twin.done[play]]
        checked = np.setdiff1d(play, same)
        turns += checked.size
        # A twin step resets every game's rewards: they are checked in the test above.
        _assert_same_state(_state(core, checked), _state(twin, checked), skip=("rewards",))
    assert compared > 600 and turns > 300, (compared, turns)


def test_hiding_takes_the_tied_best_cards_and_breaks_ties_uniformly():
    """Fresh deals: each seat's two hidden cards are the two best of its hand by ``stars + hide_hard *
    hard`` (any of the tied ones). A hand with one best card and two tied next best: the second hidden
    card is either, about half the time each (400 games, 4 standard deviations)."""
    hard = np.where(np.isin(_NUMBERS, (1, 11)), 1.0, np.where(np.isin(_NUMBERS, (2, 10)), 0.5, 0.0))
    for hide_hard in (0.0, 1.5):
        core = GapCore(300, Rules(4), seed=int(hide_hard * 10) + 1)
        agent = PlannerAgent(seed=2, in_engine=True, hide_hard=hide_hard)
        score = _STAR_VALUES + hide_hard * hard
        for _ in range(4):  # each seat hides its two cards, then the next seat (not held) is to act
            assert (core.phase == Phase.HIDE).all()
            seats = core.current.astype(np.int64)
            hands = [core.hand(b, s) for b, s in zip(range(300), seats)]
            assert agent.play_turns(core, np.arange(300), np.arange(4)[None, :] == seats[:, None])
            for b, (s, hand) in enumerate(zip(seats, hands)):
                hidden = core.hidden(b, s)
                assert len(hidden) == 2 and set(hidden) <= set(hand)
                assert sorted(score[hidden]) == sorted(score[hand])[-2:], (b, hand, hidden)
        assert (core.phase == Phase.PLAY).all() or (core.phase == Phase.FLIP).any()
    # One 6 (4 stars), a 5 and a 7 (3 stars each), the rest of at most 2 stars.
    n = 400
    core = GapCore(n, Rules(2), seed=3)
    best, tied = 5, (15, 28)
    hand0 = [best, *tied, 33, 34, 35, 36, 40, 41, 42, 43, 44]
    rest = [c for c in range(66) if c not in hand0]
    for b in range(n):
        core.load(b, hands=[hand0, rest[:12]], piles=[[rest[12]], [rest[13]]], current=0, start_turn=False)
    core.phase[:] = Phase.HIDE
    core.hidden_count[:] = 0
    core.refresh_masks()
    assert play_lineup(core, np.arange(n), [PlannerAgent(seed=4, in_engine=True)], np.tile([0, -1], (n, 1)))
    assert (core.current == 1).all() and (core.phase == Phase.HIDE).all()
    second = [set(core.hidden(b, 0)) - {best} for b in range(n)]
    assert all(len(h) == 1 and h <= set(tied) for h in second)
    first_tied = sum(h == {tied[0]} for h in second)
    assert abs(first_tied - n / 2) < 4 * np.sqrt(n / 4), first_tied



def test_a_seeded_run_repeats_whatever_the_split_over_threads_and_the_other_games(monkeypatch):
    """The same seeds give the same games: in parallel (with 2 threads or 1: other splits), in the
    serial loop, and for a few games played alone in a small core from their own streams."""
    import numba

    n, P, rules = 40, 4, {"flip_on_extra_turns": False}
    seat_agent = np.tile([0, 1, 0, 1], (n, 1))

    def run():
        core = GapCore(n, Rules(P, **rules), seed=9)
        assert play_lineup(core, np.arange(n), _lineup(rules, seed=5), seat_agent)
        assert core.done.all()
        return _state(core)

    first = run()
    _assert_same_state(first, run())
    threads = numba.get_num_threads()
    try:
        numba.set_num_threads(1)
        _assert_same_state(first, run())
    finally:
        numba.set_num_threads(threads)
    monkeypatch.setattr(gap_agents, "_PLAY_PARALLEL_MIN_GAMES", 10 ** 9)
    _assert_same_state(first, run())
    # Three games alone, each with its own streams (the rows play_lineup drew for it).
    picks = np.array([3, 17, 30])
    core = GapCore.gather([(GapCore(n, Rules(P, **rules), seed=9), picks)])
    lineup = _lineup(rules, seed=5)
    streams = np.concatenate([stream_states(a.rng, n) for a in lineup])
    streams = np.concatenate([streams[a * n + picks] for a in range(2)])
    params = np.stack([pk.play_params(a._kernel_params(), a.hide_hard) for a in lineup])
    stuck = np.zeros(3, bool)
    core._run(pk.play_range, np.arange(3), seat_agent[picks], streams, stuck, 0, 3, P,
              pk.layout_offsets(core.obs_layout), params, pk.GAP_BITS, 64)
    assert not stuck.any()
    _assert_same_state({name: a[picks] for name, a in first.items()}, _state(core))


def test_without_in_engine_nothing_is_played_and_the_games_are_as_before():
    """``in_engine=False`` (the default), a line-up with one such planner, ``compiled=False``, a
    subclass that changes hiding, another player count or another game: False, nothing touched (state,
    streams, the agents' generators), and the default planner offers no ``play_together``.
    ``play_seats`` and the solo driver then play exactly the games they play without ``play_together``
    and ``play_turns``."""
    from agents.base import play_seats
    from keine_ahnung_env import registry
    from keine_ahnung_env.games.keine_ahnung.core import KeineAhnungCore
    from keine_ahnung_env.games.keine_ahnung.config import Rules as KARules
    from keine_ahnung_env.sampling import sample_masked
    from keine_ahnung_env.solo import LearnerGames

    class Hider(PlannerAgent):
        def _hide(self, obs, mask, layout):
            return super()._hide(obs, mask, layout)

    class Before(PlannerAgent):
        play_together = None

        def __getattribute__(self, name):  # no play_turns either, as before in-engine play existed
            if name == "play_turns":
                raise AttributeError(name)
            return super().__getattribute__(name)

    assert not PlannerAgent().in_engine and PlannerAgent(in_engine=True).in_engine
    # Only an in-engine planner offers play_together: callers read an agent with it as one that plays in
    # the engine (labelling then plays its roll-outs at once instead of gathering them for act).
    assert PlannerAgent().play_together is None and PlannerAgent(compiled=False, in_engine=True).play_together is None
    assert PlannerAgent(in_engine=True).play_together is play_lineup is PlannerAgent(seed=2, in_engine=True).play_together
    assert not PlannerAgent(in_engine=True, compiled=False).in_engine and not Hider(in_engine=True).in_engine
    core = GapCore(6, Rules(3), seed=0)
    before = _state(core)
    games, everyone = np.arange(6), np.zeros((6, 3), np.int64)
    refused = [[PlannerAgent(seed=1)], [PlannerAgent(seed=1, in_engine=True), PlannerAgent(seed=2)],
               [PlannerAgent(seed=1, in_engine=True, compiled=False)], [Hider(seed=1, in_engine=True)],
               [PlannerAgent(seed=1, in_engine=True, num_players=4)]]
    for lineup in refused:
        draws = [a.rng.bit_generator.state for a in lineup]
        assert play_lineup(core, games, lineup, everyone) is False
        assert lineup[-1].play_turns(core, games, np.ones((6, 3), bool)) is False
        assert [a.rng.bit_generator.state for a in lineup] == draws
    assert play_lineup(core, games, [], everyone) is False
    ka = KeineAhnungCore(2, KARules.make(3), seed=0)
    assert PlannerAgent(in_engine=True).play_turns(ka, [0, 1], np.ones((2, 3), bool)) is False
    _assert_same_state(before, _state(core))

    def seats(cls):
        core = GapCore(12, Rules(4), seed=2)
        seat_agent = np.tile([0, 1, -1, 0], (12, 1))
        lineup = [cls(seed=3), GapHunterAgent(seed=4)]
        rng = np.random.default_rng(5)
        while not core.done.all():
            play_seats(core, np.flatnonzero(~core.done), lineup, seat_agent[~core.done])
            if not core.done.all():
                core.step(np.where(core.done, 0, sample_masked(rng, core.legal_mask)), active=~core.done)
        return _state(core)

    _assert_same_state(seats(PlannerAgent), seats(Before))
    # In the engine the same loop plays the planner's seats by play_together and the hunter's by act.
    assert seats(lambda seed: PlannerAgent(seed=seed, in_engine=True))["terminated"].all()

    def solo(cls):
        spec = registry.game_spec("gap_v0", 3)
        driver = LearnerGames(spec, 8, [cls(seed=1), cls(seed=2, count_cards=True)], seed=6)
        driver.deal(np.arange(8))
        rng = np.random.default_rng(7)
        out = []
        for _ in range(60):
            rewards, terminated, truncated, _ = driver.learner_step(sample_masked(rng, driver.core.legal_mask))
            out.append(rewards)
            driver.deal(np.flatnonzero(terminated | truncated))
        return np.array(out), _state(driver.core)

    (a, state_a), (b, state_b) = solo(PlannerAgent), solo(Before)
    np.testing.assert_array_equal(a, b)
    _assert_same_state(state_a, state_b)
    assert (a != 0).any()


def test_in_engine_planners_play_the_solo_drivers_opponents():
    """Opponents made with ``in_engine=True`` play their turns in one call per learner step
    (``play_together``), and a game that ends in their turns pays the learner its final reward."""
    from keine_ahnung_env import registry
    from keine_ahnung_env.sampling import sample_masked
    from keine_ahnung_env.solo import LearnerGames

    calls = []

    def recording(core, games, agents, seat_agent):
        played = play_lineup(core, games, agents, seat_agent)
        calls.append(played)
        return played

    class Recording(PlannerAgent):
        play_together = staticmethod(recording)

    driver = LearnerGames(registry.game_spec("gap_v0", 4), 8, [Recording(seed=j, in_engine=True) for j in range(3)],
                          seed=8)
    driver.deal(np.arange(8))
    rng = np.random.default_rng(9)
    paid = 0
    for _ in range(150):
        rewards, terminated, truncated, _ = driver.learner_step(sample_masked(rng, driver.core.legal_mask))
        for b in np.flatnonzero(terminated & ~truncated):
            assert rewards[b] == driver.core.rewards[b, driver.learner_seat[b]] != 0
            paid += 1
        driver.deal(np.flatnonzero(terminated | truncated))
    assert calls and all(calls) and paid >= 3


def test_in_engine_must_be_a_bool_and_bad_arguments_are_refused():
    for bad in ("yes", 1, None, 0.0, "true"):
        with pytest.raises(ValueError, match=r"in_engine=.*; allowed: True \(play_turns / play_together play the "
                                             r"seats inside the compiled core\) or False"):
            PlannerAgent(in_engine=bad)
    assert PlannerAgent(in_engine=np.True_).in_engine
    assert agents.make("planner:in_engine=true", game="gap_v0").in_engine
    assert not agents.make("planner", game="gap_v0").in_engine
    core = GapCore(4, Rules(3), seed=0)
    before = _state(core)
    agent = PlannerAgent(in_engine=True)
    lineup = [agent, PlannerAgent(seed=1, in_engine=True)]
    with pytest.raises(ValueError, match=r"holds must have shape \(2, 3\)"):
        agent.play_turns(core, [0, 1], np.ones((2, 4), bool))
    with pytest.raises(ValueError, match=r"holds must have shape \(2, 3\)"):
        agent.play_turns(core, [0, 1], np.ones(2, bool))
    for games in ([0, 0], [0, 7], [-1, 2]):
        with pytest.raises(ValueError, match="games must be distinct indices in 0..3"):
            agent.play_turns(core, games, np.ones((2, 3), bool))
    with pytest.raises(ValueError, match=r"seat_agent must be integers of shape \(2, 3\)"):
        play_lineup(core, [0, 1], lineup, np.zeros((2, 4), np.int64))
    with pytest.raises(ValueError, match=r"seat_agent must be integers of shape \(2, 3\)"):
        play_lineup(core, [0, 1], lineup, np.zeros((2, 3)))
    with pytest.raises(ValueError, match=r"seat_agent holds -1 \(not held\) or an index into the 2 agents"):
        play_lineup(core, [0, 1], lineup, np.full((2, 3), 2))
    with pytest.raises(ValueError, match=r"seat_agent holds -1 \(not held\) or an index into the 2 agents"):
        play_lineup(core, [0, 1], lineup, np.full((2, 3), -2))
    assert play_lineup(core, [], lineup, np.zeros((0, 3), np.int64)) is True
    _assert_same_state(before, _state(core))
    # A live game whose held seat has nothing legal (a corrupted mask) is named.
    core.legal_mask[2] = False
    with pytest.raises(RuntimeError, match=r"planner: game 2 is live but has no legal action for seat"):
        agent.play_turns(core, [2], np.ones((1, 3), bool))
