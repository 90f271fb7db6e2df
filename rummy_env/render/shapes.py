"""The drawing vocabulary of the table pictures: a few shapes, cards, tiles and suits.

A :class:`Picture` is a list of shapes in pixel coordinates (origin top left).  It is
built once (``render/scene.py``) and then rasterised by Pillow (``render/image.py``) or
written as SVG (``render/svg.py``), so both outputs show the same picture.  Suit
symbols are drawn as polygons and ellipses rather than as font glyphs: Pillow's
bundled default font (Aileron) has no suit characters, and system fonts differ from
machine to machine.  Standard library only.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from rummy_env.core.cards import RANKS
from rummy_env.core.tiles import JOKER, NUM_NUMBERS

# colours (CSS hex strings, read by both back ends)
FELT = "#1d6b3a"
FELT_DARK = "#134d29"
INK = "#f4f4ec"  # text on the felt
MUTED = "#b9d6c2"
CARD = "#fdfdf8"
CARD_EDGE = "#55554f"
BACK = "#28509e"
BACK_INNER = "#4b79cf"
RED = "#c8102e"
BLACK = "#1a1a1a"
GOLD = "#f2c230"
GOLD_DARK = "#8a6400"
GREEN_MARK = "#2fbf5b"
ALERT = "#ff6f4f"
TILE = "#f6efd9"
TILE_COLOURS = ("#cc1f1f", "#1f55c8", "#1a1a1a", "#d08a00")  # R B K Y

SUIT_COLOURS = (BLACK, RED, RED, BLACK)  # C D H S


@dataclass(frozen=True)
class Rect:
    """A rectangle, optionally with rounded corners (``radius``) and an outline."""

    x: float
    y: float
    w: float
    h: float
    fill: str | None
    stroke: str | None = None
    stroke_width: float = 1.0
    radius: float = 0.0


@dataclass(frozen=True)
class Ellipse:
    """An ellipse of centre (cx, cy) and radii (rx, ry), filled."""

    cx: float
    cy: float
    rx: float
    ry: float
    fill: str


@dataclass(frozen=True)
class Polygon:
    """A filled polygon: ``points`` are (x, y) pairs."""

    points: tuple[tuple[float, float], ...]
    fill: str


@dataclass(frozen=True)
class Text:
    """One line of text.  ``anchor``: ``"l"``, ``"m"`` or ``"r"`` (left, middle, right
    end at ``x``); ``y`` is the vertical middle of the line.  ``size`` in pixels."""

    x: float
    y: float
    text: str
    size: float
    fill: str = INK
    anchor: str = "l"


Shape = Rect | Ellipse | Polygon | Text


@dataclass
class Picture:
    """A picture: its size in pixels, background colour and shapes, drawn in order."""

    width: int
    height: int
    background: str = FELT
    shapes: list[Shape] = field(default_factory=list)

    def add(self, *shapes: Shape) -> None:
        """Append shapes (drawn after the ones already there)."""
        self.shapes.extend(shapes)

    def text(self, x: float, y: float, text: str, size: float = 15, fill: str = INK, anchor: str = "l") -> None:
        """Append a line of text (see :class:`Text`)."""
        self.shapes.append(Text(x, y, text, size, fill, anchor))


def text_width(text: str, size: float) -> float:
    """A generous estimate of a line's width in pixels (for layout; no font needed)."""
    return 0.56 * size * len(text)


# ------------------------------------------------------------------- suits
def suit_shapes(suit: int, cx: float, cy: float, r: float, colour: str | None = None) -> list[Shape]:
    """The symbol of suit 0..3 (clubs, diamonds, hearts, spades) centred at (cx, cy),
    ``r`` pixels from the centre to the edge, in the suit's colour unless given."""
    c = colour or SUIT_COLOURS[suit]

    def p(x: float, y: float) -> tuple[float, float]:
        return (cx + x * r, cy + y * r)

    if suit == 1:  # diamond
        return [Polygon((p(0, -1), p(0.72, 0), p(0, 1), p(-0.72, 0)), c)]
    if suit == 2:  # heart: two lobes and a point
        return [
            Ellipse(cx - 0.46 * r, cy - 0.36 * r, 0.52 * r, 0.52 * r, c),
            Ellipse(cx + 0.46 * r, cy - 0.36 * r, 0.52 * r, 0.52 * r, c),
            Polygon((p(-0.96, -0.2), p(0.96, -0.2), p(0, 1)), c),
        ]
    if suit == 3:  # spade: an upside-down heart on a stem
        return [
            Ellipse(cx - 0.44 * r, cy + 0.22 * r, 0.48 * r, 0.48 * r, c),
            Ellipse(cx + 0.44 * r, cy + 0.22 * r, 0.48 * r, 0.48 * r, c),
            Polygon((p(-0.9, 0.08), p(0.9, 0.08), p(0, -1)), c),
            Polygon((p(0, 0.2), p(0.34, 1), p(-0.34, 1)), c),
        ]
    # club: three leaves on a stem
    return [
        Ellipse(cx, cy - 0.48 * r, 0.42 * r, 0.42 * r, c),
        Ellipse(cx - 0.5 * r, cy + 0.12 * r, 0.42 * r, 0.42 * r, c),
        Ellipse(cx + 0.5 * r, cy + 0.12 * r, 0.42 * r, 0.42 * r, c),
        Polygon((p(0, -0.1), p(0.32, 1), p(-0.32, 1)), c),
    ]


# ------------------------------------------------------------------- cards
@dataclass(frozen=True)
class CardSize:
    """Card (or tile) width and height in pixels, and the visible strip of a fanned card."""

    w: float
    h: float
    step: float  # distance between neighbouring cards of a fan

    def scaled(self, k: float) -> CardSize:
        """The size times ``k``."""
        return CardSize(self.w * k, self.h * k, self.step * k)

    def fan_width(self, n: int) -> float:
        """Width in pixels of a fan of ``n`` cards."""
        return 0.0 if n == 0 else self.w + self.step * (n - 1)


