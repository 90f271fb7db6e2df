"""A stop request reaches the tasks in progress on local workers: with ``in_process_stop``
each returns what it finished (a chunk ends after its current deal) instead of being
dropped with the pool (a Ctrl-C used to keep no game of a chunk in progress)."""

import importlib
import re
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

from experiments.common.parallel import RayUnreachableError, run_tasks
from tests.experiments.fake_ray import LocalRay, Stop


def steps(task, stopped=None):
    """A task of ``count`` steps that writes ``marker`` once it has made two: the test's
    sign that both workers are under way."""
    marker, count = task
    done = []
    for k in range(count):
        if stopped is not None and stopped():
            break
        time.sleep(0.02)
        done.append(k)
        if k == 2:
            Path(marker).touch()
    return done


def stop_when_started(stop, markers):
    while not all(Path(m).exists() for m in markers):
        time.sleep(0.01)
    stop.requested = True


def test_tasks_in_progress_return_what_they_finished_when_a_stop_is_requested(tmp_path):
    markers = [str(tmp_path / f"m{i}") for i in range(2)]
    tasks = [(markers[0], 5000), (markers[1], 5000), (str(tmp_path / "never"), 5000)]
    stop = Stop()
    threading.Thread(target=stop_when_started, args=(stop, markers), daemon=True).start()
    results = run_tasks(steps, tasks, workers=2, stop=stop, in_process_stop=True)
    # the first two tasks stopped part-way with their steps kept, in task order; the third,
    # queued behind them, started after the stop and made none (100 s of steps otherwise)
    assert len(results) == 3
    assert all(3 <= len(r) < 5000 and r == list(range(len(r))) for r in results[:2])
    assert results[2] == []


def test_without_in_process_stop_the_tasks_in_progress_are_dropped(tmp_path):
    markers = [str(tmp_path / f"m{i}") for i in range(2)]
    stop = Stop()
    threading.Thread(target=stop_when_started, args=(stop, markers), daemon=True).start()
    assert run_tasks(steps, [(m, 5000) for m in markers], workers=2, stop=stop) == []


def mortal(task, stopped=None):
    """``("ok", marker)`` touches its marker and returns "ok"; ``("die", marker, after,
    signum)`` waits for the file ``after`` (another task's marker, or the main process's
    sign that it has collected a result), touches its marker and kills its own worker with
    ``signum``."""
    import os

    kind, marker, *rest = task
    if kind == "ok":
        Path(marker).touch()
        return "ok"
    after, signum = rest
    while not Path(after).exists():
        time.sleep(0.01)
    Path(marker).touch()
    os.kill(os.getpid(), signum)
    time.sleep(60)  # not reached


def run_in_thread(call):
    """``call()`` on a thread, failing the test instead of hanging it (a lost task once
    blocked the run for ever)."""
    out = {}

    def target():
        try:
            out["result"] = call()
        except Exception as err:  # noqa: BLE001 - handed to the test
            out["error"] = err

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    thread.join(60)
    assert not thread.is_alive(), "run_tasks waited for a dead worker's task"
    return out


@pytest.mark.parametrize("late", [0.0, 0.6])
def test_a_worker_killed_with_the_job_ends_the_run_with_what_finished(tmp_path, late):
    """SIGTERM to the process group (``timeout``, a scheduler): the worker dies and the main
    process requests a stop, at once or a moment later (its handler runs at its next poll:
    ``late`` s, within the grace); the run returns the finished results instead of waiting
    for ever or calling the death an error."""
    ok, died, collected = str(tmp_path / "ok"), str(tmp_path / "died"), str(tmp_path / "collected")
    stop = Stop()

    def stop_when_killed():
        while not Path(died).exists():
            time.sleep(0.01)
        time.sleep(late)
        stop.requested = True  # the main process's StopRequest, got the same signal

    threading.Thread(target=stop_when_killed, daemon=True).start()
    tasks = [("ok", ok), ("die", died, collected, signal.SIGTERM)]  # dies once "ok" is collected
    out = run_in_thread(
        lambda: run_tasks(
            mortal, tasks, workers=2, stop=stop, in_process_stop=True, on_result=lambda *_: Path(collected).touch()
        )
    )
    assert out == {"result": ["ok"]}


