"""``python -m experiments.benchmark``: it measures every variant and refuses bad use."""

import os
import signal
import time
from pathlib import Path

import numba
import pytest

from experiments import benchmark
from experiments.benchmark.rummikub import format_rummikub, measure_rummikub
from tests.helpers import usage_error

ROOT = Path(__file__).resolve().parents[2]


def test_benchmark_runs_every_variant_and_refuses_bad_seconds(capsys):
    assert benchmark.main(["--seconds", "0.05"]) == 0
    out = capsys.readouterr().out
    for variant in ("rummy_v0", "crazy_rummy_v0", "gin_rummy_v0"):
        assert f"rummy_env {variant}.env()" in out
    for bad in ("0", "-1", "nan", "inf"):
        with pytest.raises(SystemExit) as exit_info:
            benchmark.main(["--seconds", bad])
        assert exit_info.value.code == 2
        assert usage_error(capsys.readouterr().err, f"--seconds must be a positive number, got {float(bad)}")


def counting(module, decisions):
    """An env factory for ``measure_env``: ``module.env()`` noting in ``decisions`` whether
    each step it is given carries an action."""

    class Counting:
        def __init__(self):
            self.env = module.env()

        def __getattr__(self, name):
            return getattr(self.env, name)

        def step(self, action):
            decisions.append(action is not None)
            self.env.step(action)

    return Counting


def test_env_measurement_warms_up_untimed_and_stops_at_its_deadline():
    from experiments.benchmark.envs import measure_env
    from rummy_env import rummikub_v0

    decisions = []
    result = measure_env(counting(rummikub_v0, decisions), 0.0)
    # one random episode of at most 300 decisions (the solver's compile on a fresh machine) before
    # the clock, then the 64 decisions the clock is first read after: seed 0's warm-up episode
    # ends after 165
    assert sum(decisions) == 165 + 64 and result["steps_per_s"] > 0.0 and result["episodes"] == 0
    assert result["steps_per_episode"] == 0.0


def test_a_window_shorter_than_a_decision_still_times_64_decisions():
    from experiments.benchmark.envs import format_rows, measure_env
    from rummy_env import gin_rummy_v0

    decisions = []
    result = measure_env(counting(gin_rummy_v0, decisions), 1e-9)
    # the untimed warm-up episode (seed 0: 145 decisions), then the clock is first read after 64
    assert sum(decisions) == 145 + 64 and result["episodes"] == 0 and result["steps_per_s"] > 0
    row = format_rows([{"what": "gin", **result}]).splitlines()[1].split()
    assert row[0] == "gin" and row[2] == "-"  # no episode finished: no steps/episode


def test_rummikub_measurement_times_the_solver_in_real_hands(capsys):
    result = measure_rummikub(2, seed=1, oracle_positions=10)
    # seed 1's two hands: 297 decisions, each with its mask timed, 142 of them commits (the
    # milliseconds are the job's to print)
    assert (result["hands"], result["decisions"], result["mask"]["n"], result["commit"]["n"]) == (2, 297, 297, 142)
    assert (result["partition_vs_oracle"]["positions"], result["partition_vs_oracle"]["agree"]) == (10, 10)
    text = format_rummikub(result)
    assert "legal-tile mask (ms)" in text and "partition check vs integer program" in text
    with pytest.raises(SystemExit):
        benchmark.main(["--variant", "rummikub", "--hands", "0"])


def test_rummikub_measurement_without_scipy_leaves_the_oracle_out(monkeypatch):
    """The integer-programming oracle needs scipy (the test extra): without it the timings
    are the same measurement and the comparison is said to be left out."""
    import importlib.util

    find_spec = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "scipy" else find_spec(name, *a))
    result = measure_rummikub(1, seed=1, oracle_positions=10)
    assert result["partition_vs_oracle"] == {"left_out": "it needs scipy: pip install scipy"}
    assert result["hands"] == 1 and result["mask"]["n"] == result["decisions"]
    said = "partition check vs integer program: left out (it needs scipy: pip install scipy)"
    assert format_rummikub(result).endswith(said)