HAND_CARD = CardSize(54, 76, 36)
TABLE_CARD = CardSize(44, 62, 25)
SMALL_CARD = CardSize(30, 42, 9)
TILE_SIZE = CardSize(32, 44, 34)


def rank_text(card: int) -> str:
    """A card's rank as printed on it: ``A``, ``2`` .. ``10``, ``J``, ``Q``, ``K``."""
    r = RANKS[card % 13]
    return "10" if r == "T" else r


def card_face(card: int, x: float, y: float, size: CardSize, border: str | None = None) -> list[Shape]:
    """A face-up card: rank and a small suit in the left strip (visible in a fan), a
    large suit at the lower right.  ``border``: a highlight colour for the outline."""
    w, h = size.w, size.h
    suit = card // 13
    colour = SUIT_COLOURS[suit]
    corner = min(size.step, w) if size.step > 0 else w
    shapes: list[Shape] = [
        Rect(x, y, w, h, CARD, border or CARD_EDGE, 3.0 if border else 1.0, radius=w * 0.1),
        Text(x + corner * 0.5, y + h * 0.17, rank_text(card), h * 0.25, colour, "m"),
    ]
    shapes += suit_shapes(suit, x + corner * 0.5, y + h * 0.40, h * 0.1)
    shapes += suit_shapes(suit, x + w * 0.62, y + h * 0.72, h * 0.17)
    return shapes


def card_back(x: float, y: float, size: CardSize) -> list[Shape]:
    """A face-down card."""
    w, h = size.w, size.h
    m = max(2.0, w * 0.12)
    return [
        Rect(x, y, w, h, BACK, CARD, 1.5, radius=w * 0.1),
        Rect(x + m, y + m, w - 2 * m, h - 2 * m, BACK_INNER, None, radius=w * 0.06),
    ]


def wild_tag(stands_for: int, x: float, y: float, size: CardSize) -> list[Shape]:
    """The gold tag under a wild card's corner on the table: ``=`` the card it stands for."""
    w = min(size.step, size.w) if size.step > 0 else size.w
    top = y + size.h * 0.55
    tag_h = size.h * 0.42
    shapes: list[Shape] = [
        Rect(x + 1, top, w - 2, tag_h, GOLD, GOLD_DARK, 1.0, radius=3),
        Text(x + w * 0.5, top + tag_h * 0.28, "=" + rank_text(stands_for), size.h * 0.19, BLACK, "m"),
    ]
    shapes += suit_shapes(stands_for // 13, x + w * 0.5, top + tag_h * 0.72, size.h * 0.08)
    return shapes


def tile_face(t: int, x: float, y: float, size: CardSize, border: str | None = None) -> list[Shape]:
    """A Rummikub tile: its number in its colour over a small dot; a joker is a red
    ``J`` over a face."""
    w, h = size.w, size.h
    shapes: list[Shape] = [Rect(x, y, w, h, TILE, border or "#8b8060", 3.0 if border else 1.0, radius=w * 0.14)]
    if t == JOKER:
        shapes += [
            Text(x + w / 2, y + h * 0.32, "J", h * 0.36, RED, "m"),
            Ellipse(x + w / 2, y + h * 0.72, w * 0.22, w * 0.22, GOLD),
            Ellipse(x + w / 2 - w * 0.08, y + h * 0.69, w * 0.035, w * 0.035, BLACK),
            Ellipse(x + w / 2 + w * 0.08, y + h * 0.69, w * 0.035, w * 0.035, BLACK),
        ]
    else:
        colour = TILE_COLOURS[t // NUM_NUMBERS]
        shapes += [
            Text(x + w / 2, y + h * 0.4, str(t % NUM_NUMBERS + 1), h * 0.42, colour, "m"),
            Ellipse(x + w / 2, y + h * 0.78, w * 0.1, w * 0.1, colour),
        ]
    return shapes


def tile_back(x: float, y: float, size: CardSize) -> list[Shape]:
    """A face-down tile (another player's rack)."""
    return [Rect(x, y, size.w, size.h, "#d9cfae", "#8b8060", 1.0, radius=size.w * 0.14)]


def badge(pic: Picture, x: float, y: float, text: str, fill: str, ink: str = BLACK, size: float = 12) -> float:
    """A small rounded label with its left end at ``x`` and middle at ``y``; returns its width."""
    w = text_width(text, size) + 10
    pic.add(Rect(x, y - size * 0.75, w, size * 1.5, fill, None, radius=size * 0.6))
    pic.text(x + w / 2, y, text, size, ink, "m")
    return w


def fit_groups(
    lengths: list[int], width: float, height: float, size: CardSize, gap: float, label: float = 0.0
) -> tuple[CardSize, list[tuple[float, float]]]:
    """Place fans of cards (one per group, ``lengths[i]`` cards) in rows inside a box.

    Tries the full card size, then smaller ones, until every group fits in
    ``width`` x ``height`` (``label`` pixels are kept under each row).  Returns the size
    used and each group's top-left offset in the box.  If even the smallest size
    overflows, the last rows fall outside the box (the picture is clipped there).
    """
    for k in (1.0, 0.85, 0.72, 0.6, 0.5, 0.42, 0.35):
        s = size.scaled(k)
        places, x, y = [], 0.0, 0.0
        for n in lengths:
            w = s.fan_width(n)
            if x > 0 and x + w > width:
                x, y = 0.0, y + s.h + gap + label
            places.append((x, y))
            x += w + gap
        if y + s.h <= height:
            return s, places
    return s, places
