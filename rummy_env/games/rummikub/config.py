"""Options of Rummikub (``docs/rules/rummikub.md``)."""

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

#: The most points an initial meld could ever have (R-RK-07): every numbered tile, 2 x 4
#: colours x (1 + ... + 13) = 728, and the two jokers standing for 13s.
MAX_INITIAL_MELD_POINTS = 2 * 4 * 91 + 2 * 13


@dataclass(frozen=True)
class RummikubConfig(OptionNames):
    """Options of a Rummikub game; every field is validated on construction.

    Attributes:
        num_players: 2..4 (R-RK-02).
        initial_meld_points: points the initial meld needs (R-RK-07), 0..754 (the 106
            tiles are worth 754 at most: 728 for the numbers, two jokers as 13s); default 30.
        initial_meld_table_play: after the initial melds, the same turn may also play on
            the table as in R-RK-08 (R-RK-07 option).
        target_score: total that ends the game (R-RK-12), 1..10**9 (``MAX_LIMIT``); default 200.
        max_turns: turns after which a hand ends with no winner, all scoring 0 (R-RK-13),
            1..10**9 (``MAX_LIMIT``): with ``episode="hand"`` the episode is truncated; with
            ``episode="game"`` the next hand is dealt.
        max_hands: with ``episode="game"``, hands after which a game no one has won
            yet is truncated (R-RK-13's game-level limit), 1..10**9; default 1000 (random
            play of 2 players needs 86 hands on average, at most 228 in 20 games).
        episode: ``"hand"`` (one hand) or ``"game"`` (hands until ``target_score``).
        reward: ``"win"`` (+1 / -1/(n-1) at the episode's end) or ``"score"`` (the
            hand's signed scores of R-RK-10/11, which sum to zero).

    Raises:
        ValueError: a value of the wrong type or out of range, naming the option.
    """

    num_players: int = 2
    initial_meld_points: int = 30
    initial_meld_table_play: bool = False
    target_score: int = 200
    max_turns: int = 1000
    max_hands: int = 1000
    episode: str = "hand"
    reward: str = "win"

    def __post_init__(self) -> None:
        object.__setattr__(self, "num_players", check_int("num_players", self.num_players, 2, 4))
        object.__setattr__(
            self,
            "initial_meld_points",
            check_int("initial_meld_points", self.initial_meld_points, 0, MAX_INITIAL_MELD_POINTS),
        )
        object.__setattr__(
            self, "initial_meld_table_play", check_bool("initial_meld_table_play", self.initial_meld_table_play)
        )
        object.__setattr__(self, "target_score", check_int("target_score", self.target_score, 1, MAX_LIMIT))
        object.__setattr__(self, "max_turns", check_int("max_turns", self.max_turns, 1, MAX_LIMIT))
        object.__setattr__(self, "max_hands", check_int("max_hands", self.max_hands, 1, MAX_LIMIT))
        object.__setattr__(self, "episode", check_choice("episode", self.episode, EPISODES))
        object.__setattr__(self, "reward", check_choice("reward", self.reward, REWARDS))
