"""A tournament's summary recomputed from its committed ``games.csv``, with today's code.

    python -m experiments.tournament --resummarize docs/results/search/NAME-games.csv

Why: a summary written before a fix of :func:`~experiments.tournament.report.summarize`
keeps the old figures (the pooled intervals counted a deal once per lineup until
2026-12-07), while the games it came from still hold everything needed to write it anew.
``games.csv`` has one row per seat of each game (:func:`~experiments.tournament.report.write_results`);
:func:`read_games` puts the games back together as the records the tournament summarizes.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

from experiments.common import atomic_open, csv_number, csv_rows, csv_share
from experiments.tournament.matrix import FIELDS, head_to_head, write_matrix
from experiments.tournament.report import plot_win_rates, summarize

#: The columns of a tournament's ``games.csv`` the summary needs (``seed``, ``return``,
#: ``steps`` and ``truncated`` are read when present: an older file may lack one).
COLUMNS = ("variant", "lineup", "deal", "rotation", "seat", "agent", "win_share", "points_per_hand")


def read_games(path: str | Path) -> list[dict]:
    """The game records of a tournament's ``games.csv``, as ``run_chunk`` returned them
    (``variant``, ``lineup``, ``deal``, ``seed``, ``rotation``, ``seats``, ``returns``,
    ``win_share``, ``points_per_hand``, ``steps``, ``truncated``), in the file's order.

    Raises:
        ValueError: no such file, not a text CSV with the :data:`COLUMNS`, a number that
            is missing or not a number, a win share outside 0..1, a seat given twice, or a
            game whose seats are not 0..n-1; the message names the file (and the line).
    """
    path = Path(path)
    if not path.is_file():
        raise ValueError(f"{path}: no such file (give the games.csv of an experiments.tournament run)")
    games: dict[tuple, dict] = {}
    try:
        with open(path, newline="") as f:
            reader = csv_rows(f, path, COLUMNS, "experiments.tournament")
            for row in reader:
                line = reader.line_num
                deal, rotation, seat = (csv_number(path, line, row, c, int) for c in ("deal", "rotation", "seat"))
                share = csv_share(path, line, row)
                key = (row["variant"], row["lineup"], deal, rotation)
                game = games.setdefault(
                    key,
                    {
                        "variant": row["variant"],
                        "lineup": row["lineup"],
                        "deal": deal,
                        "seed": row.get("seed"),
                        "rotation": rotation,
                        "steps": csv_number(path, line, row, "steps", int) if "steps" in row else None,
                        "truncated": row["truncated"] == "True" if "truncated" in row else None,
                        "by_seat": {},
                    },
                )
                if seat in game["by_seat"]:
                    raise ValueError(
                        f"{path}, line {line}: seat {seat} of {row['lineup']!r}, deal {deal}, "
                        f"rotation {rotation} is given twice"
                    )
                game["by_seat"][seat] = (
                    row["agent"],
                    csv_number(path, line, row, "return", float) if "return" in row else None,
                    share,
                    csv_number(path, line, row, "points_per_hand", float),
                )
    except UnicodeDecodeError as err:
        raise ValueError(f"{path}: not a text games.csv ({err})") from None
    except csv.Error as err:  # a field past the csv module's limit, a NUL byte
        raise ValueError(f"{path}: not a games.csv of experiments.tournament ({err})") from None
    records = []
    for (_, lineup, deal, rotation), game in games.items():
        by_seat = game.pop("by_seat")
        if sorted(by_seat) != list(range(len(by_seat))):
            raise ValueError(
                f"{path}: {lineup!r}, deal {deal}, rotation {rotation} has seats {sorted(by_seat)}, "
                f"not 0..{len(by_seat) - 1}"
            )
        seats = [by_seat[s] for s in range(len(by_seat))]
        game["seats"] = [s[0] for s in seats]
        game["returns"] = [s[1] for s in seats]
        game["win_share"] = [s[2] for s in seats]
        game["points_per_hand"] = [s[3] for s in seats]
        records.append(game)
    return records


def resummarize(path: str | Path) -> dict:
    """Write the summary of ``path`` (a tournament's ``games.csv``) anew beside it.

    A file named ``PREFIXgames.csv`` (``games.csv`` in a run folder, or a committed copy
    such as ``NAME-games.csv``) gets ``PREFIXsummary.csv``; ``PREFIXhead_to_head.csv`` and,
    in a run folder (no prefix), ``summary.json`` (its ``summary`` and ``head_to_head``, the
    ``meta`` kept), ``win_rates.png`` and ``head_to_head.png`` are rewritten only when they
    exist (a committed copy often has the summary alone).

    Returns:
        ``{"records": the games (:func:`read_games`), "summary": the pooled rows
        (:func:`~experiments.tournament.report.summarize`), "head_to_head": the cells
        (:func:`~experiments.tournament.matrix.head_to_head`), "written": the paths written}``.

    Raises:
        ValueError: a name not ending in ``games.csv``, a file :func:`read_games` refuses,
            a file with no game, or a ``summary.json`` beside it that is not a tournament's;
            nothing is written then.
    """
    path = Path(path)
    if not path.name.endswith("games.csv"):
        raise ValueError(f"{path}: not named like a tournament's games file (games.csv or NAME-games.csv)")
    records = read_games(path)
    if not records:
        raise ValueError(f"{path}: no game, so no summary to write")
    prefix, folder = path.name[: -len("games.csv")], path.parent
    summary_json = folder / "summary.json"
    result = None
    if not prefix and summary_json.is_file():  # checked before anything is written
        try:
            result = json.loads(summary_json.read_text())
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
            raise ValueError(f"{summary_json}: not a readable summary.json ({err})") from None
        if not isinstance(result, dict) or "summary" not in result:
            raise ValueError(f"{summary_json}: not a summary.json of experiments.tournament (no 'summary' in it)")
    rows, pairs = summarize(records), head_to_head(records)
    written = [folder / f"{prefix}summary.csv"]
    with atomic_open(written[0], "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    matrix = folder / f"{prefix}head_to_head.csv"
    if matrix.is_file() and not prefix:  # a run folder: the CSV and its heat map
        write_matrix(folder, pairs)
        written += [matrix, folder / "head_to_head.png"]
    elif matrix.is_file():
        with atomic_open(matrix, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(FIELDS))
            w.writeheader()
            w.writerows(pairs)
        written.append(matrix)
    if not prefix and (folder / "win_rates.png").is_file():
        plot_win_rates(rows, folder / "win_rates.png")
        written.append(folder / "win_rates.png")
    if result is not None:
        result.update(summary=rows, head_to_head=pairs)
        with atomic_open(summary_json, "w") as f:
            json.dump(result, f, indent=2)
        written.append(summary_json)
    return {"records": records, "summary": rows, "head_to_head": pairs, "written": written}
