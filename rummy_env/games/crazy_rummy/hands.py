"""What a Crazy Rummy hand is worth and may put down, given the round's wild cards
(R-CRAZY-01, 04, 05, 05a, 09, 12): shared by the engine, the agents and the tests."""

from __future__ import annotations

import numpy as np

from rummy_env.core.cards import CARD_VALUE_LIST, NUM_SUITS, card_id, cards_of, rank_of
from rummy_env.core.melds import (
    MELD_ACE_HIGH_ARRAY,
    MELD_MASK_ARRAY,
    MELD_MASKS,
    MELD_SIZE_ARRAY,
    MELDS,
    melds_in_hand,
)

WILD_PENALTY = 25  # R-CRAZY-12

_LEGAL_MELD_BASE = ~MELD_ACE_HIGH_ARRAY  # R-CRAZY-01: the ace is never above the king


def wild_cards(rank_index: int) -> int:
    """Bitmask of the four cards of a rank index (0 = aces .. 12 = kings): the wild cards
    of the round whose wild rank it is (R-CRAZY-02)."""
    return sum(1 << card_id(rank_index, s) for s in range(NUM_SUITS))


def penalty(hand: int, wild_rank_index: int) -> int:
    """Penalty points of a hand (R-CRAZY-12): wild card 25, ace 1, 2..10 face value, J Q K 10.

    Args:
        hand: card bitmask.
        wild_rank_index: rank index of the round's wild cards (0 = aces .. 12 = kings).

    Returns:
        points (int).
    """
    total = 0
    for c in cards_of(hand):
        total += WILD_PENALTY if rank_of(c) == wild_rank_index else CARD_VALUE_LIST[c]
    return total


def melds_to_put_down(hand: int, wilds: int, occupied: int) -> list[int]:
    """Ids (ascending, into ``core.melds.MELDS``) of the melds a hand may put down.

    A meld is named by the cards it stands for; the hand's natural cards of it are used
    and each missing card is filled by a spare wild card (R-CRAZY-04, 05), so a meld may
    be all wild cards.  None of its cards may be ``occupied`` (on the table as itself or
    through a wild card, R-CRAZY-05a), nor may a held wild card that is itself occupied
    fill it (its natural card is on the table already: it may only be swapped in), the ace
    is never above the king (R-CRAZY-01), and the hand keeps a card to discard (R-CRAZY-09).

    Args:
        hand, wilds, occupied: card bitmasks (``wilds``: the round's wild cards).
    """
    size = hand.bit_count()
    if size < 4:  # a meld takes 3+ cards and must leave one
        return []
    spare = hand & wilds & ~occupied  # the wild cards that may fill (R-CRAZY-05a)
    if not spare:  # natural melds only: the pattern lookup is faster
        return [m for m in melds_in_hand(hand) if not MELD_MASKS[m] & occupied and len(MELDS[m].cards) < size]
    held = MELD_MASK_ARRAY & np.uint64(hand)
    naturals = np.bitwise_count(held)
    wild_naturals = np.bitwise_count(held & np.uint64(wilds))  # wild cards that are the meld's own cards
    ok = (
        _LEGAL_MELD_BASE
        & (MELD_SIZE_ARRAY - naturals <= spare.bit_count() - wild_naturals)
        & ((MELD_MASK_ARRAY & np.uint64(occupied)) == 0)
        & (size - 1 >= MELD_SIZE_ARRAY)
    )
    return [int(m) for m in np.flatnonzero(ok)]
