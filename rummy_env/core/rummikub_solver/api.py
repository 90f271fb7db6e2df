"""The public functions of the solver (re-exported by ``rummy_env.core.rummikub_solver``)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from rummy_env.core.rummikub_solver.best import _best_sweep, _forced_points
from rummy_env.core.rummikub_solver.certificate import _build_melds, _path
from rummy_env.core.rummikub_solver.checks import _bits_to_mask, _check_objective, _counts, _play_inputs
from rummy_env.core.rummikub_solver.memo import BoundedCache
from rummy_env.core.rummikub_solver.sweeps import _label_sweep, _max_points, _points_sweep, _reachable
from rummy_env.core.rummikub_solver.table_play import _meld_from, _table_play_sweep
from rummy_env.core.rummikub_solver.transitions import _cell_keys
from rummy_env.core.tiles import JOKER, NUM_COLOURS, NUM_NUMBERS, NUM_TILE_TYPES

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


#: Whole masks by input: the env asks for the same mask again after an illegal action or a reset.
_MASK_CACHE = BoundedCache("masks", lambda key, value: 1800)


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
    return _mask(table, rack, chosen, initial_meld_done, initial_meld_points, initial_meld_table_play, False)


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
    return _mask(table, rack, chosen, initial_meld_done, initial_meld_points, initial_meld_table_play, True)


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
    initial_meld_done, initial_meld_table_play = bool(initial_meld_done), bool(initial_meld_table_play)
    initial_meld_points = int(initial_meld_points)
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
        bits = _points_sweep(chosen, rack, initial_meld_points, ordered)
    else:
        bits = _table_play_sweep(table, rack, chosen, initial_meld_points, "mask", ordered)
    mask = _bits_to_mask(bits)
    _MASK_CACHE.store(key, mask)
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
        threshold = max(int(initial_meld_points), 1)
        zero = np.zeros_like(rack)
        play = None
        if _meld_from(zero, rack, threshold):  # else no initial meld within the rack: no play
            # the best play after the initial meld is the answer when it holds an initial
            # meld (every play legal here is legal there); only otherwise run the product
            play = _best_sweep(table, rack, 0, objective, False)
            if play is not None and not _meld_from(zero, play, threshold):
                play = _best_sweep(table, rack, threshold, objective, True)
    else:
        zero = np.zeros_like(table)
        play = _best_sweep(zero, rack, max(int(initial_meld_points), 0), objective, False)
    return np.zeros(NUM_TILE_TYPES, dtype=np.int64) if play is None else play


def play_points(table, play) -> int:
    """Points placed by ``play`` onto ``table`` as ``best_play`` counts them (unit: points;
    R-RK-07's initial meld threshold counts them).  ``table`` and ``play``: tile counts per
    type, shape (53,), integers 0..2.

    Coloured tiles count their number; jokers of the play count the highest numbers they
    can stand for in an arrangement of table + play.  Returns -1 if table + play does not
    split into valid melds.

    Raises:
        ValueError: malformed counts or more than two tiles of a type on table + play.
    """
    table, play, _ = _play_inputs(table, play, np.zeros(NUM_TILE_TYPES, dtype=np.int64))
    return _forced_points(table, play)


def is_valid_meld(meld: Sequence[int]) -> bool:
    """True iff the tile types form one valid meld: a group (R-RK-03) or run (R-RK-04),
    jokers (52) standing for any tile that makes it valid (R-RK-05).

    Args:
        meld: tile types, ints 0..52 (``rummy_env.core.tiles``: colour * 13 + number - 1,
            52 the joker), in any order.

    Raises:
        ValueError: an entry that is not a tile type (not an int, a bool, or out of 0..52).
    """
    return meld_points(meld) is not None


def meld_points(meld: Sequence[int]) -> int | None:
    """Points of one meld (R-RK-07): the numbers of its tiles, each joker counting the
    number it stands for, the highest such; None if the tiles form no valid meld.

    Args:
        meld: tile types, ints 0..52, in any order (as :func:`is_valid_meld`).

    Raises:
        ValueError: an entry that is not a tile type (not an int, a bool, or out of 0..52).
    """
    if isinstance(meld, (str, bytes)) or not hasattr(meld, "__iter__"):
        raise ValueError(f"meld {meld!r} is not a sequence of tile types 0..{NUM_TILE_TYPES - 1}")
    tiles = list(meld)
    for t in tiles:
        if isinstance(t, (bool, np.bool_)) or not isinstance(t, (int, np.integer)) or not 0 <= t < NUM_TILE_TYPES:
            raise ValueError(f"meld {tiles!r}: {t!r} is not a tile type: tile types are ints 0..{NUM_TILE_TYPES - 1}")
    tiles = [int(t) for t in tiles]
    if not 3 <= len(tiles) <= NUM_NUMBERS:
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
