"""Reading the play (``keine_ahnung_env.play_reading``): the log, dnp's rewind, the weights, the search option."""

from __future__ import annotations

import numpy as np
import pytest

import agents
from keine_ahnung_env import registry
from keine_ahnung_env.games.dnp.kernels import LOC_HAND
from keine_ahnung_env.play_reading import PlayLog, PlayRecorder, read_play, resample, weigh

CARD_ARRAYS = ("card_loc", "card_where", "card_rot")


def recorded_games(game: str, agent: str, players: int, games: int, seed: int, visit, steps: int,
                   watch=None):
    """Plays ``games`` games of ``agent`` in every seat, recording every seat; ``visit(core, recorder, g,
    obs)`` is called at every decision of seat 0 after an opponent's move in its log, ``watch(core,
    recorder)`` (if given) before every step."""
    spec = registry.game_spec(game, players)
    core = spec.make_core(games, 0)
    core.seed(seed)
    core.reset_games(np.arange(games))
    recorder = PlayRecorder(spec, core)
    player = agents.make(agent, game=game, num_players=players, seed=seed)
    for _ in range(steps):
        live = ~np.asarray(core.done)
        if not live.any():
            break
        if watch is not None:
            watch(core, recorder)
        seat = np.asarray(core.current).astype(np.int64)
        obs = core.observe(seat)
        for g in np.flatnonzero(live & (seat == 0)):
            log = recorder.log(int(g), 0)
            if log is not None and (log.actors != 0).any():
                visit(core, recorder, int(g), obs[g])
        actions = player.act(obs, core.legal_mask)
        core.step(actions, active=live)
        recorder.after_step(seat, actions, live)
    return spec


def tactician_games(players: int, games: int, seed: int, visit, steps: int = 2000):
    """dnp games of tacticians (:func:`recorded_games`)."""
    return recorded_games("dnp_v0", "tactician", players, games, seed, visit, steps)


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_rewind_of_the_true_state_replays_the_real_round_and_the_true_state_fits_every_run(players):
    # Seat 0 reads; the real game's own row is then a state in the reader's frame. Rewound, it must be
    # the real round's start (the cards where the real deal put them), replay to the real position,
    # and fit every opponent run of a model that is the opponents' own (deterministic) agent.
    starts: dict[tuple[int, int], dict] = {}
    checked = []
    model = agents.make("tactician", game="dnp_v0", num_players=players)

    def visit(core, recorder, g, obs):
        spec = registry.game_spec("dnp_v0", players)
        log = recorder.log(g, 0)
        truth = type(core).gather([(core, np.array([g]))])
        start = spec.play.rewind(truth, log)
        key = (g, int(core.rounds[g]))
        real_start = starts[key]
        for name in CARD_ARRAYS:
            in_play = spec.play.tables.in_play
            assert np.array_equal(np.asarray(getattr(start, name))[0, in_play], real_start[name][in_play]), name
        reading = weigh(spec, log, truth, obs, model, slack=0.05)
        assert reading.log_likelihood[0] == 0.0  # every run of the real opponents is the model's
        assert reading.runs == len([r for r in log.runs() if r[0] != 0])
        checked.append(g)

    spec = registry.game_spec("dnp_v0", players)

    # Record the real round starts by watching the rounds counter as the games go.
    original_after = PlayRecorder.after_step

    def after_step(self, actors, actions, stepped):
        original_after(self, actors, actions, stepped)
        for g in range(self.core.num_envs):
            key = (g, int(self.core.rounds[g]))
            if key not in starts and not self.core.done[g]:
                starts[key] = {name: np.asarray(getattr(self.core, name))[g].copy() for name in CARD_ARRAYS}

    PlayRecorder.after_step = after_step
    try:
        # The first round's start is the deal itself, recorded before any step.
        real = spec.make_core(6, 0)
        real.seed(300 + players)
        real.reset_games(np.arange(6))
        for g in range(6):
            starts[(g, 0)] = {name: np.asarray(getattr(real, name))[g].copy() for name in CARD_ARRAYS}
        tactician_games(players, 6, 300 + players, visit)
    finally:
        PlayRecorder.after_step = original_after
    assert len(checked) >= 20


