"""``rummy_v0``'s own encoding, action text and render (the generic env tests are in
``test_env_api.py``)."""

import numpy as np
import pytest

from rummy_env import rummy_v0
from rummy_env.core.cards import card_str, parse_cards
from rummy_env.games.rummy import NUM_ACTIONS, stack_deck
from tests.helpers import whole

USE = (
    "use one of 'discard <card>', 'draw stock', 'draw discard', 'meld <card> <card> <card>...',"
    " 'layoff <card> set|low|high'"
)
WRITE = "write rank (A 2-9 T J Q K, or 10) then suit (C D H S), e.g. 'AH', 'TS', '10S'"

P0 = "3S 4S 5S 7H 8H 9H 2C 2D 2H KD"
P1 = "AC AD 5C 6C 9C JC QD KH 4D 8D"


def test_space_sizes():
    env = rummy_v0.env(num_players=3)
    agent = env.possible_agents[0]
    assert env.action_space(agent).n == NUM_ACTIONS == 579
    assert env.observation_space(agent)["observation"].shape == (52 * (3 + 4) + 4 * 3 + 4,)
    assert env.observation_space(agent)["action_mask"].dtype == np.int8
    assert env.unwrapped.metadata["name"] == "rummy_v0"


def scripted(**options):
    env = rummy_v0.env(**options)
    env.reset(options={"deck": stack_deck([P0, P1], upcard="QS", stock=["6S"], dealer=1), "dealer": 1})
    return env


def test_observation_of_a_known_deal_is_exact():
    env = scripted()
    obs = env.observe("player_0")
    lay = env.unwrapped.layout
    o = obs["observation"]
    assert o.dtype == np.float32 and o.shape == (324,)
    assert np.flatnonzero(o[lay.slice("hand")]).tolist() == sorted(parse_cards(P0))
    assert np.flatnonzero(o[lay.slice("top_discard")]).tolist() == parse_cards("QS")
    for name in ("discard_rest", "table", "known_1", "forbidden", "melded", "scores"):
        assert o[lay.slice(name)].sum() == 0, name
    assert o[lay.slice("phase")].tolist() == [1, 0]
    assert o[lay.slice("acting")].tolist() == [1, 0]
    assert o[lay.slice("stock_size")].tolist() == [31]
    assert o[lay.slice("hand_sizes")].tolist() == [10, 10]
    assert o[lay.slice("turn")].tolist() == [0]
    mask = obs["action_mask"]
    assert mask.dtype == np.int8 and np.flatnonzero(mask).tolist() == [52, 53]
    # the other player: its own hand, relative seats, and no legal action
    o1 = env.observe("player_1")
    assert np.flatnonzero(o1["observation"][lay.slice("hand")]).tolist() == sorted(parse_cards(P1))
    assert o1["observation"][lay.slice("acting")].tolist() == [0, 1]
    assert o1["action_mask"].sum() == 0


def test_taking_the_upcard_is_public_and_forbidden_to_discard():
    env = scripted()
    env.step(env.unwrapped.string_to_action("draw discard"))
    lay = env.unwrapped.layout
    qs = parse_cards("QS")
    mine, theirs = env.observe("player_0")["observation"], env.observe("player_1")["observation"]
    assert np.flatnonzero(mine[lay.slice("forbidden")]).tolist() == qs
    assert np.flatnonzero(theirs[lay.slice("known_1")]).tolist() == qs  # player_0 is one seat left of player_1
    assert theirs[lay.slice("forbidden")].sum() == 0
    assert mine[lay.slice("phase")].tolist() == [0, 1]
    assert mine[lay.slice("top_discard")].sum() == 0 and mine[lay.slice("stock_size")][0] == 31
    env.step(env.unwrapped.string_to_action("meld 2C 2D 2H"))
    mine = env.observe("player_0")["observation"]
    assert np.flatnonzero(mine[lay.slice("table")]).tolist() == sorted(parse_cards("2C 2D 2H"))
    assert mine[lay.slice("melded")].tolist() == [1, 0]


def test_action_text_round_trips_for_every_id():
    raw = rummy_v0.raw_env
    texts = [raw.action_to_string(a) for a in range(NUM_ACTIONS)]
    assert len(set(texts)) == NUM_ACTIONS
    assert [raw.string_to_action(t) for t in texts] == list(range(NUM_ACTIONS))
    assert raw.action_to_string(0) == "discard AC" and raw.action_to_string(52) == "draw stock"
    assert raw.action_to_string(53) == "draw discard" and raw.action_to_string(54) == "meld AC AD AH"
    assert raw.action_to_string(578) == "layoff KS high"
    assert raw.string_to_action("MELD 5s 3S 4s") == raw.string_to_action("meld 3S 4S 5S")
    assert raw.string_to_action("discard 10H") == parse_cards("TH")[0]


@pytest.mark.parametrize(
    "text, message",
    [
        ("draw", f"action text 'draw' is not a Rummy action: {USE}"),
        ("discard XX", f"action text 'discard XX': card 'XX' is not a card: {WRITE}"),
        ("meld 3S 4S 6S", "action text 'meld 3S 4S 6S': cards 3S 4S 6S are not a set or a run"),
        ("meld 3S 3S 3S", "action text 'meld 3S 3S 3S': card '3S' appears twice: a deck has one copy of each card"),
        ("layoff 6S middle", f"action text 'layoff 6S middle' is not a Rummy action: {USE}"),
        ("", f"action text '' is not a Rummy action: {USE}"),
        (5, f"action text 5 is not a string: {USE}"),
    ],
)
def test_unknown_action_text_is_a_value_error(text, message):
    with pytest.raises(ValueError, match=whole(message)):
        rummy_v0.raw_env.string_to_action(text)


def test_render_shows_the_acting_players_hand_and_the_table():
    env = rummy_v0.env(render_mode="ansi")
    env.reset(options={"deck": stack_deck([P0, P1], upcard="QS", stock=["6S"], dealer=1), "dealer": 1})
    for move in ("draw stock", "meld 3S 4S 5S 6S"):
        env.step(env.unwrapped.string_to_action(move))
    text = env.render()
    assert "player_0's hand: 2C | 2D KD | 2H 7H 8H 9H" in text
    assert "3S 4S 5S 6S" in text and "(player_0)" in text
    assert "discard pile: top QS, 1 card(s); stock: 30 card(s)" in text
    assert "AC" not in text  # player_1's hand stays hidden


def test_card_strings_in_a_deck_may_be_written_10s():
    deck = [card_str(c).replace("T", "10") for c in range(52)]
    env = rummy_v0.raw_env()
    env.reset(options={"deck": deck, "dealer": 0})
    assert env.game_state.deck == list(range(52))
