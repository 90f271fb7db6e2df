"""The basic Rummy engine against the rules of ``rummy.md``, one scripted position at a time."""

import numpy as np
import pytest

from rummy_env.core.cards import card_str, mask_of, parse_cards
from rummy_env.games.errors import ActionTypeError, IllegalActionError
from rummy_env.games.rummy import DRAW, PLAY, TERMINAL, RummyGame, string_to_action
from tests.games.rummy.helpers import legal_texts, play, scripted_state, table_texts
from tests.helpers import whole

P0 = "3S 4S 5S 7H 8H 9H 2C 2D 2H KD"
P1 = "AC AD 5C 6C 9C JC QD KH 4D 8D"  # worth 1+1+5+6+9+10+10+10+4+8 = 64 points
P1B = "AC AD 6C 9C JC QD 4D 8D 9D TC"  # another opponent, clear of the hearts and fives below


def base(**options):
    return scripted_state([P0, P1], upcard="QS", stock=["6S", "TD", "JS"], dealer=1, **options)


def test_deal_follows_r_rummy_02_03_05():
    s = base()
    # R-RUMMY-03: one card at a time from the dealer's left; the next card is the upcard
    assert s.hands == [mask_of(parse_cards(P0)), mask_of(parse_cards(P1))]
    assert s.discard == parse_cards("QS")
    assert len(s.stock) == 52 - 21 and s.stock[-1] == parse_cards("6S")[0]
    # R-RUMMY-05: the player to the dealer's left starts, by drawing (R-RUMMY-06)
    assert (s.current_player(), s.phase) == (0, DRAW)
    assert legal_texts(s) == ["draw stock", "draw discard"]


@pytest.mark.parametrize("n, size", [(2, 10), (3, 7), (4, 7), (5, 6), (6, 6)])
def test_hand_sizes_r_rummy_02(n, size):
    s = RummyGame(num_players=n).new_initial_state(rng=3)
    assert [h.bit_count() for h in s.hands] == [size] * n
    assert len(s.stock) == 52 - n * size - 1 and len(s.discard) == 1


def test_random_first_dealer_is_seeded():
    dealers = {RummyGame(num_players=4).new_initial_state(rng=seed).dealer for seed in range(40)}
    assert dealers == {0, 1, 2, 3}
    assert RummyGame().new_initial_state(rng=5).deck == RummyGame().new_initial_state(rng=5).deck


def test_play_phase_offers_every_meld_and_discard_r_rummy_07_09():
    s = play(base(), "draw stock")  # draws 6S
    assert s.phase == PLAY
    assert legal_texts(s) == [
        "discard 2C",
        "discard 2D",
        "discard KD",
        "discard 2H",
        "discard 7H",
        "discard 8H",
        "discard 9H",
        "discard 3S",
        "discard 4S",
        "discard 5S",
        "discard 6S",
        "meld 2C 2D 2H",
        "meld 7H 8H 9H",
        "meld 3S 4S 5S",
        "meld 3S 4S 5S 6S",
        "meld 4S 5S 6S",
    ]


def test_card_taken_from_discard_pile_may_not_be_discarded_r_rummy_09():
    s = play(base(), "draw discard")
    assert s.hands[0] >> parse_cards("QS")[0] & 1
    # every card but QS may go; QS fits no meld
    assert legal_texts(s) == [
        "discard 2C", "discard 2D", "discard KD", "discard 2H", "discard 7H", "discard 8H", "discard 9H",
        "discard 3S", "discard 4S", "discard 5S", "meld 2C 2D 2H", "meld 7H 8H 9H", "meld 3S 4S 5S",
    ]  # fmt: skip
    before = str(s), list(s.history)
    legal = ", ".join(legal_texts(s))
    with pytest.raises(
        IllegalActionError, match=whole(f"action 50 (discard QS) is not legal for player 0 now; legal: {legal}")
    ):
        s.apply_action(string_to_action("discard QS"))
    assert (str(s), s.history) == before


def test_no_move_may_leave_only_the_untouchable_card_r_rummy_10():
    s = scripted_state(["2C 2D 2H 7H 8H 9H 3S 4S 5S 6S", P1], upcard="QS", dealer=1)
    play(s, "draw discard", "meld 2C 2D 2H", "meld 7H 8H 9H")
    # hand: 3S 4S 5S 6S QS; melding all four spades would leave only QS, which fits nowhere
    assert legal_texts(s) == ["discard 3S", "discard 4S", "discard 5S", "discard 6S", "meld 3S 4S 5S", "meld 4S 5S 6S"]
    play(s, "meld 3S 4S 5S")
    # hand: 6S QS; laying off 6S would leave only QS
    assert legal_texts(s) == ["discard 6S"]


