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
from tests.helpers import whole

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
    complete = re.escape("does not hold a complete rummy_env.selfplay/1 model: ")
    # after "TypeError: " comes Python's own text (it changed in 3.11), left free
    for name, change, said in [
        ("noconfig", lambda d: d.pop("config"), f"{complete}KeyError: 'config'"),
        ("text", lambda d: d.__setitem__("config", "x"), f"{complete}TypeError: string indices must be integers.*"),
        ("hidden", lambda d: d["config"].__setitem__("hidden", None), f"{complete}TypeError: .+"),
        # a model that is no longer a number: it played the lowest legal id on every move
        (
            "nan",
            lambda d: d["state_dict"][first].fill_(float("nan")),
            re.escape(f"holds NaN or infinite values in {first}: a damaged model"),
        ),
    ]:
        where = re.escape(f"policy file '{tmp_path / name}.pt' ")
        with pytest.raises(ValueError, match=f"^{where}{said}$"):
            make_agent(changed(tmp_path / f"{name}.pt", change), env)
    # a whole model of another number of actions: refused when made, not at its first move
    few = tmp_path / "few.pt"
    save_model(few, ActorCritic(485, 10, (8,)))
    message = (
        f"policy 'policy:{few}' has 10 actions, this env 108 (gin_rummy_v0): "
        "a model plays the variant it was trained on"
    )
    with pytest.raises(ValueError, match=whole(message)):
        make_agent(f"policy:{few}", env)
    # only .pt is read as a self-play model: the message says how other names are read
    other = tmp_path / "model.pth"
    other.write_bytes(GIN_MODEL.read_bytes())
    # inside the brackets: the zip reader's own KeyError text, left free
    said = re.escape(f"policy file '{other}' is not a MaskablePPO model ({other}: not an SB3 model.zip (KeyError: ")
    tail = re.escape(")); a file not ending in .pt is read as the model.zip of experiments.train")
    with pytest.raises(ValueError, match=f"^{said}.+{tail}$"):
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
    message = (
        "the observation's hand plane holds 52 nonzero entries, not a hand of 10 or 11 cards as 0/1: "
        "it is not one an env wrote"
    )
    with pytest.raises(ValueError, match=whole(message)):
        heuristic.act(ones)
    with pytest.raises(
        ValueError, match=whole("a hand plane holds 52 cards, not a Gin hand of 10 or 11: not an env's observation")
    ):
        policy.act(ones)
    with pytest.raises(ValueError, match=r"^action mask of shape \(50,\), but this policy has 108 actions$"):
        policy.act({"observation": obs["observation"], "action_mask": np.ones(50, np.int8)})
    message = (
        "agents act on the env's observation dict {'observation', 'action_mask'} "
        "(env.observe(agent) or env.last()[0]), got NoneType"
    )
    with pytest.raises(TypeError, match=whole(message)):
        policy.act(None)
    message = (
        "observation of shape list does not fit this policy, trained on (485,): "
        "play it on the variant and options it was trained with"
    )
    with pytest.raises(ValueError, match=whole(message)):
        policy.act({"observation": [1, 2], "action_mask": mask})
    assert policy.act(obs) == 105 and mask[105]  # the position itself still plays


