"""The gap game's belief module (``games/gap/belief.py``, issue 17): what a seat may know, exactly.

* the pools of shuffled-back cards in the observation (version 2), on a scripted round with exact values;
* the sampler's contract at every table size (``conformance.check_belief_sampler``);
* the sampler's frequencies against the exact marginals and events (also through the real engine: a
  pass played in every sample draws the card ``next_draw_fits`` speaks of);
* the exact marginals against the real deal: games whose opponents decide without looking at their
  cards (the model's assumption), every prediction binned against where the cards really were, and
  the control: the model that forgets the pools (observation version 1) fails the same test;
* crafted impossible observations are refused.
"""

from __future__ import annotations

import numpy as np
import pytest

import conformance as C
from keine_ahnung_env import registry
from keine_ahnung_env.games.gap import GapCore, Rules
from keine_ahnung_env.games.gap.actions import ACTION_PASS, Phase, play_action
from keine_ahnung_env.games.gap.core import GAP_TABLE, LOC_DRAW, LOC_HAND, LOC_HIDDEN, MATCH_TABLE
from keine_ahnung_env.games.gap.deck import CARD_NUMBER, NUM_CARDS, parse_card
from keine_ahnung_env.games.gap.observation import ObservationLayout
from keine_ahnung_env.sampling import sample_masked


def cards(*texts: str) -> list[int]:
    return [parse_card(t) for t in texts]


def step(core, action: int) -> None:
    core.step(np.array([action]))


def two_pools() -> GapCore:
    """3 players, an empty draw pile, tops red 2 | blue 9 (a gap at every turn, so no turn-ups), grey 5
    and green 7 below the left top. Ben (0) and Emma (1) pass: the reshuffle makes pool {grey 5, green 7}
    and each draws one of it. Linus (2) plays red 3 on the left; Ben passes: the reshuffle of {red 2}
    makes a new pool 1 (the old one becomes 2) and Ben draws red 2; Emma passes (nothing left: a pass
    that takes nothing). Linus is to act."""
    core = GapCore(1, Rules.make(3), seed=0)
    placed = set(cards("red 2", "blue 9", "grey 5", "green 7", "red 3", "purple 11", "yellow 10", "yellow 11"))
    rest = [c for c in range(NUM_CARDS) if c not in placed]
    hidden = [rest[0:2], rest[2:4], rest[4:6]]
    ben, emma = rest[6:30] + cards("yellow 11"), rest[30:] + cards("yellow 10")
    core.load(0, hands=[ben, emma, cards("red 3", "purple 11")], hidden=hidden,
              piles=[cards("grey 5", "green 7", "red 2"), cards("blue 9")], current=0)
    step(core, ACTION_PASS)
    step(core, ACTION_PASS)
    step(core, play_action(parse_card("red 3"), 0))
    step(core, ACTION_PASS)
    step(core, ACTION_PASS)
    assert core.current[0] == 2 and core.phase[0] == Phase.PLAY and core.dry_passes[0] == 1
    return core


