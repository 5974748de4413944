"""What a seat may know, exactly: Keine Ahnung's beliefs, its state sampler, the exact risk model
in its pools, and the risk model's calibration in real play."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from agents.base import sample_masked
from keine_ahnung_env import registry
from keine_ahnung_env.games.keine_ahnung import odds as risk
from keine_ahnung_env.games.keine_ahnung.actions import ACTION_CALL, Phase
from keine_ahnung_env.games.keine_ahnung.belief import belief_for
from keine_ahnung_env.games.keine_ahnung.config import Rules
from keine_ahnung_env.games.keine_ahnung.core import KeineAhnungCore
from keine_ahnung_env.games.keine_ahnung.observation import ObservationLayout
from keine_ahnung_env.stats import binomial_interval_contains
from test_calibration import load_calibration  # benchmarks/calibration.py (not installed), loaded by its path

calibration = load_calibration()

VARIANTS = [dict(num_players=P, memory=m) for P in (2, 3, 4, 5) for m in ("perfect", "none")] + [
    dict(num_players=3, reshuffle_discards=False, allow_keep=True), dict(num_players=2, memory="none", allow_keep=True)]


def decision_points(rules: Rules, seed: int, steps: int, num_envs: int = 12, every: int = 5):
    """(core, game) at the decisions of random play (a live core: use it before the next step)."""
    core = KeineAhnungCore(num_envs, rules, seed=seed)
    rng = np.random.default_rng(seed)
    for step in range(steps):
        if core.done.any():
            core.reset_games(np.flatnonzero(core.done))
        if step % every == 0:
            for b in range(0, num_envs, 2):
                yield core, b
        core.step(sample_masked(rng, core.legal_mask))


@pytest.mark.parametrize("options", VARIANTS, ids=lambda o: "-".join(f"{k}={v}" for k, v in o.items()))
def test_every_sampled_state_shows_the_observer_its_observation_and_its_mask(options):
    rules = Rules.make(**options)
    belief = registry.game_spec("keine_ahnung_v0", **options).belief
    rng = np.random.default_rng(1)
    checked = phases = 0
    seen_phases = set()
    for core, b in decision_points(rules, seed=sum(map(hash, map(str, options.items()))) % 1000, steps=400):
        obs = core.observe(core.current)[b]
        states = belief.sample_states(obs, 6, rng)
        assert isinstance(states, KeineAhnungCore) and states.num_envs == 6
        assert (states.current == 0).all()
        np.testing.assert_array_equal(states.observe(0), np.repeat(obs[None], 6, axis=0))
        np.testing.assert_array_equal(states.legal_mask, np.repeat(core.legal_mask[b][None], 6, axis=0))
        checked += 1
        seen_phases.add(int(core.phase[b]))
    assert checked > 300 and Phase.MAIN in seen_phases


def test_sampled_states_play_on_and_seeded_samples_repeat():
    rules = Rules.make(4)
    belief = belief_for(rules)
    core, b = next(iter(p for i, p in enumerate(decision_points(rules, seed=5, steps=300)) if i == 200))
    obs = core.observe(core.current)[b]
    one = belief.sample_states(obs, 16, np.random.default_rng(42))
    two = belief.sample_states(obs, 16, np.random.default_rng(42))
    three = belief.sample_states(obs, 16, np.random.default_rng(43))
    for name in ("layout", "draw_cards", "trophy_order", "rng_state"):
        np.testing.assert_array_equal(getattr(one, name), getattr(two, name))
    assert not np.array_equal(one.draw_cards, three.draw_cards)
    # They are normal games: played to the end with random moves, they end and keep their invariants.
    rng = np.random.default_rng(0)
    for _ in range(3000):
        if one.done.all():
            break
        one.step(sample_masked(rng, one.legal_mask))
    assert one.done.all()


def test_bad_observations_are_refused_with_a_reason():
    rules = Rules.make(3)
    belief = belief_for(rules)
    core = KeineAhnungCore(1, rules, seed=0)
    obs = core.observe(0)[0]
    with pytest.raises(ValueError, match="needs \\["):
        belief.sample_states(obs[:-1], 4, np.random.default_rng(0))
    with pytest.raises(ValueError, match="seat to act"):
        belief.sample_states(core.observe(1)[0], 4, np.random.default_rng(0))
    with pytest.raises(ValueError, match="count"):
        belief.sample_states(obs, 0, np.random.default_rng(0))
    layout = core.obs_layout
    broken = obs.copy()
    broken[layout.slice("unknown_cards").start] += 1
    with pytest.raises(ValueError, match="observation"):
        belief.sample_states(broken, 4, np.random.default_rng(0))
    broken = obs.copy()
    broken[layout.slice("own_trophies")] = [0, 0, 1]
    with pytest.raises(ValueError, match="own_trophies"):
        belief.sample_states(broken, 4, np.random.default_rng(0))
    broken = obs.copy()
    broken[0] = 0.5
    with pytest.raises(ValueError, match="integer"):
        belief.event_probabilities(broken)


def states_with_earlier_pools(rules: Rules, wanted: int, seed: int = 0):
    """(core, game) where the seat to act may call and holds an unknown card from an earlier shuffle."""
    found = 0
    for core, b in decision_points(rules, seed=seed, steps=20000, num_envs=32, every=1):
        if not core.legal_mask[b, ACTION_CALL]:
            continue
        seat = int(core.current[b])
        cards = core.layout[b, seat]
        cards = cards[cards >= 0]
        if ((~core.card_known[b, cards]) & (core.card_epoch[b, cards] < core.reshuffles[b])).any():
            yield core, b
            found += 1
            if found == wanted:
                return


def test_the_one_pool_model_was_wrong_and_the_pools_are_exact():
    """The cause of the miscalibration at the level of the arithmetic: where the caller holds a card dealt
    before the last reshuffle, re-dealing every hidden card among each shuffle's own places (the engine's
    play-outs) agrees with the pool model and refutes the one-pool model of observation version 1."""
    rules = Rules.make(4)
    rng = np.random.default_rng(3)
    scratch = KeineAhnungCore(3000, rules, seed=1)
    exact, old, hits = [], [], []
    for core, b in states_with_earlier_pools(rules, 12, seed=11):
        obs = core.observe(core.current)[b][None]
        exact.append(risk.batch_call_success_probability(obs, rules.tables())[0])
        old.append(calibration.version1_model(obs, rules.tables())[0])
        hits.append(risk.monte_carlo_call_success(core, b, 3000, rng, scratch=scratch)[0])
    exact, old, hits = map(np.array, (exact, old, hits))
    alpha = 0.01 / len(exact)
    assert binomial_interval_contains(exact, hits, 3000, alpha).all()
    assert not binomial_interval_contains(old, hits, 3000, alpha).all()
    assert np.abs(exact - old).max() > 0.05


def test_the_sampler_deals_each_hidden_card_with_its_exact_probability():
    """Per slot, how often each card type lies there over many samples against the pool frequencies; and a
    real CALL resolved in the sampled games succeeds as often as the exact risk model says."""
    rules = Rules.make(4)
    belief = belief_for(rules)
    rng = np.random.default_rng(9)
    samples = 3000
    checks = []
    for core, b in states_with_earlier_pools(rules, 6, seed=21):
        obs = core.observe(core.current)[b]
        know = belief.knowledge(obs)
        states = belief.sample_states(obs, samples, rng)
        seat_slots = np.argwhere(know.slot_pool >= 0)
        for seat, slot in seat_slots[:4]:
            pool = know.pools[int(know.slot_pool[seat, slot])]
            expected = pool / pool.sum()
            drawn = rules.tables().card_type[states.layout[:, seat, slot]]
            counts = np.bincount(drawn, minlength=pool.size)
            types = np.flatnonzero(expected > 0)
            assert counts[expected == 0].sum() == 0  # never a card the pool cannot hold
            checks.append((expected[types], counts[types]))
        exact = risk.batch_call_success_probability(obs[None], rules.tables())[0]
        before = states.trophy_count[:, 0].copy()
        states.step(np.full(samples, ACTION_CALL))
        checks.append((np.array([exact]), np.array([(states.trophy_count[:, 0] > before).sum()])))
    alpha = 0.01 / sum(len(p) for p, _ in checks)
    for p, k in checks:
        assert binomial_interval_contains(p, k, samples, alpha).all()


def test_event_probabilities_match_the_sampled_states():
    rules = Rules.make(3)
    spec = registry.game_spec("keine_ahnung_v0", 3)
    belief = spec.belief
    tables = rules.tables()
    rng = np.random.default_rng(4)
    samples = 2000
    checks = []
    observations = [core.observe(core.current)[b] for i, (core, b) in
                    enumerate(decision_points(rules, seed=8, steps=900, every=20)) if i % 7 == 0][:12]
    for obs in observations:
        events = belief.event_probabilities(obs)
        assert {"call_succeeds", "unknown_card_fits", "unknown_card_is_prize", "draw_card_fits",
                "draw_card_is_prize", "refill_hurts"} <= set(events)
        assert events["call_succeeds"] == pytest.approx(risk.call_success_probability(obs, tables))
        states = spec.belief.sample_states(obs, samples, rng)
        tops = states.top_count > 0
        fits_face = tables.compat[:36, :36]
        mine = np.flatnonzero(states.layout[0, 0] >= 0)
        unknown = [s for s in mine if not states.card_known[0, states.layout[0, 0, s]]]
        if unknown:
            cards = states.layout[:, 0, unknown[0]]
            face = tables.face[cards]
            fit = np.array([(~tables.is_prize[c]) and (fits_face[f] & t).any() for c, f, t in
                            zip(cards, np.minimum(face, 35), tops)])
            checks.append((events["unknown_card_fits"], fit.sum()))
            checks.append((events["unknown_card_is_prize"], tables.is_prize[cards].sum()))
        else:
            assert np.isnan(events["unknown_card_fits"])
        if states.draw_len[0] > 0:
            top = states.draw_cards[:, 0]
            checks.append((events["draw_card_is_prize"], tables.is_prize[top].sum()))
        counts = (states.layout[0] >= 0).sum(1)
        deal = int(np.maximum(3 - counts[1:], 0).sum())
        if 0 < deal <= states.draw_len[0]:
            no_prize = ~tables.is_prize[states.draw_cards[:, :deal]].any(1)
            checks.append((events["refill_hurts"], no_prize.sum()))
        elif deal == 0:
            assert events["refill_hurts"] == 0.0
    assert len(checks) >= 10
    p = np.array([c[0] for c in checks])
    k = np.array([c[1] for c in checks])
    assert binomial_interval_contains(p, k, samples, 0.01 / len(checks)).all()


CALIBRATION_GAMES = 24


def test_the_risk_model_is_calibrated_in_real_play():
    """A few thousand calls of real games (``counter`` everywhere, calls forced with probability 0.3) at
    2-5 players in both memory modes (with memory="none" the value calibrated among ``counter``
    players): every probability bin holds its observed success rate inside its 99% interval,
    Bonferroni-corrected over every bin tested. A miscalibrated model fails the same test. The
    documented check is ``benchmarks/calibration.py`` on 1,000,000 calls per variant; a few thousand
    calls cannot see a 1-point error (``tests/test_calibration.py`` checks the memory-none curve on
    more calls)."""
    runs = [calibration.play_forced_calls(P, memory, games=CALIBRATION_GAMES, seed=100 + P, num_envs=CALIBRATION_GAMES)
            for P in (2, 3, 4, 5) for memory in ("perfect", "none")]
    calls = sum(len(r.predicted) for r in runs)
    assert calls > 2000
    bins = sum(len(calibration.reliability_table(r.predicted, r.success)[0]) for r in runs)
    for run in runs:
        rows, brier = calibration.reliability_table(run.predicted, run.success, alpha=0.01 / bins * len(
            calibration.reliability_table(run.predicted, run.success)[0]))
        assert all(row.inside for row in rows), calibration.format_table(rows, brier)
    # The test has teeth: the same calls judged against a model that is 0.15 too hopeful fail it, and so
    # does reading a call that ends the game as a failure (what a reader of the core after an autoreset sees).
    p = np.concatenate([r.predicted for r in runs])
    y = np.concatenate([r.success for r in runs])
    ended = np.concatenate([r.ended for r in runs])
    rows, _ = calibration.reliability_table(np.minimum(p + 0.15, 1.0), y)
    assert not all(row.inside for row in rows)
    rows, _ = calibration.reliability_table(p, y & ~ended)
    assert not all(row.inside for row in rows)


def test_reliability_table_bins_and_intervals():
    p = np.array([0.0, 0.05, 0.5, 0.55, 1.0, 1.0])
    y = np.array([False, False, True, False, True, True])
    rows, brier = calibration.reliability_table(p, y)
    assert [(r.low, r.calls) for r in rows] == [(0.0, 2), (0.5, 2), (0.9, 2)]
    assert all(r.inside for r in rows)
    assert brier == pytest.approx(np.mean((p - y) ** 2))
    # A certain success that fails is outside any interval.
    rows, _ = calibration.reliability_table(np.array([1.0]), np.array([False]))
    assert not rows[0].inside
    assert calibration.poisson_binomial_pmf(np.array([0.5, 0.5])) == pytest.approx([0.25, 0.5, 0.25])


def test_version_1_checkpoints_still_play_and_cannot_resume():
    from agents.ppo import check_game, load_training_state, read_info

    path = "agents/checkpoints/keine_ahnung_v0_4p_advice.zip"
    info = read_info(path)
    assert info.observation_version == 1
    spec = registry.game_spec("keine_ahnung_v0", 4)
    assert spec.observation_version == 2
    assert spec.older_observations == {1: ObservationLayout.for_tables(4, Rules.make(4).tables(), version=1).size}
    agent = agents.make("ppo", path=path, num_players=4)
    core = spec.make_core(8, 3)
    actions = agent.act(core.observe(core.current), core.legal_mask)
    assert core.legal_mask[np.arange(8), actions].all()
    with pytest.raises(ValueError, match="observation version 1"):
        load_training_state(path)
    import dataclasses
    with pytest.raises(ValueError, match="observation version 3"):
        check_game(dataclasses.replace(info, observation_version=3))
    # Version 1 is the prefix of version 2.
    layout1 = ObservationLayout.for_tables(4, Rules.make(4).tables(), version=1)
    assert [s for s in core.obs_layout.sections[: len(layout1.sections)]] == list(layout1.sections)


def _card(tables, name: str, skip: int = 0) -> int:
    """The id of the ``skip``-th card named ``name`` (``tables.card_name``), e.g. "blue 1"."""
    return [c for c in range(tables.num_cards) if tables.card_name(c) == name][skip]


def test_scripted_deal_a_card_from_before_the_reshuffle_comes_from_its_own_pool():
    """Seat 0 holds one unknown card and seat 1 two, all three dealt before the one reshuffle so far; the
    pile top is blue 1. Those three cards (blue 2, red 3, green 4) are that shuffle's whole pool, so the
    call succeeds with probability exactly 2/3 (only blue 2 fits), whatever the draw pile holds; the
    one-pool model of version 1 gave another value. The sampler puts exactly these cards in those slots."""
    from fractions import Fraction

    rules = Rules.make(2)
    t = rules.tables()
    core = KeineAhnungCore(1, rules, seed=0)
    top, x, y, z = _card(t, "blue 1"), _card(t, "blue 2"), _card(t, "red 3"), _card(t, "green 4")
    layouts = [[-1, x, -1, -1, -1, -1], [y, z, -1, -1, -1, -1]]
    core.load(0, layouts=layouts, piles=[[top]], current=0, start_turn=False)
    assert core.legal_mask[0, ACTION_CALL]
    draw = core.draw_cards[0, core.draw_pos[0]:core.draw_len[0]]
    core.reshuffles[0] = 1
    core.card_epoch[0, draw] = 1  # the draw pile is the reshuffle's; x, y, z stay from the deal (epoch 0)
    obs = core.observe(0)[0]
    sec = core.obs_layout.split(obs)
    assert sec["earlier_pool"].tolist() == [0, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0]
    assert sorted(sec["earlier_pool_cards"][sec["earlier_pool"] > 0] - 1) == sorted(t.card_type[[x, y, z]])
    assert risk.exact_call_success_probability(obs, t) == Fraction(2, 3)
    assert calibration.version1_model(obs[None], t)[0] != pytest.approx(2 / 3)
    states = belief_for(rules).sample_states(obs, 300, np.random.default_rng(0))
    held = np.sort(np.stack([t.card_type[states.layout[:, 0, 1]], t.card_type[states.layout[:, 1, 0]],
                             t.card_type[states.layout[:, 1, 1]]], axis=1), axis=1)
    assert (held == np.sort(t.card_type[[x, y, z]])).all()
    assert 0.5 < (t.card_type[states.layout[:, 0, 1]] != t.card_type[x]).mean() < 0.85  # 2/3 of the time
    # Loading a position starts a fresh shuffle history.
    core.load(0, layouts=layouts, piles=[[top]], current=0, start_turn=False)
    assert core.reshuffles[0] == 0 and not core.observe(0)[0, core.obs_layout.slice("earlier_pool")].any()
