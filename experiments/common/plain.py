"""Settings as plain Python values, the only kind a job may record.

A run's settings go into files that are read back later: ``model.pt`` and ``checkpoint.pt``
(``torch.load(weights_only=True)``, which refuses a NumPy scalar as an object it will not
unpickle), ``recipe.toml`` and ``summary.json``/``evaluation.json``.  A setting given through
the Python API may be a NumPy value (``np.int64(10)`` from an array, a sweep's grid): it is
converted at the start of the run, so every file the run writes reads back.
"""

from __future__ import annotations

from typing import Any

import numpy as np

#: what :func:`plain_value` keeps as it is
_SCALARS = (bool, int, float, str, type(None))


def plain_value(value: Any, name: str) -> Any:
    """``value`` with every NumPy scalar turned into its Python value (``np.int64(10)`` -> ``10``,
    ``np.bool_(True)`` -> ``True``) and every NumPy array into a list, inside lists, tuples
    and dicts too (tuples stay tuples).

    Args:
        value: a setting.
        name: the setting's name, for the error.

    Raises:
        ValueError: ``value`` holds something else than bool, int, float, str, None, a NumPy
            scalar or array, or lists, tuples and dicts of them (a file a job writes could not be
            read back).
    """
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if type(value) in _SCALARS:  # not a subclass: np.float64 is a float, but pickles as a NumPy object
        return value
    if isinstance(value, (list, tuple)):
        items = [plain_value(v, f"{name}[{i}]") for i, v in enumerate(value)]
        return tuple(items) if isinstance(value, tuple) else items
    if isinstance(value, dict):
        return {plain_value(k, f"{name} key"): plain_value(v, f"{name}[{k!r}]") for k, v in value.items()}
    raise ValueError(
        f"{name}={value!r} is of type {type(value).__name__}: a setting is recorded in the run's files, so it must be "
        "a bool, int, float, str or None (or a list, tuple or dict of them; NumPy scalars and arrays are converted)"
    )