def read_twice(spec, log, obs, count: int, seed: int, model, slack: float):
    """``read_play`` twice with the same seed: the same weights, and every sampled state rewinds and
    replays to the observation; returns the reading."""
    one = read_play(spec, log, obs, count, np.random.default_rng(seed), model, slack=slack)
    two = read_play(spec, log, obs, count, np.random.default_rng(seed), model, slack=slack)
    assert np.isfinite(one.log_likelihood).all()
    assert np.array_equal(one.weights, two.weights)
    assert abs(one.weights.sum() - 1.0) < 1e-12 and 1.0 <= one.effective_size <= count
    return one


def test_sampled_states_all_replay_and_the_reading_repeats_with_its_seed():
    readings = []

    def visit(core, recorder, g, obs):
        if len(readings) >= 12:
            return
        spec = registry.game_spec("dnp_v0", 4)
        log = recorder.log(g, 0)
        model = agents.make("tactician", game="dnp_v0", num_players=4)
        one = read_twice(spec, log, obs, 24, len(readings), model, slack=0.5)
        # slack=1: the play says nothing, every state weighs the same
        flat = read_play(spec, log, obs, 8, np.random.default_rng(0), model, slack=1.0)
        assert np.allclose(flat.weights, 1 / 8)
        readings.append(one)

    tactician_games(4, 4, 11, visit, steps=600)
    assert len(readings) == 12
    # the play does say something: the weights are not all equal at a slack below 1
    assert any(r.effective_size < 23.9 for r in readings)


def test_resample_follows_the_weights():
    spec = registry.game_spec("dnp_v0", 3)
    core = spec.make_core(1, 0)
    core.seed(1)
    core.reset_games(np.arange(1))
    obs = core.observe(int(core.current[0]))[0]
    states = spec.belief.sample_states(obs, 4, np.random.default_rng(0))
    from keine_ahnung_env.play_reading import PlayReading

    reading = PlayReading(states, np.array([0.0, 1.0, 0.0, 0.0]), np.array([-np.inf, 0, -np.inf, -np.inf]), 1)
    drawn = resample(reading, 5, np.random.default_rng(3))
    assert drawn.num_envs == 5
    for name in CARD_ARRAYS:
        assert (np.asarray(getattr(drawn, name)) == np.asarray(getattr(states, name))[1]).all()
    with pytest.raises(ValueError, match="count"):
        resample(reading, 0, np.random.default_rng(0))


def test_bad_input_is_refused_by_name():
    spec = registry.game_spec("dnp_v0", 4)
    model = agents.make("tactician", game="dnp_v0", num_players=4)
    core = spec.make_core(1, 0)
    core.seed(2)
    core.reset_games(np.arange(1))
    seat = int(core.current[0])
    obs = core.observe(seat)[0]
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="PlayLog"):
        read_play(spec, "not a log", obs, 4, rng, model)
    with pytest.raises(ValueError, match="slack"):
        read_play(spec, PlayLog(obs, np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros((0, obs.size))),
                  obs, 4, rng, model, slack=1.5)
    with pytest.raises(ValueError, match="log shapes"):
        read_play(spec, PlayLog(obs[:3], np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros((0, 3))),
                  obs, 4, rng, model)
    import dataclasses

    blind = dataclasses.replace(spec, hooks=dataclasses.replace(spec.hooks, play=None))
    with pytest.raises(ValueError, match="offers no play reading.*dnp_v0.*gap_v0"):
        PlayRecorder(blind, blind.make_core(1, 0))
    with pytest.raises(ValueError, match="belief"):
        agents.make("ismcts", game="dnp_v0", num_players=4, belief="psychic")
    with pytest.raises(ValueError, match="model="):
        agents.make("ismcts", game="dnp_v0", num_players=4, model="tactician")


def test_a_log_of_another_seat_is_refused():
    hits = []

    def visit(core, recorder, g, obs):
        if hits:
            return
        spec = registry.game_spec("dnp_v0", 4)
        other = recorder.log(g, 1)  # seat 1's record, handed to seat 0's observation
        model = agents.make("tactician", game="dnp_v0", num_players=4)
        with pytest.raises(ValueError, match="round's start|replays|rewound|log"):
            read_play(spec, other, obs, 8, np.random.default_rng(0), model)
        hits.append(g)

    tactician_games(4, 2, 21, visit, steps=300)
    assert hits


