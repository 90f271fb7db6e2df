"""One line on stderr when a numba kernel is about to compile (its on-disk cache is cold).

The first use of a batched engine (``rummy_env.vector``), of the Rummikub solver's
kernels or of ``pimc``'s compiled playouts compiles for up to a minute (a small kernel
in seconds, the Rummikub solver the longest); loaded from numba's cache (``cache=True``:
``__pycache__`` or ``NUMBA_CACHE_DIR``) it takes a second or two.  numba reports each
real compilation, not a load from its cache, as a ``"numba:compile"`` event
(``numba.core.event``, numba's documented event API); :func:`compile_notice` listens for
it around a kernel's first call and says, once per process and kernel::

    rummy_env: compiling the Gin Rummy kernel with numba, up to a minute the first time; cached after

``RUMMY_ENV_QUIET_COMPILE=1`` (any value but ``""`` and ``"0"``) turns the notice off; the
test suite sets it (``tests/conftest.py``).  Nothing here imports numba before a kernel
runs, and nothing changes what the kernels compute.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from collections.abc import Callable, Iterator
from typing import Any

QUIET_ENV = "RUMMY_ENV_QUIET_COMPILE"  #: the environment variable that turns the notice off

_lock = threading.Lock()
_said: set[str] = set()  # kernels whose notice was printed in this process
_called: set[str] = set()  # first calls that finished (compiled, or loaded from the cache)


def quiet() -> bool:
    """Whether :data:`QUIET_ENV` turns the notice off."""
    return os.environ.get(QUIET_ENV, "") not in ("", "0")


def _say(what: str) -> None:
    with _lock:
        if what in _said:
            return
        _said.add(what)
    print(
        f"rummy_env: compiling {what} with numba, up to a minute the first time; cached after",
        file=sys.stderr,
        flush=True,
    )


@contextlib.contextmanager
def compile_notice(what: str, call: str | None = None) -> Iterator[None]:
    """Around a kernel's first call: if numba compiles anything meanwhile (on any thread),
    print the notice for ``what`` (e.g. ``"the Gin Rummy kernel"``) once per process.

    Args:
        what: the kernel, as the notice names it; the notice is printed once per ``what``.
        call: a name for the call; after one call under that name finished, later ones
            listen no more (None: always listen).
    """
    if (call is not None and call in _called) or quiet():
        yield
        return
    from numba.core import event

    class Notice(event.Listener):
        def on_start(self, ev: Any) -> None:
            _say(what)

        def on_end(self, ev: Any) -> None:
            pass

    with event.install_listener("numba:compile", Notice()):
        yield
    if call is not None:
        _called.add(call)


def noting_compile(fn: Callable, what: str) -> Callable:
    """``fn`` (a numba dispatcher) whose first call runs under :func:`compile_notice`;
    later calls cost one Python call more."""
    first = [True]

    def call(*args: Any, **kwargs: Any) -> Any:
        if not first[0]:
            return fn(*args, **kwargs)
        with compile_notice(what):
            out = fn(*args, **kwargs)
        first[0] = False
        return out

    call.__wrapped__ = fn  # type: ignore[attr-defined]
    return call
