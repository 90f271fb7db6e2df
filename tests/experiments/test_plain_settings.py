"""Settings given as NumPy values through the Python API (``np.int64(10)`` from a sweep's grid)
are recorded as plain Python values, so ``model.pt``, ``checkpoint.pt`` (both read with
``torch.load(weights_only=True)``), ``recipe.toml`` and ``evaluation.json`` read back."""

import json
import re

import numpy as np
import pytest
import torch

from experiments import selfplay
from experiments.common.plain import plain_value
from experiments.selfplay.checkpoint import load_checkpoint
from experiments.selfplay.config import load_recipe, write_recipe


def test_numpy_values_become_python_values_and_other_objects_are_refused():
    value = {"a": np.int64(10), "b": (np.float64(0.5), np.bool_(True)), "c": np.array([1, 2]), np.str_("d"): None}
    plain = plain_value(value, "env_options")
    assert plain == {"a": 10, "b": (0.5, True), "c": [1, 2], "d": None}
    assert [type(v) for v in (plain["a"], *plain["b"], *plain["c"])] == [int, float, bool, int, int]
    assert type(next(reversed(plain))) is str
    with pytest.raises(ValueError) as err:
        plain_value({"knock_limit": [1, object]}, "env_options")
    assert str(err.value) == (
        "env_options['knock_limit'][1]=<class 'object'> is of type type: a setting is recorded in the run's files, "
        "so it must be a bool, int, float, str or None (or a list, tuple or dict of them; NumPy scalars and arrays are "
        "converted)"
    )


def test_a_selfplay_run_with_numpy_settings_writes_files_that_load(tmp_path):
    from agents.torch_policy import load_model

    cfg = selfplay.Config(
        num_envs=4, hidden=(8,), env_options={"knock_limit": np.int64(9)}, seed=np.int64(3), lr=np.float64(1e-3)
    )
    learner = selfplay.Learner(cfg)
    assert cfg.env_options == {"knock_limit": 9} and type(cfg.env_options["knock_limit"]) is int
    assert (type(cfg.seed), type(cfg.lr)) == (int, float)
    model = load_model(learner.save_model(tmp_path / "model.pt"))
    assert model.extra["env_options"] == {"knock_limit": 9} and model.extra["env_config"]["knock_limit"] == 9
    torch.save(learner.state(), tmp_path / "checkpoint.pt")
    assert load_checkpoint(tmp_path)["config"]["lr"] == 0.001
    recipe = load_recipe(str(write_recipe(cfg, tmp_path / "recipe.toml")))
    assert (recipe["seed"], recipe["lr"], recipe["env_options"]) == (3, 0.001, {"knock_limit": 9})


def test_a_selfplay_setting_of_another_kind_is_refused_before_anything_changes():
    cfg = selfplay.Config(num_envs=4, hidden=(8,), env_options={"knock_limit": np.int64(9)}, init_model=object())
    said = re.escape(
        " is of type object: a setting is recorded in the run's files, so it must be a bool, int, float, str or None "
        "(or a list, tuple or dict of them; NumPy scalars and arrays are converted)"
    )
    with pytest.raises(ValueError, match=rf"^init_model=<object object at 0x[0-9a-f]+>{said}$"):
        selfplay.Learner(cfg)
    assert type(cfg.env_options["knock_limit"]) is np.int64  # left as given


def test_an_sb3_run_with_numpy_settings_writes_its_evaluation(tmp_path):
    from experiments.train import sb3

    summary = sb3.train(
        "gin_rummy_v0", {"knock_limit": np.int64(9)}, ["random"], 256, np.int64(2), tmp_path,
        n_steps=256, eval_deals=0, workers=1, progress=False, net_arch=np.array([8]),
    )  # fmt: skip
    written = json.loads((tmp_path / "evaluation.json").read_text())
    assert (written["env_options"], written["seed"], written["net_arch"]) == ({"knock_limit": 9}, 2, [8])
    assert summary["env_options"] == {"knock_limit": 9}
