"""dnp's belief module (``games/dnp/belief.py``, issue 17): what a seat may know, exactly.

* a scripted two-player position with exact values (every unknown card is the opponent's; only its
  orientation is unknown, a fair coin each);
* the sampler's contract at every table size (``conformance.check_belief_sampler``);
* the sampler's frequencies against the exact marginals, value counts and events;
* the exact events against the real deal: games whose opponents decide without looking at their
  cards (turn the hand, or take a set: both legal whatever they hold), binned against what they held;
* crafted impossible observations are refused.
"""

from __future__ import annotations

import numpy as np
import pytest

import conformance as C
from keine_ahnung_env import registry
from keine_ahnung_env.games.dnp.config import Rules
from keine_ahnung_env.games.dnp.core import DnpCore
from keine_ahnung_env.games.dnp.kernels import LOC_HAND
from keine_ahnung_env.sampling import sample_masked


def test_two_players_the_opponent_holds_every_unknown_card_each_either_way_up():
    core = DnpCore(1, Rules.make(2), seed=0)
    values = core.tables.values
    mine, theirs = list(range(8)), list(range(16, 24))  # the no-symbol and the neutral groups
    assert [f"{values[c, 0]}/{values[c, 1]}" for c in theirs] == ["1/6", "1/9", "2/6", "3/8", "3/10", "4/8",
                                                                   "5/7", "9/10"]
    core.load(0, hands=[mine, theirs], public=[16], rotated=[16], current=0)  # 1/6 known, lying as a 6
    belief = registry.game_spec("dnp_v0", 2).belief
    obs = core.observe(0)[0]
    marginals = belief.card_marginals(obs)
    assert (marginals[1, theirs] == 1).all() and (marginals[0, mine] == 1).all() and marginals.sum() == 16
    events = belief.event_probabilities(obs)
    # the known 6; value 1 only on 1/9 (a coin); value 10 on 3/10 and 9/10 (two coins); value 4 on 4/8
    assert events["holds_value_6_seat_1"] == 1.0
    assert events["holds_value_1_seat_1"] == 0.5 and events["holds_value_4_seat_1"] == 0.5
    assert events["holds_value_10_seat_1"] == 0.75 and events["holds_value_8_seat_1"] == 0.75
    # above 8: 9/10 always shows 9 or 10; above 9: 3/10 and 9/10 each show the 10 half the time
    assert events["holds_above_8_seat_1"] == 1.0 and events["holds_above_9_seat_1"] == 0.75
    counts = belief.value_counts(obs)
    assert counts[1, 5, :3].tolist() == [0.0, 0.5, 0.5]  # sixes: the known one, and 2/6 half the time
    assert counts[1, 2, :3].tolist() == [0.25, 0.5, 0.25]  # threes: 3/8 and 3/10, a coin each
    samples = belief.sample_states(obs, 400, np.random.default_rng(0))
    assert ((samples.card_loc[:, theirs] == LOC_HAND) & (samples.card_where[:, theirs] == 1)).all()
    assert (samples.card_rot[:, 16] == 1).all() and 150 < samples.card_rot[:, 17].sum() < 250


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_sampler_keeps_its_contract_at_every_table(players):
    stats = C.check_belief_sampler(registry.game_spec("dnp_v0", players), num_envs=5, seed=players, steps=160)
    assert stats["positions"] > 40 and stats["refused"] >= 3


def blind_play(core: DnpCore, rng: np.random.Generator, observer: int = 0) -> None:
    """One step: the observer plays uniformly at random; the others turn their hand or take a set, at
    random among those moves (both are legal whatever they hold): their decisions say nothing of their
    cards, the belief's model."""
    actions = sample_masked(rng, core.legal_mask)
    L = core.actions
    blind = core.legal_mask.copy()
    blind[:, :L.take_base] = False
    others = core.current != observer
    actions[others] = sample_masked(rng, blind)[others]
    core.step(actions)
    if core.done.any():
        core.reset_games(np.flatnonzero(core.done))


