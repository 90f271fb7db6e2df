"""Each style of play makes its own decision in a scripted position (stacked decks)
where the default heuristic decides otherwise."""

import numpy as np

from agents import make_agent
from rummy_env import crazy_rummy_v0, gin_rummy_v0, rummikub_v0, rummy_v0
from rummy_env.games import crazy_rummy, gin_rummy, rummikub, rummy
from tests.helpers import play, scripted_env


def moves(env, *styles):
    """The next move (text) of the heuristic in each style."""
    out = []
    for style in styles:
        agent = make_agent(f"heuristic:style={style}", env)
        obs = env.observe(env.agent_selection)
        action = agent.act(obs)
        assert obs["action_mask"][action] == 1
        out.append(env.unwrapped.action_to_string(action))
    return out


# ---------------------------------------------------------------- Gin Rummy
GIN_P1 = "QC JC 9C 8D 7D 4C TD KS QS JD"


def gin(hand, upcard, stock=("6S",), p1=GIN_P1):
    return scripted_env(gin_rummy_v0, gin_rummy.stack_deck([hand, p1], upcard=upcard, stock=stock, dealer=1), 1)


def test_the_gin_hunter_plays_on_for_gin_until_the_stock_runs_low():
    env = gin("3S 4S 5S 7H 8H 9H 2C 2D 2H KD", upcard="AC")
    play(env, "draw upcard")  # knocking with KD away leaves AC: 1 point
    assert moves(env, "default", "gin_hunter") == ["knock KD", "discard KD"]
    obs = env.observe(env.agent_selection)
    stock = env.unwrapped.layout.offset("stock_size")
    assert obs["observation"][stock] == 31
    low = {"observation": obs["observation"].copy(), "action_mask": obs["action_mask"]}
    low["observation"][stock] = 10  # the same hand with 10 cards left in the stock: it knocks
    hunter = make_agent("heuristic:style=gin_hunter", env)
    assert env.unwrapped.action_to_string(hunter.act(low)) == "knock KD"
    # with gin in hand it knocks at once (R-GIN-07)
    env = scripted_env(
        gin_rummy_v0,
        gin_rummy.stack_deck(["3S 4S 5S 6S 7H 8H 9H 2C 2D 2H", GIN_P1], upcard="TH", stock=["AC"], dealer=1),
        1,
        big_gin=False,
    )
    play(env, "draw upcard")
    assert moves(env, "default", "gin_hunter") == ["knock 7H", "knock 7H"]


def test_the_defensive_gin_player_keeps_the_card_next_to_the_opponents_pick():
    env = gin("3S 4S 5S 7D 8D 9D 2C 2D KH 6C", upcard="QH", stock=["TC", "AS"], p1="AC 3C 5D 6H 9S JD QS 4H 8C 7S")
    play(env, "pass", "draw upcard", "discard 9S", "draw stock")  # player_1 took QH; player_0 drew TC
    # KH and TC both leave 20 points; KH is next to QH, which player_1 picked and holds
    assert moves(env, "default", "defensive", "gin_hunter", "upcard_meld_only") == [
        "discard KH",
        "discard TC",
        "discard KH",
        "discard KH",
    ]


def test_the_simple_gin_player_takes_the_upcard_only_into_a_meld():
    # AC lowers the deadwood (KD goes) but melds with nothing
    env = gin("3S 4S 5S 7H 8H 9H 2C 2D 2H KD", upcard="AC")
    assert moves(env, "default", "upcard_meld_only") == ["draw upcard", "pass"]
    env = gin("3S 4S 5S 7H 8H 9H 2C 2D 2H KD", upcard="6S", stock=("AC",))  # 6S extends 3S-5S
    assert moves(env, "default", "upcard_meld_only") == ["draw upcard", "draw upcard"]


# ---------------------------------------------------------------- basic Rummy
RUMMY_P1 = "AC 3D 5C 6C TS QC QD 7S 4D 8D"


def rummy_env(hand, stock, p1=RUMMY_P1, upcard="2C"):
    return scripted_env(rummy_v0, rummy.stack_deck([hand, p1], upcard=upcard, stock=stock, dealer=1), 1)


def test_go_rummy_goes_out_in_one_turn_where_the_biggest_meld_first_cannot():
    env = rummy_env("6H 7H 8H 9H 9C 9D 2S 3S 4S 5S", ["KC"], p1="AC AD 5C 6C 9S JC QD KH 4D 8D", upcard="QS")
    play(env, "draw stock")
    # the default puts down 6H..9H first and is left with 9C 9D
    assert moves(env, "default", "go_rummy") == ["meld 6H 7H 8H 9H", "meld 9C 9D 9H"]
    played = []
    while not env.terminations["player_0"]:
        played.append(moves(env, "go_rummy")[0])
        play(env, played[-1])
    assert played == ["meld 9C 9D 9H", "meld 6H 7H 8H", "meld 2S 3S 4S 5S", "discard KC"]
    # nothing laid down before: going rummy doubles player_1's 64 points (R-RUMMY-15, 16)
    assert env.unwrapped.game_state.last_hand["hand_scores"] == [128, 0]
    assert env.unwrapped.game_state.last_hand["rummy"]


