"""The optional numba kernel of best play: ``best._best_sweep`` compiled when side A is not needed.

Covers every ``best_play`` sweep except the product sweep of the initial meld with table play:
after the initial meld (R-RK-08, ``threshold = 0``) and before it on the rack alone (R-RK-07,
empty table, points capped at the threshold in the state).  Same moves (the colour-move
table of ``kernel``), same pruning (one- and two-step upgrades of one colour, layers of more
than 32 states) and the same canonical tie-break as the Python sweep, so both return the
same play, not only the same value: among candidates of equal value for a state the one
with the smaller parent key, then the smaller move key, wins; among accepting states of
equal value the smaller key.  Keys order like the Python tuples (points, rack jokers,
colour code).
"""

from __future__ import annotations

import numpy as np

from rummy_env.core.compile_notice import noting_compile
from rummy_env.core.rummikub_solver import kernel as _kernel_mod
from rummy_env.core.tiles import JOKER

_BEST = None  # None: not tried yet; False: unavailable; else the wrapper


def _best_kernel_sweep(
    lohi, capc, tsum, tbl_j, rack_j, threshold, tiles_obj, gstart, moves, gj, ups
):  # pragma: no cover
    """Max-plus sweep with back pointers.  Returns ``(jr, xs)``: ``jr`` the rack jokers played
    (-1: no legal play), ``xs[i]`` the real tiles used at number ``i + 1`` (2 bits per colour).

    State key: colour states (24 bits) | B jokers << 24 | rack jokers << 27 | capped points << 29.
    """
    jb_max = tbl_j + rack_j
    xs_out = np.zeros(13, dtype=np.int64)
    store_par = np.empty(4096, dtype=np.int64)
    store_mk = np.empty(4096, dtype=np.int64)
    nstore = 0
    ncur = 1
    cur_k = np.zeros(1, dtype=np.int64)
    cur_v = np.zeros(1, dtype=np.int64)
    cur_g = np.full(1, -1, dtype=np.int64)
    # one 4096-slot index for the layers, emptied slot by slot after each (``_unindex``):
    # filling a fresh one at each of the 13 layers was most of a small sweep's time
    hsize = 4096
    hidx = np.full(hsize, -1, dtype=np.int64)
    for i in range(13):
        v = i + 1
        size = 1024
        nk = np.empty(size, dtype=np.int64)
        nv = np.empty(size, dtype=np.int64)
        npk = np.empty(size, dtype=np.int64)
        npg = np.empty(size, dtype=np.int64)
        nmk = np.empty(size, dtype=np.int64)
        nn = 0
        for q in range(ncur):
            key = cur_k[q]
            val = cur_v[q]
            jb = (key >> 24) & 7
            jr = (key >> 27) & 3
            pts = key >> 29
            budget = jb_max - jb
            k0 = 4 * ((((key & 63) * 6 + lohi[i, 0]) * 3 + budget) * 16 + capc[i, 0])
            k1 = 4 * (((((key >> 6) & 63) * 6 + lohi[i, 1]) * 3 + budget) * 16 + capc[i, 1])
            k2 = 4 * (((((key >> 12) & 63) * 6 + lohi[i, 2]) * 3 + budget) * 16 + capc[i, 2])
            k3 = 4 * (((((key >> 18) & 63) * 6 + lohi[i, 3]) * 3 + budget) * 16 + capc[i, 3])
            for g0 in range(3):
                if gstart[k0 + g0] == gstart[k0 + g0 + 1]:
                    continue
                for g1 in range(3):
                    if gstart[k1 + g1] == gstart[k1 + g1 + 1]:
                        continue
                    for g2 in range(3):
                        if gstart[k2 + g2] == gstart[k2 + g2 + 1]:
                            continue
                        for g3 in range(3):
                            if gstart[k3 + g3] == gstart[k3 + g3 + 1]:
                                continue
                            ones = (g0 == 1) + (g1 == 1) + (g2 == 1) + (g3 == 1)
                            twos = (g0 == 2) + (g1 == 2) + (g2 == 2) + (g3 == 2)
                            jgm = gj[ones * 5 + twos]
                            if jgm == 0:
                                continue
                            for a0 in range(gstart[k0 + g0], gstart[k0 + g0 + 1]):
                                m0 = moves[a0]
                                for a1 in range(gstart[k1 + g1], gstart[k1 + g1 + 1]):
                                    m1 = moves[a1]
                                    kk01 = (m0 & 3) + (m1 & 3)
                                    if kk01 > budget:
                                        continue
                                    for a2 in range(gstart[k2 + g2], gstart[k2 + g2 + 1]):
                                        m2 = moves[a2]
                                        kk012 = kk01 + (m2 & 3)
                                        if kk012 > budget:
                                            continue
                                        for a3 in range(gstart[k3 + g3], gstart[k3 + g3 + 1]):
                                            m3 = moves[a3]
                                            ksum = kk012 + (m3 & 3)
                                            if ksum > budget:
                                                continue
                                            base = (
                                                ((m0 >> 2) & 63)
                                                | (((m1 >> 2) & 63) << 6)
                                                | (((m2 >> 2) & 63) << 12)
                                                | (((m3 >> 2) & 63) << 18)
                                            )
                                            x0 = (m0 >> 9) & 3
                                            x1 = (m1 >> 9) & 3
                                            x2 = (m2 >> 9) & 3
                                            x3 = (m3 >> 9) & 3
                                            xs = x0 | (x1 << 2) | (x2 << 4) | (x3 << 6)
                                            real = x0 + x1 + x2 + x3 - tsum[i]
                                            for jg in range(3):
                                                if (jgm >> jg) & 1 == 0 or ksum + jg > budget:
                                                    continue
                                                kb = ksum + jg
                                                cap = 0
                                                if threshold > 0:
                                                    cap = min(threshold, pts + v * (real + kb))
                                                nb = base | ((jb + kb) << 24) | (cap << 29)
                                                for r in range(kb + 1):
                                                    jr2 = jr + r
                                                    if jr2 > rack_j or jb + kb - jr2 > tbl_j:
                                                        continue
                                                    placed = real + r
                                                    if tiles_obj:
                                                        gain = placed * 8192 + v * placed
                                                    else:
                                                        gain = v * placed * 512 + placed
                                                    nkey = nb | (jr2 << 27)
                                                    nval = val + gain
                                                    mk = xs | (r << 8)
                                                    h = ((nkey * 6364136223846793005) >> 32) & (hsize - 1)
                                                    while True:
                                                        slot = hidx[h]
                                                        if slot < 0:
                                                            if nn == size:
                                                                size *= 2
                                                                nk = _grow(nk, nn, size)
                                                                nv = _grow(nv, nn, size)
                                                                npk = _grow(npk, nn, size)
                                                                npg = _grow(npg, nn, size)
                                                                nmk = _grow(nmk, nn, size)
                                                            nk[nn] = nkey
                                                            nv[nn] = nval
                                                            npk[nn] = key
                                                            npg[nn] = cur_g[q]
                                                            nmk[nn] = mk
                                                            hidx[h] = nn
                                                            nn += 1
                                                            if 2 * nn > hsize:
                                                                hsize *= 4
                                                                hidx = _rehash(nk, nn, hsize)
                                                            break
                                                        if nk[slot] == nkey:
                                                            old = nv[slot]
                                                            if nval > old or (
                                                                nval == old
                                                                and (
                                                                    key < npk[slot]
                                                                    or (key == npk[slot] and mk < nmk[slot])
                                                                )
                                                            ):
                                                                nv[slot] = nval
                                                                npk[slot] = key
                                                                npg[slot] = cur_g[q]
                                                                nmk[slot] = mk
                                                            break
                                                        h = (h + 1) & (hsize - 1)
        if nn == 0:
            return -1, xs_out
        ncur = 0
        cur_k = np.empty(nn, dtype=np.int64)
        cur_v = np.empty(nn, dtype=np.int64)
        cur_g = np.empty(nn, dtype=np.int64)
        if nstore + nn > store_par.size:
            grown = max(2 * store_par.size, nstore + nn)
            store_par = _grow(store_par, nstore, grown)
            store_mk = _grow(store_mk, nstore, grown)
        for r in range(nn):
            key = nk[r]
            val = nv[r]
            dominated = False
            if nn > 32:  # ``_prune_best``: a one- or two-step upgrade of one colour with a value as high
                for c in range(4):
                    sc = (key >> (6 * c)) & 63
                    for u in range(16):
                        d = ups[sc, u]
                        if d == 0:
                            continue
                        other = key + (d << (6 * c))
                        h = ((other * 6364136223846793005) >> 32) & (hsize - 1)
                        while hidx[h] >= 0:
                            if nk[hidx[h]] == other:
                                if nv[hidx[h]] >= val:
                                    dominated = True
                                break
                            h = (h + 1) & (hsize - 1)
                        if dominated:
                            break
                    if dominated:
                        break
            if not dominated:
                store_par[nstore] = npg[r]
                store_mk[nstore] = nmk[r]
                cur_k[ncur] = key
                cur_v[ncur] = val
                cur_g[ncur] = nstore
                nstore += 1
                ncur += 1
        if hsize > 4096:  # after a large layer start small again, as sparse as before
            hsize = 4096
            hidx = np.full(hsize, -1, dtype=np.int64)
        else:
            _unindex(hidx, nk, nn, hsize)
    best = -1
    for q in range(ncur):
        key = cur_k[q]
        jb = (key >> 24) & 7
        jr = (key >> 27) & 3
        if jb - jr != tbl_j or key >> 29 < threshold or cur_v[q] <= 0:
            continue
        if best < 0 or cur_v[q] > cur_v[best] or (cur_v[q] == cur_v[best] and key < cur_k[best]):
            best = q
    if best < 0:
        return -1, xs_out
    g = cur_g[best]
    for i in range(12, -1, -1):
        xs_out[i] = store_mk[g] & 255
        g = store_par[g]
    return (cur_k[best] >> 27) & 3, xs_out


