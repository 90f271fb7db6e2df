"""``copy.deepcopy`` and a ``pickle`` round trip of an env mid-game continue the same game
(issue 10, item 5): same observation, mask, ``agent_selection``, rewards and infos, the
same future under the same actions and reset seeds, and independent of the original."""

import copy
import pickle

import numpy as np
import pytest

from rummy_env import crazy_rummy_v0, gin_rummy_v0, rummikub_v0, rummy_v0

MODULES = [rummy_v0, gin_rummy_v0, crazy_rummy_v0, rummikub_v0]
COPIES = {"deepcopy": copy.deepcopy, "pickle": lambda env: pickle.loads(pickle.dumps(env))}


def snapshot(env):
    """Everything a player loop reads from ``env`` now."""
    raw = env.unwrapped
    obs = {a: env.observe(a) for a in raw.possible_agents}
    return {
        "agent_selection": env.agent_selection,
        "agents": list(env.agents),
        "observation": {a: o["observation"].tolist() for a, o in obs.items()},
        "mask": {a: o["action_mask"].tolist() for a, o in obs.items()},
        "rewards": dict(env.rewards),
        "cumulative": dict(raw._cumulative_rewards),
        "terminations": dict(env.terminations),
        "truncations": dict(env.truncations),
        "infos": copy.deepcopy(env.infos),
    }


def play(env, rng, steps):
    """Up to ``steps`` random legal moves (None for finished agents); what each step did
    (agent, action, rewards) and the snapshot at the end."""
    seen = []
    for _ in range(steps):
        if not env.agents:
            break
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            action = None
        else:
            mask = env.observe(agent)["action_mask"]
            action = int(rng.choice(np.flatnonzero(mask)))
        env.step(action)
        seen.append((agent, action, dict(env.rewards)))
    return seen, snapshot(env)


@pytest.mark.parametrize("copier", list(COPIES))
@pytest.mark.parametrize("wrapped", [True, False], ids=["env", "raw_env"])
@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__.split(".")[-1])
def test_a_copy_mid_game_continues_the_same_game(module, wrapped, copier):
    env = module.env() if wrapped else module.raw_env()
    env.reset(seed=11)
    play(env, np.random.default_rng(5), 9)
    before = snapshot(env)
    twin = COPIES[copier](env)
    assert type(twin) is type(env) and twin.unwrapped is not env.unwrapped
    assert twin.unwrapped.game_state is not env.unwrapped.game_state
    assert snapshot(twin) == before
    # the same actions give the same game to its end, then the same next deal from the
    # generator the copy carries (reset without a seed)
    assert play(twin, np.random.default_rng(8), 3000) == play(env, np.random.default_rng(8), 3000)
    assert not env.agents and not twin.agents
    env.reset()
    twin.reset()
    assert snapshot(twin) == snapshot(env)


@pytest.mark.parametrize("copier", list(COPIES))
@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__.split(".")[-1])
def test_a_copy_is_independent_of_the_original(module, copier):
    env = module.env()
    env.reset(seed=4)
    play(env, np.random.default_rng(1), 5)
    before = snapshot(env)
    twin = COPIES[copier](env)
    play(twin, np.random.default_rng(2), 40)
    twin.reset(seed=99)
    assert snapshot(env) == before
    # and the other way round: the original moves on, the copy made now stays put
    twin = COPIES[copier](env)
    play(env, np.random.default_rng(3), 40)
    assert snapshot(twin) == before


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__.split(".")[-1])
def test_the_engine_state_clone_is_the_cheap_copy(module):
    env = module.env()
    env.reset(seed=2)
    before = snapshot(env)
    state = env.unwrapped.game_state
    clone = state.clone()
    for _ in range(6):
        clone.apply_action(clone.legal_actions()[-1])
    assert clone.history != state.history and env.unwrapped.game_state is state
    assert snapshot(env) == before
