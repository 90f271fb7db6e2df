"""experiments.selfplay's command line and settings: every refusal is one clear message before
the run starts (or builds its folder), and a bool flag reads true and false only."""

import dataclasses
from pathlib import Path

import pytest

from experiments import selfplay
from experiments.common.jobs import max_workers
from tests.helpers import Fragment, unknown_agent, usage_error

#: the refusal of a --minutes neither 0 nor in (0, MAX_MINUTES], less the value given
MINUTES = "--minutes must be a number of minutes above 0 and at most 10,000,000, or 0 for no time limit, got "


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--pool-share", "0.6", "--heuristic-share", "0.5"],
            (
                "--pool-share 0.6, --heuristic-share 0.5 and --random-share 0.0 must be >= 0 and sum to "
                "at most 1 (the rest of the games are pure self-play)"
            ),
        ),
        (
            ["--league", "heuristic"],
            "league entry 'heuristic': write NAME@SHARE with a share in (0, 1], e.g. heuristic@0.2",
        ),
        (["--league", "heuristic@0.2;heuristic@0.1"], "league member 'heuristic' is given twice"),
        (["--init-model", "no/such.pt"], "init_model='no/such.pt': no such file"),
        (["--league", "policy:no/such.pt@0.2"], "league member 'policy:no/such.pt': no such file 'no/such.pt'"),
        (
            ["--teacher-agent", "pimc"],
            "teacher_agent='pimc': use heuristic, heuristic:style=NAME or policy:PATH "
            "(the agents that play the batched engine's rows)",
        ),
        (
            ["--teacher-agent", "random"],
            "teacher_agent='random': kickstarting towards uniformly random play teaches nothing; "
            "use heuristic, heuristic:style=NAME or policy:PATH",
        ),
        (["--teacher-agent", "policy:no/such.pt"], "teacher_agent='policy:no/such.pt': no such file 'no/such.pt'"),
        (
            ["--teacher-agent", "heuristic:style=defensive", "--kickstart", "0"],
            "teacher_agent='heuristic:style=defensive' would teach no decision (kickstart=0.0, "
            "kickstart_anneal=0.4, kickstart_share=0.5): set all three > 0, or leave teacher_agent='heuristic'",
        ),
        (
            ["--teacher-agent", "heuristic:style=defensive", "--kickstart-share", "0"],
            "teacher_agent='heuristic:style=defensive' would teach no decision (kickstart=1.0, "
            "kickstart_anneal=0.4, kickstart_share=0.0): set all three > 0, or leave teacher_agent='heuristic'",
        ),
        (
            ["--teacher-agent", "heuristic:style=defensive", "--kickstart-anneal", "0"],
            "teacher_agent='heuristic:style=defensive' would teach no decision (kickstart=1.0, "
            "kickstart_anneal=0.0, kickstart_share=0.5): set all three > 0, or leave teacher_agent='heuristic'",
        ),
        (
            ["--kickstart-anneal", "0", "--kickstart-floor", "0.2"],
            "kickstart_floor=0.2 has no effect: kickstarting is off (kickstart=1.0, kickstart_anneal=0.0); "
            "set both > 0 to keep the floor after the decay, or kickstart_floor=0",
        ),
        (
            ["--kickstart", "0", "--kickstart-floor", "0.2"],
            (
                "kickstart_floor=0.2 has no effect: kickstarting is off (kickstart=0.0, "
                "kickstart_anneal=0.4); set both > 0 to keep the floor after the decay, or "
                "kickstart_floor=0"
            ),
        ),
        (
            ["--variant", "rummikub", "--critic", "privileged"],
            (
                "critic='privileged' reads the hidden cards of Gin Rummy and Rummy batches, not "
                "rummikub_v0: use critic='shared'"
            ),
        ),
        (["--hidden", "64,x"], "--hidden must be positive integers separated by commas, e.g. 256,256; got '64,x'"),
        (["--num-envs", "0"], "--num-envs must be a positive integer, got 0"),
        (["--sim-threads", "0"], "sim_threads=0: a positive integer"),
        (["--torch-threads", "0"], "torch_threads=0: a positive integer"),
        (["--eval-workers", "-2"], "eval_workers=-2: a positive integer"),
        (["--num-envs", "20000000"], "num_envs=20000000: at most 16,777,216 games in a batch"),
        (
            ["--num-envs", "8", "--num-steps", "1000000000000"],
            "num_envs=8 x num_steps=1000000000000: a rollout holds at most 2,097,152 steps (an observation each)",
        ),
        (["--eval-workers", "100000"], f"eval_workers=100000: at most {max_workers()} local processes here"),
        (["--eval-deals", "10000001"], "eval_deals=10000001: at most 10,000,000 deals (days of play on a cluster)"),
        (
            ["--final-eval-deals", "10000001"],
            "final_eval_deals=10000001: at most 10,000,000 deals (days of play on a cluster)",
        ),
        (
            ["--seed", "-1"],
            (
                "--seed must be an int from 0 to 18446744073709551615 (torch and the batched engines take "
                "64-bit seeds), got -1"
            ),
        ),
        (
            ["--seed", str(2**64)],
            (
                "--seed must be an int from 0 to 18446744073709551615 (torch and the batched engines take "
                "64-bit seeds), got 18446744073709551616"
            ),
        ),
        (["--minutes", "inf"], f"{MINUTES}inf"),
        (["--minutes", "1e8"], f"{MINUTES}100000000.0"),
        (["--minutes", "-1"], f"{MINUTES}-1.0"),
        (["--minutes", "nan"], f"{MINUTES}nan"),
        (["--snapshot-every", "-5"], "snapshot_every=-5: updates between snapshots, >= 0 (0 takes none)"),
        (["--backend", "dask"], Fragment("argument --backend: invalid choice: 'dask'")),
        (["--address", "auto"], "address='auto' is a Ray cluster's: it needs backend='ray'"),
        (["--initial-eval", "maybe"], "argument --initial-eval: 'maybe' is not a boolean: write true or false"),
        (
            ["--duplicate-baseline", "ture"],
            "argument --duplicate-baseline: 'ture' is not a boolean: write true or false",
        ),
        (["--lr", "-1"], "lr=-1.0: allowed values are in (0.0, 1.0]"),
        (["--gamma", "1.5"], "gamma=1.5: allowed values are in (0.0, 1.0]"),
        (["--ent-coef", "-0.1"], "ent_coef=-0.1: allowed values are in [0.0, inf]"),
        (
            ["--env-option", "episode=game", "--duplicate-baseline", "true"],
            (
                "duplicate_baseline replays single hands from their decks: it needs episode='hand' (with "
                "episode='game' an episode is a whole game of several deals)"
            ),
        ),
        (
            ["--env-option", "num_players=3"],
            (
                "unknown gin_rummy_v0 option(s) 'num_players': known options are knock_limit, gin_bonus, "
                "undercut_bonus, big_gin, big_gin_bonus, oklahoma, target_score, game_bonuses, max_turns, "
                "max_hands, episode, reward, render_mode"
            ),
        ),
        (
            ["--variant", "rummikub", "--duplicate-baseline", "true"],
            "duplicate_baseline replays hands with the compiled heuristic of gin_rummy_v0 and rummy_v0 only, "
            "not rummikub_v0: use duplicate_baseline=false",
        ),
        (
            ["--variant", "crazy_rummy", "--duplicate-baseline", "true"],
            "duplicate_baseline replays hands with the compiled heuristic of gin_rummy_v0 and rummy_v0 only, "
            "not crazy_rummy_v0: use duplicate_baseline=false",
        ),
    ],
)
def test_bad_arguments_are_refused_with_a_clear_message(args, message, capsys):
    with pytest.raises(SystemExit):
        selfplay.parse_args(args)
    assert usage_error(capsys.readouterr().err, message)