def test_keeping_only_the_untouchable_card_is_legal_when_it_can_be_laid_off_r_rummy_10_11():
    s = scripted_state(["2C 2D 2H 7H 8H 9H 3S 4S 5S 6S", P1], upcard="TH", dealer=1)
    play(s, "draw discard", "meld 2C 2D 2H", "meld 3S 4S 5S 6S")
    # hand: 7H 8H 9H TH; melding 7H 8H 9H leaves TH, which then fits the new run
    assert legal_texts(s) == [
        "discard 7H",
        "discard 8H",
        "discard 9H",
        "meld 7H 8H 9H",
        "meld 7H 8H 9H TH",
        "meld 8H 9H TH",
    ]
    play(s, "meld 7H 8H 9H")
    assert legal_texts(s) == ["layoff TH high"]
    play(s, "layoff TH high")
    assert s.is_terminal() and s.last_hand["winner"] == 0


def test_a_card_can_fit_a_set_a_low_end_and_a_high_end_r_rummy_08():
    s = scripted_state(["2H 3H 4H 6H 7H 8H 5C 5D 5S 5H", P1B], upcard="QS", stock=["KD"], dealer=1)
    play(s, "draw stock", "meld 2H 3H 4H", "meld 6H 7H 8H", "meld 5C 5D 5S")
    assert legal_texts(s) == ["discard KD", "discard 5H", "layoff 5H set", "layoff 5H low", "layoff 5H high"]
    tables = {side: table_texts(play(s.clone(), f"layoff 5H {side}")) for side in ("set", "low", "high")}
    assert tables["set"] == ["2H 3H 4H", "5C 5D 5H 5S", "6H 7H 8H"]
    assert tables["low"] == ["2H 3H 4H", "5C 5D 5S", "5H 6H 7H 8H"]
    assert tables["high"] == ["2H 3H 4H 5H", "5C 5D 5S", "6H 7H 8H"]


@pytest.mark.parametrize("ace_high, legal", [(False, False), (True, True)])
def test_high_ace_lay_off_needs_ace_high_r_rummy_01(ace_high, legal):
    s = scripted_state(["JH QH KH AH 2C 3C 5D 7D 9S TS", P1B], upcard="QS", stock=["KD"], dealer=1, ace_high=ace_high)
    play(s, "draw stock", "meld JH QH KH")
    assert ("layoff AH high" in legal_texts(s)) is legal
    assert (
        "meld JH QH KH AH"
        in legal_texts(
            play(
                scripted_state(["JH QH KH AH 2C 3C 5D 7D 9S TS", P1B], upcard="QS", dealer=1, ace_high=ace_high),
                "draw stock",
            )
        )
    ) is legal


def test_going_out_by_laying_off_needs_no_discard_r_rummy_11():
    s = scripted_state(["3S 4S 5S 7H 8H 9H 2C 2D 2H 2S", P1], upcard="QS", stock=["6S"], dealer=1)
    play(s, "draw stock", "meld 2C 2D 2H", "layoff 2S set", "meld 7H 8H 9H", "meld 3S 4S 5S", "layoff 6S high")
    assert s.is_terminal() and s.current_player() == TERMINAL
    assert s.last_hand["winner"] == 0 and s.hands[0] == 0
    # going rummy by laying off the last card: P1's 64 points, doubled (R-RUMMY-16)
    assert s.last_hand["rummy"] and s.last_hand["hand_scores"] == [128, 0]


def test_max_turns_truncates_with_no_winner_r_rummy_13():
    s = base(max_turns=3)
    play(s, "draw stock", "discard 6S", "draw stock", "discard TD", "draw stock")
    assert not s.is_terminal()
    play(s, "discard JS")
    assert s.is_terminal() and s.truncated
    assert s.last_hand["hand_scores"] == [0, 0] and s.returns() == [0.0, 0.0]


def _cycle_stock(s):
    """Each player draws from the stock and discards the drawn card until the stock is empty."""
    drawn = []
    while s.stock:
        before = s.hands[s.current]
        s.apply_action(string_to_action("draw stock"))
        card = (s.hands[s.current] & ~before).bit_length() - 1
        drawn.append(card)
        s.apply_action(card)
    return drawn


