"""Pictures of card tables, shared by every game: a :class:`Scene` of placed cards, backs, trophies,
panels and text, drawn with Pillow into an ``[H, W, 3]`` uint8 array.

Each game lays out its own table in its folder (``games/<game>/picture.py``: which cards lie where,
which are face up from a given seat's point of view) and offers it through the optional
``GameSpec.scene`` field; everything above the games (the AEC and solo environments' ``rgb_array`` and
``human`` render modes, replays turned into GIFs, the browser viewer) draws a scene with the
primitives here and never reads a game's internals::

    scene = spec.scene(core, 0, seat, reveal_all)   # what ``seat`` may see (None: the public table)
    image = scene.to_array()                          # [H, W, 3] uint8
    scene.cards()                                     # the placed cards as dicts (the viewer's overlay)
    scene.targets()                                   # where to click for each legal move (the viewer)

A face-up card is a :class:`Card` (its colour, the big label, a readable name such as ``"red 5*"``, an
optional symbol, a second value printed upside down, star pips). Hidden cards are drawn as backs and
carry no name, so nothing hidden reaches a picture, a replay frame or a web page built from a scene.

**Targets (hit boxes).** A game's scene may say where on the picture each legal move of the seat to
act is made, so that the browser viewer can play by clicking cards: :meth:`Scene.target` adds a box
for an action (a face-down layout card to reveal, a pile to place on, a hand card to play), and for a
move made by two clicks (the gap game: a hand card, then a pile) a second box ``then``. Games add
targets only to the acting seat's own view (and to the full view), only for legal actions, and only
where a box shows nothing the view does not already show; moves without a card of their own (dnp's
TURN) have none and stay buttons. Boxes of different actions do not overlap, except that actions
sharing their first box are told apart by their ``then`` box (a gap card playable on both piles).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from typing import Any, Iterable, Sequence

import numpy as np

RENDER_MODES = ("human", "ansi", "rgb_array")
"""Rendering modes of every wrapper: "ansi" returns the table as text, "rgb_array" as a picture
(``[H, W, 3]`` uint8, through ``GameSpec.scene``), "human" shows the picture in a window
(``game_spec.RENDER_MODES`` is this tuple)."""

CARD_W, CARD_H = 48, 68
"""The size of a card in pixels."""
SMALL_W, SMALL_H = 34, 48
"""The size of a small card (draw-order previews, prizes)."""

PALETTE: dict[str, tuple[int, int, int]] = {
    "blue": (44, 104, 200),
    "grey": (122, 128, 140),
    "green": (38, 148, 78),
    "yellow": (222, 182, 32),
    "red": (204, 48, 48),
    "purple": (124, 64, 176),
    "gold": (232, 196, 86),
    "ivory": (250, 244, 226),
    "white": (255, 255, 255),
    "ink": (28, 28, 34),
    "table": (28, 86, 58),
    "panel": (38, 106, 72),
    "panel_line": (84, 150, 110),
    "highlight": (255, 214, 64),
    "back": (150, 34, 44),
    "back_line": (236, 210, 160),
    "slot": (60, 124, 88),
    "muted": (196, 220, 204),
}
"""Named RGB colours: the six card colours the games use, and the table's own."""

SYMBOLS = ("", "reveal", "remove", "refill", "frown", "neutral", "smile", "grimace")
"""The symbols a card may carry: Keine Ahnung's extra functions (reveal a card, remove piles, refill)
and dnp's symbol faces."""

MARKS = ("", "known", "selected", "hidden", "pending")
"""How a placed card is marked: "known" (face down, but the table has seen it), "selected" (in a
selection in progress), "hidden" (one of a player's own face-down cards), "pending" (awaiting a pile)."""