def test_a_model_of_another_variant_is_refused_and_other_hand_rules_warn(tmp_path):
    """A .pt records its variant and env options: another variant is refused even where the
    shapes fit, other rules of a hand warn (once per option, both values named), options
    that only end or score episodes differently do not."""
    import warnings

    from rummy_env import crazy_rummy_v0, rummikub_v0

    relabelled = tmp_path / "rummy.pt"  # Gin's observation and action sizes, recorded as Rummy's
    save_model(relabelled, ActorCritic(485, 108, (8,)), variant="rummy_v0", env_options={})
    relabelled = f"policy:{relabelled}"
    with pytest.raises(
        ValueError, match=rf"^policy '{re.escape(relabelled)}' is a policy of rummy_v0, this env is gin_rummy_v0$"
    ):
        make_agent(relabelled, gin_rummy_v0.env())
    name = f"policy:{GIN_MODEL}"
    with pytest.warns(UserWarning) as said:
        make_agent(name, gin_rummy_v0.env(knock_limit=5, big_gin=False, episode="game", reward="score"))
    assert [str(w.message) for w in said] == [
        f"policy {name!r} was trained on gin_rummy_v0 with knock_limit=10 (this env 5), big_gin=True (this env "
        "False): it plays, but under rules it did not learn"
    ]
    rummikub = Path(__file__).resolve().parents[2] / "docs" / "results" / "selfplay-rummikub" / "model.pt"
    with pytest.warns(UserWarning) as said:
        make_agent(f"policy:{rummikub}", rummikub_v0.env(initial_meld_points=0))
    assert [str(w.message) for w in said] == [
        f"policy 'policy:{rummikub}' was trained on rummikub_v0 with initial_meld_points=30 (this env 0): it "
        "plays, but under rules it did not learn"
    ]
    with pytest.warns(UserWarning) as said:
        make_agent(f"pimc:guide={GIN_MODEL},prior=0.1", gin_rummy_v0.env(gin_bonus=20))
    assert [str(w.message) for w in said] == [
        f"guide={GIN_MODEL} was trained on gin_rummy_v0 with gin_bonus=25 (this env 20): it plays, but under "
        "rules it did not learn"
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        make_agent(name, gin_rummy_v0.env(episode="game", target_score=50, game_bonuses=True, max_turns=7))
        crazy = Path(__file__).resolve().parents[2] / "docs" / "results" / "selfplay-crazy" / "model.pt"
        make_agent(f"policy:{crazy}", crazy_rummy_v0.env(wild_rank=5))  # trained on every rank (None)


def test_a_model_of_options_the_env_no_longer_takes_warns_naming_them(tmp_path):
    old = tmp_path / "old.pt"
    save_model(old, ActorCritic(485, 108, (8,)), variant="gin_rummy_v0", env_options={"knock_limt": 3})
    with pytest.warns(UserWarning) as said:
        make_agent(f"policy:{old}", gin_rummy_v0.env())
    assert [str(w.message) for w in said] == [
        f"policy 'policy:{old}' was trained on gin_rummy_v0 with options {{'knock_limt': 3}}, which this env does "
        "not take (unknown gin_rummy_v0 option(s) 'knock_limt': known options are knock_limit, gin_bonus, "
        "undercut_bonus, big_gin, big_gin_bonus, oklahoma, target_score, game_bonuses, max_turns, max_hands, "
        "episode, reward, render_mode): it plays, but whether under the rules it learned cannot be told"
    ]


def test_a_self_play_opponent_of_other_hand_rules_warns():
    """experiments.selfplay's frozen policy: opponents get the same check as make_agent."""
    from experiments.selfplay.opponents import FrozenAgent

    with pytest.warns(UserWarning) as said:
        FrozenAgent(f"policy:{GIN_MODEL}", gin_rummy_v0.env(oklahoma=True), np.random.default_rng(0), seed=0)
    assert [str(w.message) for w in said] == [
        f"policy:{GIN_MODEL} was trained on gin_rummy_v0 with oklahoma=False (this env True): it plays, but under "
        "rules it did not learn"
    ]


def test_a_model_recording_every_rule_is_compared_on_them_not_on_todays_defaults(tmp_path):
    """A model saved since 2026-12-07 records env_config (every rule, defaults included): a
    default changed since training is caught, an option added since is not compared."""
    import dataclasses
    import warnings

    rules = dataclasses.asdict(gin_rummy_v0.env().unwrapped.game.config)
    rules.pop("oklahoma")  # as if added after the model was trained
    path = tmp_path / "recorded.pt"
    save_model(path, ActorCritic(485, 108, (8,)), variant="gin_rummy_v0", env_options={}, env_config=rules)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        make_agent(f"policy:{path}", gin_rummy_v0.env(oklahoma=True))
    save_model(
        path,
        ActorCritic(485, 108, (8,)),
        variant="gin_rummy_v0",
        env_options={},
        env_config={**rules, "knock_limit": 7},
    )
    with pytest.warns(UserWarning) as said:
        make_agent(f"policy:{path}", gin_rummy_v0.env())
    assert [str(w.message) for w in said] == [
        f"policy 'policy:{path}' was trained on gin_rummy_v0 with knock_limit=7 (this env 10): it plays, but under "
        "rules it did not learn"
    ]
    path = tmp_path / "removed.pt"  # a rule the env no longer has
    save_model(
        path, ActorCritic(485, 108, (8,)), variant="gin_rummy_v0", env_options={}, env_config={**rules, "wall": 2}
    )
    with pytest.warns(UserWarning) as said:
        make_agent(f"policy:{path}", gin_rummy_v0.env(oklahoma=False))
    assert [str(w.message) for w in said] == [
        f"policy 'policy:{path}' was trained on gin_rummy_v0 with wall=2 (rules this env no longer has): it plays, "
        "but under rules it did not learn"
    ]


def test_a_self_play_opponent_and_a_pimc_guide_that_do_not_fit_the_env_are_refused(tmp_path):
    """experiments.selfplay's frozen policy and a pimc guide get make_agent's check of the
    observation shape and the number of actions (agents.policy.check_fits), and its
    refusal of another variant (check_trained_on)."""
    from experiments.selfplay.opponents import FrozenAgent
    from rummy_env import rummy_v0

    def frozen(path, env):
        return FrozenAgent(f"policy:{path}", env, np.random.default_rng(0), seed=0)

    shape = (
        " was trained on observations of shape (485,) (gin_rummy_v0, options {}), this env's are (324,) "
        "(rummy_v0, 2 players): a model plays the variant and number of players it was trained on"
    )
    with pytest.raises(ValueError, match=f"^{re.escape(f'policy:{GIN_MODEL}{shape}')}$"):
        frozen(GIN_MODEL, rummy_v0.env())
    with pytest.raises(ValueError, match=f"^{re.escape(f'guide={GIN_MODEL}{shape}')}$"):
        make_agent(f"pimc:guide={GIN_MODEL},prior=0.1", rummy_v0.env())
    few = tmp_path / "few.pt"
    save_model(few, ActorCritic(485, 10, (8,)), variant="gin_rummy_v0")
    actions = " has 10 actions, this env 108 (gin_rummy_v0): a model plays the variant it was trained on"
    with pytest.raises(ValueError, match=f"^{re.escape(f'policy:{few}{actions}')}$"):
        frozen(few, gin_rummy_v0.env())
    with pytest.raises(ValueError, match=f"^{re.escape(f'guide={few}{actions}')}$"):
        make_agent(f"pimc:guide={few},prior=0.1", gin_rummy_v0.env())
    relabelled = tmp_path / "rummy.pt"  # Gin's sizes, recorded as Rummy's
    save_model(relabelled, ActorCritic(485, 108, (8,)), variant="rummy_v0", env_options={})
    with pytest.raises(
        ValueError, match=f"^{re.escape(f'policy:{relabelled} is a policy of rummy_v0, this env is gin_rummy_v0')}$"
    ):
        frozen(relabelled, gin_rummy_v0.env())
