"""Golden rounds of ``crazy_rummy_v0``: stacked decks, scripted moves, exact results.

Penalties (R-CRAZY-12): a wild card 25, ace 1, 2..10 face value, J Q K 10.  Three
players, dealer player_2, so player_0 (8 cards) starts without drawing (R-CRAZY-06).
"""

import numpy as np
import pytest

from rummy_env import crazy_rummy_v0
from rummy_env.core.cards import parse_cards
from rummy_env.games.crazy_rummy import stack_deck
from tests.helpers import legal_texts, play, random_playthrough, scripted_env


def deal(hands, stock=(), wild_rank=13, **options):
    return scripted_env(crazy_rummy_v0, stack_deck(hands, stock=stock, dealer=2), 2, wild_rank=wild_rank, **options)


def plane(env, agent, name):
    lay = env.unwrapped.layout
    return np.flatnonzero(env.observe(agent)["observation"][lay.slice(name)]).tolist()


def test_first_player_melds_without_drawing_and_names_the_wild_card_r_crazy_05_06():
    # fives are wild (round 5): 5C fills the missing 9S of 7S 8S _
    env = deal(["7S 8S 5C 2H 3H 4H KD QC", "AC 2C 3C 9S TD JD 6H", "9C TC JC KC 2D 3D 4D"], wild_rank=5)
    assert env.agent_selection == "player_0"
    # no draw (R-CRAZY-06): any discard, the melds 5C completes (as itself or another card)
    assert legal_texts(env) == [
        "discard 5C", "discard QC", "discard KD", "discard 2H", "discard 3H", "discard 4H", "discard 7S",
        "discard 8S", "meld AH 2H 3H", "meld AH 2H 3H 4H", "meld 2H 3H 4H", "meld 2H 3H 4H 5H", "meld 3H 4H 5H",
        "meld 6S 7S 8S", "meld 7S 8S 9S",
    ]  # fmt: skip
    play(env, "meld 7S 8S 9S")
    state = env.unwrapped.game_state
    [meld] = list(state.table)
    assert meld.cards() == parse_cards("7S 8S 9S") and meld.physical() == parse_cards("7S 8S 5C")
    assert plane(env, "player_1", "wild_C") == parse_cards("9S")  # the clubs wild stands for 9S
    assert plane(env, "player_1", "table_natural") == sorted(parse_cards("7S 8S"))
    env.unwrapped.render_mode = "ansi"
    assert "7S 8S 5C=9S" in env.unwrapped.render()


def test_swap_needs_a_meld_first_r_crazy_07():
    env = deal(["7S 8S 5C 2H 3H 4H KD QC", "AC 2C 3C 9S TD JD 6H", "9C TC JC KC 2D 3D 4D"], stock=["6C"], wild_rank=5)
    play(env, "meld 7S 8S 9S", "meld 2H 3H 4H", "discard KD", "draw stock")
    assert env.agent_selection == "player_1"
    # no meld yet: no swap, no lay-off
    assert legal_texts(env) == [
        "discard AC", "discard 2C", "discard 3C", "discard 6C", "discard TD", "discard JD", "discard 6H",
        "discard 9S", "meld AC 2C 3C",
    ]  # fmt: skip
    play(env, "meld AC 2C 3C")
    assert legal_texts(env) == ["discard 6C", "discard TD", "discard JD", "discard 6H", "discard 9S", "swap 9S"]
    play(env, "swap 9S")
    state = env.unwrapped.game_state
    assert list(state.table)[0].physical() == parse_cards("7S 8S 9S")
    assert state.hands[1] >> parse_cards("5C")[0] & 1
    # the wild card came off the table face up: the others know player_1 holds it
    assert plane(env, "player_0", "known_1") == parse_cards("5C") and plane(env, "player_0", "wild_C") == []
    # holding the wild card, player_1 may now lay it off standing for a card a meld needs,
    # or meld with it
    assert legal_texts(env) == [
        "discard 5C", "discard 6C", "discard TD", "discard JD", "discard 6H", "meld 6C 6D 6H", "meld 6C 6H 6S",
        "meld 9D TD JD", "meld TD JD QD", "layoff 4C high", "layoff AH low", "layoff 5H high", "layoff 6S low",
        "layoff TS high",
    ]  # fmt: skip


def test_natural_card_stood_for_by_a_wild_can_only_be_swapped_in_r_crazy_05a():
    env = deal(["7S 8S 5C 2H 3H 4H KD QC", "AC 2C 3C 9S TD JD 6H", "9C TC JC KC 2D 3D 4D"], stock=["6C"], wild_rank=5)
    play(env, "meld 7S 8S 9S", "meld 2H 3H 4H", "discard KD", "draw stock")
    texts = legal_texts(env)
    assert not any("9S" in t for t in texts if t.startswith("meld"))  # 9S is on the table already
    assert "meld 9S TS JS" not in texts


