"""dnp's rules, scripted (issue 16): the deck reconstruction and its validation, the rulebook's examples
played on exact positions (piles, hands, orientations, scores and masks asserted), the round and game
end, and the two-player variant."""

from __future__ import annotations

from collections import Counter

import numpy as np
import pytest

from keine_ahnung_env import registry
from keine_ahnung_env.games.dnp.config import Rules
from keine_ahnung_env.games.dnp.core import DnpCore
from keine_ahnung_env.games.dnp.deck import DEFAULT_CARDS, GROUPS_BY_PLAYERS, SYMBOLS, DeckSpec


# The scripted positions name cards by their index among the cards in play at that player count (3
# players: 0-7 the no-symbol group 1/5*, 2/5, 2/7, 2/9, 3/4, 3/6, 4/10, 7/8; 8-15 the smiling group 1/3,
# 1/8, 2/4, 5/8, 6/9, 6/10, 7/9, 7/10; 16-23 the grimacing group 1/4, 1/7, 2/10, 3/5, 3/9, 4/6, 5/10,
# 6/8); the engine's card ids are the whole deck's, translated by ``g`` and ``local``.


def make(players: int, **rules) -> DnpCore:
    return DnpCore(1, Rules.make(players, **rules), seed=0)


def g(core: DnpCore, cards):
    """Deck ids of the cards with these indices among the cards in play (an int or a list)."""
    ids = np.flatnonzero(core.tables.in_play)
    return int(ids[cards]) if np.ndim(cards) == 0 else ids[list(cards)].tolist()


def local(core: DnpCore, card: int) -> int:
    return int(np.flatnonzero(core.tables.in_play).tolist().index(card))


def load(core: DnpCore, **kw) -> None:
    for key in ("rotated", "public", "discard"):
        if key in kw:
            kw[key] = g(core, kw[key])
    kw["hands"] = [g(core, h) for h in kw["hands"]]
    if "table" in kw:
        kw["table"] = [g(core, t) for t in kw["table"]]
    core.load(0, **kw)


def hand(core: DnpCore, seat: int) -> list[int]:
    return [local(core, c) for c in core.hand(0, seat)]


def act(core: DnpCore, *names: str) -> None:
    """Plays the named actions in game 0, each of which must be legal (SELECT_<index in play>)."""
    all_names = core.actions.names()
    for name in names:
        if name.startswith("SELECT_"):
            name = f"SELECT_{g(core, int(name[7:]))}"
        a = all_names.index(name)
        assert core.legal_mask[0, a], f"{name} is not legal; legal: {legal(core)}"
        core.step(np.array([a]))


def legal(core: DnpCore) -> list[str]:
    names = [core.actions.names()[a] for a in np.flatnonzero(core.legal_mask[0])]
    return [f"SELECT_{local(core, int(n[7:]))}" if n.startswith("SELECT_") else n for n in names]


def actives(core: DnpCore, cards) -> list[int]:
    return [int(core.active_values(0)[c]) for c in g(core, cards)]


# ================================================================== the deck


def test_deck_reconstruction_has_every_stated_property():
    cards = DEFAULT_CARDS
    assert len(cards) == 40 and len({(c.upright, c.rotated) for c in cards}) == 40
    assert all(c.upright != c.rotated and 1 <= min(c.upright, c.rotated) and max(c.upright, c.rotated) <= 10
               for c in cards)
    halves = Counter([c.upright for c in cards] + [c.rotated for c in cards])
    assert halves == {v: 8 for v in range(1, 11)}
    assert Counter(c.symbol for c in cards) == {s: 8 for s in SYMBOLS}
    shown = {(1, 5), (2, 5), (2, 7), (2, 9), (3, 4), (3, 6)}
    assert shown <= {(c.upright, c.rotated) for c in cards}
    star = [c for c in cards if c.star]
    assert len(star) == 1 and (star[0].upright, star[0].rotated) == (1, 5)
    assert all(star[0].symbol in groups for groups in GROUPS_BY_PLAYERS.values())
    for players, groups in GROUPS_BY_PLAYERS.items():
        deck = DeckSpec().for_players(players)
        assert len(deck) == 8 * players
        counts = Counter([c.upright for c in deck] + [c.rotated for c in deck])
        mean = 2 * len(deck) / 10
        assert all(abs(counts[v] - mean) < 1 for v in range(1, 11)), (players, counts)
    assert set(GROUPS_BY_PLAYERS[4]) == set(SYMBOLS) - {"frown"}
    assert set(GROUPS_BY_PLAYERS[3]) == set(SYMBOLS) - {"frown", "neutral"}
    assert set(GROUPS_BY_PLAYERS[2]) == {"none", "neutral"}


