"""The Rummikub solver timed in real hands: ``python -m experiments.benchmark --variant rummikub``."""

from __future__ import annotations

import gc
import time
from collections.abc import Sequence

import numpy as np

from experiments.common import load_variant


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
    the integer-programming oracle (``experiments.dev.rummikub_oracle.milp_can_partition``),
    timed on the same positions.  The oracle needs scipy (the ``test`` extra); without it
    that comparison is left out (``partition_vs_oracle`` holds only ``left_out``, the reason)
    and the timings stand.

    With ``freeze_gc`` the objects that exist after the imports and the warm-up (numba's,
    scipy's: about 100k) are moved out of the garbage collector's scans (``gc.freeze``),
    as latency-sensitive Python programs do; otherwise a full collection (about 40 ms
    here) lands in whichever timed call happens to trigger it.

    Returns:
        dict with ``mask``, ``commit`` (time percentiles, ms), ``env_steps_per_s``
        (decisions per second of env time, agents' thinking excluded),
        ``steps_per_s`` (all included), ``hands``, ``decisions``, ``partition_vs_oracle``.
    """
    import importlib.util

    from agents import make_agent
    from experiments.dev import rummikub_oracle as oracle
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
    have_oracle = importlib.util.find_spec("scipy") is not None
    if have_oracle:
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
    sample = [positions[i] for i in rng.permutation(len(positions))[:oracle_positions]] if have_oracle else []
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
        }
        if sample
        else {"left_out": "it needs scipy: pip install scipy" if not have_oracle else "no positions asked for"},
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
    if "left_out" in pv:
        lines.append(f"partition check vs integer program: left out ({pv['left_out']})")
        return "\n".join(lines)
    lines.append(
        f"partition check vs integer program on {pv['positions']} committed positions: agree "
        f"{pv['agree']}/{pv['positions']}, median {pv['ours_median_ms']:.3f} ms vs "
        f"{pv['oracle_median_ms']:.1f} ms, {pv['speedup_total']:,.0f}x faster in total"
    )
    return "\n".join(lines)
