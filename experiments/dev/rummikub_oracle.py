"""Slow, obviously-correct Rummikub solvers used as test and benchmark oracles (kept out of
``rummy_env.core``, which uses only numpy: the integer program needs scipy).

Nothing here is used by the environment.  Two independent references for
``rummikub_solver``:

* brute force: recursion over the melds that contain the lowest remaining coloured tile,
  memoised on the remaining count vector (fine up to ~30 tiles);
* integer programming: the model of den Hertog & Hulshof ("A dynamic programming approach
  to solving Rummikub") over every valid meld with its joker substitutions, solved with
  ``scipy.optimize.milp`` (scipy is imported lazily, only by the ``milp_*`` functions).

Melds follow R-RK-03 (group: 3-4 tiles of one number, distinct colours), R-RK-04 (run: 3-13
consecutive tiles of one colour, 1 always low) and R-RK-05 (a joker stands for any tile that
makes its meld valid).  A joker's points are the number of the tile it stands for; meld
points take the best placement of its jokers (R-RK-07).
"""

from __future__ import annotations

import itertools
from functools import lru_cache
from typing import NamedTuple

import numpy as np

from rummy_env.core.tiles import JOKER, NUM_COLOURS, NUM_NUMBERS, NUM_TILE_TYPES

MAX_JOKERS = 2


class OracleMeld(NamedTuple):
    """One meld with its jokers placed.

    Attributes:
        tiles: sorted tile types (jokers as 52).
        joker_numbers: sorted numbers the jokers stand for.
        points: sum of the numbers of all its tiles (jokers included).
    """

    tiles: tuple[int, ...]
    joker_numbers: tuple[int, ...]
    points: int


@lru_cache(maxsize=1)
def all_melds() -> tuple[OracleMeld, ...]:
    """Every valid meld with every placement of 0..2 jokers, deduplicated on
    (tiles, joker_numbers).  Built by direct enumeration of groups and runs."""
    seen: dict[tuple, OracleMeld] = {}
    for n in range(1, NUM_NUMBERS + 1):
        for size in range(1, NUM_COLOURS + 1):
            for cols in itertools.combinations(range(NUM_COLOURS), size):
                for jj in range(MAX_JOKERS + 1):
                    if 3 <= size + jj <= 4:
                        tiles = tuple(sorted([c * NUM_NUMBERS + n - 1 for c in cols] + [JOKER] * jj))
                        m = OracleMeld(tiles, (n,) * jj, n * (size + jj))
                        seen[(m.tiles, m.joker_numbers)] = m
    for c in range(NUM_COLOURS):
        for low in range(1, NUM_NUMBERS + 1):
            for length in range(3, NUM_NUMBERS - low + 2):
                numbers = list(range(low, low + length))
                for jj in range(min(MAX_JOKERS, length - 1) + 1):
                    for jpos in itertools.combinations(range(length), jj):
                        real = [c * NUM_NUMBERS + numbers[k] - 1 for k in range(length) if k not in jpos]
                        tiles = tuple(sorted(real + [JOKER] * jj))
                        jn = tuple(sorted(numbers[k] for k in jpos))
                        m = OracleMeld(tiles, jn, sum(numbers))
                        seen[(m.tiles, m.joker_numbers)] = m
    return tuple(seen.values())


@lru_cache(maxsize=1)
def _melds_by_tile() -> tuple[tuple[tuple[tuple[tuple[int, int], ...], int], ...], ...]:
    """For each coloured tile type t and joker count j (0..2): the melds holding t and
    exactly j jokers, as (sparse counts, points), keeping for each tile multiset only its
    highest points.  Index ``3 * t + j``."""
    best: dict[tuple[int, ...], int] = {}
    for m in all_melds():
        best[m.tiles] = max(best.get(m.tiles, -1), m.points)
    by_tile: list[list] = [[] for _ in range(3 * JOKER)]
    for tiles, pts in best.items():
        sparse = tuple(sorted((t, tiles.count(t)) for t in set(tiles)))
        for t in set(tiles):
            if t != JOKER:
                by_tile[3 * t + tiles.count(JOKER)].append((sparse, pts))
    return tuple(tuple(x) for x in by_tile)


