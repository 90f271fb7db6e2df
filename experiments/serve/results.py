"""The Results page's data: tournaments and evaluations found under ``--results``.

A tournament is a folder with ``summary.json`` (``python -m experiments.tournament``:
its ``meta``, the pooled ``summary`` rows and the ``head_to_head`` cells), ``games.csv``
and ``head_to_head.csv``; an evaluation is a folder with ``evaluation.json``
(``python -m experiments.evaluate``).  The page draws the head-to-head table as a heat
map itself (an HTML table coloured by win rate); a row links to the records of its games
under ``--records``: the tournament names its records
``<variant>-<lineup>-deal<d>-rot<r>.jsonl`` (``--record DIR``), a record is matched to a
game of ``games.csv`` by that name and its game line (variant, seed, seats, options), and
the Replay page lists the records in the tournament's record folder whose agents include
a row's agents.
"""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from collections.abc import Container
from pathlib import Path
from typing import Any

from experiments.common.record_schema import value_kind
from experiments.evaluate import ROW_FIELDS as EVALUATION_FIELDS
from experiments.serve.filecache import FileCache
from experiments.serve.safety import ApiError, resolve_inside, walk_inside_stat
from experiments.tournament.deals import lineup_slug, record_file, whole_lineup_slug
from experiments.tournament.matrix import FIELDS as MATRIX_FIELDS

RUN_FILES = ("summary.json", "evaluation.json")
IMAGES = ("win_rates.png", "head_to_head.png", "evaluation.png")
#: runs listed at most, and games.csv rows read at most per tournament
MAX_RUNS = 500
MAX_GAME_ROWS = 200_000


#: what list_runs read of each run file (kind and title), by file: read again when it changes
RUN_ROWS = FileCache(4 * MAX_RUNS)


def list_runs(root: Path) -> list[dict]:
    """The tournaments and evaluations under ``root``, newest first: ``{"name": the JSON
    file's path under root, "kind": "tournament" | "evaluation", "title", "mtime"}``.  A
    file is read again only when it has changed (:data:`RUN_ROWS`)."""
    out = []
    for path, st in walk_inside_stat(root, ".json", MAX_RUNS * 20):
        if path.name not in RUN_FILES:
            continue
        row, st = RUN_ROWS.get_stat(path, _read_run, st=st)  # the walk's stat: the file's time, not asked again
        if row is None or st is None:
            continue
        kind, title = row
        name = path.relative_to(root.resolve()).as_posix()
        out.append({"name": name, "kind": kind, "title": title, "mtime": st.st_mtime})
        if len(out) >= MAX_RUNS:
            break
    out.sort(key=lambda r: (-r["mtime"], r["name"]))
    return out


def _read_run(path: Path) -> tuple[str, str] | None:
    """``(kind, title)`` of a run file as :func:`list_runs` lists it, or None when it is not
    JSON or is another job's file of the same name."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError, RecursionError):
        return None
    kind = run_kind(path.name, data)
    if kind is None:  # another job's summary.json or evaluation.json (selfplay, exploit, train)
        return None
    if kind == "tournament":
        meta = data["meta"]
        variants = meta.get("variants") if isinstance(meta.get("variants"), list) else []
        return kind, f"tournament: {', '.join(map(str, variants))} ({meta.get('games', '?')} games)"
    return kind, f"evaluation: {data.get('agent')} on {data.get('variant')} ({data.get('games', '?')} games)"


def run_kind(file_name: str, data: Any) -> str | None:
    """``"tournament"`` or ``"evaluation"`` when ``data`` (a ``summary.json`` or
    ``evaluation.json``) is the output of ``experiments.tournament`` or
    ``experiments.evaluate``, else None (the self-play, exploit and train jobs write files
    of the same names)."""
    if not isinstance(data, dict):
        return None
    if file_name == "summary.json" and isinstance(data.get("meta"), dict) and isinstance(data.get("summary"), list):
        return "tournament"
    if file_name == "evaluation.json" and isinstance(data.get("agent"), str) and isinstance(data.get("rows"), list):
        return "evaluation"
    return None


def record_file_name(variant: str, lineup: str, deal: Any, rotation: Any, index: Container[str] = ()) -> str:
    """The record file name the tournament writes for a game (``experiments.tournament.deals``),
    or, when only that is in ``index``, the name a record written before the long lineups'
    cut has (the whole lineup: such records keep showing)."""
    agents = lineup.split(" vs ")
    name = record_file(variant, lineup_slug(agents), deal, rotation)
    if name not in index:
        whole = record_file(variant, whole_lineup_slug(agents), deal, rotation)
        if whole in index:
            return whole
    return name


def heat_maps(cells: list[dict]) -> dict[str, dict]:
    """The head-to-head cells by variant: ``{variant: {"agents": [...], "cells": {agent:
    {opponent: cell}}}}``, agents sorted as the tournament's own heat map has them."""
    out: dict[str, dict] = {}
    for c in cells:
        grid = out.setdefault(c["variant"], {"agents": set(), "cells": defaultdict(dict)})
        grid["agents"] |= {c["agent"], c["opponent"]}
        grid["cells"][c["agent"]][c["opponent"]] = {
            k: c.get(k) for k in ("win_rate", "win_rate_ci_low", "win_rate_ci_high", "games", "deals")
        }
    return {v: {"agents": sorted(g["agents"]), "cells": dict(g["cells"])} for v, g in out.items()}


