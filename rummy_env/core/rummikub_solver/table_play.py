"""The product sweep of the initial meld with table play (R-RK-07, ``initial_meld_table_play=True``)."""

from __future__ import annotations

import numpy as np

from rummy_env.core.rummikub_solver.best import _best_sweep
from rummy_env.core.rummikub_solver.kernel import _kernel
from rummy_env.core.rummikub_solver.kernel_product import MAX_THRESHOLD, _product_kernel
from rummy_env.core.rummikub_solver.sweeps import (
    _NONE_YET,
    _add_extras,
    _dominated,
    _fold_label,
    _label_sweep,
    _label_sweep_found,
    _label_sweep_points,
    _ordered_sweep,
    _reachable,
)
from rummy_env.core.rummikub_solver.tables import (
    _EXTRA_SHIFT,
    _JSHIFT,
    _K_SHIFT,
    _NREAL_SHIFT,
    _SMASK,
    _SPREAD,
    _a_done,
)
from rummy_env.core.rummikub_solver.transitions import _cell_keys, _pair_moves, _transitions
from rummy_env.core.tiles import JOKER, NUM_COLOURS, NUM_NUMBERS


def _table_play_sweep(table, rack, chosen, threshold: int, want: str, ordered: bool = False):
    """The initial meld with table play (R-RK-07, ``initial_meld_table_play=True``).

    ``want="mask"``: returns the 53-bit set of extendable tile types (as ``_label_sweep``,
    ``ordered`` likewise);
    ``want="legal"``: returns True/False for the fixed play ``chosen == rack``.
    A threshold below 1 still asks for one meld in P1 (R-RK-07: "one or more new melds").

    A fixed play needs no product: P is legal iff table + P partitions and some P1 <= P
    partitions with >= ``threshold`` points, two independent sweeps (the rack-sized one
    first).  The mask after the initial meld is an upper bound of the mask; it is the mask
    when ``chosen`` already holds an initial meld (every P >= chosen holds it too), and it
    is 0 when the rack holds none.  Otherwise witnesses settle the bits (``_witness_bits``,
    ``_ordered_bits``) and the product sweep is the last resort.
    """
    threshold = max(threshold, 1)
    zero = np.zeros_like(rack)
    if want == "legal":
        both = table + chosen
        return _meld_from(zero, chosen, threshold) and _reachable(both, both)
    if not _meld_from(zero, rack, threshold):
        return 0
    if _meld_from(zero, chosen, threshold):
        return _label_sweep(table + chosen, table + rack, ordered)
    if ordered:
        return _ordered_bits(table, rack, chosen, threshold)
    witness = _witness_bits(table, rack, chosen, threshold)
    if witness == _open_types(rack, chosen):  # every type the rack can still add: done
        return witness
    upper = _label_sweep(table + chosen, table + rack, False)
    if witness == upper:
        return upper
    return _product_sweep(table, rack, chosen, threshold, False)[1]


def _open_types(rack: np.ndarray, chosen: np.ndarray) -> int:
    """The types the rack can still add to ``chosen``, as a 53-bit set."""
    return sum(1 << int(t) for t in np.flatnonzero(rack > chosen))


def _ordered_bits(table, rack, chosen, threshold: int) -> int:
    """The ordered mask with table play, for a ``chosen`` that holds no initial meld.

    A bit ``t`` needs an initial meld within ``closed_t`` (the rack with the types below
    ``t`` closed at ``chosen``), which fewer types never give more of: the bits above
    ``t*``, the highest type that leaves one, are out at once.  One witness settles
    many bits (``_ordered_witness_bits``); a candidate left needs its bit of the ordered
    mask after the initial meld (an upper bound: one existence sweep for each of a few
    candidates, else the whole mask in one sweep), then ``_ordered_bit``.
    """
    t_star, out = _ordered_witness_bits(table, rack, chosen, threshold)
    open_bits = _open_types(rack, chosen) & ((2 << t_star) - 1) & ~out
    few = open_bits.bit_count() <= _FEW_OPEN
    if open_bits and not few:  # the witness's bits are the bound's too: they stand in from the start
        open_bits &= _ordered_sweep(table + chosen, table + rack, 0, known=out, want=open_bits)[1]
    while open_bits:
        t = (open_bits & -open_bits).bit_length() - 1
        open_bits &= open_bits - 1
        if few and not _after_meld_bit(table, rack, chosen, t):
            continue
        if _ordered_bit(table, rack, chosen, threshold, t):
            out |= 1 << t
    return out


