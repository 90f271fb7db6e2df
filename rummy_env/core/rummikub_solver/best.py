"""Best play: the max-plus sweep with back pointers, and the points a given play scores (R-RK-07)."""

from __future__ import annotations

import numpy as np

from rummy_env.core.rummikub_solver.kernel_best import _best_kernel
from rummy_env.core.rummikub_solver.merged_moves import MERGED_MIN, _best_moves
from rummy_env.core.rummikub_solver.tables import (
    _CBITS,
    _JSHIFT,
    _K_SHIFT,
    _NREAL_SHIFT,
    _SMASK,
    _UPGRADES,
    _UPGRADES2,
    _X_SHIFT,
    _a_done,
    _xs,
)
from rummy_env.core.rummikub_solver.transitions import _cell_keys, _pair_moves, _transitions
from rummy_env.core.tiles import JOKER, NUM_COLOURS, NUM_NUMBERS, NUM_TILE_TYPES

# ---------------------------------------------------------------------------------------
# Best play: a max-plus sweep with back pointers.  The value of a path is one int, the
# objective's main term times a factor larger than any tie-break term (both are additive).
_POINTS_FACTOR = 512  # > 106 tiles
_TILES_FACTOR = 8192  # > 2 * 4 * (1 + ... + 13) + 2 * 13 points


def _objective_gain(objective: str, tiles: int, points: int) -> int:
    if objective == "points":
        return points * _POINTS_FACTOR + tiles
    return tiles * _TILES_FACTOR + points


def _best_sweep(table, rack, threshold: int, objective: str, table_play: bool):
    """Best legal play as a count vector, or None.  See ``best_play``.

    Runs compiled (``kernel_best``) unless side A is needed (the product sweep of the
    initial meld with table play) or numba is off; both give the same play.
    """
    if not (threshold > 0 and table_play):
        kernel = _best_kernel()
        if kernel:
            return kernel(table, rack, threshold, objective)
        return _best_sweep_flat(table, rack, threshold, objective)
    return _best_sweep_py(table, rack, threshold, objective, table_play)


#: Fields of a state key of ``_best_sweep_flat`` (the kernel's key): code B in the low
#: 27 bits (colour states, jokers placed << 24), the rack jokers placed, the capped points.
_JR_SHIFT = 27
_CAP_SHIFT = 29
_CODE_MASK = (1 << _JR_SHIFT) - 1


def _best_sweep_flat(table, rack, threshold: int, objective: str):
    """``_best_sweep_py`` without side A (after the initial meld; the rack-only initial meld
    with ``threshold > 0`` and an empty table): the same play, on flat int states.

    A state is one int, ``capped points << 29 | rack jokers << 27 | code`` (ints compare as
    ``_tie_key``), a layer two dicts (values; back pointers ``parent << 11 | r << 8 | xs``).
    The moves are merged to what best play reads (``merged_moves._best_moves``); the parents
    are expanded in increasing key order and a candidate replaces only a strictly lower
    value, so a tie keeps the smaller parent, as ``_best_sweep_py``'s rule (one parent reaches
    a next state by one merged move and one ``r`` at most).  Pruning is ``_prune_best``'s.
    """
    tbl_j, rack_j = int(table[JOKER]), int(rack[JOKER])
    ckb = _cell_keys(table, table + rack)
    tsum = table[:52].reshape(NUM_COLOURS, NUM_NUMBERS).sum(axis=0).tolist()
    jb_max = tbl_j + rack_j
    by_real = threshold > 0
    cur: dict[int, int] = {0: 0}
    backs: list[dict[int, int]] = []
    for i in range(NUM_NUMBERS):
        v = i + 1
        mult = v * _POINTS_FACTOR + 1 if objective == "points" else _TILES_FACTOR + v  # gain per tile
        ts, ck = tsum[i], ckb[i]
        nxt: dict[int, int] = {}
        back: dict[int, int] = {}
        get = nxt.get
        halves = len(cur) >= MERGED_MIN
        for key in sorted(cur):
            val = cur[key]
            cb = key & _CODE_MASK
            jr = (key >> _JR_SHIFT) & 3
            pts = key >> _CAP_SHIFT
            jb = cb >> _JSHIFT
            jpart = cb & ~_SMASK
            room = rack_j - jr  # rack jokers still to place
            over = jb - jr - tbl_j  # table jokers placed minus those there are (<= 0)
            for delta, real, xs in _best_moves(cb & _SMASK, ck, jb_max - jb, by_real, halves):
                kb = delta >> _JSHIFT
                real -= ts
                nb = jpart + delta
                r_lo = kb + over if kb + over > 0 else 0
                r_hi = kb if kb < room else room
                if r_lo > r_hi:
                    continue
                if by_real:
                    cap = pts + v * (real + kb)
                    nb |= (cap if cap < threshold else threshold) << _CAP_SHIFT
                for r in range(r_lo, r_hi + 1):
                    n = nb | (jr + r) << _JR_SHIFT
                    cand = val + (real + r) * mult
                    old = get(n)
                    if old is None or old < cand:
                        nxt[n] = cand
                        back[n] = key << 11 | r << 8 | xs
        if not nxt:
            return None
        backs.append(back)
        cur = nxt if len(nxt) <= 32 else _prune_flat(nxt)
    best_key, best_val = -1, 0
    for key, val in cur.items():
        jr = (key >> _JR_SHIFT) & 3
        if ((key & _CODE_MASK) >> _JSHIFT) - jr != tbl_j or key >> _CAP_SHIFT < threshold or val <= 0:
            continue
        if val > best_val or (val == best_val and key < best_key):
            best_key, best_val = key, val
    if best_key < 0:
        return None
    play = np.zeros(NUM_TILE_TYPES, dtype=np.int64)
    play[JOKER] = (best_key >> _JR_SHIFT) & 3
    key = best_key
    for i in range(NUM_NUMBERS - 1, -1, -1):
        b = backs[i][key]
        xs = b & 255
        for c in range(NUM_COLOURS):
            t = c * NUM_NUMBERS + i
            play[t] = ((xs >> (2 * c)) & 3) - table[t]
        key = b >> 11
    return play