#: the number columns of ``head_to_head.csv`` and how they are read
_CSV_NUMBERS = {"wins": float, "win_rate": float, "win_rate_ci_low": float, "win_rate_ci_high": float}
_CSV_NUMBERS |= {"games": int, "deals": int}


def _head_to_head_csv(folder: Path) -> list[dict]:
    """The cells of ``folder/head_to_head.csv`` (none when it is missing), each checked as
    :func:`check_rows` checks the JSON's, a refusal naming the file's line."""
    path = folder / "head_to_head.csv"
    if not path.is_file():
        return []
    rows = []
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        for r in reader:
            where = f"head_to_head.csv, line {reader.line_num}"
            for k, kind in _CSV_NUMBERS.items():
                try:
                    r[k] = kind(r[k])
                except (KeyError, TypeError, ValueError):  # a missing column, a cut line, a word
                    wanted = "an integer" if kind is int else "a number"
                    what = "missing (a cut line?)" if r.get(k) is None else repr(r[k])
                    raise ValueError(f"{where}, {k!r} is {what}, expected {wanted}") from None
            check_row(r, "head_to_head", where)
            rows.append(r)
    return rows


def recorded_games(
    folder: Path, index: dict[str, list[dict]], options: Any = None, record_folder: str | None = None
) -> list[dict]:
    """The games of ``folder/games.csv`` that have a record (``index``:
    :func:`experiments.serve.replays.record_index`): ``{"variant", "lineup", "deal",
    "rotation", "seats": [agent per seat], "returns", "record"}``.

    With ``record_folder`` (the tournament's ``--record`` folder under ``--records``, from
    its ``meta["record_dir"]``) only the records right in it are its games.  Without it (a
    summary written before that field, or records kept elsewhere) a record is this
    tournament's game when its variant, seed and agents per seat (and its ``env()``
    options, given ``options``: the tournament's ``env_options``) are the game's, and when
    one record alone matches: the same command recorded into two folders gives records
    nothing tells apart, and neither is linked."""
    path = folder / "games.csv"
    if not path.is_file() or not index:
        return []
    games: dict[tuple, dict] = {}
    seeds: dict[tuple, int | None] = {}  # None: a games.csv written before it had seeds
    names: dict[tuple, str] = {}  # the game's record name: worked out once, not at each seat's row
    with open(path, newline="") as f:
        for i, r in enumerate(csv.DictReader(f)):
            if i >= MAX_GAME_ROWS:
                break
            key = (r["variant"], r["lineup"], r["deal"], r["rotation"])
            name = names.get(key)
            if name is None:
                name = names[key] = record_file_name(*key, index)
            if name not in index:
                continue
            g = games.setdefault(
                key,
                {
                    "variant": key[0],
                    "lineup": key[1],
                    "deal": int(key[2]),
                    "rotation": int(key[3]),
                    "seats": [],
                    "returns": [],
                    "record": None,
                },
            )
            seeds[key] = int(r["seed"]) if r.get("seed") not in (None, "") else None
            g["seats"].append(r["agent"])
            g["returns"].append(float(r["return"]))
    out = []
    for key, g in games.items():
        matches = []
        for rec in index[names[key]]:
            if record_folder is not None and rec["name"].rpartition("/")[0] != record_folder:
                continue
            seed_ok = seeds[key] is None or rec["seed"] == seeds[key]
            same = seed_ok and rec["variant"] == g["variant"] and rec["agents"] == g["seats"]
            if same and (options is None or rec["options"] == options):
                matches.append(rec["name"])
        if len(matches) == 1:
            g["record"] = matches[0]
            out.append(g)
    return out


