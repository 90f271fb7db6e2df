"""Rummikub solver against brute force over every play of small racks, and its
pure-Python sweeps against the compiled kernel (golden cases and the integer program:
``test_rummikub_solver.py``).  Random positions come from seeded numpy generators, so every
run checks the same cases.
"""

from __future__ import annotations

import numpy as np
import pytest

from experiments.dev import rummikub_oracle as oracle
from experiments.dev.rummikub_oracle import random_meld, random_rack, random_table
from rummy_env.core import rummikub_solver as solver
from rummy_env.core.rummikub_solver import extension_mask, is_legal_play, ordered_extension_mask
from rummy_env.core.rummikub_solver import kernel as solver_kernel
from rummy_env.core.rummikub_solver import sweeps as solver_sweeps
from rummy_env.core.tiles import JOKER, NUM_TILE_TYPES

ZERO = np.zeros(NUM_TILE_TYPES, dtype=np.int64)


def small_position(rng: np.random.Generator, table_max: int = 11):
    """Table of 0..table_max tiles, rack of 1..8 tiles that often holds a meld."""
    table = random_table(rng, int(rng.integers(0, table_max + 1)), joker_p=0.15)
    size = int(rng.integers(1, 9))
    rack = ZERO.copy()
    if rng.random() < 0.6:
        meld = np.bincount(random_meld(rng, 0.2), minlength=NUM_TILE_TYPES)
        if np.all(table + meld <= 2) and meld.sum() <= size:
            rack += meld
    extra = random_rack(rng, table + rack, size - int(rack.sum()))
    rack += extra
    chosen = ZERO.copy()
    if rng.random() < 0.5:
        for t in np.flatnonzero(rack):
            if rng.random() < 0.3:
                chosen[t] = rng.integers(1, rack[t] + 1)
    return table, rack, chosen


@pytest.mark.parametrize(
    "done, table_play, thresholds",
    [(True, False, [30]), (False, False, [30, 10, 20, 40]), (False, True, [30, 15])],
)
def test_extension_mask_matches_bruteforce(done, table_play, thresholds):
    rng = np.random.default_rng(17 + 3 * done + table_play)
    count = 100 if table_play else 150
    nonempty = 0
    for k in range(count):
        table, rack, chosen = small_position(rng)
        threshold = thresholds[k % len(thresholds)]
        got = extension_mask(table, rack, chosen, done, threshold, table_play)
        ref = oracle.extension_mask_bruteforce(table, rack, chosen, done, threshold, table_play)
        assert np.array_equal(got, ref), (
            table.tolist(),
            rack.tolist(),
            chosen.tolist(),
            threshold,
        )
        nonempty += bool(got.any())
        play = chosen + (rng.random(NUM_TILE_TYPES) < 0.5) * (rack - chosen)
        assert is_legal_play(table, rack, play, done, threshold, table_play) == oracle.is_legal_play_bruteforce(
            table, play, done, threshold, table_play
        )
    assert nonempty > count // 5


def test_pure_python_masks_match_bruteforce(monkeypatch):
    """The pure-Python sweeps on their own (numba or not), both mask kinds."""
    monkeypatch.setattr(solver_kernel, "_KERNEL", False)
    solver.clear_caches()
    rng = np.random.default_rng(23)
    for k in range(120):
        table, rack, chosen = small_position(rng)
        if k % 2:
            table = random_table(rng, int(rng.integers(4, 10)), joker_p=0.4)
            rack = random_rack(rng, table, int(rng.integers(3, 7)))
            chosen = ZERO.copy()
        for fn, ref_fn in (
            (extension_mask, oracle.extension_mask_bruteforce),
            (ordered_extension_mask, oracle.ordered_extension_mask_bruteforce),
        ):
            got = fn(table, rack, chosen, True)
            ref = ref_fn(table, rack, chosen, True)
            assert np.array_equal(got, ref), (
                fn.__name__,
                table.tolist(),
                rack.tolist(),
                chosen.tolist(),
            )


def test_extension_mask_dense_jokers_matches_bruteforce():
    # both jokers in play stress the joker handling (R-RK-05, R-RK-08)
    rng = np.random.default_rng(5)
    for _ in range(40):
        table = random_table(rng, int(rng.integers(4, 10)), joker_p=0.4)
        rack = random_rack(rng, table, int(rng.integers(3, 7)))
        if rack[JOKER] + table[JOKER] < 2:
            rack[JOKER] = 2 - table[JOKER]
        got = extension_mask(table, rack, ZERO, True)
        ref = oracle.extension_mask_bruteforce(table, rack, ZERO, True)
        assert np.array_equal(got, ref), (table.tolist(), rack.tolist())
        got = ordered_extension_mask(table, rack, ZERO, True)
        ref = oracle.ordered_extension_mask_bruteforce(table, rack, ZERO, True)
        assert np.array_equal(got, ref), ("ordered", table.tolist(), rack.tolist())


def test_pure_python_path_matches_kernel(monkeypatch):
    """The optional compiled sweep and the pure-Python sweep give identical masks."""
    rng = np.random.default_rng(11)
    positions = []
    for _ in range(40):
        table = random_table(rng, int(rng.integers(20, 50)), joker_p=0.15)
        rack = random_rack(rng, table, int(rng.integers(6, 15)))
        chosen = ZERO.copy()
        for t in np.flatnonzero(rack):
            if rng.random() < 0.2:
                chosen[t] = 1
        positions.append((table, rack, chosen))
    kernel = solver_kernel._kernel()
    assert kernel, "the compiled sweep is missing: the test extra installs numba (the fast extra)"
    for table, rack, chosen in positions:
        lo, hi = table + chosen, table + rack
        keys = solver_sweeps._cell_keys(lo, hi)
        py = solver_sweeps._label_sweep_py(keys, int(lo[JOKER]), int(hi[JOKER]))
        assert kernel(lo, hi) == py
        # the unpruned forward-only sweep agrees too (pruning is exact)
        monkeypatch.setattr(solver_sweeps, "_prune", lambda layer: layer)
        assert solver_sweeps._label_sweep_py(keys, int(lo[JOKER]), int(hi[JOKER])) == py
        monkeypatch.undo()
