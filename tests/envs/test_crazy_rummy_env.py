"""``crazy_rummy_v0``'s own encoding and text (the generic env tests are in ``test_env_api.py``)."""

import numpy as np
import pytest

from rummy_env import crazy_rummy_v0
from rummy_env.core.cards import parse_cards
from rummy_env.games.crazy_rummy import NUM_ACTIONS, stack_deck
from tests.helpers import legal_texts, play, random_playthrough, scripted_env, whole

HANDS = ["7S 8S 5C 2H 3H 4H KD QC", "AC 2C 3C 9S TD JD 6H", "9C TC JC KC 2D 3D 4D"]


def test_space_sizes():
    for n in (3, 6):
        env = crazy_rummy_v0.env(num_players=n)
        agent = env.possible_agents[0]
        assert env.action_space(agent).n == NUM_ACTIONS == 631
        assert env.observation_space(agent)["observation"].shape == (52 * (n + 9) + 4 * n + 18,)


def test_observation_of_a_known_deal_is_exact():
    env = scripted_env(crazy_rummy_v0, stack_deck(HANDS, dealer=2), 2, wild_rank=5)
    lay = env.unwrapped.layout
    o = env.observe("player_0")["observation"]
    assert o.dtype == np.float32 and o.shape == (654,)
    assert np.flatnonzero(o[lay.slice("hand")]).tolist() == sorted(parse_cards(HANDS[0]))
    assert o[lay.slice("wild_rank")].tolist() == [0, 0, 0, 0, 1] + [0] * 8
    assert o[lay.slice("round")].tolist() == [5]
    assert o[lay.slice("phase")].tolist() == [0, 1]  # the first player plays without drawing
    assert o[lay.slice("acting")].tolist() == [1, 0, 0]
    assert o[lay.slice("stock_size")].tolist() == [30]
    assert o[lay.slice("hand_sizes")].tolist() == [8, 7, 7]
    for name in (
        "top_discard",
        "discard_rest",
        "table_natural",
        "wild_C",
        "known_1",
        "known_2",
        "forbidden",
        "must_discard",
        "melded",
        "totals",
        "turn",
    ):
        assert o[lay.slice(name)].sum() == 0, name
    play(env, "meld 7S 8S 9S", "meld 2H 3H 4H", "discard KD")
    o1 = env.observe("player_1")["observation"]
    assert np.flatnonzero(o1[lay.slice("wild_C")]).tolist() == parse_cards("9S")
    assert np.flatnonzero(o1[lay.slice("table_natural")]).tolist() == sorted(parse_cards("7S 8S 2H 3H 4H"))
    assert np.flatnonzero(o1[lay.slice("top_discard")]).tolist() == parse_cards("KD")
    assert o1[lay.slice("melded")].tolist() == [0, 0, 1]  # player_0 is two seats to player_1's left
    assert o1[lay.slice("hand_sizes")].tolist() == [7, 7, 1]
    assert o1[lay.slice("phase")].tolist() == [1, 0] and o1[lay.slice("acting")].tolist() == [1, 0, 0]


def test_action_text_examples():
    raw = crazy_rummy_v0.raw_env
    assert raw.action_to_string(579) == "swap AC" and raw.action_to_string(630) == "swap KS"
    assert raw.string_to_action("SWAP 10h") == 579 + parse_cards("TH")[0]
    assert raw.string_to_action("meld 9S 7S 8S") == raw.string_to_action("meld 7S 8S 9S")


def test_render_labels_the_last_round_and_says_when_max_turns_cut_it():
    env = crazy_rummy_v0.env(render_mode="ansi", max_turns=2)
    env.reset(seed=5)
    for _ in random_playthrough(env, np.random.default_rng(0)):
        pass
    assert env.unwrapped.game_state.truncated
    # max_turns ends the round, scoring nothing (the env's move limit)
    assert env.unwrapped.render().endswith(
        "last round's penalties: player_0 0, player_1 0, player_2 0 (truncated by max_turns)"
    )


