"""``python -m experiments.benchmark --vector`` and ``experiments.vector_differential``
run end to end on tiny budgets and refuse bad use (figures are never asserted)."""

import pytest

from experiments import bench_vector, benchmark, vector_differential


def test_benchmark_vector_prints_the_table_with_env_side_by_side(capsys):
    assert benchmark.main(["--vector", "--variant", "gin_rummy", "--seconds", "0.05"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| gin_rummy")]
    assert [r.split("|")[2].strip() for r in rows] == ["env()"] + ["GinRummyVec"] * 8
    assert [r.split("|")[3].strip() for r in rows[1:]] == ["1", "1", "64", "64", "1024", "1024", "8192", "8192"]
    assert [r.split("|")[4].strip() for r in rows[1:]] == ["1", "1", "1", "1", "1", "2", "1", "2"]


def test_bench_vector_refuses_bad_arguments():
    with pytest.raises(SystemExit):
        bench_vector.main(["--seconds", "0"])
    with pytest.raises(ValueError, match="no batched engine for 'rummikub'"):
        bench_vector.vec_class("rummikub")


@pytest.mark.parametrize("episode", ["hand", "game"])
def test_the_differential_job_compares_every_configuration(episode, capsys):
    assert vector_differential.main(["--episode", episode, "--decisions", "300", "--num-envs", "4"]) == 0
    rows = [
        line
        for line in capsys.readouterr().out.splitlines()
        if line.startswith("| gin_rummy") or line.startswith("| rummy")
    ]
    d = vector_differential
    assert len(rows) == (len(d.GIN) + len(d.RUMMY) if episode == "hand" else len(d.GIN_GAMES) + len(d.RUMMY_GAMES))
    assert all(r.split("|")[5].strip() == "0" for r in rows)
