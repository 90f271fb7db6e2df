"""``GinRummyVec``: batched Gin Rummy on the numba kernel (``vector.gin_kernel``)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import Any

import numba
import numpy as np

from rummy_env.core.compile_notice import compile_notice
from rummy_env.encoding import gin_rummy as gin_encoding
from rummy_env.games.gin_rummy import GinRummyGame
from rummy_env.games.gin_rummy import actions as gin_actions
from rummy_env.vector import gin_kernel as k
from rummy_env.vector import gin_world
from rummy_env.vector.batch import Batch, VecBase
from rummy_env.vector.bits import first_illegal
from rummy_env.vector.whole_games import WholeGames


class KernelVec(VecBase):
    """What the compiled batches share: the kernel module's drivers and the threads.

    A kernel module has, per entry point (``reset``, ``step``, ``opponents``), a
    ``<name>_range(lo, hi, *args)`` driver (serial over games ``lo..hi-1``, compiled
    ``nogil``) and a ``<name>_parallel(*args)`` driver (numba ``prange`` over all
    games).  ``backend="threads"`` (default) runs the range driver on ``threads_used()``
    Python threads, one slice of games each: they never wait for one another, which
    keeps a loaded machine's throughput.  ``backend="prange"`` calls the ``prange``
    driver (numba's OpenMP or TBB pool, whose spinning barrier wastes time when other
    processes hold the cores).
    """

    kernel: Any = None  #: the variant's kernel module
    compile_what = "a batched kernel"  #: how the compile notice names it (``core.compile_notice``)
    #: below this many games per thread, a call runs on the calling thread alone (a
    #: parallel call's start-up costs more than it saves)
    games_per_thread = 128

    def _allocate(self) -> None:
        super()._allocate()
        self._pool: ThreadPoolExecutor | None = None

    def threads_used(self) -> int:
        """Threads a kernel call runs on: ``num_threads`` (None: numba's default),
        at most ``NUMBA_NUM_THREADS`` and one per ``games_per_thread`` games."""
        threads = numba.config.NUMBA_NUM_THREADS if self.num_threads is None else self.num_threads
        return max(1, min(threads, numba.config.NUMBA_NUM_THREADS, self.num_envs // self.games_per_thread))

    def _call(self, name: str, *args: Any) -> None:
        """Run entry point ``name`` of the kernel module over every game (its first call
        in a process says so on stderr if numba compiles it: ``core.compile_notice``)."""
        with compile_notice(self.compile_what, call=f"{self.kernel.__name__}.{name}"):
            self._run(name, *args)

    def _run(self, name: str, *args: Any) -> None:
        n, threads = self.num_envs, self.threads_used()
        ranged = getattr(self.kernel, f"{name}_range")
        if threads < 2:
            ranged(0, n, *args)
        elif self.backend == "prange":
            numba.set_num_threads(threads)
            getattr(self.kernel, f"{name}_parallel")(*args)
        else:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(threads, thread_name_prefix="rummy-vec")
            jobs = [self._pool.submit(ranged, n * t // threads, n * (t + 1) // threads, *args) for t in range(threads)]
            for job in jobs:
                job.result()

    def close(self) -> None:
        """Stop the worker threads (they also stop with the interpreter)."""
        if self._pool is not None:
            self._pool.shutdown()
            self._pool = None

    def _step_games(self, actions: np.ndarray, out: Batch) -> None:
        self._call("step", *self._state_args(), actions, False, self._deal_rng, self._action_rng, self._cfg, *out)

    def _step_random_games(self, out: Batch) -> None:
        self._call(
            "step", *self._state_args(), self._no_actions, True, self._deal_rng, self._action_rng, self._cfg, *out
        )

    def _reset_games(self, decks: np.ndarray, given: np.ndarray, dealers: np.ndarray, out: Batch) -> None:
        if given.any():
            self._decks[:] = decks
        self._dealers[:] = dealers
        self._call("reset", *self._state_args(), given, *self._reset_extras(), self._deal_rng, self._cfg, *out)

    def _reset_extras(self) -> tuple:
        """Arguments of the kernel's reset after ``given`` (a variant's; Crazy Rummy: the
        given wild ranks)."""
        return ()

    def _step_opponents_games(self, seats: np.ndarray, out: Batch) -> None:
        self._call("opponents", seats, *self._state_args(), self._deal_rng, self._action_rng, self._cfg, *out)

    def _illegal_game(self, actions: np.ndarray) -> int:
        return int(first_illegal(self._ints[:, self.kernel.ENDED], self._legal, actions, self.num_actions))

    def _episode_over(self) -> np.ndarray:
        return self._ints[:, self.kernel.ENDED] != self.kernel.LIVE

    def _acting_seat(self, i: int) -> int:
        return int(self._ints[i, self.kernel.CUR])

    @property
    def hands_played(self) -> np.ndarray:
        """Hands finished in every game's current (or just ended) episode: int64 ``(num_envs,)``
        (the engine's ``hands_played``)."""
        return self._ints[:, self.kernel.HANDS].astype(np.int64)

    def _state_args(self) -> tuple:
        """The state arrays in the kernel's argument order, ending with decks, dealers."""
        raise NotImplementedError

    def kernel_arrays(self) -> tuple:
        """The kernel's state arrays (the games' live state, not copies), in the kernel's
        argument order ending with ``decks, dealers``, for compiled readers of the same rows
        (``agents.search.gin_fast``, ``rummy_fast``).  Read them only: a write changes the
        games behind the engine's back.

        Gin: ``(ints int32 (n, NUM_INTS), masks uint64 (n, NUM_MASKS), pile int8 (n, 52),
        legal uint64 (n, 2), decks int8 (n, 52), dealers int8 (n,))``, ``n`` = ``num_envs``;
        Rummy and Crazy Rummy add ``stock`` int8 ``(n, 52)`` after ``masks`` and have ``legal``
        uint64 ``(n, LEGAL_WORDS)``.  The constants are those of ``gin_kernel``,
        ``rummy_kernel`` or ``crazy_kernel``."""
        return self._state_args()

    def kernel_config(self) -> np.ndarray:
        """The kernel's config vector (not a copy), int64 ``(NUM_CFG,)`` indexed by the ``C_*``
        constants of ``gin_kernel``, ``rummy_kernel`` or ``crazy_kernel``."""
        return self._cfg

    def state_bytes_per_game(self) -> int:
        """Bytes of simulator state per game (the output buffers not included)."""
        arrays = (*self._state_args(), self._deal_rng, self._action_rng)
        return sum(a.nbytes for a in arrays) // self.num_envs


class GinRummyVec(WholeGames, KernelVec):
    """``num_envs`` Gin Rummy games stepped together (rules ``docs/rules/gin_rummy.md``).

    The API is :class:`~rummy_env.vector.batch.VecBase`'s; observations, masks,
    rewards and terminations are those of ``gin_rummy_v0.env(**env_options)`` with the
    same deal and actions (the differential tests check it), and the same seed gives the
    games of :class:`~rummy_env.vector.ReferenceGinRummyVec`.

    Args:
        num_envs: games, >= 1.
        seed: int 0..2**64-1 (``batch.MAX_SEED``).
        num_threads: threads for the kernels (at most ``NUMBA_NUM_THREADS``, one per
            128 games); None: numba's default (all cores).
        backend: ``"threads"`` or ``"prange"`` (see :class:`KernelVec`).
        **env_options: ``gin_rummy_v0.env`` options; with ``episode="game"`` each
            episode is a whole game (``vector.whole_games``).

    Raises:
        ValueError: a bad argument or option.
    """

    variant = "gin_rummy_v0"
    compile_what = "the Gin Rummy kernel"
    game_class = GinRummyGame
    actions = gin_actions
    encoder = gin_encoding
    kernel = k

    def _allocate(self) -> None:
        super()._allocate()
        n, c = self.num_envs, self.config
        self._ints = np.zeros((n, k.NUM_INTS), np.int32)
        self._masks = np.zeros((n, k.NUM_MASKS), np.uint64)
        self._pile = np.zeros((n, 52), np.int8)
        self._legal = np.zeros((n, 2), np.uint64)
        self._ints[:, k.ENDED] = k.TERMINATED  # no hand dealt yet
        self._cfg = gin_world.config_vector(c, whole_games=True)
        self._no_actions = np.zeros(n, np.int64)

    @property
    def scores(self) -> np.ndarray:
        """Game totals of every game's current (or just ended) episode, end-of-game bonuses
        included: int64 ``(num_envs, 2)`` (the engine's ``scores``)."""
        return self._ints[:, k.SCORE : k.SCORE + 2].astype(np.int64)

    @property
    def hands_won(self) -> np.ndarray:
        """Hands won by each seat in every game's current (or just ended) episode: int64
        ``(num_envs, 2)`` (the engine's ``hands_won``)."""
        return self._ints[:, k.WON : k.WON + 2].astype(np.int64)

    def _state_args(self) -> tuple:
        return self._ints, self._masks, self._pile, self._legal, self._decks, self._dealers
