"""``gin_rummy_v0`` as a PettingZoo environment: API conformance, options, encoding, text."""

import pickle
import re

import numpy as np
import pytest
from pettingzoo.test import seed_test

from rummy_env import gin_rummy_v0
from rummy_env.core.cards import card_str, parse_cards
from rummy_env.envs.gin_rummy import __doc__ as DOC
from rummy_env.games.gin_rummy import NUM_ACTIONS, stack_deck
from tests.envs.variants import api_test_warnings
from tests.helpers import whole

WRITE = "write rank (A 2-9 T J Q K, or 10) then suit (C D H S), e.g. 'AH', 'TS', '10S'"

P0 = "3S 4S 5S 7H 8H 9H 2C 2D 2H KD"
P1 = "QC JC 9C 8D 7D 4C TD KS QS JD"


@pytest.mark.parametrize(
    "options",
    [
        {},
        {"episode": "game", "reward": "score", "game_bonuses": True, "target_score": 60},
        {"max_turns": 3},  # truncation: dead steps of both agents
        {
            "oklahoma": True,
            "big_gin": False,
            "knock_limit": 0,
            "episode": "game",
            "undercut_bonus": 0,
            "game_bonuses": True,
        },  # an unbounded score field
        {"knock_limit": 40},  # random play knocks
    ],
)
def test_api_test_passes_with_no_unexpected_warning(options):
    assert api_test_warnings(gin_rummy_v0.env(**options)) == []


def test_seed_test_passes():
    seed_test(gin_rummy_v0.env, num_cycles=200)
    seed_test(lambda: gin_rummy_v0.env(episode="game", knock_limit=30, target_score=50), num_cycles=200)


def test_same_seed_same_game_and_seed_none_continues_the_generator():
    a, b = gin_rummy_v0.raw_env(), gin_rummy_v0.raw_env()
    a.reset(seed=12)
    b.reset(seed=12)
    assert a.game_state.deck == b.game_state.deck and a.game_state.dealer == b.game_state.dealer
    a.reset()
    b.reset()
    assert a.game_state.deck == b.game_state.deck
    c = gin_rummy_v0.raw_env()
    c.reset(seed=13)
    assert c.game_state.deck != a.game_state.deck


def test_a_seeded_reset_keeps_the_options():
    env = gin_rummy_v0.env(knock_limit=3, gin_bonus=7, reward="score", episode="game")
    env.reset(seed=5)
    assert env.unwrapped.game_state.config.knock_limit == 3 and env.unwrapped.game_state.config.reward == "score"
    assert env.unwrapped.game_state.knock_limit == 3


def test_pickling_keeps_non_default_options():
    options = dict(
        knock_limit=15,
        gin_bonus=20,
        undercut_bonus=10,
        big_gin=False,
        big_gin_bonus=40,
        oklahoma=True,
        target_score=150,
        game_bonuses=True,
        max_turns=77,
        episode="game",
        reward="score",
    )
    env = gin_rummy_v0.env(render_mode="ansi", **options)
    clone = pickle.loads(pickle.dumps(env))
    assert clone.unwrapped.game.config == env.unwrapped.game.config
    assert {k: getattr(clone.unwrapped.game.config, k) for k in options} == options
    assert clone.unwrapped.render_mode == "ansi"
    clone.reset(seed=1)
    assert clone.agents == ["player_0", "player_1"]


def test_spaces_are_cached_and_sized():
    env = gin_rummy_v0.env()
    agent = env.possible_agents[0]
    assert env.observation_space(agent) is env.observation_space(agent)
    assert env.action_space(agent) is env.action_space(agent)
    assert env.action_space(agent).n == NUM_ACTIONS == 108
    space = env.observation_space(agent)["observation"]
    assert space.shape == (485,) and space.dtype == np.float32
    assert env.observation_space(agent)["action_mask"].dtype == np.int8
    assert env.unwrapped.metadata["name"] == "gin_rummy_v0"
    lay = env.unwrapped.layout
    assert space.high[lay.slice("knock_limit")][0] == 10 and space.high[lay.slice("scores")][0] == 100 + 31
    assert (
        gin_rummy_v0.env(knock_limit=40).observation_space(agent)["observation"].high[lay.slice("knock_limit")][0] == 40
    )


