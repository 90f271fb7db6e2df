"""The heuristics' styles compiled (``gin_fast`` / ``rummy_fast`` / ``crazy_fast`` with a style id) pick
the Python style's action at every decision of scripted and random games and on every
row of random batches."""

import numpy as np
import pytest

from agents import crazy_heuristic, make_agent
from agents.registry import STYLES, style_id
from agents.search import crazy_fast, crazy_plan, gin_fast, rummy_fast
from agents.styles import PARTNERS
from experiments.selfplay.opponents import compiled_heuristic
from rummy_env import crazy_rummy_v0, gin_rummy_v0, rummy_v0
from rummy_env.games import crazy_rummy, gin_rummy, rummy
from rummy_env.vector import GinRummyVec, RummyVec, crazy_world, gin_world, rummy_world
from tests.helpers import play, scripted_env, whole

GIN_STYLES = STYLES["gin_rummy_v0"]
RUMMY_STYLES = STYLES["rummy_v0"]
RUMMY_OPTIONS = [{}, {"num_players": 3, "ace_high": True}, {"num_players": 4, "reshuffle": "keep_top"}]
RUMMY_IDS = ["2p", "3p-ace-high", "4p-keep-top"]


def test_the_compiled_tables_are_the_python_ones():
    assert gin_fast.STYLES == GIN_STYLES and rummy_fast.STYLES == RUMMY_STYLES
    assert [style_id("gin_rummy_v0", s) for s in GIN_STYLES] == [
        gin_fast.DEFAULT,
        gin_fast.GIN_HUNTER,
        gin_fast.DEFENSIVE,
        gin_fast.UPCARD_MELD_ONLY,
    ]
    assert [style_id("rummy_v0", s) for s in RUMMY_STYLES] == [
        rummy_fast.DEFAULT,
        rummy_fast.GO_RUMMY,
        rummy_fast.DEFENSIVE,
        rummy_fast.SHED_HIGH,
    ]
    assert STYLES["crazy_rummy_v0"] == crazy_fast.STYLES and style_id("crazy_rummy_v0", "defensive") == 3
    assert style_id("crazy_rummy_v0", "hold_wilds_safe") == crazy_fast.HOLD_WILDS_SAFE == 4
    for names, ids in [
        (crazy_heuristic.HOLDS_WILDS, crazy_fast.HOLDS_WILDS),
        (crazy_heuristic.READS_NEXT, crazy_fast.READS_NEXT),
    ]:
        assert tuple(style_id("crazy_rummy_v0", s) for s in names) == ids
    assert [int(m) for m in gin_fast.PARTNERS] == list(PARTNERS[0]) == [int(m) for m in crazy_fast.PARTNERS]
    assert [[int(m) for m in row] for row in rummy_fast.PARTNERS] == [list(PARTNERS[0]), list(PARTNERS[1])]


def _gin_checked(env, agent, style, arrays, cfg):
    """The compiled style's action at the current decision, checked against ``agent``'s."""
    gin_world.load_state(env.unwrapped.game_state, 0, *arrays, cfg)
    expected = int(agent.act(env.observe(env.agent_selection)))
    assert gin_fast.heuristic_action(0, *arrays[:4], style_id("gin_rummy_v0", style)) == expected
    return expected


