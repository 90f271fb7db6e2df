"""The tournament's results: per-agent summary with ratings, the text table, the files.

``experiments.tournament`` plays the games; this module turns their records (one dict per
game: ``variant``, ``lineup``, ``deal``, ``seed``, ``rotation``, ``seats``, ``returns``,
``win_share``, ``points_per_hand``, ``steps``, ``truncated``) into ``summary.csv``,
``summary.json``, ``games.csv``, ``win_rates.png`` and the printed table.
"""

from __future__ import annotations

import csv
import json
import re
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from experiments.common import atomic_open, new_figure, save_figure, wilson_interval


def summarize(records: list[dict]) -> list[dict]:
    """Per (variant, agent): games, wins, win rate and its 95% CI, points per hand, rating.

    ``games`` counts seats played (an agent holding two seats of a game counts twice).
    The 95% interval is Wilson's, counting each deal once: the seat rotations of one deal
    share its cards, and so do the lineups, which all play the same deals
    (:func:`~experiments.tournament.deals.deal_seed`), so none of them are independent
    trials.  In a complete run (every lineup played every deal) the win rate is the mean of
    per-deal means in [0, 1], whose variance is at most ``p(1 - p)``: Wilson's interval on
    the deals is conservative (a stopped run's last deals, missing some lineups, weigh a
    little less than that mean gives them).  The rating is
    OpenSkill's Plackett-Luce, updated game by game in a fixed order.
    """
    from openskill.models import PlackettLuce

    rows = []
    by_variant: dict[str, list[dict]] = defaultdict(list)
    for r in records:
        by_variant[r["variant"]].append(r)
    for variant, games in by_variant.items():
        games.sort(key=lambda r: (r["lineup"], r["deal"], r["rotation"]))
        model = PlackettLuce()
        ratings: dict[str, Any] = {}
        stats: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
        units: dict[str, set] = defaultdict(set)  # the deals each agent played
        for g in games:
            for seat, name in enumerate(g["seats"]):
                units[name].add(g["deal"])  # not (lineup, deal): every lineup is dealt the same cards
                s = stats[name]
                s["games"] += 1
                s["wins"] += g["win_share"][seat]
                s["points"] += g["points_per_hand"][seat]
                s["draws"] += 1 if not any(g["win_share"]) else 0
                ratings.setdefault(name, model.rating(name=name))
            _rate(model, ratings, g)
        for name in sorted(stats):
            s = stats[name]
            n = int(s["games"])
            low, high = wilson_interval(s["wins"] / n, len(units[name]))
            rating = ratings[name]
            rows.append(
                {
                    "variant": variant,
                    "agent": name,
                    "games": n,
                    "wins": round(s["wins"], 3),
                    "draws": int(s["draws"]),
                    "win_rate": s["wins"] / n,
                    "win_rate_ci_low": low,
                    "win_rate_ci_high": high,
                    "points_per_hand": s["points"] / n,
                    "rating_mu": rating.mu,
                    "rating_sigma": rating.sigma,
                    "rating": rating.ordinal(),
                }
            )
    return rows


def _rate(model: Any, ratings: dict[str, Any], game: dict) -> None:
    """One OpenSkill update: each seat a team, ranked by win share; an agent holding
    several seats gets the mean of its seats' updates."""
    seats = game["seats"]
    ranks = [-w for w in game["win_share"]]  # lower rank is better
    new = model.rate([[ratings[name]] for name in seats], ranks=ranks)
    updates: dict[str, list] = defaultdict(list)
    for name, [rating] in zip(seats, new, strict=False):
        updates[name].append(rating)
    for name, rs in updates.items():
        mu = sum(r.mu for r in rs) / len(rs)
        sigma = sum(r.sigma for r in rs) / len(rs)
        ratings[name] = model.rating(mu=mu, sigma=sigma, name=name)


#: The points column per variant: Crazy Rummy's are penalties (R-CRAZY-12), lower is better.
POINTS_LABELS = {"crazy_rummy_v0": "penalty/round"}
DEFAULT_POINTS_LABEL = "pts/hand"


