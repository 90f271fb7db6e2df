"""``experiments.train --resume`` refusals found in review: a damaged ``settings.json`` or
``episodes.csv`` and a model of other settings are refused naming the file before anything
is written; ``--algo`` abbreviated still hands over to self-play; an rllib session that
fails while saving keeps the earlier checkpoint; the rllib closing line names an
evaluation only when one was made."""

import json
import shutil
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from experiments.train import cli, resume
from tests.experiments.test_train_resume import CountingAlgo, contents, rllib_folder, sb3_folder

RUN = ["--variant", "gin_rummy", "--timesteps", "128", "--n-steps", "64", "--eval-deals", "0", "--no-progress"]


def refused(argv, capsys, folder):
    """The usage error of ``cli.main(argv)`` (after ``error: ``), checking that ``folder`` is unchanged."""
    before = contents(folder)
    with pytest.raises(SystemExit) as exit_info:
        cli.main(argv)
    assert exit_info.value.code == 2 and contents(folder) == before
    return capsys.readouterr().err.splitlines()[-1].split("error: ", 1)[1]


def test_an_abbreviated_algo_selfplay_hands_over_to_selfplay(monkeypatch):
    from experiments import selfplay

    handed = []
    monkeypatch.setattr(selfplay, "main", lambda argv: handed.append(argv) or 0)
    monkeypatch.setattr(cli, "train", lambda *a, **k: pytest.fail("trained PPO for --alg selfplay"))
    assert cli.main(["--alg", "selfplay", "--variant", "gin_rummy"]) == 0
    assert cli.main(["--variant", "gin_rummy", "--al=selfplay"]) == 0
    assert handed == [["--variant", "gin_rummy"], ["--variant", "gin_rummy"]]


@pytest.mark.parametrize(
    "change, allowed",
    [
        ({"backend": []}, "sb3 or rllib"),
        ({"net_arch": ["a"]}, "a list of positive integers"),
        ({"net_arch": []}, "a list of positive integers"),
        ({"opponents": [1, 2]}, "a list of opponent names"),
        ({"opponents": []}, "a list of opponent names"),
        ({"env_options": {"knock_limit": [5]}}, "env options: names with true, false, integer or text values"),
        ({"variant": ""}, "a variant's name"),
        ({"n_steps": 0}, "an integer from 2 to 2,097,152"),
        ({"timesteps": -5}, "a positive integer"),
        ({"eval_deals": -3}, "an integer >= 0"),
        ({"seed": "0"}, "an integer from 0 to 4294967295"),
        ({"seed": True}, "an integer from 0 to 4294967295"),
        # not blamed on --seed, which the command line did not give
        ({"seed": 2**32}, "an integer from 0 to 4294967295"),
        ({"minutes": -1}, "null or a positive number"),
        ({"minutes": float("nan")}, "null or a positive number"),
    ],
)
def test_a_damaged_settings_value_is_refused_naming_the_file(change, allowed, tmp_path, capsys):
    out = sb3_folder(tmp_path, **change)
    (name, value), path = next(iter(change.items())), out / "settings.json"
    assert refused(["--resume", "--out", str(out)], capsys, tmp_path) == (
        f"--resume: {path} has {name}={value!r}, not a value a run writes ({allowed})"
    )


def test_a_damaged_episode_log_is_refused_before_the_training(tmp_path, capsys):
    out = tmp_path / "run"
    assert cli.main([*RUN, "--out", str(out)]) == 0
    line = len((out / "episodes.csv").read_text().splitlines()) + 1
    with open(out / "episodes.csv", "a") as f:
        f.write("100,zz\n")  # within the model's 128 timesteps
    assert refused(["--resume", "--out", str(out), "--timesteps", "256"], capsys, tmp_path) == (
        f"--resume: {out / 'episodes.csv'} line {line} is not a row a run writes (timestep='100', return='zz'): "
        "mend it, or remove it to resume without the earlier rows"
    )


def test_a_model_of_other_settings_is_refused(tmp_path, capsys):
    other, out = tmp_path / "other", tmp_path / "run"
    assert cli.main([*RUN, "--net-arch", "32", "--out", str(other)]) == 0
    assert cli.main([*RUN, "--out", str(out)]) == 0
    (out / "model.zip").write_bytes((other / "model.zip").read_bytes())
    assert refused(["--resume", "--out", str(out)], capsys, tmp_path) == (
        f"--resume: {out / 'model.zip'} is a model of --net-arch 32 --n-steps 64, not of the run's "
        f"{out / 'settings.json'} (--net-arch 64,64 --n-steps 64): only the model.zip a run writes resumes it"
    )


