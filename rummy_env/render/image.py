"""Table pictures as RGB arrays, rasterised with Pillow (the ``render`` extra).

Pillow is the one drawing library here: a well-kept, wheel-installed package with
anti-aliased shapes and a bundled scalable font (``ImageFont.load_default(size=...)``,
Pillow >= 10.1), so the images look the same on every machine without system fonts.
The text renderers do not need it.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np

from rummy_env.render import shapes as sh
from rummy_env.render.scene import table_picture
from rummy_env.render.shapes import Picture

INSTALL_HINT = 'render_mode="rgb_array" draws with Pillow: pip install -e ".[render]" (or pip install pillow)'

SUPERSAMPLE = 2  # drawn at twice the size, then reduced: smooth edges on shapes Pillow draws aliased


def require_pillow() -> None:
    """Raise ``ImportError`` with the install command if Pillow (>= 10.1) is missing."""
    try:
        import PIL
        from PIL import ImageFont
    except ImportError as err:
        raise ImportError(INSTALL_HINT) from err
    try:
        ImageFont.load_default(size=12)
    except TypeError as err:  # Pillow < 10.1 has no scalable default font
        raise ImportError(f"Pillow {PIL.__version__} is too old: {INSTALL_HINT} (Pillow >= 10.1)") from err


@lru_cache(maxsize=64)
def _font(size: int):
    from PIL import ImageFont

    return ImageFont.load_default(size=size)


def _rgb(colour: str) -> tuple[int, int, int]:
    c = colour.lstrip("#")
    return int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)


def to_image(picture: Picture):
    """The picture as a ``PIL.Image.Image`` (mode RGB, ``picture.width`` x ``picture.height``).

    Raises:
        ImportError: Pillow is not installed.
    """
    require_pillow()
    from PIL import Image, ImageDraw

    k = SUPERSAMPLE
    img = Image.new("RGB", (picture.width * k, picture.height * k), _rgb(picture.background))
    draw = ImageDraw.Draw(img)
    for s in picture.shapes:
        if isinstance(s, sh.Rect):
            box = (s.x * k, s.y * k, (s.x + s.w) * k, (s.y + s.h) * k)
            fill = _rgb(s.fill) if s.fill else None
            outline = _rgb(s.stroke) if s.stroke else None
            width = max(1, round(s.stroke_width * k)) if s.stroke else 0
            if s.radius > 0:
                draw.rounded_rectangle(box, radius=s.radius * k, fill=fill, outline=outline, width=width)
            else:
                draw.rectangle(box, fill=fill, outline=outline, width=width)
        elif isinstance(s, sh.Ellipse):
            draw.ellipse(
                ((s.cx - s.rx) * k, (s.cy - s.ry) * k, (s.cx + s.rx) * k, (s.cy + s.ry) * k), fill=_rgb(s.fill)
            )
        elif isinstance(s, sh.Polygon):
            draw.polygon([(x * k, y * k) for x, y in s.points], fill=_rgb(s.fill))
        elif isinstance(s, sh.Text):
            anchor = {"l": "lm", "m": "mm", "r": "rm"}[s.anchor]
            draw.text((s.x * k, s.y * k), s.text, fill=_rgb(s.fill), font=_font(round(s.size * k)), anchor=anchor)
    return img.reduce(k)  # a box filter: fast, and enough to smooth the edges


def to_array(picture: Picture) -> np.ndarray:
    """The picture as a ``uint8`` array of shape ``(height, width, 3)`` (RGB).

    Raises:
        ImportError: Pillow is not installed.
    """
    return np.asarray(to_image(picture), dtype=np.uint8)


def render_rgb(state: Any, viewer: int, last_move: tuple[int, int] | None = None) -> np.ndarray:
    """``uint8 (560, 960, 3)`` picture of ``state`` as seat ``viewer`` sees it
    (``scene.table_picture``), the array ``render_mode="rgb_array"`` returns.

    Raises:
        ImportError: Pillow is not installed.
        TypeError, ValueError: as ``scene.table_picture``.
    """
    return to_array(table_picture(state, viewer, last_move))
