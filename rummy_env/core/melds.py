"""The table of all natural melds of a 52-card deck, and meld / lay-off validity.

A *set* is 3 or 4 cards of one rank; a *run* is 3 or more cards of one suit in
consecutive rank (R-RUMMY-07, R-GIN-05, R-CRAZY-04).  The ace is low (A-2-3); a run
ending with a high ace (Q-K-A) is legal only with ``ace_high=True`` (R-RUMMY-01), and
a run never goes "around the corner" (K-A-2).

Meld table order (fixed; meld ids are indexes into :data:`MELDS`)
------------------------------------------------------------------
1. Sets, 65 of them, by rank A..K; within a rank the four 3-card sets in the
   lexicographic order of their suits (CDH, CDS, CHS, DHS), then the 4-card set.
   Set of rank ``r``: ids ``5*r .. 5*r+4``.
2. Runs, 304 of them, by suit C D H S, then by lowest position, then by length.
   A run is the positions ``low..high`` (inclusive) of one suit, where position
   ``p`` is the card of rank ``p % 13``: 0 = low ace, 1 = two, ..., 12 = king,
   13 = high ace.  Per suit: the 66 runs with ``0 <= low``, ``high <= 12`` and the 10
   runs ending at the high ace (``high == 13``, ``low`` 2..11: 3..K-A down to Q-K-A).
   ``2..K-A`` is left out: it holds the same 13 cards as ``A..K``, which is in the
   table.

``NUM_MELDS == 369``.  Every meld has a distinct card bitmask, so
:data:`MELD_ID_BY_MASK` maps a set of cards back to its meld id.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from typing import NamedTuple

import numpy as np

from rummy_env.core.cards import (
    NUM_RANKS,
    NUM_SUITS,
    card_id,
    mask_of,
    rank_of,
    suit_of,
)

SET = 0
RUN = 1
HIGH_ACE_POSITION = 13


class Meld(NamedTuple):
    """One entry of the meld table: a set (3 or 4 cards of one rank) or a run (3 or more
    cards of one suit in sequence), R-RUMMY-07, R-GIN-05, R-CRAZY-04.

    Attributes:
        id: index in :data:`MELDS`.
        kind: :data:`SET` or :data:`RUN`.
        cards: card ids, for runs from low to high (a high ace last).
        mask: bitmask of ``cards``.
        rank: rank index of a set, -1 for a run.
        suit: suit index of a run, -1 for a set.
        low, high: positions of a run's ends (0..13, see module doc); for a set both
            are its rank index.
        needs_ace_high: True for runs that hold a high ace (legal only with R-RUMMY-01's
            ``ace_high=True``).
    """

    id: int
    kind: int
    cards: tuple[int, ...]
    mask: int
    rank: int
    suit: int
    low: int
    high: int
    needs_ace_high: bool


def position_card(suit: int, position: int) -> int:
    """Card id at run position ``position`` (0..13, 13 = high ace) of a suit."""
    return card_id(position % NUM_RANKS, suit)


def _build_table() -> tuple[Meld, ...]:
    melds: list[Meld] = []
    for rank in range(NUM_RANKS):
        for missing in (3, 2, 1, 0):  # CDH, CDS, CHS, DHS: lexicographic suit order
            cards = tuple(card_id(rank, s) for s in range(NUM_SUITS) if s != missing)
            melds.append(Meld(len(melds), SET, cards, mask_of(cards), rank, -1, rank, rank, False))
        cards = tuple(card_id(rank, s) for s in range(NUM_SUITS))
        melds.append(Meld(len(melds), SET, cards, mask_of(cards), rank, -1, rank, rank, False))
    for suit in range(NUM_SUITS):
        for low in range(HIGH_ACE_POSITION + 1):
            for high in range(low + 2, HIGH_ACE_POSITION + 1):
                if high == HIGH_ACE_POSITION and low <= 1:
                    continue  # 14 cards, or 2..K-A which repeats A..K
                cards = tuple(position_card(suit, p) for p in range(low, high + 1))
                melds.append(
                    Meld(len(melds), RUN, cards, mask_of(cards), -1, suit, low, high, high == HIGH_ACE_POSITION)
                )
    return tuple(melds)


#: The meld table (see module docstring for its order).
MELDS: tuple[Meld, ...] = _build_table()
NUM_MELDS: int = len(MELDS)
NUM_SETS: int = 65
#: Bitmask of each meld, indexed by meld id.
MELD_MASKS: tuple[int, ...] = tuple(m.mask for m in MELDS)
#: Meld id of each meld bitmask.
MELD_ID_BY_MASK: dict[int, int] = {m.mask: m.id for m in MELDS}
#: Meld id of the run of ``suit`` from ``low`` to ``high``: ``RUN_ID[(suit, low, high)]``.
RUN_ID: dict[tuple[int, int, int], int] = {(m.suit, m.low, m.high): m.id for m in MELDS if m.kind == RUN}
assert NUM_MELDS == 369 and MELDS[NUM_SETS].kind == RUN and MELDS[NUM_SETS - 1].kind == SET
#: The meld table as arrays, for vectorised searches: bitmasks (uint64, shape (369,)),
#: sizes in cards (int64) and whether the meld needs ``ace_high`` (bool).
MELD_MASK_ARRAY: np.ndarray = np.array(MELD_MASKS, dtype=np.uint64)
MELD_SIZE_ARRAY: np.ndarray = np.array([len(m.cards) for m in MELDS], dtype=np.int64)
MELD_ACE_HIGH_ARRAY: np.ndarray = np.array([m.needs_ace_high for m in MELDS], dtype=bool)
for _array in (MELD_MASK_ARRAY, MELD_SIZE_ARRAY, MELD_ACE_HIGH_ARRAY):
    _array.setflags(write=False)


_SET_SUITS = (0b0111, 0b1011, 0b1101, 0b1110, 0b1111)  # suit patterns of the sets of a rank, in table order


@cache
def _sets_of_rank_pattern(rank: int, pattern: int) -> tuple[int, ...]:
    """Set ids of ``rank`` held, given a 4-bit pattern of the suits held (bit s = suit s)."""
    return tuple(5 * rank + j for j, need in enumerate(_SET_SUITS) if pattern & need == need)


@cache
def _runs_of_suit_pattern(suit: int, pattern: int) -> tuple[int, ...]:
    """Run ids of ``suit`` held, given a 14-bit pattern of positions held (bit 13 = high ace)."""
    out = []
    p = 0
    while p <= HIGH_ACE_POSITION:
        if not pattern >> p & 1:
            p += 1
            continue
        end = p
        while end + 1 <= HIGH_ACE_POSITION and pattern >> (end + 1) & 1:
            end += 1
        for low in range(p, end + 1):
            for high in range(low + 2, end + 1):
                run = RUN_ID.get((suit, low, high))
                if run is not None:
                    out.append(run)
        p = end + 1
    return tuple(sorted(out))


_SUIT_SHIFT = tuple(s * NUM_RANKS for s in range(NUM_SUITS))
_SUIT_BITS = (1 << NUM_RANKS) - 1
_RANK_COLUMN = sum(1 << (s * NUM_RANKS) for s in range(NUM_SUITS))  # bits of the four aces
_THREE_OR_MORE = frozenset(p for p in range(16) if bin(p).count("1") >= 3)


def melds_in_hand(hand: int, ace_high: bool = False) -> list[int]:
    """Ids of every meld whose cards are all in ``hand``, ascending.

    Args:
        hand: card bitmask.
        ace_high: also allow runs ending with a high ace (R-RUMMY-01).

    Returns:
        sorted list of meld ids (ints in 0..368).
    """
    out: list[int] = []
    for rank in range(NUM_RANKS):
        column = hand >> rank & _RANK_COLUMN
        pattern = (column & 1) | (column >> 12 & 2) | (column >> 24 & 4) | (column >> 36 & 8)
        if pattern in _THREE_OR_MORE:
            out.extend(_sets_of_rank_pattern(rank, pattern))
    for suit in range(NUM_SUITS):
        pattern = hand >> _SUIT_SHIFT[suit] & _SUIT_BITS
        if pattern:
            if ace_high and pattern & 1:
                pattern |= 1 << HIGH_ACE_POSITION
            runs = _runs_of_suit_pattern(suit, pattern)
            if ace_high:
                out.extend(runs)
            else:
                out.extend(r for r in runs if not MELDS[r].needs_ace_high)
    return out


def meld_of_cards(cards: Iterable[int], ace_high: bool = False) -> int | None:
    """Meld id of a group of distinct cards, or None if they form no legal meld.

    The cards may be in any order.  With ``ace_high=False`` a run holding a high ace
    (Q-K-A) is not a meld (R-RUMMY-01).
    """
    meld = MELD_ID_BY_MASK.get(mask_of(cards))
    if meld is None or (MELDS[meld].needs_ace_high and not ace_high):
        return None
    return meld


def is_valid_meld(cards: Sequence[int], ace_high: bool = False) -> bool:
    """Whether the distinct card ids ``cards`` form a set or a run (R-RUMMY-07).

    A set is 3 or 4 cards of one rank; a run is 3 or more cards of one suit in
    consecutive rank, ace low (or high when ``ace_high``), never around the corner.
    This is the plain rule check; :func:`meld_of_cards` is the fast table lookup.
    """
    if len(cards) < 3 or len(set(cards)) != len(cards):
        return False
    ranks = sorted(rank_of(c) for c in cards)
    suits = {suit_of(c) for c in cards}
    if len(set(ranks)) == 1:
        return len(cards) <= 4
    if len(suits) != 1:
        return False
    if ranks == list(range(ranks[0], ranks[0] + len(ranks))):
        return True
    # high ace: the ace sits above the king
    if ace_high and ranks[0] == 0:
        high = ranks[1:] + [13]
        return high == list(range(high[0], high[0] + len(high)))
    return False


#: Lay-off sides, the three places a card can go (R-RUMMY-08); ``core.table`` finds them.
LAYOFF_SET = 0  #: the fourth card of a 3-card set of its rank
LAYOFF_RUN_LOW = 1  #: below the lowest card of a run of its suit
LAYOFF_RUN_HIGH = 2  #: above the highest card of a run of its suit
LAYOFF_SIDES = ("set", "low", "high")
