"""The viewer in a real browser: the system's Chromium driven by Playwright (never ``playwright install``:
nothing is downloaded). The tests open a replay, step it, check that the cards on the page are the ones
the engine's observation holds, and play every game by clicking its cards (a layout card, a pile, a
hand card, found in the scene's placed cards, not in its targets), a complete game against a bot too.

Chromium comes from the system's packages (``apt-get install -y chromium``; ``.ci/run`` installs it);
where ``/usr/bin/chromium`` is missing these tests are skipped with that message.
"""

from __future__ import annotations

import threading
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from keine_ahnung_env import registry
from keine_ahnung_env.pictures import table_scene
from keine_ahnung_env.replay import Replay
from training import viewer

from test_viewer import record  # noqa: E402 (tests/ is on sys.path under pytest)

CHROMIUM = "/usr/bin/chromium"
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TIMEOUT_MS = 20_000

pytestmark = pytest.mark.skipif(not Path(CHROMIUM).exists(),
                                reason=f"Chromium is missing at {CHROMIUM}: install it with "
                                       "`apt-get install -y chromium` (.ci/run does)")


UNFINISHED = "a_game_left_before_its_end_by_the_player_keine_ahnung_v0_4p_seed12345678.json"


def record_unfinished(folder, moves: int = 9) -> None:
    """A Keine Ahnung game stopped after ``moves`` moves, saved under a long name."""
    spec = registry.game_spec("keine_ahnung_v0", 4)
    core = spec.make_core(1, 0)
    core.seed(12345678, game_ids=[0])
    core.reset_games(np.zeros(1, np.intp))
    actions = []
    for _ in range(moves):
        actions.append(int(np.flatnonzero(core.legal_mask[0])[0]))
        core.step(np.array([actions[-1]]))
    Replay.record(spec, core, 0, 12345678, 0, ["random"] * 4, actions).save(folder / UNFINISHED)


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The viewer on a free port of 127.0.0.1, serving two recorded games and one left unfinished."""
    folder = tmp_path_factory.mktemp("browser_replays")
    record(folder, "gap_v0", 3, 1)
    record(folder, "keine_ahnung_v0", 3, 2)
    record_unfinished(folder)
    app = viewer.create_app(folder)
    server = viewer.make_server(app, 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.port}/", folder, app
    server.shutdown()
    thread.join(10)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        yield chromium
        chromium.close()


@pytest.fixture
def page(browser, site):
    context = browser.new_context(viewport={"width": 1400, "height": 1300})
    tab = context.new_page()
    tab.set_default_timeout(TIMEOUT_MS)
    tab.goto(site[0])
    tab.wait_for_selector("body[data-ready='1']")
    yield tab
    context.close()


def page_cards(tab) -> list[dict]:
    return tab.eval_on_selector_all(
        "#board .card", "els => els.map(e => ({region: e.dataset.region, seat: e.dataset.seat, "
                        "name: e.dataset.name || null, up: e.dataset.faceUp === '1'}))")


def names(cards, region: str, seat: str = "") -> list[str]:
    return [c["name"] for c in cards if c["region"] == region and c["seat"] == seat and c["up"]]


def step_to(tab, move: int) -> None:
    """Clicks "next" until the page shows position ``move``."""
    while int(tab.get_attribute("#move", "data-move")) < move:
        shown = int(tab.get_attribute("#move", "data-move"))
        tab.click("#next")
        tab.wait_for_selector(f"#move[data-move='{shown + 1}']")


def test_a_gap_replay_stepped_from_a_seat_shows_that_seats_observation(page, site):
    from keine_ahnung_env.games.gap.deck import card_name
    from keine_ahnung_env.games.gap.observation import CARD_FEATURES, decode_cards, layout_for_width

    _, folder, _ = site
    page.click("button.replay[data-name='gap_v0.json']")
    page.wait_for_selector("#move[data-move='0']")
    page.select_option("#view", "seat:1")
    page.wait_for_selector("#picture[alt='view: seat 1']")
    step_to(page, 12)  # past the hidden-card choices (6 with 3 players): the piles are laid
    replay = Replay.load(folder / "gap_v0.json")
    obs = replay.core_at(12).observe(1)[0]
    sections = layout_for_width(obs.shape[0]).split(obs)
    cards = page_cards(page)
    assert sorted(names(cards, "hand", "1")) == sorted(card_name(c) for c in decode_cards(sections["hand"]))
    assert sorted(names(cards, "hidden", "1")) == sorted(card_name(c) for c in decode_cards(sections["hidden"]))
    tops = []
    for k in range(2):
        features = sections["pile_tops"][k * CARD_FEATURES:(k + 1) * CARD_FEATURES]
        tops.append(card_name(int(features[:6].argmax()) * 11 + int(features[6:].argmax())))
    assert names(cards, "pile") == tops
    # The other seats' hands and hidden cards are backs, named nowhere on the page.
    for seat in ("0", "2"):
        theirs = [c for c in cards if c["seat"] == seat and c["region"] in ("hand", "hidden")]
        assert len([c for c in theirs if c["region"] == "hand"]) == int(sections["hand_sizes"][(int(seat) - 1) % 3])
        assert theirs and not any(c["up"] or c["name"] for c in theirs)
    assert page.inner_text("#observation") == replay.spec.observation_string(obs)
    # Back one move, then the full view shows every hand.
    page.click("#prev")
    page.wait_for_selector("#move[data-move='11']")
    page.select_option("#view", "all")
    page.wait_for_selector("#picture[alt='view: all cards']")
    full = page_cards(page)
    assert all(c["up"] for c in full if c["region"] in ("hand", "hidden"))
    assert page.is_hidden("#observation")


def test_a_keine_ahnung_replay_shows_the_piles_and_layouts_the_observation_holds(page, site):
    from keine_ahnung_env.games.keine_ahnung.deck import COLOURS
    from keine_ahnung_env.games.keine_ahnung.observation import SLOT_FEATURES, ObservationLayout

    _, folder, _ = site
    page.click("button.replay[data-name='keine_ahnung_v0.json']")
    page.wait_for_selector("#move[data-move='0']")
    page.select_option("#view", "seat:0")
    page.wait_for_selector("#picture[alt='view: seat 0']")
    page.focus("#board")
    for move in range(1, 26):  # the keyboard steps too
        page.keyboard.press("ArrowRight")
        page.wait_for_selector(f"#move[data-move='{move}']")
    replay = Replay.load(folder / "keine_ahnung_v0.json")
    core = replay.core_at(25)
    obs = core.observe(0)[0]
    sections = ObservationLayout.make(3, core.tables.num_types).split(obs)
    cards = page_cards(page)
    expected = Counter()
    for face in np.flatnonzero(sections["pile_tops"]):
        expected[f"{COLOURS[face // 6]} {face % 6 + 1}"] += int(sections["pile_tops"][face])
    assert Counter(n.rstrip("*") for n in names(cards, "pile")) == expected
    slots = sections["layouts"].reshape(3, 6, SLOT_FEATURES)
    for rel in range(3):
        seat = str(rel)  # the observer is seat 0: relative seats are seats
        states = slots[rel, :, :3].argmax(axis=1)[slots[rel, :, :3].any(axis=1)]
        layout = [c for c in cards if c["region"] == "layout" and c["seat"] == seat]
        assert sum(not c["up"] for c in layout) == int((states == 1).sum())  # face down, unknown
        assert sum(c["up"] for c in layout) == int((states == 2).sum())  # face down, known to the table


def test_the_start_page_offers_keine_ahnung_and_lists_full_replay_names(page):
    assert page.input_value("#game") == "keine_ahnung_v0"
    listed = page.eval_on_selector_all("button.replay", "els => els.map(e => e.dataset.name)")
    assert UNFINISHED in listed and "gap_v0.json" in listed
    for name in listed:
        button = f"button.replay[data-name='{name}']"
        # The whole name shows: nothing of it is cut off (no overflow), none of it hidden in a scroll.
        assert page.inner_text(f"{button} .replay-name") == name
        assert page.eval_on_selector(f"{button} .replay-name", "e => e.scrollWidth <= e.clientWidth")
        assert page.eval_on_selector(button, "e => e.scrollWidth <= e.clientWidth")
        unfinished = name == UNFINISHED
        assert page.get_attribute(button, "data-finished") == ("0" if unfinished else "1")
        assert ("unfinished" in page.inner_text(button)) == unfinished


def start_game(page, app, env: str, players: int, seed: int, bots: list[str]):
    """Starts a game at seat 0 by the form; returns the server's live game."""
    page.select_option("#game", env)
    page.select_option("#players", str(players))
    page.select_option("#seat", "0")
    page.fill("#bots", ",".join(bots))
    page.fill("#seed", str(seed))
    page.click("#start")
    page.wait_for_selector("#play-panel[data-moves]")
    return app.config["LIVE_GAMES"].get(page.get_attribute("#play-panel", "data-game-id"))


