"""The pure-Python fast paths: merged moves, flat best play, whole-order pruning.

``merged_moves`` builds the label sweeps' and best play's moves from the two halves; they
must be exactly the reduction of the four-colour product (``transitions._transitions_in_order``).
``best._best_sweep_flat`` (best play without side A on int states) must return the very play
of the generic ``best._best_sweep_py`` (and so of the kernel) and the integer program's value.
``dominance._skyline`` prunes against every stronger code: its order tables must be the
transitive closure of the one-step upgrades, and the sweeps' answers must not move.
None of these needs numba.
"""

from __future__ import annotations

import numpy as np
import pytest

import rummy_env.core.rummikub_solver as solver
from experiments.dev import rummikub_oracle as oracle
from experiments.dev import rummikub_worst_cases as worst_cases
from rummy_env.core.rummikub_solver import best as solver_best
from rummy_env.core.rummikub_solver import dominance as solver_dominance
from rummy_env.core.rummikub_solver import merged_moves as solver_moves
from rummy_env.core.rummikub_solver import sweeps as solver_sweeps
from rummy_env.core.rummikub_solver import tables as solver_tables
from rummy_env.core.rummikub_solver import transitions as solver_transitions
from rummy_env.core.tiles import JOKER, NUM_TILE_TYPES, parse_counts
from tests.core.test_rummikub_solver_worst import worst_like, worst_like_bounds

ZERO = np.zeros(NUM_TILE_TYPES, dtype=np.int64)
SMASK, JSHIFT, KSHIFT = solver_tables._SMASK, solver_tables._JSHIFT, solver_tables._K_SHIFT


def reduced_label(state: int, ck: tuple, budget: int, merge: bool) -> set[tuple[int, int]]:
    """``_label_transitions`` from the four-colour product: the reference."""
    out: dict[int, int] = {}
    pairs = set()
    for p in solver_transitions._transitions_in_order(state, ck, budget):
        delta = (p & SMASK) | ((p >> KSHIFT) << JSHIFT)
        extra = (p >> solver_tables._EXTRA_SHIFT) & 15
        out[delta] = out.get(delta, 0) | solver_tables._SPREAD[extra]
        pairs.add((delta, solver_tables._SPREAD[extra & -extra]))
    return set(out.items()) if merge else pairs


def reduced_best(state: int, ck: tuple, budget: int, by_real: bool) -> set[tuple[int, int, int]]:
    """``_best_moves`` from the four-colour product: per delta (or (delta, real)) the most real
    tiles, then the smallest ``xs``."""
    out: dict = {}
    for p in solver_transitions._transitions_in_order(state, ck, budget):
        delta = (p & SMASK) | ((p >> KSHIFT) << JSHIFT)
        real = (p >> solver_tables._NREAL_SHIFT) & 15
        xs = (p >> solver_tables._X_SHIFT) & 255
        key = (delta, real) if by_real else delta
        if key not in out or (real, -xs) > (out[key][0], -out[key][1]):
            out[key] = (real, xs)
    return {(key[0] if by_real else key, real, xs) for key, (real, xs) in out.items()}


def sweep_states(lo: np.ndarray, hi: np.ndarray, per_layer: int):
    """(code, cell keys, budget) of the first ``per_layer`` codes of each layer of a sweep."""
    keys = solver_transitions._cell_keys(lo, hi)
    cur = {0}
    for ck in keys:
        nxt = set()
        for code in sorted(cur)[:per_layer]:
            budget = int(hi[JOKER]) - (code >> JSHIFT)
            yield code & SMASK, ck, budget
            moves = solver_moves._label_transitions(code & SMASK, ck, budget)
            nxt.update(((code >> JSHIFT) << JSHIFT) + d for d, _spread in moves)
        cur = nxt


def test_merged_moves_equal_the_reduced_four_colour_product():
    rng = np.random.default_rng(1640)
    compared = nonempty = 0
    positions = [(t, r) for name, t, r in worst_cases.kept_positions() if "climbed: 5" in name]
    positions += [worst_like(rng, 30, 80, 20) for _ in range(6)]
    for table, rack in positions:
        for state, ck, budget in list(sweep_states(table, table + rack, 25)):
            for halves in (True, False):  # merged from the halves, or reduced from the full list
                solver.clear_caches()
                for merge in (True, False):
                    got = solver_moves._label_transitions(state, ck, budget, merge, halves)
                    assert len(got) == len(set(got))
                    assert set(got) == reduced_label(state, ck, budget, merge), (state, ck, budget, merge, halves)
                for by_real in (False, True):
                    got = solver_moves._best_moves(state, ck, budget, by_real, halves)
                    assert len(got) == len(set(got))
                    assert set(got) == reduced_best(state, ck, budget, by_real), (state, ck, budget, by_real, halves)
            compared += 1
            nonempty += bool(got)
    assert compared > 1500 and nonempty > 1000


