"""The optional numba kernel of the product sweep: ``table_play._product_sweep_py`` compiled.

The product sweep decides the initial meld with table play (R-RK-07,
``initial_meld_table_play=True``) when no witness does: its states pair an arrangement of
the initial meld P1 (side A, rack tiles only) with one of table + P (side B), plus P1's
points capped at the threshold, and a move pairs an A move and a B move of the same number
with P1 <= P tile by tile.  Same moves (the colour-move table of ``kernel``), same "done" A
(points reached and only runs of 3+ open: it closes them and adds nothing more), same
pruning (a done A or the full points with the same B; a one-step stronger B with the same
A and points; tokens taken out of labels as ``sweeps._prune`` explains) and the same
answers as the Python sweep: ``(some legal P exists, the mask bits of those P)``.

A state is one int64 key: B's colour states and jokers (bits 0..26), A's colour states
and jokers (27..52), the capped points (53..62; the caller keeps ``threshold`` below
``MAX_THRESHOLD``).  A side's joint moves at a number are listed once per state (A's once
per A code: the layer is visited in A order), deduplicated, packed as ``next colour states
(24 bits) | jokers << 24 | real tiles per colour << 26 (2 bits each) | extra colours << 34``.
"""

from __future__ import annotations

import numpy as np

from rummy_env.core.compile_notice import noting_compile
from rummy_env.core.rummikub_solver import kernel as _kernel_mod
from rummy_env.core.tiles import JOKER

#: Highest threshold the packed key holds (10 bits of points, ``done = threshold + 1``); an
#: initial meld is at most 754 points (every tile, jokers at 13), so only absurd thresholds
#: go to the Python sweep.
MAX_THRESHOLD = 1000

_PRODUCT = None  # None: not tried yet; False: unavailable; else the wrapper


def _side_moves(ks, gstart, moves, gj, budget, extras_mode, out, seen, seen_used):  # pragma: no cover - compiled
    """Deduplicated joint moves of one side at one number into ``out``; returns their count.

    ``ks``: the four colours' move-table keys (``kernel._kernel_tables``); ``budget``: jokers
    the side may still use.  ``extras_mode``: 0 drops the extra colours (side A), 1 keeps
    them all (unordered labels), 2 keeps the lowest only (ordered labels read no other).
    Groups take 0-2 jokers by the group table ``gj``, as ``transitions._transitions``.
    ``seen`` (a hash set, -1 = free, a power of two at least 4x ``out``) is left empty again.
    Returns -1 when ``out`` is too small (nothing kept).
    """
    n = 0
    hmask = seen.size - 1
    k0, k1, k2, k3 = ks[0], ks[1], ks[2], ks[3]
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
                                    xs = (
                                        ((m0 >> 9) & 3)
                                        | (((m1 >> 9) & 3) << 2)
                                        | (((m2 >> 9) & 3) << 4)
                                        | (((m3 >> 9) & 3) << 6)
                                    )
                                    ex = 0
                                    if extras_mode != 0:
                                        ex = (
                                            ((m0 >> 8) & 1)
                                            | (((m1 >> 8) & 1) << 1)
                                            | (((m2 >> 8) & 1) << 2)
                                            | (((m3 >> 8) & 1) << 3)
                                        )
                                        if extras_mode == 2:
                                            ex &= -ex
                                    val = base | (xs << 26) | (ex << 34)
                                    for jg in range(3):
                                        if (jgm >> jg) & 1 == 0 or ksum + jg > budget:
                                            continue
                                        v2 = val | ((ksum + jg) << 24)
                                        h = ((v2 * 6364136223846793005) >> 32) & hmask
                                        while seen[h] >= 0 and seen[h] != v2:
                                            h = (h + 1) & hmask
                                        if seen[h] == v2:
                                            continue
                                        if n == out.size:  # full: the caller grows the buffers
                                            for r in range(n):
                                                seen[seen_used[r]] = -1
                                            return -1
                                        seen[h] = v2
                                        seen_used[n] = h
                                        out[n] = v2
                                        n += 1
    for r in range(n):
        seen[seen_used[r]] = -1
    return n


