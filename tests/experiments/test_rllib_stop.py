"""``experiments.train --backend rllib`` stopped by a SIGTERM to its process group, on the fake
local Ray cluster of ``fake_ray`` (a real run takes about 30 s): the job ends its
cluster as the tournament does and keeps its files, or ends at once when nothing is trained."""

import sys
import threading
from pathlib import Path

import pytest

from tests.experiments.fake_ray import LocalRay


class RLlibAlgo:
    """RLlib's algorithm as ``train --backend rllib`` drives it, on a :class:`LocalRay`: its
    second iteration comes with the stop request (the cluster ends with it, or not)."""

    def __init__(self, ray):
        self.ray, self.iteration = ray, 0

    def train(self):
        self.iteration += 1
        self.ray.stop.requested = self.ray.stop.requested or self.iteration == 2
        runners = {"num_episodes_lifetime": 3 * self.iteration, "episode_len_mean": 70.5}
        return {"env_runners": runners, "num_env_steps_sampled_lifetime": 200 * self.iteration}

    def save_to_path(self, path):
        Path(path).mkdir()
        self.ray.calls.append(("save_to_path",))

    def stop(self):
        self.ray.calls.append(("algo.stop",))


@pytest.mark.parametrize("alive", [False, True])
def test_a_stopped_rllib_training_keeps_its_files_and_leaves_a_cluster_the_signal_ended(alive, monkeypatch, tmp_path):
    """``train --backend rllib`` stopped by a SIGTERM to its process group: ``ray.shutdown()``
    on the cluster the signal ended took 8 s (and may exit the process from Ray's C++ side
    before progress.csv and evaluation.json are written, as it did the tournament's); the
    job now ends its cluster as the tournament does, and writes both."""
    import atexit
    import json
    from types import SimpleNamespace

    from experiments.common import parallel
    from experiments.train import rllib  # imports the real ray.rllib, before the fake Ray

    ray = LocalRay(alive_after_stop=alive)
    registered = []
    monkeypatch.setattr(rllib, "ppo_config", lambda *args: SimpleNamespace(build_algo=lambda: RLlibAlgo(ray)))
    monkeypatch.setitem(sys.modules, "ray", ray)
    monkeypatch.setattr(parallel, "RAY_DEATH_WAIT_S", 0.1)
    monkeypatch.setattr(atexit, "unregister", lambda hook: registered.append(("unregister", hook)))
    monkeypatch.setattr(atexit, "register", lambda *hook: registered.append(hook))  # not this process's exit
    monkeypatch.setattr(rllib, "time", SimpleNamespace(perf_counter=lambda: 0.0))  # progress.csv's exact seconds
    summary = rllib.train("gin_rummy_v0", {}, 5, 0, tmp_path, eval_deals=0, stop=ray.stop)
    ended = [("shutdown",)] if alive else [("kill_all_processes",)]
    assert ray.calls == [("save_to_path",), ("algo.stop",)] + ended
    assert registered == ([] if alive else [("unregister", ray.shutdown), (parallel._exit_at_once, 143)])
    assert (tmp_path / "progress.csv").read_text() == (
        "iteration,episodes,env_steps,episode_len_mean,train_seconds\n1,3,200,70.5,0.0\n2,6,400,70.5,0.0\n"
    )
    assert (summary["iterations"], summary["env_steps"], summary["stopped_early"]) == (2, 400, True)
    assert json.loads((tmp_path / "evaluation.json").read_text()) == summary


