"""A ``policy:`` ``model.zip`` is read without unpickling any of it (``agents.sb3_model``):
the pickled entries SB3 writes are replaced, never run, and a file whose network settings
are pickled is refused.  The committed model plays exactly as SB3's own loader makes it."""

import base64
import json
import pickle
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch
from sb3_contrib import MaskablePPO

from agents import make_agent
from agents.sb3_model import load_maskable_ppo, safe_objects
from rummy_env import gin_rummy_v0
from tests.helpers import TouchWhenUnpickled

GIN_ZIP = Path(__file__).resolve().parents[2] / "docs" / "results" / "sb3-gin" / "model.zip"


def rewritten(path: Path, change) -> Path:
    """A copy of the committed model.zip whose ``data`` went through ``change``."""
    with zipfile.ZipFile(GIN_ZIP) as src, zipfile.ZipFile(path, "w") as dst:
        for item in src.infolist():
            raw = src.read(item)
            if item.filename == "data":
                data = json.loads(raw)
                change(data)
                raw = json.dumps(data).encode()
            dst.writestr(item, raw)
    return path


def payload(marker: Path) -> str:
    return base64.b64encode(pickle.dumps(TouchWhenUnpickled(marker))).decode()


def test_pickled_entries_are_replaced_and_never_run(tmp_path):
    marker = tmp_path / "ran"

    def plant(data):
        for key in ("policy_class", "_last_obs", "observation_space", "action_space", "lr_schedule"):
            data[key][":serialized:"] = payload(marker)

    path = rewritten(tmp_path / "planted.zip", plant)
    model = load_maskable_ppo(path)
    assert not marker.exists()
    assert model.observation_space.shape == (485,) and model.action_space.n == 108
    assert model._last_obs is None
    # SB3's own loader runs the planted code (then fails on the spaces it returned): the
    # assertion above could fail
    with pytest.raises(ValueError, match="The space is of type <class 'NoneType'>"):
        MaskablePPO.load(path, device="cpu")
    assert marker.exists()


def test_the_committed_model_plays_as_sb3_loads_it():
    ours = make_agent(f"policy:{GIN_ZIP}", gin_rummy_v0.env())
    theirs = MaskablePPO.load(GIN_ZIP, device="cpu")
    mine, sb3 = ours.model.policy.state_dict(), theirs.policy.state_dict()
    assert list(mine) == list(sb3) and all(torch.equal(mine[k], sb3[k]) for k in mine)
    env = gin_rummy_v0.env()
    env.reset(seed=3)
    obs = env.observe(env.agent_selection)
    expected = theirs.predict(obs["observation"], action_masks=obs["action_mask"].astype(bool), deterministic=True)
    assert ours.act(obs) == int(expected[0]) == 105


def test_safe_objects_of_the_committed_model():
    with zipfile.ZipFile(GIN_ZIP) as archive:
        data = json.loads(archive.read("data"))
    objects = safe_objects(data, GIN_ZIP)
    assert sorted(objects) == [
        "_last_episode_starts",
        "_last_obs",
        "action_space",
        "clip_range",
        "ep_info_buffer",
        "ep_success_buffer",
        "lr_schedule",
        "observation_space",
        "policy_class",
        "rollout_buffer_class",
    ]
    assert objects["policy_class"].__name__ == "MaskableActorCriticPolicy"
    assert (objects["clip_range"], objects["lr_schedule"], objects["_last_obs"]) == (0.0, 0.0, None)
    box = objects["observation_space"]
    assert (box.shape, box.dtype, objects["action_space"].n) == ((485,), np.float32, 108)


