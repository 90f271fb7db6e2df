"""The command line of ``python -m experiments.benchmark``."""

from __future__ import annotations

import argparse
import math
import platform
import sys
from collections.abc import Sequence

import numpy as np

import rummy_env
from experiments.benchmark.envs import compare_gin, format_ratios, format_rows, measure_env, variant_name
from experiments.benchmark.rummikub import format_rummikub, measure_rummikub
from experiments.common import batch_size, load_variant, parse_env_options, positive_int
from experiments.common.argv import seed_refusal
from experiments.common.interrupt import TermAsInterrupt


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m experiments.benchmark``: the exit code (130 after Ctrl-C, 143 after SIGTERM,
    with the rows measured so far printed where the job measures rows)."""
    with TermAsInterrupt() as stop:
        try:
            return _main(argv, stop)
        except KeyboardInterrupt:  # --compare, --selfplay, the Rummikub solver's timing: one measurement
            print(f"benchmark: stopped ({stop.name}) before its measurement was complete", file=sys.stderr)
            return stop.exit_code


def _main(argv: Sequence[str] | None, stop: TermAsInterrupt) -> int:
    p = argparse.ArgumentParser(
        prog="python -m experiments.benchmark",
        description="Speed of the environments: decision steps per second and reset time.",
    )
    p.add_argument("--variant", default="all", help="variant to measure, e.g. rummy or rummy_v0 (default: all)")
    p.add_argument("--seconds", type=float, default=10.0, help="seconds of play per measurement (default: 10)")
    p.add_argument("--env-option", action="append", default=[], metavar="KEY=VALUE", help="an option of env()")
    p.add_argument("--seed", type=int, default=0, help="seed of the deals and of the random players (default: 0)")
    p.add_argument(
        "--compare",
        action="store_true",
        help="with --variant gin_rummy: also measure OpenSpiel's and RLCard's Gin Rummy (bench extra)",
    )
    p.add_argument(
        "--vector",
        action="store_true",
        help="the batched engines (rummy_env.vector: gin_rummy, rummy, crazy_rummy, rummikub) over num_envs and "
        "threads, side by side with env(): see experiments.benchmark.vector",
    )
    p.add_argument(
        "--selfplay",
        default=None,
        metavar="RECIPE",
        help="the self-play trainer's steps/s per phase with a recipe's settings (e.g. gin, rummy): "
        "see experiments.benchmark.selfplay",
    )
    p.add_argument("--updates", type=int, default=None, help="with --selfplay: updates timed after a warm-up one (5)")
    p.add_argument(
        "--torch-threads",
        type=positive_int,
        default=None,
        help="with --selfplay: torch threads (default: the recipe's)",
    )
    p.add_argument(
        "--hands",
        type=int,
        default=None,
        help="with --variant rummikub: full hands of max-play agents to time the solver on (default: 100)",
    )
    p.add_argument(
        "--num-envs",
        nargs="+",
        type=batch_size,
        default=None,
        help="with --vector: the batch sizes (default: experiments.benchmark.vector's)",
    )
    p.add_argument(
        "--threads",
        nargs="+",
        type=positive_int,
        default=None,
        help="with --vector: the numba thread counts (default: experiments.benchmark.vector's)",
    )
    p.add_argument(
        "--no-gc-freeze",
        action="store_true",
        help="with --variant rummikub: time with the imported objects left in the collector's scans",
    )
    args = p.parse_args(argv)
    # an upper bound, where a mode has one, is its own (--vector: experiments.benchmark.vector's)
    if refusal := seed_refusal("--seed", args.seed):
        p.error(refusal)
    # a flag of another mode would be ignored: say so instead of measuring something else
    rummikub = args.variant.removesuffix("_v0") == "rummikub" and not (args.vector or args.selfplay or args.compare)
    misplaced = [
        flag
        for flag, given, applies in [
            ("--updates", args.updates is not None, args.selfplay is not None),
            ("--torch-threads", args.torch_threads is not None, args.selfplay is not None),
            ("--variant", args.variant != "all", args.selfplay is None),
            ("--vector", args.vector, args.selfplay is None),
            ("--compare", args.compare, args.selfplay is None and not args.vector),
            ("--hands", args.hands is not None, rummikub),
            ("--no-gc-freeze", args.no_gc_freeze, rummikub),
            ("--num-envs", args.num_envs is not None, args.vector),
            ("--threads", args.threads is not None, args.vector),
        ]
        if given and not applies
    ]
    if misplaced:
        p.error(
            f"{', '.join(misplaced)} do(es) not apply here: --updates and --torch-threads go with --selfplay "
            "(which takes no --variant and no --vector), --hands and --no-gc-freeze with --variant rummikub alone, "
            "--num-envs and --threads with --vector, --compare with neither --vector nor --selfplay"
        )
    args.updates = 5 if args.updates is None else args.updates
    args.hands = 100 if args.hands is None else args.hands
    if not math.isfinite(args.seconds) or args.seconds <= 0:
        p.error(f"--seconds must be a positive number, got {args.seconds}")
    if args.hands <= 0:
        p.error(f"--hands must be a positive integer, got {args.hands}")
    if args.selfplay is not None:
        from experiments.benchmark.selfplay import format_selfplay, measure_selfplay

        if args.updates <= 0:
            p.error(f"--updates must be positive, got {args.updates}")
        overrides = {} if args.torch_threads is None else {"torch_threads": args.torch_threads}
        try:
            print(format_selfplay(measure_selfplay(args.selfplay, args.updates, overrides)))
        except ValueError as err:
            p.error(str(err))
        return 0
    if args.vector:
        from experiments.benchmark import vector

        forward = ["--seconds", str(args.seconds), "--seed", str(args.seed)]
        if args.variant != "all":
            forward += ["--variant", args.variant.removesuffix("_v0")]
        for flag, values in (("--num-envs", args.num_envs), ("--threads", args.threads)):
            if values is not None:
                forward += [flag, *map(str, values)]
        return vector.main(forward + [f"--env-option={o}" for o in args.env_option])
    try:
        variants = list(rummy_env.VARIANTS) if args.variant == "all" else [variant_name(args.variant)]
        options = parse_env_options(args.env_option)
        for v in variants:
            load_variant(v).env(**options)  # refuse bad options before measuring
        if args.compare and variants != ["gin_rummy_v0"]:
            raise ValueError("--compare measures Gin Rummy only: use --variant gin_rummy --compare")
    except ValueError as err:
        p.error(str(err))
    print(
        f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}; "
        f"{args.seconds:g} s of random legal play per row, observation and mask read every step"
    )
    if args.compare:
        try:
            rows = compare_gin(args.seconds, args.seed, options)
        except ValueError as err:
            p.error(str(err))
        print(format_rows(rows))
        print(format_ratios(rows))
        return 0
    if variants == ["rummikub_v0"]:
        result = measure_rummikub(args.hands, args.seed, options, freeze_gc=not args.no_gc_freeze)
        print(format_rummikub(result))
        print()
    rows = []
    try:
        for v in variants:
            module = load_variant(v)
            label = f"rummy_env {v}.env({', '.join(f'{k}={val!r}' for k, val in options.items())})"
            rows.append(
                {"what": label, **measure_env(lambda module=module: module.env(**options), args.seconds, args.seed)}
            )
    except KeyboardInterrupt:  # the rows measured so far are still figures
        print(f"benchmark: stopped ({stop.name}); the {len(rows)} rows measured:", file=sys.stderr)
        if rows:
            print(format_rows(rows))
        return stop.exit_code
    print(format_rows(rows))
    return 0
