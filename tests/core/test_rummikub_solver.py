"""Rummikub solver: partition, legal-play mask, legal check and best play.

Checked three ways: golden cases citing the rules (R-RK-03/04/05/07/08), an independent
integer program over all melds (den Hertog & Hulshof's model, scipy.optimize.milp), and
brute force over every play of small racks (``test_rummikub_solver_bruteforce.py``).
Random positions come from seeded numpy generators, so every run checks the same cases.
"""

from __future__ import annotations

import numpy as np
import pytest

from experiments.dev import rummikub_oracle as oracle
from experiments.dev.rummikub_oracle import random_rack, random_table
from rummy_env.core.rummikub_solver import (
    best_play,
    can_partition,
    extension_mask,
    is_legal_play,
    is_valid_meld,
    meld_points,
    ordered_extension_mask,
    partition,
    partition_points,
    play_points,
)
from rummy_env.core.rummikub_solver import kernel as solver_kernel
from rummy_env.core.rummikub_solver import sweeps as solver_sweeps
from rummy_env.core.tiles import (
    JOKER,
    NUM_TILE_TYPES,
    parse_counts,
    parse_tile,
    parse_tiles,
)
from tests.helpers import whole

ZERO = np.zeros(NUM_TILE_TYPES, dtype=np.int64)


def C(text: str) -> np.ndarray:
    return parse_counts(text)


# ---------------------------------------------------------------------------------------
# An independent meld validator (does not use the solver's code)


