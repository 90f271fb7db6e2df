"""Speed of the environments: decision steps per second and reset time.

    python -m experiments.benchmark                          # every variant, 10 s each
    python -m experiments.benchmark --variant rummy --seconds 20 --env-option num_players=4

    python -m experiments.benchmark --variant gin_rummy --compare   # vs OpenSpiel and RLCard
    python -m experiments.benchmark --vector --seconds 3            # the batched engines (benchmark.vector)

Random legal play through ``<variant>.env()`` (PettingZoo's wrapper chain included):
at every decision the acting agent's observation and action mask are read with
``env.last()`` and a legal action is drawn uniformly with numpy.  Reported: decision
steps per second (finished agents' ``step(None)`` calls are not counted), mean steps
per episode, and the mean time of ``env.reset(seed=...)``.  Figures are measured here,
on purpose, never asserted in tests.

``--compare`` (Gin Rummy only) measures, in the same process and run, the same random
legal play in OpenSpiel's ``gin_rummy`` (``observation_tensor()`` and
``legal_actions()`` read at every decision; chance outcomes, the deal and the draws
from the stock, are sampled and not counted as steps; reset = ``new_initial_state()``
plus the deal) and in RLCard's ``gin-rummy`` env used directly (its ``step`` returns
the next state's observation and legal actions; reset = ``env.reset()``), and prints
the ratios.  Both come with the ``bench`` extra: ``pip install -e ".[bench]"``.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

import rummy_env
from experiments.common import load_variant


def measure_env(make_env: Callable[[], Any], seconds: float, seed: int = 0) -> dict[str, float]:
    """Random legal play through a PettingZoo AEC env for about ``seconds``.

    A first episode (at most 300 decisions) is played before the clock starts, so that
    compiling the numba kernels (Rummikub's solver: about a minute the first time on a
    fresh machine) is not timed; the timed play stops at ``seconds``, within an episode, and
    makes at least 64 decisions (or one episode) however short ``seconds`` is.

    Returns:
        dict with ``steps_per_s`` (decisions per second), ``steps_per_episode`` (over the
        episodes finished in the window; 0.0 when none did), ``episodes`` and ``reset_us`` (mean microseconds
        per ``reset(seed=...)``).
    """
    env = make_env()
    rng = np.random.default_rng(seed)
    _random_play(env, rng, time.perf_counter() + 3600.0, 300)  # compiles what the env compiles
    steps = episodes = finished_steps = 0
    start = time.perf_counter()
    while True:  # at least one episode's start, however short the window
        played, done = _random_play(env, rng, start + seconds)
        steps += played
        if done:
            episodes += 1
            finished_steps += played
        if time.perf_counter() - start >= seconds:
            break
    elapsed = time.perf_counter() - start
    resets = 2000
    t0 = time.perf_counter()
    for i in range(resets):
        env.reset(seed=i)
    reset_us = (time.perf_counter() - t0) / resets * 1e6
    return {
        "steps_per_s": steps / elapsed,
        "steps_per_episode": finished_steps / max(1, episodes),
        "episodes": episodes,
        "reset_us": reset_us,
    }


def _random_play(env: Any, rng: np.random.Generator, deadline: float, most: int | None = None) -> tuple[int, bool]:
    """One episode of uniformly random legal moves from a new reset, until it ends, the
    ``perf_counter`` passes ``deadline`` or ``most`` decisions are made: ``(decisions,
    whether the episode ended)``."""
    env.reset(seed=int(rng.integers(1 << 31)))
    steps = 0
    for _agent in env.agent_iter():
        obs, _reward, termination, truncation, _info = env.last()
        if termination or truncation:
            env.step(None)
            continue
        # the clock is read every 64 decisions, never before the first: a window shorter than
        # a decision still times 64 of them (it timed none and printed 0 steps/s)
        if (most is not None and steps >= most) or (steps and steps % 64 == 0 and time.perf_counter() > deadline):
            return steps, False
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(legal.size)]))
        steps += 1
    return steps, True


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
        per_episode = f"{r['steps_per_episode']:.1f}" if r["episodes"] else "-"  # none finished in the window
        out.append(f"{r['what']:<44} {r['steps_per_s']:>10,.0f} {per_episode:>14} {r['reset_us']:>11.1f}")
    return "\n".join(out)


def measure_openspiel_gin(seconds: float, seed: int = 0) -> dict[str, float]:
    """Random legal play in OpenSpiel's ``gin_rummy`` for about ``seconds`` (whole episodes, at
    least one).

    At every decision the acting player's ``observation_tensor()`` and the
    ``legal_actions()`` are read and an action is drawn uniformly with numpy.  Chance
    nodes (the deal, every draw from the stock) get a uniform outcome and are not
    counted as steps; their time counts.

    Returns:
        the same keys as :func:`measure_env`; ``reset_us`` is the mean time of
        ``new_initial_state()`` plus the deal up to the first decision.
    """
    import pyspiel

    game = pyspiel.load_game("gin_rummy")
    rng = np.random.default_rng(seed)
    steps = episodes = 0
    reset_time = 0.0
    start = time.perf_counter()
    while True:  # at least one episode, however short the window (as measure_env)
        t0 = time.perf_counter()
        state = game.new_initial_state()
        while state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(outcomes[rng.integers(len(outcomes))][0])
        reset_time += time.perf_counter() - t0
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()
                state.apply_action(outcomes[rng.integers(len(outcomes))][0])
                continue
            state.observation_tensor(state.current_player())
            legal = state.legal_actions()
            state.apply_action(legal[rng.integers(len(legal))])
            steps += 1
        episodes += 1
        if time.perf_counter() - start >= seconds:
            break
    elapsed = time.perf_counter() - start
    return {
        "steps_per_s": steps / elapsed,
        "steps_per_episode": steps / episodes,
        "episodes": episodes,
        "reset_us": reset_time / episodes * 1e6,
    }


def measure_rlcard_gin(seconds: float, seed: int = 0) -> dict[str, float]:
    """Random legal play in RLCard's ``gin-rummy`` env (used directly) for about ``seconds``
    (whole episodes, at least one).

    ``env.step`` returns the next player's state (its ``obs`` array and
    ``legal_actions``); an action is drawn uniformly among the legal ones with numpy.

    Returns:
        the same keys as :func:`measure_env`; ``reset_us`` is the mean time of ``env.reset()``.
    """
    import rlcard

    env = rlcard.make("gin-rummy", config={"seed": seed})
    rng = np.random.default_rng(seed)
    steps = episodes = 0
    reset_time = 0.0
    start = time.perf_counter()
    while True:  # at least one episode, however short the window (as measure_env)
        t0 = time.perf_counter()
        state, _player = env.reset()
        reset_time += time.perf_counter() - t0
        while not env.is_over():
            legal = list(state["legal_actions"])
            state, _player = env.step(legal[rng.integers(len(legal))])
            steps += 1
        episodes += 1
        if time.perf_counter() - start >= seconds:
            break
    elapsed = time.perf_counter() - start
    return {
        "steps_per_s": steps / elapsed,
        "steps_per_episode": steps / episodes,
        "episodes": episodes,
        "reset_us": reset_time / episodes * 1e6,
    }


def compare_gin(seconds: float, seed: int, options: dict[str, Any]) -> list[dict[str, Any]]:
    """Rows for ``--compare``: ours, OpenSpiel's and RLCard's Gin Rummy, in this process.

    Raises:
        ValueError: OpenSpiel or RLCard is not installed (the ``bench`` extra).
    """
    try:
        import pyspiel  # noqa: F401
        import rlcard  # noqa: F401
    except ImportError as err:
        raise ValueError(f'--compare needs OpenSpiel and RLCard: pip install -e ".[bench]" ({err})') from None
    module = load_variant("gin_rummy_v0")
    label = f"rummy_env gin_rummy_v0.env({', '.join(f'{k}={val!r}' for k, val in options.items())})"
    return [
        {"what": label, **measure_env(lambda: module.env(**options), seconds, seed)},
        {"what": "OpenSpiel gin_rummy", **measure_openspiel_gin(seconds, seed)},
        {"what": "RLCard gin-rummy", **measure_rlcard_gin(seconds, seed)},
    ]


def format_ratios(rows: Sequence[dict[str, Any]]) -> str:
    """Our decision steps/s over each other row's, and the reset times."""
    ours = rows[0]
    return "\n".join(
        f"ours / {r['what']}: {ours['steps_per_s'] / r['steps_per_s']:.2f}x decision steps/s, "
        f"reset {ours['reset_us']:.1f} us vs {r['reset_us']:.1f} us"
        for r in rows[1:]
    )
