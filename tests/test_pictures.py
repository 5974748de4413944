"""Pictures of every game (``GameSpec.scene`` / ``GameSpec.draw``) and the render modes that show them.

The leak tests change, in the middle of a game, something a seat cannot see (cards in other hands or
face-down layouts, the draw order, a card's hidden orientation) and check that the seat's picture
stays the same to the pixel while the full picture (``reveal_all``) changes.
"""

from __future__ import annotations

import numpy as np
import pytest
from PIL import Image

from keine_ahnung_env import registry
from keine_ahnung_env.pictures import CARD_W, Box, Card, Scene, fanned, frames_to_gif, table_scene

PICTURED = [name for name in registry.games() if registry.game_spec(name).scene is not None]


def test_every_built_in_game_draws_pictures():
    assert {"keine_ahnung_v0", "gap_v0", "dnp_v0"} <= set(PICTURED)


def play_to(spec, moves: int, seed: int = 0):
    """A one-game core after ``moves`` random legal moves (fewer if the game ends)."""
    core = spec.make_core(1, seed)
    core.reset_games(np.zeros(1, np.intp))
    rng = np.random.default_rng(seed)
    for _ in range(moves):
        if core.done[0]:
            break
        core.step(np.array([rng.choice(np.flatnonzero(core.legal_mask[0]))]))
    return core


@pytest.mark.parametrize("name", PICTURED)
@pytest.mark.parametrize("players", [2, 4])
def test_pictures_from_every_point_of_view(name, players):
    spec = registry.game_spec(name, players)
    core = play_to(spec, 30)
    seat_view = spec.draw(core, 0, seat=0)
    public = spec.draw(core, 0)
    full = spec.draw(core, 0, reveal_all=True)
    for picture in (seat_view, public, full):
        assert picture.dtype == np.uint8 and picture.ndim == 3 and picture.shape[2] == 3
        assert picture.shape[0] > 100 and picture.shape[1] > 100
        colours = (picture[..., 0].astype(np.int64) << 16) | (picture[..., 1].astype(np.int64) << 8) | picture[..., 2]
        assert np.unique(colours).size > 20  # something is drawn
    assert not np.array_equal(seat_view, full)
    # Every card of the full view has a name; the seat's view names fewer (hidden cards are backs).
    full_cards = table_scene(spec, core, 0, None, True).cards()
    seat_cards = table_scene(spec, core, 0, 0, False).cards()
    assert all(c["name"] for c in full_cards if c["region"] not in ("draw", "trophy_pile"))  # piles: counts
    assert sum(c["face_up"] for c in seat_cards) < sum(c["face_up"] for c in full_cards)


@pytest.mark.parametrize("name", PICTURED)
def test_a_finished_game_draws(name):
    spec = registry.game_spec(name, 2)
    core = play_to(spec, 100_000, seed=1)
    assert core.done[0]
    assert spec.draw(core, 0, seat=1).shape[2] == 3


def _swap(array: np.ndarray, b: int, i: int, j: int) -> None:
    array[b, i], array[b, j] = array[b, j].copy(), array[b, i].copy()


def hide_change_keine_ahnung(core, seat: int) -> None:
    """Swaps two face-down layout cards nobody has seen (other seats') and reverses the draw pile."""
    from keine_ahnung_env.games.keine_ahnung.core import LOC_LAYOUT

    t = core.tables
    places = [(p, s, int(core.layout[0, p, s])) for p in range(core.num_players) if p != seat for s in range(6)
              if core.layout[0, p, s] >= 0 and not core.card_known[0, core.layout[0, p, s]]]
    (p1, s1, c1), (p2, s2, c2) = next(((a, b) for a in places for b in places
                                       if t.card_name(a[2]) != t.card_name(b[2])))
    core.layout[0, p1, s1], core.layout[0, p2, s2] = c2, c1
    core.card_where[0, c1], core.card_where[0, c2] = p2, p1
    assert core.card_loc[0, c1] == core.card_loc[0, c2] == LOC_LAYOUT
    lo, hi = int(core.draw_pos[0]), int(core.draw_len[0])
    core.draw_cards[0, lo:hi] = core.draw_cards[0, lo:hi][::-1].copy()


