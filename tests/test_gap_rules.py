"""The gap game's rulebook, played out: every worked example of the rulebook (``../shared/seeds/
001_af93e325becec773.txt``) and every rule of issue 15's "Rules as settled", with exact piles, hands,
masks and scores, on the compiled core and (where the position is loaded) on the reference engine.

Seats in the examples: 0 Ben, 1 Emma, 2 Linus, 3 Anne (4 players) unless a test says otherwise.
"""

from __future__ import annotations

import numpy as np
import pytest

from keine_ahnung_env import gap_v0
from keine_ahnung_env.games.gap import GapCore, Rules
from keine_ahnung_env.games.gap.actions import (
    ACTION_FLIP_BASE, ACTION_HIDE_BASE, ACTION_PASS, NUM_ACTIONS, Action, Phase, flip_action, hide_action, play_action,
)
from keine_ahnung_env.games.gap.deck import CARD_STARS, NUM_CARDS, card_id, gap_width, parse_card, stars
from keine_ahnung_env.games.gap.observation import ObservationLayout
from keine_ahnung_env.games.gap.reference import GapReference
from keine_ahnung_env.rng import GameRandom

BEN, EMMA, LINUS, ANNE = range(4)
LEFT, RIGHT = 0, 1


def C(text: str) -> int:
    return parse_card(text)


def cards(*texts: str) -> list[int]:
    return [C(t) for t in texts]


def legal(core: GapCore, b: int = 0) -> list[str]:
    return [Action(a).name for a in np.flatnonzero(core.legal_mask[b])]


def loaded(hands, piles, draw=(), current=BEN, hidden=None, num_players=4, **rules) -> GapCore:
    core = GapCore(1, Rules.make(num_players, **rules), seed=0)
    hidden = hidden if hidden is not None else [[] for _ in range(num_players)]
    core.load(0, hands=[cards(*h) for h in hands], hidden=[cards(*h) for h in hidden],
              piles=[cards(*p) for p in piles], draw=cards(*draw), current=current)
    return core


def step(core: GapCore, action: int) -> None:
    core.step(np.array([action]))


# ------------------------------------------------------------------------------------------- the deck


def test_the_deck_has_66_cards_with_the_rulebooks_stars():
    assert NUM_CARDS == 66 and len({card_id(c, n) for c in range(6) for n in range(1, 12)}) == 66
    by_number = {n: int(CARD_STARS[card_id("red", n)]) for n in range(1, 12)}
    assert by_number == {1: 0, 2: 1, 3: 2, 4: 2, 5: 3, 6: 4, 7: 3, 8: 2, 9: 2, 10: 1, 11: 0}
    assert all(CARD_STARS[card_id(c, n)] == by_number[n] for c in range(6) for n in range(1, 12))
    assert int(CARD_STARS.sum()) == 6 * 20
    assert gap_width(C("red 4"), C("blue 9")) == 4 and gap_width(C("red 5"), C("blue 4")) == 0
    assert gap_width(C("red 5"), C("blue 5")) == 0 and gap_width(C("red 2"), C("grey 4")) == 1


def test_rounds_by_player_count_and_options_are_validated():
    assert [Rules(p).rounds for p in (2, 3, 4, 5)] == [4, 3, 4, 5]
    assert Rules(3, rounds=1).rounds == 1
    for bad, match in (({"rounds": 0}, r"rounds=0; allowed"), ({"rounds": 2.0}, r"rounds=2.0; allowed"),
                       ({"flip_on_extra_turns": 1}, r"flip_on_extra_turns=1; allowed: True or False"),
                       ({"reward": "points"}, r"reward='points'; allowed: 'win', 'score', 'rank'"),
                       ({"round_reward_scale": -1}, r"round_reward_scale=-1; allowed"),
                       ({"max_turns": 0}, r"max_turns=0; allowed"), ({"colour": 1}, r"unknown rules option")):
        with pytest.raises(ValueError, match=match):
            Rules.make(4, **bad)
        with pytest.raises(ValueError, match=match):
            gap_v0.vector_env(2, **bad)
    with pytest.raises(ValueError, match=r"num_players=6; allowed: integers 2-5"):
        Rules(6)


# ------------------------------------------------------------------------------------- getting started


