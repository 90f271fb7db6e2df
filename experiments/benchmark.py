"""Speed of the environments: decision steps per second and reset time.

    python -m experiments.benchmark                          # every variant, 10 s each
    python -m experiments.benchmark --variant rummy --seconds 20 --env-option num_players=4

    python -m experiments.benchmark --variant gin_rummy --compare   # vs OpenSpiel and RLCard
    python -m experiments.benchmark --vector --seconds 3            # the batched engines (bench_vector)

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

import argparse
import gc
import math
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


def measure_openspiel_gin(seconds: float, seed: int = 0) -> dict[str, float]:
    """Random legal play in OpenSpiel's ``gin_rummy`` for about ``seconds``.

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
    while time.perf_counter() - start < seconds:
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
    elapsed = time.perf_counter() - start
    return {
        "steps_per_s": steps / elapsed,
        "steps_per_episode": steps / max(1, episodes),
        "episodes": episodes,
        "reset_us": reset_time / max(1, episodes) * 1e6,
    }


def measure_rlcard_gin(seconds: float, seed: int = 0) -> dict[str, float]:
    """Random legal play in RLCard's ``gin-rummy`` env (used directly) for about ``seconds``.

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
    while time.perf_counter() - start < seconds:
        t0 = time.perf_counter()
        state, _player = env.reset()
        reset_time += time.perf_counter() - t0
        while not env.is_over():
            legal = list(state["legal_actions"])
            state, _player = env.step(legal[rng.integers(len(legal))])
            steps += 1
        episodes += 1
    elapsed = time.perf_counter() - start
    return {
        "steps_per_s": steps / elapsed,
        "steps_per_episode": steps / max(1, episodes),
        "episodes": episodes,
        "reset_us": reset_time / max(1, episodes) * 1e6,
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


def _percentiles(times_s: Sequence[float]) -> dict[str, float]:
    ms = np.asarray(times_s) * 1e3
    return {
        "median_ms": float(np.median(ms)),
        "p99_ms": float(np.percentile(ms, 99)),
        "max_ms": float(ms.max()),
        "n": int(ms.size),
    }


def measure_rummikub(
    hands: int, seed: int = 0, options: dict | None = None, oracle_positions: int = 200, freeze_gc: bool = True
) -> dict:
    """Rummikub's solver in real play: ``hands`` full hands between max-play agents.

    At every decision the legal-tile mask (``ordered_extension_mask``) is timed, and at
    every decision with tiles chosen the COMMIT check (``is_legal_play``), both exactly as
    the engine calls them (memo included).  Each committed position (table + play) is
    kept; up to ``oracle_positions`` of them are then checked by ``can_partition`` and by
    the integer-programming oracle (``experiments.rummikub_oracle.milp_can_partition``),
    timed on the same positions.

    With ``freeze_gc`` the objects that exist after the imports and the warm-up (numba's,
    scipy's: about 100k) are moved out of the garbage collector's scans (``gc.freeze``),
    as latency-sensitive Python programs do; otherwise a full collection (about 40 ms
    here) lands in whichever timed call happens to trigger it.

    Returns:
        dict with ``mask``, ``commit`` (time percentiles, ms), ``env_steps_per_s``
        (decisions per second of env time, agents' thinking excluded),
        ``steps_per_s`` (all included), ``hands``, ``decisions``, ``partition_vs_oracle``.
    """
    from agents import make_agent
    from experiments import rummikub_oracle as oracle
    from rummy_env.core.rummikub_solver import can_partition, is_legal_play, ordered_extension_mask

    module = load_variant("rummikub_v0")
    env = module.env(**(options or {}))
    cfg = env.unwrapped.game.config
    rng = np.random.default_rng(seed)
    # load (or compile) the solver's numba kernel before timing anything
    env.reset(seed=seed)
    warm = env.unwrapped.game_state
    ordered_extension_mask(warm.table, warm.racks[warm.current], warm.chosen, True)
    can_partition(warm.racks[warm.current] * 0)
    oracle.milp_can_partition(warm.racks[warm.current])
    if freeze_gc:
        gc.collect()
        gc.freeze()
    mask_t, commit_t, positions = [], [], []
    env_time = 0.0
    decisions = 0
    start = time.perf_counter()
    for _ in range(hands):
        env.reset(seed=int(rng.integers(1 << 31)))
        players = {a: make_agent("heuristic", env, seed=i) for i, a in enumerate(env.possible_agents)}
        for agent in env.agent_iter():
            state = env.unwrapped.game_state
            if not state.is_terminal():
                p = state.current
                args = (state.table, state.racks[p], state.chosen)
                flags = (state.initial_meld[p], cfg.initial_meld_points, cfg.initial_meld_table_play)
                t0 = time.perf_counter()
                ordered_extension_mask(*args, *flags)
                mask_t.append(time.perf_counter() - t0)
                if state.chosen.any():
                    t0 = time.perf_counter()
                    is_legal_play(*args, *flags)
                    commit_t.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            obs, _, term, trunc, info = env.last()
            env_time += time.perf_counter() - t0
            if term or trunc:
                env.step(None)
                continue
            action = players[agent].act(obs, info)
            if action == module.raw_env.string_to_action("commit"):
                positions.append(state.table + state.chosen)
            t0 = time.perf_counter()
            env.step(action)
            env_time += time.perf_counter() - t0
            decisions += 1
    elapsed = time.perf_counter() - start
    if freeze_gc:
        gc.unfreeze()
    sample = [positions[i] for i in rng.permutation(len(positions))[:oracle_positions]]
    ours, theirs, agree = [], [], 0
    for counts in sample:
        t0 = time.perf_counter()
        a = can_partition(counts)
        ours.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        b = oracle.milp_can_partition(counts)
        theirs.append(time.perf_counter() - t0)
        agree += a == b
    return {
        "hands": hands,
        "decisions": decisions,
        "gc_frozen": freeze_gc,
        "mask": _percentiles(mask_t),
        "commit": _percentiles(commit_t),
        "env_steps_per_s": decisions / env_time,
        "steps_per_s": decisions / elapsed,
        "partition_vs_oracle": {
            "positions": len(sample),
            "agree": agree,
            "ours_median_ms": float(np.median(ours)) * 1e3,
            "oracle_median_ms": float(np.median(theirs)) * 1e3,
            "speedup_total": float(sum(theirs) / sum(ours)),
        },
    }


def format_rummikub(r: dict) -> str:
    """The Rummikub measurement as text."""
    pv = r["partition_vs_oracle"]
    lines = [
        f"{r['hands']} hands between max-play agents, {r['decisions']} decisions"
        + (" (imported objects frozen out of the garbage collector)" if r["gc_frozen"] else ""),
        f"{'':<32} {'median':>9} {'p99':>9} {'max':>9} {'calls':>8}",
    ]
    for name, key in (("legal-tile mask (ms)", "mask"), ("COMMIT check (ms)", "commit")):
        q = r[key]
        lines.append(f"{name:<32} {q['median_ms']:>9.3f} {q['p99_ms']:>9.3f} {q['max_ms']:>9.3f} {q['n']:>8}")
    lines.append(f"decision steps/s: {r['env_steps_per_s']:,.0f} (env only), {r['steps_per_s']:,.0f} (agents included)")
    lines.append(
        f"partition check vs integer program on {pv['positions']} committed positions: agree "
        f"{pv['agree']}/{pv['positions']}, median {pv['ours_median_ms']:.3f} ms vs "
        f"{pv['oracle_median_ms']:.1f} ms, {pv['speedup_total']:,.0f}x faster in total"
    )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m experiments.benchmark", description=__doc__.split("\n\n")[0])
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
        help="the batched engines (rummy_env.vector: gin_rummy, rummy, crazy_rummy) over num_envs and threads, "
        "side by side with env(): see experiments.bench_vector",
    )
    p.add_argument(
        "--hands",
        type=int,
        default=100,
        help="with --variant rummikub: full hands of max-play agents to time the solver on (default: 100)",
    )
    p.add_argument(
        "--no-gc-freeze",
        action="store_true",
        help="with --variant rummikub: time with the imported objects left in the collector's scans",
    )
    args = p.parse_args(argv)
    if not math.isfinite(args.seconds) or args.seconds <= 0:
        p.error(f"--seconds must be a positive number, got {args.seconds}")
    if args.hands <= 0:
        p.error(f"--hands must be a positive integer, got {args.hands}")
    if args.vector:
        from experiments import bench_vector

        forward = ["--seconds", str(args.seconds), "--seed", str(args.seed)]
        if args.variant != "all":
            forward += ["--variant", args.variant.removesuffix("_v0")]
        return bench_vector.main(forward + [f"--env-option={o}" for o in args.env_option])
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
    for v in variants:
        module = load_variant(v)
        label = f"rummy_env {v}.env({', '.join(f'{k}={val!r}' for k, val in options.items())})"
        rows.append(
            {"what": label, **measure_env(lambda module=module: module.env(**options), args.seconds, args.seed)}
        )
    print(format_rows(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
