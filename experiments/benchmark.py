"""Speed of the environments: decision steps per second and reset time.

    python -m experiments.benchmark                          # every variant, 10 s each
    python -m experiments.benchmark --variant rummy --seconds 20 --env-option num_players=4

Random legal play through ``<variant>.env()`` (PettingZoo's wrapper chain included):
at every decision the acting agent's observation and action mask are read with
``env.last()`` and a legal action is drawn uniformly with numpy.  Reported: decision
steps per second (finished agents' ``step(None)`` calls are not counted), mean steps
per episode, and the mean time of ``env.reset(seed=...)``.  Figures are measured here,
on purpose, never asserted in tests.
"""

from __future__ import annotations

import argparse
import platform
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import rummy_env
from experiments.common import load_variant, parse_env_options


def measure_env(make_env: Callable[[], Any], seconds: float, seed: int = 0) -> dict[str, float]:
    """Random legal play through a PettingZoo AEC env for about ``seconds``.

    Returns:
        dict with ``steps_per_s`` (decisions per second), ``steps_per_episode``,
        ``episodes`` and ``reset_us`` (mean microseconds per ``reset(seed=...)``).
    """
    env = make_env()
    rng = np.random.default_rng(seed)
    steps = episodes = 0
    start = time.perf_counter()
    while time.perf_counter() - start < seconds:
        env.reset(seed=int(rng.integers(1 << 31)))
        for _agent in env.agent_iter():
            obs, _reward, termination, truncation, _info = env.last()
            if termination or truncation:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(legal.size)]))
            steps += 1
        episodes += 1
    elapsed = time.perf_counter() - start
    resets = 2000
    t0 = time.perf_counter()
    for i in range(resets):
        env.reset(seed=i)
    reset_us = (time.perf_counter() - t0) / resets * 1e6
    return {
        "steps_per_s": steps / elapsed,
        "steps_per_episode": steps / max(1, episodes),
        "episodes": episodes,
        "reset_us": reset_us,
    }


def variant_name(name: str) -> str:
    """``"rummy"`` or ``"rummy_v0"`` -> ``"rummy_v0"``.

    Raises:
        ValueError: no such variant.
    """
    full = name if name in rummy_env.VARIANTS else f"{name}_v0"
    if full not in rummy_env.VARIANTS:
        raise ValueError(f"unknown variant {name!r}: known variants are {', '.join(rummy_env.VARIANTS)}")
    return full


def format_rows(rows: Sequence[dict[str, Any]]) -> str:
    """The results as a text table."""
    out = [f"{'what':<44} {'steps/s':>10} {'steps/episode':>14} {'reset (us)':>11}"]
    for r in rows:
        out.append(f"{r['what']:<44} {r['steps_per_s']:>10,.0f} {r['steps_per_episode']:>14.1f} {r['reset_us']:>11.1f}")
    return "\n".join(out)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m experiments.benchmark", description=__doc__.split("\n\n")[0])
    p.add_argument("--variant", default="all", help="variant to measure, e.g. rummy or rummy_v0 (default: all)")
    p.add_argument("--seconds", type=float, default=10.0, help="seconds of play per measurement (default: 10)")
    p.add_argument("--env-option", action="append", default=[], metavar="KEY=VALUE", help="an option of env()")
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    if args.seconds <= 0:
        p.error(f"--seconds must be positive, got {args.seconds}")
    try:
        variants = list(rummy_env.VARIANTS) if args.variant == "all" else [variant_name(args.variant)]
        options = parse_env_options(args.env_option)
        for v in variants:
            load_variant(v).env(**options)  # refuse bad options before measuring
    except ValueError as err:
        p.error(str(err))
    print(f"python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}; "
          f"{args.seconds:g} s of random legal play per row, observation and mask read every step")
    rows = []
    for v in variants:
        module = load_variant(v)
        label = f"rummy_env {v}.env({', '.join(f'{k}={val!r}' for k, val in options.items())})"
        rows.append({"what": label, **measure_env(lambda: module.env(**options), args.seconds, args.seed)})
    print(format_rows(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
