"""Test-session setup shared by every test module."""

import os

# numba sizes its thread pool by the CPUs this process may use: on a one-CPU runner (or under
# `taskset -c 0`) a pool of one thread would make the tests that compare one thread with two
# fail for want of a second thread.  Two threads on one CPU still interleave, so the
# comparison keeps its meaning.  Set before any test module imports numba.
usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
if usable < 2:
    os.environ.setdefault("NUMBA_NUM_THREADS", "2")

# the "compiling ..., up to a minute the first time" notice of a kernel's first call
# (rummy_env.core.compile_notice) is noise in test output; tests/core/test_compile_notice.py
# turns it back on where it is the subject
os.environ.setdefault("RUMMY_ENV_QUIET_COMPILE", "1")

# the property tests (hypothesis) draw the same examples on every run, so that CI passes or
# fails on the code, not on the draw; a case one draw found is kept as its own test
# (tests/envs/test_invariants.py).  HYPOTHESIS_PROFILE=explore draws new ones.
from hypothesis import settings  # noqa: E402

settings.register_profile("deterministic", derandomize=True)
settings.register_profile("explore", derandomize=False)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "deterministic"))


def pytest_configure(config):
    """Before the pytest-xdist workers of a whole-suite run start: compile the numba kernels
    into numba's cache in two processes (``tests/precompile.py``), so that the workers load
    them instead of each compiling most of them again (on a fresh machine about 280 s of
    compiling, done once instead of twice; with a warm cache this takes a few seconds).  A
    failure here is left to the tests that call the kernel to report."""
    import subprocess
    import sys
    from pathlib import Path

    import pytest

    workers = getattr(config.option, "numprocesses", None) or 0
    whole_suite = config.args_source == pytest.Config.ArgsSource.TESTPATHS
    if hasattr(config, "workerinput") or not whole_suite or not isinstance(workers, int) or workers < 2:
        return
    halves = (["gin_rummy", "rummikub"], ["rummy", "crazy_rummy"])  # about 155 s and 125 s cold
    root = Path(__file__).resolve().parents[1]
    quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    runs = [subprocess.Popen([sys.executable, "-m", "tests.precompile", *half], cwd=root, **quiet) for half in halves]
    for run in runs:
        run.wait()
