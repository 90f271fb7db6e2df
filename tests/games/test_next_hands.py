"""The reset option ``next_hands`` (issue 26): stacked deals of the later hands of an
``episode="game"`` game, on every engine: exact scores of scripted games, the generator
dealing once the list runs out, strict checks that change nothing, copies that keep the
stack, and worlds (``resample``) that drop it."""

import copy
import pickle

import numpy as np
import pytest

from rummy_env import crazy_rummy_v0, gin_rummy_v0, rummikub_v0, rummy_v0
from rummy_env.core.cards import card_str, mask_of, parse_cards
from rummy_env.core.tiles import parse_tiles
from rummy_env.games.crazy_rummy import stack_deck as crazy_deck
from rummy_env.games.gin_rummy import stack_deck as gin_deck
from rummy_env.games.rummikub import stack_pool
from rummy_env.games.rummy import stack_deck as rummy_deck
from tests.games.resample_helpers import state_key, swap_hidden
from tests.helpers import legal_texts, play, whole

# Gin hand 1, dealer player_1: both pass, player_0 draws KH and knocks with 3H (34 points)
GIN_HAND_1 = gin_deck(
    ["4D 5D 6D 2C 3C 4C JS QS KS 3H", "7C 7D 7H 7S 8D QH JH 9C 6S 2H"], upcard="AS", stock=["KH"], dealer=1
)
GIN_PLAY_1 = ("pass", "pass", "knock KH")
# Gin hand 2, dealt by player_0 (the winner deals, R-GIN-02): both pass, player_1 draws KS
# and goes gin; player_0 keeps no meld: K Q J 9 7 6 5 4 3 2 = 66 deadwood
GIN_HAND_2 = gin_deck(["KD QC JS 9C 7D 6S 5C 4H 3S 2D", "AC 2C 3C 4D 5D 6D 7H 8H 9H TH"], stock=["KS"], dealer=0)
GIN_PLAY_2 = ("pass", "pass", "knock KS")


def gin_game(next_hands, **options):
    env = gin_rummy_v0.env(episode="game", **options)
    env.reset(seed=0, options={"deck": GIN_HAND_1, "dealer": 1, "next_hands": next_hands})
    return env


def test_a_stacked_second_gin_hand_is_dealt_and_scored_exactly():
    env = gin_game([{"deck": GIN_HAND_2}], target_score=90, reward="score", game_bonuses=True)
    play(env, *GIN_PLAY_1)
    state = env.unwrapped.game_state
    assert state.scores == [34, 0] and state.dealer == 0 and env.agent_selection == "player_1"
    assert state.hands == [mask_of(parse_cards(GIN_HAND_2[1:20:2])), mask_of(parse_cards(GIN_HAND_2[0:20:2]))]
    assert state.hand_decks[1] == parse_cards(GIN_HAND_2) and state.next_hands == []
    assert env.rewards == {"player_0": 34.0, "player_1": -34.0}
    play(env, *GIN_PLAY_2)
    # gin: 66 + 25 = 91 >= 90 ends the game; bonuses (R-GIN-13): player_1 100 + 25, player_0 25
    assert env.infos["player_1"]["hand_score"] == 91 and env.infos["player_1"]["result"] == "gin"
    assert state.scores == [34 + 25, 91 + 125] and state.game_winner == 1
    assert state.returns() == [-157.0, 157.0] and all(env.terminations.values())


def test_the_generator_deals_once_the_stacked_hands_run_out():
    plain = gin_game([], target_score=500)
    play(plain, *GIN_PLAY_1)
    second = plain.unwrapped.game_state.hand_decks[1]  # the generator's deck for hand 2
    stacked = gin_game([{"deck": GIN_HAND_2}], target_score=500)
    play(stacked, *GIN_PLAY_1, *GIN_PLAY_2)
    state = stacked.unwrapped.game_state
    assert state.scores == [34, 91] and state.dealer == 1  # player_1 won hand 2 and deals hand 3
    assert state.hand_decks == [parse_cards(GIN_HAND_1), parse_cards(GIN_HAND_2), second]


