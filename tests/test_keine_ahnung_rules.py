"""The rulebook's worked examples and the settled corner cases, as scripted deals on the batched core.

Each test sets the exact cards (``load_named``), plays the example's decisions and asserts the exact
piles, layouts, trophies and masks. Seats: the example's player is seat 0 of a 4-player game.
"""

import numpy as np
import pytest

from keine_ahnung_env.games.keine_ahnung import Action, KeineAhnungCore, Phase, Rules
from keine_ahnung_env.games.keine_ahnung.core import LOC_ASIDE, LOC_DRAW
from keine_ahnung_env.games.keine_ahnung.positions import load_named

OPP = ["grey 4", "grey 5", "blue 4", "blue 5", "purple 1", "purple 6"]  # an untouched opponent layout
# For four players: three opponent layouts that share no physical card with each other or the examples.
OPPS = [OPP, ["green 4", "green 4", "green 4", "red 2", "red 2", "red 2"],
        ["purple 3", "purple 3", "purple 3", "yellow 1", "yellow 1", "yellow 1"]]


def make(num_players=2, **rules):
    return KeineAhnungCore(1, Rules.make(num_players, **rules), seed=0)


def names(core, cards):
    return [core.tables.card_name(int(c)) for c in cards]


def pile_tops(core, b=0):
    return names(core, core.pile_top[b, : core.pile_count[b]])


def legal(core, b=0):
    return [Action(a).name for a in np.flatnonzero(core.legal_mask[b])]


def play(core, action):
    core.step(np.array([int(action)]))


def test_clemens_draw_card_starts_a_pile_choice_between_two_piles_and_yellow_4_goes_back():
    core = make(4)
    ids = load_named(core, layouts=[["red 3", "yellow 4*", "green 6", "green 5", "grey 1", "grey 2"]] + OPPS,
                     piles=[["red 5"]], draw=["blue 3", "blue 1"])
    # The blue 3 from the draw pile fits no pile (red 5): it starts a second pile.
    assert pile_tops(core) == ["red 5", "blue 3"]
    assert core.phase[0] == Phase.MAIN and core.current[0] == 0
    assert legal(core) == [f"REVEAL_{s}" for s in range(6)]  # six cards: no call yet
    # The red 3 fits both piles: Clemens chooses.
    play(core, Action.REVEAL_0)
    assert core.phase[0] == Phase.PLACE_REVEALED
    assert legal(core) == ["PLACE_BLUE_3", "PLACE_RED_5"]
    play(core, Action.PLACE_RED_5)
    assert pile_tops(core) == ["red 3", "blue 3"]
    assert core.layout[0, 0, 0] == -1
    # The yellow 4 (with "refill") fits nowhere: back face down, function not triggered, turn over.
    opponents_before = core.layout[0, 1:].copy()
    play(core, Action.REVEAL_1)
    assert core.layout[0, 0, 1] == ids["yellow 4*"] and core.card_known[0, ids["yellow 4*"]]
    assert core.current[0] == 1
    # Seat 1's draw-pile card (blue 1) went on the blue 3 pile; nobody was refilled.
    assert pile_tops(core) == ["red 3", "blue 1"]
    np.testing.assert_array_equal(core.layout[0, 1:], opponents_before)


def test_simon_red_5_chain_reveals_yellow_2_then_his_regular_turn():
    core = make()
    load_named(core, layouts=[["grey 3", "green 4", "purple 5", "purple 2", "yellow 4", "yellow 5"], OPP],
               piles=[["green 1"]], draw=["red 5*", "yellow 2", "blue 6"])
    assert pile_tops(core) == ["green 1", "red 5*", "yellow 2"]
    assert core.phase[0] == Phase.MAIN and core.current[0] == 0
    assert names(core, core.draw_cards[0, core.draw_pos[0] : core.draw_pos[0] + 1]) == ["blue 6"]


