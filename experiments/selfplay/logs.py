"""Evaluation, logs and learning curves of ``experiments.selfplay`` runs.

python -m experiments.selfplay.logs results/selfplay-gin     # redraw curve.png from eval.csv
"""

from __future__ import annotations

import csv
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path, PurePath
from typing import Any

from agents import agent_names
from agents.search import quote_option, split_options
from experiments.common import new_figure, save_figure
from experiments.selfplay.config import eval_opponents
from experiments.selfplay.learner import NOT_TRAINING


def evaluate(
    model_path: Path,
    variant: str,
    env_options: dict,
    deals: int,
    workers: int,
    seed: int,
    progress: bool = False,
    stop: Any = None,
    opponents: Sequence[str] | None = None,
    backend: str = "local",
    address: str | None = None,
) -> list[dict]:
    """Win rates (95% Wilson intervals counted per deal) of the saved policy against each
    opponent (by default the variant's heuristic and the random agent), on the tournament's
    duplicate deals, the policy in one seat and the opponent in the others
    (:func:`experiments.evaluate.evaluate`), with ``reward="win"``; ``workers``, ``backend``
    and ``address`` say where the games run (:func:`experiments.common.parallel.run_tasks`).

    Returns:
        one dict per opponent: ``opponent``, ``games``, ``deals``, ``wins``, ``draws``,
        ``win_rate``, ``win_rate_ci_low``, ``win_rate_ci_high``, points per hand.
    """
    from experiments.evaluate import evaluate as against

    if opponents is None:
        opponents = sorted(agent_names(variant), key=lambda name: name != "heuristic")
    options = {k: v for k, v in env_options.items() if k != "reward"}
    agent = f"policy:{Path(model_path).resolve()}"
    result, _ = against(
        agent, variant, options, deals, seed, opponents, workers, backend, address, progress=progress, stop=stop
    )
    return result["rows"]


