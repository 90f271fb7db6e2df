"""A clean stop on Ctrl-C and ``kill``: long jobs finish the step they are in and keep what
they have done.

    with StopRequest("selfplay", "stopping after this update; the checkpoint and the model are written") as stop:
        while not stop.requested:
            ...  # one safe unit of work
    if stop.requested:
        print(stop.kept("checkpoint.pt and model.pt in results/x"))
        return stop.exit_code

The first SIGINT (Ctrl-C) or SIGTERM sets :attr:`StopRequest.requested` and prints one line
saying what will happen; the job checks the flag at its safe points (between updates,
between chunks of deals) and then writes what it finished.  A second signal quits at once
(exit code 128 + that signal's number), without a traceback, removing the files half
written (:data:`PARTS`); one within :data:`SAME_SIGNAL_S` of the first is the
same request (GNU ``timeout -s INT`` signals the job and then its process group, the job
again; the window counts from when Python ran the first handler, so an echo held back by a
long compiled call may still read as a second Ctrl-C).  Worker processes ignore SIGINT
(:func:`ignore_interrupts`, their initializer): a Ctrl-C in a terminal reaches every process
of the group, and the main process decides what to keep.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

_SIGNALS = (signal.SIGINT, signal.SIGTERM)
#: the ``.part`` files being written now (``experiments.common.jobs.atomic_open``): a quit
#: at once removes them, as the error path of ``atomic_open`` would
PARTS: set[str] = set()
#: folders whose ``*.part`` files worker processes write (a tournament's ``--record``): a
#: quit at once kills the workers, then removes those files too
PART_FOLDERS: set[str] = set()
#: seconds after the first signal in which another is the same request, not "quit now"
SAME_SIGNAL_S = 0.1


def _install(handler: Any) -> dict[int, Any]:
    """``handler`` for SIGINT and SIGTERM; returns the handlers it replaced (none outside the
    main thread, where Python cannot install signal handlers)."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    return {s: signal.signal(s, handler) for s in _SIGNALS}


def _say(line: str) -> None:
    """Write ``line`` on stderr in a signal handler, below the progress bar a job draws there.

    A tqdm bar is cleared, the line written and the bar drawn again under it: written after
    a newline instead, the line left the bar's last state above it and the bar went on below
    it, so that a stopped job's terminal showed its progress twice.  Without a bar (a log
    file's progress lines, ``--no-progress``) the newline first moves past the terminal's
    ``^C``.
    """
    tqdm_module = sys.modules.get("tqdm")  # a job with a bar imported it; a handler imports nothing
    bars = [bar for bar in getattr(getattr(tqdm_module, "tqdm", None), "_instances", ()) if not bar.disable]
    if bars:
        # nolock: the handler runs between two bytecodes of the main thread, which may hold
        # tqdm's lock in the middle of drawing the bar (waiting for it would never end)
        with tqdm_module.tqdm.external_write_mode(file=sys.stderr, nolock=True):
            sys.stderr.write(line + "\n")
            sys.stderr.flush()
        return
    sys.stderr.write("\n" + line + "\n")
    sys.stderr.flush()


def _restore(previous: dict[int, Any]) -> None:
    """Put back the handlers :func:`_install` replaced (None, a handler not set from Python,
    cannot be put back: the default then)."""
    for s, handler in previous.items():
        signal.signal(s, signal.SIG_DFL if handler is None else handler)


