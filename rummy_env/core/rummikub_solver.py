"""Exact Rummikub meld solvers: partition check, legal-play mask, best play.

All inputs are tile *count vectors* (see ``rummy_env.core.tiles``): ``np.ndarray`` of shape
``(53,)``, any integer dtype, entry ``t`` = number of tiles of type ``t`` (0..2 each;
index 52 = jokers, 0..2).  Melds (R-RK-03, R-RK-04, R-RK-05):

* group: 3 or 4 tiles of one number, all of different colours;
* run: 3..13 tiles of one colour with consecutive numbers, 1 always low (no 12-13-1);
* a joker stands for any tile that makes its meld valid (it may stand for a tile whose
  two copies are both in play), and two identical melds may lie on the table.

Algorithm (value sweep, after den Hertog & Hulshof, "A dynamic programming approach to
solving Rummikub"): numbers are processed 1..13.  Between two numbers the state is, for
each colour, how many *open runs* it has of length 1, 2 and "3 or more" (a run of 3+ may be
closed at any time, so longer lengths need not be told apart), plus how many jokers were
used so far.  At number ``v`` each colour's ``v``-tiles in use (between a lower and an
upper bound) are split between its runs (every open run of length 1 or 2 must be
extended, a 3+ run is extended or closed, new runs may start) and groups; the tiles left
for groups at ``v`` must pack exactly into groups of 3-4 distinct colours, jokers filling
any slot.  A run's length is capped at 3 and a run that closes while another run of its
colour starts at the same number is merged with it (same tiles, same validity), which
keeps the state small.  Jokers never need their own tile id: a joker at number ``v`` is
worth ``v`` points wherever it sits, so meld points add up number by number (R-RK-07).

The legal-tile mask comes from one *labelled* forward sweep: every reachable state carries
the set of tile types that some path reaching it uses above their lower bound (the
tiles already chosen, and the table's tiles, which must all be used).  Labels are OR-ed
when paths meet, so at the end the union of the labels of the accepting states is exactly
the set of tile types that some legal play can add: all 53 answers in one pass, no
backward pass.  States are pruned by dominance: a state whose open runs are those of
another state of the same layer with some made longer or some extra 3+ runs (same jokers
used), and whose label is contained in that state's label, can be dropped, because the
stronger state can copy any completion with the same tiles.  The same sweep without labels
answers ``can_partition``/``is_legal_play``; with the points so far (capped at the
threshold) in the state it handles the initial meld (R-RK-07); ``best_play`` is the
max-plus version with back pointers.  The initial-meld option with table play runs two
sweeps in lockstep (the initial meld P1 and table + P, with P1 <= P tile by tile).

Sizes: without jokers a layer holds a handful of states; two jokers on a dense table give
thousands, which is why the hot sweep also exists as an optional numba kernel (same moves,
same pruning, identical answers; used when numba is importable, see ``_kernel``).

Public functions: ``partition``, ``can_partition``, ``partition_points``,
``extension_mask``, ``ordered_extension_mask``, ``is_legal_play``, ``best_play``,
``play_points``, ``is_valid_meld``, ``meld_points``.
The simple reference solvers used as test oracles live in ``experiments.rummikub_oracle``.
"""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from functools import cache

import numpy as np

from rummy_env.core.tiles import (
    JOKER,
    NUM_COLOURS,
    NUM_NUMBERS,
    NUM_TILE_TYPES,
    tile_str,
)

