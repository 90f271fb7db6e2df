"""Table jokers made cheaper for ``vector.rummikub_masks``: optional jokers and fewer joker moves.

Why: a joker on the table multiplies the label sweep's work (on the costliest positions of
random play, whether the table alone splits into melds took 31 us with its jokers taken
out, 187 us with one, 916 us with two; ``docs/results/rummikub-speed``), and 88% of the
mask time is on tables holding jokers.  When every joker of a position must be used (none
can be added: ``lo[52] == hi[52] == J``, at most 2), the sweep may instead treat the jokers
as optional and skip two kinds of joker moves, with the same answer, provided that a run
is forced (below):

* **Optional jokers** (``jlo = 0``).  If an arrangement of the real tiles plus ``j < J``
  jokers contains a run, the ``J - j <= 2`` left over fit in: a run of 11 or fewer tiles
  takes them at its ends, one of 12 takes one at its free end and, as one of 13, splits
  into ``1..6 + JK`` and ``7..13`` for the next; a run of 13 takes two as ``1..5 + JK`` and
  ``JK + 6..13`` (R-RK-04/05: a joker stands for any tile that makes its meld valid).  The
  real tiles, hence the labels, are unchanged.
* **Fewest group jokers** (``gj_min``): the tiles of one number that go to groups use the
  fewest jokers that complete them (``gj``'s lowest bit); more would only be left over.
* **No run starts with a joker below the number 11** (``split = 10`` layers read the moves
  of ``_kernel_tables(joker_starts=False)``, whose jokers all continue open runs): a run
  ``a..b`` whose lowest place is a joker becomes ``a+1..b+1`` with that joker on top
  (same real tiles) while ``b < 13``; at ``b = 13`` it keeps at least 3 tiles without that
  joker (left over) unless ``a = 11``.  On the sweep over the numbers 13 down to 1 the same
  holds mirrored.

So every arrangement that uses all ``J`` jokers becomes one the restricted sweep accepts,
and conversely every arrangement it accepts, if it holds a run, becomes one that uses all
``J`` jokers: the answer is the same.  ``run_forced`` checks the run: the numbers' tiles,
whatever the play adds within ``lo..hi``, cannot all go to groups with ``J`` jokers in all
(groups never cross numbers: the fewest jokers each number's groups need add up).

Measured on 30,536 recorded positions of random play (``docs/results/rummikub-speed``):
the relaxed sweep ran on 18,935 of the 19,345 with jokers to use and none to add (81% of
the mask time before), every mask the same as before, the masks of all the positions
15-21% cheaper than ``main``'s timed alternately in the same conditions (45.8-50.4 against
57.4-60.7 us a position in one heavy slot; one run outside a slot: 38.3 against 52.6, 27%).
"""

from __future__ import annotations

import numpy as np

from rummy_env.core.rummikub_solver.kernel_tables import _kernel_tables, _shared_tables

#: Layers (numbers 1..10 in the sweep's order) whose moves start no run with a joker.
SPLIT = 10

_TABLES: tuple | None = None


def joker_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, int, int]:
    """``(gstart, moves, gj_min, roff, split)``: the solver's move tables with the
    restricted ones (``_kernel_tables(joker_starts=False)``) appended, their keys ``roff``
    further on, read by the first ``split`` layers (``SPLIT``; the kernel's ``split``/``roff``:
    passed as data, so a compiled caller's cache never keeps an old value), and the
    group-joker table keeping the fewest jokers (int64 (25,), one bit per entry or 0).
    Built once per process."""
    global _TABLES
    if _TABLES is None:
        gstart, moves, gj, _ups = _shared_tables()
        gstart2, moves2, _gj, _ups2 = _kernel_tables(joker_starts=False)
        if gstart2.size != gstart.size:
            raise RuntimeError("the restricted move table must have the solver's keys")
        both_gstart = np.concatenate([gstart, gstart2 + moves.size]).astype(np.int64)
        both_moves = np.concatenate([moves, moves2]).astype(np.int64)
        gj_min = (gj & -gj).astype(np.int64)  # the lowest set bit: the fewest jokers
        _TABLES = (both_gstart, both_moves, gj_min, int(gstart.size), SPLIT)
    return _TABLES


def run_forced(lo, hi, gj_min):  # pragma: no cover - compiled by rummikub_masks
    """True when every arrangement of ``lo..hi`` (int64 (53,) tile counts, jokers
    ``hi[52]``) holds a run.  Groups never cross numbers, so an arrangement with no run
    splits each number's tiles into groups; summed over the numbers, the fewest jokers
    that can complete them (over every count vector of the four colours between ``lo``
    and ``hi``; ``gj_min[ones * 5 + twos]``: the bit of the fewest jokers completing the
    groups of ``ones`` colours with one tile and ``twos`` with two, 0 = none) would be at
    most ``hi[52]``.  More than that (or a number whose tiles no group split takes): a run."""
    need = 0
    for v in range(13):
        fewest = 3  # above any joker count: no split of this number's tiles
        for a in range(lo[v], hi[v] + 1):
            for b in range(lo[13 + v], hi[13 + v] + 1):
                for c in range(lo[26 + v], hi[26 + v] + 1):
                    for d in range(lo[39 + v], hi[39 + v] + 1):
                        ones = (a == 1) + (b == 1) + (c == 1) + (d == 1)
                        twos = (a == 2) + (b == 2) + (c == 2) + (d == 2)
                        bit = gj_min[ones * 5 + twos]  # 1, 2 or 4: 0, 1 or 2 jokers
                        jokers = 0 if bit == 1 else (1 if bit == 2 else (2 if bit == 4 else 3))
                        fewest = min(fewest, jokers)
        need += fewest
        if need > hi[52]:
            return True
    return False