def test_simon_blue_3_removes_the_other_two_piles():
    core = make()
    ids = load_named(core, layouts=[["blue 3*", "red 1", "red 2", "yellow 1", "yellow 3", "green 4"], OPP],
                     piles=[["purple 5"], ["yellow 3", "grey 3"], ["green 1"]], start_turn=False)
    play(core, Action.REVEAL_0)  # blue 3 fits only the grey 3 pile: placed, then removes the others
    assert pile_tops(core) == ["blue 3*"]
    assert core.card_loc[0, ids["purple 5"]] == LOC_ASIDE and core.card_loc[0, ids["green 1"]] == LOC_ASIDE
    assert core.card_where[0, ids["grey 3"]] == 0 and core.card_where[0, ids["yellow 3"]] == 0
    assert core.phase[0] == Phase.MAIN and core.current[0] == 0  # Simon plays on


def test_clemens_successful_call_with_two_cards():
    core = make()
    ids = load_named(core, layouts=[["grey 6", "red 4*"]] + [OPP], piles=[["purple 3"], ["green 6"]],
                     trophies=[4, 5, 3, 5, 4, 3, 3, 5, 4, 4, 3, 3], start_turn=False)
    assert legal(core) == ["REVEAL_0", "REVEAL_1", "CALL"]
    play(core, Action.REVEAL_0)  # grey 6 fits the green 6
    assert pile_tops(core) == ["purple 3", "grey 6"]
    assert legal(core) == ["REVEAL_1", "CALL"]
    draw_before = int(core.draw_len[0] - core.draw_pos[0])
    play(core, Action.CALL)
    assert core.trophy_count[0, 0] == 1 and core.trophy_points[0, 0] == 4
    # The red 4 (with "remove") was revealed but not played: piles untouched, it is face down again.
    assert core.layout[0, 0, 1] == ids["red 4*"] and core.card_known[0, ids["red 4*"]]
    assert (core.layout[0, 0] >= 0).sum() == 6  # refilled with five cards
    # seat 1 then drew one card at the start of its turn
    assert int(core.draw_len[0] - core.draw_pos[0]) == draw_before - 5 - 1
    assert core.current[0] == 1


def test_simon_failed_call_with_three_cards():
    core = make()
    ids = load_named(core, layouts=[["green 1", "red 3", "purple 2"]] + [OPP], piles=[["purple 5"]],
                     draw=["blue 1", "blue 2", "yellow 1", "green 2"], start_turn=False)
    play(core, Action.CALL)
    assert core.trophy_count[0].sum() == 0
    for card in ("green 1", "red 3", "purple 2"):
        assert core.card_known[0, ids[card]]
    # all three face down again in their slots (the fitting purple 2 is not played), three more drawn
    assert names(core, core.layout[0, 0]) == ["green 1", "red 3", "purple 2", "blue 1", "blue 2", "yellow 1"]
    assert pile_tops(core) == ["purple 5", "green 2"]  # seat 1's turn began with the green 2
    assert core.current[0] == 1


def test_failed_call_stops_at_the_first_fitting_card_later_cards_stay_unknown():
    core = make()
    ids = load_named(core, layouts=[["purple 2", "green 1"]] + [OPP], piles=[["purple 5"]], start_turn=False)
    play(core, Action.CALL)
    assert core.card_known[0, ids["purple 2"]] and not core.card_known[0, ids["green 1"]]
    assert core.trophy_count[0].sum() == 0


def test_call_stopped_by_a_prize_gives_the_prize_and_no_trophy():
    core = make()
    ids = load_named(core, layouts=[["green 1", "prize 2", "red 3"]] + [OPP], piles=[["purple 5"]],
                     start_turn=False)
    play(core, Action.CALL)
    assert core.prize_points[0, 0] == 2 and core.trophy_count[0, 0] == 0
    assert not core.card_known[0, ids["red 3"]]
    assert (core.layout[0, 0] >= 0).sum() == 6


def test_prize_from_draw_pile_ends_the_turn():
    core = make()
    load_named(core, layouts=[["green 1", "red 3", "purple 2"]] + [OPP], piles=[["purple 5"]],
               draw=["prize 0", "blue 6"])
    assert core.prize_count[0, 0] == 1 and core.prize_points[0, 0] == 0
    assert core.current[0] == 1 and pile_tops(core) == ["purple 5", "blue 6"]