def test_the_observation_carries_the_pools_of_shuffled_back_cards():
    core = two_pools()
    layout = ObservationLayout.make(3, 3)
    grey5, green7, red2 = cards("grey 5", "green 7", "red 2")
    obs = core.observe(2)[0]
    pool = obs[layout.slice("pool")]
    assert {c: int(pool[c]) for c in np.flatnonzero(pool)} == {grey5: 2, green7: 2, red2: 1}
    holdings = obs[layout.slice("pool_holdings")].reshape(2, NUM_CARDS)  # relative seats +1 (Ben), +2 (Emma)
    assert holdings[0, :2].tolist() == [1, 1] and holdings[1, :2].tolist() == [0, 1] and holdings[:, 2:].sum() == 0
    # Ben knows where his own cards are: he sees the labels of his hand, Emma's pool-2 card among his unknowns
    ben = core.observe(0)[0]
    ben_pool = ben[layout.slice("pool")]
    assert ben_pool[red2] == 1 and ben_pool[grey5] == ben_pool[green7] == 2
    assert ben[layout.slice("pool_holdings")].reshape(2, NUM_CARDS)[0, :2].tolist() == [0, 1]  # Emma: one of pool 2

    belief = registry.game_spec("gap_v0", 3).belief
    marginals = belief.card_marginals(obs)
    # the two cards of pool 2 are one in Ben's hand and one in Emma's, either way equally likely; red 2 is Ben's
    assert marginals["hand_seat_1"][[grey5, green7, red2]].tolist() == [0.5, 0.5, 1.0]
    assert marginals["hand_seat_2"][[grey5, green7, red2]].tolist() == [0.5, 0.5, 0.0]
    assert not marginals["draw_pile"].any() and not marginals["next_draw"].any()
    events = belief.event_probabilities(obs)
    assert np.isnan(events["next_draw_fits"])  # nothing to draw: the pile is empty, nothing below the tops
    # forgetting the pools, grey 5 could be in the draw pile (it is not: the pile is empty) -- with them it
    # never is; every sample puts red 2 in Ben's hand and splits the pool-2 cards between Ben and Emma
    samples = belief.sample_states(obs, 200, np.random.default_rng(0))
    assert ((samples.card_loc[:, red2] == LOC_HAND) & (samples.card_owner[:, red2] == 0)).all()
    owners = samples.card_owner[:, [grey5, green7]]
    assert (np.sort(owners, axis=1) == [0, 1]).all() and 60 < (owners[:, 0] == 0).sum() < 140


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_sampler_keeps_its_contract_at_every_table(players):
    stats = C.check_belief_sampler(registry.game_spec("gap_v0", players), num_envs=5, seed=players, steps=160)
    assert stats["positions"] > 40 and stats["refused"] >= 3


def passing_play(core: GapCore, rng: np.random.Generator, observer: int = 0) -> None:
    """One step: the observer plays uniformly at random; the others pass whenever they play (and hide and
    turn up at random), so their decisions say nothing of their cards: the belief's model holds."""
    actions = sample_masked(rng, core.legal_mask)
    others = (core.current != observer) & (core.phase == Phase.PLAY)
    actions[others] = ACTION_PASS
    core.step(actions)
    if core.done.any():
        core.reset_games(np.flatnonzero(core.done))


def position_with_pools(players: int, seed: int):
    """A position (core, game, seat) whose observation has two pools held by opponents and a draw pile."""
    core = GapCore(64, Rules.make(players), seed=seed)
    rng = np.random.default_rng(seed)
    layout = core.obs_layout
    for _ in range(400):
        passing_play(core, rng)
        for b in np.flatnonzero((core.current == 0) & (core.phase == Phase.PLAY) & (core.draw_len > core.draw_pos)):
            obs = core.observe(0, games=np.array([b]))[0]
            labels = obs[layout.slice("pool")]
            if labels.max() >= 2 and obs[layout.slice("pool_holdings")].sum() >= 3:
                return core, int(b), obs
    raise AssertionError("no position with two pools found")


def place_frequencies(samples: GapCore, seat: int) -> dict[str, np.ndarray]:
    P = samples.num_players
    loc, owner = samples.card_loc, samples.card_owner
    out = {}
    for r in range(1, P):
        out[f"hand_seat_{r}"] = ((loc == LOC_HAND) & (owner == (seat + r) % P)).mean(axis=0)
        out[f"hidden_seat_{r}"] = ((loc == LOC_HIDDEN) & (owner == (seat + r) % P)).mean(axis=0)
    out["draw_pile"] = (loc == LOC_DRAW).mean(axis=0)
    tops = samples.draw_cards[np.arange(samples.num_envs), samples.draw_pos]
    out["next_draw"] = np.bincount(tops, minlength=NUM_CARDS) / samples.num_envs
    return out


def within(freq: np.ndarray, p: np.ndarray, n: int, sigmas: float = 5.0) -> bool:
    return bool((np.abs(freq - p) <= sigmas * np.sqrt(p * (1 - p) / n) + 1e-12).all())