def test_deck_option_takes_another_card_list_and_validates_it():
    small = [(1, 2, "none", True), (3, 4, "none"), {"upright": 5, "rotated": 6, "symbol": "none"}, (7, 8, "neutral")]
    spec = registry.game_spec("dnp_v0", 2, deck=small)
    assert spec.num_actions == 4 + 10 and spec.rules["deck"]["cards"][0] == [1, 2, "none", True]
    core = spec.make_core(2, 0)
    assert sorted(hand(core, 0) + hand(core, 1)) == [0, 1, 2, 3]
    assert registry.game_spec("dnp_v0", 2, deck=spec.rules["deck"]).rules == spec.rules
    bad = [
        ([(1, 1, "none", True)], "both values are 1; allowed: two different values"),
        ([(0, 2, "none", True)], r"upright value 0; allowed: integers 1-10"),
        ([(1, 11, "none", True)], r"rotated value 11; allowed"),
        ([(1, 2, "heart", True)], r"symbol 'heart'; allowed: 'none'"),
        ([(1, 2, "none")], r"0 star cards; allowed: exactly one"),
        ([(1, 2, "none", True), (3, 4, "none", True)], r"2 star cards; allowed: exactly one"),
        ([(1, 2, "none", "yes")], r"star='yes'; allowed: True or False"),
        ([(1, 2)], r"allowed: \(upright, rotated, symbol\)"),
        ([], "no cards"),
        ("cards", "allowed: None, a card list"),
        ({"kards": []}, "allowed: exactly 'cards'"),
        ([(1, 2, "frown", True), (3, 4, "none")], r"2-player cards hold 0 star cards"),
        ([(1, 2, "none", True), (3, 4, "none"), (5, 6, "none")], r"3 cards for 2 players; allowed: a positive multiple"),
    ]
    for deck, message in bad:
        with pytest.raises(ValueError, match=message):
            registry.game_spec("dnp_v0", 2, deck=deck)


def test_rules_options_are_validated():
    for options, message in [({"reward": "money"}, r"reward='money'; allowed: 'win'"),
                             ({"max_turns": 0}, r"max_turns=0; allowed"), ({"win_points": True}, "win_points=True"),
                             ({"finisher_set": "x"}, r"finisher_set='x'; allowed: 'open', 'closed'"),
                             ({"colour": 1}, r"unknown rules option\(s\) \['colour'\]; allowed: reward")]:
        with pytest.raises(ValueError, match=message):
            registry.game_spec("dnp_v0", 4, **options)


# ================================================================== dealing


def test_deal_gives_everybody_eight_cards_and_the_star_holder_starts():
    for players in (2, 3, 4, 5):
        core = DnpCore(20, Rules.make(players), seed=players)
        for b in range(20):
            hands = [core.hand(b, p) for p in range(players)]
            assert [len(h) for h in hands] == [8] * players
            star_holder = [p for p in range(players) if 0 in hands[p]][0]  # card 0 is 1/5 with the star
            assert core.current[b] == star_holder
            assert core.area[b] == (1 if players == 2 else 0)  # two players: the star's move is for area 2
        assert 0.3 < core.card_rot[:, core.tables.in_play].mean() < 0.7  # random orientations