@dataclasses.dataclass(frozen=True)
class Card:
    """The face of one card.

    Attributes:
      colour: a :data:`PALETTE` name (the card's colour; "ivory" for uncoloured cards, "gold" for prizes).
      label: the big text in the middle, e.g. ``"5"``.
      name: a readable name, e.g. ``"red 5*"``: pages and tests identify the card by it.
      symbol: one of :data:`SYMBOLS`, drawn in the lower corner.
      lower: a second value printed upside down in the lower half (dnp's inactive value).
      pips: small stars along the bottom (the gap game's minus points).
      star: a star in the upper corner (dnp's star card).
      note: a small word under the label (e.g. ``"prize"``).
    """

    colour: str
    label: str
    name: str
    symbol: str = ""
    lower: str = ""
    pips: int = 0
    star: bool = False
    note: str = ""

    def __post_init__(self):
        if self.colour not in PALETTE:
            raise ValueError(f"card colour {self.colour!r}; allowed: {', '.join(PALETTE)}")
        if self.symbol not in SYMBOLS:
            raise ValueError(f"card symbol {self.symbol!r}; allowed: {', '.join(map(repr, SYMBOLS))}")


@dataclasses.dataclass(frozen=True)
class Item:
    """One thing placed on a scene. ``kind`` is "card", "back", "empty", "trophy", "panel" or "text"."""

    kind: str
    x: int
    y: int
    w: int = 0
    h: int = 0
    card: Card | None = None
    region: str = ""
    seat: int | None = None
    mark: str = ""
    text: str = ""
    size: int = 14
    colour: str = "white"
    highlight: bool = False
    value: int | None = None


@dataclasses.dataclass(frozen=True)
class Box:
    """A rectangle of a picture in pixels: top-left corner (x, y), width and height."""

    x: int
    y: int
    w: int
    h: int

    def as_dict(self) -> dict[str, int]:
        return {"x": int(self.x), "y": int(self.y), "w": int(self.w), "h": int(self.h)}

    def left(self, width: float) -> "Box":
        """The left ``width`` pixels of this box (the visible part of a card under the next one in a
        fanned row)."""
        return Box(self.x, self.y, max(1, min(self.w, int(width))), self.h)

    def union(self, other: "Box") -> "Box":
        """The smallest box holding both."""
        x, y = min(self.x, other.x), min(self.y, other.y)
        return Box(x, y, max(self.x + self.w, other.x + other.w) - x, max(self.y + self.h, other.y + other.h) - y)


def fanned(boxes: Sequence[Box]) -> list[Box]:
    """The visible parts of cards laid left to right, each over the one before it: a card's box ends
    where the next one starts (the last one is whole), so the boxes of a fanned hand do not overlap."""
    return [b.left(boxes[i + 1].x - b.x) if i + 1 < len(boxes) else b for i, b in enumerate(boxes)]


