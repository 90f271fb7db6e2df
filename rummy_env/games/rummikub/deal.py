"""Stacked pools for scripted Rummikub hands."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from rummy_env.core.tiles import COPIES_PER_TYPE, NUM_TILE_TYPES, parse_pool, parse_tiles, tile_str
from rummy_env.games.deal import count_hands
from rummy_env.games.options import check_seat

RACK_SIZE = 14  # R-RK-02


def stack_pool(
    racks: Sequence[Sequence[str] | str], pool_top: Sequence[str] | str = (), first_player: int = 0
) -> list[str]:
    """A 106-tile pool (tile strings, first drawn first) that deals exactly these racks.

    Racks are dealt one tile at a time in seat order starting with the first player
    (R-RK-02); the pool's next tiles are ``pool_top``; tiles not named follow in tile
    order.  Pass the result as ``env.reset(options={"deck": pool, "first_player": k})``.

    Args:
        racks: one rack of 14 tiles per seat (tile strings, or one string each).
        pool_top: the first tiles drawn from the pool after the deal.
        first_player: the seat that plays first.

    Raises:
        ValueError: wrong rack sizes or player count, a bad seat, an unknown tile, or a
            tile type named more than twice.
        TypeError: ``racks`` is not a list or tuple.
    """
    n = count_hands("racks", racks)
    if not 2 <= n <= 4:
        raise ValueError(f"{n} racks given: Rummikub has 2 to 4 players")
    check_seat("first_player", first_player, n)
    parsed = [parse_tiles(r) for r in racks]
    for seat, r in enumerate(parsed):
        if len(r) != RACK_SIZE:
            raise ValueError(f"rack of player_{seat} has {len(r)} tiles: each rack has {RACK_SIZE}")
    order = [parsed[(first_player + i) % n][i // n] for i in range(RACK_SIZE * n)]
    order += parse_tiles(pool_top)
    parse_tiles([tile_str(t) for t in order])  # refuses a type named more than twice
    left = [COPIES_PER_TYPE] * NUM_TILE_TYPES
    for t in order:
        left[t] -= 1
    rest = [t for t in range(NUM_TILE_TYPES) for _ in range(left[t])]
    return [tile_str(t) for t in order + rest]


def parse_stacked_pool(deck: Any) -> list[int]:
    """Tile types of a stacked pool given as a reset option: a list of the 106 tile
    strings, first drawn first (``core.tiles.parse_pool``).

    Raises:
        ValueError: one string instead of a list, an unordered container, or not the
            106 tiles (``parse_pool``'s message).
    """
    if isinstance(deck, str):
        raise ValueError("deck must be a list of 106 tile strings, first drawn first, not one string")
    if not isinstance(deck, (list, tuple, np.ndarray)):
        raise ValueError(f"deck of type {type(deck).__name__} has no order: pass a list of 106 tile strings")
    return parse_pool(list(deck))
