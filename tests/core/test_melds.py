"""The meld table and meld / lay-off validity (R-RUMMY-01, 07, 08)."""

import itertools

import numpy as np
import pytest

from rummy_env.core.cards import cards_str, mask_of, parse_cards
from rummy_env.core.melds import (
    LAYOFF_RUN_HIGH,
    LAYOFF_RUN_LOW,
    LAYOFF_SET,
    MELD_ID_BY_MASK,
    MELDS,
    NUM_MELDS,
    RUN,
    SET,
    is_valid_meld,
    meld_of_cards,
    melds_in_hand,
)
from rummy_env.core.table import layoff_fits


def test_table_size_and_composition():
    # 13 ranks x (4 sets of 3 + 1 set of 4) = 65 sets; per suit 66 ace-low runs of
    # 3..13 cards + 10 runs ending with a high ace (3..K-A down to Q-K-A) = 76
    assert NUM_MELDS == 369
    assert sum(m.kind == SET for m in MELDS) == 65
    assert sum(m.kind == RUN and not m.needs_ace_high for m in MELDS) == 4 * 66
    assert sum(m.needs_ace_high for m in MELDS) == 4 * 10
    assert len(MELD_ID_BY_MASK) == NUM_MELDS  # every meld is a distinct set of cards


def test_table_order_is_the_documented_one():
    def text(i):
        return cards_str(MELDS[i].cards)

    assert [text(i) for i in range(5)] == ["AC AD AH", "AC AD AS", "AC AH AS", "AD AH AS", "AC AD AH AS"]
    assert text(64) == "KC KD KH KS"
    assert text(65) == "AC 2C 3C"  # first run: clubs, lowest position, shortest
    assert text(66) == "AC 2C 3C 4C"
    assert text(75) == "AC 2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC"
    assert text(65 + 76 - 1) == "QC KC AC"  # last clubs run: the high-ace Q-K-A
    assert text(NUM_MELDS - 1) == "QS KS AS"
    assert [MELDS[i].id for i in range(NUM_MELDS)] == list(range(NUM_MELDS))


@pytest.mark.parametrize(
    "cards, ace_high, valid",
    [
        ("AS 2S 3S", False, True),  # R-RUMMY-01: ace low
        ("QS KS AS", False, False),  # Q-K-A only with ace_high
        ("QS KS AS", True, True),
        ("KS AS 2S", True, False),  # never around the corner
        ("KS AS 2S", False, False),
        ("7H 7D 7C", False, True),  # R-RUMMY-07: set of 3
        ("7H 7D 7C 7S", False, True),  # set of 4
        ("7H 7D", False, False),
        ("4H 5H 7H", False, False),
        ("4H 5H 6D", False, False),
        ("2C 3C 4C 5C 6C 7C 8C 9C TC JC QC KC AC", True, True),  # the whole suit
    ],
)
def test_meld_validity(cards, ace_high, valid):
    ids = parse_cards(cards)
    assert is_valid_meld(ids, ace_high) is valid
    assert (meld_of_cards(ids, ace_high) is not None) is valid


def _brute_force_melds(hand, ace_high):
    out = []
    for m in MELDS:
        if m.mask & ~hand == 0 and (ace_high or not m.needs_ace_high):
            out.append(m.id)
    return out


def test_melds_in_hand_matches_brute_force_on_random_hands():
    rng = np.random.default_rng(7)
    for _ in range(3000):
        hand = mask_of(rng.choice(52, size=rng.integers(0, 16), replace=False).tolist())
        for ace_high in (False, True):
            assert melds_in_hand(hand, ace_high) == _brute_force_melds(hand, ace_high)


def test_every_subset_of_small_hands_agrees_with_the_table():
    rng = np.random.default_rng(11)
    for _ in range(200):
        hand = rng.choice(52, size=8, replace=False).tolist()
        for k in range(3, 6):
            for combo in itertools.combinations(hand, k):
                for ace_high in (False, True):
                    assert is_valid_meld(combo, ace_high) == (meld_of_cards(combo, ace_high) is not None)


@pytest.mark.parametrize(
    "meld, card, side, ace_high, fits",
    [
        ("5C 5D 5H", "5S", LAYOFF_SET, False, True),  # R-RUMMY-08: a set reaches 4 cards
        ("5C 5D 5H 5S", "5S", LAYOFF_SET, False, False),
        ("3S 4S 5S", "2S", LAYOFF_RUN_LOW, False, True),  # the rules' example: 2S on 3S 4S 5S
        ("3S 4S 5S", "6S", LAYOFF_RUN_HIGH, False, True),
        ("3S 4S 5S", "6S", LAYOFF_RUN_LOW, False, False),
        ("3S 4S 5S", "7S", LAYOFF_RUN_HIGH, False, False),
        ("3S 4S 5S", "6H", LAYOFF_RUN_HIGH, False, False),
        ("2H 3H 4H", "AH", LAYOFF_RUN_LOW, False, True),
        ("JH QH KH", "AH", LAYOFF_RUN_HIGH, False, False),  # high ace needs ace_high
        ("JH QH KH", "AH", LAYOFF_RUN_HIGH, True, True),
        ("JH QH KH", "AH", LAYOFF_RUN_LOW, True, False),
        ("5C 5D 5H", "6C", LAYOFF_RUN_HIGH, False, False),
        ("AS 2S 3S", "KS", LAYOFF_RUN_LOW, True, False),  # never around the corner: K below A-2-3
        ("QS KS AS", "2S", LAYOFF_RUN_HIGH, True, False),  # nor 2 above Q-K-A
        ("2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS", "AS", LAYOFF_RUN_LOW, True, True),  # both ace sides
        ("2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS", "AS", LAYOFF_RUN_HIGH, True, True),
        ("2S 3S 4S 5S 6S 7S 8S 9S TS JS QS KS", "AS", LAYOFF_RUN_HIGH, False, False),
    ],
)
def test_layoff_fits(meld, card, side, ace_high, fits):
    assert layoff_fits(parse_cards(meld), parse_cards(card)[0], side, ace_high) is fits
