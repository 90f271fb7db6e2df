"""Baseline agents: legal, seeded, and the Rummy heuristic's choices in known positions."""

import re
from pathlib import Path

import numpy as np
import pytest

from agents import Agent, RandomAgent, RummyHeuristicAgent, agent_names, make_agent
from experiments.common import play_episode
from rummy_env import crazy_rummy_v0, gin_rummy_v0, rummikub_v0, rummy_v0
from rummy_env.games.rummy import stack_deck
from tests.helpers import whole

P1 = "AC AD 5C 6C 9C JC QD KH 4D 8D"
#: the refusal of an observation whose mask has no legal action (the seat is not acting)
NO_LEGAL = "the action mask has no legal action: this agent is not acting now"
#: what make_agent says after an import spec it cannot import
IMPORTABLE = "write package.module:Name, with the module importable from the current directory or the environment"
#: what make_agent says after a spec that names no Agent
SUBCLASS = "write an agents.Agent subclass, or a factory called as factory(env, seed) that returns one"


def scripted(hand, upcard="QS", stock=("6S",)):
    env = rummy_v0.env()
    env.reset(options={"deck": stack_deck([hand, P1], upcard=upcard, stock=stock, dealer=1), "dealer": 1})
    return env


def text(env, action):
    return env.unwrapped.action_to_string(action)


def test_random_agent_plays_legal_moves_and_is_seeded():
    env = rummy_v0.env()
    env.reset(seed=3)
    obs = env.observe(env.agent_selection)
    picks = [RandomAgent(seed=7).act(obs) for _ in range(3)]
    assert len(set(picks)) == 1 and obs["action_mask"][picks[0]] == 1
    agent = RandomAgent(seed=1)
    many = {agent.act(obs) for _ in range(50)}
    assert many == {52, 53}  # both draws get picked
    with pytest.raises(ValueError, match=whole(NO_LEGAL)):
        agent.act(env.observe("player_1" if env.agent_selection == "player_0" else "player_0"))


#: observation sizes with 3 and 4 players
SIZES = {rummy_v0: (380, 436), crazy_rummy_v0: (654, 710), rummikub_v0: (227, 231)}


@pytest.mark.parametrize("module", [rummy_v0, crazy_rummy_v0, rummikub_v0], ids=lambda m: m.__name__)
def test_a_heuristic_refuses_the_observation_of_an_env_it_was_not_made_for(module):
    made_for, given = SIZES[module]
    agent = make_agent("heuristic", module.env(num_players=3))
    env = module.env(num_players=4)  # 4 players observe more than 3: fields would be read in the wrong places
    env.reset(seed=0)
    obs = env.observe(env.agent_selection)
    message = (
        f"observation of shape ({given},), but this agent was made for an env whose observation has shape "
        f"({made_for},): make the agent from the env it plays, agents.make_agent(name, env)"
    )
    with pytest.raises(ValueError, match=whole(message)):
        agent.act(obs)
    message = (
        "agents act on the env's observation dict {'observation', 'action_mask'} "
        "(env.observe(agent) or env.last()[0]), got ndarray"
    )
    with pytest.raises(TypeError, match=whole(message)):
        agent.act(obs["observation"])


def test_heuristic_takes_the_upcard_that_completes_a_meld():
    env = scripted("3S 4S 7H 8H 9H 2C 2D 2H KD JC".replace("JC", "9D"), upcard="5S")
    agent = make_agent("heuristic", env)
    assert text(env, agent.act(env.observe("player_0"))) == "draw discard"


def test_heuristic_draws_from_the_stock_when_the_upcard_is_useless():
    env = scripted("3S 4S 5S 7H 8H 9H 2C 2D 2H KD", upcard="QS")
    agent = make_agent("heuristic", env)
    assert text(env, agent.act(env.observe("player_0"))) == "draw stock"


