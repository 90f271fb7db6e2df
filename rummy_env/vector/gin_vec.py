"""``GinRummyVec``: batched Gin Rummy on the numba kernel (``vector.gin_kernel``)."""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from rummy_env.envs.gin_rummy import raw_env as gin_raw_env
from rummy_env.vector import gin_kernel as k
from rummy_env.vector.batch import Batch, VecBase
from rummy_env.vector.bits import first_illegal


class KernelVec(VecBase):
    """The part of a compiled batch every variant shares: the thread count around each
    kernel call, and the illegal-action check before any game moves."""

    #: below this many games per thread, a call runs on the calling thread alone (a
    #: parallel loop's start-up costs more than it saves; on a loaded machine much more)
    games_per_thread = 128

    def _parallel(self) -> bool:
        """Whether the next kernel call runs on several threads (and set their number)."""
        threads = numba.config.NUMBA_NUM_THREADS if self.num_threads is None else self.num_threads
        threads = min(threads, numba.config.NUMBA_NUM_THREADS, self.num_envs // self.games_per_thread)
        if threads < 2:
            return False
        numba.set_num_threads(threads)
        return True


class GinRummyVec(KernelVec):
    """``num_envs`` Gin Rummy games stepped together (rules ``docs/rules/gin_rummy.md``).

    The API is :class:`~rummy_env.vector.batch.VecBase`'s; observations, masks,
    rewards and terminations are those of ``gin_rummy_v0.env(**env_options)`` with the
    same deal and actions (the differential tests check it), and the same seed gives the
    games of :class:`~rummy_env.vector.ReferenceGinRummyVec`.

    Args:
        num_envs: games, >= 1.
        seed: int >= 0.
        num_threads: numba threads for the kernels (at most ``NUMBA_NUM_THREADS``);
            None: numba's default (all cores).
        **env_options: ``gin_rummy_v0.env`` options; ``episode="hand"`` only.

    Raises:
        ValueError: a bad argument or option.
    """

    variant = "gin_rummy_v0"
    raw_env = gin_raw_env

    def __init__(self, num_envs: int, seed: int = 0, num_threads: int | None = None, **env_options: Any):
        super().__init__(num_envs, seed, num_threads, **env_options)
        n, c = self.num_envs, self.config
        self._ints = np.zeros((n, k.NUM_INTS), np.int32)
        self._masks = np.zeros((n, k.NUM_MASKS), np.uint64)
        self._pile = np.zeros((n, 52), np.int8)
        self._legal = np.zeros((n, 2), np.uint64)
        self._ints[:, k.ENDED] = k.TERMINATED  # no hand dealt yet
        cfg = np.zeros(k.NUM_CFG, np.int64)
        cfg[k.C_KNOCK_LIMIT] = c.knock_limit
        cfg[k.C_GIN_BONUS] = c.gin_bonus
        cfg[k.C_UNDERCUT_BONUS] = c.undercut_bonus
        cfg[k.C_BIG_GIN] = c.big_gin
        cfg[k.C_BIG_GIN_BONUS] = c.big_gin_bonus
        cfg[k.C_OKLAHOMA] = c.oklahoma
        cfg[k.C_MAX_TURNS] = c.max_turns
        cfg[k.C_SCORE_REWARD] = c.reward == "score"
        self._cfg = cfg
        self._no_actions = np.zeros(n, np.int64)

    @property
    def scores(self) -> np.ndarray:
        """Game totals of every game's current (or just ended) hand: int64 ``(num_envs, 2)``."""
        return self._ints[:, k.SCORE : k.SCORE + 2].astype(np.int64)

    def state_bytes_per_game(self) -> int:
        """Bytes of simulator state per game (the output buffers not included)."""
        arrays = (self._ints, self._masks, self._pile, self._legal, self._decks, self._dealers)
        return sum(a.nbytes for a in arrays) // self.num_envs + 16  # + the two random streams

    def _reset_games(self, decks: np.ndarray, given: np.ndarray, dealers: np.ndarray, out: Batch) -> None:
        if given.any():
            self._decks[:] = decks
        self._dealers[:] = dealers
        kernel = k.reset_parallel if self._parallel() else k.reset_serial
        kernel(
            self._ints, self._masks, self._pile, self._legal, self._decks, self._dealers, given, self._deal_rng,
            self._cfg, *out[:3], out.rewards, out.terminated, out.truncated,
        )  # fmt: skip

    def _illegal_game(self, actions: np.ndarray) -> int:
        return int(first_illegal(self._ints[:, k.ENDED], self._legal, actions, self.num_actions))

    def _step(self, actions: np.ndarray, random: bool, out: Batch) -> None:
        kernel = k.step_parallel if self._parallel() else k.step_serial
        kernel(
            self._ints, self._masks, self._pile, self._legal, self._decks, self._dealers, actions, random,
            self._deal_rng, self._action_rng, self._cfg, *out[:3], out.rewards, out.terminated, out.truncated,
        )  # fmt: skip

    def _step_games(self, actions: np.ndarray, out: Batch) -> None:
        self._step(actions, False, out)

    def _step_random_games(self, out: Batch) -> None:
        self._step(self._no_actions, True, out)

    def _step_opponents_games(self, seats: np.ndarray, out: Batch) -> None:
        kernel = k.opponents_parallel if self._parallel() else k.opponents_serial
        kernel(
            seats, self._ints, self._masks, self._pile, self._legal, self._decks, self._action_rng, self._cfg,
            *out[:3], out.rewards, out.terminated, out.truncated,
        )  # fmt: skip
