"""Options of Gin Rummy (``docs/rules/gin_rummy.md``)."""

from __future__ import annotations

from dataclasses import dataclass

from rummy_env.games.options import (
    EPISODES,
    MAX_BONUS,
    MAX_LIMIT,
    REWARDS,
    OptionNames,
    check_bool,
    check_choice,
    check_int,
)


@dataclass(frozen=True)
class GinRummyConfig(OptionNames):
    """Options of a Gin Rummy game; every field is validated on construction.

    Attributes:
        knock_limit: the most deadwood (points) a player may knock with (R-GIN-06),
            0..10**9 (0: gin only; 100 or more lets any hand knock).  Ignored with ``oklahoma=True``.
        gin_bonus: points added for gin (R-GIN-12), 0..10**6 (``MAX_BONUS``).
        undercut_bonus: points added for an undercut (R-GIN-11), 0..10**6.
        big_gin: allow big gin, all eleven cards melded without a discard (R-GIN-07).
        big_gin_bonus: points added for big gin (R-GIN-12), 0..10**6.
        oklahoma: the first upcard's value sets each hand's knock limit, an ace
            meaning gin only (R-GIN-14).
        target_score: points that end the game (R-GIN-13), 1..10**9 (``MAX_LIMIT``).
        game_bonuses: add the end-of-game bonuses of R-GIN-13 (100 for the game, 25
            per hand won, doubled on a shutout).
        max_turns: turns after which a hand ends with no score, 1..10**9 (``MAX_LIMIT``): with
            ``episode="hand"`` the episode is truncated; with ``episode="game"`` the
            hand counts as a dead hand (R-GIN-02: the same dealer deals again).  The
            rules set no limit, but taking the upcard and discarding another card can
            go on forever; random play never gets near 1000 turns (a hand has at most
            29 draws from the stock).
        max_hands: with ``episode="game"``, hands after which a game no one has won
            yet is truncated, 1..10**9; default 1000 (dead hands are common in weak play:
            random play needs 130 hands on average to reach 100 points, at most 388
            in 200 games).
        episode: ``"hand"`` (one hand) or ``"game"`` (hands until ``target_score``).
        reward: ``"win"`` (+1 / -1 at the episode's end) or ``"score"`` (the hand's
            points, zero-sum, at each hand's end; plus the bonuses at the game's end).

    Raises:
        ValueError: a value of the wrong type or out of range, naming the option.
    """

    knock_limit: int = 10
    gin_bonus: int = 25
    undercut_bonus: int = 25
    big_gin: bool = True
    big_gin_bonus: int = 31
    oklahoma: bool = False
    target_score: int = 100
    game_bonuses: bool = False
    max_turns: int = 1000
    max_hands: int = 1000
    episode: str = "hand"
    reward: str = "win"

    def __post_init__(self) -> None:
        object.__setattr__(self, "knock_limit", check_int("knock_limit", self.knock_limit, 0, MAX_LIMIT))
        for name in ("gin_bonus", "undercut_bonus", "big_gin_bonus"):
            object.__setattr__(self, name, check_int(name, getattr(self, name), 0, MAX_BONUS))
        for name in ("big_gin", "oklahoma", "game_bonuses"):
            object.__setattr__(self, name, check_bool(name, getattr(self, name)))
        object.__setattr__(self, "target_score", check_int("target_score", self.target_score, 1, MAX_LIMIT))
        object.__setattr__(self, "max_turns", check_int("max_turns", self.max_turns, 1, MAX_LIMIT))
        object.__setattr__(self, "max_hands", check_int("max_hands", self.max_hands, 1, MAX_LIMIT))
        object.__setattr__(self, "episode", check_choice("episode", self.episode, EPISODES))
        object.__setattr__(self, "reward", check_choice("reward", self.reward, REWARDS))