def known_position(players: int, seed: int):
    """A position (core, game, observation of seat 0 at its move) where an opponent holds known cards."""
    core = DnpCore(64, Rules.make(players), seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(300):
        blind_play(core, rng)
        for b in np.flatnonzero((core.current == 0) & (core.sel_count == 0)):
            public_elsewhere = core.card_public[b] & (core.card_loc[b] == LOC_HAND) & (core.card_where[b] != 0)
            if public_elsewhere.sum() >= 2:
                return core, int(b), core.observe(0, games=np.array([b]))[0]
    raise AssertionError("no position with known cards in another hand")


def within(freq, p, n: int, sigmas: float = 5.0) -> bool:
    freq, p = np.asarray(freq, float), np.asarray(p, float)
    return bool((np.abs(freq - p) <= sigmas * np.sqrt(p * (1 - p) / n) + 1e-12).all())


@pytest.mark.parametrize("players", [3, 4, 5])
def test_sample_frequencies_match_the_exact_marginals_counts_and_events(players):
    core, b, obs = known_position(players, seed=players)
    belief = registry.game_spec("dnp_v0", players).belief
    n = 4000
    samples = belief.sample_states(obs, n, np.random.default_rng(2))
    in_hand = samples.card_loc == LOC_HAND
    exact = belief.card_marginals(obs)
    for r in range(players):
        assert within((in_hand & (samples.card_where == r)).mean(axis=0), exact[r], n), r
    values = samples.tables.values.astype(np.int64)
    active = values[np.arange(values.shape[0])[None, :], samples.card_rot]  # [n, N]
    counts = belief.value_counts(obs)
    events = belief.event_probabilities(obs)
    for r in range(1, players):
        held = in_hand & (samples.card_where == r)
        for value in range(1, 11):
            k = ((active == value) & held).sum(axis=1)
            freq = np.bincount(k, minlength=counts.shape[2])[:counts.shape[2]] / n
            assert within(freq, counts[r, value - 1], n), (r, value)
            assert within((k > 0).mean(), events[f"holds_value_{value}_seat_{r}"], n)
            if value < 10:
                assert within(((active > value) & held).any(axis=1).mean(), events[f"holds_above_{value}_seat_{r}"], n)


def test_the_exact_events_are_calibrated_against_the_real_deal():
    players, games = 4, 300
    core = DnpCore(games, Rules.make(players), seed=5)
    belief = registry.game_spec("dnp_v0", players).belief
    rng = np.random.default_rng(5)
    predicted, real = [], []
    values = core.tables.values.astype(np.int64)
    for k in range(160):
        blind_play(core, rng)
        if k % 4 != 3:
            continue
        for b in np.flatnonzero((core.current == 0) & (core.sel_count == 0) & ~core.done):
            events = belief.event_probabilities(core.observe(0, games=np.array([b]))[0])
            active = values[np.arange(values.shape[0]), core.card_rot[b]]
            for r in range(1, players):
                held = (core.card_loc[b] == LOC_HAND) & (core.card_where[b] == r)
                for value in range(1, 11):
                    predicted.append(events[f"holds_value_{value}_seat_{r}"])
                    real.append(bool((held & (active == value)).any()))
    p, real = np.array(predicted), np.array(real, float)
    assert p.size > 15_000
    which = np.clip((p * 10).astype(int), 0, 9)
    checked = 0
    for k in np.unique(which):
        sel = which == k
        var = (p[sel] * (1 - p[sel])).sum()
        if var > 3:
            z = abs(real[sel].sum() - p[sel].sum()) / np.sqrt(var)
            assert z < 3.3, (k, int(sel.sum()), p[sel].mean(), real[sel].mean())  # 99% over 10 bins
            checked += 1
    assert checked >= 5


def test_impossible_observations_are_refused():
    core, b, obs = known_position(4, seed=4)
    belief = registry.game_spec("dnp_v0", 4).belief
    layout = belief.layout
    F, N = layout.card_width, belief.tables.num_cards
    cards = layout.slice("cards").start
    players = layout.slice("players").start
    unknown = int(belief.knowledge(obs).unknown[0])
    mine = int(np.flatnonzero(obs[cards + 4: cards + N * F: F])[0])

    def crafted(index: int, value: float) -> np.ndarray:
        out = obs.copy()
        out[index] = value
        return out

    bad = {
        "a hand card of another seat's size": crafted(players + 4, obs[players + 4] + 1),
        "another seat to act": crafted(layout.slice("acting").start + 1, 1),
        "an unknown card shown discarded and unknown counts off": crafted(cards + unknown * F + 7 + 4 + 3, 1),
        "a card in the seat's hand also discarded": crafted(cards + mine * F + 7 + 4 + 3, 1),
        "a printed value changed": crafted(cards + 0, obs[cards] % 10 + 1),
        "a fractional count": crafted(players, 0.5),
    }
    for what, observation in bad.items():
        with pytest.raises(ValueError):
            belief.sample_states(observation, 4, np.random.default_rng(0))
        with pytest.raises(ValueError):
            belief.event_probabilities(observation)
    over = obs.copy()
    over[layout.slice("acting")] = 0
    with pytest.raises(ValueError, match="finished game"):
        belief.sample_states(over, 4, np.random.default_rng(0))


def test_positions_branch_through_state_arrays():
    core = DnpCore(4, Rules.make(3), seed=3)
    rng = np.random.default_rng(3)
    for _ in range(30):
        core.step(sample_masked(rng, core.legal_mask))
    games = np.array([2, 0])
    branch = DnpCore.from_state_arrays(core.rules, core.state_arrays(games), seeds=[7, 8])
    assert np.array_equal(branch.observe(branch.current), core.observe(core.current[games], games=games))
    assert np.array_equal(branch.legal_mask, core.legal_mask[games])
    twin = DnpCore.from_state_arrays(core.rules, core.state_arrays(games), seeds=[7, 8])
    for _ in range(200):  # the same seeds: the same next deals
        actions = sample_masked(rng, branch.legal_mask)
        branch.step(actions)
        twin.step(actions)
        assert branch.snapshot(0) == twin.snapshot(0) and branch.snapshot(1) == twin.snapshot(1)
        if branch.done.any():
            break
    with pytest.raises(ValueError, match="missing"):
        DnpCore.from_state_arrays(core.rules, {}, seeds=[1])
    with pytest.raises(ValueError, match="one row per seed"):
        DnpCore.from_state_arrays(core.rules, core.state_arrays(games), seeds=[1])
