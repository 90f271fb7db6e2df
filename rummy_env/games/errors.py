"""Errors raised by the rules engines, and the one check of an action id's type and range."""

from __future__ import annotations

from typing import Any

import numpy as np


class IllegalActionError(ValueError):
    """An action id that is out of range, or not legal in the current state.

    The state is unchanged when this is raised.
    """


class ActionTypeError(TypeError, ValueError):
    """An action that is not an integer id.

    It is both a ``TypeError`` (the Python convention for a wrong type) and a
    ``ValueError`` (what the rest of the API raises for bad input), so either
    ``except`` clause catches it.
    """


def integer_id(value: Any, allowed: str, what: str = "action", error: type[Exception] = ActionTypeError) -> int:
    """``value`` as a Python int if it is a Python int, a NumPy integer scalar or a 0-d
    integer array; ``allowed`` ends the error message (what the caller accepts), which
    names the value as ``what`` (``action``, ``player``).

    Raises:
        error (default ActionTypeError): anything else (a float, bool, string,
            ``Fraction``...), rather than guessed at or truncated.
    """
    if isinstance(value, np.ndarray) and value.shape == () and np.issubdtype(value.dtype, np.integer):
        value = value.item()
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise error(f"{what} {value!r} has type {type(value).__name__}: {allowed}")
    return int(value)


def to_action_id(action: Any, num_actions: int) -> int:
    """``action`` as a Python int in ``0..num_actions-1``.

    Accepts Python ints and NumPy integer scalars (and 0-d integer arrays), nothing
    else: a float, bool or string is refused rather than guessed at.

    Raises:
        ActionTypeError: not an integer.
        IllegalActionError: outside ``0..num_actions-1``.
    """
    action = integer_id(action, f"actions are integer ids 0..{num_actions - 1}")
    if not 0 <= action < num_actions:
        raise IllegalActionError(f"action {action} is out of range: action ids are 0..{num_actions - 1}")
    return action
