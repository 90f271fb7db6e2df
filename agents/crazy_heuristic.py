"""A rule-of-thumb player for Crazy Rummy that reads only its observation."""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import Agent, legal_ids, observation_vector, plane_mask
from agents.crazy_planner import GoOutPlanner, TableView, layoff_spots
from agents.rummy_heuristic import in_partial_meld
from agents.styles import KNOWN_WEIGHT, PARTNERS, check_style, danger
from rummy_env.core.cards import CARD_VALUE_LIST, NUM_CARDS, card_id, rank_of
from rummy_env.core.melds import MELDS
from rummy_env.encoding.layout import Layout
from rummy_env.games.crazy_rummy.actions import DRAW_DISCARD, DRAW_STOCK, LAYOFF, MELD, SWAP
from rummy_env.games.crazy_rummy.hands import WILD_PENALTY, wild_cards

#: Styles of play, ``heuristic:style=NAME`` (the index is a style id, as the compiled heuristics number them).
STYLES = ("default", "hold_wilds", "shed_high", "defensive", "hold_wilds_safe")
#: the styles that keep their wild cards for the go-out (``hold_wilds``' melds and lay-offs)
HOLDS_WILDS = ("hold_wilds", "hold_wilds_safe")
#: the styles whose discard reads the next player (its picks, its lay-off spots)
READS_NEXT = ("defensive", "hold_wilds_safe")
#: ``shed_high``: penalty (points) of the cards it discards even from a partial meld
SHED_VALUE = 10


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

    Other styles (:data:`STYLES`), each the default but for what it names:

    - ``hold_wilds``: keeps its wild cards for the go-out: puts down only melds of
      natural cards that are not of the wild rank, and lays off no card of the wild rank
      (the go-out plan still uses them all).
    - ``shed_high``: keeps its penalty low (R-CRAZY-12): puts down the meld that sheds
      the most penalty first (then the most natural cards), lays off any card, a wild
      card too (the most penalty first), and discards its cards of :data:`SHED_VALUE`
      points (10, J, Q, K) first, even from a partial meld (never a wild card while
      another card may go); otherwise as the default.
    - ``defensive``: discards, among the cards the default would choose from, the
      safest for the next player (:func:`agents.styles.danger` with the cards it picked
      and still holds, and the discard pile; once that player has melded, a card that
      looks like it extends a table meld, :func:`agents.crazy_planner.layoff_spots`,
      counts ``KNOWN_WEIGHT`` more: it could lay it off, R-CRAZY-07), then the highest
      penalty, then the highest id.
    - ``hold_wilds_safe``: ``hold_wilds``' melds and lay-offs; its discard is, among the
      cards the default would choose from, the one that makes a partial meld with the
      fewest natural cards of the hand (it matters when every card is in one), then the
      ``defensive`` style's safest for the next player, then the highest penalty, then the
      highest id.  Going out first is the usual way to have the round's lowest penalty
      (R-CRAZY-11/12: penalties decide only when the stock runs out), so it keeps the cards
      closest to melds rather than shedding points
      (``docs/results/selfplay-crazy-safe/README.md`` has its figures).

    Args:
        layout: ``env.unwrapped.layout``, to read the observation by field name.
        seed: unused (the agent is deterministic); kept for the common interface.
        style: one of :data:`STYLES`.

    Raises:
        ValueError: an unknown style.
    """

    name = "heuristic"

    def __init__(self, layout: Layout, seed: int | None = None, style: str = "default"):
        super().__init__(seed)
        self.style_id = check_style(style, STYLES, "crazy_rummy_v0")
        self.style = style
        self._size = layout.size
        self._hand = layout.slice("hand")
        self._top = layout.slice("top_discard")
        self._natural = layout.slice("table_natural")
        self._wild_planes = [layout.slice(f"wild_{suit}") for suit in "CDHS"]
        self._forbidden = layout.slice("forbidden")
        self._wild_rank = layout.slice("wild_rank")
        self._melded = layout.offset("melded")
        self._rest = layout.slice("discard_rest")
        self._next = layout.slice("known_1")

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any] | None = None) -> int:
        """The heuristic's action id for this seat's ``observation`` (the class docstring).

        Raises:
            TypeError, ValueError: not an observation dict of this env (``legal_ids``,
                ``observation_vector``).
        """
        legal = [int(a) for a in legal_ids(observation)]
        obs = observation_vector(observation, self._size)
        hand = plane_mask(obs[self._hand])
        wild_rank = int(np.argmax(obs[self._wild_rank]))
        wilds = wild_cards(wild_rank)
        table = self._table_view(obs, wild_rank)
        melded = bool(obs[self._melded])

        def penalty(card: int) -> int:
            return WILD_PENALTY if rank_of(card) == wild_rank else CARD_VALUE_LIST[card]

        def shed(layoff: int) -> int:
            """Penalty a lay-off takes out of the hand: its card's, or a wild card's."""
            card = (layoff - LAYOFF) // 3
            return penalty(card) if hand >> card & 1 else WILD_PENALTY

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
        if self.style in HOLDS_WILDS:
            melds = [a for a in melds if not MELDS[a - MELD].mask & (wilds | ~hand)]
        if melds:

            def meld_value(a: int) -> tuple[int, int]:
                cards = MELDS[a - MELD].cards
                natural = [c for c in cards if hand >> c & 1]
                wilds_used = len(cards) - len(natural)
                return len(natural), sum(penalty(c) for c in natural) + WILD_PENALTY * wilds_used

            if self.style == "shed_high":
                return max(melds, key=lambda a: meld_value(a)[::-1])
            return max(melds, key=meld_value)
        layoffs = [a for a in legal if LAYOFF <= a < SWAP]
        if self.style == "shed_high":
            if layoffs:  # a card not held is laid off by a wild card standing for it
                return max(layoffs, key=lambda a: (shed(a), -a))
        else:
            layoffs = [a for a in layoffs if hand >> ((a - LAYOFF) // 3) & 1]
            if self.style in HOLDS_WILDS:
                layoffs = [a for a in layoffs if not wilds >> ((a - LAYOFF) // 3) & 1]
            if layoffs:
                return max(layoffs, key=lambda a: (penalty((a - LAYOFF) // 3), -a))
        discards = [a for a in legal if a < NUM_CARDS]
        plain = [c for c in discards if rank_of(c) != wild_rank] or discards
        naturals = hand & ~wilds
        loose = [c for c in plain if not in_partial_meld(c, naturals)]
        if self.style == "shed_high":
            loose = [c for c in plain if penalty(c) >= SHED_VALUE or c in loose]
        if self.style in READS_NEXT:
            known = plane_mask(obs[self._next])
            pile = plane_mask(obs[self._top]) | plane_mask(obs[self._rest])
            spots = layoff_spots(table) if obs[self._melded + 1] else 0

            def risk(c: int) -> int:
                return danger(c, known, pile) + KNOWN_WEIGHT * (spots >> c & 1)

            if self.style == "hold_wilds_safe":  # a card with more partners is nearer a meld, and going out wins

                def links(c: int) -> int:
                    return (PARTNERS[0][c] & naturals).bit_count()

                return min(loose or plain, key=lambda c: (links(c), risk(c), -penalty(c), -c))
            return min(loose or plain, key=lambda c: (risk(c), -penalty(c), -c))
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
