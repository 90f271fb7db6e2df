"""Progress of a long job: a bar on a terminal, a plain line now and then in a log file.

tqdm hides itself when stderr is not a terminal (``disable=None``), so a job whose output
goes to a file (``nohup ... > run.log``) used to show nothing until it ended, and a
carriage-return bar written to a file is one unreadable line.  :func:`progress_counter` gives
the bar on a terminal and, elsewhere, a line like ``evaluate: 120/400 deals (30%), 5m 12s,
about 12m 8s left`` at most every ``every`` seconds (default :data:`EVERY`, or the
environment variable ``RUMMY_ENV_PROGRESS_EVERY``) and when the work is done.
"""

from __future__ import annotations

import math
import os
import sys
import time
from typing import Any, TextIO

#: seconds between two lines of a job's progress in a log file
EVERY = 60.0
#: the environment variable that sets those seconds instead (0: a line at every update)
EVERY_VARIABLE = "RUMMY_ENV_PROGRESS_EVERY"
_WARNED: set[str] = set()  # the bad values of EVERY_VARIABLE already named


def every_seconds(file: TextIO | None = None) -> float:
    """Seconds between two progress lines: ``RUMMY_ENV_PROGRESS_EVERY`` when set, else :data:`EVERY`.

    A value that is not a finite number >= 0 is named in one line on ``file`` (default
    stderr; once per value in a process) and :data:`EVERY` is used: a setting of the log's
    look does not stop a job.
    """
    text = os.environ.get(EVERY_VARIABLE)
    if text is None:
        return EVERY
    try:
        value = float(text)
    except ValueError:
        value = -1.0
    if not math.isfinite(value) or value < 0:
        if text not in _WARNED:  # once per value: a job may open several counters
            _WARNED.add(text)
            print(
                f"{EVERY_VARIABLE}={text!r} is not a number of seconds >= 0: a progress line every {EVERY:g} s",
                file=sys.stderr if file is None else file,
            )
        return EVERY
    return value


def _count(x: float) -> str:
    """``12`` -> ``"12"``, ``12.5`` -> ``"12.50"`` (a whole count, or minutes to the hundredth)."""
    return str(int(x)) if float(x).is_integer() else f"{x:.2f}"


def _clock(seconds: float) -> str:
    """``3725.2`` -> ``"1h 2m 5s"`` (whole seconds, leading zero units left out)."""
    s = int(round(seconds))
    h, m = s // 3600, s // 60 % 60
    if h:
        return f"{h}h {m}m {s % 60}s"
    return f"{m}m {s % 60}s" if m else f"{s}s"


class ProgressLines:
    """A progress counter that prints plain lines (the non-terminal side of :func:`progress_counter`).

    Args:
        total: units of work, or None when unknown (a job that runs to a deadline):
            then the lines give the count and the time only.
        unit: what a unit is called (``"deal"``, ``"game"``).
        label: the line's prefix (the job's name).
        file: where the lines go.
        every: least seconds between two lines (the last line is always printed).
        clock: the time source in seconds (tests pass a fake one).
        initial: units done before this process (a resumed run); the time left is
            estimated from the units done since.
    """

    def __init__(
        self,
        total: int | None,
        unit: str,
        label: str,
        file: TextIO,
        every: float = EVERY,
        clock: Any = time.monotonic,
        initial: float = 0,
    ):
        self.total, self.unit, self.label, self.file, self.every = total, unit, label, file, every
        self.clock = clock
        self.n = self.initial = initial
        self.start = self.last = clock()
        self.printed = ""  # the last line printed
        self.closed = False
        self.postfix = ""

    def set_postfix(self, **values: Any) -> None:
        """Figures to end each line with, ``name=value`` (tqdm's ``set_postfix``)."""
        self.postfix = ", ".join(f"{k}={v}" for k, v in values.items())

    def set_description(self, label: str) -> None:
        """The line's prefix (tqdm's ``set_description``)."""
        self.label = label

    def line(self, final: bool = False) -> str:
        """The current line, e.g. ``evaluate: 120/400 deals (30%), 5m 12s, about 12m 8s left``
        (``final``: without the time left, which a job stopped early will not spend)."""
        elapsed = self.clock() - self.start
        if self.total is None:
            text = f"{self.label}: {_count(self.n)} {self.unit}s, {_clock(elapsed)}"
        else:
            text = f"{self.label}: {_count(self.n)}/{_count(self.total)} {self.unit}s"
            if self.total > 0:
                text += f" ({int(100 * self.n // self.total)}%)"
            text += f", {_clock(elapsed)}"
            done = self.n - self.initial
            if done > 0 and self.n < self.total and not final:
                text += f", about {_clock(elapsed * (self.total - self.n) / done)} left"
        return f"{text}, {self.postfix}" if self.postfix else text

    def update(self, n: int = 1) -> None:
        """Count ``n`` more units; print a line if ``every`` seconds passed since the last."""
        self.n += n
        now = self.clock()
        if now - self.last >= self.every and (self.total is None or self.n < self.total):
            self.last = now
            self.printed = self.line()
            print(self.printed, file=self.file, flush=True)

    def close(self) -> None:
        """Print the last line (once; not again when the last update just printed it)."""
        if not self.closed:
            self.closed = True
            final = self.line(final=True)
            if final != self.printed:
                print(final, file=self.file, flush=True)

    def __enter__(self) -> ProgressLines:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def progress_counter(
    total: int | None,
    unit: str,
    label: str,
    enabled: bool = True,
    file: TextIO | None = None,
    every: float | None = None,
    initial: float = 0,
    **bar_options: Any,
) -> Any:
    """A context manager counting ``total`` units of work with ``update(n)``: a tqdm bar
    when ``file`` (default stderr) is a terminal, :class:`ProgressLines` otherwise (a line
    at most every ``every`` seconds, default :func:`every_seconds`), a disabled tqdm bar
    when ``enabled`` is false (``--no-progress``).  Both take ``set_postfix(**values)`` and
    ``set_description(label)``.

    Args:
        initial: units already done (a resumed run); a float counts fractions (minutes).
        bar_options: more of tqdm's options for the terminal's bar (``bar_format``).
    """
    from tqdm import tqdm

    file = sys.stderr if file is None else file
    if not enabled:
        return tqdm(total=total, unit=unit, disable=True, file=file, initial=initial)
    isatty = getattr(file, "isatty", None)
    if isatty is not None and isatty():
        return tqdm(total=total, unit=unit, file=file, initial=initial, **bar_options)
    every = every_seconds(file) if every is None else every
    return ProgressLines(total, unit, label, file, every, initial=initial)