def test_heuristic_puts_down_its_biggest_meld_then_discards_its_highest_loose_card():
    env = scripted("3S 4S 5S 7H 8H 9H 2C 2D QH KD", stock=("6S",))
    agent = make_agent("heuristic", env)
    moves = []
    for _ in range(4):
        action = agent.act(env.observe("player_0"))
        moves.append(text(env, action))
        env.step(action)
    # 3S-6S (4 cards) before 7H-9H; 2C 2D are a pair; QH and KD are loose and worth 10
    # each: the tie goes to the higher card id (QH = 37 > KD = 25)
    assert moves == ["draw stock", "meld 3S 4S 5S 6S", "meld 7H 8H 9H", "discard QH"]


def test_heuristic_lays_off_when_it_cannot_meld():
    env = rummy_v0.env()
    hands = ["7C 2S 4S 8S TH QH KD 2D 6D 9D", "4C 5C 6C 9C JC QD KH 4D 8D AD"]
    env.reset(options={"deck": stack_deck(hands, upcard="QS", stock=["3H", "JS", "5H"], dealer=1), "dealer": 1})
    agent = make_agent("heuristic", env)
    moves = []
    for scripted_move in [None, None, "draw stock", "meld 4C 5C 6C", "discard JS", None, None]:
        if scripted_move is None:  # player_0, the heuristic
            action = agent.act(env.observe("player_0"))
            moves.append(text(env, action))
        else:  # player_1, scripted
            action = env.unwrapped.string_to_action(scripted_move)
        env.step(action)
    # KD is the highest loose card (TH and QH are suited two apart); then 7C fits player_1's run
    assert moves == ["draw stock", "discard KD", "draw stock", "layoff 7C high"]


def test_registry():
    env = rummy_v0.env()
    assert agent_names("rummy_v0") == ["random", "heuristic"]
    assert agent_names("gin_rummy") == agent_names("gin_rummy_v0")  # the short name, as the jobs take it
    for variant in ("gin", None, "rummy_v1"):  # not ["random"] for a name that is no variant
        message = (
            f"variant {variant!r} is not an env name: use one of crazy_rummy_v0, gin_rummy_v0, rummikub_v0, rummy_v0"
        )
        with pytest.raises(ValueError, match=whole(message)):
            agent_names(variant)
    assert isinstance(make_agent("heuristic", env), RummyHeuristicAgent)
    for bad in (None, "rummy_v0"):  # not an AttributeError from inside the registry
        message = f"env {bad!r} is not an env of rummy_env: pass the env the agent will play in"
        with pytest.raises(TypeError, match=whole(message)):
            make_agent("heuristic", bad)
    known = (
        "unknown agent 'genius' for rummy_v0: known agents are random, heuristic, champion, "
        "heuristic:style=NAME (go_rummy, defensive, shed_high), ismcts:... or pimc:... with search options, "
        "policy:PATH of a trained model, rllib:PATH of an RLlib checkpoint, or package.module:Name of your own "
        "Agent class"
    )
    with pytest.raises(ValueError, match=whole(known)):
        make_agent("genius", env)
    assert isinstance(make_agent("agents:RandomAgent", env, seed=1), RandomAgent)
    with pytest.raises(ValueError, match=whole(f"agent 'numpy:ndarray' is a type 'ndarray': {SUBCLASS}")):
        make_agent("numpy:ndarray", env)
    with pytest.raises(ValueError, match=whole(f"agent 'math:pi' is a float 'pi': {SUBCLASS}")):
        make_agent("math:pi", env)
    with pytest.raises(
        ValueError,
        match="^agent 'heuristic:foo=1': heuristic takes one option, style; write heuristic:style=NAME with a "
        "style of rummy_v0: default, go_rummy, defensive, shed_high$",
    ):
        make_agent("heuristic:foo=1", env)
    with pytest.raises(ValueError, match="^agent 'random:seed=3': random takes no options; write 'random'$"):
        make_agent("random:seed=3", env)
    with pytest.raises(ValueError, match="^agent 'champion:x=1': champion takes no options; write 'champion'$"):
        make_agent("champion:x=1", env)  # it used to look for a module called champion
    message = "^agent 'openspiel_gin_bot:foo=1': openspiel_gin_bot takes no options; write 'openspiel_gin_bot'$"
    with pytest.raises(ValueError, match=message):  # checked before open_spiel is imported, on any variant
        make_agent("openspiel_gin_bot:foo=1", env)
    for seed in (-1, 1.5, True, "3"):
        with pytest.raises(
            ValueError,
            match=whole(f"agent 'heuristic': seed {seed!r} is not a seed: an agent's seed is an int >= 0 or None"),
        ):
            make_agent("heuristic", env, seed=seed)
    assert isinstance(make_agent("random", env, seed=np.uint8(3)), RandomAgent)
    with pytest.raises(
        TypeError, match=whole("agent name None has type NoneType: names are strings such as 'heuristic'")
    ):
        make_agent(None, env)
    with pytest.raises(ValueError, match="^the patient agent plays rummikub_v0 only, not rummy_v0$"):
        make_agent("agents.search.rummikub_plan:patient_agent", env)
    message = (
        "agent '.agents:RandomAgent' cannot be imported (the 'package' argument is required to perform a relative "
        f"import for '.agents'): {IMPORTABLE}"
    )
    with pytest.raises(ValueError, match=whole(message)):
        make_agent(".agents:RandomAgent", env)  # a relative module: importlib's bare TypeError before
    for empty in (":", "::", "agents:", ":RandomAgent"):  # importlib's bare "Empty module name" before
        message = f"agent '{empty}' cannot be imported (the module or the name is empty): {IMPORTABLE}"
        with pytest.raises(ValueError, match=whole(message)):
            make_agent(empty, env)
    message = (
        "agent 'agents:Agent' is the abstract class 'Agent' (it leaves act to subclasses): "
        "name a subclass that implements them"
    )
    with pytest.raises(ValueError, match=whole(message)):
        make_agent("agents:Agent", env)
    # a class that takes the env is built with it (the package's own agents do); one that needs
    # more arguments is a clear error, not a TypeError
    from rummy_env import rummikub_v0

    assert (
        type(make_agent("agents.rummikub_patient:PatientAgent", rummikub_v0.env(), seed=1)).__name__ == "PatientAgent"
    )
    message = (
        "agent 'tests.agents.test_agents:NeedsTable' could not be built (missing a required argument: 'table'): "
        "a class is built as Name(env, seed=seed) when it takes env, else Name(seed=seed); "
        "a factory is called as Name(env, seed)"
    )
    with pytest.raises(ValueError, match=whole(message)):
        make_agent("tests.agents.test_agents:NeedsTable", env)