def test_an_rllib_flag_on_an_sb3_run_is_refused_with_the_runs_backend(tmp_path, capsys):
    out = sb3_folder(tmp_path)
    assert refused(["--resume", "--out", str(out), "--epochs", "3"], capsys, tmp_path) == (
        "--epochs: the rllib backend's settings; the run is --backend sb3: drop them"
    )


class FailingSave(CountingAlgo):
    """An algorithm whose save fails half-way (a disk full, or a second Ctrl-C)."""

    def save_to_path(self, path):
        Path(path).mkdir(exist_ok=True)
        (Path(path) / "iteration").write_text(str(self.iteration))
        raise OSError("No space left on device")


def test_an_rllib_save_that_fails_keeps_the_earlier_checkpoint(tmp_path, monkeypatch):
    from experiments.train import rllib
    from tests.experiments.fake_ray import LocalRay

    calls = []
    algos = iter([CountingAlgo(calls), FailingSave(calls)])
    monkeypatch.setattr(rllib, "ppo_config", lambda *args: SimpleNamespace(build_algo=lambda: next(algos)))
    monkeypatch.setitem(sys.modules, "ray", LocalRay(alive_after_stop=True))
    (tmp_path / "checkpoint").mkdir()
    (tmp_path / "checkpoint" / "stale").write_text("an older run's")
    settings = {"backend": "rllib", "iterations": 2}
    rllib.train("gin_rummy_v0", {}, 2, 0, tmp_path, eval_deals=0, settings=settings)
    assert sorted(p.name for p in (tmp_path / "checkpoint").iterdir()) == ["iteration"]  # the new run's only
    before = contents(tmp_path)
    with pytest.raises(OSError):
        rllib.train("gin_rummy_v0", {}, 4, 0, tmp_path, eval_deals=0, resume=True, settings=settings)
    kept = contents(tmp_path)
    assert kept[Path("checkpoint/iteration")] == b"2" and kept[Path("settings.json")] == before[Path("settings.json")]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "checkpoint",
        "evaluation.json",
        "progress.csv",
        "settings.json",
    ]
    assert json.loads((tmp_path / "settings.json").read_text())["iterations"] == 2


def test_a_damaged_progress_log_is_refused_before_the_training(tmp_path, monkeypatch):
    from experiments.train import rllib
    from tests.experiments.fake_ray import LocalRay

    calls = []
    monkeypatch.setattr(rllib, "ppo_config", lambda *args: SimpleNamespace(build_algo=lambda: CountingAlgo(calls)))
    monkeypatch.setitem(sys.modules, "ray", LocalRay(alive_after_stop=True))
    rllib.train("gin_rummy_v0", {}, 2, 0, tmp_path, eval_deals=0)
    with open(tmp_path / "progress.csv", "a") as f:
        f.write("2,6,400\n")  # a row cut short, within the checkpoint's 2 iterations
    before, calls[:] = contents(tmp_path), []
    with pytest.raises(resume.ResumeError) as err:
        rllib.train("gin_rummy_v0", {}, 4, 0, tmp_path, eval_deals=0, resume=True)
    assert str(err.value) == (
        f"--resume: {tmp_path / 'progress.csv'} line 4 is not a row a run writes (iteration='2', episodes='6', "
        "env_steps='400', episode_len_mean=None, train_seconds=None): mend it, or remove it to resume without "
        "the earlier rows"
    )
    assert calls == [("restore_from_path", "checkpoint", 2), ("stop",)] and contents(tmp_path) == before


def test_the_sb3_limits_on_an_rllib_run_are_refused_not_ignored(tmp_path, capsys):
    new = ["--backend", "rllib", "--variant", "gin_rummy", "--out", str(tmp_path / "new")]
    assert refused([*new, "--timesteps", "1000", "--n-st", "64"], capsys, tmp_path) == (
        "--timesteps, --n-steps: the sb3 backend's settings (--backend rllib's limits are --iterations and "
        "--minutes); drop them"
    )
    out = rllib_folder(tmp_path)
    assert refused(["--resume", "--out", str(out), "--snapshot-every", "5"], capsys, tmp_path) == (
        "--snapshot-every: the sb3 backend's settings; the run is --backend rllib (its limits are --iterations "
        "and --minutes): drop them"
    )
    assert not (tmp_path / "new").exists()