# ================================================================== the rulebook's examples


def three_player_table() -> DnpCore:
    """Example of action A (3 players): a set of size 1 with value 7 (seat 1: 7/8 upright) and a set of
    size 3 with value 6 (seat 2: 6/9, 6/10, 6/8 upright). Seat 0 holds three 7s (7/9, 7/10 upright, 1/7
    rotated), an 8 (5/8 rotated), a 5 (3/5 rotated) and two 6s (4/6, 3/6 rotated)."""
    core = make(3)
    hands = [[14, 15, 17, 11, 19, 21, 5], [0, 1, 2, 3, 4, 6, 8, 9, 10, 16, 18, 20, 22], []]
    load(core, hands=hands, table=[[], [7], [12, 13, 23]], rotated=[17, 11, 19, 21, 5], current=0)
    return core


def test_rulebook_example_a_which_sets_may_be_played():
    core = three_player_table()
    assert actives(core, [14, 15, 17, 11, 19, 21, 5]) == [7, 7, 7, 8, 5, 6, 6]
    # A single 7 does not beat the 7 on the table, but two or three 7s may be played; an 8 beats it.
    # A single 5 can go nowhere; a single 6 cannot be played alone, but two 6s can (no set of size 2),
    # and one 6 may be added to the 6-set of seat 2 (four 6s: no other set of size 4).
    assert legal(core) == ["SELECT_5", "SELECT_11", "SELECT_14", "SELECT_15", "SELECT_17", "SELECT_21", "TAKE_1",
                           "TAKE_2", "TURN"]
    act(core, "SELECT_14")
    # One 7 alone may not be played (7 does not beat 7) but may be added to the single 7 (a set of two).
    assert legal(core) == ["SELECT_15", "SELECT_17", "ADD_1"]
    act(core, "SELECT_15")
    assert legal(core) == ["SELECT_17", "PLAY"]  # two 7s: any value goes for size 2
    act(core, "SELECT_17")
    assert legal(core) == ["PLAY"]  # three 7s beat three 6s
    act(core, "PLAY")
    # The three 6s go back to seat 2, each turned: 6/9 -> 9, 6/10 -> 10, 6/8 -> 8; everybody knows them.
    assert hand(core, 2) == [12, 13, 23] and actives(core, [12, 13, 23]) == [9, 10, 8]
    assert core.card_public[0, g(core, [12, 13, 23])].all()
    # Seat 1's move begins by discarding its own single 7.
    assert core.set_size[0].tolist() == [3, 0, 0] and core.set_value[0].tolist() == [7, 0, 0]
    assert core.current[0] == 1 and core.hand_count[0].tolist() == [4, 13, 3] and core.card_loc[0, g(core, 7)] == 2


def test_rulebook_example_a_an_eight_beats_the_seven_and_sixes_go_in_pairs():
    core = three_player_table()
    act(core, "SELECT_11")
    assert legal(core) == ["PLAY"]
    act(core, "PLAY")
    assert 7 in hand(core, 1) and actives(core, [7]) == [8]  # the 7/8 comes back as an 8
    core = three_player_table()
    act(core, "SELECT_5")
    assert legal(core) == ["SELECT_21", "ADD_2"]  # a lone 6: only with the other 6, or onto the 6-set
    act(core, "ADD_2")
    assert core.set_size[0].tolist() == [0, 0, 4] and core.set_value[0, 2] == 6  # (seat 1 discarded its 7)


def test_rulebook_example_b_adding_a_three_is_refused():
    """Seat 1 has a single 3 (3/9 upright), seat 2 two 5s (2/5 rotated, 5/10 upright). A 3 added to the
    single 3 would make a second set of size 2, lower than the 5s: refused."""
    core = make(3)
    load(core, hands=[[4, 6], list(range(7, 19)) + [21, 23, 0, 3, 2], [5, 19]], table=[[], [20], [1, 22]],
              rotated=[1], current=0)
    assert actives(core, [4, 20, 1, 22]) == [3, 3, 5, 5]
    assert "SELECT_4" not in legal(core)  # the 3 can be neither added nor played alone (3 does not beat 3)
    assert "SELECT_6" in legal(core)