def test_a_worker_that_dies_alone_is_an_error_not_a_hang(tmp_path):

    ok, died = str(tmp_path / "ok"), str(tmp_path / "died")
    tasks = [("ok", ok), ("die", died, ok, signal.SIGKILL), ("ok", str(tmp_path / "ok2"))]
    out = run_in_thread(lambda: run_tasks(mortal, tasks, workers=2, stop=Stop()))
    assert set(out) == {"error"} and isinstance(out["error"], RuntimeError)
    assert str(out["error"]) == (
        "a worker process died (exit code -9, e.g. killed for memory) with no stop requested: "
        "the task it held may be lost, so the run ends rather than wait"
    )


class UnreachableRay:
    """Ray's surface as ``_run_ray`` meets it when the cluster cannot be reached."""

    @staticmethod
    def is_initialized():
        return False

    @staticmethod
    def init(**kwargs):
        raise ConnectionError("Failed to get cluster ID from GCS server")


JOBS = {
    "tournament": ["--variants", "gin_rummy", "--deals", "1", "--no-progress"],
    "evaluate": [
        "--variant",
        "gin_rummy",
        "--agent",
        "random",
        "--opponents",
        "random",
        "--deals",
        "1",
        "--no-progress",
    ],
    "pimc_labels": ["--variant", "gin_rummy", "--games", "1", "--no-progress"],
}


@pytest.mark.parametrize("job", JOBS)
def test_an_unreachable_ray_cluster_is_one_clear_error(job, monkeypatch, tmp_path, capsys):
    import socket

    monkeypatch.setitem(sys.modules, "ray", UnreachableRay)
    # a port that answers (the jobs' TCP check passes) where no Ray cluster runs: ray.init fails
    listener = socket.create_server(("127.0.0.1", 0))
    address = f"127.0.0.1:{listener.getsockname()[1]}"
    said = (
        f"cannot start or reach the Ray cluster at address={address!r}: "
        "ConnectionError: Failed to get cluster ID from GCS server"
    )
    with pytest.raises(RayUnreachableError, match=re.escape(said)):
        run_tasks(steps, [("m", 1)], backend="ray", address=address)
    # the jobs say it as a usage error (exit 2), not a traceback
    main = importlib.import_module(f"experiments.{job}").main
    folder = tmp_path / "new"
    out = folder / "labels.npz" if job == "pimc_labels" else folder
    with pytest.raises(SystemExit) as exit_:
        main([*JOBS[job], "--out", str(out), "--backend", "ray", "--address", address])
    assert exit_.value.code == 2
    assert said in capsys.readouterr().err
    assert not folder.exists()  # the folder the job made for its output is taken back
    (folder / "mine").mkdir(parents=True)  # one that was there before stays, with what it holds
    with pytest.raises(SystemExit) as exit_:
        main([*JOBS[job], "--out", str(out), "--backend", "ray", "--address", address])
    assert exit_.value.code == 2 and said in capsys.readouterr().err
    assert (folder / "mine").is_dir()
    listener.close()


def test_an_unreachable_ray_address_in_the_environment_is_refused_too(monkeypatch):
    """``ray.init(address=None)`` connects to ``RAY_ADDRESS`` when it is set, and would retry
    it for minutes as it does an ``--address``."""
    import socket

    monkeypatch.setitem(sys.modules, "ray", UnreachableRay)
    spare = socket.create_server(("127.0.0.1", 0))
    port = spare.getsockname()[1]
    spare.close()  # nothing listens there now
    monkeypatch.setenv("RAY_ADDRESS", f"127.0.0.1:{port}")
    for address in (None, "auto"):  # Ray reads the variable for both
        with pytest.raises(RayUnreachableError) as refused:
            run_tasks(steps, [("m", 1)], backend="ray", address=address)
        said = str(refused.value)
        assert said.startswith(f"cannot reach the Ray cluster at address='127.0.0.1:{port}' within 10 s: ")
        assert said.endswith(" (the environment variable RAY_ADDRESS)")


def test_the_ray_address_in_use_reads_ray_address_as_ray_does(monkeypatch):
    """None and ``"auto"`` go to ``RAY_ADDRESS`` when it is set; a given address, or
    ``"local"`` (a new cluster, with ``train --backend rllib``'s ``--num-cpus``), never."""
    from experiments.common.parallel import used_ray_address

    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    assert [used_ray_address(a) for a in (None, "auto", "local", "10.0.0.1:6379")] == [
        None,
        "auto",
        "local",
        "10.0.0.1:6379",
    ]
    monkeypatch.setenv("RAY_ADDRESS", "10.0.0.2:6379")
    assert [used_ray_address(a) for a in (None, "auto", "local", "10.0.0.1:6379")] == [
        "10.0.0.2:6379",
        "10.0.0.2:6379",
        "local",
        "10.0.0.1:6379",
    ]


