"""The relaxed sweep for table jokers (``vector.rummikub_jokers``): its forced-run test, its
restricted joker moves, and the exact masks of scripted positions that take it, in both
sweep directions, against hand-derived answers and the solver's public functions.

The rules behind the answers: a group is 3 or 4 tiles of one number in different colours
(R-RK-03), a run 3 to 13 consecutive tiles of one colour with 1 always low (R-RK-04), a
joker stands for any tile that makes its meld valid (R-RK-05), and after the initial meld
the table may be rearranged freely as long as every meld is valid at the end of the turn
(R-RK-08): the masks are the tiles that can still extend a legal play."""

import numpy as np
import pytest

from rummy_env.core.rummikub_solver import is_legal_play, ordered_extension_mask
from rummy_env.core.rummikub_solver.tables import _CINDEX, _CSTATES, _colour_moves
from rummy_env.core.tiles import parse_tile
from rummy_env.games.rummikub import COMMIT, DRAW
from rummy_env.vector.rummikub_jokers import joker_tables, run_forced
from rummy_env.vector.rummikub_masks import masks_kernel


def counts(text):
    return np.bincount([parse_tile(t) for t in text.split()], minlength=53).astype(np.int64)


@pytest.mark.parametrize(
    ("lo", "hi", "forced"),
    [
        ("R1 R2 R3 JK B5 K5", "R1 R2 R3 JK B5 K5 R4 R5 B1 Y13", True),  # R2 alone at 2
        ("R5 B5 K5 R7 B7 K7", "R5 B5 K5 R7 B7 K7", False),  # both numbers are groups
        ("R5 B5 JK", "R5 B5 JK", False),  # R5 B5 + the joker: a group
        ("R5 B5 R8 B8 JK", "R5 B5 R8 B8 JK", True),  # two groups would need two jokers
        ("R5 B5 R8 B8 K8 JK", "R5 B5 R8 B8 K8 JK", False),  # R5 B5 JK and R8 B8 K8
        ("R5 B5", "R5 B5", True),  # two colours, no joker: not a group
        ("R1", "R1 B1 K1", False),  # the play may add B1 and K1: a group
        ("R1", "R1 B1", True),  # at most R1 B1 at 1
        ("JK R12 R13", "JK R12 R13 K2 K3 K4 B7", True),  # R12 alone at 12
    ],
)
def test_a_run_is_forced_when_the_numbers_cannot_all_be_groups_with_the_jokers(lo, hi, forced):
    # R-RK-03/05: each number's tiles go to groups of 3-4 colours, jokers filling the gaps
    gj_min = joker_tables()[2]
    assert run_forced(counts(lo), counts(hi), gj_min) is forced


def test_the_restricted_moves_start_no_run_with_a_joker():
    # no open run, one joker, 0..1 real tiles: the joker may start a run (1 run of 1) only
    # in the full table; continuing an open 3+ run with a joker stays in both
    empty, long = _CINDEX[(0, 0, 0)], _CINDEX[(0, 0, 1)]
    full = _colour_moves(empty, 0, 1, 1, 2, 2)
    restricted = _colour_moves(empty, 0, 1, 1, 2, 2, False)
    assert [(g, k, _CSTATES[n], x) for g, k, n, x in full] == [
        (0, 0, (0, 0, 0), 0),
        (0, 0, (1, 0, 0), 1),
        (0, 1, (1, 0, 0), 0),
        (0, 1, (2, 0, 0), 1),
        (1, 0, (0, 0, 0), 1),
        (1, 1, (1, 0, 0), 1),
    ]
    assert [(g, k, _CSTATES[n], x) for g, k, n, x in restricted] == [
        (0, 0, (0, 0, 0), 0),
        (0, 0, (1, 0, 0), 1),
        (1, 0, (0, 0, 0), 1),
    ]
    assert _colour_moves(long, 0, 0, 1, 2, 2, False) == _colour_moves(long, 0, 0, 1, 2, 2)
    gstart, moves, gj_min, roff, split = joker_tables()
    assert split == 10  # numbers 1..10: a run starting with a joker there can move up
    # the solver's 20,898 moves, then the 20,606 restricted ones at keys roff further on
    assert gstart.size == 2 * roff and gstart[roff] == 20898 and moves.size == 20898 + 20606
    assert gj_min.tolist() == [1, 0, 4, 1, 1, 4, 0, 2, 1, 0, 2, 4, 1, 0, 0, 1, 2, 0, 0, 0, 1, 0, 0, 0, 0]


