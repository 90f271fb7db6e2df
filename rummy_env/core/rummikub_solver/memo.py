"""The solver's memo caches and their memory budget (megabytes per process).

The sweeps memoise joint moves (``transitions``) and whole masks (``api``): a game revisits
the same rows of the table many times, so a hit saves most of a sweep.  Without a bound
the caches grow with every new position; with one, a process stays flat once the caches
are full.  All caches share one budget:

* ``RUMMY_ENV_SOLVER_CACHE_MB`` (environment variable, read at import) or
  :func:`set_cache_budget` sets it; the default is :data:`DEFAULT_BUDGET_MB` (32 MB).
  ``0`` turns memoisation off (every call recomputes: same answers, slower).
* Each entry is charged an estimate of its size (key + value + dict slot, CPython 3.10+
  object sizes); when a store would exceed the budget, the cache being written is
  emptied first, then the others if that is not enough.  Emptying a whole cache is cheap
  and keeps the hot entries of the next positions; an LRU order would cost a lookup on
  every hit for little gain here (positions change every turn).

The budget bounds what the caches hold, not the process: the interpreter, numpy and the
numba kernels add a fixed amount (see the README's memory figures).
"""

from __future__ import annotations

import numbers
import os

#: Default memory budget of the solver's caches, in megabytes (1 MB = 2**20 bytes).
DEFAULT_BUDGET_MB = 32.0


def _budget_from_env() -> int:
    raw = os.environ.get("RUMMY_ENV_SOLVER_CACHE_MB", "")
    if raw == "":
        return int(DEFAULT_BUDGET_MB * 2**20)
    try:
        mb = float(raw)
    except ValueError:
        raise ValueError(
            f"RUMMY_ENV_SOLVER_CACHE_MB={raw!r} is not a number: give the solver cache budget in megabytes (>= 0)"
        ) from None
    if not mb >= 0:
        raise ValueError(f"RUMMY_ENV_SOLVER_CACHE_MB={raw!r} must be >= 0 (megabytes; 0 turns the caches off)")
    return int(mb * 2**20)


_budget = _budget_from_env()
_caches: list[BoundedCache] = []
_total = 0  # bytes charged to all caches


class BoundedCache:
    """A dict whose entries are charged bytes against the shared budget.

    Args:
        name: shown by :func:`cache_info`.
        cost: ``cost(key, value) -> int``, the estimated bytes of one entry.
    """

    __slots__ = ("name", "data", "cost", "nbytes")

    def __init__(self, name: str, cost) -> None:
        self.name = name
        self.data: dict = {}
        self.cost = cost
        self.nbytes = 0
        _caches.append(self)

    def get(self, key):
        return self.data.get(key)

    def store(self, key, value) -> None:
        """Keep ``value`` under ``key`` if the budget allows (after emptying caches if needed)."""
        size = self.cost(key, value)
        if size > _budget:
            return
        global _total
        if _total + size > _budget:
            self.clear()
            for other in _caches:
                if _total + size <= _budget:
                    break
                other.clear()
        if key not in self.data:
            self.data[key] = value
            self.nbytes += size
            _total += size

    def clear(self) -> None:
        global _total
        _total -= self.nbytes
        self.data.clear()
        self.nbytes = 0

    def __len__(self) -> int:
        return len(self.data)


def set_cache_budget(megabytes: float) -> None:
    """Set the memory budget of the solver's caches, in megabytes (``0``: no caching).

    Caches over the new budget are emptied at once.

    Raises:
        TypeError: ``megabytes`` is not a real number (bools refused; NumPy numbers accepted).
        ValueError: ``megabytes`` is negative or not finite.
    """
    if isinstance(megabytes, bool) or not isinstance(megabytes, numbers.Real):
        raise TypeError(f"the cache budget must be a number of megabytes, got {type(megabytes).__name__}")
    if not 0 <= megabytes < float("inf"):
        raise ValueError(f"the cache budget must be a finite number of megabytes >= 0, got {megabytes}")
    global _budget
    _budget = int(float(megabytes) * 2**20)  # float: np.int32(4096) * 2**20 would overflow
    if _total > _budget:
        clear_caches()


def cache_budget_mb() -> float:
    """The current memory budget of the solver's caches, in megabytes."""
    return _budget / 2**20


def clear_caches() -> None:
    """Empty every memo cache of the solver (answers never depend on them)."""
    for c in _caches:
        c.clear()


def cache_info() -> dict[str, tuple[int, float]]:
    """``{cache name: (entries, estimated megabytes)}`` for every memo cache of the solver."""
    return {c.name: (len(c), c.nbytes / 2**20) for c in _caches}


# Estimated CPython sizes (64-bit): a dict slot with its hash ~ 100 bytes amortised, a
# tuple 40 + 8 per item, an int above 256 32 bytes (small ints are shared).
def tuple_of_ints_cost(key, value) -> int:
    """Bytes of an entry whose value is a tuple of ints (key: a tuple of small ints + one int)."""
    return 220 + 40 * len(value)


def tuple_of_pairs_cost(key, value) -> int:
    """Bytes of an entry whose value is a tuple of 2-tuples of large ints."""
    return 220 + 8 * len(value) + 120 * len(value)


def tuple_of_triples_cost(key, value) -> int:
    """Bytes of an entry whose value is a tuple of 3-tuples of ints."""
    return 220 + 8 * len(value) + 140 * len(value)


def half_cost(key, value) -> int:
    """Bytes of an entry whose value is a tuple of (pattern, tuple of large ints) pairs."""
    return 260 + sum(120 + 40 * len(moves) for _pattern, moves in value)