def hide_change_gap(core, seat: int) -> None:
    """Swaps a hand card of two other seats and reverses the draw pile."""
    others = [p for p in range(core.num_players) if p != seat]
    a, b = core.hand(0, others[0])[0], core.hand(0, others[1])[0]
    _swap(core.card_owner, 0, a, b)
    lo, hi = int(core.draw_pos[0]), int(core.draw_len[0])
    core.draw_cards[0, lo:hi] = core.draw_cards[0, lo:hi][::-1].copy()


def hide_change_dnp(core, seat: int) -> None:
    """Swaps a hand card nobody knows between two other seats and turns an unknown card over."""
    others = [p for p in range(core.num_players) if p != seat]
    unknown = [[c for c in core.hand(0, p) if not core.card_public[0, c]] for p in others[:2]]
    a, b = unknown[0][0], unknown[1][0]
    _swap(core.card_where, 0, a, b)
    core.card_rot[0, a] ^= 1


HIDE_CHANGES = {"keine_ahnung_v0": (hide_change_keine_ahnung, 10), "gap_v0": (hide_change_gap, 20),
                "dnp_v0": (hide_change_dnp, 6)}


@pytest.mark.parametrize("name", sorted(HIDE_CHANGES))
def test_a_seat_picture_does_not_show_what_the_seat_cannot_see(name):
    change, moves = HIDE_CHANGES[name]
    spec = registry.game_spec(name, 4)
    core = play_to(spec, moves, seed=2)
    assert not core.done[0]
    seat = int(core.current[0])
    before = {view: spec.draw(core, 0, seat=view) for view in (seat, None)}
    full_before = spec.draw(core, 0, reveal_all=True)
    change(core, seat)
    for view, picture in before.items():
        assert np.array_equal(spec.draw(core, 0, seat=view), picture), f"view {view} shows a hidden change"
    assert not np.array_equal(spec.draw(core, 0, reveal_all=True), full_before)


def test_keine_ahnung_own_trophies_show_only_to_their_owner():
    spec = registry.game_spec("keine_ahnung_v0", 2)
    core = play_to(spec, 60, seed=3)
    owners = {int(o) for o in core.trophy_owner[0] if o >= 0}
    assert owners and not core.done[0], "the fixed deal has a trophy won after 60 moves"
    owner = min(owners)
    other = 1 - owner
    trophies = lambda seat: [c for c in table_scene(spec, core, 0, seat, False).cards()  # noqa: E731
                             if c["region"] == "trophies" and c["seat"] == owner]
    assert trophies(owner) and all(c["face_up"] for c in trophies(owner))
    assert trophies(other) and not any(c["face_up"] for c in trophies(other))


def test_bad_points_of_view_and_games_without_pictures():
    spec = registry.game_spec("gap_v0", 3)
    core = play_to(spec, 3)
    with pytest.raises(ValueError, match=r"seat=3; allowed: None \(the public table\) or a seat 0..2"):
        spec.draw(core, 0, seat=3)
    with pytest.raises(ValueError, match="reveal_all='yes'; allowed: True or False"):
        spec.draw(core, 0, reveal_all="yes")
    with pytest.raises(ValueError, match="game=1; allowed: 0..0"):
        spec.draw(core, 1)
    import tiny_game  # a game defined in the tests, without a scene

    tiny_game.register()
    try:
        tiny = registry.game_spec(tiny_game.NAME)
        with pytest.raises(ValueError, match="tiny_v0 draws no pictures"):
            tiny.draw(tiny.make_core(1, 0), 0)
        for mode in ("rgb_array", "human"):
            with pytest.raises(ValueError, match=f"render_mode='{mode}': tiny_v0 draws no pictures"):
                tiny_game.raw_env(render_mode=mode)
    finally:
        tiny_game.unregister()
    with pytest.raises(ValueError, match="card colour 'pink'"):
        Card("pink", "1", "pink 1")
    with pytest.raises(ValueError, match="mark='glow'"):
        Scene(10, 10).card(0, 0, Card("red", "1", "red 1"), "pile", mark="glow")


