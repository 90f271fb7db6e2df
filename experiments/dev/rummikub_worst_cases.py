"""Worst cases of the Rummikub solver: kept positions, a search for new ones, and their timings.

Used by ``python -m experiments.dev.bench_rummikub_solver --worst`` (and ``--search N`` to look
for slower positions).  A position is a valid table (it splits into melds, as every table
a game reaches does) and a rack drawn from the tiles the table leaves; racks go up to what
a player can hold (14 dealt plus every tile drawn).  Each position is timed in every
option combination the env has:

* after the initial meld (R-RK-08);
* before it, rack only (R-RK-07, ``initial_meld_table_play=False``);
* before it with table play (R-RK-07, ``initial_meld_table_play=True``);

and, in each, what the env computes at a step: ``ordered_extension_mask`` and
``is_legal_play`` at every step of a play built tile by tile (the lowest allowed tile
each time, then the highest: two walks), ``extension_mask`` with nothing chosen, and
``best_play`` for both objectives (the heuristic agent's call).  Every call starts from
empty memo caches; the time kept is the fastest of ``repeat`` runs (this filters out the
other processes of a shared machine, it does not hide the solver's own cost).

``climb`` looks for slow positions by hill-climbing on time: from a start position it
tries one small change at a time (a tile moved between table and rack, a tile added to or
taken from the rack, a joker moved) and keeps a change when the position's cost (the
slowest first-step call in any option, relative to its target: ``first_step_cost``) grows.
The table always stays a valid one (it splits into melds).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from rummy_env.core.tiles import JOKER, NUM_TILE_TYPES, counts_str, parse_counts

#: Targets of issue 16 in milliseconds, with numba (pure Python: 20x these).
TARGET_MS = {"ordered_mask": 50.0, "mask": 50.0, "is_legal_play": 50.0, "best_play": 250.0}

OPTIONS = {
    "after meld": (True, 30, False),
    "before, rack only": (False, 30, False),
    "before, table play": (False, 30, True),
}


def _full_table_minus(rack: str, jokers_on_table: int) -> tuple[str, str]:
    table = np.zeros(NUM_TILE_TYPES, dtype=np.int64)
    table[:JOKER] = 2
    table -= parse_counts(rack)
    table[JOKER] = jokers_on_table
    return counts_str(table), rack


#: Kept worst cases: (name, table, rack).  The first three are issue 16's measured cases;
#: the others came out of ``search`` (seeded) or were built by hand to stress one part.
KEPT: list[tuple[str, str, str]] = [
    ("issue: 104 tiles, rack JK JK", *_full_table_minus("JK JK", 0)),
    ("issue: 104-5 + 2 JK, rack R1 B2 K3 Y7 Y13", *_full_table_minus("R1 B2 K3 Y7 Y13", 2)),
    ("104-5 + 2 JK, rack R10 R11 R12 B2 K3", *_full_table_minus("R10 R11 R12 B2 K3", 2)),
    ("104-5 + 1 JK, rack R10 R11 R12 B2 K3 JK", *_full_table_minus("R10 R11 R12 B2 K3 JK", 1)),
    ("104-5, rack R10 R11 R12 B2 K3 JK JK", *_full_table_minus("R10 R11 R12 B2 K3 JK JK", 0)),
    ("104-13, rack four low runs + JK JK", *_full_table_minus("R1 R2 R3 B1 B2 B3 K1 K2 K3 Y1 Y2 Y3 R4 JK JK", 0)),
    ("104-8 + 2 JK, rack two 12-groups", *_full_table_minus("R12 B12 K12 Y12 R11 B11 K11 Y11", 2)),
    # found by ``climb`` (``--worst --climb 8 --seed 3``) from the two cases above them
    (
        "climbed: 104-14 + JK, rack three low runs + R4 JK",
        *_full_table_minus("R1 R2 R3 R4 B1 B2 B3 K1 K2 K3 Y1 Y2 Y3 JK", 1),
    ),
    ("climbed: 104-7 + JK, rack R3 R10 R11 R12 B2 K3 Y4 JK", *_full_table_minus("R3 R10 R11 R12 B2 K3 Y4 JK", 1)),
    # a 52-tile table and a 43-tile rack from ``climb``: one ordered bit needs the product sweep
    (
        "climbed: 52-tile table, 43-tile rack",
        "R3 R4 R5 R5 R6 R7 R8 R8 R9 R10 R10 R11 R11 R12 R12 B3 B5 B6 B6 B7 B8 B9 B10 B10 B11 B11 K5 K6 K6 K7 K7 "
        "K8 K8 K9 K10 K10 K11 Y1 Y2 Y2 Y3 Y3 Y4 Y5 Y5 Y8 Y8 Y10 Y11 Y12 JK JK",
        "R1 R2 R3 R4 R6 R7 R9 R13 R13 B1 B2 B2 B3 B4 B4 B7 B9 B12 B12 B13 B13 K1 K1 K2 K2 K3 K4 K4 K9 K11 K12 "
        "K12 K13 Y1 Y4 Y6 Y7 Y9 Y10 Y11 Y12 Y13 Y13",
    ),
    # found by ``--worst --first-step --climb 6 --seed 5`` from the two "climbed" cases above:
    # both jokers on the table, the rack without them (ordered mask after the meld in one
    # pass), and the 52-tile table with both jokers, where one ordered bit with table play
    # needs the pure-Python product sweep
    (
        "climbed: 104-13 + 2 JK, rack three low runs + R4",
        *_full_table_minus("R1 R2 R3 R4 B1 B2 B3 K1 K2 K3 Y1 Y2 Y3", 2),
    ),
    (
        "climbed: 53-tile table with both jokers, 42-tile rack",
        "R3 R4 R5 R5 R6 R7 R8 R8 R9 R10 R10 R11 R11 R12 R12 B3 B5 B6 B6 B7 B8 B9 B10 B10 B11 B11 K5 K6 K6 K7 K7 "
        "K8 K8 K9 K10 K10 K11 K11 Y1 Y2 Y2 Y3 Y3 Y4 Y5 Y8 Y8 Y9 Y10 Y11 Y12 JK JK",
        "R1 R2 R3 R4 R6 R7 R9 R13 R13 B1 B2 B2 B3 B4 B4 B7 B9 B12 B12 B13 B13 K1 K1 K2 K2 K3 K4 K4 K9 K12 K12 "
        "K13 Y1 Y4 Y5 Y6 Y7 Y10 Y11 Y12 Y13 Y13",
    ),
    # the slowest of ``--worst --search 15 --seed 3`` (table play, ordered mask): a 54-tile
    # table with a joker and a 44-tile rack with the other
    (
        "searched: 54-tile table, 44-tile rack",
        "R1 R2 R5 R6 R7 R7 R8 R8 R9 R9 R10 R10 R11 R11 R12 R12 R13 R13 B1 B2 B6 B7 B7 B8 B8 B9 B9 B10 B10 B11 "
        "B11 B12 B13 B13 K1 K2 K4 K5 K6 K7 K7 K8 K9 K10 K10 K11 K12 K13 K13 Y1 Y2 Y7 Y12 JK",
        "R1 R3 R3 R4 R5 R6 B1 B2 B3 B3 B4 B4 B5 B5 B6 B12 K1 K2 K3 K4 K5 K6 K8 K11 K12 Y1 Y3 Y4 Y5 Y5 Y6 Y7 "
        "Y8 Y8 Y9 Y9 Y10 Y10 Y11 Y11 Y12 Y13 Y13 JK",
    ),
    # the slowest new position of ``--worst --first-step --climb 6 --seed 5`` after the compiled
    # product sweep and the mirrored ordered sweep (from its third random start): a 72-tile
    # table with both jokers and a 28-tile rack of mostly low tiles
    (
        "climbed: 72-tile table with both jokers, 28-tile rack",
        "R1 R2 R2 R3 R3 R4 R4 R5 R5 R6 R6 R7 R7 R8 R8 R9 R9 R10 R10 R12 R12 R13 R13 B1 B2 B5 B6 B6 B7 B8 B8 B9 "
        "B9 B10 B10 B12 B12 B13 B13 K1 K1 K2 K3 K3 K5 K6 K6 K7 K8 K8 K9 K10 K11 K12 K12 K13 K13 Y1 Y2 Y6 Y7 Y8 "
        "Y8 Y9 Y9 Y10 Y10 Y12 Y12 Y13 JK JK",
        "R1 R11 R11 B1 B2 B3 B3 B4 B4 B5 B7 B11 B11 K2 K4 K4 K5 K7 K9 K11 Y1 Y3 Y3 Y4 Y4 Y5 Y5 Y7",
    ),
    # the slowest of ``--worst --first-step --climb 6 --seed 6`` on the same code (from its third
    # random start): the ordered masks after the meld and with table play, one mirrored sweep each
    (
        "climbed: 58-tile table with both jokers, 45-tile rack",
        "R1 R6 R7 R8 R9 R9 R11 R12 R12 R13 B1 B5 B6 B7 B8 B8 B9 B9 B10 B10 B11 B11 B12 B12 B13 K1 K2 K3 K4 K5 "
        "K6 K7 K7 K8 K8 K9 K9 K10 K11 K12 K12 Y1 Y1 Y2 Y3 Y4 Y5 Y5 Y6 Y6 Y7 Y7 Y8 Y9 Y9 Y12 JK JK",
        "R1 R2 R2 R3 R4 R4 R5 R5 R6 R7 R8 R10 R10 R11 R13 B1 B2 B2 B3 B4 B4 B5 B6 B7 B13 K1 K2 K3 K4 K5 K6 "
        "K10 K11 K13 Y2 Y3 Y4 Y8 Y10 Y10 Y11 Y11 Y12 Y13 Y13",
    ),
]


def kept_positions() -> list[tuple[str, np.ndarray, np.ndarray]]:
    """The kept worst cases as (name, table counts, rack counts), int64 shape (53,)."""
    return [(name, parse_counts(t), parse_counts(r)) for name, t, r in KEPT]


def random_position(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """One position of the search: dense tables, jokers, duplicates or long racks."""
    from experiments.dev.rummikub_oracle import random_rack, random_table
    from rummy_env.core.rummikub_solver import can_partition

    kind = rng.integers(4)
    if kind == 0:  # dense table, short rack, jokers anywhere
        table = random_table(rng, int(rng.integers(70, 100)), joker_p=float(rng.choice([0.1, 0.3])))
        rack = random_rack(rng, table, int(rng.integers(3, 15)))
    elif kind == 1:  # long rack on a middling table
        table = random_table(rng, int(rng.integers(20, 60)), joker_p=0.1)
        rack = random_rack(rng, table, int(rng.integers(25, 50)))
    elif kind == 2:  # the whole set minus a rack, the jokers split between table and rack
        while True:
            table = np.zeros(NUM_TILE_TYPES, dtype=np.int64)
            table[:JOKER] = 2
            rack = np.zeros(NUM_TILE_TYPES, dtype=np.int64)
            for t in rng.choice(JOKER, size=int(rng.integers(2, 12)), replace=True):
                if table[t]:
                    table[t] -= 1
                    rack[t] += 1
            jr = int(rng.integers(3))
            rack[JOKER], table[JOKER] = jr, int(rng.integers(3 - jr))
            if can_partition(table):
                break
    else:  # duplicates: both copies of many tiles in the rack
        table = random_table(rng, int(rng.integers(30, 70)), joker_p=0.15)
        rack = random_rack(rng, table, int(rng.integers(10, 30)))
        rack = np.minimum(2 - table, rack * 2)
    if rng.random() < 0.5:  # both jokers in play as often as a game allows
        free = 2 - int(table[JOKER]) - int(rack[JOKER])
        rack[JOKER] += free
    return table, rack


def warm_up() -> None:
    """Compile (or load from numba's disk cache) every kernel before anything is timed."""
    from rummy_env.core import rummikub_solver as solver
    from rummy_env.core.rummikub_solver.kernel_product import _product_kernel

    table, rack = parse_counts("R1 R2 R3"), parse_counts("R4 B5 K5 Y5 JK")
    zero = np.zeros(NUM_TILE_TYPES, dtype=np.int64)
    for done, points, table_play in OPTIONS.values():
        solver.ordered_extension_mask(table, rack, zero, done, points, table_play)
        solver.best_play(table, rack, done, "points", points, table_play)
    product = _product_kernel()  # the product sweep of table play runs only where no witness does
    if product:
        for ordered in (False, True):
            product(table, rack, zero, 10, ordered)


#: The clock of ``best_time``: wall time by default; ``time.thread_time`` (the calling
#: thread's CPU time, set by the benchmark's ``--clock thread``) leaves out the time other
#: processes hold the core, for a machine shared with other jobs.
CLOCK: Callable[[], float] = time.perf_counter


def best_time(repeat: int, call: Callable[[], object]) -> float:
    """Fastest of ``repeat`` timings (seconds) of ``call()``, the solver's caches emptied before each."""
    from rummy_env.core import rummikub_solver as solver

    best = float("inf")
    for _ in range(max(repeat, 1)):
        solver.clear_caches()
        t0 = CLOCK()
        call()
        best = min(best, CLOCK() - t0)
    return best


def time_position(table: np.ndarray, rack: np.ndarray, repeat: int = 1) -> dict[tuple[str, str], float]:
    """Slowest time (seconds) of each (option name, operation) on one position."""
    from rummy_env.core import rummikub_solver as solver

    out: dict[tuple[str, str], float] = {}

    def keep(opt: str, op: str, dt: float) -> None:
        out[(opt, op)] = max(out.get((opt, op), 0.0), dt)

    zero = np.zeros(NUM_TILE_TYPES, dtype=np.int64)
    for opt, args in OPTIONS.items():
        keep(opt, "mask", best_time(repeat, lambda a=args: solver.extension_mask(table, rack, zero, *a)))
        for pick in (0, -1):  # lowest allowed tile each time, then highest
            chosen = zero.copy()
            for _ in range(int(rack.sum()) + 1):
                dt = best_time(repeat, lambda c=chosen, a=args: solver.ordered_extension_mask(table, rack, c, *a))
                keep(opt, "ordered_mask", dt)
                dt = best_time(repeat, lambda c=chosen, a=args: solver.is_legal_play(table, rack, c, *a))
                keep(opt, "is_legal_play", dt)
                allowed = np.flatnonzero(solver.ordered_extension_mask(table, rack, chosen, *args))
                if allowed.size == 0:
                    break
                chosen = chosen.copy()
                chosen[allowed[pick]] += 1
        done, points, table_play = args
        for objective in ("points", "tiles"):
            dt = best_time(1, lambda o=objective, a=args: solver.best_play(table, rack, a[0], o, a[1], a[2]))
            keep(opt, "best_play", dt)
    return out


def time_first_step(table: np.ndarray, rack: np.ndarray, repeat: int = 1) -> dict[tuple[str, str], float]:
    """Time (seconds) of each (option name, operation) at a turn's first step.

    The calls: ``ordered_extension_mask`` and ``extension_mask`` with nothing chosen,
    ``is_legal_play`` of the whole rack, ``best_play`` (points), in every option of ``OPTIONS``.
    """
    from rummy_env.core import rummikub_solver as solver

    zero = np.zeros(NUM_TILE_TYPES, dtype=np.int64)
    out: dict[tuple[str, str], float] = {}
    for opt, (done, points, table_play) in OPTIONS.items():
        a = (done, points, table_play)
        calls = {
            "ordered_mask": lambda a=a: solver.ordered_extension_mask(table, rack, zero, *a),
            "mask": lambda a=a: solver.extension_mask(table, rack, zero, *a),
            "is_legal_play": lambda a=a: solver.is_legal_play(table, rack, rack, *a),
            "best_play": lambda a=a: solver.best_play(table, rack, a[0], "points", a[1], a[2]),
        }
        for op, call in calls.items():
            out[(opt, op)] = best_time(repeat, call)
    return out


def first_step_cost(table: np.ndarray, rack: np.ndarray, repeat: int = 1) -> tuple[float, str, str]:
    """The slowest call at a turn's first step (``time_first_step``), relative to its
    target: (time / target, option, operation)."""
    worst = (0.0, "", "")
    for (opt, op), dt in time_first_step(table, rack, repeat).items():
        ratio = dt * 1000 / TARGET_MS[op]
        if ratio > worst[0]:
            worst = (ratio, opt, op)
    return worst


def mutate(rng: np.random.Generator, table: np.ndarray, rack: np.ndarray, max_rack: int = 60):
    """One small change of a position (copies): a tile moved between table and rack, a free
    tile added to the rack, a rack tile dropped, or a joker moved; the table stays valid."""
    from rummy_env.core.rummikub_solver import can_partition

    for _ in range(50):
        t2, r2 = table.copy(), rack.copy()
        kind = int(rng.integers(5))
        free = np.flatnonzero(t2 + r2 < 2)
        if kind == 0 and t2.any():  # table -> rack
            t = int(rng.choice(np.flatnonzero(t2)))
            t2[t] -= 1
            r2[t] += 1
        elif kind == 1 and r2.any():  # rack -> table
            t = int(rng.choice(np.flatnonzero(r2)))
            r2[t] -= 1
            t2[t] += 1
        elif kind == 2 and free.size and r2.sum() < max_rack:  # draw a tile
            r2[int(rng.choice(free))] += 1
        elif kind == 3 and r2.sum() > 1:  # drop a rack tile
            r2[int(rng.choice(np.flatnonzero(r2)))] -= 1
        elif kind == 4:  # a joker between table, rack and the pool
            where = int(rng.integers(3))
            if t2[JOKER] + r2[JOKER] < 2 and where:
                (t2 if where == 1 else r2)[JOKER] += 1
            elif r2[JOKER]:
                r2[JOKER] -= 1
                if where == 1:
                    t2[JOKER] += 1
            elif t2[JOKER]:
                t2[JOKER] -= 1
        else:
            continue
        if np.array_equal(t2, table):
            if not np.array_equal(r2, rack):
                return t2, r2
        elif can_partition(t2):
            return t2, r2
    return table.copy(), rack.copy()


def climb(
    steps: int, seed: int, start: tuple[np.ndarray, np.ndarray] | None = None, repeat: int = 1
) -> tuple[float, str, str, np.ndarray, np.ndarray]:
    """Hill-climb ``steps`` changes from ``start`` (or a random dense position); returns the
    slowest position found as (cost, option, operation, table, rack), cost as in ``first_step_cost``."""
    warm_up()
    rng = np.random.default_rng(seed)
    table, rack = start if start is not None else random_position(rng)
    best = (*first_step_cost(table, rack, repeat), table, rack)
    for _ in range(steps):
        t2, r2 = mutate(rng, best[3], best[4])
        cost = first_step_cost(t2, r2, repeat)
        if cost[0] > best[0]:
            best = (*cost, t2, r2)
    return best


def search(n: int, seed: int, repeat: int = 1) -> list[tuple[float, str, str, str, str]]:
    """Time ``n`` random positions; returns (seconds, option, operation, table, rack) per
    (option, operation), the slowest position found for each, slowest first."""
    warm_up()
    rng = np.random.default_rng(seed)
    worst: dict[tuple[str, str], tuple[float, str, str]] = {}
    for _ in range(n):
        table, rack = random_position(rng)
        for key, dt in time_position(table, rack, repeat).items():
            if dt > worst.get(key, (0.0,))[0]:
                worst[key] = (dt, counts_str(table), counts_str(rack))
    rows = [(dt, opt, op, t, r) for (opt, op), (dt, t, r) in worst.items()]
    return sorted(rows, reverse=True)