def test_a_teacher_agent_with_a_bad_style_is_refused_before_the_run_starts(tmp_path, capsys):
    out = tmp_path / "never"
    args = ["--variant", "crazy_rummy", "--teacher-agent", "heuristic:style=hold_wild", "--out", str(out)]
    assert selfplay.main([*args, "--minutes", "0.01", "--no-progress"]) == 2
    message = (
        "agent 'heuristic:style=hold_wild': style 'hold_wild' is not a style of the crazy_rummy_v0 "
        "heuristic: styles are default, hold_wilds, shed_high, defensive, hold_wilds_safe"
    )
    assert usage_error(capsys.readouterr().err, message)
    assert not out.exists()


def test_a_teacher_agent_with_teacher_labels_needs_games_against_random_play():
    # with labels the search teaches the learner's decisions; the teacher agent only those of the
    # games against random play
    cfg = selfplay.Config(teacher_agent="heuristic:style=defensive", teacher_labels="labels.npz")
    with pytest.raises(ValueError) as err:
        selfplay.check_config(cfg, 2)
    assert str(err.value) == (
        "teacher_agent='heuristic:style=defensive' would teach no decision (kickstart=1.0, "
        "kickstart_anneal=0.4, random_share=0.0): set all three > 0, or leave teacher_agent='heuristic'; "
        "with teacher_labels it teaches only the games against random play"
    )
    cfg.random_share = 0.2
    selfplay.check_config(cfg, 2)  # accepted
    cfg.teacher_agent, cfg.random_share, cfg.kickstart = "heuristic", 0.0, 0.0
    selfplay.check_config(cfg, 2)  # the default teacher, unused: accepted as before