def test_a_round_deals_12_cards_each_and_every_player_hides_two_in_seat_order():
    core = GapCore(1, Rules(3), seed=5)
    layout = ObservationLayout.make(3, 3)
    assert core.phase[0] == Phase.HIDE and core.dealer[0] == 2 and core.current[0] == 0
    assert [len(core.hand(0, p)) for p in range(3)] == [12, 12, 12]
    assert core.draw_len[0] - core.draw_pos[0] == 66 - 36 - 2
    # Each seat sees only its own hand; the two starting cards are not laid yet.
    obs = core.observe(0)[0]
    assert np.flatnonzero(obs[layout.slice("hand")]).tolist() == core.hand(0, 0)
    assert not obs[layout.slice("pile_tops")].any() and not obs[layout.slice("discards")].any()
    order = []
    for _ in range(6):
        seat = int(core.current[0])
        assert core.phase[0] == Phase.HIDE
        assert legal(core) == [Action(hide_action(c)).name for c in core.hand(0, seat)]
        order.append(seat)
        step(core, hide_action(max(core.hand(0, seat), key=lambda c: (CARD_STARS[c], c))))
    assert order == [0, 0, 1, 1, 2, 2]
    assert all(len(core.hidden(0, p)) == 2 and len(core.hand(0, p)) == 10 for p in range(3))
    # Then the starting cards are laid, and seat 0 (left of the dealer) begins.
    assert core.current[0] == 0 and core.phase[0] in (Phase.PLAY, Phase.FLIP)
    obs = core.observe(1)[0]
    assert obs[layout.slice("pile_tops")].sum() == 4 and obs[layout.slice("seen")].sum() >= 2
    assert np.flatnonzero(obs[layout.slice("hidden")]).tolist() == core.hidden(0, 1)


def test_the_dealer_moves_one_seat_left_each_round():
    core = GapCore(1, Rules(3, rounds=3, reward="score"), seed=1)
    rng = np.random.default_rng(0)
    starters = []
    while not core.done[0]:
        if core.phase[0] == Phase.HIDE and all(h == 0 for h in core.hidden_count[0]):
            starters.append((int(core.dealer[0]), int(core.current[0])))
        step(core, int(rng.choice(np.flatnonzero(core.legal_mask[0]))))
    assert starters == [(2, 0), (0, 1), (1, 2)]


# ------------------------------------------------------------------------------------- option A: gap


def test_ben_plays_the_yellow_6_in_the_gap_between_red_4_and_blue_9_and_takes_another_turn():
    hands = [("yellow 6", "green 5", "red 7", "blue 2", "grey 9", "purple 11", "purple 8"),
             ("grey 1",), ("grey 2",), ("grey 3",)]
    core = loaded(hands, piles=[("red 4",), ("blue 9",)])
    assert core.phase[0] == Phase.PLAY
    # A card neither red nor blue, numbered 5, 6, 7 or 8, fits the gap, on either pile; red 7 and blue 2
    # match a colour, grey 9 a number (one pile each); purple 11 fits nowhere; a pass is always allowed.
    assert sorted(legal(core)) == sorted([
                               "PLAY_GREEN_5_LEFT", "PLAY_GREEN_5_RIGHT", "PLAY_YELLOW_6_LEFT", "PLAY_YELLOW_6_RIGHT",
                               "PLAY_PURPLE_8_LEFT", "PLAY_PURPLE_8_RIGHT", "PLAY_BLUE_2_RIGHT", "PLAY_GREY_9_RIGHT",
                               "PLAY_RED_7_LEFT", "PASS"])
    step(core, play_action(C("yellow 6"), LEFT))
    assert core.pile_top[0].tolist() == cards("yellow 6", "blue 9")
    assert core.current[0] == BEN and core.extra_turn[0] and core.phase[0] == Phase.PLAY  # gap 7-8: no turn-up
    assert core.hand(0, BEN) == sorted(cards("green 5", "red 7", "blue 2", "grey 9", "purple 11", "purple 8"))
    # The new gap is 7-8: purple 8 still fits it; red 7 now fits it too (red is no longer a top colour).
    assert {"PLAY_PURPLE_8_LEFT", "PLAY_PURPLE_8_RIGHT", "PLAY_RED_7_LEFT", "PLAY_RED_7_RIGHT"} <= set(legal(core))
    # Colour on colour (blue on blue) ends the turn.
    step(core, play_action(C("blue 2"), RIGHT))
    assert core.pile_top[0].tolist() == cards("yellow 6", "blue 2")
    assert core.current[0] == EMMA and not core.extra_turn[0]
    assert core.hand_count[0].tolist() == [5, 1, 1, 1] and core.turn[0] == 2


