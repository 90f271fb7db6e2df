"""The label sweeps over mirrored numbers (13 down to 1) against the forward sweep and brute force.

``sweeps._ordered_pass`` and the unordered ``_label_sweep_found`` run mirrored when the types
they can add are low (``_mirror_pays``); the compiled and the Python mirrored sweeps must give
the forward answer exactly (ordered: with a cap, ``below``, and with stand-ins, ``remap``), and
the masks built on either direction must match brute force over every play.
"""

from __future__ import annotations

import numpy as np
import pytest

import rummy_env.core.rummikub_solver as solver
from experiments.dev import rummikub_oracle as oracle
from experiments.dev.rummikub_oracle import random_rack, random_table
from rummy_env.core.rummikub_solver import kernel as solver_kernel
from rummy_env.core.rummikub_solver import sweeps as solver_sweeps
from rummy_env.core.rummikub_solver import transitions as solver_transitions
from rummy_env.core.tiles import JOKER, NUM_TILE_TYPES, parse_counts
from tests.core.test_rummikub_solver_staged import one_pass as forward
from tests.core.test_rummikub_solver_staged import position as staged_position

ZERO = np.zeros(NUM_TILE_TYPES, dtype=np.int64)


def position(rng: np.random.Generator, k: int) -> tuple[np.ndarray, np.ndarray, int]:
    """(lo, hi, below): the staged tests' positions, the rack of low tiles every other time."""
    return staged_position(rng, k, low_racks=True)


def test_mirror_counts_and_bits_reverse_the_numbers():
    counts = parse_counts("R1 R1 B5 K13 Y7 JK")
    assert np.array_equal(solver_kernel.mirror_counts(counts), parse_counts("R13 R13 B9 K1 Y7 JK"))
    assert np.array_equal(solver_kernel.mirror_counts(solver_kernel.mirror_counts(counts)), counts)
    bits = (1 << 0) | (1 << (13 + 4)) | (1 << 52) | (1 << 53)  # R1 B5 JK, "none yet"
    assert solver_kernel.mirror_bits(bits) == (1 << 12) | (1 << (13 + 8)) | (1 << 52) | (1 << 53)
    assert solver_kernel.mirror_bits(solver_kernel.mirror_bits(bits)) == bits
    assert [solver_sweeps._mirror_type(t) for t in (0, 12, 13 + 4, 51, JOKER)] == [12, 0, 13 + 8, 39, JOKER]


def test_mirror_pays_on_low_racks_only():
    table = parse_counts("R5 R6 R7")
    for rack, below, want in (
        ("R1 B2 K3", 0, True),  # mean number 2
        ("R12 B12 K11 Y11", 0, False),  # 11.5
        ("R1 R12 B12 K12", 0, False),  # 9.25
        ("R1 R12 B12 K12", 13, True),  # only R1 below the cap
        ("JK", 0, False),  # nothing coloured to add
    ):
        assert solver_sweeps._mirror_pays(table, table + parse_counts(rack), below) == want, rack


def test_mirrored_sweeps_equal_the_forward_sweep():
    """Compiled and Python, with a cap and with any subset of the answer standing in (on the
    mirrored types), the mirrored sweep gives the forward answer, ``found`` included."""
    kernel = solver_kernel._kernel()
    assert kernel, "the compiled sweep is missing: the test extra installs numba (the fast extra)"
    rng = np.random.default_rng(1800)
    stood_in = capped = 0
    for k in range(30):
        lo, hi, below = position(rng, k)
        found, want = forward(lo, hi, below)
        keep = rng.random(53) < 0.5
        known = sum(1 << t for t in solver_sweeps._bits_of(want & solver_sweeps._COLOURED_BITS) if keep[t])
        pairs = {
            solver_sweeps._mirror_type(t): solver_sweeps._mirror_type(u)
            for t, u in solver_sweeps._stand_ins(known).items()
        }
        stood_in += any(t != u for t, u in pairs.items())
        capped += below > 0
        got = kernel(lo, hi, True, below=below, mirrored=True)
        assert got == (found, want), ("kernel", k, below, lo.tolist(), hi.tolist())
        keys_fwd = solver_transitions._cell_keys(lo, hi)
        union = solver_sweeps._label_sweep_py(keys_fwd, int(lo[JOKER]), int(hi[JOKER]), False)
        assert kernel(lo, hi, False, mirrored=True) == union, ("kernel unordered", k)
        f, bits = kernel(lo, hi, True, below=below, remap=solver_kernel.remap_table(pairs), mirrored=True)
        assert (f, bits | known) == (found, want), ("kernel stand-ins", k, below)
        keys = solver_transitions._cell_keys(solver_kernel.mirror_counts(lo), solver_kernel.mirror_counts(hi))
        jlo, jhi = int(lo[JOKER]), int(hi[JOKER])
        f, bits = solver_sweeps._label_sweep_py(keys, jlo, jhi, True, below=below, mirrored=True)
        assert (f, solver_kernel.mirror_bits(bits)) == (found, want), ("python", k, below)
        f, bits = solver_sweeps._label_sweep_py(keys, jlo, jhi, False, mirrored=True)
        assert (f, solver_kernel.mirror_bits(bits)) == union, ("python unordered", k)
        remap = {1 << t: 1 << u for t, u in pairs.items()}
        f, bits = solver_sweeps._label_sweep_py(keys, jlo, jhi, True, below=below, remap=remap, mirrored=True)
        assert (f, solver_kernel.mirror_bits(bits) | known) == (found, want), ("python stand-ins", k, below)
    assert stood_in >= 6 and capped >= 6


@pytest.mark.parametrize("mirror_mean", [0.0, 14.0])
def test_ordered_masks_either_direction_match_bruteforce(monkeypatch, mirror_mean):
    """``ordered_extension_mask`` and ``extension_mask`` in every option with the label sweeps
    all forwards (0) or all mirrored (14) against brute force, tiles chosen, both jokers in play."""
    monkeypatch.setattr(solver_sweeps, "_MIRROR_MEAN", mirror_mean)
    mirrored = [0, 0]
    real = solver_sweeps._mirror_pays

    def counting(lo, hi, below):
        got = real(lo, hi, below)
        mirrored[got] += 1
        return got

    monkeypatch.setattr(solver_sweeps, "_mirror_pays", counting)
    rng = np.random.default_rng(1810 + int(mirror_mean))
    nonempty = 0
    for k in range(30):
        table = random_table(rng, int(rng.integers(4, 10)), joker_p=0.4)
        rack = random_rack(rng, table, int(rng.integers(3, 7)))
        if k % 2:
            rack[JOKER] = 2 - table[JOKER]
        chosen = ZERO.copy()
        if k % 4 == 3 and rack[:JOKER].any():
            chosen[int(np.flatnonzero(rack[:JOKER])[0])] = 1
        done, table_play = (True, False) if k % 3 == 0 else (False, k % 3 == 2)
        for fn, bruteforce in (
            (solver.ordered_extension_mask, oracle.ordered_extension_mask_bruteforce),
            (solver.extension_mask, oracle.extension_mask_bruteforce),
        ):
            solver.clear_caches()
            got = fn(table, rack, chosen, done, 15, table_play)
            ref = bruteforce(table, rack, chosen, done, 15, table_play)
            assert np.array_equal(got, ref), (k, fn.__name__, done, table_play, table.tolist(), rack.tolist())
            nonempty += bool(got.any())
    assert nonempty >= 16
    assert mirrored[mirror_mean > 0] >= 10 and mirrored[mirror_mean == 0] == 0