def test_rulebook_example_b_adding_a_five_sends_the_threes_back_as_four_and_six():
    """Seat 1 has two 3s (3/4 and 3/6 upright), seat 2 a single 5 (2/5 rotated). Seat 0 adds a 5 (3/5
    rotated) to the 5: two sets of size 2, the 5s higher, so seat 1 takes its 3s back, turned: a 4 and
    a 6."""
    core = make(3)
    load(core, hands=[[19, 6], [0, 2, 3, 7, 8, 9, 10, 11, 12, 13, 14, 15], [16, 17, 18, 20, 21, 22, 23]],
              table=[[], [4, 5], [1]], rotated=[1, 19], current=0)
    assert legal(core) == ["SELECT_19", "TAKE_1", "TAKE_2", "TURN"]  # a single 4 would not beat the 5
    act(core, "SELECT_19")
    assert legal(core) == ["ADD_2"]  # a single 5 does not beat the single 5
    act(core, "ADD_2")
    assert core.set_size[0].tolist() == [0, 0, 2] and core.set_value[0, 2] == 5
    assert hand(core, 1)[:2] == [0, 2] and {4, 5} <= set(hand(core, 1)) and actives(core, [4, 5]) == [4, 6]
    assert core.card_public[0, g(core, [4, 5])].all() and core.hand_count[0].tolist() == [1, 14, 7]
    assert core.current[0] == 1 and not (core.card_loc[0] == 2).any()  # nothing discarded: seat 1 had no set


def test_rulebook_example_c_taking_the_twos_gives_five_seven_nine():
    core = make(3)
    load(core, hands=[[4, 5, 6], [0, 7, 8, 9, 10, 11, 12, 13], [14, 15, 16, 17, 18, 19, 20, 21, 22, 23]],
              table=[[], [1, 2, 3], []], current=0)
    assert actives(core, [1, 2, 3]) == [2, 2, 2]
    act(core, "TAKE_1")
    assert hand(core, 0) == [1, 2, 3, 4, 5, 6] and actives(core, [1, 2, 3]) == [5, 7, 9]
    assert core.set_size[0].sum() == 0 and core.card_public[0, g(core, [1, 2, 3])].all()
    # Everybody else sees which cards seat 0 picked up, with their new orientation.
    layout = core.obs_layout
    cards = core.observe(2)[0, layout.slice("cards")].reshape(core.tables.num_cards, layout.card_width)
    known_in_seat_0 = 7 + layout.positions + 0  # seat 0 is 1 seat after seat 2
    assert np.flatnonzero(cards[:, known_in_seat_0]).tolist() == g(core, [1, 2, 3])
    assert cards[g(core, [1, 2, 3]), 2].tolist() == [5, 7, 9] and cards[g(core, 4), 2] == 0  # the 3/4 stays unknown
    assert core.observe(2)[0, layout.slice("players")][4 * 1 + 3] == 3  # seat 0: 3 known hand cards


def test_rulebook_example_d_turning_the_whole_hand():
    core = make(3)
    load(core, hands=[[1, 2, 3, 4], [0, 5, 6, 7, 8, 9, 10, 11, 12, 13], list(range(14, 24))], current=0,
              public=[2])
    before = actives(core, [1, 2, 3, 4])
    act(core, "TURN")
    assert actives(core, [1, 2, 3, 4]) == [5, 7, 9, 4] and before == [2, 2, 2, 3]
    assert core.card_public[0, g(core, 2)] and core.current[0] == 1
    # The known card stays known, with its new orientation, to the others.
    layout = core.obs_layout
    cards = core.observe(1)[0, layout.slice("cards")].reshape(core.tables.num_cards, layout.card_width)
    assert cards[g(core, 2), 2] == 7 and cards[g(core, 2), 3] == 1 and cards[g(core, 1), 2] == 0