def _product_kernel_sweep(
    lohi_a,
    capc_a,
    lohi_b,
    capc_b,
    tbl_x,
    tbl_j,
    rack_j,
    ch_j,
    threshold,
    ordered,
    gstart,
    moves,
    gj,
    ups,
    long_only,
    start_size,
):  # pragma: no cover - compiled
    """The product sweep on per-number bounds (int64 (13, 4) each: A's ``0..rack``, B's
    ``table + chosen..table + rack``; ``tbl_x[i, c]`` the table's tiles).  Returns (found, bits).

    Each layer lists the moves of each distinct A code and B code once (``_cached_moves``).
    ``start_size``: the first size of the growable buffers (1024; the tests shrink it to
    exercise the growth).
    """
    ja_max = rack_j
    jb_max = tbl_j + rack_j
    done = threshold + 1
    none_yet = np.int64(1) << 53
    work = (
        np.empty(start_size, dtype=np.int64),
        np.full(4 * start_size, -1, dtype=np.int64),
        np.empty(start_size, dtype=np.int64),
    )
    ks = np.empty(4, dtype=np.int64)
    buf_a = np.empty(start_size, dtype=np.int64)
    buf_b = np.empty(start_size, dtype=np.int64)
    ncur = 1
    cur_c = np.zeros(1, dtype=np.int64)
    cur_l = np.zeros(1, dtype=np.int64)
    if ordered:
        cur_l[0] = none_yet
    # the modes and counters as int64, not literals: numba compiles _cached_moves and
    # _side_moves once per argument type, and a literal 0 is a type of its own
    mode_a = np.int64(0)
    mode_b = np.int64(2 if ordered else 1)
    hsize = 4096
    hidx = np.full(hsize, -1, dtype=np.int64)
    for i in range(13):
        v = i + 1
        nxt_c = np.empty(start_size, dtype=np.int64)
        nxt_l = np.empty(start_size, dtype=np.int64)
        nn = 0
        msize = 16
        while msize < 2 * ncur:
            msize *= 2
        map_a = (np.full(msize, -1, dtype=np.int64), np.empty(msize, dtype=np.int64), np.empty(msize, dtype=np.int64))
        map_b = (np.full(msize, -1, dtype=np.int64), np.empty(msize, dtype=np.int64), np.empty(msize, dtype=np.int64))
        used_a = np.int64(0)
        used_b = np.int64(0)
        for q in range(ncur):
            key = cur_c[q]
            lab = cur_l[q]
            cb = key & ((1 << 27) - 1)
            ca = (key >> 27) & ((1 << 26) - 1)
            pts = key >> 53
            jb = cb >> 24
            ja = ca >> 24
            is_done = pts == done
            sa = na_moves = 0
            if not is_done:
                sa, na_moves, buf_a, used_a, work = _cached_moves(
                    ca, ja_max - ja, mode_a, i, lohi_a, capc_a, gstart, moves, gj, ks, work, map_a, buf_a, used_a
                )
                if na_moves == 0:
                    continue
            sb, nb_moves, buf_b, used_b, work = _cached_moves(
                cb, jb_max - jb, mode_b, i, lohi_b, capc_b, gstart, moves, gj, ks, work, map_b, buf_b, used_b
            )
            for ib in range(sb, sb + nb_moves):
                mb = buf_b[ib]
                ncb = (mb & ((1 << 24) - 1)) | ((jb + ((mb >> 24) & 3)) << 24)
                ex = (mb >> 34) & 15
                extras = (
                    ((ex & 1) << i)
                    | (((ex >> 1) & 1) << (13 + i))
                    | (((ex >> 2) & 1) << (26 + i))
                    | ((ex >> 3) << (39 + i))
                )
                nlab = lab | extras
                if ordered and extras != 0:  # sweeps._add_extras, no stand-ins
                    low = extras & -extras
                    nlab = lab & (low - 1)
                    if lab & ~(low - 1) != 0:
                        nlab |= low
                if is_done:
                    nn, nxt_c, nxt_l, hidx, hsize = _insert(
                        ncb | (ca << 27) | (done << 53), nlab, nxt_c, nxt_l, nn, hidx, hsize
                    )
                    continue
                # room left per colour on B for P1: (x_b - table) with a guard bit per 3-bit field
                xb = (mb >> 26) & 255
                room = 0
                for c in range(4):
                    room |= ((((xb >> (2 * c)) & 3) - tbl_x[i, c]) | 4) << (3 * c)
                for ia in range(sa, sa + na_moves):
                    ma = buf_a[ia]
                    xa = (ma >> 26) & 255
                    need = (xa & 3) | (((xa >> 2) & 3) << 3) | (((xa >> 4) & 3) << 6) | ((xa >> 6) << 9)
                    if (room - need) & 0x924 != 0x924:
                        continue
                    ka = (ma >> 24) & 3
                    nreal = (xa & 3) + ((xa >> 2) & 3) + ((xa >> 4) & 3) + (xa >> 6)
                    p2 = min(threshold, pts + v * (nreal + ka))
                    nca = (ma & ((1 << 24) - 1)) | ((ja + ka) << 24)
                    if (
                        p2 == threshold
                        and long_only[nca & 63]
                        and long_only[(nca >> 6) & 63]
                        and long_only[(nca >> 12) & 63]
                        and long_only[(nca >> 18) & 63]
                    ):
                        nca = (ja + ka) << 24
                        p2 = done
                    nn, nxt_c, nxt_l, hidx, hsize = _insert(
                        ncb | (nca << 27) | (p2 << 53), nlab, nxt_c, nxt_l, nn, hidx, hsize
                    )
        if nn == 0:
            return False, 0
        ncur = 0
        cur_c = np.empty(nn, dtype=np.int64)
        cur_l = np.empty(nn, dtype=np.int64)
        for r in range(nn):
            key = nxt_c[r]
            lab = nxt_l[r]
            if nn > 32 and i < 12:
                lab = _product_dominated(key, lab, nxt_c, nxt_l, hidx, hsize, ups, threshold, done)
                if lab < 0:
                    continue
            cur_c[ncur] = key
            cur_l[ncur] = lab
            ncur += 1
        if hsize > 4096:
            hsize = 4096
            hidx = np.full(hsize, -1, dtype=np.int64)
        else:
            _unindex(hidx, nxt_c, nn, hsize)
    found = False
    bits = 0
    jlo = tbl_j + ch_j
    for q in range(ncur):
        key = cur_c[q]
        lab = cur_l[q]
        jb = (key >> 24) & 7
        ja = (key >> 51) & 3
        if key >> 53 >= threshold and jb >= jlo and ja <= jb - tbl_j:
            found = True
            if ordered:  # sweeps._fold_label
                bits |= lab & ((1 << 52) - 1)
                if lab & none_yet and jb > jlo:
                    bits |= 1 << 52
            else:
                bits |= lab
                if jb > jlo:
                    bits |= 1 << 52
    return found, bits


