"""Rummikub's exact legal-action masks for many games in one compiled call.

The same answers as ``RummikubState._compute_legal`` (``core.rummikub_solver``'s
``ordered_extension_mask`` and ``is_legal_play``), from the solver's own numba sweep
(``kernel_bounds._bounds_sweep_tuned``) called in nopython mode per game, with no Python between
the games (``nogil``: worker threads run slices of the games at once):

* tile ids 0..52 (the ordered mask): the types below the last one added are closed
  (``rack[:last] = chosen[:last]``); after the player's initial meld the one full
  ordered label sweep on ``table + chosen .. table + rack`` (R-RK-08; over the numbers
  1 to 13 or 13 down to 1, the same answer: see "direction" below), before it the
  ordered points sweep on ``chosen .. rack`` with the ``initial_meld_points`` threshold
  (R-RK-07).  The solver's own ``ordered_extension_mask`` runs the label sweep in
  stages (``sweeps._ordered_sweep``) whose union is the one full sweep's answer (its
  docstring); on 3,105 positions of random play the full sweep gave the same bits and
  took 190 us against 370 us for the staged Python path.
* ``commit`` (53) when tiles are chosen: after the initial meld with no joker left to
  add, read from the same label sweep (``_one_mask``); otherwise an existence sweep on
  ``table + chosen`` (after the initial meld), or on ``chosen`` with the points threshold
  (before it).
* ``draw`` (54) when no tile is chosen (R-RK-06).

Direction: a sweep over the numbers 13 down to 1 gives the same bits at a cost that
differs from the upward one (by 1.6x at the median, 5.8x at the 90th percentile of
random-play positions, either way), and no feature of the position predicted which is
cheaper (the solver's ``sweeps._mirror_pays`` came within 10% of always upward), but
consecutive positions of a game agree: the direction that was cheaper on the game's
previous position cost 33% less than ``_mirror_pays``'s.  So each game keeps the work
(``kernel._kernel_sweep``'s move pairs) of its last sweep in each direction (``dir_cost``,
-1 unknown; reset when a hand is dealt) and runs the direction with the smaller figure,
an unknown one counting 0 so that it gets tried (``_mirror_pays`` when both are unknown):
replayed on 10,743 positions of 96 games this took 24% less time than ``_mirror_pays``
(always the cheaper direction: 42% less).

Table jokers: when the jokers of a position must all be used (none can be added) and
``rummikub_jokers.run_forced`` holds, the label sweep treats them as optional and skips the
joker moves that cannot matter (``vector.rummikub_jokers``: same bits, 15-21% less mask
time in replays of random play).

The initial meld with table play (``initial_meld_table_play=True``, before the
player's initial meld) is the solver's product sweep, driven from Python
(``table_play``): those games are flagged in ``fallback`` and the caller asks the
solver's public functions for them.
"""

from __future__ import annotations

import numba
import numpy as np

from rummy_env.core.rummikub_solver import kernel as solver_kernel
from rummy_env.core.rummikub_solver import kernel_bounds
from rummy_env.core.rummikub_solver.kernel_tables import (
    _BLOCK_COLOURS,
    _BLOCK_TYPES,
    _IDENTITY,
    _LOHI_TABLE,
    _LONG_ONLY_TABLE,
    _shared_tables,
)
from rummy_env.vector import rummikub_jokers

COMMIT, DRAW = 53, 54
_ALL_COLOURED = np.int64((1 << 52) - 1)  # the label values of an ordered sweep with below=0
_MIRROR_MEAN = 8.0  # sweeps._MIRROR_MEAN
#: ``kernel._kernel_sweep``'s pruning thresholds for these sweeps: one-step dominance on
#: layers above 32 codes as the solver, but no two-step look-ups (``prune_two`` out of
#: reach): on 1,200 positions of random play (256 games, after one hand's worth of steps)
#: they cost more than they saved, 111 ms against 157 ms for the label sweeps, 59 against
#: 76 for the existence sweeps (same answers: pruning only drops dominated codes).
_PRUNE_MIN, _PRUNE_TWO = np.int64(32), np.int64(1 << 62)
#: The flags and zeros of ``_one_mask``'s points and existence sweeps (no ``work`` counter),
#: numpy values rather than literals for the reason of ``kernel_bounds.PRUNE_MIN``: these
#: sweeps, and the solver's sweep under them, share the env's compiled code.  The label
#: sweep, where the mask's time goes, keeps its literal flags (numba prunes the branches
#: they decide) and compiles apart: two versions of each function, not four.
_YES, _NO, _ZERO = np.bool_(True), np.bool_(False), np.int64(0)

