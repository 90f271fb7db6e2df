"""What one Gin Rummy player may know (:class:`GinView`, the encoder's only input) and the
hand's phases it reports."""

from __future__ import annotations

from typing import NamedTuple

OFFER = 0  #: phase: the upcard offer of the first turn (R-GIN-03): take it or pass
DRAW = 1  #: phase: the acting player draws from the stock or takes the upcard (R-GIN-04)
DISCARD = 2  #: phase: the acting player holds 11 cards: discard, knock or big gin


class GinView(NamedTuple):
    """What one player may know of a Gin Rummy state (the only input of the encoder).

    Card sets are bitmasks; pairs are *relative to the viewer* (index 0 = the viewer,
    1 = the opponent); relative seats are 0 (viewer) or 1 (opponent), -1 for none.

    Attributes:
        hand: the viewer's cards.
        upcard: the top card of the discard pile, -1 if the pile is empty.
        discard_rest: the other cards of the discard pile.  A buried card can never be
            drawn again: these are the cards the viewer has seen leave play.
        opponent_known: cards the opponent is known to hold: cards it took from the
            discard pile and has not discarded since; after a showdown, its whole hand
            (both hands are laid out, R-GIN-08).
        opponent_discarded: every card the opponent discarded in this hand (also those
            taken back since).
        forbidden: the card the viewer took from the discard pile this turn and may not
            discard (R-GIN-04), or -1.
        knocker_melds: after a showdown, the cards of the knocker's melds.
        layoffs: after a showdown, the cards the defender laid off on them.
        defender_melds: after a showdown, the cards of the defender's own melds.
        phase: :data:`OFFER`, :data:`DRAW` or :data:`DISCARD`; -1 when the episode is over.
        acting: relative seat of the acting player, -1 when the episode is over.
        dealer: relative seat of this hand's dealer.
        knocker: relative seat of the player who knocked (or went gin), -1 before.
        stock_size: cards in the stock.
        knock_limit: the most deadwood a knock may keep in this hand (points).
        deadwood: least deadwood of all the viewer's cards (10, or 11 after a draw).
        showdown_deadwood: after a showdown, (viewer's, opponent's) deadwood in points,
            the defender's after lay-offs; (0, 0) before.
        scores: game totals (viewer's, opponent's) in points.
        turn: turns completed in this hand.
    """

    hand: int
    upcard: int
    discard_rest: int
    opponent_known: int
    opponent_discarded: int
    forbidden: int
    knocker_melds: int
    layoffs: int
    defender_melds: int
    phase: int
    acting: int
    dealer: int
    knocker: int
    stock_size: int
    knock_limit: int
    deadwood: int
    showdown_deadwood: tuple[int, int]
    scores: tuple[int, int]
    turn: int


_new_view = tuple.__new__  # builds a GinView from a tuple of its fields, in order
