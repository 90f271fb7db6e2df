"""The optional numba kernel: the labelled sweep of ``sweeps`` compiled, same moves and answers."""

from __future__ import annotations

import os

import numpy as np

from rummy_env.core.rummikub_solver.tables import _CSTATES, _GROUP_JOKERS, _UPGRADES, _UPGRADES2, _colour_moves
from rummy_env.core.tiles import JOKER, NUM_COLOURS, NUM_NUMBERS

# ---------------------------------------------------------------------------------------
# Optional compiled kernel.  ``_label_sweep`` and ``_reachable`` dominate the env's cost;
# when numba is installed the same sweep (same colour moves, same group table, same
# canonical rules) runs compiled, about two orders of magnitude faster.  Set the
# environment variable RUMMY_ENV_NO_NUMBA=1 (or ``_USE_NUMBA = False``) for the
# pure-Python path; both are tested against the same oracles.

_USE_NUMBA = os.environ.get("RUMMY_ENV_NO_NUMBA", "") in ("", "0")
_KERNEL = None  # None: not tried yet; False: unavailable; else the wrapper
_LOHI_INDEX = {(lo, hi): k for k, (lo, hi) in enumerate((lo, hi) for lo in range(3) for hi in range(lo, 3))}


def _kernel_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Flat tables for the kernel.

    Colour moves: key ``((s * 6 + lohi) * 3 + budget) * 16 + (cap1 + 1) * 4 + (cap2 + 1)``;
    the moves sending ``g`` tiles to groups are ``moves[gstart[4 * key + g]:gstart[4 * key
    + g + 1]]``, each ``k | next << 2 | extra << 8 | x << 9`` (``x`` real tiles used).  Group table: bit ``jg`` of
    ``gj[a * 5 + b]`` = jg jokers complete the groups of ``a`` colours with one tile and
    ``b`` colours with two.  Upgrades: ``ups[s, :4]`` = ``_UPGRADES[s]``, ``ups[s, 4:]`` =
    ``_UPGRADES2[s]``, padded with 0.
    """
    gstart = [0]
    moves: list[int] = []
    for s in range(len(_CSTATES)):
        for lo, hi in _LOHI_INDEX:
            for budget in range(3):
                for cap1 in range(-1, 3):
                    for cap2 in range(-1, 3):
                        by_g: list[list[int]] = [[], [], []]
                        for g, k, nxt, x in _colour_moves(s, lo, hi, budget, cap1, cap2):
                            by_g[g].append(k | nxt << 2 | int(x > lo) << 8 | x << 9)
                        for g in range(3):
                            moves.extend(by_g[g])
                            gstart.append(len(moves))
                        gstart.append(len(moves))  # pad to 4 entries per key
    gstart = gstart[:-1]
    gj = np.zeros(25, dtype=np.int64)
    for (a, b), jgs in _GROUP_JOKERS.items():
        gj[a * 5 + b] = sum(1 << jg for jg in jgs)
    ups = np.zeros((len(_CSTATES), 16), dtype=np.int64)
    for i, deltas in enumerate(_UPGRADES):
        ups[i, : len(deltas)] = deltas
    for i, deltas in enumerate(_UPGRADES2):
        ups[i, 4 : 4 + len(deltas)] = deltas
    return np.array(gstart, dtype=np.int64), np.array(moves, dtype=np.int64), gj, ups


def _kernel_sweep(  # pragma: no cover - compiled
    lohi, capc, jlo, jhi, gstart, moves, gj, ups, ordered, threshold, labels=True, prune_min=32, prune_two=64
):
    """Compiled twin of ``_label_sweep_py``: same moves and answers.  Returns (found, bits).

    Pruning (``_dominated``) on layers of more than ``prune_min`` codes: one-step upgrades
    and fewer jokers; above ``prune_two`` codes also the two-step upgrades (on small layers
    their look-ups cost what they save).  The joker bit joins a label on the move whose
    jokers pass ``jlo`` (the fold of ``_fold_label``, done early so that codes with fewer
    jokers can stand in for codes with more).

    ``labels=False`` only answers whether an arrangement exists (bits 0): every label is
    empty, so any stronger code prunes a weaker one.

    With ``threshold > 0`` it is the twin of ``_label_sweep_points`` instead: the points
    so far, capped at ``threshold``, sit in the code above bit 27 (pruning compares codes
    with the same points only: the upgrades change colour states, never that field), and
    only codes that reached the threshold accept.

    ``lohi``/``capc``: int64 (13, 4) per-number per-colour bound index and cap code.
    Each layer is kept in insertion-ordered arrays plus an open-addressing hash index
    (measured faster here than rows [code, label] in the hash table itself).
    """
    ncur = 1
    cur_c = np.zeros(1, dtype=np.int64)
    cur_l = np.zeros(1, dtype=np.int64)
    if ordered and labels:
        cur_l[0] = 1 << 53  # _NONE_YET
    for i in range(13):
        size = 1024
        nxt_c = np.empty(size, dtype=np.int64)
        nxt_l = np.empty(size, dtype=np.int64)
        hsize = 4096
        hidx = np.full(hsize, -1, dtype=np.int64)
        nn = 0
        for q in range(ncur):
            code = cur_c[q]
            lab = cur_l[q]
            j = (code >> 24) & 7
            pts = code >> 27
            budget = jhi - j
            k0 = 4 * ((((code & 63) * 6 + lohi[i, 0]) * 3 + budget) * 16 + capc[i, 0])
            k1 = 4 * (((((code >> 6) & 63) * 6 + lohi[i, 1]) * 3 + budget) * 16 + capc[i, 1])
            k2 = 4 * (((((code >> 12) & 63) * 6 + lohi[i, 2]) * 3 + budget) * 16 + capc[i, 2])
            k3 = 4 * (((((code >> 18) & 63) * 6 + lohi[i, 3]) * 3 + budget) * 16 + capc[i, 3])
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
                                            extras = 0
                                            if (m0 >> 8) & 1:
                                                extras |= 1 << i
                                            if (m1 >> 8) & 1:
                                                extras |= 1 << (13 + i)
                                            if (m2 >> 8) & 1:
                                                extras |= 1 << (26 + i)
                                            if (m3 >> 8) & 1:
                                                extras |= 1 << (39 + i)
                                            nlab = lab | extras
                                            if ordered and extras != 0:  # _add_extras
                                                low = extras & -extras
                                                nlab = lab & (low - 1)
                                                if lab & ~(low - 1) != 0:
                                                    nlab |= low
                                            nreal = 0
                                            if threshold > 0:
                                                nreal = (
                                                    ((m0 >> 9) & 3)
                                                    + ((m1 >> 9) & 3)
                                                    + ((m2 >> 9) & 3)
                                                    + ((m3 >> 9) & 3)
                                                )
                                            for jg in range(3):
                                                if (jgm >> jg) & 1 == 0 or ksum + jg > budget:
                                                    continue
                                                jn = j + ksum + jg
                                                ncode = base | (jn << 24)
                                                nl = nlab
                                                if jn > jlo:  # a joker above its lower bound: the extra type 52
                                                    if ordered:
                                                        if nl >> 52 != 0:
                                                            nl = (nl & ((1 << 52) - 1)) | (1 << 52)
                                                    else:
                                                        nl |= 1 << 52
                                                if not labels:
                                                    nl = 0
                                                if threshold > 0:
                                                    npts = min(threshold, pts + (i + 1) * (nreal + ksum + jg))
                                                    ncode |= npts << 27
                                                h = ((ncode * 6364136223846793005) >> 32) & (hsize - 1)
                                                while True:
                                                    slot = hidx[h]
                                                    if slot < 0:
                                                        if nn == size:
                                                            size *= 2
                                                            tmp_c = np.empty(size, dtype=np.int64)
                                                            tmp_l = np.empty(size, dtype=np.int64)
                                                            tmp_c[:nn] = nxt_c[:nn]
                                                            tmp_l[:nn] = nxt_l[:nn]
                                                            nxt_c = tmp_c
                                                            nxt_l = tmp_l
                                                        nxt_c[nn] = ncode
                                                        nxt_l[nn] = nl
                                                        hidx[h] = nn
                                                        nn += 1
                                                        if 2 * nn > hsize:
                                                            hsize *= 4
                                                            hidx = np.full(
                                                                hsize,
                                                                -1,
                                                                dtype=np.int64,
                                                            )
                                                            for r in range(nn):
                                                                hh = ((nxt_c[r] * 6364136223846793005) >> 32) & (
                                                                    hsize - 1
                                                                )
                                                                while hidx[hh] >= 0:
                                                                    hh = (hh + 1) & (hsize - 1)
                                                                hidx[hh] = r
                                                        break
                                                    if nxt_c[slot] == ncode:
                                                        nxt_l[slot] |= nl
                                                        break
                                                    h = (h + 1) & (hsize - 1)
        if nn == 0:
            return False, 0
        ncur = 0
        cur_c = np.empty(nn, dtype=np.int64)
        cur_l = np.empty(nn, dtype=np.int64)
        two_step = nn > prune_two
        for r in range(nn):
            code = nxt_c[r]
            lab = nxt_l[r]
            if nn > prune_min and i < 12 and _dominated(code, lab, nxt_c, nxt_l, hidx, hsize, ups, jlo, two_step):
                continue  # the last layer is only read
            cur_c[ncur] = code
            cur_l[ncur] = lab
            ncur += 1
    found = False
    bits = 0
    for q in range(ncur):
        if (cur_c[q] >> 24) & 7 >= jlo and cur_c[q] >> 27 >= threshold:
            found = True
            bits |= cur_l[q] & ((1 << 53) - 1)  # the joker bit is in the label already
    return found, bits


def _find(hidx, keys, hsize, key):  # pragma: no cover - compiled
    """Slot of ``key`` in the open-addressing index ``hidx`` over ``keys``, or -1."""
    h = ((key * 6364136223846793005) >> 32) & (hsize - 1)
    while hidx[h] >= 0:
        if keys[hidx[h]] == key:
            return hidx[h]
        h = (h + 1) & (hsize - 1)
    return -1


def _dominated(code, lab, keys, labs, hidx, hsize, ups, jlo, two_step):  # pragma: no cover - compiled
    """True when a code of the layer can copy every completion of ``code`` with a superset label.

    As ``sweeps._prune`` (one-step upgrades of a colour; with ``two_step`` also two steps
    of one colour and one step of two colours), plus fewer jokers: a code with the same
    colour states and ``jlo <= j' < j`` jokers used copies each completion with the same
    tiles and still ends with at least ``jlo`` jokers; the joker bit is already in the
    label once ``j > jlo`` (set on the move that passes ``jlo``), so the copy's labels are
    a superset too (ordered labels: that move turned "none yet" into the joker).
    """
    j = (code >> 24) & 7
    for dj in range(1, 3):
        if j - dj >= jlo:
            s = _find(hidx, keys, hsize, code - (dj << 24))
            if s >= 0 and lab & ~labs[s] == 0:
                return True
    top = 16 if two_step else 4
    for c in range(4):
        sc = (code >> (6 * c)) & 63
        for u in range(top):
            d = ups[sc, u]
            if d == 0:
                continue
            s = _find(hidx, keys, hsize, code + (d << (6 * c)))
            if s >= 0 and lab & ~labs[s] == 0:
                return True
    if two_step:
        for a in range(4):
            sa = (code >> (6 * a)) & 63
            for ua in range(4):
                da = ups[sa, ua]
                if da == 0:
                    continue
                for b in range(a + 1, 4):
                    sb = (code >> (6 * b)) & 63
                    for ub in range(4):
                        db = ups[sb, ub]
                        if db == 0:
                            continue
                        s = _find(hidx, keys, hsize, code + (da << (6 * a)) + (db << (6 * b)))
                        if s >= 0 and lab & ~labs[s] == 0:
                            return True
    return False


_LOHI_TABLE = np.full(9, -1, dtype=np.int64)
for (_lo, _hi), _k in _LOHI_INDEX.items():
    _LOHI_TABLE[_lo * 3 + _hi] = _k
_TABLES: tuple | None = None


def _shared_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``_kernel_tables()``, built once per process (the label and the best-play kernels share them)."""
    global _TABLES
    if _TABLES is None:
        _TABLES = _kernel_tables()
    return _TABLES


