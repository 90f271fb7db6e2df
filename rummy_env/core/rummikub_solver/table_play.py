"""The product sweep of the initial meld with table play (R-RK-07, ``initial_meld_table_play=True``)."""

from __future__ import annotations

import numpy as np

from rummy_env.core.rummikub_solver.sweeps import _NONE_YET, _add_extras, _fold_label
from rummy_env.core.rummikub_solver.tables import _EXTRA_SHIFT, _JSHIFT, _K_SHIFT, _NREAL_SHIFT, _SMASK, _SPREAD, _xs
from rummy_env.core.rummikub_solver.transitions import _cell_keys, _transitions
from rummy_env.core.tiles import JOKER, NUM_COLOURS, NUM_NUMBERS

# Product sweep for ``initial_meld_table_play=True`` (R-RK-07): side A is the initial meld
# P1 (rack tiles only, points capped at the threshold), side B is table + P.  A move pairs
# an A move and a B move at the same number with P1 <= P tile by tile.


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


def _table_play_sweep(table, rack, chosen, threshold: int, want: str, ordered: bool = False):
    """Sweep over (P1 arrangement, table + P arrangement, capped P1 points) states.

    ``want="mask"``: returns the 53-bit set of extendable tile types (as ``_label_sweep``,
    ``ordered`` likewise);
    ``want="legal"``: returns True/False for the fixed play ``chosen == rack``.
    A threshold below 1 still asks for one meld in P1 (R-RK-07: "one or more new melds").
    """
    threshold = max(threshold, 1)
    tbl_j, rack_j, ch_j = int(table[JOKER]), int(rack[JOKER]), int(chosen[JOKER])
    cka_all = _cell_keys(np.zeros_like(rack), rack)
    ckb_all = _cell_keys(table + chosen, table + rack)
    tbl2 = table[:52].reshape(NUM_COLOURS, NUM_NUMBERS).T.tolist()
    ja_max, jb_max = rack_j, tbl_j + rack_j
    cur = {(0, 0, 0): _NONE_YET if ordered else 0}
    for i in range(NUM_NUMBERS):
        v = i + 1
        tbl = tuple(tbl2[i])
        nxt: dict[tuple[int, int, int], int] = {}
        for (ca, cb, pts), lab in cur.items():
            ja, jb = ca >> _JSHIFT, cb >> _JSHIFT
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
                gain = v * (((pa >> _NREAL_SHIFT) & 15) + ka)
                n = (
                    (pa & _SMASK) | ((ja + ka) << _JSHIFT),
                    (pb & _SMASK) | ((jb + kb) << _JSHIFT),
                    min(threshold, pts + gain),
                )
                extras = _SPREAD[(pb >> _EXTRA_SHIFT) & 15] << i
                nxt[n] = nxt.get(n, 0) | _add_extras(lab, extras, ordered)
        if not nxt:
            return False if want == "legal" else 0
        cur = nxt
    out = 0
    legal = False
    for (ca, cb, pts), lab in cur.items():
        ja, jb = ca >> _JSHIFT, cb >> _JSHIFT
        if pts >= threshold and jb >= tbl_j + ch_j and ja <= jb - tbl_j:
            legal = True
            out |= _fold_label(lab, jb, tbl_j + ch_j, ordered)
    return legal if want == "legal" else out
