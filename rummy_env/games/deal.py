"""Building stacked decks: the deal order shared by the card variants."""

from __future__ import annotations

from collections.abc import Sequence

from rummy_env.core.cards import NUM_CARDS, card_str, check_distinct, parse_card, parse_cards
from rummy_env.games.options import check_seat


def round_robin(hands: Sequence[Sequence[int]], first: int, cards_each: int) -> list[int]:
    """The cards of ``hands`` in the order they are dealt: one at a time, seat ``first``
    first, then clockwise (seat order), ``cards_each`` rounds."""
    n = len(hands)
    return [hands[(first + i) % n][i // n] for i in range(n * cards_each)]


def complete_deck(order: list[int], upcard_at: int | None = None) -> list[str]:
    """``order`` (card ids, top first) completed into a 52-card deck of card strings: the
    cards not named follow in card-id order; with ``upcard_at``, the first of them is put
    at that index instead (the default upcard).

    Raises:
        ValueError: a card named twice, or no card left for the upcard.
    """
    check_distinct(order)
    named = set(order)
    rest = [c for c in range(NUM_CARDS) if c not in named]
    if upcard_at is not None:
        if not rest:
            raise ValueError("no card is left for the upcard: name it, or name fewer stock cards")
        order = order[:upcard_at] + [rest.pop(0)] + order[upcard_at:]
    return [card_str(c) for c in order + rest]


def stack_upcard_deck(
    hands: Sequence[Sequence[str] | str],
    cards_each: int,
    upcard: str | None,
    stock: Sequence[str] | str,
    dealer: int,
    rule: str,
) -> list[str]:
    """A 52-card deck (card strings, top first) dealing ``hands`` one card at a time
    from the dealer's left (``dealer + 1``, then clockwise), then the upcard (default:
    the first unnamed card), then ``stock`` on top of the rest in card-id order.

    Args:
        rule: how the variant deals, for the error message (e.g. ``"with 2 players each
            hand has 10"``).

    Raises:
        ValueError: a bad dealer, a hand of the wrong size, an unknown card, or a card
            named twice.
    """
    n = len(hands)
    check_seat("dealer", dealer, n)
    parsed = [parse_cards(h) for h in hands]
    for seat, h in enumerate(parsed):
        if len(h) != cards_each:
            raise ValueError(f"hand of player_{seat} has {len(h)} cards: {rule}")
    order = round_robin(parsed, (dealer + 1) % n, cards_each)
    if upcard is not None:
        order.append(parse_card(upcard))
    return complete_deck(order + parse_cards(stock), upcard_at=None if upcard is not None else n * cards_each)
