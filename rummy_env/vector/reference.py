"""The pure-Python batch: one ``raw_env`` per game behind the batch API.

This is the judge of the differential tests and a drop-in stand-in for the compiled
engines (same constructor, same methods, same random streams, so the same seed gives
the same games, observations and random actions): develop against it without numba,
switch to :class:`~rummy_env.vector.GinRummyVec` / :class:`~rummy_env.vector.RummyVec` /
:class:`~rummy_env.vector.CrazyRummyVec` for speed.  Each game is the variant's
PettingZoo ``raw_env`` (the engine plus its encoder), reset with the recorded deal
and stepped with the same action ids; a batch step reads ``observe``, ``rewards``,
``terminations`` and ``truncations`` exactly as an ``env()`` user does.  About 50k decisions per second.

With ``episode="game"`` the later hands come from the game's deal stream too
(``vector.whole_games``): whenever a hand is dealt, the next hand's deal is read from a
copy of the stream and stacked in the engine (``state.stack_next_hands``), and the
stream is advanced when the engine deals it (it is not if the game ends first), so the
engine deals exactly what the kernels deal.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rummy_env.core.cards import card_str
from rummy_env.envs.crazy_rummy import raw_env as crazy_raw_env
from rummy_env.envs.gin_rummy import raw_env as gin_raw_env
from rummy_env.envs.rummy import raw_env as rummy_raw_env
from rummy_env.vector.batch import (
    Batch,
    VecBase,
    draw_dealer,
    draw_deck,
    draw_wild_rank,
    next64,
)
from rummy_env.vector.crazy_wild import GivenWildRanks
from rummy_env.vector.whole_games import WholeGames


class ReferenceVec(VecBase):
    """A batch of ``raw_env`` games (see the module docstring); subclasses name the variant.

    ``num_threads`` and ``backend`` are checked as the compiled engine checks them and then
    unused: the games run one after another on the calling thread.

    Raises:
        ValueError: a bad option, ``num_envs``, ``seed`` or ``num_threads`` (``VecBase``), or
            a ``backend`` the compiled twin refuses.
    """

    raw_env: Any = None  #: the variant's ``raw_env`` class, one per game

    @property
    def game_class(self) -> Any:
        """The env's game class (``VecBase`` validates the options with its config class)."""
        return self.raw_env.game_class

    @property
    def actions(self) -> Any:
        """The env's actions module."""
        return self.raw_env.actions

    @property
    def encoder(self) -> Any:
        """The env's encoding module."""
        return self.raw_env.encoder

    def _allocate(self) -> None:
        super()._allocate()
        self._envs = [self.raw_env(**self.env_options) for _ in range(self.num_envs)]
        self._masks = np.zeros((self.num_envs, self.num_actions), np.int8)  # the engine's own copy
        self._hands_seen = np.zeros(self.num_envs, np.int64)  # hands finished when last looked (episode="game")

    def threads_used(self) -> int:
        """Threads a call runs on: always 1 (the compiled engines' method, for a drop-in swap)."""
        return 1

    def close(self) -> None:
        """Nothing to stop (the compiled engines' method, for a drop-in swap)."""

    # ------------------------------------------------------------ one game
    def _deal(self, i: int, deck: list[int] | None, dealer: int) -> None:
        if deck is None:
            deck = draw_deck(self._deal_rng, i)
        if dealer < 0:
            dealer = draw_dealer(self._deal_rng, i, self.num_players)
        self._decks[i] = deck
        self._dealers[i] = dealer
        options = {"deck": [card_str(c) for c in deck], "dealer": int(dealer), **self._draw_extras(i)}
        if self.config.episode == "game":
            options["next_hands"] = self._peek_next_hand(i, 1)
            self._hands_seen[i] = 0
        self._envs[i].reset(seed=0, options=options)

    def _draw_extras(self, i: int) -> dict:
        """Reset options of game ``i``'s new hand besides deck and dealer, drawn from its
        deal stream after them (a variant's)."""
        return {}

    def _peek_next_hand(self, i: int, dealt: int) -> list[dict]:
        """The next hand's deal read from a copy of game ``i``'s deal stream, as a
        ``next_hands`` list; [] when ``dealt`` hands are all the game may deal."""
        if dealt >= self._envs[i].unwrapped.game.max_game_hands():
            return []
        return [self._later_deal(self._deal_rng[i : i + 1].copy())]

    def _follow_hands(self, i: int) -> None:
        """After a step of game ``i``: if the engine dealt the game's next hand (the
        stacked one), advance the deal stream past it and stack the one after."""
        state = self._envs[i].unwrapped.game_state
        if state.hands_played == self._hands_seen[i]:
            return
        self._hands_seen[i] = state.hands_played
        if state.is_terminal():
            return
        self._later_deal(self._deal_rng[i : i + 1])  # the deal the engine just used
        self._decks[i] = state.hand_decks[-1]
        self._dealers[i] = self._hand_starter(state)
        state.stack_next_hands(self._peek_next_hand(i, state.hands_played + 1))

    @staticmethod
    def _hand_starter(state: Any) -> int:
        """The seat the engine's new hand is dealt by (Rummikub: the first player)."""
        return state.dealer

    def _write(self, i: int, out: Batch, seat: int, rewards: list[float], terminated: bool, truncated: bool) -> None:
        env = self._envs[i]
        view = env.observe(env.possible_agents[seat])
        out.observation[i] = view["observation"]
        out.action_mask[i] = view["action_mask"]
        self._masks[i] = view["action_mask"]
        out.current_player[i] = seat
        out.rewards[i] = rewards
        out.terminated[i] = terminated
        out.truncated[i] = truncated

    def _first(self, i: int, out: Batch) -> None:
        env = self._envs[i]
        self._write(i, out, env.agent_name_mapping[env.agent_selection], [0.0] * self.num_players, False, False)

    def _move(self, i: int, action: int, out: Batch) -> None:
        if self._done[i]:
            self._done[i] = False
            self._deal(i, None, -1)
            self._first(i, out)
            return
        env = self._envs[i]
        agent = env.agent_selection
        env.step(action)
        if self.config.episode == "game":
            self._follow_hands(i)
        rewards = [float(env.rewards[a]) for a in env.possible_agents]
        terminated = bool(env.terminations[agent])
        truncated = bool(env.truncations[agent])
        if terminated or truncated:
            self._done[i] = True
            self._write(i, out, env.agent_name_mapping[agent], rewards, terminated, truncated)
        else:
            self._write(i, out, env.agent_name_mapping[env.agent_selection], rewards, False, False)

    # ------------------------------------------------------------ VecBase
    def _reset_games(self, decks: np.ndarray, given: np.ndarray, dealers: np.ndarray, out: Batch) -> None:
        for i in range(self.num_envs):
            self._deal(i, [int(c) for c in decks[i]] if given[i] else None, int(dealers[i]))
            self._first(i, out)

    def _illegal_game(self, actions: np.ndarray) -> int:
        for i in range(self.num_envs):
            if self._done[i]:
                continue
            a = int(actions[i])
            if not 0 <= a < self.num_actions or not self._masks[i, a]:
                return i
        return -1

    def _acting_seat(self, i: int) -> int:
        env = self._envs[i]
        return int(env.agent_name_mapping[env.agent_selection])

    def _step_games(self, actions: np.ndarray, out: Batch) -> None:
        for i in range(self.num_envs):
            self._move(i, int(actions[i]), out)

    def _step_random_games(self, out: Batch) -> None:
        for i in range(self.num_envs):
            action = -1
            if not self._done[i]:
                legal = np.flatnonzero(self._masks[i])
                action = int(legal[next64(self._action_rng, i) % legal.size])
            self._move(i, action, out)

    def _step_opponents_games(self, seats: np.ndarray, out: Batch) -> None:
        for i in range(self.num_envs):
            if self._done[i]:
                continue
            env = self._envs[i]
            total = np.zeros(self.num_players, np.float32)
            moved = ended = truncated = False
            while env.agent_name_mapping[env.agent_selection] != seats[i]:
                legal = np.flatnonzero(self._masks[i])
                agent = env.agent_selection
                env.step(int(legal[next64(self._action_rng, i) % legal.size]))
                if self.config.episode == "game":
                    self._follow_hands(i)
                total += np.array([env.rewards[a] for a in env.possible_agents], np.float32)
                moved = True
                ended, truncated = bool(env.terminations[agent]), bool(env.truncations[agent])
                if ended or truncated:
                    self._done[i] = True
                    break
                self._masks[i] = env.observe(env.agent_selection)["action_mask"]
            if moved:
                self._write(i, out, int(seats[i]), out.rewards[i] + total, ended, truncated)

    def _episode_over(self) -> np.ndarray:
        return self._done.copy()

    @property
    def scores(self) -> np.ndarray:
        """Game totals of every game's current (or just ended) episode: int64 ``(num_envs, num_players)``."""
        return np.array([env.game_state.scores for env in self._envs], dtype=np.int64)

    @property
    def hands_played(self) -> np.ndarray:
        """Hands finished in every game's current (or just ended) episode: int64 ``(num_envs,)``."""
        return np.array([env.game_state.hands_played for env in self._envs], dtype=np.int64)


