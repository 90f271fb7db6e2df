"""The staged ordered sweep (``sweeps._ordered_sweep``) against the one-pass sweep and brute force.

The stages (one tile of each type above its bound and no joker to add, then no joker to add,
then everything), the early exit once every possible bit is found, the bits left open decided
one by one by existence sweeps (``_ordered_bit_exists``) and the values found standing in for
their colour (``remap``, compiled and pure Python) must give exactly the one-pass answer.
These run on the compiled path when numba is there and on the pure-Python path otherwise
(``_ordered_pass`` picks), and on the pure-Python remap in both cases.
"""

from __future__ import annotations

import numpy as np
import pytest

import rummy_env.core.rummikub_solver as solver
from experiments.dev import rummikub_oracle as oracle
from experiments.dev.rummikub_oracle import random_meld, random_rack, random_table
from rummy_env.core.rummikub_solver import kernel as solver_kernel
from rummy_env.core.rummikub_solver import kernel_best as solver_kernel_best
from rummy_env.core.rummikub_solver import sweeps as solver_sweeps
from rummy_env.core.rummikub_solver import table_play as solver_table_play
from rummy_env.core.rummikub_solver import transitions as solver_transitions
from rummy_env.core.tiles import JOKER, NUM_TILE_TYPES

ZERO = np.zeros(NUM_TILE_TYPES, dtype=np.int64)


def one_pass(lo: np.ndarray, hi: np.ndarray, below: int = 0) -> tuple[bool, int]:
    """The pure-Python ordered sweep in one pass, no stand-ins: the reference."""
    keys = solver_transitions._cell_keys(lo, hi)
    return solver_sweeps._label_sweep_py(keys, int(lo[JOKER]), int(hi[JOKER]), True, below=below)


def position(rng: np.random.Generator, k: int, low_racks: bool = False) -> tuple[np.ndarray, np.ndarray, int]:
    """(lo, hi, below) shaped like the kept worst cases at a size the one-pass sweep takes quickly:
    a dense table with jokers, a rack holding both copies of its types half the time, both
    jokers in play half the time, a cap every third time; with ``low_racks`` the rack keeps
    only its tiles numbered 1-6 in the other half (the racks the mirrored sweeps are for)."""
    table = random_table(rng, int(rng.integers(20, 60)), joker_p=0.15)
    rack = random_rack(rng, table, int(rng.integers(4, 16)))
    if low_racks and k % 4 < 2:
        rack[:JOKER] *= np.tile(np.arange(13) < 6, 4)
    if k % 4 >= 2:  # both copies of the rack's types where the table leaves them
        rack[:JOKER] = np.minimum(2 - table[:JOKER], 2 * rack[:JOKER])
    if k % 2:
        rack[JOKER] = 2 - table[JOKER]
    chosen = (rng.random(NUM_TILE_TYPES) < 0.15) * rack
    coloured = np.flatnonzero(rack[:JOKER])
    below = int(rng.choice(coloured)) if k % 3 == 2 and coloured.size else 0
    return table + chosen, table + rack, below


