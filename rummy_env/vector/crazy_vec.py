"""``CrazyRummyVec``: batched Crazy Rummy rounds and games on the numba kernel (``vector.crazy_batch_kernel``)."""

from __future__ import annotations

import numpy as np

from rummy_env.encoding import crazy_rummy as crazy_encoding
from rummy_env.games.crazy_rummy import CrazyRummyGame
from rummy_env.games.crazy_rummy import actions as crazy_actions
from rummy_env.vector import crazy_batch_kernel, crazy_world
from rummy_env.vector import crazy_kernel as k
from rummy_env.vector.crazy_wild import GivenWildRanks
from rummy_env.vector.gin_vec import KernelVec
from rummy_env.vector.whole_games import WholeGames


class CrazyRummyVec(GivenWildRanks, WholeGames, KernelVec):
    """``num_envs`` Crazy Rummy episodes (one round, or with ``episode="game"`` the 13
    rounds of a game) stepped together (rules ``docs/rules/crazy_rummy.md``).

    The API is :class:`~rummy_env.vector.batch.VecBase`'s; observations, masks
    (R-CRAZY-08a look-ahead included), rewards and terminations are those of
    ``crazy_rummy_v0.env(**env_options)`` with the same deal and actions (the
    differential tests check it), and the same seed gives the games of
    :class:`~rummy_env.vector.ReferenceCrazyRummyVec`.  A one-round episode's wild rank
    is the ``wild_rank`` option's or drawn from the game's deal stream; ``deal_of(i)``
    includes it (``{"deck", "dealer", "wild_rank"}``, ``env.reset(options=...)``'s keys).
    ``reset(decks=..., dealers=..., wild_ranks=...)`` stacks recorded deals, rounds included
    (``crazy_wild``).
    With ``episode="game"`` a game plays rounds 1..13 (wild ranks A..K, the dealer moving
    left, R-CRAZY-02, 13; cut after ``max_hands`` rounds), the later rounds dealt from the
    game's deal stream within the step that ends a round (``vector.whole_games``), and
    ``deal_of(i)`` is ``{"deck", "dealer", "next_hands"}``.

    Args:
        num_envs: games, >= 1.
        seed: int 0..2**64-1 (``batch.MAX_SEED``).
        num_threads: threads for the kernels; None: numba's default.
        backend: ``"threads"`` or ``"prange"`` (see ``gin_vec.KernelVec``).
        **env_options: ``crazy_rummy_v0.env`` options (``num_players`` 3..6,
            ``wild_rank`` 1..13, ``reward``, ``max_turns``, ``episode``, ``max_hands``).

    Raises:
        ValueError: a bad argument or option.
    """

    variant = "crazy_rummy_v0"
    compile_what = "the Crazy Rummy kernel"
    game_class = CrazyRummyGame
    actions = crazy_actions
    encoder = crazy_encoding
    kernel = crazy_batch_kernel

    def _allocate(self) -> None:
        super()._allocate()
        self._ints, self._masks, self._stock, self._pile, self._legal = crazy_world.arrays(self.num_envs)
        self._ints[:, k.ENDED] = k.TERMINATED  # no hand dealt yet
        self._cfg = crazy_world.config_vector(self.config)
        self._no_actions = np.zeros(self.num_envs, np.int64)

    @property
    def scores(self) -> np.ndarray:
        """Penalty totals of every game's current (or just ended) episode (one round, or
        the rounds of a game so far): int64 ``(num_envs, num_players)`` (the engine's ``scores``)."""
        return self._ints[:, k.TOTAL : k.TOTAL + self.num_players].astype(np.int64)

    @property
    def hands_played(self) -> np.ndarray:
        """Rounds finished in every game's current (or just ended) episode: int64 ``(num_envs,)``
        (the engine's ``hands_played``: one-round episodes 1 once the round has ended; a whole
        game is in round ``WILD_RANK + 1``, ``crazy_batch_kernel``)."""
        ended = (self._ints[:, k.ENDED] != k.LIVE).astype(np.int64)
        if self.config.episode == "game":
            return self._ints[:, k.WILD_RANK].astype(np.int64) + ended
        return ended

    def _reset_extras(self) -> tuple:
        given = self._wild_given
        return (given if given is not None else np.full(self.num_envs, -1, np.int64),)

    def _state_args(self) -> tuple:
        return self._ints, self._masks, self._stock, self._pile, self._legal, self._decks, self._dealers

    def _deal_extras(self, i: int) -> dict:
        if self.config.episode == "game":  # a game plays the wild ranks in order (R-CRAZY-02)
            return {}
        return {"wild_rank": int(self._ints[i, k.WILD_RANK]) + 1}
