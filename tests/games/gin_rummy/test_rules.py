"""The Gin Rummy engine, rule by rule (``gin_rummy.md``), on stacked decks."""

import re

import numpy as np
import pytest

from rummy_env.core.cards import card_str, parse_cards, parse_deck
from rummy_env.games.errors import ActionTypeError, IllegalActionError
from rummy_env.games.gin_rummy import (
    DRAW,
    NUM_ACTIONS,
    OFFER,
    TERMINAL,
    GinRummyConfig,
    GinRummyGame,
    action_to_string,
    stack_deck,
    string_to_action,
)
from rummy_env.games.gin_rummy.state import DISCARD
from tests.games.gin_rummy.helpers import cards, legal_texts, play, scripted_state
from tests.helpers import whole

# player_0 (the non-dealer when player_1 deals): 3 melds and KD, deadwood 10
P0 = "3S 4S 5S 7H 8H 9H 2C 2D 2H KD"
# player_1: no meld, 88 points
P1 = "QC JC 9C 8D 7D 4C TD KS QS JD"


def test_deal_one_card_at_a_time_non_dealer_first_r_gin_02():
    deck = stack_deck([P0, P1], upcard="AC", stock=["6S", "TH"], dealer=1)
    assert deck[0] == "3S" and deck[1] == "QC" and deck[20] == "AC" and deck[21:23] == ["6S", "TH"]
    s = scripted_state([P0, P1], upcard="AC", stock=["6S", "TH"], dealer=1)
    assert s.hands == [sum(1 << c for c in parse_cards(P0)), sum(1 << c for c in parse_cards(P1))]
    assert s.discard == parse_cards("AC") and s.stock[-2:] == parse_cards("TH 6S") and len(s.stock) == 31
    # with player_0 dealing, player_1 gets the first card
    deck = stack_deck([P0, P1], upcard="AC", dealer=0)
    assert deck[0] == "QC" and deck[1] == "3S"
    s = scripted_state([P0, P1], upcard="AC", dealer=0)
    assert cards(s.hands[0]) == cards(sum(1 << c for c in parse_cards(P0))) and s.current_player() == 1


def test_first_dealer_is_seeded_and_random_r_gin_02():
    game = GinRummyGame()
    dealers = [game.new_initial_state(rng=seed).dealer for seed in range(40)]
    assert set(dealers) == {0, 1}
    assert dealers == [game.new_initial_state(rng=seed).dealer for seed in range(40)]


def test_upcard_offer_both_pass_then_the_non_dealer_draws_r_gin_03():
    s = scripted_state([P0, P1], upcard="AC", stock=["6S"])
    assert (s.current_player(), s.phase) == (0, OFFER) and legal_texts(s) == ["draw upcard", "pass"]
    play(s, "pass")
    assert (s.current_player(), s.phase) == (1, OFFER) and legal_texts(s) == ["draw upcard", "pass"]
    play(s, "pass")
    # not a decision: player_0 has drawn 6S and now discards, knocks or goes gin
    assert (s.current_player(), s.phase) == (0, DISCARD) and s.history == [string_to_action("pass")] * 2
    assert s.hands[0] >> parse_cards("6S")[0] & 1 and len(s.stock) == 30 and s.discard == parse_cards("AC")
    play(s, "discard KD")
    assert (s.current_player(), s.phase) == (1, DRAW) and legal_texts(s) == ["draw stock", "draw upcard"]


def test_upcard_offer_taken_by_the_non_dealer_r_gin_03():
    s = scripted_state([P0, P1], upcard="AC")
    play(s, "draw upcard")
    assert s.current_player() == 0 and s.phase == DISCARD
    # no AC (just taken); knock KD keeps AC (1 point)
    assert legal_texts(s) == [
        "discard 2C", "discard 2D", "discard KD", "discard 2H", "discard 7H", "discard 8H", "discard 9H",
        "discard 3S", "discard 4S", "discard 5S", "knock KD",
    ]  # fmt: skip
    play(s, "discard KD")
    assert s.current_player() == 1 and s.phase == DRAW and s.discard == parse_cards("KD")


