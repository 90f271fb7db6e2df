"""Action ids of Crazy Rummy and their text form.

Layout (fixed; illegal ids are masked), ``NUM_ACTIONS == 631``:

=========  ===========================  ==================================================
ids        text                         move
=========  ===========================  ==================================================
0..51      ``discard KD``               discard card ``id`` (R-CRAZY-08)
52         ``draw stock``               draw the top card of the stock (R-CRAZY-06)
53         ``draw discard``             draw the top card of the discard pile
54..422    ``meld 7S 8S 9S``            put down meld ``id - 54`` of ``core.melds.MELDS``,
                                        named by the cards it stands for: the player's
                                        natural cards of it are used, each missing card
                                        is filled by a wild card (R-CRAZY-05)
423..578   ``layoff 6S set|low|high``   lay off a card standing for ``c = (id - 423) // 3``
                                        on side ``(id - 423) % 3`` (0 set, 1 below a run,
                                        2 above a run): the natural ``c`` if held, else a
                                        wild card (R-CRAZY-07)
579..630   ``swap 9S``                  put the natural card ``id - 579`` in place of the
                                        wild card standing for it, taking the wild card
                                        into the hand (R-CRAZY-07)
=========  ===========================  ==================================================

When several wild cards could fill a meld or a lay-off, the one taken from the discard
pile this turn is used first (R-CRAZY-08: it cannot be discarded now), then the lowest
card ids, and a meld's missing cards (ascending) get the fill cards in that order.
"""

from __future__ import annotations

from rummy_env.core.cards import NUM_CARDS, card_str, parse_card
from rummy_env.games.errors import to_action_id
from rummy_env.games.rummy import actions as rummy_actions

DISCARD = rummy_actions.DISCARD
DRAW_STOCK = rummy_actions.DRAW_STOCK
DRAW_DISCARD = rummy_actions.DRAW_DISCARD
MELD = rummy_actions.MELD
LAYOFF = rummy_actions.LAYOFF
SWAP = rummy_actions.NUM_ACTIONS  # 579
NUM_ACTIONS = SWAP + NUM_CARDS  # 631

GRAMMAR = rummy_actions.GRAMMAR + ", 'swap <card>'"


def action_to_string(action: int) -> str:
    """Text of an action id: basic Rummy's grammar plus ``swap <card>``.

    Raises:
        IllegalActionError / ActionTypeError (both ``ValueError``): not an id in 0..630.
    """
    action = to_action_id(action, NUM_ACTIONS)
    if action >= SWAP:
        return f"swap {card_str(action - SWAP)}"
    return rummy_actions.action_to_string(action)


def string_to_action(text: str) -> int:
    """Action id of an action's text; the inverse of :func:`action_to_string`.

    Raises:
        ValueError: text outside the grammar, an unknown card, or no meld.
    """
    if isinstance(text, str):
        words = text.replace(",", " ").split()
        if len(words) == 2 and words[0].lower() == "swap":
            try:
                return SWAP + parse_card(words[1])
            except ValueError as err:
                raise ValueError(f"action text {text!r}: {err}") from None
    try:
        return rummy_actions.string_to_action(text)
    except ValueError as err:
        raise ValueError(
            str(err).replace("a Rummy action", "a Crazy Rummy action").replace(rummy_actions.GRAMMAR, GRAMMAR)
        ) from None