def test_the_scores_bound_follows_the_options():
    from rummy_env.envs.gin_rummy import max_total
    from rummy_env.games.gin_rummy import GinRummyConfig

    assert max_total(GinRummyConfig()) == 131  # one hand: 100 + the big gin bonus
    assert max_total(GinRummyConfig(episode="game", big_gin=False)) == 99 + 125
    assert max_total(GinRummyConfig(episode="game", game_bonuses=True, target_score=50)) == 2 * (
        49 + 131 + 100 + 25 * 50
    )
    # a hand won with 0 points (gin with 0 bonus against 0 deadwood) makes the box bonus unbounded
    assert max_total(GinRummyConfig(episode="game", game_bonuses=True, gin_bonus=0)) == float("inf")


def scripted(**options):
    env = gin_rummy_v0.env(**options)
    env.reset(options={"deck": stack_deck([P0, P1], upcard="AC", stock=["6S", "JH"], dealer=1), "dealer": 1})
    return env


def test_observation_of_a_known_deal_is_exact():
    env = scripted()
    lay = env.unwrapped.layout
    obs = env.observe("player_0")
    o = obs["observation"]
    assert o.dtype == np.float32 and o.shape == (485,)
    assert np.flatnonzero(o[lay.slice("hand")]).tolist() == sorted(parse_cards(P0))
    assert np.flatnonzero(o[lay.slice("upcard")]).tolist() == parse_cards("AC")
    for name in (
        "discard_rest",
        "opponent_known",
        "opponent_discarded",
        "forbidden",
        "knocker_melds",
        "layoffs",
        "defender_melds",
        "knocker",
        "showdown_deadwood",
        "scores",
        "turn",
    ):
        assert o[lay.slice(name)].sum() == 0, name
    assert o[lay.slice("phase")].tolist() == [1, 0, 0]  # upcard offer
    assert o[lay.slice("acting")].tolist() == [1, 0] and o[lay.slice("dealer")].tolist() == [0, 1]
    assert o[lay.slice("stock_size")].tolist() == [31] and o[lay.slice("knock_limit")].tolist() == [10]
    assert o[lay.slice("deadwood")].tolist() == [10]
    mask = obs["action_mask"]
    assert mask.dtype == np.int8 and mask.shape == (108,) and np.flatnonzero(mask).tolist() == [105, 106]
    o1 = env.observe("player_1")
    assert np.flatnonzero(o1["observation"][lay.slice("hand")]).tolist() == sorted(parse_cards(P1))
    assert o1["observation"][lay.slice("acting")].tolist() == [0, 1]
    assert o1["observation"][lay.slice("dealer")].tolist() == [1, 0]
    assert o1["observation"][lay.slice("deadwood")].tolist() == [88]
    assert o1["action_mask"].sum() == 0


def test_taking_the_upcard_is_public_and_forbidden_to_discard():
    env = scripted()
    lay = env.unwrapped.layout
    env.step(env.unwrapped.string_to_action("draw upcard"))
    mine, theirs = env.observe("player_0"), env.observe("player_1")
    ac = parse_cards("AC")
    assert np.flatnonzero(mine["observation"][lay.slice("forbidden")]).tolist() == ac
    assert mine["observation"][lay.slice("phase")].tolist() == [0, 0, 1]
    assert mine["observation"][lay.slice("deadwood")].tolist() == [11]  # all 11 cards: KD + AC
    assert np.flatnonzero(theirs["observation"][lay.slice("opponent_known")]).tolist() == ac
    assert (
        theirs["observation"][lay.slice("upcard")].sum() == 0
        and theirs["observation"][lay.slice("forbidden")].sum() == 0
    )
    legal = [env.unwrapped.action_to_string(a) for a in np.flatnonzero(mine["action_mask"])]
    assert legal == [  # no AC (just taken); knock KD keeps AC (1 point)
        "discard 2C", "discard 2D", "discard KD", "discard 2H", "discard 7H", "discard 8H", "discard 9H",
        "discard 3S", "discard 4S", "discard 5S", "knock KD",
    ]  # fmt: skip
    env.step(env.unwrapped.string_to_action("discard KD"))
    theirs = env.observe("player_1")["observation"]
    assert np.flatnonzero(theirs[lay.slice("opponent_known")]).tolist() == ac  # AC is still held
    assert np.flatnonzero(theirs[lay.slice("opponent_discarded")]).tolist() == parse_cards("KD")
    assert np.flatnonzero(theirs[lay.slice("upcard")]).tolist() == parse_cards("KD")
    assert theirs[lay.slice("turn")].tolist() == [1] and theirs[lay.slice("phase")].tolist() == [0, 1, 0]


