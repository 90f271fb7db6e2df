"""The compiled product sweep of table play (``kernel_product``) against the Python sweep and brute force.

``table_play._product_sweep`` runs the compiled sweep when numba is there; it must return what
``table_play._product_sweep_py`` returns, ``(found, bits)`` exactly, in both label orders, with
done A states, pruned layers, jokers on either side and a ``chosen`` to extend; and the masks
built on it must match brute force over every play (``experiments.dev.rummikub_oracle``).
"""

from __future__ import annotations

import numpy as np
import pytest

import rummy_env.core.rummikub_solver as solver
from experiments.dev import rummikub_oracle as oracle
from experiments.dev import rummikub_worst_cases as worst
from experiments.dev.rummikub_oracle import random_meld, random_rack, random_table
from rummy_env.core.rummikub_solver import kernel_product as solver_kernel_product
from rummy_env.core.rummikub_solver import table_play as solver_table_play
from rummy_env.core.tiles import JOKER, NUM_TILE_TYPES, parse_counts

ZERO = np.zeros(NUM_TILE_TYPES, dtype=np.int64)


def compiled():
    kernel = solver_kernel_product._product_kernel()
    assert kernel, "the compiled product sweep is missing: the test extra installs numba (the fast extra)"
    return kernel


def position(rng: np.random.Generator, k: int, table_hi: int = 30, rack_hi: int = 16, meld_max: int = 13):
    """A table of melds with jokers, a rack holding a meld most of the time plus loose tiles,
    both jokers in play every other time, a random part of the rack chosen."""
    table = random_table(rng, int(rng.integers(5, table_hi)), joker_p=0.25)
    rack = ZERO.copy()
    for _ in range(20 if k % 4 else 0):
        meld = np.bincount(random_meld(rng, 0.15), minlength=NUM_TILE_TYPES)
        if np.all(table + meld <= 2) and meld.sum() <= meld_max:
            rack += meld
            break
    rack += random_rack(rng, table + rack, int(rng.integers(2, rack_hi)))
    if k % 2:
        rack[JOKER] = 2 - table[JOKER]
    chosen = (rng.random(NUM_TILE_TYPES) < 0.2) * rack
    return table, rack, chosen


def test_compiled_product_sweep_equals_the_python_sweep(monkeypatch):
    """Same ``(found, bits)`` as the Python sweep on positions whose layers prune and whose A
    sides get done (counted in the Python sweep), both orders, thresholds 1 to 30."""
    kernel = compiled()
    rng = np.random.default_rng(1900)
    real_prune = solver_table_play._prune_product
    seen = {"pruned": 0, "done": 0}

    def counting_prune(layer, done):
        out = real_prune(layer, done)
        seen["pruned"] += len(layer) - len(out)
        seen["done"] += sum(key[2] == done for key in out)
        return out

    monkeypatch.setattr(solver_table_play, "_prune_product", counting_prune)
    outcomes = set()
    for k in range(30):
        table, rack, chosen = position(rng, k, table_hi=25, rack_hi=14)
        threshold = (1, 10, 15, 30)[k % 4]
        for ordered in (False, True):
            want = solver_table_play._product_sweep_py(table, rack, chosen, threshold, ordered)
            got = kernel(table, rack, chosen, threshold, ordered)
            assert got == want, (k, ordered, threshold, table.tolist(), rack.tolist(), chosen.tolist())
            assert solver_table_play._product_sweep(table, rack, chosen, threshold, ordered) == want
            outcomes.add((want[0], want[1] != 0, ordered))
    assert seen["pruned"] >= 1000 and seen["done"] >= 100
    assert {(True, True, False), (True, True, True), (False, False, False)} <= outcomes