def test_a_set_never_grows_past_four_cards_r_crazy_04():
    # kings are wild: KC stands for 7H; 7S completes the set; KD cannot make a fifth seven
    env = deal(["7C 7D KC 7S KD 2H 3H QC", "AC 2C 3C 9S TD JD 6H", "9C TC JC 5C 2D 3D 4D"])
    play(env, "meld 7C 7D 7H")
    assert legal_texts(env) == [
        "discard QC", "discard KD", "discard 2H", "discard 3H", "discard 7S", "meld AH 2H 3H", "meld 2H 3H 4H",
        "layoff 7S set",
    ]  # fmt: skip
    play(env, "layoff 7S set")
    # KD cannot stand for a fifth seven: no lay-off left
    assert legal_texts(env) == [
        "discard QC",
        "discard KD",
        "discard 2H",
        "discard 3H",
        "meld AH 2H 3H",
        "meld 2H 3H 4H",
    ]
    [meld] = list(env.unwrapped.game_state.table)
    assert meld.cards() == sorted(parse_cards("7C 7D 7H 7S")) and meld.wilds == {
        parse_cards("7H")[0]: parse_cards("KC")[0]
    }


def test_the_ace_never_goes_above_the_king_r_crazy_01_04():
    # fives are wild: 5C fills JS, 5D stays in hand
    env = deal(["QS KS 5C 5D AS 2H 3H 9D", "AC 2C 3C 9S TD JD 6H", "9C TC JC KC 2D 3D 4D"], wild_rank=5)
    # two wild cards: a meld of one natural card and two wilds, but no QS KS AS
    assert legal_texts(env) == [
        "discard 5C", "discard 5D", "discard 9D", "discard 2H", "discard 3H", "discard AS", "discard QS",
        "discard KS", "meld AC AD AS", "meld AC AH AS", "meld AD AH AS", "meld 2C 2D 2H", "meld 2C 2H 2S",
        "meld 2D 2H 2S", "meld 3C 3D 3H", "meld 3C 3H 3S", "meld 3D 3H 3S", "meld 9C 9D 9H", "meld 9C 9D 9S",
        "meld 9D 9H 9S", "meld QC QD QS", "meld QC QH QS", "meld QD QH QS", "meld KC KD KS", "meld KC KH KS",
        "meld KD KH KS", "meld 7D 8D 9D", "meld 8D 9D TD", "meld 9D TD JD", "meld AH 2H 3H", "meld AH 2H 3H 4H",
        "meld 2H 3H 4H", "meld 2H 3H 4H 5H", "meld 3H 4H 5H", "meld AS 2S 3S", "meld TS JS QS", "meld TS JS QS KS",
        "meld JS QS KS",
    ]  # fmt: skip
    play(env, "meld JS QS KS")
    # no layoff AS high: only TS below the run
    assert legal_texts(env) == [
        "discard 5D", "discard 9D", "discard 2H", "discard 3H", "discard AS", "meld AH 2H 3H", "meld 2H 3H 4H",
        "layoff TS low",
    ]  # fmt: skip


def test_going_out_discards_the_last_card_and_a_meld_may_not_empty_the_hand_r_crazy_09_12():
    # kings wild; player_1 melds a five-card run, keeping 9D TD JD, a meld it may not put down
    hands = ["2H 3H 4H 7S 8S 9S 6H 7H", "2C 3C 4C 5C 6C 9D TD", "9C TC JC KC 2D 3D 4D"]
    env = deal(hands, stock=["JD", "QC", "QH", "5H", "AS", "8D"])
    play(env, "meld 2H 3H 4H", "meld 7S 8S 9S", "discard 7H")  # player_0 keeps 6H
    play(env, "draw stock", "meld 2C 3C 4C 5C 6C")  # player_1 drew JD
    texts = legal_texts(env)
    assert "meld 9D TD JD" not in texts  # R-CRAZY-09: the last card must be discarded
    assert texts[:3] == ["discard 9D", "discard TD", "discard JD"]
    play(env, "discard JD", "draw stock", "discard QC")  # player_2
    # player_0 starts holding one card (R-CRAZY-10): stock only, then the old card goes
    assert env.agent_selection == "player_0" and legal_texts(env) == ["draw stock"]
    play(env, "draw stock")  # QH
    assert legal_texts(env) == ["discard 6H"]
    play(env, "discard 6H")
    play(env, "draw stock", "discard 5H", "draw stock", "discard AS")  # player_1 draws 5H; player_2 AS
    assert legal_texts(env) == ["draw stock"]  # player_0 holds QH only; 5H on the pile is refused
    play(env, "draw stock")  # 8D fits no meld
    assert legal_texts(env) == ["discard QH"]
    play(env, "discard QH")
    assert not any(env.terminations.values())


