"""The flat tables the numba kernels read: colour moves, group jokers, upgrades, bounds and stand-ins.

Built once per process in plain Python and numpy (``kernel`` and ``kernel_best`` share them);
the kernels themselves are in ``kernel`` (the labelled sweep) and ``kernel_best`` (best play).
"""

from __future__ import annotations

import numpy as np

from rummy_env.core.rummikub_solver.tables import (
    _CSTATES,
    _GROUP_JOKERS,
    _LONG_ONLY,
    _UPGRADES,
    _UPGRADES2,
    _colour_moves,
)
from rummy_env.core.tiles import NUM_COLOURS, NUM_NUMBERS

_LOHI_INDEX = {(lo, hi): k for k, (lo, hi) in enumerate((lo, hi) for lo in range(3) for hi in range(lo, 3))}


def _kernel_tables(joker_starts: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Flat tables for the kernel (``joker_starts``: passed to ``_colour_moves``).

    Colour moves: key ``((s * 6 + lohi) * 3 + budget) * 16 + (cap1 + 1) * 4 + (cap2 + 1)``;
    the moves sending ``g`` tiles to groups are ``moves[gstart[4 * key + g]:gstart[4 * key
    + g + 1]]``, each ``k | next << 2 | extra << 8 | x << 9`` (``x`` real tiles used).  Group table: bit ``jg`` of
    ``gj[a * 5 + b]`` = jg jokers complete the groups of ``a`` colours with one tile and
    ``b`` colours with two.  Upgrades: ``ups[s, :4]`` = ``_UPGRADES[s]``, ``ups[s, 4:]`` =
    ``_UPGRADES2[s]``, padded with 0.
    """
    gstart = [0]
    moves: list[int] = []
    for s in range(len(_CSTATES)):
        for lo, hi in _LOHI_INDEX:
            for budget in range(3):
                for cap1 in range(-1, 3):
                    for cap2 in range(-1, 3):
                        by_g: list[list[int]] = [[], [], []]
                        for g, k, nxt, x in _colour_moves(s, lo, hi, budget, cap1, cap2, joker_starts):
                            by_g[g].append(k | nxt << 2 | int(x > lo) << 8 | x << 9)
                        for g in range(3):
                            moves.extend(by_g[g])
                            gstart.append(len(moves))
                        gstart.append(len(moves))  # pad to 4 entries per key
    gstart = gstart[:-1]
    if max(b - a for a, b in zip(gstart, gstart[1:], strict=False)) > 9:
        raise RuntimeError("a colour move bucket holds more than 9 moves: raise _HALF_CAP")
    gj = np.zeros(25, dtype=np.int64)
    for (a, b), jgs in _GROUP_JOKERS.items():
        gj[a * 5 + b] = sum(1 << jg for jg in jgs)
    ups = np.zeros((len(_CSTATES), 16), dtype=np.int64)
    for i, deltas in enumerate(_UPGRADES):
        ups[i, : len(deltas)] = deltas
    for i, deltas in enumerate(_UPGRADES2):
        ups[i, 4 : 4 + len(deltas)] = deltas
    return np.array(gstart, dtype=np.int64), np.array(moves, dtype=np.int64), gj, ups


_LOHI_TABLE = np.full(9, -1, dtype=np.int64)
for (_lo, _hi), _k in _LOHI_INDEX.items():
    _LOHI_TABLE[_lo * 3 + _hi] = _k
_TABLES: tuple | None = None


def remap_table(pairs: dict[int, int]) -> np.ndarray:
    """The ``remap`` argument of the kernel: type ``t`` -> type ``pairs.get(t, t)``."""
    table = np.zeros(67, dtype=np.int64)
    for t in range(54):
        table[(1 << t) % 67] = 1 << pairs.get(t, t)
    return table


_IDENTITY = remap_table({})


def mirror_counts(x: np.ndarray) -> np.ndarray:
    """Count vector (53,) with each colour's numbers reversed (``v -> 14 - v``), jokers kept:
    runs and groups map to runs and groups, so a sweep may run over the numbers 13 down to 1."""
    out = x.copy()
    out[:52] = x[:52].reshape(NUM_COLOURS, NUM_NUMBERS)[:, ::-1].reshape(-1)
    return out


def mirror_bits(bits: int) -> int:
    """A tile-type set (int, bits 0..53) with each colour's numbers reversed as ``mirror_counts``
    (bits 52, 53 kept); its own inverse."""
    out = bits & ~((1 << 52) - 1)
    for c in range(NUM_COLOURS):
        row = (bits >> (c * NUM_NUMBERS)) & ((1 << NUM_NUMBERS) - 1)
        out |= int(f"{row:013b}"[::-1], 2) << (c * NUM_NUMBERS)
    return out


_BLOCK_TYPES = np.zeros(67, dtype=np.int64)
_BLOCK_COLOURS = np.zeros(67, dtype=np.int64)
for _t in range(54):
    _BLOCK_TYPES[(1 << _t) % 67] = (1 << _t) - 1
    _BLOCK_COLOURS[(1 << _t) % 67] = (1 << (NUM_NUMBERS * (_t // NUM_NUMBERS))) - 1 if _t < 52 else (1 << _t) - 1


def ordered_masks(below: int, mirrored: bool) -> tuple[int, np.ndarray]:
    """``(vmask, block)`` of the kernel: the label values kept (the types below ``below`` when
    it is > 0, else every coloured type; mirrored with the numbers), and per new lowest added
    type the values that stay below it (types in order; colours on mirrored numbers)."""
    vmask = (1 << below) - 1 if below > 0 else (1 << 52) - 1
    if mirrored:
        return mirror_bits(vmask), _BLOCK_COLOURS
    return vmask, _BLOCK_TYPES


_LONG_ONLY_TABLE = np.array([s in _LONG_ONLY for s in range(64)], dtype=np.bool_)


def _shared_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``_kernel_tables()``, built once per process (the label and the best-play kernels share them)."""
    global _TABLES
    if _TABLES is None:
        _TABLES = _kernel_tables()
    return _TABLES


def _lohi_capc(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per number and colour (int64 (13, 4)): the index of ``(lo, hi)`` and the cap code
    ``(cap1 + 1) * 4 + cap2 + 1`` (the hi of the next two numbers, -1 past 13)."""
    lo2 = lo[:52].reshape(NUM_COLOURS, NUM_NUMBERS)
    hi2 = hi[:52].reshape(NUM_COLOURS, NUM_NUMBERS)
    lohi = _LOHI_TABLE[lo2 * 3 + hi2].T.copy()
    pad = np.zeros((NUM_COLOURS, NUM_NUMBERS + 2), dtype=np.int64)
    pad[:, :NUM_NUMBERS] = hi2 + 1
    capc = (pad[:, 1 : NUM_NUMBERS + 1] * 4 + pad[:, 2:]).T.copy()
    return lohi, capc
