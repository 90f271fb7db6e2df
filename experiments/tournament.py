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
import csv
import itertools
import json
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
    parse_env_options,
    play_episode,
    program_name,
    resolve_variant,
    wilson_interval,
)

#: Games per variant when ``--deals`` is not given (split over the lineups and seat
#: rotations): the default run of every variant takes about a minute on 2 cores.
DEFAULT_GAMES = {"rummy_v0": 16000, "crazy_rummy_v0": 6000, "gin_rummy_v0": 16000, "rummikub_v0": 480}


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


def summarize(records: list[dict]) -> list[dict]:
    """Per (variant, agent): games, wins, win rate and its 95% CI, points per hand, rating.

    ``games`` counts seats played (an agent holding two seats of a game counts twice).
    The 95% interval is Wilson's, counting each deal of a lineup once: the seat
    rotations of one deal share its cards, so they are not independent trials.  The
    rating is OpenSkill's Plackett-Luce, updated game by game in a fixed order.
    """
    from openskill.models import PlackettLuce

    rows = []
    by_variant: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        by_variant[r["variant"]].append(r)
    for variant, games in by_variant.items():
        games.sort(key=lambda r: (r["lineup"], r["deal"], r["rotation"]))
        model = PlackettLuce()
        ratings: dict[str, Any] = {}
        stats: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        units: dict[str, set] = defaultdict(set)
        for g in games:
            for seat, name in enumerate(g["seats"]):
                units[name].add((g["lineup"], g["deal"]))
                s = stats[name]
                s["games"] += 1
                s["wins"] += g["win_share"][seat]
                s["points"] += g["points_per_hand"][seat]
                s["draws"] += 1 if not any(g["win_share"]) else 0
                ratings.setdefault(name, model.rating(name=name))
            _rate(model, ratings, g)
        for name in sorted(stats):
            s = stats[name]
            n = int(s["games"])
            low, high = wilson_interval(s["wins"] / n, len(units[name]))
            rating = ratings[name]
            rows.append(
                {
                    "variant": variant,
                    "agent": name,
                    "games": n,
                    "wins": round(s["wins"], 3),
                    "draws": int(s["draws"]),
                    "win_rate": s["wins"] / n,
                    "win_rate_ci_low": low,
                    "win_rate_ci_high": high,
                    "points_per_hand": s["points"] / n,
                    "rating_mu": rating.mu,
                    "rating_sigma": rating.sigma,
                    "rating": rating.ordinal(),
                }
            )
    return rows


def _rate(model: Any, ratings: dict[str, Any], game: dict) -> None:
    """One OpenSkill update: each seat a team, ranked by win share; an agent holding
    several seats gets the mean of its seats' updates."""
    seats = game["seats"]
    ranks = [-w for w in game["win_share"]]  # lower rank is better
    new = model.rate([[ratings[name]] for name in seats], ranks=ranks)
    updates: dict[str, list] = defaultdict(list)
    for name, [rating] in zip(seats, new, strict=False):
        updates[name].append(rating)
    for name, rs in updates.items():
        mu = sum(r.mu for r in rs) / len(rs)
        sigma = sum(r.sigma for r in rs) / len(rs)
        ratings[name] = model.rating(mu=mu, sigma=sigma, name=name)


#: The points column per variant: Crazy Rummy's are penalties (R-CRAZY-12), lower is better.
POINTS_LABELS = {"crazy_rummy_v0": "penalty/round"}
DEFAULT_POINTS_LABEL = "pts/hand"


def display_names(names: Sequence[str]) -> dict[str, str]:
    """Short names for the table and the plot (the CSV and JSON keep the full ones).

    ``policy:PATH`` becomes ``policy(<folder>)`` (the folder of a ``model.zip``, else the
    file's stem), ``package.module:Name`` becomes ``Name``; other names stay.  Names
    that would coincide keep their full form."""
    short = {}
    for name in names:
        if name.startswith("policy:"):
            path = Path(name[len("policy:") :])
            label = path.parent.name if path.name == "model.zip" and path.parent.name else path.stem
            short[name] = f"policy({label})"
        elif ":" in name:
            short[name] = name.rpartition(":")[2]
        else:
            short[name] = name
    taken = defaultdict(int)
    for label in short.values():
        taken[label] += 1
    return {name: label if taken[label] == 1 else name for name, label in short.items()}


