"""Table pictures as SVG documents, for notebooks and web pages (standard library only).

``render_svg(state, viewer)`` returns an :class:`SvgPicture`: a ``str`` holding the SVG
document, with ``_repr_svg_`` so that a Jupyter cell whose value it is shows the table.
It draws the same shapes as ``render/image.py``; text uses the viewer's sans-serif font.
"""

from __future__ import annotations

from typing import Any
from xml.sax.saxutils import escape, quoteattr

from rummy_env.render import shapes as sh
from rummy_env.render.scene import table_picture
from rummy_env.render.shapes import Picture


class SvgPicture(str):
    """An SVG document (a ``str``) that Jupyter displays as the picture."""

    def _repr_svg_(self) -> str:
        return str(self)


def _num(v: float) -> str:
    return f"{v:.1f}".rstrip("0").rstrip(".")


def to_svg(picture: Picture) -> SvgPicture:
    """The picture as an SVG 1.1 document (``width`` x ``height`` pixels)."""
    w, h = picture.width, picture.height
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{w}" height="{h}" viewBox="0 0 {w} {h}" '
        'font-family="DejaVu Sans, Helvetica, Arial, sans-serif">',
        f'<rect x="0" y="0" width="{w}" height="{h}" fill="{picture.background}"/>',
    ]
    for s in picture.shapes:
        if isinstance(s, sh.Rect):
            attrs = (
                f'x="{_num(s.x)}" y="{_num(s.y)}" width="{_num(s.w)}" height="{_num(s.h)}" fill="{s.fill or "none"}"'
            )
            if s.stroke:
                attrs += f' stroke="{s.stroke}" stroke-width="{_num(s.stroke_width)}"'
            if s.radius:
                attrs += f' rx="{_num(s.radius)}"'
            out.append(f"<rect {attrs}/>")
        elif isinstance(s, sh.Ellipse):
            out.append(
                f'<ellipse cx="{_num(s.cx)}" cy="{_num(s.cy)}" rx="{_num(s.rx)}" ry="{_num(s.ry)}" fill="{s.fill}"/>'
            )
        elif isinstance(s, sh.Polygon):
            pts = " ".join(f"{_num(x)},{_num(y)}" for x, y in s.points)
            out.append(f'<polygon points="{pts}" fill="{s.fill}"/>')
        elif isinstance(s, sh.Text):
            anchor = {"l": "start", "m": "middle", "r": "end"}[s.anchor]
            out.append(
                f'<text x="{_num(s.x)}" y="{_num(s.y)}" font-size="{_num(s.size)}" fill={quoteattr(s.fill)} '
                f'text-anchor="{anchor}" dominant-baseline="central">{escape(s.text)}</text>'
            )
    out.append("</svg>")
    return SvgPicture("\n".join(out))


def render_svg(state: Any, viewer: int, last_move: tuple[int, int] | None = None) -> SvgPicture:
    """SVG of ``state`` as seat ``viewer`` sees it (``scene.table_picture``); ``last_move``
    (seat, action id) marks the move just played.

    Raises:
        ValueError, TypeError: as ``scene.table_picture`` (``viewer`` not a seat, a state
            of no variant).
    """
    return to_svg(table_picture(state, viewer, last_move))
