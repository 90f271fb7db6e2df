"""Joint moves of the four colours at one number, and the per-number bounds of a position.

``_transitions`` combines the colour moves of ``tables`` into the packed moves of a joint state;
``_point_transitions`` reduces them to what the points sweeps read (``merged_moves`` builds
the label sweeps' and best play's moves from the halves directly).  All are memoised in
caches bounded by the solver's memory budget.
"""

from __future__ import annotations

import itertools

import numpy as np

from rummy_env.core.rummikub_solver.memo import (
    BoundedCache,
    half_cost,
    tuple_of_ints_cost,
    tuple_of_triples_cost,
)
from rummy_env.core.rummikub_solver.tables import (
    _CBITS,
    _EXTRA_SHIFT,
    _GROUP_JOKERS,
    _JSHIFT,
    _K_SHIFT,
    _NREAL_SHIFT,
    _SMASK,
    _SPREAD,
    _colour_parts,
    _xs,
)
from rummy_env.core.tiles import NUM_COLOURS, NUM_NUMBERS

_TRANS_CACHE = BoundedCache("transitions", tuple_of_ints_cost)
_POINT_CACHE = BoundedCache("point_transitions", tuple_of_triples_cost)
_HALF_CACHE = BoundedCache("half_moves", half_cost)
_ORDERED_CACHE = BoundedCache("ordered_transitions", tuple_of_ints_cost)


def _transitions(state: int, ckeys: tuple, budget: int) -> tuple[int, ...]:
    """All moves at one number from joint colour state ``state`` (jokers excluded), memoised.

    ``ckeys[c] = (lo, hi, cap1, cap2)`` for colour ``c``; ``budget`` jokers may be used.
    Returns packed transitions (fields ``_X_SHIFT`` ... ``_K_SHIFT``, next colour states in
    the low bits; the jokers used include those placed in groups), in no fixed order: the
    sweeps reading them do not depend on it (``_transitions_in_order`` is for certificates).
    """
    key = (state, ckeys, budget)
    hit = _TRANS_CACHE.get(key)
    if hit is not None:
        return hit
    res = tuple(_move_set(state, ckeys, budget))
    _TRANS_CACHE.store(key, res)
    return res


def _transitions_in_order(state: int, ckeys: tuple, budget: int) -> tuple[int, ...]:
    """The moves of ``_transitions`` in the order the certificates were always built from
    (a four-colour product), memoised apart: only ``partition`` reads it, and its sweep asks
    again for the same joint states (over all 106 tiles, each about four times).

    ``ckeys[c] = (lo, hi, cap1, cap2)`` for colour ``c``; ``budget`` jokers may be used.
    Returns packed transitions (fields ``_X_SHIFT`` ... ``_K_SHIFT``, next colour states in
    the low bits; the jokers used include those placed in groups).
    """
    key = (state, ckeys, budget)
    hit = _ORDERED_CACHE.get(key)
    if hit is None:
        hit = _product_in_order(state, ckeys, budget)
        _ORDERED_CACHE.store(key, hit)
    return hit


def _product_in_order(state: int, ckeys: tuple, budget: int) -> tuple[int, ...]:
    """``_transitions_in_order`` computed: the four colours' parts, their product in order."""
    parts = []
    for c in range(NUM_COLOURS):
        lo, hi, cap1, cap2 = ckeys[c]
        s = (state >> (_CBITS * c)) & 63
        p = _colour_parts(c, s, lo, hi, budget, cap1, cap2)
        if not p:
            return ()
        parts.append(p)
    out = set()
    for (g0, l0), (g1, l1), (g2, l2), (g3, l3) in itertools.product(*parts):
        gs = (g0, g1, g2, g3)
        jg_ok = _GROUP_JOKERS[(gs.count(1), gs.count(2))]
        if not jg_ok or jg_ok[0] > budget:
            continue
        sums = [a + b + c + d for a in l0 for b in l1 for c in l2 for d in l3]
        if budget == 0:
            out.update(sums)  # no joker anywhere: jg_ok[0] == 0 here
            continue
        for p in sums:
            k = p >> _K_SHIFT
            for jg in jg_ok:
                if k + jg <= budget:
                    out.add(p + (jg << _K_SHIFT))
    return tuple(out)


def _move_set(state: int, ckeys: tuple, budget: int) -> set[int]:
    """The set of ``_transitions`` (same moves), built pairwise: colours 0+1 and 2+3 are
    summed per (colours with 1 group tile, colours with 2) first, duplicates merged there
    (a joker in a run and its tile in a group often give the same sum), then the halves
    are paired under the group table.  Partial sums with more jokers than ``budget`` are
    dropped early (the joker field only grows).  For the sweeps that read the moves as a
    set; ``_transitions`` keeps its own order for the certificates."""
    left = _half(0, state & 4095, ckeys[0], ckeys[1], budget)
    if not left:
        return set()
    right = _half(2, (state >> 12) & 4095, ckeys[2], ckeys[3], budget)
    if not right:
        return set()
    halves = (left, right)
    out: set[int] = set()
    for (o1, t1), lhalf in halves[0]:
        for (o2, t2), rhalf in halves[1]:
            jg_ok = _GROUP_JOKERS[(o1 + o2, t1 + t2)]
            if not jg_ok or jg_ok[0] > budget:
                continue
            for a in lhalf:
                for b in rhalf:
                    p = a + b
                    k = p >> _K_SHIFT
                    for jg in jg_ok:
                        if k + jg <= budget:
                            out.add(p + (jg << _K_SHIFT))
                        else:
                            break
    return out


