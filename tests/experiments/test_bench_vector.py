"""``python -m experiments.benchmark --vector`` and ``experiments.dev.vector_differential``
run end to end on tiny budgets and refuse bad use (figures are never asserted)."""

import pytest

from experiments import benchmark
from experiments.benchmark import vector as bench_vector
from experiments.dev import vector_differential
from tests.helpers import usage_error, whole


def test_benchmark_vector_prints_the_table_with_env_side_by_side(capsys):
    assert benchmark.main(["--vector", "--variant", "gin_rummy", "--seconds", "0.05"]) == 0
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| gin_rummy")]
    assert [r.split("|")[2].strip() for r in rows] == ["env()"] + ["GinRummyVec"] * 6
    # batches of 1 and 64 games run on one thread even when asked for two: one row each
    assert [r.split("|")[3].strip() for r in rows[1:]] == ["1", "64", "1024", "1024", "8192", "8192"]
    assert [r.split("|")[4].strip() for r in rows[1:]] == ["1", "1", "1", "2", "1", "2"]


def test_benchmark_vector_passes_the_batch_sizes_and_threads_on(capsys):
    args = ["--vector", "--variant", "rummy", "--seconds", "0.05", "--num-envs", "256", "--threads", "2"]
    assert benchmark.main(args) == 0
    rows = [line.split("|") for line in capsys.readouterr().out.splitlines() if line.startswith("| rummy")]
    assert [(r[2].strip(), r[3].strip(), r[4].strip()) for r in rows] == [("env()", "1", "1"), ("RummyVec", "256", "2")]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--seconds", "0"], "--seconds must be a positive finite number of seconds per row, got 0.0"),
        (["--seconds", "nan"], "--seconds must be a positive finite number of seconds per row, got nan"),
        (["--seconds", "inf"], "--seconds must be a positive finite number of seconds per row, got inf"),
        (["--warmup-hands", "-1"], "--warmup-hands must be a finite number >= 0 of env() hand lengths, got -1.0"),
        (["--warmup-hands", "nan"], "--warmup-hands must be a finite number >= 0 of env() hand lengths, got nan"),
        # worded as the six main jobs word a seed (experiments.common.argv.seed_refusal)
        (
            ["--seed", "-1"],
            f"--seed must be an int from 0 to {2**64 - 1} (the batched engines take 64-bit seeds), got -1",
        ),
    ],
)
def test_bench_vector_names_the_bad_value(argv, message, capsys):
    with pytest.raises(SystemExit) as stop:
        bench_vector.main(argv)
    assert stop.value.code == 2 and usage_error(capsys.readouterr().err, message)


def test_bench_vector_refuses_bad_arguments(capsys):
    with pytest.raises(SystemExit) as stop:
        bench_vector.main(["--seed", str(2**64)])  # refused before the table's header, not in the engine
    assert stop.value.code == 2
    said = capsys.readouterr()
    assert said.err.endswith(
        "error: --seed must be an int from 0 to 18446744073709551615 (the batched engines take 64-bit seeds),"
        " got 18446744073709551616\n"
    )
    assert "numba" not in said.out
    with pytest.raises(
        ValueError, match=whole("no batched engine for 'hearts': use one of gin_rummy, rummy, crazy_rummy, rummikub")
    ):
        bench_vector.vec_class("hearts")


@pytest.mark.parametrize("episode", ["hand", "game"])
def test_the_differential_job_compares_every_configuration(episode, capsys):
    assert vector_differential.main(["--episode", episode, "--decisions", "300", "--num-envs", "4"]) == 0
    d = vector_differential
    lines = capsys.readouterr().out.splitlines()
    rows = [line for line in lines if line.startswith("| ") and line.split("|")[1].strip() in d.ENGINES]
    expected = [variant for variant, (_, _, sets) in d.ENGINES.items() for _ in sets[episode]]
    assert "rummikub" in expected
    assert [r.split("|")[1].strip() for r in rows] == expected
    assert all(r.split("|")[5].strip() == "0" for r in rows)
    total = sum(int(r.split("|")[3].strip().replace(",", "")) for r in rows)
    assert lines[-1] == f"{total:,} decisions compared field by field: 0 mismatches"


