"""``python -m experiments.benchmark --variant gin_rummy --compare``: its pieces run and
refuse bad use.  (RLCard comes with the ``bench`` extra only, so CI measures our env and
OpenSpiel here; the figures are printed by the job, never asserted.)"""

import itertools
import types

import pytest

# the reference extra: without OpenSpiel the module is skipped (a pyspiel that is
# installed but fails to import is an ImportError, not skipped)
pytest.importorskip("pyspiel", exc_type=ModuleNotFoundError)

from experiments import benchmark
from experiments.benchmark import envs
from rummy_env import gin_rummy_v0


def test_our_env_and_openspiel_are_measured_alike(monkeypatch):
    # a clock that moves one second at each reading: what is played in the window depends on
    # the seeded random play only, not on the machine's speed (the rates are left to the job)
    ticks = itertools.count()
    monkeypatch.setattr(envs, "time", types.SimpleNamespace(perf_counter=lambda: float(next(ticks))))
    ours = envs.measure_env(lambda: gin_rummy_v0.env(), 3.5)
    ticks = itertools.count()
    theirs = envs.measure_openspiel_gin(2.5)
    # 3.5 ticks hold one whole random hand of ours, the second hand drawn from seed 0 (the first
    # is the untimed warm-up), 105 decisions; 2.5 one of OpenSpiel's (its clock is read at the
    # start, around the deal and after each hand): its first hand of seed 0, 115 decisions
    assert (ours["episodes"], ours["steps_per_episode"]) == (1, 105.0)
    assert (theirs["episodes"], theirs["steps_per_episode"]) == (1, 115.0)
    ticks = itertools.count()
    assert envs.measure_openspiel_gin(3.5)["episodes"] == 2  # a second hand starts before 3.5
    text = envs.format_ratios([{"what": "ours", **ours}, {"what": "OpenSpiel gin_rummy", **theirs}])
    assert text.startswith("ours / OpenSpiel gin_rummy: ") and "x decision steps/s" in text


def test_compare_is_for_gin_rummy_only(capsys):
    with pytest.raises(SystemExit) as exit_info:
        benchmark.main(["--variant", "rummy", "--compare", "--seconds", "0.1"])
    assert exit_info.value.code == 2
    assert "--compare measures Gin Rummy only" in capsys.readouterr().err


def test_a_window_shorter_than_a_hand_still_plays_one():
    """``--compare --seconds 0.0001`` divided by OpenSpiel's 0 steps/s."""
    theirs = envs.measure_openspiel_gin(1e-9)
    assert theirs["episodes"] == 1 and theirs["steps_per_episode"] == 115.0 and theirs["steps_per_s"] > 0
    ours = envs.measure_env(lambda: gin_rummy_v0.env(), 1e-9)
    text = envs.format_ratios([{"what": "ours", **ours}, {"what": "OpenSpiel gin_rummy", **theirs}])
    assert text.startswith("ours / OpenSpiel gin_rummy: ")