def _half(c0: int, pair: int, cka: tuple, ckb: tuple, budget: int) -> tuple:
    """The moves of colours ``c0`` and ``c0 + 1`` summed (``_move_set``), memoised: many
    joint states share the states of two colours.  ``pair``: their two colour states.
    Returns ``(((ones, twos), (packed, ...)), ...)`` by group pattern; () if a colour has no move."""
    key = (c0, pair, cka, ckb, budget)
    hit = _HALF_CACHE.get(key)
    if hit is not None:
        return hit
    half: dict[tuple[int, int], set[int]] = {}
    pa = _colour_parts(c0, pair & 63, *_key4(cka, budget))
    pb = _colour_parts(c0 + 1, pair >> _CBITS, *_key4(ckb, budget))
    if pa and pb:
        for ga, la in pa:
            for gb, lb in pb:
                bucket = half.setdefault(((ga == 1) + (gb == 1), (ga == 2) + (gb == 2)), set())
                for a in la:
                    for b in lb:
                        p = a + b
                        if p >> _K_SHIFT <= budget:
                            bucket.add(p)
    res = tuple((pattern, tuple(moves)) for pattern, moves in half.items())
    _HALF_CACHE.store(key, res)
    return res


def _key4(ck: tuple, budget: int) -> tuple[int, int, int, int, int]:
    lo, hi, cap1, cap2 = ck
    return lo, hi, budget, cap1, cap2


def _point_transitions(state: int, ckeys: tuple, budget: int, merge: bool = True) -> tuple[tuple[int, int, int], ...]:
    """Like ``_label_transitions`` but keeps the tiles placed at this number (real + jokers):
    ``((delta, tiles, spread), ...)``, merged by (delta, tiles) if ``merge``."""
    key = (state, ckeys, budget, merge)
    hit = _POINT_CACHE.get(key)
    if hit is not None:
        return hit
    merged: dict[tuple[int, int], int] = {}
    seen = set()
    for p in _transitions(state, ckeys, budget):
        kv = p >> _K_SHIFT
        k2 = ((p & _SMASK) | (kv << _JSHIFT), ((p >> _NREAL_SHIFT) & 15) + kv)
        spread = _SPREAD[(p >> _EXTRA_SHIFT) & 15]
        if merge:
            merged[k2] = merged.get(k2, 0) | spread
        else:
            seen.add((*k2, spread))
    if merge:
        res = tuple((d, n, s) for (d, n), s in merged.items())
    else:
        res = tuple(seen)
    _POINT_CACHE.store(key, res)
    return res


def _cell_keys(lo: np.ndarray, hi: np.ndarray) -> tuple[tuple, ...]:
    """Per number v = 1..13 the per-colour ``(lo, hi, cap1, cap2)`` of ``_transitions``.

    ``lo``/``hi``: count vectors (53,) bounding the real tiles used per type.
    """
    lo2 = lo[:52].reshape(NUM_COLOURS, NUM_NUMBERS).tolist()
    hi2 = hi[:52].reshape(NUM_COLOURS, NUM_NUMBERS).tolist()
    out = []
    for i in range(NUM_NUMBERS):
        out.append(
            tuple(
                (
                    lo2[c][i],
                    hi2[c][i],
                    hi2[c][i + 1] if i + 1 < NUM_NUMBERS else -1,
                    hi2[c][i + 2] if i + 2 < NUM_NUMBERS else -1,
                )
                for c in range(NUM_COLOURS)
            )
        )
    return tuple(out)


# Product sweeps for ``initial_meld_table_play=True`` (R-RK-07): side A is the initial meld
# P1 (rack tiles only), side B is table + P.  A move pairs an A move and a B move at the
# same number with P1 <= P tile by tile.


def _pair_moves(
    sa: int,
    ja: int,
    sb: int,
    jb: int,
    cka: tuple,
    ckb: tuple,
    tbl: tuple,
    ja_max: int,
    jb_max: int,
):
    """Compatible (A move, B move) pairs at one number: real tiles of A <= those of B minus
    the table's, tile type by tile type."""
    ta = _transitions(sa, cka, ja_max - ja)
    if not ta:
        return ()
    tb = _transitions(sb, ckb, jb_max - jb)
    allow = [(pb, tuple(x - t for x, t in zip(_xs(pb), tbl, strict=False))) for pb in tb]
    out = []
    for pa in ta:
        xa = _xs(pa)
        for pb, al in allow:
            if xa[0] <= al[0] and xa[1] <= al[1] and xa[2] <= al[2] and xa[3] <= al[3]:
                out.append((pa, pb))
    return out
