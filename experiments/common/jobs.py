"""Pieces the jobs share: loading variants, parsing options, output folders, playing one
episode, intervals."""

from __future__ import annotations

import argparse
import contextlib
import importlib
import math
import os
import re
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

import rummy_env
from agents import Agent
from experiments.common.interrupt import PARTS
from experiments.common.record_schema import shown
from rummy_env.games.errors import integer_id


def resolve_variant(name: str) -> str:
    """``"rummy"`` or ``"rummy_v0"`` -> ``"rummy_v0"``.

    Raises:
        ValueError: no such variant; the message lists the known ones.
    """
    full = name if name in rummy_env.VARIANTS else f"{name}_v0"
    if full not in rummy_env.VARIANTS:
        raise ValueError(f"unknown variant {name!r}: known variants are {', '.join(rummy_env.VARIANTS)}")
    return full


def program_name(module: str, script: str) -> str:
    """How the job was started, for usage lines: the console script or ``python -m``."""
    import os
    import sys

    return script if os.path.basename(sys.argv[0]) == script else f"python -m {module}"


def description(doc: str | None) -> str:
    """The first paragraph of a module docstring as plain text for ``--help``, whose
    output shows reST markup as typed: double backquotes are dropped and roles such as
    ``:mod:`x``` keep only ``x``.  ``None`` (docstrings stripped by ``-OO``) gives ``""``."""
    first = (doc or "").split("\n\n")[0].strip()
    first = re.sub(r":[a-z]+:`~?([^`]+)`", r"\1", first)
    return first.replace("``", "")


@contextlib.contextmanager
def atomic_open(path: str | Path, mode: str = "w", **kwargs: Any) -> Iterator[Any]:
    """``open(path, mode)`` that replaces ``path`` only once the block has written it all:
    the file is written as ``<name>.part`` beside it and renamed at the end, so that a job
    quit in the middle of writing (a second Ctrl-C exits at once) leaves the previous file
    whole, never an empty or cut one.  An error in the block removes the ``.part`` file.

    Raises:
        OSError: the file cannot be written (the folder is missing or read-only).
    """
    path = Path(path)
    part = path.with_name(path.name + ".part")
    PARTS.add(str(part))  # a second Ctrl-C quits with os._exit, past the except below
    try:
        with open(part, mode, **kwargs) as f:
            yield f
        os.replace(part, path)
    except BaseException:
        part.unlink(missing_ok=True)
        raise
    finally:
        PARTS.discard(str(part))


def load_variant(name: str):
    """The env module ``rummy_env.<name>`` (e.g. ``"rummy_v0"``).

    Raises:
        ValueError: not a variant of ``rummy_env.VARIANTS``.
    """
    if name not in rummy_env.VARIANTS:
        raise ValueError(f"unknown variant {name!r}: known variants are {', '.join(rummy_env.VARIANTS)}")
    return importlib.import_module(f"rummy_env.{name}")


def parse_env_options(items: Sequence[str]) -> dict[str, Any]:
    """``["num_players=3", "ace_high=true", "episode=game"]`` -> a dict of typed values.

    Values: ``true``/``false`` -> bool, integers -> int, anything else -> str.

    Raises:
        ValueError: an item without ``=``, or a key given twice.
    """
    out: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ValueError(f"env option {item!r} is not key=value (e.g. num_players=3)")
        if key in out:
            raise ValueError(f"env option {key} is given twice ({key}={out[key]!r} and {item!r}): give it once")
        low = value.lower()
        if low in ("true", "false"):
            out[key] = low == "true"
        else:
            try:
                out[key] = int(value)
            except ValueError:
                out[key] = value
    return out


def positive_int(text: str) -> int:
    """An argparse ``type``: an integer >= 1 (argparse names the flag in its error).

    Raises:
        argparse.ArgumentTypeError: not an integer, or below 1.
    """
    return _int_at_least(text, 1)


def max_workers() -> int:
    """The most local worker processes a job starts: 4 per usable CPU, at least 8 (each is
    a Python process with its own engines and agents, a few hundred MB; past the CPUs they
    only wait their turn)."""
    return max(8, 4 * usable_cpus())


def worker_count(text: str) -> int:
    """An argparse ``type``: local worker processes, 1.. :func:`max_workers` (a typo such
    as ``--workers 100000`` would start that many processes and exhaust the memory).

    Raises:
        argparse.ArgumentTypeError: not an integer, below 1, or above the limit.
    """
    value = _int_at_least(text, 1)
    if value > max_workers():
        raise argparse.ArgumentTypeError(
            f"at most {max_workers()} local processes here ({usable_cpus()} CPUs; more would only wait), got {value}"
        )
    return value


