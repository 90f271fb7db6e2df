"""A job started without the experiments extra stops with one line naming it (exit 2),
before any job module's import fails with a traceback; a library import is left alone."""

import subprocess
import sys

HIDE_TQDM = (
    "import sys, importlib.util as u; sys.argv[:1] = [{argv0!r}]; real = u.find_spec; "
    "u.find_spec = lambda name, *a: None if name == 'tqdm' else real(name, *a); import experiments; print('imported')"
)


def run(argv0):
    return subprocess.run([sys.executable, "-c", HIDE_TQDM.format(argv0=argv0)], capture_output=True, text=True)


def test_a_job_without_the_extra_names_it_in_one_line():
    done = run("-m")  # what sys.argv[0] is while `python -m experiments.X` imports the package
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == 'the jobs need the experiments extra (missing: tqdm): pip install -e ".[experiments]"\n'


def test_a_library_import_without_the_extra_is_not_stopped():
    done = run("notebook.py")
    assert (done.returncode, done.stdout, done.stderr) == (0, "imported\n", "")