#: Open candidates ``_ordered_bits`` checks one by one against the bound (an existence
#: sweep each) rather than sweeping the whole ordered mask after the initial meld.
_FEW_OPEN = 3


def _after_meld_bit(table, rack, chosen, t: int) -> bool:
    """Bit ``t`` of the ordered mask after the initial meld: an existence sweep."""
    lo, hi = table + chosen, table + rack
    lo[t] += 1
    hi[:t] = lo[:t]
    return _reachable(lo, hi)


def _ordered_witness_bits(table, rack, chosen, threshold: int) -> tuple[int, int]:
    """``(t*, the ordered bits certified by one initial meld P1)`` (see ``_ordered_bits``).

    One witness: P1 the best meld of ``closed_t*`` (a binary search finds ``t*``: over the
    open types, as only they change ``closed_t``), so that
    its lowest added type ``m`` is as high as possible; ``base = max(P1, chosen)``.  Every
    P >= base with table + P partitioning is legal; its lowest added type is ``min(m, l)``,
    ``l`` its lowest type above ``base``: the ordered sweep from ``base``, its values capped
    at ``m``, gives the bits below ``m`` such a P reaches, and ``m`` itself when some such
    P adds nothing below ``m``.  Each of these bits is a legal play's lowest added type.
    """
    zero = np.zeros_like(rack)
    # closed_t differs from the rack only at the open types below t: search over how many
    # of them are closed (none closed holds an initial meld: the caller checked the rack)
    opens = np.flatnonzero(rack[:JOKER] > chosen[:JOKER])
    k_lo, k_hi = 0, len(opens)
    while k_lo < k_hi:
        k = (k_lo + k_hi + 1) // 2
        closed = rack.copy()
        closed[: opens[k - 1] + 1] = chosen[: opens[k - 1] + 1]
        if _meld_from(zero, closed, threshold):
            k_lo = k
        else:
            k_hi = k - 1
    lo_t = int(opens[k_lo]) if k_lo < len(opens) else JOKER  # the highest t closing k_lo of them
    closed = rack.copy()
    closed[:lo_t] = chosen[:lo_t]
    p1 = _best_sweep(zero, closed, threshold, "points", False)
    if p1 is None:
        return lo_t, 0
    base = np.maximum(p1, chosen)
    m = int(np.flatnonzero(base > chosen)[0])  # base != chosen: chosen holds no initial meld
    # only values below m are read: the sweep keeps no others (bit 53: a path adding none)
    found, low = _ordered_sweep(table + base, table + rack, m, lower=_WITNESS_LOWER)
    if not found:
        return lo_t, 0
    out = low & ((1 << m) - 1)
    if low & _NONE_YET:
        out |= 1 << m
    return lo_t, out


#: Whether the witness's ordered sweep stops at its first stage that finds an arrangement
#: (its bits need only be a lower bound: the bound and ``_ordered_bit`` decide the rest).
_WITNESS_LOWER = True

#: Tiles of the first witness meld left out one at a time by ``_ordered_witness``.
_DROP_TRIES = 4


def _ordered_bit(table, rack, chosen, threshold: int, t: int) -> bool:
    """Is ``t`` the lowest type some legal P adds to ``chosen``?  (``t`` in the ordered mask
    after the initial meld, ``chosen`` without an initial meld.)

    Such a P lies within ``closed`` (the rack with the types below ``t`` closed at
    ``chosen``) and holds ``lo = chosen + e_t``.  The best meld P1 of ``closed`` is tried as
    the initial meld first (P >= max(P1, lo) with table + P partitioning); only if that
    fails, the product sweep decides.
    """
    closed = rack.copy()
    closed[:t] = chosen[:t]
    lo = chosen.copy()
    lo[t] += 1
    witness = _ordered_witness(table, closed, lo, threshold)
    if witness is not None:
        return witness
    return _product_sweep(table, closed, lo, threshold, False)[0]


