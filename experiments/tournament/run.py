"""Running a tournament's chunks: local worker processes or Ray tasks, and the training jobs'
evaluation against the baselines."""

from __future__ import annotations

from collections.abc import Sequence

from agents import agent_names
from experiments.common.interrupt import StopRequest
from experiments.common.parallel import run_tasks
from experiments.common.progress import progress_counter
from experiments.tournament.deals import Chunk, deals_played, make_chunks, run_chunk
from experiments.tournament.report import summarize


def run_local(
    chunks: Sequence[Chunk], workers: int, progress: bool = True, stop: StopRequest | None = None
) -> list[dict]:
    """Run the chunks on ``workers`` local processes (1: in this process;
    :func:`experiments.common.parallel.run_tasks`: spawned workers, a clean stop).

    Args:
        chunks: the work (:func:`experiments.tournament.make_chunks`).
        workers: processes; 1 plays in this process.
        progress: show a progress bar (deals).
        stop: when ``stop.requested`` turns true (Ctrl-C), no new deal is started: in this
            process and in each worker the chunk in progress ends after its current deal
            (its finished deals are kept).

    Returns:
        the records of every game played (:func:`experiments.tournament.run_chunk`), in the
        order of the chunks: all of them, or those of the deals finished before a stop.
    """
    return _run(chunks, progress, workers=workers, stop=stop, in_process_stop=True)


def run_ray(
    chunks: Sequence[Chunk], address: str | None = None, progress: bool = True, stop: StopRequest | None = None
) -> list[dict]:
    """Run the chunks as Ray tasks: on a new local Ray cluster (``address=None``) or on
    the running cluster at ``address`` (e.g. ``"ray://head:10001"`` or ``"auto"``).

    Every chunk is played exactly as by :func:`run_local` (the deals come from the job
    seed, not from the worker), so the results are identical; they are collected in
    chunk order.  The workers import ``rummy_env``, ``agents`` and ``experiments``: on a
    cluster, install the project on every node (or pass a ``runtime_env`` to your own
    ``ray.init`` before calling this).  After ``stop.requested`` the pending tasks are
    cancelled and the finished chunks' records returned.

    Raises:
        ImportError: Ray is not installed (``pip install -e ".[distributed]"``).
    """
    return _run(chunks, progress, backend="ray", address=address, stop=stop)


def _run(chunks: Sequence[Chunk], progress: bool, **how) -> list[dict]:
    # a bar on a terminal, a line a minute in a log file (CI logs, nohup)
    with progress_counter(sum(c.count for c in chunks), "deal", "tournament", progress) as bar:
        # a chunk cut short by a stop counts the deals it finished
        parts = run_tasks(run_chunk, chunks, on_result=lambda chunk, part: bar.update(deals_played(chunk, part)), **how)
    return [r for part in parts for r in part]


def evaluate_against_baselines(
    agent: str,
    variant: str,
    env_options: dict,
    deals: int,
    workers: int,
    seed: int,
    opponents: Sequence[str] | None = None,
    progress: bool = False,
    stop: StopRequest | None = None,
) -> list[dict]:
    """Win rates of ``agent`` against each baseline of ``variant`` (the training jobs'
    evaluation): one tournament per opponent on duplicate deals, ``reward="win"`` whatever
    reward the training used; with more than two seats every lineup of the two is played.

    Args:
        agent: an agent name (``policy:PATH``, ``rllib:PATH``, ...).
        opponents: the opponents in order (default: :func:`agents.agent_names` of the variant).
        progress: show a progress bar per opponent.
        stop: stop early on Ctrl-C (:func:`run_local`); the rows then cover what was played.

    Returns:
        one dict per opponent: ``opponent``, ``games``, ``wins``, ``draws``, ``win_rate``,
        ``win_rate_ci_low``, ``win_rate_ci_high`` (95% Wilson interval counted per deal).
    """
    options = {**env_options, "reward": "win"}
    keys = ("games", "wins", "draws", "win_rate", "win_rate_ci_low", "win_rate_ci_high")
    rows = []
    for opponent in opponents if opponents is not None else agent_names(variant):
        if stop is not None and stop.requested:
            break
        chunks = make_chunks([variant], [agent, opponent], deals, options, seed)
        summary = summarize(run_local(chunks, workers, progress=progress, stop=stop))
        row = next((r for r in summary if r["agent"] == agent), None)
        if row is not None:
            rows.append({"opponent": opponent, **{k: row[k] for k in keys}})
    return rows
