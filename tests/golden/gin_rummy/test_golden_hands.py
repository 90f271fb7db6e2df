"""Golden hands of ``gin_rummy_v0``: stacked decks, scripted moves, exact scores.

Card values (R-GIN-01): A = 1, 2..10 face value, J Q K = 10.  In every deal below
player_1 deals, so player_0 is offered the upcard first (R-GIN-03); "pass", "pass"
makes player_0 draw the top card of the stock (not a decision).
"""

import numpy as np
import pytest

from rummy_env import gin_rummy_v0
from rummy_env.core.cards import parse_deck
from rummy_env.games.gin_rummy import stack_deck
from tests import helpers
from tests.helpers import play

MELDS_AND_KD = "3S 4S 5S 7H 8H 9H 2C 2D 2H KD"  # 2C 2D 2H, 7H 8H 9H, 3S 4S 5S; KD = 10
NO_MELD_88 = "QC JC 9C 8D 7D 4C TD KS QS JD"  # 10+10+9+8+7+4+10+10+10+10 = 88, nothing to lay off


def scripted_env(hands, upcard, stock=(), dealer=1, **options):
    return helpers.scripted_env(
        gin_rummy_v0, stack_deck(hands, upcard=upcard, stock=stock, dealer=dealer), dealer, **options
    )


def scores(env):
    return {a: (env.infos[a]["hand_score"], env.infos[a]["total_score"]) for a in env.possible_agents}


def showdown_facts(env):
    keys = (
        "result",
        "winner",
        "knocker",
        "knocker_melds",
        "knocker_deadwood",
        "defender_melds",
        "layoffs",
        "defender_deadwood",
    )
    facts = {k: env.infos["player_0"][k] for k in keys}
    assert facts == {k: env.infos["player_1"][k] for k in keys}  # public: the same for both
    return facts


def test_knock_scores_the_difference_r_gin_10():
    env = scripted_env([MELDS_AND_KD, NO_MELD_88], upcard="AC")
    play(env, "draw upcard", "knock KD")  # keeps AC: 1 point of deadwood
    assert scores(env) == {"player_0": (87, 87), "player_1": (0, 0)}  # 88 - 1
    assert showdown_facts(env) == {
        "result": "knock",
        "winner": "player_0",
        "knocker": "player_0",
        "knocker_melds": "2C 2D 2H | 7H 8H 9H | 3S 4S 5S",
        "knocker_deadwood": 1,
        "defender_melds": "",
        "layoffs": "",
        "defender_deadwood": 88,
    }
    assert env.infos["player_0"]["knocker_deadwood_cards"] == "AC"
    assert env._cumulative_rewards == {"player_0": 1.0, "player_1": -1.0}
    assert all(env.terminations.values()) and not any(env.truncations.values())


@pytest.mark.parametrize(
    "p1, p1_deadwood, points",
    [
        ("JC QC KC 5D 6D 7D 8S 8C 8D 9D", 9, 25),  # equal deadwood: 0 + 25 (5D-9D would leave 16)
        ("JC QC KC 5D 6D 7D 8S 8C 8D 5C", 5, 29),  # 9 - 5 + 25
    ],
)
def test_undercut_including_an_equal_deadwood_tie_r_gin_11(p1, p1_deadwood, points):
    env = scripted_env(["3S 4S 5S 7H 8H 9H 2C 2D 2H 9C", p1], upcard="KH", stock=["KS"], reward="score")
    play(env, "pass", "pass", "knock KS")  # player_0 keeps 9C: 9 points
    assert scores(env) == {"player_0": (0, 0), "player_1": (points, points)}
    facts = showdown_facts(env)
    assert facts["result"] == "undercut" and facts["winner"] == "player_1" and facts["knocker"] == "player_0"
    assert facts["knocker_deadwood"] == 9 and facts["defender_deadwood"] == p1_deadwood
    assert facts["defender_melds"] == "8C 8D 8S | JC QC KC | 5D 6D 7D"
    assert env._cumulative_rewards == {"player_0": -points, "player_1": points}