def test_any_yellow_or_any_6_on_the_yellow_6_and_any_blue_or_9_on_the_blue_9():
    hands = [("yellow 1", "red 6", "blue 11", "green 9", "red 8", "blue 8"), ("grey 1",), ("grey 2",), ("grey 3",)]
    core = loaded(hands, piles=[("red 4", "yellow 6"), ("blue 9",)])
    assert sorted(legal(core)) == sorted(["PLAY_YELLOW_1_LEFT", "PLAY_RED_6_LEFT", "PLAY_BLUE_11_RIGHT",
                                          "PLAY_GREEN_9_RIGHT", "PLAY_RED_8_LEFT", "PLAY_RED_8_RIGHT",
                                          "PLAY_BLUE_8_RIGHT", "PASS"])


def test_the_8_between_6_and_9_that_matches_a_colour_gives_no_extra_turn():
    hands = [("blue 8", "green 1"), ("grey 1",), ("grey 2",), ("grey 3",)]
    core = loaded(hands, piles=[("yellow 6",), ("blue 9",)])
    # blue 8 lies between 6 and 9, but it is blue: only colour on colour, on the blue pile.
    assert legal(core) == ["PLAY_BLUE_8_RIGHT", "PASS"]
    step(core, play_action(C("blue 8"), RIGHT))
    assert core.current[0] == EMMA and core.pile_top[0].tolist() == cards("yellow 6", "blue 8")


def test_a_card_matching_both_tops_may_go_on_either():
    core = loaded([("red 9", "grey 1"), ("grey 2",), ("grey 3",), ("grey 4",)], piles=[("red 4",), ("blue 9",)])
    assert legal(core) == ["PLAY_RED_9_LEFT", "PLAY_RED_9_RIGHT", "PASS"]


# ---------------------------------------------------------------------------------------- Anne's chain


def test_annes_chain_from_grey_10_and_red_3_leaves_a_gap_of_2_to_4():
    hands = [("grey 1", "grey 2"), ("green 1",), ("green 2",),
             ("blue 7", "grey 4", "red 6", "red 2", "purple 11")]
    for engine in ("core", "reference"):
        core = loaded(hands, piles=[("grey 10",), ("red 3",)], current=ANNE)
        ref = GapReference(core.rules, GameRandom.for_game(0, 0)) if engine == "reference" else None
        if ref is not None:  # the reference engine in the same position
            ref.hands = [list(map(int, core.hand(0, p))) for p in range(4)]
            ref.hidden = [[] for _ in range(4)]
            ref.piles = [[C("grey 10")], [C("red 3")]]
            ref.draw_pile = core.snapshot(0)["draw_pile"]
            ref.seen = set(cards("grey 10", "red 3"))
            ref.current, ref.dealer, ref.phase = ANNE, LINUS, Phase.PLAY
        script = [("blue 7", LEFT, cards("blue 7", "red 3")), ("grey 4", RIGHT, cards("blue 7", "grey 4")),
                  ("red 6", LEFT, cards("red 6", "grey 4")), ("red 2", LEFT, cards("red 2", "grey 4"))]
        for k, (card, pile, tops) in enumerate(script):
            action = play_action(C(card), pile)
            if ref is None:
                assert core.legal_mask[0, action] and core.current[0] == ANNE
                step(core, action)
                assert core.pile_top[0].tolist() == tops
            else:
                assert action in ref.legal_actions() and ref.current == ANNE
                ref.step(action)
                assert list(ref.tops()) == tops
        if ref is None:
            assert core.current[0] == BEN and core.hand(0, ANNE) == [C("purple 11")]
            assert gap_width(*core.pile_top[0]) == 1 and core.phase[0] == Phase.PLAY  # 2-4: a gap, no turn-up
            assert sorted(core.snapshot(0)["under"]) == sorted(cards("grey 10", "blue 7", "red 6", "red 3"))
        else:
            assert ref.current == BEN and ref.hand(ANNE) == [C("purple 11")] and ref.phase == Phase.PLAY