#: The most deals a job plays per lineup or opponent: every deal's work is listed before the
#: first is played, so a typo of a count (10**14) filled the memory instead of starting.
MAX_DEALS = 10_000_000

#: The most steps one PPO rollout may hold (parallel games x steps per game): its buffers keep
#: an observation per step, so 2**21 steps of 654 floats take 5.5 GB; the recipes use 32,768 at most.
#: A typo of a count (10**12) tried to allocate petabytes after the run had started.
MAX_ROLLOUT_STEPS = 1 << 21


def deal_count(text: str) -> int:
    """An argparse ``type``: deals to play, 1.. :data:`MAX_DEALS`.

    Raises:
        argparse.ArgumentTypeError: not an integer, below 1, or above the limit.
    """
    return _deals(_int_at_least(text, 1))


def deal_count_or_zero(text: str) -> int:
    """An argparse ``type``: deals to play, 0.. :data:`MAX_DEALS` (0: none, e.g. no final
    evaluation).

    Raises:
        argparse.ArgumentTypeError: not an integer, negative, or above the limit.
    """
    return _deals(_int_at_least(text, 0))


def check_deals(deals: Any, least: int = 1) -> int:
    """``deals`` as an int, for the jobs' Python functions (the command lines use
    :func:`deal_count`): deals to play per lineup or opponent, ``least`` .. :data:`MAX_DEALS`.

    Raises:
        ValueError: not an int (bools refused), below ``least`` or above the limit.
    """
    is_int = isinstance(deals, (int, np.integer)) and not isinstance(deals, (bool, np.bool_))
    if not is_int or not least <= deals <= MAX_DEALS:
        raise ValueError(f"deals={deals!r}: the number of deals is an int {least}..{MAX_DEALS:,}")
    return int(deals)


def _deals(value: int) -> int:
    if value > MAX_DEALS:
        raise argparse.ArgumentTypeError(f"at most {MAX_DEALS:,} deals (days of play on a cluster), got {value:,}")
    return value


def path_arg(text: str) -> Path:
    """An argparse ``type``: a file or folder path, not empty (``Path("")`` is the current
    folder, so an empty ``--out ''`` would write the results among whatever is there).

    Raises:
        argparse.ArgumentTypeError: an empty string (or only spaces).
    """
    if not text.strip():
        raise argparse.ArgumentTypeError("an empty path: give a file or folder name")
    return Path(text)


def batch_size(text: str) -> int:
    """An argparse ``type``: games in a batched engine, 1..2**24
    (:data:`rummy_env.vector.batch.MAX_NUM_ENVS`).

    Raises:
        argparse.ArgumentTypeError: not an integer, below 1, or above the limit.
    """
    from rummy_env.vector.batch import MAX_NUM_ENVS

    value = _int_at_least(text, 1)
    if value > MAX_NUM_ENVS:
        raise argparse.ArgumentTypeError(f"at most {MAX_NUM_ENVS:,} games in a batch, got {value:,}")
    return value


def _int_at_least(text: str, low: int) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not an integer") from None
    if value < low:
        raise argparse.ArgumentTypeError(f"must be {'positive' if low == 1 else '>= 0'}, got {value}")
    return value


def positive_float(text: str) -> float:
    """An argparse ``type``: a finite number > 0 (minutes, intervals).

    Raises:
        argparse.ArgumentTypeError: not a number, not finite, or <= 0.
    """
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text}")
    return value


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity mask, e.g. under ``taskset`` or a
    container's CPU set), which can be fewer than ``os.cpu_count()``."""
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def check_folder(path: Path | str, what: str = "--out") -> None:
    """Refuse a folder that could not be made or written, without making it (so that a job
    with two folders to make refuses before either exists).

    Raises:
        ValueError: ``path`` is a file, or the nearest folder above it that exists is not
            a writable folder.
    """
    path = Path(path)
    if path.exists() and not path.is_dir():
        raise ValueError(f"{what} {str(path)!r} is a file, not a folder")
    where = path.absolute()
    while not where.exists() and where != where.parent:
        where = where.parent
    if not where.is_dir() or not os.access(where, os.W_OK | os.X_OK):
        raise ValueError(f"{what} {str(path)!r} cannot be made or written: {str(where)!r} is not a writable folder")