def test_the_wild_rank_reset_option_fixes_the_round_and_bad_ones_change_nothing():
    deck = stack_deck(HANDS, dealer=2)
    env = crazy_rummy_v0.env()
    env.reset(seed=1, options={"deck": deck, "dealer": 2, "wild_rank": 13})
    lay = env.unwrapped.layout
    o = env.observe("player_0")["observation"]
    assert o[lay.slice("wild_rank")].tolist() == [0] * 12 + [1] and o[lay.slice("round")].tolist() == [13]
    for options, message in [
        ({"wild_rank": 0}, "option wild_rank=0 is out of range: wild_rank must be an int from 1 to 13"),
        ({"wild_rank": "K"}, "option wild_rank='K' is not an integer: wild_rank must be an int from 1 to 13"),
    ]:
        with pytest.raises(ValueError, match=whole(message)):
            env.reset(seed=2, options={"deck": deck, **options})
        assert env.unwrapped.game_state.round == 13 and np.array_equal(env.observe("player_0")["observation"], o)
    fixed = crazy_rummy_v0.env(wild_rank=4)
    fixed.reset(seed=0, options={"wild_rank": 4})
    with pytest.raises(
        ValueError,
        match=whole(
            "wild_rank=5 contradicts the option wild_rank=4, which fixes the round's wild rank:"
            " give the same rank or none"
        ),
    ):
        fixed.reset(seed=0, options={"wild_rank": 5})


def test_a_wild_rank_with_episode_game_is_refused_in_one_wording_as_env_or_reset_option():
    def refusal(rank):
        return (
            f"option wild_rank={rank} does not go with episode='game': a game plays the wild ranks 1..13 in order "
            "(R-CRAZY-02); a wild rank is given only with episode='hand' (one round)"
        )

    with pytest.raises(ValueError, match=whole(refusal(3))):
        crazy_rummy_v0.env(episode="game", wild_rank=3)
    env = crazy_rummy_v0.env(episode="game")
    env.reset(seed=0)
    before = env.observe("player_0")["observation"].copy()
    with pytest.raises(ValueError, match=whole(refusal(1))):
        env.reset(seed=1, options={"wild_rank": 1})
    assert env.unwrapped.game_state.round == 1
    assert np.array_equal(env.observe("player_0")["observation"], before)


def test_a_wild_card_never_stands_for_a_card_its_player_holds_r_crazy_05_reading():
    # sevens wild.  player_0 ends up holding 9S JS and takes the wild 7D from the discard
    # pile; the only open places on the table are 9S (on the nines) and JS (on the jacks),
    # both held.  The rules would let 7D go down for 9S and 9S be discarded (out); v0's
    # actions name the cards stood for and use held natural cards first (the env's "Rule
    # readings"), so 7D cannot leave the hand this turn.
    hands = ["2C 2D 2H 2S 9S JS QD 4H", "9C 9D 9H 4C 4D 4S KC", "JC JD JH 7D 6S 8D QS"]
    env = crazy_rummy_v0.env()
    deck = stack_deck(hands, stock=["3H", "5S", "8H", "TD", "AS"], dealer=2)
    env.reset(seed=0, options={"deck": deck, "dealer": 2, "wild_rank": 7})
    play(env, "meld 2C 2D 2H 2S", "discard QD")
    play(env, "draw stock", "meld 9C 9D 9H", "meld 4C 4D 4S", "discard KC")
    play(env, "draw stock", "meld JC JD JH", "discard QS")
    play(env, "draw stock", "layoff 4H set", "discard 8H")
    play(env, "draw stock", "discard 3H")
    play(env, "draw stock", "discard 7D")
    play(env, "draw discard")
    assert legal_texts(env) == ["discard 9S", "discard JS", "layoff 9S set", "layoff JS set"]
    play(env, "layoff JS set")
    # left 9S and 7D: 7D may not be discarded (R-CRAZY-08), laying off 9S would leave only 7D (08a)
    assert legal_texts(env) == ["discard 9S"]


