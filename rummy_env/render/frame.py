"""The frame every table picture shares: its size and regions, the header strip, the
footer lines, the other seats' panels and the texts naming seats and moves
(:mod:`rummy_env.render.scene` draws the card games in it, :mod:`rummy_env.render.scene_rummikub`
Rummikub).  Standard library only."""

from __future__ import annotations

from typing import Any

from rummy_env.render import shapes as sh
from rummy_env.render.shapes import Picture

WIDTH, HEIGHT = 960, 560
MARGIN = 16
HEADER_H = 38
OPP_Y, OPP_H = 48, 84
MID_Y, MID_H = 142, 224
HAND_Y = MID_Y + MID_H + 8  # label line; cards below it
FOOT_Y = HAND_Y + sh.HAND_CARD.h + 34
TABLE_X = 170  #: the left edge of the melds on the table


def header(pic: Picture, title: str, right: str) -> None:
    """The dark strip at the top: the game's state on the left, who acts on the right."""
    pic.add(sh.Rect(0, 0, pic.width, HEADER_H, sh.FELT_DARK))
    pic.text(MARGIN, HEADER_H / 2, title, 19)
    pic.text(pic.width - MARGIN, HEADER_H / 2, right, 15, sh.GOLD, "r")


def seat_name(seat: int) -> str:
    """The agent name of a seat, ``player_<seat>``."""
    return f"player_{seat}"


def count(n: int, thing: str) -> str:
    """``1 card``, ``7 cards``."""
    return f"{n} {thing}" + ("" if n == 1 else "s")


def by_seat(viewer: int, values) -> str:
    """``player_0 12 · player_1 30``: values given relative to ``viewer``, listed by seat."""
    n = len(values)
    return " · ".join(f"{seat_name(seat)} {values[(seat - viewer) % n]}" for seat in range(n))


def move_line(state: Any, viewer: int, last_move: tuple[int, int] | None, hidden: bool = False) -> str:
    """``last move: player_1 discard KD``; ``hidden`` replaces the action's text."""
    if last_move is None:
        return "last move: none yet"
    seat, action = last_move
    text = "added a tile to the play being built" if hidden else type(state).action_to_string(action)
    return f"last move: {seat_name(seat)} {text}"


def footer(pic: Picture, lines: list[str], y: float = FOOT_Y) -> None:
    """Lines of text at the bottom: the first bright (the scores), the others muted."""
    for i, line in enumerate(lines):
        pic.text(MARGIN, y + 21 * i, line, 15, sh.INK if i == 0 else sh.MUTED)


def opponent_panels(
    pic: Picture,
    n: int,
    acting_rel: int,
    lines: list[str],
    sizes: list[int],
    known: list[list[int]] | None = None,
    tiles: bool = False,
) -> None:
    """One panel per other seat (relative seats 1..n-1): name and facts, the hand face
    down (cards known to be held face up first), a gold frame round the acting player."""
    count = n - 1
    width = min(460.0, (pic.width - 2 * MARGIN - 10 * (count - 1)) / count)
    for k in range(1, n):
        x = MARGIN + (k - 1) * (width + 10)
        acting = k == acting_rel
        pic.add(sh.Rect(x, OPP_Y, width, OPP_H, sh.FELT_DARK, sh.GOLD if acting else None, 2.5, radius=8))
        ink = sh.GOLD if acting else sh.INK
        line = lines[k - 1]
        cy = OPP_Y + 30
        if sh.text_width(line, 14) > width - 20:  # a narrow panel: the name, then the facts below it
            name, _, facts = line.partition(" · ")
            pic.text(x + 10, OPP_Y + 12, name, 14, ink)
            pic.text(x + 10, OPP_Y + 27, facts, 11, ink)
            cy = OPP_Y + 38
        else:
            pic.text(x + 10, OPP_Y + 14, line, 14, ink)
        shown = sorted(known[k]) if known else []
        size = sh.CardSize(22, 30, 9.0) if tiles else sh.SMALL_CARD
        hidden = sizes[k] - len(shown)
        face = sh.CardSize(32, 45, 22)
        avail = width - 20
        full = face.step * len(shown) + size.w + size.step * max(0, hidden - 1)
        squeeze = min(1.0, avail / full) if full > avail else 1.0
        cx = x + 10
        for c in shown:
            pic.add(*sh.card_face(c, cx, cy, sh.CardSize(face.w, face.h, face.step * squeeze)))
            cx += face.step * squeeze
        for _ in range(hidden):
            pic.add(*(sh.tile_back(cx, cy, size) if tiles else sh.card_back(cx, cy, size)))
            cx += size.step * squeeze
        if shown and cy == OPP_Y + 30:
            pic.text(x + width - 8, OPP_Y + 14, "face up: known to be held", 11, sh.MUTED, "r")
