"""Recorded games for the Replay page: listing the records under ``--records``, reading
one (or an upload), and drawing any step from any seat.

A record is read with ``experiments.common.records.read_record``, checked by
:func:`~experiments.serve.safety.check_record_lines` and replayed once through
``experiments.common.records.replay``, which checks every deck, action and reward; a
record that fails any of these is refused (422) with the reason.  The replay keeps a copy
of the engine state every :data:`CHECKPOINT_EVERY` steps (wider apart in a record of over
``CHECKPOINT_EVERY * MAX_CHECKPOINTS`` steps, so that the copies' memory grows linearly with
its length; the copies leave out the actions' history, which the replay keeps once); a
step's picture is the env's
SVG of the state rebuilt from the nearest copy (``rummy_env.render.svg.render_svg``, the
function ``env.render_svg`` calls), from one seat or from every seat (all hands open).
"""

from __future__ import annotations

import json
import os
import secrets
import tempfile
import threading
from array import array
from collections import OrderedDict
from pathlib import Path
from typing import Any

from experiments.common.record_schema import lone_surrogate
from experiments.common.records import message_text, read_record, replay
from experiments.serve.filecache import FileCache
from experiments.serve.safety import (
    MAX_RECORD_LINES,
    RECORD_SUFFIX,
    ApiError,
    check_record_lines,
    check_upload_size,
    resolve_inside,
    shown,
    walk_inside_stat,
)

#: a copy of the state is kept at least this many steps apart (a frame replays fewer actions
#: than the spacing of its replay, ``Replay._every``: this on records up to 16 * 64 steps)
CHECKPOINT_EVERY = 16
#: at most this many copies per replay: a copy with the episode's history so far made copies
#: every 16 steps of a long record cost memory in the square of its length (a 1 MB upload of
#: 12,000 Gin steps kept 47 MB), and a copy still holds what grows by the hand (its decks);
#: past ``16 * MAX_CHECKPOINTS`` steps they are spaced wider
MAX_CHECKPOINTS = 64
#: records listed at most (the newest first within a folder walk)
MAX_LISTED = 2000
#: replays kept in memory, of files and of uploads each (least recently used dropped)
MAX_REPLAYS = 16


#: the game lines read, by file: the Replays and Results pages list every record at each request
GAME_LINES = FileCache(4 * MAX_LISTED)
#: the fields of a game line that :func:`summary_line` and :func:`record_index` read
LISTED_FIELDS = ("variant", "seed", "agents", "players", "options")


def _game_line(path: Path, st: os.stat_result | None = None) -> tuple[dict | None, os.stat_result | None]:
    """The listed fields (:data:`LISTED_FIELDS`) of the first line of a record file (its game
    line), or None if it is not a record (nor one a page can show: a string in it that is no
    Unicode text); read again only when the file has changed (:data:`GAME_LINES`); and the
    file's ``os.stat`` that tells (None: it failed; ``st``: the one the walk took, used as
    it).  The dict is shared: not to be changed."""
    return GAME_LINES.get_stat(path, _read_game_line, st=st)


def _read_game_line(path: Path) -> dict | None:
    """:func:`_game_line`, read from the file."""
    try:
        with open(path, "rb") as f:
            first = json.loads(f.readline(65536))
    except (OSError, ValueError, RecursionError):
        return None
    if not isinstance(first, dict) or first.get("type") != "game" or lone_surrogate(first) is not None:
        return None
    # only what the listings read is kept: a game line may hold up to 64 KB (a stacked deck,
    # long agent specs), and the cache holds thousands
    return {k: first[k] for k in LISTED_FIELDS if k in first}


def summary_line(path: Path, root: Path, st: os.stat_result | None = None) -> dict | None:
    """``{"name", "variant", "agents", "players", "mtime"}`` of a record file from its
    first line only (cheap enough to list thousands), or None if it is not a record (or
    can no longer be stat-ed); ``st``: the file's ``os.stat`` as the walk took it."""
    first, st = _game_line(path, st)  # its stat: the file's time, not asked again
    if first is None or st is None:
        return None
    players = first.get("players") if isinstance(first.get("players"), list) else []
    agents = first.get("agents") if isinstance(first.get("agents"), list) else players
    return {
        "name": path.relative_to(root.resolve()).as_posix(),
        "variant": str(first.get("variant")),
        "players": [str(p) for p in players],
        "agents": [str(a) for a in agents],
        "mtime": st.st_mtime,
    }


def list_records(
    root: Path, variant: str | None = None, agents: list[str] | None = None, folder: str | None = None
) -> list[dict]:
    """The records under ``root`` (newest first), optionally only those of ``variant``
    whose agents include every name of ``agents`` and, with ``folder`` (a path under
    ``root``; ``""``: ``root`` itself, not its subfolders), only those right in it: the
    Results page's links list one tournament's records, not every game of those agents
    (web games in ``play/``, other tournaments)."""
    out = []
    for path, st in walk_inside_stat(root, RECORD_SUFFIX, MAX_LISTED):
        row = summary_line(path, root, st)
        if row is None or variant and row["variant"] != variant:
            continue
        if agents and not all(a in row["agents"] for a in agents):
            continue
        if folder is not None and row["name"].rpartition("/")[0] != folder:
            continue
        out.append(row)
    out.sort(key=lambda r: (-r["mtime"], r["name"]))
    return out