def test_keine_ahnung_moves_reveal_nothing():
    spec = registry.game_spec("keine_ahnung_v0", 4)
    assert spec.play.reveals_nothing
    core = spec.make_core(1, 0)
    core.seed(4)
    core.reset_games(np.arange(1))
    recorder = PlayRecorder(spec, core)
    seat = int(core.current[0])
    obs = core.observe(seat)[0]
    reading = read_play(spec, recorder.log(0, seat), obs, 16, np.random.default_rng(0),
                        agents.make("counter", game="keine_ahnung_v0", num_players=4))
    assert np.allclose(reading.weights, 1 / 16) and reading.runs == 0


def test_the_recorder_starts_a_log_only_where_it_saw_the_round_begin():
    spec = registry.game_spec("dnp_v0", 3)
    core = spec.make_core(2, 0)
    core.seed(5)
    core.reset_games(np.arange(2))
    player = agents.make("tactician", game="dnp_v0", num_players=3, seed=0)
    for _ in range(5):  # some moves before the recorder exists
        seat = np.asarray(core.current).astype(np.int64)
        core.step(player.act(core.observe(seat), core.legal_mask))
    late = PlayRecorder(spec, core)
    assert late.log(0, 0) is None and late.log(1, 2) is None
    with pytest.raises(ValueError, match="not recorded"):
        PlayRecorder(spec, core, readers=[1]).log(0, 0)
    fresh = spec.make_core(2, 0)
    mask = np.zeros((2, 3), bool)
    mask[0, 1] = True  # only seat 1 of game 0 reads
    recorder = PlayRecorder(spec, fresh, readers=mask)
    seat = np.asarray(fresh.current).astype(np.int64)
    actions = player.act(fresh.observe(seat), fresh.legal_mask)
    fresh.step(actions)
    recorder.after_step(seat, actions, np.ones(2, bool))
    log = recorder.log(0, 1)
    assert len(log) == 1 and np.array_equal(log.seen[0], fresh.observe(1, games=np.array([0]))[0])
    with pytest.raises(ValueError, match="not recorded in game 1"):
        recorder.log(1, 1)
    with pytest.raises(ValueError, match="readers of shape"):
        PlayRecorder(spec, fresh, readers=np.zeros((3, 3), bool))


def test_the_search_agent_reads_the_play_in_a_tournament():
    from training.tournament import play_tournament

    search = agents.make("ismcts", game="dnp_v0", num_players=3, belief="play", playouts=4, particles=8,
                         screen=0, seed=0)
    result = play_tournament([search, agents.make("tactician", game="dnp_v0", num_players=3)], num_players=3,
                             games=3, seed=8, env="dnp_v0")
    assert search.readings > 0 and search.effective_sizes / search.readings >= 1.0
    assert result is not None
    # act() alone has no log: the observation's belief
    before = search.readings
    core = registry.game_spec("dnp_v0", 3).make_core(1, 0)
    core.seed(1)
    core.reset_games(np.arange(1))
    search.act(core.observe(core.current), core.legal_mask)
    assert search.readings == before


def test_every_unknown_card_of_a_sample_stays_in_an_opponents_hand_after_rewinding():
    # Rewinding moves no card the seat could have seen: the cards in play are all in hands at the start.
    def visit(core, recorder, g, obs):
        spec = registry.game_spec("dnp_v0", 5)
        states = spec.belief.sample_states(obs, 6, np.random.default_rng(g))
        start = spec.play.rewind(states, recorder.log(g, 0))
        in_play = spec.play.tables.in_play
        assert (np.asarray(start.card_loc)[:, in_play] == LOC_HAND).all()
        assert np.array_equal(start.observe(0)[0], recorder.log(g, 0).start)

    tactician_games(5, 2, 31, visit, steps=200)