@pytest.mark.parametrize("name", PICTURED)
def test_rgb_array_render_mode_of_the_aec_and_solo_environments(name):
    module = registry.entry_points(name)
    env = module.raw_env(num_players=3, render_mode="rgb_array", render_seat=1)
    env.reset(seed=4)
    picture = env.render()
    assert np.array_equal(picture, env.game.draw(env.core, 0, seat=1))
    public = module.raw_env(num_players=3, render_mode="rgb_array")
    public.reset(seed=4)
    assert np.array_equal(public.render(), env.game.draw(env.core, 0))
    full = module.env(num_players=3, render_mode="rgb_array", render_reveal_all=True)
    full.reset(seed=4)
    assert np.array_equal(full.render(), env.game.draw(env.core, 0, reveal_all=True))
    assert module.raw_env(num_players=3, render_mode="ansi").metadata["render_modes"] == ["human", "ansi", "rgb_array"]
    with pytest.raises(ValueError, match=r"render_seat=3; allowed: None \(the public table\) or a seat 0..2"):
        module.raw_env(num_players=3, render_mode="rgb_array", render_seat=3)
    import agents

    solo = module.solo_env([agents.make("random", game=name, seed=0)] * 2, num_players=3, seat=2,
                           render_mode="rgb_array")
    solo.reset(seed=5)
    assert np.array_equal(solo.render(), solo.game.draw(solo.games.core, 0, seat=2))
    solo.close()


def test_human_render_mode_shows_a_window(monkeypatch):
    pytest.importorskip("pygame", reason="render_mode='human' needs pygame (pip install pygame; the test extra has it)")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")  # a window without a screen
    from keine_ahnung_env import gap_v0

    env = gap_v0.raw_env(num_players=2, render_mode="human", render_seat=0)
    env.reset(seed=0)  # shows the table
    assert env.render() is None
    window = env._renderer.window
    assert window is not None and window.screen.get_size()[::-1] == env.game.draw(env.core, 0, seat=0).shape[:2]
    env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    import copy
    import pickle

    assert pickle.loads(pickle.dumps(env))._renderer.window is None  # a copy opens its own window
    assert copy.deepcopy(env).render_mode == "human"
    env.close()
    assert env._renderer.window is None


def test_frames_become_a_looping_gif(tmp_path):
    spec = registry.game_spec("keine_ahnung_v0", 2)
    core = play_to(spec, 0)
    frames = []
    for _ in range(4):
        frames.append(spec.draw(core, 0, reveal_all=True))
        core.step(np.array([np.flatnonzero(core.legal_mask[0])[0]]))
    frames.append(frames[0][:-40])  # a smaller frame is padded
    frames_to_gif(frames, tmp_path / "game.gif", seconds_per_frame=0.1)
    with Image.open(tmp_path / "game.gif") as gif:
        assert gif.n_frames == 5 and gif.size == (frames[0].shape[1], frames[0].shape[0])
    with pytest.raises(ValueError, match="no frames"):
        frames_to_gif([], tmp_path / "none.gif")


def test_keine_ahnung_seen_cards_show_only_with_perfect_memory():
    layouts = {}
    for memory in ("perfect", "none"):
        spec = registry.game_spec("keine_ahnung_v0", 3, memory=memory)
        core = play_to(spec, 40, seed=6)
        known = [int(c) for c in core.layout[0].reshape(-1) if c >= 0 and core.card_known[0, c]]
        assert known, "the fixed deal has layout cards the table has seen"
        layouts[memory] = [c for c in table_scene(spec, core, 0, 0, False).cards() if c["region"] == "layout"]
        named = sorted(c["name"] for c in layouts[memory] if c["face_up"])
        if memory == "perfect":
            assert named == sorted(core.tables.card_name(c) for c in known)
            assert all(c["mark"] == "known" for c in layouts[memory] if c["face_up"])
        else:
            assert named == []
    assert len(layouts["perfect"]) == len(layouts["none"])  # the same places, the same deal


# ---------------------------------------------------------------------------------------- targets

BUTTONS_ONLY = {"keine_ahnung_v0": set(), "gap_v0": set(), "dnp_v0": {"TURN"}}
"""Moves without a card or pile of their own: they stay buttons (every other legal move has a target)."""


def _inside(box: dict, scene: Scene) -> bool:
    return box["w"] > 0 and box["h"] > 0 and 0 <= box["x"] and 0 <= box["y"] and \
        box["x"] + box["w"] <= scene.width and box["y"] + box["h"] <= scene.height