def test_go_rummy_holds_its_meld_and_never_discards_from_it():
    env = rummy_env("6H 7H 8H 2C 5D 9S JC KD 4S AD", ["3C", "7C"], upcard="QS")
    play(env, "draw stock")
    assert moves(env, "default", "go_rummy", "shed_high") == ["meld 6H 7H 8H", "discard KD", "meld 6H 7H 8H"]


def test_the_defensive_rummy_player_discards_away_from_the_next_players_pick():
    env = rummy_env("KH JC 2S 3S 5D 6D 8C 4H 9S AD", ["QH", "7H"])
    play(env, "draw stock", "discard QH", "draw discard", "discard 7S", "draw stock")
    # loose cards: KH JC 8C 4H 9S AD 7H; KH is next to QH (player_1 took it), 9S next to
    # 7S (player_1 threw it away): the safest is 9S
    assert moves(env, "default", "defensive", "go_rummy") == ["discard KH", "discard 9S", "discard KH"]


def test_shed_high_discards_its_highest_card_even_from_a_pair():
    env = rummy_env("KC KD 2S 3S 5D 6D 8C 4H 9S AD", ["7H"])
    play(env, "draw stock")
    assert moves(env, "default", "shed_high", "defensive") == ["discard 9S", "discard KD", "discard 9S"]


# ---------------------------------------------------------------- Crazy Rummy
CRAZY_OTHERS = ["AC 2C 3C 9S TD JD 6H", "9C TC JC KC 2D 3D 4D"]


def crazy(first_hand, stock=()):  # fives wild; player_0 starts with 8 cards
    deck = crazy_rummy.stack_deck([first_hand, *CRAZY_OTHERS], stock=stock, dealer=2)
    return scripted_env(crazy_rummy_v0, deck, 2, wild_rank=5)


def test_hold_wilds_melds_only_natural_cards():
    env = crazy("6S 7S 8S 5C 2H 3H KD QC")  # 5C may stand for 5S
    assert moves(env, "default", "hold_wilds", "shed_high") == ["meld 5S 6S 7S 8S", "meld 6S 7S 8S", "meld 5S 6S 7S 8S"]


def test_crazy_shed_high_discards_its_highest_penalty_even_from_a_partial_meld():
    env = crazy("6S 7S 8S 2H 3H KD QD 8C")
    play(env, "meld 6S 7S 8S")
    assert moves(env, "default", "shed_high", "hold_wilds") == ["discard 8C", "discard KD", "discard 8C"]


def test_the_defensive_crazy_player_discards_away_from_the_next_players_pick():
    env = crazy("QH KH 9D 2S 7C 4H AD 3S", stock=["8H", "6C"])
    play(env, "discard QH", "draw discard", "discard 9S", "draw stock", "discard KC", "draw stock")
    # player_1 took QH: KH is near it (2), and near KC on the pile (-1); 9D is near 9S (-1)
    assert moves(env, "default", "defensive") == ["discard KH", "discard 9D"]


def test_hold_wilds_safe_discards_the_card_with_the_fewest_partners():
    env = crazy("KD QD KH QH 2H 3H 8S 7S")
    # every card is in a partial meld: each king and queen with two of the hand, 2H 3H 8S 7S
    # with one; the others shed a 10-point card, hold_wilds_safe the highest of the four (8S),
    # the next player having shown nothing (no risk to break the tie, R-CRAZY-12 penalties)
    assert moves(env, "default", "hold_wilds", "defensive", "hold_wilds_safe") == [
        *("discard KH", "discard KH", "discard KH", "discard 8S")
    ]
    # partners before safety: player_1 took KH from the discard pile (R-CRAZY-06), so it is
    # known; player_0 holds 9H 8D QH 4H 8H 4S JH and draws QD.
    # The safest card, 9H (near 9S on the pile), has two partners (8H, JH), which defensive does
    # not count; of the four cards with one partner (8D, QD, 4H, 4S, none near KH) it sheds QD,
    # the highest penalty (R-CRAZY-12: 10 points), no card of the wild rank (R-CRAZY-02: fives)
    env = crazy("KH 9H 8D QH 4H 8H 4S JH", stock=["QS", "QD"])
    play(env, "discard KH", "draw discard", "discard 9S", "draw stock", "discard KC", "draw stock")
    assert moves(env, "default", "defensive", "hold_wilds", "hold_wilds_safe") == [
        *("discard QH", "discard 9H", "discard QH", "discard QD")
    ]


# ---------------------------------------------------------------- Rummikub
def rummikub_turn(style, rack0, forced=()):
    """The moves of ``style`` in player_0's turn after ``forced`` moves."""
    rack1 = "R5 R6 B6 K7 Y8 R9 B10 K12 Y2 Y3 B2 R8 K9 K1"
    env = rummikub_v0.env()
    env.reset(seed=0, options={"deck": rummikub.stack_pool([rack0, rack1]), "first_player": 0})
    play(env, *forced)
    agent = make_agent(f"heuristic:style={style}", env)
    out = []
    while env.agent_selection == "player_0" and not env.terminations["player_0"]:
        action = agent.act(env.observe("player_0"))
        out.append(env.unwrapped.action_to_string(action))
        env.step(action)
    return out


