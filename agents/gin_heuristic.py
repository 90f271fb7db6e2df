"""A rule-of-thumb Gin Rummy player that reads only its observation."""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import Agent, legal_ids, observation_vector, plane_mask
from agents.rummy_heuristic import in_partial_meld
from rummy_env.core.cards import CARD_VALUE_LIST
from rummy_env.core.deadwood import deadwood
from rummy_env.encoding.layout import Layout
from rummy_env.games.gin_rummy.actions import BIG_GIN, DRAW_STOCK, DRAW_UPCARD, KNOCK, PASS


class GinHeuristicAgent(Agent):
    """Gin Rummy heuristic (observation only; deadwood from ``rummy_env.core.deadwood``).

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

    Args:
        layout: ``env.unwrapped.layout``, to read the observation by field name.
        wait_for_gin: deadwood (points) at or under which it plays on for gin; 0 = never.
        min_stock: with ``wait_for_gin``, stock size at or under which it knocks anyway.
        seed: unused (the agent is deterministic); kept for the common interface.
    """

    name = "heuristic"

    def __init__(self, layout: Layout, wait_for_gin: int = 0, min_stock: int = 10, seed: int | None = None):
        super().__init__(seed)
        self._size = layout.size
        self.wait_for_gin = wait_for_gin
        self.min_stock = min_stock
        self._hand = layout.slice("hand")
        self._upcard = layout.slice("upcard")
        self._stock = layout.offset("stock_size")

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any] | None = None) -> int:
        legal = legal_ids(observation)
        legal_set = set(int(a) for a in legal)
        obs = observation_vector(observation, self._size)
        hand = plane_mask(obs[self._hand])
        if DRAW_UPCARD in legal_set:
            up = np.flatnonzero(obs[self._upcard])
            if up.size and self._wants(int(up[0]), hand):
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
        best = [c for c in discards if after[c] == least]
        loose = [c for c in best if not in_partial_meld(c, hand)]
        return max(loose or best, key=lambda c: (CARD_VALUE_LIST[c], c))

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
