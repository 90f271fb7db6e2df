"""The optional numba kernel: the labelled sweep of ``sweeps`` compiled, same moves and answers
(its entries on tile counts: ``kernel_bounds``)."""

from __future__ import annotations

import os

import numpy as np

from rummy_env.core.compile_notice import noting_compile
from rummy_env.core.rummikub_solver import kernel_bounds
from rummy_env.core.rummikub_solver.kernel_skyline import _skyline
from rummy_env.core.rummikub_solver.kernel_tables import (  # the tables, re-exported for the callers
    _IDENTITY,
    _LOHI_TABLE,
    _LONG_ONLY_TABLE,
    _kernel_tables,  # noqa: F401
    _lohi_capc,  # noqa: F401
    _shared_tables,
    mirror_bits,
    mirror_counts,
    ordered_masks,
    remap_table,  # noqa: F401
)

# ---------------------------------------------------------------------------------------
# Optional compiled kernel.  ``_label_sweep`` and ``_reachable`` dominate the env's cost;
# when numba is installed the same sweep (same colour moves, same group table, same
# canonical rules) runs compiled, about two orders of magnitude faster.  Set the
# environment variable RUMMY_ENV_NO_NUMBA=1 (or ``_USE_NUMBA = False``) for the
# pure-Python path; both are tested against the same oracles.

_USE_NUMBA = os.environ.get("RUMMY_ENV_NO_NUMBA", "") in ("", "0")
_KERNEL = None  # None: not tried yet; False: unavailable; else the wrapper
#: Room per group pattern in a half (``_half``): a pattern comes from at most two pairs of
#: group counts, each at most 9 x 9 moves (``_kernel_tables`` checks the 9).
_HALF_CAP = 256


