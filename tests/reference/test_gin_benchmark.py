"""``python -m experiments.benchmark --variant gin_rummy --compare``: its pieces run and
refuse bad use.  (RLCard comes with the ``bench`` extra only, so CI measures our env and
OpenSpiel here; the figures are printed by the job, never asserted.)"""

import pytest

from experiments import benchmark
from experiments.benchmark import envs
from rummy_env import gin_rummy_v0


def test_our_env_and_openspiel_are_measured_alike():
    ours = envs.measure_env(lambda: gin_rummy_v0.env(), 0.2)
    theirs = envs.measure_openspiel_gin(0.2)
    for row in (ours, theirs):
        assert row["steps_per_s"] > 0 and row["episodes"] >= 1 and row["reset_us"] > 0
        assert 60 <= row["steps_per_episode"] <= 200  # random play: about 110 decisions a hand
    text = envs.format_ratios([{"what": "ours", **ours}, {"what": "OpenSpiel gin_rummy", **theirs}])
    assert text.startswith("ours / OpenSpiel gin_rummy: ") and "x decision steps/s" in text


def test_compare_is_for_gin_rummy_only(capsys):
    with pytest.raises(SystemExit) as exit_info:
        benchmark.main(["--variant", "rummy", "--compare", "--seconds", "0.1"])
    assert exit_info.value.code == 2
    assert "--compare measures Gin Rummy only" in capsys.readouterr().err
