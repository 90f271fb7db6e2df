"""Crazy Rummy rules engine (``docs/rules/crazy_rummy.md``); no PettingZoo, no Gymnasium."""

from rummy_env.games.crazy_rummy.actions import (
    NUM_ACTIONS,
    SWAP,
    action_to_string,
    string_to_action,
)
from rummy_env.games.crazy_rummy.config import NUM_ROUNDS, CrazyRummyConfig
from rummy_env.games.crazy_rummy.deal import stack_deck
from rummy_env.games.crazy_rummy.hands import penalty
from rummy_env.games.crazy_rummy.state import (
    DRAW,
    PLAY,
    TERMINAL,
    CrazyRummyGame,
    CrazyRummyState,
    CrazyView,
)

__all__ = [
    "DRAW",
    "PLAY",
    "TERMINAL",
    "NUM_ACTIONS",
    "NUM_ROUNDS",
    "SWAP",
    "CrazyRummyConfig",
    "CrazyRummyGame",
    "CrazyRummyState",
    "CrazyView",
    "action_to_string",
    "penalty",
    "stack_deck",
    "string_to_action",
]
