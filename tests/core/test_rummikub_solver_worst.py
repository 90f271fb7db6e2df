"""The compiled sweeps against the pure-Python ones, and best play against the integer
program, on positions shaped like the kept worst cases (dense tables, both jokers in play,
duplicates of table tiles in the rack, long racks) at sizes the oracles check quickly.

The kernels (``kernel``: masks, existence, points-capped masks; ``kernel_best``: best play)
must give the very answers of the Python sweeps: the same bits, and the same play (not only
the same value: both break ties the same canonical way).  Without numba the differential
parts compare the Python sweeps with themselves and only the oracle checks remain.
"""

from __future__ import annotations

import numpy as np
import pytest

import rummy_env.core.rummikub_solver as solver
from experiments.dev import rummikub_oracle as oracle
from experiments.dev.rummikub_oracle import random_meld, random_rack, random_table
from rummy_env.core.rummikub_solver import best as solver_best
from rummy_env.core.rummikub_solver import kernel as solver_kernel
from rummy_env.core.rummikub_solver import kernel_best as solver_kernel_best
from rummy_env.core.rummikub_solver import sweeps as solver_sweeps
from rummy_env.core.rummikub_solver import transitions as solver_transitions
from rummy_env.core.tiles import JOKER, NUM_TILE_TYPES, parse_counts

ZERO = np.zeros(NUM_TILE_TYPES, dtype=np.int64)


def worst_like(rng: np.random.Generator, table_lo: int, table_hi: int, rack_hi: int, meld: bool = False):
    """A dense table with jokers, a rack with both jokers in play half the time and the
    second copy of some table tiles; with ``meld`` the rack holds a meld of 3-4 tiles first."""
    table = random_table(rng, int(rng.integers(table_lo, table_hi)), joker_p=0.3)
    rack = ZERO.copy()
    for _ in range(30 if meld else 0):
        add = np.bincount(random_meld(rng, 0.1), minlength=NUM_TILE_TYPES)
        if add.sum() <= 4 and np.all(table + add <= 2):
            rack += add
            break
    rack += random_rack(rng, table + rack, int(rng.integers(2, rack_hi)))
    if rng.random() < 0.5:
        rack[JOKER] = 2 - table[JOKER]
    return table, rack


def worst_like_bounds(rng: np.random.Generator, table_lo: int, table_hi: int, rack_hi: int):
    """A :func:`worst_like` position with a fifth of its rack chosen: ``(table, rack, lo, hi,
    keys)``, the sweep's lower and upper bounds and their cell keys."""
    table, rack = worst_like(rng, table_lo, table_hi, rack_hi)
    chosen = (rng.random(NUM_TILE_TYPES) < 0.2) * rack
    lo, hi = table + chosen, table + rack
    return table, rack, lo, hi, solver_transitions._cell_keys(lo, hi)


def test_kernel_label_sweeps_match_python():
    kernel = solver_kernel._kernel()
    assert kernel, "the compiled sweep is missing: the test extra installs numba (the fast extra)"
    rng = np.random.default_rng(1616)
    found = 0
    for k in range(30):
        table, rack = worst_like(rng, 30, 70, 16)
        chosen = (rng.random(NUM_TILE_TYPES) < 0.25) * rack
        lo, hi = table + chosen, table + rack
        if k % 2 == 0:  # a fixed multiset: the table and the rack's coloured tiles
            lo = hi = table + rack - rack[JOKER] * (np.arange(NUM_TILE_TYPES) == JOKER)
        keys = solver_transitions._cell_keys(lo, hi)
        for ordered in (False, True):
            want = solver_sweeps._label_sweep_py(keys, int(lo[JOKER]), int(hi[JOKER]), ordered)
            assert kernel(lo, hi, ordered) == want, (k, ordered, table.tolist(), rack.tolist())
            assert kernel(lo, hi, ordered, labels=False) == (want[0], 0)
            found += want[0]
        threshold = (1, 15, 30)[k % 3]
        for ordered in (False, True):
            want = solver_sweeps._label_sweep_points(
                solver_transitions._cell_keys(chosen, rack), int(chosen[JOKER]), int(rack[JOKER]), threshold, ordered
            )
            assert kernel(chosen, rack, ordered, threshold)[1] == want, (k, threshold, ordered)
    assert 10 <= found <= 56  # both answers represented (each position counts twice)


def test_kernel_best_play_equals_python_play():
    kernel = solver_kernel_best._best_kernel()
    assert kernel, "the compiled best play is missing: the test extra installs numba (the fast extra)"
    rng = np.random.default_rng(1617)
    plays = 0
    for k in range(40):
        table, rack = worst_like(rng, 10, 45, 14)
        threshold = 0
        if k % 3 == 0:  # the rack-only initial meld: empty table, points capped in the state
            table, threshold = ZERO.copy(), (10, 30)[k % 2]
        for objective in ("points", "tiles"):
            want = solver_best._best_sweep_py(table, rack, threshold, objective, False)
            got = kernel(table, rack, threshold, objective)
            if want is None:
                assert got is None
                continue
            assert np.array_equal(got, want), (k, objective, table.tolist(), rack.tolist())
            plays += 1
    assert plays >= 50