def test_gin_scores_the_defenders_deadwood_plus_25_without_lay_offs_r_gin_12():
    # player_1's 7S would fit 3S-6S and TH 7H-9H, but no one lays off against gin (R-GIN-08)
    env = scripted_env([MELDS_AND_KD, "7S TH QC JC 9C 8D 7D 4C KS QS"], upcard="AC", stock=["6S"])
    play(env, "pass", "pass", "knock KD")
    assert scores(env) == {"player_0": (85 + 25, 110), "player_1": (0, 0)}
    facts = showdown_facts(env)
    assert facts["result"] == "gin" and facts["knocker_deadwood"] == 0 and facts["layoffs"] == ""
    assert facts["knocker_melds"] == "2C 2D 2H | 7H 8H 9H | 3S 4S 5S 6S" and facts["defender_deadwood"] == 85


def test_big_gin_scores_the_defenders_deadwood_plus_31_r_gin_07_12():
    env = scripted_env(["3S 4S 5S 6S 7H 8H 9H 2C 2D 2H", "7S QC JC 9C 8D 7D 4C KS QS AD"], upcard="TH")
    play(env, "draw upcard", "big gin")  # eleven cards in melds, no discard
    assert scores(env) == {"player_0": (76 + 31, 107), "player_1": (0, 0)}
    facts = showdown_facts(env)
    assert facts["result"] == "big gin" and facts["knocker_melds"] == "2C 2D 2H | 7H 8H 9H TH | 3S 4S 5S 6S"
    assert facts["layoffs"] == "" and facts["defender_deadwood"] == 76


def test_dead_hand_when_the_50th_card_is_discarded_r_gin_09():
    env = scripted_env([MELDS_AND_KD, NO_MELD_88], upcard="AC")
    stock = parse_deck(stack_deck([MELDS_AND_KD, NO_MELD_88], upcard="AC", dealer=1))[21:]
    play(env, "pass", "pass")  # player_0 draws the 22nd card dealt out
    lay = env.unwrapped.layout
    for drawn in range(29):  # draws 22..50: discard each card drawn, never knock
        if drawn:
            play(env, "draw stock")
        agent = env.agent_selection
        stock_size = env.observe(agent)["observation"][lay.slice("stock_size")][0]
        assert stock_size == 30 - drawn and not any(env.terminations.values())
        play(env, f"discard {env.unwrapped.action_to_string(stock[drawn])[8:]}")
    assert stock_size == 2 and all(env.terminations.values())
    assert scores(env) == {"player_0": (0, 0), "player_1": (0, 0)}
    assert env.infos["player_0"]["result"] == "dead hand" and env.infos["player_0"]["winner"] == ""
    assert env.infos["player_0"]["knocker_melds"] == "" and env.infos["player_0"]["defender_deadwood"] == -1
    assert env._cumulative_rewards == {"player_0": 0.0, "player_1": 0.0}


def test_oklahoma_first_upcard_sets_the_knock_limit_r_gin_14():
    hand = "3S 4S 5S 7H 8H 9H 2C 2D 2H AD"
    env = scripted_env([hand, NO_MELD_88], upcard="3C", stock=["4D"], oklahoma=True)
    lay = env.unwrapped.layout
    assert env.observe("player_0")["observation"][lay.slice("knock_limit")].tolist() == [3.0]
    play(env, "pass", "pass")  # player_0 draws 4D
    mask = env.observe("player_0")["action_mask"]
    knocks = [env.unwrapped.action_to_string(a) for a in np.flatnonzero(mask) if 52 <= a < 104]
    assert knocks == ["knock 4D"]  # keeping AD (1 <= 3); keeping 4D (4) is over the limit
    play(env, "knock 4D")
    assert scores(env)["player_0"] == (87, 87)
    # an ace upcard means gin only
    env = scripted_env([hand, NO_MELD_88], upcard="AS", stock=["4D"], oklahoma=True)
    play(env, "pass", "pass")
    assert not [a for a in np.flatnonzero(env.observe("player_0")["action_mask"]) if 52 <= a < 104]


