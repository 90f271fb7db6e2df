"""Where the mask's time goes: each recorded position's mask timed alone, by kind of position.

    python docs/results/rummikub-speed/replay.py record POSITIONS.npz
    python docs/results/rummikub-speed/profile.py POSITIONS.npz

Each position goes through ``rummikub_masks.masks_range`` on its own (best of 3, one thread;
the cost of an empty call is taken off), then the shares of the positions and of the time
are printed by kind: before the player's initial meld, after it by table jokers, with a
rack joker, at a turn's start or inside a turn; and how concentrated the time is.  The
2026-12-06 table of README.md comes from this script.
"""

from __future__ import annotations

import sys
import time

import numpy as np


def main(path: str) -> None:
    from rummy_env.vector.rummikub_masks import masks_kernel

    d = dict(np.load(path))  # an NpzFile would decompress an array at every access
    n = d["last"].size
    masks_range, tables = masks_kernel()
    racks, meld = d["rack"].reshape(n, 1, 53), d["meld"].reshape(n, 1).astype(np.bool_)
    legal, fallback = np.zeros((n, 55), np.int8), np.zeros(n, np.bool_)

    def call(k: int, stop: int, cost: np.ndarray) -> None:
        masks_range(
            k, stop, np.arange(n), racks, d["table"], d["chosen"], d["last"], np.zeros(n, np.int64), meld, 30,
            False, tables, legal, fallback, cost,
        )  # fmt: skip

    call(0, n, d["dir_cost"].copy())  # compiled before the clock
    ns = np.full(n, np.inf)
    for _ in range(3):
        cost = d["dir_cost"].copy()  # each repetition meets the recorded direction costs
        for k in range(n):
            t0 = time.perf_counter_ns()
            call(k, k + 1, cost)
            ns[k] = min(ns[k], time.perf_counter_ns() - t0)
    t0 = time.perf_counter_ns()
    for _ in range(2000):
        call(0, 0, cost)
    us = (ns - (time.perf_counter_ns() - t0) / 2000) / 1000
    done, last = d["meld"].astype(bool), d["last"]
    jokers, rack_jokers = d["table"][:, 52], d["rack"][:, 52]
    print(f"{n} positions, {us.mean():.2f} us a mask timed alone")
    kinds = {
        "before the player's initial meld": ~done,
        "after it, no joker on the table": done & (jokers == 0),
        "after it, one table joker": done & (jokers == 1),
        "after it, two table jokers": done & (jokers == 2),
        "after it, a joker on the rack": done & (rack_jokers > 0),
        "after it, at a turn's start": done & (last < 0),
        "after it, inside a turn": done & (last >= 0),
    }
    for name, m in kinds.items():
        print(f"{name:36s} {m.mean():6.1%} of positions {us[m].sum() / us.sum():6.1%} of time {us[m].mean():7.1f} us")
    ordered = np.sort(us)[::-1]
    share = np.cumsum(ordered) / ordered.sum()
    for top in (0.01, 0.05, 0.10):
        print(f"the costliest {top:.0%} of positions: {share[int(top * n) - 1]:.1%} of the time")
    print("median, 90th, 99th percentile us:", np.round(np.percentile(us, [50, 90, 99]), 1))


if __name__ == "__main__":
    main(sys.argv[1])
