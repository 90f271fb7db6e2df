"""Running a tournament's chunks: local worker processes or Ray tasks, and the training jobs'
evaluation against the baselines."""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor

from agents import agent_names
from experiments.tournament.deals import Chunk, make_chunks, run_chunk
from experiments.tournament.report import summarize


def _init_worker() -> None:
    """Start a worker process: one torch thread (the workers already use every core; a
    user's own ``OMP_NUM_THREADS`` wins)."""
    for name in ("OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(name, "1")
    if "torch" in sys.modules:
        sys.modules["torch"].set_num_threads(1)


def run_local(chunks: Sequence[Chunk], workers: int, progress: bool = True) -> list[dict]:
    """Run the chunks on ``workers`` local processes (1: in this process).

    The workers are started with the ``"spawn"`` method, never forked: a forked copy of
    a process in which torch has run a parallel operation (a policy agent loaded and
    used, a model trained in a notebook) blocks forever in torch's OpenMP thread pool.
    Spawned workers import the project afresh; they need what they play to be
    importable (built-in agents, ``policy:PATH``, ``package.module:Name``)."""
    from tqdm import tqdm

    records: list[dict] = []
    total = sum(c.count for c in chunks)
    # disable=None: tqdm hides itself when stderr is not a terminal (CI logs)
    with tqdm(total=total, unit="deal", disable=None if progress else True, file=sys.stderr) as bar:
        if workers == 1:
            for c in chunks:
                records.extend(run_chunk(c))
                bar.update(c.count)
        else:
            context = multiprocessing.get_context("spawn")
            with ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_init_worker) as pool:
                for c, recs in zip(chunks, pool.map(run_chunk, chunks), strict=False):
                    records.extend(recs)
                    bar.update(c.count)
    return records


def run_ray(chunks: Sequence[Chunk], address: str | None = None, progress: bool = True) -> list[dict]:
    """Run the chunks as Ray tasks: on a new local Ray cluster (``address=None``) or on
    the running cluster at ``address`` (e.g. ``"ray://head:10001"`` or ``"auto"``).

    Every chunk is played exactly as by :func:`run_local` (the deals come from the job
    seed, not from the worker), so the results are identical; they are collected in
    chunk order.  The workers import ``rummy_env``, ``agents`` and ``experiments``: on a
    cluster, install the project on every node (or pass a ``runtime_env`` to your own
    ``ray.init`` before calling this).

    Raises:
        ImportError: Ray is not installed (``pip install -e ".[distributed]"``).
    """
    import ray
    from tqdm import tqdm

    started_here = not ray.is_initialized()
    if started_here:
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    try:
        task = ray.remote(run_chunk)
        futures = [task.remote(c) for c in chunks]
        index = {f: i for i, f in enumerate(futures)}
        results: list[list[dict] | None] = [None] * len(chunks)
        pending = list(futures)
        with tqdm(
            total=sum(c.count for c in chunks), unit="deal", disable=None if progress else True, file=sys.stderr
        ) as bar:
            while pending:
                done, pending = ray.wait(pending, num_returns=1)
                for f in done:
                    i = index[f]
                    results[i] = ray.get(f)
                    bar.update(chunks[i].count)
    finally:
        if started_here:
            ray.shutdown()
    return [r for chunk in results for r in chunk]


def evaluate_against_baselines(
    agent: str,
    variant: str,
    env_options: dict,
    deals: int,
    workers: int,
    seed: int,
    opponents: Sequence[str] | None = None,
) -> list[dict]:
    """Win rates of ``agent`` against each baseline of ``variant`` (the training jobs'
    evaluation): one tournament per opponent on duplicate deals, ``reward="win"`` whatever
    reward the training used; with more than two seats every lineup of the two is played.

    Args:
        agent: an agent name (``policy:PATH``, ``rllib:PATH``, ...).
        opponents: the opponents in order (default: :func:`agents.agent_names` of the variant).

    Returns:
        one dict per opponent: ``opponent``, ``games``, ``wins``, ``draws``, ``win_rate``,
        ``win_rate_ci_low``, ``win_rate_ci_high`` (95% Wilson interval counted per deal).
    """
    options = {**env_options, "reward": "win"}
    keys = ("games", "wins", "draws", "win_rate", "win_rate_ci_low", "win_rate_ci_high")
    rows = []
    for opponent in opponents if opponents is not None else agent_names(variant):
        chunks = make_chunks([variant], [agent, opponent], deals, options, seed)
        row = next(r for r in summarize(run_local(chunks, workers, progress=False)) if r["agent"] == agent)
        rows.append({"opponent": opponent, **{k: row[k] for k in keys}})
    return rows