@pytest.mark.parametrize("players", [3, 4])
def test_sample_frequencies_match_the_exact_marginals_and_events(players):
    core, b, obs = position_with_pools(players, seed=players)
    belief = registry.game_spec("gap_v0", players).belief
    n = 4000
    samples = belief.sample_states(obs, n, np.random.default_rng(1))
    exact = belief.card_marginals(obs)
    freq = place_frequencies(samples, 0)
    for place, f in freq.items():
        assert within(f, exact[place], n), place

    events = belief.event_probabilities(obs)
    loc, owner = samples.card_loc, samples.card_owner
    t0, t1 = (int(t) for t in core.pile_top[b])
    playable = GAP_TABLE[t0, t1] | MATCH_TABLE[t0] | MATCH_TABLE[t1]
    for r in range(1, players):
        held = (loc == LOC_HAND) & (owner == r)
        for name, marked in (("can_play", playable), ("gap_card", GAP_TABLE[t0, t1])):
            p = events[f"{name}_seat_{r}"]
            assert within((held & marked).any(axis=1).mean(), p, n), (name, r)
    # through the real engine: the observer passes in every sample and takes the card the events speak of
    hands_before = (loc == LOC_HAND) & (owner == 0)
    samples.step(np.full(n, ACTION_PASS))
    drawn = ((samples.card_loc == LOC_HAND) & (samples.card_owner == 0) & ~hands_before).argmax(axis=1)
    assert within(playable[drawn].mean(), events["next_draw_fits"], n)
    assert within(GAP_TABLE[t0, t1][drawn].mean(), events["next_draw_gap_card"], n)


EVENTS = ("next_draw_fits", "next_draw_gap_card", "next_draw_opens_gap", "can_play_seat_1", "gap_card_seat_1")


def real_events(core: GapCore, b: int) -> dict[str, bool]:
    """Whether each event of ``EVENTS`` holds in the real state of game b (seat 0 observing; a draw pile)."""
    t0, t1 = (int(t) for t in core.pile_top[b])
    gap = GAP_TABLE[t0, t1]
    playable = gap | MATCH_TABLE[t0] | MATCH_TABLE[t1]
    out = {}
    if core.draw_len[b] > core.draw_pos[b]:
        top = int(core.draw_cards[b, core.draw_pos[b]])
        number = lambda c: int(CARD_NUMBER[c])  # noqa: E731
        out["next_draw_fits"], out["next_draw_gap_card"] = bool(playable[top]), bool(gap[top])
        out["next_draw_opens_gap"] = abs(number(top) - number(t0)) > 1 or abs(number(top) - number(t1)) > 1
    held = (core.card_loc[b] == LOC_HAND) & (core.card_owner[b] == 1)
    out["can_play_seat_1"], out["gap_card_seat_1"] = bool((held & playable).any()), bool((held & gap).any())
    return out


def test_the_exact_marginals_are_calibrated_against_the_real_deal_and_forgetting_pools_is_not():
    """Games whose opponents never look at their cards; at the observer's decisions every unknown card's
    predicted place (each opponent's hand, the draw pile) is binned against where it really was, and so
    is every event against whether it held in the real state (the next draw from the draw pile). The
    control model
    spreads every card the seat cannot place uniformly over all unknown places (what observation
    version 1 allowed without remembering the round) and must miss. Bins are taken within strata (unseen
    or shuffled-back card; a hand or the draw pile), where forgetting the pools shows."""
    players, games = 4, 400
    core = GapCore(games, Rules.make(players), seed=11)
    belief = registry.game_spec("gap_v0", players).belief
    rng = np.random.default_rng(11)
    predicted, control, truth, stratum = [], [], [], []
    event_p, event_real = {name: [] for name in EVENTS}, {name: [] for name in EVENTS}
    for k in range(240):
        passing_play(core, rng)
        if k % 20 != 19:
            continue
        for b in np.flatnonzero((core.current == 0) & (core.phase == Phase.PLAY)):
            obs = core.observe(0, games=np.array([b]))[0]
            exact = belief.card_marginals(obs)
            know = belief.knowledge(obs)
            unplaced = np.r_[know.unseen, np.concatenate([cards for _, cards, _, _ in know.pools] or [[]])]
            unplaced = unplaced.astype(np.intp)
            shuffled_back = np.r_[np.zeros(know.unseen.size, int), np.ones(unplaced.size - know.unseen.size, int)]
            slots = {f"hand_seat_{r}": know.hand_sizes[r] for r in range(1, players)}
            slots["draw_pile"] = know.draw_size
            total = sum(slots.values()) + know.hidden_sizes[1:].sum()
            loc, owner = core.card_loc[b], core.card_owner[b]
            events = belief.event_probabilities(obs)
            for name, happened in real_events(core, b).items():
                if not np.isnan(events[name]):
                    event_p[name].append(events[name])
                    event_real[name].append(happened)
            for place, size in slots.items():
                if place == "draw_pile":
                    real = loc == LOC_DRAW
                else:
                    real = (loc == LOC_HAND) & (owner == int(place.rsplit("_", 1)[1]))
                predicted.append(exact[place][unplaced])
                control.append(np.full(unplaced.size, size / total))
                truth.append(real[unplaced])
                stratum.append(2 * shuffled_back + (place == "draw_pile"))
    predicted, control, truth = np.concatenate(predicted), np.concatenate(control), np.concatenate(truth)
    stratum = np.concatenate(stratum)
    assert predicted.size > 20_000 and (stratum >= 2).sum() > 2_000  # many shuffled-back cards among them

    def worst_z(p: np.ndarray) -> float:
        """The largest |observed - predicted| / sd over the bins of p (tenths) within each stratum (unseen
        or shuffled-back card, in a hand or the draw pile)."""
        which = np.clip((p * 10).astype(int), 0, 9) + 10 * stratum
        worst = 0.0
        for k in np.unique(which):
            sel = which == k
            var = (p[sel] * (1 - p[sel])).sum()
            if var > 5:
                worst = max(worst, abs(truth[sel].sum() - p[sel].sum()) / np.sqrt(var))
        return worst

    # the predicted counts are those of the real deal in every bin (the pools and counts are exactly right:
    # within a pool, or among the unseen cards, every card has the same probability, summing to the count)
    assert worst_z(predicted) < 1e-6
    assert worst_z(control) > 6.0
    # the events, a single random outcome each: every bin of predictions within its Bonferroni 99% interval
    for name in EVENTS:
        p, real = np.array(event_p[name]), np.array(event_real[name], float)
        assert p.size > 300, name
        which = np.clip((p * 10).astype(int), 0, 9)
        for k in np.unique(which):
            sel = which == k
            var = (p[sel] * (1 - p[sel])).sum()
            if var > 3:
                z = abs(real[sel].sum() - p[sel].sum()) / np.sqrt(var)
                assert z < 3.9, (name, k, int(sel.sum()), z)  # 3.9 sd: 99% over about 30 bins


