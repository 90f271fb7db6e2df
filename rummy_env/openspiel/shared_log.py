"""The append-only log behind an OpenSpiel state's history and information states: copied
at every step, so a copy must cost O(1)."""

from __future__ import annotations

from typing import Any


class SharedLog:
    """An append-only list that copies share: a fork costs O(1), and a fork that appends
    after another one did copies its own prefix first (OpenSpiel clones a state at every
    step, and an information state is as long as the episode).

    Args:
        items: the list to start from (kept, not copied).
    """

    __slots__ = ("items", "size")

    def __init__(self, items: list | None = None):
        self.items = [] if items is None else items
        self.size = len(self.items)

    def fork(self) -> SharedLog:
        """A log with the same entries, in the same storage (each log reads only its own
        first ``size`` entries)."""
        other = SharedLog.__new__(SharedLog)
        other.items, other.size = self.items, self.size
        return other

    def append(self, item: Any) -> None:
        """Add ``item`` at the end: in place, or on a copy of this log's entries when a log
        sharing the storage has already appended past this one's end."""
        if len(self.items) != self.size:
            self.items = self.items[: self.size]
        self.items.append(item)
        self.size += 1

    def __setitem__(self, index: int, item: Any) -> None:
        self.items = self.items[: self.size]  # never write into a list other forks read
        self.items[index] = item

    def __getitem__(self, index: int) -> Any:
        if not -self.size <= index < self.size:
            raise IndexError(index)
        return self.items[index % self.size]

    def __len__(self) -> int:
        return self.size

    def view(self) -> list:
        """The items, as a list not to be changed."""
        return self.items if len(self.items) == self.size else self.items[: self.size]

    def __getstate__(self):
        return self.view()

    def __setstate__(self, items):
        self.items, self.size = list(items), len(items)