def test_move_sets_equal_the_four_colour_product():
    # the pairwise joint moves of the sweeps against the product the certificates read
    rng = np.random.default_rng(1618)
    compared = 0
    for _ in range(8):
        table, rack = worst_like(rng, 40, 80, 12)
        lo, hi = table, table + rack
        keys = solver_transitions._cell_keys(lo, hi)
        cur = {0}
        for ck in keys:
            nxt = set()
            for code in cur:
                budget = int(hi[JOKER]) - (code >> 24)
                moves = solver_transitions._transitions(code & ((1 << 24) - 1), ck, budget)
                assert set(moves) == set(solver_transitions._transitions_in_order(code & ((1 << 24) - 1), ck, budget))
                assert len(moves) == len(set(moves))
                compared += bool(moves)
                nxt.update((p & ((1 << 24) - 1)) | ((code >> 24) + (p >> 40)) << 24 for p in moves)
            cur = set(sorted(nxt)[:60])  # a sample of each layer keeps the test short
    assert compared > 300


@pytest.mark.parametrize("done, table_play", [(True, False), (False, False), (False, True)])
def test_best_play_on_worst_like_positions_matches_milp(done, table_play):
    rng = np.random.default_rng(1619 + 2 * done + table_play)
    compared = 0
    for k in range(25):
        table, rack = worst_like(rng, 8, 26, 9, meld=not done)
        objective = ("points", "tiles")[k % 2]
        threshold = (30, 20)[k % 2]
        play = solver.best_play(table, rack, done, objective, threshold, table_play)
        ref = oracle.milp_best_value(table, rack, done, objective, threshold, table_play)
        if ref is None:
            assert play.sum() == 0
            continue
        assert solver.is_legal_play(table, rack, play, done, threshold, table_play)
        on = table if (done or table_play) else ZERO
        assert (int(play.sum()), solver.play_points(on, play)) == ref, (k, table.tolist(), rack.tolist())
        compared += 1
    assert compared >= 10


def test_chosen_holding_an_initial_meld_gets_the_mask_after_it():
    # table play, no initial meld yet: once the chosen tiles hold 30 points of melds, every
    # play above them is legal as soon as the table splits, so the mask is the one after it
    table, rack = parse_counts("R1 R2 R3 B7 K7 Y7"), parse_counts("R10 R11 R12 R4 B5 Y8 JK")
    chosen = parse_counts("R10 R11 R12")
    for fn, ref in (
        (solver.extension_mask, oracle.extension_mask_bruteforce),
        (solver.ordered_extension_mask, oracle.ordered_extension_mask_bruteforce),
    ):
        got = fn(table, rack, chosen, False, 30, True)
        assert np.array_equal(got, ref(table, rack, chosen, False, 30, True))
        assert np.array_equal(got, fn(table, rack, chosen, True))
    assert np.flatnonzero(solver.extension_mask(table, rack, chosen, False, 30, True)).tolist() == [3, 52]


def test_worst_case_search_mutations_keep_positions_valid():
    from experiments.dev import rummikub_worst_cases as worst

    rng = np.random.default_rng(1620)
    _name, table, rack = worst.kept_positions()[5]
    changed = 0
    for _ in range(25):
        t2, r2 = worst.mutate(rng, table, rack)
        assert solver.can_partition(t2)
        assert np.all(t2 + r2 <= 2) and np.all(t2 >= 0) and np.all(r2 >= 0)
        assert np.abs(t2 - table).sum() + np.abs(r2 - rack).sum() <= 2  # one tile moved, added or dropped
        changed += not (np.array_equal(t2, table) and np.array_equal(r2, rack))
        table, rack = t2, r2
    assert changed >= 20


def test_pruned_label_sweeps_equal_the_unpruned_ones(monkeypatch):
    """Pruning takes the dominators' tokens out of a label (``sweeps._prune``): on layers big
    enough to prune, the answers and the found flag equal those of the sweep that keeps
    every code (plain reachability, exact by construction)."""
    rng = np.random.default_rng(1621)
    pruned_layers = [0]
    real_prune = solver_sweeps._prune

    def counting_prune(layer):
        out = real_prune(layer)
        pruned_layers[0] += len(out) < len(layer)
        return out

    for k in range(10):
        table, rack, lo, hi, keys = worst_like_bounds(rng, 30, 60, 14)
        for ordered in (False, True):
            monkeypatch.setattr(solver_sweeps, "_prune", counting_prune)
            got = solver_sweeps._label_sweep_py(keys, int(lo[JOKER]), int(hi[JOKER]), ordered)
            monkeypatch.setattr(solver_sweeps, "_prune", lambda layer: layer)
            want = solver_sweeps._label_sweep_py(keys, int(lo[JOKER]), int(hi[JOKER]), ordered)
            assert got == want, (k, ordered, table.tolist(), rack.tolist(), (lo - table).tolist())
    assert pruned_layers[0] >= 40


