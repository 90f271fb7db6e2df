"""Every variant as an OpenSpiel game (the ``reference`` extra, which has ``open_spiel``).

Importing this package registers four Python games with ``pyspiel.register_game``:
``python_rummy_env_rummy``, ``python_rummy_env_gin_rummy``,
``python_rummy_env_crazy_rummy`` and ``python_rummy_env_rummikub``, whose parameters are
the env options::

    import pyspiel
    import rummy_env.openspiel  # noqa: F401 - registers the games

    game = pyspiel.load_game("python_rummy_env_rummy", {"num_players": 4})

The deal and every draw of a card not yet seen are chance nodes (the tree of OpenSpiel's
own ``gin_rummy``); decisions have the env's action ids and texts; observations and
information-state tensors are the env's observation vectors; information-state strings
are perfect recall.  ``resample_from_infostate`` is the engine's ``resample``.  See
``rummy_env.openspiel.core`` for the tree and ``rummy_env.openspiel.variants`` for each
variant's deal, bounds and parameters (Crazy Rummy's ``wild_rank=0`` means "drawn by
chance", the engine's ``None``).
"""

try:
    import pyspiel  # noqa: F401
except ModuleNotFoundError as err:  # say which extra brings it, as the jobs do
    raise ModuleNotFoundError(
        f'rummy_env.openspiel needs OpenSpiel ({err}): pip install -e ".[reference]"', name="pyspiel"
    ) from None

from rummy_env.openspiel.games import GAME_CLASSES, PREFIX, RummyEnvGame, RummyEnvObserver, RummyEnvState, game_type
from rummy_env.openspiel.players import PlayerIdError, PlayerTypeError

GAME_NAMES = tuple(GAME_CLASSES)  #: the registered short names

__all__ = [
    "GAME_CLASSES",
    "GAME_NAMES",
    "PREFIX",
    "PlayerIdError",
    "PlayerTypeError",
    "RummyEnvGame",
    "RummyEnvObserver",
    "RummyEnvState",
    "game_type",
]
