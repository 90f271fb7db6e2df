"""Whole games (``episode="game"``) in the batched engines (issue 26): the kernels play the
reference's games step for step, every game replays in ``env()`` from ``deal_of``, a
stacked first hand scores exactly, hand boundaries inside a game look as in ``env()``."""

import numpy as np
import pytest

from rummy_env import gin_rummy_v0, rummy_v0
from rummy_env.core.cards import card_str, parse_cards
from rummy_env.envs.gin_rummy import raw_env as gin_raw_env
from rummy_env.envs.rummy import raw_env as rummy_raw_env
from rummy_env.games.gin_rummy import stack_deck as gin_stack_deck
from rummy_env.games.rummy import stack_deck as rummy_stack_deck
from rummy_env.vector import Batch, GinRummyVec, ReferenceGinRummyVec, ReferenceRummyVec, ReferenceVec, RummyVec
from rummy_env.vector.batch import draw_deck, seed_streams
from tests.helpers import whole
from tests.vector.differential import play_against_env

GIN = [  # each crosses hand boundaries inside games, and ends games or carries won hands over
    {"episode": "game", "target_score": 10},
    {"episode": "game", "knock_limit": 25, "reward": "score"},
    {"episode": "game", "knock_limit": 40, "target_score": 60, "game_bonuses": True},
    {
        "episode": "game",
        "knock_limit": 30,
        "target_score": 40,
        "undercut_bonus": 0,
        "gin_bonus": 0,
        "game_bonuses": True,
        "max_turns": 20,
        "reward": "score",
    },  # fmt: skip
    {"episode": "game", "target_score": 30, "oklahoma": True, "max_hands": 3, "reward": "score"},
]
RUMMY = [
    {"episode": "game", "num_players": 2, "two_player_winner_deals": True, "reward": "score", "max_turns": 300},
    {"episode": "game", "num_players": 2, "target_score": 10, "max_turns": 30, "max_hands": 6},
    {"episode": "game", "num_players": 3, "target_score": 200, "ace_high": True, "max_turns": 200},
    {"episode": "game", "num_players": 4, "target_score": 60, "reshuffle": "whole_pile", "reward": "score"},
    {"episode": "game", "num_players": 5, "target_score": 25, "max_turns": 30},
    {"episode": "game", "num_players": 6, "target_score": 20, "ace_high": True, "max_turns": 40, "max_hands": 5},
]


def ids(options):
    return ",".join(f"{k}={v}" for k, v in options.items() if k != "episode")


def lockstep(kernel, reference, steps, opponents=False):
    """Step both batches with ``step_random`` (or, with ``opponents``, a random learner
    decision then ``step_opponents``); assert every field, the totals, the hand counters,
    the decks and ``deal_of`` equal at every step.

    Returns:
        counts: ``ended`` (episodes), ``boundaries`` (hands that ended inside a game),
        ``carried`` (of those, hands won: their points carried into the next hand).
    """
    n = kernel.num_envs
    seats = np.arange(n) % kernel.num_players
    rng = np.random.default_rng(0)
    batch, expected = kernel.reset(), reference.reset()
    counts = {"ended": 0, "boundaries": 0, "carried": 0}
    for step in range(steps):
        for name, got, want in zip(Batch._fields, batch, expected, strict=True):
            assert np.array_equal(got, want), (step, name, np.flatnonzero((got != want).reshape(n, -1).any(axis=1)))
        assert np.array_equal(kernel.scores, reference.scores), step
        assert np.array_equal(kernel.hands_played, reference.hands_played), step
        assert np.array_equal(kernel.decks(), reference.decks()) and np.array_equal(
            kernel.dealers(), reference.dealers()
        )
        if step % 25 == 0:
            assert [kernel.deal_of(i) for i in range(n)] == [reference.deal_of(i) for i in range(n)], step
        hands, totals = kernel.hands_played, kernel.scores.sum(axis=1)
        if opponents:
            actions = np.array([rng.choice(np.flatnonzero(row)) if row.any() else 0 for row in batch.action_mask])
            kernel.step(actions), reference.step(actions)
            batch, expected = kernel.step_opponents(seats), reference.step_opponents(seats)
        else:
            batch, expected = kernel.step_random(), reference.step_random()
        done = batch.terminated | batch.truncated
        inside = (kernel.hands_played > hands) & ~done
        counts["ended"] += int(done.sum())
        counts["boundaries"] += int(inside.sum())
        counts["carried"] += int((inside & (kernel.scores.sum(axis=1) > totals)).sum())
    return counts