def test_upcard_offer_taken_by_the_dealer_then_play_goes_on_with_the_non_dealer_r_gin_03():
    s = scripted_state([P0, P1], upcard="AC")
    play(s, "pass", "draw upcard")
    assert s.current_player() == 1 and s.phase == DISCARD and len(s.stock) == 31
    play(s, "discard KS")
    assert s.current_player() == 0 and s.phase == DRAW
    refusal = r"^action 106 \(pass\) is not legal for player 0 now; legal: draw stock, draw upcard$"
    with pytest.raises(IllegalActionError, match=refusal):
        play(s, "pass")  # passing belongs to the upcard offer only


def test_card_taken_from_the_discard_pile_may_not_be_discarded_or_knocked_with_r_gin_04():
    s = scripted_state(["3S 4S 5S 7H 8H 9H 2C 2D 2H AD", P1], upcard="KH")
    play(s, "draw upcard")
    # no KH among them (just taken); knock AD keeps KH (10 points), any other knock 15+
    assert legal_texts(s) == [
        "discard 2C", "discard AD", "discard 2D", "discard 2H", "discard 7H", "discard 8H", "discard 9H",
        "discard 3S", "discard 4S", "discard 5S", "knock AD",
    ]  # fmt: skip


def test_knock_legality_at_the_limit_r_gin_06():
    # after drawing JH: three melds, KD and JH; a knock keeps one of them (10 points)
    s = scripted_state([P0, P1], upcard="AC", stock=["JH"])
    play(s, "pass", "pass")
    assert [t for t in legal_texts(s) if t.startswith("knock")] == ["knock KD", "knock JH"]
    s = scripted_state([P0, P1], upcard="AC", stock=["JH"], knock_limit=9)
    play(s, "pass", "pass")
    assert not [t for t in legal_texts(s) if t.startswith("knock")]
    # above 10: breaking the set of twos leaves 2 + 2 + 10 + 10 = 24 points
    s = scripted_state([P0, P1], upcard="AC", stock=["JH"], knock_limit=24)
    play(s, "pass", "pass")
    assert [t for t in legal_texts(s) if t.startswith("knock")] == [
        "knock 2C",
        "knock 2D",
        "knock KD",
        "knock 2H",
        "knock JH",
    ]


def test_knock_limit_zero_allows_gin_only_r_gin_06_07():
    s = scripted_state([P0, P1], upcard="AC", stock=["6S"], knock_limit=0)
    play(s, "pass", "pass")  # 3S-6S, 7H-9H, 2C 2D 2H, KD
    assert [t for t in legal_texts(s) if t.startswith("knock")] == ["knock KD"]


def test_big_gin_needs_all_eleven_melded_and_the_option_r_gin_07():
    hand = "3S 4S 5S 6S 7H 8H 9H 2C 2D 2H"
    s = scripted_state([hand, P1], upcard="TH")
    play(s, "draw upcard")
    # every knock but those that break a meld (knock 4S leaves 3S and 5S 6S); no TH (just taken)
    assert legal_texts(s) == [
        "discard 2C", "discard 2D", "discard 2H", "discard 7H", "discard 8H", "discard 9H", "discard 3S",
        "discard 4S", "discard 5S", "discard 6S", "knock 2C", "knock 2D", "knock 2H", "knock 7H", "knock 3S",
        "knock 6S", "big gin",
    ]  # fmt: skip
    with_big_gin = legal_texts(s)
    s = scripted_state([hand, P1], upcard="TH", big_gin=False)
    play(s, "draw upcard")
    assert legal_texts(s) == with_big_gin[:-1]  # the same, without big gin
    s = scripted_state([hand, P1], upcard="KC")
    play(s, "draw upcard")
    # KC fits no meld: no big gin, and only knocks that keep every meld whole (KC, 10 points)
    assert legal_texts(s) == [
        "discard 2C", "discard 2D", "discard 2H", "discard 7H", "discard 8H", "discard 9H", "discard 3S",
        "discard 4S", "discard 5S", "discard 6S", "knock 3S", "knock 6S",
    ]  # fmt: skip