@pytest.mark.parametrize(
    "change, message",
    [
        (
            lambda d: d.update(
                policy_kwargs={":type:": "<class 'dict'>", ":serialized:": "AAAA", "activation_fn": "x"}
            ),
            "its policy_kwargs are pickled (settings activation_fn: one names a class, an activation for example); "
            "only plain settings such as net_arch are read without running the file's code",
        ),
        (
            lambda d: d["policy_class"].update(__module__="evil.module"),
            "its policy class is evil.module.MaskableActorCriticPolicy, not sb3-contrib's MaskableActorCriticPolicy; "
            "only the MlpPolicy of experiments.train is read",
        ),
        (
            lambda d: d["observation_space"].update({":type:": "<class 'gymnasium.spaces.dict.Dict'>"}),
            "observation_space is a <class 'gymnasium.spaces.dict.Dict'>; a policy of ours has a gymnasium Box and a "
            "gymnasium Discrete",
        ),
        (
            lambda d: d["observation_space"].update(dtype="uint8"),
            "observation_space is a Box of dtype 'uint8'; a policy of ours reads float32 or float64",
        ),
        (lambda d: d["observation_space"].pop("_shape"), "observation_space has no readable shape (_shape)"),
        (lambda d: d["action_space"].update(n="many"), "action_space has no readable action count (n)"),
        (
            lambda d: d["action_space"].update(start="1"),
            "action_space is Discrete(n=108, start=1); a policy of ours has n >= 1, start 0",
        ),
    ],
)
def test_files_that_cannot_be_read_safely_are_refused(tmp_path, change, message):
    marker = tmp_path / "ran"
    path = rewritten(
        tmp_path / "m.zip", lambda d: (change(d), d["_last_obs"].update({":serialized:": payload(marker)}))
    )
    with pytest.raises(ValueError) as err:
        make_agent(f"policy:{path}", gin_rummy_v0.env())
    assert str(err.value) == (
        f"policy file {str(path)!r} is not a MaskablePPO model ({path}: {message}); "
        "a file not ending in .pt is read as the model.zip of experiments.train"
    )
    assert not marker.exists()


def test_a_zip_without_data_is_refused(tmp_path):
    path = tmp_path / "empty.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("policy.pth", b"")
    with pytest.raises(ValueError) as err:
        load_maskable_ppo(path)
    assert (
        str(err.value) == f"{path}: not an SB3 model.zip (KeyError: \"There is no item named 'data' in the archive\")"
    )


def test_a_policy_of_another_class_is_named(tmp_path):
    def multi_input(d):
        d["policy_class"]["__init__"] = "<function MaskableMultiInputActorCriticPolicy.__init__ at 0x7f>"

    with pytest.raises(ValueError) as err:
        load_maskable_ppo(rewritten(tmp_path / "m.zip", multi_input))
    assert str(err.value) == (
        f"{tmp_path / 'm.zip'}: its policy class is sb3_contrib.common.maskable.policies."
        "MaskableMultiInputActorCriticPolicy, not sb3-contrib's MaskableActorCriticPolicy; only the MlpPolicy of "
        "experiments.train is read"
    )


def test_a_model_trained_with_a_value_clip_range_loads(tmp_path):
    """SB3 asserts that a number given for clip_range_vf is above 0: it is switched off."""
    path = rewritten(tmp_path / "vf.zip", lambda d: d.update(clip_range_vf=dict(d["clip_range"])))
    model = load_maskable_ppo(path)
    assert model.clip_range_vf is None and model.action_space.n == 108


def test_a_weight_file_holding_objects_is_refused_without_running_them(tmp_path):
    """SB3 2.8+ reads the .pth entries with torch.load(weights_only=True)."""
    import io

    marker = tmp_path / "ran"
    planted = io.BytesIO()
    torch.save({"mlp_extractor.policy_net.0.weight": TouchWhenUnpickled(marker)}, planted)
    path = tmp_path / "pth.zip"
    with zipfile.ZipFile(GIN_ZIP) as src, zipfile.ZipFile(path, "w") as dst:
        for item in src.infolist():
            dst.writestr(item, planted.getvalue() if item.filename == "policy.pth" else src.read(item))
    with pytest.raises(ValueError) as err:
        make_agent(f"policy:{path}", gin_rummy_v0.env())
    assert not marker.exists()
    said = str(err.value)  # ours around torch's words, which name the global its unpickler refused
    assert said.startswith(f"policy file {str(path)!r} is not a MaskablePPO model (Weights only load failed. ")
    assert "WeightsUnpickler error: Unsupported global: " in said
    assert said.endswith("); a file not ending in .pt is read as the model.zip of experiments.train")


def test_an_sb3_that_unpickles_tensors_is_refused(monkeypatch):
    import stable_baselines3

    monkeypatch.setattr(stable_baselines3, "__version__", "2.7.1")
    with pytest.raises(ValueError) as err:
        load_maskable_ppo(GIN_ZIP)
    assert str(err.value) == (
        f"{GIN_ZIP}: stable-baselines3 2.7.1 reads a model.zip's tensors by unpickling them; 2.8 or later reads "
        'them as tensors only: pip install -e ".[train]"'
    )