@pytest.mark.parametrize("reshuffle", ["keep_top", "whole_pile"])
def test_empty_stock_is_rebuilt_from_the_discard_pile_without_shuffling_r_rummy_12(reshuffle):
    s = base(reshuffle=reshuffle)
    upcard = s.discard[0]
    drawn = _cycle_stock(s)
    assert len(drawn) == 31 and s.discard == [upcard] + drawn
    # the player may still take the top discard, or draw from the rebuilt stock
    assert legal_texts(s) == ["draw stock", "draw discard"]
    assert s.current_player() == 1  # 31 turns, starting with player 0
    s.apply_action(string_to_action("draw stock"))
    # the pile is turned face down: its bottom card (the first upcard) is now drawn first
    assert s.hands[1] >> upcard & 1
    if reshuffle == "keep_top":
        assert s.discard == [drawn[-1]]  # the top discard stays as the new discard pile
        assert s.stock == drawn[-2::-1]  # top last: the next card drawn is drawn[0]
    else:
        assert s.discard == []  # the whole pile was turned over
        assert s.stock == drawn[::-1]


def test_the_hand_ends_with_no_winner_when_no_card_can_be_drawn_r_rummy_12():
    # Unreachable by legal play (a discard always refills the pile); the engine path is
    # checked on a state whose stock and discard pile are emptied by hand.
    s = play(base(), "draw stock")
    s.stock, s.discard = [], []
    s._end_turn()
    assert s.is_terminal() and not s.truncated and s.last_hand["winner"] == -1
    assert s.last_hand["hand_scores"] == [0, 0]


@pytest.mark.parametrize("winner_deals, next_dealer", [(False, 1), (True, 0)])
def test_next_dealer_r_rummy_04(winner_deals, next_dealer):
    # dealer 0, player 1 starts; the dealer (player 0) goes out on its first turn
    s = scripted_state(
        [P0.replace("KD", "2S"), P1],
        upcard="QS",
        stock=["TD", "6S"],
        dealer=0,
        episode="game",
        target_score=1000,
        two_player_winner_deals=winner_deals,
    )
    play(
        s,
        "draw stock",
        "discard TD",
        "draw stock",
        "meld 2C 2D 2H",
        "layoff 2S set",
        "meld 7H 8H 9H",
        "meld 3S 4S 5S 6S",
    )
    assert s.hands_played == 1 and s.last_hand["winner"] == 0 and not s.is_terminal()
    assert s.dealer == next_dealer and s.current_player() == 1 - next_dealer
    assert s.phase == DRAW and len(s.table) == 0


def test_clone_is_independent():
    s = play(base(), "draw stock")
    c = s.clone()
    play(c, "meld 2C 2D 2H", "discard KD")
    assert len(s.table) == 0 and s.current_player() == 0 and "meld 2C 2D 2H" in legal_texts(s)
    assert len(c.table) == 1 and c.current_player() == 1


@pytest.mark.parametrize(
    "action, error, message",
    [
        (579, IllegalActionError, "action 579 is out of range: action ids are 0..578"),
        (-1, IllegalActionError, "action -1 is out of range: action ids are 0..578"),
        ("3", ActionTypeError, "action '3' has type str: actions are integer ids 0..578"),
        (3.0, ActionTypeError, "action 3.0 has type float: actions are integer ids 0..578"),
        (True, ActionTypeError, "action True has type bool: actions are integer ids 0..578"),
        (None, ActionTypeError, "action None has type NoneType: actions are integer ids 0..578"),
        (  # must draw first
            string_to_action("discard KD"),
            IllegalActionError,
            "action 25 (discard KD) is not legal for player 0 now; legal: draw stock, draw discard",
        ),
    ],
)
def test_bad_actions_raise_and_leave_the_state_unchanged(action, error, message):
    s = base()
    before = (str(s), list(s.history), s.legal_actions())
    with pytest.raises(error, match=whole(message)):
        s.apply_action(action)
    assert (str(s), list(s.history), s.legal_actions()) == before
    assert issubclass(error, ValueError)


def test_actions_after_the_end_are_refused():
    s = play(base(), "draw stock", "meld 3S 4S 5S 6S", "meld 7H 8H 9H", "meld 2C 2D 2H", "discard KD")
    assert s.is_terminal() and s.legal_actions() == []
    with pytest.raises(IllegalActionError, match=whole("action 52 (draw stock): the episode is over")):
        s.apply_action(string_to_action("draw stock"))


