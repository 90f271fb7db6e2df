"""Exact deadwood (R-GIN-05), knock legality (R-GIN-06), the knocker's arrangement
(R-GIN-06) and the defender's lay-offs (R-GIN-08), against an exhaustive search."""

import numpy as np
import pytest

from rummy_env.core.cards import cards_of, cards_str, mask_of, parse_cards
from rummy_env.core.deadwood import (
    SUIT_DEADWOOD,
    arrangements,
    best_arrangements,
    best_discard_deadwood,
    deadwood,
    defender_layout,
    hand_value,
    knock_discards,
    showdown,
)
from rummy_env.core.melds import MELDS
from tests.games.gin_rummy.helpers import BruteDeadwood, brute_deadwood, mask_value, melds_of

LIMITS = (0, 5, 10, 15)


def hand(text):
    return mask_of(parse_cards(text))


def meld_texts(meld_ids):
    return [cards_str(MELDS[m].cards) for m in meld_ids]


def random_hands(seed, size, count):
    """``count`` hands of ``size`` cards: a third uniform, the rest built from runs, sets
    and single cards so that many are near a knock (where the interesting cases are)."""
    rng = np.random.default_rng(seed)
    for i in range(count):
        if i % 3 == 0:
            yield mask_of(int(c) for c in rng.choice(52, size, replace=False))
            continue
        cards = set()
        while len(cards) < size:
            r = rng.random()
            if r < 0.5:
                suit, low = int(rng.integers(4)), int(rng.integers(11))
                add = [suit * 13 + k for k in range(low, min(13, low + int(rng.integers(3, 6))))]
            elif r < 0.8:
                rank = int(rng.integers(13))
                add = [s * 13 + rank for s in rng.choice(4, int(rng.integers(2, 5)), replace=False)]
            else:
                add = [int(rng.integers(52))]
            for c in add:
                if len(cards) < size:
                    cards.add(int(c))
        yield mask_of(cards)


@pytest.mark.parametrize("chunk", range(4))
def test_ten_card_deadwood_equals_brute_force(chunk):
    near = 0
    for h in random_hands(100 + chunk, 10, 4000):
        expected = brute_deadwood(h)
        assert deadwood(h) == expected, cards_str(cards_of(h))
        near += expected <= 15
    assert near >= 700  # the sample reaches the knock limits, not only hopeless hands


@pytest.mark.parametrize("chunk", range(4))
def test_eleven_card_deadwood_and_knock_legality_equal_brute_force(chunk):
    knockable = {limit: 0 for limit in LIMITS}
    for h in random_hands(200 + chunk, 11, 4000):
        brute = BruteDeadwood(h)
        assert deadwood(h) == brute.deadwood(h)
        after = {c: brute.deadwood(h & ~(1 << c)) for c in cards_of(h)}
        assert best_discard_deadwood(h) == min(after.values())
        for limit in LIMITS:
            expected = mask_of(c for c, d in after.items() if d <= limit)
            assert knock_discards(h, limit) == expected, (cards_str(cards_of(h)), limit)
            knockable[limit] += expected != 0
    assert min(knockable.values()) >= 250, knockable


def test_the_suit_table_covers_blocks_of_three_or_more():
    # ranks A..K are bits 0..12 of a suit pattern
    assert SUIT_DEADWOOD[0b111] == 0  # A 2 3
    assert SUIT_DEADWOOD[0b11] == 3  # A 2
    assert SUIT_DEADWOOD[0b1_1011_1000_0000] == 20  # 8 9 T is a run; Q K are left
    assert SUIT_DEADWOOD[(1 << 13) - 1] == 0


