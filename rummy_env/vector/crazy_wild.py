"""Per-game wild ranks at ``reset`` for the two batched Crazy Rummy engines.

Why: ``deal_of(i)`` of a one-round episode gives ``{"deck", "dealer", "wild_rank"}``, and
``crazy_rummy_v0`` takes all three as reset options; without a wild rank per game a batch
could stack a recorded deal's cards and dealer but not its round.  The compiled engine
passes the ranks to its kernel's reset, the reference engine to each env's reset options.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rummy_env.games.options import check_int_entries
from rummy_env.vector.batch import Batch
from rummy_env.vector.streams import SeedArg


class GivenWildRanks:
    """Mixin before ``WholeGames`` in ``CrazyRummyVec`` and ``ReferenceCrazyRummyVec``: the
    ``wild_ranks`` argument of :meth:`reset`, checked, then held for the engine's deal
    (``self._wild_given``: int64 ``(num_envs,)`` rank indexes 0..12 during a reset that
    gives them, else None)."""

    _wild_given: np.ndarray | None = None

    def reset(
        self,
        seed: SeedArg = None,
        decks: Any = None,
        dealers: Any = None,
        out: Batch | None = None,
        wild_ranks: Any = None,
    ) -> Batch:
        """Deal a new episode (its first round) in every game.

        Args:
            seed, decks, dealers, out: as :meth:`rummy_env.vector.batch.VecBase.reset`
                (``seed``: an int, None, or ``num_envs`` ints and None, one per game; the
                engine's ``seed`` attribute then holds the int or that tuple).
            wild_ranks: int array ``(num_envs,)`` of wild ranks 1..13 (A..K), the round of
                each game's first episode (R-CRAZY-02), as ``deal_of(i)["wild_rank"]``
                gives them; None: the ``wild_rank`` option's, else drawn from the deal
                streams (a given rank draws nothing).  Later episodes draw theirs.  Only
                with ``episode="hand"``; with the ``wild_rank`` option set every rank must
                equal it (as ``crazy_rummy_v0``'s reset option).

        Returns:
            the first step of every game (rewards 0, not terminated).

        Raises:
            ValueError: a bad seed, deck, dealer, wild rank or ``out``; the games are
                unchanged.
        """
        given = self._check_wild_ranks(wild_ranks)
        self._wild_given = given
        try:
            return super().reset(seed=seed, decks=decks, dealers=dealers, out=out)
        finally:
            self._wild_given = None

    def _check_wild_ranks(self, wild_ranks: Any) -> np.ndarray | None:
        """``wild_ranks`` as int64 rank indexes 0..12, or None.

        Raises:
            ValueError: not ``num_envs`` integers 1..13, given with ``episode="game"``, or
                one that differs from the ``wild_rank`` option (naming the first bad game).
        """
        if wild_ranks is None:
            return None
        if self.config.episode == "game":
            raise ValueError(
                "wild_ranks is for episode='hand': a whole game plays the wild ranks A..K in order (R-CRAZY-02)"
            )
        ranks = check_int_entries("wild_ranks", wild_ranks, "wild ranks are 1..13 (A..K), one per game")
        if ranks.shape != (self.num_envs,) or not (
            np.issubdtype(ranks.dtype, np.integer) and not np.issubdtype(ranks.dtype, np.bool_)
        ):
            raise ValueError(
                f"wild_ranks must be {self.num_envs} integers 1..13 (one per game), "
                f"got shape {ranks.shape} and dtype {ranks.dtype}"
            )
        bad = np.flatnonzero((ranks < 1) | (ranks > 13))
        if bad.size:
            rank, game = int(ranks[bad[0]]), int(bad[0])
            raise ValueError(f"wild rank {rank} of game {game} is not a rank: ranks are 1..13 (A..K)")
        fixed = self.config.wild_rank
        if fixed is not None:
            bad = np.flatnonzero(ranks != fixed)
            if bad.size:
                raise ValueError(
                    f"wild rank {int(ranks[bad[0]])} of game {int(bad[0])} differs from the wild_rank option "
                    f"{fixed}: with the option set every game plays round {fixed}"
                )
        return ranks.astype(np.int64) - 1