GIN_100 = ([MELDS_AND_KD, "7S TH QC JC 9C 8D 6D 4C KS AS"], "AC", ["6S"])  # gin: 75 + 25 = 100


@pytest.mark.parametrize("target, over", [(100, True), (101, False)])
def test_game_ends_when_a_total_reaches_the_target_r_gin_13(target, over):
    hands, upcard, stock = GIN_100
    env = scripted_env(hands, upcard, stock, episode="game", target_score=target)
    play(env, "pass", "pass", "knock KD")
    assert scores(env) == {"player_0": (100, 100), "player_1": (0, 0)} and env.infos["player_0"]["hand"] == 1
    assert env.infos["player_0"]["game_bonus"] == 0
    if over:
        assert all(env.terminations.values()) and env._cumulative_rewards == {"player_0": 1.0, "player_1": -1.0}
    else:
        # the winner deals the next hand (R-GIN-02): player_1 is offered the upcard
        assert not any(env.terminations.values()) and env.unwrapped.game_state.dealer == 0
        assert env.agent_selection == "player_1" and env._cumulative_rewards == {"player_0": 0.0, "player_1": 0.0}
        obs = env.observe("player_0")["observation"]
        assert obs[env.unwrapped.layout.slice("scores")].tolist() == [100.0, 0.0]


def test_game_bonuses_with_a_shutout_r_gin_13():
    hands, upcard, stock = GIN_100
    env = scripted_env(hands, upcard, stock, episode="game", game_bonuses=True, reward="score")
    play(env, "pass", "pass", "knock KD")
    # 100 points + 100 for the game + 25 for the hand won, doubled: player_1 won no hand
    assert scores(env) == {"player_0": (100, 2 * (100 + 100 + 25)), "player_1": (0, 0)}
    assert env.infos["player_0"]["game_bonus"] == 350 and env.infos["player_1"]["game_bonus"] == 0
    assert env._cumulative_rewards == {"player_0": 450.0, "player_1": -450.0}


class StackedDecks:
    """Stands in for the state's generator: the next hands are dealt from these decks."""

    def __init__(self, *decks):
        self.decks = [np.array(parse_deck(d)) for d in decks]

    def permutation(self, n):
        return self.decks.pop(0)


@pytest.mark.parametrize(
    "bonuses, totals, rewards",
    [
        (False, (100, 25), {"player_0": 1.0, "player_1": -1.0}),
        (True, (100 + 100 + 25, 25 + 25), {"player_0": 1.0, "player_1": -1.0}),
    ],
)
def test_a_two_hand_game_with_and_without_bonuses_r_gin_13(bonuses, totals, rewards):
    # hand 1: player_1 undercuts (25) and so deals hand 2, where player_0 goes gin (100)
    env = scripted_env(
        ["3S 4S 5S 7H 8H 9H 2C 2D 2H 9C", "JC QC KC 5D 6D 7D 8S 8C 8D 9D"],
        upcard="KH",
        stock=["KS"],
        episode="game",
        game_bonuses=bonuses,
    )
    hands, upcard, stock = GIN_100
    env.unwrapped.game_state.rng = StackedDecks(stack_deck(hands, upcard=upcard, stock=stock, dealer=1))
    play(env, "pass", "pass", "knock KS")
    assert scores(env) == {"player_0": (0, 0), "player_1": (25, 25)} and env.unwrapped.game_state.dealer == 1
    assert env._cumulative_rewards == {"player_0": 0.0, "player_1": 0.0}
    play(env, "pass", "pass", "knock KD")
    assert scores(env) == {"player_0": (100, totals[0]), "player_1": (0, totals[1])}
    assert env.infos["player_0"]["hand"] == 2 and all(env.terminations.values())
    assert env._cumulative_rewards == rewards  # no shutout: player_1 won a hand


