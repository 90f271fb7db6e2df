"""The main job: a round-robin tournament of named agents on real games.

    python -m experiments.tournament                      # every variant, baseline agents
    python -m experiments.tournament --variants rummy_v0 --agents random heuristic --deals 500
    python -m experiments.tournament --variants rummy_v0 --env-option num_players=4
    python -m experiments.tournament --backend ray --address auto   # on a running Ray cluster

Each *matchup* is a lineup of agents, one per seat (every multiset of the named agents
with at least two different ones).  Each *deal* (a reset seed) of a matchup is played
once per seat rotation, so every agent of the lineup plays every seat of the same
cards: duplicate play, which cancels most of the luck of the deal.  Deals run in
parallel worker processes.  At the end the job prints, per variant, each agent's games,
win rate with a 95% Wilson interval, mean points per hand and an OpenSkill
(Plackett-Luce) rating, and writes ``games.csv``, ``summary.csv``, ``summary.json`` and
``win_rates.png`` to the results folder.

Winners are read from ``reward="win"`` returns (a positive return is a win; a shared
win counts as a fraction), so the job always plays with ``reward="win"``.
"""

from __future__ import annotations

import argparse
import itertools
import multiprocessing
import os
import sys
import time
import zlib
from collections import defaultdict
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import rummy_env
from agents import agent_names, make_agent
from experiments.common import (
    load_variant,
    output_folder,
    parse_env_options,
    play_episode,
    program_name,
    resolve_variant,
    usable_cpus,
)
from experiments.tournament_report import display_names, format_table, summarize, win_rates_figure, write_results

# the results' functions stay importable from here, as before they had a module of their own
__all__ = [
    "DEFAULT_GAMES",
    "Chunk",
    "display_names",
    "evaluate_against_baselines",
    "format_table",
    "main",
    "make_chunks",
    "run_local",
    "run_ray",
    "summarize",
    "win_rates_figure",
    "write_results",
]

#: Games per variant when ``--deals`` is not given (split over the lineups and seat
#: rotations): the default run of every variant takes about a minute on 2 cores.
DEFAULT_GAMES = {"rummy_v0": 16000, "crazy_rummy_v0": 6000, "gin_rummy_v0": 16000, "rummikub_v0": 480}

#: The most ``--deals`` per lineup.
MAX_DEALS = 10_000_000


@dataclass(frozen=True)
class Chunk:
    """Deals ``first .. first+count-1`` of one matchup, for one worker call."""

    variant: str
    env_options: tuple[tuple[str, Any], ...]
    lineup: tuple[str, ...]
    first: int
    count: int
    seed: int
    record_dir: str | None = None  # --record: write the first record_games games of the lineup there
    record_games: int = 0


_ENVS: dict[tuple, Any] = {}  # one env per (variant, options) per worker process


def deal_seed(seed: int, variant: str, deal: int) -> int:
    """The reset seed of a deal: a function of the job seed, variant and deal only, so
    every matchup plays the same deals."""
    ss = np.random.SeedSequence([seed, zlib.crc32(variant.encode()), deal])
    return int(ss.generate_state(1)[0])


def run_chunk(chunk: Chunk) -> list[dict]:
    """Play every seat rotation of each deal of ``chunk``; one record per game."""
    key = (chunk.variant, chunk.env_options)
    env = _ENVS.get(key)
    if env is None:
        env = _ENVS[key] = load_variant(chunk.variant).env(**dict(chunk.env_options))
    k = len(chunk.lineup)
    records = []
    for deal in range(chunk.first, chunk.first + chunk.count):
        seed = deal_seed(chunk.seed, chunk.variant, deal)
        for rotation in range(k):
            seats = [chunk.lineup[(i + rotation) % k] for i in range(k)]
            agents = [make_agent(name, env, seed=seed + 7919 * i) for i, name in enumerate(seats)]
            if chunk.record_dir is not None and deal * k + rotation < chunk.record_games:
                result = _play_and_record(env, agents, seed, chunk, seats, deal, rotation)
            else:
                result = play_episode(env, agents, seed)
            returns = result["returns"]
            winners = [i for i, r in enumerate(returns) if r > 1e-9]
            records.append(
                {
                    "variant": chunk.variant,
                    "lineup": " vs ".join(chunk.lineup),
                    "deal": deal,
                    "seed": seed,
                    "rotation": rotation,
                    "seats": seats,
                    "returns": returns,
                    "win_share": [1.0 / len(winners) if i in winners else 0.0 for i in range(k)],
                    "points_per_hand": [
                        info.get("total_score", 0) / max(1, info.get("hand", 1)) for info in result["infos"]
                    ],
                    "steps": result["steps"],
                    "truncated": result["truncated"],
                }
            )
    return records


