"""What the styles of play of the heuristics share (``heuristic:style=NAME``).

Each heuristic agent takes a ``style``: ``"default"`` is the heuristic as it always
played; the others are other ways of playing the same variant (when to knock or lay
down, which upcards to take, which card to give away), for an opponent panel
(``agents.panel``) that is not one policy.  Every style reads only its observation.

A *defensive* style judges a discard by what the player who may take it is known to
collect and to refuse: :func:`danger`.
"""

from __future__ import annotations

from collections.abc import Sequence

from rummy_env.core.cards import NUM_CARDS, rank_of, suit_of

#: danger of a discard for each card the next player is known to hold that it would
#: make a partial meld with (it picked that card: it collects cards near it)
KNOWN_WEIGHT = 2
#: safety of a discard for each card of the discard pile it would make a partial meld with
#: (the next player let those go: cards near them are less likely to help it)
REJECTED_WEIGHT = 1


def _partners(card: int, ace_high: bool) -> int:
    rank, suit = rank_of(card), suit_of(card)
    out = 0
    for other in range(NUM_CARDS):
        if other == card:
            continue
        gap = abs(rank_of(other) - rank)
        suited = suit_of(other) == suit and (gap <= 2 or (ace_high and 0 in (rank, rank_of(other)) and gap >= 11))
        if rank_of(other) == rank or suited:
            out |= 1 << other
    return out


#: ``PARTNERS[ace_high][card]``: bitmask of the cards that make a partial meld with
#: ``card`` (``rummy_heuristic.in_partial_meld``): the same rank, or the same suit at most
#: two ranks away (with ``ace_high``, an ace is also next to the king)
PARTNERS: tuple[tuple[int, ...], tuple[int, ...]] = (
    tuple(_partners(c, False) for c in range(NUM_CARDS)),
    tuple(_partners(c, True) for c in range(NUM_CARDS)),
)


def danger(card: int, known: int, rejected: int, ace_high: bool = False) -> int:
    """How much discarding ``card`` may help the next player (lower is safer).

    ``KNOWN_WEIGHT`` for each card of ``known`` (what the next player took from the
    discard pile and still holds) that makes a partial meld with ``card``, minus
    ``REJECTED_WEIGHT`` for each card of ``rejected`` (the discard pile: cards it let
    go or threw away) that does.  Bitmasks of card ids; an int, may be negative.
    """
    near = PARTNERS[int(ace_high)][card]
    return KNOWN_WEIGHT * (near & known).bit_count() - REJECTED_WEIGHT * (near & rejected).bit_count()


def check_style(style: str, styles: Sequence[str], variant: str) -> int:
    """The index of ``style`` in ``styles`` (the compiled heuristics' style id).

    Raises:
        ValueError: ``style`` is not one of ``styles`` (the message lists them).
    """
    if style not in styles:
        raise ValueError(f"style {style!r} is not a style of the {variant} heuristic: styles are {', '.join(styles)}")
    return list(styles).index(style)