def test_env_options_that_make_the_runs_games_are_not_a_change(tmp_path, capsys):
    out = sb3_folder(tmp_path, env_options={"knock_limit": 5})
    given = ["--env-opt", "knock_limit=5", "--env-option", "reward=win", "--env-option", "gin_bonus=25"]  # defaults
    args = cli.parse_args(["--resume", "--out", str(out), *given])
    assert args.env_options == {"knock_limit": 5}  # the run's, as saved
    assert refused(["--resume", "--out", str(out), "--env-option", "reward=score"], capsys, tmp_path) == (
        "--resume continues the run as it was started: --env-option reward=score (the run's: knock_limit=5); "
        "drop them or start a new run"
    )


def test_a_resumed_rllib_session_seeds_its_env_runners_on_from_the_checkpoint(tmp_path, monkeypatch):
    """RLlib seeds the env runners as the algorithm is built: with ``--seed`` alone a resumed
    session's deals would repeat the first session's."""
    import pickle

    from experiments.train import rllib
    from tests.experiments.fake_ray import LocalRay

    calls, seeds = [], []

    class RLlibAlgo(CountingAlgo):
        def save_to_path(self, path):  # the files of RLlib's own checkpoint that hold the iteration
            super().save_to_path(path)
            (Path(path) / "rllib_checkpoint.json").write_text('{"state_file": "algorithm_state"}')
            with open(Path(path) / "algorithm_state.pkl", "wb") as f:
                pickle.dump({"training_iteration": self.iteration, "metrics_logger": {}}, f)

    def ppo_config(variant, env_options, seed, *args):
        seeds.append(seed)
        return SimpleNamespace(build_algo=lambda: RLlibAlgo(calls))

    monkeypatch.setattr(rllib, "ppo_config", ppo_config)
    monkeypatch.setitem(sys.modules, "ray", LocalRay(alive_after_stop=True))
    rllib.train("gin_rummy_v0", {}, 2, 7, tmp_path, eval_deals=0)
    assert rllib.checkpoint_iteration(tmp_path / "checkpoint") == 2
    rllib.train("gin_rummy_v0", {}, 3, 7, tmp_path, eval_deals=0, resume=True)
    assert seeds == [7, 9]
    assert rllib.checkpoint_iteration(tmp_path / "nothing") == 0  # the restore says what is wrong


def killed_between_the_renames(out, newer):
    """``out`` as a save killed between its two renames leaves it: ``checkpoint/`` moved to
    ``checkpoint.old/``, the new save (of iteration ``newer``) whole in ``checkpoint.part/``."""
    (out / "checkpoint").rename(out / "checkpoint.old")
    (out / "checkpoint.part").mkdir()
    (out / "checkpoint.part" / "iteration").write_text(str(newer))


def test_an_rllib_save_killed_between_its_renames_resumes_from_the_earlier_checkpoint(tmp_path, monkeypatch):
    from experiments.train import rllib
    from tests.experiments.fake_ray import LocalRay

    calls = []
    monkeypatch.setattr(rllib, "ppo_config", lambda *args: SimpleNamespace(build_algo=lambda: CountingAlgo(calls)))
    monkeypatch.setitem(sys.modules, "ray", LocalRay(alive_after_stop=True))
    monkeypatch.setattr(rllib, "time", SimpleNamespace(perf_counter=lambda: 0.0))
    settings = {"backend": "rllib", "iterations": 2}
    rllib.train("gin_rummy_v0", {}, 2, 0, tmp_path, eval_deals=0, settings=settings)
    with open(tmp_path / "progress.csv", "a") as f:  # the killed session logged iterations 3 and 4 first
        f.write("3,9,600,70.5,0.0\n4,12,800,70.5,0.0\n")
    killed_between_the_renames(tmp_path, 4)
    assert resume.resumed_checkpoint(tmp_path, "rllib") == tmp_path / "checkpoint.old"
    # a resume refused by its checks leaves the folder as it was, checkpoint.old/ included
    with open(tmp_path / "progress.csv", "a") as f:
        f.write("1,zz\n")
    before = contents(tmp_path)
    with pytest.raises(resume.ResumeError) as err:
        rllib.train("gin_rummy_v0", {}, 3, 0, tmp_path, eval_deals=0, resume=True)
    assert str(err.value) == (
        f"--resume: {tmp_path / 'progress.csv'} line 6 is not a row a run writes (iteration='1', episodes='zz', "
        "env_steps=None, episode_len_mean=None, train_seconds=None): mend it, or remove it to resume without "
        "the earlier rows"
    )
    assert contents(tmp_path) == before
    # and so does one whose checkpoint.old/ does not restore, naming it
    (tmp_path / "checkpoint.old" / "iteration").write_text("two")
    with pytest.raises(resume.ResumeError) as err:
        rllib.train("gin_rummy_v0", {}, 3, 0, tmp_path, eval_deals=0, resume=True)
    assert str(err.value) == (
        f"--resume: {tmp_path / 'checkpoint.old'} cannot be restored into the run's algorithm (ValueError: invalid "
        "literal for int() with base 10: 'two'): only the checkpoint/ a run writes resumes it"
    )
    assert contents(tmp_path) == {**before, Path("checkpoint.old/iteration"): b"two"}
    (tmp_path / "checkpoint.old" / "iteration").write_text("2")
    (tmp_path / "progress.csv").write_text("".join(before[Path("progress.csv")].decode().splitlines(True)[:-1]))
    calls[:] = []
    summary = rllib.train("gin_rummy_v0", {}, 3, 0, tmp_path, eval_deals=0, resume=True, settings=settings)
    assert calls == [("restore_from_path", "checkpoint.old", 2), ("save_to_path", 3), ("stop",)]
    assert summary["iterations"] == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "checkpoint",
        "evaluation.json",
        "progress.csv",
        "settings.json",
    ]
    assert (tmp_path / "checkpoint" / "iteration").read_text() == "3"
    assert (tmp_path / "progress.csv").read_text().splitlines()[1:] == [
        "1,3,200,70.5,0.0",
        "2,6,400,70.5,0.0",
        "3,9,600,70.5,0.0",
    ]