class Scene:
    """A table laid out in pixels: items drawn in the order they were added (panels first).

    Cards are placed with a ``region`` (e.g. ``"pile"``, ``"layout"``, ``"hand"``) and the ``seat`` they
    belong to (None for the middle of the table); :meth:`cards` lists them for pages and tests.
    """

    def __init__(self, width: int, height: int, title: str = "", view: str = ""):
        self.width, self.height = int(width), int(height)
        self.title, self.view = title, view
        self.items: list[Item] = []
        self._targets: list[dict[str, Any]] = []

    # ---------------------------------------------------------------- placing things

    def card(self, x: float, y: float, card: Card, region: str, seat: int | None = None, mark: str = "",
             small: bool = False) -> Box:
        """A face-up card with its top-left corner at (x, y); returns its :class:`Box`."""
        if mark not in MARKS:
            raise ValueError(f"mark={mark!r}; allowed: {', '.join(map(repr, MARKS))}")
        w, h = (SMALL_W, SMALL_H) if small else (CARD_W, CARD_H)
        self.items.append(Item("card", int(x), int(y), w, h, card=card, region=region, seat=seat, mark=mark))
        return Box(int(x), int(y), w, h)

    def back(self, x: float, y: float, region: str, seat: int | None = None, label: str = "", mark: str = "",
             small: bool = False) -> Box:
        """A face-down card (``label``, e.g. a count, written on it); returns its :class:`Box`."""
        w, h = (SMALL_W, SMALL_H) if small else (CARD_W, CARD_H)
        self.items.append(Item("back", int(x), int(y), w, h, region=region, seat=seat, text=label, mark=mark))
        return Box(int(x), int(y), w, h)

    def empty(self, x: float, y: float, region: str, seat: int | None = None) -> Box:
        """An empty card place (a layout slot without a card); returns its :class:`Box`."""
        self.items.append(Item("empty", int(x), int(y), CARD_W, CARD_H, region=region, seat=seat))
        return Box(int(x), int(y), CARD_W, CARD_H)

    def trophy(self, x: float, y: float, value: int | None, region: str, seat: int | None = None,
               label: str = "") -> Box:
        """A trophy token showing ``value`` (None: face down, ``label`` written instead, e.g. a count);
        returns its :class:`Box`."""
        self.items.append(Item("trophy", int(x), int(y), 34, 42, region=region, seat=seat, value=value, text=label))
        return Box(int(x), int(y), 34, 42)

    def target(self, action: int, box: Box, then: Box | None = None) -> None:
        """Clicking ``box`` makes ``action`` (a move of the seat to act); with ``then``, the move takes
        a second click on ``then`` (the gap game: a hand card, then the pile it goes on)."""
        if box.w <= 0 or box.h <= 0 or (then is not None and (then.w <= 0 or then.h <= 0)):
            raise ValueError(f"target of action {action}: an empty box {box} / {then}")
        self._targets.append({"action": int(action), **box.as_dict(),
                              "then": None if then is None else then.as_dict()})

    def panel(self, x: float, y: float, w: float, h: float, title: str = "", highlight: bool = False,
              seat: int | None = None) -> None:
        """A framed area (a seat's place at the table); ``highlight`` frames it in gold (the seat to act)."""
        self.items.append(Item("panel", int(x), int(y), int(w), int(h), text=title, highlight=highlight, seat=seat))

    def text(self, x: float, y: float, text: str, size: int = 14, colour: str = "white") -> None:
        """A line of text with its top-left corner at (x, y)."""
        self.items.append(Item("text", int(x), int(y), text=str(text), size=int(size), colour=colour))

    # ---------------------------------------------------------------- reading

    def cards(self) -> list[dict[str, Any]]:
        """Every placed card and back in drawing order: ``{"region", "seat", "face_up", "name", "mark",
        "x", "y", "w", "h"}`` (``name`` is None for a back). Trophies are listed with region "trophy..."
        and ``name`` ``"trophy N"`` (None when face down)."""
        out = []
        for it in self.items:
            if it.kind in ("card", "back"):
                up = it.kind == "card"
                out.append({"region": it.region, "seat": it.seat, "face_up": up, "name": it.card.name if up else None,
                            "mark": it.mark, "x": it.x, "y": it.y, "w": it.w, "h": it.h})
            elif it.kind == "trophy":
                out.append({"region": it.region, "seat": it.seat, "face_up": it.value is not None,
                            "name": None if it.value is None else f"trophy {it.value}", "mark": "",
                            "x": it.x, "y": it.y, "w": it.w, "h": it.h})
        return out

    def targets(self) -> list[dict[str, Any]]:
        """Where to click for each move offered on this picture (see the module docstring):
        ``{"action", "x", "y", "w", "h", "then"}`` with ``then`` None or a second box
        ``{"x", "y", "w", "h"}``; an action may have several (two piles with the same top)."""
        return [dict(t) for t in self._targets]

    def to_image(self):
        """The scene drawn as a PIL ``Image`` (RGB)."""
        from PIL import Image, ImageDraw

        image = Image.new("RGB", (self.width, self.height), PALETTE["table"])
        draw = ImageDraw.Draw(image)
        for it in self.items:
            _DRAWERS[it.kind](image, draw, it)
        return image

    def to_array(self) -> np.ndarray:
        """The scene drawn as an ``[H, W, 3]`` uint8 array."""
        return np.asarray(self.to_image(), dtype=np.uint8).copy()

    def to_png(self) -> bytes:
        """The scene drawn as PNG bytes."""
        import io

        buffer = io.BytesIO()
        self.to_image().save(buffer, format="PNG", compress_level=1)
        return buffer.getvalue()


# ---------------------------------------------------------------------------------------- layout aids


def spread(count: int, width: float, item_w: int = CARD_W, gap: int = 6) -> list[float]:
    """x offsets of ``count`` cards in a row of ``width`` pixels: side by side with ``gap`` when they
    fit, overlapping evenly (a fanned hand) when they do not."""
    if count <= 0:
        return []
    step = item_w + gap
    if count > 1 and (count - 1) * step + item_w > width:
        step = max((width - item_w) / (count - 1), 4.0)
    return [i * step for i in range(count)]