def test_compiled_product_sweep_grows_its_buffers():
    """Buffers of 1, 2 or 4 entries at the start grow to whatever the sweep needs: same answers."""
    kernel = compiled()
    rng = np.random.default_rng(1901)
    for k in range(12):
        table, rack, chosen = position(rng, k, table_hi=60, rack_hi=25)
        for ordered in (False, True):
            want = kernel(table, rack, chosen, 15, ordered)
            for start_size in (1, 2, 4):
                assert kernel(table, rack, chosen, 15, ordered, start_size=start_size) == want, (k, start_size)
    with pytest.raises(ValueError, match=r"^start_size must be a power of two >= 1 \(a hash set's size\), got 3$"):
        kernel(ZERO, ZERO, ZERO, 15, False, start_size=3)


def test_compiled_product_sweep_on_the_kept_bit_without_a_witness():
    """The kept worst case whose ordered bit K13 (table play, nothing chosen) has no witness:
    the product sweep over the rack with the types below K13 closed and K13 added finds no
    legal play, compiled and in Python; with nothing closed both find the same plays."""
    kernel = compiled()
    name = "climbed: 53-tile table with both jokers, 42-tile rack"
    table, rack = next((t, r) for n, t, r in worst.kept_positions() if n == name)
    k13 = 2 * 13 + 12
    closed = rack.copy()
    closed[:k13] = 0
    lo = ZERO.copy()
    lo[k13] = 1
    want = solver_table_play._product_sweep_py(table, closed, lo, 30, False)
    assert want == (False, 0)
    assert kernel(table, closed, lo, 30, False) == want
    assert not solver.ordered_extension_mask(table, rack, ZERO, False, 30, True)[k13]


@pytest.mark.parametrize("ordered", [False, True])
def test_masks_on_the_compiled_product_sweep_match_bruteforce(monkeypatch, ordered):
    """The table-play masks with every witness switched off (each open bit, or the whole
    unordered mask, goes to the product sweep, compiled here) against brute force."""
    compiled()
    monkeypatch.setattr(solver_table_play, "_witness_bits", lambda *args: -1)
    monkeypatch.setattr(solver_table_play, "_ordered_witness_bits", lambda *args: (JOKER, 0))
    monkeypatch.setattr(solver_table_play, "_ordered_witness", lambda *args: None)
    calls = [0]
    real = solver_table_play._product_sweep

    def counting(*args):
        calls[0] += 1
        return real(*args)

    monkeypatch.setattr(solver_table_play, "_product_sweep", counting)
    fn, ref = (
        (solver.ordered_extension_mask, oracle.ordered_extension_mask_bruteforce)
        if ordered
        else (solver.extension_mask, oracle.extension_mask_bruteforce)
    )
    rng = np.random.default_rng(1902 + ordered)
    nonempty = 0
    for k in range(20):
        table, rack, chosen = position(rng, k, table_hi=9, rack_hi=4, meld_max=4)
        threshold = (10, 15, 20)[k % 3]
        solver.clear_caches()
        got = fn(table, rack, chosen, False, threshold, True)
        want = ref(table, rack, chosen, False, threshold, True)
        assert np.array_equal(got, want), (k, table.tolist(), rack.tolist(), chosen.tolist(), threshold)
        nonempty += bool(got.any())
    assert nonempty >= 6 and calls[0] >= 10


def test_threshold_out_of_the_key_goes_to_python(monkeypatch):
    """A threshold the packed key cannot hold runs the Python sweep (same answer: no play)."""
    compiled()
    calls = [0]
    real = solver_table_play._product_sweep_py

    def counting(*args):
        calls[0] += 1
        return real(*args)

    monkeypatch.setattr(solver_table_play, "_product_sweep_py", counting)
    table, rack = parse_counts("R1 R2 R3"), parse_counts("B7 K7 Y7 R4")
    assert solver_table_play._product_sweep(table, rack, ZERO, solver_kernel_product.MAX_THRESHOLD + 1, False) == (
        False,
        0,
    )
    assert calls[0] == 1
    every = sum(1 << t for t in np.flatnonzero(rack))  # B7 K7 Y7 the initial meld, R4 on the run
    assert solver_table_play._product_sweep(table, rack, ZERO, 21, False) == (True, every)
    assert calls[0] == 1
