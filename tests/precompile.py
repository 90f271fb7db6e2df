"""Compile the numba kernels the tests use into numba's on-disk cache, one variant family per
call: ``python -m tests.precompile gin_rummy rummikub``.

Why: on a fresh machine (CI) each pytest-xdist worker compiles every kernel its tests call,
so two workers compile most kernels twice; ``tests/conftest.py`` runs this in two processes
before the workers start, and the workers then load the kernels from the cache.  Each family
plays a little of what the tests play (the batched engine on one thread, worker threads and
``prange``; ``env()`` with the search and the champion), so that the kernels are compiled
with the argument types the tests give them.
"""

from __future__ import annotations

import sys

import numpy as np

from agents import make_agent


def _vec(cls, **options) -> None:
    backends = ["threads"] if cls.__name__ == "RummikubVec" else ["threads", "prange"]  # its masks: threads only
    for threads, backend in [(1, "threads")] + [(2, b) for b in backends]:
        vec = cls(8, seed=0, num_threads=threads, backend=backend, **options)
        vec.reset()
        for _ in range(20):
            vec.step_random()
        vec.step_opponents(np.zeros(8, np.int64))
        vec.close()


def _decisions(module, agents: tuple[str, ...], steps: int = 4, **options) -> None:
    env = module.env(**options)
    env.reset(seed=0)
    players = {name: make_agent(name, env, seed=0) for name in agents}
    for i, _ in enumerate(env.agent_iter()):
        obs, _, term, trunc, info = env.last()
        if term or trunc or i >= steps * len(agents):
            break
        env.step(players[agents[i % len(agents)]].act(obs, info))


def gin_rummy() -> None:
    from rummy_env import gin_rummy_v0
    from rummy_env.vector import GinRummyVec

    _vec(GinRummyVec)
    _decisions(gin_rummy_v0, ("pimc", "champion"))


def rummy() -> None:
    from rummy_env import rummy_v0
    from rummy_env.vector import RummyVec

    _vec(RummyVec, num_players=3)
    _decisions(rummy_v0, ("pimc", "champion"))


def crazy_rummy() -> None:
    from rummy_env import crazy_rummy_v0
    from rummy_env.vector import CrazyRummyVec

    _vec(CrazyRummyVec, num_players=3)
    _decisions(crazy_rummy_v0, ("pimc", "champion", "heuristic"))


def rummikub() -> None:
    from rummy_env import rummikub_v0
    from rummy_env.vector import RummikubVec

    _vec(RummikubVec)
    _decisions(rummikub_v0, ("heuristic", "pimc"), steps=30)


FAMILIES = {"gin_rummy": gin_rummy, "rummy": rummy, "crazy_rummy": crazy_rummy, "rummikub": rummikub}

if __name__ == "__main__":
    for family in sys.argv[1:]:
        FAMILIES[family]()
