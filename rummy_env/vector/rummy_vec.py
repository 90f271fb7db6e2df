"""``RummyVec``: batched basic Rummy (2-6 players) on the numba kernel (``vector.rummy_kernel``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from rummy_env.envs.rummy import raw_env as rummy_raw_env
from rummy_env.vector import rummy_kernel as k
from rummy_env.vector.batch import Batch
from rummy_env.vector.bits import first_illegal
from rummy_env.vector.gin_vec import KernelVec


class RummyVec(KernelVec):
    """``num_envs`` basic Rummy games stepped together (rules ``docs/rules/rummy.md``).

    The API is :class:`~rummy_env.vector.batch.VecBase`'s; observations, masks
    (R-RUMMY-10 lookahead included), rewards and terminations are those of
    ``rummy_v0.env(**env_options)`` with the same deal and actions, and the same seed
    gives the games of :class:`~rummy_env.vector.ReferenceRummyVec`.

    Args:
        num_envs: games, >= 1.
        seed: int >= 0.
        num_threads: numba threads for the kernels; None: numba's default.
        **env_options: ``rummy_v0.env`` options (``num_players`` 2..6, ``ace_high``,
            ``reshuffle``, ``max_turns``, ``reward``, ...); ``episode="hand"`` only.

    Raises:
        ValueError: a bad argument or option.
    """

    variant = "rummy_v0"
    raw_env = rummy_raw_env

    def __init__(self, num_envs: int, seed: int = 0, num_threads: int | None = None, **env_options: Any):
        super().__init__(num_envs, seed, num_threads, **env_options)
        n, c = self.num_envs, self.config
        self._ints = np.zeros((n, k.NUM_INTS), np.int32)
        self._masks = np.zeros((n, k.NUM_MASKS), np.uint64)
        self._stock = np.zeros((n, 52), np.int8)
        self._pile = np.zeros((n, 52), np.int8)
        self._legal = np.zeros((n, k.LEGAL_WORDS), np.uint64)
        self._ints[:, k.ENDED] = k.TERMINATED  # no hand dealt yet
        cfg = np.zeros(k.NUM_CFG, np.int64)
        cfg[k.C_PLAYERS] = c.num_players
        cfg[k.C_HAND_SIZE] = c.hand_size
        cfg[k.C_ACE_HIGH] = c.ace_high
        cfg[k.C_KEEP_TOP] = c.reshuffle == "keep_top"
        cfg[k.C_MAX_TURNS] = c.max_turns
        cfg[k.C_SCORE_REWARD] = c.reward == "score"
        self._cfg = cfg
        self._no_actions = np.zeros(n, np.int64)

    @property
    def scores(self) -> np.ndarray:
        """Game totals of every game's current (or just ended) hand: int64 ``(num_envs, num_players)``."""
        return self._ints[:, k.SCORE : k.SCORE + self.num_players].astype(np.int64)

    def state_bytes_per_game(self) -> int:
        """Bytes of simulator state per game (the output buffers not included)."""
        arrays = (self._ints, self._masks, self._stock, self._pile, self._legal, self._decks, self._dealers)
        return sum(a.nbytes for a in arrays) // self.num_envs + 16  # + the two random streams

    def _reset_games(self, decks: np.ndarray, given: np.ndarray, dealers: np.ndarray, out: Batch) -> None:
        if given.any():
            self._decks[:] = decks
        self._dealers[:] = dealers
        kernel = k.reset_parallel if self._parallel() else k.reset_serial
        kernel(
            self._ints, self._masks, self._stock, self._pile, self._legal, self._decks, self._dealers, given,
            self._deal_rng, self._cfg, *out[:3], out.rewards, out.terminated, out.truncated,
        )  # fmt: skip

    def _illegal_game(self, actions: np.ndarray) -> int:
        return int(first_illegal(self._ints[:, k.ENDED], self._legal, actions, self.num_actions))

    def _step(self, actions: np.ndarray, random: bool, out: Batch) -> None:
        kernel = k.step_parallel if self._parallel() else k.step_serial
        kernel(
            self._ints, self._masks, self._stock, self._pile, self._legal, self._decks, self._dealers, actions,
            random, self._deal_rng, self._action_rng, self._cfg, *out[:3], out.rewards, out.terminated,
            out.truncated,
        )  # fmt: skip

    def _step_games(self, actions: np.ndarray, out: Batch) -> None:
        self._step(actions, False, out)

    def _step_random_games(self, out: Batch) -> None:
        self._step(self._no_actions, True, out)

    def _step_opponents_games(self, seats: np.ndarray, out: Batch) -> None:
        kernel = k.opponents_parallel if self._parallel() else k.opponents_serial
        kernel(
            seats, self._ints, self._masks, self._stock, self._pile, self._legal, self._action_rng, self._cfg,
            *out[:3], out.rewards, out.terminated, out.truncated,
        )  # fmt: skip
