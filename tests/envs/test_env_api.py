"""Every card variant as a PettingZoo environment: API conformance, seeding, pickling,
documentation, bad input.  Variant-specific encodings and rules have their own files."""

import pickle
import re

import numpy as np
import pytest
from pettingzoo.test import seed_test
from pettingzoo.utils.env_logger import EnvLogger

from rummy_env.games.errors import ActionTypeError, IllegalActionError
from tests.envs.variants import VARIANTS, api_test_warnings
from tests.helpers import whole

#: the variants' names in their action-text errors
TITLES = {"rummy_v0": "Rummy", "crazy_rummy_v0": "Crazy Rummy", "gin_rummy_v0": "Gin Rummy", "rummikub_v0": "Rummikub"}
_RUMMY_TEXTS = (
    "'discard <card>', 'draw stock', 'draw discard', 'meld <card> <card> <card>...', 'layoff <card> set|low|high'"
)
#: the action texts each variant's action-text errors list
TEXTS = {
    "rummy_v0": _RUMMY_TEXTS,
    "crazy_rummy_v0": f"{_RUMMY_TEXTS}, 'swap <card>'",
    "gin_rummy_v0": "'discard <card>', 'knock <card>', 'draw stock', 'draw upcard', 'pass', 'big gin'",
    "rummikub_v0": "'add <tile>' (e.g. 'add R7', 'add JK'), 'commit', 'draw', 'pass'",
}
#: the reset options each variant knows
RESET_OPTIONS = {
    "rummy_v0": "deck, dealer, next_hands",
    "crazy_rummy_v0": "deck, dealer, wild_rank, next_hands",
    "gin_rummy_v0": "deck, dealer, next_hands",
    "rummikub_v0": "deck, first_player, next_hands",
}

#: the most one hand can cost, by hand: basic Rummy every card (340 points) doubled by going
#: rummy (R-RUMMY-14, 16); Crazy Rummy's bound of 340 plus 96 for four wild aces at 25 (R-CRAZY-12),
#: rounded up to 440; Gin 100 points of deadwood plus the biggest bonus, big gin's 31 (R-GIN-10..12);
#: Rummikub every tile on one rack, 2 * 4 * 91 + 2 * 30 = 788 (R-RK-10)
MAX_HAND_LOSS = {"rummy_v0": 680.0, "crazy_rummy_v0": 440.0, "gin_rummy_v0": 131.0, "rummikub_v0": 788.0}

API_CASES = [(v, o) for v in VARIANTS for o in v.api_options]


@pytest.mark.parametrize("variant, options", API_CASES, ids=[f"{v.name}-{o}" for v, o in API_CASES])
def test_api_test_passes_with_no_unexpected_warning(variant, options):
    assert api_test_warnings(variant.module.env(**options)) == []


@pytest.mark.parametrize("variant", VARIANTS, ids=repr)
def test_seed_test_passes(variant):
    for options in variant.api_options:
        seed_test(lambda options=options: variant.module.env(**options), num_cycles=100)


@pytest.mark.parametrize("variant", VARIANTS, ids=repr)
def test_same_seed_same_game_and_seed_none_continues_the_generator(variant):
    a, b, c = (variant.module.raw_env() for _ in range(3))
    a.reset(seed=12)
    b.reset(seed=12)
    assert a.game_state.deck == b.game_state.deck and a.game_state.current_player() == b.game_state.current_player()
    a.reset()
    b.reset()
    assert a.game_state.deck == b.game_state.deck  # both continued the same generator
    c.reset(seed=12)
    assert c.game_state.deck != a.game_state.deck


@pytest.mark.parametrize("variant", VARIANTS, ids=repr)
def test_pickling_keeps_non_default_options(variant):
    options = variant.api_options[1]
    env = variant.module.env(render_mode="ansi", **options)
    clone = pickle.loads(pickle.dumps(env))
    assert clone.unwrapped.game.config == env.unwrapped.game.config
    assert clone.unwrapped.game.config != variant.module.raw_env().game.config
    assert clone.unwrapped.render_mode == "ansi"
    clone.reset(seed=1)
    assert len(clone.agents) == env.unwrapped.game.num_players