def record_folder_of(where: Any, records: Path) -> str | None:
    """A tournament's ``--record`` folder (``meta["record_dir"]``, an absolute path) as a
    path under ``records`` (``""``: ``records`` itself), or None when it names none or one
    outside ``records``."""
    if not isinstance(where, str) or not where:
        return None
    try:
        rel = Path(where).resolve().relative_to(records.resolve())
    except (OSError, ValueError):
        return None
    return "" if rel == Path(".") else rel.as_posix()


def records_folder(games: list[dict]) -> str | None:
    """The folder under ``--records`` holding the records of ``games`` (one tournament's
    ``--record DIR``), or None when there are none; ``""`` is the top folder."""
    folders = {g["record"].rpartition("/")[0] for g in games}
    if len(folders) != 1:  # none, or records found in several folders: no one folder lists them
        return None
    return folders.pop()


#: what the page reads of each row: (text fields, number fields; a number may be null).  The
#: head-to-head cells and evaluation rows are the jobs' own field lists; a summary row is
#: built by ``experiments.tournament.report.summarize`` (these are the fields the page shows).
ROW_FIELDS = {
    "summary": (
        ("variant", "agent"),
        ("games", "wins", "draws", "win_rate", "win_rate_ci_low", "win_rate_ci_high", "points_per_hand", "rating"),
    ),
    "head_to_head": (MATRIX_FIELDS[:3], MATRIX_FIELDS[3:]),
    "rows": (EVALUATION_FIELDS[:1], tuple(f for f in EVALUATION_FIELDS[1:] if f != "same_as_agent")),
}


#: the row fields that count games or deals
_COUNTS = ("games", "deals", "deals_won_in_every_seat", "deals_lost_in_every_seat")


def check_rows(data: dict, key: str) -> None:
    """Check ``data[key]`` (a list of table rows, :data:`ROW_FIELDS`) as the page reads it:
    objects whose text fields are strings and whose number fields, when present, are
    numbers or null: counts of games and deals integers >= 0, wins and draws >= 0, win
    rates and their interval ends from 0 to 1.

    Raises:
        ValueError: the first thing wrong, naming the field, the row and what it is.
    """
    rows = data.get(key, [])
    if not isinstance(rows, list):
        raise ValueError(f"field {key!r} is {value_kind(rows)}, expected an array of rows")
    for i, row in enumerate(rows):
        check_row(row, key, f"field {key!r}, item {i}")


def check_row(row: Any, key: str, where: str) -> None:
    """Check one row of ``key``'s table (:func:`check_rows`); ``where`` names it in the error.

    Raises:
        ValueError: ``"{where}, {field!r} is ..., expected ..."``.
    """
    texts, numbers = ROW_FIELDS[key]
    if not isinstance(row, dict):
        raise ValueError(f"{where} is {value_kind(row)}, expected an object")
    for k in texts:
        if not isinstance(row.get(k), str):
            raise ValueError(f"{where}, {k!r} is {value_kind(row.get(k))}, expected a string")
    for k in numbers:
        v = row.get(k)
        if v is None:
            continue
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise ValueError(f"{where}, {k!r} is {value_kind(v)}, expected a number or null")
        if k in _COUNTS and (not isinstance(v, int) or v < 0):
            raise ValueError(f"{where}, {k!r} is {v!r}, expected a count (an integer >= 0)")
        if (k in ("wins", "draws") and v < 0) or (k.startswith("win_rate") and not 0 <= v <= 1):
            wanted = "a number >= 0" if k in ("wins", "draws") else "a rate from 0 to 1"
            raise ValueError(f"{where}, {k!r} is {v!r}, expected {wanted}")