def covered(counts):
    """Hand boundaries inside games, and games that ended or won hands carried over."""
    return counts["boundaries"] >= 1 and counts["ended"] + counts["carried"] >= 1


@pytest.mark.parametrize("options", GIN, ids=ids)
def test_the_gin_kernel_plays_the_reference_games_step_for_step(options):
    assert covered(lockstep(GinRummyVec(12, seed=11, **options), ReferenceGinRummyVec(12, seed=11, **options), 500))


@pytest.mark.parametrize("options", RUMMY, ids=ids)
def test_the_rummy_kernel_plays_the_reference_games_step_for_step(options):
    assert covered(lockstep(RummyVec(8, seed=13, **options), ReferenceRummyVec(8, seed=13, **options), 700))


@pytest.mark.parametrize(
    ("kernel", "reference", "options"),
    [(GinRummyVec, ReferenceGinRummyVec, GIN[2]), (RummyVec, ReferenceRummyVec, RUMMY[1])],
    ids=["gin", "rummy2"],
)
def test_random_opponents_cross_hand_boundaries_as_the_reference(kernel, reference, options):
    assert covered(lockstep(kernel(8, seed=2, **options), reference(8, seed=2, **options), 250, opponents=True))


@pytest.mark.parametrize(
    ("cls", "module", "options"),
    [
        (GinRummyVec, gin_rummy_v0, GIN[2]),
        (GinRummyVec, gin_rummy_v0, GIN[3]),
        (ReferenceGinRummyVec, gin_rummy_v0, GIN[4]),
        (RummyVec, rummy_v0, {"episode": "game", "num_players": 2, "max_turns": 25, "max_hands": 3}),
        (RummyVec, rummy_v0, {"episode": "game", "num_players": 4, "max_turns": 30, "max_hands": 3, "reward": "score"}),
        (ReferenceRummyVec, rummy_v0, {"episode": "game", "num_players": 6, "max_turns": 20, "max_hands": 3}),
    ],
    ids=["gin-bonuses", "gin-score", "reference-gin", "rummy2", "rummy4-score", "reference-rummy6"],
)
def test_every_game_replays_in_env_hand_by_hand_and_whole_from_deal_of(cls, module, options):
    counts = play_against_env(cls(6, seed=5, **options), module, options, 350, np.random.default_rng(2))
    assert counts["decisions"] >= 1500 and counts["hands"] >= 6 and counts["replays"] >= 1


# Gin hand 1, dealer player_1: both pass, player_0 draws KH and knocks with 3H (34 points)
HAND_1 = gin_stack_deck(
    ["4D 5D 6D 2C 3C 4C JS QS KS 3H", "7C 7D 7H 7S 8D QH JH 9C 6S 2H"], upcard="AS", stock=["KH"], dealer=1
)
PASS, KNOCK_KH = gin_raw_env.string_to_action("pass"), gin_raw_env.string_to_action("knock KH")


@pytest.mark.parametrize("cls", [ReferenceGinRummyVec, GinRummyVec])
def test_a_stacked_gin_hand_goes_on_into_the_next_hand_of_the_game(cls):
    vec = cls(2, seed=0, episode="game", target_score=100, reward="score")
    vec.reset(decks=[HAND_1, HAND_1], dealers=np.array([1, 1]))
    vec.step(np.array([PASS, PASS]))
    vec.step(np.array([PASS, PASS]))
    batch = vec.step(np.array([KNOCK_KH, KNOCK_KH]))
    # the hand's points as rewards, no episode end, and the next hand's first view: player_0
    # won and deals (R-GIN-02), so player_1 is offered the upcard
    assert batch.rewards.tolist() == [[34.0, -34.0]] * 2 and not (batch.terminated | batch.truncated).any()
    assert batch.current_player.tolist() == [1, 1] and batch.action_mask[:, PASS].all()
    assert vec.scores.tolist() == [[34, 0]] * 2 and vec.hands_played.tolist() == [1, 1]
    assert vec.hands_won.tolist() == [[1, 0]] * 2 and vec.dealers().tolist() == [0, 0]
    # hand 2 is the deal stream's first draw of each game (no dealer was drawn: both were stacked)
    second = [draw_deck(seed_streams(0, 2)[0], i) for i in range(2)]
    assert vec.decks().tolist() == second
    for i in range(2):
        deal = vec.deal_of(i)
        assert deal == {"deck": HAND_1, "dealer": 1, "next_hands": [{"deck": [card_str(c) for c in second[i]]}]}
        env = gin_rummy_v0.env(episode="game", target_score=100, reward="score")
        env.reset(seed=0, options=deal)
        for a in (PASS, PASS, KNOCK_KH):
            env.step(a)
        assert env.agent_selection == "player_1" and env.unwrapped.game_state.hand_decks[1] == second[i]
        np.testing.assert_array_equal(batch.observation[i], env.observe("player_1")["observation"])


