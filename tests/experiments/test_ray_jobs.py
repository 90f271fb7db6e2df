"""``experiments.evaluate`` and ``experiments.pimc_labels`` on the tournament's Ray backend
(``--backend ray``, issue 26): the same rows and the same labels as local processes.  The
tests of this module share one local cluster (a job that finds Ray running leaves it
running): starting one, and its worker processes importing the project, costs about 5 s a
test.  pytest stops it before the worker runs a test of another module, so that no other
test finds Ray running."""

import csv
import json

import numpy as np
import pytest
import ray  # the distributed extra, part of the test extra: never skipped

from experiments import evaluate, pimc_labels
from tests.helpers import whole


@pytest.fixture(scope="module")
def cluster():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def test_evaluate_on_ray_gives_the_local_rows(cluster, tmp_path):
    args = ["--variant", "rummy", "--agent", "heuristic", "--opponents", "random", "heuristic:style=defensive"]
    args += ["--deals", "4", "--seed", "2", "--no-progress"]
    assert evaluate.main([*args, "--workers", "1", "--out", str(tmp_path / "local")]) == 0
    assert evaluate.main([*args, "--backend", "ray", "--out", str(tmp_path / "ray")]) == 0
    assert ray.is_initialized()  # the job used the running cluster and left it running
    local, on_ray = (json.loads((tmp_path / d / "evaluation.json").read_text()) for d in ("local", "ray"))
    assert [r["opponent"] for r in on_ray["rows"]] == ["random", "heuristic:style=defensive"]
    assert [r["games"] for r in on_ray["rows"]] == [8, 8]
    assert on_ray["rows"] == local["rows"]


def test_pimc_labels_on_ray_gives_the_local_labels(cluster, tmp_path, monkeypatch):
    monkeypatch.setattr(pimc_labels, "CHUNK_GAMES", 1)  # two chunks, two Ray tasks
    args = ["--variant", "rummy", "--agent", "pimc:worlds=2", "--games", "2", "--seed", "7", "--no-progress"]
    assert pimc_labels.main([*args, "--out", str(tmp_path / "local.npz")]) == 0
    assert pimc_labels.main([*args, "--backend", "ray", "--out", str(tmp_path / "ray.npz")]) == 0
    local, on_ray = np.load(tmp_path / "local.npz"), np.load(tmp_path / "ray.npz")
    assert sorted(on_ray.files) == sorted(local.files)
    # the search in seat 0 of game 0 and seat 1 of game 1 (the stream's numbers, chunk or not)
    assert len(on_ray["result"]) == 2 and len(on_ray["search"]) == 54 and set(on_ray["game"]) == {0, 1}
    assert on_ray["deal"].tolist() == [0, 1]
    for key in local.files:
        if key != "meta":
            np.testing.assert_array_equal(on_ray[key], local[key], err_msg=key)


def test_selfplay_evaluations_on_ray_give_the_local_rows(cluster, tmp_path):
    from experiments.selfplay.run import main as selfplay

    args = [
        "--variant", "rummy", "--num-envs", "32", "--num-steps", "8", "--timesteps", "256",
        "--hidden", "16,16", "--minibatch-size", "128", "--eval-deals", "6", "--final-eval-deals", "8",
        "--eval-opponents", "random", "--seed", "4", "--no-progress", "--eval-every", "100000",
        "--checkpoint-every", "100000",
    ]  # fmt: skip
    assert selfplay([*args, "--out", str(tmp_path / "local")]) == 0
    assert selfplay([*args, "--backend", "ray", "--out", str(tmp_path / "ray")]) == 0
    rows = {}
    for d in ("local", "ray"):
        with open(tmp_path / d / "eval.csv") as f:
            rows[d] = [(r["opponent"], r["games"], r["final"], r["win_rate"]) for r in csv.DictReader(f)]
    assert rows["ray"] == rows["local"] == [("random", "12", "0", "0.5"), ("random", "16", "1", "0.4375")]


def _closed_port() -> int:
    """A local port nothing listens on (bound, then closed)."""
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_an_address_that_does_not_answer_is_refused_before_any_folder(tmp_path, capsys, monkeypatch):
    """``ray.init`` keeps retrying such an address for minutes; every job asks first."""
    from experiments import selfplay, train
    from experiments.common.parallel import RayUnreachableError, check_ray_address
    from experiments.tournament.cli import main as tournament

    address = f"127.0.0.1:{_closed_port()}"
    out = tmp_path / "never"
    runs = [
        (tournament, ["--variants", "rummy", "--agents", "random", "heuristic", "--deals", "1"]),
        (evaluate.main, ["--variant", "rummy", "--agent", "random", "--opponents", "heuristic", "--deals", "1"]),
        (pimc_labels.main, ["--variant", "gin_rummy", "--games", "1"]),
        (train.main, ["--variant", "gin_rummy", "--backend", "rllib", "--iterations", "1"]),
        (selfplay.main, ["--variant", "rummy", "--minutes", "0.01"]),
    ]
    for main, args in runs:
        backend = [] if "rllib" in args else ["--backend", "ray"]
        with pytest.raises(SystemExit) as stop:
            main([*args, *backend, "--address", address, "--out", str(out)])
        assert stop.value.code == 2, main
        assert f"cannot reach the Ray cluster at address={address!r} within 10 s" in capsys.readouterr().err, main
        assert not out.exists()
    # without --address, Ray goes to RAY_ADDRESS: asked too, before the folder, when the job uses Ray
    monkeypatch.setenv("RAY_ADDRESS", address)
    for main, args in runs:
        backend = [] if "rllib" in args else ["--backend", "ray"]
        with pytest.raises(SystemExit) as stop:
            main([*args, *backend, "--out", str(out)])
        assert stop.value.code == 2, main
        said = capsys.readouterr().err
        assert f"cannot reach the Ray cluster at address={address!r} within 10 s" in said, main
        assert "(the environment variable RAY_ADDRESS)" in said, main
        assert not out.exists()
    # a job on local processes never calls ray.init: the variable is not its business
    evaluate.main(["--variant", "rummy", "--agent", "random", "--opponents", "heuristic", "--deals", "1",
                   "--workers", "1", "--out", str(out), "--no-progress"])  # fmt: skip
    assert (out / "evaluation.json").exists()
    monkeypatch.delenv("RAY_ADDRESS")
    check_ray_address(None)  # a local cluster: nothing to ask
    check_ray_address("auto")
    check_ray_address("local")  # Ray starts a new cluster
    with pytest.raises(
        RayUnreachableError, match=whole("address='cluster' is not host:port (or ray://host:port, auto or local)")
    ):
        check_ray_address("cluster")


def test_a_broken_agent_on_ray_stops_the_tournament_with_the_one_line_error(cluster, tmp_path, capsys):
    from experiments import tournament

    agent = "tests.experiments.custom_agent:FirstIllegalAgent"
    argv = ["--variants", "gin_rummy", "--agents", "random", agent, "--deals", "4", "--backend", "ray"]
    assert tournament.main([*argv, "--no-progress", "--out", str(tmp_path / "out")]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"python -m experiments.tournament: error: agent {agent!r} in seat ")
    assert err[0].endswith("which is not legal here: the legal actions are 105 (draw upcard), 106 (pass)")
    assert not (tmp_path / "out").exists() and ray.is_initialized()