# ================================================================== turns, round and game end


def test_a_move_starts_by_discarding_ones_own_set():
    core = make(3)
    load(core, hands=[[4, 5], [6, 7, 8, 9, 10, 11, 12, 13, 14, 15], list(range(16, 24)) + [0]],
              table=[[], [], []], discard=[1, 2, 3], current=0)
    act(core, "SELECT_4", "PLAY")  # a single 3
    assert core.set_size[0].tolist() == [1, 0, 0]
    act(core, "TURN")  # seat 1
    act(core, "TURN")  # seat 2; then seat 0's move starts by discarding its 3
    assert core.current[0] == 0 and core.set_size[0].tolist() == [0, 0, 0]
    assert (core.card_loc[0] == 2).sum() == 4  # 1, 2, 3 and now 4 are discarded


def test_first_finisher_scores_two_and_leaves_its_set_until_the_others_had_a_turn():
    core = make(3)
    load(core, hands=[[4], [5, 6, 7, 8, 9, 10, 11, 12], list(range(13, 24)) + [0, 1, 2, 3]], current=0)
    act(core, "SELECT_4", "PLAY")  # seat 0 plays its last card (a 3)
    assert core.points[0].tolist() == [2, 0, 0] and core.out[0].tolist() == [True, False, False]
    assert core.current[0] == 1 and core.set_size[0, 0] == 1
    act(core, "TURN")  # seat 1
    assert core.current[0] == 2 and core.set_size[0, 0] == 1
    act(core, "TURN")  # seat 2: then every other player has had a turn: the finisher's set is discarded
    assert core.current[0] == 1 and core.set_size[0, 0] == 0 and core.card_loc[0, g(core, 4)] == 2
    assert hand(core, 0) == []


def test_a_finishers_set_beaten_is_discarded_not_returned():
    core = make(3)
    load(core, hands=[[4], [6, 7, 8, 9, 10, 11, 12, 13], list(range(14, 24)) + [0, 1, 2, 3, 5]], current=0)
    act(core, "SELECT_4", "PLAY")
    act(core, "SELECT_6", "PLAY")  # seat 1: a single 4 beats the finisher's 3
    assert core.card_loc[0, g(core, 4)] == 2 and hand(core, 0) == [] and core.set_size[0].tolist() == [0, 1, 0]


def test_finisher_set_closed_option_only_lets_it_be_beaten():
    for mode, open_ in (("open", True), ("closed", False)):
        core = make(3, finisher_set=mode)
        load(core, hands=[[4], [19, 6, 7, 8, 9, 10, 11, 12], list(range(13, 19)) + [0, 1, 2, 3, 5, 20, 21, 22, 23]],
                  current=0)
        act(core, "SELECT_4", "PLAY")  # seat 0 goes out with a single 3 (3/4 upright)
        names = legal(core)  # seat 1 holds the 3/5 upright: a 3
        assert ("TAKE_2" in names) == open_  # seat 0 is 2 seats after seat 1
        if open_:
            act(core, "SELECT_19")
            assert "ADD_2" in legal(core)


def test_second_finisher_scores_one_and_the_next_round_is_dealt():
    core = make(3)
    load(core, hands=[[], [6], list(range(7, 24)) + [0, 1, 2, 3, 5]], table=[[4], [], []], points=[2, 0, 0],
              out=[True, False, False], current=1)
    act(core, "SELECT_6", "PLAY")
    assert core.points[0].tolist() == [2, 1, 0] and core.rounds[0] == 1 and not core.done[0]
    assert [len(hand(core, p)) for p in range(3)] == [8, 8, 8] and not core.out[0].any()
    assert core.set_size[0].sum() == 0 and not core.card_public[0].any() and (core.card_loc[0][core.tables.in_play] == 0).all()
    assert core.current[0] == core.card_where[0, 0]  # the star's holder starts


