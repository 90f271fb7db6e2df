"""Gin Rummy rules engine (``docs/rules/gin_rummy.md``); no PettingZoo, no Gymnasium."""

from rummy_env.games.gin_rummy.actions import (
    BIG_GIN,
    DISCARD,
    DRAW_STOCK,
    DRAW_UPCARD,
    KNOCK,
    NUM_ACTIONS,
    PASS,
    action_to_string,
    string_to_action,
)
from rummy_env.games.gin_rummy.config import GinRummyConfig
from rummy_env.games.gin_rummy.deal import stack_deck
from rummy_env.games.gin_rummy.state import (
    DRAW,
    OFFER,
    TERMINAL,
    GinRummyGame,
    GinRummyState,
    GinView,
)

__all__ = [
    "BIG_GIN",
    "DISCARD",
    "DRAW",
    "DRAW_STOCK",
    "DRAW_UPCARD",
    "KNOCK",
    "NUM_ACTIONS",
    "OFFER",
    "PASS",
    "TERMINAL",
    "GinRummyConfig",
    "GinRummyGame",
    "GinRummyState",
    "GinView",
    "action_to_string",
    "stack_deck",
    "string_to_action",
]
