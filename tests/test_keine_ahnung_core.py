"""The compiled core against the pure-Python reference, invariants, hidden information, seeding and bad input."""

import copy

import numpy as np
import pytest

from agents.base import sample_masked
from keine_ahnung_env import keine_ahnung_v0
from keine_ahnung_env.games.keine_ahnung import KeineAhnungCore, ReferenceGame, Rules
from keine_ahnung_env.games.keine_ahnung.actions import NUM_ACTIONS, Phase
from keine_ahnung_env import rng as game_rng
from keine_ahnung_env.games.keine_ahnung.core import LOC_DRAW, LOC_LAYOUT, LOC_PENDING, LOC_PILE
from keine_ahnung_env.games.keine_ahnung.deck import DeckSpec, default_deck
from keine_ahnung_env.rng import GameRandom

# (rules, number of games): 1,100 random games in all, compared after every step.
CONFIGS = [
    (dict(num_players=2), 200),
    (dict(num_players=3), 200),
    (dict(num_players=4), 200),
    (dict(num_players=5), 200),
    (dict(num_players=4, allow_keep=True, memory="none", reward="rank"), 100),
    (dict(num_players=3, reshuffle_discards=False, reward="score", max_turns=150), 200),
]


@pytest.mark.parametrize("config, games", CONFIGS, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items())
                         if isinstance(c, dict) else str(c))
def test_core_matches_reference_step_by_step(config, games):
    config = dict(config)
    num_players = config.pop("num_players")
    rules = Rules.make(num_players, **config)
    seed = 100 + num_players
    core = KeineAhnungCore(games, rules, seed=seed)
    refs = [ReferenceGame(rules, GameRandom.for_game(seed, i)) for i in range(games)]
    rng = np.random.default_rng(seed)
    steps = 0
    while not core.done.all():
        live = np.flatnonzero(~core.done)
        # Every step: the decision-relevant state of every live game; every 20 steps: everything.
        for b in live if steps % 20 else range(games):
            if steps % 20:
                ref = refs[b]
                assert core.layout[b].tolist() == ref.layout, f"game {b} layout differs after {steps} steps"
                assert core.pile_top[b, : core.pile_count[b]].tolist() == [p[-1] for p in ref.piles]
                assert (int(core.current[b]), int(core.phase[b]), int(core.pending[b]), int(core.turn[b])) == \
                    (ref.current, int(ref.phase), ref.pending, ref.turn)
                assert int(core.draw_len[b] - core.draw_pos[b]) == len(ref.draw_pile)
                assert core.scores[b].tolist() == ref.scores()
            else:
                assert core.snapshot(b) == refs[b].snapshot(), f"game {b} differs after {steps} steps"
            assert np.flatnonzero(core.legal_mask[b]).tolist() == refs[b].legal_actions()
        seat = steps % num_players
        obs = core.observe(seat)
        for b in live[::7]:
            np.testing.assert_array_equal(obs[b], refs[b].observe(seat))
        actions = sample_masked(rng, core.legal_mask)
        for b in live:
            refs[b].step(int(actions[b]))
        core.step(actions)
        for b in live:
            assert core.rewards[b].tolist() == refs[b].rewards.tolist()
        steps += 1
    for b in range(games):
        assert core.snapshot(b) == refs[b].snapshot()
    assert all(ref.terminated or ref.truncated for ref in refs)