@pytest.mark.parametrize("few_left", [0, 3, 60])
def test_staged_ordered_sweep_equals_one_pass(monkeypatch, few_left):
    """Every path of the staged sweep (early exit, bits decided one by one, every stage run)
    gives the one-pass answer, ``found`` included."""
    monkeypatch.setattr(solver_sweeps, "_FEW_LEFT", few_left)
    monkeypatch.setattr(solver_sweeps, "_FEW_LEFT_COMPILED", few_left)
    passes, singles = [], []
    real_pass, real_single = solver_sweeps._ordered_pass, solver_sweeps._ordered_bit_exists

    def counting_pass(lo, hi, below, known):
        passes[-1] += 1
        return real_pass(lo, hi, below, known)

    def counting_single(lo, hi, below, bit):
        singles[-1] += 1
        return real_single(lo, hi, below, bit)

    monkeypatch.setattr(solver_sweeps, "_ordered_pass", counting_pass)
    monkeypatch.setattr(solver_sweeps, "_ordered_bit_exists", counting_single)
    rng = np.random.default_rng(1700 + few_left)
    stages_run = set()
    for k in range(40):
        lo, hi, below = position(rng, k)
        passes.append(0)
        singles.append(0)
        got = solver_sweeps._label_sweep_found(lo, hi, True, below=below)
        assert got == one_pass(lo, hi, below), (k, below, lo.tolist(), hi.tolist())
        stages_run.add((passes[-1], singles[-1] > 0))
    if few_left == 0:  # no bit is decided alone: one, two and three stages all occur
        assert {p for p, _ in stages_run} >= {1, 2, 3}
        assert not any(s for _, s in stages_run)
    else:  # some bits are decided one by one after the first stage
        assert (1, True) in stages_run
    assert any(p == 1 and not s for p, s in stages_run)  # the first stage alone found everything


def test_ordered_bit_exists_equals_the_one_pass_bit():
    """``_ordered_bit_exists`` on every bit the sweep can return (``_ordered_candidates``, which
    holds every bit of the answer) equals that bit of the one-pass answer."""
    rng = np.random.default_rng(1710)
    seen = [0, 0]
    for k in range(20):
        lo, hi, below = position(rng, k)
        found, want = one_pass(lo, hi, below)
        if not found:
            continue
        cands = solver_sweeps._ordered_candidates(lo, hi, below)
        assert want & ~cands == 0
        for bit in solver_sweeps._bits_of(cands):
            got = solver_sweeps._ordered_bit_exists(lo, hi, below, bit)
            assert got == bool(want >> bit & 1), (k, below, bit, lo.tolist(), hi.tolist())
            seen[got] += 1
    assert min(seen) >= 10


def test_stand_ins_python_and_kernel_give_the_one_pass_answer():
    """With any subset of the answer standing in for its colour, the remapped sweep plus that
    subset is the one-pass answer: pure Python and compiled."""
    kernel = solver_kernel._kernel()
    assert kernel, "the compiled sweep is missing: the test extra installs numba (the fast extra)"
    rng = np.random.default_rng(1720)
    stood_in = 0
    for k in range(24):
        lo, hi, below = position(rng, k)
        found, want = one_pass(lo, hi, below)
        keep = rng.random(53) < 0.5
        known = sum(1 << t for t in solver_sweeps._bits_of(want & solver_sweeps._COLOURED_BITS) if keep[t])
        pairs = solver_sweeps._stand_ins(known)
        stood_in += any(t != u for t, u in pairs.items())
        keys = solver_transitions._cell_keys(lo, hi)
        remap = {1 << t: 1 << u for t, u in pairs.items()}
        f, bits = solver_sweeps._label_sweep_py(keys, int(lo[JOKER]), int(hi[JOKER]), True, below=below, remap=remap)
        assert (f, bits | known) == (found, want), (k, below, lo.tolist(), hi.tolist())
        f, bits = kernel(lo, hi, True, below=below, remap=solver_kernel.remap_table(pairs))
        assert (f, bits | known) == (found, want), ("kernel", k, below)
    assert stood_in >= 6


@pytest.mark.parametrize("few_left", [0, 60])
def test_staged_ordered_mask_matches_bruteforce(monkeypatch, few_left):
    """``ordered_extension_mask`` (every option) through the staged sweep against brute force
    on small positions with both jokers in play."""
    monkeypatch.setattr(solver_sweeps, "_FEW_LEFT", few_left)
    monkeypatch.setattr(solver_sweeps, "_FEW_LEFT_COMPILED", few_left)
    rng = np.random.default_rng(1730 + few_left)
    nonempty = 0
    for k in range(30):
        table = random_table(rng, int(rng.integers(4, 10)), joker_p=0.4)
        rack = random_rack(rng, table, int(rng.integers(3, 7)))
        if k % 2:
            rack[JOKER] = 2 - table[JOKER]
        done, table_play = (True, False) if k % 3 == 0 else (False, k % 3 == 2)
        solver.clear_caches()
        got = solver.ordered_extension_mask(table, rack, ZERO, done, 15, table_play)
        ref = oracle.ordered_extension_mask_bruteforce(table, rack, ZERO, done, 15, table_play)
        assert np.array_equal(got, ref), (k, done, table_play, table.tolist(), rack.tolist())
        nonempty += bool(got.any())
    assert nonempty >= 10