def test_docstring_tables_match_the_code():
    raw = gin_rummy_v0.raw_env()
    assert raw.layout.table() in DOC
    actions_section = DOC.split("## Action Space")[1].split("## Observation Space")[0]
    rows = re.findall(r"^\| (\d+)(?:\.\.(\d+))? \| `([^`]*)`", actions_section, flags=re.M)
    covered = []
    for first, last, example in rows:
        first, last = int(first), int(last or first)
        covered.extend(range(first, last + 1))
        assert raw.action_to_string(first).split()[0] == example.split()[0]
        assert raw.string_to_action(example) in range(first, last + 1)
    assert covered == list(range(NUM_ACTIONS))


def test_bad_reset_options_raise_and_leave_the_env_as_it_was():
    env = scripted()
    env.step(env.unwrapped.string_to_action("pass"))
    before = (str(env.unwrapped.game_state), env.agent_selection)
    deck = stack_deck([P0, P1], upcard="AC", dealer=1)
    for options, message in [
        ({"deck": deck[:51]}, "deck has 51 cards: a stacked deck lists all 52 cards, top card first"),
        (
            {"deck": deck[:51] + ["AC"]},  # the card cut off the stacked deck's end is JS
            "bad deck: card 'AC' appears twice: a deck has one copy of each card; missing cards: JS",
        ),
        ({"deck": deck[:51] + ["1S"]}, f"bad deck: card '1S' is not a card: {WRITE}; missing cards: JS"),
        ({"deck": "AC 2C"}, "deck must be a list of 52 card strings, top card first, not one string"),
        ({"dealer": 2}, "dealer 2 is not a seat: the dealer must be an int from 0 to 1"),
        ({"dealer": True}, "dealer True is not a seat: the dealer must be an int from 0 to 1"),
    ]:
        with pytest.raises(ValueError, match=whole(message)):
            env.reset(seed=3, options=options)
        assert (str(env.unwrapped.game_state), env.agent_selection) == before
    with pytest.raises(
        ValueError, match=r"^options=\['deck'\] is not a dict: pass e\.g\. options=\{'deck': \[\.\.\.\]\}$"
    ):
        env.reset(options=["deck"])
    said = "gin_rummy_v0 reset: option(s) 'unknown' unknown, ignored; its reset options are deck, dealer, next_hands"
    with pytest.warns(UserWarning, match=whole(said)):
        env.reset(options={"unknown": 1})  # unknown keys are ignored (Gymnasium convention), and said


@pytest.mark.parametrize(
    "options, message",
    [
        (
            {"knock_limt": 3},
            "unknown gin_rummy_v0 option(s) 'knock_limt': known options are knock_limit, gin_bonus, undercut_bonus,"
            " big_gin, big_gin_bonus, oklahoma, target_score, game_bonuses, max_turns, max_hands, episode, reward,"
            " render_mode",
        ),
        ({"knock_limit": -1}, "option knock_limit=-1 is out of range: knock_limit must be an int from 0 to 1000000000"),
        (
            {"knock_limit": 2.5},
            "option knock_limit=2.5 is not an integer: knock_limit must be an int from 0 to 1000000000",
        ),
        ({"oklahoma": "yes"}, "option oklahoma='yes' is not a bool: oklahoma must be True or False"),
        ({"reward": "points"}, "option reward='points' is not allowed: reward must be one of 'win', 'score'"),
        (
            {"target_score": 0},
            "option target_score=0 is out of range: target_score must be an int from 1 to 1000000000",
        ),
        (
            {"render_mode": "rgb"},
            "render_mode='rgb' is not supported: use one of ['ansi', 'human', 'rgb_array'] or None",
        ),
    ],
)
def test_bad_env_options_are_value_errors(options, message):
    with pytest.raises(ValueError, match=whole(message)):
        gin_rummy_v0.env(**options)


def test_raw_env_refuses_bad_actions_and_keeps_its_state():
    env = gin_rummy_v0.raw_env()
    env.reset(seed=4)
    before = (str(env.game_state), env.agent_selection)
    for action, message in (
        (108, "action 108 is out of range: action ids are 0..107"),
        (-3, "action -3 is out of range: action ids are 0..107"),
        ("105", "action '105' has type str: actions are integer ids 0..107"),
        (105.0, "action 105.0 has type float: actions are integer ids 0..107"),
        (None, "action None has type NoneType: actions are integer ids 0..107"),
        # draw stock: not during the upcard offer (R-GIN-03)
        (104, "action 104 (draw stock) is not legal for player 0 now; legal: draw upcard, pass"),
    ):
        with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
            env.step(action)
        assert (str(env.game_state), env.agent_selection) == before
    env.step(np.int64(106))
    assert env.game_state.passes == 1


