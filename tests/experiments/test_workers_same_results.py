"""Same seed, same results, whatever the processes and threads: a tournament of seeded
searches and a learned policy and an evaluation spread over two workers, ``pimc_labels``
on two workers, and self-play with two simulation threads or two evaluation workers give
exactly what one worker or thread gives; a tournament of every variant gives the same games
and records under two string-hash seeds (``PYTHONHASHSEED``).

(``experiments.tournament`` and ``experiments.evaluate`` with the heuristic and random
agents, and the engines' worker threads and ``prange`` drivers, are checked in
``test_tournament.py``, ``test_evaluate.py``, ``tests/vector/test_vector_api.py`` and
``test_rummikub_vec.py``.)
"""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch

import rummy_env
from agents import make_agent
from experiments import evaluate, pimc_labels, tournament, train

ROOT = Path(__file__).resolve().parents[2]
GIN_MODEL = ROOT / "docs/results/selfplay-gin/model.pt"
LEAGUE = ROOT / "docs/results/selfplay-gin-league/model.pt"


#: a folder where the probes below note the process they ran in (spawned workers inherit it)
PIDS = "RUMMY_TEST_WORKER_PIDS"
LABEL_AGENT = f"pimc:worlds=2,guide={LEAGUE},prior=0.05"  # a search and, through its guide, a policy


def _note_process() -> None:
    folder = os.environ.get(PIDS)
    if folder:
        (Path(folder) / str(os.getpid())).touch()


def random_probe(env, seed):
    """``random``, noting the process it plays in."""
    _note_process()
    return make_agent("random", env, seed=seed)


def search_probe(env, seed):
    """:data:`LABEL_AGENT`, noting the process it searches in."""
    _note_process()
    return make_agent(LABEL_AGENT, env, seed=seed)


def _workers_used(folder: Path) -> int:
    return len({p.name for p in folder.iterdir()} - {str(os.getpid())})


def test_a_tournament_of_searches_and_a_policy_does_not_depend_on_the_workers(tmp_path, monkeypatch):
    # one deal per chunk, 12 chunks: both workers play some (each builds its agents
    # afresh, seeded per deal; the policy runs on 1 torch thread there and on torch's
    # default in this process)
    probe = f"{__name__}:random_probe"
    agents = [probe, "pimc:worlds=2", "ismcts:simulations=3,depth=6", f"policy:{GIN_MODEL}"]
    records = {}
    for workers in (1, 2):
        (tmp_path / f"pids{workers}").mkdir()
        monkeypatch.setenv(PIDS, str(tmp_path / f"pids{workers}"))
        chunks = tournament.make_chunks(["gin_rummy_v0"], agents, 2, {}, seed=0, chunk_size=1)
        assert len(chunks) == 12  # 6 lineups x 2 deals
        records[workers] = tournament.run_local(chunks, workers, progress=False)
    # in worker processes (usually both; one may take every chunk if it starts first)
    assert _workers_used(tmp_path / "pids1") == 0 and _workers_used(tmp_path / "pids2") >= 1
    assert len(records[1]) == 24 and records[1] == records[2]  # 2 seat rotations per deal


def test_an_evaluation_split_over_two_workers_gives_the_same_rows_and_games(tmp_path, monkeypatch):
    # chunks of one deal (the job's are 25): the deals of one opponent are split over the workers
    whole = evaluate.panel_chunks
    monkeypatch.setattr(evaluate, "panel_chunks", lambda *args, chunk_size: whole(*args, chunk_size=1))
    results, games = {}, {}
    for workers in (1, 2):
        (tmp_path / f"pids{workers}").mkdir()
        monkeypatch.setenv(PIDS, str(tmp_path / f"pids{workers}"))
        out = tmp_path / f"w{workers}"
        args = ["--variant", "gin_rummy", "--agent", "pimc:worlds=2", "--opponents", f"{__name__}:random_probe"]
        args += ["--deals", "6", "--seed", "2", "--workers", str(workers), "--no-progress", "--out", str(out)]
        assert evaluate.main(args) == 0
        results[workers] = json.loads((out / "evaluation.json").read_text())
        results[workers].pop("seconds")  # wall time
        games[workers] = _rows(out / "games.csv")
    assert _workers_used(tmp_path / "pids1") == 0 and _workers_used(tmp_path / "pids2") >= 1
    assert results[1] == results[2] and results[1]["games"] == 12
    assert games[1] == games[2] and len(games[1]) == 12


