"""The Crazy Rummy engine: the deal, options, penalties, copies (crazy_rummy.md)."""

import pytest

from rummy_env.core.cards import mask_of, parse_cards, parse_deck
from rummy_env.games.crazy_rummy import (
    PLAY,
    CrazyRummyConfig,
    CrazyRummyGame,
    penalty,
    stack_deck,
    string_to_action,
)
from tests.helpers import whole

HANDS = ["7S 8S 5C 2H 3H 4H KD QC", "AC 2C 3C 9S TD JD 6H", "9C TC JC KC 2D 3D 4D"]


def scripted(**options):
    game = CrazyRummyGame(num_players=3, **options)
    return game.new_initial_state(rng=0, deck=parse_deck(stack_deck(HANDS, stock=["6C"], dealer=2)), dealer=2)


def test_deal_seven_each_and_an_eighth_to_the_left_r_crazy_03_06():
    s = scripted(wild_rank=5)
    assert s.hands == [mask_of(parse_cards(h)) for h in HANDS]
    assert s.discard == [] and len(s.stock) == 52 - 22 and s.stock[-1] == parse_cards("6C")[0]
    assert (s.current_player(), s.phase) == (0, PLAY)  # the dealer's left starts, without drawing
    assert s.round == 5 and s.wilds == mask_of(parse_cards("5C 5D 5H 5S"))


def test_wild_rank_is_drawn_from_the_seeded_generator_unless_fixed_r_crazy_02():
    ranks = {CrazyRummyGame().new_initial_state(rng=seed).round for seed in range(60)}
    assert ranks == set(range(1, 14))
    assert CrazyRummyGame().new_initial_state(rng=3).round == CrazyRummyGame().new_initial_state(rng=3).round
    assert CrazyRummyGame(wild_rank=12).new_initial_state(rng=3).round == 12
    assert CrazyRummyGame(episode="game").new_initial_state(rng=3).round == 1


@pytest.mark.parametrize(
    "hand, wild_rank, points",
    [
        ("AC 2D TH JS QC KD", 13, 1 + 2 + 10 + 10 + 10 + 25),  # R-CRAZY-12: the wild king 25
        ("AC 2D TH JS QC KD", 1, 25 + 2 + 10 + 10 + 10 + 10),  # aces wild in round 1
        ("5C 5D 9H", 5, 25 + 25 + 9),
        ("", 7, 0),
    ],
)
def test_penalty_points_r_crazy_12(hand, wild_rank, points):
    assert penalty(mask_of(parse_cards(hand)), wild_rank - 1) == points


@pytest.mark.parametrize(
    "options, message",
    [
        ({"num_players": 2}, "option num_players=2 is out of range: num_players must be an int from 3 to 6"),
        ({"num_players": 7}, "option num_players=7 is out of range: num_players must be an int from 3 to 6"),
        ({"wild_rank": 0}, "option wild_rank=0 is out of range: wild_rank must be an int from 1 to 13"),
        ({"wild_rank": 14}, "option wild_rank=14 is out of range: wild_rank must be an int from 1 to 13"),
        ({"wild_rank": "K"}, "option wild_rank='K' is not an integer: wild_rank must be an int from 1 to 13"),
        (
            {"wild_rank": 3, "episode": "game"},
            "option wild_rank=3 does not go with episode='game': a game plays the wild ranks 1..13 in order"
            " (R-CRAZY-02); a wild rank is given only with episode='hand' (one round)",
        ),
        ({"reward": "penalty"}, "option reward='penalty' is not allowed: reward must be one of 'win', 'score'"),
        ({"max_turns": 0}, "option max_turns=0 is out of range: max_turns must be an int from 1 to 1000000000"),
    ],
)
def test_bad_options(options, message):
    with pytest.raises(ValueError, match=whole(message)):
        CrazyRummyConfig(**options)


def test_clone_is_independent():
    s = scripted(wild_rank=5)
    c = s.clone()
    c.apply_action(string_to_action("meld 7S 8S 9S"))
    assert len(s.table) == 0 and len(c.table) == 1
    assert s.hands[0] == mask_of(parse_cards(HANDS[0]))
    assert c.wild_for == {parse_cards("9S")[0]: (parse_cards("5C")[0], 0)} and s.wild_for == {}
