"""The main job: a round-robin tournament of named agents on real games.

    python -m experiments.tournament                      # every variant, baseline agents
    python -m experiments.tournament --variants rummy_v0 --agents random heuristic --deals 500
    python -m experiments.tournament --variants rummy_v0 --env-option num_players=4
    python -m experiments.tournament --backend ray --address auto   # on a running Ray cluster
    python -m experiments.tournament --resummarize results/tournament-<time>/games.csv  # no game played

Each *matchup* is a lineup of agents, one per seat (every multiset of the named agents
with at least two different ones).  Each *deal* (a reset seed) of a matchup is played
once per seat rotation, so every agent of the lineup plays every seat of the same
cards: duplicate play, which cancels most of the luck of the deal.  Deals run in
parallel worker processes.  At the end the job prints, per variant, each agent's games,
win rate with a 95% Wilson interval, mean points per hand and an OpenSkill
(Plackett-Luce) rating, and writes ``games.csv``, ``summary.csv``, ``summary.json`` and
``win_rates.png`` to the results folder, and the head-to-head table (each agent's win rate
against each other agent, ``head_to_head.csv`` and the heat map ``head_to_head.png``;
:mod:`experiments.tournament.matrix`).

Winners are read from ``reward="win"`` returns (a positive return is a win; a shared
win counts as a fraction), so the job always plays with ``reward="win"``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path

import rummy_env
from experiments.common import (
    MAX_DEALS,
    check_folder,
    description,
    output_folder,
    parse_env_options,
    path_arg,
    program_name,
    resolve_variant,
    take_back_empty,
    usable_cpus,
    worker_count,
)
from experiments.common.argv import seed_refusal
from experiments.common.interrupt import PART_FOLDERS, StopRequest
from experiments.common.jobs import AgentActionError
from experiments.common.parallel import RayUnreachableError, refuse_unreachable_address
from experiments.tournament.deals import DEFAULT_GAMES, make_chunks, record_names
from experiments.tournament.matrix import format_matrix, head_to_head, write_matrix
from experiments.tournament.report import format_table, summarize, write_results
from experiments.tournament.resummarize import resummarize
from experiments.tournament.run import run_local, run_ray


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line of ``experiments.tournament`` (``--help``), checked; a bad value exits with status 2."""
    p = argparse.ArgumentParser(
        prog=program_name("experiments.tournament", "rummy-tournament"), description=description(__doc__)
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
        "e.g. ismcts:simulations=400), champion (the variant's strongest agent), openspiel_gin_bot "
        "(Gin Rummy, the reference extra), policy:PATH (a model.zip of experiments.train or a model.pt of "
        "experiments.selfplay), "
        "rllib:PATH (a checkpoint of experiments.train --backend rllib), "
        "or package.module:Name of your own Agent class (default: every baseline agent of the variant)",
    )
    p.add_argument(
        "--deals",
        type=int,
        default=None,
        help="deals per matchup, each played once per seat rotation (default: the deals that make "
        "about a minute on 2 cores, a budget of games per variant shared by its matchups and "
        "rotations: " + ", ".join(f"{v} {g} games" for v, g in DEFAULT_GAMES.items()) + ")",
    )
    p.add_argument(
        "--workers",
        type=worker_count,
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
    p.add_argument("--out", type=path_arg, default=None, help="results folder (default: results/tournament-<time>)")
    p.add_argument("--no-progress", action="store_true", help="hide the progress bar")
    p.add_argument(
        "--record",
        type=path_arg,
        default=None,
        metavar="DIR",
        help="write game records (JSON lines, for experiments.replay) of the first --record-games games of each "
        "lineup to DIR (with --backend ray the workers write them: use a folder every node can reach)",
    )
    p.add_argument(
        "--record-games",
        type=int,
        default=None,
        metavar="N",
        help="with --record: games recorded per lineup (default: 1)",
    )
    p.add_argument(
        "--resummarize",
        type=path_arg,
        default=None,
        metavar="GAMES.csv",
        help="play nothing: write the summary of a tournament's games.csv (or NAME-games.csv) anew with "
        "today's code, as summary.csv (NAME-summary.csv) beside it; the head-to-head CSV, summary.json "
        "and figures beside it too when they exist",
    )
    args = p.parse_args(argv)
    if args.resummarize is not None:
        # the other flags set up games to play: given with it they would be silently ignored
        defaults = vars(p.parse_args([]))
        given = [k for k, v in vars(args).items() if k != "resummarize" and v != defaults[k]]
        if given:
            flags = ", ".join("--" + k.replace("_", "-") for k in given)
            p.error(f"--resummarize plays no game and takes no other option (got {flags})")
        args.parser = p
        return args
    if args.record_games is not None and args.record is None:
        p.error("--record-games goes with --record DIR (the folder the records are written to)")
    args.record_games = 1 if args.record_games is None else args.record_games
    if args.record_games < 0:
        p.error(f"--record-games must be >= 0, got {args.record_games}")
    if args.deals is not None and args.deals <= 0:
        p.error(f"--deals must be a positive integer, got {args.deals}")
    if args.deals is not None and args.deals > MAX_DEALS:
        # the chunks of work are listed up front: a huge count would fill the memory before a game is played
        p.error(f"--deals {args.deals} is more than {MAX_DEALS:,} deals per lineup (days of play on a cluster)")
    if refusal := seed_refusal("--seed", args.seed):  # the deals' seeds are drawn from it: any size
        p.error(refusal)
    if args.address is not None and args.backend != "ray":
        p.error("--address goes with --backend ray")
    refuse_unreachable_address(p, args.address, uses_ray=args.backend == "ray")
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
    if args.resummarize is not None:
        return _resummarize(args)
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
        # the folders are made now: a bad path must fail before the games, not after them,
        # and both are checked before either is made (a refused one leaves no empty other)
        if args.record:
            check_folder(args.record, "--record")
            # records this run would not replace would stay beside its own, and its
            # summary.json would name a mixed folder (the same run again replaces them all)
            mine = record_names(chunks)
            other = sorted(p.name for p in args.record.glob("*.jsonl") if p.name not in mine)
            if other:
                more = f" and {len(other) - 1} more" if len(other) > 1 else ""
                raise ValueError(
                    f"--record {str(args.record)!r} holds game records this run would not replace "
                    f"({other[0]}{more}): give a new or empty folder"
                )
        if args.out is not None:
            check_folder(args.out, "--out")
        made = [Path(f) for f in (args.record, args.out) if f is not None and not Path(f).exists()]
        out = output_folder(args.out, "tournament", job="tournament")  # before --record's: may refuse
        if args.record:
            output_folder(args.record, "record", what="--record")
        made += [out] if args.out is None else []
    except ValueError as err:
        args.parser.error(str(err))
    start = time.perf_counter()
    recorded_before = {p.name for p in args.record.glob("*.jsonl")} if args.record else set()
    if args.record:  # the workers write the records: a quit at once removes what they left half written
        PART_FOLDERS.add(str(args.record))
    with StopRequest("tournament", "no new deal starts; writing the games finished") as stop:
        try:
            if args.backend == "ray":
                records = run_ray(chunks, args.address, progress=not args.no_progress, stop=stop)
            else:
                records = run_local(chunks, args.workers, progress=not args.no_progress, stop=stop)
        except RayUnreachableError as err:
            take_back_empty(made)
            args.parser.error(str(err))
        except AgentActionError as err:
            # a broken agent: the records this run wrote before it go, and the folders it made
            for name in record_names(chunks) - recorded_before if args.record else ():
                (args.record / name).unlink(missing_ok=True)
                (args.record / f"{name}.part").unlink(missing_ok=True)  # a write cut short by the stop
            take_back_empty(made)
            # Ray raises the worker's error wrapped with its traceback: its cause is the one line
            print(f"{args.parser.prog}: error: {getattr(err, 'cause', None) or err}", file=sys.stderr)
            return 1
    elapsed = time.perf_counter() - start
    planned: dict[str, int] = defaultdict(int)
    for c in chunks:
        planned[f"{c.variant}: {' vs '.join(c.lineup)}"] += c.count
    played: dict[str, set] = defaultdict(set)
    for r in records:
        played[f"{r['variant']}: {r['lineup']}"].add(r["deal"])
    meta = {
        "variants": args.variants,
        "deals_per_lineup": {k: len(played[k]) for k in planned} if stop.requested else dict(planned),
        "seed": args.seed,
        "env_options": args.env_options,
        "backend": args.backend,
        "workers": args.workers if args.backend == "local" else None,
        "games": len(records),
        "record_dir": str(args.record.resolve()) if args.record else None,  # which records are this run's
        "seconds": round(elapsed, 2),
        "partial": stop.requested,
    }
    if stop.requested:
        meta["planned_deals_per_lineup"] = dict(planned)
    rows = summarize(records)
    pairs = head_to_head(records)
    write_results(out, records, rows, meta, pairs)
    write_matrix(out, pairs)
    if rows:
        print(format_table(rows, {r["variant"]: len(r["seats"]) for r in records}))
        print(format_matrix(pairs))
    where = f"{args.workers} worker(s)" if args.backend == "local" else "Ray"
    if stop.requested:
        planned_games = sum(c.count * len(c.lineup) for c in chunks)
        print(stop.kept(f"the {len(records)} of {planned_games} games finished in {out}/ (summary.json: partial)"))
        return stop.exit_code
    print(f"\n{len(records)} games in {elapsed:.1f} s on {where}; results in {out}/")
    print("(an agent's 'games' counts the seats it played: one per game, or more when a lineup seats it twice)")
    return 0


def _resummarize(args: argparse.Namespace) -> int:
    """``--resummarize GAMES.csv``: the summary written anew from the games, and printed."""
    try:
        done = resummarize(args.resummarize)
    except ValueError as err:
        args.parser.error(str(err))
    records = done["records"]
    print(format_table(done["summary"], {r["variant"]: len(r["seats"]) for r in records}))
    print(format_matrix(done["head_to_head"]))
    print(f"\n{len(records)} games of {args.resummarize}; written: {', '.join(str(p) for p in done['written'])}")
    return 0
