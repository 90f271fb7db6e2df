"""Card ids, text form and values (rules README notation, R-RUMMY-14)."""

import numpy as np
import pytest

from rummy_env.core.cards import (
    CARD_VALUES,
    card_str,
    cards_of,
    cards_str,
    count_faults,
    deck_faults,
    mask_of,
    mask_value,
    parse_card,
    parse_cards,
    parse_deck,
    rank_of,
    suit_of,
)
from tests.helpers import whole


def test_card_order_is_suit_major_clubs_diamonds_hearts_spades_ace_to_king():
    assert [card_str(c) for c in (0, 1, 9, 12, 13, 25, 26, 39, 51)] == [
        "AC",
        "2C",
        "TC",
        "KC",
        "AD",
        "KD",
        "AH",
        "AS",
        "KS",
    ]
    assert (rank_of(48), suit_of(48)) == (9, 3)  # TS


def test_every_card_round_trips_through_text():
    assert [parse_card(card_str(c)) for c in range(52)] == list(range(52))


def test_ten_is_accepted_as_10_and_lower_case_and_spaces():
    assert parse_card("10S") == parse_card("TS") == 48
    assert parse_card(" ah ") == 26
    assert parse_cards("3S, 4S 5S") == [41, 42, 43]


@pytest.mark.parametrize("bad", ["1S", "AX", "11H", "", "ZZ", "A"])
def test_unknown_card_is_a_value_error_naming_it(bad):
    message = (
        f"card {bad!r} is not a card: write rank (A 2-9 T J Q K, or 10) then suit (C D H S), e.g. 'AH', 'TS', '10S'"
    )
    with pytest.raises(ValueError, match=whole(message)):
        parse_card(bad)


def test_non_string_card_is_a_value_error():
    with pytest.raises(ValueError, match=r"^card 5 is not a string: cards are written like 'AH', 'TS' or '10S'$"):
        parse_card(5)


def test_duplicate_card_is_a_value_error():
    with pytest.raises(ValueError, match=whole("card 'TS' appears twice: a deck has one copy of each card")):
        parse_cards(["10S", "TS"])


def test_card_values_follow_r_rummy_14():
    # R-RUMMY-14: A = 1, 2-10 face value, J Q K = 10
    assert CARD_VALUES[:13].tolist() == [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10, 10, 10]
    assert CARD_VALUES.sum() == 340
    assert mask_value(mask_of(parse_cards("AC KD 7H TS"))) == 1 + 10 + 7 + 10


def test_masks():
    cards = parse_cards("AC KS 7H")
    assert mask_of(cards) == (1 << 0) | (1 << 51) | (1 << 32)
    assert cards_of(mask_of(cards)) == sorted(cards) == [0, 32, 51]
    # a negative mask looped for ever; ids out of 0..51 made masks no card reads
    assert mask_of(np.array([0, 51, 32])) == mask_of(cards) and type(mask_of(np.array([3]))) is int
    bad_ids = [
        ([1, -1], "card id -1 is"),
        ([60], "card id 60 is"),
        (["x"], "card id 'x' is"),
        ([True], "card id True is"),
    ]
    bad_ids.append((np.array([64]), "card id 64 is"))  # 1 << np.int64(64) is 0: it went unnoticed
    for bad, message in bad_ids:
        with pytest.raises(ValueError, match=f"^{message} not a card id 0..51$"):
            mask_of(bad)
    with pytest.raises(ValueError, match="^mask -5 is negative: a card bitmask is an int >= 0$"):
        cards_of(-5)


def test_parse_deck_accepts_a_permutation_and_names_problems():
    deck = [card_str(c) for c in range(52)][::-1]
    assert parse_deck(deck) == list(range(52))[::-1]
    with pytest.raises(ValueError, match="^deck has 51 cards: a stacked deck lists all 52 cards, top card first$"):
        parse_deck(deck[:-1])
    twice = "bad deck: card 'KS' appears twice: a deck has one copy of each card; missing cards: AC"
    with pytest.raises(ValueError, match=whole(twice)):
        parse_deck(deck[:-1] + ["KS"])
    unknown = (
        "bad deck: card 'XX' is not a card: write rank (A 2-9 T J Q K, or 10) then suit (C D H S), e.g. 'AH', 'TS',"
        " '10S'; missing cards: AC"
    )
    with pytest.raises(ValueError, match=whole(unknown)):
        parse_deck(deck[:-1] + ["XX"])
    ids = (
        "bad deck: card 51 is not a string: cards are written like 'AH', 'TS' or '10S'; to stack a deck of card ids,"
        " pass [card_str(c) for c in ids] (rummy_env.core.cards.card_str)"
    )
    with pytest.raises(ValueError, match=whole(ids)):  # no "missing cards": the ids are all there, not as text
        parse_deck(list(range(52))[::-1])
    with pytest.raises(ValueError, match="^deck must be a list of 52 card strings, top card first, not one string$"):
        parse_deck("AC 2C")


@pytest.mark.parametrize("bad", [-1, 52, True, 1.0])
def test_card_text_refuses_what_is_no_card_id(bad):
    # cards_str([-1]) once read -1 as "KS" (the last card) and True as "2C"
    with pytest.raises(ValueError, match=rf"^card id {bad!r} is not a card: card ids are ints 0\.\.51$"):
        cards_str([0, bad])
    with pytest.raises(ValueError, match=rf"^card id {bad!r} is not a card: card ids are ints 0\.\.51$"):
        card_str(bad)
    assert cards_str([0, np.int64(51)]) == "AC KS"


@pytest.mark.parametrize(
    ("counts", "want", "message"),
    [
        ([1, 2, 0, 1], 1, "card id 1 appears 2 times, card id 2 is missing"),
        ([1, 1, 1, 3], 1, "card id 3 appears 3 times"),
        ([2, 1, 2], 2, "tile type 1 appears 1 time"),
        ([2, 0, 4], 2, "tile type 2 appears 4 times, tile type 1 is missing"),
        ([1, 1], 1, ""),
    ],
)
def test_count_faults_names_the_first_repeat_and_the_first_gap(counts, want, message):
    what = "card id" if want == 1 else "tile type"
    assert count_faults(np.array(counts), want, what) == message


@pytest.mark.parametrize(
    ("deck", "message"),
    [
        (np.array([2, 0, 0, 1]), "card id 0 appears 2 times, card id 3 is missing"),
        (np.array([0, 1, -5, 2]), "entry 2 is -5, not a card id 0..3"),
        (np.array([0, 1, 4, 9]), "entry 2 is 4, not a card id 0..3"),
        (np.array([0, 2**40, 2, 3]), "entry 1 is 1099511627776, not a card id 0..3"),
        (np.array([2**64 - 1, 1, 2, 3], np.uint64), "entry 0 is 18446744073709551615, not a card id 0..3"),
        (np.array([3, 1, 2, 0], np.uint8), ""),
    ],
)
def test_deck_faults_names_an_entry_outside_the_ids_before_counting(deck, message):
    assert deck_faults(deck, 4, 1, "card id") == message