def test_oklahoma_upcard_sets_the_knock_limit_r_gin_14():
    for upcard, limit in [("3C", 3), ("AS", 0), ("KH", 10), ("TH", 10), ("7S", 7)]:
        s = scripted_state([P0, P1], upcard=upcard, oklahoma=True, knock_limit=2)
        assert s.knock_limit == limit
    assert scripted_state([P0, P1], upcard="3C", knock_limit=2).knock_limit == 2


def test_illegal_actions_raise_and_leave_the_state_unchanged():
    s = scripted_state([P0, P1], upcard="AC")
    before = (str(s), list(s.history), s.legal_actions())
    for text in ("draw stock", "discard KD", "big gin"):
        action = string_to_action(text)
        message = f"action {action} ({text}) is not legal for player 0 now; legal: draw upcard, pass"
        with pytest.raises(IllegalActionError, match=whole(message)):
            s.apply_action(action)
    for action in (NUM_ACTIONS, -1):
        with pytest.raises(IllegalActionError, match=rf"^action {action} is out of range: action ids are 0\.\.107$"):
            s.apply_action(action)
    for action, kind in ((True, "bool"), (1.0, "float"), ("pass", "str"), (None, "NoneType")):
        with pytest.raises(
            ActionTypeError,
            match=rf"^action {re.escape(repr(action))} has type {kind}: actions are integer ids 0\.\.107$",
        ):
            s.apply_action(action)
    assert (str(s), s.history, s.legal_actions()) == before
    s.apply_action(np.int64(string_to_action("pass")))
    assert s.current_player() == 1


def test_legal_actions_of_others_and_the_bits():
    s = scripted_state([P0, P1], upcard="AC")
    # R-GIN-03: player_0, the non-dealer, is offered the upcard; player_1 waits
    assert s.legal_actions(1) == [] and s.legal_actions() == s.legal_actions(0) == [105, 106]
    assert s.legal_bits() == (1 << 105) | (1 << 106)
    play(s, "pass", "pass")  # both pass: player_0 draws from the stock and must discard
    assert s.current_player() == 0 and s.legal_actions(1) == []
    assert [a for a in range(NUM_ACTIONS) if s.legal_bits() >> a & 1] == s.legal_actions(0)


def test_clone_is_independent():
    s = scripted_state([P0, P1], upcard="AC", stock=["6S"])
    c = s.clone()
    play(c, "pass", "pass", "knock KD")
    assert c.is_terminal() and not s.is_terminal() and s.history == [] and len(s.stock) == 31
    assert s.current_player() == 0 and c.current_player() == TERMINAL


def test_max_turns_truncates_the_hand():
    s = scripted_state([P0, P1], upcard="AC", stock=["JH", "JS"], max_turns=2)
    play(s, "pass", "pass", "discard JH", "draw stock", "discard JS")
    assert s.is_terminal() and s.truncated and s.last_hand["result"] == "truncated"
    assert s.returns() == [0.0, 0.0] and s.last_hand["hand_scores"] == [0, 0]


def test_winner_deals_the_next_hand_and_a_dead_hand_is_redealt_by_the_same_dealer_r_gin_02():
    # player_0 (non-dealer) goes gin: player_0 deals the next hand
    s = scripted_state([P0, P1], upcard="AC", stock=["6S"], episode="game", target_score=200)
    play(s, "pass", "pass", "knock KD")
    assert s.hands_played == 1 and not s.is_terminal() and s.dealer == 0 and s.current_player() == 1
    assert s.phase == OFFER and len(s.stock) == 31 and s.showdown is None
    # a dead hand: every turn draws from the stock and discards the card drawn
    s = scripted_state([P0, P1], upcard="AC", episode="game", dealer=1)
    drawn = s.stock[-1]
    play(s, "pass", "pass")
    while True:
        s.apply_action(string_to_action(f"discard {card_str(drawn)}"))
        if s.hands_played:
            break
        drawn = s.stock[-1]
        play(s, "draw stock")
    assert s.last_hand["result"] == "dead hand" and s.last_hand["dealer"] == 1 and s.scores == [0, 0]
    assert s.dealer == 1 and s.phase == OFFER and s.current_player() == 0 and len(s.stock) == 31


