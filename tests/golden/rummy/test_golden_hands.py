"""Golden hands of ``rummy_v0``: stacked decks, scripted moves, exact scores.

Card values (R-RUMMY-14): A = 1, 2..10 face value, J Q K = 10.
"""

import numpy as np
import pytest

from rummy_env import rummy_v0
from rummy_env.core.cards import card_str
from rummy_env.games.rummy import stack_deck
from tests import helpers
from tests.helpers import play, random_playthrough

P0 = "3S 4S 5S 7H 8H 9H 2C 2D 2H KD"
P1 = "AC AD 5C 6C 9C JC QD KH 4D 8D"  # 1+1+5+6+9+10+10+10+4+8 = 64 points


def scripted_env(hands, upcard, stock=(), dealer=1, **options):
    deck = stack_deck(hands, upcard=upcard, stock=stock, dealer=dealer)
    return helpers.scripted_env(rummy_v0, deck, dealer, **options)


def final(env):
    """(infos, cumulative rewards, terminations, truncations) per agent at the end."""
    return (
        {a: {k: env.infos[a][k] for k in ("hand_score", "total_score")} for a in env.agents},
        dict(env._cumulative_rewards),
        dict(env.terminations),
        dict(env.truncations),
    )


RUMMY_OUT = ("draw stock", "meld 3S 4S 5S 6S", "meld 7H 8H 9H", "meld 2C 2D 2H", "discard KD")


def test_going_out_scores_the_opponents_cards_r_rummy_15():
    env = scripted_env([P0, P1], upcard="QS", stock=["6S", "TD", "JS"])
    # turn 1: player_0 melds three deuces; player_1 draws and discards; turn 2: player_0 goes out
    play(
        env,
        "draw stock",
        "meld 2C 2D 2H",
        "discard KD",
        "draw stock",
        "discard TD",
        "draw stock",
        "meld 3S 4S 5S 6S",
        "meld 7H 8H 9H",
        "discard JS",
    )
    infos, rewards, terms, truncs = final(env)
    assert infos == {"player_0": {"hand_score": 64, "total_score": 64}, "player_1": {"hand_score": 0, "total_score": 0}}
    assert env.infos["player_0"]["winner"] == "player_0" and env.infos["player_0"]["rummy"] is False
    assert rewards == {"player_0": 1.0, "player_1": -1.0}
    assert all(terms.values()) and not any(truncs.values())


def test_going_rummy_doubles_the_score_r_rummy_16():
    env = scripted_env([P0, P1], upcard="QS", stock=["6S"])
    play(env, *RUMMY_OUT)  # out in one turn, nothing melded before
    infos, rewards, _, _ = final(env)
    assert infos["player_0"] == {"hand_score": 128, "total_score": 128}
    assert infos["player_1"] == {"hand_score": 0, "total_score": 0}
    assert env.infos["player_1"]["rummy"] is True


def test_a_lay_off_in_an_earlier_turn_rules_out_going_rummy_r_rummy_16():
    # dealer player_0: player_1 starts and melds 4C 5C 6C; player_0 lays 7C off on it in
    # its first turn, then goes out in its second turn with three melds: no rummy
    p0 = "7C 3S 4S 5S 7H 8H 9H 2C 2D 2H"
    p1 = "4C 5C 6C AD 5D 9D JD QH KH 8S"  # after the meld: 1+5+9+10+10+10+8 = 53 points
    env = scripted_env([p0, p1], upcard="3D", stock=["TS", "JS", "QS", "KS"], dealer=0)
    play(
        env,
        "draw stock",
        "meld 4C 5C 6C",
        "discard TS",
        "draw stock",
        "layoff 7C high",
        "discard JS",
        "draw stock",
        "discard QS",
        "draw stock",
        "meld 3S 4S 5S",
        "meld 7H 8H 9H",
        "meld 2C 2D 2H",
        "discard KS",
    )
    infos, rewards, _, _ = final(env)
    assert infos["player_0"] == {"hand_score": 53, "total_score": 53}
    assert env.infos["player_0"]["rummy"] is False


def test_win_reward_with_three_players_is_zero_sum_r_rummy_15():
    hands = ["3S 4S 5S 2C 2D 2H KD", "AC AD 5C 6C 9C JC QD", "KH 4D 8D 9D TC 7C 3D"]
    env = scripted_env(hands, upcard="QS", stock=["6S"], dealer=2, num_players=3)
    play(env, "draw stock", "meld 3S 4S 5S 6S", "meld 2C 2D 2H", "discard KD")
    assert final(env)[1] == {"player_0": 1.0, "player_1": -0.5, "player_2": -0.5}