class StopRequest:
    """A context manager that turns SIGINT and SIGTERM into a request to stop.

    Args:
        job: the job's name, for the messages (``"tournament"``).
        then: what the job does when asked to stop, printed with the first signal
            (``"finishing the chunks in progress, then writing the games played"``).

    Attributes:
        requested: whether a stop was asked for.
        signum: the first signal received (``signal.SIGINT`` or ``signal.SIGTERM``), or None.

    Outside the main thread (where Python cannot install signal handlers) it does nothing
    and :attr:`requested` stays False.  After a stop was requested the block's exit leaves a
    handler that quits at once on the next signal (the job is writing what it kept and then
    ends); without a stop the previous handlers come back.
    """

    def __init__(self, job: str, then: str):
        self.job, self.then = job, then
        self.requested = False
        self.signum: int | None = None
        self._first = float("-inf")  # when the first signal came (time.monotonic)
        self._previous: dict[int, Any] = {}

    def _handle(self, signum: int, frame: Any) -> None:
        if self.requested:
            # the second signal: the user does not want to wait for the safe point
            self._quit_now(signum, frame)
            return
        self.requested, self.signum, self._first = True, signum, time.monotonic()
        _say(f"{self.job}: {signal.Signals(signum).name}: {self.then} (press Ctrl-C again to quit now)")

    def __enter__(self) -> StopRequest:
        self._previous = _install(self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        if self.requested:
            # a stopped job writes what it kept after the block: a second signal while it
            # writes must still quit at once, not raise KeyboardInterrupt in the middle of it
            for s in self._previous:
                signal.signal(s, self._quit_now)
        else:
            _restore(self._previous)
        self._previous.clear()

    def _quit_now(self, signum: int, frame: Any) -> None:
        if time.monotonic() - self._first < SAME_SIGNAL_S:
            return  # the first signal again, sent to the process group too
        sys.stderr.write(f"\n{self.job}: stopped at once ({signal.Signals(signum).name} again)\n")
        sys.stderr.flush()
        # os._exit skips the pool's clean-up: its workers would play on, then fail on the
        # closed pipe with tracebacks after the job has ended
        for child in multiprocessing.active_children():
            child.kill()
        _unlink_semaphores()
        for part in list(PARTS) + [str(p) for folder in PART_FOLDERS for p in Path(folder).glob("*.part")]:
            with contextlib.suppress(OSError):  # renamed into place since the set was read
                os.unlink(part)
        os._exit(128 + int(signum))

    @property
    def exit_code(self) -> int:
        """128 + the signal's number (130 for SIGINT, 143 for SIGTERM): the shell's code of a
        job ended by that signal, so scripts can tell a partial run from a complete one."""
        return 128 + int(self.signum) if self.signum is not None else 0

    def kept(self, what: str) -> str:
        """The one line a stopped job prints: ``"<job>: stopped early; kept <what>"``."""
        return f"{self.job}: stopped early ({signal.Signals(self.signum).name}); kept {what}"


def _unlink_semaphores() -> None:
    """Unlink the named semaphores this process made and tell Python's resource tracker, as
    their finalizers do at a normal exit, which ``os._exit`` skips: a pool's queues' locks and
    the stop event of :func:`experiments.common.parallel.run_tasks` were left registered, and
    the tracker (a process of its own, outliving the job) printed "resource_tracker: There
    appear to be 11 leaked semaphore objects to clean up at shutdown" after a second Ctrl-C.
    Reads CPython's ``multiprocessing.util._finalizer_registry`` (unchanged since 3.4); under
    another Python it does nothing and the tracker cleans up with its warning, as before."""
    synchronize = sys.modules.get("multiprocessing.synchronize")  # not imported: no semaphore made
    registry = getattr(sys.modules.get("multiprocessing.util"), "_finalizer_registry", None)
    cleanup = getattr(getattr(synchronize, "SemLock", None), "_cleanup", None)
    if cleanup is None or not isinstance(registry, dict):
        return
    for finalizer in list(registry.values()):
        if getattr(finalizer, "_callback", None) is cleanup:
            with contextlib.suppress(Exception):  # quitting at once: a semaphore gone already is no reason to stay
                finalizer()


class TermAsInterrupt:
    """A context manager under which SIGTERM raises ``KeyboardInterrupt`` as Ctrl-C does, for
    the jobs that print each measurement as it ends (``benchmark``, ``vector_differential``):
    their stop is the interrupt's, keeping the rows printed.  A signal within
    :data:`SAME_SIGNAL_S` of the one that raised is the same one sent to the process group
    too (GNU ``timeout``), not a second interrupt in the middle of printing the rows.  Outside
    the main thread it does nothing.

    Attributes:
        signum: the signal that stopped the block (``signal.SIGINT`` until one came).
    """

    def __init__(self) -> None:
        self.signum = signal.SIGINT
        self._previous: dict[int, Any] = {}
        self._first = float("-inf")  # when a signal last raised (time.monotonic)

    def _handle(self, signum: int, frame: Any) -> None:
        now = time.monotonic()
        if now - self._first < SAME_SIGNAL_S:
            return  # the same signal again, sent to the process group too
        self.signum, self._first = signum, now
        raise KeyboardInterrupt

    def __enter__(self) -> TermAsInterrupt:
        self._previous = _install(self._handle)
        return self

    def __exit__(self, *exc: object) -> None:
        _restore(self._previous)
        self._previous.clear()

    @property
    def name(self) -> str:
        """``"SIGINT"`` or ``"SIGTERM"``."""
        return signal.Signals(self.signum).name

    @property
    def exit_code(self) -> int:
        """130 after Ctrl-C, 143 after SIGTERM (as :attr:`StopRequest.exit_code`)."""
        return 128 + int(self.signum)


@contextlib.contextmanager
def handlers_kept() -> Iterator[None]:
    """Put back this process's SIGINT and SIGTERM handlers after the block: ``ray.init`` and
    ``ray.shutdown`` install their own, and under them a SIGTERM killed a job on the Ray
    backend with nothing kept.  Outside the main thread it does nothing."""
    main = threading.current_thread() is threading.main_thread()
    saved = {s: signal.getsignal(s) for s in _SIGNALS} if main else {}
    try:
        yield
    finally:
        _restore(saved)


def ignore_interrupts() -> None:
    """Make this (worker) process ignore SIGINT: the main process handles Ctrl-C and ends its
    workers itself."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