def test_bool_flags_read_true_and_false_only():
    assert selfplay.parse_args(["--initial-eval", "No", "--anneal-lr", "1"])[0].initial_eval is False
    assert selfplay.parse_args(["--initial-eval", "YES"])[0].initial_eval is True


def test_an_out_path_that_is_a_file_stops_the_run_before_training(tmp_path, capsys):
    (tmp_path / "afile").write_text("")
    assert selfplay.main(["--out", str(tmp_path / "afile"), "--num-envs", "2", "--hidden", "8"]) == 2
    assert usage_error(capsys.readouterr().err, f"--out '{tmp_path}/afile' is a file, not a folder")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            ["--eval-opponents", "nosuch"],
            unknown_agent("nosuch", "gin_rummy_v0"),
        ),
        (
            ["--league", "nosuch@0.1"],
            unknown_agent("nosuch", "gin_rummy_v0"),
        ),
        (
            ["--league", "heuristic:style=nosuch@0.1"],
            "agent 'heuristic:style=nosuch': style 'nosuch' is not a style of the gin_rummy_v0 heuristic: "
            "styles are default, gin_hunter, defensive, upcard_meld_only",
        ),
    ],
)
def test_names_used_after_the_first_update_stop_the_run_before_it_and_its_folder(args, message, tmp_path, capsys):
    out = tmp_path / "run"
    assert selfplay.main(["--out", str(out), "--num-envs", "2", "--hidden", "8", *args]) == 2
    assert usage_error(capsys.readouterr().err, message)
    assert not out.exists()


def test_the_ray_backend_without_ray_is_refused_before_training(monkeypatch, capsys):
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "ray" else real(name, *a))
    with pytest.raises(SystemExit):
        selfplay.parse_args(["--backend", "ray"])
    assert usage_error(capsys.readouterr().err, "backend='ray' needs Ray: pip install -e \".[distributed]\"")


def test_resume_from_a_file_that_is_not_a_checkpoint_is_one_line(tmp_path, capsys):
    """A damaged checkpoint.pt, or another file copied in as one, is an error naming the
    file and what is wrong (exit 2), not a traceback from torch or a KeyError."""
    from experiments.selfplay.run import main

    junk, model = tmp_path / "junk", tmp_path / "model"
    junk.mkdir()
    model.mkdir()
    (junk / "checkpoint.pt").write_text("not a checkpoint\n")
    (model / "checkpoint.pt").write_bytes(
        (Path(__file__).parents[2] / "docs/results/selfplay-gin/model.pt").read_bytes()
    )
    assert main(["--out", str(junk), "--resume"]) == 2
    assert (
        f"error: --resume: {junk / 'checkpoint.pt'} cannot be read as a checkpoint (UnpicklingError"
        in capsys.readouterr().err
    )
    assert main(["--out", str(model), "--resume"]) == 2
    said = capsys.readouterr().err
    message = (
        f"--resume: {model / 'checkpoint.pt'} is not a checkpoint of experiments.selfplay (it lacks net, optimizer, "
        "counters): only the checkpoint.pt a run writes resumes it"
    )
    assert usage_error(said, message)


