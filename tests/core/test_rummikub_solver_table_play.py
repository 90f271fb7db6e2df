"""The initial meld with table play (R-RK-07, ``initial_meld_table_play=True``), the worst cases,
the package's worked example and the cache budget.

The table-play masks take one of three paths (no initial meld within the rack; one initial
meld P1 settles the mask; the product sweep): each is checked against brute force over
every play (``experiments.dev.rummikub_oracle``) on positions shaped like the kept worst cases
of ``experiments.dev.rummikub_worst_cases`` (dense tables with jokers, both jokers in the rack,
duplicates) at a size brute force can check, and each path is shown to be taken.
"""

from __future__ import annotations

import doctest

import numpy as np
import pytest

import rummy_env.core.rummikub_solver as solver
from experiments.dev import rummikub_oracle as oracle
from experiments.dev import rummikub_worst_cases as worst
from experiments.dev.rummikub_oracle import random_meld, random_rack, random_table
from rummy_env.core.rummikub_solver import (
    extension_mask,
    is_legal_play,
    ordered_extension_mask,
)
from rummy_env.core.rummikub_solver import memo as solver_memo
from rummy_env.core.rummikub_solver import table_play as solver_table_play
from rummy_env.core.tiles import JOKER, NUM_TILE_TYPES, parse_counts, parse_tiles

ZERO = np.zeros(NUM_TILE_TYPES, dtype=np.int64)


def C(text: str) -> np.ndarray:
    return parse_counts(text)


def dense_position(rng: np.random.Generator):
    """A small worst-case shape: a table of melds (jokers often), a rack holding one meld
    worth 15+ and loose tiles, often both jokers in play, often a duplicate of a table tile."""
    table = random_table(rng, int(rng.integers(6, 13)), joker_p=0.3)
    rack = ZERO.copy()
    for _ in range(20):
        meld = np.bincount(random_meld(rng, 0.2), minlength=NUM_TILE_TYPES)
        if np.all(table + meld <= 2) and meld.sum() <= 4:
            rack += meld
            break
    rack += random_rack(rng, table + rack, int(rng.integers(1, 4)))
    if rng.random() < 0.5:
        rack[JOKER] = 2 - table[JOKER]
    chosen = ZERO.copy()
    if rng.random() < 0.4:
        t = rng.choice(np.flatnonzero(rack))
        chosen[t] = 1
    return table, rack, chosen


def count_calls(monkeypatch, name: str) -> list[int]:
    calls = [0]
    original = getattr(solver_table_play, name)

    def wrapped(*args, **kwargs):
        calls[0] += 1
        return original(*args, **kwargs)

    monkeypatch.setattr(solver_table_play, name, wrapped)
    return calls


def test_table_play_masks_match_bruteforce_on_dense_positions(monkeypatch):
    product = count_calls(monkeypatch, "_product_sweep")
    witness = count_calls(monkeypatch, "_witness_bits")
    ordered_witness = count_calls(monkeypatch, "_ordered_witness_bits")
    rng = np.random.default_rng(2016)
    nonempty = 0
    for k in range(45):
        table, rack, chosen = dense_position(rng)
        threshold = (15, 20, 30)[k % 3]
        for fn, ref in (
            (extension_mask, oracle.extension_mask_bruteforce),
            (ordered_extension_mask, oracle.ordered_extension_mask_bruteforce),
        ):
            solver.clear_caches()
            got = fn(table, rack, chosen, False, threshold, True)
            want = ref(table, rack, chosen, False, threshold, True)
            assert np.array_equal(got, want), (fn.__name__, table.tolist(), rack.tolist(), chosen.tolist(), threshold)
            nonempty += bool(got.any())
        play = chosen + (rng.random(NUM_TILE_TYPES) < 0.6) * (rack - chosen)
        assert is_legal_play(table, rack, play, False, threshold, True) == oracle.is_legal_play_bruteforce(
            table, play, False, threshold, True
        )
    assert nonempty >= 25
    assert witness[0] >= 10 and ordered_witness[0] >= 10 and product[0] >= 1  # the witness and the product paths ran