def valid_meld(meld: list[int]) -> bool:
    """Group (R-RK-03) or run (R-RK-04) with jokers standing for missing tiles (R-RK-05)."""
    jokers = meld.count(JOKER)
    real = [t for t in meld if t != JOKER]
    n = len(meld)
    if n < 3 or not real:
        return False
    colours = [t // 13 for t in real]
    numbers = [t % 13 + 1 for t in real]
    group = n <= 4 and len(set(numbers)) == 1 and len(set(colours)) == len(colours)
    if group:
        return True
    if len(set(colours)) != 1 or len(set(numbers)) != len(numbers) or n > 13:
        return False
    span = max(numbers) - min(numbers) + 1
    # gaps filled by jokers, the rest of the jokers extend the run within 1..13
    return span <= n and span - len(numbers) <= jokers


def assert_certificate(counts: np.ndarray, melds: list[list[int]]) -> None:
    assert all(valid_meld(m) for m in melds), melds
    used = np.bincount([t for m in melds for t in m], minlength=NUM_TILE_TYPES)
    assert np.array_equal(used, counts)


# ---------------------------------------------------------------------------------------
# Random positions


def random_multiset(rng: np.random.Generator, size: int, jokers: bool) -> np.ndarray:
    pool = [t for t in range(NUM_TILE_TYPES - (0 if jokers else 1)) for _ in range(2)]
    pick = rng.choice(len(pool), size=size, replace=False)
    return np.bincount([pool[k] for k in pick], minlength=NUM_TILE_TYPES).astype(np.int64)


def perturbed_table(rng: np.random.Generator, size: int) -> np.ndarray:
    """A valid table with 0-2 tiles removed and 0-2 added: feasible or just not."""
    c = random_table(rng, size, joker_p=float(rng.choice([0.0, 0.15])))
    for _ in range(int(rng.integers(3))):
        nz = np.flatnonzero(c)
        if nz.size:
            c[rng.choice(nz)] -= 1
    for _ in range(int(rng.integers(3))):
        room = np.flatnonzero(c < 2)
        c[rng.choice(room)] += 1
    return c


# ---------------------------------------------------------------------------------------
# Golden partition cases


@pytest.mark.parametrize(
    "text, ok",
    [
        ("", True),
        ("R1 R2 R3", True),  # R-RK-04 shortest run
        ("R5 B5 K5", True),  # R-RK-03 group of 3
        ("R5 B5 K5 Y5", True),  # R-RK-03 group of 4
        ("R5 B5 R5", False),  # R-RK-03: repeated colour
        ("R5 B5 K5 Y5 R5", False),  # R-RK-03: a fifth tile repeats a colour
        ("R12 R13 R1", False),  # R-RK-04: 1 is always low, no wrap
        ("R1 R2", False),  # too short
        ("R1 B2 K3", False),  # neither run nor group
        ("R1 R2 R3 R1 R2 R3", True),  # R-RK-05: two identical runs
        ("R5 B5 K5 R5 B5 K5", True),  # R-RK-05: two identical groups
        ("R5 B5 JK", True),  # R-RK-05 joker in a group
        ("R5 JK R7", True),  # R-RK-05 joker inside a run
        ("JK JK R13", True),  # two jokers with one tile
        ("R1 B1 K1 Y1 JK", False),  # a 4-group has no room for a joker
        ("R1 B1 K1 Y1 JK JK", True),  # R1 B1 JK + K1 Y1 JK
        ("R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13", True),  # 13-run
        ("R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13 JK", True),  # split 13 + joker
        ("JK", False),
        ("JK JK", False),
        ("R1 R3 R5 JK JK", True),  # R1 JK R3 JK R5
        ("R1 R4 JK JK", True),  # R1 JK JK R4
        ("R1 R5 JK JK", False),  # gap of 3
    ],
)
def test_partition_golden(text, ok):
    counts = C(text)
    assert can_partition(counts) is ok
    melds = partition(counts)
    assert (melds is not None) is ok
    if ok:
        assert_certificate(counts, melds)


def test_full_pool_partitions():
    # all 106 tiles (R-RK-01): 8 runs of 13 cannot take a joker, a split can
    counts = np.full(NUM_TILE_TYPES, 2, dtype=np.int64)
    melds = partition(counts)
    assert melds is not None
    assert_certificate(counts, melds)
    assert partition_points(counts) == 8 * 91 + 2 * 13


def test_full_table_certificate():
    rng = np.random.default_rng(7)
    for _ in range(50):
        table = random_table(rng, 70, joker_p=0.2)
        melds = partition(table)
        assert melds is not None
        assert_certificate(table, melds)


def test_a_warm_cache_gives_the_same_certificates_as_a_cold_one():
    # partition reads the ordered moves through a cache (rummikub_solver.transitions): the
    # arrangement it returns must not depend on what earlier calls left there
    from rummy_env.core.rummikub_solver import clear_caches
    from rummy_env.core.rummikub_solver import transitions as solver_transitions

    rng = np.random.default_rng(12)
    tables = [random_table(rng, 45, joker_p=0.2) for _ in range(8)]
    cold = []
    for table in tables:
        clear_caches()
        cold.append(partition(table))
    warm = [partition(table) for table in reversed(tables)][::-1]
    assert warm == cold and sum(melds is not None for melds in cold) >= 4
    cached = list(solver_transitions._ORDERED_CACHE.data.items())
    assert len(cached) > 100
    for key, moves in cached[:300]:  # the cached moves are the computed ones, in their order
        assert moves == solver_transitions._product_in_order(*key)


def test_certificate_order_is_canonical():
    # sorted by lowest coloured tile id (R5 = 4 before K1 = 26); groups by colour R B K Y
    assert partition(C("Y5 B5 R5 K1 K2 K3")) == [
        parse_tiles("R5 B5 Y5"),
        parse_tiles("K1 K2 K3"),
    ]
    assert partition(C("R5 JK R7")) == [[parse_tile("R5"), JOKER, parse_tile("R7")]]


def test_partition_points_jokers_take_highest_value():
    # R-RK-07: R5 R6 JK may be R4 or R7: counts 18
    assert partition_points(C("R5 R6 JK")) == 18
    assert partition_points(C("R5 B5 JK")) == 15
    assert partition_points(C("JK JK R13")) == 39  # group of 13s beats R11 R12 R13
    assert partition_points(C("R12 R13 JK")) == 36  # JK must be R11
    assert partition_points(C("R5 B5 R5")) is None


def test_meld_helpers():
    assert is_valid_meld(parse_tiles("R5 JK R7"))
    assert not is_valid_meld(parse_tiles("R12 R13 R1"))
    assert meld_points(parse_tiles("R5 R6 JK")) == 18
    assert meld_points(parse_tiles("R5 B5 K5 JK")) == 20
    assert meld_points(parse_tiles("JK JK")) is None
    assert meld_points(np.array([4, 5, 52])) == 18 and meld_points((4, 5)) is None  # numpy ids; too short
    for bad, shown in [
        ([4, 5, 53], "53"), ([4, 5, -1], "-1"), ([4.0, 5.0, 6.0], "4.0"), ([True, 5, 6], "True"),
        (["R5", 5, 6], "'R5'"),
    ]:  # fmt: skip
        with pytest.raises(ValueError, match=rf"^meld .*: {shown} is not a tile type: tile types are ints 0..52$"):
            is_valid_meld(bad)
    for bad in ("abc", 5, None):
        with pytest.raises(ValueError, match=rf"^meld {bad!r} is not a sequence of tile types 0..52$"):
            meld_points(bad)


def test_input_errors():
    with pytest.raises(ValueError, match=r"^counts must be a tile count vector of shape \(53,\), got shape \(52,\)$"):
        can_partition(np.zeros(52, dtype=np.int64))
    bad = ZERO.copy()
    bad[0] = 3
    message = (
        "counts holds 3 tiles of type 0 (R1); counts are 0..2: two copies of each tile and two jokers exist (R-RK-01)"
    )
    with pytest.raises(ValueError, match=whole(message)):
        can_partition(bad)
    table = C("R1 R1")
    with pytest.raises(
        ValueError, match=whole("table and rack hold 3 tiles of type R1 together; each tile exists twice (R-RK-01)")
    ):
        extension_mask(table, C("R1"), ZERO, True)
    with pytest.raises(
        ValueError, match=whole("chosen holds 1 of B2 but the rack only 0; chosen must be a sub-multiset of the rack")
    ):
        extension_mask(ZERO, C("R1"), C("B2"), True)
    with pytest.raises(ValueError, match=whole("objective 'most' is not known: use 'points' or 'tiles'")):
        best_play(ZERO, C("R1"), True, objective="most")


# ---------------------------------------------------------------------------------------
# Golden plays


def test_initial_meld_threshold_with_joker():
    # R-RK-07: R10 R11 JK is worth 10 + 11 + 12 = 33 (joker as R12, the highest value)
    rack = C("R10 R11 JK B2")
    play = C("R10 R11 JK")
    assert is_legal_play(ZERO, rack, play, False, 30)
    assert not is_legal_play(ZERO, rack, play, False, 34)
    # exactly 30 with a joker: K9 K10 JK = 9 + 10 + 11
    rack = C("K9 K10 JK")
    assert is_legal_play(ZERO, rack, rack, False, 30)
    assert not is_legal_play(ZERO, rack, rack, False, 31)
    # 29 rejected: R8 B8 K8 = 24, Y2 Y3 JK = 2 + 3 + 4 = 9 -> 33; without the joker 24
    rack = C("R8 B8 K8 JK")
    assert is_legal_play(ZERO, rack, rack, False, 32)  # JK makes a 4-group: 32
    assert not is_legal_play(ZERO, rack, rack, False, 33)
    rack = C("R9 B9 K2 Y2 B2")
    assert not is_legal_play(ZERO, rack, C("K2 Y2 B2"), False, 30)  # 6 points


def test_initial_meld_29_rejected_30_accepted():
    # R-RK-07: exactly 30 with a joker is accepted: R9 R10 JK (JK = R11) = 30
    rack = C("R9 R10 JK B1 B2")
    assert is_legal_play(ZERO, rack, C("R9 R10 JK"), False)
    assert list(np.flatnonzero(extension_mask(ZERO, rack, ZERO, False))) == parse_tiles("R9 R10 JK")
    # 29 with a joker is rejected: R2 R3 JK (JK = R4) = 9 and R5 B5 K5 Y5 = 20
    rack = C("R2 R3 JK R5 B5 K5 Y5")
    assert not is_legal_play(ZERO, rack, rack, False)
    assert not extension_mask(ZERO, rack, ZERO, False).any()
    assert is_legal_play(ZERO, rack, rack, False, initial_meld_points=29)
    # without jokers: 30 accepted, 27 rejected, two melds may add up
    rack = C("R9 R10 R11 B1")
    assert list(np.flatnonzero(extension_mask(ZERO, rack, ZERO, False))) == parse_tiles("R9 R10 R11")
    rack = C("R8 R9 R10 B1 B2")  # 27
    assert not extension_mask(ZERO, rack, ZERO, False).any()
    rack = C("R8 R9 R10 B1 B2 B3")  # 27 + 6 = 33 in two melds
    assert list(np.flatnonzero(extension_mask(ZERO, rack, ZERO, False))) == parse_tiles("R8 R9 R10 B1 B2 B3")
    # and once R8 is chosen only tiles of some 30-point play stay legal
    mask = extension_mask(ZERO, rack, C("R8"), False)
    assert list(np.flatnonzero(mask)) == parse_tiles("R9 R10 B1 B2 B3")


def test_play_after_initial_meld():
    table = C("R3 R4 R5 B7 K7 Y7")
    rack = C("R6 R7 B1")
    # R-RK-08: R6 extends the run, R7 forms R3..R7 or joins the group of 7s with R6...
    mask = extension_mask(table, rack, ZERO, True)
    assert list(np.flatnonzero(mask)) == parse_tiles("R6 R7")
    assert is_legal_play(table, rack, C("R7"), True)  # R7 joins B7 K7 Y7
    assert not is_legal_play(table, rack, C("B1"), True)
    assert not is_legal_play(table, rack, ZERO, True)  # at least one tile
    assert not is_legal_play(table, rack, C("R8"), True)  # not on the rack
    # chosen R6: R7 still extends (R3..R7), B1 does not
    assert list(np.flatnonzero(extension_mask(table, rack, C("R6"), True))) == parse_tiles("R7")


def test_ordered_mask_golden():
    # plays are built in non-decreasing type order (R1..R13, B1..B13, K.., Y.., JK)
    table = ZERO
    rack = C("R3 R4 R5 B4 K4 B9")
    # unordered: every tile of R3 R4 R5 and of R4 B4 K4 can be added
    assert list(np.flatnonzero(extension_mask(table, rack, ZERO, True))) == parse_tiles("R3 R4 R5 B4 K4")
    # ordered: R3 starts R3 R4 R5, R4 starts R4 B4 K4; B4 or K4 first cannot be completed
    # because R4 (a lower type) would have to follow
    assert list(np.flatnonzero(ordered_extension_mask(table, rack, ZERO, True))) == parse_tiles("R3 R4")
    # after R4: R5 would need R3 (closed), B4 completes R4 B4 K4
    got = ordered_extension_mask(table, rack, C("R4"), True)
    assert list(np.flatnonzero(got)) == parse_tiles("B4")
    assert list(np.flatnonzero(ordered_extension_mask(table, rack, C("R3 R4"), True))) == [parse_tile("R5")]
    # a joker is the highest type: it can only come last (R4 JK alone is no meld)
    rack = C("R3 R4 JK")
    assert list(np.flatnonzero(ordered_extension_mask(ZERO, rack, ZERO, True))) == [parse_tile("R3")]
    assert list(np.flatnonzero(ordered_extension_mask(ZERO, rack, C("R3 R4"), True))) == [JOKER]


def test_ordered_mask_pure_python_matches_kernel():
    rng = np.random.default_rng(12)
    kernel = solver_kernel._kernel()
    assert kernel, "the compiled sweep is missing: the test extra installs numba (the fast extra)"
    for _ in range(30):
        table = random_table(rng, int(rng.integers(20, 50)), joker_p=0.15)
        rack = random_rack(rng, table, int(rng.integers(6, 15)))
        lo, hi = table.copy(), table + rack
        keys = solver_sweeps._cell_keys(lo, hi)
        py = solver_sweeps._label_sweep_py(keys, int(lo[JOKER]), int(hi[JOKER]), True)
        assert kernel(lo, hi, True) == py


def test_rearranging_the_table():
    # R-RK-08: R5 R6 R7 and B5 K5 Y5 on the table; playing R5 splits nothing but
    # R5 + (B5 K5 Y5) regroups as R5 B5 K5 Y5
    table = C("R5 R6 R7 B5 K5 Y5")
    rack = C("R5 R8")
    assert is_legal_play(table, rack, C("R5"), True)
    assert is_legal_play(table, rack, C("R8"), True)
    # a joker on the table can be freed: R2 R3 JK + rack R4 R5 -> R2 R3 R4 R5 + ...
    table = C("R2 R3 JK")
    assert is_legal_play(table, C("R4"), C("R4"), True)  # R2 R3 R4 JK
    assert not is_legal_play(table, C("B9"), C("B9"), True)


def test_table_play_option():
    # R-RK-07 with initial_meld_table_play=True: after 30+ of own melds, lay off R6
    table = C("R3 R4 R5")
    rack = C("B10 K10 Y10 R6")
    play = C("B10 K10 Y10 R6")
    assert not is_legal_play(table, rack, play, False, 30, False)
    assert is_legal_play(table, rack, play, False, 30, True)
    assert is_legal_play(table, rack, C("B10 K10 Y10"), False, 30, True)
    assert not is_legal_play(table, rack, C("R6"), False, 30, True)
    mask = extension_mask(table, rack, ZERO, False, 30, True)
    assert list(np.flatnonzero(mask)) == parse_tiles("R6 B10 K10 Y10")
    assert list(np.flatnonzero(extension_mask(table, rack, ZERO, False, 30, False))) == parse_tiles("B10 K10 Y10")


def test_best_play_golden():
    table = C("R3 R4 R5")
    rack = C("R6 R7 B9 K9 Y9 Y1")
    p = best_play(table, rack, True, "points")
    assert np.array_equal(p, C("R6 R7 B9 K9 Y9"))
    assert play_points(table, p) == 6 + 7 + 27
    # before the initial meld only the group (27 points) is there: not enough for 30
    assert not best_play(table, rack, False, "points").any()
    assert np.array_equal(best_play(table, rack, False, "points", initial_meld_points=20), C("B9 K9 Y9"))
    # tiles objective with a joker: R1 R2 JK (3 tiles, 6 points) vs B13 K13 Y13
    rack = C("R1 R2 JK B13 K13 Y13")
    assert np.array_equal(best_play(ZERO, rack, True, "tiles"), rack)
    assert best_play(ZERO, C("B1 K2"), True).sum() == 0


# ---------------------------------------------------------------------------------------
# Integer-programming oracle (scipy)


def test_can_partition_matches_milp():
    rng = np.random.default_rng(2024)
    cases = []
    for k in range(1800):  # tables of 6-30 tiles, a few tiles removed or added
        cases.append(perturbed_table(rng, int(rng.integers(6, 31))))
        if k % 3 == 0:  # and some without jokers at all
            cases[-1][JOKER] = 0
    for _ in range(8):  # full tables (the ILP needs about a second for each)
        cases.append(random_table(rng, int(rng.integers(40, 60)), joker_p=0.15))
    feasible = jokers = 0
    for counts in cases:
        got = can_partition(counts)
        assert got == oracle.milp_can_partition(counts), counts.tolist()
        feasible += got
        jokers += bool(counts[JOKER])
    assert 300 < feasible < len(cases) - 300  # both answers well represented
    assert 300 < jokers < len(cases) - 300


def test_best_play_matches_milp():
    rng = np.random.default_rng(99)
    compared = 0
    for k in range(240):
        table = random_table(rng, int(rng.integers(0, 25)), joker_p=0.15)
        rack = random_rack(rng, table, int(rng.integers(2, 13)))
        done = k % 3 != 0
        table_play = k % 6 == 3
        threshold = int(rng.choice([30, 30, 10, 20]))
        objective = "points" if k % 2 else "tiles"
        play = best_play(table, rack, done, objective, threshold, table_play)
        ref = oracle.milp_best_value(table, rack, done, objective, threshold, table_play)
        if ref is None:
            assert play.sum() == 0
            continue
        assert is_legal_play(table, rack, play, done, threshold, table_play)
        on = table if (done or table_play) else ZERO
        assert (int(play.sum()), play_points(on, play)) == ref
        compared += 1
    assert compared > 120


def test_mask_is_memoised_and_copied():
    table, rack = C("R3 R4 R5"), C("R6 B1")
    m1 = extension_mask(table, rack, ZERO, True)
    m1[:] = True
    m2 = extension_mask(table, rack, ZERO, True)
    assert list(np.flatnonzero(m2)) == [parse_tile("R6")]
    assert m2.dtype == bool and m2.shape == (53,)
