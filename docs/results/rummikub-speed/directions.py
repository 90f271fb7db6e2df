"""Could a probe choose the cheaper sweep direction better than each game's history?

    python docs/results/rummikub-speed/replay.py record /tmp/pos.npz
    python docs/results/rummikub-speed/directions.py /tmp/pos.npz

For every recorded position after the player's initial meld, the label sweep of
``vector.rummikub_masks._one_mask`` runs in both directions with its work (move pairs)
counted per layer (a copy of ``kernel._kernel_sweep`` whose counter has one slot per
layer).  Then, on those counts: always upward, the oracle (the cheaper direction), the
games' history as recorded (``dir_cost``: the masks' rule), and "probe k": run k layers
of both, continue the one with less work so far (the other's k layers are lost).  Work
as a fraction of always upward.
"""

from __future__ import annotations

import inspect
import sys
import textwrap

import numba
import numpy as np

from rummy_env.core.rummikub_solver import kernel, kernel_bounds
from rummy_env.vector import rummikub_jokers, rummikub_masks


def _per_layer_sweep():
    """``rummikub_masks._sweep`` over a kernel whose ``work`` has one slot per layer."""
    rummikub_masks.masks_kernel()  # compiles and binds the solver's helpers
    src = textwrap.dedent(inspect.getsource(kernel._kernel_sweep.py_func))
    src = src.replace("work[0] += tot_a * tot_b + 1", "work[i] += tot_a * tot_b + 1")
    ns = dict(vars(kernel))
    exec(src, ns)  # noqa: S102 - a measurement script's patched copy
    ns_b = dict(vars(kernel_bounds), _kernel_sweep=numba.njit(ns["_kernel_sweep"]))
    exec(textwrap.dedent(inspect.getsource(kernel_bounds._bounds_sweep_tuned.py_func)), ns_b)  # noqa: S102
    ns_s = dict(vars(rummikub_masks), _bounds=numba.njit(ns_b["_bounds_sweep_tuned"]))
    exec(textwrap.dedent(inspect.getsource(rummikub_masks._sweep.py_func)), ns_s)  # noqa: S102
    return numba.njit(ns_s["_sweep"])


def layer_work(path: str) -> tuple[np.ndarray, np.ndarray]:
    """Per position after the initial meld: work per layer, int64 (n, 2, 13) (upward,
    downward), and the recorded ``dir_cost`` (n, 2)."""
    sweep, run_forced = _per_layer_sweep(), numba.njit(rummikub_jokers.run_forced)
    _, tables = rummikub_masks.masks_kernel()

    @numba.njit
    def run(idx, table, rack, chosen, last, tables, out):
        lo, hi = np.empty(53, np.int64), np.empty(53, np.int64)
        lo_m, hi_m = np.empty(53, np.int64), np.empty(53, np.int64)
        w = np.zeros(13, np.int64)
        for k in range(idx.size):
            g = idx[k]
            for t in range(53):
                lo[t] = table[g, t] + chosen[g, t]
                hi[t] = table[g, t] + (chosen[g, t] if t < last[g] else rack[g, t])
            both = last[g] >= 0 and hi[52] == lo[52]
            relax = lo[52] > 0 and hi[52] == lo[52] and run_forced(lo, hi, tables[11])
            for m in range(2):
                w[:] = 0
                sweep(lo, hi, True, 0, True, 52 if both or relax else 0, m == 1, tables, lo_m, hi_m, w, relax)
                out[k, m, :] = w

    d = np.load(path)
    idx = np.flatnonzero(d["meld"])
    out = np.zeros((idx.size, 2, 13), np.int64)
    run(idx, d["table"], d["rack"], d["chosen"], d["last"], tables, out)
    return out, d["dir_cost"][idx]


def main(path: str) -> None:
    out, cost = layer_work(path)
    up, down = out[:, 0].sum(1), out[:, 1].sum(1)
    print(f"{up.size} positions; work as a fraction of always upward")
    print(f"downward {down.sum() / up.sum():.3f}, oracle {np.minimum(up, down).sum() / up.sum():.3f}")
    c_up, c_down = np.maximum(cost[:, 0], 0), np.maximum(cost[:, 1], 0)
    print(f"history (dir_cost) {np.where(c_down < c_up, down, up).sum() / up.sum():.3f}")
    cum_up, cum_down = out[:, 0].cumsum(1), out[:, 1].cumsum(1)
    for k in range(1, 6):
        pick_down = cum_down[:, k - 1] < cum_up[:, k - 1]
        work = np.where(pick_down, down + cum_up[:, k - 1], up + cum_down[:, k - 1])
        print(f"probe {k} layers {work.sum() / up.sum():.3f} (right direction {((down < up) == pick_down).mean():.3f})")


if __name__ == "__main__":
    main(sys.argv[1])
