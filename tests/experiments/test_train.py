"""``python -m experiments.train``: a smoke training end to end, the policy agent, bad arguments."""

import csv
import json

import numpy as np
import pytest

from agents.policy import PolicyAgent
from experiments import tournament, train
from rummy_env import gin_rummy_v0


@pytest.fixture(scope="module")
def trained(tmp_path_factory):
    out = tmp_path_factory.mktemp("train")
    code = train.main(
        [
            "--variant",
            "gin_rummy",
            "--timesteps",
            "1024",
            "--n-steps",
            "256",
            "--eval-deals",
            "3",
            "--workers",
            "1",
            "--no-progress",
            "--opponents",
            "random",
            "self",
            "--snapshot-every",
            "256",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    return out


def test_training_writes_the_model_the_curve_and_the_evaluation(trained):
    assert {p.name for p in trained.iterdir()} >= {
        "model.zip",
        "learning_curve.csv",
        "learning_curve.png",
        "evaluation.json",
    }
    summary = json.loads((trained / "evaluation.json").read_text())
    assert summary["variant"] == "gin_rummy_v0" and summary["timesteps"] >= 1024
    assert [r["opponent"] for r in summary["evaluation"]] == ["random", "heuristic"]
    for row in summary["evaluation"]:
        assert row["games"] == 6 and 0 <= row["win_rate_ci_low"] <= row["win_rate"] <= row["win_rate_ci_high"] <= 1
    with open(trained / "learning_curve.csv") as f:
        rows = list(csv.DictReader(f))
    assert rows and all(0 <= float(r["win_rate"]) <= 1 for r in rows)
    assert (trained / "learning_curve.png").read_bytes()[:4] == b"\x89PNG"


def test_policy_agent_plays_legal_moves_and_enters_the_tournament(trained, tmp_path):
    env = gin_rummy_v0.env()
    env.reset(seed=2)
    agent = PolicyAgent(trained / "model.zip")
    obs = env.observe(env.agent_selection)
    assert obs["action_mask"][agent.act(obs)] == 1
    code = tournament.main(
        [
            "--variants",
            "gin_rummy",
            "--agents",
            f"policy:{trained / 'model.zip'}",
            "random",
            "--deals",
            "2",
            "--workers",
            "1",
            "--no-progress",
            "--out",
            str(tmp_path / "t"),
        ]
    )
    assert code == 0
    rows = json.loads((tmp_path / "t" / "summary.json").read_text())["summary"]
    assert {r["agent"] for r in rows} == {f"policy:{trained / 'model.zip'}", "random"}


def test_policy_agent_refuses_other_variants_and_missing_files(trained, tmp_path):
    from agents import make_agent
    from rummy_env import rummy_v0

    with pytest.raises(ValueError, match="trained on observations of shape"):
        make_agent(f"policy:{trained / 'model.zip'}", rummy_v0.env())
    with pytest.raises(ValueError, match="does not exist"):
        PolicyAgent(tmp_path / "nothing.zip")
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"not a zip")
    with pytest.raises(ValueError, match="is not a MaskablePPO model"):
        PolicyAgent(bad)
    assert np.isfinite(json.loads((trained / "evaluation.json").read_text())["train_seconds"])


@pytest.mark.parametrize(
    "args, message",
    [
        (["--variant", "poker"], "unknown variant 'poker'"),
        (["--variant", "gin_rummy", "--opponents", "wizard"], "unknown agent 'wizard'"),
        (["--variant", "gin_rummy", "--timesteps", "0"], "--timesteps must be a positive integer"),
        (["--variant", "gin_rummy", "--minutes", "-1"], "--minutes must be positive"),
        (["--variant", "gin_rummy", "--net-arch", "64,x"], "--net-arch must be positive integers"),
        (["--variant", "gin_rummy", "--env-option", "knock_limit=-1"], "knock_limit=-1 is out of range"),
        ([], "the following arguments are required: --variant"),
    ],
)
def test_bad_arguments_exit_with_a_clear_message(args, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        train.main(args)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
