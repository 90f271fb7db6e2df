"""The self-play trainer's speed, phase by phase: ``python -m experiments.benchmark --selfplay gin``.

Runs the trainer of :mod:`experiments.selfplay` with a recipe's settings (its network, its
games, its opponents; the teacher labels and evaluations left out) for a warm-up update
(compiling the kernels) and then ``--updates`` updates, and reports env steps per second
of wall time and per CPU second (all threads') with the time split into the phases the
trainer logs: simulation, features, inference, the opponents' moves and the PPO update.
"""

from __future__ import annotations

import time
from typing import Any


def measure_selfplay(recipe: str, updates: int = 5, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """Time ``updates`` rollouts and updates of a run with ``recipe``'s settings.

    Args:
        recipe: a recipe name or path (``experiments/recipes``).
        updates: updates to time after one warm-up update.
        overrides: settings replacing the recipe's (e.g. ``{"torch_threads": 2}``).

    Returns:
        dict: ``steps``, ``wall_s``, ``cpu_s``, ``steps_per_s`` (wall), ``steps_per_cpu_s``,
        ``phases_s`` (seconds per phase: sim, features, inference, heuristic, update) and
        ``settings`` (the network's and the batch's).
    """
    import dataclasses

    from experiments.common import load_variant, resolve_variant
    from experiments.selfplay import Config, Learner
    from experiments.selfplay.config import load_recipe
    from experiments.selfplay.learner import NOT_TRAINING
    from experiments.selfplay.opponents import Opponents
    from experiments.selfplay.rollout import RECENT, collect
    from experiments.selfplay.run import make_vec
    from experiments.selfplay.update import ppo_update

    settings = {**load_recipe(recipe), **(overrides or {})}
    settings.pop("teacher_labels", None)
    settings.pop("teacher_margin", None)
    settings["variant"] = resolve_variant(settings.get("variant", "gin_rummy"))
    if "hidden" in settings:
        settings["hidden"] = tuple(settings["hidden"])
    cfg = Config(**{k: v for k, v in settings.items() if k in {f.name for f in dataclasses.fields(Config)}})
    learner = Learner(cfg)
    opponents = Opponents(learner, load_variant(cfg.variant).env(**cfg.env_options))
    vec = make_vec(cfg, 0)
    opponents.bind(vec)
    batch = vec.reset()
    recent = dict.fromkeys(RECENT, 0)

    def one() -> None:
        nonlocal batch
        buf, batch = collect(learner, opponents, vec, batch, recent)
        t = time.perf_counter()
        ppo_update(learner, vec, buf, batch)
        learner.timers["update"] += time.perf_counter() - t

    one()  # compiles the kernels and warms the caches
    learner.timers = dict.fromkeys(learner.timers, 0.0)
    steps0 = learner.steps
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(updates):
        one()
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    steps = learner.steps - steps0
    vec.close()
    return {
        "steps": steps,
        "wall_s": wall,
        "cpu_s": cpu,
        "steps_per_s": steps / wall,
        "steps_per_cpu_s": steps / cpu,
        "phases_s": {k: round(v, 3) for k, v in learner.timers.items() if k not in NOT_TRAINING},
        "settings": {
            "variant": cfg.variant,
            "features": cfg.features,
            "hidden": list(cfg.hidden),
            "input_size": learner.input_size,
            "num_envs": cfg.num_envs,
            "num_steps": cfg.num_steps,
            "minibatch_size": cfg.minibatch_size,
            "update_epochs": cfg.update_epochs,
            "torch_threads": cfg.torch_threads,
        },
    }


def format_selfplay(r: dict[str, Any]) -> str:
    """The measurement as text: the speeds and each phase's share and steps/s."""
    s = r["settings"]
    total = sum(r["phases_s"].values()) or 1.0
    lines = [
        f"{s['variant']}: MLP {s['input_size']}-{'-'.join(map(str, s['hidden']))}, {s['num_envs']} games x "
        f"{s['num_steps']} steps per update, minibatch {s['minibatch_size']}, {s['update_epochs']} epochs, "
        f"{s['torch_threads']} torch thread(s)",
        f"  {r['steps']} env steps in {r['wall_s']:.1f} s: {r['steps_per_s']:,.0f} steps/s "
        f"({r['steps_per_cpu_s']:,.0f} per CPU second)",
    ]
    for phase, seconds in r["phases_s"].items():
        rate = f"{r['steps'] / seconds:,.0f} steps/s" if seconds > 0 else "-"
        lines.append(f"  {phase:<10} {seconds:8.2f} s {seconds / total:6.1%}  ({rate} if it were alone)")
    return "\n".join(lines)