# ------------------------------------------------------------------------------------------- no gap


def test_emma_must_turn_up_the_top_draw_card_when_the_tops_show_5_and_4():
    hands = [("grey 1",), ("green 8", "yellow 11", "red 1"), ("grey 2",), ("grey 3",)]
    core = loaded(hands, piles=[("red 5",), ("blue 4",)], draw=("purple 10", "green 7"), current=EMMA)
    assert core.phase[0] == Phase.FLIP and core.current[0] == EMMA and core.pending[0] == C("purple 10")
    assert legal(core) == ["FLIP_LEFT", "FLIP_RIGHT"]
    layout = ObservationLayout.make(4, 4)
    for seat in range(4):  # the turned-up card is seen by everybody
        assert core.observe(seat)[0][layout.slice("flip_card")].sum() == 2
    step(core, flip_action(LEFT))
    assert core.pile_top[0].tolist() == cards("purple 10", "blue 4") and core.pending[0] == -1
    assert core.phase[0] == Phase.PLAY and core.current[0] == EMMA and core.turn[0] == 0
    # Then her turn as normal: green 8 in the new gap 5-9.
    assert sorted(legal(core)) == sorted(["PLAY_GREEN_8_LEFT", "PLAY_GREEN_8_RIGHT", "PASS"])
    assert core.snapshot(0)["draw_pile"][0] == C("green 7")


def test_still_no_gap_after_the_turn_up_the_turn_goes_on_as_normal():
    hands = [("grey 1",), ("red 1", "green 11"), ("grey 2",), ("grey 3",)]
    core = loaded(hands, piles=[("red 5",), ("blue 4",)], draw=("purple 5",), current=EMMA)
    step(core, flip_action(RIGHT))
    assert core.pile_top[0].tolist() == cards("red 5", "purple 5") and core.phase[0] == Phase.PLAY
    assert legal(core) == ["PLAY_RED_1_LEFT", "PASS"]


@pytest.mark.parametrize("flip_on_extra_turns", [True, False])
def test_an_extra_turn_without_a_gap_starts_with_a_turn_up_unless_switched_off(flip_on_extra_turns):
    hands = [("green 5", "grey 1", "grey 2"), ("grey 3",), ("grey 4",), ("grey 5",)]
    core = loaded(hands, piles=[("red 4",), ("blue 6",)], draw=("purple 9",), flip_on_extra_turns=flip_on_extra_turns)
    step(core, play_action(C("green 5"), LEFT))  # gap play: tops green 5 / blue 6, no gap
    assert core.current[0] == BEN and core.extra_turn[0]
    if flip_on_extra_turns:
        assert core.phase[0] == Phase.FLIP and core.pending[0] == C("purple 9")
    else:
        assert core.phase[0] == Phase.PLAY and core.pending[0] == -1
        assert legal(core) == ["PASS"]


def test_a_pass_takes_the_top_draw_card_and_is_always_allowed():
    core = loaded([("red 9", "grey 1"), ("grey 2",), ("grey 3",), ("grey 4",)], piles=[("red 4",), ("blue 9",)],
                  draw=("green 6", "green 7"))
    assert core.legal_mask[0, ACTION_PASS]
    step(core, ACTION_PASS)
    assert core.hand(0, BEN) == sorted(cards("red 9", "grey 1", "green 6")) and core.current[0] == EMMA
    assert core.snapshot(0)["draw_pile"][0] == C("green 7")


# ------------------------------------------------------------------------------- the draw pile runs out