def _prune_flat(layer: dict[int, int]) -> dict[int, int]:
    """``_prune_best`` on the flat states of ``_best_sweep_flat`` (the same states dropped)."""
    keep = {}
    get = layer.get
    for key, val in layer.items():
        for c in range(NUM_COLOURS):
            shift = _CBITS * c
            s = (key >> shift) & 63
            for d in _UPGRADES_BOTH[s]:
                other = get(key + (d << shift))
                if other is not None and other >= val:
                    break
            else:
                continue
            break
        else:
            keep[key] = val
    return keep


_UPGRADES_BOTH = tuple(a + b for a, b in zip(_UPGRADES, _UPGRADES2, strict=True))


def _tie_key(state: tuple) -> tuple:
    """Order of states for ties, the kernel's key order: (points, rack jokers, code B, code A)."""
    ca, cb, jr, pts = state
    return (pts, jr, cb, ca)


def _best_sweep_py(table, rack, threshold: int, objective: str, table_play: bool):
    """Pure-Python ``_best_sweep``.

    Side B is table + P (every table tile used); when ``threshold > 0`` side A is the
    initial meld (P itself, or with ``table_play`` a sub-multiset P1 of P) whose points,
    capped at ``threshold``, are part of the state.  Jokers of B are labelled "from the
    rack" or "from the table" as they are placed; a rack joker scores the number it stands
    for and all table jokers must be placed, so the sweep credits the played jokers with the
    highest numbers any arrangement gives them.

    Ties are broken canonically (the kernel does the same): for a state, the candidate
    with the smaller parent ``_tie_key``, then the smaller move key (real tiles used at
    this number, 2 bits per colour, | rack jokers << 8); at the end the smaller key.
    """
    zero = np.zeros_like(rack)
    tbl_j, rack_j = int(table[JOKER]), int(rack[JOKER])
    ckb = _cell_keys(table, table + rack)
    product = threshold > 0 and table_play
    cka = _cell_keys(zero, rack) if product else None
    tbl2 = table[:52].reshape(NUM_COLOURS, NUM_NUMBERS).T.tolist()
    jb_max = tbl_j + rack_j
    done = threshold + 1  # side A's points once it is done (see ``_product_sweep``)
    # state: (code A, code B, rack jokers of B, capped points); A = 0 unless product
    start = (0, 0, 0, 0)
    layers: list[dict] = []
    cur: dict[tuple, tuple] = {start: (0, None, 0, 0, 0, 0)}
    for i in range(NUM_NUMBERS):
        v = i + 1
        tbl = tuple(tbl2[i])
        tsum = sum(tbl)
        nxt: dict[tuple, tuple] = {}
        for state, entry in cur.items():
            ca, cb, jr, pts = state
            val = entry[0]
            tie = _tie_key(state)
            jb = cb >> _JSHIFT
            if product and pts != done:
                ja = ca >> _JSHIFT
                pairs = _pair_moves(
                    ca & _SMASK,
                    ja,
                    cb & _SMASK,
                    jb,
                    cka[i],
                    ckb[i],
                    tbl,
                    rack_j,
                    jb_max,
                )
            else:
                pairs = [(0, pb) for pb in _transitions(cb & _SMASK, ckb[i], jb_max - jb)]
            for pa, pb in pairs:
                kb = pb >> _K_SHIFT
                real = ((pb >> _NREAL_SHIFT) & 15) - tsum  # rack tiles placed at v
                if product and pts == done:
                    na, cap = ca, done
                elif product:
                    ka = pa >> _K_SHIFT
                    na = (pa & _SMASK) | ((ca >> _JSHIFT) + ka) << _JSHIFT
                    cap = min(threshold, pts + v * (((pa >> _NREAL_SHIFT) & 15) + ka))
                    if cap == threshold and _a_done(na):
                        na, cap = na & ~_SMASK, done
                else:
                    na = 0
                    cap = min(threshold, pts + v * (real + kb)) if threshold > 0 else 0
                nb = (pb & _SMASK) | ((jb + kb) << _JSHIFT)
                xs = (pb >> _X_SHIFT) & 255
                for r in range(kb + 1):
                    jr2 = jr + r
                    if jr2 > rack_j or jb + kb - jr2 > tbl_j:
                        continue
                    gain = _objective_gain(objective, real + r, v * (real + r))
                    n = (na, nb, jr2, cap)
                    old = nxt.get(n)
                    mk = xs | r << 8
                    if (
                        old is None
                        or old[0] < val + gain
                        or (old[0] == val + gain and (tie, mk) < (_tie_key(old[1]), old[5]))
                    ):
                        nxt[n] = (val + gain, state, pa, pb, r, mk)
        if not nxt:
            return None
        layers.append(nxt)
        cur = nxt if len(nxt) <= 32 else _prune_best(nxt, done if product else None)
    best = None
    for state, entry in cur.items():
        ca, cb, jr, pts = state
        jb = cb >> _JSHIFT
        if jb - jr != tbl_j or pts < threshold:
            continue
        if product and (ca >> _JSHIFT) > jr:
            continue
        if entry[0] <= 0:
            continue  # the play must hold at least one tile
        if best is None or entry[0] > best[1][0] or (entry[0] == best[1][0] and _tie_key(state) < _tie_key(best[0])):
            best = (state, entry)
    if best is None:
        return None
    play = np.zeros(NUM_TILE_TYPES, dtype=np.int64)
    play[JOKER] = best[0][2]
    state = best[0]
    for i in range(NUM_NUMBERS - 1, -1, -1):
        _val, prev, _pa, pb, _r, _mk = layers[i][state]
        for c, x in enumerate(_xs(pb)):
            t = c * NUM_NUMBERS + i
            play[t] = x - table[t]
        state = prev
    return play


