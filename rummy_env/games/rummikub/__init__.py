"""Rummikub rules engine (``docs/rules/rummikub.md``); no PettingZoo, no Gymnasium."""

from rummy_env.games.rummikub.actions import (
    COMMIT,
    DRAW,
    NUM_ACTIONS,
    action_to_string,
    string_to_action,
)
from rummy_env.games.rummikub.config import RummikubConfig
from rummy_env.games.rummikub.deal import stack_pool
from rummy_env.games.rummikub.state import (
    TERMINAL,
    RummikubGame,
    RummikubState,
    RummikubView,
)

__all__ = [
    "COMMIT",
    "DRAW",
    "NUM_ACTIONS",
    "TERMINAL",
    "RummikubConfig",
    "RummikubGame",
    "RummikubState",
    "RummikubView",
    "action_to_string",
    "stack_pool",
    "string_to_action",
]