def _cached_moves(code, budget, mode, i, lohi, capc, gstart, moves, gj, ks, work, mp, buf, used):  # pragma: no cover
    """The joint moves of one side's ``code`` at number ``i + 1`` (``_side_moves``), listed once
    per layer: ``mp`` maps codes to their run ``buf[start:start + count]``.  ``work``: the
    scratch buffers of ``_side_moves``, grown when too small.  Returns ``(start, count, buf,
    used, work)``."""
    keys, starts, counts = mp
    hmask = keys.size - 1
    h = ((code * 6364136223846793005) >> 32) & hmask
    while keys[h] >= 0 and keys[h] != code:
        h = (h + 1) & hmask
    if keys[h] == code:
        return starts[h], counts[h], buf, used, work
    for c in range(4):
        ks[c] = 4 * (((((code >> (6 * c)) & 63) * 6 + lohi[i, c]) * 3 + budget) * 16 + capc[i, c])
    while True:
        n = _side_moves(ks, gstart, moves, gj, budget, mode, work[0], work[1], work[2])
        if n >= 0:
            break
        m = 4 * work[0].size
        work = (np.empty(m, dtype=np.int64), np.full(4 * m, -1, dtype=np.int64), np.empty(m, dtype=np.int64))
    if used + n > buf.size:
        buf = _grow(buf, used, max(2 * buf.size, used + n))
    buf[used : used + n] = work[0][:n]
    keys[h] = code
    starts[h] = used
    counts[h] = n
    return used, n, buf, used + n, work


