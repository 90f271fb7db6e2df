"""Validation of game options shared by every variant.

Each check raises ``ValueError`` naming the option, the bad value, why it is wrong
and what is allowed, so that a typo in ``env(...)`` fails at construction.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import fields
from typing import Any

import numpy as np

EPISODES = ("hand", "game")


class OptionNames:
    """Mixin of the variants' config dataclasses: the names of their options."""

    @classmethod
    def option_names(cls) -> tuple[str, ...]:
        """Names of all options, in declaration order."""
        return tuple(f.name for f in fields(cls))


REWARDS = ("win", "score")
#: the largest ``max_turns`` and ``target_score``: the observations scale by them in float32,
#: and a larger limit would never be reached in play anyway
MAX_LIMIT = 10**9
#: the largest Gin bonus: the batched engines keep game totals in int32, and a total below
#: a target of ``MAX_LIMIT`` plus a hand with such a bonus stays below 2**31 (the game bonuses
#: of R-GIN-13 add 100 and 25 a hand won: past 2**31 only after some 40 million hands won)
MAX_BONUS = 10**6


def check_int(
    name: str, value: Any, low: int, high: int | None = None, kind: str = "option ", allowed: str | None = None
) -> int:
    """``value`` as a Python int in ``low..high`` (``high=None``: no upper bound).

    Ints and NumPy integers are accepted; bools, floats and strings are refused.  ``kind``
    starts the message (``"option "``: an ``env()`` option; ``""`` for other arguments);
    ``allowed`` ends it in place of ``"{name} must be an int from {low} to {high}"``.

    Raises:
        ValueError: not an integer, or out of range.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{kind}{name}={value!r} is not an integer: {allowed or _must(name, low, high)}")
    value = int(value)
    if value < low or (high is not None and value > high):
        raise ValueError(f"{kind}{name}={value!r} is out of range: {allowed or _must(name, low, high)}")
    return value


#: the int64 range: the batched engines read lists of ids into int64 arrays
INT64_RANGE = (-(2**63), 2**63 - 1)


def check_int_entries(name: str, values: Any, allowed: str) -> np.ndarray:
    """``values`` as a NumPy array (``np.asarray``), its entries checked first when it is a list
    or tuple: each must be one integer within int64 -- an int, a NumPy integer, or a 0-d
    integer array of numpy's or another framework's (SB3's ``model.predict`` gives 0-d arrays,
    ``torch.argmax`` 0-d tensors).  Why: ``np.asarray`` reads a ``True`` among ints as 1, an
    int past int64 as a float and a ragged entry as numpy's own error, so the array checks
    that follow would take a bool for an id or name the wrong fault.  Arrays pass untouched
    (their dtype says what they hold).  A list of plain ints or NumPy integers is read by
    numpy in one call (a step of 4096 games with a list of actions: 0.1 ms, not 1 ms).

    Raises:
        ValueError: the first other entry, by index (``name[i]=value``), ending with ``allowed``.
    """
    if not isinstance(values, (list, tuple)):
        return np.asarray(values)
    if all(t is int or issubclass(t, np.integer) for t in set(map(type, values))):  # no bool among them
        arr = np.asarray(values)
        # past int64 numpy makes uint64 (up to 2**64-1) or object: checked entry by entry below
        if arr.dtype.kind == "i" or (arr.dtype.kind == "u" and (arr.size == 0 or arr.max() <= INT64_RANGE[1])):
            return arr
    return np.array([_int_entry(name, i, v, allowed) for i, v in enumerate(values)], dtype=np.int64)


def _int_entry(name: str, i: int, value: Any, allowed: str) -> int:
    """Entry ``i`` of :func:`check_int_entries`'s list as a Python int."""
    v = value
    if hasattr(v, "__array__") and not isinstance(v, (np.integer, np.bool_)):  # a 0-d array or tensor
        v = np.asarray(v)
        v = v[()] if v.shape == () else value
    if isinstance(v, (bool, np.bool_)) or not isinstance(v, (int, np.integer)):
        raise ValueError(f"{name}[{i}]={value!r} is not an integer: {allowed}")
    if not INT64_RANGE[0] <= v <= INT64_RANGE[1]:
        raise ValueError(f"{name}[{i}]={value!r} is out of range: {allowed}")
    return int(v)


def _must(name: str, low: int, high: int | None) -> str:
    """The end of :func:`check_int`'s message, built only when a value is refused (the check
    runs at every reset)."""
    return f"{name} must be an int{_range(low, high)}"


def check_seed(name: str, value: Any, also: str = "") -> int | None:
    """``value`` as a seed: None, or a Python int >= 0 (NumPy integers count; bools, floats
    and strings do not), as ``env.reset(seed=...)`` takes seeds.

    Raises:
        ValueError: anything else; the message names ``name`` and ends with ``also``.
    """
    if value is None:
        return None
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer) or value < 0:
        raise ValueError(f"{name}={value!r} is not a seed: {name} must be None or an int >= 0{also}")
    return int(value)


def check_rng(rng: Any) -> np.random.Generator:
    """A new game's generator: ``rng`` itself if a ``numpy.random.Generator``, else a new one
    seeded with ``rng`` (None: fresh entropy; :func:`check_seed`).

    Raises:
        ValueError: ``rng`` is neither a generator, None nor an int >= 0.
    """
    if isinstance(rng, np.random.Generator):
        return rng
    return np.random.default_rng(check_seed("rng", rng, " (or a numpy.random.Generator)"))


def _range(low: int, high: int | None) -> str:
    return f" from {low} to {high}" if high is not None else f" >= {low}"


def check_bool(name: str, value: Any) -> bool:
    """``value`` as a Python bool (``np.bool_`` included).

    Raises:
        ValueError: not a bool (0/1 and strings are refused: nothing is guessed).
    """
    if not isinstance(value, (bool, np.bool_)):
        raise ValueError(f"option {name}={value!r} is not a bool: {name} must be True or False")
    return bool(value)


def check_choice(name: str, value: Any, choices: Sequence[str]) -> str:
    """``value`` as a Python str (a NumPy string too) if it is one of ``choices``.

    Raises:
        ValueError: anything else; the message lists the choices.
    """
    if not isinstance(value, str) or value not in choices:
        allowed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"option {name}={value!r} is not allowed: {name} must be one of {allowed}")
    return str(value)  # a NumPy string as a Python one, as check_int and check_bool return theirs


def check_known(options: dict, known: Sequence[str], what: str) -> None:
    """Refuse option names that ``what`` does not have (a typo must not pass silently).

    Raises:
        ValueError: an unknown name; the message lists the known ones.
    """
    unknown = sorted(set(options) - set(known), key=str)
    if unknown:
        # a PettingZoo habit (its parallel envs take max_cycles): name the limit this env has
        hint = "; there is no max_cycles: max_turns limits a hand's turns" if "max_cycles" in unknown else ""
        hint = hint if "max_turns" in known else ""
        raise ValueError(
            f"unknown {what} option(s) {', '.join(map(repr, unknown))}: known options are {', '.join(known)}{hint}"
        )


def check_seat(name: str, value: Any, num_players: int) -> int:
    """``value`` as a seat index in ``0..num_players-1``.

    Raises:
        ValueError: not an int (bools refused) or not a seat.
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) or not 0 <= value < num_players:
        raise ValueError(f"{name} {value!r} is not a seat: the {name} must be an int from 0 to {num_players - 1}")
    return int(value)