__all__ = [
    "best_play",
    "can_partition",
    "extension_mask",
    "is_legal_play",
    "is_valid_meld",
    "meld_points",
    "ordered_extension_mask",
    "partition",
    "partition_points",
    "play_points",
]

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
def _colour_moves(s: int, lo: int, hi: int, kmax: int, cap1: int, cap2: int) -> tuple:
    """Moves of one colour at one number.

    ``s``: colour state index; ``lo..hi``: real tiles of this colour and number to use;
    ``kmax``: jokers still available; ``cap1``/``cap2``: most real tiles of this colour at
    the next two numbers (-1 past 13), used to drop states whose open runs cannot be
    completed.  Returns ``((g, k, next_state, x), ...)``: ``x`` real tiles used, ``g`` of
    them go to groups, ``k`` jokers extend or start runs of this colour.
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


_TRANS_CACHE: dict = {}
_TRANS_CACHE_MAX = 400_000


def _transitions(state: int, ckeys: tuple, budget: int) -> tuple[int, ...]:
    """All moves at one number from joint colour state ``state`` (jokers excluded).

    ``ckeys[c] = (lo, hi, cap1, cap2)`` for colour ``c``; ``budget`` jokers may be used.
    Returns packed transitions (fields ``_X_SHIFT`` ... ``_K_SHIFT``, next colour states in
    the low bits; the jokers used include those placed in groups).
    """
    key = (state, ckeys, budget)
    hit = _TRANS_CACHE.get(key)
    if hit is not None:
        return hit
    parts = []
    for c in range(NUM_COLOURS):
        lo, hi, cap1, cap2 = ckeys[c]
        s = (state >> (_CBITS * c)) & 63
        p = _colour_parts(c, s, lo, hi, budget, cap1, cap2)
        if not p:
            _store(key, ())
            return ()
        parts.append(p)
    out = set()
    for (g0, l0), (g1, l1), (g2, l2), (g3, l3) in itertools.product(*parts):
        gs = (g0, g1, g2, g3)
        jg_ok = _GROUP_JOKERS[(gs.count(1), gs.count(2))]
        if not jg_ok or jg_ok[0] > budget:
            continue
        sums = [a + b + c + d for a in l0 for b in l1 for c in l2 for d in l3]
        if budget == 0:
            out.update(sums)  # no joker anywhere: jg_ok[0] == 0 here
            continue
        for p in sums:
            k = p >> _K_SHIFT
            for jg in jg_ok:
                if k + jg <= budget:
                    out.add(p + (jg << _K_SHIFT))
    res = tuple(out)
    _store(key, res)
    return res


def _store(key, value) -> None:
    if len(_TRANS_CACHE) >= _TRANS_CACHE_MAX:
        _TRANS_CACHE.clear()
    _TRANS_CACHE[key] = value


_LABEL_CACHE: dict = {}
_POINT_CACHE: dict = {}
#: Bit ``c * 13`` for each colour c in a 4-bit set: shifted left by ``v - 1`` it marks the
#: tile types of number ``v`` in a 53-bit tile-type set.
_SPREAD = tuple(sum(1 << (c * NUM_NUMBERS) for c in range(NUM_COLOURS) if bits >> c & 1) for bits in range(16))


def _label_transitions(state: int, ckeys: tuple, budget: int, merge: bool = True) -> tuple[tuple[int, int], ...]:
    """``_transitions`` reduced to what the mask needs: ``((delta, spread), ...)``.

    ``delta`` = next colour states | jokers used here << _JSHIFT (add ``j << _JSHIFT`` for
    the next code); ``spread`` = the colours used above their lower bound, as bits ``c * 13``.
    With ``merge``, moves reaching the same next state are merged (their spreads OR-ed),
    exact for union labels: a tile is extendable as soon as one of them is.  Ordered
    labels (lowest extra type) need the moves apart: only duplicates are dropped then.
    """
    key = (state, ckeys, budget, merge)
    hit = _LABEL_CACHE.get(key)
    if hit is not None:
        return hit
    if merge:
        merged: dict[int, int] = {}
        for p in _transitions(state, ckeys, budget):
            delta = (p & _SMASK) | ((p >> _K_SHIFT) << _JSHIFT)
            merged[delta] = merged.get(delta, 0) | _SPREAD[(p >> _EXTRA_SHIFT) & 15]
        res = tuple(merged.items())
    else:
        res = tuple(
            {
                (
                    (p & _SMASK) | ((p >> _K_SHIFT) << _JSHIFT),
                    _SPREAD[(p >> _EXTRA_SHIFT) & 15],
                )
                for p in _transitions(state, ckeys, budget)
            }
        )
    if len(_LABEL_CACHE) >= _TRANS_CACHE_MAX:
        _LABEL_CACHE.clear()
    _LABEL_CACHE[key] = res
    return res


def _point_transitions(state: int, ckeys: tuple, budget: int, merge: bool = True) -> tuple[tuple[int, int, int], ...]:
    """Like ``_label_transitions`` but keeps the tiles placed at this number (real + jokers):
    ``((delta, tiles, spread), ...)``, merged by (delta, tiles) if ``merge``."""
    key = (state, ckeys, budget, merge)
    hit = _POINT_CACHE.get(key)
    if hit is not None:
        return hit
    merged: dict[tuple[int, int], int] = {}
    seen = set()
    for p in _transitions(state, ckeys, budget):
        kv = p >> _K_SHIFT
        k2 = ((p & _SMASK) | (kv << _JSHIFT), ((p >> _NREAL_SHIFT) & 15) + kv)
        spread = _SPREAD[(p >> _EXTRA_SHIFT) & 15]
        if merge:
            merged[k2] = merged.get(k2, 0) | spread
        else:
            seen.add((*k2, spread))
    if merge:
        res = tuple((d, n, s) for (d, n), s in merged.items())
    else:
        res = tuple(seen)
    if len(_POINT_CACHE) >= _TRANS_CACHE_MAX:
        _POINT_CACHE.clear()
    _POINT_CACHE[key] = res
    return res


def _cell_keys(lo: np.ndarray, hi: np.ndarray) -> tuple[tuple, ...]:
    """Per number v = 1..13 the per-colour ``(lo, hi, cap1, cap2)`` of ``_transitions``.

    ``lo``/``hi``: count vectors (53,) bounding the real tiles used per type.
    """
    lo2 = lo[:52].reshape(NUM_COLOURS, NUM_NUMBERS).tolist()
    hi2 = hi[:52].reshape(NUM_COLOURS, NUM_NUMBERS).tolist()
    out = []
    for i in range(NUM_NUMBERS):
        out.append(
            tuple(
                (
                    lo2[c][i],
                    hi2[c][i],
                    hi2[c][i + 1] if i + 1 < NUM_NUMBERS else -1,
                    hi2[c][i + 2] if i + 2 < NUM_NUMBERS else -1,
                )
                for c in range(NUM_COLOURS)
            )
        )
    return tuple(out)


# ---------------------------------------------------------------------------------------
# Sweeps.  A code is colour states | jokers used so far << _JSHIFT.  Every sweep is exact:
# it enumerates all reachable codes, merging only paths that agree on everything the rest
# of the sweep can see.


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


def _prune(layer: dict[int, int]) -> dict[int, int]:
    """Drop codes dominated by a code of the same layer with a superset label.

    Code A dominates B when, with the same jokers used, A's open runs are B's with some
    made longer (1 -> 2 -> 3+) and some 3+ runs added, here in at most two steps (the
    compiled kernel checks one step: there the extra look-ups cost what they save).
    Whatever B can still do, A can do with the same tiles (close an extra 3+ run at once,
    treat a longer run like the shorter one; merging a run that closes with one that
    starts keeps the tiles), so every accepting path through B has a twin through A using
    the same tiles; with label(B) <= label(A), dropping B loses no tile of the mask.
    """
    keep = {}
    get = layer.get
    for code, lab in layer.items():
        if not _dominated(code, lab, get, True):
            keep[code] = lab
    return keep


def _dominated(code: int, lab: int, get, two_step: bool = False) -> bool:
    steps = []
    for c in range(NUM_COLOURS):
        shift = _CBITS * c
        s = (code >> shift) & 63
        one = [d << shift for d in _UPGRADES[s]]
        for d in one:
            other = get(code + d)
            if other is not None and lab & ~other == 0:
                return True
        if two_step:
            for d in _UPGRADES2[s]:
                other = get(code + (d << shift))
                if other is not None and lab & ~other == 0:
                    return True
        steps.append(one)
    if not two_step:
        return False
    for a in range(NUM_COLOURS):
        for b in range(a + 1, NUM_COLOURS):
            for da in steps[a]:
                for db in steps[b]:
                    other = get(code + da + db)
                    if other is not None and lab & ~other == 0:
                        return True
    return False


#: Ordered labels (``ordered_extension_mask``): bit 53 = "no tile above its lower bound
#: yet" on some path; bits 0..51 = the lowest such tile type of some path.
_NONE_YET = 1 << 53
_COLOURED_BITS = (1 << JOKER) - 1


def _add_extras(lab: int, extras: int, ordered: bool) -> int:
    """Label after a move that uses the tile types ``extras`` above their lower bound.

    Unordered labels are sets of tile types used by some path (OR).  Ordered labels are
    sets of "lowest extra type" values of the paths: each value becomes min(value, lowest
    of ``extras``), "none yet" becomes the lowest of ``extras``.
    """
    if not extras:
        return lab
    if not ordered:
        return lab | extras
    low = extras & -extras
    below = lab & (low - 1)
    return below | low if lab >> (low.bit_length() - 1) else below


def _fold_label(lab: int, j: int, jlo: int, ordered: bool) -> int:
    """Mask bits contributed by an accepting state with ``j`` jokers used."""
    if ordered:
        out = lab & _COLOURED_BITS
        if lab & _NONE_YET and j > jlo:
            out |= 1 << JOKER  # only jokers added: the joker is the lowest extra
        return out
    return lab | (1 << JOKER) if j > jlo else lab


def _label_sweep(lo: np.ndarray, hi: np.ndarray, ordered: bool = False) -> int:
    """Tile types used above their lower bound by some complete arrangement.

    ``lo``/``hi``: count vectors (53,) bounding the tiles used, jokers included.  Each
    reachable code carries the union of the "extra" tile sets of the paths reaching it; a
    tile type is in the answer iff some accepting path uses it above its bound (exact: the
    union of labels over paths is the set of tiles some path uses).  With ``ordered`` the
    answer is instead the set of lowest extra types of the accepting paths (see
    ``_add_extras``).  Returns a 53-bit int (bit 52: the joker); 0 if no arrangement exists.
    """
    kernel = _kernel()
    if kernel:
        return kernel(lo, hi, ordered)[1]
    keys = _cell_keys(lo, hi)
    return _label_sweep_py(keys, int(lo[JOKER]), int(hi[JOKER]), ordered)[1]


def _label_sweep_py(keys: tuple, jlo: int, jhi: int, ordered: bool = False) -> tuple[bool, int]:
    """Pure-Python ``_label_sweep``; returns (some arrangement exists, bits)."""
    cur = {0: _NONE_YET if ordered else 0}
    for i, ck in enumerate(keys):
        nxt: dict[int, int] = {}
        get = nxt.get
        for code, lab in cur.items():
            jpart = code & ~_SMASK
            for delta, spread in _label_transitions(code & _SMASK, ck, jhi - (code >> _JSHIFT), not ordered):
                n = jpart + delta
                old = get(n)
                new = _add_extras(lab, spread << i, True) if ordered else lab | (spread << i)
                nxt[n] = new if old is None else old | new
        if not nxt:
            return False, 0
        cur = _prune(nxt) if len(nxt) > 32 else nxt
    out = 0
    found = False
    for code, lab in cur.items():
        j = code >> _JSHIFT
        if j >= jlo:
            found = True
            out |= _fold_label(lab, j, jlo, ordered)
    return found, out


def _label_sweep_points(keys: tuple, jlo: int, jhi: int, threshold: int, ordered: bool = False) -> int:
    """``_label_sweep`` where the arrangement must also be worth >= ``threshold`` points.

    Points of an arrangement = sum over its tiles of the number each stands for (a joker at
    number v is worth v, R-RK-07).  The points so far, capped at ``threshold``, are part of
    the state, so the sweep stays a plain reachability computation.
    """
    cap_shift = 32
    threshold = max(threshold, 0)
    cur = {0: _NONE_YET if ordered else 0}
    for i, ck in enumerate(keys):
        v = i + 1
        nxt: dict[int, int] = {}
        get = nxt.get
        for key, lab in cur.items():
            code = key & ((1 << cap_shift) - 1)
            pts = key >> cap_shift
            jpart = code & ~_SMASK
            for delta, tiles, spread in _point_transitions(code & _SMASK, ck, jhi - (code >> _JSHIFT), not ordered):
                n = jpart + delta + (min(threshold, pts + v * tiles) << cap_shift)
                old = get(n)
                new = _add_extras(lab, spread << i, ordered)
                nxt[n] = new if old is None else old | new
        if not nxt:
            return 0
        cur = nxt  # rack-only sweeps are small: pruning was measured to cost more than it saves
    out = 0
    for key, lab in cur.items():
        j = (key >> _JSHIFT) & 7
        if key >> cap_shift >= threshold and j >= jlo:
            out |= _fold_label(lab, j, jlo, ordered)
    return out


def _max_points(keys: tuple, jlo: int, jhi: int) -> int:
    """Highest points of an arrangement with ``jlo..jhi`` jokers, -1 if there is none."""
    cur = {0: 0}
    for i, ck in enumerate(keys):
        v = i + 1
        nxt: dict[int, int] = {}
        get = nxt.get
        for code, pts in cur.items():
            jpart = code & ~_SMASK
            for delta, tiles, _spread in _point_transitions(code & _SMASK, ck, jhi - (code >> _JSHIFT)):
                n = jpart + delta
                val = pts + v * tiles
                if get(n, -1) < val:
                    nxt[n] = val
        if not nxt:
            return -1
        cur = nxt
    return max((pts for code, pts in cur.items() if code >> _JSHIFT >= jlo), default=-1)


def _reachable(lo: np.ndarray, hi: np.ndarray) -> bool:
    """True iff some arrangement uses tiles within ``lo..hi`` (count vectors, jokers too)."""
    kernel = _kernel()
    if kernel:
        return kernel(lo, hi)[0]
    return _label_sweep_py(_cell_keys(lo, hi), int(lo[JOKER]), int(hi[JOKER]))[0]


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
    + g + 1]]``, each ``k | next << 2 | extra << 8``.  Group table: bit ``jg`` of
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
                            by_g[g].append(k | nxt << 2 | int(x > lo) << 8)
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


def _kernel_sweep(lohi, capc, jlo, jhi, gstart, moves, gj, ups, ordered, prune_min=32):  # pragma: no cover - compiled
    """Compiled twin of ``_label_sweep_py`` (same moves; one-step pruning, where the
    two-step look-ups cost what they save).  Returns (found, bits).

    ``lohi``/``capc``: int64 (13, 4) per-number per-colour bound index and cap code.
    Each layer is kept in insertion-ordered arrays plus an open-addressing hash index
    (measured faster here than rows [code, label] in the hash table itself).
    """
    ncur = 1
    cur_c = np.zeros(1, dtype=np.int64)
    cur_l = np.zeros(1, dtype=np.int64)
    if ordered:
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
            j = code >> 24
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
                                            for jg in range(3):
                                                if (jgm >> jg) & 1 == 0 or ksum + jg > budget:
                                                    continue
                                                ncode = base | ((j + ksum + jg) << 24)
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
                                                        nxt_l[nn] = nlab
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
                                                        nxt_l[slot] |= nlab
                                                        break
                                                    h = (h + 1) & (hsize - 1)
        if nn == 0:
            return False, 0
        ncur = 0
        cur_c = np.empty(nn, dtype=np.int64)
        cur_l = np.empty(nn, dtype=np.int64)
        for r in range(nn):
            code = nxt_c[r]
            lab = nxt_l[r]
            dominated = False
            if nn > prune_min and i < 12:  # the last layer is only read
                for c in range(4):
                    sc = (code >> (6 * c)) & 63
                    for u in range(4):
                        d = ups[sc, u]
                        if d == 0:
                            break
                        other = code + (d << (6 * c))
                        h = ((other * 6364136223846793005) >> 32) & (hsize - 1)
                        while hidx[h] >= 0:
                            if nxt_c[hidx[h]] == other:
                                if lab & ~nxt_l[hidx[h]] == 0:
                                    dominated = True
                                break
                            h = (h + 1) & (hsize - 1)
                        if dominated:
                            break
                    if dominated:
                        break
            if not dominated:
                cur_c[ncur] = code
                cur_l[ncur] = lab
                ncur += 1
    found = False
    bits = 0
    for q in range(ncur):
        j = cur_c[q] >> 24
        if j >= jlo:
            found = True
            lab = cur_l[q]
            if ordered:  # _fold_label
                bits |= lab & ((1 << 52) - 1)
                if (lab >> 53) & 1 and j > jlo:
                    bits |= 1 << 52
            else:
                bits |= lab
                if j > jlo:
                    bits |= 1 << 52
    return found, bits


def _kernel():
    """The compiled sweep as ``f(lo, hi, ordered=False) -> (found, bits)``, or False."""
    global _KERNEL
    if _KERNEL is None:
        _KERNEL = False
        if _USE_NUMBA:
            try:
                import numba
            except ImportError:
                return False
            gstart, moves, gj, ups = _kernel_tables()
            compiled = numba.njit(cache=True, nogil=True)(_kernel_sweep)

            lohi_table = np.full(9, -1, dtype=np.int64)
            for (lo_, hi_), k in _LOHI_INDEX.items():
                lohi_table[lo_ * 3 + hi_] = k

            def run(lo: np.ndarray, hi: np.ndarray, ordered: bool = False) -> tuple[bool, int]:
                lo2 = lo[:52].reshape(NUM_COLOURS, NUM_NUMBERS)
                hi2 = hi[:52].reshape(NUM_COLOURS, NUM_NUMBERS)
                lohi = lohi_table[lo2 * 3 + hi2].T.copy()
                # caps: the hi of the next two numbers, -1 past 13, as (cap1 + 1) * 4 + cap2 + 1
                pad = np.zeros((NUM_COLOURS, NUM_NUMBERS + 2), dtype=np.int64)
                pad[:, :NUM_NUMBERS] = hi2 + 1
                capc = (pad[:, 1 : NUM_NUMBERS + 1] * 4 + pad[:, 2:]).T.copy()
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
                )
                return bool(found), int(bits)

            _KERNEL = run
    return _KERNEL


# Product sweep for ``initial_meld_table_play=True`` (R-RK-07): side A is the initial meld
# P1 (rack tiles only, points capped at the threshold), side B is table + P.  A move pairs
# an A move and a B move at the same number with P1 <= P tile by tile.

_XFIELDS = tuple((_X_SHIFT + 2 * c) for c in range(NUM_COLOURS))


def _xs(p: int) -> tuple[int, int, int, int]:
    return tuple((p >> s) & 3 for s in _XFIELDS)  # type: ignore[return-value]


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


# ---------------------------------------------------------------------------------------
# Best play: a max-plus sweep with back pointers.  The value of a path is one int, the
# objective's main term times a factor larger than any tie-break term (both are additive).
_POINTS_FACTOR = 512  # > 106 tiles
_TILES_FACTOR = 8192  # > 2 * 4 * (1 + ... + 13) + 2 * 13 points


def _objective_gain(objective: str, tiles: int, points: int) -> int:
    if objective == "points":
        return points * _POINTS_FACTOR + tiles
    return tiles * _TILES_FACTOR + points


def _best_sweep(table, rack, threshold: int, objective: str, table_play: bool):
    """Best legal play as a count vector, or None.  See ``best_play``.

    Side B is table + P (every table tile used); when ``threshold > 0`` side A is the
    initial meld (P itself, or with ``table_play`` a sub-multiset P1 of P) whose points,
    capped at ``threshold``, are part of the state.  Jokers of B are labelled "from the
    rack" or "from the table" as they are placed; a rack joker scores the number it stands
    for and all table jokers must be placed, so the sweep credits the played jokers with the
    highest numbers any arrangement gives them.
    """
    zero = np.zeros_like(rack)
    tbl_j, rack_j = int(table[JOKER]), int(rack[JOKER])
    ckb = _cell_keys(table, table + rack)
    product = threshold > 0 and table_play
    cka = _cell_keys(zero, rack) if product else None
    tbl2 = table[:52].reshape(NUM_COLOURS, NUM_NUMBERS).T.tolist()
    jb_max = tbl_j + rack_j
    # state: (code A, code B, rack jokers of B, capped points); A = 0 unless product
    start = (0, 0, 0, 0)
    layers: list[dict] = []
    cur: dict[tuple, tuple] = {start: (0, None, 0, 0, 0)}
    for i in range(NUM_NUMBERS):
        v = i + 1
        tbl = tuple(tbl2[i])
        tsum = sum(tbl)
        nxt: dict[tuple, tuple] = {}
        for state, entry in cur.items():
            ca, cb, jr, pts = state
            val = entry[0]
            jb = cb >> _JSHIFT
            if product:
                ja = ca >> _JSHIFT
                pairs = _pair_moves(
                    ca & _SMASK,
                    ja,
                    cb & _SMASK,
                    jb,
                    cka[i],
                    ckb[i],
                    tbl,
                    rack_j,
                    jb_max,
                )
            else:
                pairs = [(0, pb) for pb in _transitions(cb & _SMASK, ckb[i], jb_max - jb)]
            for pa, pb in pairs:
                kb = pb >> _K_SHIFT
                real = ((pb >> _NREAL_SHIFT) & 15) - tsum  # rack tiles placed at v
                if product:
                    ka = pa >> _K_SHIFT
                    na = (pa & _SMASK) | ((ca >> _JSHIFT) + ka) << _JSHIFT
                    cap = min(threshold, pts + v * (((pa >> _NREAL_SHIFT) & 15) + ka))
                else:
                    na = 0
                    cap = min(threshold, pts + v * (real + kb)) if threshold > 0 else 0
                nb = (pb & _SMASK) | ((jb + kb) << _JSHIFT)
                for r in range(kb + 1):
                    jr2 = jr + r
                    if jr2 > rack_j or jb + kb - jr2 > tbl_j:
                        continue
                    gain = _objective_gain(objective, real + r, v * (real + r))
                    n = (na, nb, jr2, cap)
                    old = nxt.get(n)
                    if old is None or old[0] < val + gain:
                        nxt[n] = (val + gain, state, pa, pb, r)
        if not nxt:
            return None
        layers.append(nxt)
        cur = nxt if product or len(nxt) <= 32 else _prune_best(nxt)
    best = None
    for state, entry in cur.items():
        ca, cb, jr, pts = state
        jb = cb >> _JSHIFT
        if jb - jr != tbl_j or pts < threshold:
            continue
        if product and (ca >> _JSHIFT) > jr:
            continue
        if entry[0] <= 0:
            continue  # the play must hold at least one tile
        if best is None or entry[0] > best[1][0]:
            best = (state, entry)
    if best is None:
        return None
    play = np.zeros(NUM_TILE_TYPES, dtype=np.int64)
    play[JOKER] = best[0][2]
    state = best[0]
    for i in range(NUM_NUMBERS - 1, -1, -1):
        _val, prev, _pa, pb, _r = layers[i][state]
        for c, x in enumerate(_xs(pb)):
            t = c * NUM_NUMBERS + i
            play[t] = x - table[t]
        state = prev
    return play


def _prune_best(layer: dict[tuple, tuple]) -> dict[tuple, tuple]:
    """``_prune`` for the best-play sweep: a state is dropped when a stronger twin (same
    rack jokers and capped points, table + P runs upgraded as in ``_prune``) has a value
    at least as high; the twin's completions use the same tiles, so they gain as much."""
    keep = {}
    for state, entry in layer.items():
        ca, cb, jr, pts = state
        val = entry[0]
        dominated = False
        for c in range(NUM_COLOURS):
            shift = _CBITS * c
            s = (cb >> shift) & 63
            for d in _UPGRADES[s] + _UPGRADES2[s]:
                other = layer.get((ca, cb + (d << shift), jr, pts))
                if other is not None and other[0] >= val:
                    dominated = True
                    break
            if dominated:
                break
        if not dominated:
            keep[state] = entry
    return keep


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
            for p in _transitions(code & _SMASK, ck, jhi - j):
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