def test_one_card_rule_and_going_out_r_crazy_09_10_12():
    # kings wild.  player_0 keeps 6H; next turn it must draw from the stock, and then either
    # discards 6H (the card it held) or lays off the card drawn and goes out with 6H
    hands = ["2H 3H 4H 7S 8S 9S 6H 7H", "AC 2C 5C 8C 9D JD QD", "9C TC JC KC 2D 3D 4D"]
    env = deal(hands, stock=["TD", "QC", "5H"])
    play(env, "meld 2H 3H 4H", "meld 7S 8S 9S", "discard 7H")
    play(env, "draw stock", "discard TD", "draw stock", "discard QC")
    assert legal_texts(env) == ["draw stock"]  # QC on the discard pile may not be taken
    play(env, "draw stock")  # 5H
    assert legal_texts(env) == ["discard 6H", "layoff 5H high"]  # not "discard 5H"
    play(env, "layoff 5H high")
    # holding only 6H: laying it off would empty the hand; it must be discarded
    assert legal_texts(env) == ["discard 6H"]
    play(env, "discard 6H")
    assert all(env.terminations.values())
    infos = {a: (env.infos[a]["hand_score"], env.infos[a]["total_score"]) for a in env.agents}
    # player_1: A 2 5 8 9 J Q = 1+2+5+8+9+10+10 = 45; player_2: 9 10 J K(wild) 2 3 4 = 9+10+10+25+2+3+4 = 63
    assert infos == {"player_0": (0, 0), "player_1": (45, 45), "player_2": (63, 63)}
    assert env.infos["player_1"]["winner"] == "player_0" and env.infos["player_1"]["wild_rank"] == 13
    env.unwrapped.render_mode = "ansi"
    assert env.unwrapped.render().endswith("last round's penalties: player_0 0, player_1 45, player_2 63")
    assert env._cumulative_rewards == {"player_0": 1.0, "player_1": -0.5, "player_2": -0.5}


def test_score_reward_is_mean_penalty_minus_own():
    hands = ["2H 3H 4H 7S 8S 9S 6H 7H", "AC 2C 5C 8C 9D JD QD", "9C TC JC KC 2D 3D 4D"]
    env = deal(hands, stock=["TD", "QC", "5H"], reward="score")
    play(
        env,
        "meld 2H 3H 4H",
        "meld 7S 8S 9S",
        "discard 7H",
        "draw stock",
        "discard TD",
        "draw stock",
        "discard QC",
        "draw stock",
        "layoff 5H high",
        "discard 6H",
    )
    mean = (0 + 45 + 63) / 3
    assert env._cumulative_rewards == pytest.approx({"player_0": mean, "player_1": mean - 45, "player_2": mean - 63})


def test_round_ends_when_the_stock_is_emptied_r_crazy_11():
    # sevens wild.  Every turn draws from the stock and discards the card drawn; the
    # stock (52 - 22 = 30 cards) runs out on player_0's draw in the 31st turn
    hands = ["2H 5H 9H JS QS 3C 4D AD", "7C AC 2C 3S 4S 5S KD", "9C TC JC KC 6D 8D TD"]
    env = deal(hands, wild_rank=7)
    play(env, "discard AD")
    lay = env.unwrapped.layout
    for _ in range(30):
        agent = env.agent_selection
        before = env.observe(agent)["observation"][lay.slice("hand")].copy()
        play(env, "draw stock")
        drawn = int(np.flatnonzero(env.observe(agent)["observation"][lay.slice("hand")] - before)[0])
        assert env.agents and not any(env.terminations.values())
        env.step(drawn)
    assert agent == "player_0" and all(env.terminations.values())
    scores = {a: env.infos[a]["hand_score"] for a in env.agents}
    # player_0: 2+5+9+10+10+3+4 = 43; player_1: 7C wild 25 + 1+2+3+4+5+10 = 50; player_2: 9+10+10+10+6+8+10 = 63
    assert scores == {"player_0": 43, "player_1": 50, "player_2": 63}
    assert env.infos["player_0"]["winner"] == ""
    assert env._cumulative_rewards == {"player_0": 1.0, "player_1": -0.5, "player_2": -0.5}