def test_impossible_observations_are_refused():
    core = two_pools()
    belief = registry.game_spec("gap_v0", 3).belief
    layout = core.obs_layout
    obs = core.observe(2)[0]
    belief.sample_states(obs, 4, np.random.default_rng(0))

    def crafted(section: str, index: int, value: float) -> np.ndarray:
        out = obs.copy()
        out[layout.slice(section).start + index] = value
        return out

    holdings = layout.slice("pool_holdings").start
    bad = {
        "an opponent holds three cards of a two-card pool": crafted("pool_holdings", NUM_CARDS + 1, 3),
        "a pool card the opponents do not hold and the empty draw pile cannot": crafted("pool_holdings", 1, 0),
        "a card more in an opponent's hand than unknown cards": crafted("hand_sizes", 1, obs[layout.slice("hand_sizes")][1] + 1),
        "another seat to act": crafted("acting_seat", 1, 1),
        "a hand card also among the discards": crafted("discards", parse_card("purple 11"), 1),
        "a label on a card never seen": crafted("pool", parse_card("yellow 11"), 1),
        "a fractional count": crafted("table", 0, 0.5),
    }
    assert holdings > 0
    for what, observation in bad.items():
        with pytest.raises(ValueError):
            belief.sample_states(observation, 4, np.random.default_rng(0))
        with pytest.raises(ValueError):
            belief.event_probabilities(observation)
    with pytest.raises(ValueError, match="count"):
        belief.sample_states(obs, 0, np.random.default_rng(0))
    over = obs.copy()
    over[layout.slice("phase")] = [0, 0, 0, 1]
    over[layout.slice("acting_seat")] = 0
    with pytest.raises(ValueError, match="finished game"):
        belief.sample_states(over, 4, np.random.default_rng(0))


def test_a_policy_recorded_with_observation_version_1_is_refused():
    from agents.ppo import CheckpointInfo, check_game

    spec = registry.game_spec("gap_v0", 4)
    assert spec.observation_version == 2
    info = CheckpointInfo(game="gap_v0", num_players=4, rules={}, observation_version=1,
                          observation_size=349, num_actions=spec.num_actions, features="hints", net_arch=(64,),
                          activation="tanh")
    with pytest.raises(ValueError, match="observation version 1"):
        check_game(info)
