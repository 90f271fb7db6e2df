"""A rule-of-thumb player for Crazy Rummy that reads only its observation."""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import Agent, legal_ids
from agents.rummy_heuristic import in_partial_meld
from rummy_env.core.cards import CARD_VALUE_LIST, NUM_CARDS, rank_of
from rummy_env.core.melds import MELDS
from rummy_env.encoding.layout import Layout
from rummy_env.games.crazy_rummy.actions import DRAW_DISCARD, DRAW_STOCK, LAYOFF, MELD, SWAP
from rummy_env.games.crazy_rummy.state import WILD_PENALTY, wild_cards


class CrazyRummyHeuristicAgent(Agent):
    """Crazy Rummy heuristic (observation only).

    - Draw: take the top discard when it is a wild card or completes a meld with the
      hand's natural cards; otherwise draw from the stock.
    - Play, in this order: swap a natural card for a wild card on the table (gaining a
      wild card); put down the meld that uses the most natural cards (then sheds the most
      penalty points); lay off a natural card (highest penalty first); lay off a wild
      card only to go out now (a wild card kept as the last card goes out next turn);
      finally discard the highest-penalty card that is in no partial meld, never a wild
      card while another card may go.

    Args:
        layout: ``env.unwrapped.layout``, to read the observation by field name.
        seed: unused (the agent is deterministic); kept for the common interface.
    """

    name = "heuristic"

    def __init__(self, layout: Layout, seed: int | None = None):
        super().__init__(seed)
        self._hand = layout.slice("hand")
        self._top = layout.slice("top_discard")
        self._wild_rank = layout.slice("wild_rank")
        self._table_planes = [layout.slice(n) for n in ("table_natural", "wild_C", "wild_D", "wild_H", "wild_S")]
        self._melded = layout.slice("melded")

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any] | None = None) -> int:
        legal = [int(a) for a in legal_ids(observation)]
        obs = observation["observation"]
        hand = 0
        for c in np.flatnonzero(obs[self._hand]):
            hand |= 1 << int(c)
        wild_rank = int(np.argmax(obs[self._wild_rank]))

        def penalty(card: int) -> int:
            return WILD_PENALTY if rank_of(card) == wild_rank else CARD_VALUE_LIST[card]

        if DRAW_STOCK in legal:
            top = np.flatnonzero(obs[self._top])
            if DRAW_DISCARD in legal and top.size and self._useful(int(top[0]), hand, wild_rank, obs):
                return DRAW_DISCARD
            return DRAW_STOCK
        swaps = [a for a in legal if a >= SWAP]
        if swaps:
            return swaps[0]
        melds = [a for a in legal if MELD <= a < LAYOFF]
        if melds:
            def meld_value(a: int) -> tuple[int, int]:
                cards = MELDS[a - MELD].cards
                natural = [c for c in cards if hand >> c & 1]
                wilds = len(cards) - len(natural)
                return len(natural), sum(penalty(c) for c in natural) + WILD_PENALTY * wilds

            return max(melds, key=meld_value)
        layoffs = [a for a in legal if LAYOFF <= a < SWAP]
        natural = [a for a in layoffs if hand >> ((a - LAYOFF) // 3) & 1]
        if natural:
            return max(natural, key=lambda a: (penalty((a - LAYOFF) // 3), -a))
        # a wild card kept as the last card goes out next turn (lay it off, discard the
        # card drawn), so it is laid off only when that goes out now
        if layoffs and hand.bit_count() <= 2:
            return layoffs[0]
        discards = [a for a in legal if a < NUM_CARDS]
        plain = [c for c in discards if rank_of(c) != wild_rank] or discards
        naturals = hand & ~self._wilds(wild_rank)
        loose = [c for c in plain if not in_partial_meld(c, naturals)]
        return max(loose or plain, key=lambda c: (penalty(c), c))

    def _useful(self, card: int, hand: int, wild_rank: int, obs: np.ndarray) -> bool:
        """A wild card, a card that makes a meld with the hand's natural cards and wild
        cards, or (once melded) a card that extends a meld on the table."""
        if rank_of(card) == wild_rank:
            return True
        wilds = (hand & self._wilds(wild_rank)).bit_count()
        naturals = hand & ~self._wilds(wild_rank)
        for meld in MELDS:
            if meld.mask >> card & 1 and not meld.needs_ace_high:
                held = (meld.mask & (naturals | 1 << card)).bit_count()
                if held + wilds >= len(meld.cards) and held >= 2:
                    return True
        return bool(obs[self._melded][0]) and extends_table(card, self._table_cards(obs))

    def _table_cards(self, obs: np.ndarray) -> int:
        table = 0
        for name in self._table_planes:
            for c in np.flatnonzero(obs[name]):
                table |= 1 << int(c)
        return table

    _wilds = staticmethod(wild_cards)


def extends_table(card: int, table: int) -> bool:
    """Whether ``card`` (not on the table) looks like it extends a table meld: three
    cards of its rank are there, or two cards of its suit run up or down from it.  The
    planes do not show where one meld ends and the next starts, so this is a guess."""
    rank = card % 13
    if sum(table >> (s * 13 + rank) & 1 for s in range(4)) == 3:
        return True
    below = rank >= 2 and table >> (card - 1) & 1 and table >> (card - 2) & 1
    above = rank <= 10 and table >> (card + 1) & 1 and table >> (card + 2) & 1
    return bool(below or above)
