"""``experiments.dev.compile_times``: its command line (the timed run itself compiles every
kernel from a cold cache, minutes: a measurement, run on purpose, not here)."""

import pytest

from experiments.dev import compile_times


def test_help_describes_the_job_and_an_unknown_flag_is_refused(capsys):
    with pytest.raises(SystemExit) as stop:
        compile_times.main(["--help"])
    assert stop.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: python -m experiments.dev.compile_times")
    described = "Seconds numba takes to compile the batched engines and the searches from a cold cache."
    assert described in " ".join(out.split())  # argparse wraps the description
    assert "--child" not in out  # the timed child process's own flag is hidden
    with pytest.raises(SystemExit) as stop:
        compile_times.main(["--threads", "2"])
    assert stop.value.code == 2
    assert "unrecognized arguments: --threads 2" in capsys.readouterr().err


def test_the_engines_it_times_are_the_batched_card_engines():
    assert compile_times.CARD_ENGINES == (
        ("GinRummyVec", {}),
        ("RummyVec", {"num_players": 3}),
        ("CrazyRummyVec", {"num_players": 3}),
    )