@pytest.mark.parametrize("variant", VARIANTS, ids=repr)
def test_spaces_are_cached_and_named(variant):
    env = variant.module.env()
    agent = env.possible_agents[0]
    assert env.observation_space(agent) is env.observation_space(agent)
    assert env.action_space(agent) is env.action_space(agent)
    assert env.observation_space(agent)["observation"].shape == (env.unwrapped.layout.size,)
    assert env.observation_space(agent)["observation"].dtype == np.float32
    assert env.observation_space(agent)["action_mask"].shape == (env.action_space(agent).n,)
    assert env.observation_space(agent)["action_mask"].dtype == np.int8
    assert env.unwrapped.metadata["name"] == variant.module.__name__.split(".")[-1]
    assert env.possible_agents == [f"player_{i}" for i in range(len(env.possible_agents))]


@pytest.mark.parametrize("variant", VARIANTS, ids=repr)
def test_action_text_round_trips_for_every_id(variant):
    raw = variant.module.raw_env
    n = raw.num_actions
    texts = [raw.action_to_string(a) for a in range(n)]
    assert len(set(texts)) == n
    assert [raw.string_to_action(t) for t in texts] == list(range(n))
    use = f"use one of {TEXTS[variant.name]}"
    unknown = f"is not a {TITLES[variant.name]} action: {use}"
    card = (
        "action text 'discard XX': card 'XX' is not a card: write rank (A 2-9 T J Q K, or 10) then suit (C D H S),"
        " e.g. 'AH', 'TS', '10S'"
    )
    for bad, message in (
        ("", f"action text '' {unknown}"),
        ("discard XX", f"action text 'discard XX' {unknown}" if variant.tiles else card),
        (5, f"action text 5 is not a string: {use}"),
        ("fly away", f"action text 'fly away' {unknown}"),
        ("meld", f"action text 'meld' {unknown}"),
    ):
        with pytest.raises(ValueError, match=whole(message)):
            raw.string_to_action(bad)
    for bad, message in (
        (n, f"action {n} is out of range: action ids are 0..{n - 1}"),
        (-1, f"action -1 is out of range: action ids are 0..{n - 1}"),
        ("3", f"action '3' has type str: actions are integer ids 0..{n - 1}"),
        (2.0, f"action 2.0 has type float: actions are integer ids 0..{n - 1}"),
    ):
        with pytest.raises(ValueError, match=whole(message)):
            raw.action_to_string(bad)


@pytest.mark.parametrize("variant", VARIANTS, ids=repr)
def test_docstring_tables_match_the_code(variant):
    doc = variant.module.__doc__
    raw = variant.module.raw_env()
    assert raw.layout.table() in doc  # the layout of the default options, verbatim
    section = doc.split("## Action Space")[1].split("## Observation Space")[0]
    rows = re.findall(r"^\| (\d+)(?:\.\.(\d+))? \| `([^`]*)`", section, flags=re.M)
    covered = []
    for first, last, example in rows:
        first, last = int(first), int(last or first)
        covered.extend(range(first, last + 1))
        for a in (first, last):
            assert raw.action_to_string(a).split()[0] == example.split()[0], (a, example)
    assert covered == list(range(raw.num_actions))
    assert f"Discrete({raw.num_actions})" in doc