def check_invariants(core):
    """Every card in exactly one consistent place, trophies conserved, masks and observations sane."""
    t, P = core.tables, core.num_players
    B = core.num_envs
    for b in range(B):
        loc = core.card_loc[b]
        layout_cards = core.layout[b][core.layout[b] >= 0]
        assert sorted(layout_cards.tolist()) == np.flatnonzero(loc == LOC_LAYOUT).tolist()
        draw = core.draw_cards[b, core.draw_pos[b] : core.draw_len[b]]
        assert sorted(draw.tolist()) == np.flatnonzero(loc == LOC_DRAW).tolist()
        assert (loc == LOC_PENDING).sum() == (1 if core.phase[b] == Phase.PLACE_DRAWN else 0)
        tops = core.pile_top[b, : core.pile_count[b]]
        assert (tops >= 0).all() and (core.pile_top[b, core.pile_count[b] :] < 0).all()
        assert (loc[tops] == LOC_PILE).all()
        assert not t.is_prize[loc == LOC_PILE].any()
        np.testing.assert_array_equal(np.bincount(t.face[tops], minlength=36)[:36], core.top_count[b])
    assert core.card_loc.shape[1] == t.num_cards  # all cards accounted for, by construction of card_loc
    won = (core.trophy_owner >= 0).sum(axis=1)
    np.testing.assert_array_equal(won, core.trophy_pos)
    np.testing.assert_array_equal(core.trophy_count.sum(axis=1), core.trophy_pos)
    np.testing.assert_array_equal(np.sort(core.trophy_order, axis=1), np.sort(np.tile(t.trophies, (B, 1)), axis=1))
    prize_total = (core.card_loc == 4) * t.prize_value
    np.testing.assert_array_equal(prize_total.sum(axis=1), core.prize_points.sum(axis=1))
    live = core.phase != Phase.OVER
    assert core.legal_mask[live].any(axis=1).all(), "a seat to act has no legal action"
    assert not core.legal_mask[~live].any()
    high = core.obs_layout.high(t)
    for seat in range(P):
        obs = core.observe(seat)
        assert np.isfinite(obs).all() and (obs >= 0).all() and (obs <= high).all()


@pytest.mark.parametrize("num_players", [2, 3, 4, 5])
def test_invariants_hold_on_every_step_of_random_games(num_players):
    core = KeineAhnungCore(24, Rules.make(num_players), seed=num_players)
    rng = np.random.default_rng(num_players)
    finished = 0
    for _ in range(3000):
        check_invariants(core)
        if core.done.all():
            finished += 1
            core.reset_games(np.arange(core.num_envs))
            if finished == 2:
                break
        core.step(sample_masked(rng, core.legal_mask))
    assert finished == 2


# ------------------------------------------------------------------- leaks


def relabel(core, b, a, c):
    """Swaps the identities of cards a and c in game b (each takes the other's place)."""
    for arr in (core.draw_cards, core.layout, core.pile_top, core.pending[:, None]):
        view = arr[b]
        is_a, is_c = view == a, view == c
        view[is_a], view[is_c] = c, a
    for arr in (core.card_loc, core.card_where, core.card_known, core.card_epoch):
        arr[b, [a, c]] = arr[b, [c, a]]


def hidden_from(core, b, memory):
    """Card ids whose identity no seat knows (all seats share the table's public knowledge)."""
    loc = core.card_loc[b]
    if memory == "perfect":
        return np.flatnonzero((loc == LOC_DRAW) | ((loc == LOC_LAYOUT) & ~core.card_known[b]))
    tops = set(core.pile_top[b, : core.pile_count[b]].tolist()) | {int(core.pending[b])}
    return np.array([c for c in np.flatnonzero((loc == LOC_DRAW) | (loc == LOC_LAYOUT) | (loc == LOC_PILE))
                     if c not in tops])


