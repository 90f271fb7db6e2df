"""Speed of the Rummikub solver on realistic mid-game positions.

    python -m experiments.dev.bench_rummikub_solver                  # 300 positions
    python -m experiments.dev.bench_rummikub_solver --positions 1000 --seed 1
    python -m experiments.dev.bench_rummikub_solver --no-numba       # pure-Python path
    python -m experiments.dev.bench_rummikub_solver --milp 0         # skip the ILP comparison
    python -m experiments.dev.bench_rummikub_solver --worst          # the kept worst cases, every option
    python -m experiments.dev.bench_rummikub_solver --worst --search 200 --seed 3   # and look for new ones
    python -m experiments.dev.bench_rummikub_solver --worst --climb 100 --seed 3    # hill-climb on time
    python -m experiments.dev.bench_rummikub_solver --worst --clock thread          # CPU time, shared machine
    python -m experiments.dev.bench_rummikub_solver --worst --first-step --no-numba # first-step calls only

Positions: a table of 30-60 tiles made of random valid melds (runs of 3-7, groups of 3-4,
each with two chances of 0.05 of a tile replaced by a joker, so about three tables in five
hold a joker), and a rack of 8-20 tiles drawn from the tiles left (jokers included).

Measured (wall clock, one call at a time, memo cache cleared before each call; with
``--repeat k`` the fastest of k timings of each call, which filters out interference
from other processes on a shared machine):

* ``extension_mask`` and ``ordered_extension_mask`` as the env calls them while a player
  builds a play after the initial meld (R-RK-08): first with nothing chosen, then after
  each tile added, the tile drawn uniformly among those the ordered mask allows,
  stopping with probability 0.15 per tile or when no tile is allowed;
* ``extension_mask`` before the initial meld (R-RK-07, rack only, 30 points);
* ``is_legal_play`` (the COMMIT check) on every play built above;
* ``best_play`` (points objective) after the initial meld;
* ``can_partition`` against the integer program of den Hertog & Hulshof solved by
  ``scipy.optimize.milp`` on the same multisets (table + a random half of the rack):
  answers must agree, and the ratio of times is printed.

With ``--worst`` the kept worst cases of ``experiments.dev.rummikub_worst_cases`` are timed in
every option combination (after the initial meld, before it rack only, before it with
table play) for each operation the env or the heuristic agent calls, against issue 16's
targets (50 ms for the masks and ``is_legal_play``, 250 ms for ``best_play``, with numba;
20x for pure Python); ``--search N`` adds N random dense / long-rack / jokers /
duplicates positions and prints the slowest one found for each operation; ``--climb N``
hill-climbs N changes on time from the kept positions and from three random ones and
prints the slowest position each climb reached (``rummikub_worst_cases.climb``).

Figures are measured, never asserted.  The first call of the compiled kernel (numba,
when installed) is timed separately: it compiles or loads the on-disk cache.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time

import numpy as np


def _parse(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(
        prog="python -m experiments.dev.bench_rummikub_solver",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--positions", type=int, default=300, help="positions to generate (default 300)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument(
        "--milp",
        type=int,
        default=60,
        help="positions also solved by the ILP (default 60)",
    )
    ap.add_argument("--no-numba", action="store_true", help="use the pure-Python sweep")
    ap.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="time each mask/legal call this many times and keep the fastest (default 1)",
    )
    ap.add_argument("--worst", action="store_true", help="time the kept worst cases in every option combination")
    ap.add_argument("--search", type=int, default=0, help="with --worst: also search this many random positions")
    ap.add_argument("--climb", type=int, default=0, help="with --worst: hill-climb this many changes per start")
    ap.add_argument(
        "--first-step",
        action="store_true",
        help="with --worst: only the calls of a turn's first step (nothing chosen; the whole rack)",
    )
    ap.add_argument(
        "--clock",
        choices=("wall", "thread"),
        default="wall",
        help="with --worst: wall time (default) or the thread's CPU time (leaves out other processes on the core)",
    )
    return ap.parse_args(argv)


def worst(args: argparse.Namespace) -> int:
    """``--worst``: the kept worst cases (and ``--search``) against the targets."""
    from experiments.dev import rummikub_worst_cases as wc
    from rummy_env.core.rummikub_solver import kernel as solver_kernel

    if args.clock == "thread":
        wc.CLOCK = time.thread_time
    kernel = solver_kernel._kernel()
    wc.warm_up()
    factor = 1.0 if kernel else 20.0
    print(f"# Rummikub solver worst cases: numba kernel {'yes' if kernel else 'no (pure Python, targets x20)'}")
    print(
        f"# fastest of {max(args.repeat, 1)} timing(s) per mask/legal call, caches cleared before each; "
        f"clock: {'thread CPU time' if args.clock == 'thread' else 'wall'}; "
        f"{'first-step calls only' if args.first_step else 'every step of two built plays'}"
    )
    slowest: dict[tuple[str, str], tuple[float, str]] = {}
    for name, table, rack in wc.kept_positions():
        timed = wc.time_first_step if args.first_step else wc.time_position
        for key, dt in timed(table, rack, args.repeat).items():
            if dt > slowest.get(key, (0.0, ""))[0]:
                slowest[key] = (dt, name)
    print()
    print(f"{'options':20s} {'operation':14s} {'max ms':>9s} {'target':>8s}  slowest kept position")
    for (opt, op), (dt, name) in sorted(slowest.items()):
        target = wc.TARGET_MS[op] * factor
        flag = "" if dt * 1000 <= target else "  OVER"
        print(f"{opt:20s} {op:14s} {dt * 1000:9.1f} {target:8.0f}  {name}{flag}")
    if args.search:
        print()
        print(f"# search: {args.search} random positions, seed {args.seed}; slowest found per operation")
        for dt, opt, op, table, rack in wc.search(args.search, args.seed, args.repeat):
            print(f"{dt * 1000:9.1f} ms  {opt:20s} {op:14s} table [{table}] rack [{rack}]")
    if args.climb:
        from rummy_env.core.tiles import counts_str

        print()
        print(
            f"# climb: {args.climb} changes per start, seed {args.seed}; cost = time / target of the slowest first step"
        )
        rng = np.random.default_rng(args.seed)
        starts = [(name, (t, r)) for name, t, r in wc.kept_positions()]
        starts += [(f"random {k}", wc.random_position(rng)) for k in range(3)]
        for k, (name, start) in enumerate(starts):
            cost, opt, op, table, rack = wc.climb(args.climb, args.seed + k, start, args.repeat)
            print(f"{cost:6.2f}  {opt:20s} {op:14s} from {name}: table [{counts_str(table)}] rack [{counts_str(rack)}]")
    return 0


def random_position(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(table, rack) count vectors, shape (53,), int64."""
    from experiments.dev.rummikub_oracle import random_rack, random_table  # after main() chose the solver path

    table = random_table(rng, int(rng.integers(30, 61)), joker_p=0.05)
    return table, random_rack(rng, table, int(rng.integers(8, 21)))


