"""Evaluation and learning curves of ``experiments.selfplay`` runs.

python -m experiments.selfplay_report results/selfplay-gin     # redraw curve.png from eval.csv
"""

from __future__ import annotations

import csv
import sys
from collections.abc import Sequence
from pathlib import Path

from agents import agent_names


def evaluate(model_path: Path, variant: str, env_options: dict, deals: int, workers: int, seed: int) -> list[dict]:
    """Win rates (95% Wilson intervals counted per deal) of the saved policy against the
    heuristic (if the variant has one) and the random agent, on the tournament's
    duplicate deals (each deal played once per seat rotation), with ``reward="win"``.

    Returns:
        one dict per opponent: ``opponent``, ``games``, ``wins``, ``draws``, ``win_rate``,
        ``win_rate_ci_low``, ``win_rate_ci_high``.
    """
    from experiments import tournament

    opponents = sorted(agent_names(variant), key=lambda name: name != "heuristic")
    return tournament.evaluate_against_baselines(
        f"policy:{Path(model_path).resolve()}", variant, env_options, deals, workers, seed, opponents
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


def write_curve(out: Path, title: str | None = None) -> Path:
    """``curve.png``: win rate (95% interval band) against each opponent by wall-clock
    minutes (left) and env steps (right), from ``eval.csv``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = read_eval(out)
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), sharey=True)
    for opponent in dict.fromkeys(r["opponent"] for r in rows):
        sel = [r for r in rows if r["opponent"] == opponent]
        for ax, key in zip(axes, ("minutes", "steps"), strict=True):
            x = [r[key] for r in sel]
            ax.plot(x, [r["win_rate"] for r in sel], marker=".", label=f"vs {opponent}")
            ax.fill_between(x, [r["ci_low"] for r in sel], [r["ci_high"] for r in sel], alpha=0.2)
    for ax, label in zip(axes, ("training wall-clock minutes", "env steps (decisions of both seats)"), strict=True):
        ax.axhline(0.5, color="grey", lw=0.8, ls="--")
        ax.set_xlabel(label)
        ax.set_ylim(0, 1)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel("win rate (duplicate deals)")
    axes[0].legend(loc="lower right")
    fig.suptitle(title or out.name)
    fig.tight_layout()
    path = out / "curve.png"
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m experiments.selfplay_report RUN_FOLDER", file=sys.stderr)
        return 2
    print(write_curve(Path(args[0])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
