"""The melds on the table of a card variant, and where a card can be laid off.

Each card exists once, so the table holds at most one 3-card set of a rank, at most one
run of a suit whose low end is a given position and at most one whose high end is a
given position.  A card therefore has at most three lay-off targets (R-RUMMY-08): the
set of its rank, below the low end of a run of its suit, above the high end of one.
The table keeps those three indexes up to date as melds are put down and runs grow.

A table meld *represents* cards: in basic Rummy each is the natural card itself; in
Crazy Rummy a wild card may stand for a represented card (R-CRAZY-05), recorded in
``TableMeld.wilds`` as ``{represented card: physical wild card}``.
"""

from __future__ import annotations

from rummy_env.core.cards import NUM_RANKS, cards_of, rank_of, suit_of
from rummy_env.core.melds import (
    HIGH_ACE_POSITION,
    LAYOFF_RUN_HIGH,
    LAYOFF_RUN_LOW,
    LAYOFF_SET,
    MELDS,
    RUN,
    Meld,
    meld_of_cards,
    position_card,
)

_POS_SLOTS = HIGH_ACE_POSITION + 1  # run positions 0..13 per suit


class TableMeld:
    """A meld on the table.

    Attributes:
        kind: ``core.melds.SET`` or ``RUN``.
        rank: a set's rank index (-1 for runs).
        suit: a run's suit index (-1 for sets).
        low, high: a run's end positions (0..13, 13 = high ace); a set's rank.
        mask: bitmask of the cards it represents.
        owner: seat of the player who put it down.
        wilds: represented card -> the wild card standing for it (empty without wilds).
    """

    __slots__ = ("kind", "rank", "suit", "low", "high", "mask", "owner", "wilds")

    def __init__(
        self,
        kind: int,
        rank: int,
        suit: int,
        low: int,
        high: int,
        mask: int,
        owner: int,
        wilds: dict[int, int] | None = None,
    ):
        self.kind, self.rank, self.suit, self.low, self.high = kind, rank, suit, low, high
        self.mask, self.owner = mask, owner
        self.wilds = wilds if wilds is not None else {}

    def copy(self) -> TableMeld:
        """An independent copy (its ``wilds`` copied too)."""
        return TableMeld(self.kind, self.rank, self.suit, self.low, self.high, self.mask, self.owner, dict(self.wilds))

    def cards(self) -> list[int]:
        """Represented card ids in table order (runs low to high, a high ace last)."""
        if self.kind == RUN:
            return [position_card(self.suit, p) for p in range(self.low, self.high + 1)]
        return cards_of(self.mask)

    def physical(self) -> list[int]:
        """The cards physically in the meld, in the order of :meth:`cards`."""
        return [self.wilds.get(c, c) for c in self.cards()]


