"""A rule-of-thumb player for Crazy Rummy that reads only its observation."""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import Agent, legal_ids, observation_vector, plane_mask
from agents.crazy_planner import GoOutPlanner, TableView, layoff_spots
from agents.rummy_heuristic import in_partial_meld
from rummy_env.core.cards import CARD_VALUE_LIST, NUM_CARDS, card_id, rank_of
from rummy_env.core.melds import MELDS
from rummy_env.encoding.layout import Layout
from rummy_env.games.crazy_rummy.actions import DRAW_DISCARD, DRAW_STOCK, LAYOFF, MELD, SWAP
from rummy_env.games.crazy_rummy.state import WILD_PENALTY, wild_cards


class CrazyRummyHeuristicAgent(Agent):
    """Crazy Rummy heuristic (observation only).

    - Going out first: when some sequence of melds, lay-offs and swaps leaves one card to
      discard this turn (:class:`agents.crazy_planner.GoOutPlanner`), it plays that; it
      takes the top discard when that card lets it go out.
    - Draw: otherwise take the top discard when it is a wild card, completes a meld with
      the hand, or (once melded) looks like it extends a table meld; else draw from the
      stock.
    - Play, in this order: swap a natural card for a wild card on the table (gaining a
      wild card); put down the meld that uses the most natural cards (then sheds the most
      penalty points); lay off a natural card (highest penalty first); wild cards are
      laid off only as part of going out (a wild card kept as the last card goes out
      next turn).
    - Discard the highest-penalty card (R-CRAZY-12) that is in no partial meld, never
      a wild card while another card may go.

    Args:
        layout: ``env.unwrapped.layout``, to read the observation by field name.
        seed: unused (the agent is deterministic); kept for the common interface.
    """

    name = "heuristic"

    def __init__(self, layout: Layout, seed: int | None = None):
        super().__init__(seed)
        self._size = layout.size
        self._hand = layout.slice("hand")
        self._top = layout.slice("top_discard")
        self._natural = layout.slice("table_natural")
        self._wild_planes = [layout.slice(f"wild_{suit}") for suit in "CDHS"]
        self._forbidden = layout.slice("forbidden")
        self._wild_rank = layout.slice("wild_rank")
        self._melded = layout.offset("melded")

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any] | None = None) -> int:
        legal = [int(a) for a in legal_ids(observation)]
        obs = observation_vector(observation, self._size)
        hand = plane_mask(obs[self._hand])
        wild_rank = int(np.argmax(obs[self._wild_rank]))
        wilds = wild_cards(wild_rank)
        table = self._table_view(obs, wild_rank)
        melded = bool(obs[self._melded])

        def penalty(card: int) -> int:
            return WILD_PENALTY if rank_of(card) == wild_rank else CARD_VALUE_LIST[card]

        if DRAW_STOCK in legal:
            top = np.flatnonzero(obs[self._top])
            if DRAW_DISCARD in legal and top.size:
                card = int(top[0])
                planner = GoOutPlanner(wilds, table)  # the draw's mask shows no lay-off target
                goes_out = planner.plan(hand | 1 << card, melded, keep_out=1 << card) is not None
                if goes_out or self._useful(card, hand, wilds, melded, table):
                    return DRAW_DISCARD
            return DRAW_STOCK
        forbidden = plane_mask(obs[self._forbidden])
        known_spots = None  # before the first meld the mask shows no lay-off target
        if melded:
            known_spots = 0
            for a in legal:
                if LAYOFF <= a < SWAP:
                    known_spots |= 1 << (a - LAYOFF) // 3
        planner = GoOutPlanner(wilds, table, known_spots)
        move = _first_legal_move(planner.plan(hand, melded, keep_out=forbidden), legal)
        if move is not None:
            return move
        swaps = [a for a in legal if a >= SWAP]
        if swaps:
            return swaps[0]
        melds = [a for a in legal if MELD <= a < LAYOFF]
        if melds:

            def meld_value(a: int) -> tuple[int, int]:
                cards = MELDS[a - MELD].cards
                natural = [c for c in cards if hand >> c & 1]
                wilds_used = len(cards) - len(natural)
                return len(natural), sum(penalty(c) for c in natural) + WILD_PENALTY * wilds_used

            return max(melds, key=meld_value)
        natural_layoffs = [a for a in legal if LAYOFF <= a < SWAP and hand >> ((a - LAYOFF) // 3) & 1]
        if natural_layoffs:
            return max(natural_layoffs, key=lambda a: (penalty((a - LAYOFF) // 3), -a))
        discards = [a for a in legal if a < NUM_CARDS]
        plain = [c for c in discards if rank_of(c) != wild_rank] or discards
        naturals = hand & ~wilds
        loose = [c for c in plain if not in_partial_meld(c, naturals)]
        return max(loose or plain, key=lambda c: (penalty(c), c))

    def _table_view(self, obs: np.ndarray, wild_rank: int) -> TableView:
        represented = occupied = plane_mask(obs[self._natural])
        wild_for = {}
        for suit, plane in enumerate(self._wild_planes):
            stood_for = np.flatnonzero(obs[plane])
            if stood_for.size:
                card, wild = int(stood_for[0]), card_id(wild_rank, suit)
                wild_for[card] = wild
                represented |= 1 << card
                occupied |= 1 << card | 1 << wild
        return TableView(represented, occupied, wild_for)

    @staticmethod
    def _useful(card: int, hand: int, wilds: int, melded: bool, table: TableView) -> bool:
        """A wild card, a card that makes a meld with the hand's natural cards and wild
        cards, or (once melded) a card that looks like it extends a table meld."""
        if wilds >> card & 1:
            return True
        held_wilds = (hand & wilds).bit_count()
        naturals = hand & ~wilds
        for meld in MELDS:
            if meld.mask >> card & 1 and not meld.needs_ace_high:
                held = (meld.mask & (naturals | 1 << card)).bit_count()
                if held + held_wilds >= len(meld.cards) and held >= 2:
                    return True
        return melded and bool(layoff_spots(table) >> card & 1)


def _first_legal_move(plan: list | None, legal: list[int]) -> int | None:
    """The action id of a go-out plan's first move, when the plan exists and the env
    agrees that move is legal (where the mask does not list the lay-off targets, the
    planner guesses them)."""
    if plan is None:
        return None
    if not plan:
        return next(a for a in legal if a < NUM_CARDS)  # one card left: discarding it goes out
    kind, x = plan[0]
    if kind == "meld":
        return MELD + x if MELD + x in legal else None
    if kind == "swap":
        return SWAP + x if SWAP + x in legal else None
    return next((a for a in legal if LAYOFF <= a < SWAP and (a - LAYOFF) // 3 == x), None)