def _insert(key, lab, keys, labs, nn, hidx, hsize):  # pragma: no cover - compiled
    """OR ``lab`` into the label of ``key`` in the layer (``keys``/``labs``, ``nn`` entries,
    open-addressing index ``hidx`` of ``hsize`` slots), adding the key if new; the arrays
    grow as needed.  Returns ``(nn, keys, labs, hidx, hsize)``."""
    h = ((key * 6364136223846793005) >> 32) & (hsize - 1)
    while True:
        slot = hidx[h]
        if slot < 0:
            if nn == keys.size:
                keys = _grow(keys, nn, 2 * nn)
                labs = _grow(labs, nn, 2 * nn)
            keys[nn] = key
            labs[nn] = lab
            hidx[h] = nn
            nn += 1
            if 2 * nn > hsize:
                hsize *= 4
                hidx = _rehash(keys, nn, hsize)
            return nn, keys, labs, hidx, hsize
        if keys[slot] == key:
            labs[slot] |= lab
            return nn, keys, labs, hidx, hsize
        h = (h + 1) & (hsize - 1)


def _product_dominated(key, lab, keys, labs, hidx, hsize, ups, threshold, done):  # pragma: no cover - compiled
    """What ``table_play._prune_product`` keeps of ``lab``: -1 when the state can go.

    Dominators with the same B: the done A with the same A jokers and the same A with the
    full points (both do whatever this A does, adding no more to P1 <= P); with the same A
    and points: a one-step stronger B (``sweeps._dominated``).  Each takes its tokens out of
    the label (the layer's labels as they came); the state goes when a dominator exists and
    no token is left.
    """
    rem = lab
    pts = key >> 53
    if pts != done:
        hit = False
        ja_part = ((key >> 51) & 3) << 51
        twin = (key & ((1 << 27) - 1)) | ja_part | (done << 53)
        s = _find(hidx, keys, hsize, twin)
        if s >= 0:
            rem &= ~labs[s]
            hit = True
        if pts != threshold:
            s = _find(hidx, keys, hsize, (key & ((1 << 53) - 1)) | (threshold << 53))
            if s >= 0:
                rem &= ~labs[s]
                hit = True
        if hit and rem == 0:
            return -1
    for c in range(4):
        sc = (key >> (6 * c)) & 63
        for u in range(4):
            d = ups[sc, u]
            if d == 0:
                continue
            s = _find(hidx, keys, hsize, key + (d << (6 * c)))
            if s >= 0:
                rem &= ~labs[s]
                if rem == 0:
                    return -1
    return rem


