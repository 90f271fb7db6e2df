"""The table of basic Rummy and Crazy Rummy as three bitmasks, for the batch kernels.

A card's lay-off targets (R-RUMMY-08, R-CRAZY-07) are known without a list of melds: the
ranks holding a 3-card set (``set3``: bit ``rank``) and, per suit, the run positions
(0..13, 13 = high ace; 14 bits a suit, bit ``14 * suit + position``) where a run's low end
(``low_ends``) or high end (``high_ends``) sits, updated as ``core.table.Table`` keeps its
indexes.  All three are uint64; cards are ids 0..51 (``suit * 13 + rank``, rank 0 = ace).

numba's cache of a kernel that calls these functions is keyed on that kernel's own file:
after editing this one, remove the ``__pycache__/*.nbi``/``*.nbc`` files of ``rummy_kernel``,
``crazy_kernel`` and ``agents.search.rummy_fast`` (or touch those modules).  The constants are
tied to ``core.melds``' by ``tests/vector/test_kernel_constants.py``.
"""

from __future__ import annotations

from numba import njit

from rummy_env.vector.bits import bit, has
from rummy_env.vector.deadwood_kernel import MELD_HIGH, MELD_IS_RUN, MELD_LOW, MELD_RANK, MELD_SIZE, MELD_SUIT

SIDE_SET, SIDE_LOW, SIDE_HIGH = 0, 1, 2  # where a card is laid off (core.table.Table's sides)
HIGH_ACE = 13  # the run position of an ace above the king


@njit(inline="always", cache=True)
def layoff_sides(card, set3, low_ends, high_ends, ace_high):
    """Bits ``1 << side`` of the sides where ``card`` extends a table meld
    (``Table.layoff_sides``)."""
    rank, suit = card % 13, card // 13
    sides = 0
    if has(set3, rank):
        sides |= 1 << SIDE_SET
    if has(low_ends, 14 * suit + rank + 1):
        sides |= 1 << SIDE_LOW
    high_pos = HIGH_ACE if rank == 0 else rank
    if has(high_ends, 14 * suit + high_pos - 1) and (rank != 0 or ace_high):
        sides |= 1 << SIDE_HIGH
    return sides


@njit(inline="always", cache=True)
def put_down(meld, set3, low_ends, high_ends):
    """The table indexes after meld ``meld`` is put down (``Table.put_down``)."""
    if MELD_IS_RUN[meld]:
        low_ends |= bit(14 * MELD_SUIT[meld] + MELD_LOW[meld])
        high_ends |= bit(14 * MELD_SUIT[meld] + MELD_HIGH[meld])
    elif MELD_SIZE[meld] == 3:
        set3 |= bit(MELD_RANK[meld])
    return set3, low_ends, high_ends


@njit(inline="always", cache=True)
def lay_off(card, side, set3, low_ends, high_ends):
    """The table indexes after ``card`` is laid off on ``side`` (``Table.lay_off``)."""
    rank, suit = card % 13, card // 13
    if side == SIDE_SET:
        set3 &= ~bit(rank)  # four of a kind takes no more
    elif side == SIDE_LOW:
        low_ends = (low_ends & ~bit(14 * suit + rank + 1)) | bit(14 * suit + rank)
    else:
        pos = HIGH_ACE if rank == 0 else rank
        high_ends = (high_ends & ~bit(14 * suit + pos - 1)) | bit(14 * suit + pos)
    return set3, low_ends, high_ends
