"""Reading the numbers of a job's CSV rows back (``games.csv`` of a tournament, of a
paired comparison), with an error that names the file, the line and the column."""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import TextIO


def csv_number(path: Path, line: int, row: dict, column: str, kind: type = float) -> float:
    """``row[column]`` as a finite float or an int (``kind``).

    Raises:
        ValueError: the value is missing (a cut line) or not such a number; the message
            names the file, the line, the column and the value.
    """
    value = row.get(column)
    try:
        number = kind(value)
    except (TypeError, ValueError):
        number = None
    if number is None or not math.isfinite(number):
        what = "missing (a cut line?)" if value is None else repr(value)
        wanted = "a finite number" if kind is float else "an integer"
        raise ValueError(f"{path}, line {line}: {column} is {what}, not {wanted}")
    return number


def csv_share(path: Path, line: int, row: dict) -> float:
    """``row["win_share"]`` (:func:`csv_number`) in 0..1: a game's share of the win.

    Raises:
        ValueError: not a finite number, or outside 0..1; the message names the file and line.
    """
    share = csv_number(path, line, row, "win_share")
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"{path}, line {line}: win_share {share} is outside 0..1")
    return share


def csv_rows(f: TextIO, path: Path, columns: tuple[str, ...], job: str) -> csv.DictReader:
    """A ``csv.DictReader`` over the open file ``f`` (``path``'s), its header checked.

    Raises:
        ValueError: a column of ``columns`` is missing; the message names the file and says
            it is not a ``games.csv`` of ``job`` (``"experiments.tournament"``).
    """
    reader = csv.DictReader(f)
    missing = [c for c in columns if c not in (reader.fieldnames or ())]
    if missing:
        raise ValueError(f"{path}: not a games.csv of {job} (no column {', '.join(missing)})")
    return reader
