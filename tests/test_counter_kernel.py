"""``counter`` compiled (``counter_kernel.py``) against its NumPy reference (``CounterAgent(compiled=False)``).

Observations and masks come from real play (2-5 players, both memory modes, ``allow_keep``, a small
deck, every phase, finished games too). Three checks:

* with the same tie-break numbers (the reference's ``_pick`` noise handed the kernel's keys), the
  kernel chooses the reference's action on every row;
* with the agent's own generator, the kernel's action is the reference's where the reference's best
  score is unique, and one of the reference's tied actions elsewhere (the tie set is found by giving
  each column in turn the top key);
* the agents' bad-input errors are the reference's, word for word.
"""

from __future__ import annotations

import numpy as np
import pytest

from keine_ahnung_env.games.keine_ahnung import KeineAhnungCore, Rules
from keine_ahnung_env.games.keine_ahnung.actions import ACTION_PLACE_BASE, NUM_ACTIONS, Phase
from keine_ahnung_env.games.keine_ahnung.agents import CounterAgent
from keine_ahnung_env.games.keine_ahnung.ceiling import PrivilegedCounterAgent
from keine_ahnung_env.games.keine_ahnung.deck import DeckSpec
from keine_ahnung_env.games.keine_ahnung.observation import ObservationLayout
from keine_ahnung_env.games.keine_ahnung.odds import decode

SMALL_DECK = DeckSpec(number_cards=[(c, n, "remove" if n == 2 else "refill" if n == 3 else "none")
                                    for c in ("red", "blue", "green") for n in range(1, 7) for _ in range(2)],
                      prizes=(1, 0, 2), trophies=(3, 4))

VARIANTS = [
    (2, {}), (3, {"memory": "none"}), (4, {}), (4, {"memory": "none", "allow_keep": True}), (5, {}),
    (3, {"allow_keep": True}), (2, {"deck": SMALL_DECK}), (5, {"memory": "none"}),
]

TUNED = dict(call_threshold=(0.3, 0.6, 0.9), endgame_threshold=0.2, endgame_trophies=4, known_weight=2.5,
             harm_weight=0.5, refill_attack=False)


class _Keys:
    """A stand-in generator: ``random((B, n))`` gives the first n columns of fixed keys (what the
    reference's ``_pick`` adds as tie noise, and what ``act`` of the kernel path draws); anything
    else (the reference's random fallback) comes from a real generator."""

    def __init__(self, keys: np.ndarray):
        self.keys = keys
        self.other = np.random.default_rng(0)

    def random(self, shape):
        if isinstance(shape, tuple) and len(shape) == 2 and shape[0] == self.keys.shape[0]:
            return self.keys[:, :shape[1]].copy()
        return self.other.random(shape)


def _collect(num_players: int, options: dict, seed: int, games: int = 32, steps: int = 150, agent=CounterAgent):
    """Observations of the seat to act (and, now and then, of another seat) with their masks, from games
    played by ``agent`` (a class; default ``counter``) with a share of random moves (so that positions
    vary)."""
    rules = Rules.make(num_players, **options)
    core = KeineAhnungCore(games, rules, seed=seed)
    player = agent(seed=seed, deck=options.get("deck"))
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
        live = ~core.done
        if not live.any():
            break
        core.step(actions, active=live)
        if step % 75 == 74:
            core.reset_games(np.flatnonzero(core.done))
    for _ in range(1000):  # finished games too (phase OVER, nothing legal)
        if core.done.all():
            break
        core.step(player.act(core.observe(core.current), core.legal_mask), active=~core.done)
    obs.append(core.observe(core.current))
    masks.append(core.legal_mask.copy())
    return np.concatenate(obs), np.concatenate(masks)


@pytest.fixture(scope="module")
def positions():
    return [(P, options, *_collect(P, options, seed=11 + i)) for i, (P, options) in enumerate(VARIANTS)]


def _decided(obs, mask, tables):
    """Rows where the reference decides (MAIN with a reveal/call, a pile choice) by kind."""
    view = decode(obs, tables)
    main = (view.phase == Phase.MAIN) & mask[:, :ACTION_PLACE_BASE].any(1)
    place = ((view.phase == Phase.PLACE_DRAWN) | (view.phase == Phase.PLACE_REVEALED)) & mask[:, ACTION_PLACE_BASE:].any(1)
    return main, place


