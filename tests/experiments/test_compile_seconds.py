"""``experiments.dev.compile_seconds``: a compile's own seconds (the compiles nested in it
subtracted), one entry per function and argument types, and the report of a run's files."""

import json
from types import SimpleNamespace

import pytest
from numba import njit
from numba.core import event

from experiments.dev import compile_seconds as cs


def _event(func, args):
    return SimpleNamespace(data={"dispatcher": SimpleNamespace(py_func=func), "args": args})


def outer():
    pass


def inner():
    pass


def test_a_nested_compile_is_subtracted_from_the_one_around_it(monkeypatch):
    clock = iter([0.0, 1.0, 3.0, 10.0, 20.0, 20.5])
    monkeypatch.setattr(cs.time, "perf_counter", lambda: next(clock))
    listener = cs.CompileSeconds()
    listener.on_start(_event(outer, "(int64,)"))  # 0.0
    listener.on_start(_event(inner, "(int64,)"))  # 1.0
    listener.on_end(_event(inner, "(int64,)"))  # 3.0: inner took 2 s
    listener.on_end(_event(outer, "(int64,)"))  # 10.0: outer 10 s, 8 of them its own
    listener.on_start(_event(inner, "(int64,)"))  # 20.0
    listener.on_end(_event(inner, "(int64,)"))  # 20.5: the same version again, added
    name = f"{__name__}."
    assert dict(listener.seconds) == {(name + "outer", "(int64,)"): 8.0, (name + "inner", "(int64,)"): 2.5}


def test_a_real_compile_is_recorded_once_per_argument_type():
    @njit
    def twice(x):
        return x * 2

    listener = cs.listen()
    try:
        twice(3)
        twice(3.0)
        twice(4)  # compiled already: no event
    finally:
        event.unregister("numba:compile", listener)
    keys = sorted(types for name, types in listener.seconds if name.endswith("twice"))
    assert keys == ["(float64,)", "(int64,)"]
    assert all(s > 0 for s in listener.seconds.values())


def test_the_report_counts_what_two_workers_both_compiled(tmp_path):
    (tmp_path / "gw0.json").write_text(json.dumps([["m.f", "(int64,)", 3.0], ["m.g", "(int64,)", 1.0]]))
    (tmp_path / "gw1.json").write_text(json.dumps([["m.f", "(int64,)", 2.5], ["m.f", "(int32,)", 0.5]]))
    assert cs.report(tmp_path, top=2) == "\n".join(
        [
            "gw0: 4.0 s compiling, 2 versions",
            "gw1: 3.0 s compiling, 2 versions",
            "versions compiled in more than one process: 1 (2.5 s beyond the first compile)",
            "the 2 functions compiled longest (seconds, type versions):",
            "      6.0   2  m.f",
            "      1.0   1  m.g",
        ]
    )


def test_a_folder_without_the_plugins_files_is_refused(tmp_path, capsys):
    assert cs.main([str(tmp_path)]) == 2
    assert f"{tmp_path} holds no *.json file: run pytest with RUMMY_ENV_COMPILE_SECONDS={tmp_path} first" in (
        capsys.readouterr().err
    )
    with pytest.raises(SystemExit):
        cs.main([str(tmp_path), "--top", "0"])


def test_the_plugin_writes_its_workers_file(tmp_path, monkeypatch):
    monkeypatch.setenv(cs.ENV, str(tmp_path / "out"))
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    listener = cs.CompileSeconds()
    listener.seconds[("m.f", "(int64,)")] = 1.5
    monkeypatch.setattr(cs, "_listener", listener)
    cs.pytest_sessionfinish(None)
    assert json.loads((tmp_path / "out" / "gw1.json").read_text()) == [["m.f", "(int64,)", 1.5]]
