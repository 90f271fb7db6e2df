"""``experiments.train --resume``: a stopped sb3 run continues from its model.zip (a real run
of a few hundred timesteps), an rllib run from its checkpoint (a fake RLlib algorithm; a
real one takes about 20 s a session), and bad folders or contradicting flags are refused
before anything is written."""

import csv
import json
import shutil
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest

from experiments.train import cli, resume

SB3_RUN = [
    "--variant",
    "gin_rummy",
    "--timesteps",
    "512",
    "--n-steps",
    "128",
    "--eval-deals",
    "2",
    "--workers",
    "1",
    "--no-progress",
    "--opponents",
    "self",
    "--snapshot-every",
    "128",
]


class StopAfter:
    """A :class:`~experiments.common.interrupt.StopRequest` whose Ctrl-C comes at its
    ``looks``-th look (the training callback looks once a step); ``None``: never."""

    exit_code = 130

    def __init__(self, looks):
        self.looks, self.seen = looks, 0

    def __call__(self, *args):  # StopRequest("train", ...) in cli.main
        return self

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    @property
    def requested(self):
        self.seen += 1
        return self.looks is not None and self.seen > self.looks

    def kept(self, what):
        return f"kept {what}"


#: the settings.json of the sb3 run the test below trains (sb3_folder's, without its "job")
SB3_SETTINGS = {
    "backend": "sb3",
    "variant": "gin_rummy_v0",
    "env_options": {},
    "opponents": ["self"],
    "seed": 0,
    "net_arch": [64, 64],
    "n_steps": 128,
    "timesteps": 512,
    "minutes": None,
    "snapshot_every": 128,
    "eval_deals": 2,
}


def episodes(out):
    with open(out / "episodes.csv", newline="") as f:
        return [(int(r["timestep"]), float(r["return"])) for r in csv.DictReader(f)]


def weights(out):
    """The saved model's parameters, as lists (comparable exactly)."""
    from sb3_contrib import MaskablePPO

    return {k: v.tolist() for k, v in MaskablePPO.load(out / "model.zip", device="cpu").policy.state_dict().items()}


def contents(folder):
    """Every file of ``folder`` with its bytes, and every folder in it (None): what a refused
    command must leave as it was (an rllib checkpoint/ placeholder is an empty folder)."""
    return {p.relative_to(folder): p.read_bytes() if p.is_file() else None for p in sorted(folder.rglob("*"))}


def test_a_stopped_sb3_run_resumes_from_its_model_and_counts_on(tmp_path, monkeypatch, capsys):
    out = tmp_path / "run"
    monkeypatch.setattr(cli, "StopRequest", StopAfter(300))  # Ctrl-C at the 301st step
    assert cli.main([*SB3_RUN, "--out", str(out)]) == 130
    first = json.loads((out / "evaluation.json").read_text())
    assert (first["timesteps"], first["episodes"], first["stopped_early"]) == (301, 5, True)
    ends = [50, 102, 154, 210, 264]
    assert [t for t, _ in episodes(out)] == ends
    assert capsys.readouterr().out.endswith("(the evaluation was skipped); --resume continues\n")
    saved = json.loads((out / "settings.json").read_text())
    assert saved == {"job": "experiments.train", **SB3_SETTINGS}

    copy = tmp_path / "copy"
    shutil.copytree(out, copy)
    monkeypatch.setattr(cli, "StopRequest", StopAfter(None))
    assert cli.main(["--resume", "--out", str(out), "--workers", "1", "--no-progress"]) == 0
    said = capsys.readouterr().out
    assert said.startswith(f"gin_rummy_v0: resuming {out}/model.zip\n")
    assert said.endswith(f"model, learning curve and evaluation in {out}/\n")
    assert cli.main(["--resume", "--out", str(copy), "--eval-deals", "0", "--no-progress"]) == 0
    assert (episodes(copy), weights(copy)) == (episodes(out), weights(out))  # a checkpoint resumes to one run
    summary = json.loads((out / "evaluation.json").read_text())
    # the count goes on from 301 (not 0): two rollouts of 128 pass --timesteps 512, as SB3's learn runs whole rollouts
    assert (summary["timesteps"], summary["episodes"], summary["stopped_early"]) == (557, 10, False)
    assert summary["train_seconds"] >= first["train_seconds"]  # the training time of both sessions
    assert [(r["opponent"], r["games"]) for r in summary["evaluation"]] == [("random", 4), ("heuristic", 4)]
    resumed_ends = [350, 403, 455, 506, 552]  # new deals from step 301 on
    assert [t for t, _ in episodes(out)] == ends + resumed_ends
    with open(out / "learning_curve.csv") as f:
        rows = list(csv.DictReader(f))
    assert [(int(r["timestep"]), int(r["episodes"])) for r in rows] == [
        (t, i + 1) for i, t in enumerate(ends + resumed_ends)
    ]
    assert json.loads((out / "settings.json").read_text()) == saved

    # spent: --timesteps 512 is passed, so a resume trains nothing and makes the evaluation asked for
    before = weights(out)
    capsys.readouterr()
    assert cli.main(["--resume", "--out", str(out), "--eval-deals", "0", "--no-progress"]) == 0
    assert capsys.readouterr().out.endswith(f"model, learning curve in {out}/\n")  # no evaluation was made
    summary = json.loads((out / "evaluation.json").read_text())
    assert (summary["timesteps"], summary["episodes"], summary["evaluation"]) == (557, 10, [])
    assert [t for t, _ in episodes(out)] == ends + resumed_ends
    assert json.loads((out / "settings.json").read_text())["eval_deals"] == 0  # the next resume keeps it
    assert weights(out) == before  # no update
    # --minutes count the whole run too: more timesteps, but the minutes are spent (over a second went by)
    assert cli.main(["--resume", "--out", str(out), "--timesteps", "5000", "--minutes", "0.001", "--no-progress"]) == 0
    assert json.loads((out / "evaluation.json").read_text())["timesteps"] == 557 and weights(out) == before


