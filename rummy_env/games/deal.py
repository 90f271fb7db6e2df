"""Building stacked decks: the deal order shared by the card variants."""

from __future__ import annotations

from collections.abc import Sequence

from rummy_env.core.cards import NUM_CARDS, card_str, check_distinct


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