RACK = "Y10 Y11 Y12 R13 B13 R1 R2 R4 JK K3 Y6 B8 K11 B4"


def test_rummikub_styles_make_different_initial_melds():
    # the most points: R13 B13 JK and Y10..Y12 (72); the most tiles: R1 R2 JK R4 and Y10..Y12 (7 tiles)
    assert rummikub_turn("default", RACK) == ["add R13", "add B13", "add Y10", "add Y11", "add Y12", "add JK", "commit"]
    assert rummikub_turn("most_tiles", RACK) == [
        *("add R1", "add R2", "add R4", "add Y10", "add Y11", "add Y12", "add JK", "commit")
    ]
    # the joker stays back: Y10..Y12 alone make the 30 points (R-RK-07); patient keeps it too
    assert rummikub_turn("hold_jokers", RACK) == ["add Y10", "add Y11", "add Y12", "commit"]
    assert rummikub_turn("patient", RACK) == ["add Y10", "add Y11", "add Y12", "commit"]


def test_big_plays_waits_for_a_play_of_half_its_rack():
    # after an initial meld of K3..K9 (forced), 7 tiles left: R13 B13 Y13 is 3 of them (< half):
    # big_plays draws where max-play and most_tiles play it; with R10 R11 R12 instead of B2 Y5 R7 B9
    # the best play is 6 of 7 tiles, and big_plays plays it too
    first = [f"add K{v}" for v in range(3, 10)] + ["commit", "draw"]
    small = "K3 K4 K5 K6 K7 K8 K9 R13 B13 Y13 B2 Y5 R7 B9"
    assert rummikub_turn("default", small, first) == ["add R13", "add B13", "add Y13", "commit"]
    assert rummikub_turn("most_tiles", small, first) == ["add R13", "add B13", "add Y13", "commit"]
    assert rummikub_turn("big_plays", small, first) == ["draw"]
    big = "K3 K4 K5 K6 K7 K8 K9 R13 B13 Y13 R10 R11 R12 B2"
    assert rummikub_turn("big_plays", big, first) == [
        *("add R10", "add R11", "add R12", "add R13", "add B13", "add Y13", "commit")
    ]
    # exactly half: after K2..K9, R13 B13 Y13 is 3 of the 6 tiles left
    half = "K2 K3 K4 K5 K6 K7 K8 K9 R13 B13 Y13 B2 Y5 R7"
    first_half = [f"add K{v}" for v in range(2, 10)] + ["commit", "draw"]
    assert rummikub_turn("big_plays", half, first_half) == ["add R13", "add B13", "add Y13", "commit"]
    # its initial meld is max-play's (as soon as it can, the most points)
    assert rummikub_turn("big_plays", small) == [
        *("add R13", "add B13", "add K3", "add K4", "add K5", "add K6", "add K7", "add K8", "add K9", "add Y13"),
        "commit",
    ]


def test_hold_jokers_plays_its_joker_to_go_out():
    rack = "Y10 Y11 Y12 K1 K2 K3 K4 K5 K6 K7 K8 R13 B13 JK"
    first = [f"add K{v}" for v in range(1, 9)] + ["add Y10", "add Y11", "add Y12", "commit", "draw"]
    assert rummikub_turn("hold_jokers", rack, first) == ["add R13", "add B13", "add JK", "commit"]


def test_big_plays_plays_as_max_play_once_the_pool_is_empty():
    # an observation written by hand: after the initial meld (K3..K9 on the table), R13 B13 Y13
    # is 3 of 7 rack tiles; with tiles in the pool big_plays draws, with the pool empty
    # (R-RK-11: drawing is passing) it plays as max-play does
    from rummy_env.core.tiles import parse_counts
    from rummy_env.games.rummikub import DRAW

    env = rummikub_v0.env()
    env.reset(seed=0)
    layout = env.unwrapped.layout
    agent = make_agent("heuristic:style=big_plays", env)
    obs = np.zeros(layout.size, np.float32)
    obs[layout.slice("rack")] = parse_counts("R13 B13 Y13 B2 Y5 R7 B9")
    obs[layout.slice("table")] = parse_counts("K3 K4 K5 K6 K7 K8 K9")
    obs[layout.slice("initial_meld").start] = 1  # its own
    mask = np.zeros(env.unwrapped.num_actions, np.int8)
    mask[np.flatnonzero(obs[layout.slice("rack")])] = 1
    mask[DRAW] = 1
    for pool, first in [(10.0, DRAW), (0.0, env.unwrapped.string_to_action("add R13"))]:
        obs[layout.slice("pool_size")] = pool
        assert agent.act({"observation": obs, "action_mask": mask}) == first
