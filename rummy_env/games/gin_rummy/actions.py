"""Action ids of Gin Rummy and their text form (rules: ``docs/rules/gin_rummy.md``).

One id per distinct decision; the layout never changes with the options (illegal ids
are masked).  ``NUM_ACTIONS == 108``:

=========  ================  =====================================================
ids        text              move
=========  ================  =====================================================
0..51      ``discard KD``    discard card ``id`` and end the turn (R-GIN-04)
52..103    ``knock KD``      discard card ``id - 52`` and knock (R-GIN-06); with 0
                             deadwood in the ten cards kept this is gin (R-GIN-07)
104        ``draw stock``    draw the top card of the stock (R-GIN-04)
105        ``draw upcard``   take the upcard, the top card of the discard pile
                             (R-GIN-03 first offer, R-GIN-04)
106        ``pass``          decline the first upcard (the upcard offer only, R-GIN-03)
107        ``big gin``       go out with all eleven cards melded, no discard (R-GIN-07)
=========  ================  =====================================================

Card ids are those of ``rummy_env.core.cards`` (suit-major C D H S, ranks A..K).
Text grammar (case-insensitive; cards as ``TS``, ``10S``, ``ah``): ``discard <card>`` |
``knock <card>`` | ``draw stock`` | ``draw upcard`` (also ``draw discard``) | ``pass`` |
``big gin``.
"""

from __future__ import annotations

from rummy_env.core.cards import NUM_CARDS, card_str, parse_card
from rummy_env.games.errors import to_action_id

DISCARD = 0  #: first discard id: ``DISCARD + card``
KNOCK = NUM_CARDS  #: first knock id: ``KNOCK + card`` (52)
DRAW_STOCK = 2 * NUM_CARDS  #: 104
DRAW_UPCARD = DRAW_STOCK + 1  #: 105
PASS = DRAW_STOCK + 2  #: 106
BIG_GIN = DRAW_STOCK + 3  #: 107
NUM_ACTIONS = BIG_GIN + 1  #: 108

GRAMMAR = "'discard <card>', 'knock <card>', 'draw stock', 'draw upcard', 'pass', 'big gin'"
_NAMED = {DRAW_STOCK: "draw stock", DRAW_UPCARD: "draw upcard", PASS: "pass", BIG_GIN: "big gin"}
_BY_TEXT = {text: action for action, text in _NAMED.items()}
_BY_TEXT["draw discard"] = DRAW_UPCARD


def action_to_string(action: int) -> str:
    """Text of an action id, e.g. ``"knock KD"`` (grammar in the module doc).

    Raises:
        IllegalActionError: (a ``ValueError``) ``action`` is outside 0..107.
        ActionTypeError: (a ``ValueError``) ``action`` is not an integer.
    """
    action = to_action_id(action, NUM_ACTIONS)
    if action < KNOCK:
        return f"discard {card_str(action)}"
    if action < DRAW_STOCK:
        return f"knock {card_str(action - KNOCK)}"
    return _NAMED[action]


def string_to_action(text: str) -> int:
    """Action id of an action's text; the inverse of :func:`action_to_string`.

    Raises:
        ValueError: the text follows no rule of the grammar or names an unknown card.
    """
    if not isinstance(text, str):
        raise ValueError(f"action text {text!r} is not a string: use one of {GRAMMAR}")
    original = text.split()  # the card as the user wrote it, for the error message
    words = [w.lower() for w in original]
    named = _BY_TEXT.get(" ".join(words))
    if named is not None:
        return named
    if len(words) == 2 and words[0] in ("discard", "knock"):
        try:
            card = parse_card(original[1])
        except ValueError as err:
            raise ValueError(f"action text {text!r}: {err}") from None
        return (DISCARD if words[0] == "discard" else KNOCK) + card
    raise ValueError(f"action text {text!r} is not a Gin Rummy action: use one of {GRAMMAR}")