def test_a_stacked_second_rummy_hand_is_dealt_and_scored_exactly():
    p0, p1 = "3S 4S 5S 7H 8H 9H 2C 2D 2H KD", "AC AD 5C 6C 9C JC QD KH 4D 8D"  # p1's cards: 64 points
    first = rummy_deck([p0, p1], upcard="QS", stock=["6S"], dealer=1)
    # the deal passes left (dealer 1 -> 0): player_1 starts hand 2 with player_0's old hand
    second = rummy_deck([p1, p0], upcard="QS", stock=["6S", "TD", "JS"], dealer=0)
    env = rummy_v0.env(episode="game", target_score=129, reward="score")
    env.reset(seed=0, options={"deck": first, "dealer": 1, "next_hands": [{"deck": second}]})
    play(env, "draw stock", "meld 3S 4S 5S 6S", "meld 7H 8H 9H", "meld 2C 2D 2H", "discard KD")  # rummy: 128
    assert env.agent_selection == "player_1" and env.unwrapped.game_state.hand_decks[1] == parse_cards(second)
    play(env, "draw stock", "meld 2C 2D 2H", "discard KD", "draw stock", "discard TD")
    play(env, "draw stock", "meld 3S 4S 5S 6S", "meld 7H 8H 9H", "discard JS")  # player_1 goes out: 64
    state = env.unwrapped.game_state
    assert state.scores == [128, 64] and state.hands_played == 2 and not state.is_terminal()
    assert state.returns() == [64.0, -64.0] and state.dealer == 1 and state.next_hands == []


def test_a_stacked_second_crazy_round_is_dealt():
    hands = ["AC 2C 3C 4C 5C 6C 7C", "8C 9C TC JC QC KC AD 2D", "3D 4D 5D 6D 7D 8D 9D"]
    second = crazy_deck(hands, dealer=0)  # the deal passes left: dealer 2 -> 0
    env = crazy_rummy_v0.env(num_players=3, episode="game", max_turns=1)
    env.reset(seed=3, options={"dealer": 2, "next_hands": [{"deck": second}]})
    discard = next(t for t in legal_texts(env) if t.startswith("discard"))
    play(env, discard)  # the round reaches max_turns: no penalties, round 2 is dealt
    state = env.unwrapped.game_state
    assert state.round == 2 and state.dealer == 0 and state.scores == [0, 0, 0]
    assert state.hands == [mask_of(parse_cards(h)) for h in hands] and env.agent_selection == "player_1"


def test_a_stacked_second_rummikub_hand_names_its_first_player():
    racks = ["R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13 B1", "B2 B3 B4 B5 B6 B7 B8 B9 B10 B11 B12 B13 K1 K2"]
    second = stack_pool(racks, pool_top=["JK"], first_player=1)
    env = rummikub_v0.env(episode="game", max_turns=1)
    env.reset(seed=3, options={"first_player": 0, "next_hands": [{"deck": second, "first_player": 1}]})
    play(env, "draw")  # the hand reaches max_turns: no winner, hand 2 is dealt
    state = env.unwrapped.game_state
    assert [r.tolist() for r in state.racks] == [np.bincount(parse_tiles(r), minlength=53).tolist() for r in racks]
    assert state.current == 1 and state.pool[-1] == parse_tiles("JK")[0] and state.hands_played == 1


RACKS = ["R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13 B1", "B2 B3 B4 B5 B6 B7 B8 B9 B10 B11 B12 B13 K1 K2"]


def _stacked_env(module, stack=True):
    """A game of ``module`` reset (seed 4) with one stacked later hand, or none; and that deal."""
    env = module.env(episode="game", **({"num_players": 3} if module is crazy_rummy_v0 else {}))
    if module is rummikub_v0:
        deal = {"deck": stack_pool(RACKS), "first_player": 1}
    else:
        deal = {"deck": [card_str(c) for c in range(52)][::-1]}
    env.reset(seed=4, options={"next_hands": [deal] if stack else []})
    return env, deal


MODULES = [rummy_v0, gin_rummy_v0, crazy_rummy_v0, rummikub_v0]
NAMES = ["rummy", "gin_rummy", "crazy_rummy", "rummikub"]


