"""Options of Crazy Rummy (``docs/rules/crazy_rummy.md``)."""

from __future__ import annotations

from dataclasses import dataclass

from rummy_env.games.options import (
    EPISODES,
    MAX_LIMIT,
    REWARDS,
    OptionNames,
    check_choice,
    check_int,
)

NUM_ROUNDS = 13  # R-CRAZY-02


@dataclass(frozen=True)
class CrazyRummyConfig(OptionNames):
    """Options of a Crazy Rummy game; every field is validated on construction.

    Attributes:
        num_players: 3..6 (R-CRAZY-01).
        wild_rank: with ``episode="hand"``, the round's wild rank 1..13 (1 = aces,
            11 = jacks, 12 = queens, 13 = kings); None draws it from the seeded
            generator.  ``episode="game"`` plays ranks 1..13 in order (R-CRAZY-02), so
            it refuses this option.
        episode: ``"hand"`` (one round) or ``"game"`` (13 rounds).
        reward: ``"win"`` (+1 shared by the lowest penalty, -1 shared by the others)
            or ``"score"`` (mean penalty minus own penalty, each round).
        max_turns: turns after which a round ends with no penalties, 1..10**9 (``MAX_LIMIT``) (the rules
            set no limit, but taking the discard and discarding can go on forever): with
            ``episode="hand"`` the episode is truncated; with ``episode="game"`` the
            next round is dealt (the deal passing left, R-CRAZY-03), so a game still
            ends after its 13 rounds (R-CRAZY-13).
        max_hands: with ``episode="game"``, rounds after which the game is truncated,
            1..13; the default 13 plays the whole game, which then ends by the rules.

    Raises:
        ValueError: a value of the wrong type or out of range, naming the option.
    """

    num_players: int = 3
    wild_rank: int | None = None
    episode: str = "hand"
    reward: str = "win"
    max_turns: int = 1000
    max_hands: int = NUM_ROUNDS

    def __post_init__(self) -> None:
        object.__setattr__(self, "num_players", check_int("num_players", self.num_players, 3, 6))
        object.__setattr__(self, "episode", check_choice("episode", self.episode, EPISODES))
        object.__setattr__(self, "reward", check_choice("reward", self.reward, REWARDS))
        object.__setattr__(self, "max_turns", check_int("max_turns", self.max_turns, 1, MAX_LIMIT))
        object.__setattr__(self, "max_hands", check_int("max_hands", self.max_hands, 1, NUM_ROUNDS))
        if self.wild_rank is not None:
            object.__setattr__(self, "wild_rank", check_int("wild_rank", self.wild_rank, 1, NUM_ROUNDS))
            if self.episode == "game":
                raise ValueError(game_wild_rank_refusal(self.wild_rank))


def game_wild_rank_refusal(rank: int) -> str:
    """The one message refusing a wild rank with ``episode="game"``, whether it came as the
    ``wild_rank`` option or as a deal's ``wild_rank`` (``reset(options=...)``)."""
    return (
        f"option wild_rank={rank} does not go with episode='game': a game plays the wild ranks 1..13 in order "
        "(R-CRAZY-02); a wild rank is given only with episode='hand' (one round)"
    )


def check_wild_rank(config: CrazyRummyConfig, wild_rank: object) -> int | None:
    """A one-round episode's wild rank given at the deal (``new_initial_state``, the env's
    ``reset(options={"wild_rank": r})``), checked: 1..13, ``episode="hand"`` only (a game
    plays the ranks in order, R-CRAZY-02), and equal to the ``wild_rank`` option if that
    is set.

    Returns:
        the round's wild rank 1..13: ``wild_rank``, else the option's; None when neither
        fixes it (or with ``episode="game"``).

    Raises:
        ValueError: any of these broken, naming the value.
    """
    if wild_rank is None:
        return config.wild_rank
    rank = check_int("wild_rank", wild_rank, 1, NUM_ROUNDS)
    if config.episode == "game":
        raise ValueError(game_wild_rank_refusal(rank))
    if config.wild_rank is not None and rank != config.wild_rank:
        raise ValueError(
            f"wild_rank={rank} contradicts the option wild_rank={config.wild_rank}, which fixes the round's wild rank: "
            "give the same rank or none"
        )
    return rank
