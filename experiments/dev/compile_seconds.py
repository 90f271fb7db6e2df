"""Where a test run's numba compiling goes: a pytest plugin and its report.

    RUMMY_ENV_COMPILE_SECONDS=DIR python -m pytest -p experiments.dev.compile_seconds
    python -m experiments.dev.compile_seconds DIR

The plugin listens to numba's ``numba:compile`` events (fired for a real compile, not for a
load from numba's cache) and writes, per pytest process (``DIR/gw0.json``, ``gw1.json``
for pytest-xdist's workers, ``DIR/main.json`` without them; the folder's ``*.json`` of an
earlier run are removed first), the seconds spent compiling
each function for each argument types: its own time, the compiles of the functions it
calls subtracted.  The report prints each process's total, what more than one process
compiled (the same function and types: compiled twice, once per worker), and the
functions compiled for the most seconds with their number of type versions (numba
compiles a function once per argument type, so a literal, another integer width or an
omitted default argument makes another version).  Run on purpose, never by the tests.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys
import time
from pathlib import Path

from experiments.common.jobs import positive_int

ENV = "RUMMY_ENV_COMPILE_SECONDS"


class CompileSeconds:
    """A ``numba.core.event.Listener`` of ``numba:compile``: ``seconds[(function, types)]``
    is the wall-clock seconds (float) of that compile minus the compiles nested in it
    (``function``: ``module.qualname``, ``"?.?"`` for an event without a dispatcher;
    ``types``: the argument types as numba prints them).  ``clock`` returns seconds."""

    def __init__(self, clock=time.perf_counter) -> None:
        self.seconds: collections.Counter[tuple[str, str]] = collections.Counter()
        self._clock = clock
        self._open: list[list[float]] = []  # [start, seconds of the nested compiles]

    def on_start(self, event) -> None:
        """A compile starts (``event``: numba's ``Event``; only its time is used here)."""
        self._open.append([self._clock(), 0.0])

    def on_end(self, event) -> None:
        """The innermost open compile ends: its own seconds go to its function and types,
        its whole time to the compile around it (``event.data``: numba's ``dispatcher`` and
        ``args``)."""
        start, nested = self._open.pop()
        spent = self._clock() - start
        if self._open:
            self._open[-1][1] += spent
        data = event.data or {}
        func = getattr(data.get("dispatcher"), "py_func", None)
        name = f"{getattr(func, '__module__', '?')}.{getattr(func, '__qualname__', '?')}"
        self.seconds[(name, str(data.get("args")))] += spent - nested


def listen() -> CompileSeconds:
    """Register a :class:`CompileSeconds` for this process's numba compiles and return it
    (``numba.core.event.unregister("numba:compile", it)`` stops it)."""
    from numba.core import event

    class _Listener(CompileSeconds, event.Listener):
        pass

    listener = _Listener()
    event.register("numba:compile", listener)
    return listener


_listener: CompileSeconds | None = None


def _xdist_controller(config) -> bool:
    return getattr(config.option, "dist", "no") != "no" and "PYTEST_XDIST_WORKER" not in os.environ


def pytest_configure(config) -> None:
    """Start listening when ``RUMMY_ENV_COMPILE_SECONDS`` names the output folder; the first
    process (not an xdist worker) removes that folder's ``*.json`` of an earlier run."""
    global _listener
    folder = os.environ.get(ENV)
    if not folder:
        return
    if "PYTEST_XDIST_WORKER" not in os.environ:
        for old in Path(folder).glob("*.json"):
            old.unlink()
    _listener = listen()


def pytest_sessionfinish(session) -> None:
    """Write this process's compiles to ``$RUMMY_ENV_COMPILE_SECONDS/<worker>.json``
    (``gw0.json``... for xdist's workers, whose controller runs no test and writes
    nothing; ``main.json`` without xdist): ``[function, types, seconds]`` rows."""
    if _listener is None or _xdist_controller(session.config):
        return
    out = Path(os.environ[ENV])
    out.mkdir(parents=True, exist_ok=True)
    rows = [[name, types, seconds] for (name, types), seconds in _listener.seconds.most_common()]
    (out / f"{os.environ.get('PYTEST_XDIST_WORKER', 'main')}.json").write_text(json.dumps(rows))


def report(folder: Path, top: int = 25) -> str:
    """The report of the plugin's files in ``folder`` (see the module docstring): each
    process's seconds, the versions more than one process compiled with the seconds beyond
    one compile of each (the longest counted as that one), and the ``top`` functions of the
    most seconds in all processes with their numbers of type versions.

    Raises:
        FileNotFoundError: ``folder`` holds no ``*.json`` file.
        ValueError: a file that is not the plugin's (not JSON, or not ``[name, types, seconds]`` rows).
    """
    runs = {}
    for path in sorted(folder.glob("*.json")):
        try:
            rows = json.loads(path.read_text())
            runs[path.stem] = [(str(name), str(types), float(sec)) for name, types, sec in rows]
        except (ValueError, TypeError) as err:
            raise ValueError(f"{path} is not a file of the plugin's [function, types, seconds] rows: {err}") from err
    if not runs:
        raise FileNotFoundError(f"{folder} holds no *.json file: run pytest with {ENV}={folder} first")
    lines = [f"{w}: {sum(r[2] for r in rows):.1f} s compiling, {len(rows)} versions" for w, rows in runs.items()]
    by_key = collections.defaultdict(list)
    per_function: collections.Counter[str] = collections.Counter()
    versions = collections.defaultdict(set)
    for rows in runs.values():
        for name, types, seconds in rows:
            by_key[(name, types)].append(seconds)
            per_function[name] += seconds
            versions[name].add(types)
    twice = {key: s for key, s in by_key.items() if len(s) > 1}
    extra = sum(sum(s) - max(s) for s in twice.values())
    lines.append(f"versions compiled in more than one process: {len(twice)} ({extra:.1f} s beyond one compile of each)")
    listed = per_function.most_common(top)
    lines.append(f"the {len(listed)} functions compiled longest (seconds, type versions):")
    lines += [f"  {s:7.1f}  {len(versions[n]):2d}  {n}" for n, s in listed]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Print :func:`report` of a folder; 2 (and the reason on stderr) when it holds no
    file of the plugin or another file."""
    p = argparse.ArgumentParser(
        prog="python -m experiments.dev.compile_seconds",
        description="Report the numba compiles of a pytest run made with -p experiments.dev.compile_seconds.",
    )
    p.add_argument("folder", type=Path, help=f"the folder {ENV} named for the run")
    p.add_argument("--top", type=positive_int, default=25, help="functions to list (25)")
    args = p.parse_args(argv)
    try:
        print(report(args.folder, args.top))
    except (FileNotFoundError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
