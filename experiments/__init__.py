"""Runnable jobs: ``python -m experiments.tournament`` (the main job), ``python -m experiments.benchmark``.

Started as a job (``python -m experiments.X``), the package does two things before the
job module runs, both left out when it is imported as a library:

* without the ``experiments`` extra (a bare ``pip install -e .``) it stops with one line
  naming the extra (exit 2) instead of a traceback from whichever import comes first;
* a Ctrl-C that no part of the job handles (during its imports, the first seconds of a
  run, before a long job's :class:`~experiments.common.interrupt.StopRequest` is set up)
  ends it with one line instead of a traceback, exit code 130 as before.
"""

import importlib.util as _util
import sys as _sys

#: the modules of the experiments extra every job may import (progress bars, ratings, plots)
_EXTRA_MODULES = ("tqdm", "openskill", "matplotlib")


def _quiet_interrupt(kind, value, tb, _previous=_sys.excepthook):
    """``sys.excepthook`` of a job: an unhandled KeyboardInterrupt is one line (Python
    still exits with 130, as for any unhandled Ctrl-C); anything else as before."""
    if issubclass(kind, KeyboardInterrupt):
        print("interrupted (Ctrl-C)", file=_sys.stderr)
        return
    _previous(kind, value, tb)


if _sys.argv[:1] == ["-m"]:  # runpy imports this package before the job module it runs
    _missing = [m for m in _EXTRA_MODULES if _util.find_spec(m) is None]
    if _missing:
        print(
            f'the jobs need the experiments extra (missing: {", ".join(_missing)}): pip install -e ".[experiments]"',
            file=_sys.stderr,
        )
        raise SystemExit(2)
    _sys.excepthook = _quiet_interrupt