def _ordered_witness(table, closed, lo, threshold: int) -> bool | None:
    """False if ``closed`` holds no initial meld; True if some P1 gives a legal P with
    ``max(P1, lo) <= P <= closed``; None when undecided.

    The P1 tried: the best meld of ``closed``; the best melds that go with the tiles of
    ``lo`` (their points counted without those tiles: a stricter test, still a witness), so
    that the new tile can sit in the initial meld itself; the best melds without one copy
    of one tile of the first P1 (``_DROP_TRIES`` of its highest types).
    """
    p1 = _best_sweep(np.zeros_like(closed), closed, threshold, "points", False)
    if p1 is None:
        return False
    if _reachable(table + np.maximum(p1, lo), table + closed):
        return True
    rest = _best_sweep(lo, closed - lo, threshold, "points", False)
    if rest is not None and _reachable(table + lo + rest, table + closed):
        return True
    # the best meld may hold a tile the rest of the play needs: best melds without one
    # copy of one of its tiles, the highest first (a few tries cost less than the product)
    for s in np.flatnonzero(p1)[::-1][:_DROP_TRIES]:
        fewer = closed.copy()
        fewer[s] -= 1
        alt = _best_sweep(np.zeros_like(closed), fewer, threshold, "points", False)
        if alt is not None and _reachable(table + np.maximum(alt, lo), table + closed):
            return True
    return None


def _witness_bits(table, rack, chosen, threshold: int) -> int:
    """Mask bits of the plays P = P1 + Q for one fixed initial meld P1: a lower bound.

    P1 is the highest-scoring set of rack melds (``_best_sweep`` without the table).  Any
    Q with table + P1 + Q partitioning gives a legal P (P1 alone scores, table + P
    partitions, and P >= chosen since Q covers what P1 lacks of it).  The bits of these
    plays are a subset of the true mask; the mask after the initial meld is a superset,
    so when the two meet, both are the answer and the product sweep is not needed.
    """
    p1 = _best_sweep(np.zeros_like(table), rack, threshold, "points", False)
    if p1 is None:
        return 0
    base = np.maximum(p1, chosen)
    found, bits = _label_sweep_found(table + base, table + rack)
    if not found:
        return 0
    return bits | sum(1 << int(t) for t in np.flatnonzero(base - chosen))  # P1's own additions


def _meld_from(lo: np.ndarray, hi: np.ndarray, threshold: int) -> bool:
    """Does some arrangement of rack tiles within ``lo..hi`` (jokers too) score >= threshold?

    Only existence: the compiled sweep runs without labels (empty labels prune most), and
    with ``lo`` empty both sweeps stop at the first code that has the points and only runs of
    3+ open (closing them gives an arrangement).  ``threshold >= 1`` (the callers' floor).
    """
    kernel = _kernel()
    if kernel:
        return kernel(lo, hi, False, max(threshold, 0), labels=False)[0]
    keys = _cell_keys(lo, hi)
    return _label_sweep_points(keys, int(lo[JOKER]), int(hi[JOKER]), threshold, stop=not lo.any()) != 0


def _product_sweep(table, rack, chosen, threshold: int, ordered: bool) -> tuple[bool, int]:
    """Sweep over (P1 arrangement, table + P arrangement, capped P1 points) states.

    Returns (some legal P with ``chosen <= P <= rack`` exists, the mask bits of those P).
    Compiled (``kernel_product``) when numba is there, else ``_product_sweep_py``; same answers.
    """
    kernel = _product_kernel()
    if kernel and 1 <= threshold <= MAX_THRESHOLD:
        return kernel(table, rack, chosen, threshold, ordered)
    return _product_sweep_py(table, rack, chosen, threshold, ordered)


