"""Rummikub tiles as integer ids, their text form, values and count vectors.

Tile *types* run 0..52 in one fixed order: colour-major, colours ``R B K Y`` (red, blue,
black, yellow), numbers 1..13 within a colour, then the joker::

    tile_type = colour_index * 13 + (number - 1)     # 0 = R1, 12 = R13, 13 = B1, ...
    51 = Y13, 52 = JK (joker)

The pool holds 106 physical tiles: two of each of the 52 coloured types and two jokers
(R-RK-01).  Because tiles of one type are interchangeable, a rack, the table or a play is
stored as a *count vector*: an ``np.ndarray`` of shape ``(53,)`` (dtype int8 or int64)
whose entry ``t`` is how many tiles of type ``t`` it holds (0..2 each, jokers included).

Text form (``docs/rules/README.md``): colour letter then number, e.g. ``"R7"``,
``"K13"``; jokers are ``"JK"``.  Lower-case letters and surrounding whitespace are
accepted on input.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

NUM_COLOURS = 4
NUM_NUMBERS = 13
NUM_COLOURED_TYPES = NUM_COLOURS * NUM_NUMBERS  # 52
NUM_TILE_TYPES = NUM_COLOURED_TYPES + 1  # 53: 52 coloured numbers + the joker
JOKER = 52
COLOURS = "RBKY"
COPIES_PER_TYPE = 2  # R-RK-01: two of each coloured number, and two jokers
NUM_JOKERS = 2
POOL_SIZE = COPIES_PER_TYPE * NUM_COLOURED_TYPES + NUM_JOKERS  # 106
JOKER_RACK_VALUE = 30  # R-RK-10, R-RK-11: a joker left on a rack counts 30

_TILE_STRINGS: tuple[str, ...] = tuple(f"{c}{n}" for c in COLOURS for n in range(1, NUM_NUMBERS + 1)) + ("JK",)
_PARSE = {text: t for t, text in enumerate(_TILE_STRINGS)}
_ALLOWED = "numbers are 1-13, colours R B K Y, joker JK"

#: Rack value of each tile type (R-RK-01, R-RK-10): the number for coloured tiles, 30 for
#: the joker.  Shape (53,), dtype int64, unit: points.  Inside a meld a joker is worth the
#: number of the tile it stands for instead (R-RK-07); the solver handles that case.
TILE_VALUES: np.ndarray = np.array(
    [n for _c in range(NUM_COLOURS) for n in range(1, NUM_NUMBERS + 1)] + [JOKER_RACK_VALUE],
    dtype=np.int64,
)
TILE_VALUES.setflags(write=False)

#: Counts of the full 106-tile pool (R-RK-01): 2 of every type.  Shape (53,), dtype int64.
FULL_POOL_COUNTS: np.ndarray = np.full(NUM_TILE_TYPES, COPIES_PER_TYPE, dtype=np.int64)
FULL_POOL_COUNTS.setflags(write=False)


def tile_type(colour_index: int, number: int) -> int:
    """Tile type of a colour (0..3 = R B K Y) and a number (1..13)."""
    return colour_index * NUM_NUMBERS + number - 1


def tile_colour(t: int) -> int:
    """Colour index (0..3 = R B K Y) of a coloured tile type 0..51; -1 for the joker.

    Raises:
        ValueError: ``t`` is not a tile type 0..52 (bools refused).
    """
    _check_type(t)
    return -1 if t == JOKER else t // NUM_NUMBERS


def tile_number(t: int) -> int:
    """Number (1..13) of a coloured tile type 0..51; 0 for the joker.

    Raises:
        ValueError: ``t`` is not a tile type 0..52 (bools refused).
    """
    _check_type(t)
    return 0 if t == JOKER else t % NUM_NUMBERS + 1


def tile_value(t: int) -> int:
    """Rack value of one tile in points: its number, or 30 for a joker (R-RK-01, R-RK-10).

    A joker inside a meld is worth the number of the tile it stands for (R-RK-07); that
    value depends on the meld, see ``rummikub_solver``.

    Raises:
        ValueError: ``t`` is not a tile type 0..52.
    """
    _check_type(t)
    return int(TILE_VALUES[t])


def tile_str(t: int) -> str:
    """Text form of a tile type, e.g. ``tile_str(0) == "R1"``, ``tile_str(52) == "JK"``.

    Raises:
        ValueError: ``t`` is not an int in 0..52.
    """
    _check_type(t)
    return _TILE_STRINGS[t]


def parse_tile(text: str) -> int:
    """Tile type of a tile string such as ``"R7"``, ``"k13"``, ``" JK "``.

    Raises:
        ValueError: the string names no tile; the message quotes it and lists what is
            allowed, e.g. ``tile 'R14' is not a tile: numbers are 1-13, colours R B K Y,
            joker JK``.
    """
    if not isinstance(text, str):  # ValueError like every parse error (as cards.parse_card)
        raise ValueError(  # noqa: TRY004
            f"tile {text!r} is not a string: tiles are written like 'R7', 'K13' or 'JK'"
        )
    t = _PARSE.get(text.strip().upper())
    if t is None:
        raise ValueError(f"tile {text.strip()!r} is not a tile: {_ALLOWED}")
    return t


def parse_tiles(tiles: str | Iterable[str]) -> list[int]:
    """Tile types of several tiles, in the order given; repeats allowed up to the pool's limit.

    Args:
        tiles: an iterable of tile strings, or one string of tiles separated by spaces or
            commas (``"R1 R2 R3, JK"``).

    Returns:
        list of tile types (ints 0..52), one per tile.

    Raises:
        ValueError: a string names no tile, or a type appears more than twice (each
            coloured tile and the joker exist twice, R-RK-01).
    """
    if isinstance(tiles, str):
        tiles = tiles.replace(",", " ").split()
    ids = [parse_tile(text) for text in tiles]
    _check_multiplicities(ids)
    return ids


def parse_pool(tiles: Iterable[str]) -> list[int]:
    """Tile types of a full stacked pool: all 106 tiles (R-RK-01), first tile drawn first.

    Raises:
        ValueError: a string names no tile, a type appears more than twice, or the pool
            does not hold exactly 106 tiles (two of each coloured number and two jokers);
            the message names the bad value and what is allowed.
    """
    if isinstance(tiles, str):
        tiles = tiles.replace(",", " ").split()
    ids = parse_tiles(list(tiles))
    if len(ids) != POOL_SIZE:
        counts = np.bincount(np.asarray(ids, dtype=np.int64), minlength=NUM_TILE_TYPES)
        missing = [tile_str(t) for t in range(NUM_TILE_TYPES) if counts[t] < COPIES_PER_TYPE]
        raise ValueError(
            f"pool has {len(ids)} tiles, expected {POOL_SIZE}: two of each coloured number "
            f"R1..Y13 and two jokers JK; short of: {' '.join(missing[:10])}" + (" ..." if len(missing) > 10 else "")
        )
    return ids


def tiles_to_counts(tiles: Iterable[int]) -> np.ndarray:
    """Count vector of some tile types.  Returns shape (53,), dtype int64.

    Raises:
        ValueError: an entry is not a tile type 0..52.
    """
    counts = np.zeros(NUM_TILE_TYPES, dtype=np.int64)
    for t in tiles:
        _check_type(t)
        counts[t] += 1
    return counts


def counts_to_tiles(counts: np.ndarray) -> list[int]:
    """Tile types of a count vector (shape (53,), integer counts >= 0), sorted, one entry
    per tile.

    Raises:
        ValueError: ``counts`` is not of shape (53,), or holds a negative count.
    """
    counts = np.asarray(counts)
    if counts.shape != (NUM_TILE_TYPES,):
        raise ValueError(f"a count vector has shape ({NUM_TILE_TYPES},), one count per tile type; got {counts.shape}")
    if (counts < 0).any():
        raise ValueError(f"counts are >= 0; tile types {np.flatnonzero(counts < 0).tolist()} have negative counts")
    return [t for t in range(NUM_TILE_TYPES) for _ in range(int(counts[t]))]


def parse_counts(tiles: str | Iterable[str]) -> np.ndarray:
    """Count vector (shape (53,), dtype int64) of a tile string or strings, e.g. ``"R1 R1 JK"``.

    Raises:
        ValueError: as ``parse_tiles``.
    """
    return tiles_to_counts(parse_tiles(tiles))


def counts_str(counts: np.ndarray) -> str:
    """Text form of a count vector (shape (53,), counts >= 0): sorted tile strings separated
    by spaces (``""`` if empty).

    Raises:
        ValueError: as :func:`counts_to_tiles`.
    """
    return " ".join(tile_str(t) for t in counts_to_tiles(counts))


def _check_type(t: int) -> None:
    if isinstance(t, bool) or not isinstance(t, (int, np.integer)) or not 0 <= t < NUM_TILE_TYPES:
        raise ValueError(f"tile type {t!r} is not a tile: tile types are ints 0..52 (52 = joker)")


def _check_multiplicities(ids: list[int]) -> None:
    counts = np.bincount(np.asarray(ids, dtype=np.int64), minlength=NUM_TILE_TYPES)
    for t in np.flatnonzero(counts > COPIES_PER_TYPE):
        what = "there are two jokers" if t == JOKER else "each coloured tile exists twice"
        raise ValueError(f"tile {tile_str(int(t))!r} appears {counts[t]} times; {what}")