# ---------------------------------------------------------------------------------------
# Input checks


def _counts(x, name: str) -> np.ndarray:
    """``x`` as an int64 count vector of shape (53,) with entries 0..2 (R-RK-01)."""
    a = np.asarray(x)
    if a.shape != (NUM_TILE_TYPES,):
        raise ValueError(f"{name} must be a tile count vector of shape (53,), got shape {a.shape}")
    if a.dtype == bool or not (np.issubdtype(a.dtype, np.integer) or np.all(np.mod(a, 1) == 0)):
        raise ValueError(f"{name} must hold integer tile counts, got dtype {a.dtype}")
    a = a.astype(np.int64)
    bad = np.flatnonzero((a < 0) | (a > 2))
    if bad.size:
        t = int(bad[0])
        raise ValueError(
            f"{name} holds {a[t]} tiles of type {t} ({_tile_name(t)}); counts are 0..2: "
            "two copies of each tile and two jokers exist (R-RK-01)"
        )
    return a


def _tile_name(t: int) -> str:
    return tile_str(t)


def _play_inputs(table, rack, chosen, chosen_name: str = "chosen"):
    table = _counts(table, "table")
    rack = _counts(rack, "rack")
    chosen = _counts(chosen, chosen_name)
    both = table + rack
    bad = np.flatnonzero(both > 2)
    if bad.size:
        t = int(bad[0])
        raise ValueError(
            f"table and rack hold {both[t]} tiles of type {_tile_name(t)} together; each tile exists twice (R-RK-01)"
        )
    bad = np.flatnonzero(chosen > rack)
    if bad.size:
        t = int(bad[0])
        raise ValueError(
            f"{chosen_name} holds {chosen[t]} of {_tile_name(t)} but the rack only {rack[t]}; "
            f"{chosen_name} must be a sub-multiset of the rack"
        )
    return table, rack, chosen