def _prune_best(layer: dict[tuple, tuple], done: int | None = None) -> dict[tuple, tuple]:
    """``_prune`` for the best-play sweep: a state is dropped when a stronger twin (same
    rack jokers and capped points, table + P runs upgraded as in ``_prune``) has a value
    at least as high; the twin's completions use the same tiles, so they gain as much.
    In the product sweep (``done`` = the done points) the twin may also be the done A with
    the same A jokers and the same B (it adds nothing more to P1 <= P)."""
    keep = {}
    for state, entry in layer.items():
        ca, cb, jr, pts = state
        val = entry[0]
        dominated = False
        if done is not None and pts != done:
            twin = layer.get((ca & ~_SMASK, cb, jr, done))
            if twin is not None and twin[0] >= val:
                continue
        for c in range(NUM_COLOURS):
            shift = _CBITS * c
            s = (cb >> shift) & 63
            for d in _UPGRADES[s] + _UPGRADES2[s]:
                other = layer.get((ca, cb + (d << shift), jr, pts))
                if other is not None and other[0] >= val:
                    dominated = True
                    break
            if dominated:
                break
        if not dominated:
            keep[state] = entry
    return keep


def _forced_points(table: np.ndarray, play: np.ndarray) -> int:
    both = table + play
    tbl_j, jr_needed = int(table[JOKER]), int(play[JOKER])
    keys = _cell_keys(both, both)
    tsum = table[:52].reshape(NUM_COLOURS, NUM_NUMBERS).sum(axis=0).tolist()
    cur = {(0, 0): 0}
    for i, ck in enumerate(keys):
        v = i + 1
        nxt: dict[tuple[int, int], int] = {}
        for (code, jr), val in cur.items():
            j = code >> _JSHIFT
            for p in _transitions(code & _SMASK, ck, int(both[JOKER]) - j):
                kv = p >> _K_SHIFT
                real = ((p >> _NREAL_SHIFT) & 15) - tsum[i]
                n = (p & _SMASK) | ((j + kv) << _JSHIFT)
                for r in range(kv + 1):
                    if jr + r > jr_needed or j + kv - jr - r > tbl_j:
                        continue
                    key = (n, jr + r)
                    gain = val + v * (real + r)
                    if nxt.get(key, -1) < gain:
                        nxt[key] = gain
        if not nxt:
            return -1
        cur = nxt
    return max((val for (code, jr), val in cur.items() if jr == jr_needed), default=-1)
