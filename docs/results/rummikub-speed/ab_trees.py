"""Time the batched Rummikub masks of several checkouts in one process, alternately.

    python docs/results/rummikub-speed/ab_trees.py POSITIONS.npz TREE_A TREE_B [TREE_C ...]

``POSITIONS.npz``: a recording of ``replay.py record``.  Each tree's
``rummy_env.vector.rummikub_masks`` is imported from that tree (its modules are dropped
from ``sys.modules`` before the next tree's import, the compiled functions kept), then the
trees compute every recorded mask in turn, 12 rounds, the order reversed every other round,
each mask checked against the recorded one.  Prints each tree's fastest and median time a
mask and the median of its per-round ratio to the first tree.  On a machine whose speed
drifts between runs (this one: 50-80 us a mask for the same tree within minutes), timing
the trees side by side in one process compares them under the same drift, which one
process per tree (``replay.py time``) does not.
"""

from __future__ import annotations

import importlib
import sys
import time

import numpy as np

ROUNDS = 12


def load(tree: str):
    """``masks_kernel()`` of the ``rummy_env`` in ``tree``: ``(masks_range, tables)``."""
    sys.path.insert(0, tree)
    try:
        masks = importlib.import_module("rummy_env.vector.rummikub_masks")
        if not masks.__file__.startswith(tree):
            raise SystemExit(f"{tree}: imported {masks.__file__} instead")
        return masks.masks_kernel()
    finally:
        for name in [k for k in sys.modules if k == "rummy_env" or k.startswith("rummy_env.")]:
            del sys.modules[name]
        sys.path.remove(tree)


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        raise SystemExit(__doc__.split("\n\n")[1])
    d = dict(np.load(argv[0]))
    trees = argv[1:]
    kernels = {tree: load(tree) for tree in trees}
    n = d["table"].shape[0]
    games, current = np.arange(n), np.zeros(n, np.int64)
    racks, meld = d["rack"][:, None, :].copy(), d["meld"][:, None].copy()
    seconds: dict[str, list[float]] = {tree: [] for tree in trees}
    for r in range(ROUNDS):
        for tree in trees if r % 2 == 0 else trees[::-1]:
            masks_range, tables = kernels[tree]
            legal, fallback, cost = np.zeros((n, 55), np.int8), np.zeros(n, np.bool_), d["dir_cost"].copy()
            start = time.perf_counter()
            masks_range(
                0, n, games, racks, d["table"], d["chosen"], d["last"], current, meld, 30, False, tables, legal,
                fallback, cost,
            )  # fmt: skip
            seconds[tree].append(time.perf_counter() - start)
            if not np.array_equal(legal, d["legal"]):
                print(f"{tree}: masks differ from the recording")
                return 1
    first = np.array(seconds[trees[0]])
    for tree in trees:
        s = np.array(seconds[tree])
        print(
            f"{tree}: fastest {s.min() / n * 1e6:.2f} us a mask, median {np.median(s) / n * 1e6:.2f} us, "
            f"median ratio to {trees[0]} {np.median(s / first):.3f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