def sb3_folder(tmp_path, **changes):
    """A folder as an sb3 run leaves it (the model a placeholder: the refusals come before it is read)."""
    out = tmp_path / "run"
    out.mkdir()
    resume.write_settings({**SB3_SETTINGS, **changes}, out)
    (out / "model.zip").write_bytes(b"a model")
    return out


def test_a_run_seeded_at_the_largest_seed_resumes_on_the_wrapped_seed(tmp_path, monkeypatch, capsys):
    # a session goes on from seed + timesteps done: past 2**32 - 1 NumPy's legacy generator refused it
    assert resume.session_seed(resume.MAX_TRAIN_SEED, 301) == 300 and resume.session_seed(7, 301) == 308
    out = tmp_path / "run"
    args = [*SB3_RUN, "--timesteps", "256", "--eval-deals", "0", "--seed", str(resume.MAX_TRAIN_SEED)]
    monkeypatch.setattr(cli, "StopRequest", StopAfter(100))
    assert cli.main([*args, "--out", str(out)]) == 130
    monkeypatch.setattr(cli, "StopRequest", StopAfter(None))
    assert cli.main(["--resume", "--out", str(out), "--no-progress"]) == 0
    assert json.loads((out / "evaluation.json").read_text())["timesteps"] == 357  # 101, then whole rollouts of 128
    assert json.loads((out / "settings.json").read_text())["seed"] == resume.MAX_TRAIN_SEED


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--backend", "rllib"],
            "--resume continues the run as it was started: --backend rllib (the run's: sb3); "
            "drop them or start a new run",
        ),
        (
            ["--variant", "rummy"],
            "--resume continues the run as it was started: --variant rummy_v0 (the run's: gin_rummy_v0); "
            "drop them or start a new run",
        ),
        (
            ["--net-arch", "32", "--opponents", "random", "--env-option", "knock_limit=5", "--see", "3"],
            "--resume continues the run as it was started: --env-option knock_limit=5 (the run's: (none)), "
            "--opponents random (the run's: self), --seed 3 (the run's: 0), --net-arch 32 (the run's: 64,64); "
            "drop them or start a new run",
        ),
        (["--iterations", "5"], "--iterations: the rllib backend's settings; the run is --backend sb3: drop them"),
    ],
)
def test_a_resume_that_contradicts_the_run_is_refused_and_writes_nothing(args, message, tmp_path, capsys):
    out = sb3_folder(tmp_path)
    before = contents(out)
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["--resume", "--out", str(out), *args])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1].endswith(f"error: {message}")
    assert contents(out) == before


