"""Stacked decks for scripted Crazy Rummy rounds."""

from __future__ import annotations

from collections.abc import Sequence

from rummy_env.core.cards import parse_cards
from rummy_env.games.deal import complete_deck, count_hands, round_robin
from rummy_env.games.options import check_seat

HAND_SIZE = 7  # R-CRAZY-03: 7 cards each, then an 8th to the dealer's left


def stack_deck(hands: Sequence[Sequence[str] | str], stock: Sequence[str] | str = (), dealer: int = 0) -> list[str]:
    """A 52-card deck (card strings, top first) that deals exactly these hands.

    The dealer deals 7 cards one at a time clockwise from their left, then an 8th
    card to the player on their left (R-CRAZY-03); the rest is the stock, top first.
    Cards not named go to the bottom of the stock in card-id order.  Pass the result as
    ``env.reset(options={"deck": deck, "dealer": dealer})``.

    Args:
        hands: one hand per seat; the dealer's left (``(dealer + 1) % n``) has 8 cards,
            the others 7.
        stock: the top cards of the stock, top first.
        dealer: the dealer's seat.

    Raises:
        ValueError: wrong hand sizes or player count, a bad dealer, an unknown or
            repeated card.
        TypeError: ``hands`` is not a list or tuple.
    """
    n = count_hands("hands", hands)
    if not 3 <= n <= 6:
        raise ValueError(f"{n} hands given: Crazy Rummy has 3 to 6 players")
    check_seat("dealer", dealer, n)
    first = (dealer + 1) % n
    parsed = [parse_cards(h) for h in hands]
    for seat, h in enumerate(parsed):
        want = HAND_SIZE + (seat == first)
        if len(h) != want:
            raise ValueError(f"hand of player_{seat} has {len(h)} cards: it must have {want} (8 for the dealer's left)")
    order = round_robin(parsed, first, HAND_SIZE) + [parsed[first][HAND_SIZE]]
    return complete_deck(order + parse_cards(stock))
