"""Action ids of basic Rummy and their text form.

Layout (fixed whatever the options; illegal ids are masked), ``NUM_ACTIONS == 579``:

=========  ===========================  ==================================================
ids        text                         move
=========  ===========================  ==================================================
0..51      ``discard KD``               discard card ``id`` (card ids of ``core.cards``)
52         ``draw stock``               draw the top card of the stock (R-RUMMY-06, 12)
53         ``draw discard``             draw the top card of the discard pile
54..422    ``meld 3S 4S 5S``            put down meld ``id - 54`` of ``core.melds.MELDS``
423..578   ``layoff 6S set|low|high``   lay off card ``c = (id - 423) // 3`` on side
                                        ``(id - 423) % 3``: 0 = the 3-card set of its
                                        rank, 1 = below the low end of a run of its suit,
                                        2 = above the high end of one (R-RUMMY-08)
=========  ===========================  ==================================================

A card fits at most one set (its rank), the low end of at most one run and the high
end of at most one run, so (card, side) names the target exactly.  An ace goes on the
low side as the low ace (A-2-3) and on the high side as the high ace (Q-K-A, only with
``ace_high``).

Text grammar (case-insensitive, words separated by spaces or commas; cards as in
``core.cards``):
``discard <card>`` | ``draw stock`` | ``draw discard`` | ``meld <card> <card> <card>...``
(cards in any order) | ``layoff <card> set|low|high``.
"""

from __future__ import annotations

from rummy_env.core.cards import (
    NUM_CARDS,
    card_str,
    cards_str,
    mask_of,
    parse_card,
    parse_cards,
)
from rummy_env.core.melds import LAYOFF_SIDES, MELD_ID_BY_MASK, MELDS, NUM_MELDS
from rummy_env.games.errors import to_action_id

DISCARD = 0
DRAW_STOCK = NUM_CARDS  # 52
DRAW_DISCARD = NUM_CARDS + 1  # 53
MELD = NUM_CARDS + 2  # 54
LAYOFF = MELD + NUM_MELDS  # 423
NUM_ACTIONS = LAYOFF + 3 * NUM_CARDS  # 579

GRAMMAR = "'discard <card>', 'draw stock', 'draw discard', 'meld <card> <card> <card>...', 'layoff <card> set|low|high'"


def layoff_action(card: int, side: int) -> int:
    """Action id of laying off ``card`` on ``side`` (0 set, 1 low end, 2 high end)."""
    return LAYOFF + 3 * card + side


def action_to_string(action: int) -> str:
    """Text of an action id (see the module doc for the grammar).

    Raises:
        IllegalActionError: (a ``ValueError``) ``action`` is outside 0..578.
        ActionTypeError: (a ``ValueError``) ``action`` is not an integer.
    """
    action = to_action_id(action, NUM_ACTIONS)
    if action < DRAW_STOCK:
        return f"discard {card_str(action)}"
    if action == DRAW_STOCK:
        return "draw stock"
    if action == DRAW_DISCARD:
        return "draw discard"
    if action < LAYOFF:
        return "meld " + cards_str(MELDS[action - MELD].cards)
    card, side = divmod(action - LAYOFF, 3)
    return f"layoff {card_str(card)} {LAYOFF_SIDES[side]}"


def string_to_action(text: str) -> int:
    """Action id of an action's text; the inverse of :func:`action_to_string`.

    Raises:
        ValueError: the text follows no rule of the grammar, names an unknown card,
            or lists cards that are no meld of the table.
    """
    if not isinstance(text, str):
        raise ValueError(f"action text {text!r} is not a string: use one of {GRAMMAR}")
    words = text.replace(",", " ").split()
    verb = [w.lower() for w in words[:1]]
    try:
        if verb == ["discard"] and len(words) == 2:
            return DISCARD + parse_card(words[1])
        if [w.lower() for w in words] == ["draw", "stock"]:
            return DRAW_STOCK
        if [w.lower() for w in words] == ["draw", "discard"]:
            return DRAW_DISCARD
        if verb == ["meld"] and len(words) >= 4:
            cards = parse_cards(words[1:])
            meld = MELD_ID_BY_MASK.get(mask_of(cards))
            if meld is None:
                raise ValueError(f"cards {' '.join(words[1:])} are not a set or a run")
            return MELD + meld
        if verb == ["layoff"] and len(words) == 3 and words[2].lower() in LAYOFF_SIDES:
            return layoff_action(parse_card(words[1]), LAYOFF_SIDES.index(words[2].lower()))
    except ValueError as err:
        raise ValueError(f"action text {text!r}: {err}") from None
    raise ValueError(f"action text {text!r} is not a Rummy action: use one of {GRAMMAR}")


#: The phases of a turn (``RummyState.phase``): the acting player must draw (R-RUMMY-06),
#: then melds, lays off, and finally discards.
DRAW, PLAY = 0, 1
