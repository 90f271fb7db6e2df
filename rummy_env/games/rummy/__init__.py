"""Basic Rummy rules engine (``docs/rules/rummy.md``); no PettingZoo, no Gymnasium."""

from rummy_env.games.rummy.actions import (
    NUM_ACTIONS,
    action_to_string,
    string_to_action,
)
from rummy_env.games.rummy.config import RummyConfig
from rummy_env.games.rummy.deal import stack_deck
from rummy_env.games.rummy.state import (
    DRAW,
    PLAY,
    TERMINAL,
    RummyGame,
    RummyState,
    RummyView,
)

__all__ = [
    "DRAW",
    "PLAY",
    "TERMINAL",
    "NUM_ACTIONS",
    "RummyConfig",
    "RummyGame",
    "RummyState",
    "RummyView",
    "action_to_string",
    "stack_deck",
    "string_to_action",
]