def click_picture(page, x: float, y: float) -> None:
    """A mouse click at (x, y) of the picture: whatever lies there on the page gets it."""
    box = page.locator("#picture").bounding_box()
    page.mouse.click(box["x"] + x, box["y"] + y)


def made_by(page, game, *points) -> int:
    """Clicks the picture at each point in turn and returns the player's move that followed."""
    before, moves = len(game.actions), page.get_attribute("#play-panel", "data-moves")
    for k, (x, y) in enumerate(points):
        if k:
            page.wait_for_selector("#board button.then")  # the card is marked: now where it goes
        click_picture(page, x, y)
    page.wait_for_selector(f"#play-panel:not([data-moves='{moves}'])")
    assert page.inner_text("#error") == ""
    return game.actions[before]


def centre(item) -> tuple[float, float]:
    return item.x + item.w / 2, item.y + item.h / 2


def test_keine_ahnung_played_by_clicking_layout_cards_piles_and_the_trophies(page, site):
    from keine_ahnung_env.games.keine_ahnung.actions import ACTION_CALL, ACTION_KEEP, Phase, place_action

    game = start_game(page, site[2], "keine_ahnung_v0", 3, 11, ["random", "random"])
    rng = np.random.default_rng(1)
    kinds = []
    typed = False
    while not game.over and len(kinds) < 120:
        core, spec = game.core, game.spec
        scene = table_scene(spec, core, 0, 0, False)
        legal = np.flatnonzero(core.legal_mask[0]).tolist()
        if Phase(int(core.phase[0])) == Phase.MAIN:
            slots = [s for s in legal if s < 6]
            if not typed:  # a keyboard user types the key of the move
                moves = page.get_attribute("#play-panel", "data-moves")
                page.fill("#move-key", f"r{slots[0]}")
                page.press("#move-key", "Enter")
                page.wait_for_selector(f"#play-panel:not([data-moves='{moves}'])")
                assert game.actions[int(moves)] == slots[0]
                typed = True
                continue
            if ACTION_CALL in legal and (not slots or rng.random() < 0.5):
                trophies = next(it for it in scene.items if it.region == "trophy_pile")
                expected, point = ACTION_CALL, centre(trophies)
            else:
                layout = [it for it in scene.items if it.region == "layout" and it.seat == 0]  # slots 0-5
                expected = int(rng.choice(slots))
                point = centre(layout[expected])
        else:
            piles = [it for it in scene.items if it.region == "pile"]
            fitting = [k for k in range(len(piles)) if place_action(int(core.pile_face[0, k])) in legal]
            if ACTION_KEEP in legal and rng.random() < 0.3:
                expected, point = ACTION_KEEP, centre(next(it for it in scene.items if it.region == "pending"))
            else:
                k = int(rng.choice(fitting))
                expected, point = place_action(int(core.pile_face[0, k])), centre(piles[k])
        assert made_by(page, game, point) == expected
        kinds.append(spec.action_name(expected).split("_")[0])
    assert {"REVEAL", "PLACE"} <= set(kinds), kinds


