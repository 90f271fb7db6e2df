"""Ctrl-C and SIGTERM stop the long jobs cleanly: real signals sent to real subprocesses.

Each job is started as ``python -m experiments.<job>`` in a session of its own, so that a
signal sent to its process group reaches its worker processes too, as a Ctrl-C in a
terminal does.  What is asserted: the exit code (128 + the signal), no traceback, the one
line saying what was kept, and the files kept.  The jobs with a progress counter print a
line at every update (``RUMMY_ENV_PROGRESS_EVERY=0``), and the signal goes once one says
that some work is done, however slow the machine.
"""

import csv
import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from experiments.selfplay.checkpoint import trim_logs

ROOT = Path(__file__).resolve().parents[2]


def start(*args: str) -> subprocess.Popen:
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "RUMMY_ENV_PROGRESS_EVERY": "0"}
    return subprocess.Popen(
        [sys.executable, "-m", *args],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )


def wait_for(path: Path, proc: subprocess.Popen, timeout: float = 180.0) -> None:
    """Wait until ``path`` exists (the job has done some work)."""
    deadline = time.monotonic() + timeout
    while not path.exists():
        assert proc.poll() is None, proc.communicate()
        assert time.monotonic() < deadline, f"{path} did not appear"
        time.sleep(0.2)


def stop(proc: subprocess.Popen, signum: int, timeout: float = 180.0) -> tuple[int, str, str]:
    os.killpg(proc.pid, signum)  # the whole group, as a terminal's Ctrl-C
    out, err = proc.communicate(timeout=timeout)
    return proc.returncode, out, err


class Progress:
    """The output of ``proc`` read on threads (stdout kept, stderr also queued line by line),
    so that the test can wait for a progress line and no pipe fills up meanwhile."""

    def __init__(self, proc: subprocess.Popen):
        self.proc, self.lines, self.seen, self.out = proc, queue.Queue(), [], []
        self.threads = [threading.Thread(target=self._read_err, daemon=True)]
        self.threads.append(threading.Thread(target=lambda: self.out.append(proc.stdout.read()), daemon=True))
        for thread in self.threads:
            thread.start()

    def _read_err(self) -> None:
        for line in self.proc.stderr:
            self.seen.append(line)
            self.lines.put(line)

    def wait(self, job: str, at_least: int = 1, timeout: float = 180.0) -> int:
        """Wait for ``job``'s first progress line that counts ``at_least`` units of work done:
        its count (``tournament: 25/400000 deals (0%), 2s, ...``; ``pimc_labels: 3 games, 9s``
        with no total).

        Raises:
            AssertionError: no such line within ``timeout`` seconds, or the job ended first.
        """
        pattern = re.compile(rf"^{job}: (\d+)[/ ]")

        def counts(line: str) -> bool:
            found = pattern.match(line)
            return found is not None and int(found[1]) >= at_least

        return int(pattern.match(self.line(counts, f"a progress line of {job}", timeout))[1])

    def line(self, wanted, what: str, timeout: float = 180.0) -> str:
        """The first stderr line from now on for which ``wanted(line)`` holds.

        Raises:
            AssertionError: ``what`` did not come within ``timeout`` seconds, or the job ended first.
        """
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, f"no {what} in {timeout} s: {''.join(self.seen)}"
            try:
                line = self.lines.get(timeout=min(left, 1.0))
            except queue.Empty:
                assert self.proc.poll() is None, f"the job ended before {what}: {''.join(self.seen)}"
                continue
            if wanted(line):
                return line

    def stop(self, signum: int, timeout: float = 180.0) -> tuple[int, str, str]:
        """:func:`stop` with the output read here: ``(exit code, stdout, stderr)``.

        Raises:
            AssertionError: the job did not end within ``timeout`` seconds (then it is killed).
        """
        os.killpg(self.proc.pid, signum)
        try:
            self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
            raise AssertionError(f"the job did not end within {timeout} s of signal {signum}") from None
        for thread in self.threads:
            thread.join(timeout=timeout)
        return self.proc.returncode, "".join(self.out), "".join(self.seen)


