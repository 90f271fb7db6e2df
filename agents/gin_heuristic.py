"""A rule-of-thumb Gin Rummy player that reads only its observation, in several styles."""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import Agent, legal_ids, observation_vector, plane_mask
from agents.rummy_heuristic import in_partial_meld
from agents.styles import check_style, danger
from rummy_env.core.cards import CARD_VALUE_LIST
from rummy_env.core.deadwood import deadwood
from rummy_env.core.melds import MELDS, melds_in_hand
from rummy_env.encoding.layout import Layout
from rummy_env.games.gin_rummy.actions import BIG_GIN, DRAW_STOCK, DRAW_UPCARD, KNOCK, PASS

#: Styles of play, ``heuristic:style=NAME``; the index is the style id of ``agents.search.gin_fast``.
STYLES = ("default", "gin_hunter", "defensive", "upcard_meld_only")
#: ``gin_hunter``: stock size (cards) at or under which it knocks without gin
GIN_HUNTER_STOCK = 10
#: ``defensive``: deadwood (points) it keeps over the least it could, for a safer discard
DEFENSIVE_SLACK = 3
_NEVER = 1 << 30  # ``wait_for_gin`` of the gin hunter: no deadwood is low enough


def completes_meld(card: int, hand: int) -> bool:
    """Whether ``card`` makes a meld with cards of ``hand`` (aces low, R-GIN-01)."""
    return any(MELDS[m].mask >> card & 1 for m in melds_in_hand(hand | 1 << card))


class GinHeuristicAgent(Agent):
    """Gin Rummy heuristic (observation only; deadwood from ``rummy_env.core.deadwood``).

    ``style="default"``:

    - Upcard (first offer or any draw): take it only when it lowers the deadwood (the
      best the hand can keep after a discard other than that card is below the
      deadwood now; a card completing a meld with deadwood cards always does);
      otherwise draw from the stock (or pass on the first offer).
    - With eleven cards: big gin if legal; otherwise knock as soon as a knock is legal,
      discarding the card that leaves the least deadwood (gin first).  With
      ``wait_for_gin=k > 0`` it does not knock with 1..k points of deadwood while more
      than ``min_stock`` cards remain in the stock: it plays on for gin.
    - Otherwise discard a card whose removal leaves the least deadwood; among those its
      highest card in no partial meld (a pair, or two suited cards at most two ranks
      apart), or its highest card if all are in one.

    Other styles (:data:`STYLES`), each the default but for what it names:

    - ``gin_hunter``: holds out for gin: knocks only with 0 deadwood, or with any legal
      deadwood once the stock is down to :data:`GIN_HUNTER_STOCK` cards (gin scores a
      bonus and no lay-offs, and cannot be undercut: R-GIN-07, 08, 11, 12).
    - ``defensive``: among the discards that leave at most :data:`DEFENSIVE_SLACK` points
      more than the least deadwood, gives the opponent the safest card
      (:func:`agents.styles.danger`: away from the cards it picked and still holds, near
      the cards of the discard pile, which it threw away or let go), then the least
      deadwood, the highest card, the highest id.
    - ``upcard_meld_only``: the simple player of the EAAI-21 Gin Rummy challenge (and of
      OpenSpiel's simple bot): takes the upcard only when it goes into a meld of the hand
      (and lowers the deadwood), and discards a card leaving the least deadwood, the
      highest then (partial melds not kept).

    Args:
        layout: ``env.unwrapped.layout``, to read the observation by field name.
        wait_for_gin: deadwood (points) at or under which it plays on for gin; 0 = never.
        min_stock: with ``wait_for_gin``, stock size at or under which it knocks anyway.
        seed: unused (the agent is deterministic); kept for the common interface.
        style: one of :data:`STYLES` (``gin_hunter`` sets ``wait_for_gin`` and ``min_stock``).

    Raises:
        ValueError: an unknown style.
    """

    name = "heuristic"

    def __init__(
        self,
        layout: Layout,
        wait_for_gin: int = 0,
        min_stock: int = 10,
        seed: int | None = None,
        style: str = "default",
    ):
        super().__init__(seed)
        self.style_id = check_style(style, STYLES, "gin_rummy_v0")
        self.style = style
        self._size = layout.size
        if style == "gin_hunter":
            wait_for_gin, min_stock = _NEVER, GIN_HUNTER_STOCK
        self.wait_for_gin = wait_for_gin
        self.min_stock = min_stock
        self._hand = layout.slice("hand")
        self._upcard = layout.slice("upcard")
        self._rest = layout.slice("discard_rest")
        self._known = layout.slice("opponent_known")
        self._stock = layout.offset("stock_size")

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any] | None = None) -> int:
        """The heuristic's action id for this seat's ``observation`` (the class docstring).

        Raises:
            TypeError, ValueError: not an observation dict with a usable ``action_mask``
                (:func:`agents.base.legal_ids`).
        """
        legal = legal_ids(observation)
        legal_set = set(int(a) for a in legal)
        obs = observation_vector(observation, self._size)
        plane = obs[self._hand]
        if not np.isin(plane, (0.0, 1.0)).all() or plane.sum() > 11:  # the deadwood search would not end
            raise ValueError(
                f"the observation's hand plane holds {int(np.count_nonzero(plane))} nonzero entries, not a hand of "
                "10 or 11 cards as 0/1: it is not one an env wrote"
            )
        hand = plane_mask(plane)
        if DRAW_UPCARD in legal_set:
            up = np.flatnonzero(obs[self._upcard])
            if up.size and self._takes(int(up[0]), hand):
                return DRAW_UPCARD
            return DRAW_STOCK if DRAW_STOCK in legal_set else PASS
        if BIG_GIN in legal_set:
            return BIG_GIN
        knocks = [a - KNOCK for a in legal_set if KNOCK <= a < DRAW_STOCK]
        if knocks:
            best = min(knocks, key=lambda c: (deadwood(hand & ~(1 << c)), -CARD_VALUE_LIST[c], c))
            left = deadwood(hand & ~(1 << best))
            if left == 0 or left > self.wait_for_gin or obs[self._stock] <= self.min_stock:
                return KNOCK + best
        discards = [a for a in legal_set if a < KNOCK]
        after = {c: deadwood(hand & ~(1 << c)) for c in discards}
        least = min(after.values())
        if self.style == "defensive":
            known = plane_mask(obs[self._known])
            pile = plane_mask(obs[self._upcard]) | plane_mask(obs[self._rest])
            near = [c for c in discards if after[c] <= least + DEFENSIVE_SLACK]
            return min(near, key=lambda c: (danger(c, known, pile), after[c], -CARD_VALUE_LIST[c], -c))
        best = [c for c in discards if after[c] == least]
        if self.style == "upcard_meld_only":
            return max(best, key=lambda c: (CARD_VALUE_LIST[c], c))
        loose = [c for c in best if not in_partial_meld(c, hand)]
        return max(loose or best, key=lambda c: (CARD_VALUE_LIST[c], c))

    def _takes(self, card: int, hand: int) -> bool:
        if self.style == "upcard_meld_only" and not completes_meld(card, hand):
            return False
        return self._wants(card, hand)

    @staticmethod
    def _wants(card: int, hand: int) -> bool:
        """Taking ``card`` lowers the deadwood: some discard other than ``card`` leaves
        less than now.  (A card that completes a meld with deadwood cards always does.)"""
        now = deadwood(hand)
        with_card = hand | 1 << card
        h = hand
        while h:
            low = h & -h
            h ^= low
            if deadwood(with_card ^ low) < now:
                return True
        return False