def double(task):
    return 2 * task


@pytest.mark.parametrize("alive", [False, True])
def test_a_stopped_ray_run_does_not_shut_down_a_cluster_the_signal_ended(alive, monkeypatch):
    """A SIGTERM to the process group ends a local cluster's raylet too, and Ray's own
    ``shutdown()`` then exits this process before the job writes what finished: after a stop
    a cluster whose processes died is left alone (and Ray's exit hook unregistered); one that
    lives on (Ctrl-C: Ray blocks SIGINT in its processes) is shut down as before."""
    import atexit

    from experiments.common import parallel

    ray = LocalRay(alive_after_stop=alive)
    unregistered, registered = [], []
    monkeypatch.setitem(sys.modules, "ray", ray)
    monkeypatch.setattr(parallel, "RAY_DEATH_WAIT_S", 0.1)
    monkeypatch.setattr(atexit, "unregister", unregistered.append)
    monkeypatch.setattr(atexit, "register", lambda *hook: registered.append(hook))  # not this process's exit
    assert run_tasks(double, [1, 2, 3], backend="ray", stop=ray.stop) == [2]
    ended = [("kill_all_processes",)] if not alive else [("shutdown",)]
    assert ray.calls == [("run", 1), ("run", 2), ("cancel", 4)] + ended
    assert unregistered == ([] if alive else [ray.shutdown])
    assert registered == ([] if alive else [(parallel._exit_at_once, 143)])


def test_a_ray_run_stopped_on_a_cluster_it_joined_shuts_down_at_once(monkeypatch):
    """``--address`` (or ``RAY_ADDRESS``, a ``ray start`` cluster): ``ray.init`` sets a node
    without processes for a cluster it only joins, which the stop waited 5 s to see die (even
    a fake whose processes look dead is not this job's to kill): ``ray.shutdown()`` at once."""
    from experiments.common import parallel

    ray = LocalRay(alive_after_stop=False, joined=True)
    monkeypatch.setitem(sys.modules, "ray", ray)
    monkeypatch.setattr(parallel.atexit, "register", lambda *hook: pytest.fail(f"registered {hook}"))
    assert run_tasks(double, [1, 2, 3], backend="ray", stop=ray.stop) == [2]
    assert ray.calls == [("run", 1), ("run", 2), ("cancel", 4), ("shutdown",)]


def test_a_ray_run_stopped_by_ctrl_c_shuts_its_cluster_down_at_once(monkeypatch):
    """Ray's processes ignore SIGINT: after Ctrl-C the cluster is shut down without waiting
    for it to die."""
    from experiments.common import parallel

    ray = LocalRay(alive_after_stop=True)
    ray.stop.signum, ray.stop.exit_code = signal.SIGINT, 130
    monkeypatch.setitem(sys.modules, "ray", ray)
    monkeypatch.setattr(parallel, "_local_cluster_ended", lambda *a: pytest.fail("waited for the cluster"))
    assert run_tasks(double, [1, 2, 3], backend="ray", stop=ray.stop) == [2]
    assert ray.calls[-1] == ("shutdown",)


def test_a_ray_task_lost_with_the_job_s_signal_is_dropped_not_raised(monkeypatch):
    """The group's SIGTERM kills Ray's workers too: a result that comes back as an error once
    a stop follows is dropped, and the run returns what finished."""
    ray = LocalRay(alive_after_stop=True)
    stop = ray.stop

    def get(ref):
        if ref == 4:
            stop.requested = True
            raise RuntimeError("WorkerCrashedError: the worker died")
        return ref

    ray.get = get
    monkeypatch.setitem(sys.modules, "ray", ray)
    assert run_tasks(double, [1, 2, 3], backend="ray", stop=stop) == [2]


def test_exit_at_once_exits_with_the_stop_s_code_even_on_a_closed_stdout(tmp_path):
    """The hook that ends a process whose Ray cluster died: the stop's code, 1 after an
    unhandled exception, and an exit even when stdout is a closed pipe."""
    import subprocess

    script = (
        "import atexit, sys\n"
        "from experiments.common.parallel import _exit_at_once\n"
        "atexit.register(_exit_at_once, 143)\n"
        "print('written', flush=True)\n"
        "if sys.argv[1] == 'raise': raise RuntimeError('after the stop')\n"
        "if sys.argv[1] == 'closed': sys.stdout.close()\n"
    )
    root = Path(__file__).resolve().parents[2]
    runs = {how: subprocess.run([sys.executable, "-c", script, how], cwd=root, capture_output=True, text=True)
            for how in ("clean", "raise", "closed")}  # fmt: skip
    assert {how: r.returncode for how, r in runs.items()} == {"clean": 143, "raise": 1, "closed": 143}
    assert runs["clean"].stdout == "written\n" and "RuntimeError: after the stop" in runs["raise"].stderr


