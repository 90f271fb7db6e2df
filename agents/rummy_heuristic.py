"""A rule-of-thumb player for basic Rummy that reads only its observation, in several styles."""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import Agent, legal_ids, observation_vector, plane_mask
from agents.styles import check_style, danger
from rummy_env.core.cards import CARD_VALUE_LIST, NUM_CARDS, rank_of, suit_of
from rummy_env.core.melds import MELDS, melds_in_hand
from rummy_env.encoding.layout import Layout
from rummy_env.games.rummy.actions import DRAW_DISCARD, DRAW_STOCK, LAYOFF, MELD

#: Styles of play, ``heuristic:style=NAME``; the index is the style id of ``agents.search.rummy_fast``.
STYLES = ("default", "go_rummy", "defensive", "shed_high")
#: ``shed_high``: value (points) of the cards it discards even from a partial meld
SHED_VALUE = 10
#: ``go_rummy``: an opponent down to this many cards makes it lay down as the default does
GO_RUMMY_ALARM = 3
#: :func:`go_out_move`'s answers besides a move: no way out, and nothing left to play
NO_PLAN, DONE = -1, -2


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


def go_out_move(hand: int, layoffs: int, forbidden: int, ace_high: bool = False) -> int:
    """The first move of a way to go out this turn (R-RUMMY-11), or :data:`NO_PLAN`.

    A way out splits ``hand`` into melds of its own cards (R-RUMMY-07), cards of
    ``layoffs`` (the cards the action mask lets it lay off now, R-RUMMY-08) and at most
    one card to discard, not ``forbidden`` (R-RUMMY-09; -1: none).  The search takes the
    hand's lowest card first and tries, in order, the melds holding it (ascending ids),
    laying it off, discarding it; the move returned is the way's first meld in that
    order, else its first lay-off, else its discard.

    Returns:
        ``MELD + meld id``, ``LAYOFF + 3 * card`` (lay off ``card``: the caller picks the
        side), a card id (discard it), :data:`NO_PLAN` or, for an empty hand, :data:`DONE`.
    """
    melds = [m for m in melds_in_hand(hand, ace_high)]
    return _way_out(hand, melds, layoffs, forbidden, True)


def _way_out(hand: int, melds: list[int], layoffs: int, forbidden: int, spare: bool) -> int:
    if hand == 0:
        return DONE
    low = hand & -hand
    card = low.bit_length() - 1
    for m in melds:
        mask = MELDS[m].mask
        if mask & low and mask & hand == mask and _way_out(hand & ~mask, melds, layoffs, forbidden, spare) != NO_PLAN:
            return MELD + m
    if layoffs & low:
        rest = _way_out(hand & ~low, melds, layoffs, forbidden, spare)
        if rest != NO_PLAN:
            return rest if MELD <= rest < LAYOFF else LAYOFF + 3 * card
    if spare and card != forbidden:
        rest = _way_out(hand & ~low, melds, layoffs, forbidden, False)
        if rest != NO_PLAN:
            return card if rest == DONE else rest
    return NO_PLAN


