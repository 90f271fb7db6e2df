"""``python -m experiments.benchmark``: it measures every variant and refuses bad use."""

import pytest

from experiments import benchmark
from experiments.benchmark.rummikub import format_rummikub, measure_rummikub


def test_benchmark_runs_every_variant_and_refuses_bad_seconds(capsys):
    assert benchmark.main(["--seconds", "0.05"]) == 0
    out = capsys.readouterr().out
    for variant in ("rummy_v0", "crazy_rummy_v0", "gin_rummy_v0"):
        assert f"rummy_env {variant}.env()" in out
    for bad in ("0", "-1", "nan", "inf"):
        with pytest.raises(SystemExit) as exit_info:
            benchmark.main(["--seconds", bad])
        assert exit_info.value.code == 2
        assert "--seconds must be a positive number" in capsys.readouterr().err


def test_rummikub_measurement_times_the_solver_in_real_hands(capsys):
    result = measure_rummikub(2, seed=1, oracle_positions=10)
    assert result["hands"] == 2 and result["decisions"] > 50
    assert result["mask"]["n"] >= result["decisions"] and result["commit"]["n"] >= 1
    assert result["partition_vs_oracle"]["agree"] == result["partition_vs_oracle"]["positions"] > 0
    text = format_rummikub(result)
    assert "legal-tile mask (ms)" in text and "partition check vs integer program" in text
    with pytest.raises(SystemExit):
        benchmark.main(["--variant", "rummikub", "--hands", "0"])
