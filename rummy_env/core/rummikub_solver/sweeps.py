"""The pure-Python value sweeps: labelled reachability (masks, partition check) and points (pruning: ``dominance``)."""

from __future__ import annotations

import numpy as np

from rummy_env.core.rummikub_solver.dominance import _dominated, _prune  # noqa: F401 (table_play, tests)
from rummy_env.core.rummikub_solver.kernel import _kernel, mirror_bits, mirror_counts, remap_table
from rummy_env.core.rummikub_solver.merged_moves import MERGED_MIN, _label_transitions
from rummy_env.core.rummikub_solver.tables import _JSHIFT, _SMASK, _a_done
from rummy_env.core.rummikub_solver.transitions import _cell_keys, _point_transitions
from rummy_env.core.tiles import JOKER, NUM_COLOURS

# ---------------------------------------------------------------------------------------
# Sweeps.  A code is colour states | jokers used so far << _JSHIFT.  Every sweep is exact:
# it enumerates all reachable codes, merging only paths that agree on everything the rest
# of the sweep can see.


#: Ordered labels (``ordered_extension_mask``): bit 53 = "no tile above its lower bound
#: yet" on some path; bits 0..51 = the lowest such tile type of some path.
_NONE_YET = 1 << 53
_COLOURED_BITS = (1 << JOKER) - 1


def _add_extras(lab: int, extras: int, ordered: bool, remap: dict[int, int] | None = None) -> int:
    """Label after a move that uses the tile types ``extras`` above their lower bound.

    Unordered labels are sets of tile types used by some path (OR).  Ordered labels are
    sets of "lowest extra type" values of the paths: each value becomes min(value, lowest
    of ``extras``), "none yet" becomes the lowest of ``extras`` (or its stand-in in
    ``remap``, ``_ordered_sweep``).
    """
    if not extras:
        return lab
    if not ordered:
        return lab | extras
    low = extras & -extras
    below = lab & (low - 1)
    if not lab >> (low.bit_length() - 1):
        return below
    return below | (low if remap is None else remap.get(low, low))


