"""``rummy_v0`` as a PettingZoo environment: API conformance, options, encoding, text."""

import pickle
import re
import warnings

import numpy as np
import pytest
from pettingzoo.test import api_test, seed_test

from rummy_env import rummy_v0
from rummy_env.core.cards import card_str, parse_cards
from rummy_env.envs.rummy import __doc__ as DOC
from rummy_env.games.rummy import NUM_ACTIONS, stack_deck

# api_test warns about every dict observation: its allowlists of dict-observation envs
# name only PettingZoo's own.  Any other warning fails the test.
DICT_OBSERVATION_WARNINGS = (
    "Observation is not a NumPy array",
    "Observation space for each agent probably should be gymnasium.spaces.box or gymnasium.spaces.discrete",
)

P0 = "3S 4S 5S 7H 8H 9H 2C 2D 2H KD"
P1 = "AC AD 5C 6C 9C JC QD KH 4D 8D"


@pytest.mark.parametrize("options", [
    {},
    {"num_players": 4, "ace_high": True, "reshuffle": "whole_pile", "reward": "score"},
    {"num_players": 6, "max_turns": 7},  # truncation: dead steps of every agent
    {"episode": "game", "target_score": 30, "num_players": 3},
])
def test_api_test_passes_without_warnings(options):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(rummy_v0.env(**options), num_cycles=300)
    other = [str(w.message) for w in caught if str(w.message) not in DICT_OBSERVATION_WARNINGS]
    assert other == []


def test_seed_test_passes():
    seed_test(rummy_v0.env, num_cycles=200)
    seed_test(lambda: rummy_v0.env(num_players=5, episode="game"), num_cycles=200)


def test_same_seed_same_game_and_seed_none_continues_the_generator():
    a, b = rummy_v0.raw_env(), rummy_v0.raw_env()
    a.reset(seed=12)
    b.reset(seed=12)
    assert a.state.deck == b.state.deck and a.state.dealer == b.state.dealer
    a.reset()
    b.reset()
    assert a.state.deck == b.state.deck  # both continued the same generator
    c = rummy_v0.raw_env()
    c.reset(seed=12)
    assert c.state.deck != a.state.deck


def test_pickling_keeps_non_default_options():
    env = rummy_v0.env(num_players=3, ace_high=True, reshuffle="whole_pile", two_player_winner_deals=True,
                       target_score=50, max_turns=77, episode="game", reward="score", render_mode="ansi")
    clone = pickle.loads(pickle.dumps(env))
    assert clone.unwrapped.game.config == env.unwrapped.game.config
    assert clone.unwrapped.render_mode == "ansi"
    clone.reset(seed=1)
    assert len(clone.agents) == 3


def test_spaces_are_cached_and_sized():
    env = rummy_v0.env(num_players=3)
    agent = env.possible_agents[0]
    assert env.observation_space(agent) is env.observation_space(agent)
    assert env.action_space(agent) is env.action_space(agent)
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


@pytest.mark.parametrize("text, message", [
    ("draw", "is not a Rummy action"),
    ("discard XX", "is not a card"),
    ("meld 3S 4S 6S", "are not a set or a run"),
    ("meld 3S 3S 3S", "appears twice"),
    ("layoff 6S middle", "is not a Rummy action"),
    ("", "is not a Rummy action"),
    (5, "is not a string"),
])
def test_unknown_action_text_is_a_value_error(text, message):
    with pytest.raises(ValueError, match=message):
        rummy_v0.raw_env.string_to_action(text)


def test_docstring_tables_match_the_code():
    raw = rummy_v0.raw_env()
    assert raw.layout.table() in DOC
    actions_section = DOC.split("## Action Space")[1].split("## Observation Space")[0]
    rows = re.findall(r"^\| (\d+)(?:\.\.(\d+))? \| `([^`]*)`", actions_section, flags=re.M)
    action_rows = [(int(a), int(b or a), t) for a, b, t in rows]
    covered = []
    for first, last, example in action_rows:
        covered.extend(range(first, last + 1))
        assert raw.action_to_string(first).split()[0] == example.split()[0]
    assert covered == list(range(NUM_ACTIONS))


def test_bad_reset_options_raise_and_leave_the_env_as_it_was():
    env = scripted()
    env.step(env.unwrapped.string_to_action("draw stock"))
    before = (str(env.unwrapped.state), env.agent_selection)
    deck = stack_deck([P0, P1], upcard="QS", dealer=1)
    for options, message in [
        ({"deck": deck[:51]}, "deck has 51 cards"),
        ({"deck": deck[:51] + ["QS"]}, "card 'QS' appears twice"),
        ({"deck": deck[:51] + ["1S"]}, "card '1S' is not a card"),
        ({"deck": "AC 2C"}, "not one string"),
        ({"dealer": 2}, "dealer 2 is not a seat"),
        ({"dealer": "0"}, "dealer '0' is not a seat"),
    ]:
        with pytest.raises(ValueError, match=message):
            env.reset(seed=3, options=options)
        assert (str(env.unwrapped.state), env.agent_selection) == before
    with pytest.raises(ValueError, match="is not a dict"):
        env.reset(options=["deck"])


def test_bad_env_options_are_value_errors():
    with pytest.raises(ValueError, match="unknown rummy_v0 option"):
        rummy_v0.env(num_player=3)
    with pytest.raises(ValueError, match="num_players=9 is out of range"):
        rummy_v0.env(num_players=9)
    with pytest.raises(ValueError, match="render_mode='rgb_array' is not supported"):
        rummy_v0.env(render_mode="rgb_array")


def test_raw_env_refuses_bad_actions_and_keeps_its_state():
    env = rummy_v0.raw_env()
    env.reset(seed=4)
    before = (str(env.state), env.agent_selection)
    for action in (579, -3, "52", 52.0, None, 0):  # 0 = discard AC, illegal before drawing
        with pytest.raises(ValueError):
            env.step(action)
        assert (str(env.state), env.agent_selection) == before
    env.step(np.int64(52))  # numpy integers are fine
    assert env.state.phase == 1


def test_wrapped_env_turns_an_illegal_action_into_a_loss():
    from pettingzoo.utils.env_logger import EnvLogger

    env = scripted()
    EnvLogger.mqueue.clear()
    env.step(0)  # discard AC: player_0 must draw first
    assert any("Illegal move made" in m for m in EnvLogger.mqueue)
    assert all(env.terminations.values())
    assert env._cumulative_rewards["player_0"] == -1


def test_wrapped_env_asserts_out_of_range_actions():
    env = scripted()
    with pytest.raises(AssertionError, match="action is not in action space"):
        env.step(NUM_ACTIONS)


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
    with pytest.warns(UserWarning, match="without specifying any render mode"):
        assert rummy_v0.env().unwrapped.render() is None


def test_human_render_prints(capsys):
    env = rummy_v0.env(render_mode="human")
    env.reset(seed=0)
    assert "player_" in capsys.readouterr().out


def test_card_strings_in_a_deck_may_be_written_10s():
    deck = [card_str(c).replace("T", "10") for c in range(52)]
    env = rummy_v0.raw_env()
    env.reset(options={"deck": deck, "dealer": 0})
    assert env.state.deck == list(range(52))