def test_known_hands():
    # R-GIN-01: aces are low only; Q-K-A is no run
    assert deadwood(hand("QS KS AS 2C 3C 4C 5D 6D 7D 8D")) == 21
    assert deadwood(hand("AS 2S 3S 2C 3C 4C 5D 6D 7D 8D")) == 0
    # sets against runs: 6S 7S 8S, 6C 7C 8C and 8D: the two runs leave only 8D (8 points),
    # the set of eights would leave 6S 7S 6C 7C (26)
    assert deadwood(hand("6S 7S 8S 6C 7C 8C 8D 2H 4H 9H")) == 8 + 2 + 4 + 9
    # the worst 10-card hand (OpenSpiel's kMaxPossibleDeadwood): 98 points
    assert deadwood(hand("KS KC QD QH JS JC TD TH 9S 9C")) == 98
    assert hand_value(hand("KS KC QD QH JS JC TD TH 9S 9C")) == 98


def test_eleven_cards_without_the_one_best_arrangement_shortcut():
    # Taking one least-deadwood arrangement of all 11 cards and discarding its highest
    # deadwood card gives 1 here (OpenSpiel's MinDeadwood); discarding 3H gives gin.
    h = hand("3C 4C 5C AD 2D 3D 3H 3S 4S 5S 6S")
    assert deadwood(h) == 3
    assert meld_texts(best_arrangements(h)[0]) == ["3D 3H 3S", "3C 4C 5C", "4S 5S 6S"]
    assert best_discard_deadwood(h) == 0
    assert cards_str(cards_of(knock_discards(h, 0))) == "3H"  # gin is legal at knock limit 0


def test_knock_limit_above_ten_and_every_card():
    h = hand("2C 3C 4C 9D TD JD 5H 6H 7S 8S KS")  # melds 2C-4C, 9D-JD; 5H 6H 7S 8S KS = 36
    assert deadwood(h) == 36
    assert knock_discards(h, 25) == 0
    assert knock_discards(h, 26) == hand("KS")  # 36 - 10
    assert knock_discards(h, 28) == hand("8S KS")
    assert knock_discards(h, 30) == hand("6H 7S 8S KS")
    assert knock_discards(h, 98) == h  # any discard keeps at most 98 points


def test_arrangements_are_canonical_and_ordered():
    # a 6-card run is one meld, never two 3-card runs
    assert meld_texts(best_arrangements(hand("3S 4S 5S 6S 7S 8S 2C 2D 2H KD"))[0]) == ["2C 2D 2H", "3S 4S 5S 6S 7S 8S"]
    arrs = arrangements(hand("5C 5D 5H 5S 6S 7S 8S AD 2D 2C"))
    assert [d for _, d in arrs] == sorted(d for _, d in arrs)
    best = [meld_texts(a) for a, d in arrs if d == 5]
    # meld-table order: the 3-card set 5C 5D 5H (id 20) before the 4-card set (id 24)
    assert best == [["5C 5D 5H", "5S 6S 7S 8S"], ["5C 5D 5H 5S", "6S 7S 8S"]]
    assert [a for a, _ in arrs] == sorted(set(a for a, _ in arrs), key=lambda a: (dict(arrs)[a], a))
    assert best_arrangements(0) == [()]


def test_every_arrangement_is_a_packing_of_real_melds():
    for h in random_hands(7, 11, 300):
        legal = set(melds_of(h))
        for arr, dw in arrangements(h):
            used = 0
            for m in arr:
                mask = MELDS[m].mask
                assert mask in legal and mask & used == 0
                used |= mask
            assert dw == mask_value(h & ~used)


# ------------------------------------------------------------------- lay-offs
def test_defender_lays_off_a_card_of_a_meld_it_could_keep_r_gin_08():
    # knocker's run 4D 5D 6D; the defender's four sevens could all stay a set, but laying
    # off 7D (the set keeps 7C 7H 7S) lets 8D follow onto the run extended by 7D
    layout = defender_layout(hand("7C 7D 7H 7S 8D QH JH 9C 6S 2H"), [_meld("4D 5D 6D"), _meld("2C 3C 4C")])
    assert [(cards_str([x.card]), x.meld) for x in layout.layoffs] == [("7D", 0), ("8D", 0)]
    assert meld_texts(layout.melds) == ["7C 7H 7S"]
    assert layout.deadwood == 10 + 10 + 9 + 6 + 2 and layout.deadwood_cards == hand("QH JH 9C 6S 2H")


