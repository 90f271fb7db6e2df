"""The package's ids in PettingZoo's registry (1.27+) and Gymnasium's, and rummy_env.make."""

import re
import subprocess
import sys
import warnings

import gymnasium
import numpy as np
import pettingzoo
import pytest
from gymnasium.utils.env_checker import check_env

import rummy_env
from agents import RandomAgent, make_agent
from rummy_env.envs import registration
from rummy_env.envs.single_agent import RandomOpponent, SingleAgentEnv
from tests.helpers import whole

PZ_IDS = {
    "rummy_env/rummy-v0": "rummy_v0",
    "rummy_env/gin_rummy-v0": "gin_rummy_v0",
    "rummy_env/crazy_rummy-v0": "crazy_rummy_v0",
    "rummy_env/rummikub-v0": "rummikub_v0",
}
GYM_IDS = {
    "rummy_env/Rummy-v0": "rummy_v0",
    "rummy_env/GinRummy-v0": "gin_rummy_v0",
    "rummy_env/CrazyRummy-v0": "crazy_rummy_v0",
    "rummy_env/Rummikub-v0": "rummikub_v0",
}
#: the options each variant's env() knows, in its refusals' order
KNOWN_OPTIONS = {
    "rummy_v0": "num_players, ace_high, reshuffle, two_player_winner_deals, target_score, max_turns, max_hands,"
    " episode, reward, render_mode",
    "gin_rummy_v0": "knock_limit, gin_bonus, undercut_bonus, big_gin, big_gin_bonus, oklahoma, target_score,"
    " game_bonuses, max_turns, max_hands, episode, reward, render_mode",
    "crazy_rummy_v0": "num_players, wild_rank, episode, reward, max_turns, max_hands, render_mode",
    "rummikub_v0": "num_players, initial_meld_points, initial_meld_table_play, target_score, max_turns, max_hands,"
    " episode, reward, render_mode",
}
HAS_REGISTRY = tuple(int(x) for x in pettingzoo.__version__.split(".")[:2]) >= (1, 27)


