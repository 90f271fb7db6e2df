"""Stacked decks for scripted Gin Rummy hands (golden tests, notebooks, replays)."""

from __future__ import annotations

from collections.abc import Sequence

from rummy_env.games.deal import count_hands, stack_upcard_deck

HAND_SIZE = 10  #: cards dealt to each player (R-GIN-02)


def stack_deck(
    hands: Sequence[Sequence[str] | str],
    upcard: str | None = None,
    stock: Sequence[str] | str = (),
    dealer: int = 0,
) -> list[str]:
    """A 52-card deck (card strings, top first) that deals exactly these hands.

    The dealer deals one card at a time, the non-dealer first (R-GIN-02), then turns
    up the upcard; the stock follows, top first.  Cards not named go to the bottom of
    the stock in card-id order.  Pass the result as
    ``env.reset(options={"deck": deck, "dealer": dealer})``.

    Args:
        hands: ``[hand of player_0, hand of player_1]``, each 10 card strings or one
            space-separated string.
        upcard: the first upcard (default: the first unnamed card).
        stock: the top cards of the stock, top first.
        dealer: the dealer's seat, 0 or 1.

    Raises:
        ValueError: not two hands of 10 cards, a bad dealer, an unknown card, or a card
            named twice.
        TypeError: ``hands`` is not a list or tuple.
    """
    if count_hands("hands", hands) != 2:
        raise ValueError(f"{len(hands)} hands given: Gin Rummy has 2 players")
    return stack_upcard_deck(hands, HAND_SIZE, upcard, stock, dealer, f"Gin Rummy deals {HAND_SIZE} to each player")