class ReferenceGinRummyVec(WholeGames, ReferenceVec):
    """Gin Rummy games through ``gin_rummy_v0.raw_env``; the API of ``GinRummyVec``."""

    variant = "gin_rummy_v0"
    raw_env = gin_raw_env

    @property
    def hands_won(self) -> np.ndarray:
        """Hands won by each seat in every game's current (or just ended) episode: int64 ``(num_envs, 2)``."""
        return np.array([env.game_state.hands_won for env in self._envs], dtype=np.int64)


class ReferenceCrazyRummyVec(GivenWildRanks, WholeGames, ReferenceVec):
    """Crazy Rummy one-round episodes or whole games (3-6 players) through
    ``crazy_rummy_v0.raw_env``; the API of ``CrazyRummyVec``.  A one-round episode's wild
    rank comes from the ``wild_rank`` option or the game's deal stream
    (``batch.draw_wild_rank``) and is part of ``deal_of``; a game's rounds play the wild
    ranks in order; ``reset(wild_ranks=...)`` gives the first episodes' (``crazy_wild``)."""

    variant = "crazy_rummy_v0"
    raw_env = crazy_raw_env

    def _draw_extras(self, i: int) -> dict:
        if self.config.episode == "game":
            return {}
        if self._wild_given is not None:  # reset(wild_ranks=...): nothing drawn, as in the kernel
            return {"wild_rank": int(self._wild_given[i]) + 1}
        rank = self.config.wild_rank
        return {"wild_rank": rank if rank is not None else draw_wild_rank(self._deal_rng, i)}

    def _deal_extras(self, i: int) -> dict:
        if self.config.episode == "game":
            return {}
        return {"wild_rank": self._envs[i].game_state.round}


class ReferenceRummyVec(WholeGames, ReferenceVec):
    """Basic Rummy games (2-6 players) through ``rummy_v0.raw_env``; the API of ``RummyVec``."""

    variant = "rummy_v0"
    raw_env = rummy_raw_env
