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
"""

from __future__ import annotations

import numpy as np
import pytest

import agents
from keine_ahnung_env.games.gap import GapCore, Rules
from keine_ahnung_env.games.gap import agent_kernels as pk
from keine_ahnung_env.games.gap.actions import ACTION_PASS, Phase
from keine_ahnung_env.games.gap.agents import GapHunterAgent, PlannerAgent, _cards_of
from keine_ahnung_env.games.gap.observation import CARD_FEATURES, layout_for_width

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