def test_the_trainer_benchmark_times_every_phase_of_one_update():
    from experiments.benchmark.selfplay import format_selfplay, measure_selfplay

    small = {"num_envs": 16, "num_steps": 8, "minibatch_size": 64, "hidden": (16,), "torch_threads": 1}
    r = measure_selfplay("gin", 1, small)
    assert list(r["phases_s"]) == ["sim", "features", "inference", "heuristic", "update"]
    assert r["phases_s"]["update"] > 0 and r["steps"] == 126  # learner decisions of one seeded rollout (of 16 x 8)
    assert r["steps_per_s"] == pytest.approx(r["steps"] / r["wall_s"])
    assert r["settings"] == {
        "variant": "gin_rummy_v0",
        "features": "gin_read",
        "hidden": [16],
        "input_size": 1426,
        "num_envs": 16,
        "num_steps": 8,
        "minibatch_size": 64,
        "update_epochs": 4,
        "torch_threads": 1,
    }
    lines = format_selfplay(r).splitlines()
    assert lines[0] == (
        "gin_rummy_v0: MLP 1426-16, 16 games x 8 steps per update, minibatch 64, 4 epochs, 1 torch thread(s)"
    )
    assert [line.split()[0] for line in lines[2:]] == ["sim", "features", "inference", "heuristic", "update"]


#: why benchmark refuses flags of another kind of measurement
NOT_HERE = (
    "do(es) not apply here: --updates and --torch-threads go with --selfplay (which takes no --variant and no "
    "--vector), --hands and --no-gc-freeze with --variant rummikub alone, --num-envs and --threads with --vector, "
    "--compare with neither --vector nor --selfplay"
)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--selfplay", "gin", "--updates", "0"], "--updates must be positive, got 0"),
        (
            ["--selfplay", "nope"],
            f"recipe 'nope': no file {ROOT / 'experiments/recipes/nope.toml'} (named recipes: crazy, crazy_discard, "
            "crazy_out, crazy_safe, gin, gin_league, rummikub, rummikub_plan, rummy; or give a path to a .toml file)",
        ),
        (
            ["--selfplay", "gin", "--variant", "rummy"],
            f"--variant {NOT_HERE}",
        ),
        (
            ["--variant", "gin_rummy", "--updates", "3", "--hands", "5"],
            f"--updates, --hands {NOT_HERE}",
        ),
        (
            ["--variant", "rummikub", "--vector", "--no-gc-freeze"],
            f"--no-gc-freeze {NOT_HERE}",
        ),
        (
            ["--variant", "rummy", "--num-envs", "64", "--threads", "2"],
            f"--num-envs, --threads {NOT_HERE}",
        ),
        (
            ["--selfplay", "gin", "--vector"],
            f"--vector {NOT_HERE}",
        ),
        (
            ["--variant", "gin_rummy", "--compare", "--vector"],
            f"--compare {NOT_HERE}",
        ),
        (
            ["--selfplay", "gin", "--compare"],
            f"--compare {NOT_HERE}",
        ),
        (["--selfplay", "gin", "--torch-threads", "0"], "argument --torch-threads: must be positive, got 0"),
        (["--variant", "gin_rummy", "--seed", "-1"], "--seed must be an int >= 0, got -1"),
        (
            ["--vector", "--variant", "gin_rummy", "--threads", "1000"],
            f"--threads 1000: at most {numba.config.NUMBA_NUM_THREADS} (numba's NUMBA_NUM_THREADS)",
        ),
        (
            ["--vector", "--num-envs", "20000000"],
            "argument --num-envs: at most 16,777,216 games in a batch, got 20,000,000",
        ),
    ],
)
def test_the_trainer_benchmark_refuses_bad_arguments(args, message, capsys):
    with pytest.raises(SystemExit):
        benchmark.main(args)
    assert usage_error(capsys.readouterr().err, message)