def _best_of(repeat: int, call, solver) -> float:
    """Fastest of ``repeat`` timings of ``call()``, the memo caches cleared before each."""
    from experiments.dev.rummikub_worst_cases import best_time

    return best_time(repeat, call)


def _stats(times: list[float]) -> str:
    ms = np.asarray(times) * 1000
    return (
        f"{len(ms):6d} {np.median(ms):9.3f} {np.mean(ms):9.3f} {np.percentile(ms, 90):9.3f} "
        f"{np.percentile(ms, 99):9.3f} {ms.max():9.3f}"
    )


def main(argv: list[str] | None = None) -> int:
    args = _parse(argv)
    if args.no_numba:
        os.environ["RUMMY_ENV_NO_NUMBA"] = "1"
    if args.worst:
        return worst(args)
    t0 = time.perf_counter()
    from rummy_env.core import rummikub_solver as solver
    from rummy_env.core.rummikub_solver import kernel as solver_kernel

    import_s = time.perf_counter() - t0
    zero = np.zeros(53, dtype=np.int64)
    t0 = time.perf_counter()
    kernel = solver_kernel._kernel()
    solver.can_partition(zero)
    first_s = time.perf_counter() - t0

    rng = np.random.default_rng(args.seed)
    positions = [random_position(rng) for _ in range(args.positions)]
    mask_t, mask_first_t, mask_chosen_t, ord_t = [], [], [], []
    pre_t, legal_t, best_t = [], [], []
    plays = []
    for table, rack in positions:
        chosen = zero.copy()
        while True:
            dt = _best_of(
                args.repeat,
                lambda t=table, r=rack, c=chosen: solver.extension_mask(t, r, c, True),
                solver,
            )
            mask_t.append(dt)
            (mask_chosen_t if chosen.any() else mask_first_t).append(dt)
            ord_t.append(
                _best_of(
                    args.repeat,
                    lambda t=table, r=rack, c=chosen: solver.ordered_extension_mask(t, r, c, True),
                    solver,
                )
            )
            # the env's next tile: one the ordered mask allows
            legal = np.flatnonzero(solver.ordered_extension_mask(table, rack, chosen, True))
            if chosen.any():
                plays.append((table, rack, chosen.copy()))
            if legal.size == 0 or rng.random() < 0.15:
                break
            chosen[rng.choice(legal)] += 1
        pre_t.append(
            _best_of(
                args.repeat,
                lambda t=table, r=rack: solver.extension_mask(t, r, zero, False, 30),
                solver,
            )
        )
        best_t.append(
            _best_of(
                1,
                lambda t=table, r=rack: solver.best_play(t, r, True, "points"),
                solver,
            )
        )
    legal_count = 0
    for table, rack, play in plays:
        legal_t.append(
            _best_of(
                args.repeat,
                lambda t=table, r=rack, p=play: solver.is_legal_play(t, r, p, True),
                solver,
            )
        )
        legal_count += solver.is_legal_play(table, rack, play, True)

    print(
        f"# Rummikub solver benchmark: python {platform.python_version()}, {platform.machine()}, "
        f"numba kernel: {'yes' if kernel else 'no (pure Python)'}"
    )
    print(
        f"# {args.positions} positions (table 30-60 tiles, rack 8-20), seed {args.seed}, "
        f"fastest of {max(args.repeat, 1)} timing(s) per mask/legal call"
    )
    print(f"# import {import_s * 1000:.0f} ms; first solver call (kernel compile/cache load) {first_s * 1000:.0f} ms")
    print()
    print(
        f"{'operation (times in ms)':44s} {'calls':>6s} {'median':>9s} {'mean':>9s} {'p90':>9s} {'p99':>9s} {'max':>9s}"
    )
    print(f"{'extension_mask after initial meld, all':44s} {_stats(mask_t)}")
    print(f"{'  of which nothing chosen yet':44s} {_stats(mask_first_t)}")
    print(f"{'  of which 1+ tiles chosen':44s} {_stats(mask_chosen_t)}")
    print(f"{'ordered_extension_mask, same calls':44s} {_stats(ord_t)}")
    print(f"{'extension_mask before initial meld (30)':44s} {_stats(pre_t)}")
    print(f"{'is_legal_play (COMMIT), partial plays':44s} {_stats(legal_t)}")
    print(f"{'best_play points, after initial meld':44s} {_stats(best_t)}")
    print(f"# is_legal_play: {legal_count} of {len(plays)} partial plays legal")

    if args.milp > 0:
        try:
            import scipy  # noqa: F401

            from experiments.dev import rummikub_oracle as oracle
        except ImportError:
            print("# scipy not installed: ILP comparison skipped")
            return 0
        dp_t, ilp_t = [], []
        agree = feasible = 0
        for table, rack in positions[: args.milp]:
            half = rack * (rng.random(53) < 0.5)
            counts = np.minimum(table + half, 2)
            t0 = time.perf_counter()
            a = solver.can_partition(counts)
            dp_t.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            b = oracle.milp_can_partition(counts)
            ilp_t.append(time.perf_counter() - t0)
            agree += a == b
            feasible += a
        print()
        print(f"{'can_partition (DP)':44s} {_stats(dp_t)}")
        print(f"{'scipy.optimize.milp (HiGHS), same multisets':44s} {_stats(ilp_t)}")
        ratio_median = np.median(ilp_t) / np.median(dp_t)
        ratio_total = np.sum(ilp_t) / np.sum(dp_t)
        print(
            f"# agree {agree}/{len(dp_t)} ({feasible} partitionable); ILP/DP time ratio: "
            f"median {ratio_median:.0f}x, total {ratio_total:.0f}x"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