def test_a_wild_card_taken_from_the_discard_pile_fills_a_meld_first_r_crazy_05_08():
    # round 13: kings are wild.  player_1 keeps 4C 5C KC, then takes the wild KD that
    # player_0 discards; KD may not go back this turn (R-CRAZY-08), so a meld filled with
    # KC would leave no legal discard (R-CRAZY-08a).  KD fills it and KC is discarded.
    hands = ["KD 2D 3D 6S 8S TS QD", "7H 8H 9H TH 4C 5C KC JS", "AS 2S 3S 9C 9D JC QC"]
    env = crazy_rummy_v0.env()
    env.reset(seed=0, options={"deck": stack_deck(hands, stock=["5D", "7D"], dealer=0), "dealer": 0, "wild_rank": 13})
    play(env, "meld 7H 8H 9H", "layoff TH high", "discard JS")
    play(env, "draw stock", "discard 5D")
    play(env, "draw stock", "discard KD")
    play(env, "draw discard")
    # hand 4C 5C KC KD: no KD discard; no meld of all four (it would empty the hand, R-CRAZY-09)
    assert legal_texts(env) == [
        "discard 4C", "discard 5C", "discard KC", "meld 4C 4D 4H", "meld 4C 4D 4S", "meld 4C 4H 4S",
        "meld 5C 5D 5H", "meld 5C 5D 5S", "meld 5C 5H 5S", "meld 2C 3C 4C", "meld 3C 4C 5C", "meld 4C 5C 6C",
        "meld 5C 6C 7C", "layoff 6H low", "layoff JH high",
    ]  # fmt: skip
    play(env, "meld 4C 5C 6C")
    state = env.unwrapped.game_state
    assert state.wild_for == {parse_cards("6C")[0]: (parse_cards("KD")[0], 1)}
    assert legal_texts(env) == ["discard KC"]
    play(env, "discard KC")
    assert env.infos["player_1"]["winner"] == "player_1" and env.infos["player_1"]["hand_score"] == 0


def _fives_wild_going_out(mirror: bool) -> tuple:
    """player_3 holds two fives (wild) and needs one of them as itself on AC-4C: the deal of
    the test below, or the same with clubs and spades exchanged (``mirror``)."""
    suits = str.maketrans("CS", "SC") if mirror else str.maketrans("", "")

    def m(text: str) -> str:
        return text.translate(suits)

    hands = [
        m("AC 2C 3C 4C JC QC KC 8S"),
        "TC TD TH TS AD 3D 4D",
        "9C 9H 9S 7C 7D 7S " + m("AS"),
        m("5C 5S QH KH 6C 9D 7H"),
    ]
    env = crazy_rummy_v0.env(num_players=4)
    deck = stack_deck(hands, stock=[m("6S"), m("JS"), "2D"], dealer=3)
    env.reset(seed=0, options={"deck": deck, "dealer": 3, "wild_rank": 5})
    play(env, m("meld AC 2C 3C 4C"), m("discard 8S"))
    play(env, "draw stock", "meld TC TD TH TS", m("discard 6S"))
    play(env, "draw stock", "meld 9C 9H 9S", "meld 7C 7D 7S", m("discard JS"))
    play(env, "draw stock", "meld JH QH KH")
    return env, m


def test_the_lowest_wild_card_fills_even_when_the_player_needs_it_as_itself_r_crazy_05_reading():
    # fives wild; player_3 (no meld yet) holds 5C 5S QH KH 6C 9D 7H 2D.  Going out needs
    # JH QH KH with one five standing for JH, and the other five as itself above AC-4C,
    # then 6C, 9D, 7H laid off and 2D discarded.  v0's action names JH, not the five, and
    # the lowest card id fills (the env's "Rule readings"): 5C goes down for JH, and with 5C
    # on the table 5S may not stand for it (R-CRAZY-05a), so player_3 cannot go out here,
    # while the same deal with clubs and spades exchanged goes out.
    env, _ = _fives_wild_going_out(mirror=False)
    state = env.unwrapped.game_state
    assert state.wild_for == {parse_cards("JH")[0]: (parse_cards("5C")[0], 4)}  # the fifth meld on the table
    # hand 5S 6C 9D 7H 2D: 5S may stand for 9D or 7H, not for 5C (on the table); 6C fits nowhere
    assert legal_texts(env) == [
        "discard 6C", "discard 2D", "discard 9D", "discard 7H", "discard 5S", "layoff 9D set", "layoff 7H set",
    ]  # fmt: skip
    env, m = _fives_wild_going_out(mirror=True)
    play(env, m("layoff 5C high"), m("layoff 6C high"), "layoff 9D set", "layoff 7H set", "discard 2D")
    assert env.infos["player_3"]["winner"] == "player_3" and env.infos["player_3"]["hand_score"] == 0