def _add_extras_mirrored(lab: int, extras: int, ordered: bool, remap: dict[int, int] | None = None) -> int:
    """``_add_extras`` of an ordered label over mirrored numbers (``_label_sweep_py``'s
    ``mirrored``): the values of the colours below the lowest colour of ``extras`` stay, every
    other value becomes the tile of ``extras`` of that colour (or its stand-in in ``remap``)."""
    if not extras:
        return lab
    low = extras & -extras
    stay = (1 << (13 * ((low.bit_length() - 1) // 13))) - 1
    out = lab & stay
    if lab & ~stay:
        out |= low if remap is None else remap.get(low, low)
    return out


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
    return _label_sweep_found(lo, hi, ordered)[1]


def _label_sweep_found(lo: np.ndarray, hi: np.ndarray, ordered: bool = False, below: int = 0) -> tuple[bool, int]:
    """``_label_sweep`` with whether some arrangement exists: ``(found, bits)``.

    ``below > 0`` (ordered only): only the types below ``below`` count as "lowest added
    types" (the jokers never do); the bits are those types, plus bit 53 when some accepting
    path adds no type below ``below`` (a label with fewer values prunes more).
    """
    if ordered:
        return _ordered_sweep(lo, hi, below)
    # the unordered labels read no direction: mirrored they are made late too (``_mirror_pays``)
    mirrored = _mirror_pays(lo, hi, below)
    kernel = _kernel()
    if kernel:
        return kernel(lo, hi, False, below=below, mirrored=mirrored)
    if not mirrored:
        return _label_sweep_py(_cell_keys(lo, hi), int(lo[JOKER]), int(hi[JOKER]), False, below=below)
    keys = _cell_keys(mirror_counts(lo), mirror_counts(hi))
    found, bits = _label_sweep_py(keys, int(lo[JOKER]), int(hi[JOKER]), False, below=below, mirrored=True)
    return found, mirror_bits(bits)


def _ordered_pass(lo: np.ndarray, hi: np.ndarray, below: int, known: int) -> tuple[bool, int]:
    """One ordered sweep on ``lo..hi``, compiled or not, the values of ``known`` standing in
    for their colour (``_ordered_sweep``), over the numbers 13 down to 1 when that pays
    (``_mirror_pays``; ``_label_sweep_py``'s ``mirrored``: the same answer)."""
    kernel = _kernel()
    pairs = _stand_ins(known)
    mirrored = _mirror_pays(lo, hi, below)
    if mirrored:
        pairs = {_mirror_type(t): _mirror_type(u) for t, u in pairs.items()}
    if kernel:
        return kernel(lo, hi, True, below=below, remap=remap_table(pairs) if pairs else None, mirrored=mirrored)
    remap = {1 << t: 1 << u for t, u in pairs.items()} if pairs else None
    if not mirrored:
        return _label_sweep_py(_cell_keys(lo, hi), int(lo[JOKER]), int(hi[JOKER]), True, below=below, remap=remap)
    keys = _cell_keys(mirror_counts(lo), mirror_counts(hi))
    found, bits = _label_sweep_py(keys, int(lo[JOKER]), int(hi[JOKER]), True, below=below, remap=remap, mirrored=True)
    return found, mirror_bits(bits)


#: An ordered sweep runs over the numbers 13 down to 1 when the types it can add (below its
#: cap) have numbers of at most this mean: values are then made late (measured on 80
#: random positions: 8 took 13% less time than forwards only and 3% more than the faster
#: direction of each; on the kept worst cases up to 2x less, and 2x more on racks of 11s
#: and 12s, which stay forwards).
_MIRROR_MEAN = 8.0


def _mirror_pays(lo: np.ndarray, hi: np.ndarray, below: int) -> bool:
    """Whether a label sweep (``_ordered_pass``, the unordered ``_label_sweep_found``) runs
    mirrored: the mean number of the coloured types that can be added (those below ``below``
    when it is set) is at most ``_MIRROR_MEAN``.  Unordered labels (the types some path adds)
    are made late mirrored too: 1.6-1.8x faster on the kept racks of low tiles, 1.8x slower
    on the racks of 11s and 12s; existence sweeps carry no labels and stay forwards."""
    free = np.flatnonzero(hi[:JOKER] > lo[:JOKER])
    if below > 0:
        free = free[free < below]
    return bool(free.size) and float((free % 13).mean()) + 1 <= _MIRROR_MEAN


def _mirror_type(t: int) -> int:
    """Tile type ``t`` with its number reversed (``v -> 14 - v``); the joker stays."""
    return t if t >= JOKER else (t // 13) * 13 + 12 - t % 13


def _ordered_sweep(
    lo: np.ndarray, hi: np.ndarray, below: int, known: int = 0, want: int | None = None, lower: bool = False
) -> tuple[bool, int]:
    """The ordered sweep in stages, each on bounds ``lo..h`` with ``h <= hi``.

    The stages: at most one tile of each type above ``lo`` and no joker to add (a smaller
    sweep that finds most of the answer on the kept worst cases); then, when jokers can be
    added, every tile but those jokers; then the full sweep.  A restricted stage's paths are
    paths of the full sweep with the same added tiles, so every bit it finds is in the
    answer; once the bits found hold every bit asked for the later stages are skipped, and
    when only a few (``_FEW_LEFT``; compiled ``_FEW_LEFT_COMPILED``) are left open, each is
    decided by an existence sweep (``_ordered_bit_exists``).  In a later stage a label value ``t`` found already stands
    in as the lowest found value of its colour (``remap``): a value's future depends only on
    its colour (a later move has a higher number, so it lowers the value only with a lower
    colour, and then to the same new value for every value of the colour), so the stand-in
    ends in the answer exactly when ``t`` would, and labels with fewer distinct values prune
    more.  The union of the stages is the answer of the one full sweep.  When no tile that
    can be added makes a label value (none below ``below``, or none at all), one existence
    sweep answers.

    ``known``: bits the caller knows to be in the answer (they stand in from the first stage
    and are returned); ``want``: the bits the caller needs (default: every bit the answer can
    have, ``_ordered_candidates``).  Returns ``(found, bits)`` with ``found`` exact and
    ``answer & want <= bits <= answer`` (``bits`` is the answer when ``want`` is the default).
    ``lower``: only a lower bound is asked for: the stages stop at the first that finds an
    arrangement (``found`` stays exact, ``bits`` any subset of the answer).
    """
    stages = []
    one = np.minimum(hi, lo + 1)
    one[JOKER] = lo[JOKER]
    if np.any(one != hi):
        stages.append(one)
    if hi[JOKER] > lo[JOKER]:
        cut = hi.copy()
        cut[JOKER] = lo[JOKER]
        if np.any(cut != one):
            stages.append(cut)
    stages.append(hi)
    cands = _ordered_candidates(lo, hi, below)
    if cands & ~_NONE_YET == 0:  # nothing to add that makes a label value: existence alone
        found = _reachable(lo, hi)
        return found, _NONE_YET if found and below > 0 else 0
    if want is None:
        want = cands
    found = known != 0  # a known bit is some accepting path's
    few_left = _FEW_LEFT_COMPILED if _kernel() else _FEW_LEFT
    for h in stages:
        if found and known & want == want:
            break
        f, bits = _ordered_pass(lo, h, below, known)
        found, known = found or f, known | bits
        if lower and found:
            break
        if found and h is not hi and (want & ~known).bit_count() <= few_left:
            for bit in _bits_of(want & ~known):
                if _ordered_bit_exists(lo, hi, below, bit):
                    known |= 1 << bit
            break
    return found, known


#: Bits left open after a stage of ``_ordered_sweep`` that are decided one by one (an
#: existence sweep each, ``_ordered_bit_exists``) rather than by the next stage.
_FEW_LEFT = 3
#: The same for the compiled sweeps, whose existence sweeps cost little next to a stage (on
#: the 53-tile kept position with R1 chosen: 0.1-0.3 ms each against 20-26 ms for the stage).
_FEW_LEFT_COMPILED = 8


def _bits_of(bits: int) -> list[int]:
    """The positions of the set bits of ``bits``, lowest first."""
    out = []
    while bits:
        out.append((bits & -bits).bit_length() - 1)
        bits &= bits - 1
    return out


def _ordered_bit_exists(lo: np.ndarray, hi: np.ndarray, below: int, bit: int) -> bool:
    """Is ``bit`` in the ordered sweep's answer on ``lo..hi``?  One existence sweep.

    A coloured type ``t``: some arrangement adds ``t`` and no type below it (the types
    below ``t`` held at ``lo``).  The joker (``below == 0``): one adds a joker and no
    coloured type.  Bit 53 (``below > 0``): one adds no type below ``below``.
    """
    lo2, hi2 = lo.copy(), hi.copy()
    if bit == _NONE_YET.bit_length() - 1:
        hi2[:below] = lo[:below]
    elif bit == JOKER:
        lo2[JOKER] += 1
        hi2[:JOKER] = lo[:JOKER]
    else:
        lo2[bit] += 1
        hi2[:bit] = lo[:bit]
    return _reachable(lo2, hi2)


def _ordered_candidates(lo: np.ndarray, hi: np.ndarray, below: int) -> int:
    """Every bit an ordered sweep on ``lo..hi`` can return: the types above their bound (only
    those below ``below`` when it is set, the joker among them only without it), and bit 53
    with ``below``."""
    free = hi > lo
    if below > 0:
        free[below:] = False
    bits = 0
    for t in np.flatnonzero(free):
        bits |= 1 << int(t)
    return bits | (_NONE_YET if below > 0 else 0)


def _stand_ins(known: int) -> dict[int, int]:
    """The stand-ins of the values found so far: each coloured type of ``known`` -> the
    lowest type of ``known`` of its colour (empty: nothing found yet)."""
    pairs: dict[int, int] = {}
    for c in range(NUM_COLOURS):
        row = (known >> (c * 13)) & ((1 << 13) - 1)
        if row:
            low = c * 13 + (row & -row).bit_length() - 1
            pairs.update({c * 13 + v: low for v in range(13) if row >> v & 1})
    return pairs


def _label_sweep_py(
    keys: tuple,
    jlo: int,
    jhi: int,
    ordered: bool = False,
    labels: bool = True,
    below: int = 0,
    remap: dict[int, int] | None = None,
    mirrored: bool = False,
) -> tuple[bool, int]:
    """Pure-Python ``_label_sweep``; returns (some arrangement exists, bits).

    ``labels=False``: only whether an arrangement exists (bits 0; empty labels prune most).
    ``below``: as ``_label_sweep_found``.  ``remap`` (ordered): a new lowest added type
    ``1 << t`` enters a label as ``remap.get(1 << t, 1 << t)``, as the kernel's ``remap``.

    ``mirrored``: ``keys`` are those of the mirrored bounds (``kernel_tables.
    mirror_counts``: the numbers 13 down to 1), and so are ``remap`` and the bits returned
    (``below`` is not).  A path's lowest added type is its lowest colour with an added tile,
    at that colour's lowest number: over mirrored numbers, the latest tile added in that
    colour.  So a move whose lowest added colour is ``e`` keeps the values of the colours
    below ``e`` and turns every other value, "none yet" included, into its own tile of colour
    ``e`` (``_add_extras_mirrored``).  Each value still maps on its own and its future depends
    on its colour only, so labels, pruning and stand-ins work as forwards, and the answer is
    the same; values are made late in the sweep rather than early (on racks of low tiles the
    forward labels stay apart over all 13 numbers): 2.2x fewer states on the kept worst case.
    """
    keep = (1 << below) - 1 if below > 0 else -1
    if mirrored and below > 0:
        keep = mirror_bits(keep)
    add = _add_extras_mirrored if mirrored else _add_extras
    cur = {0: _NONE_YET if ordered else 0}
    for i, ck in enumerate(keys):
        nxt: dict[int, int] = {}
        get = nxt.get
        halves = len(cur) >= MERGED_MIN
        for code, lab in cur.items():
            jpart = code & ~_SMASK
            moves = _label_transitions(code & _SMASK, ck, jhi - (code >> _JSHIFT), not ordered, halves)
            if not labels:
                for delta, _spread in moves:
                    nxt[jpart + delta] = 0
            elif ordered:
                by_spread: dict[int, int] = {}  # an ordered move reads one colour bit: few labels
                for delta, spread in moves:
                    new = by_spread.get(spread)
                    if new is None:
                        new = by_spread[spread] = add(lab, (spread << i) & keep, True, remap)
                    n = jpart + delta
                    old = get(n)
                    nxt[n] = new if old is None else old | new
            else:
                for delta, spread in moves:
                    n = jpart + delta
                    new = lab | (spread << i)
                    old = get(n)
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
            out |= lab & (keep | _NONE_YET) if below > 0 else _fold_label(lab, j, jlo, ordered)
    return found, out


def _points_sweep(lo: np.ndarray, hi: np.ndarray, threshold: int, ordered: bool = False) -> int:
    """``_label_sweep_points`` on count vectors ``lo..hi`` (53,), compiled when the kernel is there."""
    kernel = _kernel()
    if kernel:
        return kernel(lo, hi, ordered, max(threshold, 0))[1]
    return _label_sweep_points(_cell_keys(lo, hi), int(lo[JOKER]), int(hi[JOKER]), threshold, ordered)


def _label_sweep_points(
    keys: tuple, jlo: int, jhi: int, threshold: int, ordered: bool = False, stop: bool = False
) -> int:
    """``_label_sweep`` where the arrangement must also be worth >= ``threshold`` points.

    Points of an arrangement = sum over its tiles of the number each stands for (a joker at
    number v is worth v, R-RK-07).  The points so far, capped at ``threshold``, are part of
    the state, so the sweep stays a plain reachability computation.

    ``stop`` (only for bounds that use nothing: ``lo`` all zero) with ``threshold > 0``:
    whether an arrangement exists, nonzero as soon as a code has the points and only runs of
    3+ open (it can close them and use nothing more; the kernel's ``long_only``); the bits
    are then not the mask.
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
        if stop and threshold > 0 and any(key >> cap_shift >= threshold and _a_done(key & _SMASK) for key in nxt):
            return 1
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
        return kernel(lo, hi, labels=False)[0]
    return _label_sweep_py(_cell_keys(lo, hi), int(lo[JOKER]), int(hi[JOKER]), labels=False)[0]