@pytest.mark.parametrize("cls", [ReferenceGinRummyVec, GinRummyVec])
def test_a_game_that_reaches_the_target_ends_and_the_next_step_starts_a_new_game(cls):
    vec = cls(2, seed=0, episode="game", target_score=30, game_bonuses=True)
    vec.reset(decks=[HAND_1, HAND_1], dealers=np.array([1, 1]))
    for action in (PASS, PASS, KNOCK_KH):
        batch = vec.step(np.array([action, action]))
    # 34 >= 30: player_0 wins the game; bonuses 100 + 25, and doubled for a shutout (R-GIN-13)
    assert batch.terminated.all() and batch.rewards.tolist() == [[1.0, -1.0]] * 2
    assert vec.scores.tolist() == [[2 * (34 + 125), 0]] * 2 and not batch.action_mask.any()
    assert vec.deal_of(0) == {"deck": HAND_1, "dealer": 1, "next_hands": []}
    batch = vec.step(np.array([0, 0]))  # the autoreset: a new game, dealt from the streams
    assert not batch.terminated.any() and vec.scores.tolist() == [[0, 0]] * 2
    assert vec.hands_played.tolist() == [0, 0] and vec.hands_won.tolist() == [[0, 0]] * 2
    deal = vec.deal_of(1)
    assert deal["next_hands"] == [] and parse_cards(deal["deck"]) == vec.decks()[1].tolist()


def test_an_engine_without_whole_games_refuses_them():
    class OneHand(ReferenceVec):
        variant, raw_env = "gin_rummy_v0", gin_raw_env

    message = "option episode='game' is not supported by OneHand yet: it plays episode='hand' (one hand per episode)"
    with pytest.raises(ValueError, match=whole(message)):
        OneHand(2, episode="game")


@pytest.mark.parametrize("winner_deals", [True, False])
@pytest.mark.parametrize("cls", [ReferenceRummyVec, RummyVec])
def test_a_rummy_dealer_who_goes_rummy_deals_again_only_if_the_winner_deals(cls, winner_deals):
    # dealer player_1 goes rummy in its first turn: 2 x 64 points of player_0's cards
    deck = rummy_stack_deck(
        ["AC AD 5C 6C 9C JC QD KH 4D 8D", "3S 4S 5S 7H 8H 9H 2C 2D 2H KD"], upcard="QS", stock=["TD", "6S"], dealer=1
    )
    options = {"episode": "game", "two_player_winner_deals": winner_deals, "reward": "score", "target_score": 500}
    vec = cls(1, seed=0, **options)
    vec.reset(decks=[deck], dealers=np.array([1]))
    moves = ["draw stock", "discard TD", "draw stock", "meld 3S 4S 5S 6S", "meld 7H 8H 9H", "meld 2C 2D 2H"]
    for move in [*moves, "discard KD"]:
        batch = vec.step(np.array([rummy_raw_env.string_to_action(move)]))
    dealer = 1 if winner_deals else 0  # R-RUMMY-04: the winner deals, or the deal passes left
    assert batch.rewards.tolist() == [[-128.0, 128.0]] and not batch.terminated[0] and not batch.truncated[0]
    assert vec.dealers().tolist() == [dealer] and batch.current_player.tolist() == [1 - dealer]
    assert vec.scores.tolist() == [[0, 128]] and vec.hands_played.tolist() == [1]
    env = rummy_v0.env(**options)
    env.reset(seed=0, options=vec.deal_of(0))
    for move in [*moves, "discard KD"]:
        env.step(rummy_raw_env.string_to_action(move))
    assert env.agent_selection == f"player_{1 - dealer}"
    np.testing.assert_array_equal(batch.observation[0], env.observe(env.agent_selection)["observation"])