def append_csv(path: Path, rows: Sequence[dict]) -> None:
    """Append ``rows`` to a CSV file, writing the header (the first row's keys) if it is new."""
    if not rows:
        return
    new = not path.exists()
    with open(path, "a", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        if new:
            w.writeheader()
        w.writerows(rows)


def append_eval(out: Path, rows: Sequence[dict], minutes: float, steps: int, updates: int, final: bool) -> None:
    """One ``eval.csv`` row per opponent of an :func:`evaluate` result.

    Args:
        out: the run's folder.
        rows: :func:`evaluate`'s rows.
        minutes: training minutes so far (evaluations not counted); ``steps``, ``updates``: the
            run's counters.
        final: the evaluation of the saved ``model.pt``.
    """
    fixed = {"minutes": round(minutes, 3), "steps": steps, "updates": updates, "final": int(final)}
    append_csv(
        out / "eval.csv",
        [
            {
                **fixed,
                "opponent": r["opponent"],
                "games": r["games"],
                # unrounded: a figure printed at 3 decimals from a 4-decimal copy could differ in
                # its last digit from the same figure printed during training (0.32049 -> 0.321)
                "win_rate": r["win_rate"],
                "ci_low": r["win_rate_ci_low"],
                "ci_high": r["win_rate_ci_high"],
            }
            for r in rows
        ],
    )


def read_eval(out: Path) -> list[dict]:
    """The rows of ``eval.csv`` with numbers parsed."""
    with open(out / "eval.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    for r in rows:
        for k in ("minutes", "win_rate", "ci_low", "ci_high"):
            r[k] = float(r[k])
        for k in ("steps", "updates", "final", "games"):
            r[k] = int(r[k])
    return rows


def fair_share(out: Path) -> float:
    """An equal share of the wins, ``1 / seats``, of the run in ``out`` (its ``recipe.toml``:
    variant and ``num_players``); 0.5 without a readable recipe."""
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib
    try:
        with open(out / "recipe.toml", "rb") as f:
            recipe = tomllib.load(f)
        from experiments.common import load_variant

        env = load_variant(recipe["variant"]).env(**recipe.get("env_options", {}))
        return 1.0 / len(env.possible_agents)
    except (OSError, KeyError, ValueError, tomllib.TOMLDecodeError):
        return 0.5


def _folder_and_file(path: str) -> str:
    parts = PurePath(path)
    return f"{parts.parent.name}/{parts.name}" if parts.parent.name else parts.name


def short_spec(spec: str) -> str:
    """An agent spec with each file path in it cut to its folder and file names, for a
    legend: ``policy:/home/me/runs/league/model.pt`` -> ``policy:league/model.pt``,
    ``pimc:guide=/x/y/model.pt,prior=0.05`` -> ``pimc:guide=y/model.pt,prior=0.05``, a
    value that needs them kept in double quotes (``guide="/x/a,b/model.pt"`` ->
    ``guide="a,b/model.pt"``).  The files keep the whole spec (``eval.csv``,
    ``exploit.json``)."""
    kind, colon, rest = spec.partition(":")
    if not colon or not rest:
        return spec
    if kind in ("policy", "rllib"):  # everything after the colon is one path, commas included
        return f"{kind}:{_folder_and_file(rest)}" if "/" in rest else spec
    try:  # options as the search agents split them: a quoted value may hold commas
        items = split_options(rest, spec)
    except ValueError:  # not a spec an agent takes: shown whole
        return spec
    return f"{kind}:" + ",".join(
        f"{key}={quote_option(_folder_and_file(value))}" if "=" in item and "/" in value else item
        for item, key, value in items
    )


def write_curve(out: Path, title: str | None = None) -> Path:
    """``curve.png``: win rate (95% interval band) against each opponent by training minutes
    (left; the evaluations' own time is not counted) and env steps (right), from ``eval.csv``,
    with a dashed line at an equal share of the wins (:func:`fair_share`: 1/2, or 1/3 for
    three seats, ...).  The legend names an opponent by :func:`short_spec`.

    Drawn on a :class:`matplotlib.figure.Figure` without pyplot, so a notebook's backend is
    left alone."""
    fair = fair_share(out)
    rows = read_eval(out)
    fig = new_figure(figsize=(10, 3.8))
    axes = fig.subplots(1, 2, sharey=True)
    for opponent in dict.fromkeys(r["opponent"] for r in rows):
        sel = [r for r in rows if r["opponent"] == opponent]
        for ax, key in zip(axes, ("minutes", "steps"), strict=True):
            x = [r[key] for r in sel]
            ax.plot(x, [r["win_rate"] for r in sel], marker=".", label=f"vs {short_spec(opponent)}")
            ax.fill_between(x, [r["ci_low"] for r in sel], [r["ci_high"] for r in sel], alpha=0.2)
    for ax, label in zip(axes, ("training minutes", "env steps (decisions of every seat)"), strict=True):
        ax.axhline(fair, color="grey", lw=0.8, ls="--")
        ax.set_xlabel(label)
        ax.set_ylim(0, 1)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("win rate (duplicate deals)")
    axes[0].legend(loc="lower right")
    fig.suptitle(title or out.name)
    fig.tight_layout()
    path = out / "curve.png"
    save_figure(fig, path)
    return path


def evaluate_now(
    learner: Any,
    out: Path,
    deals: int,
    path: Path | None = None,
    final: bool = False,
    stop=None,
    progress: bool = True,
) -> list[dict]:
    """Win rates of the current policy on duplicate deals; one ``eval.csv`` row per opponent.

    Its time is counted in ``learner.timers["eval"]``, not in the training minutes.

    Args:
        learner: the run's learner.
        out: the run's folder (a snapshot ``snapshots/model-<steps>.pt`` is written there
            unless ``path`` names the model to evaluate).
        deals: deals per opponent, each played once per seat rotation.
        path: the model file to evaluate (the final ``model.pt``).
        final: whether this is the final evaluation (``eval.csv``'s ``final`` column).
        stop: a :class:`~experiments.common.interrupt.StopRequest`; after a stop the rows are
            not written (a partial evaluation is no figure) and ``[]`` is returned.
        progress: show the final evaluation's progress (``--no-progress`` turns it off).
    """
    from tqdm import tqdm

    t0 = time.perf_counter()
    if path is None:
        (out / "snapshots").mkdir(exist_ok=True)
        path = learner.save_model(out / "snapshots" / f"model-{learner.steps:011d}.pt")
    tqdm.write(f"evaluating {'the final model' if final else 'a snapshot'} on {deals} duplicate deals per opponent ...")
    cfg = learner.cfg
    rows = evaluate(
        path,
        cfg.variant,
        cfg.env_options,
        deals,
        cfg.eval_workers,
        cfg.seed + 1,
        final and progress,
        stop,
        eval_opponents(cfg),
        cfg.backend,
        cfg.address or None,
    )
    seconds = time.perf_counter() - t0
    learner.timers["eval"] += seconds
    if stop is not None and stop.requested:
        return []
    append_eval(out, rows, learner.training_minutes(), learner.steps, learner.updates, final)
    tqdm.write(
        f"[{learner.training_minutes():.1f} training min, {learner.steps} steps] "
        + ", ".join(
            f"vs {r['opponent']} {r['win_rate']:.3f} [{r['win_rate_ci_low']:.3f}, {r['win_rate_ci_high']:.3f}]"
            for r in rows
        )
        + f" ({seconds:.0f} s)"
    )
    return rows


def scalars_row(learner: Any, stats: dict[str, float], recent: dict[str, int]) -> dict[str, Any]:
    """One ``scalars.csv`` row: the counters, the update's statistics, the time shares and the
    learner's results in its training games since the last row (``recent`` is then reset)."""
    timers = learner.timers
    shares = ("sim", "inference", "features", "heuristic", "update", "eval")
    # the checkpoints' seconds stay out, as before they were timed: the columns sum to 1 and a
    # resumed run's rows keep the header its first rows wrote
    total = sum(timers[k] for k in shares) or 1.0
    row = {
        "minutes": round(learner.training_minutes(), 3),
        "steps": learner.steps,
        "learner_steps": learner.learner_steps,
        "updates": learner.updates,
        "episodes": learner.episodes,
        **{k: round(v, 5) for k, v in stats.items()},
        **{f"{k}_share": round(timers[k] / total, 4) for k in shares},
        "pool": len(learner.pool),
        "train_win_vs_heuristic": round(recent["heuristic_wins"] / max(1, recent["heuristic_games"]), 4),
        "train_games_vs_heuristic": recent["heuristic_games"],
        "train_win_vs_random": round(recent["random_wins"] / max(1, recent["random_games"]), 4),
        "train_win_vs_league": round(recent["league_wins"] / max(1, recent["league_games"]), 4),
        # with --duplicate-baseline: share of those games the learner scored as the heuristic did on the deck
        "duplicate_same": round(recent["duplicate_same"] / max(1, recent["heuristic_games"]), 4),
    }
    for k in recent:
        recent[k] = 0
    return row


def summary(learner: Any, final: list[dict], stopped: bool = False) -> dict[str, Any]:
    """The run in numbers: steps, time, speeds, time shares, final evaluation."""
    timers = learner.timers
    train_s = sum(v for k, v in timers.items() if k not in NOT_TRAINING)
    return {
        "config": asdict(learner.cfg),
        "steps": learner.steps,
        "learner_steps": learner.learner_steps,
        "updates": learner.updates,
        "episodes": learner.episodes,
        "minutes": round(learner.training_minutes(), 3),  # as scalars.csv and eval.csv
        "timers_s": {k: round(v, 1) for k, v in timers.items()},
        "steps_per_s_training": round(learner.steps / max(train_s, 1e-9)),
        "sim_share_of_training": round(timers["sim"] / max(train_s, 1e-9), 3),
        "stopped_early": stopped,
        "evaluation": final,
    }


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m experiments.selfplay.logs RUN_FOLDER", file=sys.stderr)
        return 2
    print(write_curve(Path(args[0])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
