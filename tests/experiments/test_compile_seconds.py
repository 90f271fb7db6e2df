"""``experiments.dev.compile_seconds``: a compile's own seconds (the compiles nested in it
subtracted), one entry per function and argument types, the plugin's files and their report."""

import json
from types import SimpleNamespace

import pytest
from numba import njit
from numba.core import event

from experiments.dev import compile_seconds as cs
from tests.helpers import usage_error


def _event(func, args):
    return SimpleNamespace(data={"dispatcher": SimpleNamespace(py_func=func), "args": args})


def outer():
    pass


def inner():
    pass


def test_a_nested_compile_is_subtracted_from_the_one_around_it():
    clock = iter([0.0, 1.0, 3.0, 10.0, 20.0, 20.5, 30.0, 30.25])
    listener = cs.CompileSeconds(clock=lambda: next(clock))
    listener.on_start(_event(outer, "(int64,)"))  # 0.0
    listener.on_start(_event(inner, "(int64,)"))  # 1.0
    listener.on_end(_event(inner, "(int64,)"))  # 3.0: inner took 2 s
    listener.on_end(_event(outer, "(int64,)"))  # 10.0: outer 10 s, 8 of them its own
    listener.on_start(_event(inner, "(int64,)"))  # 20.0
    listener.on_end(_event(inner, "(int64,)"))  # 20.5: the same version again, added
    listener.on_start(SimpleNamespace(data=None))  # 30.0
    listener.on_end(SimpleNamespace(data=None))  # 30.25: an event without a dispatcher
    name = f"{__name__}."
    assert dict(listener.seconds) == {
        (name + "outer", "(int64,)"): 8.0,
        (name + "inner", "(int64,)"): 2.5,
        ("?.?", "None"): 0.25,
    }


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


def _write(folder, worker, rows):
    folder.mkdir(exist_ok=True)
    (folder / f"{worker}.json").write_text(json.dumps(rows))


REPORT = [
    "gw0: 4.0 s compiling, 2 versions",
    "gw1: 3.0 s compiling, 2 versions",
    "versions compiled in more than one process: 1 (2.5 s beyond one compile of each)",
]


def test_the_report_counts_what_two_workers_both_compiled(tmp_path, capsys):
    _write(tmp_path, "gw0", [["m.f", "(int64,)", 3.0], ["m.g", "(int64,)", 1.0]])
    _write(tmp_path, "gw1", [["m.f", "(int64,)", 2.5], ["m.f", "(int32,)", 0.5]])
    top = ["the 1 functions compiled longest (seconds, type versions):", "      6.0   2  m.f"]
    assert cs.report(tmp_path, top=1) == "\n".join(REPORT + top)
    assert cs.main([str(tmp_path)]) == 0  # both functions: fewer than the 25 asked for
    top = ["the 2 functions compiled longest (seconds, type versions):", "      6.0   2  m.f", "      1.0   1  m.g"]
    assert capsys.readouterr().out == "\n".join(REPORT + top) + "\n"


def test_a_folder_without_the_plugins_files_or_with_another_file_is_refused(tmp_path, capsys):
    assert cs.main([str(tmp_path)]) == 2
    message = f"{tmp_path} holds no *.json file: run pytest with RUMMY_ENV_COMPILE_SECONDS={tmp_path} first"
    assert usage_error(capsys.readouterr().err, message)
    (tmp_path / "other.json").write_text('{"a": 1}')
    assert cs.main([str(tmp_path)]) == 2
    # after the colon: Python's own unpacking text, left free
    said = f"{tmp_path / 'other.json'} is not a file of the plugin's [function, types, seconds] rows: "
    assert said in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:
        cs.main([str(tmp_path), "--top", "0"])
    assert stop.value.code == 2


def _config(dist="no"):
    return SimpleNamespace(option=SimpleNamespace(dist=dist))


def test_the_plugin_listens_only_when_asked_and_clears_an_earlier_run(tmp_path, monkeypatch):
    monkeypatch.setattr(cs, "_listener", None)
    monkeypatch.delenv(cs.ENV, raising=False)
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    cs.pytest_configure(_config())
    assert cs._listener is None
    _write(tmp_path, "gw3", [["m.f", "(int64,)", 1.0]])  # an earlier run's worker
    monkeypatch.setenv(cs.ENV, str(tmp_path))
    cs.pytest_configure(_config())
    try:
        assert isinstance(cs._listener, cs.CompileSeconds) and list(tmp_path.iterdir()) == []
    finally:
        event.unregister("numba:compile", cs._listener)


def test_each_process_writes_its_file_and_an_xdist_controller_none(tmp_path, monkeypatch):
    monkeypatch.setenv(cs.ENV, str(tmp_path / "out"))
    listener = cs.CompileSeconds()
    listener.seconds[("m.f", "(int64,)")] = 1.5
    monkeypatch.setattr(cs, "_listener", listener)
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    cs.pytest_sessionfinish(SimpleNamespace(config=_config("worksteal")))  # the controller
    assert not (tmp_path / "out").exists()
    cs.pytest_sessionfinish(SimpleNamespace(config=_config()))  # no xdist
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    cs.pytest_sessionfinish(SimpleNamespace(config=_config("worksteal")))
    for worker in ("main", "gw1"):
        assert json.loads((tmp_path / "out" / f"{worker}.json").read_text()) == [["m.f", "(int64,)", 1.5]]