def test_the_differential_refuses_more_games_than_decisions(capsys):
    from experiments.dev import vector_differential

    with pytest.raises(SystemExit):
        vector_differential.main(["--variant", "gin_rummy", "--decisions", "2000", "--num-envs", "5000"])
    err = capsys.readouterr().err
    message = (
        "--num-envs 5000 is more than the 500 decisions of the smallest option set (--decisions 2000 split over the "
        "option sets): raise --decisions or lower --num-envs"
    )
    assert usage_error(err, message)


@pytest.mark.parametrize("seed", ["-1", str(2**64 - 63)])
def test_the_differential_refuses_a_seed_out_of_range(seed, capsys):
    from experiments.dev import vector_differential

    with pytest.raises(SystemExit) as stop:
        vector_differential.main(["--variant", "gin_rummy", "--decisions", "2000", "--seed", seed])
    assert stop.value.code == 2
    assert capsys.readouterr().err.endswith(f"error: --seed must be from 0 to 2**64 - 64, got {seed}\n")


def test_the_same_signal_sent_to_the_group_too_interrupts_once(monkeypatch):
    """GNU ``timeout`` signals the job, then its process group: the copy that comes within
    ``SAME_SIGNAL_S`` of the first must not interrupt the printing of the rows kept."""
    from experiments.common import interrupt

    clock = iter([100.0, 100.05, 100.3])  # the first signal, its copy 50 ms later, another 300 ms later
    monkeypatch.setattr(interrupt.time, "monotonic", lambda: next(clock))
    stop = interrupt.TermAsInterrupt()
    with pytest.raises(KeyboardInterrupt):
        stop._handle(signal.SIGTERM, None)
    assert stop._handle(signal.SIGTERM, None) is None and stop.exit_code == 143  # the copy: ignored
    with pytest.raises(KeyboardInterrupt):  # a later signal is another Ctrl-C
        stop._handle(signal.SIGINT, None)


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_ctrl_c_or_sigterm_keeps_the_rows_measured(signum, monkeypatch, capsys):
    """A real signal to this process during the second measurement (SIGTERM used to kill
    the benchmark with only its header printed)."""
    from experiments.benchmark import cli, vector
    from experiments.dev import vector_differential

    name, code = signal.Signals(signum).name, 128 + int(signum)
    before = (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM))

    def stopping(real):
        calls = []

        def measure(*args, **kwargs):
            calls.append(1)
            if len(calls) == 2:
                os.kill(os.getpid(), signum)  # the signal during the second measurement
                time.sleep(5)  # the handler runs before this ends
            return real(*args, **kwargs)

        return measure

    monkeypatch.setattr(cli, "measure_env", stopping(cli.measure_env))
    assert cli.main(["--variant", "all", "--seconds", "0.2"]) == code
    out, err = capsys.readouterr()
    assert f"benchmark: stopped ({name}); the 1 rows measured:" in err and "rummy_env rummy_v0.env()" in out
    monkeypatch.setattr(vector, "measure_vector", stopping(vector.measure_vector))
    argv = ["--variant", "gin_rummy", "--num-envs", "8", "16", "--threads", "1", "--seconds", "0.2"]
    assert vector.main(argv) == code
    out, err = capsys.readouterr()
    assert f"benchmark.vector: stopped ({name}); the 2 rows measured:" in err
    assert "| gin_rummy | env() |" in out and "| gin_rummy | GinRummyVec | 8 |" in out
    monkeypatch.setattr(vector_differential, "compare", stopping(vector_differential.compare))
    assert vector_differential.main(["--variant", "gin_rummy", "--decisions", "2000"]) == code
    out, err = capsys.readouterr()
    assert (
        f"vector_differential: stopped ({name}); 0 mismatches in the rows above" in err
        and out.count("| gin_rummy |") == 1
    )
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)) == before  # handlers given back