class RummyHeuristicAgent(Agent):
    """Basic Rummy heuristic (observation only).

    ``style="default"``:

    - Draw: take the upcard when it completes a meld with the hand, or looks like it
      extends a meld on the table; otherwise draw from the stock.
    - Play: put down the biggest meld it can (most cards, then most points, then the
      lowest meld id), then lay off the highest card it can; then discard its
      highest-value card that is in no partial meld (a pair of a rank, or two suited
      cards at most two ranks apart), or its highest-value card if all are.

    It lays its melds down as soon as it has them.  Other styles (:data:`STYLES`), each
    the default but for what it names:

    - ``go_rummy``: holds its melds in hand to go out in one turn, which scores double
      when it has laid nothing down before (R-RUMMY-16): whenever the hand goes out this
      turn (:func:`go_out_move`) it plays that way out; otherwise, until it has melded
      and while every opponent holds more than :data:`GO_RUMMY_ALARM` cards, it melds
      and lays off nothing and discards as the default does but never a card of a meld
      it holds; then it plays as the default.
    - ``defensive``: discards, among the cards the default would choose from (the loose
      ones, else all), the safest for the next player (:func:`agents.styles.danger`:
      away from the cards that player picked and still holds, near the cards of the
      discard pile), then the highest, then the highest id.
    - ``shed_high``: keeps its hand's points low (R-RUMMY-15): puts down the meld with
      the most points first (then the most cards), and discards its cards of
      :data:`SHED_VALUE` points (10, J, Q, K) first, even from a partial meld;
      otherwise as the default.

    Args:
        layout: ``env.unwrapped.layout``, to read the observation by field name.
        ace_high: the game's ``ace_high`` option (which melds exist).
        seed: unused (the agent is deterministic); kept for the common interface.
        style: one of :data:`STYLES`.

    Raises:
        ValueError: an unknown style.
    """

    name = "heuristic"

    def __init__(self, layout: Layout, ace_high: bool = False, seed: int | None = None, style: str = "default"):
        super().__init__(seed)
        self.style_id = check_style(style, STYLES, "rummy_v0")
        self.style = style
        self._size = layout.size
        self.ace_high = ace_high
        self._hand = layout.slice("hand")
        self._top = layout.slice("top_discard")
        self._rest = layout.slice("discard_rest")
        self._table = layout.slice("table")
        self._next = layout.slice("known_1")
        self._forbidden = layout.slice("forbidden")
        self._sizes = layout.slice("hand_sizes")
        self._melded = layout.offset("melded")

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any] | None = None) -> int:
        """The heuristic's action id for this seat's ``observation`` (the class docstring).

        Raises:
            TypeError, ValueError: not an observation dict of this env (``legal_ids``,
                ``observation_vector``).
        """
        legal = legal_ids(observation)
        obs = observation_vector(observation, self._size)
        legal_set = set(int(a) for a in legal)
        hand = plane_mask(obs[self._hand])
        if DRAW_STOCK in legal_set or DRAW_DISCARD in legal_set:
            return self._draw(obs, hand, legal_set)
        if self.style == "go_rummy":
            move = self._go_rummy(obs, hand, legal)
            if move is not None:
                return move
        melds = [int(a) - MELD for a in legal if MELD <= a < LAYOFF]  # ascending: ties go to the lowest id
        if melds:

            def size_points(m: int) -> tuple[int, int]:
                return len(MELDS[m].cards), sum(CARD_VALUE_LIST[c] for c in MELDS[m].cards)

            if self.style == "shed_high":
                return MELD + max(melds, key=lambda m: size_points(m)[::-1])
            return MELD + max(melds, key=size_points)
        layoffs = [a for a in legal_set if a >= LAYOFF]
        if layoffs:
            return max(layoffs, key=lambda a: (CARD_VALUE_LIST[(a - LAYOFF) // 3], -a))
        discards = [a for a in legal_set if a < NUM_CARDS]
        loose = [c for c in discards if not in_partial_meld(c, hand, self.ace_high)]
        if self.style == "shed_high":
            loose = [c for c in discards if CARD_VALUE_LIST[c] >= SHED_VALUE or c in loose]
        if self.style == "defensive":
            known = plane_mask(obs[self._next])
            pile = plane_mask(obs[self._top]) | plane_mask(obs[self._rest])
            return min(
                loose or discards, key=lambda c: (danger(c, known, pile, self.ace_high), -CARD_VALUE_LIST[c], -c)
            )
        return max(loose or discards, key=lambda c: (CARD_VALUE_LIST[c], c))

    def _go_rummy(self, obs: np.ndarray, hand: int, legal: np.ndarray) -> int | None:
        """The ``go_rummy`` style's move of the play phase, or None to play as the default."""
        layoffs = 0
        for a in legal:
            if a >= LAYOFF:
                layoffs |= 1 << (int(a) - LAYOFF) // 3
        forbidden = np.flatnonzero(obs[self._forbidden])
        move = go_out_move(hand, layoffs, int(forbidden[0]) if forbidden.size else -1, self.ace_high)
        if move >= LAYOFF:
            card = (move - LAYOFF) // 3
            return next(int(a) for a in legal if a >= LAYOFF and (a - LAYOFF) // 3 == card)
        if move >= 0:
            return move
        if obs[self._melded] or obs[self._sizes][1:].min() <= GO_RUMMY_ALARM:
            return None
        in_melds = 0
        for m in melds_in_hand(hand, self.ace_high):
            in_melds |= MELDS[m].mask
        discards = [int(a) for a in legal if a < NUM_CARDS]
        pool = [c for c in discards if not in_melds >> c & 1] or discards
        loose = [c for c in pool if not in_partial_meld(c, hand, self.ace_high)]
        return max(loose or pool, key=lambda c: (CARD_VALUE_LIST[c], c))

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