_bounds = None  # the solver's compiled _bounds_sweep_tuned, bound by masks_kernel()
_run_forced = rummikub_jokers.run_forced


def _mirror(x, out):  # pragma: no cover - compiled
    """``kernel_tables.mirror_counts`` into ``out``."""
    for c in range(4):
        for v in range(13):
            out[c * 13 + v] = x[c * 13 + 12 - v]
    out[52] = x[52]


def _mirror_bits(bits):  # pragma: no cover - compiled
    """``kernel_tables.mirror_bits`` (bits 52 and 53 kept)."""
    out = bits & ~_ALL_COLOURED
    for c in range(4):
        for v in range(13):
            if (bits >> (c * 13 + v)) & 1:
                out |= 1 << (c * 13 + 12 - v)
    return out


def _mirror_pays(lo, hi):  # pragma: no cover - compiled
    """``sweeps._mirror_pays(lo, hi, 0)``: the mean number of the coloured types that can
    be added is at most ``_MIRROR_MEAN``."""
    count = 0
    total = 0.0
    for t in range(52):
        if hi[t] > lo[t]:
            count += 1
            total += t % 13
    return count > 0 and total / count + 1 <= _MIRROR_MEAN


def _sweep(  # pragma: no cover - compiled
    lo, hi, ordered, threshold, labels, below, mirrored, tables, lo_m, hi_m, work, relaxed
):
    """One solver sweep (``kernel_bounds._bounds_sweep_tuned``) on ``lo..hi``: ``(found, bits)``; with
    ``mirrored`` over the numbers 13 down to 1 (``lo_m``, ``hi_m``: work rows), the bits
    mapped back; ``work`` (int64 (1,) or None) accumulates the sweep's move pairs.
    ``relaxed``: the jokers optional and the restricted joker moves (``rummikub_jokers``;
    the caller checked its conditions and passes ``below > 0``: no joker label)."""
    gstart, moves, gj, ups, lohi_table, identity, long_only, block_types, block_colours = tables[:9]
    split, roff = 0, 0
    if relaxed:
        gstart, moves, gj, roff, split = tables[9:]
    if not mirrored:
        if relaxed:  # jlo = 0: a copy of lo without its jokers
            for t in range(53):
                lo_m[t] = lo[t]
            lo_m[52] = 0
            lo = lo_m
        return _bounds(
            lo, hi, lohi_table, gstart, moves, gj, ups, ordered, threshold, labels, below, identity, long_only,
            _ALL_COLOURED, block_types, _PRUNE_MIN, _PRUNE_TWO, work, split, roff,
        )  # fmt: skip
    _mirror(lo, lo_m)
    _mirror(hi, hi_m)
    if relaxed:
        lo_m[52] = 0
    found, bits = _bounds(
        lo_m, hi_m, lohi_table, gstart, moves, gj, ups, ordered, threshold, labels, below, identity, long_only,
        _ALL_COLOURED, block_colours, _PRUNE_MIN, _PRUNE_TWO, work, split, roff,
    )  # fmt: skip
    return found, _mirror_bits(bits)


def _direction(lo, hi, cost):  # pragma: no cover - compiled
    """Whether to run the label sweep on ``lo..hi`` over the numbers 13 down to 1: the
    direction whose last work in ``cost`` (int64 (2,): upward, downward; -1 unknown) is
    smaller, an unknown one counting 0 (module docstring); ``_mirror_pays`` when both are
    unknown."""
    if cost[0] < 0 and cost[1] < 0:
        return _mirror_pays(lo, hi)
    return max(cost[1], 0) < max(cost[0], 0)