def test_bad_resume_folders_are_refused_with_the_reason_and_write_nothing(tmp_path, capsys):
    def refused(out, *args):
        before = contents(tmp_path)
        with pytest.raises(SystemExit) as exit_info:
            cli.main(["--resume", *(["--out", str(out)] if out else []), *args])
        assert exit_info.value.code == 2 and contents(tmp_path) == before
        return capsys.readouterr().err.splitlines()[-1].split("error: ", 1)[1]

    assert refused(None) == "--resume continues the run in --out: give the run's folder"
    assert refused(tmp_path / "nothing") == (
        f"--resume: no folder {str(tmp_path / 'nothing')!r}: give the --out folder of the run to continue"
    )
    assert not (tmp_path / "nothing").exists()
    assert refused(tmp_path) == (
        f"--resume: no settings.json in {tmp_path}: not the folder of an experiments.train run that wrote its "
        "checkpoint (a run writes it with its checkpoint; one started before --resume existed has none)"
    )
    selfplay = tmp_path / "selfplay"
    selfplay.mkdir()
    (selfplay / "checkpoint.pt").write_bytes(b"a checkpoint")
    assert refused(selfplay) == (
        f"--resume: {selfplay} holds a run of experiments.selfplay, not of experiments.train: "
        f"continue it with python -m experiments.selfplay --resume --out {selfplay}"
    )
    out = sb3_folder(tmp_path)
    (out / "model.zip").unlink()
    assert refused(out) == f"--resume: no model.zip in {out}: the --backend sb3 run has no checkpoint to continue from"
    (out / "settings.json").write_text('{"job": "experiments.train", "backend": "rllib"}')
    assert refused(out) == (
        f"--resume: {out / 'settings.json'} is not the settings of an experiments.train run (it lacks variant, "
        "env_options, seed, net_arch, batch_size, minibatch_size, epochs, minutes, iterations, eval_deals, "
        "env_runners): only the settings.json a run writes resumes it"
    )
    (out / "settings.json").write_text("{not json")
    assert refused(out).startswith(f"--resume: {out / 'settings.json'} cannot be read (JSONDecodeError: ")
    (tmp_path / "typed").mkdir()
    typed = sb3_folder(tmp_path / "typed", seed="0")
    assert (
        refused(typed) == f"--resume: {typed / 'settings.json'} has seed='0', not a value a run writes "
        "(an integer from 0 to 4294967295)"
    )


def test_a_model_that_does_not_load_is_refused_and_nothing_is_written(tmp_path, capsys):
    out = sb3_folder(tmp_path)  # model.zip holds b"a model"
    before = contents(out)
    with pytest.raises(SystemExit) as exit_info:
        cli.main(["--resume", "--out", str(out), "--no-progress"])
    assert exit_info.value.code == 2 and contents(out) == before
    assert capsys.readouterr().err.splitlines()[-1] == (
        f"python -m experiments.train: error: --resume: {out / 'model.zip'} cannot be loaded as the run's "
        f"MaskablePPO model (ValueError: Error: the file {out / 'model.zip'} wasn't a zip-file): "
        "only the model.zip a run writes resumes it"
    )


def test_a_resume_takes_the_saved_settings_and_the_limits_given_however_abbreviated(tmp_path):
    out = sb3_folder(tmp_path, minutes=30.0, env_options={"knock_limit": 5})
    args = cli.parse_args(["--resume", "--out", str(out), "--time", "900", "--seed", "0", "--variant", "gin_rummy"])
    assert (args.variant, args.env_options, args.opponents, args.net_arch) == (
        "gin_rummy_v0",
        {"knock_limit": 5},
        ["self"],
        [64, 64],
    )
    assert (args.timesteps, args.minutes, args.n_steps, args.snapshot_every, args.eval_deals) == (
        900,
        30.0,
        128,
        128,
        2,
    )
    assert (args.workers, args.no_progress) == (2, False)  # this machine's: the command line's, not saved
    saved = json.loads((out / "settings.json").read_text())
    del saved["job"]
    assert resume.settings_of(args) == {**saved, "timesteps": 900}  # what the session writes after its model


def test_a_new_run_forgets_the_settings_of_the_run_it_replaces_before_it_trains(tmp_path, monkeypatch):
    """Until the new run writes its model, the earlier model.zip must not be resumed with
    the new run's settings (nor its own: the new run replaces it)."""
    out = sb3_folder(tmp_path)
    seen = []

    def train(*args, **kwargs):
        seen.append(((out / "settings.json").exists(), kwargs["resume"], kwargs["settings"]["timesteps"]))
        raise KeyboardInterrupt  # enough: what happened before the training is what this test looks at

    monkeypatch.setattr(cli, "train", train)
    with pytest.raises(KeyboardInterrupt):
        cli.main(["--variant", "gin_rummy", "--timesteps", "256", "--out", str(out), "--no-progress"])
    assert seen == [(False, False, 256)]


