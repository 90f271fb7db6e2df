"""Tile ids, text form, values and pool checks (R-RK-01, R-RK-10)."""

import numpy as np
import pytest

from rummy_env.core.tiles import (
    COLOURS,
    FULL_POOL_COUNTS,
    JOKER,
    NUM_TILE_TYPES,
    POOL_SIZE,
    TILE_VALUES,
    counts_str,
    counts_to_tiles,
    parse_counts,
    parse_pool,
    parse_tile,
    parse_tiles,
    tile_colour,
    tile_number,
    tile_str,
    tile_type,
    tile_value,
    tiles_to_counts,
)
from tests.helpers import whole


def full_pool_strings() -> list[str]:
    return [tile_str(t) for t in range(NUM_TILE_TYPES) for _ in range(2)]


def test_constants():
    assert NUM_TILE_TYPES == 53
    assert JOKER == 52
    assert COLOURS == "RBKY"
    assert POOL_SIZE == 106  # R-RK-01
    assert int(FULL_POOL_COUNTS.sum()) == 106


def test_type_layout():
    assert tile_type(0, 1) == 0 and tile_str(0) == "R1"
    assert tile_type(0, 13) == 12 and tile_str(12) == "R13"
    assert tile_type(1, 1) == 13 and tile_str(13) == "B1"
    assert tile_type(2, 7) == 32 and tile_str(32) == "K7"
    assert tile_type(3, 13) == 51 and tile_str(51) == "Y13"
    assert tile_str(JOKER) == "JK"
    assert tile_colour(32) == 2 and tile_number(32) == 7
    assert tile_colour(JOKER) == -1 and tile_number(JOKER) == 0


@pytest.mark.parametrize("t", range(NUM_TILE_TYPES))
def test_round_trip_all_types(t):
    text = tile_str(t)
    assert parse_tile(text) == t
    assert parse_tile(text.lower()) == t
    assert parse_tile(f"  {text}\t") == t


def test_two_digit_numbers():
    assert parse_tile("R10") == 9
    assert parse_tile("k13") == 38
    assert parse_tile("y11") == 49
    assert parse_tile("jk") == JOKER and parse_tile("Jk") == JOKER


def test_values():
    # R-RK-01: a tile's number is its value; R-RK-10: a joker on a rack counts 30
    assert tile_value(0) == 1
    assert tile_value(parse_tile("B13")) == 13
    assert tile_value(JOKER) == 30
    assert TILE_VALUES.shape == (53,) and TILE_VALUES.dtype == np.int64
    assert int(TILE_VALUES[:52].sum()) == 4 * 91


@pytest.mark.parametrize("text", ["R14", "R0", "G5", "J", "", "R 5"])
def test_parse_tile_errors(text):
    message = f"tile {text!r} is not a tile: numbers are 1-13, colours R B K Y, joker JK"
    with pytest.raises(ValueError, match=whole(message)):
        parse_tile(text)


def test_parse_tile_not_a_string():
    with pytest.raises(ValueError, match=r"^tile 7 is not a string: tiles are written like 'R7', 'K13' or 'JK'$"):
        parse_tile(7)  # type: ignore[arg-type]


def test_tile_str_errors():
    for bad in (-1, 53, 2.0, True):
        with pytest.raises(
            ValueError, match=whole(f"tile type {bad!r} is not a tile: tile types are ints 0..52 (52 = joker)")
        ):
            tile_str(bad)  # type: ignore[arg-type]


def test_parse_tiles_string_and_list():
    assert parse_tiles("R1 R2, R3 JK") == [0, 1, 2, JOKER]
    assert parse_tiles(["r1", "R1", "JK", "JK"]) == [0, 0, JOKER, JOKER]
    assert parse_tiles("") == []


def test_parse_tiles_over_count():
    with pytest.raises(ValueError, match=whole("tile 'B5' appears 3 times; each coloured tile exists twice")):
        parse_tiles("B5 B5 b5")
    with pytest.raises(ValueError, match=whole("tile 'JK' appears 3 times; there are two jokers")):
        parse_tiles(["JK"] * 3)


def test_parse_pool_ok():
    strings = full_pool_strings()
    ids = parse_pool(strings)
    assert len(ids) == 106
    assert np.array_equal(tiles_to_counts(ids), FULL_POOL_COUNTS)


def test_parse_pool_errors():
    strings = full_pool_strings()
    short = "pool has 105 tiles, expected 106: two of each coloured number R1..Y13 and two jokers JK; short of: R1"
    with pytest.raises(ValueError, match=whole(short)):
        parse_pool(strings[1:])
    with pytest.raises(ValueError, match=whole("tile 'R1' appears 3 times; each coloured tile exists twice")):
        parse_pool(strings[1:] + ["R1", "R1"])
    with pytest.raises(
        ValueError,
        match=whole("tile 'R14' is not a tile: numbers are 1-13, colours R B K Y, joker JK"),
    ):
        parse_pool(strings[:-1] + ["R14"])
    with pytest.raises(ValueError, match=whole("tile 'JK' appears 3 times; there are two jokers")):
        parse_pool(strings[2:] + ["JK"])


def test_counts_helpers():
    c = parse_counts("R1 R1 K13 JK")
    assert c.shape == (53,) and c.dtype == np.int64
    assert c[0] == 2 and c[38] == 1 and c[JOKER] == 1 and c.sum() == 4
    assert counts_to_tiles(c) == [0, 0, 38, JOKER]
    assert counts_str(c) == "R1 R1 K13 JK"
    assert counts_str(np.zeros(53, dtype=np.int8)) == ""
    with pytest.raises(ValueError, match=r"^a count vector has shape \(53,\), one count per tile type; got \(52,\)$"):
        counts_str(np.zeros(52, dtype=np.int8))
    bad = np.zeros(53, dtype=np.int64)
    bad[[3, 52]] = -1
    with pytest.raises(ValueError, match=r"^counts are >= 0; tile types \[3, 52\] have negative counts$"):
        counts_to_tiles(bad)
    with pytest.raises(ValueError, match=r"^tile type 53 is not a tile: tile types are ints 0\.\.52 \(52 = joker\)$"):
        tiles_to_counts([53])


@pytest.mark.parametrize("bad", [-1, 53, 60, True])
def test_tile_colour_and_number_refuse_what_is_no_tile_type(bad):
    # tile_number(60) once answered 9
    for f in (tile_colour, tile_number):
        with pytest.raises(
            ValueError, match=whole(f"tile type {bad!r} is not a tile: tile types are ints 0..52 (52 = joker)")
        ):
            f(bad)
    assert (tile_colour(51), tile_number(51), tile_colour(JOKER), tile_number(JOKER)) == (3, 13, -1, 0)