def test_product_sweep_alone_matches_bruteforce(monkeypatch):
    """The product sweep (done states, pruning) without the shortcut that usually skips it."""
    monkeypatch.setattr(solver_table_play, "_witness_bits", lambda *args: -1)
    rng = np.random.default_rng(77)
    for k in range(25):
        table, rack, chosen = dense_position(rng)
        threshold = (15, 30)[k % 2]
        solver.clear_caches()
        got = extension_mask(table, rack, chosen, False, threshold, True)
        want = oracle.extension_mask_bruteforce(table, rack, chosen, False, threshold, True)
        assert np.array_equal(got, want), (table.tolist(), rack.tolist(), chosen.tolist(), threshold)


def test_ordered_product_path_alone_matches_bruteforce(monkeypatch):
    """The ordered table-play mask with no witness: every open bit goes to the product sweep."""
    monkeypatch.setattr(solver_table_play, "_ordered_witness_bits", lambda *args: (JOKER, 0))
    real_witness = solver_table_play._ordered_witness
    monkeypatch.setattr(solver_table_play, "_ordered_witness", lambda *args: real_witness(*args) and None)
    product = count_calls(monkeypatch, "_product_sweep")
    rng = np.random.default_rng(78)
    for k in range(25):
        table, rack, chosen = dense_position(rng)
        threshold = (15, 30)[k % 2]
        solver.clear_caches()
        got = ordered_extension_mask(table, rack, chosen, False, threshold, True)
        want = oracle.ordered_extension_mask_bruteforce(table, rack, chosen, False, threshold, True)
        assert np.array_equal(got, want), (table.tolist(), rack.tolist(), chosen.tolist(), threshold)
    assert product[0] >= 10


@pytest.mark.parametrize("few_open", [0, NUM_TILE_TYPES])
def test_ordered_open_bits_both_ways_match_bruteforce(monkeypatch, few_open):
    """The open candidates of the ordered table-play mask checked one by one (an existence
    sweep each) or against the whole ordered mask after the meld: both exact."""
    monkeypatch.setattr(solver_table_play, "_FEW_OPEN", few_open)
    real_witness_bits = solver_table_play._ordered_witness_bits
    # a weaker witness leaves more candidates open: only its t* is kept
    monkeypatch.setattr(solver_table_play, "_ordered_witness_bits", lambda *a: (real_witness_bits(*a)[0], 0))
    per_bit = count_calls(monkeypatch, "_after_meld_bit")
    rng = np.random.default_rng(79)
    for k in range(20):
        table, rack, chosen = dense_position(rng)
        threshold = (15, 30)[k % 2]
        solver.clear_caches()
        got = ordered_extension_mask(table, rack, chosen, False, threshold, True)
        want = oracle.ordered_extension_mask_bruteforce(table, rack, chosen, False, threshold, True)
        assert np.array_equal(got, want), (few_open, table.tolist(), rack.tolist(), chosen.tolist(), threshold)
    assert (per_bit[0] >= 10) == (few_open > 0)


def test_product_path_golden():
    # table R1 R2 R3; rack B10 K10 Y10 R4 R13: the 30-point group is the initial meld and R4
    # may follow it; R13 fits nowhere.  The witness P1 is the group: it settles the mask.
    table, rack = C("R1 R2 R3"), C("B10 K10 Y10 R4 R13")
    assert list(np.flatnonzero(extension_mask(table, rack, ZERO, False, 30, True))) == parse_tiles("R4 B10 K10 Y10")
    assert list(np.flatnonzero(ordered_extension_mask(table, rack, ZERO, False, 30, True))) == parse_tiles("R4 B10")
    # R13 joins an initial meld R10 R11 R12 into one run; alone it neither scores nor fits.
    table, rack = C("R1 R2 R3"), C("R10 R11 R12 R13")
    mask = extension_mask(table, rack, ZERO, False, 30, True)
    assert list(np.flatnonzero(mask)) == parse_tiles("R10 R11 R12 R13")
    assert is_legal_play(table, rack, rack, False, 30, True)
    assert not is_legal_play(table, rack, C("R13"), False, 30, True)
    assert not is_legal_play(table, rack, rack, False, 47, True)  # 10 + 11 + 12 + 13 = 46