class CountingAlgo:
    """RLlib's algorithm as ``train --backend rllib`` drives it: ``iteration`` and the lifetime
    counters of its results are saved to its checkpoint and restored from it, as RLlib's are."""

    def __init__(self, calls):
        self.calls, self.iteration = calls, 0

    def train(self):
        self.iteration += 1
        runners = {"num_episodes_lifetime": 3 * self.iteration, "episode_len_mean": 70.5}
        return {"env_runners": runners, "num_env_steps_sampled_lifetime": 200 * self.iteration}

    def save_to_path(self, path):
        Path(path).mkdir(exist_ok=True)
        (Path(path) / "iteration").write_text(str(self.iteration))
        self.calls.append(("save_to_path", self.iteration))

    def restore_from_path(self, path):
        self.iteration = int((Path(path) / "iteration").read_text())
        self.calls.append(("restore_from_path", Path(path).name, self.iteration))

    def stop(self):
        self.calls.append(("stop",))


def test_an_rllib_run_resumes_from_its_checkpoint_and_its_progress_goes_on(tmp_path, monkeypatch):
    from experiments.train import rllib  # imports the real ray.rllib, before the fake Ray
    from tests.experiments.fake_ray import LocalRay

    calls, ray = [], LocalRay(alive_after_stop=True)
    monkeypatch.setattr(rllib, "ppo_config", lambda *args: SimpleNamespace(build_algo=lambda: CountingAlgo(calls)))
    monkeypatch.setitem(sys.modules, "ray", ray)
    monkeypatch.setattr(rllib, "time", SimpleNamespace(perf_counter=lambda: 0.0))  # no time passes: exact seconds
    settings = {"backend": "rllib", "iterations": 2}
    first = rllib.train("gin_rummy_v0", {}, 2, 0, tmp_path, eval_deals=0, settings=settings)
    assert (first["iterations"], first["env_steps"]) == (2, 400)
    assert json.loads((tmp_path / "settings.json").read_text()) == {"job": "experiments.train", **settings}
    # a session ended after logging its third iteration but before its checkpoint: the row is dropped
    with open(tmp_path / "progress.csv", "a") as f:
        f.write("3,9,600,70.5,0.0\n")
    summary = rllib.train("gin_rummy_v0", {}, 4, 0, tmp_path, eval_deals=0, resume=True)
    assert calls == [
        ("save_to_path", 2),
        ("stop",),
        ("restore_from_path", "checkpoint", 2),
        ("save_to_path", 4),
        ("stop",),
    ]
    assert (tmp_path / "progress.csv").read_text() == (
        "iteration,episodes,env_steps,episode_len_mean,train_seconds\n"
        "1,3,200,70.5,0.0\n2,6,400,70.5,0.0\n3,9,600,70.5,0.0\n4,12,800,70.5,0.0\n"
    )
    assert (summary["iterations"], summary["env_steps"], summary["episodes"]) == (4, 800, 12)
    # --minutes in total over the sessions: a run whose minutes are spent trains no more iteration
    with open(tmp_path / "progress.csv", "a") as f:
        f.write("5,15,1000,70.5,120.0\n")
    (tmp_path / "checkpoint" / "iteration").write_text("5")
    spent = rllib.train("gin_rummy_v0", {}, 9, 0, tmp_path, eval_deals=0, minutes=2.0, resume=True)
    assert (spent["iterations"], spent["env_steps"], spent["train_seconds"]) == (5, 1000, 120.0)


def rllib_folder(tmp_path):
    """A folder as an rllib run leaves it (checkpoint/ an empty placeholder)."""
    out = tmp_path / "run"
    out.mkdir()
    (out / "checkpoint").mkdir()
    names = resume.BACKEND_SETTINGS["rllib"]
    saved = dict(zip(names, ["rllib", "gin_rummy_v0", {}, 4, [32], 500, 64, 2, None, 3, 0, 0], strict=True))
    resume.write_settings(saved, out)
    return out


def test_an_rllib_folder_resumes_with_its_backend_and_settings(tmp_path):
    out = rllib_folder(tmp_path)
    args = cli.parse_args(["--resume", "--out", str(out), "--iterations", "6"])
    assert (args.backend, args.net_arch, args.batch_size, args.iterations, args.env_runners) == (
        "rllib",
        [32],
        500,
        6,
        0,
    )
