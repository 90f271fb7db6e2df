"""``python -m experiments.train``: a smoke training end to end, the policy agent, bad arguments."""

import csv
import json
import re

import numpy as np
import pytest

from agents.policy import PolicyAgent
from experiments import tournament, train
from experiments.train import sb3
from rummy_env import gin_rummy_v0
from tests.helpers import Fragment, usage_error, whole


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
    assert (summary["variant"], summary["timesteps"], summary["episodes"]) == ("gin_rummy_v0", 1024, 20)
    # the seeded run (one torch thread, set by the trainer): the barely trained policy wins none
    # of its 6 games against either, and draws the 6 against random
    evaluation = [(r["opponent"], r["games"], r["wins"], r["draws"]) for r in summary["evaluation"]]
    assert evaluation == [("random", 6, 0.0, 6), ("heuristic", 6, 0.0, 0)]
    for row in summary["evaluation"]:  # Wilson interval of 0 wins in 6
        assert [row["win_rate"], row["win_rate_ci_low"], row["win_rate_ci_high"]] == pytest.approx(
            [0.0, 0.0, 0.5614970356393196], rel=1e-6
        )
    with open(trained / "learning_curve.csv") as f:
        rows = list(csv.DictReader(f))
    # one row per finished training episode: where it ended, no win in the window, 19 of the 20 drawn
    ends = [50, 102, 154, 214, 270, 334, 393, 427, 479, 536, 584, 631, 679, 719, 767, 825, 873, 921, 972, 1019]
    assert [(int(r["timestep"]), int(r["episodes"])) for r in rows] == [(t, i + 1) for i, t in enumerate(ends)]
    assert all(float(r["win_rate"]) == 0.0 for r in rows)
    assert [round(float(r["draw_rate"]) * int(r["episodes"])) for r in rows] == [*range(1, 8), *range(7, 20)]
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

    said = (
        f"policy 'policy:{trained / 'model.zip'}' was trained on observations of shape (485,), this env's are (324,) "
        "(rummy_v0, 2 players): a model plays the variant and number of players it was trained on"
    )
    with pytest.raises(ValueError, match=whole(said)):
        make_agent(f"policy:{trained / 'model.zip'}", rummy_v0.env())
    said = (
        f"policy file '{tmp_path / 'nothing.zip'}' does not exist: pass the model.zip that experiments.train wrote "
        "or the model.pt of experiments.selfplay"
    )
    with pytest.raises(ValueError, match=whole(said)):
        PolicyAgent(tmp_path / "nothing.zip")
    bad = tmp_path / "bad.zip"
    bad.write_bytes(b"not a zip")
    # inside the brackets: the zip reader's own words, left free
    said = re.escape(f"policy file '{bad}' is not a MaskablePPO model ({bad}: not an SB3 model.zip (")
    tail = re.escape(")); a file not ending in .pt is read as the model.zip of experiments.train")
    with pytest.raises(ValueError, match=f"^{said}.+{tail}$"):
        PolicyAgent(bad)
    assert np.isfinite(json.loads((trained / "evaluation.json").read_text())["train_seconds"])


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--variant", "poker"],
            "unknown variant 'poker': known variants are rummy_v0, crazy_rummy_v0, gin_rummy_v0, rummikub_v0",
        ),
        (
            ["--variant", "gin_rummy", "--opponents", "wizard"],
            (
                "unknown agent 'wizard' for gin_rummy_v0: known agents are random, heuristic, champion, "
                "heuristic:style=NAME (gin_hunter, defensive, upcard_meld_only), openspiel_gin_bot, "
                "ismcts:... or pimc:... with search options, policy:PATH of a trained model, rllib:PATH "
                "of an RLlib checkpoint, or package.module:Name of your own Agent class; as an opponent "
                "also 'self' (a frozen copy of the learner)"
            ),
        ),
        (["--variant", "gin_rummy", "--timesteps", "0"], "--timesteps must be a positive integer, got 0"),
        (
            ["--variant", "gin_rummy", "--iterations", "5", "--num-cpus", "2"],
            "--iterations, --num-cpus: the rllib backend's settings; add --backend rllib or drop them",
        ),
        (
            ["--variant", "rummy", "--opponents", "random", "heuristic"],
            (
                "2 opponents given for 1 other seat(s) of rummy_v0: give at most 1 (a shorter list is "
                "repeated over the seats; --env-option num_players=N for more seats)"
            ),
        ),
        (
            ["--variant", "gin_rummy", "--minutes", "-1"],
            "--minutes must be a positive finite number, or 0 for no time limit, got -1.0",
        ),
        (
            ["--variant", "gin_rummy", "--minutes", "inf"],
            "--minutes must be a positive finite number, or 0 for no time limit, got inf",
        ),
        (
            ["--variant", "gin_rummy", "--n-steps", "1"],
            "--n-steps must be at least 2 (PPO normalises the advantages over a rollout), got 1",
        ),
        (
            ["--variant", "gin_rummy", "--n-steps", "1000000000000"],
            "--n-steps must be at most 2,097,152 (a rollout keeps an observation per step), got 1000000000000",
        ),
        (
            ["--variant", "gin_rummy", "--eval-deals", "10000001"],
            "argument --eval-deals: at most 10,000,000 deals (days of play on a cluster), got 10,000,001",
        ),
        (["--variant", "gin_rummy", "--out", ""], "argument --out: an empty path: give a file or folder name"),
        (  # numpy.random.seed's traceback came after the results folder was made
            ["--variant", "gin_rummy", "--seed", str(2**32)],
            (
                "--seed must be an int from 0 to 4294967295 (the trainers seed NumPy's legacy 32-bit "
                "generator), got 4294967296"
            ),
        ),
        (
            ["--variant", "gin_rummy", "--net-arch", "64,x"],
            "--net-arch must be positive integers separated by commas, e.g. 64,64; got '64,x'",
        ),
        (
            ["--variant", "gin_rummy", "--env-option", "knock_limit=-1"],
            "option knock_limit=-1 is out of range: knock_limit must be an int from 0 to 1000000000",
        ),
        ([], Fragment("the following arguments are required: --variant")),  # argparse's words
    ],
)
def test_bad_arguments_exit_with_a_clear_message(args, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        train.main(args)
    assert exit_info.value.code == 2
    assert usage_error(capsys.readouterr().err, message)


def test_the_report_says_which_win_rate_is_which_and_prints_the_draws():
    summary = {
        "variant": "gin_rummy_v0",
        "timesteps": 2048,
        "episodes": 40,
        "train_seconds": 12.5,
        "opponents": ["random", "self"],
        "final_training_win_rate": 0.19,
        "final_training_draw_rate": 0.4,
        "evaluation": [
            {
                "opponent": "random",
                "games": 400,
                "draws": 154,
                "win_rate": 0.6025,
                "win_rate_ci_low": 0.55,
                "win_rate_ci_high": 0.65,
            },
        ],
    }
    assert train.format_summary(summary).splitlines() == [
        "gin_rummy_v0: 2048 steps, 40 episodes in 12.5 s",
        "  training (sampling policy vs random + self, last 100 episodes): win rate 0.190, draw rate 0.400",
        "  evaluation (deterministic policy, duplicate deals, every seat):",
        "    vs random     win rate 0.603 [0.550, 0.650], 154 draws in 400 games",
    ]
    stopped = {**summary, "evaluation": [], "stopped_early": True}
    assert train.format_summary(stopped).splitlines()[-1] == "  evaluation: skipped (the run was stopped)"


def test_the_curve_has_draw_rates(trained):
    with open(trained / "learning_curve.csv") as f:
        rows = list(csv.DictReader(f))
    assert list(rows[0]) == ["timestep", "episodes", "win_rate", "draw_rate", "mean_return"]
    assert sb3.curve_rows([(10, 1.0), (20, 0.0), (30, -1.0), (40, 0.0)], window=4, points=1) == [
        {"timestep": 40, "episodes": 4, "win_rate": 0.25, "draw_rate": 0.5, "mean_return": 0.0}
    ]


def test_the_legend_of_the_curve_is_below_the_axes():
    rows = [{"timestep": 100 * i, "win_rate": 0.5, "draw_rate": 0.2} for i in range(1, 5)]
    fig = sb3.curve_figure(rows, "gin_rummy_v0 vs random")
    fig.canvas.draw()
    ax = fig.axes[0]
    legend = ax.get_legend().get_window_extent()
    assert legend.y1 < ax.get_window_extent().y0  # entirely below the plotting area
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["win rate", "draw rate"]


def test_a_rate_of_0_or_1_is_drawn_inside_the_frame_of_the_curve():
    # a tiny run against random play has a draw rate of 1 throughout: on a frame at y=1 it was not seen
    rows = [{"timestep": 100 * i, "win_rate": 0.0, "draw_rate": 1.0} for i in range(1, 5)]
    ax = sb3.curve_figure(rows, "gin_rummy_v0 vs random").axes[0]
    assert ax.get_ylim() == (-0.03, 1.03)


def test_minutes_alone_train_for_the_minutes_and_timesteps_still_cap_them():
    from experiments.train.cli import parse_args

    assert parse_args(["--variant", "gin_rummy"]).timesteps == 300_000
    assert parse_args(["--variant", "gin_rummy", "--minutes", "30"]).timesteps == 10**12  # the minutes end it
    assert parse_args(["--variant", "gin_rummy", "--minutes", "30", "--timesteps", "5000"]).timesteps == 5000


def test_a_stop_during_the_evaluation_ends_it_and_the_run_says_stopped(tmp_path, monkeypatch):
    class Stop:
        requested = False

    stop, seen = Stop(), []

    def interrupted_evaluation(agent, variant, env_options, deals, workers, seed, stop=None, progress=False):
        seen.append((stop, progress))
        stop.requested = True  # Ctrl-C while the deals are played: they end after the current one
        return [{"opponent": "random", "games": 2, "wins": 2}]

    monkeypatch.setattr(tournament, "evaluate_against_baselines", interrupted_evaluation)
    summary = sb3.train(
        "gin_rummy_v0", {}, ["self"], 512, 0, tmp_path, n_steps=256, eval_deals=50, workers=1, progress=True, stop=stop
    )
    assert seen == [(stop, True)]  # the job's stop request and progress setting reach the evaluation
    assert summary["stopped_early"] is True and summary["evaluation"] == []
    assert json.loads((tmp_path / "evaluation.json").read_text())["stopped_early"] is True


def test_no_evaluation_deals_make_no_evaluation(tmp_path, monkeypatch):
    """``train(eval_deals=0)`` skips the evaluation (the tournament's functions refuse 0
    deals), and ``--eval-deals 0`` asks for it with either backend."""
    from experiments.train.cli import parse_args

    for backend in ("sb3", "rllib"):
        assert parse_args(["--variant", "gin_rummy", "--backend", backend, "--eval-deals", "0"]).eval_deals == 0
    played = []
    monkeypatch.setattr(tournament, "evaluate_against_baselines", lambda *a, **k: played.append(a) or [])
    summary = sb3.train(
        "gin_rummy_v0", {}, ["self"], 256, 0, tmp_path, n_steps=256, eval_deals=0, workers=1, progress=False
    )
    assert played == [] and summary["evaluation"] == [] and summary["stopped_early"] is False
