"""Options of basic Rummy (``docs/rules/rummy.md``)."""

from __future__ import annotations

from dataclasses import dataclass

from rummy_env.games.options import (
    EPISODES,
    MAX_LIMIT,
    REWARDS,
    OptionNames,
    check_bool,
    check_choice,
    check_int,
)
from rummy_env.games.rummy.deal import hand_size

#: R-RUMMY-12 reshuffle readings: the first source keeps the top discard and turns the rest
#: over; the second source turns the whole pile over.
RESHUFFLES = ("keep_top", "whole_pile")


@dataclass(frozen=True)
class RummyConfig(OptionNames):
    """Options of a basic Rummy game; every field is validated on construction.

    Attributes:
        num_players: 2..6 (R-RUMMY-02).
        ace_high: also allow Q-K-A runs (R-RUMMY-01); never K-A-2.
        reshuffle: what happens when the stock runs out (R-RUMMY-12): ``"keep_top"``
            (default; the rules' first source) keeps the top discard and turns the rest
            of the pile over, ``"whole_pile"`` (the second source) turns the whole pile.
        two_player_winner_deals: with 2 players the hand's winner deals next
            (R-RUMMY-04, the second source); otherwise the deal passes to the left.
            Only with ``num_players=2``.
        target_score: points that end the game (R-RUMMY-17), 1..10**9 (``MAX_LIMIT``).
        max_turns: turns after which a hand ends with no winner (R-RUMMY-13), 1..10**9 (``MAX_LIMIT``):
            with ``episode="hand"`` the episode is truncated; with ``episode="game"``
            the next hand is dealt.
        max_hands: with ``episode="game"``, hands after which a game no one has won
            yet is truncated (R-RUMMY-13's game-level limit), 1..10**9; default 1000 (random
            play of 2 players needs 10 hands on average, at most 17 in 200 games).
        episode: ``"hand"`` (one hand) or ``"game"`` (hands until ``target_score``).
        reward: ``"win"`` (+1 / -1/(n-1) at the episode's end) or ``"score"`` (the
            hand's points, zero-sum, at each hand's end).

    Raises:
        ValueError: a value of the wrong type or out of range, naming the option.
    """

    num_players: int = 2
    ace_high: bool = False
    reshuffle: str = "keep_top"
    two_player_winner_deals: bool = False
    target_score: int = 100
    max_turns: int = 1000
    max_hands: int = 1000
    episode: str = "hand"
    reward: str = "win"

    def __post_init__(self) -> None:
        object.__setattr__(self, "num_players", check_int("num_players", self.num_players, 2, 6))
        object.__setattr__(self, "ace_high", check_bool("ace_high", self.ace_high))
        object.__setattr__(self, "reshuffle", check_choice("reshuffle", self.reshuffle, RESHUFFLES))
        object.__setattr__(
            self, "two_player_winner_deals", check_bool("two_player_winner_deals", self.two_player_winner_deals)
        )
        if self.two_player_winner_deals and self.num_players != 2:
            raise ValueError(
                f"option two_player_winner_deals=True needs num_players=2 (R-RUMMY-04), got "
                f"num_players={self.num_players}: with more players the deal passes to the left"
            )
        object.__setattr__(self, "target_score", check_int("target_score", self.target_score, 1, MAX_LIMIT))
        object.__setattr__(self, "max_turns", check_int("max_turns", self.max_turns, 1, MAX_LIMIT))
        object.__setattr__(self, "max_hands", check_int("max_hands", self.max_hands, 1, MAX_LIMIT))
        object.__setattr__(self, "episode", check_choice("episode", self.episode, EPISODES))
        object.__setattr__(self, "reward", check_choice("reward", self.reward, REWARDS))

    @property
    def hand_size(self) -> int:
        """Cards dealt to each player (R-RUMMY-02): 10 for 2, 7 for 3-4, 6 for 5-6 players."""
        return hand_size(self.num_players)