def test_ctrl_c_keeps_a_tournaments_finished_deals(tmp_path):
    out = tmp_path / "t"
    proc = start(
        "experiments.tournament", "--variants", "gin_rummy", "rummy", "--deals", "100000",
        "--workers", "2", "--out", str(out),
    )  # fmt: skip
    progress = Progress(proc)
    progress.wait("tournament")  # the workers finished a chunk of 25 deals
    os.kill(proc.pid, signal.SIGINT)  # as GNU timeout -s INT: the job, then its process group
    rc, stdout, stderr = progress.stop(signal.SIGINT)
    assert rc == 130 and "Traceback" not in stderr, stderr
    assert "tournament: SIGINT: " in stderr and "stopped at once" not in stderr  # one request, not two
    meta = json.loads((out / "summary.json").read_text())["meta"]
    assert meta["partial"] is True and meta["games"] > 0
    assert meta["planned_deals_per_lineup"]["gin_rummy_v0: random vs heuristic"] == 100000
    with open(out / "games.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 2 * meta["games"]  # one row per seat
    deals = {(r["lineup"], r["deal"]) for r in rows}
    assert sum(meta["deals_per_lineup"].values()) == len(deals)
    assert f"kept the {meta['games']} of 400000 games finished in {out}/" in stdout


def test_sigterm_ends_a_tournament_in_this_process_after_its_current_deal(tmp_path):
    out = tmp_path / "t"
    proc = start(
        "experiments.tournament", "--variants", "gin_rummy", "--deals", "100000", "--workers", "1",
        "--out", str(out),
    )  # fmt: skip
    progress = Progress(proc)
    progress.wait("tournament")
    rc, stdout, stderr = progress.stop(signal.SIGTERM)
    assert rc == 143 and "Traceback" not in stderr, stderr
    meta = json.loads((out / "summary.json").read_text())["meta"]
    assert meta["partial"] is True and meta["games"] > 0 and meta["games"] % 2 == 0  # whole deals only
    assert "stopped early (SIGTERM)" in stdout


def test_a_second_ctrl_c_quits_at_once(tmp_path):
    # the cheap budget's deals first, then a budget whose deals take seconds: once the cheap
    # ones are done a costly deal is in progress, and the first Ctrl-C waits for it
    proc = start(
        "experiments.search_budget", "--variant", "gin_rummy", "--agent", "pimc", "--budgets", "2", "5000",
        "--options", "rollout=random,depth=400,playouts=10000000", "--deals", "3", "--out", str(tmp_path / "sb"),
    )  # fmt: skip
    progress = Progress(proc)
    progress.wait("search_budget", at_least=3)
    time.sleep(2)  # past the next budget's start (its agents are built): into its first decision, about 5 s long
    os.killpg(proc.pid, signal.SIGINT)
    # the second Ctrl-C goes once the first one's handler has run: two signals that arrive
    # during one long compiled call are one pending signal to Python
    progress.line(lambda line: "SIGINT: ending after the deal in progress" in line, "the first request's line")
    time.sleep(0.5)  # a second Ctrl-C, not the first one's echo (interrupt.SAME_SIGNAL_S)
    rc, _, stderr = progress.stop(signal.SIGINT, timeout=60)
    assert rc == 130 and "Traceback" not in stderr, stderr
    assert "search_budget: SIGINT: ending after the deal in progress" in stderr
    assert "search_budget: stopped at once (SIGINT again)" in stderr
    assert "search_budget: 3/6 deals (50%)" in stderr and "4/6 deals" not in stderr  # no costly deal finished


SELFPLAY = [
    "experiments.selfplay", "--variant", "gin_rummy", "--num-envs", "16", "--num-steps", "16", "--hidden", "16",
    "--minibatch-size", "64", "--minutes", "30", "--eval-every", "1000", "--initial-eval", "false", "--no-progress",
]  # fmt: skip


def test_ctrl_c_in_selfplay_writes_the_checkpoint_and_model_and_resume_logs_each_update_once(tmp_path):
    out = tmp_path / "run"
    proc = start(*SELFPLAY, "--out", str(out))
    wait_for(out / "scalars.csv", proc)  # the first update is done
    time.sleep(2)
    rc, stdout, stderr = stop(proc, signal.SIGINT)
    assert rc == 130 and "Traceback" not in stderr, stderr
    assert {"checkpoint.pt", "model.pt", "summary.json", "recipe.toml"} <= {p.name for p in out.iterdir()}
    summary = json.loads((out / "summary.json").read_text())
    assert summary["stopped_early"] is True and summary["evaluation"] == []
    assert "kept checkpoint.pt and model.pt" in stdout
    from experiments import selfplay

    updates = summary["updates"]
    args = ["--out", str(out), "--resume", "--timesteps", str(summary["steps"] + 500), "--final-eval-deals", "0"]
    assert selfplay.main([*args, "--no-progress"]) == 0
    with open(out / "scalars.csv") as f:
        logged = [int(r["updates"]) for r in csv.DictReader(f)]
    assert logged == list(range(1, len(logged) + 1)) and len(logged) > updates
    with open(out / "scalars.csv") as f:
        minutes = [float(r["minutes"]) for r in csv.DictReader(f)]
    assert minutes == sorted(minutes)  # training minutes never go back after a resume


def test_resume_drops_the_log_rows_written_after_the_checkpoint(tmp_path):
    with open(tmp_path / "scalars.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["minutes", "steps", "updates", "kl"])
        w.writeheader()
        w.writerows({"minutes": u / 10, "steps": 100 * u, "updates": u, "kl": 0.01} for u in range(1, 8))
    with open(tmp_path / "eval.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["minutes", "steps", "updates", "opponent"])
        w.writeheader()
        w.writerows([{"minutes": 0.3, "steps": 300, "updates": 3, "opponent": "heuristic"}] * 2)
        w.writerow({"minutes": 0.6, "steps": 600, "updates": 6, "opponent": "heuristic"})
    assert trim_logs(tmp_path, 5) == 3
    with open(tmp_path / "scalars.csv") as f:
        assert [int(r["updates"]) for r in csv.DictReader(f)] == [1, 2, 3, 4, 5]
    with open(tmp_path / "eval.csv") as f:
        assert [int(r["updates"]) for r in csv.DictReader(f)] == [3, 3]


def test_ctrl_c_in_pimc_labels_writes_the_labels_of_the_games_finished(tmp_path):
    path = tmp_path / "labels.npz"
    proc = start("experiments.pimc_labels", "--agent", "pimc:worlds=4", "--minutes", "30", "--out", str(path))
    progress = Progress(proc)
    progress.wait("pimc_labels")
    rc, stdout, stderr = progress.stop(signal.SIGINT)
    assert rc == 130 and "Traceback" not in stderr, stderr
    with np.load(path) as f:
        meta = json.loads(str(f["meta"]))
        assert meta["stopped_early"] is True and meta["games"] == len(f["result"]) > 0
        assert f["game"].max() < meta["games"]
    assert f"kept the labels of {meta['games']} finished games" in stdout


def test_sigterm_in_sb3_training_writes_the_model_and_skips_the_evaluation(tmp_path):
    out = tmp_path / "sb3"
    proc = start(
        "experiments.train", "--variant", "gin_rummy", "--timesteps", "10000000", "--n-steps", "256",
        "--out", str(out),
    )  # fmt: skip
    progress = Progress(proc)
    progress.wait("train", at_least=300)  # past the first rollout of 256 steps (not a fixed sleep)
    rc, stdout, stderr = progress.stop(signal.SIGTERM)
    assert rc == 143 and "Traceback" not in stderr, stderr
    summary = json.loads((out / "evaluation.json").read_text())
    assert summary["stopped_early"] is True and summary["evaluation"] == [] and summary["timesteps"] >= 300
    assert (out / "model.zip").is_file() and "kept model.zip" in stdout


def test_ctrl_c_in_search_budget_keeps_the_budgets_measured(tmp_path):
    out = tmp_path / "sb"
    proc = start(
        "experiments.search_budget", "--variant", "gin_rummy", "--agent", "pimc", "--budgets", "2", "3",
        "--options", "rollout=random", "--deals", "100000", "--out", str(out),
    )  # fmt: skip
    progress = Progress(proc)
    progress.wait("search_budget")  # a deal of the first budget is done
    rc, stdout, stderr = progress.stop(signal.SIGINT)
    assert rc == 130 and "Traceback" not in stderr, stderr
    with open(out / "search_budget.csv") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 1 and 0 < int(rows[0]["deals"]) < 100000 and int(rows[0]["games"]) == 2 * int(rows[0]["deals"])
    assert (rows[0]["planned_deals"], rows[0]["partial"]) == ("100000", "True")
    assert "kept 1 budget(s)" in stdout


def test_ctrl_c_in_evaluate_writes_the_games_finished_as_partial(tmp_path):
    out = tmp_path / "e"
    proc = start(
        "experiments.evaluate", "--variant", "gin_rummy", "--agent", "heuristic", "--opponents", "random",
        "--deals", "100000", "--workers", "1", "--out", str(out),
    )  # fmt: skip
    progress = Progress(proc)
    progress.wait("evaluate")  # one worker in this process: deals of 25 finish as it goes
    rc, stdout, stderr = progress.stop(signal.SIGINT)
    assert rc == 130 and "Traceback" not in stderr, stderr
    result = json.loads((out / "evaluation.json").read_text())
    assert result["partial"] is True and 0 < result["games"] < 200000
    assert result["rows"][0]["games"] == result["games"]
    with open(out / "games.csv") as f:
        assert sum(1 for _ in csv.DictReader(f)) == result["games"]
    assert f"the {result['games']} games finished in {out}/ (evaluation.json: partial)" in stdout
    last = stderr.strip().splitlines()[-1]  # the last progress line, not a bar
    assert re.fullmatch(r"evaluate: \d+/100000 deals \(\d+%\), [^,]+", last), last


def test_a_second_signal_within_the_window_is_the_same_request(monkeypatch):
    from experiments.common import interrupt

    clock = [100.0]
    exits = []
    monkeypatch.setattr(interrupt.time, "monotonic", lambda: clock[0])
    monkeypatch.setattr(interrupt.os, "_exit", exits.append)
    request = interrupt.StopRequest("job", "then")  # not entered: no handlers installed in this process
    request._handle(signal.SIGINT, None)
    clock[0] += 0.05  # GNU timeout's echo to the process group
    request._handle(signal.SIGINT, None)
    assert request.requested and exits == []
    clock[0] += 0.2  # a second Ctrl-C
    request._handle(signal.SIGINT, None)
    assert exits == [130]


def test_a_quit_at_once_exits_with_its_own_signal_and_removes_the_files_half_written(monkeypatch, tmp_path):
    from experiments.common import interrupt
    from experiments.common.jobs import atomic_open

    exits = []
    monkeypatch.setattr(interrupt.os, "_exit", exits.append)
    (tmp_path / "games.csv").write_text("the earlier run's\n")
    records = tmp_path / "records"  # a folder the killed workers wrote records into
    records.mkdir()
    (records / "a.jsonl").write_text("kept\n")
    (records / "b.jsonl.part").write_text("half")
    monkeypatch.setattr(interrupt, "PART_FOLDERS", {str(records)})
    request = interrupt.StopRequest("job", "then")
    request._handle(signal.SIGINT, None)
    request._first -= 1.0  # the second signal comes a second later
    with pytest.raises(FileNotFoundError), atomic_open(tmp_path / "games.csv") as f:  # (the mock did not exit)
        f.write("half")
        assert sorted(p.name for p in tmp_path.iterdir()) == ["games.csv", "games.csv.part", "records"]
        request._handle(signal.SIGTERM, None)  # os._exit would end the process here
        assert exits == [143]  # 128 + SIGTERM, not the first signal's 130
        assert sorted(p.name for p in tmp_path.iterdir()) == ["games.csv", "records"]
        assert [p.name for p in records.iterdir()] == ["a.jsonl"]
    assert (tmp_path / "games.csv").read_text() == "the earlier run's\n" and not interrupt.PARTS


def test_sigterm_keeps_the_finished_deals_of_a_tournament_on_ray(tmp_path):
    # ray.init and ray.shutdown install their own SIGTERM handlers: under them the job died
    # with nothing written (experiments.common.interrupt.handlers_kept puts the job's back)
    out = tmp_path / "t"
    proc = start(
        "experiments.tournament", "--variants", "gin_rummy", "--agents", "random", "heuristic",
        "--deals", "100000", "--backend", "ray", "--out", str(out),
    )  # fmt: skip
    progress = Progress(proc)
    progress.wait("tournament")
    proc.send_signal(signal.SIGTERM)  # the job alone (kill PID): its cluster's processes stay up until it ends
    proc.wait(timeout=120)
    for thread in progress.threads:
        thread.join(timeout=60)
    stdout, stderr = "".join(progress.out), "".join(progress.seen)
    assert proc.returncode == 143 and "Traceback" not in stderr and "SIGTERM received" not in stderr, stderr
    assert "tournament: stopped early (SIGTERM); kept the " in stdout
    meta = json.loads((out / "summary.json").read_text())["meta"]
    assert meta["partial"] is True and meta["backend"] == "ray" and meta["games"] > 0
    with open(out / "games.csv") as f:
        assert len(list(csv.DictReader(f))) == 2 * meta["games"]  # a row per seat


def test_a_stop_after_the_final_evaluation_finds_the_run_complete(tmp_path, monkeypatch):
    # a Ctrl-C while the curve was drawn marked a finished run stopped, and --resume made its
    # final evaluation again (two final rows in eval.csv)
    from experiments import selfplay
    from experiments.common.interrupt import StopRequest
    from experiments.selfplay import run

    learner = selfplay.Learner(selfplay.Config(num_envs=4, hidden=(8,), final_eval_deals=3))
    stop = StopRequest("selfplay", "then")
    row = {"opponent": "heuristic", "win_rate": 0.5}

    def evaluated(*args, **kwargs):  # the final evaluation ends, then the signal comes
        (tmp_path / "eval.csv").write_text("steps,final\n0,1\n")
        return [row]

    monkeypatch.setattr(run, "evaluate_now", evaluated)
    monkeypatch.setattr(run, "write_curve", lambda out: stop._handle(signal.SIGINT, None))
    result = run.finish(learner, tmp_path, progress=False, stop=stop)
    assert stop.requested and result["stopped_early"] is False and result["evaluation"] == [row]
    assert json.loads((tmp_path / "summary.json").read_text())["stopped_early"] is False
    assert not run.final_evaluation_missing(tmp_path, learner.cfg, learner)  # --resume has nothing to make

    stopped = StopRequest("selfplay", "then")  # a stop during the evaluation: no figure, stopped early
    monkeypatch.setattr(run, "evaluate_now", lambda *a, **k: stopped._handle(signal.SIGINT, None) or [])
    assert run.finish(learner, tmp_path, progress=False, stop=stopped)["stopped_early"] is True
    assert run.final_evaluation_missing(tmp_path, learner.cfg, learner)


def test_handlers_kept_puts_back_the_jobs_handlers_that_ray_replaces():
    from experiments.common.interrupt import handlers_kept

    def mine(signum, frame):
        raise AssertionError("not called")

    before, interrupt = signal.signal(signal.SIGTERM, mine), signal.getsignal(signal.SIGINT)
    try:
        with handlers_kept():
            signal.signal(signal.SIGTERM, signal.SIG_DFL)  # what ray.init and ray.shutdown do
            signal.signal(signal.SIGINT, signal.SIG_IGN if interrupt is not signal.SIG_IGN else signal.SIG_DFL)
        assert signal.getsignal(signal.SIGTERM) is mine and signal.getsignal(signal.SIGINT) is interrupt
    finally:
        signal.signal(signal.SIGTERM, before)