def test_thirteen_rounds_wild_ranks_in_order_lowest_total_wins_r_crazy_02_03_13():
    env = crazy_rummy_v0.env(num_players=4, episode="game")
    env.reset(seed=7)
    rounds, dealers = [], [env.unwrapped.game_state.dealer]
    totals = {a: 0 for a in env.possible_agents}
    seen_hand = 0
    for agent, _, done in random_playthrough(env, np.random.default_rng(1)):
        if env.infos[agent].get("hand", 0) > seen_hand:
            seen_hand = env.infos[agent]["hand"]
            rounds.append(env.infos[agent]["wild_rank"])
            for a in env.possible_agents:
                totals[a] += env.infos[a]["hand_score"]
                assert env.infos[a]["total_score"] == totals[a]
            if not done:
                dealers.append(env.unwrapped.game_state.dealer)
    state = env.unwrapped.game_state
    assert rounds == list(range(1, 14)) and state.hands_played == 13
    assert [(d - dealers[0]) % 4 for d in dealers] == [r % 4 for r in range(13)]  # the deal passes left
    # R-CRAZY-13: the lowest total (player_1's 362) wins the game
    assert state.scores == [381, 362, 390, 379]
    assert state.returns() == pytest.approx([-1 / 3, 1.0, -1 / 3, -1 / 3])


def test_no_move_may_leave_only_the_card_taken_from_the_discard_pile_r_crazy_08_08a():
    # aces wild; player_1 takes 9C, which it may not discard this turn and which fits no meld
    env = deal(["2H 3H 4H 9C 5C 7D 8D QS", "5S 6S 7S TD JD QD KD", "9H TC JC KC 2D 3D 4D"], wild_rank=1)
    play(env, "discard 9C", "draw discard", "meld 5S 6S 7S")
    texts = legal_texts(env)
    assert "discard 9C" not in texts
    assert "meld TD JD QD KD" not in texts  # it would leave only 9C
    assert {"meld TD JD QD", "meld JD QD KD"} <= set(texts)
    play(env, "meld TD JD QD")
    assert legal_texts(env) == ["discard KD"]  # laying off KD would leave only 9C


def wild_swap_deal():
    # kings wild.  player_0 keeps 6C alone; player_1 melds 4C 5C with KC standing for 6C
    hands = ["7S 8S 9S 2H 3H 4H QD 6C", "4C 5C KC 9D TD JD 2S", "KD KH KS 8C 9H TH JH"]
    env = deal(hands, stock=["AS", "AD", "JC"])
    play(env, "meld 7S 8S 9S", "meld 2H 3H 4H", "discard QD")
    play(env, "draw stock", "meld 4C 5C 6C", "discard AS")
    return env


def test_a_wild_card_standing_in_for_a_card_blocks_that_card_everywhere_r_crazy_05a():
    env = wild_swap_deal()
    play(env, "draw stock")  # player_2 draws AD
    texts = legal_texts(env)
    assert "meld KD KH KS" in texts  # the wild rank played as itself (R-CRAZY-05)
    # KC is on the table (standing for 6C): no wild card may stand for it as well
    assert not {"meld KC KD KH", "meld KC KD KS", "meld KC KH KS", "meld KC KD KH KS"} & set(texts)


def test_a_wild_card_whose_natural_card_is_stood_for_fills_nothing_r_crazy_05a():
    # tens wild: player_0 melds 7S 8S 9S with TD standing for TS; player_1 holds the natural TS
    env = deal(["7S 8S 9S TD 2H 3H 4H KD", "4C 5C TS AD 6D 8D QC", "9C JC KC 2D 3D 4D 9H"], stock=["JH"], wild_rank=10)
    play(env, "meld 7S 8S 9S TS", "discard KD", "draw stock")  # player_1 draws JH
    texts = legal_texts(env)
    # TS is on the table through TD: it may not go down again as a wild card (only be swapped
    # in, after a meld); player_1 has no other wild card, so no meld needs one
    assert [t for t in texts if t.startswith("meld")] == []
    assert texts == [f"discard {c}" for c in ["4C", "5C", "QC", "AD", "6D", "8D", "JH", "TS"]]  # action id order


def test_swapping_the_card_held_before_the_draw_keeps_the_one_card_rule_r_crazy_10():
    env = wild_swap_deal()
    play(env, "draw stock", "discard AD")  # player_2
    assert legal_texts(env) == ["draw stock"]  # player_0 holds one card: 6C
    play(env, "draw stock")  # JC
    assert set(legal_texts(env)) == {"discard 6C", "swap 6C"}
    play(env, "swap 6C")  # 6C goes to the table, the wild KC comes to the hand
    texts = legal_texts(env)
    # the wild card took 6C's place: it must go unless going out; JC, just drawn, stays
    assert "discard KC" in texts and "discard JC" not in texts
    assert all(t == "discard KC" or t.startswith("layoff") for t in texts)
    play(env, "layoff 3C low")  # KC stands for 3C; JC is the last card
    assert legal_texts(env) == ["discard JC"]
    play(env, "discard JC")
    assert all(env.terminations.values()) and env.infos["player_0"]["hand_score"] == 0