#: Files only one job writes, which mark a folder as holding that job's outputs.
JOB_MARKERS: dict[str, tuple[str, ...]] = {
    "tournament": ("summary.csv", "head_to_head.csv"),
    "evaluate": ("evaluation.csv",),
    "exploit": ("exploit.json",),
    "selfplay": ("scalars.csv", "checkpoint.pt"),  # an exploit's folder too: exploit.json tells them apart
    "train": ("learning_curve.csv", "model.zip", "progress.csv"),
}
#: The jobs whose outputs a job would overwrite in part (files of the same names: games.csv,
#: summary.json, evaluation.json), leaving a folder of two runs mixed.
OVERWRITES: dict[str, tuple[str, ...]] = {
    "tournament": ("evaluate", "selfplay", "exploit"),
    "evaluate": ("tournament", "train"),
    "selfplay": ("tournament", "exploit"),
    "exploit": ("tournament", "selfplay"),
    "train": ("evaluate",),
}


def folder_jobs(path: Path) -> dict[str, list[str]]:
    """The jobs whose outputs ``path`` holds (:data:`JOB_MARKERS`), each with the marker
    files found; an exploit's folder counts as the exploit's only.  Empty for a folder
    that does not exist or holds none of the markers."""
    jobs = {job: [n for n in names if (path / n).is_file()] for job, names in JOB_MARKERS.items()}
    if jobs["exploit"]:
        jobs["selfplay"] = []
    return {job: found for job, found in jobs.items() if found}


def output_folder(path: Path | str | None, default_stem: str, what: str = "--out", job: str | None = None) -> Path:
    """The folder a job writes to, created now so that a bad path fails before the work.

    Args:
        path: the folder given, or None for ``results/<default_stem>-<time>`` (with ``-2``,
            ``-3``, ... added when a run of the same second already has that name).
        default_stem: the default folder's name before the time.
        what: the flag, for the error message.
        job: the job writing there (a key of :data:`OVERWRITES`): a folder holding the
            outputs of a job whose files it would overwrite in part is refused.

    Returns:
        the folder, which exists and is writable.

    Raises:
        ValueError: the path is a file, or cannot be made or written (:func:`check_folder`),
            or it holds another job's outputs that this one would mix with its own.
    """
    if path is None:
        base = Path("results") / time.strftime(f"{default_stem}-%Y%m%d-%H%M%S")
        path, k = base, 1
        while path.exists():
            k += 1
            path = base.with_name(f"{base.name}-{k}")
    path = Path(path)
    check_folder(path, what)
    for other, found in (folder_jobs(path) if job is not None else {}).items():
        if other in OVERWRITES[job]:
            raise ValueError(
                f"{what} {str(path)!r} holds the outputs of experiments.{other} ({', '.join(found)}), "
                f"some of whose files experiments.{job} would overwrite: give another folder"
            )
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as err:  # made by another process meanwhile, say
        raise ValueError(f"{what} {str(path)!r} cannot be created: {err.strerror or err}") from None
    return path


def take_back_empty(folders: Sequence[Path]) -> None:
    """Remove those of ``folders`` that are still empty: made by a job (:func:`output_folder`)
    that then failed before writing anything (an unreachable Ray cluster), so that it leaves
    the disk as it was.  A folder holding anything stays."""
    for folder in folders:
        with contextlib.suppress(OSError):
            folder.rmdir()


class AgentActionError(ValueError):
    """An agent returned no legal action id (:func:`agent_action`); the message names it."""