def test_score_reward_is_zero_sum_with_three_players_r_rummy_15_16():
    hands = [
        "3S 4S 5S 2C 2D 2H KD",
        "AC AD 5C 6C 9C JC QD",  # 1+1+5+6+9+10+10 = 42
        "KH 4D 8D 9D TC 7C 3D",
    ]  # 10+4+8+9+10+7+3 = 51
    env = scripted_env(hands, upcard="QS", stock=["6S"], dealer=2, num_players=3, reward="score")
    play(env, "draw stock", "meld 3S 4S 5S 6S", "meld 2C 2D 2H", "discard KD")
    infos, rewards, _, _ = final(env)
    assert [infos[a]["hand_score"] for a in env.agents] == [2 * (42 + 51), 0, 0]
    assert rewards == {"player_0": 186.0, "player_1": -84.0, "player_2": -102.0}


def test_score_reward_two_players_r_rummy_16():
    env = scripted_env([P0, P1], upcard="QS", stock=["6S"], reward="score")
    play(env, *RUMMY_OUT)
    assert final(env)[1] == {"player_0": 128.0, "player_1": -128.0}


@pytest.mark.parametrize("target, over", [(128, True), (129, False)])
def test_game_ends_when_a_total_reaches_the_target_r_rummy_17(target, over):
    env = scripted_env([P0, P1], upcard="QS", stock=["6S"], episode="game", target_score=target)
    play(env, *RUMMY_OUT)
    assert env.infos["player_0"]["total_score"] == 128 and env.infos["player_0"]["hand"] == 1
    if over:
        assert all(env.terminations.values())
        assert env._cumulative_rewards == {"player_0": 1.0, "player_1": -1.0}
    else:
        # R-RUMMY-04: the deal passes left (dealer 1 -> 0), so player_1 starts hand 2
        assert not any(env.terminations.values()) and env.agent_selection == "player_1"
        assert env.unwrapped.game_state.dealer == 0
        assert env._cumulative_rewards == {"player_0": 0.0, "player_1": 0.0}
        obs = env.observe("player_0")["observation"]
        lay = env.unwrapped.layout
        assert obs[lay.slice("scores")].tolist() == [128.0, 0.0]
        assert obs[lay.slice("hand")].sum() == 10 and obs[lay.slice("table")].sum() == 0


def test_game_reward_goes_to_the_game_winner_not_each_hand_r_rummy_17():
    env = scripted_env([P0, P1], upcard="QS", stock=["6S"], episode="game", target_score=129)
    play(env, *RUMMY_OUT)
    for _ in random_playthrough(env, np.random.default_rng(0)):
        pass
    state = env.unwrapped.game_state
    # the scripted hand's 128 points, then player_0 wins the seeded second hand (22 points)
    assert (state.game_winner, state.scores, state.hands_played, state.truncated) == (0, [150, 0], 2, False)
    assert state.returns() == [1.0, -1.0]


def test_a_one_hand_episode_has_no_game_winner_whatever_it_scores_r_rummy_17():
    # going rummy for 128 reaches a target of 100, but episode="hand" is no game (as R-GIN-13's reading)
    env = scripted_env([P0, P1], upcard="QS", stock=["6S"], target_score=100)
    play(env, *RUMMY_OUT)
    state = env.unwrapped.game_state
    assert (state.scores, state.game_winner, state.returns()) == ([128, 0], -1, [1.0, -1.0])


@pytest.mark.parametrize("winner_deals, dealers", [(False, [1, 0, 1]), (True, [1, 1, 1])])
def test_after_a_hand_with_no_winner_the_winner_deals_rule_keeps_the_dealer_r_rummy_04_13(winner_deals, dealers):
    # max_turns=1: each hand ends at the move limit with no winner; with two_player_winner_deals
    # there is no winner to deal, so the same dealer deals again (the env docstring's reading)
    env = scripted_env(
        [P0, P1], upcard="QS", episode="game", max_turns=1, max_hands=3, two_player_winner_deals=winner_deals
    )
    seen = [env.unwrapped.game_state.dealer]
    for _ in range(2):
        play(env, "draw stock")
        legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
        env.step(int(next(a for a in legal if env.unwrapped.action_to_string(int(a)).startswith("discard"))))
        seen.append(env.unwrapped.game_state.dealer)
    assert seen == dealers and env.infos["player_0"]["winner"] == ""


