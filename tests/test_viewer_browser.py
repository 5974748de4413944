"""The viewer in a real browser: the system's Chromium driven by Playwright (never ``playwright install``:
nothing is downloaded). The tests open a replay, step it, check that the cards on the page are the ones
the engine's observation holds, and play a complete game against a bot by clicks.

Chromium comes from the system's packages (``apt-get install -y chromium``; ``.ci/run`` installs it);
where ``/usr/bin/chromium`` is missing these tests are skipped with that message.
"""

from __future__ import annotations

import threading
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

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


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The viewer on a free port of 127.0.0.1, serving two recorded games."""
    folder = tmp_path_factory.mktemp("browser_replays")
    record(folder, "gap_v0", 3, 1)
    record(folder, "keine_ahnung_v0", 3, 2)
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
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
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


def test_a_whole_game_played_by_clicks(page, site):
    # dnp with two players against its strongest bot: a whole game takes about 30 clicks.
    _, _, app = site
    live = app.config["LIVE_GAMES"]
    page.select_option("#game", "dnp_v0")
    page.select_option("#players", "2")
    page.select_option("#seat", "1")
    page.fill("#bots", "tactician")
    page.fill("#seed", "4")
    page.click("#start")
    page.wait_for_selector("#play-panel[data-moves]")
    game = live.get(page.get_attribute("#play-panel", "data-game-id"))
    assert game.seat == 1 and game.names == ["tactician", "you"]
    rng = np.random.default_rng(0)
    clicks = 0
    while page.get_attribute("#status", "data-over") != "1":
        offered = page.eval_on_selector_all("#actions button.action",
                                            "els => els.map(e => [Number(e.dataset.action), e.textContent])")
        assert sorted(a for a, _ in offered) == np.flatnonzero(game.core.legal_mask[0]).tolist()  # legal, no more
        if clicks == 0:
            own = names(page_cards(page), "hand", "1")
            assert own and sorted(own) == sorted(c["name"] for c in table_scene(game.spec, game.core, 0, 1, False)
                                                 .cards() if c["region"] == "hand" and c["seat"] == 1)
        moves = page.get_attribute("#play-panel", "data-moves")
        # Shed cards to end the game soon: play a selection when one is ready, else a random move.
        ready = [a for a, name in offered if name == "PLAY"]
        choice = ready[0] if ready and rng.random() < 0.8 else offered[int(rng.integers(len(offered)))][0]
        page.click(f"#actions button[data-action='{choice}']")
        page.wait_for_selector(f"#play-panel:not([data-moves='{moves}'])")
        clicks += 1
        assert clicks < 400, "the game should end long before"
    assert game.over and clicks > 3
    assert page.query_selector_all("#actions button") == []
    result = page.inner_text("#result")
    assert "Scores:" in result and ("You win!" in result or "did not win" in result)
    assert page.inner_text("#error") == ""