def test_staged_sweep_with_known_bits_a_wanted_subset_or_a_lower_bound():
    """``known`` (bits of the answer given beforehand), ``want`` (the bits asked for) and
    ``lower`` (a lower bound asked for): ``found`` is exact and ``answer & want <= bits <=
    answer`` (any subset with ``lower``)."""
    rng = np.random.default_rng(1740)
    partial = 0
    for k in range(24):
        lo, hi, below = position(rng, k)
        found, answer = one_pass(lo, hi, below)
        coloured = [t for t in solver_sweeps._bits_of(answer) if t < JOKER]
        known = sum(1 << t for t in coloured if rng.random() < 0.4)
        cands = solver_sweeps._ordered_candidates(lo, hi, below)
        want = sum(1 << t for t in solver_sweeps._bits_of(cands) if rng.random() < 0.5)
        f, bits = solver_sweeps._ordered_sweep(lo, hi, below, known=known, want=want)
        assert f == found and bits & ~answer == 0 and answer & want & ~bits == 0, (k, below)
        assert bits & known == known
        f, bits = solver_sweeps._ordered_sweep(lo, hi, below, lower=True)
        assert f == found and bits & ~answer == 0, (k, below)
        partial += bits != answer
    assert partial >= 2  # the lower bound stopped early and missed bits


def test_existence_shortcut_when_nothing_below_the_cap_can_be_added():
    """With no tile below ``below`` (or none at all) to add, one existence sweep answers: bit 53
    iff some arrangement exists, no other bit."""
    rng = np.random.default_rng(1750)
    kinds = set()
    for k in range(16):
        table = random_table(rng, int(rng.integers(20, 60)), joker_p=0.2)
        rack = random_rack(rng, table, int(rng.integers(3, 10)))
        lo, hi = table.copy(), table + rack
        if k % 2:  # nothing to add at all
            lo = hi.copy()
            below = 0 if k % 4 == 1 else int(rng.integers(1, JOKER))
        else:  # tiles to add, all at or above below
            below = int(np.flatnonzero(rack[:JOKER])[0]) if rack[:JOKER].any() else 1
            lo[:below] = hi[:below]
        if rng.random() < 0.5:  # a tile more on the table side that may not split
            t = int(rng.integers(JOKER))
            if hi[t] < 2:
                lo[t] += 1
                hi[t] += 1
        got = solver_sweeps._ordered_sweep(lo, hi, below)
        assert got == one_pass(lo, hi, below), (k, below)
        kinds.add((k % 2, got[0]))
    assert len(kinds) >= 3


def test_t_star_search_over_open_types_equals_the_search_over_every_type():
    """``t*`` (the highest type whose closing keeps an initial meld within the rack) from the
    search over the open types equals the highest such type found by trying them all."""
    rng = np.random.default_rng(1760)
    seen = set()
    for k in range(30):
        table = random_table(rng, int(rng.integers(10, 40)), joker_p=0.2)
        rack = random_rack(rng, table, int(rng.integers(6, 20)))
        if k % 2:
            rack[JOKER] = 2 - table[JOKER]
        chosen = (rng.random(NUM_TILE_TYPES) < 0.3) * rack
        threshold = (15, 30)[k % 2]
        if not solver_table_play._meld_from(ZERO, rack, threshold) or solver_table_play._meld_from(
            ZERO, chosen, threshold
        ):
            continue  # the witness is asked for only when the rack holds an initial meld and chosen none
        want = 0
        for t in range(JOKER + 1):
            closed = rack.copy()
            closed[:t] = chosen[:t]
            if solver_table_play._meld_from(ZERO, closed, threshold):
                want = t
        got = solver_table_play._ordered_witness_bits(table, rack, chosen, threshold)[0]
        assert got == want, (k, table.tolist(), rack.tolist(), chosen.tolist())
        seen.add(want == JOKER)
    assert seen == {False, True}