def test_defender_lays_off_from_a_meld_it_could_have_kept_r_gin_08():
    # player_1's four sevens are a meld; laying off 7D (7C 7H 7S stay a set) lets 8D go
    # onto 4D-6D after it: 37 points left instead of 45
    env = scripted_env(["4D 5D 6D 2C 3C 4C JS QS KS 3H", "7C 7D 7H 7S 8D QH JH 9C 6S 2H"], upcard="AS", stock=["KH"])
    play(env, "pass", "pass", "knock KH")  # player_0 keeps 3H: 3 points
    facts = showdown_facts(env)
    assert facts["layoffs"] == "7D on 4D 5D 6D | 8D on 4D 5D 6D"
    assert facts["defender_melds"] == "7C 7H 7S" and facts["defender_deadwood"] == 10 + 10 + 9 + 6 + 2
    assert facts["knocker_melds"] == "2C 3C 4C | 4D 5D 6D | JS QS KS" and facts["knocker_deadwood"] == 3
    assert env.infos["player_1"]["defender_deadwood_cards"] == "9C 2H JH QH 6S"
    assert scores(env)["player_0"] == (34, 34)


def test_lay_off_onto_a_meld_already_extended_r_gin_08():
    env = scripted_env(["5H 6H 7H 2C 3C 4C JS QS KS 3D", "8H 9H QC JC 9C 8S 7D 4S 2D AD"], upcard="AS", stock=["KD"])
    play(env, "pass", "pass", "knock KD")
    facts = showdown_facts(env)
    assert facts["layoffs"] == "8H on 5H 6H 7H | 9H on 5H 6H 7H"  # 9H fits only after 8H
    assert facts["defender_deadwood"] == 68 - 8 - 9 and scores(env)["player_0"] == (51 - 3, 48)


def test_knocker_lays_out_to_leave_the_defender_the_most_deadwood_r_gin_06():
    # two arrangements keep AD 2D 2C (5 points); the defender's 4S fits 5S-8S, not 6S-8S
    env = scripted_env(["5C 5D 5H 5S 6S 7S 8S AD 2D 2C", "4S KC QD JD 9H 9C TC 3H 7D KH"], upcard="AS", stock=["KS"])
    play(env, "pass", "pass", "knock KS")
    facts = showdown_facts(env)
    assert facts["knocker_melds"] == "5C 5D 5H 5S | 6S 7S 8S" and facts["layoffs"] == ""
    assert facts["defender_deadwood"] == 82 and scores(env)["player_0"] == (77, 77)


def test_the_final_observation_shows_the_showdown_to_both():
    env = scripted_env(["4D 5D 6D 2C 3C 4C JS QS KS 3H", "7C 7D 7H 7S 8D QH JH 9C 6S 2H"], upcard="AS", stock=["KH"])
    play(env, "pass", "pass", "knock KH")
    lay = env.unwrapped.layout
    from rummy_env.core.cards import parse_cards

    def plane(agent, name):
        return np.flatnonzero(env.observe(agent)["observation"][lay.slice(name)]).tolist()

    for agent in env.possible_agents:
        assert plane(agent, "knocker_melds") == sorted(parse_cards("4D 5D 6D 2C 3C 4C JS QS KS"))
        assert plane(agent, "layoffs") == sorted(parse_cards("7D 8D"))
        assert plane(agent, "defender_melds") == sorted(parse_cards("7C 7H 7S"))
    assert plane("player_0", "opponent_known") == sorted(parse_cards("7C 7D 7H 7S 8D QH JH 9C 6S 2H"))
    assert plane("player_1", "opponent_known") == sorted(parse_cards("4D 5D 6D 2C 3C 4C JS QS KS 3H"))
    o0 = env.observe("player_0")["observation"]
    assert o0[lay.slice("knocker")].tolist() == [1.0, 0.0] and o0[lay.slice("showdown_deadwood")].tolist() == [
        3.0,
        37.0,
    ]
    o1 = env.observe("player_1")["observation"]
    assert o1[lay.slice("knocker")].tolist() == [0.0, 1.0] and o1[lay.slice("showdown_deadwood")].tolist() == [
        37.0,
        3.0,
    ]
    assert o1[lay.slice("phase")].sum() == 0 and env.observe("player_0")["action_mask"].sum() == 0
