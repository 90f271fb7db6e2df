"""RLlib: the masking glue, and ``experiments.train --backend rllib`` for two iterations on
a local 2-CPU Ray cluster, its checkpoint then played by ``agents.make_agent("rllib:...")``
and resumed (``--resume``) for a third."""

import csv
import json

import numpy as np
import pytest

from agents import make_agent
from experiments import train
from experiments.common import play_episode
from rummy_env import gin_rummy_v0
from tests.integration.conftest import require

require("ray.rllib")
import torch  # noqa: E402
from ray.rllib.core.columns import Columns  # noqa: E402
from ray.rllib.core.rl_module.rl_module import RLModuleSpec  # noqa: E402

from agents.rllib_policy import MaskedPPOTorchRLModule, rllib_observation  # noqa: E402
from experiments.train import rllib as train_rllib  # noqa: E402
from experiments.train.rllib import RummyPettingZooEnv  # noqa: E402


def test_rllib_observation_is_the_masking_convention():
    obs = {"observation": np.array([0.5, 2.0], dtype=np.float32), "action_mask": np.array([0, 1, 1], dtype=np.int8)}
    out = rllib_observation(obs)
    assert set(out) == {"observations", "action_mask"}
    assert out["observations"].tolist() == [0.5, 2.0] and out["action_mask"].tolist() == [0.0, 1.0, 1.0]
    assert out["action_mask"].dtype == np.float32 and out["observations"].flags.writeable


def test_rllib_pettingzoo_env_gives_observations_in_its_space():
    env = RummyPettingZooEnv({"variant": "gin_rummy_v0", "options": {"knock_limit": 5}})
    obs, _ = env.reset(seed=0)
    (agent,) = obs
    assert env.observation_space[agent].contains(obs[agent])
    assert np.flatnonzero(obs[agent]["action_mask"]).tolist() == [105, 106]  # the upcard offer
    obs, rewards, terminated, truncated, _ = env.step({agent: 106})  # pass
    (other,) = obs
    assert other != agent and env.observation_space[other].contains(obs[other]) and not terminated["__all__"]


def test_rllib_pettingzoo_env_passes_rllibs_env_check_which_training_does_not_repeat():
    from ray.rllib.utils.pre_checks.env import check_multiagent_environments

    from experiments.train.rllib import ppo_config

    check_multiagent_environments(RummyPettingZooEnv({"variant": "gin_rummy_v0", "options": {}}))
    config = ppo_config(
        "gin_rummy_v0", {}, seed=0, env_runners=0, batch_size=64, minibatch_size=32, epochs=1, net_arch=[8]
    )
    assert config.disable_env_checking is True  # its unmasked random step is an illegal move: a warning at every build


def test_the_largest_seed_leaves_each_env_runner_a_seed_numpy_takes():
    # RLlib seeds env runner k by numpy.random.seed(seed + k): --seed 4294967295 (allowed) or a
    # resumed session's seed near it failed in the first remote runner (Seed must be between 0
    # and 2**32 - 1)
    from experiments.train.resume import MAX_TRAIN_SEED
    from experiments.train.rllib import ppo_config

    def seed(seed, env_runners):
        config = ppo_config(
            "gin_rummy_v0", {}, seed, env_runners, batch_size=64, minibatch_size=32, epochs=1, net_arch=[8]
        )
        return config.seed

    top = MAX_TRAIN_SEED
    assert [seed(top, 2), seed(top - 2, 2), seed(top, 1), seed(top - 1, 1), seed(top, 0)] == [
        1,
        top - 2,
        0,
        top - 1,
        top,
    ]
    assert seed(7, 2) == 7  # the seeds that fit are as before


def test_masked_module_never_picks_an_illegal_action():
    env = RummyPettingZooEnv({"variant": "gin_rummy_v0", "options": {}})
    space = env.observation_space["player_0"]
    torch.manual_seed(0)
    module = RLModuleSpec(
        module_class=MaskedPPOTorchRLModule,
        observation_space=space,
        action_space=env.action_space["player_0"],
        model_config={"fcnet_hiddens": [16]},
    ).build()
    mask = np.zeros((3, 108), dtype=np.float32)
    mask[0, [105, 106]] = 1
    mask[1, 7] = 1
    mask[2, 52:60] = 1
    batch = {
        Columns.OBS: {"observations": torch.rand(3, space["observations"].shape[0]), "action_mask": torch.tensor(mask)}
    }
    for forward in (module.forward_inference, module.forward_exploration):
        logits = forward(dict(batch))[Columns.ACTION_DIST_INPUTS].detach().numpy()
        assert [int(np.argmax(row)) in np.flatnonzero(m) for row, m in zip(logits, mask, strict=True)] == [True] * 3
        assert (logits[mask == 0] < -1e30).all()


def test_train_two_iterations_on_a_local_cluster_and_play_the_checkpoint(tmp_path):
    out = tmp_path / "rllib"
    argv = ["--backend", "rllib", "--variant", "gin_rummy", "--iterations", "2", "--num-cpus", "2"]
    argv += ["--batch-size", "200", "--minibatch-size", "100", "--epochs", "1", "--eval-deals", "0"]
    assert train.main([*argv, "--out", str(out), "--no-progress"]) == 0
    with open(out / "progress.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["iteration"] for r in rows] == ["1", "2"] and int(rows[1]["env_steps"]) >= 400
    summary = json.loads((out / "evaluation.json").read_text())
    assert summary["backend"] == "rllib" and summary["iterations"] == 2
    env = gin_rummy_v0.env()
    agent = make_agent(f"rllib:{out / 'checkpoint'}", env, seed=0)
    result = play_episode(env, [agent, make_agent("random", env, seed=1)], seed=3)
    assert result["steps"] > 0 and sorted(result["returns"]) in ([-1.0, 1.0], [0.0, 0.0])
    again = play_episode(env, [agent, make_agent("random", env, seed=1)], seed=3)
    assert again == result  # the deterministic policy replays the same game
    # read before the algorithm is built: a resumed session's env runners are seeded by --seed plus it
    assert train_rllib.checkpoint_iteration(out / "checkpoint") == 2
    # --resume restores the algorithm (its iteration and lifetime counters too) and goes on to --iterations 3
    assert train.main(["--resume", "--out", str(out), "--iterations", "3", "--num-cpus", "2", "--no-progress"]) == 0
    with open(out / "progress.csv") as f:
        resumed = list(csv.DictReader(f))
    assert resumed[:2] == rows and resumed[2]["iteration"] == "3"
    assert int(resumed[2]["env_steps"]) >= int(rows[1]["env_steps"]) + 200  # counted on, not from 0
    assert json.loads((out / "evaluation.json").read_text())["iterations"] == 3


def test_rllib_names_that_do_not_load_are_errors(tmp_path):
    env = gin_rummy_v0.env()
    with pytest.raises(ValueError, match="is not a folder"):
        make_agent(f"rllib:{tmp_path / 'missing'}", env)
    with pytest.raises(ValueError, match="holds no RLModule"):
        make_agent(f"rllib:{tmp_path}", env)
    with pytest.raises(SystemExit):
        train.main(["--backend", "rllib", "--variant", "gin_rummy", "--opponents", "heuristic"])