def record_index(root: Path) -> dict[str, list[dict]]:
    """File name -> every record of that name under ``root``: ``{"name": its name under
    root, "variant", "seed", "agents", "options"}`` from its game line.  A tournament names
    its records by variant, lineup, deal and rotation only, so two tournaments recorded
    in two folders have records of the same names: the game line tells whose each is.
    The web games (``play/``, never a tournament's) are left out: saved on every drop,
    they would use up the walk's :data:`MAX_LISTED` before the folders after them."""
    base = root.resolve() if root.is_dir() else root
    out: dict[str, list[dict]] = {}
    for path, st in walk_inside_stat(root, RECORD_SUFFIX, MAX_LISTED, skip=("play",)):
        first, _ = _game_line(path, st)
        if first is None:
            continue
        out.setdefault(path.name, []).append(
            {
                "name": path.relative_to(base).as_posix(),
                **{k: first.get(k) for k in ("variant", "seed", "agents", "options")},
            }
        )
    return out


def _page_steps(actions: list[dict], message: str, done: int) -> str:
    """``message`` with the failing action's step as the page numbers it: the record's
    ``step`` field counts from 0, the page's slider and move list from 1 (``actions``: the
    record's action lines; ``done``: the actions replayed before the failure)."""
    if done >= len(actions):
        return message  # the end line's checks: no step to name
    line = actions[done]
    move = f"{message_text(line['agent'])} {message_text(line['text'])}"  # as replay() shows them
    where = f"step {line['step']} ({move})"
    page = (
        f"step {done + 1} of {len(actions)} ({move}; steps counted from 1 "
        f"as on the Replay page, the record's 'step' field says {line['step']})"
    )
    return message.replace(where, page)


