"""Building stacked decks: the deal order shared by the card variants, and the checks
of the stacked later hands of a game (reset option ``next_hands``)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from rummy_env.core.cards import NUM_CARDS, card_str, check_distinct, parse_card, parse_cards, parse_deck
from rummy_env.games.options import check_seat

#: One stacked later hand as an engine keeps it: (deck as card or tile ids, top or first
#: drawn first; the first player, or -1 where the rules name the dealer).
NextHand = tuple[tuple[int, ...], int]


def count_hands(name: str, hands: Any) -> int:
    """How many hands (or racks) a stack function was given.

    Raises:
        TypeError: ``hands`` is not a list or tuple (one per player).
    """
    if not isinstance(hands, (list, tuple)):
        raise TypeError(
            f"{name} must be a list with one entry per player (a string or list of names each), "
            f"got {type(hands).__name__}"
        )
    return len(hands)


def check_next_hands(
    deals: Any,
    keys: Sequence[str],
    parse_one: Callable[[dict], NextHand],
    room: int,
    episode: str,
    max_hands: int,
) -> list[NextHand]:
    """The stacked deals of later hands (``next_hands``), checked entry by entry.

    Args:
        deals: a list (or tuple) of dicts, each with exactly ``keys``.
        keys: the keys of one deal (the variant's first-hand stacking less the dealer).
        parse_one: the variant's check of one deal (raises ``ValueError``).
        room: how many more hands the episode can deal.
        episode: the ``episode`` option (``"hand"`` deals no later hand).
        max_hands: the most hands the episode deals (the ``max_hands`` option), named in the
            refusal of too many deals.

    Raises:
        ValueError: not a list of dicts with exactly ``keys``, a bad entry (the message
            names its index), deals in a one-hand episode or more deals than ``room``.
    """
    form = "[" + ", ".join(f"'{k}': ..." for k in keys) + "]"
    if not isinstance(deals, (list, tuple)):
        raise ValueError(
            f"next_hands of type {type(deals).__name__} is not a list: pass a list of the later hands' deals, "
            f"one dict {{{form[1:-1]}}} per hand in the order they are dealt"
        )
    if deals and episode != "game":
        raise ValueError(
            f"next_hands holds {len(deals)} deal(s), but episode={episode!r} deals one hand: "
            "later hands are dealt only with episode='game'"
        )
    if len(deals) > room:
        raise ValueError(
            f"next_hands holds {len(deals)} deals, but this episode can deal at most {max(room, 0)} more hand(s) "
            f"(max_hands={max_hands} in all)"
        )
    out = []
    for k, deal in enumerate(deals):
        if not isinstance(deal, dict) or set(deal) != set(keys):
            got = "is not a dict"
            if isinstance(deal, dict):
                got = f"has the keys {', '.join(sorted(map(str, deal)))}" if deal else "has no keys"
            why = " (no dealer: the rules say who deals the next hand)" if "first_player" not in keys else ""
            raise ValueError(
                f"next_hands[{k}] {got}: each later hand's deal is a dict with exactly the key(s) "
                f"{', '.join(keys)}{why}"
            )
        try:
            out.append(parse_one(deal))
        except ValueError as err:
            raise ValueError(f"next_hands[{k}]: {err}") from None
    return out


def parse_next_card_deck(deal: dict) -> NextHand:
    """A card variant's later-hand deal ``{"deck": [52 card strings, top first]}``.

    Raises:
        ValueError: the deck is not 52 distinct card strings (``parse_deck``).
    """
    return tuple(parse_deck(deal["deck"])), -1


def stack_first_player(deal: dict, pool: Callable[[Any], list[int]], num_players: int) -> NextHand:
    """A later-hand deal that names its first player too (Rummikub's ``{"deck": [...],
    "first_player": k}``), the deck checked by ``pool``.

    Raises:
        ValueError: a bad deck (``pool``'s error) or a first player who is not a seat.
    """
    first = check_seat("first_player", deal["first_player"], num_players)
    return tuple(int(t) for t in pool(deal["deck"])), first


def round_robin(hands: Sequence[Sequence[int]], first: int, cards_each: int) -> list[int]:
    """The cards of ``hands`` in the order they are dealt: one at a time, seat ``first``
    first, then clockwise (seat order), ``cards_each`` rounds (R-RUMMY-03, R-GIN-02,
    R-CRAZY-03: the dealer's left first)."""
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
        TypeError: ``hands`` is not a list or tuple.
    """
    n = count_hands("hands", hands)
    check_seat("dealer", dealer, n)
    parsed = [parse_cards(h) for h in hands]
    for seat, h in enumerate(parsed):
        if len(h) != cards_each:
            raise ValueError(f"hand of player_{seat} has {len(h)} cards: {rule}")
    order = round_robin(parsed, (dealer + 1) % n, cards_each)
    if upcard is not None:
        order.append(parse_card(upcard))
    return complete_deck(order + parse_cards(stock), upcard_at=None if upcard is not None else n * cards_each)