def _check_objective(objective: str) -> None:
    if objective not in ("points", "tiles"):
        raise ValueError(f"objective {objective!r} is not known: use 'points' or 'tiles'")


def _bits_to_mask(bits: int) -> np.ndarray:
    return np.array([(bits >> t) & 1 for t in range(NUM_TILE_TYPES)], dtype=bool)


# ---------------------------------------------------------------------------------------
# Public API


def can_partition(counts) -> bool:
    """True iff the tiles can be split into valid melds using every tile, jokers included.

    Args:
        counts: count vector, shape (53,), integer dtype, entries 0..2.

    Rules: groups R-RK-03, runs R-RK-04, jokers R-RK-05; the empty multiset partitions.

    Raises:
        ValueError: wrong shape/dtype or a count outside 0..2.
    """
    c = _counts(counts, "counts")
    return _reachable(c, c)


def partition(counts) -> list[list[int]] | None:
    """One arrangement of the tiles into valid melds (R-RK-03/04/05), or None.

    Args:
        counts: count vector, shape (53,), integer dtype, entries 0..2.

    Returns:
        A list of melds, each a list of tile types; runs are listed from low to high
        number with a joker (52) at the place it fills, groups by colour R B K Y with their
        jokers last.  Melds are sorted by their lowest coloured tile, then length, then
        content.  Every tile of ``counts`` appears exactly once.  None if no arrangement
        exists.

    Raises:
        ValueError: as ``can_partition``.
    """
    c = _counts(counts, "counts")
    path = _path(_cell_keys(c, c), int(c[JOKER]), int(c[JOKER]))
    return None if path is None else _build_melds(path)


