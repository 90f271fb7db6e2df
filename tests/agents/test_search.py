"""Search agents (``pimc``, ``ismcts``): built by name, legal on every variant, blind to
hidden cards, and finding a win the heuristic misses."""

import numpy as np
import pytest

from agents import make_agent
from agents.registry import is_import_spec
from agents.search import ISMCTSAgent, PIMCAgent, parse_search_spec
from experiments.common import play_episode
from rummy_env import crazy_rummy_v0, gin_rummy_v0, rummikub_v0, rummy_v0
from rummy_env.games.rummy import stack_deck
from tests.agents.search_spies import record_search_values
from tests.games.resample_helpers import scrambled
from tests.helpers import whole

#: a search agent's refusal of an observation from another env or deal
NOT_MINE = (
    "the observation is not the acting player's in the agent's env: a search agent must be made with the env it "
    "plays (agents.make_agent(name, env))"
)

MODULES = [
    (rummy_v0, {}),
    (rummy_v0, {"num_players": 4}),
    (gin_rummy_v0, {}),
    (crazy_rummy_v0, {"num_players": 3}),
    (rummikub_v0, {}),
    (rummikub_v0, {"num_players": 3}),
]
IDS = [f"{m.__name__.split('.')[-1]}-{o.get('num_players', 2)}p" for m, o in MODULES]
TINY = {"ismcts": "ismcts:simulations=3,depth=6", "pimc": "pimc:worlds=1,depth=6"}


def test_names_with_options_parse_and_bad_options_are_refused():
    assert parse_search_spec("ismcts:simulations=400") == ("ismcts", {"simulations": 400})
    assert parse_search_spec("pimc:worlds=20,rollout=random,time=0.05") == (
        "pimc",
        {"worlds": 20, "rollout": "random", "time": 0.05},
    )
    assert not is_import_spec("ismcts:simulations=400") and is_import_spec("agents.search:PIMCAgent")
    env = gin_rummy_v0.env()
    agent = make_agent("ismcts:simulations=7,c=1.5", env, seed=1)
    assert isinstance(agent, ISMCTSAgent) and (agent.simulations, agent.c) == (7, 1.5)
    assert isinstance(make_agent("pimc", env), PIMCAgent)
    assert parse_search_spec("pimc:") == ("pimc", {})  # no option: the defaults, as "pimc"
    keys = "simulations, c, fpu, rollout, depth, prior, time"
    ranges = "(counts 1..10,000,000, c >= 0, time in (0, 86400] s, model 0..1)"
    for bad, message in [
        ("ismcts:worlds=3", f"'worlds=3' is not an option of ismcts; write ismcts:key=value,... with keys {keys}"),
        ("pimc:worlds=many", "worlds='many' is not an integer"),
        ("pimc:worlds=0", f"worlds=0 is out of range {ranges}"),
        ("pimc:worlds=99999999999", f"worlds=99999999999 is out of range {ranges}"),
        ("pimc:time=100000", f"time=100000 is out of range {ranges}"),
        (
            "ismcts:simulations",
            f"'simulations' is not an option of ismcts; write ismcts:key=value,... with keys {keys}",
        ),
        ("pimc:worlds=5,worlds=6", "option worlds is given twice; give it once"),
        # nan and inf pass the range tests: c=nan crashed in act, time=inf never returned
        ("ismcts:c=nan", "c='nan' is not a finite number"),
        ("ismcts:fpu=-inf", "fpu='-inf' is not a finite number"),
        ("pimc:time=inf", "time='inf' is not a finite number"),
        ("pimc:prior=NaN", "prior='NaN' is not a finite number"),
        ("pimc:model=nan", "model='nan' is not a finite number"),
        # a doubled or trailing comma was skipped: a typo ran the search at its defaults
        ("pimc:worlds=1,,depth=2", "an empty option between commas; write pimc:key=value,..."),
        ("ismcts:c=1,", "an empty option between commas; write ismcts:key=value,..."),
    ]:
        with pytest.raises(ValueError, match=whole(f"agent {bad!r}: {message}")):
            make_agent(bad, env)
    # the rollout's refusal names no agent spec (the others do)
    message = (
        "rollout='greedy' is not a rollout policy: use one of heuristic, random (pimc also takes fast, its compiled "
        "playouts, on Gin Rummy, basic Rummy and Crazy Rummy)"
    )
    with pytest.raises(ValueError, match=whole(message)):
        make_agent("pimc:rollout=greedy", env)