def _reference(agent: CounterAgent, obs, mask, keys):
    """The reference's actions with ``keys`` as its tie-break noise (main and place rows apart, so
    that every ``_pick`` of a call sees all its rows); -1 on rows it does not decide."""
    out = np.full(obs.shape[0], -1, np.int64)
    for rows in _decided(obs, mask, agent.tables):
        if rows.any():
            agent.rng = _Keys(keys[rows])
            out[rows] = agent.act(obs[rows], mask[rows])
    return out


def check_kernel_equals_reference(kernel, reference, obs, mask, rng, label):
    """Both agents decide ``obs``/``mask`` with the same tie-break keys (from ``rng``): the kernel
    chooses the reference's action on every row the reference decides, and elsewhere a legal action
    (0 where none is legal). Returns the kernel's actions, the keys and the decided rows."""
    keys = rng.random((obs.shape[0], NUM_ACTIONS))
    expected = _reference(reference, obs, mask, keys)
    kernel.rng = _Keys(keys)
    got = kernel.act(obs, mask)
    decided = expected >= 0
    bad = np.flatnonzero(decided & (got != expected))
    assert bad.size == 0, (label, bad[:5], got[bad[:5]], expected[bad[:5]])
    legal_any = mask.any(1)
    rows = np.flatnonzero(~decided)
    assert (got[rows][~legal_any[rows]] == 0).all()
    assert mask[rows[legal_any[rows]], got[rows][legal_any[rows]]].all()
    return got, keys, decided


def reference_tie_sets(reference, obs, mask, rng):
    """[B, 44] bool: the actions the reference ties for best on each row it decides. Each column in turn
    gets the top tie-break key (the others low keys from ``rng``): the action the reference then picks is
    that column exactly when the column ties for the best score."""
    base = rng.random((obs.shape[0], NUM_ACTIONS)) * 0.5
    tie_sets = np.zeros((obs.shape[0], NUM_ACTIONS), bool)
    for c in range(36):  # a pick reads keys[:, :6] (slots) or keys[:, :36] (piles)
        keys = base.copy()
        keys[:, c] = 1.0
        chosen = _reference(reference, obs, mask, keys)
        rows = np.flatnonzero(chosen >= 0)
        tie_sets[rows, chosen[rows]] = True
    return tie_sets


def test_positions_cover_every_phase_and_table(positions):
    for P, options, obs, mask in positions:
        main, place = _decided(obs, mask, Rules.make(P, **options).tables())
        view = decode(obs, Rules.make(P, **options).tables())
        assert view.num_players == P
        assert main.sum() > 300 and place.sum() > 50, (P, options)
        assert (view.phase == Phase.PLACE_DRAWN).any() and (view.phase == Phase.PLACE_REVEALED).any()
        assert (view.phase[-32:] == Phase.OVER).all() and not mask[-32:].any()
    total = sum(obs.shape[0] for _, _, obs, _ in positions)
    assert total > 20000


@pytest.mark.parametrize("params", [{}, TUNED], ids=["defaults", "tuned"])
def test_kernel_equals_reference_given_the_same_tie_break_keys(positions, params):
    for P, options, obs, mask in positions:
        deck = options.get("deck")
        kernel = CounterAgent(deck=deck, **params)
        reference = CounterAgent(deck=deck, compiled=False, **params)
        assert kernel.compiled and not reference.compiled
        got, keys, _ = check_kernel_equals_reference(kernel, reference, obs, mask, np.random.default_rng(P),
                                                     (P, options))
        # Small batches run a serial loop, large ones the parallel kernel: the same actions.
        kernel.rng = _Keys(keys[:100])
        assert (kernel.act(obs[:100], mask[:100]) == got[:100]).all()


def test_kernel_with_its_own_generator_is_the_reference_or_one_of_its_ties(positions):
    ties_seen = unique_seen = 0
    for P, options, obs, mask in (positions[0], positions[3], positions[4]):
        obs, mask = obs[::12], mask[::12]
        deck = options.get("deck")
        reference = CounterAgent(deck=deck, compiled=False)
        tie_sets = reference_tie_sets(reference, obs, mask, np.random.default_rng(P))
        decided = tie_sets.any(1)
        unique = tie_sets.sum(1) == 1
        got = CounterAgent(seed=P, deck=deck).act(obs, mask)
        assert tie_sets[np.flatnonzero(decided), got[decided]].all(), P
        ties_seen += int((decided & ~unique).sum())
        unique_seen += int(unique.sum())
        # Where the best is unique the seeds do not matter.
        again = CounterAgent(seed=P + 100, deck=deck).act(obs, mask)
        assert (again[unique] == got[unique]).all()
    assert ties_seen > 300 and unique_seen > 300


