"""How long numba takes to compile the batched engines and the searches from a cold cache.

    python -m experiments.dev.compile_times

Runs a child process with an empty ``NUMBA_CACHE_DIR`` (a temporary folder, removed after)
that compiles, in this order, and times: the batched engines of Gin Rummy, basic Rummy (3
players) and Crazy Rummy (3 players) on one thread (512 games: reset, 30 random steps, the
opponents' moves), the same engines' ``prange`` drivers (2 threads), ``RummikubVec`` (2
players, one thread, 64 games: reset, 60 random steps, the opponents' moves; its masks are
the solver's sweeps) and the env's own Rummikub masks (``rummikub_v0``, one hand of 60 draws
and plays), and the first seven ``pimc`` decisions of one hand of each card variant's
``env()``.  Prints the seconds of each step.  The test suite pays these times on a fresh
machine; they are measured here, never asserted.  Numba compiles a function once per
argument type, so a kernel function called with a new type (an unsigned index, a literal,
another dtype) is compiled again.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time

import numpy as np

CARD_ENGINES = (("GinRummyVec", {}), ("RummyVec", {"num_players": 3}), ("CrazyRummyVec", {"num_players": 3}))


def _child() -> None:
    import rummy_env.vector as vector
    from agents import make_agent
    from rummy_env import crazy_rummy_v0, gin_rummy_v0, rummikub_v0, rummy_v0

    for threads, backend in ((1, "threads"), (2, "prange")):
        for name, options in CARD_ENGINES:
            start = time.perf_counter()
            vec = getattr(vector, name)(512, seed=0, num_threads=threads, backend=backend, **options)
            vec.reset()
            for _ in range(30):
                vec.step_random()
            vec.step_opponents(np.zeros(512, np.int64))
            vec.close()
            print(f"{name} {backend} on {threads} thread(s): {time.perf_counter() - start:.1f} s")
    start = time.perf_counter()
    vec = vector.RummikubVec(64, seed=0, num_threads=1)
    vec.reset()
    for _ in range(60):
        vec.step_random()
    vec.step_opponents(np.zeros(64, np.int64))
    print(f"RummikubVec on 1 thread: {time.perf_counter() - start:.1f} s")
    start = time.perf_counter()
    env = rummikub_v0.env()
    env.reset(seed=3)
    rng = np.random.default_rng(0)
    for _ in range(60):
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            break
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    print(f"rummikub_v0 masks, 60 random steps: {time.perf_counter() - start:.1f} s")
    for module in (gin_rummy_v0, rummy_v0, crazy_rummy_v0):
        start = time.perf_counter()
        env = module.env()
        env.reset(seed=3)
        agent = make_agent("pimc", env, seed=0)
        for i, _ in enumerate(env.agent_iter()):
            obs, _, term, trunc, info = env.last()
            if term or trunc or i >= 7:
                break
            env.step(agent.act(obs, info))
        print(f"{module.__name__.split('.')[-1]} pimc, first decisions: {time.perf_counter() - start:.1f} s")


def main(argv: list[str] | None = None) -> int:
    """Time the compiles in a child process with a cold numba cache."""
    p = argparse.ArgumentParser(
        prog="python -m experiments.dev.compile_times",
        description="Seconds numba takes to compile the batched engines and the searches from a cold cache.",
    )
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)  # the timed process itself
    if p.parse_args(argv).child:
        _child()
        return 0
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "RUMMY_ENV_QUIET_COMPILE": "1"}
        start = time.perf_counter()
        done = subprocess.run([sys.executable, "-m", "experiments.dev.compile_times", "--child"], env=env)
        print(f"total: {time.perf_counter() - start:.1f} s")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