@pytest.mark.parametrize("style", GIN_STYLES)
def test_a_compiled_gin_style_plays_as_the_python_style(style):
    env = gin_rummy_v0.env()
    agent, default = make_agent(f"heuristic:style={style}", env), make_agent("heuristic", env)
    cfg = gin_world.config_vector(env.unwrapped.game.config)
    arrays = gin_world.arrays(1)
    rng = np.random.default_rng(3)
    checked = differs = 0
    for seed in range(14):
        env.reset(seed=seed)
        while not env.terminations[env.agent_selection]:
            expected = _gin_checked(env, agent, style, arrays, cfg)
            obs = env.observe(env.agent_selection)
            differs += expected != default.act(obs)
            checked += 1
            env.step(expected if rng.random() < 0.7 else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert checked > 300 and (differs == 0) == (style == "default")
    # the stacked deals of tests/agents/test_styles_scripted.py, move by move
    p1 = "AC 3C 5D 6H 9S JD QS 4H 8C 7S"
    deck = gin_rummy.stack_deck(["3S 4S 5S 7D 8D 9D 2C 2D KH 6C", p1], upcard="QH", stock=["TC", "AS"], dealer=1)
    env = scripted_env(gin_rummy_v0, deck, 1)
    for move in ["pass", "draw upcard", "discard 9S", "draw stock"]:
        _gin_checked(env, agent, style, arrays, cfg)
        play(env, move)
    _gin_checked(env, agent, style, arrays, cfg)
    deck = gin_rummy.stack_deck(["3S 4S 5S 7H 8H 9H 2C 2D 2H KD", "QC JC 9C 8D 7D 4C TD KS QS JD"], upcard="AC")
    env = scripted_env(gin_rummy_v0, deck, 1)
    _gin_checked(env, agent, style, arrays, cfg)
    play(env, "draw upcard")
    _gin_checked(env, agent, style, arrays, cfg)


@pytest.mark.parametrize("options", RUMMY_OPTIONS, ids=RUMMY_IDS)
@pytest.mark.parametrize("style", RUMMY_STYLES)
def test_a_compiled_rummy_style_plays_as_the_python_style(style, options):
    env = rummy_v0.env(**options)
    raw = env.unwrapped
    agent, default = make_agent(f"heuristic:style={style}", env), make_agent("heuristic", env)
    cfg = rummy_world.config_vector(raw.game.config)
    ints, masks, stock, pile, legal = arrays = rummy_world.arrays(1)
    sid = style_id("rummy_v0", style)
    rng = np.random.default_rng(1)
    checked = differs = 0
    for seed in range(8):
        env.reset(seed=seed)
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            obs = env.observe(env.agent_selection)
            rummy_world.load_state(raw.game_state, 0, *arrays, cfg)
            expected = int(agent.act(obs))
            assert rummy_fast.heuristic_action(0, ints, masks, pile, legal, cfg, sid) == expected
            differs += expected != default.act(obs)
            checked += 1
            env.step(expected if rng.random() < 0.8 else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert checked > 300 and (differs == 0) == (style == "default")


@pytest.mark.parametrize("style", RUMMY_STYLES)
def test_compiled_rummy_styles_in_the_stacked_deals(style):
    p1 = "AC 3D 5C 6C TS QC QD 7S 4D 8D"
    deals = [  # tests/agents/test_styles_scripted.py: hands, upcard, stock, the moves played
        (["6H 7H 8H 9H 9C 9D 2S 3S 4S 5S", "AC AD 5C 6C 9S JC QD KH 4D 8D"], "QS", ["KC"], ["draw stock"]),
        (["6H 7H 8H 2C 5D 9S JC KD 4S AD", p1], "QS", ["3C", "7C"], ["draw stock"]),
        (
            ["KH JC 2S 3S 5D 6D 8C 4H 9S AD", p1],
            "2C",
            ["QH", "7H"],
            ["draw stock", "discard QH", "draw discard", "discard 7S", "draw stock"],
        ),
        (["KC KD 2S 3S 5D 6D 8C 4H 9S AD", p1], "2C", ["7H"], ["draw stock"]),
    ]
    sid = style_id("rummy_v0", style)
    for hands, upcard, stock_cards, moves in deals:
        env = scripted_env(rummy_v0, rummy.stack_deck(hands, upcard=upcard, stock=stock_cards, dealer=1), 1)
        raw = env.unwrapped
        agent = make_agent(f"heuristic:style={style}", env)
        cfg = rummy_world.config_vector(raw.game.config)
        ints, masks, stock, pile, legal = arrays = rummy_world.arrays(1)
        played = []
        for move in [*moves, None, None, None, None]:  # the moves, then the style's own to the turn's end
            if env.agent_selection != "player_0" and move is None or env.terminations["player_0"]:
                break
            rummy_world.load_state(raw.game_state, 0, *arrays, cfg)
            expected = int(agent.act(env.observe(env.agent_selection)))
            assert rummy_fast.heuristic_action(0, ints, masks, pile, legal, cfg, sid) == expected
            played.append(raw.action_to_string(expected))
            play(env, move or played[-1])
        if style == "go_rummy" and hands[0].startswith("6H 7H 8H 9H"):
            assert played[1:] == ["meld 9C 9D 9H", "meld 6H 7H 8H", "meld 2S 3S 4S 5S", "discard KC"]


@pytest.mark.parametrize(
    ("cls", "module", "options", "styles"),
    [(GinRummyVec, gin_rummy_v0, {}, GIN_STYLES), (RummyVec, rummy_v0, {"num_players": 3}, RUMMY_STYLES)],
    ids=["gin", "rummy-3p"],
)
def test_compiled_styles_pick_the_python_styles_action_on_every_row(cls, module, options, styles):
    env = module.env(**options)
    for sid, style in enumerate(styles):
        vec = cls(16, seed=5 + sid, num_threads=1, **options)
        agent = make_agent(f"heuristic:style={style}", env)
        actions = compiled_heuristic(vec, sid)
        rng = np.random.default_rng(sid)
        batch, checked = vec.reset(), 0
        for _ in range(60):
            rows = np.flatnonzero(batch.action_mask.any(1))
            fast = actions(rows)
            for i in rows:
                assert fast[i] == agent.act({"observation": batch.observation[i], "action_mask": batch.action_mask[i]})
            checked += len(rows)
            # random legal moves (not the style's) reach positions it would avoid
            batch = vec.step(np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in batch.action_mask]))
        assert checked > 800
    variant = env.unwrapped.metadata["name"]
    for bad in (9, True):  # True is no style 1
        styles = {"gin_rummy_v0": "default, gin_hunter, defensive, upcard_meld_only"}.get(
            variant, "default, go_rummy, defensive, shed_high"
        )
        with pytest.raises(ValueError, match=whole(f"style {bad} is not a style id of {variant}: 0..3 ({styles})")):
            compiled_heuristic(cls(2, seed=0, num_threads=1, **options), bad)