@pytest.mark.parametrize("variant", VARIANTS, ids=repr)
def test_bad_reset_options_raise_and_leave_the_env_as_it_was(variant):
    env = variant.module.env()
    env.reset(seed=3)
    first = int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0])
    env.step(first)
    before = (str(env.unwrapped.game_state), env.agent_selection, env.unwrapped.game_state.history)
    n = env.unwrapped.game.num_players
    seat = variant.seat_option
    seats = f"the {seat} must be an int from 0 to {n - 1}"
    cases = variant.bad_decks() + [
        ({seat: n}, f"{seat} {n} is not a seat: {seats}"),
        ({seat: "0"}, f"{seat} '0' is not a seat: {seats}"),
        ({seat: True}, f"{seat} True is not a seat: {seats}"),
        # a misspelt or foreign seat key next to a deck would deal to other seats
        (
            {"deck": variant.deck(), "seat": 0},
            f"unknown {variant.name} reset option(s) 'seat': known options are {RESET_OPTIONS[variant.name]}",
        ),
    ]
    for options, message in cases:
        options = options if isinstance(options, dict) else {"deck": options}
        with pytest.raises(ValueError, match=whole(message)):
            env.reset(seed=3, options=options)
        assert (str(env.unwrapped.game_state), env.agent_selection, env.unwrapped.game_state.history) == before
    with pytest.raises(ValueError, match=whole("options=['deck'] is not a dict: pass e.g. options={'deck': [...]}")):
        env.reset(options=["deck"])
    # no known key: ignored (Gymnasium convention, PettingZoo's api_test), with a warning
    said = (
        f"{variant.name} reset: option(s) 'cards' unknown, ignored; its reset options are {RESET_OPTIONS[variant.name]}"
    )
    with pytest.warns(UserWarning, match=whole(said)):
        env.reset(seed=3, options={"cards": variant.deck()})
    fresh = variant.module.env()
    fresh.reset(seed=3)
    assert env.unwrapped.game_state.deck == fresh.unwrapped.game_state.deck != variant.deck_ids()
    env.reset(options={"deck": variant.deck(), seat: 0})
    assert env.unwrapped.game_state.deck == variant.deck_ids()


@pytest.mark.parametrize("variant", VARIANTS, ids=repr)
def test_bad_env_options_are_value_errors(variant):
    known = ", ".join([*variant.module.env().unwrapped.game.config_class.option_names(), "render_mode"])
    with pytest.raises(ValueError) as err:
        variant.module.env(num_player=3)
    assert str(err.value) == f"unknown {variant.name} option(s) 'num_player': known options are {known}"
    with pytest.raises(
        ValueError, match=whole("option max_turns=0 is out of range: max_turns must be an int from 1 to 1000000000")
    ):
        variant.module.env(max_turns=0)
    # a huge limit is refused by name (it overflowed the float32 observation bounds)
    with pytest.raises(
        ValueError, match=r"^option max_turns=10{400} is out of range: max_turns must be an int from 1 to 1000000000$"
    ):
        variant.module.env(max_turns=10**400)
    assert variant.module.env(max_turns=10**9).unwrapped.game.config.max_turns == 10**9
    with pytest.raises(
        ValueError, match=whole("option episode='match' is not allowed: episode must be one of 'hand', 'game'")
    ):
        variant.module.env(episode="match")
    with pytest.raises(
        ValueError, match=whole("render_mode='rgb' is not supported: use one of ['ansi', 'human', 'rgb_array'] or None")
    ):
        variant.module.env(render_mode="rgb")


@pytest.mark.parametrize("variant", VARIANTS, ids=repr)
def test_raw_env_refuses_bad_actions_and_keeps_its_state(variant):
    env = variant.module.raw_env()
    env.reset(seed=4)
    mask = env.observe(env.agent_selection)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    before = (str(env.game_state), env.agent_selection)
    n, seat = env.num_actions, env.game_state.current_player()
    ids = f"actions are integer ids 0..{n - 1}"
    legal = ", ".join(env.action_to_string(a) for a in np.flatnonzero(mask))
    illegal_text = (
        f"action {illegal} ({env.action_to_string(illegal)}) is not legal for player {seat} now; legal: {legal}"
    )
    for action, message in (
        (n, whole(f"action {n} is out of range: action ids are 0..{n - 1}")),
        (-3, whole(f"action -3 is out of range: action ids are 0..{n - 1}")),
        ("5", whole(f"action '5' has type str: {ids}")),
        (5.0, whole(f"action 5.0 has type float: {ids}")),
        (None, whole(f"action None has type NoneType: {ids}")),
        (True, whole(f"action True has type bool: {ids}")),
        (np.array([1]), whole(f"action array([1]) has type ndarray: {ids}")),
        (illegal, whole(illegal_text)),  # with the legal actions of this deal
    ):
        with pytest.raises(ValueError, match=message):
            env.step(action)
        assert (str(env.game_state), env.agent_selection) == before
    env.step(np.int64(np.flatnonzero(mask)[0]))  # numpy integers are fine
    assert env.game_state.history == [int(np.flatnonzero(mask)[0])]