def test_the_benchmark_scores_both_beliefs_against_the_real_hands(tmp_path):
    import importlib.util
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "benchmarks" / "play_reading.py"
    spec = importlib.util.spec_from_file_location("benchmarks_play_reading", path)
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    out = tmp_path / "reading.json"
    assert bench.main(["--players", "3", "--games", "1", "--particles", "8", "--seed", "5", "--every", "3",
                       "--json", str(out)]) == 0
    r = json.loads(out.read_text())
    assert r["decisions"] > 0 and r["plain_log_score"] < 0 and r["read_log_score"] < 0
    # the paired gain is the difference of the two means
    assert abs(r["log_score_gain"][0] - (r["read_log_score"] - r["plain_log_score"])) < 1e-9
    assert sum(c["n"] for c in r["calibration"]) > 0 and 1.0 <= r["ess_mean"] <= 8.0


def _exact_holder_marginals(reader_hand, table, held, slack):
    """Seat 2's exact posterior in 3-player, one-round tiny_v0 after seats 0 and 1 acted (``table[j]``: the
    card seat j played, 0 for a pass), the players being ``high_card`` with ``slack``: by enumerating every
    ordered deal of the other hands (each equally likely) and weighing it by the model's decisions."""
    import itertools

    cards = set(range(1, 9)) - set(reader_hand) - {c for c in table if c}
    out, total = np.zeros((2, 9)), 0.0
    for rest0 in itertools.permutations(sorted(cards), held[0]):
        for rest1 in itertools.permutations(sorted(cards - set(rest0)), held[1]):
            weight, played = 1.0, []
            for seat, rest in ((0, rest0), (1, rest1)):
                hand = list(rest) + ([table[seat]] if table[seat] else [])
                best = max(hand)
                plays = best > max(played, default=0)  # high_card: its best card if it beats the table
                weight *= 1.0 if plays == bool(table[seat]) and (not plays or best == table[seat]) else slack
                played.append(table[seat])
            total += weight
            for seat, rest in ((0, rest0), (1, rest1)):
                out[seat, list(rest)] += weight
    return out / total


def test_the_reading_converges_to_the_exact_posterior_of_the_tiny_game():
    # Enumerated exactly, the posterior under the model against read_play's weighted sample: the method is
    # consistent, not only self-consistent.
    import tiny_game

    tiny_game.register()
    try:
        spec = registry.game_spec(tiny_game.NAME, 3, rounds=1)
        model = agents.make("high_card", game=tiny_game.NAME, num_players=3)
        checked = compared = 0
        for seed in range(40):
            if checked >= 3 and compared >= 6:
                break
            core = spec.make_core(1, seed)
            recorder = PlayRecorder(spec, core)
            for _ in range(2):
                seat = core.current.copy()
                actions = model.act(core.observe(seat), core.legal_mask)
                core.step(actions)
                recorder.after_step(seat, actions, np.ones(1, bool))
            table = [int(core.table[0, 0]), int(core.table[0, 1])]
            if not any(table):
                continue  # nothing played: the passes alone are the case below
            obs = core.observe(2)[0]
            held = [int((core.hands[0, s] > 0).sum()) for s in (0, 1)]
            exact = _exact_holder_marginals([int(c) for c in core.hands[0, 2]], table, held, slack=0.2)
            plain = _exact_holder_marginals([int(c) for c in core.hands[0, 2]], table, held, slack=1.0)
            reading = read_play(spec, recorder.log(0, 2), obs, 3000, np.random.default_rng(seed), model, slack=0.2)
            hands = reading.states.hands  # [n, 3, 2] absolute seats; the reader is seat 2 in every live state
            live = reading.weights > 0
            assert (reading.states.current[live] == 2).all()
            estimate = np.zeros((2, 9))
            for s in (0, 1):
                for c in range(1, 9):
                    estimate[s, c] = reading.weights @ (hands[:, s] == c).any(axis=1)
            assert np.abs(estimate - exact).max() < 0.05, (seed, np.round(estimate - exact, 3))
            compared += 1
            if np.abs(exact - plain).max() > 0.1:
                checked += 1
        assert checked >= 3  # positions where reading the play moves the belief, and it moves it right
    finally:
        tiny_game.unregister()