def _no_constants(name: str) -> None:
    """Refuse NaN and Infinity: Python's json writes and reads them, but a browser's JSON cannot."""
    raise ValueError(f"it holds {name}, which JSON has no value for (the jobs never write it)")


def load_run(root: Path, name: Any, index: dict[str, list[dict]], records: Path | None = None) -> dict:
    """One tournament or evaluation for the page.

    Args:
        root: the ``--results`` folder.
        name: the run's JSON file under ``root`` (as :func:`list_runs` names it).
        index: the records under ``--records`` (:func:`experiments.serve.replays.record_index`).
        records: the ``--records`` folder, to place a tournament's ``meta["record_dir"]``
            (which the page is sent without: a path of the server's disk).

    Returns:
        ``{"name", "kind", "meta", "summary", "heat_maps", "games", "records_folder",
        "images"}`` (tournament; ``records_folder``: where its games' records are, None
        when none is found) or ``{"name", "kind", "evaluation", "images"}``.

    Raises:
        ApiError: 400 a name out of the folder or not a run file; 404 missing; 422 not
            a tournament's or an evaluation's JSON.
    """
    path = resolve_inside(root, name, "results file", RUN_FILES)
    folder = path.parent
    try:
        data = json.loads(path.read_text(), parse_constant=_no_constants)
        kind = run_kind(path.name, data)
        if kind is None:
            raise ValueError(
                "not the summary.json of experiments.tournament or the evaluation.json of experiments.evaluate"
            )
        for key in ("summary", "head_to_head") if kind == "tournament" else ("rows",):
            check_rows(data, key)
        if kind == "tournament" and not isinstance(data["meta"].get("variants", []), list):
            raise ValueError(f"field 'meta', 'variants' is {value_kind(data['meta']['variants'])}, expected an array")
    except (OSError, ValueError, RecursionError) as err:
        raise ApiError(422, f"{name} cannot be read as results: {err}") from None
    base = root.resolve()
    images = [(folder / i).relative_to(base).as_posix() for i in IMAGES if (folder / i).is_file()]
    if kind == "evaluation":
        return {"name": name, "kind": "evaluation", "evaluation": data, "images": images}
    try:  # files edited by hand or cut short: a 422 naming the run, not a 500
        cells = data.get("head_to_head") or _head_to_head_csv(folder)  # checked above or as read
        maps = heat_maps(cells)
        meta = dict(data["meta"])
        record_dir = meta.pop("record_dir", None)
        where = record_folder_of(record_dir, records) if records is not None else None
        games = recorded_games(folder, index, meta.get("env_options"), where)
    except (OSError, KeyError, TypeError, ValueError, AttributeError, csv.Error) as err:
        raise ApiError(
            422,
            f"{name}: its head-to-head cells or games.csv are not as the tournament writes them "
            f"({type(err).__name__}: {err})",
        ) from None
    return {
        "name": name,
        "kind": "tournament",
        "meta": meta,
        "summary": data["summary"],
        "heat_maps": maps,
        "games": games,
        "records_folder": records_folder(games),
        "images": images,
    }


def run_json(root: Path, name: Any, index: dict[str, list[dict]], records: Path | None = None) -> bytes:
    """:func:`load_run` as the JSON the page is sent (UTF-8, compact, as Starlette's
    ``JSONResponse`` writes it).

    Raises:
        ApiError: :func:`load_run`'s, and 422 naming the run when it holds a number JSON has
            no value for: an infinity from a JSON number too large for a float (``1e400``),
            or ``nan`` / ``inf`` read from a CSV file, which the jobs never write.
    """
    run = load_run(root, name, index, records)
    try:
        return json.dumps(run, ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode()
    except ValueError:
        raise ApiError(
            422, f"{name} cannot be read as results: it holds NaN or an infinity, which JSON has no value for"
        ) from None


def image_path(root: Path, name: Any) -> Path:
    """The PNG ``name`` under ``root``, one of the jobs' figures (:data:`IMAGES`).

    Raises:
        ApiError: 400 a name out of the folder or not one of those figures; 404 missing.
    """
    return resolve_inside(root, name, "image", IMAGES)