def agent_action(
    env: Any, agents: Sequence[Agent], seat: int, obs: dict, info: dict, seed: int, names: Sequence[str] | None = None
) -> int:
    """``agents[seat].act(obs, info)``, checked against ``obs["action_mask"]`` before ``env``
    sees it.

    A job stops here rather than let the env's illegal-move rule (PettingZoo's
    ``TerminateIllegalWrapper``: the game ends, the offender gets -1) score a broken agent's
    move as a forfeit that looks like a draw, and rather than write a record that does not
    replay.

    Args:
        env: the wrapped AEC env, ``agents[seat]``'s turn (``unwrapped.action_to_string``
            names the moves in the message).
        agents: one agent per seat.
        seat: the seat to move.
        obs: its observation (``action_mask``: int8, shape ``(num_actions,)``).
        info: its infos.
        seed: the game's reset seed, for the message.
        names: the agents' names, for the message (else their classes).

    Returns:
        The action id, an int.

    Raises:
        AgentActionError: the agent returned no integer action id
            (:func:`rummy_env.games.errors.integer_id`), or one out of range or not legal
            here; the message names the agent, its seat, the game's seed, the action and
            the legal moves.  What ``act`` itself raises passes through.
    """
    action = agents[seat].act(obs, info)
    mask = obs["action_mask"]
    if type(action) is int and 0 <= action < len(mask) and mask[action]:
        return action  # what every agent of this repo returns: the check costs next to nothing
    name = names[seat] if names is not None else type(agents[seat]).__name__
    who = f"agent {name!r} in seat {seat} ({env.agent_selection}), game seed {seed},"
    try:
        action = integer_id(action, "")
    except Exception:  # ActionTypeError, or an object whose repr fails: no action id either way
        raise AgentActionError(
            f"{who} returned {shown(action)} ({type(action).__name__}), not an action id 0..{len(mask) - 1}"
        ) from None
    if 0 <= action < len(mask) and mask[action]:
        return action
    text = env.unwrapped.action_to_string
    legal = [int(a) for a in np.flatnonzero(mask)]
    some = ", ".join(f"{a} ({text(a)})" for a in legal[:6]) + (", ..." if len(legal) > 6 else "")
    what = f"{action} ({text(action)})" if 0 <= action < len(mask) else f"{action}, out of range 0..{len(mask) - 1},"
    raise AgentActionError(f"{who} chose action {what} which is not legal here: the legal actions are {some}")


def play_episode(
    env: Any, agents: Sequence[Agent], seed: int, options: dict | None = None, names: Sequence[str] | None = None
) -> dict[str, Any]:
    """Play one episode of ``env`` with ``agents[i]`` in seat ``i``.

    Args:
        env: a wrapped AEC env of this package.
        agents: one agent per seat.
        seed: the reset seed (the deal).
        options: reset options (e.g. a stacked deck).
        names: the agents' names, for the message of an illegal move (else their classes).

    Returns:
        dict with ``returns`` (per seat, float), ``infos`` (final infos per seat),
        ``steps`` (decisions taken) and ``truncated`` (bool).

    Raises:
        AgentActionError: an agent chose an action that is not legal (:func:`agent_action`).
    """
    env.reset(seed=seed, options=options)
    return play_reset(env, agents, seed, names)


def play_reset(
    env: Any,
    agents: Sequence[Agent],
    seed: int,
    names: Sequence[str] | None = None,
    on_step: Callable[[str, int], None] | None = None,
) -> dict[str, Any]:
    """Play ``env``, already reset with ``seed``, to the end: :func:`play_episode` after its
    reset, with ``on_step(agent, action)`` called after each decision's ``env.step`` (the
    game recorder's hook, ``experiments.common.records.play_recorded``).

    Returns:
        :func:`play_episode`'s dict.

    Raises:
        AgentActionError: an agent chose an action that is not legal (:func:`agent_action`).
    """
    seat_of = {a: i for i, a in enumerate(env.possible_agents)}
    returns = [0.0] * len(seat_of)
    infos: list[dict] = [{} for _ in seat_of]
    steps = 0
    truncated = False
    for agent in env.agent_iter():
        obs, reward, termination, truncation, info = env.last()
        seat = seat_of[agent]
        returns[seat] += reward
        if termination or truncation:
            infos[seat] = dict(info)
            truncated = truncated or truncation
            env.step(None)
            continue
        action = agent_action(env, agents, seat, obs, info, seed, names)
        env.step(action)
        if on_step is not None:
            on_step(agent, action)
        steps += 1
    return {"returns": returns, "infos": infos, "steps": steps, "truncated": truncated}


def new_figure(**kwargs: Any) -> Any:
    """A ``matplotlib.figure.Figure`` (``kwargs``: ``figsize`` in inches, ...) with its own
    Agg canvas, not registered with pyplot.

    Library code builds its plots on these: nothing switches matplotlib's backend (a
    library that sets the global backend to Agg turns off Jupyter's inline plots for the
    rest of the session), nothing needs ``plt.close``, and saving works headless.  A notebook
    shows one as a cell's value or with ``display(fig)``.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(**kwargs)
    FigureCanvasAgg(fig)
    return fig


def save_figure(fig: Any, path: str | Path, dpi: int = 100) -> None:
    """``fig.savefig(path, dpi=dpi)`` through :func:`atomic_open`: a job quit while it draws
    keeps the previous picture whole.  The format is the file's suffix (``.png``, ``.svg``).

    Raises:
        OSError: the file cannot be written.
    """
    path = Path(path)
    with atomic_open(path, "wb") as f:
        fig.savefig(f, format=path.suffix.lstrip(".") or "png", dpi=dpi)