def partition_points(counts) -> int | None:
    """Highest total points of an arrangement of all the tiles, or None if none exists.

    Points: the number of each tile, a joker counting the number of the tile it stands
    for, the highest such when ambiguous (R-RK-07).  Unit: points.

    Raises:
        ValueError: as ``can_partition``.
    """
    c = _counts(counts, "counts")
    pts = _max_points(_cell_keys(c, c), int(c[JOKER]), int(c[JOKER]))
    return None if pts < 0 else pts


_MASK_CACHE: dict = {}
_MASK_CACHE_MAX = 4096


def extension_mask(
    table,
    rack,
    chosen,
    initial_meld_done: bool,
    initial_meld_points: int = 30,
    initial_meld_table_play: bool = False,
) -> np.ndarray:
    """Which tile types can be added to the play being built.

    ``mask[t]`` is True iff ``rack[t] > chosen[t]`` and some legal play ``P`` (count
    vector) satisfies ``chosen + e_t <= P <= rack``, where a play is legal when
    (``is_legal_play``):

    * ``initial_meld_done``: table + P splits into valid melds (R-RK-08);
    * otherwise, P alone splits into melds worth >= ``initial_meld_points`` points, a joker
      counting the number of the tile it stands for (R-RK-07); with
      ``initial_meld_table_play=True`` instead some sub-multiset P1 of P does so while
      table + P splits into valid melds.

    All 53 types are answered in one sweep (the env only asks for ``t >= max(chosen)``).
    Results are memoised per distinct input.

    Args:
        table, rack, chosen: count vectors, shape (53,), integer dtype, entries 0..2;
            ``table + rack <= 2`` per type and ``chosen <= rack``.
        initial_meld_done: whether the player has made the initial meld.
        initial_meld_points: points the initial meld needs (R-RK-07), default 30; a value
            below 1 still asks for at least one meld of rack tiles.
        initial_meld_table_play: R-RK-07 option, default False.

    Returns:
        np.ndarray, shape (53,), dtype bool.

    Raises:
        ValueError: malformed counts, more than two tiles of a type on table + rack, or
            ``chosen`` not within ``rack``.
    """
    table, rack, chosen = _play_inputs(table, rack, chosen)
    args = (
        bool(initial_meld_done),
        int(initial_meld_points),
        bool(initial_meld_table_play),
    )
    return _mask(table, rack, chosen, *args, False)


