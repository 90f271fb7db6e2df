"""``RummyVec``: batched basic Rummy (2-6 players) on the numba kernel (``vector.rummy_kernel``)."""

from __future__ import annotations

import numpy as np

from rummy_env.encoding import rummy as rummy_encoding
from rummy_env.games.rummy import RummyGame
from rummy_env.games.rummy import actions as rummy_actions
from rummy_env.vector import rummy_kernel as k
from rummy_env.vector import rummy_world
from rummy_env.vector.gin_vec import KernelVec
from rummy_env.vector.whole_games import WholeGames


class RummyVec(WholeGames, KernelVec):
    """``num_envs`` basic Rummy games stepped together (rules ``docs/rules/rummy.md``).

    The API is :class:`~rummy_env.vector.batch.VecBase`'s; observations, masks
    (R-RUMMY-10 lookahead included), rewards and terminations are those of
    ``rummy_v0.env(**env_options)`` with the same deal and actions, and the same seed
    gives the games of :class:`~rummy_env.vector.ReferenceRummyVec`.

    Args:
        num_envs: games, >= 1.
        seed: int 0..2**64-1 (``batch.MAX_SEED``).
        num_threads: threads for the kernels; None: numba's default.
        backend: ``"threads"`` or ``"prange"`` (see ``gin_vec.KernelVec``).
        **env_options: ``rummy_v0.env`` options (``num_players`` 2..6, ``ace_high``,
            ``reshuffle``, ``max_turns``, ``reward``, ...); with ``episode="game"`` each
            episode is a whole game (``vector.whole_games``).

    Raises:
        ValueError: a bad argument or option.
    """

    variant = "rummy_v0"
    compile_what = "the Rummy kernel"
    game_class = RummyGame
    actions = rummy_actions
    encoder = rummy_encoding
    kernel = k

    def _allocate(self) -> None:
        super()._allocate()
        n, c = self.num_envs, self.config
        self._ints = np.zeros((n, k.NUM_INTS), np.int32)
        self._masks = np.zeros((n, k.NUM_MASKS), np.uint64)
        self._stock = np.zeros((n, 52), np.int8)
        self._pile = np.zeros((n, 52), np.int8)
        self._legal = np.zeros((n, k.LEGAL_WORDS), np.uint64)
        self._ints[:, k.ENDED] = k.TERMINATED  # no hand dealt yet
        self._cfg = rummy_world.config_vector(c, whole_games=True)
        self._no_actions = np.zeros(n, np.int64)

    @property
    def scores(self) -> np.ndarray:
        """Game totals of every game's current (or just ended) episode: int64
        ``(num_envs, num_players)`` (the engine's ``scores``)."""
        return self._ints[:, k.SCORE : k.SCORE + self.num_players].astype(np.int64)

    def _state_args(self) -> tuple:
        return self._ints, self._masks, self._stock, self._pile, self._legal, self._decks, self._dealers