def test_version_1_observations_decode_the_same(positions):
    P, options, obs, mask = positions[2]
    layout = ObservationLayout.make(P, Rules.make(P).tables().num_types, version=1)
    old = obs[:600, :layout.size]
    keys = np.random.default_rng(3).random((old.shape[0], NUM_ACTIONS))
    expected = _reference(CounterAgent(compiled=False), old, mask[:600], keys)
    kernel = CounterAgent()
    kernel.rng = _Keys(keys)
    got = kernel.act(old, mask[:600])
    assert ((got == expected) | (expected < 0)).all()


def test_bad_inputs_get_the_reference_errors(positions):
    obs4 = positions[2][2][:2]
    mask = np.ones((2, NUM_ACTIONS), bool)
    cases = [
        (dict(), (obs4[0], mask)),                                  # not 2-D
        (dict(), (obs4, mask[:1])),                                 # rows differ
        (dict(), (obs4, np.ones((2, 5), bool))),                    # mask width
        (dict(), (np.zeros((2, 99), np.float32), mask)),            # width no layout has
        (dict(num_players=3), (obs4, mask)),                        # another table size
    ]
    for kwargs, args in cases:
        messages = []
        for compiled in (True, False):
            with pytest.raises(ValueError) as err:
                CounterAgent(seed=0, compiled=compiled, **kwargs).act(*args)
            messages.append(str(err.value))
        assert messages[0] == messages[1], messages
    with pytest.raises(ValueError, match="compiled='yes'; allowed: True"):
        CounterAgent(compiled="yes")
    assert CounterAgent().act(np.zeros((0, obs4.shape[1])), np.zeros((0, NUM_ACTIONS), bool)).shape == (0,)


def test_subclasses_that_change_a_rule_keep_the_python_path():
    assert CounterAgent().compiled
    assert not PrivilegedCounterAgent().compiled
    assert not CounterAgent(compiled=False).compiled


def _state_of(core) -> dict:
    return core.state_arrays(np.arange(core.num_envs))


@pytest.mark.parametrize("num_players, options, games, rounds", [
    (4, {}, 40, 40), (3, {"memory": "none", "allow_keep": True}, 300, 8), (2, {"deck": SMALL_DECK}, 24, 40)])
def test_play_turns_makes_the_decisions_of_act(num_players, options, games, rounds):
    """``play_turns`` (the core driven from the kernel, used by solo/SB3 envs) against ``act`` round by
    round on a twin core, with the same tie-break keys (one xoshiro stream per listed game): the same
    games, step for step. The 300-game case runs the parallel kernel."""
    check_play_turns_against_act(CounterAgent, num_players, options, games, rounds)


def check_play_turns_against_act(make_agent, num_players, options, games, rounds):
    """The body of the test above for any agent with ``play_turns`` (``make_agent(seed=, deck=)``)."""
    deck = options.get("deck")
    fast = make_agent(seed=9, deck=deck)
    seat_agent = np.zeros((games, num_players), np.int64)
    seat_agent[:, 0] = -1  # the agent holds every seat but 0; a random player takes seat 0
    turns, ended, _ = _play_against_act(
        Rules.make(num_players, **options), games, rounds, [fast], [make_agent(seed=None, deck=deck)], seat_agent,
        lambda core, listed, rows: fast.play_turns(core, listed, rows >= 0), seed=5, rng=np.random.default_rng(1))
    assert turns > 4 * rounds * games // 10 and (ended > 0 or rounds < 40)


