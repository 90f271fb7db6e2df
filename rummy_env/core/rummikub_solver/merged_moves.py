"""The joint moves of one number, merged to what a pure-Python sweep reads, built from halves.

``transitions._transitions`` lists every joint move (each distinct in its real tiles per
colour); the label sweeps and best play read much less of a move: its next colour states
and jokers (``delta``), and the colours it uses above their bound (labels) or its real
tiles and their pattern (best play).  Here the moves of colours 0+1 and of colours 2+3
(``transitions._half``) are merged first, per (group pattern, jokers) and next states of the
pair, then paired under the group table: the same merged moves as reducing the full list,
without building it (the full list is several times longer on the dense worst cases).

Each merge is exact because the two halves own disjoint fields: for one pair of half
states, one group pattern each and one joker split, the joint moves are every left move
with every right move, so a union of colours is the union of the two halves' unions, the
lowest extra colour is the left one's when the left adds any (colours 0, 1 are below 2, 3),
and the most real tiles with the fewest at the low colours (best play's tie-break) is the
left half's best with the right half's best.
"""

from __future__ import annotations

from rummy_env.core.rummikub_solver.memo import BoundedCache, tuple_of_pairs_cost, tuple_of_triples_cost
from rummy_env.core.rummikub_solver.tables import (
    _EXTRA_SHIFT,
    _GROUP_JOKERS,
    _JSHIFT,
    _K_SHIFT,
    _NREAL_SHIFT,
    _SMASK,
    _SPREAD,
    _X_SHIFT,
)
from rummy_env.core.rummikub_solver.transitions import _half, _transitions

_LABEL_CACHE = BoundedCache("label_transitions", tuple_of_pairs_cost)
_BEST_CACHE = BoundedCache("best_moves", tuple_of_triples_cost)
_HALF_MERGED_CACHE = BoundedCache(
    "half_merged", lambda key, value: 260 + sum(120 + 80 * len(items) for _group, items in value)
)

# What a half's moves are merged to, per next states of the pair (``_half_merged``).
_UNION = 0  # the union of the colours added above their bound (4 bits, in place)
_LOWS = 1  # the set of lowest added colours: bit ``e`` for the colour bit ``e`` (bit 0: none)
_BEST = 2  # real tiles * 256 - the 8 bits of real tiles per colour (``_X_SHIFT``), the highest
_BEST_BY_REAL = 3  # per (next states, real tiles): the fewest per colour, as ``_BEST`` without the max


def _half_merged(kind: int, c0: int, pair: int, cka: tuple, ckb: tuple, budget: int) -> tuple:
    """The moves of colours ``c0`` and ``c0 + 1`` (``transitions._half``) merged, memoised.

    Returns ``(((ones, twos, jokers), ((key, value), ...)), ...)``: per group pattern and
    jokers used, the next states of the pair in place (``key``; with ``_BEST_BY_REAL`` the
    pair ``(states, real tiles)``) and what ``kind`` keeps of the moves reaching them.
    """
    key = (kind, c0, pair, cka, ckb, budget)
    hit = _HALF_MERGED_CACHE.get(key)
    if hit is not None:
        return hit
    groups: dict[tuple[int, int, int], dict] = {}
    for (ones, twos), moves in _half(c0, pair, cka, ckb, budget):
        for p in moves:
            g = groups.setdefault((ones, twos, p >> _K_SHIFT), {})
            s = p & _SMASK
            if kind == _UNION:
                g[s] = g.get(s, 0) | (p >> _EXTRA_SHIFT) & 15
            elif kind == _LOWS:
                e = (p >> _EXTRA_SHIFT) & 15
                g[s] = g.get(s, 0) | 1 << (e & -e)
            elif kind == _BEST:
                h = ((p >> _NREAL_SHIFT) & 15) * 256 - ((p >> _X_SHIFT) & 255)
                if g.get(s, -1) < h:
                    g[s] = h
            else:
                k2 = (s, (p >> _NREAL_SHIFT) & 15)
                xs = (p >> _X_SHIFT) & 255
                if g.get(k2, 256) > xs:
                    g[k2] = xs
    res = tuple((group, tuple(g.items())) for group, g in groups.items())
    _HALF_MERGED_CACHE.store(key, res)
    return res


def _halves(kind: int, state: int, ckeys: tuple, budget: int):
    """The pairs of merged half groups of ``state`` that the group table allows, with the
    jokers of the joint move: ``[(jokers << _JSHIFT, left items, right items), ...]``."""
    left = _half_merged(kind, 0, state & 4095, ckeys[0], ckeys[1], budget)
    if not left:
        return []
    right = _half_merged(kind, 2, (state >> 12) & 4095, ckeys[2], ckeys[3], budget)
    out = []
    for (o1, t1, k1), lm in left:
        for (o2, t2, k2), rm in right:
            for jg in _GROUP_JOKERS[(o1 + o2, t1 + t2)]:
                k = k1 + k2 + jg
                if k > budget:
                    break
                out.append((k << _JSHIFT, lm, rm))
    return out