class Table:
    """The melds on the table with the indexes that find lay-off targets in O(1).

    Args:
        ace_high: whether an ace may go above a king (R-RUMMY-01; never in Crazy Rummy).
    """

    __slots__ = ("ace_high", "melds", "mask", "_set_at_rank", "_run_low_at", "_run_high_at")

    def __init__(self, ace_high: bool = False):
        self.ace_high = ace_high
        self.melds: list[TableMeld] = []
        self.mask = 0  # every card represented on the table
        self._set_at_rank = [-1] * NUM_RANKS  # table index of the 3-card set of a rank
        self._run_low_at = [-1] * (4 * _POS_SLOTS)  # (suit, low end position) -> table index
        self._run_high_at = [-1] * (4 * _POS_SLOTS)

    def copy(self) -> Table:
        """An independent copy: melds and lay-off indexes copied."""
        other = Table.__new__(Table)
        other.ace_high = self.ace_high
        other.melds = [m.copy() for m in self.melds]
        other.mask = self.mask
        other._set_at_rank = list(self._set_at_rank)
        other._run_low_at = list(self._run_low_at)
        other._run_high_at = list(self._run_high_at)
        return other

    def __len__(self) -> int:
        return len(self.melds)

    def __iter__(self):
        return iter(self.melds)

    def put_down(self, meld: Meld, owner: int, wilds: dict[int, int] | None = None) -> int:
        """Add a meld of the meld table; returns its table index (R-RUMMY-07).

        The caller checks legality; ``wilds`` maps represented cards to wild cards.
        """
        index = len(self.melds)
        self.melds.append(TableMeld(meld.kind, meld.rank, meld.suit, meld.low, meld.high, meld.mask, owner, wilds))
        if meld.kind == RUN:
            base = meld.suit * _POS_SLOTS
            self._run_low_at[base + meld.low] = index
            self._run_high_at[base + meld.high] = index
        elif len(meld.cards) == 3:
            self._set_at_rank[meld.rank] = index
        self.mask |= meld.mask
        return index

    def layoff_sides(self, card: int) -> list[int]:
        """Sides (``LAYOFF_SET``, ``LAYOFF_RUN_LOW``, ``LAYOFF_RUN_HIGH``) where ``card``
        extends a table meld (R-RUMMY-08).  ``card`` must not be on the table."""
        sides = []
        rank, suit = rank_of(card), suit_of(card)
        if self._set_at_rank[rank] >= 0:
            sides.append(LAYOFF_SET)
        base = suit * _POS_SLOTS
        if self._run_low_at[base + rank + 1] >= 0:
            sides.append(LAYOFF_RUN_LOW)
        high_pos = HIGH_ACE_POSITION if rank == 0 else rank
        if high_pos >= 1 and self._run_high_at[base + high_pos - 1] >= 0 and (rank != 0 or self.ace_high):
            sides.append(LAYOFF_RUN_HIGH)
        return sides

    def layoff_targets(self) -> list[tuple[int, int]]:
        """Every ``(card, side)`` that extends a table meld (R-RUMMY-08; Crazy Rummy's
        R-CRAZY-07), read off the same indexes as
        :meth:`layoff_sides`: the missing card of each 3-card set, the card below each
        run's low end and the card above each run's high end (a high ace only with
        ``ace_high``).  A card already on the table may come up (a run's neighbour can sit
        in a set): callers skip the cards on the table."""
        out = []
        for rank, index in enumerate(self._set_at_rank):
            if index >= 0:
                column = self.melds[index].mask >> rank
                missing = next(s for s in range(4) if not column >> (s * NUM_RANKS) & 1)
                out.append((missing * NUM_RANKS + rank, LAYOFF_SET))
        for slot, index in enumerate(self._run_low_at):
            if index >= 0 and slot % _POS_SLOTS >= 1:
                out.append((position_card(slot // _POS_SLOTS, slot % _POS_SLOTS - 1), LAYOFF_RUN_LOW))
        top = HIGH_ACE_POSITION if self.ace_high else HIGH_ACE_POSITION - 1
        for slot, index in enumerate(self._run_high_at):
            if index >= 0 and slot % _POS_SLOTS < top:
                out.append((position_card(slot // _POS_SLOTS, slot % _POS_SLOTS + 1), LAYOFF_RUN_HIGH))
        return out

    def lay_off(self, card: int, side: int, wild: int = -1) -> int:
        """Add ``card`` to the meld it extends on ``side`` (R-RUMMY-08, R-CRAZY-07); returns
        that meld's index.

        Unchecked, as the engines' hot path: the caller must have checked ``side in
        self.layoff_sides(card)``; any other ``side`` corrupts the table.

        Args:
            card: the represented card (legal on that side: see :meth:`layoff_sides`).
            side: ``LAYOFF_SET``, ``LAYOFF_RUN_LOW`` or ``LAYOFF_RUN_HIGH``.
            wild: the wild card standing for ``card``, or -1 for the natural card.
        """
        rank, suit = rank_of(card), suit_of(card)
        base = suit * _POS_SLOTS
        if side == LAYOFF_SET:
            index = self._set_at_rank[rank]
            self._set_at_rank[rank] = -1  # four of a kind takes no more
        elif side == LAYOFF_RUN_LOW:
            index = self._run_low_at[base + rank + 1]
            self._run_low_at[base + rank + 1] = -1
            self._run_low_at[base + rank] = index
            self.melds[index].low -= 1
        else:
            pos = HIGH_ACE_POSITION if rank == 0 else rank
            index = self._run_high_at[base + pos - 1]
            self._run_high_at[base + pos - 1] = -1
            self._run_high_at[base + pos] = index
            self.melds[index].high += 1
        meld = self.melds[index]
        meld.mask |= 1 << card
        if wild >= 0:
            meld.wilds[card] = wild
        self.mask |= 1 << card
        return index


def layoff_fits(meld_cards: list[int] | tuple[int, ...], card: int, side: int, ace_high: bool = False) -> bool:
    """Whether ``card`` can be laid off on the meld ``meld_cards`` at ``side`` (R-RUMMY-08).

    The same check the engines make, on a table holding only this meld: a set takes a
    fourth card of its rank; a run takes the card one below its lowest card
    (``LAYOFF_RUN_LOW``) or one above its highest (``LAYOFF_RUN_HIGH``; an ace above a
    king only with ``ace_high``).

    Args:
        meld_cards: the cards of a meld (any order).
        card: the card to add.
        side: ``LAYOFF_SET``, ``LAYOFF_RUN_LOW`` or ``LAYOFF_RUN_HIGH``.
        ace_high: whether a high ace is allowed (R-RUMMY-01).
    """
    meld = meld_of_cards(meld_cards, ace_high)
    if meld is None or card in meld_cards:
        return False
    table = Table(ace_high)
    table.put_down(MELDS[meld], owner=-1)
    return side in table.layoff_sides(card)
