"""Time the batched Rummikub masks of several checkouts in one process, alternately.

    python docs/results/rummikub-speed/ab_trees.py POSITIONS.npz TREE_A TREE_B [TREE_C ...]
    python docs/results/rummikub-speed/ab_trees.py --env POSITIONS.npz TREE_A TREE_B

``POSITIONS.npz``: a recording of ``replay.py record``.  Each tree's
``rummy_env.vector.rummikub_masks`` is imported from that tree (its modules are dropped
from ``sys.modules`` before the next tree's import, the compiled functions kept), then the
trees compute every recorded mask in turn, 12 rounds, the order reversed every other round,
each mask checked against the recorded one.  Prints each tree's fastest and median time a
mask and the median of its per-round ratio to the first tree.  On a machine whose speed
drifts between runs (this one: 50-80 us a mask for the same tree within minutes), timing
the trees side by side in one process compares them under the same drift, which one
process per tree (``replay.py time``) does not.  ``--env``: the env's sweep instead
(``core.rummikub_solver.kernel._kernel()``, the ordered label sweep on ``table + chosen ..
table + rack``) on the first 6,000 recorded positions after the player's initial meld, the
answers compared between the trees.
"""

from __future__ import annotations

import importlib
import sys
import time

import numpy as np
from replay import time_masks  # this folder's script (python puts its folder on the path)

ROUNDS = 12


def load(tree: str, module: str, entry: str):
    """``module.entry()`` of the ``rummy_env`` in ``tree`` (``rummikub_masks.masks_kernel``:
    ``(masks_range, tables)``; ``kernel._kernel``: the env's sweep)."""
    sys.path.insert(0, tree)
    try:
        mod = importlib.import_module(module)
        if not mod.__file__.startswith(tree):
            raise SystemExit(f"{tree}: imported {mod.__file__} instead")
        return getattr(mod, entry)()
    finally:
        for name in [k for k in sys.modules if k == "rummy_env" or k.startswith("rummy_env.")]:
            del sys.modules[name]
        sys.path.remove(tree)


def report(seconds: dict[str, list[float]], n: int, what: str) -> None:
    trees = list(seconds)
    first = np.array(seconds[trees[0]])
    for tree in trees:
        s = np.array(seconds[tree])
        print(
            f"{tree}: fastest {s.min() / n * 1e6:.2f} us {what}, median {np.median(s) / n * 1e6:.2f} us, "
            f"median ratio to {trees[0]} {np.median(s / first):.3f}"
        )


def env_sweeps(d: dict[str, np.ndarray], trees: list[str]) -> int:
    runs = {tree: load(tree, "rummy_env.core.rummikub_solver.kernel", "_kernel") for tree in trees}
    rows = np.flatnonzero(d["meld"])[:6000]
    table = d["table"].astype(np.int64)
    spans = [(table[i] + d["chosen"][i], table[i] + d["rack"][i]) for i in rows]
    seconds: dict[str, list[float]] = {tree: [] for tree in trees}
    answers = {}
    for r in range(ROUNDS):
        for tree in trees if r % 2 == 0 else trees[::-1]:
            run = runs[tree]
            start = time.perf_counter()
            answers[tree] = [run(lo, hi, True, 0, True) for lo, hi in spans]
            seconds[tree].append(time.perf_counter() - start)
    if any(answers[tree] != answers[trees[0]] for tree in trees):
        print("the trees' sweeps answer differently")
        return 1
    report(seconds, len(spans), "a sweep")
    return 0


def main(argv: list[str]) -> int:
    env = argv[:1] == ["--env"]
    argv = argv[1:] if env else argv
    if len(argv) < 3:
        raise SystemExit(__doc__.split("\n\n")[1])
    d = dict(np.load(argv[0]))
    trees = argv[1:]
    if env:
        return env_sweeps(d, trees)
    kernels = {tree: load(tree, "rummy_env.vector.rummikub_masks", "masks_kernel") for tree in trees}
    n = d["table"].shape[0]
    seconds: dict[str, list[float]] = {tree: [] for tree in trees}
    for r in range(ROUNDS):
        for tree in trees if r % 2 == 0 else trees[::-1]:
            legal, took = time_masks(d, *kernels[tree])
            seconds[tree].append(took)
            if not np.array_equal(legal, d["legal"]):
                print(f"{tree}: masks differ from the recording")
                return 1
    report(seconds, n, "a mask")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
