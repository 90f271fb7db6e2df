"""What the package does when a job starts (``python -m experiments.X``): without the
experiments extra it stops with one line naming it (exit 2), and a Ctrl-C no part of the
job handles is one line, not a traceback; a library import is left alone."""

import signal
import subprocess
import sys

HIDE_TQDM = (
    "import sys, importlib.util as u; sys.argv[:1] = [{argv0!r}]; real = u.find_spec; "
    "u.find_spec = lambda name, *a: None if name == 'tqdm' else real(name, *a); import experiments; print('imported')"
)
CTRL_C = "import sys; sys.argv[:1] = [{argv0!r}]; import experiments; raise KeyboardInterrupt"


def run(code, argv0):
    return subprocess.run([sys.executable, "-c", code.format(argv0=argv0)], capture_output=True, text=True)


def test_a_job_without_the_extra_names_it_in_one_line():
    done = run(HIDE_TQDM, "-m")  # what sys.argv[0] is while `python -m experiments.X` imports the package
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == 'the jobs need the experiments extra (missing: tqdm): pip install -e ".[experiments]"\n'


def test_a_library_import_without_the_extra_is_not_stopped():
    done = run(HIDE_TQDM, "notebook.py")
    assert (done.returncode, done.stdout, done.stderr) == (0, "imported\n", "")


def test_an_unhandled_ctrl_c_in_a_job_is_one_line_and_still_sigint():
    done = run(CTRL_C, "-m")
    assert done.stderr == "interrupted (Ctrl-C)\n"
    assert done.returncode == -signal.SIGINT  # Python re-raises it: a shell sees 130


def test_a_library_keeps_pythons_own_ctrl_c_traceback():
    done = run(CTRL_C, "notebook.py")
    assert done.stderr.startswith("Traceback") and done.stderr.endswith("KeyboardInterrupt\n")
    assert done.returncode == -signal.SIGINT
