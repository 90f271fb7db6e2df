"""Input checks shared by the public functions: count vectors (R-RK-01), plays within racks, objectives."""

from __future__ import annotations

import numpy as np

from rummy_env.core.tiles import NUM_TILE_TYPES, tile_str

# ---------------------------------------------------------------------------------------
# Input checks


def _counts(x, name: str) -> np.ndarray:
    """``x`` as an int64 count vector of shape (53,) with entries 0..2 (R-RK-01)."""
    a = np.asarray(x)
    if a.shape != (NUM_TILE_TYPES,):
        raise ValueError(f"{name} must be a tile count vector of shape (53,), got shape {a.shape}")
    if a.dtype == bool or not (np.issubdtype(a.dtype, np.integer) or np.all(np.mod(a, 1) == 0)):
        raise ValueError(f"{name} must hold integer tile counts, got dtype {a.dtype}")
    a = a.astype(np.int64)
    bad = np.flatnonzero((a < 0) | (a > 2))
    if bad.size:
        t = int(bad[0])
        raise ValueError(
            f"{name} holds {a[t]} tiles of type {t} ({_tile_name(t)}); counts are 0..2: "
            "two copies of each tile and two jokers exist (R-RK-01)"
        )
    return a


def _tile_name(t: int) -> str:
    return tile_str(t)


def _play_inputs(table, rack, chosen, chosen_name: str = "chosen"):
    table = _counts(table, "table")
    rack = _counts(rack, "rack")
    chosen = _counts(chosen, chosen_name)
    both = table + rack
    bad = np.flatnonzero(both > 2)
    if bad.size:
        t = int(bad[0])
        raise ValueError(
            f"table and rack hold {both[t]} tiles of type {_tile_name(t)} together; each tile exists twice (R-RK-01)"
        )
    bad = np.flatnonzero(chosen > rack)
    if bad.size:
        t = int(bad[0])
        raise ValueError(
            f"{chosen_name} holds {chosen[t]} of {_tile_name(t)} but the rack only {rack[t]}; "
            f"{chosen_name} must be a sub-multiset of the rack"
        )
    return table, rack, chosen


def _check_objective(objective: str) -> None:
    if objective not in ("points", "tiles"):
        raise ValueError(f"objective {objective!r} is not known: use 'points' or 'tiles'")


def _bits_to_mask(bits: int) -> np.ndarray:
    return np.array([(bits >> t) & 1 for t in range(NUM_TILE_TYPES)], dtype=bool)