def test_the_gap_game_played_by_clicking_hand_cards_then_piles(page, site):
    from keine_ahnung_env.games.gap.actions import ACTION_PASS, Phase, flip_action, hide_action, play_action
    from keine_ahnung_env.games.gap.deck import card_name

    game = start_game(page, site[2], "gap_v0", 3, 5, ["random", "random"])
    rng = np.random.default_rng(2)
    kinds = []
    while not game.over and len(kinds) < 60:
        core, spec = game.core, game.spec
        scene = table_scene(spec, core, 0, 0, False)
        legal = set(np.flatnonzero(core.legal_mask[0]).tolist())
        ids = {card_name(c): c for c in core.hand(0, 0)}
        # The left edge of a hand card shows under the next one: the player clicks there.
        hand = {ids[it.card.name]: (it.x + 4, it.y + it.h / 2) for it in scene.items
                if it.region == "hand" and it.seat == 0}
        piles = [centre(it) for it in scene.items if it.region == "pile"]
        phase = Phase(int(core.phase[0]))
        if phase == Phase.HIDE:
            card = int(rng.choice([c for c in hand if hide_action(c) in legal]))
            expected, points, kind = hide_action(card), [hand[card]], "HIDE"
        elif phase == Phase.FLIP:
            pile = int(rng.choice([p for p in range(2) if flip_action(p) in legal]))
            expected, points, kind = flip_action(pile), [piles[pile]], "FLIP"
        else:
            both = [c for c in hand if play_action(c, 0) in legal and play_action(c, 1) in legal]
            one = [c for c in hand if (play_action(c, 0) in legal) != (play_action(c, 1) in legal)]
            if both:  # the card, then the pile
                card, pile = int(rng.choice(both)), int(rng.integers(2))
                expected, points, kind = play_action(card, pile), [hand[card], piles[pile]], "PLAY on a chosen pile"
            elif one and rng.random() < 0.8:  # the card goes on the one pile it fits
                card = int(rng.choice(one))
                expected = next(play_action(card, p) for p in range(2) if play_action(card, p) in legal)
                points, kind = [hand[card]], "PLAY"
            else:
                draw = next(it for it in scene.items if it.region == "draw")
                expected, points, kind = ACTION_PASS, [centre(draw)], "PASS"
        assert expected in legal
        assert made_by(page, game, *points) == expected, kind
        kinds.append(kind)
    assert {"HIDE", "PLAY on a chosen pile", "PASS"} <= set(kinds), kinds