@pytest.mark.parametrize("players", [3, 5])
@pytest.mark.parametrize("style", STYLES["crazy_rummy_v0"])
def test_a_compiled_crazy_style_plays_as_the_python_style(style, players):
    env = crazy_rummy_v0.env(num_players=players)
    agent, default = make_agent(f"heuristic:style={style}", env), make_agent("heuristic", env)
    cfg = crazy_world.config_vector(env.unwrapped.game.config)
    ints, masks, _, pile, legal = arrays = crazy_world.arrays(1)
    memo = (*crazy_plan.memo_arrays(), np.zeros(1, np.int64))
    sid = style_id("crazy_rummy_v0", style)
    rng = np.random.default_rng(players)
    checked = differs = 0
    for seed in range(8):
        env.reset(seed=seed)
        while not (env.terminations[env.agent_selection] or env.truncations[env.agent_selection]):
            obs = env.observe(env.agent_selection)
            expected = int(agent.act(obs))
            crazy_world.load_state(env.unwrapped.game_state, 0, *arrays, cfg)
            assert crazy_fast.heuristic_action(0, ints, masks, pile, legal, *memo, sid, players) == expected
            differs += expected != default.act(obs)
            checked += 1
            env.step(expected if rng.random() < 0.8 else int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert checked > 200 and (differs == 0) == (style == "default")


def test_the_compiled_crazy_styles_that_read_the_next_player_need_the_number_of_players():
    env = crazy_rummy_v0.env()
    env.reset(seed=0)
    cfg = crazy_world.config_vector(env.unwrapped.game.config)
    ints, masks, _, pile, legal = arrays = crazy_world.arrays(1)
    crazy_world.load_state(env.unwrapped.game_state, 0, *arrays, cfg)
    memo = (*crazy_plan.memo_arrays(), np.zeros(1, np.int64))
    for style in (crazy_fast.DEFENSIVE, crazy_fast.HOLD_WILDS_SAFE):
        with pytest.raises(
            ValueError, match=whole("the defensive and hold_wilds_safe styles need players (cfg[C_PLAYERS], 3..6)")
        ):
            crazy_fast.heuristic_action(0, ints, masks, pile, legal, *memo, style, 0)


def _crazy_checked(env, style, arrays, cfg, memo):
    agent = make_agent(f"heuristic:style={style}", env)
    crazy_world.load_state(env.unwrapped.game_state, 0, *arrays, cfg)
    ints, masks, _, pile, legal = arrays
    expected = int(agent.act(env.observe(env.agent_selection)))
    sid = style_id("crazy_rummy_v0", style)
    assert crazy_fast.heuristic_action(0, ints, masks, pile, legal, *memo, sid, 3) == expected


@pytest.mark.parametrize("style", STYLES["crazy_rummy_v0"])
def test_compiled_crazy_styles_in_the_stacked_deals(style):
    others = ["AC 2C 3C 9S TD JD 6H", "9C TC JC KC 2D 3D 4D"]
    deals = [  # tests/agents/test_styles_scripted.py: the first hand, the stock, the moves played
        ("6S 7S 8S 5C 2H 3H KD QC", [], []),
        ("6S 7S 8S 2H 3H KD QD 8C", [], ["meld 6S 7S 8S"]),
        (
            "QH KH 9D 2S 7C 4H AD 3S",
            ["8H", "6C"],
            ["discard QH", "draw discard", "discard 9S", "draw stock", "discard KC", "draw stock"],
        ),
        ("KD QD KH QH 2H 3H 8S 7S", [], []),
        (
            "KH 9H 8D QH 4H 8H 4S JH",
            ["QS", "QD"],
            ["discard KH", "draw discard", "discard 9S", "draw stock", "discard KC", "draw stock"],
        ),
    ]
    memo = (*crazy_plan.memo_arrays(), np.zeros(1, np.int64))
    for first, stock, moves in deals:
        deck = crazy_rummy.stack_deck([first, *others], stock=stock, dealer=2)
        env = scripted_env(crazy_rummy_v0, deck, 2, wild_rank=5)
        cfg = crazy_world.config_vector(env.unwrapped.game.config)
        arrays = crazy_world.arrays(1)
        for move in moves:
            _crazy_checked(env, style, arrays, cfg, memo)
            play(env, move)
        _crazy_checked(env, style, arrays, cfg, memo)