def ordered_extension_mask(
    table,
    rack,
    chosen,
    initial_meld_done: bool,
    initial_meld_points: int = 30,
    initial_meld_table_play: bool = False,
) -> np.ndarray:
    """``extension_mask`` for plays built in non-decreasing tile-type order.

    The env adds a play's tiles one at a time in non-decreasing type order, so after
    adding ``t`` only types ``>= t`` can follow, and types below the highest chosen type
    ``last`` are closed already.  ``mask[t]`` is True iff ``t >= last`` and some legal play
    ``P`` has ``chosen + e_t <= P <= rack`` with every tile of ``P - chosen - e_t`` of type
    ``>= t``; i.e. ``t`` is the lowest type that ``P`` adds to ``chosen``.  Exactly the
    actions after which the play can still be completed.  One sweep: each state carries
    the set of "lowest added type" values of the paths reaching it.

    Args, Returns, Raises: as ``extension_mask``.
    """
    table, rack, chosen = _play_inputs(table, rack, chosen)
    nz = np.flatnonzero(chosen)
    if nz.size:
        last = int(nz[-1])
        rack = rack.copy()
        rack[:last] = chosen[:last]  # types below the last one added are closed
    args = (
        bool(initial_meld_done),
        int(initial_meld_points),
        bool(initial_meld_table_play),
    )
    return _mask(table, rack, chosen, *args, True)