def test_four_points_win_at_once():
    core = make(3)
    load(core, hands=[[4], list(range(5, 13)), list(range(13, 24)) + [0, 1, 2, 3]], points=[2, 3, 1], current=0)
    act(core, "SELECT_4", "PLAY")
    assert core.terminated[0] and core.points[0].tolist() == [4, 3, 1]
    assert core.rewards[0].tolist() == [1.0, -0.5, -0.5] and not core.legal_mask[0].any()
    for reward, expected in (("score", [4, 3, 1]), ("rank", [1.0, 0.0, -1.0])):
        core = make(3, reward=reward)
        load(core, hands=[[4], list(range(5, 13)), list(range(13, 24)) + [0, 1, 2, 3]], points=[2, 3, 1], current=0)
        act(core, "SELECT_4", "PLAY")
        assert core.rewards[0].tolist() == expected


def test_max_turns_truncates_without_reward():
    core = make(3, max_turns=3)
    act(core, "TURN", "TURN")
    assert not core.done[0]
    act(core, "TURN")
    assert core.truncated[0] and not core.terminated[0] and core.rewards[0].tolist() == [0, 0, 0]
    assert not core.legal_mask[0].any()


# ================================================================== two players


def test_two_player_turns_two_areas_and_own_collisions():
    core = make(2)
    # Seat 0 (star holder) starts with one move, for area 2 (position 1).
    load(core, hands=[[0, 4, 5, 6], [1, 2, 3, 7, 8, 9, 10, 11, 12, 13, 14, 15]], current=0, area=1)
    assert actives(core, [4, 5]) == [3, 3]
    act(core, "SELECT_4", "PLAY")  # a single 3 in area 2
    assert core.set_size[0].tolist() == [0, 1, 0, 0] and (core.current[0], core.area[0]) == (1, 0)
    act(core, "TURN")  # seat 1, area 1
    assert (core.current[0], core.area[0]) == (1, 1)
    act(core, "TURN")  # seat 1, area 2
    assert (core.current[0], core.area[0]) == (0, 0)
    # Seat 0, area 1: its own 3 in area 2 collides with a new single: a 4 (4/10) beats it and the 3
    # comes back to seat 0's own hand, turned (3/4 -> 4).
    assert "SELECT_5" not in legal(core)  # another 3 would not beat its own 3
    act(core, "SELECT_6", "PLAY")
    assert core.set_size[0].tolist() == [1, 0, 0, 0] and 4 in hand(core, 0) and actives(core, [4]) == [4]
    assert (core.current[0], core.area[0]) == (0, 1)
    # Area 2's move: its set (none now) is discarded; the set in area 1 stays until the next turn.
    act(core, "TURN")
    assert (core.current[0], core.area[0]) == (1, 0)
    assert core.legal_mask[0, core.actions.names().index("TAKE_1A1")]
    assert not core.legal_mask[0, core.actions.names().index("TAKE_1A2")]


def test_two_player_round_win_and_game_win():
    core = make(2)
    load(core, hands=[[4], [0, 1, 2, 3] + list(range(5, 16))], current=0, area=0, points=[1, 0])
    act(core, "SELECT_4", "PLAY")
    assert core.terminated[0] and core.points[0].tolist() == [2, 0] and core.rewards[0].tolist() == [1.0, -1.0]
    core = make(2)
    load(core, hands=[[4], [0, 1, 2, 3] + list(range(5, 16))], current=0, area=0)
    act(core, "SELECT_4", "PLAY")  # first to empty the hand wins the round at once
    assert core.points[0].tolist() == [1, 0] and core.rounds[0] == 1 and not core.done[0]
    assert [len(hand(core, p)) for p in range(2)] == [8, 8] and core.area[0] == 1