def _play_against_act(rules, games, rounds, fast, slow, seat_agent, play, seed, rng):
    """Plays ``rounds`` rounds of ``games`` games twice: in one core ``play(core, listed, seat_agent rows)``
    plays the seats of agents ``fast`` (``seat_agent[b, seat]``: an index into them; -1: seat 0's random
    player); in a twin core each of those decisions is asked of the matching agent of ``slow`` through
    ``act``, with the keys the kernel draws (each agent's own stream per listed game, drawn from
    ``fast[a]``'s generator, agents in order). Asserts the same state and rewards after every round;
    returns ``(decisions played, games ended, decisions per agent)``."""
    from keine_ahnung_env.rng import GameRandom, stream_states

    core = KeineAhnungCore(games, rules, seed=seed)
    twin = KeineAhnungCore(games, rules, seed=seed)
    turns = ended = 0
    by_agent = np.zeros(len(fast), np.int64)
    for _ in range(rounds):
        live = ~core.done
        listed = np.flatnonzero(live & (seat_agent[np.arange(games), core.current] >= 0))
        randoms = []
        for agent in fast:
            copy = np.random.Generator(np.random.PCG64())
            copy.bit_generator.state = agent.rng.bit_generator.state
            randoms.append([GameRandom([int(x) for x in row]) for row in stream_states(copy, listed.size)])
        assert play(core, listed, seat_agent[listed])
        last = np.zeros_like(twin.rewards)
        while True:
            to_play = [i for i, b in enumerate(listed) if not twin.done[b] and seat_agent[b, twin.current[b]] >= 0]
            if not to_play:
                break
            actions = np.zeros(games, np.int64)
            for a, agent in enumerate(slow):
                mine = [i for i in to_play if seat_agent[listed[i], twin.current[listed[i]]] == a]
                if not mine:
                    continue
                rows = listed[mine]
                agent.rng = _Keys(np.array([[(randoms[a][i].next64() >> 11) * 2.0 ** -53 for _ in range(NUM_ACTIONS)]
                                            for i in mine]))
                actions[rows] = agent.act(twin.observe(twin.current[rows], games=rows), twin.legal_mask[rows])
                by_agent[a] += len(mine)
            rows = listed[to_play]
            active = np.zeros(games, bool)
            active[rows] = True
            twin.step(actions, active=active)
            last[rows] = twin.rewards[rows]
            turns += rows.size
        for name, value in _state_of(core).items():
            if name != "rewards":
                assert np.array_equal(value, _state_of(twin)[name]), name
        assert np.array_equal(core.rewards[listed], last[listed])  # each game's last step's
        ended += int(core.done[listed].sum())
        # Seat 0 (and finished games) move on at random in both.
        live = ~core.done
        step = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in core.legal_mask])
        mine = live & (core.current == 0)
        core.step(step, active=mine)
        twin.step(step, active=mine)
        done = np.flatnonzero(core.done)
        core.reset_games(done)
        twin.reset_games(done)
    return turns, ended, by_agent


@pytest.mark.parametrize("num_players, games, rounds", [(4, 40, 30), (3, 200, 6)])
def test_play_lineup_plays_every_seat_by_its_own_agents_rules(num_players, games, rounds):
    """``play_lineup`` (one call for a line-up of compiled agents, what the solo and SB3 envs run for a
    pool of heuristics) against each seat's own agent's ``act`` on a twin core, with each agent's keys
    from its own stream per game, the streams drawn from the agents' generators in the order given: the
    same games, step for step. The 200-game case runs the parallel kernel."""
    from keine_ahnung_env.games.keine_ahnung.agents import GreedyAgent, RiskCallerAgent, TunedCounterAgent, play_lineup

    makers = [lambda seed: CounterAgent(seed=seed), lambda seed: GreedyAgent(seed=seed),
              lambda seed: RiskCallerAgent(0.5, seed=seed), lambda seed: TunedCounterAgent(seed=seed)]
    fast = [make(seed) for seed, make in enumerate(makers, start=20)]
    rng = np.random.default_rng(2)
    seat_agent = rng.integers(0, len(makers), size=(games, num_players))
    seat_agent[:, 0] = -1  # a random player takes seat 0
    turns, _, by_agent = _play_against_act(
        Rules.make(num_players), games, rounds, fast, [make(None) for make in makers], seat_agent,
        lambda core, listed, rows: play_lineup(core, listed, fast, rows), seed=6, rng=rng)
    assert (by_agent > games).all() and turns > rounds * games  # every agent played, several seats a round
    core = KeineAhnungCore(2, Rules.make(num_players), seed=0)
    with pytest.raises(ValueError, match="seat_agent holds -1 .* or an index into the 4 agents"):
        play_lineup(core, [0], fast, np.full((1, num_players), 4))
    with pytest.raises(ValueError, match=rf"seat_agent must be integers of shape \(1, {num_players}\)"):
        play_lineup(core, [0], fast, np.zeros((1, num_players + 1), np.int64))
    assert not play_lineup(core, [0], fast + [CounterAgent(compiled=False)], np.zeros((1, num_players), np.int64))