def test_prize_as_last_layout_card_clears_the_layout():
    core = make()
    load_named(core, layouts=[["prize 1"]] + [OPP], piles=[["purple 5"]], start_turn=False)
    play(core, Action.REVEAL_0)
    assert core.prize_points[0, 0] == 1 and core.trophy_count[0, 0] == 1
    assert (core.layout[0, 0] >= 0).sum() == 6 and core.current[0] == 1


def test_clearing_the_last_card_wins_a_trophy_after_its_refill_function():
    core = make(4)
    load_named(core, layouts=[["yellow 4*"], ["red 1"], OPPS[1], OPPS[2]], piles=[["yellow 2"]], start_turn=False,
               trophies=[5, 4, 3, 5, 4, 3, 3, 5, 4, 4, 3, 3])
    play(core, Action.REVEAL_0)  # fits yellow 2: refill to 3 for opponents, then clearing
    assert (core.layout[0, 1] >= 0).sum() == 3  # seat 1 had one card
    assert (core.layout[0, 2] >= 0).sum() == 6
    assert core.trophy_points[0, 0] == 5 and (core.layout[0, 0] >= 0).sum() == 6
    assert core.current[0] == 1


def test_draw_card_fitting_several_piles_is_the_players_choice_then_its_function_resolves():
    core = make()
    load_named(core, layouts=[["grey 1"], OPP], piles=[["red 1"], ["green 5"], ["red 3"]], draw=["red 5*", "blue 2"])
    assert core.phase[0] == Phase.PLACE_DRAWN
    assert legal(core) == ["PLACE_GREEN_5", "PLACE_RED_1", "PLACE_RED_3"]
    play(core, Action.PLACE_RED_3)
    # red 5 reveals the blue 2: fits nothing (tops red 1, green 5, red 5) -> new pile
    assert pile_tops(core) == ["red 1", "green 5", "red 5*", "blue 2"]
    assert core.phase[0] == Phase.MAIN and core.current[0] == 0


def test_equal_tops_are_one_choice_and_the_oldest_pile_takes_the_card():
    core = make()
    ids = load_named(core, layouts=[["red 3", "blue 6"]] + [OPP], piles=[["red 5"], ["red 5"]], start_turn=False)
    play(core, Action.REVEAL_0)  # the two red 5 piles are one choice: placed automatically
    assert core.card_where[0, ids["red 3"]] == 0
    assert pile_tops(core) == ["red 3", "red 5"]


def test_allow_keep_offers_putting_back_a_fitting_card():
    core = make(allow_keep=True)
    ids = load_named(core, layouts=[["red 3", "blue 6", "grey 1"]] + [OPP], piles=[["red 5"]], start_turn=False)
    play(core, Action.REVEAL_0)
    assert legal(core) == ["PLACE_RED_5", "KEEP"]
    play(core, Action.KEEP)
    assert core.layout[0, 0, 0] == ids["red 3"] and core.card_known[0, ids["red 3"]] and core.current[0] == 1


def test_keep_is_never_legal_by_default():
    core = make()
    load_named(core, layouts=[["red 3", "red 4"]] + [OPP], piles=[["red 5"], ["blue 3"]], start_turn=False)
    play(core, Action.REVEAL_0)
    assert "KEEP" not in legal(core)


def _everything_else(core):
    """Ids of the cards still in the draw pile, split into number cards and prizes."""
    rest = np.flatnonzero(core.card_loc[0] == LOC_DRAW)
    return [c for c in rest if not core.tables.is_prize[c]], [c for c in rest if core.tables.is_prize[c]]


