"""A ``policy:`` agent and the heuristics refuse damaged model files and observations no env
writes, with a clear ``ValueError`` (some hung, played on NaN, or failed with torch's text)."""

import copy
import re
from pathlib import Path

import numpy as np
import pytest
import torch

from agents import make_agent
from agents.torch_policy import ActorCritic, save_model
from rummy_env import gin_rummy_v0

GIN_MODEL = Path(__file__).resolve().parents[2] / "docs" / "results" / "selfplay-gin" / "model.pt"


@pytest.fixture(scope="module")
def position():
    env = gin_rummy_v0.env()
    env.reset(seed=3)
    return env, env.observe(env.agent_selection)


def changed(path, change):
    data = torch.load(GIN_MODEL, weights_only=True)
    data = copy.deepcopy(data)
    change(data)
    torch.save(data, path)
    return f"policy:{path}"


def test_a_damaged_model_file_is_refused_naming_what_is_wrong(position, tmp_path):
    env, _ = position
    first = next(iter(torch.load(GIN_MODEL, weights_only=True)["state_dict"]))
    complete = "does not hold a complete rummy_env.selfplay/1 model: "
    for name, change, said in [
        ("noconfig", lambda d: d.pop("config"), f"{complete}KeyError: 'config'$"),
        ("text", lambda d: d.__setitem__("config", "x"), f"{complete}TypeError: string indices must be integers"),
        ("hidden", lambda d: d["config"].__setitem__("hidden", None), f"{complete}TypeError: "),
        # a model that is no longer a number: it played the lowest legal id on every move
        ("nan", lambda d: d["state_dict"][first].fill_(float("nan")), f"holds NaN or infinite values in {first}: a"),
    ]:
        with pytest.raises(ValueError, match=re.escape(f"policy file '{tmp_path / name}.pt' ") + said):
            make_agent(changed(tmp_path / f"{name}.pt", change), env)
    # a whole model of another number of actions: refused when made, not at its first move
    few = tmp_path / "few.pt"
    save_model(few, ActorCritic(485, 10, (8,)))
    with pytest.raises(ValueError, match=rf"^policy 'policy:{re.escape(str(few))}' has 10 actions, this env 108 \("):
        make_agent(f"policy:{few}", env)
    # only .pt is read as a self-play model: the message says how other names are read
    other = tmp_path / "model.pth"
    other.write_bytes(GIN_MODEL.read_bytes())
    with pytest.raises(ValueError, match="; a file not ending in .pt is read as the model.zip of experiments.train$"):
        make_agent(f"policy:{other}", env)


def test_observations_no_env_writes_are_refused(position):
    env, obs = position
    policy, heuristic = make_agent(f"policy:{GIN_MODEL}", env), make_agent("heuristic", env)
    mask = obs["action_mask"]
    nan = {"observation": np.full_like(obs["observation"], np.nan), "action_mask": mask}
    ones = {"observation": np.ones_like(obs["observation"]), "action_mask": mask}
    for agent in (policy, heuristic):
        with pytest.raises(ValueError, match="^the observation holds NaN or an infinity: it is not one an env wrote$"):
            agent.act(nan)
    # a hand of 52 cards: the deadwood search over it ran for minutes
    with pytest.raises(ValueError, match="^the observation's hand plane holds 52 nonzero entries, not a hand of 10"):
        heuristic.act(ones)
    with pytest.raises(ValueError, match="^a hand plane holds 52 cards, not a Gin hand of 10 or 11"):
        policy.act(ones)
    with pytest.raises(ValueError, match=r"^action mask of shape \(50,\), but this policy has 108 actions$"):
        policy.act({"observation": obs["observation"], "action_mask": np.ones(50, np.int8)})
    with pytest.raises(TypeError, match="^agents act on the env's observation dict"):
        policy.act(None)
    with pytest.raises(ValueError, match=r"^observation of shape list does not fit this policy, trained on \(485,\)"):
        policy.act({"observation": [1, 2], "action_mask": mask})
    assert policy.act(obs) == 105 and mask[105]  # the position itself still plays