def _play_and_record(env: Any, agents: list, seed: int, chunk: Chunk, seats: list, deal: int, rotation: int) -> dict:
    """``play_episode`` that also writes the game's record (``experiments/records.py``)."""
    import re

    from experiments.records import play_recorded, write_record

    result, lines = play_recorded(env, agents, seed, dict(chunk.env_options), seats)
    lineup = re.sub(r"[^A-Za-z0-9_.-]+", "_", "-".join(chunk.lineup))
    write_record(lines, Path(chunk.record_dir) / f"{chunk.variant}-{lineup}-deal{deal}-rot{rotation}.jsonl")
    return result


def lineups(agents: Sequence[str], seats: int) -> list[tuple[str, ...]]:
    """Every multiset of ``agents`` of size ``seats`` with at least two different agents."""
    return [c for c in itertools.combinations_with_replacement(agents, seats) if len(set(c)) > 1]


def default_deals(variant: str, matchups: int, seats: int) -> int:
    """Deals per matchup that spend the variant's default game budget (each deal is
    played once per seat rotation)."""
    return max(1, DEFAULT_GAMES.get(variant, 2000) // (matchups * seats))


def absolute_policy(name: str) -> str:
    """``policy:PATH`` and ``rllib:PATH`` with an absolute path, so that workers started elsewhere (Ray)
    find the model; other names unchanged.  On a cluster the path must be on a file
    system every node sees."""
    for prefix in ("policy:", "rllib:"):
        if name.startswith(prefix):
            return prefix + str(Path(name[len(prefix) :]).resolve())
    return name


def make_chunks(
    variants: Sequence[str],
    agents: Sequence[str] | None,
    deals: int | None,
    env_options: dict[str, Any],
    seed: int,
    chunk_size: int = 25,
    record_dir: str | None = None,
    record_games: int = 0,
) -> list[Chunk]:
    """The work of a tournament, cut into chunks of ``chunk_size`` deals.

    Raises:
        ValueError: an unknown variant or agent, or env options the variant refuses.
    """
    chunks = []
    for variant in variants:
        module = load_variant(variant)
        env = module.env(**env_options)  # validates the options now, in this process
        known = agent_names(env.unwrapped.metadata["name"])
        names = [absolute_policy(a) for a in dict.fromkeys(agents)] if agents else known
        for name in names:
            make_agent(name, env, seed=0)  # an unknown name or a bad import path fails here
        seats = len(env.possible_agents)
        matchups = lineups(names, seats)
        if not matchups:
            raise ValueError(f"{variant}: a tournament needs at least two different agents, got {', '.join(names)}")
        n_deals = deals if deals is not None else default_deals(variant, len(matchups), seats)
        for lineup in matchups:
            for first in range(0, n_deals, chunk_size):
                chunks.append(
                    Chunk(
                        variant,
                        tuple(sorted(env_options.items())),
                        lineup,
                        first,
                        min(chunk_size, n_deals - first),
                        seed,
                        record_dir,
                        record_games,
                    )
                )
    return chunks


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


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog=program_name("experiments.tournament", "rummy-tournament"), description=__doc__.split("\n\n")[0]
    )
    p.add_argument(
        "--variants",
        nargs="+",
        default=list(rummy_env.VARIANTS),
        metavar="NAME",
        help=f"variants to play, e.g. rummy or rummy_v0 (default: all: {' '.join(rummy_env.VARIANTS)})",
    )
    p.add_argument(
        "--agents",
        nargs="+",
        default=None,
        metavar="NAME",
        help="agents to enter: random, heuristic (heuristic:style=NAME: another style of play, "
        "agents.registry.STYLES), ismcts or pimc (search agents; options after a colon, "
        "e.g. ismcts:simulations=400), policy:PATH (a model saved by experiments.train), "
        "rllib:PATH (a checkpoint of experiments.train --backend rllib), "
        "or package.module:Name of your own Agent class (default: every baseline agent of the variant)",
    )
    p.add_argument(
        "--deals",
        type=int,
        default=None,
        help="deals per matchup, each played once per seat rotation (default: enough for about "
        "a minute on 2 cores: " + ", ".join(f"{v} {g} games" for v, g in DEFAULT_GAMES.items()) + ")",
    )
    p.add_argument(
        "--workers",
        type=int,
        default=usable_cpus(),
        help="local worker processes (default: the CPUs this process may use; the ray backend uses the cluster's)",
    )
    p.add_argument(
        "--backend",
        choices=("local", "ray"),
        default="local",
        help="local processes, or Ray tasks (the distributed extra) on a local or existing cluster",
    )
    p.add_argument(
        "--address",
        default=None,
        help="with --backend ray: address of a running Ray cluster (default: start a local one)",
    )
    p.add_argument("--seed", type=int, default=0, help="seed of the deals (default: 0)")
    p.add_argument(
        "--env-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="an option of env(), e.g. num_players=3 (repeatable)",
    )
    p.add_argument("--out", type=Path, default=None, help="results folder (default: results/tournament-<time>)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.add_argument(
        "--record",
        type=Path,
        default=None,
        metavar="DIR",
        help="write game records (JSON lines, for experiments.replay) of the first --record-games games of each "
        "lineup to DIR (with --backend ray the workers write them: use a folder every node can reach)",
    )
    p.add_argument("--record-games", type=int, default=1, metavar="N", help="games recorded per lineup (default: 1)")
    args = p.parse_args(argv)
    if args.record_games < 0:
        p.error(f"--record-games must be >= 0, got {args.record_games}")
    for name in ("deals", "workers"):
        value = getattr(args, name)
        if value is not None and value <= 0:
            p.error(f"--{name} must be a positive integer, got {value}")
    if args.deals is not None and args.deals > MAX_DEALS:
        # the chunks of work are listed up front: a huge count would fill the memory before a game is played
        p.error(f"--deals {args.deals} is more than {MAX_DEALS:,} deals per lineup (days of play on a cluster)")
    if args.seed < 0:
        p.error(f"--seed must be >= 0, got {args.seed}")
    if args.address is not None and args.backend != "ray":
        p.error("--address goes with --backend ray")
    if args.backend == "ray":
        try:
            import ray  # noqa: F401
        except ImportError:
            p.error('--backend ray needs Ray: pip install -e ".[distributed]"')
    try:
        args.variants = list(dict.fromkeys(resolve_variant(v) for v in args.variants))
        args.env_options = parse_env_options(args.env_option)
    except ValueError as err:
        p.error(str(err))
    if "reward" in args.env_options:
        p.error("the tournament reads winners from reward='win'; do not pass the reward option")
    if "render_mode" in args.env_options:
        p.error("the tournament plays thousands of games: render_mode is not an option here")
    args.parser = p
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run the tournament from the command line; returns the exit code."""
    args = parse_args(argv)
    try:
        chunks = make_chunks(
            args.variants,
            args.agents,
            args.deals,
            args.env_options,
            args.seed,
            record_dir=str(args.record.resolve()) if args.record else None,
            record_games=args.record_games if args.record else 0,
        )
        # the folders are made now: a bad path must fail before the games, not after them
        out = output_folder(args.out, "tournament")
        if args.record:
            output_folder(args.record, "record", what="--record")
    except ValueError as err:
        args.parser.error(str(err))
    start = time.perf_counter()
    if args.backend == "ray":
        records = run_ray(chunks, args.address, progress=not args.no_progress)
    else:
        records = run_local(chunks, args.workers, progress=not args.no_progress)
    elapsed = time.perf_counter() - start
    rows = summarize(records)
    deals: dict[str, int] = defaultdict(int)
    for c in chunks:
        deals[f"{c.variant}: {' vs '.join(c.lineup)}"] += c.count
    meta = {
        "variants": args.variants,
        "deals_per_lineup": dict(deals),
        "seed": args.seed,
        "env_options": args.env_options,
        "backend": args.backend,
        "workers": args.workers if args.backend == "local" else None,
        "games": len(records),
        "seconds": round(elapsed, 2),
    }
    write_results(out, records, rows, meta)
    print(format_table(rows))
    where = f"{args.workers} worker(s)" if args.backend == "local" else "Ray"
    print(f"\n{len(records)} games in {elapsed:.1f} s on {where}; results in {out}/")
    print("(an agent's 'games' counts the seats it played: one per game, or more when a lineup seats it twice)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
