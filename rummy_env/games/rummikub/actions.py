"""Action ids of Rummikub and their text form.

A turn is built one tile at a time (``docs/rules/rummikub.md``, environment
conventions), ``NUM_ACTIONS == 55``:

=========  ==================  =======================================================
ids        text                move
=========  ==================  =======================================================
0..51      ``add R7``          add one more tile of this type from the rack to the play
                               being built (type = colour * 13 + number - 1, colours R B K Y)
52         ``add JK``          add a joker
53         ``commit``          put the play on the table (rearranging it freely, R-RK-08)
54         ``draw``            draw a tile from the pool, ending the turn (R-RK-06); when
                               the pool is empty the same id passes (``pass`` is read too)
=========  ==================  =======================================================

Tiles are added in non-decreasing type order, so each play has exactly one sequence.
"""

from __future__ import annotations

from rummy_env.core.tiles import NUM_TILE_TYPES, parse_tile, tile_str
from rummy_env.games.errors import to_action_id

COMMIT = NUM_TILE_TYPES  # 53
DRAW = NUM_TILE_TYPES + 1  # 54: PASS when the pool is empty
NUM_ACTIONS = NUM_TILE_TYPES + 2  # 55

GRAMMAR = "'add <tile>' (e.g. 'add R7', 'add JK'), 'commit', 'draw', 'pass'"


def action_to_string(action: int) -> str:
    """Text of an action id: ``add R7``, ``add JK``, ``commit`` or ``draw``.

    Id 54 is written ``draw``; when the pool is empty it passes (``string_to_action``
    reads ``pass`` as the same id).

    Raises:
        IllegalActionError / ActionTypeError (both ``ValueError``): not an id in 0..54.
    """
    action = to_action_id(action, NUM_ACTIONS)
    if action < NUM_TILE_TYPES:
        return f"add {tile_str(action)}"
    return "commit" if action == COMMIT else "draw"


def string_to_action(text: str) -> int:
    """Action id of an action's text; the inverse of :func:`action_to_string`.

    Raises:
        ValueError: text outside the grammar or an unknown tile.
    """
    if not isinstance(text, str):
        raise ValueError(f"action text {text!r} is not a string: use one of {GRAMMAR}")
    words = text.replace(",", " ").split()
    verb = words[0].lower() if words else ""
    if len(words) == 1 and verb == "commit":
        return COMMIT
    if len(words) == 1 and verb in ("draw", "pass"):
        return DRAW
    if len(words) == 2 and verb == "add":
        try:
            return parse_tile(words[1])
        except ValueError as err:
            raise ValueError(f"action text {text!r}: {err}") from None
    raise ValueError(f"action text {text!r} is not a Rummikub action: use one of {GRAMMAR}")
