"""What the server reads from a file, kept until the file changes: the Replays and Results
pages list every record (its game line) and every run (its JSON) at each request, and most
files are unchanged from one request to the next.

A file's value is read again when its ``(mtime, size, inode, ctime)`` differ from those it
was read with: a file written again, replaced (a rename onto it) or touched.  A file whose
``stat`` fails is read each time (its reader says what it is: usually not a record).
:meth:`FileCache.get_stat` also gives that ``stat``, so that a listing showing a file's time
does not ``stat`` it a second time, or takes the one its walk took (each file listed is
``stat``-ed once).
"""

from __future__ import annotations

import os
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import Any


def _stat(path: Path) -> os.stat_result | None:
    """``os.stat(path)`` (links followed), or None when it fails."""
    try:
        return os.stat(path)
    except (OSError, ValueError):  # ValueError: a NUL byte in the name
        return None


class FileCache:
    """Values read from files, by path, each kept while its file is unchanged; at most
    ``max_files`` (the least recently used dropped).

    Args:
        max_files: files kept at once (an int >= 1).

    Raises:
        ValueError: ``max_files`` not an int >= 1.
    """

    def __init__(self, max_files: int):
        if isinstance(max_files, bool) or not isinstance(max_files, int) or max_files < 1:
            raise ValueError(f"max_files must be an int >= 1, got {max_files!r}")
        self.max_files = max_files
        self._kept: OrderedDict[str, tuple[tuple, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._kept)

    def get(self, path: Path, read: Callable[[Path], Any], key: str | None = None) -> Any:
        """``read(path)``, or the value it gave before if the file has not changed since.

        ``read`` is passed at each call (not kept), so that the caller's reader is the one
        used (a test counts its calls).  ``key`` (default ``str(path)``) is what the value is
        kept under: a caller that read a link's checked target keeps it under the link's name.
        """
        return self.get_stat(path, read, key)[0]

    def get_stat(
        self, path: Path, read: Callable[[Path], Any], key: str | None = None, st: os.stat_result | None = None
    ) -> tuple[Any, os.stat_result | None]:
        """:meth:`get`'s value and the ``os.stat`` of ``path`` it was checked with (None: the
        stat failed, and the file was read): a listing that shows a file's time needs no
        second ``stat`` of each file it lists.

        ``st``: the ``os.stat`` of ``path`` (links followed) the caller has just taken (the
        walk's, ``safety.walk_inside_stat``), used instead of taking another; as this one's
        own, it is taken before the file is read, so a file changed since is read again at
        the next call."""
        key = str(path) if key is None else key
        if st is None:
            st = _stat(path)
        if st is None:
            return read(path), None
        now = (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)
        with self._lock:
            kept = self._kept.get(key)
            if kept is not None and kept[0] == now:
                self._kept.move_to_end(key)
                return kept[1], st
        value = read(path)  # outside the lock: other requests' files are read meanwhile
        # stamped before the read: a file changed while read is read again next time
        with self._lock:
            self._kept[key] = (now, value)
            self._kept.move_to_end(key)
            while len(self._kept) > self.max_files:
                self._kept.popitem(last=False)
        return value, st