@pytest.mark.parametrize("reshuffle, top, stock_after", [("keep_top", True, 30), ("whole_pile", False, 31)])
def test_stock_rebuilt_from_discard_pile_r_rummy_12(reshuffle, top, stock_after):
    env = scripted_env([P0, P1], upcard="QS", stock=["6S"], reshuffle=reshuffle)
    lay = env.unwrapped.layout
    last_discard = None
    for _ in range(31):  # each turn: draw from the stock, discard the card drawn
        agent = env.agent_selection
        hand_before = env.observe(agent)["observation"][lay.slice("hand")].copy()
        play(env, "draw stock")
        drawn = int(np.flatnonzero(env.observe(agent)["observation"][lay.slice("hand")] - hand_before)[0])
        env.step(drawn)
        last_discard = drawn
    obs = env.observe("player_1")
    assert obs["observation"][lay.slice("stock_size")][0] == 0
    assert env.unwrapped.action_to_string(int(np.flatnonzero(obs["action_mask"])[0])) == "draw stock"
    play(env, "draw stock")
    obs = env.observe("player_1")["observation"]
    assert obs[lay.slice("hand")][env.unwrapped.string_to_action("discard QS")] == 1  # the first upcard comes back
    assert obs[lay.slice("stock_size")][0] == stock_after
    top_plane = obs[lay.slice("top_discard")]
    assert top_plane.tolist() == ([1.0 if c == last_discard else 0.0 for c in range(52)] if top else [0.0] * 52)


def test_score_rewards_add_up_over_the_hands_of_a_game_r_rummy_15_17():
    env = scripted_env([P0, P1], upcard="QS", stock=["6S"], episode="game", target_score=300, reward="score")
    play(env, *RUMMY_OUT)
    assert env.rewards == {"player_0": 128.0, "player_1": -128.0}
    expected = {"player_0": 128.0, "player_1": -128.0}
    received = {"player_0": 0.0, "player_1": 0.0}  # what env.last() hands each agent, AEC's accounting
    hands_seen = 1
    for agent, _, _ in random_playthrough(env, np.random.default_rng(3)):
        received[agent] += env.last()[1]
        state = env.unwrapped.game_state
        if state.hands_played > hands_seen:  # a hand just ended: its zero-sum payments
            hands_seen = state.hands_played
            last = state.last_hand
            if last["winner"] >= 0:
                factor = 2 if last["rummy"] else 1
                for q, a in enumerate(env.possible_agents):
                    expected[a] += last["hand_scores"][q] if q == last["winner"] else -factor * last["hand_values"][q]
    state = env.unwrapped.game_state
    assert (state.hands_played, state.scores) == (16, [314, 82])
    assert expected == received == {"player_0": 232.0, "player_1": -232.0}
    assert state.returns() == [232.0, -232.0]


def test_the_deal_passes_left_every_hand_with_four_players_r_rummy_04():
    env = rummy_v0.env(num_players=4, episode="game", target_score=150)
    env.reset(seed=11)
    dealers = [env.unwrapped.game_state.dealer]
    hands = 0
    for _ in random_playthrough(env, np.random.default_rng(0)):
        state = env.unwrapped.game_state
        if state.hands_played > hands and not state.is_terminal():
            hands = state.hands_played
            dealers.append(state.dealer)
            assert state.current == (state.dealer + 1) % 4  # R-RUMMY-05
    assert dealers == [0, 1, 2]


def test_turn_limit_in_a_game_ends_the_hand_and_max_hands_truncates_the_game_r_rummy_13():
    env = scripted_env([P0, P1], upcard="QS", stock=["6S", "TD"], max_turns=2, episode="game", max_hands=2)
    play(env, "draw stock", "discard 6S", "draw stock", "discard TD")
    # the hand ended with no winner and no score; the next dealer (player_0) deals
    state = env.unwrapped.game_state
    assert not any(env.truncations.values()) and not any(env.terminations.values())
    assert state.hands_played == 1 and state.dealer == 0 and env.agent_selection == "player_1"
    assert env.infos["player_0"] == {"hand_score": 0, "total_score": 0, "hand": 1, "winner": "", "rummy": False}
    # the second hand reaches the limit too: 2 hands without a game winner truncate the game
    for _ in range(2):
        play(env, "draw stock")
        hand = state.hands[state.current]
        play(env, f"discard {card_str((hand & -hand).bit_length() - 1)}")
    assert all(env.truncations.values()) and not any(env.terminations.values())
    assert env._cumulative_rewards == {"player_0": 0.0, "player_1": 0.0}


def test_turn_limit_truncates_with_zero_scores_r_rummy_13():
    env = scripted_env([P0, P1], upcard="QS", stock=["6S", "TD"], max_turns=2)
    play(env, "draw stock", "discard 6S", "draw stock", "discard TD")
    infos, rewards, terms, truncs = final(env)
    assert infos == {"player_0": {"hand_score": 0, "total_score": 0}, "player_1": {"hand_score": 0, "total_score": 0}}
    assert rewards == {"player_0": 0.0, "player_1": 0.0}
    assert all(truncs.values()) and not any(terms.values())
    assert env.infos["player_0"]["winner"] == ""