def _one_mask(  # pragma: no cover - compiled
    table, rack, chosen, last, done, points, tables, lo, hi, lo_m, hi_m, row, cost, work
):
    """The legal ids of one player into ``row`` (int8 (55,)), initial meld without table
    play; ``lo, hi, lo_m, hi_m`` are int64 (53,) work rows, ``cost`` the game's int64 (2,)
    ``dir_cost`` row (read and updated: ``_direction``), ``work`` an int64 (1,) scratch.

    After the initial meld with tiles chosen and no joker left to add, one sweep answers
    ``commit`` too: with ``below=52`` its labels are those of ``below=0`` (they differ only
    in how an added joker folds into a label, and no joker can be added) and its answer
    keeps bit 53, "some accepting path adds nothing": table + chosen splits into melds.
    Jokers that must all be used go through the relaxed sweep when a run is forced
    (``rummikub_jokers``; ``below=52`` then at the turn's start too: no joker can be added,
    so the bits 0..52 are the same)."""
    for t in range(55):
        row[t] = 0
    commit = -1  # not known yet
    if done:
        for t in range(53):
            lo[t] = table[t] + chosen[t]
            hi[t] = table[t] + (chosen[t] if t < last else rack[t])
        both = last >= 0 and hi[52] == lo[52]
        relax = lo[52] > 0 and hi[52] == lo[52] and _run_forced(lo, hi, tables[11])
        mirrored = _direction(lo, hi, cost)
        work[0] = 0
        below = 52 if both or relax else 0
        bits = _sweep(lo, hi, True, 0, True, below, mirrored, tables, lo_m, hi_m, work, relax)[1]
        cost[1 if mirrored else 0] = work[0]
        if both:
            commit = 1 if (bits >> 53) & 1 else 0
    else:
        for t in range(53):
            lo[t] = chosen[t]
            hi[t] = chosen[t] if t < last else rack[t]
        bits = _sweep(lo, hi, _YES, max(points, 0), _YES, _ZERO, _NO, tables, lo_m, hi_m, None, _NO)[1]
    for t in range(53):
        row[t] = (bits >> t) & 1
    if last < 0:
        row[DRAW] = 1
        return
    if commit < 0:
        for t in range(53):
            lo[t] = table[t] + chosen[t] if done else chosen[t]
        threshold = 0 if done else max(points, 0)
        commit = 1 if _sweep(lo, lo, _NO, threshold, _NO, _ZERO, _NO, tables, lo_m, hi_m, None, _NO)[0] else 0
    row[COMMIT] = commit


def masks_range(  # pragma: no cover - compiled
    start, stop, games, racks, table, chosen, last, current, meld, points, table_play, tables, legal, fallback, dir_cost
):
    """The masks of games ``games[start:stop]`` (their acting player's) into ``legal``
    (int8 (num_envs, 55)); a game whose player has not made the initial meld with
    ``table_play`` is skipped and flagged in ``fallback`` (bool (num_envs,)).
    ``dir_cost``: int64 (num_envs, 2), each game's last sweep work per direction (module
    docstring), read and updated."""
    lo = np.empty(53, np.int64)
    hi = np.empty(53, np.int64)
    lo_m = np.empty(53, np.int64)
    hi_m = np.empty(53, np.int64)
    work = np.zeros(1, np.int64)
    for k in range(start, stop):
        g = games[k]
        p = current[g]
        done = meld[g, p]
        if not done and table_play:
            fallback[g] = True
            continue
        fallback[g] = False
        _one_mask(
            table[g], racks[g, p], chosen[g], last[g], done, points, tables, lo, hi, lo_m, hi_m, legal[g], dir_cost[g],
            work,
        )  # fmt: skip


_COMPILED = None


def masks_kernel():
    """``masks_range`` compiled (``nogil``, cached), with the solver's tables as its
    ``tables`` argument: ``(masks_range, tables)``."""
    global _COMPILED, _bounds, _sweep, _one_mask, _mirror, _mirror_bits, _mirror_pays, _direction, masks_range
    global _run_forced
    if _COMPILED is None:
        if not solver_kernel._kernel():  # binds the solver's compiled helpers
            raise ImportError("RummikubVec needs the solver's numba kernel (numba installed, RUMMY_ENV_NO_NUMBA unset)")
        jit = numba.njit(cache=True, nogil=True)
        _bounds = kernel_bounds._bounds_sweep_tuned  # compiled (nogil, cached) by _kernel() above
        _mirror = jit(_mirror)
        _mirror_bits = jit(_mirror_bits)
        _mirror_pays = jit(_mirror_pays)
        _direction = jit(_direction)
        _run_forced = jit(rummikub_jokers.run_forced)
        _sweep = jit(_sweep)
        _one_mask = jit(_one_mask)
        masks_range = jit(masks_range)
        gstart, moves, gj, ups = _shared_tables()
        tables = (gstart, moves, gj, ups, _LOHI_TABLE, _IDENTITY, _LONG_ONLY_TABLE, _BLOCK_TYPES, _BLOCK_COLOURS)
        tables += rummikub_jokers.joker_tables()  # the relaxed sweeps' gstart, moves, gj_min, roff, split
        _COMPILED = (masks_range, tables)
    return _COMPILED
