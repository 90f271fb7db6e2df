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