def _kernel_sweep(  # pragma: no cover - compiled
    lohi,
    capc,
    jlo,
    jhi,
    gstart,
    moves,
    gj,
    ups,
    ordered,
    threshold,
    labels=True,
    prune_min=32,
    prune_two=64,
    below=0,
    remap=None,
    long_only=None,
    vmask=(1 << 52) - 1,
    block=None,
    work=None,
    split=0,
    roff=0,
):
    """Compiled twin of ``_label_sweep_py``: same moves and answers.  Returns (found, bits).

    The joint moves of a code come from two halves (``_half``: colours 0+1 and 2+3, each
    summed per group pattern with duplicates merged) paired under the group table, as
    ``transitions._move_set`` builds them (measured 15% faster than the four-colour product).

    Pruning (``_dominated``) on layers of more than ``prune_min`` codes: one-step upgrades
    and fewer jokers; above ``prune_two`` codes also the two-step upgrades (on small layers
    their look-ups cost what they save); what is left above ``prune_min`` then against every
    stronger code (``kernel_skyline``; not with points: there it made sweeps 2x slower).
    The joker bit joins a label on the move whose jokers pass ``jlo`` (the fold of
    ``_fold_label``, done early so that codes with fewer jokers can stand in for codes with more).

    ``labels=False`` only answers whether an arrangement exists (bits 0): every label is
    empty, so any stronger code prunes a weaker one.

    With ``threshold > 0`` it is the twin of ``_label_sweep_points`` instead: the points
    so far, capped at ``threshold``, sit in the code above bit 27 (pruning compares codes
    with the same points only: the upgrades change colour states, never that field), and
    only codes that reached the threshold accept.

    ``below > 0`` (ordered): only the types below ``below`` are label values, the jokers
    none (``sweeps._label_sweep_found``); the bits keep "none yet" (bit 53).

    ``remap`` (ordered): the value a new lowest added type ``t`` takes in a label, as
    ``remap[(1 << t) % 67] = 1 << t'`` (powers of two up to 2**53 differ mod 67); ``t'`` is
    ``t`` (``_IDENTITY``) or a type of the same colour and a number no higher that is
    known to be in the answer (``sweeps._ordered_sweep``).

    ``vmask``/``block`` (ordered; ``kernel_tables.ordered_masks``): the label values kept
    (the types below ``below``, or every coloured type) and, per new lowest added type ``t``
    (as ``remap``), the values that stay below it: ``(1 << t) - 1`` in the type order, or
    the colours below ``t``'s when the sweep runs on the mirrored numbers (``mirrored`` of
    ``_kernel()``: 13 down to 1, where a colour's latest added tile is its lowest number).

    ``long_only`` (existence with a threshold, nothing to use: ``labels=False``, ``threshold >
    0``, ``lo`` all zero): ``long_only[s]`` = colour state ``s`` has only runs of 3+ open
    (``tables._LONG_ONLY``); then a code with the points and only such runs can close them and
    use nothing more, so the sweep answers True at once (``sweeps._label_sweep_points``'s stop).

    ``work`` (optional int64 (1,)): the move pairs tried are added to ``work[0]`` (a
    measure of the sweep's cost that is the same on every run, for callers that choose
    between equivalent sweeps, ``vector.rummikub_masks``).

    ``split``/``roff``: the layers ``i < split`` read the moves at keys ``roff`` further on
    (a second move table appended to ``gstart``/``moves``: ``vector.rummikub_jokers``).

    ``lohi``/``capc``: int64 (13, 4) per-number per-colour bound index and cap code.
    Each layer is kept in insertion-ordered arrays plus an open-addressing hash index
    (measured faster here than rows [code, label] in the hash table itself).
    """
    ncur = 1
    cur_c = np.zeros(1, dtype=np.int64)
    cur_l = np.zeros(1, dtype=np.int64)
    if ordered and labels:
        cur_l[0] = 1 << 53  # _NONE_YET
    cap = _HALF_CAP
    half_a = np.empty((9, cap), dtype=np.int64)
    half_b = np.empty((9, cap), dtype=np.int64)
    cnt_a = np.zeros(9, dtype=np.int64)
    cnt_b = np.zeros(9, dtype=np.int64)
    seen = np.full(4 * cap, -1, dtype=np.int64)
    seen_used = np.empty(9 * cap, dtype=np.int64)
    # one 4096-slot index for the layers, emptied slot by slot after each (``_unindex``):
    # filling a fresh one at each of the 13 layers was most of a small sweep's time
    hsize = 4096
    hidx = np.full(hsize, -1, dtype=np.int64)
    for i in range(13):
        size = 1024
        nxt_c = np.empty(size, dtype=np.int64)
        nxt_l = np.empty(size, dtype=np.int64)
        nn = 0
        off = roff if i < split else 0
        # codes sharing colours 0+1 and their jokers share half A: visit them together
        order = np.argsort(cur_c[:ncur] & (4095 | (7 << 24)), kind="mergesort")
        last_a = -1
        tot_a = 0
        for r in range(ncur):
            q = order[r]
            code = cur_c[q]
            lab = cur_l[q]
            j = (code >> 24) & 7
            pts = code >> 27
            budget = jhi - j
            key_a = code & (4095 | (7 << 24))
            if key_a != last_a:
                last_a = key_a
                k0 = off + 4 * ((((code & 63) * 6 + lohi[i, 0]) * 3 + budget) * 16 + capc[i, 0])
                k1 = off + 4 * (((((code >> 6) & 63) * 6 + lohi[i, 1]) * 3 + budget) * 16 + capc[i, 1])
                _half(k0, k1, gstart, moves, budget, half_a, cnt_a, seen, seen_used, ordered)
                if work is not None:
                    tot_a = 0
                    for ca in range(9):
                        tot_a += cnt_a[ca]
            k2 = off + 4 * (((((code >> 12) & 63) * 6 + lohi[i, 2]) * 3 + budget) * 16 + capc[i, 2])
            k3 = off + 4 * (((((code >> 18) & 63) * 6 + lohi[i, 3]) * 3 + budget) * 16 + capc[i, 3])
            _half(k2, k3, gstart, moves, budget, half_b, cnt_b, seen, seen_used, ordered)
            if work is not None:
                tot_b = 0
                for cb in range(9):
                    tot_b += cnt_b[cb]
                work[0] += tot_a * tot_b + 1
            for ca in range(9):
                if cnt_a[ca] == 0:
                    continue
                for cb in range(9):
                    if cnt_b[cb] == 0:
                        continue
                    jgm = gj[(ca % 3 + cb % 3) * 5 + ca // 3 + cb // 3]
                    if jgm == 0:
                        continue
                    for ia in range(cnt_a[ca]):
                        va = half_a[ca, ia]
                        ka = (va >> 12) & 3
                        for ib in range(cnt_b[cb]):
                            vb = half_b[cb, ib]
                            ksum = ka + ((vb >> 12) & 3)
                            if ksum > budget:
                                continue
                            base = (va & 4095) | ((vb & 4095) << 12)
                            extras = (
                                (((va >> 14) & 1) << i)
                                | (((va >> 15) & 1) << (13 + i))
                                | (((vb >> 14) & 1) << (26 + i))
                                | (((vb >> 15) & 1) << (39 + i))
                            )
                            extras &= vmask
                            nlab = lab | extras
                            if ordered and extras != 0:  # _add_extras
                                low = extras & -extras
                                stay = block[low % 67]
                                nlab = lab & stay
                                if lab & ~stay != 0:
                                    nlab |= remap[low % 67]
                            nreal = ((va >> 16) & 7) + ((vb >> 16) & 7)
                            for jg in range(3):
                                if (jgm >> jg) & 1 == 0 or ksum + jg > budget:
                                    continue
                                jn = j + ksum + jg
                                ncode = base | (jn << 24)
                                nl = nlab
                                if jn > jlo and below == 0:  # a joker above its lower bound: the extra type 52
                                    if ordered:
                                        if nl >> 52 != 0:
                                            nl = (nl & ((1 << 52) - 1)) | (1 << 52)
                                    else:
                                        nl |= 1 << 52
                                if not labels:
                                    nl = 0
                                if threshold > 0:
                                    ncode |= min(threshold, pts + (i + 1) * (nreal + ksum + jg)) << 27
                                h = ((ncode * 6364136223846793005) >> 32) & (hsize - 1)
                                while True:
                                    slot = hidx[h]
                                    if slot < 0:
                                        if nn == size:
                                            size *= 2
                                            nxt_c = _grow(nxt_c, nn, size)
                                            nxt_l = _grow(nxt_l, nn, size)
                                        nxt_c[nn] = ncode
                                        nxt_l[nn] = nl
                                        hidx[h] = nn
                                        nn += 1
                                        if 2 * nn > hsize:
                                            hsize *= 4
                                            hidx = _rehash(nxt_c, nn, hsize)
                                        break
                                    if nxt_c[slot] == ncode:
                                        nxt_l[slot] |= nl
                                        break
                                    h = (h + 1) & (hsize - 1)
        if nn == 0:
            return False, 0
        if long_only is not None:
            for r in range(nn):
                code = nxt_c[r]
                if (
                    code >> 27 >= threshold
                    and long_only[code & 63]
                    and long_only[(code >> 6) & 63]
                    and long_only[(code >> 12) & 63]
                    and long_only[(code >> 18) & 63]
                ):
                    return True, 0
        ncur = 0
        cur_c = np.empty(nn, dtype=np.int64)
        cur_l = np.empty(nn, dtype=np.int64)
        two_step = nn > prune_two
        for r in range(nn):
            code = nxt_c[r]
            lab = nxt_l[r]
            if nn > prune_min and i < 12:  # the last layer is only read
                lab = _dominated(code, lab, nxt_c, nxt_l, hidx, hsize, ups, jlo, two_step)
                if lab < 0:
                    continue
            cur_c[ncur] = code
            cur_l[ncur] = lab
            ncur += 1
        if ncur > prune_min and i < 12 and threshold == 0:  # every stronger code (``kernel_skyline``)
            ncur = _skyline(cur_c, cur_l, ncur, jlo)
        if hsize > 4096:  # after a large layer start small again, as sparse as before
            hsize = 4096
            hidx = np.full(hsize, -1, dtype=np.int64)
        else:
            _unindex(hidx, nxt_c, nn, hsize)
    found = False
    bits = 0
    for q in range(ncur):
        if (cur_c[q] >> 24) & 7 >= jlo and cur_c[q] >> 27 >= threshold:
            found = True
            if below > 0:
                bits |= cur_l[q] & ((1 << 53) | vmask)
            else:
                bits |= cur_l[q] & ((1 << 53) - 1)  # the joker bit is in the label already
    return found, bits


# the entries of kernel_bounds run this sweep (the compiled one once _kernel() ran)
kernel_bounds._kernel_sweep = _kernel_sweep


def _half(ka, kb, gstart, moves, budget, out, cnt, seen, seen_used, ordered):  # pragma: no cover - compiled
    """The moves of two colours summed, by group pattern, duplicates merged.

    ``ka``/``kb``: the two colours' move-table keys.  Fills ``out[cls, :cnt[cls]]`` with
    ``next_a | next_b << 6 | k << 12 | extra_a << 14 | extra_b << 15 | x_a + x_b << 16``,
    ``cls = ones + 3 * twos`` (colours of the two sending 1 and 2 tiles to groups).
    ``seen`` (a hash set, -1 = free) is left empty again.  With ``ordered`` the second
    colour's extra is dropped when the first has one (only the lowest extra colour counts).
    """
    for c in range(9):
        cnt[c] = 0
    nused = 0
    hmask = seen.size - 1
    for ga in range(3):
        if gstart[ka + ga] == gstart[ka + ga + 1]:
            continue
        for gb in range(3):
            if gstart[kb + gb] == gstart[kb + gb + 1]:
                continue
            cls = (ga == 1) + (gb == 1) + 3 * ((ga == 2) + (gb == 2))
            for a in range(gstart[ka + ga], gstart[ka + ga + 1]):
                ma = moves[a]
                for b in range(gstart[kb + gb], gstart[kb + gb + 1]):
                    mb = moves[b]
                    k = (ma & 3) + (mb & 3)
                    if k > budget:
                        continue
                    eb = (mb >> 8) & 1
                    if ordered and (ma >> 8) & 1:
                        eb = 0  # an ordered label reads the lowest extra colour only
                    val = (
                        ((ma >> 2) & 63)
                        | (((mb >> 2) & 63) << 6)
                        | (k << 12)
                        | (((ma >> 8) & 1) << 14)
                        | (eb << 15)
                        | ((((ma >> 9) & 3) + ((mb >> 9) & 3)) << 16)
                    )
                    key = val | (cls << 20)
                    h = ((key * 6364136223846793005) >> 32) & hmask
                    while seen[h] >= 0 and seen[h] != key:
                        h = (h + 1) & hmask
                    if seen[h] == key:
                        continue
                    seen[h] = key
                    seen_used[nused] = h
                    nused += 1
                    out[cls, cnt[cls]] = val
                    cnt[cls] += 1
    for r in range(nused):
        seen[seen_used[r]] = -1


def _grow(a, n, size):  # pragma: no cover - compiled
    out = np.empty(size, dtype=np.int64)
    out[:n] = a[:n]
    return out


def _rehash(keys, n, hsize):  # pragma: no cover - compiled
    hidx = np.full(hsize, -1, dtype=np.int64)
    for r in range(n):
        h = ((keys[r] * 6364136223846793005) >> 32) & (hsize - 1)
        while hidx[h] >= 0:
            h = (h + 1) & (hsize - 1)
        hidx[h] = r
    return hidx


def _unindex(hidx, keys, n, hsize):  # pragma: no cover - compiled
    """Empty the slots of ``keys[:n]`` in the open-addressing index ``hidx`` (all -1 again).

    Each key's slot is on its probe path from its home slot (entries never move), so the
    slots can be emptied in any order."""
    for r in range(n):
        h = ((keys[r] * 6364136223846793005) >> 32) & (hsize - 1)
        while hidx[h] != r:
            h = (h + 1) & (hsize - 1)
        hidx[h] = -1


def _find(hidx, keys, hsize, key):  # pragma: no cover - compiled
    """Slot of ``key`` in the open-addressing index ``hidx`` over ``keys``, or -1."""
    h = ((key * 6364136223846793005) >> 32) & (hsize - 1)
    while hidx[h] >= 0:
        if keys[hidx[h]] == key:
            return hidx[h]
        h = (h + 1) & (hsize - 1)
    return -1


def _dominated(code, lab, keys, labs, hidx, hsize, ups, jlo, two_step):  # pragma: no cover - compiled
    """What is left of ``lab`` once the codes of the layer that can copy every completion of
    ``code`` have taken their share: the label to keep, or -1 when ``code`` can go.

    The codes that copy every completion of ``code`` with the same tiles (its dominators):
    as ``sweeps._prune`` (one-step upgrades of a colour; with ``two_step`` also two steps
    of one colour and one step of two colours), plus fewer jokers: a code with the same
    colour states and ``jlo <= j' < j`` jokers used still ends with at least ``jlo``
    jokers; the joker bit is already in the label once ``j > jlo`` (set on the move that
    passes ``jlo``), and an ordered "none yet" was turned into the joker on that move.

    A label is a set of independent tokens (``sweeps._prune``): a token a dominator holds
    reaches every answer from there, so it is taken out here; ``code`` goes when some
    dominator exists and no token is left.
    """
    rem = lab
    j = (code >> 24) & 7
    for dj in range(1, 3):
        if j - dj >= jlo:
            s = _find(hidx, keys, hsize, code - (dj << 24))
            if s >= 0:
                rem &= ~labs[s]
                if rem == 0:
                    return -1
    top = 16 if two_step else 4
    for c in range(4):
        sc = (code >> (6 * c)) & 63
        for u in range(top):
            d = ups[sc, u]
            if d == 0:
                continue
            s = _find(hidx, keys, hsize, code + (d << (6 * c)))
            if s >= 0:
                rem &= ~labs[s]
                if rem == 0:
                    return -1
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
                        if s >= 0:
                            rem &= ~labs[s]
                            if rem == 0:
                                return -1
    return rem


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
            global _find, _dominated, _half, _grow, _rehash, _unindex, _kernel_sweep, _skyline
            _find = jit(_find)  # before the sweep compiles: it binds the globals it calls
            _skyline = jit(_skyline)
            _unindex = jit(_unindex)
            _dominated = jit(_dominated)
            _half = jit(_half)
            _grow = jit(_grow)
            _rehash = jit(_rehash)
            _kernel_sweep = jit(_kernel_sweep)
            # the entries bind the globals of their own module: the compiled sweep and tuned entry there
            kernel_bounds._kernel_sweep = _kernel_sweep
            kernel_bounds._bounds_sweep_tuned = jit(kernel_bounds._bounds_sweep_tuned)
            compiled = noting_compile(jit(kernel_bounds._bounds_sweep), "the Rummikub solver")  # says so if it compiles

            def run(
                lo: np.ndarray,
                hi: np.ndarray,
                ordered: bool = False,
                threshold: int = 0,
                labels: bool = True,
                below: int = 0,
                remap: np.ndarray | None = None,
                mirrored: bool = False,
            ) -> tuple[bool, int]:
                if mirrored:  # numbers 13..1; ``remap`` is given on the mirrored types
                    lo, hi = mirror_counts(lo), mirror_counts(hi)
                vmask, block = ordered_masks(below, mirrored)
                found, bits = compiled(
                    lo if lo.dtype == np.int64 else lo.astype(np.int64),
                    hi if hi.dtype == np.int64 else hi.astype(np.int64),
                    _LOHI_TABLE,
                    gstart,
                    moves,
                    gj,
                    ups,
                    bool(ordered),
                    max(int(threshold), 0),
                    bool(labels),
                    int(below),
                    _IDENTITY if remap is None else remap,
                    _LONG_ONLY_TABLE,
                    vmask,
                    block,
                )
                return bool(found), mirror_bits(int(bits)) if mirrored else int(bits)

            _KERNEL = run
    return _KERNEL