def _mask(
    table: np.ndarray,
    rack: np.ndarray,
    chosen: np.ndarray,
    initial_meld_done: bool,
    initial_meld_points: int,
    initial_meld_table_play: bool,
    ordered: bool,
) -> np.ndarray:
    """Memoised body of ``extension_mask`` / ``ordered_extension_mask`` (checked inputs)."""
    key = (
        table.tobytes(),
        rack.tobytes(),
        chosen.tobytes(),
        initial_meld_done,
        initial_meld_points,
        initial_meld_table_play,
        ordered,
    )
    hit = _MASK_CACHE.get(key)
    if hit is not None:
        return hit.copy()
    if initial_meld_done:
        bits = _label_sweep(table + chosen, table + rack, ordered)
    elif not initial_meld_table_play:
        keys = _cell_keys(chosen, rack)
        jlo, jhi = int(chosen[JOKER]), int(rack[JOKER])
        bits = _label_sweep_points(keys, jlo, jhi, initial_meld_points, ordered)
    else:
        bits = _table_play_sweep(table, rack, chosen, initial_meld_points, "mask", ordered)
    mask = _bits_to_mask(bits)
    if len(_MASK_CACHE) >= _MASK_CACHE_MAX:
        _MASK_CACHE.clear()
    _MASK_CACHE[key] = mask
    return mask.copy()


def is_legal_play(
    table,
    rack,
    play,
    initial_meld_done: bool,
    initial_meld_points: int = 30,
    initial_meld_table_play: bool = False,
) -> bool:
    """The COMMIT check: is ``play`` (count vector) a legal play from ``rack`` onto ``table``?

    Legal iff ``play`` is nonempty, ``play <= rack`` and the condition of
    ``extension_mask`` holds for ``P = play`` (R-RK-07 before the initial meld, R-RK-08
    after it).

    Args:
        table, rack, play: count vectors, shape (53,), integer dtype, entries 0..2;
            ``table + rack <= 2`` per type.
        initial_meld_done, initial_meld_points, initial_meld_table_play: as
            ``extension_mask``.

    Returns:
        bool.  A ``play`` that is not within ``rack`` is not legal (no error).

    Raises:
        ValueError: malformed counts or more than two tiles of a type on table + rack.
    """
    table = _counts(table, "table")
    rack = _counts(rack, "rack")
    play = _counts(play, "play")
    _play_inputs(table, rack, np.zeros_like(rack))
    if play.sum() == 0 or np.any(play > rack):
        return False
    if initial_meld_done:
        both = table + play
        return _reachable(both, both)
    if not initial_meld_table_play:
        pts = _max_points(_cell_keys(play, play), int(play[JOKER]), int(play[JOKER]))
        return pts >= 0 and pts >= initial_meld_points
    return bool(_table_play_sweep(table, play, play, int(initial_meld_points), "legal"))