@pytest.mark.parametrize("module", MODULES, ids=NAMES)
def test_bad_next_hands_are_refused_and_change_nothing(module):
    env, deal = _stacked_env(module)
    raw = env.unwrapped
    before = (env.agent_selection, raw.game_state, raw.np_random.bit_generator.state)
    wrong_key = {**deal, "dealer": 0}
    bad_deck = {**deal, "deck": deal["deck"][:-1]}
    if module is rummikub_v0:  # a Rummikub deal also names who starts; the dropped tile is the last joker
        shape, keys, held, why = (
            "{'deck': ..., 'first_player': ...}",
            "deck, first_player",
            "dealer, deck, first_player",
            "",
        )
        short = "pool has 105 tiles, expected 106: two of each coloured number R1..Y13 and two jokers JK; short of: JK"
    else:
        shape, keys, held = "{'deck': ...}", "deck", "dealer, deck"
        why = " (no dealer: the rules say who deals the next hand)"
        short = "deck has 51 cards: a stacked deck lists all 52 cards, top card first"
    room = 12 if module is crazy_rummy_v0 else 999  # max_hands (13 or 1000) less the hand being dealt
    for bad, message in [
        (
            "deck",
            f"next_hands of type str is not a list: pass a list of the later hands' deals, one dict {shape} per hand"
            " in the order they are dealt",
        ),
        (
            [wrong_key],
            f"next_hands[0] has the keys {held}: each later hand's deal is a dict with exactly the key(s) {keys}{why}",
        ),
        ([deal, bad_deck], f"next_hands[1]: {short}"),
        (
            [deal] * 1000,
            f"next_hands holds 1000 deals, but this episode can deal at most {room} more hand(s)"
            f" (max_hands={room + 1} in all)",
        ),
    ]:
        with pytest.raises(ValueError, match=whole(message)):
            env.reset(options={"next_hands": bad})
        assert (env.agent_selection, raw.game_state, raw.np_random.bit_generator.state) == before
    with pytest.raises(ValueError) as err:
        env.reset(options={"next_hands": [{}]})
    assert (
        str(err.value)
        == f"next_hands[0] has no keys: each later hand's deal is a dict with exactly the key(s) {keys}{why}"
    )
    one_hand = module.env(**({"num_players": 3} if module is crazy_rummy_v0 else {}))
    message = (
        "next_hands holds 1 deal(s), but episode='hand' deals one hand: later hands are dealt only with episode='game'"
    )
    with pytest.raises(ValueError, match=whole(message)):
        one_hand.reset(options={"next_hands": [deal]})


@pytest.mark.parametrize("module", MODULES, ids=NAMES)
def test_copies_keep_the_stacked_hands_and_stay_independent(module):
    env, deal = _stacked_env(module)
    state = env.unwrapped.game_state
    assert len(state.next_hands) == 1
    for twin in (copy.deepcopy(env), pickle.loads(pickle.dumps(env))):
        assert twin.unwrapped.game_state.next_hands == state.next_hands
    clone = state.clone()
    assert clone.next_hands == state.next_hands
    clone._pop_next_hand()
    assert clone.next_hands == [] and len(state.next_hands) == 1
    room = state.game.max_game_hands() - 2  # the first hand and the stacked one are dealt
    message = (
        f"next_hands holds {room + 1} deals, but this episode can deal at most {room} more hand(s)"
        f" (max_hands={room + 2} in all)"
    )
    with pytest.raises(ValueError, match=whole(message)):
        state.stack_next_hands([deal] * (room + 1))
    state.stack_next_hands([deal])
    assert len(state.next_hands) == 2 and state.next_hands[0] == state.next_hands[1]


@pytest.mark.parametrize("module", MODULES, ids=NAMES)
def test_a_world_drops_the_stacked_hands_and_depends_only_on_the_information(module):
    rng = np.random.default_rng(0)
    states = []
    for stack in (True, False):  # the same deal and moves, with and without a stacked future
        env, _ = _stacked_env(module, stack)
        state = env.unwrapped.game_state
        for _ in range(6):
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))] if stack else states[0].history[len(state.history)])
        states.append(state)
    stacked, plain = states
    other = swap_hidden(plain, 0, np.random.default_rng(1))  # and other hidden cards
    assert len(stacked.next_hands) == 1 and plain.next_hands == [] and state_key(other)[:-1] != state_key(plain)[:-1]
    want = state_key(stacked.resample(0, np.random.default_rng(5)))
    for true in (stacked, plain, other):
        world = true.resample(0, np.random.default_rng(5))
        assert world.next_hands == [] and state_key(world) == want
    assert len(stacked.next_hands) == 1  # the true state keeps its stack


@pytest.mark.parametrize(
    ("stack", "name"), [(rummy_deck, "hands"), (gin_deck, "hands"), (crazy_deck, "hands"), (stack_pool, "racks")]
)
def test_the_stack_functions_refuse_hands_that_are_not_a_list(stack, name):
    for bad, kind in [(None, "NoneType"), ("AC 2C 3C", "str"), ({0: "AC"}, "dict")]:
        with pytest.raises(TypeError, match=rf"^{name} must be a list with one entry per player .*, got {kind}$"):
            stack(bad)