def test_empty_draw_pile_reshuffles_set_aside_cards():
    core = make()
    ids = load_named(core, layouts=[["grey 1", "grey 2"], OPP], piles=[["red 5"]], start_turn=False)
    numbers, prizes = _everything_else(core)
    core.load(0, layouts=core.layout[0], piles=[[ids["red 5"]]], set_aside=numbers, prizes=[[], prizes],
              start_turn=False)
    assert core.draw_len[0] - core.draw_pos[0] == 0
    play(core, Action.REVEAL_0)  # grey 1 fits nothing -> turn ends; seat 1 draws from a reshuffled pile
    assert core.draw_len[0] == len(numbers) and core.draw_pos[0] == 1
    assert not (core.card_loc[0] == LOC_ASIDE).any()
    assert core.card_known[0, numbers].sum() == 1  # only the card seat 1 turned up is known again


@pytest.mark.parametrize("reshuffle_discards", [True, False])
def test_without_set_aside_cards_the_discards_below_the_tops_are_reshuffled_or_draws_are_skipped(reshuffle_discards):
    core = make(reshuffle_discards=reshuffle_discards)
    ids = load_named(core, layouts=[["grey 1", "grey 2"], OPP], piles=[["red 4", "red 6"]], start_turn=False)
    numbers, prizes = _everything_else(core)
    pile = [ids["red 4"]] + numbers + [ids["red 6"]]
    core.load(0, layouts=core.layout[0], piles=[pile], prizes=[[], prizes], start_turn=False)
    play(core, Action.REVEAL_0)  # grey 1 fits nothing -> seat 1 must draw from an empty pile
    if reshuffle_discards:
        assert core.draw_len[0] == len(pile) - 1 and core.draw_pos[0] == 1  # all below the top, one drawn
        assert core.card_where[0, ids["red 6"]] == 0 and core.card_loc[0, ids["red 6"]] == 2
    else:
        assert core.draw_len[0] - core.draw_pos[0] == 0 and pile_tops(core) == ["red 6"]  # draw skipped
        assert core.phase[0] == Phase.MAIN and core.current[0] == 1


def test_many_discard_piles_fit_the_arrays_without_breaking_a_rule():
    # The pile arrays hold the most piles possible (one per number card: a pile is never empty).
    # Sixteen piles topped by red or yellow 1-3; a purple 4 (reveal) and the green 6 it reveals fit
    # none of them, so two more piles open during play.
    tops = [f"{c} {n}" for c in ("red", "yellow") for n in (1, 2, 3)] * 3
    tops = tops[:16]
    core = make()
    assert core.pile_top.shape[1] == core.pile_capacity == int((~core.tables.is_prize).sum())
    load_named(core, layouts=[["grey 5"], OPP], piles=[[t] for t in tops], draw=["purple 4*", "green 6"])
    assert core.pile_count[0] == 18 and core.pile_top.shape[1] >= 18
    assert pile_tops(core)[-2:] == ["purple 4*", "green 6"]
    assert core.observe(0)[0, core.obs_layout.slice("pile_tops")].sum() == 18
    assert core.phase[0] == Phase.MAIN


def test_last_trophy_ends_the_game_with_rewards():
    core = make(num_players=2)
    load_named(core, layouts=[["prize 2"], OPP], piles=[["purple 5"]], start_turn=False,
               won_trophies=[1] * 11)
    play(core, Action.REVEAL_0)
    assert core.terminated[0] and core.phase[0] == Phase.OVER and not core.legal_mask[0].any()
    # seat 0: 2 prize points + the last trophy (3); seat 1: eleven trophies
    assert core.scores[0, 0] == 5 and core.scores[0, 1] > 5
    np.testing.assert_allclose(core.rewards[0], [-1.0, 1.0])


def test_max_turns_truncates():
    core = KeineAhnungCore(4, Rules.make(3, max_turns=5), seed=0)
    rng = np.random.default_rng(0)
    for _ in range(200):
        if core.done.all():
            break
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in core.legal_mask])
        core.step(actions)
    assert core.truncated.all() and (core.turn == 5).all() and not core.terminated.any()
    assert (core.rewards == 0).all()


def test_empty_layout_leaves_only_the_call_which_succeeds():
    core = make(num_players=2)
    load_named(core, layouts=[[], OPP], piles=[["purple 5"]], start_turn=False)
    assert legal(core) == ["CALL"]
    play(core, Action.CALL)
    assert core.trophy_count[0, 0] == 1