def test_defender_lays_off_onto_a_meld_already_extended_r_gin_08():
    layout = defender_layout(hand("8H 9H QC JC 9C 8S 7D 4S 2D AD"), [_meld("5H 6H 7H")])
    assert [cards_str([x.card]) for x in layout.layoffs] == ["8H", "9H"]
    assert layout.melds == () and layout.deadwood == 68 - 17


def test_defender_prefers_its_own_meld_on_a_tie_and_the_fourth_card_of_a_set():
    # 7D 8D 9D is a run of the defender's own; laying it all off on 4D-6D ties: keep it
    layout = defender_layout(hand("7D 8D 9D KC KH 2S"), [_meld("4D 5D 6D"), _meld("QS QC QD")])
    assert layout.layoffs == () and meld_texts(layout.melds) == ["7D 8D 9D"] and layout.deadwood == 22
    layout = defender_layout(hand("QH KC KH 2S"), [_meld("QS QC QD")])
    assert [cards_str([x.card]) for x in layout.layoffs] == ["QH"] and layout.deadwood == 22


def test_a_card_that_fits_two_melds_is_laid_off_once_where_it_helps_most():
    # 7H fits the set 7C 7D 7S and the run 4H 5H 6H; on the run it lets 8H follow
    layout = defender_layout(hand("7H 8H KS"), [_meld("4H 5H 6H"), _meld("7C 7D 7S")])
    assert [(cards_str([x.card]), x.meld) for x in layout.layoffs] == [("7H", 0), ("8H", 0)]
    assert layout.deadwood == 10
    # 5H fits above 2H-4H and, through 6H 7H, below 8H-TH: each card is laid off once
    layout = defender_layout(hand("5H 7H KS"), [_meld("2H 3H 4H"), _meld("8H 9H TH")])
    assert sorted((cards_str([x.card]), x.meld) for x in layout.layoffs) == [("5H", 0), ("7H", 1)]


def test_no_lay_offs_against_gin_r_gin_08():
    layout = defender_layout(hand("8H 9H KS"), [_meld("5H 6H 7H")], layoffs_allowed=False)
    assert layout.layoffs == () and layout.deadwood == 27
    s = showdown(hand("5H 6H 7H 2C 3C 4C TS JS QS KS"), hand("8H 9H KS"))
    assert s.knocker_deadwood == 0 and s.defender.layoffs == () and s.defender.deadwood == 27


def test_knocker_arrangement_leaves_the_defender_the_most_deadwood_r_gin_06():
    knocker = hand("5C 5D 5H 5S 6S 7S 8S AD 2D 2C")  # two arrangements with 5 points of deadwood
    # the defender holds 4S: it fits 5S 6S 7S 8S but not 6S 7S 8S, so the knocker lays
    # down the four fives and 6S 7S 8S (a later arrangement in meld-table order)
    s = showdown(knocker, hand("4S KC QD JD 9H 9C TC 3H 7D KH"))
    assert meld_texts(s.knocker_melds) == ["5C 5D 5H 5S", "6S 7S 8S"]
    assert s.knocker_deadwood == 5 and s.knocker_deadwood_cards == hand("AD 2D 2C")
    assert s.defender.layoffs == () and s.defender.deadwood == 82
    # without 4S the defender's deadwood is the same either way: the first in meld-table order
    s = showdown(knocker, hand("3C KC QD JD 9H 9C TC 3H 7D KH"))
    assert meld_texts(s.knocker_melds) == ["5C 5D 5H", "5S 6S 7S 8S"] and s.defender.deadwood == 81


def _meld(text):
    from rummy_env.core.melds import MELD_ID_BY_MASK

    return MELD_ID_BY_MASK[hand(text)]