def _search(counts: tuple[int, ...], memo: dict) -> tuple[int, tuple] | None:
    """(best points, melds) for an exact split of ``counts``, or None."""
    if counts in memo:
        return memo[counts]
    first = next((t for t in range(JOKER) if counts[t]), None)
    if first is None:
        res = (0, ()) if counts[JOKER] == 0 else None
        memo[counts] = res
        return res
    best = None
    candidates = _melds_by_tile()
    for jokers in range(min(counts[JOKER], MAX_JOKERS) + 1):
        for sparse, pts in candidates[3 * first + jokers]:
            if not all(counts[t] >= k for t, k in sparse):
                continue
            rest = list(counts)
            for t, k in sparse:
                rest[t] -= k
            sub = _search(tuple(rest), memo)
            if sub is not None and (best is None or pts + sub[0] > best[0]):
                meld = tuple(t for t, k in sparse for _ in range(k))
                best = (pts + sub[0], (meld, *sub[1]))
    memo[counts] = best
    return best


_MEMO: dict = {}


def _solve(counts) -> tuple[int, tuple] | None:
    if len(_MEMO) > 2_000_000:
        _MEMO.clear()
    return _search(tuple(int(x) for x in counts), _MEMO)


def partition_bruteforce(counts) -> list[list[int]] | None:
    """One split of the tiles (count vector, shape (53,)) into valid melds, or None."""
    res = _solve(counts)
    return None if res is None else [list(m) for m in res[1]]


def max_points_bruteforce(counts) -> int | None:
    """Highest points of a split into valid melds (R-RK-07 joker values), or None."""
    res = _solve(counts)
    return None if res is None else res[0]


def sub_multisets(counts) -> list[np.ndarray]:
    """All count vectors P with 0 <= P <= counts (shape (53,), int64)."""
    idx = [t for t in range(NUM_TILE_TYPES) if counts[t]]
    out = []
    for combo in itertools.product(*[range(int(counts[t]) + 1) for t in idx]):
        p = np.zeros(NUM_TILE_TYPES, dtype=np.int64)
        p[idx] = combo
        out.append(p)
    return out


def is_legal_play_bruteforce(
    table,
    play,
    initial_meld_done,
    initial_meld_points=30,
    initial_meld_table_play=False,
) -> bool:
    """Reference for ``is_legal_play`` (play assumed within the rack)."""
    table = np.asarray(table, dtype=np.int64)
    play = np.asarray(play, dtype=np.int64)
    if play.sum() == 0:
        return False
    if initial_meld_done:
        return max_points_bruteforce(table + play) is not None
    if not initial_meld_table_play:
        pts = max_points_bruteforce(play)
        return pts is not None and pts >= initial_meld_points
    if max_points_bruteforce(table + play) is None:
        return False
    for p1 in sub_multisets(play):
        pts = max_points_bruteforce(p1)
        if pts is not None and pts >= initial_meld_points and p1.sum() > 0:
            return True
    return False


def extension_mask_bruteforce(
    table,
    rack,
    chosen,
    initial_meld_done,
    initial_meld_points=30,
    initial_meld_table_play=False,
) -> np.ndarray:
    """Reference for ``extension_mask``: tries every play P with chosen <= P <= rack."""
    rack = np.asarray(rack, dtype=np.int64)
    chosen = np.asarray(chosen, dtype=np.int64)
    mask = np.zeros(NUM_TILE_TYPES, dtype=bool)
    for extra in sub_multisets(rack - chosen):
        if extra.sum() == 0:
            continue
        play = chosen + extra
        if is_legal_play_bruteforce(table, play, initial_meld_done, initial_meld_points, initial_meld_table_play):
            mask |= extra > 0
    return mask


def ordered_extension_mask_bruteforce(
    table,
    rack,
    chosen,
    initial_meld_done,
    initial_meld_points=30,
    initial_meld_table_play=False,
) -> np.ndarray:
    """Reference for ``ordered_extension_mask``: ``mask[t]`` iff some legal play adds
    tiles to ``chosen`` whose lowest type is ``t``, all of types >= the highest chosen."""
    rack = np.asarray(rack, dtype=np.int64)
    chosen = np.asarray(chosen, dtype=np.int64)
    last = int(np.flatnonzero(chosen).max()) if chosen.any() else 0
    mask = np.zeros(NUM_TILE_TYPES, dtype=bool)
    for extra in sub_multisets(rack - chosen):
        added = np.flatnonzero(extra)
        if added.size == 0 or added[0] < last:
            continue
        play = chosen + extra
        if is_legal_play_bruteforce(table, play, initial_meld_done, initial_meld_points, initial_meld_table_play):
            mask[added[0]] = True
    return mask


# ---------------------------------------------------------------------------------------
# Integer programming oracle

POINTS_FACTOR = 512  # same lexicographic weights as the solver's best_play
TILES_FACTOR = 8192


