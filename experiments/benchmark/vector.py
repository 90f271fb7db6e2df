"""Speed of the batched engines (``rummy_env.vector``), side by side with ``env()``.

    python -m experiments.benchmark --vector --seconds 3
    python -m experiments.benchmark.vector --seconds 3 --num-envs 1024 8192 --threads 2

Random legal play with ``vec.step_random()``: every step draws the actions inside the
kernel and writes every game's observation (float32) and action mask (int8), as an RL
rollout reads them.  Counted: decisions, i.e. game steps that applied an action (the
autoreset steps that deal a new hand are not counted, their time is).  Reported per
row: decisions per second of wall time, decisions per CPU second (all threads'), the
ratio to ``env()`` measured in the same run, the reset cost per game (``vec.reset()``
of the whole batch, divided) and the memory per game (simulator state plus the output
batch).  On a shared machine the wall-clock figures are lower bounds; the CPU-second
figure says what one quiet core does.

Rummikub (``RummikubVec``) is measured the same way, with two differences: its rows also
split the time per decision into mask, step and observation (``RummikubVec.timings``),
and the batch first plays ``--warmup-hands`` env() hands' worth of steps (the mean hand
length env() just measured; 3 by default) before the timed window, so that its games are
spread over every phase of a hand as env()'s whole hands are (a mask costs more as the
table fills: a window over fresh deals alone would flatter the batch).  One hand's worth is
not enough: the games, dealt together, are then still bunched in their first hand's late
phase, and the window's figure depends on how far a row gets (2026-12-06, 2,048 games:
after one hand's worth, 3 s windows, 19.0k decisions/s on one thread and 51.9k on two; after
three or six, 5 s windows, 22.3k-24.0k and 38.6k-46.1k over four runs;
``docs/results/vector-speed/``).  Its default batch sizes
(``RUMMIKUB_NUM_ENVS``) are smaller than the card games' and stop at 2048: a decision
costs tens of microseconds, its mask anything from 10 us to 10 ms, and with 256 games a
step waits on its costliest mask and pays its Python overhead for few decisions (two
threads: 1.4x the decisions/s at 2048 games, docs/results.md "Batch size").
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Sequence
from typing import Any

import numba
import numpy as np

from experiments.benchmark.envs import measure_env
from experiments.common import batch_size, description, parse_env_options, positive_int
from experiments.common.argv import seed_refusal
from experiments.common.interrupt import TermAsInterrupt
from rummy_env.vector.batch import MAX_SEED

VARIANTS = {
    "gin_rummy": "GinRummyVec",
    "rummy": "RummyVec",
    "crazy_rummy": "CrazyRummyVec",
    "rummikub": "RummikubVec",
}
NUM_ENVS = [1, 64, 1024, 8192]
RUMMIKUB_NUM_ENVS = [1, 16, 64, 256, 2048]


def vec_class(variant: str) -> Any:
    """The batched engine of ``"gin_rummy"``, ``"rummy"``, ``"crazy_rummy"`` or ``"rummikub"``.

    Raises:
        ValueError: another variant.
    """
    name = VARIANTS.get(variant.removesuffix("_v0"))
    if name is None:
        raise ValueError(f"no batched engine for {variant!r}: use one of {', '.join(VARIANTS)}")
    import rummy_env.vector

    return getattr(rummy_env.vector, name)


def measure_vector(
    variant: str,
    num_envs: int,
    threads: int,
    seconds: float,
    seed: int = 0,
    options: dict | None = None,
    warmup_steps: int = 3,
) -> dict[str, float]:
    """Random legal play in a batch of ``num_envs`` games for about ``seconds``, after
    ``warmup_steps`` untimed steps.

    Returns:
        dict with ``decisions_per_s`` (wall), ``decisions_per_cpu_s``, ``episodes``,
        ``threads`` (used: a batch below 128 games per thread runs serially),
        ``reset_us_per_game`` and ``bytes_per_game``; for an engine with ``timings``
        (Rummikub) also ``mask_us``, ``step_us`` and ``observation_us`` per decision.
    """
    vec = vec_class(variant)(num_envs, seed=seed, num_threads=threads, **(options or {}))
    batch = vec.reset()
    for _ in range(max(3, warmup_steps)):  # compiled already (cache); touch the buffers
        batch = vec.step_random()
    timings = getattr(vec, "timings", None)
    if timings is not None:
        for key in timings:
            timings[key] = 0.0
    pending = batch.terminated | batch.truncated
    decisions = episodes = 0
    calls = 0
    wall, cpu = time.perf_counter(), time.process_time()
    while True:
        batch = vec.step_random()
        decisions += num_envs - int(pending.sum())
        pending = batch.terminated | batch.truncated
        episodes += int(pending.sum())
        calls += 1
        if calls % 8 == 0 and time.perf_counter() - wall >= seconds:
            break
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    split = {f"{key}_us": value / max(decisions, 1) * 1e6 for key, value in (timings or {}).items()}
    resets = max(3, (20000 if timings is None else 2000) // num_envs)
    t0 = time.perf_counter()
    for _ in range(resets):
        vec.reset()
    reset_us = (time.perf_counter() - t0) / resets / num_envs * 1e6
    out_bytes = sum(a.nbytes for a in batch) // num_envs
    return {
        "decisions_per_s": decisions / wall,
        "decisions_per_cpu_s": decisions / max(cpu, 1e-9),
        "episodes": episodes,
        "threads": vec.threads_used(),
        "reset_us_per_game": reset_us,
        "bytes_per_game": vec.state_bytes_per_game() + out_bytes,
        **split,
    }


def run(
    variants: Sequence[str],
    num_envs: Sequence[int],
    threads: Sequence[int],
    seconds: float,
    seed: int = 0,
    env_seconds: float | None = None,
    warmup_hands: float = 3.0,
    rows: list[dict[str, Any]] | None = None,
) -> list[dict[str, Any]]:
    """The table rows: per variant, ``env()`` then every (num_envs, threads) batch
    (``num_envs`` empty: the variant's default sizes), appended to ``rows`` if given (so
    that a caller stopped by Ctrl-C keeps the rows measured)."""
    rows = [] if rows is None else rows
    for variant in variants:
        module = __import__(f"rummy_env.{variant}_v0", fromlist=["env"])
        ref = measure_env(lambda module=module: module.env(), env_seconds or seconds, seed)
        warmup = int(warmup_hands * ref["steps_per_episode"]) if variant == "rummikub" else 3
        rows.append(
            {
                "variant": variant,
                "engine": "env()",
                "num_envs": 1,
                "threads": 1,
                "decisions_per_s": ref["steps_per_s"],
                "decisions_per_cpu_s": float("nan"),
                "vs_env": 1.0,
                "reset_us_per_game": ref["reset_us"],
                "bytes_per_game": float("nan"),
            }
        )
        sizes = num_envs or (RUMMIKUB_NUM_ENVS if variant == "rummikub" else NUM_ENVS)
        for n in sizes:
            used: set[int] = set()
            for t in threads:
                # a batch too small for t threads runs on fewer: that row may be measured already
                probe = vec_class(variant)(n, seed=seed, num_threads=t)
                runs_on = probe.threads_used()
                probe.close()
                if runs_on in used:
                    continue
                used.add(runs_on)
                r = measure_vector(variant, n, t, seconds, seed, warmup_steps=warmup)
                rows.append(
                    {
                        "variant": variant,
                        "engine": VARIANTS[variant],
                        "num_envs": n,
                        **r,
                        "vs_env": r["decisions_per_s"] / ref["steps_per_s"],
                    }
                )
    return rows


def format_table(rows: Sequence[dict[str, Any]]) -> str:
    """The rows as a Markdown table."""
    split = any("mask_us" in r for r in rows)
    out = [
        "| variant | engine | num_envs | threads | decisions/s (wall) | decisions/CPU-s | x env() "
        "| reset us/game | bytes/game |" + (" mask us | step us | observation us |" if split else ""),
        "|---|---|---:|---:|---:|---:|---:|---:|---:|" + ("---:|---:|---:|" if split else ""),
    ]
    for r in rows:
        cpu = "" if np.isnan(r["decisions_per_cpu_s"]) else f"{r['decisions_per_cpu_s']:,.0f}"
        mem = "" if np.isnan(r["bytes_per_game"]) else f"{r['bytes_per_game']:,.0f}"
        line = (
            f"| {r['variant']} | {r['engine']} | {r['num_envs']} | {r['threads']} | {r['decisions_per_s']:,.0f} "
            f"| {cpu} | {r['vs_env']:.1f} | {r['reset_us_per_game']:.2f} | {mem} |"
        )
        if split:
            parts = [r.get(f"{key}_us") for key in ("mask", "step", "observation")]
            line += "".join(" |" if v is None else f" {v:.1f} |" for v in parts)
        out.append(line)
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m experiments.benchmark.vector", description=description(__doc__))
    p.add_argument("--variant", nargs="+", default=list(VARIANTS), choices=list(VARIANTS))
    p.add_argument(
        "--num-envs",
        nargs="+",
        type=batch_size,
        default=None,
        help=f"batch sizes (default: {NUM_ENVS}; Rummikub {RUMMIKUB_NUM_ENVS})",
    )
    p.add_argument(
        "--warmup-hands",
        type=float,
        default=3.0,
        help="Rummikub: untimed batch steps before the window, in env() hand lengths (default: 3)",
    )
    p.add_argument(
        "--threads", nargs="+", type=positive_int, default=[1, 2], help="numba threads per row (default: 1 2)"
    )
    p.add_argument("--seconds", type=float, default=3.0, help="seconds of play per row (default: 3)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--env-option", action="append", default=[], metavar="KEY=VALUE", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    # --num-envs and --threads are checked by their types; NaN passed the comparisons
    if not (args.seconds > 0 and math.isfinite(args.seconds)):
        p.error(f"--seconds must be a positive finite number of seconds per row, got {args.seconds}")
    if not (args.warmup_hands >= 0 and math.isfinite(args.warmup_hands)):
        p.error(f"--warmup-hands must be a finite number >= 0 of env() hand lengths, got {args.warmup_hands}")
    if refusal := seed_refusal("--seed", args.seed, MAX_SEED, "the batched engines take 64-bit seeds"):
        p.error(refusal)
    if max(args.threads) > numba.config.NUMBA_NUM_THREADS:
        p.error(f"--threads {max(args.threads)}: at most {numba.config.NUMBA_NUM_THREADS} (numba's NUMBA_NUM_THREADS)")
    if parse_env_options(args.env_option):
        p.error("--vector measures the default options (num_players=2 for rummy, 3 for crazy_rummy)")
    print(
        f"numba {numba.__version__}, {numba.config.NUMBA_NUM_THREADS} threads available; "
        f"{args.seconds:g} s of random legal play per row, observation and mask written every step"
    )
    rows: list[dict[str, Any]] = []
    with TermAsInterrupt() as stop:
        try:
            run(args.variant, args.num_envs or [], args.threads, args.seconds, args.seed, None, args.warmup_hands, rows)
        except KeyboardInterrupt:
            print(f"benchmark.vector: stopped ({stop.name}); the {len(rows)} rows measured:", file=sys.stderr)
            if rows:
                print(format_table(rows))
            return stop.exit_code
    print(format_table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