def grid(count: int, columns: int, item_w: int = CARD_W, item_h: int = CARD_H, gap: int = 6) -> list[tuple[int, int]]:
    """(x, y) offsets of ``count`` items in rows of ``columns``."""
    return [((i % columns) * (item_w + gap), (i // columns) * (item_h + gap)) for i in range(count)]


def view_label(seat: int | None, reveal_all: bool) -> str:
    """The words for a point of view: "all cards", "seat 2" or "the table (public)"."""
    if reveal_all:
        return "view: all cards"
    return "view: the table (public)" if seat is None else f"view: seat {seat}"


def check_view(num_players: int, seat: Any, reveal_all: Any) -> tuple[int | None, bool]:
    """Validates a point of view: ``seat`` None or a seat 0..P-1, ``reveal_all`` a bool; ValueError otherwise."""
    if not isinstance(reveal_all, (bool, np.bool_)):
        raise ValueError(f"reveal_all={reveal_all!r}; allowed: True or False")
    if seat is not None:
        if isinstance(seat, (bool, np.bool_)) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < num_players:
            raise ValueError(f"seat={seat!r}; allowed: None (the public table) or a seat 0..{num_players - 1}")
        seat = int(seat)
    return seat, bool(reveal_all)


# ---------------------------------------------------------------------------------------- drawing


@functools.lru_cache(maxsize=32)
def font(size: int):
    """Pillow's built-in scalable font at ``size`` pixels (no font file needed)."""
    from PIL import ImageFont

    return ImageFont.load_default(size=size)


def _ink_for(colour: str) -> tuple[int, int, int]:
    """Dark text on light card colours, white on dark ones."""
    r, g, b = PALETTE[colour]
    return PALETTE["ink"] if 0.299 * r + 0.587 * g + 0.114 * b > 170 else PALETTE["white"]


def _centred(draw, cx: float, cy: float, text: str, size: int, fill, stroke=None) -> None:
    f = font(size)
    kwargs = {"stroke_width": 1, "stroke_fill": stroke} if stroke is not None else {}
    draw.text((cx, cy), text, font=f, fill=fill, anchor="mm", **kwargs)


def _draw_card(image, draw, it: Item) -> None:
    card = it.card
    x, y, w, h = it.x, it.y, it.w, it.h
    small = w < CARD_W
    outline = PALETTE["highlight"] if it.mark in ("selected", "pending") else PALETTE["ink"]
    draw.rounded_rectangle((x, y, x + w - 1, y + h - 1), radius=6, fill=PALETTE["white"], outline=outline,
                           width=3 if it.mark in ("selected", "pending") else 1)
    draw.rounded_rectangle((x + 3, y + 3, x + w - 4, y + h - 4), radius=4, fill=PALETTE[card.colour])
    ink = _ink_for(card.colour)
    big = 16 if small else 24
    if card.lower:
        # Two values (dnp): the active one upright in the upper half, the other upside down below.
        _centred(draw, x + w / 2, y + h * 0.3, card.label, big, ink)
        _upside_down(image, x + w / 2, y + h * 0.72, card.lower, big - 6, ink, PALETTE[card.colour])
        draw.line((x + 6, y + h / 2, x + w - 7, y + h / 2), fill=ink, width=1)
    else:
        _centred(draw, x + w / 2, y + h * 0.42, card.label, big, ink)
    if card.note:
        _centred(draw, x + w / 2, y + h * 0.72, card.note, 9 if small else 11, ink)
    if card.star:
        _star(draw, x + w - 11, y + 11, 6, PALETTE["highlight"], PALETTE["ink"])
    if card.pips:
        size = 3 if card.pips > 3 else 4
        span = card.pips * (2 * size + 2)
        for i in range(card.pips):
            _star(draw, x + w / 2 - span / 2 + size + 1 + i * (2 * size + 2), y + h - 11, size, PALETTE["white"], ink)
    if card.symbol:
        _symbol(draw, card.symbol, x + w - 13, y + h - 13, 8 if small else 10, ink)
    band = {"known": ("back", "seen"), "hidden": ("ink", "hidden")}.get(it.mark)
    if band is not None:
        # Face down in the game, but the table has seen it (or it is the owner's hidden card): a band
        # across the top says so.
        draw.rectangle((x + 3, y + 3, x + w - 4, y + 13), fill=PALETTE[band[0]])
        _centred(draw, x + w / 2 + (4 if small else 6), y + 8, band[1], 9, PALETTE["white"])
    if not small:
        # The corner index stays readable where cards overlap (a fanned hand).
        draw.text((x + 5, y + 3 if band else y + 5), card.label, font=font(10 if band else 11),
                  fill=PALETTE["white"] if band else ink)


def _upside_down(image, cx: float, cy: float, text: str, size: int, fill, background) -> None:
    from PIL import Image, ImageDraw

    f = font(size)
    left, top, right, bottom = f.getbbox(text)
    tile = Image.new("RGB", (right - left + 4, bottom - top + 4), background)
    ImageDraw.Draw(tile).text((2 - left, 2 - top), text, font=f, fill=fill)
    tile = tile.rotate(180)
    image.paste(tile, (int(cx - tile.width / 2), int(cy - tile.height / 2)))


def _star(draw, cx: float, cy: float, r: float, fill, outline) -> None:
    points = []
    for k in range(10):
        radius = r if k % 2 == 0 else r * 0.45
        angle = -math.pi / 2 + k * math.pi / 5
        points.append((cx + radius * math.cos(angle), cy + radius * math.sin(angle)))
    draw.polygon(points, fill=fill, outline=outline)


def _symbol(draw, symbol: str, cx: float, cy: float, r: float, ink) -> None:
    """A symbol in a white disc: an eye (reveal), a cross (remove), three bars (refill), a face (dnp)."""
    white = PALETTE["white"]
    draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=white, outline=PALETTE["ink"])
    dark = PALETTE["ink"]
    if symbol == "reveal":
        draw.ellipse((cx - r * 0.75, cy - r * 0.4, cx + r * 0.75, cy + r * 0.4), outline=dark, width=1)
        draw.ellipse((cx - r * 0.25, cy - r * 0.25, cx + r * 0.25, cy + r * 0.25), fill=dark)
    elif symbol == "remove":
        d = r * 0.55
        draw.line((cx - d, cy - d, cx + d, cy + d), fill=dark, width=2)
        draw.line((cx - d, cy + d, cx + d, cy - d), fill=dark, width=2)
    elif symbol == "refill":
        for k in (-1, 0, 1):
            draw.line((cx - r * 0.55, cy + k * r * 0.4, cx + r * 0.55, cy + k * r * 0.4), fill=dark, width=1)
    else:  # a face: two eyes and a mouth by mood
        e = r * 0.35
        draw.point([(cx - e, cy - e), (cx + e, cy - e)], fill=dark)
        draw.rectangle((cx - e - 1, cy - e - 1, cx - e, cy - e), fill=dark)
        draw.rectangle((cx + e - 1, cy - e - 1, cx + e, cy - e), fill=dark)
        m = r * 0.5
        if symbol == "smile":
            draw.arc((cx - m, cy - m * 0.6, cx + m, cy + m), 20, 160, fill=dark, width=1)
        elif symbol == "frown":
            draw.arc((cx - m, cy + m * 0.2, cx + m, cy + m * 1.6), 200, 340, fill=dark, width=1)
        elif symbol == "neutral":
            draw.line((cx - m, cy + m * 0.5, cx + m, cy + m * 0.5), fill=dark, width=1)
        else:  # grimace: teeth
            draw.rectangle((cx - m, cy + m * 0.2, cx + m, cy + m * 0.8), outline=dark)
            draw.line((cx, cy + m * 0.2, cx, cy + m * 0.8), fill=dark)


def _draw_back(image, draw, it: Item) -> None:
    x, y, w, h = it.x, it.y, it.w, it.h
    draw.rounded_rectangle((x, y, x + w - 1, y + h - 1), radius=6, fill=PALETTE["white"], outline=PALETTE["ink"])
    draw.rounded_rectangle((x + 3, y + 3, x + w - 4, y + h - 4), radius=4, fill=PALETTE["back"])
    draw.rounded_rectangle((x + 7, y + 7, x + w - 8, y + h - 8), radius=3, outline=PALETTE["back_line"])
    if it.text:
        _centred(draw, x + w / 2, y + h / 2, it.text, 14 if w >= CARD_W else 11, PALETTE["white"], PALETTE["ink"])
    if it.mark == "hidden":
        _centred(draw, x + w / 2, y + h - 12, "hidden", 9, PALETTE["back_line"])


def _draw_empty(image, draw, it: Item) -> None:
    x, y, w, h = it.x, it.y, it.w, it.h
    draw.rounded_rectangle((x, y, x + w - 1, y + h - 1), radius=6, outline=PALETTE["slot"], width=2)


def _draw_trophy(image, draw, it: Item) -> None:
    x, y, w, h = it.x, it.y, it.w, it.h
    gold, ink = PALETTE["gold"], PALETTE["ink"]
    face_down = it.value is None
    bowl = PALETTE["back"] if face_down else gold
    draw.rounded_rectangle((x + 2, y, x + w - 3, y + h * 0.62), radius=8, fill=bowl, outline=ink)
    draw.rectangle((x + w / 2 - 3, y + h * 0.62, x + w / 2 + 3, y + h * 0.8), fill=gold, outline=ink)
    draw.rectangle((x + 6, y + h * 0.8, x + w - 7, y + h - 1), fill=gold, outline=ink)
    text = it.text if face_down else str(it.value)
    if text:
        _centred(draw, x + w / 2, y + h * 0.31, text, 14, PALETTE["white"] if face_down else ink)


def _draw_panel(image, draw, it: Item) -> None:
    x, y, w, h = it.x, it.y, it.w, it.h
    line = PALETTE["highlight"] if it.highlight else PALETTE["panel_line"]
    draw.rounded_rectangle((x, y, x + w - 1, y + h - 1), radius=10, fill=PALETTE["panel"], outline=line,
                           width=3 if it.highlight else 1)
    if it.text:
        draw.text((x + 10, y + 6), it.text, font=font(14), fill=PALETTE["white"])


def _draw_text(image, draw, it: Item) -> None:
    draw.text((it.x, it.y), it.text, font=font(it.size), fill=PALETTE[it.colour])


_DRAWERS = {"card": _draw_card, "back": _draw_back, "empty": _draw_empty, "trophy": _draw_trophy,
            "panel": _draw_panel, "text": _draw_text}


# ---------------------------------------------------------------------------------------- games


def draw_table(spec: Any, core: Any, game: int = 0, seat: int | None = None, reveal_all: bool = False) -> np.ndarray:
    """Game ``game`` of ``core`` as an ``[H, W, 3]`` uint8 picture from ``seat``'s point of view (None:
    the public table; ``reveal_all``: every card) through the game's ``GameSpec.scene``; ValueError
    for a game that draws no pictures or a bad point of view."""
    return table_scene(spec, core, game, seat, reveal_all).to_array()


def table_scene(spec: Any, core: Any, game: int = 0, seat: int | None = None, reveal_all: bool = False) -> Scene:
    """The :class:`Scene` of game ``game`` of ``core`` (see :func:`draw_table`)."""
    if getattr(spec, "scene", None) is None:
        raise ValueError(f"{spec.name} draws no pictures (its GameSpec has no scene)")
    seat, reveal_all = check_view(spec.num_players, seat, reveal_all)
    if not 0 <= int(game) < core.num_envs:
        raise ValueError(f"game={game!r}; allowed: 0..{core.num_envs - 1}")
    return spec.scene(core, int(game), seat, reveal_all)


def frames_to_gif(frames: Sequence[np.ndarray] | Iterable[np.ndarray], path: Any, seconds_per_frame: float = 0.6,
                  last_frame_seconds: float = 2.5) -> None:
    """Writes pictures (``[H, W, 3]`` uint8; smaller ones are padded to the largest) as an animated
    GIF that loops."""
    from PIL import Image

    arrays = [np.asarray(f, np.uint8) for f in frames]
    if not arrays:
        raise ValueError("no frames to write")
    # A table may grow (more discard piles): every frame is padded to the largest, in the table colour.
    height, width = max(a.shape[0] for a in arrays), max(a.shape[1] for a in arrays)
    images = []
    for a in arrays:
        canvas = Image.new("RGB", (width, height), PALETTE["table"])
        canvas.paste(Image.fromarray(a), (0, 0))
        images.append(canvas)
    # One shared palette keeps the file small and the colours steady from frame to frame.
    first = images[0].quantize(colors=128, method=Image.Quantize.MEDIANCUT)
    palettes = [first] + [im.quantize(palette=first, dither=Image.Dither.NONE) for im in images[1:]]
    durations = [int(seconds_per_frame * 1000)] * len(images)
    durations[-1] = int(last_frame_seconds * 1000)
    palettes[0].save(path, save_all=True, append_images=palettes[1:], duration=durations, loop=0, optimize=True,
                     disposal=1)


# ---------------------------------------------------------------------------------------- a window


def display_problem() -> str | None:
    """Why a window cannot be opened here (no display, pygame missing), or None where it can.
    ``SDL_VIDEODRIVER`` set (e.g. ``dummy`` for tests) counts as a display."""
    import importlib.util
    import os
    import sys

    if importlib.util.find_spec("pygame") is None:
        return "render_mode='human' needs pygame (pip install pygame)"
    if os.environ.get("SDL_VIDEODRIVER"):
        return None
    if sys.platform.startswith("linux") and not (os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")):
        return ("render_mode='human' needs a display (neither DISPLAY nor WAYLAND_DISPLAY is set); use "
                "render_mode='rgb_array' for pictures or 'ansi' for text")
    return None


class Window:
    """A pygame window showing pictures (``render_mode="human"``); opened on the first :meth:`show`."""

    def __init__(self, caption: str):
        problem = display_problem()
        if problem is not None:
            raise ValueError(problem)
        self.caption = caption
        self.screen = None

    def show(self, picture: np.ndarray) -> None:
        """Shows an ``[H, W, 3]`` uint8 picture (resizing the window to it) and handles window events."""
        import os

        os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")
        import pygame

        h, w = picture.shape[:2]
        if self.screen is None:
            pygame.display.init()
            pygame.display.set_caption(self.caption)
        if self.screen is None or self.screen.get_size() != (w, h):
            self.screen = pygame.display.set_mode((w, h))
        surface = pygame.surfarray.make_surface(np.ascontiguousarray(np.transpose(picture, (1, 0, 2))))
        self.screen.blit(surface, (0, 0))
        pygame.event.pump()
        pygame.display.flip()

    def close(self) -> None:
        """Closes the window (if one was opened)."""
        if self.screen is not None:
            import pygame

            pygame.display.quit()
            self.screen = None


def render_modes(spec: Any) -> list[str]:
    """The render modes of an environment of ``spec``: text and pictures, or text only ("ansi") for a
    game without ``GameSpec.scene``."""
    return list(RENDER_MODES) if getattr(spec, "scene", None) is not None else ["ansi"]


class Renderer:
    """What an environment's ``render()`` does in each render mode (the AEC and solo environments
    share it): "ansi" returns the game's text view, "rgb_array" the picture (``GameSpec.draw``),
    "human" shows the picture in a window. Checked when the environment is made: a picture mode for a
    game without ``GameSpec.scene``, or "human" without a display, raises ValueError saying why."""

    def __init__(self, spec: Any, render_mode: str | None, reveal_all: bool, caption: str = ""):
        self.spec, self.mode, self.reveal_all = spec, render_mode, reveal_all
        self.caption = caption or spec.title or spec.name
        if render_mode in ("rgb_array", "human") and getattr(spec, "scene", None) is None:
            raise ValueError(f"render_mode={render_mode!r}: {spec.name} draws no pictures (its GameSpec has no "
                             "scene); allowed: None, 'ansi'")
        if render_mode == "human":
            problem = display_problem()
            if problem is not None:
                raise ValueError(problem)
        self.window: Window | None = None

    def render(self, core: Any, seat: int | None) -> Any:
        """Game 0 of ``core`` from ``seat``'s point of view (None: the public table) in this mode."""
        if self.mode == "ansi":
            return self.spec.render(core, 0, self.reveal_all)
        picture = self.spec.draw(core, 0, seat, self.reveal_all)
        if self.mode == "rgb_array":
            return picture
        if self.window is None:
            self.window = Window(self.caption)
        self.window.show(picture)
        return None

    def close(self) -> None:
        """Closes the window, if any."""
        if self.window is not None:
            self.window.close()
            self.window = None

    def __getstate__(self) -> dict[str, Any]:
        # A window belongs to this process: copies and pickles open their own when they render.
        return {**self.__dict__, "window": None}