def planner_games(players: int, games: int, seed: int, visit, steps: int = 3000):
    """Gap games of planners (:func:`recorded_games`); ``visit(core, recorder, g, obs, start)``, ``start``
    the real position (card_loc, card_owner, draw pile) when seat 0's log began."""
    starts: dict[int, tuple] = {}

    def watch(core, recorder):
        for g in np.flatnonzero(~np.asarray(core.done)):
            log = recorder.log(int(g), 0)
            if log is not None and len(log) == 0:
                pile = np.asarray(core.draw_cards)[g, core.draw_pos[g]:core.draw_len[g]].copy()
                starts[int(g)] = (np.asarray(core.card_loc)[g].copy(), np.asarray(core.card_owner)[g].copy(), pile)

    return recorded_games("gap_v0", "planner", players, games, seed,
                          lambda core, recorder, g, obs: visit(core, recorder, g, obs, starts[g]), steps, watch)


def test_gap_rewinds_replay_to_the_observation_and_the_real_start_is_among_them():
    """Five players, so reshuffles happen: a log never spans one, every rewind of the true state
    replays to it, and where an opponent's passes leave few choices the real start is among the
    rewinds (the card an unseen pass took is drawn from the passer's hand)."""
    from keine_ahnung_env.games.gap.actions import ACTION_PASS

    spec = registry.game_spec("gap_v0", 5)
    model = agents.make("planner", game="gap_v0", num_players=5)
    seen = {"checked": 0, "after_reshuffle": 0, "found": 0}

    def visit(core, recorder, g, obs, start):
        log = recorder.log(g, 0)
        views = [log.start, *log.seen]
        assert not any(spec.play.restarts(a, b) for a, b in zip(views, views[1:]))
        if seen["checked"] % 3:  # every third reading: the weighing replays the model (slow)
            seen["checked"] += 1
            return
        seen["checked"] += 1
        truth = type(core).gather([(core, np.full(256, g))])
        rewound = spec.play.rewind(truth, log)
        assert (rewound.observe(0) == log.start).all()
        reading = weigh(spec, log, type(core).gather([(truth, np.arange(8))]), obs, model, slack=0.05)
        assert np.isfinite(reading.log_likelihood).all()
        sizes = spec.play.layout.split(np.stack(views))["table"][:, 0]
        hidden_draws = sum(1 for t in range(len(log)) if log.actors[t] != 0 and log.actions[t] == ACTION_PASS
                           and sizes[t] > sizes[t + 1])
        seen["after_reshuffle"] += int(spec.play.layout.split(log.start)["pool"].any())
        if hidden_draws <= 1:
            loc, owner, pile = start
            pos, length = np.asarray(rewound.draw_pos), np.asarray(rewound.draw_len)
            same = (np.asarray(rewound.card_loc) == loc).all(axis=1) & (np.asarray(rewound.card_owner) == owner).all(axis=1)
            same &= np.array([np.array_equal(np.asarray(rewound.draw_cards)[i, pos[i]:length[i]], pile)
                              for i in range(256)])
            assert same.any()
            seen["found"] += 1

    planner_games(5, 2, 41, visit, steps=1500)
    assert seen["checked"] >= 30 and seen["after_reshuffle"] >= 3 and seen["found"] >= 3, seen


def test_gap_reading_repeats_with_its_seed_and_the_search_agent_reads_the_play():
    readings = []

    def visit(core, recorder, g, obs, start):
        if len(readings) >= 4:
            return
        spec = registry.game_spec("gap_v0", 3)
        model = agents.make("planner", game="gap_v0", num_players=3)
        readings.append(read_twice(spec, recorder.log(g, 0), obs, 16, len(readings), model, slack=0.4))

    planner_games(3, 2, 51, visit, steps=400)
    assert len(readings) == 4 and any(r.effective_size < 15.9 for r in readings)

    from training.tournament import play_tournament

    search = agents.make("ismcts", game="gap_v0", num_players=3, belief="play", playouts=2, particles=8,
                         screen=0, seed=0, rules={"max_turns": 40})
    play_tournament([search, agents.make("planner", game="gap_v0", num_players=3)], num_players=3, games=1, seed=8,
                    env="gap_v0", max_turns=40)
    assert search.readings > 0