@pytest.mark.parametrize("down", [False, True])
@pytest.mark.parametrize(
    ("table", "rack", "chosen", "want"),
    [
        # the joker can only be R11 (a run starting with a joker at 11: kept by the upward
        # sweep's restricted layers 1..10); K2 K3 K4 is the only play, led by K2
        ("JK R12 R13", "K2 K3 K4 B7", "", ["K2", DRAW]),
        # the mirror image: the joker is R3, a run starting at 11 on the downward sweep
        ("R1 R2 JK", "K2 K3 K4 B7", "", ["K2", DRAW]),
        # R4 chosen (R1..R4, the joker with B5 K5): R5 follows (run or group), B1 and Y13
        # fit nowhere, commit is legal
        ("R1 R2 R3 JK B5 K5", "R4 R5 B1 Y13", "R4", ["R5", COMMIT]),
    ],
)
def test_scripted_table_joker_positions_get_their_exact_masks_in_both_directions(table, rack, chosen, want, down):
    masks_range, tables = masks_kernel()
    t, r = counts(table), counts(rack)
    c = counts(chosen) if chosen else np.zeros(53, np.int64)
    last = int(np.flatnonzero(c)[-1]) if chosen else -1
    hi = t + np.where(np.arange(53) < last, c, r)
    assert run_forced(t + c, hi, tables[11])  # the relaxed sweep's condition holds
    legal, fallback = np.zeros((1, 55), np.int8), np.zeros(1, np.bool_)
    dir_cost = np.array([[10, 5] if down else [5, 10]], np.int64)
    masks_range(
        0, 1, np.array([0]), np.stack([r, r])[None], t[None], c[None], np.array([last]), np.array([0]),
        np.ones((1, 2), np.bool_), 30, False, tables, legal, fallback, dir_cost,
    )  # fmt: skip
    ids = [parse_tile(x) if isinstance(x, str) else x for x in want]
    assert np.flatnonzero(legal[0]).tolist() == ids
    assert dir_cost[0, 0 if down else 1] == 10  # the other direction kept its cost: the one asked for ran
    assert np.array_equal(legal[0, :53], ordered_extension_mask(t, r, c, True).astype(np.int8))
    if chosen:
        assert bool(legal[0, COMMIT]) == is_legal_play(t, r, c, True)


def random_joker_table(rng):
    """A union of random valid melds (runs and groups, a joker standing in for a tile of
    some), tile counts at most 2, at least one joker."""
    table, jokers = np.zeros(53, np.int64), int(rng.integers(1, 3))
    for _ in range(int(rng.integers(1, 12))):
        if rng.random() < 0.5:
            c, a = rng.integers(4), rng.integers(0, 11)
            tiles = [c * 13 + a + i for i in range(int(rng.integers(3, 14 - a)))]
        else:
            v = rng.integers(13)
            tiles = [c * 13 + v for c in rng.choice(4, int(rng.integers(3, 5)), replace=False)]
        if jokers and rng.random() < 0.5:
            tiles[rng.integers(len(tiles))] = 52
            jokers -= 1
        more = table + np.bincount(tiles, minlength=53)
        if more[:52].max() <= 2 and more[52] <= 2:
            table = more
    return table


def test_random_table_joker_positions_get_the_solvers_masks_in_both_directions():
    # 60 random positions (tables of valid melds with jokers, racks of 1-8 tiles, half of
    # them with 1-3 tiles chosen): the masks equal ordered_extension_mask / is_legal_play
    masks_range, tables = masks_kernel()
    rng = np.random.default_rng(7)
    checked = relaxed = 0
    while checked < 60:
        table = random_joker_table(rng)
        if table[52] == 0:
            continue
        pool = np.repeat(np.arange(52), 2 - table[:52])
        rack = np.bincount(rng.choice(pool, int(rng.integers(1, 9)), replace=False), minlength=53).astype(np.int64)
        chosen, last = np.zeros(53, np.int64), -1
        if rng.random() < 0.5:
            types = np.flatnonzero(rack[:52])
            chosen[np.sort(rng.choice(types, int(rng.integers(1, min(3, types.size) + 1)), replace=False))] = 1
            last = int(np.flatnonzero(chosen)[-1])
        hi = table + np.where(np.arange(53) < last, chosen, rack)
        relaxed += bool(run_forced(table + chosen, hi, tables[11]))
        for cost in ([5, 10], [10, 5]):  # upward, downward
            legal, fallback = np.zeros((1, 55), np.int8), np.zeros(1, np.bool_)
            masks_range(
                0, 1, np.array([0]), np.stack([rack, rack])[None], table[None], chosen[None], np.array([last]),
                np.array([0]), np.ones((1, 2), np.bool_), 30, False, tables, legal, fallback, np.array([cost]),
            )  # fmt: skip
            assert np.array_equal(legal[0, :53], ordered_extension_mask(table, rack, chosen, True).astype(np.int8))
            assert legal[0, COMMIT] == (int(is_legal_play(table, rack, chosen, True)) if last >= 0 else 0)
            assert legal[0, DRAW] == int(last < 0)
        checked += 1
    assert relaxed == 57  # most of them take the relaxed sweep (a run is forced)