@lru_cache(maxsize=1)
def _meld_matrix() -> np.ndarray:
    """Tile counts of every meld of ``all_melds()``: shape (53, n_melds), int64."""
    melds = all_melds()
    a = np.zeros((NUM_TILE_TYPES, len(melds)), dtype=np.int64)
    for k, m in enumerate(melds):
        for t in m.tiles:
            a[t, k] += 1
    return a


def _candidate_melds(avail: np.ndarray) -> tuple[list[OracleMeld], np.ndarray]:
    """The melds whose tiles are within ``avail`` and their (53, n) incidence matrix."""
    a = _meld_matrix()
    ok = np.flatnonzero((a <= np.asarray(avail)[:, None]).all(axis=0))
    melds = all_melds()
    return [melds[k] for k in ok], a[:, ok].astype(float)


def milp_can_partition(counts) -> bool:
    """ILP feasibility: sum_m x_m * meld_m == counts, x_m in {0, 1, 2}."""
    from scipy.optimize import Bounds, LinearConstraint, milp

    counts = np.asarray(counts, dtype=np.int64)
    if counts.sum() == 0:
        return True
    melds, a = _candidate_melds(counts)
    if not melds:
        return False
    a = np.unique(a, axis=1)  # joker placements do not matter for feasibility
    res = milp(
        c=np.zeros(a.shape[1]),
        constraints=[LinearConstraint(a, counts, counts)],
        integrality=np.ones(a.shape[1]),
        bounds=Bounds(0, 2),
    )
    return res.status == 0


def milp_play_exists(table, lo, hi) -> bool:
    """ILP feasibility after the initial meld (R-RK-08): is there a play ``y`` with
    ``lo <= y <= hi`` tile by tile, at least one tile, such that table + y splits into
    valid melds?  Used to check the env's ordered mask tile by tile."""
    from scipy.optimize import Bounds, LinearConstraint, milp

    table = np.asarray(table, dtype=np.int64)
    lo = np.asarray(lo, dtype=np.int64)
    hi = np.asarray(hi, dtype=np.int64)
    melds, a = _candidate_melds(table + hi)
    if not melds:
        return False
    a = np.unique(a, axis=1)
    nm = a.shape[1]
    # variables: x (nm meld multiplicities) | y (53 tiles played)
    eq = np.hstack([a, -np.eye(NUM_TILE_TYPES)])
    nonempty = np.hstack([np.zeros(nm), np.ones(NUM_TILE_TYPES)])
    res = milp(
        c=np.zeros(nm + NUM_TILE_TYPES),
        constraints=[LinearConstraint(eq, table, table), LinearConstraint(nonempty[None, :], 1, np.inf)],
        integrality=np.ones(nm + NUM_TILE_TYPES),
        bounds=Bounds(np.concatenate([np.zeros(nm), lo]), np.concatenate([np.full(nm, 2), hi])),
    )
    return res.status == 0