def test_a_resume_puts_a_killed_saves_leftovers_right_before_it_trains(tmp_path, monkeypatch):
    """``checkpoint.old/`` goes back to ``checkpoint/`` (so that a save killed in the new
    session still finds it), and ``checkpoint.part/`` and a stale ``checkpoint.old/`` beside
    ``checkpoint/`` are removed, before the first iteration."""
    from experiments.train import rllib
    from tests.experiments.fake_ray import LocalRay

    calls, seen = [], []

    class LookingAlgo(CountingAlgo):
        def train(self):
            seen.append(sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("checkpoint")))
            return super().train()

    monkeypatch.setattr(rllib, "ppo_config", lambda *args: SimpleNamespace(build_algo=lambda: LookingAlgo(calls)))
    monkeypatch.setitem(sys.modules, "ray", LocalRay(alive_after_stop=True))
    rllib.train("gin_rummy_v0", {}, 1, 0, tmp_path, eval_deals=0)
    killed_between_the_renames(tmp_path, 2)
    rllib.train("gin_rummy_v0", {}, 2, 0, tmp_path, eval_deals=0, resume=True)
    (tmp_path / "checkpoint.part").mkdir()  # a save killed while RLlib wrote it
    (tmp_path / "checkpoint.old").mkdir()  # one killed while it removed the earlier checkpoint
    (tmp_path / "checkpoint.old" / "iteration").write_text("1")
    rllib.train("gin_rummy_v0", {}, 3, 0, tmp_path, eval_deals=0, resume=True)
    assert seen == [[], ["checkpoint"], ["checkpoint"]]
    assert [c for c in calls if c[0] == "restore_from_path"] == [
        ("restore_from_path", "checkpoint.old", 1),
        ("restore_from_path", "checkpoint", 2),
    ]


def test_the_cli_says_it_resumes_the_earlier_checkpoint_of_a_killed_save(tmp_path, monkeypatch, capsys):
    from experiments.train import rllib

    out = rllib_folder(tmp_path)
    killed_between_the_renames(out, 5)
    monkeypatch.setattr(rllib, "main", lambda args, out, stop: 0)
    assert cli.main(["--resume", "--out", str(out)]) == 0
    assert capsys.readouterr().out == (
        f"gin_rummy_v0: resuming {out}/checkpoint.old (the run was stopped as a newer save was taking the place "
        "of checkpoint/: this earlier one is the checkpoint settings.json belongs to; it goes back to checkpoint/, "
        "and the iterations after it are trained again)\n"
    )
    shutil.rmtree(out / "checkpoint.old")  # with neither, nothing to continue from
    assert refused(["--resume", "--out", str(out)], capsys, tmp_path) == (
        f"--resume: no checkpoint in {out}: the --backend rllib run has no checkpoint to continue from"
    )


