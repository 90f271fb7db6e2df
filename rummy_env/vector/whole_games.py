"""Whole games (``episode="game"``) in a batched engine: what does not depend on how the
hands are simulated.

A game's hands are played one after another in its row: the simulator scores each hand
into the game as the engine does, and when the game goes on it deals the next hand
from the game's deal stream within the same step, as ``env()`` does (the step that ends
a hand returns that hand's rewards and the first view of the next hand; only the end
of the game terminates or truncates the episode, and the next step autoresets).
:class:`WholeGames` records what ``env()`` needs to replay a game: the first hand's deal
and the later hands' deals, ``deal_of(i)["next_hands"]`` (the reset option of every
env, ``EngineState.stack_next_hands``).

Deal streams.  A game's first hand draws its deck then its dealer from the game's deal
stream (unless ``reset`` stacked them); each later hand draws exactly
``later_hand_draws`` outputs (card variants: the 51 draws of the Fisher-Yates shuffle
of ``batch.draw_deck``), and nothing else draws from the stream until the game ends.
The later deals are therefore read back from the stream itself: splitmix64's state is a
counter, so stepping it back ``(hands dealt - 1) * later_hand_draws`` outputs and
drawing forward again gives every later deal, with no per-hand record in the kernel.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rummy_env.core.cards import NUM_CARDS, card_str
from rummy_env.vector.batch import GOLDEN, MASK64, Batch, VecBase, draw_deck
from rummy_env.vector.streams import SeedArg


class WholeGames:
    """Mixin of a batched engine (put it before the ``VecBase`` subclass) that plays
    ``episode="game"``; the engine provides ``hands_played`` (int64 ``(num_envs,)``) and
    ``_episode_over()`` (bool ``(num_envs,)``: the episode ended at the row's last step).

    A variant whose later hands draw something else than one card shuffle (Rummikub: a
    first player and a tile shuffle) overrides :attr:`later_hand_draws` and
    :meth:`_later_deal`.
    """

    whole_games = True  #: ``VecBase`` accepts ``episode="game"``
    later_hand_draws = NUM_CARDS - 1  #: deal-stream outputs a later hand draws

    def _allocate(self) -> None:
        super()._allocate()
        # the first hand's deal of each row's current game (later hands overwrite ``_decks``)
        self._first_decks = np.zeros_like(self._decks)
        self._first_dealers = np.zeros_like(self._dealers)

    # The engine provides (the mixin comes first in the bases, so it defines neither):
    #   hands_played: int64 (num_envs,), hands finished in each row's current game;
    #   _episode_over() -> bool (num_envs,): the row's episode ended at its last step.

    def _later_deal(self, stream: np.ndarray) -> dict:
        """One later hand's deal drawn from the one-game stream ``stream[0]`` (advanced by
        :attr:`later_hand_draws` outputs), as ``next_hands`` holds it."""
        return {"deck": [card_str(c) for c in draw_deck(stream, 0)]}

    # ------------------------------------------------------------------- API
    # the engines' signatures and docstrings: the mixin comes first in their bases, so its
    # methods are the ones users reach; help() shows VecBase's full docstrings (copied
    # below), the docs site, which reads the source, these summaries
    def reset(self, seed: SeedArg = None, decks: Any = None, dealers: Any = None, out: Batch | None = None) -> Batch:
        """Deal every game again (as :meth:`rummy_env.vector.batch.VecBase.reset`) and keep
        the first deals that :meth:`deal_of` replays."""
        out = super().reset(seed=seed, decks=decks, dealers=dealers, out=out)
        self._first_decks[:] = self._decks
        self._first_dealers[:] = self._dealers
        return out

    def step(self, actions: Any, out: Batch | None = None) -> Batch:
        """One action per game (as :meth:`rummy_env.vector.batch.VecBase.step`), keeping the
        first deals of the games that start anew."""
        starting = self._episode_over() if self.config.episode == "game" else None
        out = super().step(actions, out=out)
        self._record_first_deals(starting)
        return out

    def step_random(self, out: Batch | None = None) -> Batch:
        """A uniformly random legal action per game (as
        :meth:`rummy_env.vector.batch.VecBase.step_random`), keeping the first deals of the
        games that start anew."""
        starting = self._episode_over() if self.config.episode == "game" else None
        out = super().step_random(out=out)
        self._record_first_deals(starting)
        return out

    reset.__doc__, step.__doc__, step_random.__doc__ = (
        VecBase.reset.__doc__,
        VecBase.step.__doc__,
        VecBase.step_random.__doc__,
    )

    def deal_of(self, i: int) -> dict:
        """The reset options that replay game ``i`` in ``env()`` with the same actions: with
        ``episode="hand"`` its hand's ``{"deck", "dealer"}`` (Crazy Rummy: and its
        ``"wild_rank"``, 1..13; Rummikub: ``"first_player"``); with ``episode="game"`` its
        first hand's ``"deck"`` and ``"dealer"`` plus ``"next_hands"``, the deals of its
        later hands so far (``[{"deck": [52 card strings]}, ...]``, hand 2 first).  After
        the step that ends an episode it is still that episode's game.

        Raises:
            ValueError: ``i`` is not a game index.
            RuntimeError: before ``reset``, or the game's deal stream does not replay its
                later hands (an internal inconsistency, never expected).
        """
        deal = super().deal_of(i)
        if self.config.episode != "game":
            return deal
        i = int(i)
        later = int(self.hands_played[i]) - (1 if self._episode_over()[i] else 0)
        stream = np.array([(int(self._deal_rng[i]) - later * self.later_hand_draws * GOLDEN) & MASK64], np.uint64)
        next_hands = [self._later_deal(stream) for _ in range(later)]
        if stream[0] != self._deal_rng[i]:  # the protocol of the module docstring was broken
            raise RuntimeError(f"game {i}'s deal stream does not replay its {later} later hands")
        first = {"deck": [card_str(int(c)) for c in self._first_decks[i]], "dealer": int(self._first_dealers[i])}
        return {**first, "next_hands": next_hands}

    # ---------------------------------------------------------------- record
    def _record_first_deals(self, starting: np.ndarray | None) -> None:
        """Keep the first deal of the games that started at this step (an autoreset)."""
        if starting is not None and starting.any():
            self._first_decks[starting] = self._decks[starting]
            self._first_dealers[starting] = self._dealers[starting]