def _best_bounds_sweep(table, rack, lohi_table, threshold, tiles_obj, gstart, moves, gj, ups):  # pragma: no cover
    """``_best_kernel_sweep`` on the count vectors ``table``/``rack`` (int64 (53,)), the bounds
    (``kernel._lohi_capc`` of ``table..table + rack``, the table's tiles per number) built and
    the play read back compiled.  Returns ``(found, play)``, ``play`` int64 (53,)."""
    lohi = np.empty((13, 4), dtype=np.int64)
    capc = np.empty((13, 4), dtype=np.int64)
    tsum = np.zeros(13, dtype=np.int64)
    for c in range(4):
        for i in range(13):
            t = c * 13 + i
            hi = table[t] + rack[t]
            lohi[i, c] = lohi_table[table[t] * 3 + hi]
            cap1 = table[t + 1] + rack[t + 1] + 1 if i + 1 < 13 else 0
            cap2 = table[t + 2] + rack[t + 2] + 1 if i + 2 < 13 else 0
            capc[i, c] = cap1 * 4 + cap2
            tsum[i] += table[t]
    jr, xs = _best_kernel_sweep(
        lohi, capc, tsum, table[JOKER], rack[JOKER], threshold, tiles_obj, gstart, moves, gj, ups
    )
    play = np.zeros(53, dtype=np.int64)
    if jr < 0:
        return False, play
    for c in range(4):
        for i in range(13):
            play[c * 13 + i] = ((xs[i] >> (2 * c)) & 3) - table[c * 13 + i]
    play[JOKER] = jr
    return True, play


