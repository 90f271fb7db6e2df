"""Card moves the draw-and-discard engines share (basic Rummy, Crazy Rummy, Gin Rummy).

Each of them keeps, per seat, the hand and the cards that player is known to hold (taken
from the discard pile and not yet played: public, since everyone saw the take) as card
bitmasks, and the discard pile as a list of card ids, top last, plus its bitmask.  A
card leaving a hand is no longer known to be held, whichever way it leaves (discarded,
melded, laid off); a card taken from the discard pile is.  Keeping those four in step
in one place is what these methods are for; each engine's rules (what a move may do,
what happens after it) stay in its own ``_apply``.
"""

from __future__ import annotations

import numpy as np

from rummy_env.core.cards import NUM_CARDS, check_deck_ids
from rummy_env.games.options import check_rng, check_seat


def first_deal_dealer(rng, dealer: int | None, num_players: int) -> tuple[np.random.Generator, int]:
    """The generator of a new game and its first dealer (drawn from it unless given).

    Args:
        rng: a ``numpy.random.Generator``, or an int seed / None for a new one.
        dealer: the first dealer's seat, or None.
        num_players: seats at the table.

    Raises:
        ValueError: ``rng`` is not a generator, None or an int seed >= 0, or ``dealer`` is
            not an int seat in ``0..num_players-1``.
    """
    rng = check_rng(rng)
    if dealer is None:
        return rng, int(rng.integers(num_players))
    return rng, check_seat("dealer", dealer, num_players)


def first_deal_deck(rng: np.random.Generator, deck) -> list[int]:
    """The first hand's deck: ``deck`` checked (52 card ids, each once, top first), or a
    shuffle from ``rng``.

    Raises:
        ValueError: ``deck`` is not a permutation of 0..51 (see ``check_deck_ids``).
    """
    if deck is None:
        return [int(c) for c in rng.permutation(NUM_CARDS)]
    return check_deck_ids(deck)


class CardPiles:
    """Hand, known-card and discard-pile bookkeeping (see the module docstring); mixed
    into an engine state that has ``hands``, ``known``, ``discard`` and ``discard_mask``."""

    hands: list[int]
    known: list[int]
    discard: list[int]
    discard_mask: int

    def _take_discard(self, player: int) -> int:
        """Move the top of the discard pile into ``player``'s hand, known to be there;
        returns the card."""
        card = self.discard.pop()
        bit = 1 << card
        self.discard_mask &= ~bit
        self.hands[player] |= bit
        self.known[player] |= bit
        return card

    def _discard(self, player: int, card: int) -> None:
        """Move ``card`` from ``player``'s hand onto the discard pile."""
        self._play_cards(player, 1 << card)
        self.discard.append(card)
        self.discard_mask |= 1 << card

    def _play_cards(self, player: int, cards: int) -> None:
        """Take the cards of bitmask ``cards`` out of ``player``'s hand (melded, laid off,
        discarded)."""
        self.hands[player] &= ~cards
        self.known[player] &= ~cards