def display_names(names: Sequence[str]) -> dict[str, str]:
    """Short names for the table and the plot (the CSV and JSON keep the full ones).

    ``policy:PATH`` becomes ``policy(<folder>)`` (the folder of a ``model.zip`` or a
    ``model.pt``, the names the training jobs write, else the file's stem),
    ``rllib:PATH`` becomes ``rllib(<run folder>)`` (the folder holding the ``checkpoint``
    folder that ``experiments.train --backend rllib`` writes, else the path's last folder),
    ``package.module:Name``
    becomes ``Name``; other names (``pimc:model=1``, ``heuristic:style=NAME``) stay.
    Names that would coincide keep their full form."""
    from agents.registry import is_import_spec

    short = {}
    for name in names:
        if name.startswith("policy:"):
            path = Path(name[len("policy:") :])
            label = path.parent.name if path.name in ("model.zip", "model.pt") and path.parent.name else path.stem
            short[name] = f"policy({label})"
        elif name.startswith("rllib:"):
            path = Path(name[len("rllib:") :].rstrip("/"))
            short[name] = f"rllib({path.parent.name if path.name == 'checkpoint' and path.parent.name else path.name})"
        elif is_import_spec(name) and not name.startswith("heuristic:"):  # a style is no import path
            short[name] = name.rpartition(":")[2]
        else:
            short[name] = name
    taken = defaultdict(int)
    for label in short.values():
        taken[label] += 1
    return {name: label if taken[label] == 1 else name for name, label in short.items()}


#: the longest line of an agent's label on a plot: a longer one is wrapped (the files keep the names whole)
LABEL_WIDTH = 28


def plot_label(label: str, width: int = LABEL_WIDTH) -> str:
    """``label`` (a :func:`display_names` value) wrapped for a plot's axis: lines of at most
    ``width`` characters, broken after a ``,`` ``:`` ``=`` or ``/`` (a part longer than a line
    is cut).  A name past 60 characters (a search's options, a path two models share the
    folder name of) ran past the figure: matplotlib warned "Tight layout not applied" and
    the labels were clipped."""
    lines = [""]
    for part in re.findall(r"[^,:=/]*[,:=/]|[^,:=/]+", label):
        for piece in (part[i : i + width] for i in range(0, len(part), width)):
            if lines[-1] and len(lines[-1]) + len(piece) > width:
                lines.append("")
            lines[-1] += piece
    return "\n".join(lines)


def label_extent(fig: Any, labels: Sequence[Any]) -> tuple[float, float]:
    """The width and height, in inches, of the largest box among ``labels`` (tick labels of
    ``fig``'s axes, as drawn: rotated, several lines): what a plot sizes its figure by."""
    renderer = fig.canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in labels]
    return max((b.width for b in boxes), default=0.0) / fig.dpi, max((b.height for b in boxes), default=0.0) / fig.dpi


def format_table(rows: list[dict], seats: dict[str, int] | None = None) -> str:
    """The summary as a text table, one block per variant (short agent names, see
    :func:`display_names`; the points column is labelled per variant).  ``seats``: the
    players per game of each variant; with 3 or more a line gives the equal share of a
    seat's games (1/n), the win rate of agents no better than each other."""
    out = []
    short = display_names(list(dict.fromkeys(r["agent"] for r in rows)))
    width = max([12, *(len(v) for v in short.values())])
    for variant in dict.fromkeys(r["variant"] for r in rows):
        points = POINTS_LABELS.get(variant, DEFAULT_POINTS_LABEL)
        pw = max(9, len(points))
        out.append(f"\n{variant}")
        out.append(f"  {'agent':<{width}} {'games':>7} {'win rate':>9} {'95% CI':>17} {points:>{pw}} {'rating':>8}")
        for r in sorted((r for r in rows if r["variant"] == variant), key=lambda r: -r["rating"]):
            ci = f"[{r['win_rate_ci_low']:.3f}, {r['win_rate_ci_high']:.3f}]"
            out.append(
                f"  {short[r['agent']]:<{width}} {r['games']:>7} {r['win_rate']:>9.3f} {ci:>17} "
                f"{r['points_per_hand']:>{pw}.2f} {r['rating']:>8.2f}"
            )
        if variant in POINTS_LABELS:
            out.append(f"  ({points}: penalty points, lower is better)")
        n = (seats or {}).get(variant, 2)
        if n > 2:
            out.append(f"  ({n} seats a game: an equal share is 1/{n} = {1 / n:.3f})")
    named = {k: v for k, v in short.items() if k != v}
    if named:
        out.append("\n" + "\n".join(f"{v} = {k}" for k, v in named.items()))
    return "\n".join(out)