# the growth and hashing helpers of the labelled sweep; compiled by ``kernel._kernel()``
_grow, _rehash, _unindex = _kernel_mod._grow, _kernel_mod._rehash, _kernel_mod._unindex


def _best_kernel():
    """The compiled best-play sweep as ``f(table, rack, threshold, objective) -> play | None``, or False.

    ``table``, ``rack``: count vectors (53,) int64; ``threshold > 0`` only with an empty table
    (the rack-only initial meld).  Returns the play's counts (53,) int64, or None.
    """
    global _BEST
    if _BEST is None:
        _BEST = False
        if _kernel_mod._USE_NUMBA:
            try:
                import numba
            except ImportError:
                return False
            if not _kernel_mod._kernel():
                return False
            gstart, moves, gj, ups = _kernel_mod._shared_tables()
            jit = numba.njit(cache=True, nogil=True)
            global _grow, _rehash, _unindex, _best_kernel_sweep
            _grow, _rehash, _unindex = _kernel_mod._grow, _kernel_mod._rehash, _kernel_mod._unindex  # compiled now
            _best_kernel_sweep = jit(_best_kernel_sweep)  # before the entry compiles: it binds it
            compiled = noting_compile(jit(_best_bounds_sweep), "the Rummikub solver")  # says so if it compiles

            def run(table: np.ndarray, rack: np.ndarray, threshold: int, objective: str):
                found, play = compiled(
                    table if table.dtype == np.int64 else table.astype(np.int64),
                    rack if rack.dtype == np.int64 else rack.astype(np.int64),
                    _kernel_mod._LOHI_TABLE,
                    max(int(threshold), 0),
                    objective == "tiles",
                    gstart,
                    moves,
                    gj,
                    ups,
                )
                return play if found else None

            _BEST = run
    return _BEST
