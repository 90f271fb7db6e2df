"""Ceiling probe (README.md of this folder, 2026-12-06): the relaxed sweeps of
``vector.rummikub_jokers`` with a move table where no joker continues a run of 3+.

Not exact (its masks differ on some positions): it bounds what making a joker that trails a
run of 3+ optional could save.  ``POSITIONS.npz`` comes from ``replay.py record``.

    python docs/results/rummikub-speed/strict_jokers.py POSITIONS.npz base    # as committed
    python docs/results/rummikub-speed/strict_jokers.py POSITIONS.npz strict  # the probe
"""

from __future__ import annotations

import sys
import time

import numpy as np

from rummy_env.core.rummikub_solver import kernel_tables, tables


def main(path: str, mode: str) -> None:
    original = kernel_tables._colour_moves

    def strict(s, lo, hi, kmax, cap1, cap2, joker_starts=True):
        moves = original(s, lo, hi, kmax, cap1, cap2, joker_starts)
        if joker_starts or mode == "base":
            return moves
        n1, n2, _n3 = tables._CSTATES[s]
        return tuple(m for m in moves if m[1] <= n1 + n2)  # jokers only on runs of 1 or 2

    kernel_tables._colour_moves = strict  # before the relaxed tables are built, below
    from rummy_env.vector.rummikub_masks import masks_kernel

    d = dict(np.load(path))
    n = d["last"].size
    masks_range, tabs = masks_kernel()
    racks, meld = d["rack"].reshape(n, 1, 53), d["meld"].reshape(n, 1).astype(np.bool_)
    best = float("inf")
    for _ in range(3):
        legal, fallback, cost = np.zeros((n, 55), np.int8), np.zeros(n, np.bool_), d["dir_cost"].copy()
        t0 = time.perf_counter()
        masks_range(
            0, n, np.arange(n), racks, d["table"], d["chosen"], d["last"], np.zeros(n, np.int64), meld, 30, False,
            tabs, legal, fallback, cost,
        )  # fmt: skip
        best = min(best, time.perf_counter() - t0)
    differing = int((legal != d["legal"]).any(1).sum())
    print(f"{mode}: {best * 1e6 / n:.2f} us a mask (best of 3, one thread), masks differing {differing} of {n}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