def _product_bounds_sweep(
    table, rack, chosen, threshold, ordered, lohi_table, gstart, moves, gj, ups, long_only, start_size
):  # pragma: no cover - compiled
    """``_product_kernel_sweep`` on the count vectors (int64 (53,)): the per-number bounds of
    both sides built compiled.  Returns (found, bits)."""
    lohi_a = np.empty((13, 4), dtype=np.int64)
    capc_a = np.empty((13, 4), dtype=np.int64)
    lohi_b = np.empty((13, 4), dtype=np.int64)
    capc_b = np.empty((13, 4), dtype=np.int64)
    tbl_x = np.empty((13, 4), dtype=np.int64)
    for c in range(4):
        for i in range(13):
            t = c * 13 + i
            lohi_a[i, c] = lohi_table[rack[t]]
            lohi_b[i, c] = lohi_table[(table[t] + chosen[t]) * 3 + table[t] + rack[t]]
            tbl_x[i, c] = table[t]
            cap1a = rack[t + 1] + 1 if i + 1 < 13 else 0
            cap2a = rack[t + 2] + 1 if i + 2 < 13 else 0
            capc_a[i, c] = cap1a * 4 + cap2a
            cap1b = table[t + 1] + rack[t + 1] + 1 if i + 1 < 13 else 0
            cap2b = table[t + 2] + rack[t + 2] + 1 if i + 2 < 13 else 0
            capc_b[i, c] = cap1b * 4 + cap2b
    return _product_kernel_sweep(
        lohi_a,
        capc_a,
        lohi_b,
        capc_b,
        tbl_x,
        table[JOKER],
        rack[JOKER],
        chosen[JOKER],
        threshold,
        ordered,
        gstart,
        moves,
        gj,
        ups,
        long_only,
        start_size,
    )


# the hashing helpers of the labelled sweep; the compiled ones once ``kernel._kernel()`` ran
_grow, _rehash, _unindex, _find = _kernel_mod._grow, _kernel_mod._rehash, _kernel_mod._unindex, _kernel_mod._find


def _product_kernel():
    """The compiled product sweep as ``f(table, rack, chosen, threshold, ordered) -> (found, bits)``,
    or False (no numba, or ``RUMMY_ENV_NO_NUMBA=1``).

    ``table``, ``rack``, ``chosen``: count vectors (53,) as ``table_play._product_sweep``
    takes them; ``1 <= threshold <= MAX_THRESHOLD``; an optional ``start_size`` (>= 1, default
    1024, a power of two) sets the first size of the growable buffers (answers do not depend on it).
    """
    global _PRODUCT
    if _PRODUCT is None:
        _PRODUCT = False
        if _kernel_mod._USE_NUMBA:
            try:
                import numba
            except ImportError:
                return False
            if not _kernel_mod._kernel():
                return False
            gstart, moves, gj, ups = _kernel_mod._shared_tables()
            jit = numba.njit(cache=True, nogil=True)
            global _grow, _rehash, _unindex, _find, _side_moves, _cached_moves, _insert, _product_dominated
            global _product_kernel_sweep
            _grow, _rehash, _unindex, _find = (
                _kernel_mod._grow,
                _kernel_mod._rehash,
                _kernel_mod._unindex,
                _kernel_mod._find,
            )  # compiled now
            _side_moves = jit(_side_moves)  # before the sweep compiles: it binds the globals it calls
            _cached_moves = jit(_cached_moves)
            _insert = jit(_insert)
            _product_dominated = jit(_product_dominated)
            _product_kernel_sweep = jit(_product_kernel_sweep)
            compiled = noting_compile(jit(_product_bounds_sweep), "the Rummikub solver")  # says so if it compiles

            def run(
                table: np.ndarray,
                rack: np.ndarray,
                chosen: np.ndarray,
                threshold: int,
                ordered: bool,
                start_size: int = 1024,
            ) -> tuple[bool, int]:
                if start_size < 1 or start_size & (start_size - 1):
                    raise ValueError(f"start_size must be a power of two >= 1 (a hash set's size), got {start_size}")
                found, bits = compiled(
                    table.astype(np.int64),
                    rack.astype(np.int64),
                    chosen.astype(np.int64),
                    int(threshold),
                    bool(ordered),
                    _kernel_mod._LOHI_TABLE,
                    gstart,
                    moves,
                    gj,
                    ups,
                    _kernel_mod._LONG_ONLY_TABLE,
                    int(start_size),
                )
                return bool(found), int(bits)

            _PRODUCT = run
    return _PRODUCT