def test_an_empty_draw_pile_is_rebuilt_from_the_cards_below_the_tops():
    P = 2
    hands = [("grey 1", "grey 2"), ("green 1",)]
    used = cards("grey 1", "grey 2", "green 1", "red 4", "blue 9", "red 8", "yellow 4")
    rest = [c for c in range(66) if c not in used]
    core = GapCore(1, Rules(P), seed=3)
    core.load(0, hands=[cards(*h) for h in hands], hidden=[[], []], piles=[cards("red 8", "red 4"), cards("yellow 4", "blue 9")],
              draw=(), current=BEN)
    # load puts every unplaced card in the draw pile: take them all out to hands to empty it.
    core.card_loc[0, rest] = 1
    core.card_owner[0, rest] = 1
    core.hand_count[0, 1] += len(rest)
    core.draw_pos[0] = core.draw_len[0]
    core.refresh_masks()
    before = core.rng_state[0].copy()
    step(core, ACTION_PASS)
    # The tops stay; red 8 and yellow 4 were shuffled into a new pile (ascending id, the game's stream)
    # and Ben took the top one.
    assert core.pile_top[0].tolist() == cards("red 4", "blue 9")
    ref = GameRandom([int(x) for x in before])
    expected = sorted(cards("red 8", "yellow 4"))
    ref.shuffle(expected)
    assert sorted(core.hand(0, BEN)) == sorted(cards("grey 1", "grey 2") + [expected[0]])
    assert core.snapshot(0)["draw_pile"] == expected[1:] and core.snapshot(0)["under"] == []


def test_when_nothing_can_be_drawn_every_player_passing_in_a_row_ends_the_round_with_nobody_out():
    rules = Rules(2, rounds=1, reward="score")
    core = GapCore(1, rules, seed=3)
    core.load(0, hands=[cards("grey 1", "grey 2"), cards("green 1", "red 6")], hidden=[cards("red 5", "red 7"), []],
              piles=[cards("blue 5"), cards("blue 6")], current=BEN, start_turn=False)
    rest = [c for c in range(66) if core.card_loc[0, c] == 0]
    core.card_loc[0, rest] = 1  # every other card sits in Emma's hand: nothing left to draw or shuffle
    core.card_owner[0, rest] = 1
    core.hand_count[0, 1] += len(rest)
    core.draw_pos[0] = core.draw_len[0]
    core.refresh_masks()
    assert legal(core) == ["PASS"]
    step(core, ACTION_PASS)
    assert core.dry_passes[0] == 1 and core.hand(0, BEN) == sorted(cards("grey 1", "grey 2")) and not core.done[0]
    assert core.current[0] == EMMA and core.phase[0] == Phase.PLAY  # no gap, but nothing to turn up
    step(core, ACTION_PASS)
    assert core.terminated[0] and core.went_out[0].tolist() == [0, 0]
    emma = cards("green 1", "red 6") + rest
    assert core.score[0].tolist() == [-stars(cards("grey 1", "grey 2")), -stars(emma)]  # hidden cards do not count
    assert core.rewards[0].tolist() == core.score[0].tolist()


# ------------------------------------------------------------------------------------ end of a round


def test_linus_goes_out_with_plus_6_and_anne_keeps_minus_7():
    hands = [("grey 1", "grey 11"), ("green 1",), ("purple 8",), ("yellow 5", "green 3", "blue 2", "red 10")]
    hidden = [("grey 6", "grey 7"), ("green 6", "green 7"), ("yellow 6", "green 4"), ("red 6", "red 7")]
    core = GapCore(1, Rules(4, rounds=2, reward="score"), seed=0)
    core.load(0, hands=[cards(*h) for h in hands], hidden=[cards(*h) for h in hidden],
              piles=[cards("red 4"), cards("blue 9")], current=LINUS, scores=[1, 2, 3, 4])
    step(core, play_action(C("purple 8"), LEFT))  # a gap play, but his last card: the round ends at once
    assert stars(cards("yellow 6", "green 4")) == 6 and stars(cards("yellow 5", "green 3", "blue 2", "red 10")) == 7
    assert core.score[0].tolist() == [1 + 0, 2 + 0, 3 + 6, 4 - 7]  # grey 1, grey 11 and green 1: no stars
    assert core.went_out[0].tolist() == [0, 0, 1, 0] and core.round[0] == 1
    # The next round is dealt at once: Ben deals, Emma (left of the dealer) chooses her hidden cards first.
    assert core.phase[0] == Phase.HIDE and core.dealer[0] == BEN and core.current[0] == EMMA
    assert all(len(core.hand(0, p)) == 12 for p in range(4)) and not core.done[0]


@pytest.mark.parametrize("reward,expected", [
    ("win", [-0.5, 0.5, 0.5, -0.5]), ("score", [1, 7, 7, -3]), ("rank", [-1 / 3, 2 / 3, 2 / 3, -1.0])])
