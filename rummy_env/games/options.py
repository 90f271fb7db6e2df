"""Validation of game options shared by every variant.

Each check raises ``ValueError`` naming the option, the bad value, why it is wrong
and what is allowed, so that a typo in ``env(...)`` fails at construction.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

EPISODES = ("hand", "game")
REWARDS = ("win", "score")


def check_int(name: str, value: Any, low: int, high: int | None = None) -> int:
    """``value`` as an int in ``low..high`` (``high=None``: no upper bound).

    Raises:
        ValueError: not an int (bools are refused too) or out of range.
    """
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            import numpy as np

            if isinstance(value, np.integer):
                value = int(value)
            else:
                raise TypeError
        except TypeError:
            raise ValueError(f"option {name}={value!r} is not an integer: {name} must be an int{_range(low, high)}") from None
    if value < low or (high is not None and value > high):
        raise ValueError(f"option {name}={value!r} is out of range: {name} must be an int{_range(low, high)}")
    return value


def _range(low: int, high: int | None) -> str:
    return f" from {low} to {high}" if high is not None else f" >= {low}"


def check_bool(name: str, value: Any) -> bool:
    """``value`` if it is a bool.

    Raises:
        ValueError: not a bool (0/1 and strings are refused: nothing is guessed).
    """
    if not isinstance(value, bool):
        raise ValueError(f"option {name}={value!r} is not a bool: {name} must be True or False")
    return value


def check_choice(name: str, value: Any, choices: Sequence[str]) -> str:
    """``value`` if it is one of ``choices``.

    Raises:
        ValueError: anything else; the message lists the choices.
    """
    if not isinstance(value, str) or value not in choices:
        allowed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"option {name}={value!r} is not allowed: {name} must be one of {allowed}")
    return value


def check_known(options: dict, known: Sequence[str], what: str) -> None:
    """Refuse option names that ``what`` does not have (a typo must not pass silently).

    Raises:
        ValueError: an unknown name; the message lists the known ones.
    """
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise ValueError(f"unknown {what} option(s) {', '.join(map(repr, unknown))}: known options are {', '.join(known)}")
