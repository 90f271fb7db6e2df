"""Resident memory of one process over many random env steps (the solver's cache budget).

    python -m experiments.dev.rss_plateau --players 2 --steps 2000000          # rummikub_v0
    python -m experiments.dev.rss_plateau --players 4 --steps 2000000 --every 100000
    python -m experiments.dev.rss_plateau --variant rummy --steps 300000        # another variant
    python -m experiments.dev.rss_plateau --budget-mb 8 --option initial_meld_table_play=true

Plays uniformly random legal actions through the PettingZoo AEC env (a new seeded deal
after every episode) and prints, every ``--every`` steps, the resident set size of the
process (``/proc/self/statm``; the peak from ``getrusage`` where /proc is missing), the
peak so far, and for Rummikub what the solver's caches hold by their own estimate
(``rummy_env.core.rummikub_solver.cache_info``).  Lines are flushed as they come, so an
interrupted run still leaves its curve.  Figures are measured, never asserted.
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time

import numpy as np

from experiments.common import load_variant, parse_env_options, resolve_variant


def rss_mb() -> float:
    """Current resident set size of this process in MB (2**20 bytes)."""
    try:
        with open("/proc/self/statm") as f:
            pages = int(f.read().split()[1])
        return pages * os.sysconf("SC_PAGE_SIZE") / 2**20
    except OSError:
        return peak_rss_mb()


def peak_rss_mb() -> float:
    """Peak resident set size of this process in MB (Linux reports KiB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 2**10


def _parse(argv):
    ap = argparse.ArgumentParser(
        prog="python -m experiments.dev.rss_plateau",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ap.add_argument("--variant", default="rummikub_v0")
    ap.add_argument("--players", type=int, default=2)
    ap.add_argument("--steps", type=int, default=300_000)
    ap.add_argument("--every", type=int, default=50_000, help="report every this many steps (default 50000)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--budget-mb", type=float, default=None, help="solver cache budget in MB (default: the solver's)")
    ap.add_argument("--option", action="append", default=[], help="env option key=value (repeatable)")
    return ap.parse_args(argv)


def main(argv=None) -> int:
    args = _parse(argv)
    variant = resolve_variant(args.variant)
    options = parse_env_options(args.option)
    options["num_players"] = args.players
    info = None
    if variant == "rummikub_v0":
        from rummy_env.core import rummikub_solver as solver

        if args.budget_mb is not None:
            solver.set_cache_budget(args.budget_mb)
        info = solver.cache_info
        print(f"# solver cache budget {solver.cache_budget_mb():.1f} MB", flush=True)
    env = load_variant(variant).env(**options)
    rng = np.random.default_rng(args.seed)
    print(f"# {variant} {options}, seed {args.seed}; rss at start {rss_mb():.1f} MB", flush=True)
    print("steps  seconds  rss_mb  peak_mb  cache_mb  cache_entries", flush=True)
    steps = 0
    next_report = args.every
    t0 = time.perf_counter()
    while steps < args.steps:
        env.reset(seed=int(rng.integers(1 << 31)))
        for _agent in env.agent_iter():
            obs, _reward, termination, truncation, _info = env.last()
            if termination or truncation:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(legal.size)]))
            steps += 1
            if steps >= next_report:
                next_report += args.every
                held = info() if info else {}
                mb = sum(v[1] for v in held.values())
                entries = sum(v[0] for v in held.values())
                print(
                    f"{steps} {time.perf_counter() - t0:.0f} {rss_mb():.1f} {peak_rss_mb():.1f} {mb:.1f} {entries}",
                    flush=True,
                )
            if steps >= args.steps:
                break
    return 0


if __name__ == "__main__":
    sys.exit(main())