def milp_best_value(
    table,
    rack,
    initial_meld_done,
    objective="points",
    initial_meld_points=30,
    initial_meld_table_play=False,
):
    """ILP reference for ``best_play``: returns (tiles, points) of an optimal play, or None.

    Variables: x_m (arrangement of table + P), y_t (tiles of type t played), w_v (jokers of
    the play credited with number v, at most the jokers standing at v) and, before the
    initial meld, z_m (arrangement of the initial meld P1 <= P, worth >= the threshold).
    """
    from scipy.optimize import Bounds, LinearConstraint, milp

    table = np.asarray(table, dtype=np.int64)
    rack = np.asarray(rack, dtype=np.int64)
    threshold = int(initial_meld_points)
    if not initial_meld_done and not initial_meld_table_play:
        table = np.zeros_like(table)
    melds, a = _candidate_melds(table + rack)
    nm = len(melds)
    if nm == 0:
        return None
    use_p1 = not initial_meld_done and initial_meld_table_play
    nz = nm if use_p1 else 0
    # variable layout: x (nm) | y (53) | w (13) | z (nz)
    nvar = nm + NUM_TILE_TYPES + NUM_NUMBERS + nz
    ox, oy, ow, oz = 0, nm, nm + NUM_TILE_TYPES, nm + NUM_TILE_TYPES + NUM_NUMBERS
    rows, lo, hi = [], [], []

    def add(row, low, high):
        rows.append(row)
        lo.append(low)
        hi.append(high)

    for t in range(NUM_TILE_TYPES):  # arrangement uses table + play exactly
        row = np.zeros(nvar)
        row[ox : ox + nm] = a[t]
        row[oy + t] = -1
        add(row, table[t], table[t])
    row = np.zeros(nvar)  # credited jokers are the played jokers
    row[ow : ow + NUM_NUMBERS] = 1
    row[oy + JOKER] = -1
    add(row, 0, 0)
    for v in range(1, NUM_NUMBERS + 1):  # credited jokers at v <= jokers standing at v
        row = np.zeros(nvar)
        row[ow + v - 1] = 1
        for k, m in enumerate(melds):
            row[ox + k] = -m.joker_numbers.count(v)
        add(row, -np.inf, 0)
    row = np.zeros(nvar)  # nonempty play
    row[oy : oy + NUM_TILE_TYPES] = 1
    add(row, 1, np.inf)
    numbers = np.array([t % NUM_NUMBERS + 1 for t in range(JOKER)] + [0])
    if not initial_meld_done and not use_p1:  # the play's own melds are worth >= threshold
        row = np.zeros(nvar)
        row[ox : ox + nm] = [m.points for m in melds]
        add(row, threshold, np.inf)
    if use_p1:
        for t in range(NUM_TILE_TYPES):  # P1 <= P
            row = np.zeros(nvar)
            row[oz : oz + nz] = a[t]
            row[oy + t] = -1
            add(row, -np.inf, 0)
        row = np.zeros(nvar)
        row[oz : oz + nz] = [m.points for m in melds]
        add(row, threshold, np.inf)
    # objective (maximise -> minimise the negative)
    pts = np.zeros(nvar)
    pts[oy : oy + NUM_TILE_TYPES] = numbers
    pts[ow : ow + NUM_NUMBERS] = np.arange(1, NUM_NUMBERS + 1)
    tiles = np.zeros(nvar)
    tiles[oy : oy + NUM_TILE_TYPES] = 1
    if objective == "points":
        c = -(POINTS_FACTOR * pts + tiles)
    else:
        c = -(TILES_FACTOR * tiles + pts)
    ub = np.concatenate(
        [
            np.full(nm, 2.0),
            rack.astype(float),
            np.full(NUM_NUMBERS, 2.0),
            np.full(nz, 2.0),
        ]
    )
    res = milp(
        c=c,
        constraints=[LinearConstraint(np.array(rows), lo, hi)],
        integrality=np.ones(nvar),
        bounds=Bounds(np.zeros(nvar), ub),
        options={"mip_rel_gap": 0.0},  # the default 1e-4 gap hides a few points
    )
    if res.status != 0:
        return None
    x = np.round(res.x).astype(np.int64)
    return int(x[oy : oy + NUM_TILE_TYPES].sum()), int(pts @ x)


# ---------------------------------------------------------------------------------------
# Random positions for the oracle comparisons (tests and bench_rummikub_solver)


def random_meld(rng: np.random.Generator, joker_p: float) -> list[int]:
    """Tile types of one random valid meld: a run of 3-7 (R-RK-04) or a group of 3-4
    (R-RK-03), then twice, with probability ``joker_p``, one tile replaced by a joker."""
    if rng.random() < 0.5:
        colour = int(rng.integers(NUM_COLOURS))
        length = int(rng.integers(3, 8))
        low = int(rng.integers(1, 15 - length))
        tiles = [colour * NUM_NUMBERS + low - 1 + k for k in range(length)]
    else:
        number = int(rng.integers(NUM_NUMBERS))
        colours = rng.permutation(NUM_COLOURS)[: int(rng.integers(3, 5))]
        tiles = [int(c) * NUM_NUMBERS + number for c in colours]
    for _ in range(2):
        if rng.random() < joker_p:
            tiles[int(rng.integers(len(tiles)))] = JOKER
    return tiles


def random_table(rng: np.random.Generator, size: int, joker_p: float = 0.1) -> np.ndarray:
    """Counts (int64, shape (53,)) of a valid table of about ``size`` tiles: a union of
    :func:`random_meld` s with at most two of each tile type."""
    table = np.zeros(NUM_TILE_TYPES, dtype=np.int64)
    for _ in range(400):
        if table.sum() >= size:
            break
        add = np.bincount(random_meld(rng, joker_p), minlength=NUM_TILE_TYPES)
        if np.all(table + add <= 2):
            table += add
    return table


def random_rack(rng: np.random.Generator, table: np.ndarray, size: int) -> np.ndarray:
    """Counts (int64, shape (53,)) of ``size`` tiles (fewer if fewer are left) drawn from
    the tiles ``table`` leaves of the 106."""
    left = [t for t in range(NUM_TILE_TYPES) for _ in range(2 - int(table[t]))]
    pick = rng.choice(len(left), size=min(size, len(left)), replace=False)
    return np.bincount([left[k] for k in pick], minlength=NUM_TILE_TYPES).astype(np.int64)
