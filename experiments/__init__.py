"""Runnable jobs: ``python -m experiments.tournament`` (the main job), ``python -m experiments.benchmark``.

The jobs need the ``experiments`` extra.  Started without it (``python -m experiments.X``
after a bare ``pip install -e .``), a job stops here with one line naming the extra
instead of a traceback from whichever import comes first; imported as a library, the
package leaves the import errors to the modules that need them.
"""

import importlib.util as _util
import sys as _sys

#: the modules of the experiments extra every job may import (progress bars, ratings, plots)
_EXTRA_MODULES = ("tqdm", "openskill", "matplotlib")

if _sys.argv[:1] == ["-m"]:  # runpy imports this package before the job module it runs
    _missing = [m for m in _EXTRA_MODULES if _util.find_spec(m) is None]
    if _missing:
        print(
            f'the jobs need the experiments extra (missing: {", ".join(_missing)}): pip install -e ".[experiments]"',
            file=_sys.stderr,
        )
        raise SystemExit(2)
