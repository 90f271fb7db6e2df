"""Playing cards as integer ids, their text form, and their point values.

Card ids run 0..51 in one fixed order: suit-major, suits ``C D H S`` (clubs,
diamonds, hearts, spades), ranks ``A 2 3 4 5 6 7 8 9 T J Q K`` within a suit::

    card_id = suit_index * 13 + rank_index      # rank_index: A=0, 2=1, ..., K=12
    0 = AC, 1 = 2C, ..., 12 = KC, 13 = AD, ..., 51 = KS

Text form (``docs/rules/README.md``): rank then suit, e.g. ``"TS"``, ``"AH"``;
``"10S"`` is accepted on input, lower case too.  A hand is a set of cards; the
engines store it as a Python ``int`` bitmask with bit ``card_id`` set (:func:`mask_of`;
:func:`cards_of` is the inverse),
which makes containment tests one ``&``.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable

import numpy as np

NUM_CARDS = 52
NUM_RANKS = 13
NUM_SUITS = 4
SUITS = "CDHS"
RANKS = "A23456789TJQK"

#: Point value of each card id (R-RUMMY-14, R-GIN-01): A = 1, 2..10 face value,
#: J Q K = 10.  Shape (52,), dtype int64, unit: points.
CARD_VALUES: np.ndarray = np.array(
    [min(rank + 1, 10) for _suit in range(NUM_SUITS) for rank in range(NUM_RANKS)],
    dtype=np.int64,
)
CARD_VALUES.setflags(write=False)
#: The same values as a tuple of Python ints, for hot loops that index one card.
CARD_VALUE_LIST: tuple[int, ...] = tuple(int(v) for v in CARD_VALUES)

_CARD_STRINGS = tuple(r + s for s in SUITS for r in RANKS)
_PARSE = {text: card for card, text in enumerate(_CARD_STRINGS)}
_PARSE.update({"10" + s: _PARSE["T" + s] for s in SUITS})


def card_id(rank_index: int, suit_index: int) -> int:
    """Card id of a rank (0 = ace .. 12 = king) and a suit (0..3 = C D H S)."""
    return suit_index * NUM_RANKS + rank_index


def rank_of(card: int) -> int:
    """Rank index of a card id: 0 = ace, 1 = two, ..., 12 = king."""
    return card % NUM_RANKS


def suit_of(card: int) -> int:
    """Suit index of a card id: 0..3 = clubs, diamonds, hearts, spades."""
    return card // NUM_RANKS


def card_str(card: int) -> str:
    """Text form of a card id, e.g. ``card_str(0) == "AC"``, ``card_str(48) == "TS"``.

    Raises:
        ValueError: ``card`` is not an int in 0..51 (bools refused).
    """
    if isinstance(card, bool) or not isinstance(card, (int, np.integer)) or not 0 <= card < NUM_CARDS:
        raise ValueError(f"card id {card!r} is not a card: card ids are ints 0..51")
    return _CARD_STRINGS[card]


def parse_card(text: str) -> int:
    """Card id of a card string such as ``"TS"``, ``"10S"``, ``"ah"``.

    Raises:
        ValueError: the string names no card (the message quotes it and shows the
            accepted form).
    """
    if not isinstance(text, str):
        raise ValueError(f"card {text!r} is not a string: cards are written like 'AH', 'TS' or '10S'")
    card = _PARSE.get(text.strip().upper())
    if card is None:
        raise ValueError(
            f"card {text!r} is not a card: write rank (A 2-9 T J Q K, or 10) then suit (C D H S), "
            "e.g. 'AH', 'TS', '10S'"
        )
    return card


def parse_cards(cards: str | Iterable[str]) -> list[int]:
    """Card ids of several distinct cards, in the order given.

    Args:
        cards: an iterable of card strings, or one string of cards separated by spaces
            or commas (``"3S 4S 5S"``).

    Returns:
        list of card ids (ints 0..51).

    Raises:
        ValueError: a string names no card, or a card appears twice (there is one deck).
    """
    if isinstance(cards, str):
        cards = cards.replace(",", " ").split()
    ids: list[int] = []
    seen: set[int] = set()
    for text in cards:
        card = parse_card(text)
        if card in seen:
            raise ValueError(f"card {text!r} appears twice: a deck has one copy of each card")
        seen.add(card)
        ids.append(card)
    return ids


def check_distinct(cards: Iterable[int]) -> None:
    """Refuse a card id that appears twice.

    Raises:
        ValueError: naming the first repeated card.
    """
    seen: set[int] = set()
    for c in cards:
        if c in seen:
            raise ValueError(f"card {card_str(c)} is named twice: a deck has one copy of each card")
        seen.add(c)


def check_deck_ids(deck: Iterable[int]) -> list[int]:
    """A stacked deck of card ids (ints 0..51, each once, top first) as a list of ints.

    Raises:
        ValueError: a non-integer entry, an id out of range, a repeat or a missing card.
    """
    out = []
    for c in deck:
        if isinstance(c, (bool, np.bool_)) or not isinstance(c, (int, np.integer)) or not 0 <= c < NUM_CARDS:
            raise ValueError(f"deck entry {c!r} is not a card id: a deck of ids holds the ints 0..51, each once")
        out.append(int(c))
    if sorted(out) != list(range(NUM_CARDS)):
        raise ValueError(
            f"deck of {len(out)} ids is not a deck: it must hold each card id 0..51 exactly once "
            f"({count_faults(np.bincount(out, minlength=NUM_CARDS), 1, 'card id')})"
        )
    return out


def count_faults(counts: np.ndarray, want: int, what: str) -> str:
    """What is wrong with a deck's counts, for its refusal: the first id held more often than
    ``want`` and the first held less often, e.g. ``"card id 0 appears 2 times, card id 51 is
    missing"``.

    Args:
        counts: shape (ids,), int: how often the deck holds each id (``np.bincount``).
        want: how often a deck holds each id (1 for cards, 2 for Rummikub tile types).
        what: the name of an id in the message (``"card id"``, ``"tile type"``).
    """
    parts = []
    over, under = np.flatnonzero(counts > want), np.flatnonzero(counts < want)
    if over.size:
        parts.append(f"{what} {int(over[0])} appears {int(counts[over[0]])} times")
    if under.size:
        k = int(counts[under[0]])
        parts.append(f"{what} {int(under[0])} " + ("is missing" if k == 0 else f"appears {k} time{'s' * (k != 1)}"))
    return ", ".join(parts)


def deck_faults(deck: np.ndarray, num_ids: int, want: int, what: str) -> str:
    """What is wrong with a batched engine's int deck, for its refusal: its first entry
    outside ``0..num_ids-1`` (``"entry 3 is -7, not a card id 0..51"``), else
    :func:`count_faults` of its counts.  The range comes first because ``np.bincount``
    refuses a negative entry in its own words and allocates up to the largest one.

    Args:
        deck: shape (size,), any int dtype: the deck as given.
        num_ids: how many ids there are (52 cards, 53 tile types).
        want: how often a deck holds each id.
        what: the name of an id in the message.
    """
    deck = np.asarray(deck)
    outside = np.flatnonzero((deck < 0) | (deck >= num_ids))
    if outside.size:
        j = int(outside[0])
        return f"entry {j} is {int(deck[j])}, not a {what} 0..{num_ids - 1}"
    return count_faults(np.bincount(deck.astype(np.int64), minlength=num_ids), want, what)


def parse_deck(cards: Iterable[str]) -> list[int]:
    """Card ids of a full stacked deck: 52 distinct card strings, top card first.

    Raises:
        ValueError: not 52 cards, an unknown card, or a repeated card; the message
            names the problem (and the missing cards when a card is repeated).
    """
    if isinstance(cards, str):
        raise ValueError("deck must be a list of 52 card strings, top card first, not one string")
    if not isinstance(cards, (list, tuple, np.ndarray)):
        raise ValueError(
            f"deck of type {type(cards).__name__} has no order: pass a list of 52 card strings, top card first"
        )
    cards = list(cards)
    if len(cards) != NUM_CARDS:
        raise ValueError(f"deck has {len(cards)} cards: a stacked deck lists all 52 cards, top card first")
    try:
        return parse_cards(cards)
    except ValueError as err:
        if not all(isinstance(c, str) for c in cards):
            # a deck of card ids (e.g. a state's ``deck``) has nothing missing, only the wrong type
            raise ValueError(
                f"bad deck: {err}; to stack a deck of card ids, pass [card_str(c) for c in ids] "
                "(rummy_env.core.cards.card_str)"
            ) from None
        given = {_PARSE.get(str(c).strip().upper()) for c in cards}
        missing = [card_str(c) for c in range(NUM_CARDS) if c not in given]
        raise ValueError(f"bad deck: {err}; missing cards: {' '.join(missing) or 'none'}") from None


def cards_str(cards: Iterable[int]) -> str:
    """Space-separated text of card ids in the order given, e.g. ``"3S 4S 5S"``.

    Raises:
        ValueError: an entry is not a card id 0..51 (as :func:`card_str`; ``-1`` once read
            as ``"KS"``).
    """
    return " ".join(card_str(c) for c in cards)


def mask_of(cards: Iterable[int]) -> int:
    """Bitmask (Python int, bit ``c`` set for each card ``c``) of card ids.

    Raises:
        ValueError: an id is not a card id 0..51 (negative, too large, a bool or not an
            int; numpy ints are read as ints).
    """
    mask = 0
    for c in cards:
        if type(c) is not int:  # numpy ints shift as numpy ints: 1 << np.int64(64) is 0
            try:
                if isinstance(c, bool):
                    raise TypeError
                c = operator.index(c)
            except TypeError:
                raise ValueError(f"card id {c!r} is not a card id 0..51") from None
        if not 0 <= c < NUM_CARDS:
            raise ValueError(f"card id {c!r} is not a card id 0..51")
        mask |= 1 << c
    return mask


def cards_of(mask: int) -> list[int]:
    """Card ids set in a bitmask (a Python int >= 0, bits 0..51), ascending.

    Raises:
        ValueError: a negative mask (its set bits never end).
    """
    if mask < 0:
        raise ValueError(f"mask {mask} is negative: a card bitmask is an int >= 0")
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def mask_value(mask: int) -> int:
    """Total point value (R-RUMMY-14) of the cards in a bitmask, in points."""
    total = 0
    while mask:
        low = mask & -mask
        total += CARD_VALUE_LIST[low.bit_length() - 1]
        mask ^= low
    return total