def best_play(
    table,
    rack,
    initial_meld_done: bool,
    objective: str = "points",
    initial_meld_points: int = 30,
    initial_meld_table_play: bool = False,
) -> np.ndarray:
    """A legal play maximising points or tiles placed (den Hertog & Hulshof's objective).

    Points placed = the numbers of the coloured tiles played plus, for each joker played,
    the number of the tile it stands for.  A joker's number depends on the arrangement of
    table + play, and when the table holds jokers too it is not defined which jokers are
    "the played ones"; the value used is the highest over all arrangements and all such
    choices (R-RK-07 values jokers the same way for the initial meld).  Before the
    initial meld without table play this is exactly the points of the melds played.

    Args:
        table, rack: count vectors, shape (53,), integer dtype, entries 0..2,
            ``table + rack <= 2`` per type.
        initial_meld_done: R-RK-08 applies if True, R-RK-07 otherwise.
        objective: ``"points"`` (ties: most tiles) or ``"tiles"`` (ties: most points).
        initial_meld_points, initial_meld_table_play: as ``extension_mask``.

    Returns:
        np.ndarray, shape (53,), dtype int64: the play's counts; all zeros if no legal
        play exists.  Among equal plays the one returned is fixed but unspecified.

    Raises:
        ValueError: malformed counts or an unknown objective.
    """
    _check_objective(objective)
    table, rack, _ = _play_inputs(table, rack, np.zeros(NUM_TILE_TYPES, dtype=np.int64))
    if initial_meld_done:
        play = _best_sweep(table, rack, 0, objective, False)
    elif initial_meld_table_play:
        play = _best_sweep(table, rack, max(int(initial_meld_points), 1), objective, True)
    else:
        zero = np.zeros_like(table)
        play = _best_sweep(zero, rack, max(int(initial_meld_points), 0), objective, False)
    return np.zeros(NUM_TILE_TYPES, dtype=np.int64) if play is None else play


def play_points(table, play) -> int:
    """Points placed by ``play`` onto ``table`` as ``best_play`` counts them (unit: points).

    Coloured tiles count their number; jokers of the play count the highest numbers they
    can stand for in an arrangement of table + play.  Returns -1 if table + play does not
    split into valid melds.

    Raises:
        ValueError: malformed counts or more than two tiles of a type on table + play.
    """
    table, play, _ = _play_inputs(table, play, np.zeros(NUM_TILE_TYPES, dtype=np.int64))
    return _forced_points(table, play)


def _forced_points(table: np.ndarray, play: np.ndarray) -> int:
    both = table + play
    tbl_j, jr_needed = int(table[JOKER]), int(play[JOKER])
    keys = _cell_keys(both, both)
    tsum = table[:52].reshape(NUM_COLOURS, NUM_NUMBERS).sum(axis=0).tolist()
    cur = {(0, 0): 0}
    for i, ck in enumerate(keys):
        v = i + 1
        nxt: dict[tuple[int, int], int] = {}
        for (code, jr), val in cur.items():
            j = code >> _JSHIFT
            for p in _transitions(code & _SMASK, ck, int(both[JOKER]) - j):
                kv = p >> _K_SHIFT
                real = ((p >> _NREAL_SHIFT) & 15) - tsum[i]
                n = (p & _SMASK) | ((j + kv) << _JSHIFT)
                for r in range(kv + 1):
                    if jr + r > jr_needed or j + kv - jr - r > tbl_j:
                        continue
                    key = (n, jr + r)
                    gain = val + v * (real + r)
                    if nxt.get(key, -1) < gain:
                        nxt[key] = gain
        if not nxt:
            return -1
        cur = nxt
    return max((val for (code, jr), val in cur.items() if jr == jr_needed), default=-1)


def is_valid_meld(meld: Sequence[int]) -> bool:
    """True iff the tile types form one valid meld: a group (R-RK-03) or run (R-RK-04),
    jokers (52) standing for any tile that makes it valid (R-RK-05)."""
    return meld_points(meld) is not None


def meld_points(meld: Sequence[int]) -> int | None:
    """Points of one meld (R-RK-07): the numbers of its tiles, each joker counting the
    number it stands for, the highest such; None if the tiles form no valid meld."""
    tiles = list(meld)
    if not 3 <= len(tiles) <= NUM_NUMBERS or any(not 0 <= t < NUM_TILE_TYPES for t in tiles):
        return None
    real = [t for t in tiles if t != JOKER]
    if not real:
        return None
    best = None
    numbers = {t % NUM_NUMBERS + 1 for t in real}
    colours = [t // NUM_NUMBERS for t in real]
    if len(numbers) == 1 and len(set(colours)) == len(colours) and len(tiles) <= NUM_COLOURS:
        best = len(tiles) * numbers.pop()
    if len(set(colours)) == 1 and len(set(real)) == len(real):
        nums = sorted(t % NUM_NUMBERS + 1 for t in real)
        length = len(tiles)
        # the run covers low..low+length-1 and must contain every real number
        for low in range(max(1, nums[-1] - length + 1), min(nums[0], NUM_NUMBERS - length + 1) + 1):
            pts = sum(range(low, low + length))
            best = pts if best is None else max(best, pts)
    return best