@pytest.mark.parametrize("memory", ["perfect", "none"])
def test_changing_a_hidden_card_or_trophy_leaves_observations_unchanged(memory):
    from keine_ahnung_env.games.keine_ahnung.observation import observation_string

    core = KeineAhnungCore(16, Rules.make(4, memory=memory), seed=7)
    rng = np.random.default_rng(7)
    checked = 0
    for step in range(400):
        if step % 9 == 0:
            for b in range(core.num_envs):
                if core.phase[b] == Phase.OVER:
                    continue
                hidden = hidden_from(core, b, memory)
                if hidden.size < 2:
                    continue
                # With perfect memory a seat knows which shuffle dealt each hidden card and what every
                # earlier shuffle's hidden cards are (observation version 2): only cards of one pool
                # are interchangeable for it.
                a = int(rng.choice(hidden))
                same_pool = hidden[(core.card_epoch[b, hidden] == core.card_epoch[b, a]) & (hidden != a)] \
                    if memory == "perfect" else hidden[hidden != a]
                if same_pool.size == 0:
                    continue
                c = int(rng.choice(same_pool))
                other = copy.deepcopy(core)
                relabel(other, b, int(a), int(c))
                # opponents' trophy values and the trophy pile order are secret too
                other.trophy_order[b] = rng.permutation(other.trophy_order[b])
                for seat in range(core.num_players):
                    mine = core.trophy_owner[b] == seat
                    if not np.array_equal(np.sort(core.trophy_order[b][mine]), np.sort(other.trophy_order[b][mine])):
                        continue  # this shuffle changed the seat's own trophies: skip that seat
                    before, after = core.observe(seat)[b], other.observe(seat)[b]
                    np.testing.assert_array_equal(before, after)
                    assert observation_string(before, core.obs_layout, core.tables) == \
                        observation_string(after, other.obs_layout, other.tables)
                np.testing.assert_array_equal(core.legal_mask[b], other.legal_mask[b])
                checked += 1
        if core.done.all():
            break
        core.step(sample_masked(rng, core.legal_mask))
    assert checked > 100


def test_observation_shows_known_cards_with_perfect_memory_only():
    from keine_ahnung_env.games.keine_ahnung.positions import load_named

    for memory, expect_known in (("perfect", 1.0), ("none", 0.0)):
        core = KeineAhnungCore(1, Rules.make(2, memory=memory), seed=0)
        load_named(core, layouts=[["grey 1", "grey 2"], ["blue 4"]], piles=[["red 5"]], start_turn=False)
        core.step(np.array([0]))  # grey 1 fits nothing: back face down, known
        layout = core.obs_layout
        for seat, rel in ((0, 1), (1, 0)):  # seat 1 observes: seat 0 is relative seat 1
            slots = core.observe(1)[0, layout.slice("layouts")].reshape(2, 6, -1)
            assert slots[1, 0, 2] == expect_known


@pytest.mark.parametrize("memory", ["perfect", "none"])
def test_the_encoder_writes_every_entry_of_a_row(memory):
    """The observe kernel writes the layouts and per-type sections without zeroing them first: whatever
    the output array held before, every row comes out the same."""
    core = KeineAhnungCore(32, Rules.make(4, memory=memory), seed=5)
    rng = np.random.default_rng(5)
    games = np.arange(32)
    for step in range(300):
        core.step(sample_masked(rng, core.legal_mask))
        if step % 50 == 49:
            seats = np.asarray(core.current, np.intp) % 4
            rows = []
            for fill in (np.nan, 7.0):
                out = np.full((32, core.observation_size), fill, np.float32)
                core._observe(games, seats, out)
                rows.append(out)
            np.testing.assert_array_equal(rows[0], rows[1])
            np.testing.assert_array_equal(rows[0], core.observe(seats))


# ----------------------------------------------------------------- seeding