def test_a_ray_run_that_ends_shuts_its_cluster_down(monkeypatch):
    ray = LocalRay(alive_after_stop=True)
    ray.get = lambda ref: ref  # no stop
    monkeypatch.setitem(sys.modules, "ray", ray)
    assert run_tasks(double, [1, 2, 3], backend="ray") == [2, 4, 6]
    assert ray.calls[-1] == ("shutdown",)


def test_a_sigterm_to_the_process_group_keeps_a_ray_tournament_s_games(tmp_path):
    """End to end on a real local cluster: a SIGTERM to the job's process group (``kill --
    -PGID``, a scheduler ending the job) reaches the raylet too.  The tournament used to be
    exited by Ray inside ``ray.shutdown()`` before it wrote anything when the raylet died
    first (four runs of four of a script doing this, one of two runs of this test: a race,
    which ``test_a_stopped_ray_run_does_not_shut_down_a_cluster_the_signal_ended`` pins
    without one); it now writes the games finished and exits with 143."""
    import contextlib
    import json
    import os
    import subprocess

    out, log = tmp_path / "out", tmp_path / "log.txt"
    cmd = [sys.executable, "-m", "experiments.tournament", "--variants", "gin_rummy", "--agents", "heuristic"]
    cmd += ["random", "--deals", "100000", "--backend", "ray", "--out", str(out)]
    # a progress line per chunk (output to a file, as the failing runs had); a new local cluster
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"} | {"RUMMY_ENV_PROGRESS_EVERY": "0"}
    root = Path(__file__).resolve().parents[2]
    with log.open("w") as sink:
        proc = subprocess.Popen(cmd, stdout=sink, stderr=subprocess.STDOUT, start_new_session=True, cwd=root, env=env)
    try:
        deadline = time.monotonic() + 180
        while not re.search(r"tournament: [1-9]\d*/100000 deals", log.read_text()):
            assert proc.poll() is None and time.monotonic() < deadline, log.read_text()
            time.sleep(0.2)
        time.sleep(10)  # games under way on the cluster (the failing runs were signalled about 12 s in)
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=120)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)  # whatever of the cluster is left
    text = log.read_text()
    assert proc.returncode == 143, text
    assert "tournament: stopped early (SIGTERM); kept the" in text
    summary = json.loads((out / "summary.json").read_text())
    assert summary["meta"]["partial"] is True and 0 < summary["meta"]["games"] < 200_000


def deaf(task, stopped=None):
    """A task that sleeps ``task`` seconds whatever the stop request says: the pool is still
    at work when a second Ctrl-C comes."""
    time.sleep(task)
    return task


def test_a_second_ctrl_c_during_a_pool_run_leaves_no_semaphore_to_the_resource_tracker():
    # the quit at once (os._exit) skipped the finalizers that unlink the pool's and the stop
    # event's semaphores: Python's resource tracker, outliving the job, then printed
    # "resource_tracker: There appear to be 11 leaked semaphore objects to clean up at shutdown"
    import os
    import subprocess

    script = (
        "from experiments.common.interrupt import StopRequest\n"
        "from experiments.common.parallel import run_tasks\n"
        "from tests.experiments.test_parallel_stop import deaf\n"
        "def tasks():\n"
        "    print('pool up', flush=True)\n"
        "    yield from [60, 60]\n"
        "with StopRequest('job', 'stopping') as stop:\n"
        "    run_tasks(deaf, tasks(), workers=2, stop=stop, in_process_stop=True)\n"
    )
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        cwd=root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        assert proc.stdout.readline() == "pool up\n"
        time.sleep(1.0)  # the workers started (they hold the tracker's pipe too)
        os.killpg(proc.pid, signal.SIGINT)  # the whole group, as a terminal's Ctrl-C
        time.sleep(1.0)  # a second Ctrl-C, not the first one's echo (interrupt.SAME_SIGNAL_S)
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=60)  # until the tracker, writing to the same stderr, ends too
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
    assert (proc.returncode, out) == (130, "")
    assert err == "\njob: SIGINT: stopping (press Ctrl-C again to quit now)\n\njob: stopped at once (SIGINT again)\n"