# (steps, returns, truncated) of seed 5's 12-turn episode, the search in seat 0
EPISODES = {
    ("ismcts", "rummy_v0-2p"): (28, [0.0, 0.0], True),
    ("ismcts", "rummy_v0-4p"): (25, [0.0] * 4, True),
    ("ismcts", "gin_rummy_v0-2p"): (18, [1.0, -1.0], False),
    ("ismcts", "crazy_rummy_v0-3p"): (24, [0.0] * 3, True),
    ("ismcts", "rummikub_v0-2p"): (15, [0.0, 0.0], True),
    ("ismcts", "rummikub_v0-3p"): (29, [0.0] * 3, True),
    ("pimc", "rummy_v0-2p"): (24, [0.0, 0.0], True),
    ("pimc", "rummy_v0-4p"): (24, [0.0] * 4, True),
    ("pimc", "gin_rummy_v0-2p"): (17, [1.0, -1.0], False),
    ("pimc", "crazy_rummy_v0-3p"): (25, [0.0] * 3, True),
    ("pimc", "rummikub_v0-2p"): (17, [0.0, 0.0], True),
    ("pimc", "rummikub_v0-3p"): (29, [0.0] * 3, True),
}


@pytest.mark.parametrize("kind", ["ismcts", "pimc"])
@pytest.mark.parametrize(("module", "options"), MODULES, ids=IDS)
def test_search_agents_play_whole_episodes_legally(kind, module, options):
    # raw_env raises IllegalActionError on an illegal action (env() would score it as a loss)
    env = module.raw_env(max_turns=12, **options)
    n = len(env.possible_agents)
    agents = [make_agent(TINY[kind], env, seed=1)] + [make_agent("random", env, seed=q) for q in range(1, n)]
    result = play_episode(env, agents, seed=5)
    key = (kind, IDS[MODULES.index((module, options))])
    assert (result["steps"], result["returns"], result["truncated"]) == EPISODES[key]


def _position(module, options, seed, steps):
    env = module.env(**options)
    env.reset(seed=seed)
    heuristic = make_agent("heuristic", env)
    for _ in range(steps):
        if env.terminations[env.agent_selection]:
            return None
        env.step(heuristic.act(env.observe(env.agent_selection)))
    return None if env.terminations[env.agent_selection] else env


@pytest.mark.parametrize("kind", ["ismcts", "pimc"])
@pytest.mark.parametrize(("module", "options"), MODULES, ids=IDS)
def test_decisions_do_not_change_when_hidden_cards_are_permuted(kind, module, options, monkeypatch):
    # the values of every search are compared, not only the action: with 6 simulations or 2
    # worlds the action rarely depends on the worlds drawn (a search of the true deal passed)
    record_search_values(monkeypatch)
    spec = {"ismcts": "ismcts:simulations=40,depth=8", "pimc": "pimc:worlds=2,depth=8"}[kind]
    if kind == "pimc" and module is rummikub_v0:  # whole plays searched from the first turn, not late only
        spec = "pimc:worlds=2,candidates=3,late=106"
    checked = 0
    for seed in range(40):
        # Rummikub later in the hand: early on every candidate play's playouts end alike
        env = _position(module, options, seed, steps=3 + 7 * seed % 50 + (60 if module is rummikub_v0 else 0))
        if env is None:
            continue
        raw = env.unwrapped
        obs = env.observe(env.agent_selection)
        if np.count_nonzero(obs["action_mask"]) < 2:
            continue
        seat = raw.game_state.current_player()
        agent = make_agent(spec, env, seed=11)
        before = agent.act(obs)
        assert agent.__dict__.get("_values"), "the search ran"
        for k in range(3):
            swapped = scrambled(raw.game_state, seat, np.random.default_rng(k), swaps=20)
            assert swapped is not raw.game_state
            raw.game_state = swapped  # another true deal, the same information
            twin = make_agent(spec, env, seed=11)
            assert twin.act(obs) == before
            assert twin.__dict__["_values"] == agent.__dict__["_values"]
        checked += 1
        if checked == 3:
            break
    assert checked == 3