def _meet(a: dict, b: dict) -> bool:
    return (a["x"] < b["x"] + b["w"] and b["x"] < a["x"] + a["w"]
            and a["y"] < b["y"] + b["h"] and b["y"] < a["y"] + a["h"])


def _at(scene: Scene, box: dict, region: str, seat: int | None = None):
    """The placed item of ``region`` (and ``seat``) whose top-left corner is the box's."""
    found = [it for it in scene.items
             if it.region == region and it.seat == seat and (it.x, it.y) == (box["x"], box["y"])]
    assert len(found) == 1, (region, seat, box)
    return found[0]


def check_targets(spec, core, scene: Scene) -> None:
    """The targets of the acting seat's view: legal moves only, every legal move that is not a button
    has one, inside the picture, on the card or pile the move is about, and the boxes of different
    moves meet only where the second click tells them apart (a gap card playable on both piles)."""
    legal = set(np.flatnonzero(core.legal_mask[0]).tolist())
    targets = scene.targets()
    assert {t["action"] for t in targets} <= legal
    wanted = {a for a in legal if spec.action_name(a).split("_")[0] not in BUTTONS_ONLY[spec.name]}
    assert {t["action"] for t in targets} == wanted, [spec.action_name(a) for a in wanted]
    for t in targets:
        assert _inside(t, scene) and (t["then"] is None or _inside(t["then"], scene)), t
    for i, a in enumerate(targets):
        for b in targets[i + 1:]:
            if a["action"] == b["action"] or not _meet(a, b):
                continue
            same_box = all(a[k] == b[k] for k in "xywh")
            assert same_box and a["then"] and b["then"] and a["then"] != b["then"], (a, b)
    seat = int(core.current[0])
    for t in targets:
        name = spec.action_name(t["action"])
        if spec.name == "keine_ahnung_v0":
            from keine_ahnung_env.games.keine_ahnung.actions import ACTION_PLACE_BASE
            from keine_ahnung_env.games.keine_ahnung.deck import COLOURS

            if name.startswith("REVEAL_"):
                slot = int(name[-1])
                layout = [it for it in scene.items if it.region == "layout" and it.seat == seat]
                assert (layout[slot].x, layout[slot].y) == (t["x"], t["y"]) and layout[slot].kind != "empty"
            elif name.startswith("PLACE_"):
                face = t["action"] - ACTION_PLACE_BASE
                pile = _at(scene, t, "pile")
                assert pile.card.name.rstrip("*") == f"{COLOURS[face // 6]} {face % 6 + 1}"
            elif name == "KEEP":
                _at(scene, t, "pending")
            else:
                assert name == "CALL" and _at(scene, t, "trophy_pile").kind == "trophy"
        elif spec.name == "gap_v0":
            from keine_ahnung_env.games.gap.deck import card_name

            if name.startswith(("PLAY_", "HIDE_")):
                card = t["action"] // 2 if name.startswith("PLAY_") else t["action"] - 133
                assert _at(scene, t, "hand", seat).card.name == card_name(card)
                if name.startswith("PLAY_"):
                    piles = [it for it in scene.items if it.region == "pile"]
                    assert t["then"] == {"x": piles[t["action"] % 2].x, "y": piles[t["action"] % 2].y, "w": CARD_W,
                                         "h": piles[0].h}
            elif name == "PASS":
                _at(scene, t, "draw")
            else:
                assert name.startswith("FLIP_") and _at(scene, t, "pile")
        else:
            from keine_ahnung_env.games.dnp.picture import card_face

            if name.startswith("SELECT_"):
                assert _at(scene, t, "hand", seat).card == card_face(core.tables, core, 0, t["action"])
            else:
                assert name.split("_")[0] in ("PLAY", "ADD", "TAKE")
                L = core.actions
                pos = (seat * L.areas + int(core.area[0]) if name == "PLAY" else
                       L.target_position(seat, (t["action"] - L.add_base) % L.num_targets))
                sets = [it for it in scene.items if it.region == "set" and it.seat == pos // L.areas]
                assert sets and any(_meet(t, {"x": it.x, "y": it.y, "w": it.w, "h": it.h}) for it in sets)


@pytest.mark.parametrize("name", PICTURED)
@pytest.mark.parametrize("players", [2, 3, 4])
def test_every_legal_move_on_a_card_has_a_target_on_the_acting_seats_picture(name, players):
    spec = registry.game_spec(name, players)
    checked = 0
    for seed in range(3):
        core = spec.make_core(1, seed)
        core.reset_games(np.zeros(1, np.intp))
        rng = np.random.default_rng(seed)
        while not core.done[0] and checked < 400 * (seed + 1):
            seat = int(core.current[0])
            check_targets(spec, core, table_scene(spec, core, 0, seat, False))
            # The other seats' and the public view have none: they would tell which back is which card.
            assert table_scene(spec, core, 0, (seat + 1) % players, False).targets() == []
            assert table_scene(spec, core, 0, None, False).targets() == []
            core.step(np.array([rng.choice(np.flatnonzero(core.legal_mask[0]))]))
            checked += 1
        if core.done[0]:  # nobody acts in a finished game
            assert table_scene(spec, core, 0, int(core.current[0]), False).targets() == []
    assert checked > 50


def test_a_target_needs_a_box():
    scene = Scene(100, 100)
    with pytest.raises(ValueError, match="an empty box"):
        scene.target(3, Box(0, 0, 0, 10))
    scene.target(3, Box(1, 2, 3, 4), then=Box(5, 6, 7, 8))
    assert scene.targets() == [{"action": 3, "x": 1, "y": 2, "w": 3, "h": 4, "then": {"x": 5, "y": 6, "w": 7, "h": 8}}]
    assert fanned([Box(0, 0, 48, 68), Box(20, 0, 48, 68)]) == [Box(0, 0, 20, 68), Box(20, 0, 48, 68)]


def test_dnp_hand_cards_show_both_values_and_their_seen_mark():
    """However large a hand, the part of each card not covered by the next one holds both values and
    the "seen" band: it is drawn exactly as the card alone, and at least HAND_STEP pixels wide."""
    from PIL import ImageDraw

    from keine_ahnung_env.games.dnp.kernels import LOC_DISCARD, LOC_HAND, LOC_OUT, LOC_TABLE
    from keine_ahnung_env.games.dnp.picture import HAND_STEP, ROW_CARDS
    from keine_ahnung_env.pictures import _DRAWERS

    assert HAND_STEP >= 42  # the band's word and the upside-down value end 42 pixels into a card
    spec = registry.game_spec("dnp_v0", 3)
    core = play_to(spec, 6, seed=1)
    cards = np.flatnonzero(np.isin(core.card_loc[0], (LOC_HAND, LOC_DISCARD, LOC_TABLE, LOC_OUT)))
    np.random.default_rng(0).shuffle(cards)
    core.card_loc[0, cards] = LOC_HAND
    core.card_where[0, cards] = 2
    core.card_where[0, cards[:ROW_CARDS - 3]] = 0  # seat 0: one row
    core.card_where[0, cards[ROW_CARDS - 3:2 * ROW_CARDS]] = 1  # seat 1: more than a row
    assert len(core.hand(0, 2)) > ROW_CARDS - 3
    core.card_public[0, cards[::3]] = True  # some "seen"
    for seat, reveal in ((1, False), (0, False), (None, True)):
        scene = table_scene(spec, core, 0, seat, reveal)
        picture = scene.to_array()
        for p in range(3):
            row = [it for it in scene.items if it.region == "hand" and it.seat == p]
            assert len(row) == len(core.hand(0, p))
            for k, it in enumerate(row):
                # the next card of the same row (a selected card lies 6 pixels higher)
                nxt = row[k + 1] if k + 1 < len(row) and abs(row[k + 1].y - it.y) <= 6 else None
                visible = min(nxt.x if nxt else it.x + it.w, it.x + it.w) - it.x
                assert visible >= HAND_STEP
                if it.kind != "card":
                    continue
                alone = Image.new("RGB", (scene.width, scene.height))
                _DRAWERS["card"](alone, ImageDraw.Draw(alone), it)
                strip = np.s_[it.y + 4:it.y + it.h - 4, it.x + 4:it.x + visible - 1]
                assert np.array_equal(picture[strip], np.asarray(alone)[strip]), (p, k)
        marks = [it.mark for it in scene.items if it.region == "hand" and it.kind == "card"]
        assert "known" in marks or reveal
