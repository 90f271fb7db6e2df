"""Record the mask positions of RummikubVec random play, then replay them on a checkout.

    python docs/results/rummikub-speed/replay.py record POSITIONS.npz   # on the "before" tree
    python docs/results/rummikub-speed/replay.py time POSITIONS.npz     # on any tree

``record``: ``RummikubVec(256, seed=0, num_threads=1)`` plays ``--warmup`` random steps
(147: one env() hand's worth, as the benchmark's warm-up was until 2026-12-06, now three),
then ``--steps`` more (120); at each of those the inputs of every live game's mask (table,
acting rack, chosen, last, initial meld made, each game's direction costs) and the mask
computed are saved.  ``time``: the saved positions go through ``rummikub_masks.masks_range``
in one call per repetition (best of ``--reps``, one thread) and every mask is compared with
the saved one (exit status 1 on a difference).  The same positions and direction costs on
both trees: only the masks' code differs.  The 2026-12-03 (second round) figures of
README.md come from this script.  To time another checkout, run it with
``PYTHONPATH=THAT_TREE``: the script imports ``rummy_env`` from the path, which an editable
install points at its own tree.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np


def record(path: str, warmup: int, steps: int) -> None:
    from rummy_env.vector import RummikubVec

    vec = RummikubVec(256, seed=0, num_threads=1)
    vec.reset()
    for _ in range(warmup):
        vec.step_random()
    names = ("table", "rack", "chosen", "last", "meld", "dir_cost", "legal")
    rows: dict[str, list[np.ndarray]] = {k: [] for k in names}
    compute = vec._compute_masks

    def recorded(games: np.ndarray) -> None:
        p = vec._current[games]
        inputs = (vec._table[games], vec._racks[games, p], vec._chosen[games], vec._last[games])
        meld, cost = vec._meld[games, p], vec._dir_cost[games].copy()
        compute(games)
        for key, value in zip(rows, (*inputs, meld, cost, vec._legal[games]), strict=True):
            rows[key].append(np.array(value))

    vec._compute_masks = recorded
    for _ in range(steps):
        vec.step_random()
    np.savez_compressed(path, **{k: np.concatenate(v) for k, v in rows.items()})
    print(f"{sum(len(v) for v in rows['last'])} positions saved to {path}")


def time_masks(d: dict, masks_range, tables) -> tuple[np.ndarray, float]:
    """Every recorded position's mask by one call of a compiled ``masks_range`` (``d``: a
    recording of ``record``, loaded): ``(legal int8 (n, 55), seconds of the call)``."""
    n = d["last"].size
    legal, fallback, cost = np.zeros((n, 55), np.int8), np.zeros(n, np.bool_), d["dir_cost"].copy()
    racks, meld, current = d["rack"][:, None, :].copy(), d["meld"][:, None].copy(), np.zeros(n, np.int64)
    start = time.perf_counter()
    masks_range(
        0, n, np.arange(n), racks, d["table"], d["chosen"], d["last"], current, meld, 30, False, tables, legal,
        fallback, cost,
    )  # fmt: skip
    return legal, time.perf_counter() - start


def replay(path: str, reps: int) -> int:
    from rummy_env.vector.rummikub_masks import masks_kernel

    d = dict(np.load(path))
    n = d["last"].size
    masks_range, tables = masks_kernel()
    best, bad = float("inf"), 0
    for _ in range(reps):
        legal, seconds = time_masks(d, masks_range, tables)
        best = min(best, seconds)
        bad = int((legal != d["legal"]).any(axis=1).sum())
    us = best / n * 1e6
    print(f"{n} positions, best of {reps}: {best * 1e3:.1f} ms = {us:.2f} us a mask; masks differing: {bad}")
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("command", choices=["record", "time"])
    ap.add_argument("path")
    ap.add_argument("--warmup", type=int, default=147)
    ap.add_argument("--steps", type=int, default=120)
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args(argv)
    if args.command == "record":
        record(args.path, args.warmup, args.steps)
        return 0
    return replay(args.path, args.reps)


if __name__ == "__main__":
    sys.exit(main())