class Replay:
    """A checked record, ready to draw any step.

    The record's lines are read once, to check and replay them, and then let go: a replay
    keeps its game and end lines and, per step, the seat, the action id and the move's text
    as numbers in arrays (each distinct text once).  The parsed lines of a 1 MB record (some
    12,000 Gin steps) held 8.6 MB, kept for each replay the server keeps (:data:`MAX_REPLAYS`
    of record files and as many uploads: 32 in all); these arrays hold about 0.1 MB (the state
    copies, bounded apart and without the history of actions, some 0.3 MB more: 3.2 MB with it).

    Args:
        lines: the record's lines (``read_record``).
        name: how the page names it (the file name under ``--records``, or the upload).

    Raises:
        ApiError: 422, the record is damaged or does not replay (the reason given).
    """

    def __init__(self, lines: list[dict], name: str):
        check_record_lines(lines, name)
        self.name = name
        game = lines[0]
        self.game = game
        self.variant = game["variant"]
        self.players = list(game["players"])
        self.agents = list(game.get("agents") or self.players)
        actions = [x for x in lines if x["type"] == "action"]
        self.end = next((x for x in lines if x["type"] == "end"), None)
        self._checkpoints: list[Any] = []
        self._every = max(CHECKPOINT_EVERY, -(-len(actions) // MAX_CHECKPOINTS))
        done = [0]

        def keep(env: Any, line: dict | None) -> None:
            done[0] += line is not None
            if done[0] % self._every == 0:
                # a copy without the episode's history (the actions so far: state_at gives
                # them back from the replay's own), which was 92% of the copies' memory
                state = env.unwrapped.game_state
                history, state.history = state.history, []
                try:
                    self._checkpoints.append(state.clone())
                finally:
                    state.history = history

        try:
            env = replay(lines, on_step=keep)
        except ValueError as err:  # RecordMismatch, and the records module's schema errors
            raise ApiError(422, f"{name} does not replay: {_page_steps(actions, str(err), done[0])}") from None
        except (KeyError, TypeError, IndexError, AttributeError) as err:  # a damaged line the checks missed
            raise ApiError(422, f"{name} is damaged: {type(err).__name__} {err}") from None
        self.complete = bool(env.unwrapped.game_state.is_terminal())
        # replayed: every action is the player's, its id in range and its text the env's
        texts: dict[str, int] = {}
        self._seats = array("B", [self.players.index(x["agent"]) for x in actions])
        self._actions = array("i", [x["action"] for x in actions])
        self._text_ids = array("I", [texts.setdefault(x["text"], len(texts)) for x in actions])
        self._texts = list(texts)

    @property
    def steps(self) -> int:
        """The record's number of actions."""
        return len(self._actions)

    def move(self, i: int) -> dict:
        """The ``i``-th action (from 0): ``{"agent", "action", "text"}``."""
        return {
            "agent": self.players[self._seats[i]],
            "action": self._actions[i],
            "text": self._texts[self._text_ids[i]],
        }

    def meta(self) -> dict:
        """What the page lists: variant, options, players and agents, every move, the end."""
        moves = [self.move(i) for i in range(self.steps)]
        return {
            "name": self.name,
            "variant": self.variant,
            "options": self.game["options"],
            "players": self.players,
            "agents": self.agents,
            "steps": self.steps,
            "moves": [{"step": i + 1, "agent": x["agent"], "text": x["text"]} for i, x in enumerate(moves)],
            "end": None
            if self.end is None
            else {"status": self.end["status"], "returns": dict(zip(self.players, self.end["returns"], strict=True))},
            "complete": self.complete,
        }

    def state_at(self, step: int) -> tuple[Any, tuple[int, int] | None]:
        """The engine state after ``step`` actions and the last move ``(seat, action)``."""
        base = step // self._every
        state = self._checkpoints[base].clone()
        state.history = self._actions[: base * self._every].tolist()  # the copies keep none
        for action in self._actions[base * self._every : step]:
            state.apply_action(action)
        if step == 0:
            return state, None
        return state, (self._seats[step - 1], self._actions[step - 1])

    def frame(self, step: Any, seat: Any) -> dict:
        """Step ``step`` (0 = the deal, ``steps`` = the end) from ``seat`` (an agent name)
        or from every seat (``"all"``): ``{"step", "svgs": {agent: svg}, "move", "hand"}``.

        Raises:
            ApiError: 400, a step outside 0..steps or a seat that is not a player nor "all".
        """
        from experiments.play import hand_summary
        from rummy_env.render.svg import render_svg

        n = self.steps
        if not isinstance(step, int) or isinstance(step, bool) or not 0 <= step <= n:
            raise ApiError(400, f"step {shown(step)} is outside this record's 0..{n}")
        if seat != "all" and seat not in self.players:
            raise ApiError(400, f"seat {shown(seat)} is not a player ({', '.join(self.players)}) nor 'all'")
        state, last = self.state_at(step)
        seats = self.players if seat == "all" else [seat]
        move = self.move(step - 1) if step else None
        return {
            "step": step,
            "steps": n,
            "svgs": {a: str(render_svg(state, self.players.index(a), last)) for a in seats},
            "move": None if move is None else {"agent": move["agent"], "text": move["text"]},
            "hand": hand_summary(state) if state.last_hand is not None else None,
            "over": bool(state.is_terminal()),
        }


def _read(path: Path, name: str) -> list[dict]:
    try:
        return read_record(path)
    except OSError as err:
        raise ApiError(404, f"record {name} cannot be read: {err.strerror or err}") from None
    except (ValueError, AttributeError, TypeError, RecursionError) as err:  # not JSON, not a record
        # the reader's message names the file it read: for an upload, the server's temporary copy
        reason = str(err).replace(str(path), name)
        raise ApiError(422, f"{name} is not a record this server reads: {reason}") from None


class ReplayStore:
    """The replays of the files under ``root`` (by name, each read again when its file
    changes) and of uploads (by id), at most :data:`MAX_REPLAYS` of each (the least recently
    used dropped).

    Args:
        root: the ``--records`` folder.
        max_upload: the largest upload accepted, in bytes.
    """

    def __init__(self, root: Path, max_upload: int):
        self.root = root
        self.max_upload = max_upload
        self._files = FileCache(MAX_REPLAYS)
        self._uploads: OrderedDict[str, Replay] = OrderedDict()
        self._lock = threading.Lock()

    def file(self, name: Any) -> Replay:
        """The replay of the record ``name`` under ``root`` (read and checked once while the
        file is unchanged).

        Raises:
            ApiError: 400 a name leading out of the folder, 404 no such file, 422 not a
                record or one that does not replay.
        """
        # the checked path is the one stamped and read: a link retargeted out of the folder
        # after the check is not followed again; kept by the name asked, as the replay is named
        real = resolve_inside(self.root, name)
        return self._files.get(real, lambda path: Replay(_read(path, name), name), key=str(self.root / name))

    def upload(self, data: bytes) -> Replay:
        """Check an uploaded record (size, format, shape, replay) and keep it under a new id
        (``rep.name`` is ``upload/<id>``).

        Raises:
            ApiError: 413 too large, 422 not a record or one that does not replay.
        """
        check_upload_size(len(data), self.max_upload)
        if data.count(b"\n") > MAX_RECORD_LINES:
            raise ApiError(422, f"the upload has more than {MAX_RECORD_LINES:,} lines: not a record")
        upload_id = secrets.token_urlsafe(12)
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "upload.jsonl"
            path.write_bytes(data)
            lines = _read(path, "the upload")
        rep = Replay(lines, "the upload")  # a refused upload gets no id: its errors name it so
        rep.name = f"upload/{upload_id}"
        with self._lock:
            self._uploads[upload_id] = rep
            while len(self._uploads) > MAX_REPLAYS:
                self._uploads.popitem(last=False)
        return rep

    def uploaded(self, upload_id: str) -> Replay:
        """A kept upload.

        Raises:
            ApiError: 404 no such upload (never made, or dropped).
        """
        with self._lock:
            rep = self._uploads.get(upload_id)
            if rep is None:
                raise ApiError(404, f"no upload {upload_id!r}: upload the record again (the server keeps a few)")
            self._uploads.move_to_end(upload_id)
            return rep
