"""``CrazyRummyVec``: batched Crazy Rummy rounds on the numba kernel (``vector.crazy_batch_kernel``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from rummy_env.envs.crazy_rummy import raw_env as crazy_raw_env
from rummy_env.vector import crazy_batch_kernel, crazy_world
from rummy_env.vector import crazy_kernel as k
from rummy_env.vector.gin_vec import KernelVec


class CrazyRummyVec(KernelVec):
    """``num_envs`` Crazy Rummy one-round episodes stepped together (rules
    ``docs/rules/crazy_rummy.md``).

    The API is :class:`~rummy_env.vector.batch.VecBase`'s; observations, masks
    (R-CRAZY-08a look-ahead included), rewards and terminations are those of
    ``crazy_rummy_v0.env(**env_options)`` with the same deal and actions (the
    differential tests check it), and the same seed gives the games of
    :class:`~rummy_env.vector.ReferenceCrazyRummyVec`.  Each hand's wild rank is the
    ``wild_rank`` option's or drawn from the game's deal stream; ``deal_of(i)`` includes
    it (``{"deck", "dealer", "wild_rank"}``, ``env.reset(options=...)``'s keys).

    Args:
        num_envs: games, >= 1.
        seed: int >= 0.
        num_threads: threads for the kernels; None: numba's default.
        backend: ``"threads"`` or ``"prange"`` (see ``gin_vec.KernelVec``).
        **env_options: ``crazy_rummy_v0.env`` options (``num_players`` 3..6,
            ``wild_rank`` 1..13, ``reward``, ``max_turns``); ``episode="hand"`` only.

    Raises:
        ValueError: a bad argument or option, or ``episode="game"``.
    """

    variant = "crazy_rummy_v0"
    raw_env = crazy_raw_env
    kernel = crazy_batch_kernel

    def __init__(
        self,
        num_envs: int,
        seed: int = 0,
        num_threads: int | None = None,
        backend: str = "threads",
        **env_options: Any,
    ):
        super().__init__(num_envs, seed, num_threads, backend, **env_options)
        self._ints, self._masks, self._stock, self._pile, self._legal = crazy_world.arrays(self.num_envs)
        self._ints[:, k.ENDED] = k.TERMINATED  # no hand dealt yet
        self._cfg = crazy_world.config_vector(self.config)
        self._no_actions = np.zeros(self.num_envs, np.int64)

    @property
    def scores(self) -> np.ndarray:
        """Penalty totals of every game's current (or just ended) round: int64 ``(num_envs, num_players)``."""
        return self._ints[:, k.TOTAL : k.TOTAL + self.num_players].astype(np.int64)

    @property
    def hands_played(self) -> np.ndarray:
        """Rounds finished in every game's current (or just ended) episode: int64 ``(num_envs,)``
        (one-round episodes: 1 once the round has ended, as the engine's ``hands_played``)."""
        return (self._ints[:, k.ENDED] != k.LIVE).astype(np.int64)

    def _state_args(self) -> tuple:
        return self._ints, self._masks, self._stock, self._pile, self._legal, self._decks, self._dealers

    def _deal_extras(self, i: int) -> dict:
        return {"wild_rank": int(self._ints[i, k.WILD_RANK]) + 1}