def _lohi_capc(lo: np.ndarray, hi: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per number and colour (int64 (13, 4)): the index of ``(lo, hi)`` and the cap code
    ``(cap1 + 1) * 4 + cap2 + 1`` (the hi of the next two numbers, -1 past 13)."""
    lo2 = lo[:52].reshape(NUM_COLOURS, NUM_NUMBERS)
    hi2 = hi[:52].reshape(NUM_COLOURS, NUM_NUMBERS)
    lohi = _LOHI_TABLE[lo2 * 3 + hi2].T.copy()
    pad = np.zeros((NUM_COLOURS, NUM_NUMBERS + 2), dtype=np.int64)
    pad[:, :NUM_NUMBERS] = hi2 + 1
    capc = (pad[:, 1 : NUM_NUMBERS + 1] * 4 + pad[:, 2:]).T.copy()
    return lohi, capc


def _kernel():
    """The compiled sweep as ``f(lo, hi, ordered=False, threshold=0, labels=True) -> (found, bits)``, or False.

    ``threshold > 0``: only arrangements worth that many points count (``_label_sweep_points``).
    """
    global _KERNEL
    if _KERNEL is None:
        _KERNEL = False
        if _USE_NUMBA:
            try:
                import numba
            except ImportError:
                return False
            gstart, moves, gj, ups = _shared_tables()
            jit = numba.njit(cache=True, nogil=True)
            global _find, _dominated
            _find = jit(_find)  # before the sweep compiles: it binds the globals it calls
            _dominated = jit(_dominated)
            compiled = jit(_kernel_sweep)

            def run(
                lo: np.ndarray, hi: np.ndarray, ordered: bool = False, threshold: int = 0, labels: bool = True
            ) -> tuple[bool, int]:
                lohi, capc = _lohi_capc(lo, hi)
                found, bits = compiled(
                    lohi,
                    capc,
                    int(lo[JOKER]),
                    int(hi[JOKER]),
                    gstart,
                    moves,
                    gj,
                    ups,
                    bool(ordered),
                    max(int(threshold), 0),
                    bool(labels),
                )
                return bool(found), int(bits)

            _KERNEL = run
    return _KERNEL