@pytest.mark.parametrize("lower", [False, True])
def test_table_play_ordered_mask_with_either_witness_sweep_matches_bruteforce(monkeypatch, lower):
    """The witness's ordered sweep run in full or stopped at its first finding stage: the
    ordered table-play mask is exact either way (the bound and ``_ordered_bit`` decide the rest)."""
    monkeypatch.setattr(solver_table_play, "_WITNESS_LOWER", lower)
    rng = np.random.default_rng(1770 + lower)
    nonempty = 0
    for k in range(24):
        table = random_table(rng, int(rng.integers(6, 13)), joker_p=0.3)
        rack = ZERO.copy()
        for _ in range(20):  # a meld of 3-4 tiles in the rack, so that an initial meld is often there
            meld = np.bincount(random_meld(rng, 0.2), minlength=NUM_TILE_TYPES)
            if np.all(table + meld <= 2) and meld.sum() <= 4:
                rack += meld
                break
        rack += random_rack(rng, table + rack, int(rng.integers(1, 4)))
        if k % 2:
            rack[JOKER] = 2 - table[JOKER]
        chosen = ZERO.copy()
        if k % 3 == 0:
            chosen[int(rng.choice(np.flatnonzero(rack)))] = 1
        threshold = (10, 15, 20)[k % 3]
        solver.clear_caches()
        got = solver.ordered_extension_mask(table, rack, chosen, False, threshold, True)
        ref = oracle.ordered_extension_mask_bruteforce(table, rack, chosen, False, threshold, True)
        assert np.array_equal(got, ref), (k, table.tolist(), rack.tolist(), chosen.tolist(), threshold)
        nonempty += bool(got.any())
    assert nonempty >= 10


def test_kernel_bounds_built_compiled_equal_the_python_bounds():
    """The kernel entry that builds the per-number bounds compiled (``kernel_bounds._bounds_sweep``)
    gives the answers of the sweep fed with the bounds built in Python (``_lohi_capc``), in every
    mode (labels or not, ordered, capped, points threshold, stand-ins)."""
    kernel = solver_kernel._kernel()
    assert kernel, "the compiled sweep is missing: the test extra installs numba (the fast extra)"
    gstart, moves, gj, ups = solver_kernel._shared_tables()
    rng = np.random.default_rng(1780)
    found = 0
    for k in range(24):
        lo, hi, below = position(rng, k)
        if k % 4 == 1:  # rack-only sweeps start from nothing
            lo = np.zeros_like(lo)
        lohi, capc = solver_kernel._lohi_capc(lo, hi)
        remap = solver_kernel.remap_table(solver_sweeps._stand_ins(one_pass(lo, hi, below)[1] & 0x5555555555555))
        for ordered, threshold, labels, rmp in (
            (False, 0, True, None),
            (True, 0, True, None),
            (True, 0, True, remap),
            (False, 0, False, None),
            (False, 30, False, None),
            (True, 15, True, None),
        ):
            want = solver_kernel._kernel_sweep(
                lohi,
                capc,
                int(lo[JOKER]),
                int(hi[JOKER]),
                gstart,
                moves,
                gj,
                ups,
                ordered,
                threshold,
                labels,
                32,
                64,
                below if ordered else 0,
                solver_kernel._IDENTITY if rmp is None else rmp,
                None,
                *solver_kernel.ordered_masks(below if ordered else 0, False),
            )
            got = kernel(lo, hi, ordered, threshold, labels, below if ordered else 0, rmp)
            assert got == (bool(want[0]), int(want[1])), (k, ordered, threshold, labels)
            found += got[0]
    assert found >= 40