def test_pimc_labels_do_not_depend_on_the_workers(tmp_path, monkeypatch):
    monkeypatch.setattr(pimc_labels, "CHUNK_GAMES", 1)  # four chunks, for both workers to take
    labels = {}
    for workers in (1, 2):
        (tmp_path / f"pids{workers}").mkdir()
        monkeypatch.setenv(PIDS, str(tmp_path / f"pids{workers}"))
        out = tmp_path / f"w{workers}.npz"
        args = ["--agent", f"{__name__}:search_probe", "--games", "4", "--seed", "5", "--workers", str(workers)]
        assert pimc_labels.main([*args, "--no-progress", "--out", str(out)]) == 0
        labels[workers] = pimc_labels.load_labels(out)
        labels[workers]["meta"].pop("seconds")  # wall time
    assert _workers_used(tmp_path / "pids1") == 0 and _workers_used(tmp_path / "pids2") >= 1
    one, two = labels[1], labels[2]
    assert one.keys() == two.keys() and one["meta"] == two["meta"]
    for key in sorted(one.keys() - {"meta"}):
        assert one[key].dtype == two[key].dtype and np.array_equal(one[key], two[key], equal_nan=True), key
    assert sorted(set(one["game"].tolist())) == [0, 1, 2, 3] and len(one["search"]) > 10


def test_a_tournament_does_not_depend_on_the_string_hash_seed(tmp_path):
    # Python salts str hashes per process (PYTHONHASHSEED): an agent, env or job that
    # iterated a set or dict keyed by strings in hash order would play or write another
    # game in another process; the heuristics, searches and every variant's rules run here
    agents = ["heuristic", "pimc:worlds=2", "ismcts:simulations=4"]
    out = {}
    for salt in ("1", "2"):
        args = ["--variants", *rummy_env.VARIANTS, "--agents", *agents, "--deals", "1", "--seed", "1"]
        folder = tmp_path / f"rec{salt}"
        args += ["--workers", "1", "--no-progress", "--out", str(tmp_path / salt), "--record", str(folder)]
        env = {**os.environ, "PYTHONHASHSEED": salt, "PYTHONPATH": str(ROOT)}
        subprocess.run(
            [sys.executable, "-m", "experiments.tournament", *args], env=env, cwd=ROOT, check=True, capture_output=True
        )
        out[salt] = (tmp_path / salt / "games.csv").read_text(), {p.name: p.read_text() for p in folder.iterdir()}
    games, records = out["1"]
    # 3 lineups x 2 rotations x 2 seats in each two-player variant, Crazy Rummy's 7 x 3 x 3
    assert games.count("\n") == 1 + 3 * 12 + 63
    assert len(records) == 3 * 3 + 7 and out["1"] == out["2"]  # every lineup's first game


# ------------------------------------------------------------------------ self-play
def _selfplay(out: Path, variant: str, **settings) -> Path:
    """A tiny self-play run; ``num_envs`` makes two simulation threads really run two
    (the card engines give a thread 128 games at least, Rummikub's 8)."""
    num_envs = {"gin_rummy": 256, "rummikub": 16}[variant]
    args = [
        "--variant", variant, "--num-envs", str(num_envs), "--num-steps", "8", "--timesteps", "4000",
        "--hidden", "32,32", "--minibatch-size", "512", "--eval-deals", "2", "--final-eval-deals", "2",
        "--seed", "3", "--no-progress", "--torch-threads", "1",
        "--eval-every", "100000", "--checkpoint-every", "100000",  # no evaluation or checkpoint by the clock
    ]  # fmt: skip
    for name, value in settings.items():
        args += [f"--{name.replace('_', '-')}", str(value)]
    assert train.main(["--algo", "selfplay", *args, "--out", str(out)]) == 0
    return out


#: scalars.csv's columns of wall time (the rest must be equal)
TIMING = {"minutes", "steps_per_s", "rollout_s", "update_s"}


def _rows(path: Path) -> list[dict]:
    with open(path) as f:
        return [
            {k: v for k, v in row.items() if k not in TIMING and not k.endswith("_share")} for row in csv.DictReader(f)
        ]


def _same_run(a: Path, b: Path) -> None:
    from agents.torch_policy import load_model

    ma, mb = load_model(a / "model.pt"), load_model(b / "model.pt")
    assert ma.config() == mb.config()
    sa, sb = ma.state_dict(), mb.state_dict()
    assert sa.keys() == sb.keys()
    assert [k for k in sa if not torch.equal(sa[k], sb[k])] == []  # bit for bit
    for name in ("scalars.csv", "eval.csv"):
        rows = _rows(a / name)
        assert len(rows) >= 2 and rows == _rows(b / name), name


@pytest.fixture(scope="module")
def one_thread(tmp_path_factory):
    """The runs with one simulation thread and one evaluation worker, per variant."""
    runs: dict[str, Path] = {}

    def get(variant: str) -> Path:
        if variant not in runs:
            runs[variant] = _selfplay(tmp_path_factory.mktemp(f"{variant}-1"), variant, sim_threads=1, eval_workers=1)
        return runs[variant]

    return get


@pytest.mark.parametrize(
    ("variant", "setting"),
    [("gin_rummy", "sim_threads"), ("rummikub", "sim_threads"), ("gin_rummy", "eval_workers")],
)
def test_selfplay_does_not_depend_on_simulation_threads_or_evaluation_workers(variant, setting, one_thread, tmp_path):
    settings = {"sim_threads": 1, "eval_workers": 1, setting: 2}
    _same_run(one_thread(variant), _selfplay(tmp_path / "two", variant, **settings))
