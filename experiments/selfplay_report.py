"""Evaluation, logs and learning curves of ``experiments.selfplay`` runs.

python -m experiments.selfplay_report results/selfplay-gin     # redraw curve.png from eval.csv
"""

from __future__ import annotations

import csv
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any

from agents import agent_names
from experiments.common import new_figure


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
        minutes: training minutes so far; ``steps``, ``updates``: the run's counters.
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
                "win_rate": round(r["win_rate"], 4),
                "ci_low": round(r["win_rate_ci_low"], 4),
                "ci_high": round(r["win_rate_ci_high"], 4),
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


def write_curve(out: Path, title: str | None = None) -> Path:
    """``curve.png``: win rate (95% interval band) against each opponent by wall-clock
    minutes (left) and env steps (right), from ``eval.csv``."""
    rows = read_eval(out)
    fig = new_figure(figsize=(10, 3.8))
    axes = fig.subplots(1, 2, sharey=True)
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
    return path


#: the counts of the learner's training games logged with each update (reset after each row)
RECENT = ("heuristic_games", "heuristic_wins", "duplicate_same", "random_games", "random_wins")


class RunRecords:
    """The run's logs: ``eval.csv`` rows, ``scalars.csv`` rows, ``summary.json``'s numbers.

    A mixin of ``experiments.selfplay.Trainer``: it reads the trainer's ``cfg``, ``out``,
    counters, ``timers``, ``recent`` and ``pool``.
    """

    def evaluate_now(self, evaluate, deals: int, path: Path | None = None, final: bool = False) -> list[dict]:
        """Win rates of the current policy on duplicate deals; one ``eval.csv`` row per opponent.
        Its time is counted in ``timers["eval"]``, not in the training's steps/s."""
        from tqdm import tqdm

        t0 = time.perf_counter()
        if path is None:
            (self.out / "snapshots").mkdir(exist_ok=True)
            path = self.save_model(self.out / "snapshots" / f"model-{self.steps:011d}.pt")
        rows = evaluate(path, self.cfg.variant, self.cfg.env_options, deals, self.cfg.eval_workers, self.cfg.seed + 1)
        seconds = time.perf_counter() - t0
        self.timers["eval"] += seconds
        append_eval(self.out, rows, self.elapsed_now() / 60, self.steps, self.updates, final)
        tqdm.write(
            f"[{self.elapsed_now() / 60:.1f} min, {self.steps} steps] "
            + ", ".join(f"vs {r['opponent']} {r['win_rate']:.3f} [{r['win_rate_ci_low']:.3f}]" for r in rows)
            + f" ({seconds:.0f} s)"
        )
        return rows

    def log_scalars(self, stats: dict[str, float]) -> None:
        """One ``scalars.csv`` row per update."""
        total = sum(self.timers.values()) or 1.0
        row = {
            "minutes": round(self.elapsed_now() / 60, 3),
            "steps": self.steps,
            "learner_steps": self.learner_steps,
            "updates": self.updates,
            "episodes": self.episodes,
            **{k: round(v, 5) for k, v in stats.items()},
            "sim_share": round(self.timers["sim"] / total, 4),
            "inference_share": round(self.timers["inference"] / total, 4),
            "features_share": round(self.timers["features"] / total, 4),
            "heuristic_share": round(self.timers["heuristic"] / total, 4),
            "update_share": round(self.timers["update"] / total, 4),
            "eval_share": round(self.timers["eval"] / total, 4),
            "pool": len(self.pool),
            "train_win_vs_heuristic": round(self.recent["heuristic_wins"] / max(1, self.recent["heuristic_games"]), 4),
            "train_games_vs_heuristic": self.recent["heuristic_games"],
            "train_win_vs_random": round(self.recent["random_wins"] / max(1, self.recent["random_games"]), 4),
            # with --duplicate-baseline: share of those games the learner scored as the heuristic did on the deck
            "duplicate_same": round(self.recent["duplicate_same"] / max(1, self.recent["heuristic_games"]), 4),
        }
        self.recent = dict.fromkeys(RECENT, 0)
        append_csv(self.out / "scalars.csv", [row])

    def summary(self, final: list[dict]) -> dict[str, Any]:
        """The run in numbers: steps, time, speeds, time shares, final evaluation."""
        train_s = sum(v for k, v in self.timers.items() if k != "eval")
        return {
            "config": asdict(self.cfg),
            "steps": self.steps,
            "learner_steps": self.learner_steps,
            "updates": self.updates,
            "episodes": self.episodes,
            "minutes": round(self.elapsed / 60, 2),
            "timers_s": {k: round(v, 1) for k, v in self.timers.items()},
            "steps_per_s_training": round(self.steps / max(train_s, 1e-9)),
            "sim_share_of_training": round(self.timers["sim"] / max(train_s, 1e-9), 3),
            "evaluation": final,
        }


def main(argv: Sequence[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m experiments.selfplay_report RUN_FOLDER", file=sys.stderr)
        return 2
    print(write_curve(Path(args[0])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