def write_results(
    out_dir: Path, records: list[dict], rows: list[dict], meta: dict, head_to_head: list[dict] | None = None
) -> None:
    """Write games.csv, summary.json (``meta``, the pooled ``summary`` rows and the
    ``head_to_head`` cells of :mod:`experiments.tournament.matrix`), summary.csv and
    win_rates.png to ``out_dir`` (the last two only when a game was played)."""
    out_dir.mkdir(parents=True, exist_ok=True)
    with atomic_open(out_dir / "games.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(
            [
                "variant",
                "lineup",
                "deal",
                "seed",
                "rotation",
                "seat",
                "agent",
                "return",
                "win_share",
                "points_per_hand",
                "steps",
                "truncated",
            ]
        )
        for r in records:
            for seat, name in enumerate(r["seats"]):
                w.writerow(
                    [
                        r["variant"],
                        r["lineup"],
                        r["deal"],
                        r["seed"],
                        r["rotation"],
                        seat,
                        name,
                        r["returns"][seat],
                        r["win_share"][seat],
                        r["points_per_hand"][seat],
                        r["steps"],
                        r["truncated"],
                    ]
                )
    with atomic_open(out_dir / "summary.json", "w") as f:
        json.dump({"meta": meta, "summary": rows, "head_to_head": head_to_head or []}, f, indent=2)
    if not rows:  # stopped before the first game ended
        return
    with atomic_open(out_dir / "summary.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    plot_win_rates(rows, out_dir / "win_rates.png")


def win_rates_figure(rows: list[dict]) -> Any:
    """Bar chart of win rates with their 95% intervals, one panel per variant; the
    bars are labelled with :func:`display_names` (wrapped by :func:`plot_label`), the figure
    made wide and tall enough for the longest.

    Returns:
        a ``matplotlib.figure.Figure`` not registered with pyplot
        (``experiments.common.new_figure``: no backend is switched, so Jupyter's inline
        plots keep working); a notebook shows it as a cell's value.
    """
    variants = list(dict.fromkeys(r["variant"] for r in rows))
    short = display_names(list(dict.fromkeys(r["agent"] for r in rows)))
    most = max(sum(1 for r in rows if r["variant"] == v) for v in variants)
    fig = new_figure(figsize=(max(4, 1.5 * most) * len(variants), 4))
    axes = fig.subplots(1, len(variants), squeeze=False)
    for ax, variant in zip(axes[0], variants, strict=False):
        vr = [r for r in rows if r["variant"] == variant]
        rates = [r["win_rate"] for r in vr]
        # max(0, .): the Wilson bounds can miss a rate of exactly 0 or 1 by a rounding error
        err = [
            [max(0.0, r["win_rate"] - r["win_rate_ci_low"]) for r in vr],
            [max(0.0, r["win_rate_ci_high"] - r["win_rate"]) for r in vr],
        ]
        ax.bar([plot_label(short[r["agent"]]) for r in vr], rates, yerr=err, capsize=4, color="tab:blue")
        # slanted labels: a long name must not run into its neighbours
        ax.tick_params(axis="x", labelrotation=25)
        for label in ax.get_xticklabels():
            label.set_horizontalalignment("right")
        ax.set_ylim(0, 1)
        ax.set_title(variant)
        ax.set_ylabel("win rate (95% CI)")
    # a bar's slot as wide as a slanted label (none overlaps the next) and, left of the first
    # bar, room for the first label and the axis label; under the bars room for the labels
    wide, tall = label_extent(fig, [t for ax in axes[0] for t in ax.get_xticklabels()])
    width, height = fig.get_size_inches()
    fig.set_size_inches(max(width, (most * wide + wide / 2 + 1.0) * len(variants)), max(height, tall + 2.5))
    fig.tight_layout()
    return fig


def plot_win_rates(rows: list[dict], path: Path) -> None:
    """``win_rates.png``: :func:`win_rates_figure` saved to ``path``."""
    save_figure(win_rates_figure(rows), path)