def _product_sweep_py(table, rack, chosen, threshold: int, ordered: bool) -> tuple[bool, int]:
    """The pure-Python ``_product_sweep``.

    Once side A has its points and only 3+ runs open, it closes them and becomes *done*
    (points ``threshold + 1``): a done A adds no tile, so any completion of another A state
    with the same B state is a completion of the done one too.  States with the same A
    and points are pruned on B as ``_prune`` does (same tiles, same A moves).
    """
    tbl_j, rack_j, ch_j = int(table[JOKER]), int(rack[JOKER]), int(chosen[JOKER])
    cka_all = _cell_keys(np.zeros_like(rack), rack)
    ckb_all = _cell_keys(table + chosen, table + rack)
    tbl2 = table[:52].reshape(NUM_COLOURS, NUM_NUMBERS).T.tolist()
    ja_max, jb_max = rack_j, tbl_j + rack_j
    done = threshold + 1
    cur = {(0, 0, 0): _NONE_YET if ordered else 0}
    for i in range(NUM_NUMBERS):
        v = i + 1
        tbl = tuple(tbl2[i])
        nxt: dict[tuple[int, int, int], int] = {}
        get = nxt.get
        for (ca, cb, pts), lab in cur.items():
            ja, jb = ca >> _JSHIFT, cb >> _JSHIFT
            if pts == done:
                for pb in _transitions(cb & _SMASK, ckb_all[i], jb_max - jb):
                    n = (ca, (pb & _SMASK) | ((jb + (pb >> _K_SHIFT)) << _JSHIFT), done)
                    extras = _SPREAD[(pb >> _EXTRA_SHIFT) & 15] << i
                    nxt[n] = get(n, 0) | _add_extras(lab, extras, ordered)
                continue
            for pa, pb in _pair_moves(
                ca & _SMASK,
                ja,
                cb & _SMASK,
                jb,
                cka_all[i],
                ckb_all[i],
                tbl,
                ja_max,
                jb_max,
            ):
                ka, kb = pa >> _K_SHIFT, pb >> _K_SHIFT
                p2 = min(threshold, pts + v * (((pa >> _NREAL_SHIFT) & 15) + ka))
                na = (pa & _SMASK) | ((ja + ka) << _JSHIFT)
                if p2 == threshold and _a_done(na):
                    na, p2 = (ja + ka) << _JSHIFT, done
                n = (na, (pb & _SMASK) | ((jb + kb) << _JSHIFT), p2)
                extras = _SPREAD[(pb >> _EXTRA_SHIFT) & 15] << i
                nxt[n] = get(n, 0) | _add_extras(lab, extras, ordered)
        if not nxt:
            return False, 0
        cur = _prune_product(nxt, done) if len(nxt) > 32 and i < NUM_NUMBERS - 1 else nxt
    out = 0
    found = False
    for (ca, cb, pts), lab in cur.items():
        ja, jb = ca >> _JSHIFT, cb >> _JSHIFT
        if pts >= threshold and jb >= tbl_j + ch_j and ja <= jb - tbl_j:
            found = True
            out |= _fold_label(lab, jb, tbl_j + ch_j, ordered)
    return found, out


def _prune_product(layer: dict[tuple[int, int, int], int], done: int) -> dict[tuple[int, int, int], int]:
    """Drop product states dominated by a done A, by more points, or on side B.

    With the same B state (same tiles to come), the done A with the same A jokers and the
    same A with the full points dominate a state (either does whatever this A does, adding
    no more to P1 <= P); with the same A and points, so does a one-step stronger B
    (``_dominated``).  As in ``_prune``, the tokens a dominator holds are taken out of the
    label, and the state goes when it has a dominator and no token is left.
    """
    by_a: dict[tuple[int, int], dict[int, int]] = {}
    for (ca, cb, pts), lab in layer.items():
        by_a.setdefault((ca, pts), {})[cb] = lab
    keep = {}
    for (ca, pts), sub in by_a.items():
        better = []
        if pts != done:
            twins = (by_a.get((ca & ~_SMASK, done)), by_a.get((ca, done - 1)))
            better = [d for d in twins if d is not None and d is not sub]
        get = sub.get
        for cb, lab in sub.items():
            rem, hit = lab, False
            for d in better:
                o = d.get(cb)
                if o is not None:
                    rem, hit = rem & ~o, True
            if hit and rem == 0:
                continue
            if len(sub) > 1:
                rem = _dominated(cb, rem, get)
                if rem < 0:
                    continue
            keep[(ca, cb, pts)] = rem
    return keep
