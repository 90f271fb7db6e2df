"""The Crazy Rummy heuristic: choices in known positions, and its results against random play."""

import pytest

from agents import CrazyRummyHeuristicAgent, make_agent
from experiments.dev.heuristic_vs_random import measure
from rummy_env import crazy_rummy_v0
from rummy_env.games.crazy_rummy import stack_deck
from tests.helpers import play, scripted_env

OTHERS = ["AC 2C 3C 9S TD JD 6H", "9C TC JC KC 2D 3D 4D"]


def deal(first_hand, stock=(), wild_rank=5):
    return scripted_env(
        crazy_rummy_v0, stack_deck([first_hand, *OTHERS], stock=stock, dealer=2), 2, wild_rank=wild_rank
    )


def next_move(env):
    agent = make_agent("heuristic", env)
    return env.unwrapped.action_to_string(agent.act(env.observe(env.agent_selection)))


def test_melds_with_the_most_natural_cards_then_the_most_penalty_shed():
    env = deal("6S 7S 8S 5C 2H 3H KD QC")  # fives wild
    assert isinstance(make_agent("heuristic", env), CrazyRummyHeuristicAgent)
    # three natural cards either way; 5S-8S also sheds the wild card's 25 points
    assert next_move(env) == "meld 5S 6S 7S 8S"
    play(env, "meld 5S 6S 7S 8S")
    # nothing melds any more; QC and KD are loose and worth 10: the higher card id goes
    assert next_move(env) == "discard KD"


def test_swaps_a_natural_card_for_a_wild_card():
    env = deal("7S 8S 5C 2H 3H 4H KD QC", stock=["KH"])
    play(env, "meld 7S 8S 9S", "meld 2H 3H 4H", "discard KD")  # 5C stands for 9S
    play(env, "draw stock", "meld AC 2C 3C")  # player_1 holds 9S and has melded; KH drawn
    # no sequence goes out (9S TD JD 6H KH: the swap and a meld leave two cards)
    assert next_move(env) == "swap 9S"


def test_goes_out_through_a_lay_off_a_swap_and_a_meld_with_the_wild_card_gained():
    env = deal("7S 8S 5C 2H 3H 4H KD QC", stock=["4C"])
    play(env, "meld 7S 8S 9S", "meld 2H 3H 4H", "discard KD")  # 5C stands for 9S
    play(env, "draw stock", "meld AC 2C 3C")  # player_1: 4C TD JD 6H 9S
    moves = []
    while not env.terminations["player_1"]:
        moves.append(next_move(env))
        play(env, moves[-1])
    assert moves == ["layoff 4C high", "swap 9S", "meld 9D TD JD", "discard 6H"]  # R-CRAZY-07, 09
    assert env.unwrapped.game_state.last_hand["hand_scores"] == [10, 0, 48]  # QC; 9C TC JC KC 2D 3D 4D (R-CRAZY-12)


def test_takes_a_wild_card_from_the_discard_pile():
    env = deal("6S 7S 8S 2H 3H 4H KD 5D")  # fives wild: player_0 throws away a wild card
    play(env, "meld 6S 7S 8S", "meld 2H 3H 4H", "discard 5D")
    assert next_move(env) == "draw discard"


def test_beats_two_random_agents_in_most_rounds():
    out = measure("crazy_rummy", 60, {})  # heuristic in seat k % 3 of round k (R-CRAZY-12, 13)
    # 52 and 58 of these 60 rounds; over 3000 rounds (issue note) 0.900 and 0.965
    assert out["won"] == 52 / 60 and out["won"] >= 0.85  # lowest penalty of the three
    assert out["below_random_mean"] == 58 / 60 and out["below_random_mean"] >= 0.95
    # mean penalty points: 118 and 1948 over the 60 rounds (tests/experiments/test_heuristic_vs_random.py)
    assert (out["heuristic_score"], out["random_score"]) == pytest.approx((118 / 60, 1948 / 60), rel=1e-6)
