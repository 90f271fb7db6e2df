"""The whole-order pruning stage of the compiled label sweep (``dominance._skyline`` compiled).

``kernel._kernel_sweep`` prunes a layer by hash look-ups of the codes one or two upgrade
steps stronger; what is left of a big layer then goes through ``_skyline``: every kept code
that dominates a code in the whole partial order takes its tokens out of that code's label.
Compiled by ``kernel._kernel()`` with the sweep (the tables below are read as constants).
"""

from __future__ import annotations

import numpy as np

from rummy_env.core.rummikub_solver.dominance import _DOWN, _RANK

#: Per colour state index (64 slots): the states it is at least as strong as, as bits.
SKY_DOWN = np.zeros(64, dtype=np.int64)
SKY_DOWN[: len(_DOWN)] = _DOWN
#: Per colour state index: its rank (every upgrade step raises it).
SKY_RANK = np.zeros(64, dtype=np.int64)
SKY_RANK[: len(_RANK)] = _RANK


#: Kept codes after which ``_skyline`` checks no more (each later code is kept as it is):
#: ordered labels keep many codes apart, and with a few hundred kept the checks cost more
#: than they save (measured on the second stage of the 53-tile kept position).
SKY_CAP = 512


def _skyline(codes, labs, n, jlo):  # pragma: no cover - compiled
    """Prune ``codes[:n]`` / ``labs[:n]`` in place against every stronger kept code; returns
    the new count.

    A dominates B when every colour state of A is at least as strong as B's (``SKY_DOWN``),
    both have the same points (bits 27 and up), and A uses as many jokers or, at least
    ``jlo``, fewer (``kernel._dominated``'s joker rule).  Codes go strongest first (colour
    ranks, then fewer jokers), so a code's dominators come before it; tokens that kept
    dominators hold are taken out, and a code with a dominator and no token left goes
    (exact as ``dominance._skyline`` explains: the order is transitive; checking fewer
    dominators, past ``SKY_CAP``, only prunes less).
    """
    key = np.empty(n, dtype=np.int64)
    for q in range(n):
        code = codes[q]
        rank = 0
        for c in range(4):
            rank += SKY_RANK[(code >> (6 * c)) & 63]
        key[q] = -(4 * rank + 3 - ((code >> 24) & 7))
    order = np.argsort(key, kind="mergesort")
    kc = np.empty(n, dtype=np.int64)
    kl = np.empty(n, dtype=np.int64)
    nk = 0
    for r in range(n):
        q = order[r]
        code = codes[q]
        lab = labs[q]
        if nk >= SKY_CAP:  # bound the quadratic cost: the rest stay as they are (exact too)
            kc[nk] = code
            kl[nk] = lab
            nk += 1
            continue
        j = (code >> 24) & 7
        pts = code >> 27
        held = False
        for t in range(nk):
            other = kc[t]
            if other >> 27 != pts:
                continue
            jo = (other >> 24) & 7
            if jo > j or (jo < j and jo < jlo):
                continue
            above = True
            for c in range(4):
                if (SKY_DOWN[(other >> (6 * c)) & 63] >> ((code >> (6 * c)) & 63)) & 1 == 0:
                    above = False
                    break
            if above:
                held = True
                lab &= ~kl[t]
                if lab == 0:
                    break
        if held and lab == 0:
            continue
        kc[nk] = code
        kl[nk] = lab
        nk += 1
    codes[:nk] = kc[:nk]
    labs[:nk] = kl[:nk]
    return nk
