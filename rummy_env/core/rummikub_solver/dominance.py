"""Dominance pruning of the label sweeps' layers (exact: see ``_prune``).

Two stages: hash look-ups of the codes at most two upgrade steps stronger (``_dominated``,
also used by the product sweep), then, on what is left of a big layer, every stronger code
of the whole partial order (``_skyline``), which the look-ups cannot enumerate cheaply.
"""

from __future__ import annotations

from rummy_env.core.rummikub_solver.tables import _CBITS, _CSTATES, _JSHIFT, _UPGRADES, _UPGRADES2
from rummy_env.core.tiles import NUM_COLOURS


def _prune(layer: dict[int, int]) -> dict[int, int]:
    """Drop codes whose label the codes dominating them hold; shrink the labels of the others.

    Code A dominates B when, with the same jokers used, A's open runs are B's with some
    made longer (1 -> 2 -> 3+) and some 3+ runs added, in any number of steps: first
    the codes at most two steps stronger by look-ups (the compiled kernel checks one step
    on small layers: there the extra look-ups cost what they save), then, on layers still
    larger than ``_SKYLINE_MIN``, every stronger code (``_skyline``).  Whatever B can still
    do, A can do with the same tiles (close an extra 3+ run at once, treat a longer run like
    the shorter one; merging a run that closes with one that starts keeps the tiles), so
    every accepting path through B has a twin through A using the same tiles.

    A label is a set of independent *tokens* (a tile type, or an ordered "lowest added
    type"): each move maps each token on its own, new tokens come from the moves alone,
    and the answer is the union of the tokens of the accepting codes.  So a token of B
    that a dominator A also holds reaches every answer it can reach from A as well: it is
    taken out of B's label (the labels of the layer as it came, so no token is lost along a
    chain of dominators), and B is dropped when it has a dominator and no token is left.
    """
    keep = {}
    get = layer.get
    for code, lab in layer.items():
        rem = _dominated(code, lab, get, True)
        if rem >= 0:
            keep[code] = rem
    return _skyline(keep) if len(keep) > _SKYLINE_MIN else keep


def _dominated(code: int, lab: int, get, two_step: bool = False) -> int:
    """What ``_prune`` keeps of ``lab``: -1 when a dominator of ``code`` holds every token left.

    The dominators looked up: one upgrade step of one colour; with ``two_step`` also two
    steps of one colour and one step each of two colours (``_STEPS``, ``_PAIR_STEPS``: the
    code deltas, shifted into place).  The result does not depend on the order of the look-ups.
    """
    rem = lab
    states = (code & 63, (code >> 6) & 63, (code >> 12) & 63, (code >> 18) & 63)
    steps = _STEPS[two_step]
    for c in range(NUM_COLOURS):
        for d in steps[c][states[c]]:
            other = get(code + d)
            if other is not None:
                rem &= ~other
                if rem == 0:
                    return -1
    if not two_step:
        return rem
    for a, b, table in _PAIR_STEPS:
        for d in table[states[a] * 64 + states[b]]:
            other = get(code + d)
            if other is not None:
                rem &= ~other
                if rem == 0:
                    return -1
    return rem


def _build_steps():
    """``_STEPS[two_step][c][s]``: the code deltas of the upgrades of colour ``c`` in state
    ``s`` (one step; or one and two); ``_PAIR_STEPS``: ``(a, b, table)`` with ``table[sa * 64 +
    sb]`` the deltas of one step of colour ``a`` and one of colour ``b``."""
    n = len(_CSTATES)
    one = tuple(tuple(tuple(d << (_CBITS * c) for d in _UPGRADES[s]) for s in range(n)) for c in range(NUM_COLOURS))
    both = tuple(
        tuple(tuple(d << (_CBITS * c) for d in _UPGRADES[s] + _UPGRADES2[s]) for s in range(n))
        for c in range(NUM_COLOURS)
    )
    pairs = []
    for a in range(NUM_COLOURS):
        for b in range(a + 1, NUM_COLOURS):
            table = [()] * (64 * 64)
            for sa in range(n):
                for sb in range(n):
                    table[sa * 64 + sb] = tuple(da + db for da in one[a][sa] for db in one[b][sb])
            pairs.append((a, b, tuple(table)))
    return (one, both), tuple(pairs)


_STEPS, _PAIR_STEPS = _build_steps()


def _build_order() -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Per colour state: its rank (``n1 + 2 n2 + 3 n3``, which every upgrade step raises)
    and the set of states it is at least as strong as (itself and every state some chain
    of ``_UPGRADES`` steps leads up from), as bits over the state indices."""
    down = [1 << s for s in range(len(_CSTATES))]
    for s in sorted(range(len(_CSTATES)), key=lambda s: _rank(_CSTATES[s])):  # weaker states first
        for d in _UPGRADES[s]:
            down[s + d] |= down[s]
    ranks = tuple(_rank(t) for t in _CSTATES)
    return ranks, tuple(down)


def _rank(state: tuple[int, int, int]) -> int:
    n1, n2, n3 = state
    return n1 + 2 * n2 + 3 * n3


_RANK, _DOWN = _build_order()
#: Bits per colour in a code's signature (``_skyline``): one per colour state.
_SIG_BITS = len(_CSTATES)
#: Layers left larger than this after the look-ups go through ``_skyline`` too.
_SKYLINE_MIN = 32


def _skyline(layer: dict[int, int]) -> dict[int, int]:
    """``_prune`` against every stronger code of the layer, not only those two steps away.

    The codes are taken strongest first (by rank: a stronger code has a higher one), so a
    code's dominators among those kept come before it.  A's signature holds, per colour, the
    states A's state is at least as strong as, B's the bit of its own state: A dominates B
    when both use the same jokers and ``sig(A) & point(B) == point(B)``.  The tokens of B that
    kept dominators hold are taken out; B goes when it has one and no token is left.  This
    is exact from the labels the look-ups left: a token they took out of a code is held by a
    dominator of it, whose tokens are held by itself or by kept dominators of it (the order
    is transitive), and those dominate the code too.
    """
    order = []
    for code, lab in layer.items():
        rank = 0
        sig = point = 0
        for c in range(NUM_COLOURS):
            s = (code >> (_CBITS * c)) & 63
            rank += _RANK[s]
            sig |= _DOWN[s] << (_SIG_BITS * c)
            point |= 1 << (s + _SIG_BITS * c)
        order.append((-rank, code, lab, sig, point))
    order.sort()
    kept: dict[int, list[tuple[int, int]]] = {}  # jokers used -> [(signature, label)]
    keep = {}
    for _, code, lab, sig, point in order:
        above = kept.setdefault(code >> _JSHIFT, [])
        holds = [other for s, other in above if s & point == point]
        if holds:
            for other in holds:
                lab &= ~other
            if lab == 0:
                continue
        keep[code] = lab
        above.append((sig, lab))
    return keep