def test_action_text_round_trips_for_every_id():
    texts = [action_to_string(a) for a in range(NUM_ACTIONS)]
    assert len(set(texts)) == NUM_ACTIONS
    assert [string_to_action(t) for t in texts] == list(range(NUM_ACTIONS))
    assert texts[0] == "discard AC" and texts[52] == "knock AC" and texts[103] == "knock KS"
    assert texts[104:] == ["draw stock", "draw upcard", "pass", "big gin"]
    assert string_to_action("DRAW  Discard") == 105 and string_to_action("knock 10h") == 52 + parse_cards("TH")[0]


ALLOWED_TEXTS = "use one of 'discard <card>', 'knock <card>', 'draw stock', 'draw upcard', 'pass', 'big gin'"


@pytest.mark.parametrize(
    "text, message",
    [
        ("draw", f"action text 'draw' is not a Gin Rummy action: {ALLOWED_TEXTS}"),
        (
            "discard XX",
            "action text 'discard XX': card 'XX' is not a card: write rank (A 2-9 T J Q K, or 10) then suit"
            " (C D H S), e.g. 'AH', 'TS', '10S'",
        ),
        ("knock", f"action text 'knock' is not a Gin Rummy action: {ALLOWED_TEXTS}"),
        ("meld 3S 4S 5S", f"action text 'meld 3S 4S 5S' is not a Gin Rummy action: {ALLOWED_TEXTS}"),
        ("", f"action text '' is not a Gin Rummy action: {ALLOWED_TEXTS}"),
        (7, f"action text 7 is not a string: {ALLOWED_TEXTS}"),
    ],
)
def test_unknown_action_text_is_a_value_error(text, message):
    with pytest.raises(ValueError, match=whole(message)):
        string_to_action(text)


def test_bad_config_and_deck_are_value_errors():
    with pytest.raises(
        ValueError,
        match=whole("option knock_limit=-1 is out of range: knock_limit must be an int from 0 to 1000000000"),
    ):
        GinRummyConfig(knock_limit=-1)
    # the batched engine's int32 state: a knock limit of 2**32 played as 0 there before the bound
    message = "option knock_limit=4294967296 is out of range: knock_limit must be an int from 0 to 1000000000"
    with pytest.raises(ValueError, match=whole(message)):
        GinRummyConfig(knock_limit=2**32)
    for name in ("gin_bonus", "undercut_bonus", "big_gin_bonus"):
        message = f"option {name}=1000001 is out of range: {name} must be an int from 0 to 1000000"
        with pytest.raises(ValueError, match=whole(message)):
            GinRummyConfig(**{name: 10**6 + 1})
        assert getattr(GinRummyConfig(**{name: 10**6}), name) == 10**6
    with pytest.raises(ValueError, match=whole("option big_gin=1 is not a bool: big_gin must be True or False")):
        GinRummyConfig(big_gin=1)
    with pytest.raises(
        ValueError, match=whole("option episode='match' is not allowed: episode must be one of 'hand', 'game'")
    ):
        GinRummyConfig(episode="match")
    with pytest.raises(ValueError, match=whole("pass either a GinRummyConfig or keyword options, not both")):
        GinRummyGame(GinRummyConfig(), knock_limit=3)
    game = GinRummyGame()
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
    with pytest.raises(ValueError, match=whole("1 hands given: Gin Rummy has 2 players")):
        stack_deck([P0])
    with pytest.raises(
        ValueError, match=whole("hand of player_1 has 9 cards: Gin Rummy deals 10 to each player")
    ):  # R-GIN-02
        stack_deck([P0, "QC JC 9C 8D 7D 4C TD KS QS"])
    with pytest.raises(ValueError, match=whole("card KD is named twice: a deck has one copy of each card")):
        stack_deck([P0, P1], upcard="KD")
    assert parse_deck(stack_deck([P0, P1])) != list(range(52))