def test_wrapped_env_turns_an_illegal_action_into_a_loss():
    from pettingzoo.utils.env_logger import EnvLogger

    env = scripted()
    EnvLogger.mqueue.clear()
    env.step(0)  # discard AC: player_0 must take the upcard or pass first
    assert any("Illegal move made" in m for m in EnvLogger.mqueue)
    assert all(env.terminations.values())
    assert env._cumulative_rewards["player_0"] == -1


def test_wrapped_env_rejects_out_of_range_actions_with_the_range():
    env = scripted()
    with pytest.raises(ValueError, match=r"^action 108 is out of range: action ids are 0\.\.107$"):
        env.step(NUM_ACTIONS)
    env.step(0)  # discard AC before the upcard offer is answered: illegal, the game ends
    assert env.infos["player_0"]["illegal_action"] == (
        "action 0 (discard AC) is not legal for player 0 now; legal: draw upcard, pass"
    )


def test_infos_hold_the_showdown_and_stay_until_the_next_hand():
    env = scripted(episode="game", target_score=500)
    assert env.infos == {"player_0": {}, "player_1": {}}
    for move in ("pass", "pass", "knock KD"):  # gin with 3S-6S
        env.step(env.unwrapped.string_to_action(move))
    info = env.infos["player_0"]
    assert set(info) == {
        "hand_score",
        "total_score",
        "hand",
        "winner",
        "result",
        "knocker",
        "knocker_melds",
        "knocker_deadwood",
        "knocker_deadwood_cards",
        "defender_melds",
        "layoffs",
        "defender_deadwood",
        "defender_deadwood_cards",
        "game_bonus",
    }
    assert info["result"] == "gin" and info["hand_score"] == 88 + 25 and info["hand"] == 1
    assert env.infos["player_1"]["hand_score"] == 0 and env.infos["player_1"]["total_score"] == 0
    env.step(env.unwrapped.string_to_action("pass"))  # next hand goes on: infos stay
    assert env.infos["player_0"]["result"] == "gin"


def test_render_shows_the_acting_players_view_only():
    env = gin_rummy_v0.env(render_mode="ansi")
    env.reset(options={"deck": stack_deck([P0, P1], upcard="AC", stock=["6S"], dealer=1), "dealer": 1})
    text = env.render()
    assert "player_0's hand: 2C | 2D KD | 2H 7H 8H 9H | 3S 4S 5S (deadwood 10)" in text
    assert "upcard: AC" in text and "stock: 31 card(s)" in text and "knock limit 10" in text
    assert "QC" not in text  # player_1's hand stays hidden
    for move in ("pass", "pass", "knock KD"):
        env.step(env.unwrapped.string_to_action(move))
    text = env.render()
    assert "player_0 knocked: melds 2C 2D 2H | 7H 8H 9H | 3S 4S 5S 6S; deadwood 0" in text
    assert "last hand: gin, won by player_0; hand scores [113, 0]" in text
    with pytest.warns(UserWarning, match="without specifying any render mode"):
        assert gin_rummy_v0.env().unwrapped.render() is None


def test_human_render_prints_the_ansi_text_on_reset(capsys):
    env = gin_rummy_v0.env(render_mode="human")
    env.reset(seed=0)
    text = (
        "Gin Rummy: hand 1, turn 0, dealer player_1, knock limit 10, player_0 to take or pass the upcard\n"
        "  player_0's hand: 2C 5C | 6D 8D 9D JD | 9H TH KH | 6S (deadwood 75)\n"
        "  upcard: TD; discard pile: 1 card(s); stock: 31 card(s)\n"
        "  scores: player_0 0, player_1 0"
    )
    assert capsys.readouterr().out == text + "\n"
    ansi = gin_rummy_v0.env(render_mode="ansi")
    ansi.reset(seed=0)
    assert ansi.render() == text  # the same text, returned instead of printed


def test_card_strings_in_a_deck_may_be_written_10s():
    deck = [card_str(c).replace("T", "10") for c in range(52)]
    env = gin_rummy_v0.raw_env()
    env.reset(options={"deck": deck, "dealer": 0})
    assert env.game_state.deck == list(range(52))