def format_table(rows: list[dict]) -> str:
    """The summary as a text table, one block per variant (short agent names, see
    :func:`display_names`; the points column is labelled per variant)."""
    out = []
    short = display_names(list(dict.fromkeys(r["agent"] for r in rows)))
    width = max([12, *(len(v) for v in short.values())])
    for variant in dict.fromkeys(r["variant"] for r in rows):
        points = POINTS_LABELS.get(variant, DEFAULT_POINTS_LABEL)
        pw = max(9, len(points))
        out.append(f"\n{variant}")
        out.append(f"  {'agent':<{width}} {'games':>7} {'win rate':>9} {'95% CI':>17} {points:>{pw}} {'rating':>8}")
        for r in sorted((r for r in rows if r["variant"] == variant), key=lambda r: -r["rating"]):
            ci = f"[{r['win_rate_ci_low']:.3f}, {r['win_rate_ci_high']:.3f}]"
            out.append(
                f"  {short[r['agent']]:<{width}} {r['games']:>7} {r['win_rate']:>9.3f} {ci:>17} "
                f"{r['points_per_hand']:>{pw}.2f} {r['rating']:>8.2f}"
            )
        if variant in POINTS_LABELS:
            out.append(f"  ({points}: penalty points, lower is better)")
    named = {k: v for k, v in short.items() if k != v}
    if named:
        out.append("\n" + "\n".join(f"{v} = {k}" for k, v in named.items()))
    return "\n".join(out)


def write_results(out_dir: Path, records: list[dict], rows: list[dict], meta: dict) -> None:
    """Write games.csv, summary.csv, summary.json and win_rates.png to ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    with open(out_dir / "games.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(
            [
                "variant",
                "lineup",
                "deal",
                "seed",
                "rotation",
                "seat",
                "agent",
                "return",
                "win_share",
                "points_per_hand",
                "steps",
                "truncated",
            ]
        )
        for r in records:
            for seat, name in enumerate(r["seats"]):
                w.writerow(
                    [
                        r["variant"],
                        r["lineup"],
                        r["deal"],
                        r["seed"],
                        r["rotation"],
                        seat,
                        name,
                        r["returns"][seat],
                        r["win_share"][seat],
                        r["points_per_hand"][seat],
                        r["steps"],
                        r["truncated"],
                    ]
                )
    with open(out_dir / "summary.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    with open(out_dir / "summary.json", "w") as f:
        json.dump({"meta": meta, "summary": rows}, f, indent=2)
    plot_win_rates(rows, out_dir / "win_rates.png")


def win_rates_figure(rows: list[dict]) -> Any:
    """Bar chart of win rates with their 95% intervals, one panel per variant; the
    bars are labelled with :func:`display_names`."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    variants = list(dict.fromkeys(r["variant"] for r in rows))
    short = display_names(list(dict.fromkeys(r["agent"] for r in rows)))
    most = max(sum(1 for r in rows if r["variant"] == v) for v in variants)
    fig, axes = plt.subplots(1, len(variants), figsize=(max(4, 1.5 * most) * len(variants), 4), squeeze=False)
    for ax, variant in zip(axes[0], variants, strict=False):
        vr = [r for r in rows if r["variant"] == variant]
        rates = [r["win_rate"] for r in vr]
        # max(0, .): the Wilson bounds can miss a rate of exactly 0 or 1 by a rounding error
        err = [
            [max(0.0, r["win_rate"] - r["win_rate_ci_low"]) for r in vr],
            [max(0.0, r["win_rate_ci_high"] - r["win_rate"]) for r in vr],
        ]
        ax.bar([short[r["agent"]] for r in vr], rates, yerr=err, capsize=4, color="tab:blue")
        # slanted labels: a long name must not run into its neighbours
        ax.tick_params(axis="x", labelrotation=25)
        for label in ax.get_xticklabels():
            label.set_horizontalalignment("right")
        ax.set_ylim(0, 1)
        ax.set_title(variant)
        ax.set_ylabel("win rate (95% CI)")
    fig.tight_layout()
    return fig


def plot_win_rates(rows: list[dict], path: Path) -> None:
    """``win_rates.png``: :func:`win_rates_figure` saved to ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig = win_rates_figure(rows)
    fig.savefig(path, dpi=100)
    plt.close(fig)


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
        help="agents to enter: random, heuristic, ismcts or pimc (search agents; options after a colon, "
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
        default=os.cpu_count() or 1,
        help="local worker processes (default: all cores; the ray backend uses the cluster's CPUs)",
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
    except ValueError as err:
        args.parser.error(str(err))
    start = time.perf_counter()
    if args.backend == "ray":
        records = run_ray(chunks, args.address, progress=not args.no_progress)
    else:
        records = run_local(chunks, args.workers, progress=not args.no_progress)
    elapsed = time.perf_counter() - start
    rows = summarize(records)
    out = args.out or Path("results") / time.strftime("tournament-%Y%m%d-%H%M%S")
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