def test_best_kernel_bounds_built_compiled_equal_the_python_bounds():
    """The best-play kernel entry that builds its bounds and reads the play back compiled
    (``kernel_best._best_bounds_sweep``) returns the very play of the sweep fed with the bounds
    built in Python, both objectives, after the initial meld and on the rack alone."""
    best = solver_kernel_best._best_kernel()
    assert best, "the compiled best play is missing: the test extra installs numba (the fast extra)"
    gstart, moves, gj, ups = solver_kernel._shared_tables()
    rng = np.random.default_rng(1790)
    plays = 0
    for k in range(24):
        lo, hi, _below = position(rng, k)
        table, rack = (lo, hi - lo) if k % 2 else (ZERO, hi - lo)
        threshold = 0 if k % 2 else 30
        for objective in ("points", "tiles"):
            lohi, capc = solver_kernel._lohi_capc(table, table + rack)
            tsum = table[:JOKER].reshape(4, 13).sum(axis=0).astype(np.int64)
            jr, xs = solver_kernel_best._best_kernel_sweep(
                lohi,
                capc,
                tsum,
                int(table[JOKER]),
                int(rack[JOKER]),
                threshold,
                objective == "tiles",
                gstart,
                moves,
                gj,
                ups,
            )
            got = best(table, rack, threshold, objective)
            if jr < 0:
                assert got is None, (k, objective)
                continue
            want = np.zeros(NUM_TILE_TYPES, dtype=np.int64)
            for c in range(4):
                want[c * 13 : c * 13 + 13] = ((xs >> (2 * c)) & 3) - table[c * 13 : c * 13 + 13]
            want[JOKER] = jr
            assert got is not None and np.array_equal(got, want), (k, objective)
            plays += 1
    assert plays >= 20


def test_meld_existence_stops_early_with_the_same_answer():
    """Whether the rack holds melds worth the threshold (``table_play._meld_from``): the sweeps
    that stop at the first code with the points and only runs of 3+ open (pure Python's
    ``stop``, the kernel's ``long_only``) answer as the full sweeps, thresholds 1 to 60."""
    kernel = solver_kernel._kernel()
    assert kernel, "the compiled sweep is missing: the test extra installs numba (the fast extra)"
    rng = np.random.default_rng(1800)
    answers = set()
    for k in range(40):
        table = random_table(rng, int(rng.integers(10, 60)), joker_p=0.2)
        rack = random_rack(rng, table, int(rng.integers(3, 30)))
        if k % 2:
            rack[JOKER] = 2 - table[JOKER]
        threshold = int(rng.integers(1, 61))
        keys = solver_transitions._cell_keys(ZERO, rack)
        jhi = int(rack[JOKER])
        want = solver_sweeps._label_sweep_points(keys, 0, jhi, threshold) != 0
        assert (solver_sweeps._label_sweep_points(keys, 0, jhi, threshold, stop=True) != 0) == want, k
        assert solver_table_play._meld_from(ZERO, rack, threshold) == want, k
        gstart, moves, gj, ups = solver_kernel._shared_tables()
        lohi, capc = solver_kernel._lohi_capc(ZERO, rack)
        vmask, block = solver_kernel.ordered_masks(0, False)
        identity = solver_kernel._IDENTITY
        args = (lohi, capc, 0, jhi, gstart, moves, gj, ups, False, threshold, False, 32, 64, 0, identity)
        full = solver_kernel._kernel_sweep(*args, None, vmask, block)
        assert bool(full[0]) == want, k
        answers.add(want)
    assert answers == {False, True}
