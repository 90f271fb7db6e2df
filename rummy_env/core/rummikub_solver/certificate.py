"""Certificates: one arrangement into melds, rebuilt from a path of the sweep (``partition``)."""

from __future__ import annotations

import itertools

from rummy_env.core.rummikub_solver.tables import (
    _CBITS,
    _CSTATES,
    _GROUP_JOKERS,
    _JSHIFT,
    _K_SHIFT,
    _MAX_RUNS,
    _SMASK,
    _colour_moves,
    _group_split,
    _xs,
)
from rummy_env.core.rummikub_solver.transitions import _transitions_in_order
from rummy_env.core.tiles import JOKER, NUM_COLOURS, NUM_NUMBERS

# ---------------------------------------------------------------------------------------
# Certificates: one arrangement, rebuilt from a path of the sweep.


def _path(keys: tuple, jlo: int, jhi: int) -> list[tuple[int, int]] | None:
    """A path of (code before number v, packed move at v) for v = 1..13, or None."""
    layers: list[dict[int, tuple[int, int]]] = []
    cur: dict[int, tuple[int, int] | None] = {0: None}
    for ck in keys:
        nxt: dict[int, tuple[int, int]] = {}
        for code in cur:
            j = code >> _JSHIFT
            for p in _transitions_in_order(code & _SMASK, ck, jhi - j):
                n = (p & _SMASK) | ((j + (p >> _K_SHIFT)) << _JSHIFT)
                if n not in nxt:
                    nxt[n] = (code, p)
        if not nxt:
            return None
        layers.append(nxt)
        cur = nxt
    ends = sorted(code for code in cur if code >> _JSHIFT >= jlo)
    if not ends:
        return None
    code = ends[0]
    path = []
    for layer in reversed(layers):
        prev, p = layer[code]
        path.append((prev, p))
        code = prev
    return path[::-1]


def _split_move(prev: int, p: int) -> tuple[list[tuple[int, int]], int]:
    """Per-colour (tiles to groups, jokers to runs) and jokers to groups of one packed move."""
    xs = _xs(p)
    kv = p >> _K_SHIFT
    options = []
    for c in range(NUM_COLOURS):
        s = (prev >> (_CBITS * c)) & 63
        s2 = (p >> (_CBITS * c)) & 63
        opts = {(g, k) for g, k, nxt, _x in _colour_moves(s, xs[c], xs[c], kv, _MAX_RUNS, _MAX_RUNS) if nxt == s2}
        options.append(sorted(opts))
    for combo in itertools.product(*options):
        gs = [g for g, _k in combo]
        jg = kv - sum(k for _g, k in combo)
        if jg >= 0 and jg in _GROUP_JOKERS[(gs.count(1), gs.count(2))]:
            return list(combo), jg
    raise AssertionError("inconsistent move")  # pragma: no cover - sweep invariant


def _build_melds(path: list[tuple[int, int]]) -> list[list[int]]:
    """Melds (tile type lists, jokers as 52) of the arrangement a sweep path encodes."""
    melds: list[list[int]] = []
    open_runs: list[list[list[int]]] = [[] for _ in range(NUM_COLOURS)]
    for i, (prev, p) in enumerate(path):
        per_colour, jg = _split_move(prev, p)
        xs = _xs(p)
        gvec = []
        for c, (g, k) in enumerate(per_colour):
            s2 = (p >> (_CBITS * c)) & 63
            m1, _m2, m3 = _CSTATES[s2]
            runs = open_runs[c]
            short = [r for r in runs if len(r) < 3]
            long_ = [r for r in runs if len(r) >= 3]
            keep = m3 - sum(1 for r in runs if len(r) == 2)  # 3+ runs that go on
            melds.extend(long_[keep:])
            fill = [c * NUM_NUMBERS + i] * (xs[c] - g) + [JOKER] * k
            cont = short + long_[:keep]
            new_runs = [[] for _ in range(m1)]
            for run, tile in zip(cont + new_runs, fill, strict=False):
                run.append(tile)
            open_runs[c] = cont + new_runs
            gvec.append(g)
        for cols, jj in _group_split(gvec, jg) or []:
            melds.append([c * NUM_NUMBERS + i for c in cols] + [JOKER] * jj)
    for runs in open_runs:
        melds.extend(runs)
    return sorted(melds, key=_meld_sort_key)


def _meld_sort_key(meld: list[int]) -> tuple:
    real = [t for t in meld if t != JOKER]
    return (min(real) if real else JOKER, len(meld), tuple(meld))
