"""An encoded observation as text: OpenSpiel's ``observation_string`` and
``information_state_string`` of the variants' games (``rummy_env.openspiel.core``)."""

from __future__ import annotations

import functools

import numpy as np

from rummy_env.core.cards import NUM_CARDS, card_str
from rummy_env.core.tiles import NUM_TILE_TYPES, tile_str
from rummy_env.encoding.layout import Layout


def describe(layout: Layout, vector: np.ndarray, tiles: bool) -> str:
    """An encoded observation as text, one line per field that is not all zero: card
    planes as cards, tile blocks as tiles with counts, other fields as numbers.

    Args:
        layout: the variant's observation layout (its fields' names and slices).
        vector: the observation, float32 ``(layout.size,)`` as ``env()`` gives it.
        tiles: Rummikub's layout (53-count tile blocks) rather than the card games'.
    """
    values = vector.tolist()
    lines = []
    for name, start, stop, kind in _text_fields(layout, tiles):
        block = values[start:stop]
        if not any(block):
            continue
        if kind == "cards":
            text = " ".join(CARD_TEXT[c] for c, v in enumerate(block) if v)
        elif kind == "tiles":
            text = " ".join(TILE_TEXT[t] + (f"x{v:g}" if v != 1 else "") for t, v in enumerate(block) if v)
        else:
            text = " ".join(f"{v:g}" for v in block)
        lines.append(f"{name}: {text}")
    return "\n".join(lines)


@functools.lru_cache(maxsize=64)
def _text_fields(layout: Layout, tiles: bool) -> tuple[tuple[str, int, int, str], ...]:
    """(name, start, stop, kind) of each field: ``cards`` (a 0/1 plane of 52 cards),
    ``tiles`` (53 tile counts) or ``numbers``."""
    out = []
    for f in layout.fields:
        s = layout.slice(f.name)
        kind = "numbers"
        if f.size == NUM_CARDS and not tiles and f.high == 1:
            kind = "cards"
        elif f.size == NUM_TILE_TYPES and tiles:
            kind = "tiles"
        out.append((f.name, s.start, s.stop, kind))
    return tuple(out)


CARD_TEXT = tuple(card_str(c) for c in range(NUM_CARDS))
TILE_TEXT = tuple(tile_str(t) for t in range(NUM_TILE_TYPES))