def test_pruned_product_sweep_equals_the_unpruned_one(monkeypatch):
    """The product sweep of table play with and without ``_prune_product`` (token removal
    included) on positions whose layers prune: same found flag, same bits, both orders."""
    from rummy_env.core.rummikub_solver import table_play as solver_table_play

    rng = np.random.default_rng(1622)
    real_prune = solver_table_play._prune_product
    dropped = [0]

    def counting_prune(layer, done):
        out = real_prune(layer, done)
        dropped[0] += len(layer) - len(out)
        return out

    found = 0
    for k in range(8):
        table, rack = worst_like(rng, 12, 30, 10, meld=True)
        chosen = ZERO.copy()
        threshold = (15, 30)[k % 2]
        for ordered in (False, True):
            monkeypatch.setattr(solver_table_play, "_prune_product", counting_prune)
            got = solver_table_play._product_sweep_py(table, rack, chosen, threshold, ordered)
            monkeypatch.setattr(solver_table_play, "_prune_product", lambda layer, done: layer)
            want = solver_table_play._product_sweep_py(table, rack, chosen, threshold, ordered)
            assert got == want, (k, ordered, table.tolist(), rack.tolist())
            found += got[0]
    assert dropped[0] >= 500
    assert found >= 4


def test_capped_ordered_labels_equal_the_full_ordered_sweep():
    """``below=m``: the ordered bits below m, and bit 53 iff some accepting path adds no type
    below m (its lowest added type is m or higher, or it adds nothing: lo itself splits);
    compiled and Python sweeps alike."""
    kernel = solver_kernel._kernel()
    assert kernel, "the compiled sweep is missing: the test extra installs numba (the fast extra)"
    rng = np.random.default_rng(1623)
    seen = set()
    for k in range(16):
        table, rack, lo, hi, keys = worst_like_bounds(rng, 30, 70, 16)
        coloured = np.flatnonzero(rack[:JOKER])
        m = int(coloured[-1] if k % 2 else rng.choice(coloured)) if coloured.size else 20
        full = solver_sweeps._label_sweep_py(keys, int(lo[JOKER]), int(hi[JOKER]), True)
        exact_lo = solver_sweeps._reachable(lo, lo)
        want_top = full[0] and (full[1] >> m != 0 or exact_lo)
        want = (full[0], full[1] & ((1 << m) - 1) | (want_top << 53))
        got_py = solver_sweeps._label_sweep_py(keys, int(lo[JOKER]), int(hi[JOKER]), True, below=m)
        assert got_py == want, (k, m, table.tolist(), rack.tolist(), (lo - table).tolist())
        assert kernel(lo, hi, True, below=m) == want, (k, m)
        seen.add((bool(want[1] & ((1 << m) - 1)), bool(want_top)))
    assert len(seen) >= 3  # bits below m with and without bit 53, and bit 53 alone or none


def test_two_pass_ordered_sweep_equals_the_one_pass_sweep():
    """The compiled ordered sweep in two passes (``sweeps._ordered_sweep``: jokers to add cut
    first, then the full sweep with the values found standing in for their colour) against
    the pure-Python one-pass sweep, plain and capped, with one or two jokers to add."""
    assert solver_kernel._kernel(), "the compiled sweep is missing: the test extra installs numba (the fast extra)"
    rng = np.random.default_rng(1625)
    stood_in = 0
    for k in range(30):
        table = random_table(rng, int(rng.integers(30, 80)), joker_p=(0.03, 0.12)[k % 2])
        rack = random_rack(rng, table, int(rng.integers(4, 16)))
        rack[JOKER] = 2 - table[JOKER]  # every joker not on the table is in the rack
        chosen = (rng.random(NUM_TILE_TYPES) < 0.15) * rack
        chosen[JOKER] = 0
        lo, hi = table + chosen, table + rack
        coloured = np.flatnonzero(rack[:JOKER])
        below = int(rng.choice(coloured)) if k % 3 == 2 and coloured.size else 0
        keys = solver_transitions._cell_keys(lo, hi)
        want = solver_sweeps._label_sweep_py(keys, int(lo[JOKER]), int(hi[JOKER]), True, below=below)
        got = solver_sweeps._label_sweep_found(lo, hi, True, below=below)
        assert got == want, (k, below, table.tolist(), rack.tolist(), (lo - table).tolist())
        cut = hi.copy()
        cut[JOKER] = lo[JOKER]
        stood_in += bool(
            hi[JOKER] > lo[JOKER] and solver_kernel._kernel()(lo, cut, True, below=below)[1] & ((1 << 52) - 1)
        )
    assert stood_in >= 10