def _label_transitions(
    state: int, ckeys: tuple, budget: int, merge: bool = True, from_halves: bool = True
) -> tuple[tuple[int, int], ...]:
    """The joint moves reduced to what a label sweep needs: ``((delta, spread), ...)``.

    ``delta`` = next colour states | jokers used here << _JSHIFT (add ``j << _JSHIFT`` for
    the next code); ``spread`` = the colours used above their lower bound, as bits ``c * 13``.
    With ``merge``, moves reaching the same next state are merged (their spreads OR-ed),
    exact for union labels: a tile is extendable as soon as one of them is.  Ordered
    labels (lowest extra type) need the moves apart, but only their lowest extra colour
    matters (``_add_extras`` reads nothing else): moves are merged by (delta, that colour),
    one pair for each lowest colour (spread 0: a move adding nothing).  Memoised; the same
    pairs as reducing ``transitions._transitions`` (in no fixed order), which is what
    ``from_halves=False`` does: cheaper on small layers, where few codes share a half (the
    sweeps pick by layer size, ``MERGED_MIN``).
    """
    key = (state, ckeys, budget, merge)
    hit = _LABEL_CACHE.get(key)
    if hit is not None:
        return hit
    merged: dict[int, int] = {}
    get = merged.get
    if not from_halves:
        res = _label_from_moves(_transitions(state, ckeys, budget), merge)
    elif merge:
        for kbits, lm, rm in _halves(_UNION, state, ckeys, budget):
            for sa, ea in lm:
                base = sa + kbits
                for sb, eb in rm:
                    d = base + sb
                    merged[d] = get(d, 0) | ea | eb
        res = tuple((d, _SPREAD[e]) for d, e in merged.items())
    else:
        for kbits, lm, rm in _halves(_LOWS, state, ckeys, budget):
            for sa, la in lm:
                base = sa + kbits
                own = la & ~1  # the left half's lowest colours win over the right's
                for sb, lb in rm:
                    d = base + sb
                    merged[d] = get(d, 0) | own | (lb if la & 1 else 0)
        res = tuple((d, _SPREAD[low]) for d, lows in merged.items() for low in (0, 1, 2, 4, 8) if lows >> low & 1)
    _LABEL_CACHE.store(key, res)
    return res


#: Layers of at least this many codes read the moves merged from the halves; smaller ones
#: reduce the full list (on the realistic positions of the benchmark the halves' merge
#: cost more than it saved, on the kept worst cases it saves up to half).
MERGED_MIN = 200


def _label_from_moves(moves: tuple[int, ...], merge: bool) -> tuple[tuple[int, int], ...]:
    """``_label_transitions`` from the full list of joint moves (``transitions._transitions``)."""
    if merge:
        merged: dict[int, int] = {}
        for p in moves:
            delta = (p & _SMASK) | ((p >> _K_SHIFT) << _JSHIFT)
            merged[delta] = merged.get(delta, 0) | _SPREAD[(p >> _EXTRA_SHIFT) & 15]
        return tuple(merged.items())
    # an ordered label only reads the lowest extra type of a move: keep that bit alone
    return tuple(
        {
            (
                (p & _SMASK) | ((p >> _K_SHIFT) << _JSHIFT),
                _SPREAD[(p >> _EXTRA_SHIFT) & 15 & -((p >> _EXTRA_SHIFT) & 15)],
            )
            for p in moves
        }
    )


def _best_moves(
    state: int, ckeys: tuple, budget: int, by_real: bool = False, from_halves: bool = True
) -> tuple[tuple[int, int, int], ...]:
    """The joint moves reduced to what best play reads: ``((delta, real, xs), ...)``, memoised.

    ``delta`` as ``_label_transitions``; ``real``: the real tiles used at this number (table
    ones included); ``xs``: the real tiles per colour, 2 bits each (``_X_SHIFT``).  Per delta
    the move with the most real tiles, and among those the smallest ``xs``: with the same
    next state and rack jokers, more tiles score more for either objective, and the
    smaller ``xs`` is the best-play sweep's tie-break.  With ``by_real`` one move per
    (delta, real) instead, the smallest ``xs`` (the rack-only initial meld, whose capped
    points keep moves with fewer tiles apart).  ``from_halves=False``: the same, reduced from
    the full list (as ``_label_transitions``).
    """
    key = (state, ckeys, budget, by_real)
    hit = _BEST_CACHE.get(key)
    if hit is not None:
        return hit
    if not from_halves:
        res = _best_from_moves(_transitions(state, ckeys, budget), by_real)
    elif by_real:
        merged: dict[tuple[int, int], int] = {}
        for kbits, lm, rm in _halves(_BEST_BY_REAL, state, ckeys, budget):
            for (sa, ra), xa in lm:
                base = sa + kbits
                for (sb, rb), xb in rm:
                    k2 = (base + sb, ra + rb)
                    xs = xa + xb
                    if merged.get(k2, 256) > xs:
                        merged[k2] = xs
        res = tuple((d, real, xs) for (d, real), xs in merged.items())
    else:
        best: dict[int, int] = {}
        get = best.get
        for kbits, lm, rm in _halves(_BEST, state, ckeys, budget):
            for sa, ha in lm:
                base = sa + kbits
                for sb, hb in rm:
                    d = base + sb
                    h = ha + hb
                    if get(d, -1) < h:
                        best[d] = h
        res = tuple((d, (h + 255) >> 8, ((h + 255) >> 8) * 256 - h) for d, h in best.items())
    _BEST_CACHE.store(key, res)
    return res


def _best_from_moves(moves: tuple[int, ...], by_real: bool) -> tuple[tuple[int, int, int], ...]:
    """``_best_moves`` from the full list of joint moves (``transitions._transitions``)."""
    best: dict = {}
    get = best.get
    for p in moves:
        delta = (p & _SMASK) | ((p >> _K_SHIFT) << _JSHIFT)
        real = (p >> _NREAL_SHIFT) & 15
        h = real * 256 - ((p >> _X_SHIFT) & 255)
        k2 = (delta, real) if by_real else delta
        if get(k2, -1) < h:
            best[k2] = h
    if by_real:
        return tuple((d, real, real * 256 - h) for (d, real), h in best.items())
    return tuple((d, (h + 255) >> 8, ((h + 255) >> 8) * 256 - h) for d, h in best.items())
