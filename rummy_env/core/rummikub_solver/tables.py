"""Static tables of the value sweep: colour states, group feasibility, colour moves, dominance upgrades.

Everything here depends only on the rules (R-RK-03 groups, R-RK-04 runs, R-RK-05 jokers), never on a
position, so each table is built once per process and stays small (a few thousand entries).
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from functools import cache

from rummy_env.core.tiles import NUM_COLOURS, NUM_NUMBERS

# ---------------------------------------------------------------------------------------
# Colour states: (n1, n2, n3) = open runs of length 1, 2 and 3+ of one colour.  With two
# copies of each tile and two jokers at most 4 runs of a colour cover one number.
_MAX_RUNS = 4
_CSTATES: tuple[tuple[int, int, int], ...] = tuple(
    (n1, n2, n3)
    for n1 in range(_MAX_RUNS + 1)
    for n2 in range(_MAX_RUNS + 1)
    for n3 in range(_MAX_RUNS + 1)
    if n1 + n2 + n3 <= _MAX_RUNS
)
_CINDEX = {s: i for i, s in enumerate(_CSTATES)}
_CBITS = 6  # 35 colour states fit in 6 bits
_SMASK = (1 << (_CBITS * NUM_COLOURS)) - 1  # the four colour states of a joint state
_JSHIFT = _CBITS * NUM_COLOURS  # joint code = colour states | jokers_used << _JSHIFT

# Packed transition fields (one int per transition; adding the four colours' parts never
# carries between fields because each colour owns its bits or the field has room for 4x).
_X_SHIFT = 24  # 2 bits per colour: real tiles of that colour used at this number
_EXTRA_SHIFT = 32  # 1 bit per colour: used more than the lower bound
_NREAL_SHIFT = 36  # 4 bits: real tiles used at this number
_K_SHIFT = 40  # 4 bits: jokers used at this number


def _group_split(g: Sequence[int], jokers: int) -> list[tuple[tuple[int, ...], int]] | None:
    """Split tiles of one number into groups (R-RK-03, R-RK-05), or None if impossible.

    ``g[c]`` (0..2) real tiles of colour ``c`` plus ``jokers`` jokers; each group holds
    distinct colours and 3-4 tiles, jokers filling missing colours.  Returns a list of
    (colours, jokers) per group.
    """
    first = next((c for c in range(NUM_COLOURS) if g[c] > 0), None)
    if first is None:
        return [] if jokers == 0 else None
    others = [c for c in range(first + 1, NUM_COLOURS) if g[c] > 0]
    for size in range(len(others), -1, -1):
        for sub in itertools.combinations(others, size):
            cols = (first, *sub)
            for jj in range(jokers + 1):
                if 3 <= len(cols) + jj <= 4:
                    rest = list(g)
                    for c in cols:
                        rest[c] -= 1
                    tail = _group_split(rest, jokers - jj)
                    if tail is not None:
                        return [(cols, jj), *tail]
    return None


def _build_group_jokers() -> dict[tuple[int, int], tuple[int, ...]]:
    # Feasibility only depends on how many colours hold 1 and 2 tiles (colour symmetry).
    table: dict[tuple[int, int], tuple[int, ...]] = {}
    for n_one in range(NUM_COLOURS + 1):
        for n_two in range(NUM_COLOURS + 1 - n_one):
            g = [1] * n_one + [2] * n_two + [0] * (NUM_COLOURS - n_one - n_two)
            table[(n_one, n_two)] = tuple(j for j in range(3) if _group_split(g, j) is not None)
    return table


#: (colours holding 1 group tile, colours holding 2) -> joker counts that complete groups.
_GROUP_JOKERS = _build_group_jokers()


@cache
def _colour_moves(s: int, lo: int, hi: int, kmax: int, cap1: int, cap2: int, joker_starts: bool = True) -> tuple:
    """Moves of one colour at one number.

    ``s``: colour state index; ``lo..hi``: real tiles of this colour and number to use;
    ``kmax``: jokers still available; ``cap1``/``cap2``: most real tiles of this colour at
    the next two numbers (-1 past 13), used to drop states whose open runs cannot be
    completed.  Returns ``((g, k, next_state, x), ...)``: ``x`` real tiles used, ``g`` of
    them go to groups, ``k`` jokers extend or start runs of this colour.  With
    ``joker_starts=False`` only the moves whose jokers can all continue open runs (no run
    has to start with a joker: ``vector.rummikub_jokers``).
    """
    n1, n2, n3 = _CSTATES[s]
    moves = set()
    for x in range(lo, hi + 1):
        for k in range(kmax + 1):
            for r in range(x + 1):
                free = r + k - n1 - n2  # slots left after the runs that must go on
                if free < 0:
                    continue
                for e3 in range(min(n3, free) + 1):
                    new = free - e3
                    if new > 0 and e3 < n3:
                        continue  # closing a 3+ run while starting one = merging them
                    if not joker_starts and k > n1 + n2 + e3:
                        continue  # more jokers than runs going on: one starts a run
                    m1, m2, m3 = new, n1, n2 + e3
                    left = kmax - k
                    if m1 + m2 and (cap1 < 0 or m1 + m2 > cap1 + left):
                        continue
                    if m1 and (cap2 < 0 or m1 > cap2 + left):
                        continue
                    moves.add((x - r, k, _CINDEX[(m1, m2, m3)], x))
    return tuple(sorted(moves))


@cache
def _colour_parts(c: int, s: int, lo: int, hi: int, kmax: int, cap1: int, cap2: int) -> tuple:
    """``_colour_moves`` packed for colour ``c``: ``((g, (packed, ...)), ...)`` by group count."""
    by_g: dict[int, list[int]] = {}
    for g, k, nxt, x in _colour_moves(s, lo, hi, kmax, cap1, cap2):
        packed = (
            ((nxt << (_CBITS * c)) | (x << (_X_SHIFT + 2 * c)) | (int(x > lo) << (_EXTRA_SHIFT + c)))
            + (x << _NREAL_SHIFT)
            + (k << _K_SHIFT)
        )
        by_g.setdefault(g, []).append(packed)
    return tuple((g, tuple(v)) for g, v in sorted(by_g.items()))


#: Bit ``c * 13`` for each colour c in a 4-bit set: shifted left by ``v - 1`` it marks the
#: tile types of number ``v`` in a 53-bit tile-type set.
_SPREAD = tuple(sum(1 << (c * NUM_NUMBERS) for c in range(NUM_COLOURS) if bits >> c & 1) for bits in range(16))


def _build_upgrades() -> tuple[tuple[tuple[int, ...], ...], tuple[tuple[int, ...], ...]]:
    """Colour-state changes that make a state at least as strong (see ``_prune``).

    One step: one more 3+ run, or one run promoted 1 -> 2, 2 -> 3+ or 1 -> 3+; two steps:
    two such changes.  Returned as deltas of the state index: (one-step, two-step only).
    """
    one = []
    for i, (n1, n2, n3) in enumerate(_CSTATES):
        # the changes most often found in a layer first: a hit ends the check early
        cand = [
            (n1 - 1, n2 + 1, n3),
            (n1, n2 - 1, n3 + 1),
            (n1, n2, n3 + 1),
            (n1 - 1, n2, n3 + 1),
        ]
        one.append(tuple(_CINDEX[t] - i for t in cand if min(t) >= 0 and sum(t) <= _MAX_RUNS))
    two = []
    for i in range(len(_CSTATES)):
        reach = {d1 + d2 for d1 in one[i] for d2 in one[i + d1]} - set(one[i])
        two.append(tuple(sorted(reach)))
    return tuple(one), tuple(two)


_UPGRADES, _UPGRADES2 = _build_upgrades()

_XFIELDS = tuple((_X_SHIFT + 2 * c) for c in range(NUM_COLOURS))


def _xs(p: int) -> tuple[int, int, int, int]:
    return tuple((p >> s) & 3 for s in _XFIELDS)  # type: ignore[return-value]


#: Colour states with open runs of length 3+ only (or none): such runs may all close now.
_LONG_ONLY = frozenset(i for i, (n1, n2, _n3) in enumerate(_CSTATES) if n1 == 0 and n2 == 0)


def _a_done(ca: int) -> bool:
    """True when side A's open runs may all close at once (each colour state in ``_LONG_ONLY``)."""
    return all(((ca >> (_CBITS * c)) & 63) in _LONG_ONLY for c in range(NUM_COLOURS))