def test_benchmark_vector_measures_crazy_rummy_beside_env(capsys):
    args = ["--variant", "crazy_rummy", "--seconds", "0.05", "--num-envs", "64", "--threads", "1"]
    assert bench_vector.main(args) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("| crazy_rummy")]
    assert [r.split("|")[2].strip() for r in rows] == ["env()", "CrazyRummyVec"]


def test_benchmark_vector_splits_rummikub_time_into_mask_step_and_observation(capsys):
    args = ["--variant", "rummikub", "--seconds", "0.05", "--num-envs", "4", "--threads", "1", "--warmup-hands", "0"]
    assert bench_vector.main(args) == 0
    lines = capsys.readouterr().out.splitlines()
    header = next(line for line in lines if line.startswith("| variant"))
    assert header.split("|")[-4:-1] == [" mask us ", " step us ", " observation us "]
    rows = [line for line in lines if line.startswith("| rummikub")]
    assert [r.split("|")[2].strip() for r in rows] == ["env()", "RummikubVec"]
    assert rows[0].split("|")[-2].strip() == "" and float(rows[1].split("|")[-4]) > 0


def _record_warmups(monkeypatch) -> list[int]:
    """Stub the timed parts (env()'s mean hand: 100 steps); returns the list that each
    batch row's ``warmup_steps`` is appended to."""
    asked: list[int] = []
    env_figures = {"steps_per_s": 1.0, "steps_per_episode": 100.0, "reset_us": 1.0}
    monkeypatch.setattr(bench_vector, "measure_env", lambda *a, **k: env_figures)
    monkeypatch.setattr(
        bench_vector,
        "measure_vector",
        lambda variant, n, t, seconds, seed, warmup_steps: asked.append(warmup_steps) or {"decisions_per_s": 1.0},
    )
    monkeypatch.setattr(bench_vector, "format_table", lambda rows: "")
    return asked


@pytest.mark.parametrize(
    ("variant", "argv", "steps"),
    [("rummikub", [], 300), ("rummikub", ["--warmup-hands", "0.5"], 50), ("gin_rummy", [], 3)],
)
def test_a_rummikub_batch_warms_up_three_env_hands_worth_by_default(variant, argv, steps, monkeypatch):
    """The batch plays three env() hands' worth of untimed steps first (a fraction with
    ``--warmup-hands``); the card games' batches only touch their buffers (3 steps)."""
    asked = _record_warmups(monkeypatch)
    assert bench_vector.main(["--variant", variant, "--num-envs", "4", "--threads", "1", *argv]) == 0
    assert asked == [steps]
    asked.clear()
    assert len(bench_vector.run([variant], [4], [1], 0.01)) == 2  # run()'s own default too
    assert asked == [300 if variant == "rummikub" else 3]


class _OffByOneReward(vector_differential.ReferenceGinRummyVec):
    """The reference engine with one wrong number: game 2's seat-1 reward at the third random step."""

    calls = 0

    def step_random(self):
        batch = super().step_random()
        type(self).calls += 1
        if type(self).calls == 3:
            batch.rewards[2, 1] += 1.0
        return batch


def test_the_differential_reports_the_first_field_that_differs(monkeypatch, capsys):
    d = vector_differential
    _OffByOneReward.calls = 0
    r = d.compare(d.GinRummyVec, _OffByOneReward, {}, 500, 4, seed=0)
    assert (r["mismatches"], r["first_mismatch"]) == (1, (3, "rewards", 2))
    _OffByOneReward.calls = 0
    monkeypatch.setitem(d.ENGINES, "gin_rummy", (d.GinRummyVec, _OffByOneReward, {"hand": [{}], "game": []}))
    assert d.main(["--variant", "gin_rummy", "--decisions", "200", "--num-envs", "4"]) == 1
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("| gin_rummy"))
    assert "| 1 first: (3, 'rewards', 2) |" in row