def test_compiled_and_python_generators_give_the_same_stream():
    """rng.py's two forms (the kernels' and the reference's) are one generator, bit for bit."""
    states = game_rng.game_rng_states(123, [0, 7, 10**6])
    python = [GameRandom(row.tolist()) for row in states]
    for b, gen in enumerate(python):
        assert [int(game_rng.next64(states, b)) for _ in range(50)] == [gen.next64() for _ in range(50)]
        for n in (1, 2, 3, 7, 108, 2**31 + 5):
            assert [game_rng.bounded(states, b, n) for _ in range(20)] == [gen.bounded(n) for _ in range(20)]
        for n in (0, 1, 2, 12, 108):
            values = np.arange(n, dtype=np.int16)
            game_rng.shuffle(states, b, values, n)
            assert values.tolist() == gen.permutation(n)
        assert states[b].tolist() == gen.state
    # xoshiro256** from the state (1, 2, 3, 4): the reference implementation's first outputs.
    gen = GameRandom([1, 2, 3, 4])
    assert [gen.next64() for _ in range(3)] == [11520, 0, 1509978240]
    # bounded() is uniform: each of 6 values about 1/6 of 60,000 draws.
    gen = GameRandom.for_game(0, 0)
    counts = np.bincount([gen.bounded(6) for _ in range(60000)], minlength=6)
    assert (np.abs(counts - 10000) < 400).all(), counts


def test_game_streams_depend_on_seed_and_game_id_only():
    a = game_rng.game_rng_states(5, range(6))
    np.testing.assert_array_equal(game_rng.game_rng_states(5, [3, 1]), a[[3, 1]])
    assert len({tuple(row) for row in a.tolist()}) == 6
    assert not np.array_equal(game_rng.game_rng_states(6, range(6)), a)
    core = KeineAhnungCore(4, Rules.make(3), seed=5)
    np.testing.assert_array_equal(core.rng_state.shape, (4, 4))
    core.seed(9, indices=[2], game_ids=[40])
    np.testing.assert_array_equal(core.rng_state[2], game_rng.game_rng_states(9, [40])[0])


def first_legal(mask):
    return mask.argmax(axis=1)


def test_game_i_is_the_same_whatever_the_batch_size_and_autoreset():
    big = keine_ahnung_v0.vector_env(6, num_players=3, seed=42, autoreset=True)
    small = keine_ahnung_v0.vector_env(2, num_players=3, seed=42, autoreset=False)
    rb, rs = big.reset(), small.reset()
    for _ in range(400):
        if small.core.done.all():
            break
        for b in range(2):
            if not small.core.done[b]:
                assert big.core.snapshot(b) == small.core.snapshot(b)
        rb, rs = big.step(first_legal(rb.action_mask)), small.step(first_legal(rs.action_mask))
    assert small.core.done.any()


def test_same_seed_same_games_and_reseeding_reset():
    a = keine_ahnung_v0.vector_env(4, seed=5)
    b = keine_ahnung_v0.vector_env(4, seed=5)
    c = keine_ahnung_v0.vector_env(4, seed=6)
    ra, rb = a.reset(), b.reset()
    assert all(a.core.snapshot(i) == b.core.snapshot(i) for i in range(4))
    c.reset()
    assert any(a.core.snapshot(i) != c.core.snapshot(i) for i in range(4))
    c.reset(seed=5)
    assert all(a.core.snapshot(i) == c.core.snapshot(i) for i in range(4))


def test_autoreset_reports_final_scores_and_starts_new_games():
    env = keine_ahnung_v0.vector_env(8, num_players=2, seed=1)
    result = env.reset()
    rng = np.random.default_rng(1)
    ended = 0
    for _ in range(3000):
        result = env.step(sample_masked(rng, result.action_mask))
        for b in result.final_index:
            ended += 1
            assert result.terminated[b] or result.truncated[b]
            assert result.scores[b].sum() > 0
            assert result.final_observation.shape[1:] == (2, env.observation_size)
            np.testing.assert_allclose(result.rewards[b].sum(), 0.0, atol=1e-6)
        assert result.action_mask.any(axis=1).all()  # every slot holds a live game
        if ended >= 8:
            break
    assert ended >= 8
    assert result.observation.shape == (8, env.observation_size)


# --------------------------------------------------------------- bad input


