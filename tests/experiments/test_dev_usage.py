"""The maintainers' scripts (``experiments/dev``) name themselves in their usage line as
they are run, ``python -m experiments.dev.<script>`` (argparse's default, the file's name,
``openspiel_timing.py``, is no command that runs from a clone)."""

import importlib

import pytest

SCRIPTS = [
    "bench_rummikub_solver",
    "compile_seconds",
    "compile_times",
    "heuristic_vs_random",
    "openspiel_timing",
    "rss_plateau",
    "serve_screenshots",
    "truncation_rates",
]


@pytest.mark.parametrize("script", SCRIPTS)
def test_a_dev_scripts_usage_names_the_command_that_runs_it(script, capsys):
    if script == "openspiel_timing":
        pytest.importorskip("pyspiel", exc_type=ImportError)
    module = importlib.import_module(f"experiments.dev.{script}")
    with pytest.raises(SystemExit) as stop:
        module.main(["--help"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: python -m experiments.dev.{script} ")


def test_the_vector_differentials_help_says_every_variant_is_compared_by_default(capsys):
    from experiments.dev import vector_differential

    with pytest.raises(SystemExit):
        vector_differential.main(["--help"])
    assert "variants to compare (default: all four)" in " ".join(capsys.readouterr().out.split())


def test_the_list_holds_every_dev_script_with_a_command_line():
    # a script added later would be left out of the check above without this
    from pathlib import Path

    import experiments.dev

    folder = Path(experiments.dev.__file__).parent
    found = sorted(p.stem for p in folder.glob("*.py") if "def main(" in p.read_text())
    # vector_differential is run as python -m experiments.vector_differential (its shim; its usage says so)
    assert found == sorted([*SCRIPTS, "vector_differential"])
