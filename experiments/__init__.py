"""Runnable jobs: ``python -m experiments.tournament`` (the main job), ``python -m experiments.benchmark``.

Started as a job (``python -m experiments.X``), the package makes two failures one line
each instead of a traceback (left as Python has them when it is imported as a library):

* a module of an extra that is not installed (tqdm after a bare ``pip install -e .``):
  the line names the module and the extra that brings it (exit code 1);
* a Ctrl-C that no part of the job handles (its imports, the first seconds of a run,
  before a long job's :class:`~experiments.common.interrupt.StopRequest` is set up):
  exit code 130 as before.
"""

import sys as _sys
from contextlib import suppress as _suppress
from importlib.util import find_spec as _find_spec

#: the extra (``pyproject.toml``) that brings each module a job may import
EXTRA_OF_MODULE = {
    "tqdm": "experiments",
    "openskill": "experiments",
    "matplotlib": "experiments",
    "numba": "fast",
    "PIL": "render",
    "torch": "train",
    "sb3_contrib": "train",
    "stable_baselines3": "train",
    "ray": "distributed",
    "pyspiel": "reference",
    "open_spiel": "reference",
    "rlcard": "bench",
    "starlette": "web",
    "uvicorn": "web",
    "scipy": "test",
    "tomli": "experiments",
}


def _installed(package: str) -> bool:
    try:
        return _find_spec(package) is not None
    except (ImportError, ValueError):  # a finder that refuses it: as good as missing
        return False


def _job_excepthook(kind, value, tb, _previous=_sys.excepthook):
    """``sys.excepthook`` of a job: an unhandled KeyboardInterrupt or a missing extra is
    one line (Python still exits with 130 after a Ctrl-C, 1 otherwise); anything else as
    before."""
    if issubclass(kind, KeyboardInterrupt):
        print("interrupted (Ctrl-C)", file=_sys.stderr)
        return
    top = (getattr(value, "name", None) or "").partition(".")[0]
    # only when the package itself is missing: a missing submodule of an installed one is a
    # broken install, whose traceback says more
    if issubclass(kind, ModuleNotFoundError) and top in EXTRA_OF_MODULE and not _installed(top):
        extra = EXTRA_OF_MODULE[top]
        hint = f'pip install -e ".[{extra}]"'
        if top == "torch":  # pinned first: the extra's plain torch would fetch the CUDA build
            with _suppress(ImportError):
                from agents.base import TRAIN_EXTRA as hint
        print(f"{value}: it comes with the {extra} extra: {hint}", file=_sys.stderr)
        return
    _previous(kind, value, tb)


if _sys.argv[:1] == ["-m"]:  # runpy imports this package before the job module it runs
    _sys.excepthook = _job_excepthook
