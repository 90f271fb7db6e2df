"""Stacked decks for scripted Rummy hands (golden tests, notebooks, replays)."""

from __future__ import annotations

from collections.abc import Sequence

from rummy_env.games.deal import count_hands, stack_upcard_deck


def hand_size(num_players: int) -> int:
    """Cards dealt to each player (R-RUMMY-02): 10 for 2, 7 for 3-4, 6 for 5-6 players."""
    return 10 if num_players == 2 else 7 if num_players <= 4 else 6


def stack_deck(
    hands: Sequence[Sequence[str] | str],
    upcard: str | None = None,
    stock: Sequence[str] | str = (),
    dealer: int = 0,
) -> list[str]:
    """A 52-card deck (card strings, top first) that deals exactly these hands.

    The dealer deals one card at a time clockwise starting at their left (R-RUMMY-03),
    then turns up the upcard; the stock follows, top first.  Cards not named go to
    the bottom of the stock in card-id order.  Pass the result as
    ``env.reset(options={"deck": deck, "dealer": dealer})``.

    Args:
        hands: one hand per seat (``hands[i]`` for ``player_i``), each a list of card
            strings or one space-separated string; every hand has the deal's size.
        upcard: the first card of the discard pile (default: the first unnamed card).
        stock: the top cards of the stock, top first.
        dealer: the dealer's seat.

    Raises:
        ValueError: wrong hand sizes, a bad dealer, an unknown card, or a card named twice.
        TypeError: ``hands`` is not a list or tuple.
    """
    n = count_hands("hands", hands)
    if not 2 <= n <= 6:
        raise ValueError(f"{n} hands given: basic Rummy has 2 to 6 players")
    k = hand_size(n)
    return stack_upcard_deck(hands, k, upcard, stock, dealer, f"with {n} players each hand has {k}")
