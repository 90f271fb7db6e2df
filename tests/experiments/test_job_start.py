"""What the package does when a job starts (``python -m experiments.X``): a module of an
extra that is not installed, and a Ctrl-C no part of the job handles, are one line each
instead of a traceback; a job that does not need the missing module runs; a library
import is left alone."""

import signal
import subprocess
import sys
from pathlib import Path

import experiments
from tests.experiments.test_records import knock_record

try:
    import tomllib
except ImportError:  # Python 3.10
    import tomli as tomllib

# `python -m MOD ARGS` (runpy's own entry, sys.argv[0] "-m" while the package is imported)
# with the experiments extra's modules made impossible to import
WITHOUT_EXTRA = """
import runpy, sys
class Missing:
    def find_spec(self, name, path=None, target=None):
        if name.partition(".")[0] in ("tqdm", "openskill", "matplotlib"):
            raise ModuleNotFoundError(f"No module named {{name!r}}", name=name)
sys.meta_path.insert(0, Missing())
sys.argv = ["-m", *{args!r}]
runpy._run_module_as_main({module!r})
"""
CTRL_C = "import sys; sys.argv[:1] = [{argv0!r}]; import experiments; raise KeyboardInterrupt"


def run(code):
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)


def test_a_job_without_the_extra_names_it_in_one_line(tmp_path):
    args = ["--variants", "gin_rummy", "--deals", "1", "--workers", "1", "--out", str(tmp_path / "t")]
    done = run(WITHOUT_EXTRA.format(module="experiments.tournament", args=args))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert done.stderr.endswith(': it comes with the experiments extra: pip install -e ".[experiments]"\n')
    assert done.stderr.splitlines()[-1].startswith("No module named '")


def test_a_job_that_does_not_need_the_extra_runs_without_it(tmp_path):
    _, _, path = knock_record(tmp_path)
    done = run(WITHOUT_EXTRA.format(module="experiments.replay", args=[str(path), "--quiet"]))
    assert (done.returncode, done.stderr) == (0, "")


def test_an_unhandled_ctrl_c_in_a_job_is_one_line_and_still_sigint():
    done = run(CTRL_C.format(argv0="-m"))
    assert done.stderr == "interrupted (Ctrl-C)\n"
    assert done.returncode == -signal.SIGINT  # Python re-raises it: a shell sees 130


def test_a_library_keeps_pythons_own_tracebacks():
    done = run(CTRL_C.format(argv0="notebook.py"))
    assert done.stderr.startswith("Traceback") and done.stderr.endswith("KeyboardInterrupt\n")
    assert done.returncode == -signal.SIGINT


def test_every_extra_named_is_one_of_the_projects():
    pyproject = tomllib.loads((Path(experiments.__file__).parents[1] / "pyproject.toml").read_text())
    extras = pyproject["project"]["optional-dependencies"]
    assert set(experiments.EXTRA_OF_MODULE.values()) <= set(extras)
    assert any(r.startswith("tqdm") for r in extras[experiments.EXTRA_OF_MODULE["tqdm"]])


def test_a_missing_submodule_of_an_installed_extra_keeps_its_traceback():
    """tqdm is installed: a missing ``tqdm.x`` is a broken install, not a missing extra."""
    done = run("import sys; sys.argv[:1] = ['-m']; import experiments; import tqdm._no_such_part")
    assert done.returncode == 1 and done.stderr.startswith("Traceback")
    assert done.stderr.endswith("ModuleNotFoundError: No module named 'tqdm._no_such_part'\n")


def test_a_job_without_torch_names_the_pinned_install(tmp_path):
    without_torch = WITHOUT_EXTRA.replace('("tqdm", "openskill", "matplotlib")', '("torch",)')
    args = ["--variant", "gin_rummy", "--minutes", "0.01", "--out", str(tmp_path / "s")]
    done = run(without_torch.format(module="experiments.selfplay", args=args))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    said = ': it comes with the train extra: pip install torch==2.13.0 && pip install -e ".[train]"\n'
    assert done.stderr.endswith(said), done.stderr[-300:]