def _rummy_trap():
    # player_0 holds 6H 7H 8H 9H 9C 9D 2S 3S 4S 5S and draws KC: melding 6H 7H 8H,
    # 9H 9C 9D and 2S..5S and discarding KC goes out now; the heuristic's biggest meld
    # first (6H..9H) leaves 9C 9D and cannot
    deck = stack_deck(
        ["6H 7H 8H 9H 9C 9D 2S 3S 4S 5S", "AC AD 5C 6C 9S JC QD KH 4D 8D"], upcard="QS", stock=["KC"], dealer=1
    )
    env = rummy_v0.env()
    env.reset(options={"deck": deck, "dealer": 1})
    env.step(env.unwrapped.string_to_action("draw stock"))
    return env


def _play_turn(env, agent):
    while env.agent_selection == "player_0" and not env.terminations["player_0"]:
        env.step(agent.act(env.observe("player_0")))
    return env.unwrapped.game_state


@pytest.mark.parametrize("spec", ["pimc:worlds=2", "pimc:worlds=1,rollout=heuristic", "pimc:worlds=1,rollout=fast"])
def test_search_goes_out_where_the_heuristic_does_not(spec):
    heuristic_state = _play_turn(_rummy_trap(), make_agent("heuristic", rummy_v0.env()))
    assert not heuristic_state.is_terminal() and heuristic_state.hands[0].bit_count() == 2
    env = _rummy_trap()
    state = _play_turn(env, make_agent(spec, env, seed=3))
    assert state.is_terminal() and state.last_hand["winner"] == 0 and state.returns()[0] == 1.0


@pytest.mark.parametrize(
    "spec", ["ismcts:simulations=40", "pimc:worlds=2", "pimc:worlds=2,rollout=heuristic", "pimc:rollout=fast,model=0"]
)
def test_search_ends_the_hand_with_a_win_when_it_can(spec):
    from rummy_env.games.gin_rummy import stack_deck as gin_deck

    # player_0 is dealt 4D 5D 6D 7D 2C 3C 4C JS QS KS, both pass the upcard and it draws
    # 8D: eleven cards in melds, so a knock now wins the hand (the opponent keeps 47
    # points of deadwood, more than any knock leaves); a discard gives it a turn
    hands = ["4D 5D 6D 7D 2C 3C 4C JS QS KS", "7C 7H 7S 9D QH JH 9C 6S 2H AH"]
    env = gin_rummy_v0.env()
    env.reset(options={"deck": gin_deck(hands, upcard="AS", stock=["8D"], dealer=1), "dealer": 1})
    env.step(env.unwrapped.string_to_action("pass"))
    env.step(env.unwrapped.string_to_action("pass"))
    obs = env.observe("player_0")
    assert np.count_nonzero(obs["action_mask"]) > 10
    env.step(make_agent(spec, env, seed=2).act(obs))
    state = env.unwrapped.game_state
    assert state.is_terminal() and state.last_hand["winner"] == 0 and state.returns()[0] == 1.0


