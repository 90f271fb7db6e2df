"""The count-vector entries of the compiled label sweep: ``kernel._kernel_sweep`` on the
tile counts ``lo``/``hi`` (int64 (53,)), its per-number bounds (``kernel_tables._lohi_capc``)
built compiled.  ``kernel._kernel()`` compiles both entries (its Python wrapper calls
``_bounds_sweep``); ``vector.rummikub_masks`` calls ``_bounds_sweep_tuned`` from compiled code.
"""

from __future__ import annotations

import numpy as np

from rummy_env.core.tiles import JOKER

#: The sweep the entries run, ``kernel._kernel_sweep``: ``kernel`` binds it here, the Python
#: function when it is imported and the compiled one in ``kernel._kernel()`` before the
#: entries compile (this module cannot import ``kernel``: ``kernel`` imports it).
_kernel_sweep = None

#: ``_bounds_sweep``'s pruning thresholds and "no restricted moves" (``split``/``roff``), as
#: int64 values rather than literals: numba compiles a function once per argument type and a
#: literal is a type of its own, so with these (and no ``work`` counter) the env's sweeps and
#: ``vector.rummikub_masks``'s points and existence sweeps share one compiled
#: ``_bounds_sweep_tuned`` and ``_kernel_sweep``.
PRUNE_MIN, PRUNE_TWO, NO_SPLIT = np.int64(32), np.int64(64), np.int64(0)


def _bounds_sweep(  # pragma: no cover - compiled
    lo, hi, lohi_table, gstart, moves, gj, ups, ordered, threshold, labels, below, remap, long_only, vmask, block
):
    """``_kernel_sweep`` on the count vectors ``lo``/``hi`` (int64 (53,)): the per-number
    bounds of ``_lohi_capc`` built compiled (one call from Python, no array work there);
    ``long_only`` passed on only for an existence sweep with a threshold and an empty ``lo``.

    Every argument is explicit: a call from Python that leaves optional arguments out
    resolves its signature on numba's slow path, about 200 us a call (measured: the env's
    sweeps ran 2x slower with two defaulted arguments added here); ``_bounds_sweep_tuned``
    takes the pruning thresholds and a work counter, for compiled callers (none here: with
    a scratch counter the env's sweeps took about 2% longer)."""
    return _bounds_sweep_tuned(
        lo, hi, lohi_table, gstart, moves, gj, ups, ordered, threshold, labels, below, remap, long_only, vmask, block,
        PRUNE_MIN, PRUNE_TWO, None, NO_SPLIT, NO_SPLIT,
    )  # fmt: skip


def _bounds_sweep_tuned(  # pragma: no cover - compiled
    lo,
    hi,
    lohi_table,
    gstart,
    moves,
    gj,
    ups,
    ordered,
    threshold,
    labels,
    below,
    remap,
    long_only,
    vmask,
    block,
    prune_min,
    prune_two,
    work,
    split,
    roff,
):
    """``_bounds_sweep`` with ``_kernel_sweep``'s ``prune_min``/``prune_two`` (pruning drops
    dominated codes only, so they change the cost, never the answer) and ``work`` (int64
    (1,) or None) and ``split``/``roff`` (restricted moves on the first layers, 0/0 for
    none: ``vector.rummikub_jokers``); ``vector.rummikub_masks`` calls it from compiled
    code with its own."""
    early = not labels and threshold > 0
    for t in range(53):
        if lo[t] != 0:
            early = False
    lohi = np.empty((13, 4), dtype=np.int64)
    capc = np.empty((13, 4), dtype=np.int64)
    for c in range(4):
        for i in range(13):
            t = c * 13 + i
            lohi[i, c] = lohi_table[lo[t] * 3 + hi[t]]
            cap1 = hi[t + 1] + 1 if i + 1 < 13 else 0
            cap2 = hi[t + 2] + 1 if i + 2 < 13 else 0
            capc[i, c] = cap1 * 4 + cap2
    return _kernel_sweep(
        lohi,
        capc,
        lo[JOKER],
        hi[JOKER],
        gstart,
        moves,
        gj,
        ups,
        ordered,
        threshold,
        labels,
        prune_min,
        prune_two,
        below,
        remap,
        long_only if early else None,
        vmask,
        block,
        work,
        split,
        roff,
    )
