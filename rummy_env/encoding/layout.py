"""Named, fixed layouts of flat observation vectors.

A layout is an ordered list of fields, each a block of the vector with a name, a
size, the largest value it takes and a one-line meaning.  Encoders fill the blocks;
users, agents and docs read them by name (``layout.slice("hand")``,
``layout.split(obs)``), so no one hard-codes offsets.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np


class Field(NamedTuple):
    """One block of an observation vector.

    Attributes:
        name: identifier, e.g. ``"hand"``.
        size: number of entries.
        high: largest value an entry takes.
        meaning: one line of documentation (units included).
        low: smallest value an entry takes (default 0).
    """

    name: str
    size: int
    high: float
    meaning: str
    low: float = 0.0


class Layout:
    """An ordered set of :class:`Field` s laid end to end in one float32 vector.

    Args:
        fields: the fields in vector order; names must be distinct.

    Raises:
        ValueError: two fields share a name.
    """

    def __init__(self, fields: Sequence[Field]):
        self.fields = tuple(fields)
        names = [f.name for f in self.fields]
        if len(set(names)) != len(names):
            twice = sorted({n for n in names if names.count(n) > 1})
            raise ValueError(f"duplicate field names in layout: {twice} repeated in {names}")
        self._slices: dict[str, slice] = {}
        start = 0
        for f in self.fields:
            self._slices[f.name] = slice(start, start + f.size)
            start += f.size
        self.size = start
        self.high = np.concatenate([np.full(f.size, f.high, dtype=np.float32) for f in self.fields])
        self.low = np.concatenate([np.full(f.size, f.low, dtype=np.float32) for f in self.fields])

    def slice(self, name: str) -> slice:
        """The slice of field ``name`` in the vector.

        Raises:
            KeyError: no such field (the message lists the fields).
        """
        try:
            return self._slices[name]
        except KeyError:
            raise KeyError(f"no field {name!r} in this layout: fields are {', '.join(self._slices)}") from None

    def offset(self, name: str) -> int:
        """Index of the first entry of field ``name``.

        Raises:
            KeyError: no such field (as :meth:`slice`).
        """
        return self.slice(name).start

    def split(self, vector: np.ndarray) -> dict[str, np.ndarray]:
        """Views of ``vector`` per field name; ``vector`` has shape ``(size,)`` or a batch
        ``(..., size)`` (fields are cut along the last axis).

        Raises:
            ValueError: the last axis is not ``size`` long.
        """
        vector = np.asarray(vector)
        if vector.ndim == 0 or vector.shape[-1] != self.size:
            raise ValueError(
                f"vector of shape {vector.shape} does not fit this layout: its last axis must have {self.size} entries"
            )
        return {name: vector[..., s] for name, s in self._slices.items()}

    def __repr__(self) -> str:
        return f"Layout(size={self.size}, fields=[{', '.join(f'{f.name}:{f.size}' for f in self.fields)}])"

    def table(self) -> str:
        """The layout as a Markdown table (index range, field, size, meaning)."""
        rows = ["| indexes | field | size | meaning |", "|---|---|---|---|"]
        for f in self.fields:
            s = self._slices[f.name]
            rows.append(f"| {s.start}..{s.stop - 1} | `{f.name}` | {f.size} | {f.meaning} |")
        return "\n".join(rows)


def bits_to_rows(masks: Sequence[int], width: int = 52) -> np.ndarray:
    """Several card bitmasks as 0/1 rows, in one vectorised pass.

    Args:
        masks: bitmasks (non-negative Python ints below ``2**56``).
        width: entries per row (52 cards).

    Returns:
        uint8 array of shape ``(len(masks), width)``.
    """
    raw = b"".join(m.to_bytes(7, "little") for m in masks)
    bits = np.unpackbits(np.frombuffer(raw, dtype=np.uint8), bitorder="little")
    return bits.reshape(len(masks), 56)[:, :width]