def test_bad_actions_raise_clear_errors_and_change_nothing():
    env = keine_ahnung_v0.vector_env(3, seed=0)
    result = env.reset()
    before = [env.core.snapshot(b) for b in range(3)]
    with pytest.raises(ValueError, match="shape"):
        env.step(np.zeros(4, int))
    with pytest.raises(ValueError, match="integers"):
        env.step(np.zeros(3, float))
    with pytest.raises(ValueError, match="out of range"):
        env.step(np.array([0, 0, NUM_ACTIONS]))
    illegal = np.array([a for a in range(NUM_ACTIONS) if not result.action_mask[1, a]][0])
    with pytest.raises(ValueError, match=r"illegal action .* legal there"):
        env.step(np.array([first_legal(result.action_mask)[0], illegal, first_legal(result.action_mask)[2]]))
    assert [env.core.snapshot(b) for b in range(3)] == before


def test_stepping_after_every_game_ended_is_an_error():
    env = keine_ahnung_v0.vector_env(1, num_players=2, seed=0, autoreset=False, max_turns=3)
    result = env.reset()
    while not (result.terminated | result.truncated).all():
        result = env.step(first_legal(result.action_mask))
    with pytest.raises(ValueError, match="every game is over"):
        env.step(np.zeros(1, int))


@pytest.mark.parametrize("options, message", [
    (dict(num_players=6), "num_players"),
    (dict(num_players=1), "num_players"),
    (dict(memory="partial"), "memory"),
    (dict(reward="points"), "reward"),
    (dict(max_turns=0), "max_turns"),
    (dict(allow_keep="yes"), "allow_keep"),
    (dict(colour_blind=True), "unknown rules option"),
    (dict(deck={"number_cards": [("pink", 1, "none")] * 40}), "colour"),
    (dict(deck={"number_cards": [("red", 7, "none")] * 40}), "number"),
    (dict(deck={"number_cards": [("red", 1, "teleport")] * 40}), "function"),
    (dict(deck={"number_cards": [("red", 1, "none")] * 10}), "cannot deal"),
    (dict(deck={"number_cards": [("red", 1, "none")] * 40, "trophies": []}), "trophies"),
    (dict(deck={"cards": []}), "unknown keys"),
])
def test_bad_options_raise_clear_errors(options, message):
    with pytest.raises(ValueError, match=message):
        keine_ahnung_v0.vector_env(2, **options)


def test_bad_num_envs_and_seed():
    with pytest.raises(ValueError, match="num_envs"):
        keine_ahnung_v0.vector_env(0)
    with pytest.raises(ValueError, match="seed"):
        keine_ahnung_v0.vector_env(2, seed=-1)


def test_default_deck_matches_the_rulebook_components():
    deck = default_deck()
    assert len(deck.number_cards) == 102 and sorted(deck.prizes) == [0, 1, 1, 1, 1, 2]
    assert sorted(deck.trophies) == [3] * 5 + [4] * 4 + [5] * 3
    special = {(c, n): f for c, n, f in deck.number_cards if f != "none"}
    assert special[("red", 5)] == "reveal" and special[("blue", 3)] == "remove" and special[("yellow", 4)] == "refill"
    assert len(special) == 18
    for colour in ("blue", "grey", "green", "yellow", "red", "purple"):
        assert sorted(f for (c, _), f in special.items() if c == colour) == ["refill", "remove", "reveal"]
        counts = [sum(1 for c, n, _ in deck.number_cards if c == colour and n == k) for k in range(1, 7)]
        assert counts == [3, 3, 3, 3, 3, 2]


def test_a_custom_deck_plays():
    cards = [(c, n, "reveal" if n == 1 else "none") for c in ("red", "blue") for n in range(1, 7) for _ in range(3)]
    env = keine_ahnung_v0.vector_env(4, num_players=2, seed=0, deck=DeckSpec(number_cards=cards, prizes=(1,), trophies=(3, 4)))
    result = env.reset()
    rng = np.random.default_rng(0)
    for _ in range(500):
        result = env.step(sample_masked(rng, result.action_mask))
    assert env.observation_size == result.observation.shape[1]