@pytest.mark.parametrize("backend", ["sb3", "rllib", "rllib-old"])
def test_a_checkpoint_without_its_settings_is_refused_naming_it(backend, tmp_path, capsys):
    """What a kill leaves between a run's checkpoint and its settings.json, or in a new run
    (which removed the earlier run's settings) before its first checkpoint, or between the
    renames of that checkpoint's save (the earlier run's in checkpoint.old/); and a run older
    than --resume (the committed docs/results/sb3-gin/ holds model.zip alone)."""
    out = sb3_folder(tmp_path) if backend == "sb3" else rllib_folder(tmp_path)
    (out / "settings.json").unlink()
    name = {"sb3": "model.zip", "rllib": "checkpoint", "rllib-old": "checkpoint.old"}[backend]
    if backend == "rllib-old":
        killed_between_the_renames(out, 1)
    assert refused(["--resume", "--out", str(out)], capsys, tmp_path) == (
        f"--resume: {out / name} has no settings.json beside it, so the settings to continue it with are unknown "
        "(a run writes settings.json right after its checkpoint: it was stopped in between, a new run started "
        "in the folder was stopped before its first checkpoint, or the run is older than --resume): start a new "
        f"run without --resume (in {out} it replaces {name})"
    )


def test_minutes_0_drops_the_time_limit_a_resumed_run_saved(tmp_path):
    out = sb3_folder(tmp_path, minutes=30.0)
    args = cli.parse_args(["--resume", "--out", str(out), "--minutes", "0"])
    assert (args.minutes, args.timesteps, resume.settings_of(args)["minutes"]) == (None, 512, None)
    assert cli.parse_args(["--resume", "--out", str(out)]).minutes == 30.0  # not given: the run's limit stays
    new = cli.parse_args(["--variant", "gin_rummy", "--minutes", "0"])
    assert (new.minutes, new.timesteps) == (None, 300_000)  # a new run: as without --minutes
    (tmp_path / "rl").mkdir()
    out = rllib_folder(tmp_path / "rl")
    saved = json.loads((out / "settings.json").read_text())
    resume.write_settings({**{k: v for k, v in saved.items() if k != "job"}, "minutes": 5.0}, out)
    assert cli.parse_args(["--resume", "--out", str(out), "--minu", "0"]).minutes is None


def test_minutes_0_on_a_run_of_minutes_alone_asks_for_timesteps(tmp_path, capsys):
    out = sb3_folder(tmp_path, minutes=30.0, timesteps=10**12)  # started with --minutes 30 alone
    assert refused(["--resume", "--out", str(out), "--minutes", "0"], capsys, tmp_path) == (
        "--minutes 0 drops the run's time limit, and the run was started with --minutes alone (no --timesteps): "
        "give --timesteps too, the learner decisions of the whole run"
    )
    args = cli.parse_args(["--resume", "--out", str(out), "--minutes", "0", "--timesteps", "900"])
    assert (args.minutes, args.timesteps) == (None, 900)


def test_a_new_runs_save_puts_the_earlier_checkpoint_back_before_it_writes(tmp_path):
    """The earlier run's save killed between its renames left its checkpoint in checkpoint.old/:
    a new run's save that fails puts it back as checkpoint/ (named by --resume) rather than
    removing it, and one that succeeds replaces it and leaves no leftover."""
    from experiments.train import rllib

    (tmp_path / "checkpoint.old").mkdir()
    (tmp_path / "checkpoint.old" / "iteration").write_text("5")
    (tmp_path / "checkpoint.part").mkdir()

    class FailingAlgo(CountingAlgo):
        def save_to_path(self, path):
            raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        rllib.save_checkpoint(FailingAlgo([]), tmp_path / "checkpoint")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoint"]
    assert (tmp_path / "checkpoint" / "iteration").read_text() == "5"
    rllib.save_checkpoint(CountingAlgo([]), tmp_path / "checkpoint")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoint"]
    assert (tmp_path / "checkpoint" / "iteration").read_text() == "0"


@pytest.mark.parametrize(("deals", "made"), [("0", ""), ("20", " and evaluation")])
def test_the_rllib_closing_line_names_the_evaluation_only_when_one_was_made(deals, made, tmp_path, monkeypatch, capsys):
    from experiments.train import rllib

    def trained(*args, **kwargs):  # no ray session: the summary rllib.train returns
        summary = {"variant": "gin_rummy_v0", "iterations": 1, "env_steps": 8, "episodes": 0, "train_seconds": 0.1}
        return {**summary, "evaluation": []}

    monkeypatch.setattr(rllib, "train", trained)
    out = tmp_path / "run"
    argv = ["--backend", "rllib", "--variant", "gin_rummy", "--iterations", "1", "--eval-deals", deals]
    assert cli.main([*argv, "--out", str(out)]) == 0
    last = capsys.readouterr().out.splitlines()[-1]
    assert last == f"checkpoint, progress{made} in {out}/ (play it with --agents rllib:{out}/checkpoint)"