def test_learner_games_play_a_mixed_lineup_of_compiled_agents_in_one_call_per_step():
    """``counter``, ``greedy`` and ``risk_caller`` seated together (the training pool's mix) share
    ``play_together``: each learner step plays all their seats in one call, with all three agents."""
    from keine_ahnung_env import registry
    from keine_ahnung_env.games.keine_ahnung.agents import GreedyAgent, RiskCallerAgent, play_lineup
    from keine_ahnung_env.sampling import sample_masked
    from keine_ahnung_env.solo import LearnerGames

    calls = []

    def recording(core, games, agents, seat_agent):
        calls.append(sorted(type(a).__name__ for a in agents))
        return play_lineup(core, games, agents, seat_agent)

    classes = [type("RecordingCounter", (CounterAgent,), {"play_together": staticmethod(recording)}),
               type("RecordingGreedy", (GreedyAgent,), {"play_together": staticmethod(recording)}),
               type("RecordingRiskCaller", (RiskCallerAgent,), {"play_together": staticmethod(recording)})]
    lineup = [classes[0](seed=1), classes[1](seed=2), classes[2](0.5, seed=3)]
    spec = registry.game_spec("keine_ahnung_v0", 4)
    games = LearnerGames(spec, 32, lineup, seed=4)
    games.deal(np.arange(32))
    rng = np.random.default_rng(1)
    for _ in range(40):
        calls.clear()
        _, terminated, truncated, _ = games.learner_step(sample_masked(rng, games.core.legal_mask))
        assert len(calls) == 1 and calls[0] == ["RecordingCounter", "RecordingGreedy", "RecordingRiskCaller"]
        games.deal(np.flatnonzero(terminated | truncated))


def test_play_turns_refuses_what_it_cannot_play():
    core = KeineAhnungCore(4, Rules.make(3), seed=0)
    holds = np.ones((2, 3), bool)
    assert not CounterAgent(compiled=False).play_turns(core, [0, 1], holds)
    assert not CounterAgent(deck=SMALL_DECK).play_turns(core, [0, 1], holds)
    before = core.state_arrays([0, 1])["turn"]
    with pytest.raises(ValueError, match=r"holds must have shape \(2, 3\)"):
        CounterAgent().play_turns(core, [0, 1], np.ones((2, 4), bool))
    with pytest.raises(ValueError, match="games must be distinct indices in 0..3"):
        CounterAgent().play_turns(core, [0, 0], holds)
    with pytest.raises(ValueError, match="games must be distinct indices in 0..3"):
        CounterAgent().play_turns(core, [0, 7], holds)
    assert np.array_equal(core.state_arrays([0, 1])["turn"], before)


def test_learner_games_collect_the_rewards_of_games_that_end_in_an_opponents_turn():
    """``LearnerGames.play_opponents`` lets the ``counter``s play whole turns together
    (``play_together``): a game that ends during them still pays the learner its final reward ("win":
    winners share +1, the others share -1, so never 0), the core's final reward of the learner's seat."""
    from keine_ahnung_env import registry
    from keine_ahnung_env.games.keine_ahnung.agents import play_lineup
    from keine_ahnung_env.sampling import sample_masked
    from keine_ahnung_env.solo import LearnerGames

    ended_in_turns = set()

    def recording(core, games, agents, seat_agent):
        before = core.done[games].copy()
        played = play_lineup(core, games, agents, seat_agent)
        ended_in_turns.update(np.asarray(games)[core.done[games] & ~before].tolist())
        return played

    class Recording(CounterAgent):
        play_together = staticmethod(recording)

    spec = registry.game_spec("keine_ahnung_v0", 3)
    games = LearnerGames(spec, 24, [Recording(seed=j) for j in range(2)], seed=3)
    assert all(agent.compiled for agent in games.agents if agent is not None)
    games.deal(np.arange(24))
    rng = np.random.default_rng(0)
    checked = 0
    for _ in range(400):
        ended_in_turns.clear()
        core = games.core
        rewards, terminated, truncated, _ = games.learner_step(sample_masked(rng, core.legal_mask))
        for b in np.flatnonzero(terminated & ~truncated):
            assert rewards[b] == core.rewards[b, games.learner_seat[b]] != 0
            checked += b in ended_in_turns
        games.deal(np.flatnonzero(terminated | truncated))
    assert checked >= 10
