"""Whole Crazy Rummy games (``episode="game"``, issue 26) in ``CrazyRummyVec``: the kernel
plays the reference's games step for step, every game replays in ``env()`` from
``deal_of``, and a scripted round goes on into the next round of the game as in ``env()``
(R-CRAZY-02, 03, 12, 13)."""

import numpy as np
import pytest

from rummy_env import crazy_rummy_v0
from rummy_env.core.cards import card_str
from rummy_env.games.crazy_rummy import stack_deck, string_to_action
from rummy_env.vector import CrazyRummyVec, ReferenceCrazyRummyVec
from rummy_env.vector.batch import draw_deck, seed_streams
from tests.vector.differential import play_against_env
from tests.vector.test_whole_games import covered, ids, lockstep

CRAZY = [  # short rounds (max_turns) so that 13-round games end inside the test
    {"episode": "game", "num_players": 3, "max_turns": 12},
    {"episode": "game", "num_players": 4, "max_turns": 20, "reward": "score", "max_hands": 4},
    {"episode": "game", "num_players": 5, "max_turns": 40, "max_hands": 2},
    {"episode": "game", "num_players": 6, "max_turns": 12, "reward": "score"},
]


@pytest.mark.parametrize("options", CRAZY, ids=ids)
def test_the_crazy_kernel_plays_the_reference_games_step_for_step(options):
    counts = lockstep(CrazyRummyVec(6, seed=3, **options), ReferenceCrazyRummyVec(6, seed=3, **options), 400)
    assert covered(counts) and counts["ended"] >= 3


def test_random_opponents_cross_crazy_round_boundaries_as_the_reference():
    options = CRAZY[0]
    counts = lockstep(CrazyRummyVec(6, seed=4, **options), ReferenceCrazyRummyVec(6, seed=4, **options), 300, True)
    assert covered(counts) and counts["ended"] >= 3


@pytest.mark.parametrize(
    ("cls", "options"),
    [
        (CrazyRummyVec, {"episode": "game", "num_players": 3, "max_turns": 10}),
        (CrazyRummyVec, {"episode": "game", "num_players": 4, "max_hands": 2, "reward": "score"}),
        (ReferenceCrazyRummyVec, {"episode": "game", "num_players": 5, "max_turns": 8, "reward": "score"}),
    ],
    ids=["crazy3", "crazy4-score-full-rounds", "reference-crazy5"],
)
def test_every_crazy_game_replays_in_env_round_by_round_and_whole_from_deal_of(cls, options):
    counts = play_against_env(cls(4, seed=5, **options), crazy_rummy_v0, options, 300, np.random.default_rng(2))
    assert counts["decisions"] >= 1000 and counts["hands"] >= 4 and counts["replays"] >= 1


# round 1 (aces wild), dealer player_2: player_0 melds everything and goes out at once;
# penalties 0, AS 25 + 2 + 9 + 4 x 10 = 76, 3 + 4 + 5 + 6 + 7 + 8 + 9 = 42 (R-CRAZY-12)
ROUND_1 = stack_deck(["2C 3C 4C 5H 6H 7H 8H KS", "AS 2S 9D TD JD QD KD", "3D 4D 5D 6D 7D 8D 9C"], dealer=2)
GO_OUT = [string_to_action(m) for m in ("meld 2C 3C 4C", "meld 5H 6H 7H 8H", "discard KS")]


def _play_round_1(cls, **options):
    vec = cls(2, seed=0, episode="game", **options)
    vec.reset(decks=[ROUND_1, ROUND_1], dealers=np.array([2, 2]))
    for a in GO_OUT:
        batch = vec.step(np.array([a, a]))
    return vec, batch


@pytest.mark.parametrize("cls", [ReferenceCrazyRummyVec, CrazyRummyVec])
def test_a_scripted_round_goes_on_into_round_2_with_the_next_dealer_and_wild_rank(cls):
    vec, batch = _play_round_1(cls, reward="score")
    mean = (0 + 76 + 42) / 3
    assert batch.rewards.tolist() == [pytest.approx([mean, mean - 76, mean - 42], abs=1e-5)] * 2
    assert not (batch.terminated | batch.truncated).any()
    # round 2: twos wild, player_0 deals, player_1 starts with 8 cards and plays without drawing
    assert vec.scores.tolist() == [[0, 76, 42]] * 2 and vec.hands_played.tolist() == [1, 1]
    assert vec.dealers().tolist() == [0, 0] and batch.current_player.tolist() == [1, 1]
    env = crazy_rummy_v0.env(episode="game", reward="score")
    layout = env.unwrapped.layout
    obs = batch.observation
    assert obs[:, layout.slice("wild_rank")].argmax(1).tolist() == [1, 1]
    assert obs[:, layout.slice("round")].ravel().tolist() == [2, 2]
    assert obs[:, layout.slice("hand")].sum(1).tolist() == [8, 8]
    # the totals from player_1's view: itself, player_2, player_0
    assert obs[:, layout.slice("totals")].tolist() == [[76, 42, 0]] * 2
    # round 2 is each game's deal stream's first draw (deck and dealer of round 1 were stacked)
    second = [draw_deck(seed_streams(0, 2)[0], i) for i in range(2)]
    assert vec.decks().tolist() == second
    for i in range(2):
        deal = vec.deal_of(i)
        assert deal == {"deck": ROUND_1, "dealer": 2, "next_hands": [{"deck": [card_str(c) for c in second[i]]}]}
        env.reset(seed=0, options=deal)
        for a in GO_OUT:
            env.step(a)
        assert env.agent_selection == "player_1" and env.unwrapped.game_state.round == 2
        np.testing.assert_array_equal(obs[i], env.observe("player_1")["observation"])


@pytest.mark.parametrize("cls", [ReferenceCrazyRummyVec, CrazyRummyVec])
def test_a_game_cut_by_max_hands_is_truncated_without_a_win_reward(cls):
    vec, batch = _play_round_1(cls, max_hands=1)
    assert batch.truncated.all() and not batch.terminated.any() and batch.rewards.tolist() == [[0.0] * 3] * 2
    assert vec.hands_played.tolist() == [1, 1] and vec.scores.tolist() == [[0, 76, 42]] * 2
    assert vec.deal_of(0) == {"deck": ROUND_1, "dealer": 2, "next_hands": []}
    vec.step(np.zeros(2, np.int64))  # the autoreset: a new game in round 1, totals 0
    assert vec.hands_played.tolist() == [0, 0] and vec.scores.tolist() == [[0, 0, 0]] * 2


@pytest.mark.parametrize("cls", [ReferenceCrazyRummyVec, CrazyRummyVec])
def test_reward_win_pays_nothing_between_rounds(cls):
    vec, batch = _play_round_1(cls)
    assert batch.rewards.tolist() == [[0.0] * 3] * 2 and not (batch.terminated | batch.truncated).any()
    assert vec.hands_played.tolist() == [1, 1]


def test_a_one_round_episode_keeps_its_wild_rank_in_deal_of_and_a_game_has_none():
    hand = CrazyRummyVec(2, seed=1, wild_rank=5)
    hand.reset()
    assert hand.deal_of(0)["wild_rank"] == 5
    game = CrazyRummyVec(2, seed=1, episode="game")
    game.reset()
    assert set(game.deal_of(0)) == {"deck", "dealer", "next_hands"} and game.deal_of(0)["next_hands"] == []