def test_a_marked_card_is_taken_back_with_escape(page, site):
    from keine_ahnung_env.games.gap.actions import Phase, play_action

    game = start_game(page, site[2], "gap_v0", 2, 5, ["random"])
    for _ in range(40):
        core = game.core
        legal = set(np.flatnonzero(core.legal_mask[0]).tolist())
        both = [t for t in page.eval_on_selector_all("#board button.target", "els => els.map(e => e.dataset.actions)")
                if len(t.split()) == 2]
        if Phase(int(core.phase[0])) == Phase.PLAY and both:
            break
        moves = page.get_attribute("#play-panel", "data-moves")
        page.click(f"#actions button[data-action='{min(legal)}']")
        page.wait_for_selector(f"#play-panel:not([data-moves='{moves}'])")
    else:
        pytest.fail("no card playable on both piles within 40 moves")
    actions = both[0]
    card = int(actions.split()[0]) // 2
    assert actions == f"{play_action(card, 0)} {play_action(card, 1)}"
    page.click(f"#board button.target[data-actions='{actions}']", position={"x": 3, "y": 30})
    assert len(page.query_selector_all("#board button.then")) == 2
    assert "Now click where it goes" in page.inner_text("#status")
    page.keyboard.press("Escape")
    assert page.query_selector_all("#board button.then") == [] and page.query_selector_all("#board .chosen") == []
    assert len(game.actions) == int(page.get_attribute("#play-panel", "data-moves"))  # nothing was played


def test_a_whole_dnp_game_played_by_clicking_cards_and_sets(page, site):
    # dnp with two players against its strongest bot: a whole game takes about 30 clicks. Cards and sets
    # are clicked in the picture; TURN (no card of its own) by its button.
    game = start_game(page, site[2], "dnp_v0", 2, 4, ["tactician"])
    assert game.names == ["you", "tactician"]
    rng = np.random.default_rng(0)
    clicks, on_cards = 0, []
    while page.get_attribute("#status", "data-over") != "1":
        offered = page.eval_on_selector_all("#actions button.action",
                                            "els => els.map(e => [Number(e.dataset.action), e.dataset.name])")
        assert sorted(a for a, _ in offered) == np.flatnonzero(game.core.legal_mask[0]).tolist()  # legal, no more
        scene = table_scene(game.spec, game.core, 0, 0, False)
        if clicks == 0:
            own = names(page_cards(page), "hand", "0")
            assert own and sorted(own) == sorted(c["name"] for c in scene.cards()
                                                 if c["region"] == "hand" and c["seat"] == 0)
        # Shed cards to end the game soon: play a selection when one is ready, else a random move.
        ready = [a for a, name in offered if name == "PLAY"]
        choice = ready[0] if ready and rng.random() < 0.8 else offered[int(rng.integers(len(offered)))][0]
        box = next((t for t in scene.targets() if t["action"] == choice), None)
        if box is None:
            moves = page.get_attribute("#play-panel", "data-moves")
            before = len(game.actions)
            page.click(f"#actions button[data-action='{choice}']")
            page.wait_for_selector(f"#play-panel:not([data-moves='{moves}'])")
            made = game.actions[before]
        else:
            point = (box["x"] + box["w"] / 2, box["y"] + box["h"] / 2)
            if choice < game.core.actions.num_cards:  # SELECT: the card on top where the click lands is it
                from keine_ahnung_env.games.dnp.picture import card_face

                under = [it for it in scene.items if it.x <= point[0] < it.x + it.w and it.y <= point[1] < it.y + it.h]
                assert under[-1].region == "hand"
                assert under[-1].card == card_face(game.core.tables, game.core, 0, choice)
            made = made_by(page, game, point)
            on_cards.append(game.spec.action_name(choice).split("_")[0])
        assert made == choice
        clicks += 1
        assert clicks < 400, "the game should end long before"
    assert game.over and clicks > 3
    assert {"SELECT", "PLAY"} <= set(on_cards), on_cards
    assert page.query_selector_all("#actions button") == []
    result = page.inner_text("#result")
    assert "Scores:" in result and ("You win!" in result or "did not win" in result)
    assert page.inner_text("#error") == ""
