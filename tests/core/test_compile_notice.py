"""The first use of a compiled kernel says that numba compiles it, once, and only when it
does (issue 27, part 4): a cold cache prints one line on stderr, a warm one nothing,
``RUMMY_ENV_QUIET_COMPILE=1`` nothing."""

import os
import subprocess
import sys
import textwrap

import pytest
from numba.core import event

from rummy_env.core import compile_notice
from rummy_env.vector import GinRummyVec

KERNEL = textwrap.dedent(
    """
    from numba import njit

    @njit(cache=True)
    def inner(x):
        return x * 2

    @njit(cache=True)
    def outer(x):
        return inner(x) + 1

    @njit(cache=True)
    def other(x):
        return x - 1
    """
)
SCRIPT = textwrap.dedent(
    """
    import sys
    sys.path.insert(0, sys.argv[1])
    import tiny
    from rummy_env.core.compile_notice import compile_notice, noting_compile

    outer = noting_compile(tiny.outer, "the tiny kernel")
    print(outer(3), outer(4))
    with compile_notice("the tiny kernel", call="other"):  # the same kernel: said once
        print(tiny.other(5))
    """
)
NOTICE = "rummy_env: compiling the tiny kernel with numba, up to a minute the first time; cached after\n"


def run(tmp_path, quiet):
    env = {k: v for k, v in os.environ.items() if k != compile_notice.QUIET_ENV}
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "cache")
    if quiet:
        env[compile_notice.QUIET_ENV] = "1"
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT, str(tmp_path)], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout == "7 9\n4\n"
    return done.stderr


def test_a_cold_cache_says_it_once_a_warm_one_says_nothing(tmp_path):
    (tmp_path / "tiny.py").write_text(KERNEL)
    assert run(tmp_path, quiet=True) == ""  # compiles, quietly
    (tmp_path / "tiny.py").write_text(KERNEL + "\n")  # a changed source: numba compiles again
    assert run(tmp_path, quiet=False) == NOTICE
    assert run(tmp_path, quiet=False) == ""  # loaded from numba's cache


@pytest.fixture
def fresh_notices(monkeypatch):
    monkeypatch.delenv(compile_notice.QUIET_ENV, raising=False)
    monkeypatch.setattr(compile_notice, "_said", set())
    monkeypatch.setattr(compile_notice, "_called", set())


def compiling(run_kernel):
    """``run_kernel`` preceded by what numba signals around a compilation."""

    def call(self, name, *args):
        with event.trigger_event("numba:compile", data={"dispatcher": None, "args": (), "return_type": None}):
            pass
        run_kernel(self, name, *args)

    return call


def test_the_batched_engine_says_so_on_its_first_compiling_call(fresh_notices, monkeypatch, capsys):
    monkeypatch.setattr(GinRummyVec, "_run", compiling(GinRummyVec._run))
    vec = GinRummyVec(4, seed=0)
    vec.reset()
    vec.step_random()
    vec.step_random()  # the reset and step calls compiled: one notice for the kernel
    assert capsys.readouterr().err == (
        "rummy_env: compiling the Gin Rummy kernel with numba, up to a minute the first time; cached after\n"
    )


def test_a_compiled_kernel_and_the_quiet_variable_say_nothing(fresh_notices, monkeypatch, capsys):
    monkeypatch.setenv(compile_notice.QUIET_ENV, "1")
    vec = GinRummyVec(4, seed=0)
    vec.reset()  # compiled or loaded from numba's cache, quietly
    monkeypatch.delenv(compile_notice.QUIET_ENV)
    vec.reset()  # a first call under the notice, with nothing left to compile
    assert capsys.readouterr().err == ""
    monkeypatch.setenv(compile_notice.QUIET_ENV, "1")
    monkeypatch.setattr(GinRummyVec, "_run", compiling(GinRummyVec._run))
    vec.step_random()
    assert capsys.readouterr().err == ""