def test_a_search_agent_refuses_an_observation_of_another_env():
    env, other = gin_rummy_v0.env(), gin_rummy_v0.env()
    env.reset(seed=1)
    other.reset(seed=2)
    agent = make_agent("pimc", env)
    other.step(int(np.flatnonzero(other.observe(other.agent_selection)["action_mask"])[0]))
    obs = other.observe(other.agent_selection)
    if np.flatnonzero(obs["action_mask"]).tolist() == env.unwrapped.game_state.legal_actions():
        pytest.fail("the two envs must differ in their legal actions for this test")
    with pytest.raises(ValueError, match=whole(NOT_MINE)):
        agent.act(obs)


@pytest.mark.parametrize("spec", ["pimc:worlds=4", "ismcts:simulations=10"])
def test_a_search_agent_refuses_another_deal_with_the_same_legal_actions(spec):
    # at the first decision both deals offer the same ids (take or pass the upcard): only the
    # observation vector tells them apart
    env, other = gin_rummy_v0.env(), gin_rummy_v0.env()
    env.reset(seed=3)
    other.reset(seed=25)
    obs = other.observe(other.agent_selection)
    assert np.flatnonzero(obs["action_mask"]).tolist() == env.unwrapped.game_state.legal_actions()
    with pytest.raises(ValueError, match=whole(NOT_MINE)):
        make_agent(spec, env, seed=0).act(obs)


def test_a_search_agent_checks_the_observation_before_a_lone_legal_action():
    env, other = rummikub_v0.env(), rummikub_v0.env(num_players=3)
    env.reset(seed=0)
    other.reset(seed=0)
    obs = other.observe(other.agent_selection)
    lone = {"observation": obs["observation"], "action_mask": np.eye(55, dtype=np.int8)[54]}  # only "draw"
    for spec in ("pimc", "ismcts:simulations=10"):
        with pytest.raises(ValueError, match=whole(NOT_MINE)):
            make_agent(spec, env, seed=0).act(lone)


def test_a_large_prior_plays_the_heuristic_and_playouts_cap_the_worlds():
    env = _position(gin_rummy_v0, {}, seed=4, steps=3)
    obs = env.observe(env.agent_selection)
    state, seat = env.unwrapped.game_state, env.unwrapped.game_state.current_player()
    legal = state.legal_actions()
    assert len(legal) > 2
    assert make_agent("pimc:worlds=2,prior=1.5", env, seed=0).act(obs) == make_agent("heuristic", env).act(obs)
    assert make_agent("ismcts:simulations=5,prior=1.5", env, seed=0).act(obs) == make_agent("heuristic", env).act(obs)
    capped = make_agent(f"pimc:worlds=50,playouts={len(legal)}", env, seed=9).action_values(state, seat, legal)
    one = make_agent("pimc:worlds=1", env, seed=9).action_values(state, seat, legal)
    assert capped.tolist() == one.tolist()


def test_names_that_build_the_same_agent_are_told_apart_from_those_that_do_not():
    from agents.registry import same_agent
    from agents.search import search_settings

    crazy, gin = crazy_rummy_v0.env(num_players=3), gin_rummy_v0.env()
    cls, settings = search_settings("pimc:worlds=7", crazy)
    assert cls is PIMCAgent and (settings["worlds"], settings["model"], settings["halving"]) == (7, 1.0, 1)
    assert same_agent("pimc", "pimc:model=1", crazy) and same_agent("pimc:worlds=500", "pimc", crazy)
    assert same_agent("heuristic:style=default", "heuristic", crazy)
    assert not same_agent("pimc:halving=4", "pimc", crazy) and not same_agent("heuristic", "random", crazy)
    assert not same_agent("pimc", "pimc:model=1", gin)  # Gin's fast search weighs its worlds (model=0)
    assert same_agent("champion", "pimc:worlds=600,playouts=12000", rummy_v0.env())
    assert same_agent("pimc:playout_style=default", "pimc", crazy)
    guided = "pimc:model=mix,guide=docs/results/selfplay-gin-league/model.pt,prior=0.05"
    assert same_agent("champion", guided, gin)  # the guide's path from the repository's root (the tests' folder)