class NeedsTable(Agent):
    """An agent whose constructor needs more than the env and a seed (for the test above)."""

    def __init__(self, table, seed=None):
        super().__init__(seed)

    def act(self, observation, info=None):
        return 0


class BrokenInside(Agent):
    """An agent whose constructor takes the right arguments and fails inside (the test below)."""

    def __init__(self, env, seed=None):
        super().__init__(seed)
        len(5)  # a bug of the agent's author

    def act(self, observation, info=None):
        return 0


def test_an_agents_own_errors_are_its_own_and_a_missing_dependency_is_named(tmp_path, monkeypatch):
    env = rummy_v0.env()
    # the constructor's TypeError was reported as a calling-convention problem, its traceback dropped
    with pytest.raises(TypeError, match="^object of type 'int' has no len\\(\\)$") as err:
        make_agent("tests.agents.test_agents:BrokenInside", env)
    assert err.traceback[-1].name == "__init__"
    (tmp_path / "needs_dep.py").write_text("import no_such_dependency_xyz\n")
    (tmp_path / "syntax_error.py").write_text("def broken(:\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    # the module was found: what it imports is missing (it said to make the module importable)
    message = "agent 'needs_dep:X': importing needs_dep failed (No module named 'no_such_dependency_xyz')"
    with pytest.raises(ValueError, match=whole(message)):
        make_agent("needs_dep:X", env)
    # Python's own SyntaxError text (its wording changes between versions) is left free
    prefix = re.escape("agent 'syntax_error:X': importing syntax_error failed (SyntaxError: ")
    with pytest.raises(ValueError, match=rf"^{prefix}.+ \(syntax_error\.py, line 1\)\)$"):
        make_agent("syntax_error:X", env)


def test_a_policy_path_that_is_no_file_says_why(tmp_path):
    env = rummy_v0.env()
    tail = ": pass the model.zip that experiments.train wrote or the model.pt of experiments.selfplay"
    with pytest.raises(ValueError, match=whole(f"no policy file given{tail}")):
        make_agent("policy:", env)
    with pytest.raises(ValueError, match=whole(f"policy file '{tmp_path}' is a folder{tail}")):
        make_agent(f"policy:{tmp_path}", env)
    with pytest.raises(ValueError, match=whole(f"policy file '{tmp_path / 'x.pt'}' does not exist{tail}")):
        make_agent(f"policy:{tmp_path / 'x.pt'}", env)
    # an empty checkpoint path is refused before the rllib extra is needed (not read as ".")
    with pytest.raises(
        ValueError, match=whole("agent 'rllib:' names no checkpoint folder: give rllib:PATH of an RLlib checkpoint")
    ):
        make_agent("rllib:", env)


def test_heuristic_beats_random_in_every_hand_of_forty_seeded_deals():
    env = rummy_v0.env()
    wins = 0
    for seed in range(40):
        result = play_episode(env, [make_agent("heuristic", env), make_agent("random", env, seed=seed)], seed)
        wins += result["infos"][0]["winner"] == "player_0"
    assert wins == 40


@pytest.mark.parametrize("path", ["docs/results/selfplay-gin/model.pt", "docs/results/sb3-gin/model.zip"])
def test_a_policy_refuses_an_observation_with_no_legal_action(path):
    env = gin_rummy_v0.env()
    env.reset(seed=3)
    agent = make_agent(f"policy:{Path(__file__).parents[2] / path}", env, seed=0)
    idle = "player_1" if env.agent_selection == "player_0" else "player_0"
    with pytest.raises(ValueError, match=whole(NO_LEGAL)):
        agent.act(env.observe(idle))  # the seat not acting: its mask is all 0
    obs = env.observe(env.agent_selection)
    assert obs["action_mask"][agent.act(obs)] == 1


#: actions a sampling policy plays with seeds 0..7 at the discard of ``discard_position()``
SAMPLED = {
    "docs/results/selfplay-gin/model.pt": [37, 37, 37, 25, 37, 37, 37, 37],
    "docs/results/sb3-gin/model.zip": [32, 25, 12, 11, 37, 37, 30, 32],
}


def discard_position():
    """Gin Rummy, seed 3: the first player passes the upcard (106), the other takes the
    last legal id of its draw, then is to discard: 11 legal discards."""
    env = gin_rummy_v0.env()
    env.reset(seed=3)
    env.step(106)
    env.step(int(np.flatnonzero(env.last()[0]["action_mask"])[-1]))
    return env.last()[0]


@pytest.mark.parametrize("path", sorted(SAMPLED))
def test_a_sampling_policy_draws_from_its_own_seed(path):
    """``deterministic=False`` samples the masked distribution with the agent's generator:
    the same seed plays the same action whatever torch's global generator holds."""
    import torch

    from agents.policy import PolicyAgent, policy_probabilities

    obs = discard_position()
    legal = np.flatnonzero(obs["action_mask"])
    assert legal.tolist() == [2, 11, 12, 18, 23, 25, 30, 31, 32, 37, 41]
    full = str(Path(__file__).parents[2] / path)
    p = policy_probabilities(PolicyAgent(full).model, obs["observation"], obs["action_mask"].astype(bool))
    assert p.dtype == np.float64 and p.sum() == pytest.approx(1.0) and np.flatnonzero(p).tolist() == legal.tolist()
    assert int(np.argmax(p)) == PolicyAgent(full).act(obs) == 37  # the deterministic agent's choice
    for torch_seed in (0, 12345):
        torch.manual_seed(torch_seed)
        assert [PolicyAgent(full, deterministic=False, seed=s).act(obs) for s in range(8)] == SAMPLED[path]