def test_the_highest_total_after_the_last_round_wins_ties_share(reward, expected):
    hands = [("grey 1",), ("green 1",), ("purple 8",), ("blue 2", "red 10")]
    hidden = [(), (), ("yellow 6", "green 4"), ()]
    core = GapCore(1, Rules(4, rounds=1, reward=reward), seed=0)
    core.load(0, hands=[cards(*h) for h in hands], hidden=[cards(*h) for h in hidden],
              piles=[cards("red 4"), cards("blue 9")], current=LINUS, scores=[1, 7, 1, -1])
    step(core, play_action(C("purple 8"), RIGHT))
    assert core.terminated[0] and core.score[0].tolist() == [1, 7, 7, -3]
    np.testing.assert_allclose(core.rewards[0], expected, rtol=1e-6)
    assert not core.legal_mask[0].any()


def test_round_rewards_shaping_pays_each_rounds_score_change():
    hands = [("grey 1",), ("green 1",), ("purple 8",), ("blue 2", "red 10")]
    core = GapCore(1, Rules(4, rounds=2, round_reward_scale=0.5), seed=0)
    core.load(0, hands=[cards(*h) for h in hands], hidden=[[], [], cards("yellow 6", "green 4"), []],
              piles=[cards("red 4"), cards("blue 9")], current=LINUS)
    step(core, play_action(C("purple 8"), RIGHT))
    np.testing.assert_allclose(core.rewards[0], [0.0, 0.0, 3.0, -1.0])


def test_everybody_tied_is_a_draw_under_win():
    core = GapCore(1, Rules(2, rounds=1), seed=0)
    core.load(0, hands=[cards("purple 8"), cards("green 1")], hidden=[[], []], piles=[cards("red 4"), cards("blue 9")],
              current=BEN, scores=[0, 0])
    step(core, play_action(C("purple 8"), LEFT))
    assert core.score[0].tolist() == [0, 0] and core.rewards[0].tolist() == [0.0, 0.0]


def test_max_turns_truncates_with_no_reward():
    core = GapCore(1, Rules(2, max_turns=3), seed=0)
    core.load(0, hands=[cards("grey 1"), cards("green 1")], hidden=[[], []], piles=[cards("red 4"), cards("blue 9")],
              current=BEN)
    for _ in range(3):
        assert not core.done[0]
        step(core, ACTION_PASS)
    assert core.truncated[0] and not core.terminated[0] and core.rewards[0].tolist() == [0.0, 0.0]
    assert not core.legal_mask[0].any() and core.phase[0] == Phase.OVER


def test_action_names_and_ids():
    assert Action.PLAY_RED_6_LEFT == play_action(card_id("red", 6), 0) == 2 * (4 * 11 + 5)
    assert Action.PASS == ACTION_PASS == 132 and Action.HIDE_BLUE_1 == ACTION_HIDE_BASE == 133
    assert Action.FLIP_LEFT == ACTION_FLIP_BASE == 199 and Action.FLIP_RIGHT == 200 and NUM_ACTIONS == 201
    assert len(Action) == NUM_ACTIONS


def test_the_text_views_tell_only_what_the_table_saw():
    spec = gap_v0.game_spec(4)
    core = GapCore(1, Rules(4), seed=2)
    seat = int(core.current[0])
    card = core.hand(0, seat)[0]
    after = spec.describe_move(core, 0, seat, hide_action(card))
    step(core, hide_action(card))
    from keine_ahnung_env.games.gap.deck import card_name

    assert after(core) == "lays a card face down as a hidden card" and card_name(card) not in spec.render(core, 0, False)
    assert card_name(card) in spec.render(core, 0, True)
    core = loaded([("yellow 6", "blue 2"), ("grey 1",), ("grey 2",), ("grey 3",)], piles=[("red 4",), ("blue 9",)])
    after = spec.describe_move(core, 0, BEN, play_action(C("yellow 6"), LEFT))
    step(core, play_action(C("yellow 6"), LEFT))
    assert after(core) == "plays yellow 6 on the left pile (red 4): gap! another turn"
    after = spec.describe_move(core, 0, BEN, ACTION_PASS)
    step(core, ACTION_PASS)
    assert after(core) == "passes and takes a card"
    text = spec.observation_string(core.observe(EMMA)[0])
    assert "your hand: grey 1" in text and "yellow 6" in text and "blue 2" not in text.split("seen")[0]