def run(code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()


def test_import_rummy_env_registers_without_loading_the_frameworks_in_either_import_order():
    check = (
        "import pettingzoo, gymnasium\n"
        "aec = sorted(k for k in getattr(pettingzoo, 'aec_registry', {}) if k.startswith('rummy_env/'))\n"
        "gym = sorted(k for k in gymnasium.registry if k.startswith('rummy_env/'))\n"
        "print(len(aec), len(gym))\n"
    )
    loaded = "import sys\nprint(sum(m.split('.')[0] in ('pettingzoo', 'gymnasium') for m in sys.modules))\n"
    expected = ["4" if HAS_REGISTRY else "0", "4"]
    assert run("import rummy_env\n" + loaded + check) == ["0", *expected]
    assert run("import pettingzoo, gymnasium\nimport rummy_env\n" + check) == expected
    assert run(check) == ["0", "0"]  # nothing without importing rummy_env


@pytest.mark.parametrize("env_id", PZ_IDS)
def test_pettingzoo_make_gives_the_wrapped_env_with_the_options(env_id):
    if not HAS_REGISTRY:
        # PettingZoo 1.24 to 1.26 have no registry: rummy_env.make stands in for it
        assert not hasattr(pettingzoo, "make") and registration.register_pettingzoo() is False
        make = rummy_env.make
    else:
        make = lambda i, **kw: pettingzoo.make("aec", i, **kw)  # noqa: E731
    for maker in (make, rummy_env.make):
        env = maker(env_id, max_turns=77, reward="score")
        assert env.unwrapped.metadata["name"] == PZ_IDS[env_id]
        assert env.unwrapped.game.config.max_turns == 77 and env.unwrapped.game.config.reward == "score"
        env.reset(seed=3)
        direct = __import__(f"rummy_env.{PZ_IDS[env_id]}", fromlist=["env"]).env(max_turns=77, reward="score")
        direct.reset(seed=3)
        assert str(env.unwrapped.game_state) == str(direct.unwrapped.game_state)
        refusal = f"unknown {PZ_IDS[env_id]} option(s) 'max_turn': known options are {KNOWN_OPTIONS[PZ_IDS[env_id]]}"
        with pytest.raises(ValueError, match=whole(refusal)):
            maker(env_id, max_turn=77)


def test_rummy_env_make_reads_pettingzoos_underscore_ids_and_names_the_known_ones():
    assert rummy_env.make("rummy_env/gin_rummy_v0").unwrapped.metadata["name"] == "gin_rummy_v0"
    ids = "rummy_env/rummy-v0, rummy_env/gin_rummy-v0, rummy_env/crazy_rummy-v0, rummy_env/rummikub-v0"
    with pytest.raises(ValueError, match=whole(f"unknown env id 'rummy_env/gin-v0': rummy_env's ids are {ids}")):
        rummy_env.make("rummy_env/gin-v0")
    with pytest.raises(ValueError, match=whole(f"unknown env id None: rummy_env's ids are the strings {ids}")):
        rummy_env.make(None)


@pytest.mark.parametrize("env_id", GYM_IDS)
def test_gymnasium_make_and_check_env_without_warnings(env_id):
    env = gymnasium.make(env_id, render_mode="ansi", seed=0)
    assert env.spec.id == env_id and isinstance(env.unwrapped, SingleAgentEnv)
    assert env.unwrapped.aec.unwrapped.metadata["name"] == GYM_IDS[env_id]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the spec lets check_env test the render modes too
        check_env(env.unwrapped)
    obs, info = env.reset(seed=1)
    assert obs.shape == env.observation_space.shape
    assert env.render() == env.unwrapped.aec.unwrapped.render()  # the AEC env's table of the same state
    title = {"rummy_v0": "Rummy: ", "gin_rummy_v0": "Gin Rummy: ", "crazy_rummy_v0": "Crazy Rummy: "}
    assert env.render().startswith(title.get(GYM_IDS[env_id], "Rummikub: "))


def test_gymnasium_make_takes_the_opponents_and_env_options():
    env = gymnasium.make("rummy_env/GinRummy-v0", knock_limit=5, learner_seat=1, seed=0)
    single = env.unwrapped
    assert single.aec.unwrapped.game.config.knock_limit == 5 and single.learner_seat == 1
    assert [type(p) for p in single.opponents] == [RandomOpponent]
    heur = gymnasium.make("rummy_env/GinRummy-v0", opponents=lambda aec: [make_agent("heuristic", aec, seed=1)])
    assert type(heur.unwrapped.opponents[0]).__name__ == "GinHeuristicAgent"
    crazy = gymnasium.make("rummy_env/CrazyRummy-v0", num_players=3, opponents=[RandomAgent(1), "random"])
    assert [type(p).__name__ for p in crazy.unwrapped.opponents] == ["RandomAgent", "RandomOpponent"]
    only = (
        "opponents='heuristic': the only name known here is 'random'; for the agents package's, pass"
        " opponents=lambda aec: [agents.make_agent(name, aec, seed=1)]"
    )
    with pytest.raises(ValueError, match=whole(only)):
        gymnasium.make("rummy_env/GinRummy-v0", opponents="heuristic")
    ours = (
        "opponent 3 has no act(observation, info) method: an opponent is an object with one (an agents.Agent, e.g."
        " agents.make_agent('heuristic', aec_env)) or the name 'random' (single_agent_env(variant, opponents=...))"
    )
    # gymnasium.make appends its own words (which may change between its versions): matched as a fragment
    with pytest.raises(TypeError, match=f"^{re.escape(ours)} was raised from the environment creator for "):
        gymnasium.make("rummy_env/GinRummy-v0", opponents=[3])
    with pytest.raises(
        ValueError,
        match=whole("render_mode='human' is not supported by the single-agent view: use 'ansi', 'rgb_array' or None"),
    ):
        gymnasium.make("rummy_env/GinRummy-v0", render_mode="human")


def test_the_random_opponent_replays_under_the_same_seed():
    def episode(seed):
        env = gymnasium.make("rummy_env/Rummy-v0", learner_seat=0)
        obs, _ = env.reset(seed=seed)
        done = False
        while not done:
            action = int(np.flatnonzero(env.unwrapped.action_masks())[0])
            obs, reward, terminated, truncated, _ = env.step(action)
            done = terminated or truncated
        return env.unwrapped.aec.unwrapped.game_state.history, reward

    first = episode(5)
    assert episode(5) == first and episode(6) != first