def test_a_sigterm_that_ends_the_cluster_while_rllib_builds_ends_the_job_at_once(monkeypatch, tmp_path, capsys):
    """A SIGTERM to the process group while RLlib builds its env runners: RLlib waited for the
    dead cluster's actor without a timeout until Ray's C++ side ended the process 60 s later
    with 1; nothing is trained yet, so the job now ends at once with 143 and one line."""
    import atexit
    from types import SimpleNamespace

    from experiments.common import parallel
    from experiments.train import rllib  # imports the real ray.rllib, before the fake Ray

    ray, exited = LocalRay(alive_after_stop=False), threading.Event()
    codes = []

    class Exited(Exception):
        pass

    def build_algo():
        ray.stop.requested = True  # the signal comes while RLlib waits for its env runners
        if exited.wait(5):
            raise Exited  # os._exit in the job: nothing after it runs
        return RLlibAlgo(ray)  # the build waited for the dead cluster's actor

    def exit_at_once(code):
        codes.append(code)
        exited.set()

    monkeypatch.setattr(rllib, "ppo_config", lambda *args: SimpleNamespace(build_algo=build_algo))
    monkeypatch.setitem(sys.modules, "ray", ray)
    monkeypatch.setattr(parallel, "_exit_at_once", exit_at_once)
    monkeypatch.setattr(parallel, "RAY_DEATH_WAIT_S", 0.1)
    monkeypatch.setattr(atexit, "unregister", lambda hook: None)
    monkeypatch.setattr(atexit, "register", lambda *hook: None)  # not this process's exit
    with pytest.raises(Exited):
        rllib.train("gin_rummy_v0", {}, 5, 0, tmp_path, eval_deals=0, stop=ray.stop)
    # the watch's kill, then shut_down_ray's from train's ``finally``: the real os._exit ends the job before it
    assert codes == [143] and ray.calls == [("kill_all_processes",), ("kill_all_processes",)]
    assert capsys.readouterr().err == (
        "train: stopped early (SIGTERM) while building the RLlib algorithm, its Ray cluster ended by the "
        "same signal: nothing was kept\n"
    )
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("case", ["ctrl-c", "cluster alive", "joined", "initialized"])
def test_the_watch_of_the_build_leaves_the_job_alone_unless_sigterm_ended_its_own_cluster(case, monkeypatch, tmp_path):
    """A stop during RLlib's build ends the job at once only after a SIGTERM and with a process
    of a cluster this process started dead.  Not after Ctrl-C, not while the cluster lives,
    and not on a cluster this process only joined (``--address``: ``ray.init`` sets a node
    without processes) or found started: even when the fake's processes look dead, the build
    returns and the job trains, keeps its files and ends Ray as usual."""
    import atexit
    import signal
    import time
    from types import SimpleNamespace

    from experiments.common import parallel
    from experiments.train import rllib  # imports the real ray.rllib, before the fake Ray

    ray = LocalRay(alive_after_stop=case == "cluster alive", joined=case == "joined")
    ray.initialized = case == "initialized"
    if case == "ctrl-c":
        ray.stop.signum, ray.stop.exit_code = signal.SIGINT, 130
    codes, registered = [], []

    def build_algo():
        ray.stop.requested = True
        time.sleep(20 * parallel._POLL_S)  # the watch looks about 20 times meanwhile
        return RLlibAlgo(ray)

    monkeypatch.setattr(rllib, "ppo_config", lambda *args: SimpleNamespace(build_algo=build_algo))
    monkeypatch.setitem(sys.modules, "ray", ray)
    monkeypatch.setattr(parallel, "_POLL_S", 0.01)
    monkeypatch.setattr(parallel, "_exit_at_once", codes.append)
    monkeypatch.setattr(parallel, "RAY_DEATH_WAIT_S", 0.1)
    monkeypatch.setattr(atexit, "unregister", lambda hook: registered.append(("unregister", hook)))
    monkeypatch.setattr(atexit, "register", lambda *hook: registered.append(hook))  # not this process's exit
    monkeypatch.setattr(rllib, "time", SimpleNamespace(perf_counter=lambda: 0.0))  # progress.csv's exact seconds
    summary = rllib.train("gin_rummy_v0", {}, 5, 0, tmp_path, eval_deals=0, stop=ray.stop)
    ended = [] if case == "initialized" else [("shutdown",)]  # a cluster found started is left as it was
    assert ray.calls == [("save_to_path",), ("algo.stop",)] + ended
    assert (codes, registered) == ([], [])
    assert (summary["iterations"], summary["stopped_early"]) == (1, True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["checkpoint", "evaluation.json", "progress.csv"]


def test_the_watch_has_ended_when_its_block_does(monkeypatch):
    """A watch that was looking at the cluster when the build returned could still end the
    job once it trains: the block's end waits for the watch to end."""
    import time

    from experiments.common import parallel

    ray, looking, looked = LocalRay(alive_after_stop=True), threading.Event(), []

    def ended_by_stop(*args, **kwargs):
        looking.set()
        time.sleep(0.3)
        looked.append(True)
        return False

    monkeypatch.setattr(parallel, "_POLL_S", 0.01)
    monkeypatch.setattr(parallel, "_ended_by_stop", ended_by_stop)
    with parallel.ended_with_its_cluster(ray, ray.stop, "train", "building"):
        assert looking.wait(5)
    assert looked == [True]