@pytest.mark.parametrize("variant", VARIANTS, ids=repr)
def test_wrapped_env_turns_an_illegal_action_into_a_loss(variant):
    env = variant.module.env()
    env.reset(seed=4)
    agent = env.agent_selection
    mask = env.observe(agent)["action_mask"]
    illegal = int(np.flatnonzero(mask == 0)[0])
    seat = env.unwrapped.agent_name_mapping[agent]
    legal = ", ".join(env.unwrapped.action_to_string(int(a)) for a in np.flatnonzero(mask))
    EnvLogger.mqueue.clear()
    env.step(illegal)
    assert any("Illegal move made" in m for m in EnvLogger.mqueue)
    assert all(env.terminations.values()) and env._cumulative_rewards[agent] == -1
    # the illegal player's infos say which action it was and why (the engine's message)
    text = env.unwrapped.action_to_string(illegal)
    assert (
        env.infos[agent]["illegal_action"]
        == f"action {illegal} ({text}) is not legal for player {seat} now; legal: {legal}"
    )
    assert [set(env.infos[a]) for a in env.agents if a != agent] == [set()] * (len(env.agents) - 1)
    # the episode is over: no agent has a legal action, the offender included
    assert [int(env.observe(a)["action_mask"].sum()) for a in env.possible_agents] == [0] * len(env.possible_agents)
    assert int(env.last()[0]["action_mask"].sum()) == 0