@pytest.mark.parametrize(
    "options, message",
    [
        ({"num_players": 7}, "option num_players=7 is out of range: num_players must be an int from 2 to 6"),
        ({"num_players": 1}, "option num_players=1 is out of range: num_players must be an int from 2 to 6"),
        ({"num_players": "2"}, "option num_players='2' is not an integer: num_players must be an int from 2 to 6"),
        ({"ace_high": 1}, "option ace_high=1 is not a bool: ace_high must be True or False"),
        (
            {"reshuffle": "shuffle"},
            "option reshuffle='shuffle' is not allowed: reshuffle must be one of 'keep_top', 'whole_pile'",
        ),
        (
            {"target_score": 0},
            "option target_score=0 is out of range: target_score must be an int from 1 to 1000000000",
        ),
        ({"max_turns": 0}, "option max_turns=0 is out of range: max_turns must be an int from 1 to 1000000000"),
        ({"episode": "match"}, "option episode='match' is not allowed: episode must be one of 'hand', 'game'"),
        ({"reward": "points"}, "option reward='points' is not allowed: reward must be one of 'win', 'score'"),
    ],
)
def test_bad_options_are_value_errors_naming_the_option(options, message):
    with pytest.raises(ValueError, match=whole(message)):
        RummyGame(**options)


def test_bad_deck_or_dealer_given_to_the_engine():
    game = RummyGame()
    with pytest.raises(
        ValueError,
        match=whole(
            "deck of 52 ids is not a deck: it must hold each card id 0..51 exactly once "
            "(card id 0 appears 52 times, card id 1 is missing)"
        ),
    ):
        game.new_initial_state(deck=[0] * 52)
    with pytest.raises(ValueError, match=whole("dealer 2 is not a seat: the dealer must be an int from 0 to 1")):
        game.new_initial_state(dealer=2)


def test_two_player_winner_deals_needs_two_players():
    message = (
        "option two_player_winner_deals=True needs num_players=2 (R-RUMMY-04), got num_players=3: "
        "with more players the deal passes to the left"
    )
    with pytest.raises(ValueError, match=whole(message)):
        RummyGame(num_players=3, two_player_winner_deals=True)


def test_history_replays_the_hand():
    s = RummyGame().new_initial_state(rng=8)
    rng = np.random.default_rng(0)
    while not s.is_terminal() and len(s.history) < 300:
        legal = s.legal_actions()
        s.apply_action(legal[rng.integers(len(legal))])
    replay = RummyGame().new_initial_state(deck=s.initial_deck, dealer=s.initial_dealer)
    for a in s.history:
        replay.apply_action(a)
    assert str(replay) == str(s) and replay.returns() == s.returns()


def test_stack_deck_errors_name_the_problem():
    from rummy_env.games.rummy import stack_deck

    with pytest.raises(ValueError, match=whole("card 3S is named twice: a deck has one copy of each card")):
        stack_deck([P0, P1], upcard="3S")
    with pytest.raises(ValueError, match=whole("dealer '0' is not a seat: the dealer must be an int from 0 to 1")):
        stack_deck([P0, P1], dealer="0")
    with pytest.raises(ValueError, match=whole("hand of player_1 has 9 cards: with 2 players each hand has 10")):
        stack_deck([P0, P1.rsplit(" ", 1)[0]])
    every_other_card = [card_str(c) for c in range(52) if c not in set(parse_cards(P0 + " " + P1))]
    with pytest.raises(ValueError, match=whole("no card is left for the upcard: name it, or name fewer stock cards")):
        stack_deck([P0, P1], stock=every_other_card)


def test_engine_refuses_decks_that_are_not_card_ids():
    game = RummyGame()
    ids = list(range(52))
    for bad, message in [
        (ids[:-1] + [51.5], "deck entry 51.5 is not a card id: a deck of ids holds the ints 0..51, each once"),
        ([True] + ids[1:], "deck entry True is not a card id: a deck of ids holds the ints 0..51, each once"),
        (["AC"] + ids[1:], "deck entry 'AC' is not a card id: a deck of ids holds the ints 0..51, each once"),
        (
            ids[:-1] + [0],
            "deck of 52 ids is not a deck: it must hold each card id 0..51 exactly once "
            "(card id 0 appears 2 times, card id 51 is missing)",
        ),
    ]:
        with pytest.raises(ValueError, match=whole(message)):
            game.new_initial_state(deck=bad)