@pytest.mark.parametrize("name, table, rack", worst.kept_positions()[:2])
def test_issue_cases_have_no_initial_meld(name, table, rack):
    # neither rack holds 30 points of melds (JK JK; R1 B2 K3 Y7 Y13): nothing is playable
    for fn in (extension_mask, ordered_extension_mask):
        assert not fn(table, rack, ZERO, False, 30, True).any(), name
    assert not is_legal_play(table, rack, rack, False, 30, True)
    assert not solver.best_play(table, rack, False, "points", 30, True).any()


def test_kept_worst_case_answers():
    # the whole set minus R10 R11 R12 B2 K3, both jokers on the table: the run is the initial
    # meld; after it B2 and K3 fit the full table's runs too, and so does everything in the mask
    name, table, rack = worst.kept_positions()[2]
    assert list(np.flatnonzero(extension_mask(table, rack, ZERO, False, 30, True))) == parse_tiles("R10 R11 R12 B2 K3")
    assert list(np.flatnonzero(ordered_extension_mask(table, rack, ZERO, False, 30, True))) == parse_tiles("R10")
    assert is_legal_play(table, rack, C("R10 R11 R12 K3"), False, 30, True)
    assert not is_legal_play(table, rack, C("R11 R12 B2 K3"), False, 30, True)  # no meld of rack tiles


def test_package_docstring_example():
    result = doctest.testmod(solver, verbose=False)
    assert result.attempted >= 10 and result.failed == 0


def test_cache_budget(monkeypatch):
    budget = solver.cache_budget_mb()
    try:
        solver.set_cache_budget(0.01)  # 10 KB: a few entries
        solver.clear_caches()
        table, rack = C("R1 R2 R3 B5 K5 Y5 JK"), C("R4 B6 K6 Y6 JK R9")
        first = extension_mask(table, rack, ZERO, True)
        info = solver.cache_info()
        assert sum(mb for _n, mb in info.values()) <= 0.01
        assert set(info) >= {"transitions", "label_transitions", "point_transitions", "masks"}
        solver.set_cache_budget(0)  # no caching: same answers
        assert sum(n for n, _mb in solver.cache_info().values()) == 0
        assert np.array_equal(extension_mask(table, rack, ZERO, True), first)
        assert sum(n for n, _mb in solver.cache_info().values()) == 0
        with pytest.raises(ValueError, match="^the cache budget must be a finite number of megabytes >= 0, got -1$"):
            solver.set_cache_budget(-1)
        with pytest.raises(TypeError, match="^the cache budget must be a number of megabytes, got str$"):
            solver.set_cache_budget("8")
        with pytest.raises(TypeError, match="^the cache budget must be a number of megabytes, got bool$"):
            solver.set_cache_budget(True)
        solver.set_cache_budget(np.int64(8))  # a NumPy number is a number
        assert solver.cache_budget_mb() == 8.0
        solver.set_cache_budget(np.int32(4096))  # not wrapped around in int32 arithmetic
        assert solver.cache_budget_mb() == 4096.0
        monkeypatch.setenv("RUMMY_ENV_SOLVER_CACHE_MB", "lots")
        with pytest.raises(
            ValueError,
            match=r"^RUMMY_ENV_SOLVER_CACHE_MB='lots' is not a number: give the solver cache budget in megabytes "
            r"\(>= 0\)$",
        ):
            solver_memo._budget_from_env()
        monkeypatch.setenv("RUMMY_ENV_SOLVER_CACHE_MB", "12.5")
        assert solver_memo._budget_from_env() == int(12.5 * 2**20)
    finally:
        solver.set_cache_budget(budget)