@pytest.mark.parametrize("variant", VARIANTS, ids=repr)
def test_wrapped_env_rejects_bad_actions_as_specifically_as_raw_env(variant):
    # PettingZoo's AssertOutOfBoundsWrapper would say only "action is not in action space"
    env = variant.module.env()
    env.reset(seed=4)
    n = env.action_space(env.agent_selection).n
    before = (str(env.unwrapped.game_state), env.agent_selection)
    cases = [
        (n, IllegalActionError, f"action {n} is out of range: action ids are 0..{n - 1}"),
        (-1, IllegalActionError, f"action -1 is out of range: action ids are 0..{n - 1}"),
        (np.int64(n + 3), IllegalActionError, f"action {n + 3} is out of range: action ids are 0..{n - 1}"),
        (1.5, ActionTypeError, f"action 1.5 has type float: actions are integer ids 0..{n - 1}"),
        ("draw", ActionTypeError, f"action 'draw' has type str: actions are integer ids 0..{n - 1}"),
        (None, ActionTypeError, f"action None has type NoneType: actions are integer ids 0..{n - 1}"),
        (True, ActionTypeError, f"action True has type bool: actions are integer ids 0..{n - 1}"),
    ]
    for action, error, message in cases:
        with pytest.raises(error) as caught:
            env.step(action)
        assert str(caught.value) == message
        raw = variant.module.raw_env()
        raw.reset(seed=4)
        with pytest.raises(error) as caught_raw:
            raw.step(action)
        assert str(caught_raw.value) == message
    # nothing changed: the game goes on, and a legal numpy id still plays
    assert (str(env.unwrapped.game_state), env.agent_selection) == before
    assert not any(env.terminations.values())
    env.step(np.int64(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
    assert len(env.unwrapped.game_state.history) == 1


@pytest.mark.parametrize("variant", VARIANTS, ids=repr)
def test_render_modes(variant, capsys):
    env = variant.module.env(render_mode="ansi")
    env.reset(seed=0)
    text = env.render()
    seat = env.unwrapped.agent_name_mapping[env.agent_selection]
    assert f"player_{seat}'s hand" in text or f"player_{seat}'s rack" in text
    human = variant.module.env(render_mode="human")
    human.reset(seed=0)
    assert capsys.readouterr().out == text + "\n"
    with pytest.warns(UserWarning, match="without specifying any render mode"):
        assert variant.module.env().unwrapped.render() is None


@pytest.mark.parametrize("variant", VARIANTS, ids=repr)
def test_observe_of_a_waiting_agent_has_an_all_zero_mask(variant):
    env = variant.module.env()
    env.reset(seed=9)
    legal = env.unwrapped.game_state.legal_actions()
    assert legal  # the acting agent has moves, so its mask below is not all-zero
    for agent in env.agents:
        mask = env.observe(agent)["action_mask"]
        assert np.flatnonzero(mask).tolist() == (legal if agent == env.agent_selection else []), agent


@pytest.mark.parametrize("variant", VARIANTS, ids=repr)
def test_an_illegal_move_never_pays_better_than_losing(variant):
    assert variant.module.raw_env(reward="score").max_hand_loss == MAX_HAND_LOSS[variant.name]
    for reward, expected in (("win", -1.0), ("score", -MAX_HAND_LOSS[variant.name])):
        env = variant.module.env(reward=reward)
        env.reset(seed=4)
        agent = env.agent_selection
        env.step(int(np.flatnonzero(env.observe(agent)["action_mask"] == 0)[0]))
        assert env._cumulative_rewards[agent] == expected


@pytest.mark.parametrize("variant", VARIANTS, ids=repr)
def test_observations_are_read_only(variant):
    env = variant.module.env()
    env.reset(seed=4)
    obs = env.observe(env.agent_selection)
    for key in ("observation", "action_mask"):
        with pytest.raises(ValueError, match="read-only"):  # NumPy's own words: a stable fragment
            obs[key][:] = 1
    copy = obs["action_mask"].copy()
    copy[:] = 1  # a copy can be changed


@pytest.mark.parametrize("variant", VARIANTS, ids=repr)
def test_state_is_pettingzoos_method_not_the_engine(variant):
    env = variant.module.env()
    env.reset(seed=4)
    # PettingZoo's own words (a stable fragment: its full text may change between versions)
    with pytest.raises(NotImplementedError, match=r"^state\(\) method has not been implemented"):
        env.state()
    assert env.unwrapped.game_state.current_player() == env.unwrapped.agent_name_mapping[env.agent_selection]


@pytest.mark.parametrize("variant", VARIANTS, ids=repr)
def test_a_failed_first_reset_leaves_the_env_unreset(variant):
    env = variant.module.env()
    deck, message = variant.bad_decks()[0]
    with pytest.raises(ValueError, match=whole(message)):
        env.reset(options={"deck": deck})
    with pytest.raises(AttributeError, match=whole("agent_selection cannot be accessed before reset")):
        _ = env.agent_selection
    with pytest.raises(RuntimeError, match=whole("call reset() before observe()")):
        variant.module.raw_env().observe("player_0")
    env.reset(seed=1)
    assert env.agent_selection in env.possible_agents


@pytest.mark.parametrize("variant", VARIANTS, ids=repr)
def test_wrapped_env_refuses_bool_actions(variant):
    env = variant.module.env()
    env.reset(seed=4)
    last = env.unwrapped.num_actions - 1
    for action in (True, np.bool_(False)):
        with pytest.raises(
            TypeError, match=whole(f"action {action!r} has type bool: actions are integer ids 0..{last}")
        ):
            env.step(action)
    assert env.unwrapped.game_state.history == []


@pytest.mark.parametrize("variant", VARIANTS, ids=repr)
def test_observing_an_agent_that_is_not_one_names_the_agents(variant):
    env = variant.module.env()
    env.reset(seed=0)
    agents = ", ".join(env.possible_agents)
    for bad in ("player_9", 0, None):
        # str() of a KeyError is the repr of its message, quotes included
        message = whole(repr(f"agent {bad!r} is not an agent of this env: agents are {agents}"))
        with pytest.raises(KeyError, match=message):
            env.observe(bad)
        for space in (env.observation_space, env.action_space):
            with pytest.raises(KeyError, match=message):
                space(bad)


@pytest.mark.parametrize("variant", VARIANTS, ids=repr)
def test_legal_actions_of_a_player_who_is_not_a_seat_is_refused(variant):
    """The engine state's ``legal_actions(player)``: the acting seat's ids, [] for another
    seat, a ValueError for anything that is not an int seat (1.0 and True are not seat 1)."""
    raw = variant.module.raw_env()
    raw.reset(seed=0)
    state = raw.game_state
    seat, n = state.current_player(), state.num_players
    assert state.legal_actions(seat) == state.legal_actions() and len(state.legal_actions()) >= 1
    assert state.legal_actions(np.int64(seat)) == state.legal_actions()
    assert all(state.legal_actions(q) == [] for q in range(n) if q != seat)
    for bad in (n, -1, "0", float(seat), True, False):
        with pytest.raises(
            ValueError, match=whole(f"player {bad!r} is not a seat: the player must be an int from 0 to {n - 1}")
        ):
            state.legal_actions(bad)


@pytest.mark.parametrize("variant", VARIANTS, ids=repr)
def test_step_and_last_after_the_end_ask_for_a_reset(variant):
    env, raw = variant.module.env(), variant.module.raw_env()
    for e in (env, raw):
        e.reset(seed=4)
        while e.agents:
            e.step(
                None
                if e.terminations[e.agent_selection] or e.truncations[e.agent_selection]
                else int(np.flatnonzero(e.observe(e.agent_selection)["action_mask"])[0])
            )
    for call, name in (
        (lambda: raw.step(0), "step"),
        (lambda: raw.step(None), "step"),
        (raw.last, "last"),
        (env.last, "last"),
    ):
        with pytest.raises(
            RuntimeError, match=whole(f"the episode has ended (every agent is done): call reset() before {name}()")
        ):
            call()
    EnvLogger.mqueue.clear()
    env.step(0)  # PettingZoo's OrderEnforcingWrapper: a warning, nothing else
    assert any("step() called after all agents are terminated or truncated" in m for m in EnvLogger.mqueue)


@pytest.mark.parametrize("variant", VARIANTS, ids=repr)
def test_seeds_are_non_negative_ints_numpy_ints_included(variant):
    env, twin = variant.module.env(), variant.module.env()
    env.reset(seed=np.int64(3))
    twin.reset(seed=3)
    assert env.unwrapped.game_state.history == twin.unwrapped.game_state.history
    assert np.array_equal(
        env.observe(env.agent_selection)["observation"], twin.observe(twin.agent_selection)["observation"]
    )
    before = env.observe(env.agent_selection)["observation"].copy()
    for seed, why in [
        (True, "is not an integer"),
        (-1, "is out of range"),
        (2.0, "is not an integer"),
        ("3", "is not an integer"),
    ]:
        with pytest.raises(ValueError, match=whole(f"option seed={seed!r} {why}: seed must be an int >= 0")):
            env.reset(seed=seed)
    assert np.array_equal(env.observe(env.agent_selection)["observation"], before)


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("gin_rummy_v0", "big_gin"),
        ("gin_rummy_v0", "oklahoma"),
        ("gin_rummy_v0", "game_bonuses"),
        ("rummy_v0", "ace_high"),
        ("rummy_v0", "two_player_winner_deals"),
        ("rummikub_v0", "initial_meld_table_play"),
    ],
)
def test_a_numpy_bool_option_is_kept_as_a_python_bool(module, name):
    import json

    import rummy_env

    value = not getattr(getattr(rummy_env, module).env().unwrapped.game.config, name)  # not the default
    config = getattr(rummy_env, module).env(**{name: np.bool_(value)}).unwrapped.game.config
    assert type(getattr(config, name)) is bool and getattr(config, name) is value
    assert json.loads(json.dumps({name: getattr(config, name)})) == {name: value}
