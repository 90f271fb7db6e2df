"""Could a turn-start mask reuse the player's previous one?  A probe on random play.

    python docs/results/rummikub-speed/incremental.py

At the start of a turn after the initial meld a tile type is legal when it is the smallest
type of some set of the rack's tiles that, added to the table, splits into melds (R-RK-08;
a play's tiles are added in increasing type order).  When the table is the one of the
player's previous turn start and the rack only gained the tile it drew, every earlier
witness still holds, so the earlier legal types stay legal, and a new one needs a witness
that uses every copy of the drawn type: one label sweep with those copies forced (``lo``
raised to ``hi`` on that type) gives them (its labels below the drawn type, and the drawn
type itself when a label is above it or when table + its copies alone split into melds:
an existence check on those bounds).  This script plays ``RummikubVec(256, seed=0,
num_threads=1)`` at random (147 steps of warm-up, then 120), finds the turn starts where
that holds, checks that the previous mask OR the new bits is the engine's mask, and times
the sweeps on them (upward, one thread, best of 3) against the full label sweep.
"""

from __future__ import annotations

import time

import numba
import numpy as np

from rummy_env.vector import RummikubVec, rummikub_masks


def main() -> None:
    masks_range, tables = rummikub_masks.masks_kernel()  # compiles, binds the compiled helpers
    sweep = rummikub_masks._sweep

    @numba.njit(nogil=True)
    def run(lo_rows, hi_rows, tables):
        lo_m, hi_m = np.empty(53, np.int64), np.empty(53, np.int64)
        out = np.zeros(lo_rows.shape[0], np.int64)
        found = np.zeros(lo_rows.shape[0], np.bool_)
        for k in range(lo_rows.shape[0]):
            found[k], out[k] = sweep(lo_rows[k], hi_rows[k], True, 0, True, 0, False, tables, lo_m, hi_m)
        return out, found

    @numba.njit(nogil=True)
    def run_exists(rows, tables):
        lo_m, hi_m = np.empty(53, np.int64), np.empty(53, np.int64)
        found = np.zeros(rows.shape[0], np.bool_)
        for k in range(rows.shape[0]):
            found[k] = sweep(rows[k], rows[k], False, 0, False, 0, False, tables, lo_m, hi_m)[0]
        return found

    vec = RummikubVec(256, seed=0, num_threads=1)
    vec.reset()
    for _ in range(147):
        vec.step_random()
    previous: dict[tuple[int, int], tuple] = {}  # (game, player) -> (table, rack, legal bits) at its last turn start
    full_lo, full_hi, forced_lo, prev_bits, truth = [], [], [], [], []
    all_positions = 0
    for _ in range(120):
        live = np.flatnonzero(vec._chosen.sum(axis=1) == 0)  # turn starts (nothing chosen yet)
        for g in live:
            p = int(vec._current[g])
            if not vec._meld[g, p]:
                continue
            table, rack = vec._table[g].copy(), vec._racks[g, p].copy()
            legal = vec._legal[g, :53].astype(np.int64)
            bits = int(sum(int(b) << t for t, b in enumerate(legal)))
            all_positions += 1
            before = previous.get((g, p))
            previous[(g, p)] = (table, rack, bits)
            if before is None or not np.array_equal(before[0], table):
                continue
            gained = rack - before[1]
            if gained.min() < 0 or gained.sum() != 1:
                continue
            x = int(np.argmax(gained))
            lo, hi = table.copy(), table + rack
            forced = lo.copy()
            forced[x] = hi[x]  # every copy of the drawn type: the witnesses the old rack lacked
            full_lo.append(lo)
            full_hi.append(hi)
            forced_lo.append(forced)
            prev_bits.append(before[2])
            truth.append(bits)
        vec.step_random()
    lo, hi, forced = np.array(full_lo), np.array(full_hi), np.array(forced_lo)
    run(lo[:4], hi[:4], tables)  # compile
    full_bits = run(lo, hi, tables)[0]
    forced_bits = run(forced, hi, tables)[0]
    drawn = [int(np.argmax(f - low)) for f, low in zip(forced, lo, strict=True)]
    mask52 = (1 << 53) - 1

    alone = run_exists(forced, tables)  # table + the drawn type's copies, nothing else

    # the ordered mask's bit of a type says a witness's smallest type is that one (tiles are
    # added in increasing type order); the forced sweep labels each arrangement's smallest
    # type added above lo (an arrangement that adds nothing more has no label), so its labels
    # below the drawn type are smallest ones, and the drawn type is when a label is above it
    # or table + its copies alone split into melds
    def new_bits(b: int, x: int, nothing_more: bool) -> int:
        above = (b >> (x + 1)) & ((1 << (52 - x)) - 1)  # labels x+1..52
        return (b & ((1 << x) - 1)) | ((1 if above or nothing_more else 0) << x)

    union = [
        (int(a) | new_bits(int(b), x, bool(ok))) & mask52
        for a, b, x, ok in zip(prev_bits, forced_bits, drawn, alone, strict=True)
    ]
    exact_full = sum((int(f) & mask52) == t for f, t in zip(full_bits, truth, strict=True))
    exact_union = sum(u == t for u, t in zip(union, truth, strict=True))
    times = {}
    for name, call in (
        ("full", lambda: run(lo, hi, tables)),
        ("forced", lambda: run(forced, hi, tables)),
        ("alone", lambda: run_exists(forced, tables)),
    ):
        best = float("inf")
        for _ in range(3):
            t0 = time.perf_counter()
            call()
            best = min(best, time.perf_counter() - t0)
        times[name] = best
    n = len(truth)
    print(f"{all_positions} turn starts after the initial meld; {n} with the same table and one tile drawn")
    print(f"exact: full sweep {exact_full}/{n}, previous mask | forced sweep {exact_union}/{n}")
    both = times["forced"] + times["alone"]
    print(
        f"on those {n}: full sweeps {times['full'] * 1e3:.1f} ms; forced sweeps {times['forced'] * 1e3:.1f} ms "
        f"and checks of table + the drawn copies {times['alone'] * 1e3:.1f} ms ({both / times['full']:.2f} of the full)"
    )


if __name__ == "__main__":
    main()
