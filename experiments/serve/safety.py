"""What the server refuses, in one place: agent names, env options, record names, uploads.

Every check raises :class:`ApiError` with an HTTP status (4xx) and a message that says
which value was refused, why, and what is allowed; the app turns it into a JSON error
(``{"error": message}``) and nothing else happens.  Nothing here starts a game or
reads a record's contents beyond what the check needs.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
import stat
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import rummy_env
from experiments.common.record_schema import shown

#: the record files the server lists and opens
RECORD_SUFFIX = ".jsonl"
#: an upload larger than this is refused before it is parsed (bytes)
MAX_UPLOAD_BYTES = 1_000_000
#: a record with more lines than this is refused (the upload limit bounds uploads anyway;
#: this bounds files under ``--records`` too, whose replay would hold the worker)
MAX_RECORD_LINES = 20_000
#: option values of env() a request may set: JSON scalars, never objects
_SCALARS = (bool, int, str, type(None))
#: an error message longer than this is cut (characters)
MAX_MESSAGE = 1_000
#: names of games, uploads and results folders as the server hands them out
_TOKEN = re.compile(r"[A-Za-z0-9_-]{8,64}")


class ApiError(Exception):
    """A refused request: ``status`` (a 4xx, 503, or 500 when an agent of the server chose an
    illegal move or failed to choose one) and the reason (cut in the middle past
    :data:`MAX_MESSAGE` characters).

    Args:
        status: the HTTP status code of the answer.
        message: what was refused, why, and what is allowed (one line).
    """

    def __init__(self, status: int, message: str):
        if len(message) > MAX_MESSAGE:  # a refused value of 60,000 characters is not sent back whole
            # the middle goes: the start names the value, the end says what is allowed; the
            # marker fits in the limit, so at least 60 characters go and the result is shorter
            keep = MAX_MESSAGE - 60
            cut = len(message) - keep
            message = f"{message[: keep // 2]} [... {cut} characters ...] {message[-(keep - keep // 2) :]}"
        super().__init__(message)
        self.status = status
        self.message = message


# ----------------------------------------------------------------- agents
def builtin_agents(variant: str) -> list[str]:
    """The built-in agent names of ``variant`` (e.g. ``"gin_rummy_v0"``): ``random``, the
    variant's ``heuristic`` and, where the registry has styles of play
    (``agents.registry.heuristic_styles``), ``heuristic:style=NAME`` for each other style."""
    from agents import registry

    names = list(registry.agent_names(variant))
    styles_of = getattr(registry, "heuristic_styles", None)  # the registry's styles, once they are merged
    if styles_of is not None and "heuristic" in names:
        names += [f"heuristic:style={s}" for s in styles_of(variant) if s != "default"]
    return names


def check_agent(name: Any, allowed: Sequence[str], variant: str) -> str:
    """``name`` if it is one of ``allowed`` (exact match), else a 400.

    A request never names an import path or a file: only the server's list (its
    ``--agents`` and the built-in names) is looked up, so ``package.module:Name`` or
    ``policy:/etc/x`` from a browser is refused here, before ``make_agent`` sees it.

    Raises:
        ApiError: 400, the name is not a string or not on the list (the message lists it).
    """
    if not isinstance(name, str) or name not in allowed:
        label = shown(name) if isinstance(name, str) else f"of type {type(name).__name__}"
        raise ApiError(
            400, f"agent {label} is not offered for {variant}: choose one of {', '.join(allowed)} (the server's list)"
        )
    return name


# ---------------------------------------------------------------- options
def check_variant(name: Any) -> str:
    """The env module name of a variant given as ``"gin_rummy"`` or ``"gin_rummy_v0"``.

    Raises:
        ApiError: 400, not one of ``rummy_env.VARIANTS``.
    """
    if isinstance(name, str):
        full = name if name in rummy_env.VARIANTS else f"{name}_v0"
        if full in rummy_env.VARIANTS:
            return full
    raise ApiError(400, f"variant {shown(name)} is unknown: variants are {', '.join(rummy_env.VARIANTS)}")


def option_fields(variant: str) -> list[dict]:
    """The ``env()`` options of ``variant`` as ``{"name", "default", "type"}`` dicts (the
    config dataclass's fields, in declaration order), for the Play form."""
    from experiments.common import load_variant

    config = load_variant(variant).raw_env.game_class.config_class
    return [{"name": f.name, "default": f.default, "type": str(f.type)} for f in dataclasses.fields(config)]


def check_options(options: Any, variant: str) -> dict:
    """The options dict of a new-game request, with only the variant's option names and
    JSON scalar values (the env checks the values themselves when it is made).

    Raises:
        ApiError: 400, not an object, an unknown name (``render_mode`` included), or a
            value that is an object, an array or a number with a fraction.
    """
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise ApiError(400, f"options must be an object of option: value, got {type(options).__name__}")
    names = [f["name"] for f in option_fields(variant)]
    for key, value in options.items():
        if key not in names:
            raise ApiError(400, f"option {shown(key)} is not an option of {variant}: options are {', '.join(names)}")
        if not isinstance(value, _SCALARS):
            raise ApiError(
                400,
                f"option {key}={shown(value)}: values are integers, true/false, strings or null "
                "(no option has fractions)",
            )
    return dict(options)


def check_token(value: Any, what: str) -> str:
    """A game or upload id as the server makes them (8-64 of ``A-Za-z0-9_-``).

    Raises:
        ApiError: 404, anything else (a path, a long string): no such game or upload.
    """
    if not isinstance(value, str) or not _TOKEN.fullmatch(value):
        shown = repr(value[:40]) if isinstance(value, str) else type(value).__name__
        raise ApiError(404, f"no {what} {shown}: ids are the ones this server handed out")
    return value


# ---------------------------------------------------------------- records
def resolve_inside(root: Path, name: Any, what: str = "record", suffixes: Sequence[str] = (RECORD_SUFFIX,)) -> Path:
    """The file ``name`` (a relative path with ``/``) inside the folder ``root``.

    Refused: not a string, empty, absolute, with a backslash, a NUL or a ``..`` part, a
    file name that does not end with one of ``suffixes`` (``".jsonl"``) or is not one of
    them (``"summary.json"``), a file that does not exist or is not a regular file, and
    any name whose real path (symbolic links followed) is outside ``root``'s real path.

    Raises:
        ApiError: 400 for a name outside the folder, 404 for a file that is not there.
    """
    if not isinstance(name, str) or not name or len(name) > 1024:
        raise ApiError(400, f"{what} name must be a non-empty relative path of at most 1024 characters")
    parts = name.split("/")
    if name.startswith("/") or "\\" in name or "\x00" in name or any(p in ("", ".", "..") for p in parts):
        raise ApiError(400, f"{what} name {shown(name)} is refused: names are relative paths inside the folder, no ..")
    # an entry with a leading dot is a suffix (".jsonl"), any other a whole file name ("summary.json")
    if not any(parts[-1].endswith(s) if s.startswith(".") else parts[-1] == s for s in suffixes):
        raise ApiError(400, f"{what} name {shown(name)} is refused: the file must be {' or '.join(suffixes)}")
    base = root.resolve()
    try:
        real = (base / name).resolve(strict=True)
    except (OSError, RuntimeError):  # missing, or a loop of links
        raise ApiError(404, f"no {what} {shown(name)} in the folder") from None
    if not real.is_relative_to(base):
        raise ApiError(400, f"{what} name {shown(name)} is refused: it leads out of the folder (a link)")
    if not real.is_file():
        raise ApiError(404, f"no {what} {shown(name)} in the folder (not a file)")
    return real


def walk_inside_stat(
    root: Path, suffix: str, limit: int, skip: tuple[str, ...] = ()
) -> Iterator[tuple[Path, os.stat_result]]:
    """Regular files under ``root`` whose name ends with ``suffix``, at most ``limit``, never
    through a link out of ``root`` (links to folders are not followed; a linked file
    counts only if its real path is inside ``root``), and not in the folders of ``root``
    named in ``skip``; each with the ``os.stat`` (links followed) that found it a regular
    file: the listings hand it to their file cache (``FileCache.get_stat``'s ``st``), so
    that a file listed is stat-ed once, not again to know whether it changed (a link
    twice: itself, then its target)."""
    if not root.is_dir():
        return
    base = root.resolve()
    found = 0
    for folder, dirs, files in os.walk(base, followlinks=False):
        dirs[:] = sorted(d for d in dirs if not (skip and Path(folder) == base and d in skip))
        for f in sorted(files):
            if not f.endswith(suffix):
                continue
            path = Path(folder) / f
            try:
                st = os.lstat(path)  # a file's own stat is its stat: only a link needs another
                link = stat.S_ISLNK(st.st_mode)
                if link:
                    st = os.stat(path)
            except (OSError, ValueError):  # gone since the walk listed it, a link to nothing or a loop
                continue
            # regular files only, as resolve_inside serves: opening a FIFO named *.jsonl would
            # block the listing's worker for good (and every later listing with it)
            if not stat.S_ISREG(st.st_mode):
                continue
            if link and not path.resolve().is_relative_to(base):
                continue
            yield path, st
            found += 1
            if found >= limit:
                return


def check_upload_size(size: int, limit: int = MAX_UPLOAD_BYTES, what: str = "upload") -> None:
    """Refuse an upload (``what="upload"``, a record) or another request body
    (``what="request body"``) of ``size`` bytes above ``limit``.

    Raises:
        ApiError: 413, too large (the message gives both sizes).
    """
    if size > limit:
        why = ": records are smaller" if what == "upload" else ""
        raise ApiError(413, f"the {what} is larger than {limit:,} bytes (got at least {size:,}){why}")


def check_record_lines(lines: Sequence[Any], source: str) -> None:
    """The shape checks a record gets before it is replayed: its length, then the records
    module's schema (:func:`experiments.common.records.check_record`: every line's type and
    the fields the replay reads).

    Raises:
        ApiError: 422, the record is damaged (the message names the line and field).
    """
    from experiments.common.records import RecordError, check_record

    if len(lines) > MAX_RECORD_LINES:
        raise ApiError(422, f"{source}: more than {MAX_RECORD_LINES:,} lines: not a record this server replays")
    try:
        check_record(lines, source=source)
    except RecordError as err:
        raise ApiError(422, str(err)) from None


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
