"""How much of a label sweep do its labels cost?  An existence sweep on the same bounds.

    python docs/results/rummikub-speed/replay.py record /tmp/pos.npz
    python docs/results/rummikub-speed/label_cost.py /tmp/pos.npz

For every recorded position after the player's initial meld, ``rummikub_masks._sweep``
runs on the mask's bounds (``table + chosen .. table + rack``, the types below the last
one added closed) twice, both upward and one thread: the ordered label sweep the mask
needs, and the existence sweep (``labels=False``: only whether an arrangement exists, so
every stronger code prunes a weaker one).  The difference bounds what any way of thinning
the labels (bits already known from a cheaper witness or an earlier position) could save:
the codes a layer holds, not their labels, are the cost.
"""

from __future__ import annotations

import sys
import time

import numba
import numpy as np

from rummy_env.vector import rummikub_masks


def main(path: str, reps: int = 2) -> None:
    _, tables = rummikub_masks.masks_kernel()  # compiles and binds the compiled helpers
    sweep = rummikub_masks._sweep

    @numba.njit(nogil=True)
    def run(table, rack, chosen, last, meld, tables, labels):
        lo, hi = np.empty(53, np.int64), np.empty(53, np.int64)
        lo_m, hi_m = np.empty(53, np.int64), np.empty(53, np.int64)
        found = 0
        for k in range(table.shape[0]):
            if not meld[k]:
                continue
            for t in range(53):
                lo[t] = table[k, t] + chosen[k, t]
                hi[t] = table[k, t] + (chosen[k, t] if t < last[k] else rack[k, t])
            found += sweep(lo, hi, labels, 0, labels, 0, False, tables, lo_m, hi_m)[0]
        return found

    d = np.load(path)
    args = (d["table"], d["rack"], d["chosen"], d["last"], d["meld"])
    n = int(d["meld"].sum())
    for labels in (True, False):
        run(*[a[:8] for a in args], tables, labels)  # compile
    for labels in (True, False) * reps:
        start = time.perf_counter()
        run(*args, tables, labels)
        kind = "ordered label sweeps" if labels else "existence sweeps"
        print(f"{n} positions after the initial meld, {kind}: {time.perf_counter() - start:.3f} s")


if __name__ == "__main__":
    main(sys.argv[1])