def test_resume_never_runs_code_a_checkpoint_holds(tmp_path, capsys):
    """checkpoint.pt is read with torch.load(weights_only=True): a pickled object is
    refused, not unpickled (which would run its code)."""
    import torch

    from experiments.selfplay.run import main
    from tests.helpers import TouchWhenUnpickled

    marker = tmp_path / "ran"
    out = tmp_path / "run"
    out.mkdir()
    planted = {"config": {}, "net": {}, "optimizer": {}, "counters": TouchWhenUnpickled(marker)}
    torch.save(planted, out / "checkpoint.pt")
    assert main(["--out", str(out), "--resume"]) == 2
    said = capsys.readouterr().err
    assert f"error: --resume: {out / 'checkpoint.pt'} cannot be read as a checkpoint (UnpicklingError: " in said
    assert "Weights only load failed" in said
    assert not marker.exists()
    torch.load(out / "checkpoint.pt", weights_only=False)  # what the job did before: the code ran
    assert marker.exists()


def test_a_setting_given_by_an_abbreviated_flag_is_given_for_resume(tmp_path):
    """``--resume --time 5000`` parsed 5000 into the timesteps but did not count them as given
    (the flags were matched by their full names), so the resumed run kept the checkpoint's
    limit and dropped the one given without a word."""
    _, _, resume, _, given = selfplay.parse_args(
        ["--out", str(tmp_path), "--resume", "--time", "5000", "--minu=3", "--env-opt", "knock_limit=5"]
    )
    assert resume and given == {"timesteps", "minutes", "env_options"}


def test_minutes_0_is_no_time_limit_and_drops_a_resumed_runs(tmp_path):
    """As ``experiments.train --minutes 0`` (which ``--algo selfplay`` hands over): it was
    refused, so a run started with --minutes kept that limit over every --resume."""
    from experiments.selfplay.checkpoint import resumed_config

    cfg, _, _, _, given = selfplay.parse_args(["--minutes", "0", "--out", str(tmp_path)])
    assert (cfg.minutes, cfg.timesteps, "minutes" in given) == (None, 50_000_000, True)
    saved = dataclasses.asdict(selfplay.Config(num_envs=4, hidden=(8,), minutes=0.5, timesteps=9000, seed=3))
    cfg, _, resume, _, given = selfplay.parse_args(["--out", str(tmp_path), "--resume", "--minu", "0"])
    assert resume and (resumed_config(saved, cfg, given).minutes, resumed_config(saved, cfg, given).timesteps) == (
        None,
        9000,
    )


def test_the_league_and_teacher_agents_are_built_after_the_seeding(monkeypatch):
    # a policy agent's network draws its initial weights from torch's generator, and the
    # learner's own weights come after: built before the seeding, they changed the run's start
    import torch

    from experiments.selfplay import learner

    seeds = []
    monkeypatch.setattr(learner, "check_agent_names", lambda config, env: seeds.append(torch.initial_seed()))
    torch.manual_seed(0)
    learner.Learner(selfplay.Config(variant="gin_rummy_v0", seed=12345, num_envs=8, num_steps=8))
    assert seeds == [12345]


@pytest.mark.parametrize("seed", [-1, 2**64])
def test_a_config_seed_out_of_range_is_refused_as_the_jobs_refuse_a_seed(seed):
    # a Config built in code names the setting (seed), the command line its flag (--seed)
    with pytest.raises(ValueError) as err:
        selfplay.check_config(selfplay.Config(seed=seed), 2)
    assert str(err.value) == (
        f"seed must be an int from 0 to {2**64 - 1} (torch and the batched engines take 64-bit seeds), got {seed}"
    )
