"""A rule-of-thumb player for basic Rummy that reads only its observation."""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import Agent, legal_ids, observation_vector, plane_mask
from rummy_env.core.cards import CARD_VALUE_LIST, NUM_CARDS, rank_of, suit_of
from rummy_env.core.melds import MELDS, melds_in_hand
from rummy_env.encoding.layout import Layout
from rummy_env.games.rummy.actions import DRAW_DISCARD, DRAW_STOCK, LAYOFF, MELD


def in_partial_meld(card: int, hand: int, ace_high: bool = False) -> bool:
    """Whether ``card`` and another card of ``hand`` could make a meld with one more card:
    a card of the same rank, or of the same suit at most two ranks away (with
    ``ace_high``, an ace is also next to the king)."""
    rank, suit = rank_of(card), suit_of(card)
    for other in range(NUM_CARDS):
        if other == card or not hand >> other & 1:
            continue
        if rank_of(other) == rank:
            return True
        if suit_of(other) == suit:
            gap = abs(rank_of(other) - rank)
            if gap <= 2 or (ace_high and 0 in (rank, rank_of(other)) and gap >= 11):
                return True
    return False


class RummyHeuristicAgent(Agent):
    """Basic Rummy heuristic (observation only).

    - Draw: take the upcard when it completes a meld with the hand, or looks like it
      extends a meld on the table; otherwise draw from the stock.
    - Play: put down the biggest meld it can (most cards, then most points, then the
      lowest meld id), then lay off the highest card it can; then discard its
      highest-value card that is in no partial meld (a pair of a rank, or two suited
      cards at most two ranks apart), or its highest-value card if all are.

    Args:
        layout: ``env.unwrapped.layout``, to read the observation by field name.
        ace_high: the game's ``ace_high`` option (which melds exist).
        seed: unused (the agent is deterministic); kept for the common interface.
    """

    name = "heuristic"

    def __init__(self, layout: Layout, ace_high: bool = False, seed: int | None = None):
        super().__init__(seed)
        self._size = layout.size
        self.ace_high = ace_high
        self._hand = layout.slice("hand")
        self._top = layout.slice("top_discard")
        self._table = layout.slice("table")

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any] | None = None) -> int:
        legal = legal_ids(observation)
        obs = observation_vector(observation, self._size)
        legal_set = set(int(a) for a in legal)
        hand = plane_mask(obs[self._hand])
        if DRAW_STOCK in legal_set or DRAW_DISCARD in legal_set:
            return self._draw(obs, hand, legal_set)
        melds = [int(a) - MELD for a in legal if MELD <= a < LAYOFF]  # ascending: ties go to the lowest id
        if melds:
            best = max(melds, key=lambda m: (len(MELDS[m].cards), sum(CARD_VALUE_LIST[c] for c in MELDS[m].cards)))
            return MELD + best
        layoffs = [a for a in legal_set if a >= LAYOFF]
        if layoffs:
            return max(layoffs, key=lambda a: (CARD_VALUE_LIST[(a - LAYOFF) // 3], -a))
        discards = [a for a in legal_set if a < NUM_CARDS]
        loose = [c for c in discards if not in_partial_meld(c, hand, self.ace_high)]
        return max(loose or discards, key=lambda c: (CARD_VALUE_LIST[c], c))

    def _draw(self, obs: np.ndarray, hand: int, legal: set[int]) -> int:
        top = np.flatnonzero(obs[self._top])
        if DRAW_DISCARD in legal and top.size:
            card = int(top[0])
            if self._useful(card, hand, plane_mask(obs[self._table])):
                return DRAW_DISCARD
        return DRAW_STOCK if DRAW_STOCK in legal else DRAW_DISCARD

    def _useful(self, card: int, hand: int, table: int) -> bool:
        """The card completes a meld with the hand, or sits next to a table meld."""
        if any(MELDS[m].mask >> card & 1 for m in melds_in_hand(hand | 1 << card, self.ace_high)):
            return True
        rank, suit = rank_of(card), suit_of(card)
        same_rank = sum(table >> (s * 13 + rank) & 1 for s in range(4))
        if same_rank == 3:
            return True
        below = rank >= 2 and all(table >> (suit * 13 + r) & 1 for r in (rank - 1, rank - 2))
        above = rank <= 10 and all(table >> (suit * 13 + r) & 1 for r in (rank + 1, rank + 2))
        return below or above