def test_merged_moves_golden():
    # number 1 of table R1 R2 R3, rack B1 K1: R1 starts a red run, or goes in a group with B1
    # and K1 (the moves of one number do not look at whether R2 R3 can still be used)
    lo, hi = parse_counts("R1 R2 R3"), parse_counts("R1 R2 R3 B1 K1")
    ck = solver_transitions._cell_keys(lo, hi)[0]
    run = solver_tables._CINDEX[(1, 0, 0)]  # one open red run of length 1
    b1, k1 = 1 << 13, 1 << 26
    assert set(solver_moves._label_transitions(0, ck, 0)) == {(run, 0), (0, b1 | k1)}
    assert set(solver_moves._label_transitions(0, ck, 0, False)) == {(run, 0), (0, b1)}  # lowest added: B1
    # (delta, real tiles, 2 bits per colour): R1 alone, or R1 B1 K1
    assert set(solver_moves._best_moves(0, ck, 0)) == {(run, 1, 1), (0, 3, 1 | 4 | 16)}
    assert set(solver_moves._best_moves(0, ck, 0, True)) == {(run, 1, 1), (0, 3, 1 | 4 | 16)}


def test_flat_best_play_equals_the_generic_sweep():
    rng = np.random.default_rng(1641)
    plays = 0
    for k in range(40):
        table, rack = worst_like(rng, 10, 50, 16)
        threshold = 0
        if k % 3 == 0:  # the rack-only initial meld: empty table, capped points in the state
            table, threshold = ZERO.copy(), (10, 30, 1)[k % 9 // 3]
        for objective in ("points", "tiles"):
            want = solver_best._best_sweep_py(table, rack, threshold, objective, False)
            got = solver_best._best_sweep_flat(table, rack, threshold, objective)
            if want is None:
                assert got is None, (k, objective)
                continue
            assert np.array_equal(got, want), (k, objective, threshold, table.tolist(), rack.tolist())
            plays += 1
    assert plays >= 50


@pytest.mark.parametrize("done", [True, False])
def test_flat_best_play_matches_milp(monkeypatch, done):
    monkeypatch.setattr(solver_best, "_best_kernel", lambda: False)  # the Python sweep, numba or not
    rng = np.random.default_rng(1642 + done)
    compared = 0
    for k in range(20):
        table, rack = worst_like(rng, 8, 26, 10, meld=not done)
        objective = ("points", "tiles")[k % 2]
        play = solver.best_play(table, rack, done, objective, 30)
        ref = oracle.milp_best_value(table, rack, done, objective, 30, False)
        if ref is None:
            assert play.sum() == 0
            continue
        on = table if done else ZERO
        assert solver.is_legal_play(table, rack, play, done, 30)
        assert (int(play.sum()), solver.play_points(on, play)) == ref, (k, table.tolist(), rack.tolist())
        compared += 1
    assert compared >= 8


def test_flat_best_play_golden(monkeypatch):
    monkeypatch.setattr(solver_best, "_best_kernel", lambda: False)
    table, rack = parse_counts("R1 R2 R3 R4"), parse_counts("B1 K1 JK R5 Y9")
    play = solver.best_play(table, rack, True)  # the package docstring's example
    assert np.array_equal(play, parse_counts("R5 B1 K1 JK")) and solver.play_points(table, play) == 13
    play = solver.best_play(table, rack, True, "tiles")
    assert np.array_equal(play, parse_counts("R5 B1 K1 JK"))
    # rack only: R10 R11 R12 (33 points) is the initial meld, the joker extends it to R13 (46)
    rack = parse_counts("R10 R11 R12 JK Y9 B2")
    play = solver.best_play(ZERO, rack, False, "points", 30)
    assert np.array_equal(play, parse_counts("R10 R11 R12 JK")) and solver.play_points(ZERO, play) == 46
    assert solver.best_play(ZERO, parse_counts("R1 R2 R3 B9"), False, "points", 30).sum() == 0  # 6 < 30


def test_order_tables_are_the_closure_of_the_upgrades():
    states = solver_tables._CSTATES
    for s in range(len(states)):
        reach, todo = {s}, [s]
        while todo:  # every state some chain of one-step upgrades leads to
            t = todo.pop()
            for d in solver_tables._UPGRADES[t]:
                if t + d not in reach:
                    reach.add(t + d)
                    todo.append(t + d)
        for t in range(len(states)):
            assert bool(solver_dominance._DOWN[t] >> s & 1) == (t in reach), (states[s], states[t])
            if t in reach and t != s:
                assert solver_dominance._RANK[t] > solver_dominance._RANK[s]


def code_of(*colour_states, jokers: int = 0) -> int:
    out = jokers << JSHIFT
    for c, st in enumerate(colour_states):
        out |= solver_tables._CINDEX[st] << (6 * c)
    return out


def test_skyline_golden():
    zero = (0, 0, 0)
    strong = code_of((0, 0, 3), (0, 0, 1), zero, zero)
    weak = code_of((1, 0, 0), zero, zero, zero)  # 1 -> 3+ and two more 3+ runs: three steps below
    other_j = code_of((1, 0, 0), zero, zero, zero, jokers=1)  # other jokers: not comparable
    apart = code_of(zero, (0, 1, 0), zero, zero)
    layer = {strong: 0b0011, weak: 0b0111, other_j: 0b0001, apart: 0b1000}
    assert solver_dominance._skyline(layer) == {strong: 0b0011, weak: 0b0100, other_j: 0b0001, apart: 0b1000}
    layer[weak] = 0b0001  # every token held by the dominator: dropped
    assert weak not in solver_dominance._skyline(layer)
    assert solver_dominance._dominated(weak, 0b0001, layer.get, True) == 0b0001  # out of the look-ups' reach


def test_skyline_keeps_the_sweeps_answers(monkeypatch):
    """The label sweeps with the whole-order stage, with the look-ups alone and unpruned: the
    same answers, on layers where the whole-order stage drops codes."""
    rng = np.random.default_rng(1643)
    dropped = [0]
    real = solver_dominance._skyline

    def counting(layer):
        out = real(layer)
        dropped[0] += len(layer) - len(out)
        return out

    for k in range(8):
        table, rack, lo, hi, keys = worst_like_bounds(rng, 30, 60, 16)
        for ordered in (False, True):
            answers = []
            for skyline in (counting, lambda layer: layer, None):
                if skyline is None:
                    monkeypatch.setattr(solver_sweeps, "_prune", lambda layer: layer)
                else:
                    monkeypatch.setattr(solver_sweeps, "_prune", solver_dominance._prune)
                    monkeypatch.setattr(solver_dominance, "_skyline", skyline)
                answers.append(solver_sweeps._label_sweep_py(keys, int(lo[JOKER]), int(hi[JOKER]), ordered))
            assert answers[0] == answers[1] == answers[2], (k, ordered, table.tolist(), rack.tolist())
    assert dropped[0] >= 200


def test_compiled_skyline_stage_golden():
    """``kernel_skyline._skyline`` (run here uncompiled: numpy only) on the golden layer, and
    the kernel's joker rule: fewer jokers, at least ``jlo``, dominate too."""
    from rummy_env.core.rummikub_solver import kernel_skyline

    zero = (0, 0, 0)
    strong = code_of((0, 0, 3), (0, 0, 1), zero, zero)
    weak = code_of((1, 0, 0), zero, zero, zero)
    two_j = code_of((1, 0, 0), zero, zero, zero, jokers=2)
    apart = code_of(zero, (0, 1, 0), zero, zero)
    for jlo, want in ((0, {strong: 0b0011, weak: 0b0100, apart: 0b1000}), (1, None)):
        codes = np.array([weak, two_j, apart, strong], dtype=np.int64)
        labs = np.array([0b0111, 0b0110, 0b1000, 0b0011], dtype=np.int64)
        n = kernel_skyline._skyline(codes, labs, 4, jlo)
        got = dict(zip(codes[:n].tolist(), labs[:n].tolist(), strict=True))
        if want is not None:  # jlo 0: strong and weak (0 jokers) hold every token of two_j
            assert got == want
        else:  # jlo 1: 0 jokers is below jlo, so two_j keeps the tokens no 2-joker code holds
            assert got == {strong: 0b0011, weak: 0b0100, apart: 0b1000, two_j: 0b0110}


def test_compiled_skyline_stage_stops_checking_at_its_cap(monkeypatch):
    from rummy_env.core.rummikub_solver import kernel_skyline

    zero = (0, 0, 0)
    strong = code_of((0, 0, 3), (0, 0, 1), zero, zero)
    weak = code_of((1, 0, 0), zero, zero, zero)
    monkeypatch.setattr(kernel_skyline, "SKY_CAP", 1)  # only the strongest code is kept checked
    codes = np.array([weak, strong], dtype=np.int64)
    labs = np.array([0b0011, 0b0011], dtype=np.int64)
    assert kernel_skyline._skyline(codes, labs, 2, 0) == 2  # weak kept whole: not checked
    assert sorted(zip(codes.tolist(), labs.tolist(), strict=True)) == sorted([(strong, 0b0011), (weak, 0b0011)])
    monkeypatch.setattr(kernel_skyline, "SKY_CAP", 2)
    codes = np.array([weak, strong], dtype=np.int64)
    assert kernel_skyline._skyline(codes, labs, 2, 0) == 1 and codes[0] == strong
