"""The Crazy Rummy heuristic's look-ahead: lay-off spots and go-out plans."""

from agents.crazy_planner import GoOutPlanner, TableView, layoff_spots
from rummy_env.core.cards import card_str, cards_of, mask_of, parse_card, parse_cards
from rummy_env.core.melds import MELDS
from rummy_env.games.crazy_rummy.hands import wild_cards


def cards(text):
    return mask_of(parse_cards(text.split()))


def table(text, wild_for=()):
    """A table of natural cards plus ``(stood-for card, wild card)`` pairs."""
    represented = occupied = cards(text)
    for card, wild in wild_for:
        represented |= 1 << parse_card(card)
        occupied |= 1 << parse_card(card) | 1 << parse_card(wild)
    return TableView(represented, occupied, {parse_card(c): parse_card(w) for c, w in wild_for})


def names(mask):
    return " ".join(card_str(c) for c in cards_of(mask))


def test_layoff_spots_are_run_ends_and_the_missing_card_of_a_three_card_set():
    # R-CRAZY-07: 4H and 8H extend 5H-7H; QD completes the set of queens; AC-3C only
    # extends upwards, to 4C (R-CRAZY-01: no king below the ace)
    spots = layoff_spots(table("5H 6H 7H QC QH QS AC 2C 3C"))
    assert names(spots) == "4C QD 4H 8H"


def test_a_card_stood_for_by_a_wild_card_counts_as_on_the_table():
    # 5D stands for 8H: 9H extends the run; 8H itself is taken (R-CRAZY-05a)
    spots = layoff_spots(table("6H 7H", [("8H", "5D")]))
    assert names(spots) == "5H 9H"


def test_plan_lays_off_then_keeps_one_card_to_discard():
    planner = GoOutPlanner(wild_cards(1), table("5H 6H 7H"))  # twos wild
    assert planner.plan(cards("8H KC"), melded=True) == [("layoff", parse_card("8H"))]
    assert planner.plan(cards("8H KC"), melded=False) is None  # no lay-off before a meld (R-CRAZY-07)
    # the card taken from the discard pile may not be the one discarded (R-CRAZY-08)
    assert planner.plan(cards("8H KC"), melded=True, keep_out=cards("KC")) is None
    assert planner.plan(cards("KC"), melded=True) == []


def test_plan_melds_with_a_wild_card_and_never_empties_the_hand_by_a_meld():
    planner = GoOutPlanner(wild_cards(1), table(""))
    plan = planner.plan(cards("9S TS 2C KD"), melded=False)
    assert [(kind, MELDS[x].cards) for kind, x in plan] == [("meld", tuple(parse_cards(["8S", "9S", "TS"])))]
    assert planner.plan(cards("9S TS 2C"), melded=False) is None  # R-CRAZY-09: the last card is discarded


def test_a_wild_card_taken_back_by_a_swap_can_then_be_laid_off_as_itself():
    # fives wild; 5C stands for QH in 9H-QH.  Swap QH in (R-CRAZY-07), then 5C extends
    # 2C-4C as itself and 6C follows it; 3S is discarded
    planner = GoOutPlanner(wild_cards(4), table("2C 3C 4C 9H TH JH", [("QH", "5C")]))
    plan = planner.plan(cards("QH 6C 3S"), melded=True)
    assert plan == [("swap", parse_card("QH")), ("layoff", parse_card("5C")), ("layoff", parse_card("6C"))]


def test_known_spots_replace_the_guess_except_next_to_the_plan_s_own_melds():
    # the guess says 8H extends 5H-7H; the mask (known_spots) says no card lays off there
    assert GoOutPlanner(wild_cards(1), table("5H 6H 7H"), known_spots=0).plan(cards("8H KC"), True) is None
    planner = GoOutPlanner(wild_cards(1), table("5H 6H 7H"), known_spots=cards("8H"))
    assert planner.plan(cards("8H KC"), melded=True) == [("layoff", parse_card("8H"))]
    # JC goes on the run the plan itself puts down (the first run in meld-table order)
    planner = GoOutPlanner(wild_cards(1), table("5H 6H 7H"), known_spots=0)
    plan = planner.plan(cards("8C 9C TC JC KD"), melded=True)
    assert [(kind, MELDS[x].cards if kind == "meld" else x) for kind, x in plan] == [
        ("meld", tuple(parse_cards(["8C", "9C", "TC"]))),
        ("layoff", parse_card("JC")),
    ]


def test_both_planners_fill_with_the_wild_card_taken_from_the_discard_pile_first():
    # kings wild; 4C 5C KC KD in hand, KD just taken (keep_out: it may not be the last card,
    # R-CRAZY-08).  The engine fills a meld with KD first (CrazyRummyState._fill_order), so
    # 3C 4C 5C leaves KC to discard; filled with KC (the lowest id) it left KD and no plan
    import numpy as np

    from agents.search import crazy_plan

    board = "7H 8H 9H TH 4D 4H 5D 5H 2C 7C"
    hand, keep, wilds = cards("4C 5C KC KD"), cards("KD"), wild_cards(12)
    meld = next(i for i, m in enumerate(MELDS) if m.cards == tuple(parse_cards(["3C", "4C", "5C"])))
    assert GoOutPlanner(wilds, table(board)).plan(hand, True, keep_out=keep) == [("meld", meld)]
    keys, results = crazy_plan.memo_arrays()
    u = np.uint64
    first = crazy_plan.first_move(
        u(hand), True, u(keep), u(wilds), u(cards(board)), u(cards(board)), np.full(4, -1, np.int64), u(0), False,
        keys, results, u(1),
    )  # fmt: skip
    assert first == crazy_plan.MELD_MOVE + meld


def test_both_planners_never_fill_with_a_wild_card_whose_natural_card_is_stood_for():
    # tens wild; TD stands for TS on the table, the hand holds TS: TS may only be swapped in
    # (R-CRAZY-05a), so before its first meld the player has no plan, after it the swap
    import numpy as np

    from agents.search import crazy_plan

    board = table("7S 8S 9S", wild_for=[("TS", "TD")])
    hand, wilds = cards("4C 5C TS 2H"), wild_cards(9)
    meld = next(i for i, m in enumerate(MELDS) if m.cards == tuple(parse_cards(["3C", "4C", "5C"])))
    assert GoOutPlanner(wilds, board).plan(hand, False, keep_out=0) is None
    assert GoOutPlanner(wilds, board).plan(hand, True, keep_out=0) == [("swap", parse_card("TS")), ("meld", meld)]
    keys, results = crazy_plan.memo_arrays()
    u = np.uint64
    stands = np.array([-1, parse_card("TS"), -1, -1], np.int64)  # suits C D H S: TD stands for TS
    for melded, want in [(False, crazy_plan.NO_PLAN), (True, crazy_plan.SWAP_MOVE + parse_card("TS"))]:
        first = crazy_plan.first_move(
            u(hand), melded, u(0), u(wilds), u(board.represented), u(board.occupied), stands, u(0), False,
            keys, results, u(2 + melded),
        )  # fmt: skip
        assert first == want
