"""The head-to-head table of a tournament: each agent's win rate against each other agent.

The pooled table (:func:`experiments.tournament.report.summarize`) mixes every opponent an
agent met; an agent can lead it by beating weak opponents while losing to a strong one.
The head-to-head cell (row ``a``, column ``b``) is ``a``'s win share in the games where
``b`` also sat: with two seats, exactly the games of the lineup ``a vs b``, each deal
played from both seats (duplicate deals).  A win shared by several seats counts as a
fraction, a game nobody wins (a dead hand) as 0 for both, so with two seats ``a``'s and
``b``'s cells add up to 1 minus the share of draws.  With more seats a game counts for
every pair of different agents in it: the fair share is then ``1 / seats``.

The 95% interval is Wilson's over deals: the seat rotations of one deal share its cards,
and with three or more seats so do the lineups a pair meets in, which all play the same
deals (:func:`~experiments.tournament.deals.deal_seed`), so a deal counts once however
many of its games the pair played.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path
from typing import Any

from experiments.common import atomic_open, new_figure, save_figure, wilson_interval
from experiments.tournament.report import display_names, label_extent, plot_label

FIELDS = ("variant", "agent", "opponent", "games", "deals", "wins", "win_rate", "win_rate_ci_low", "win_rate_ci_high")


def head_to_head(records: list[dict]) -> list[dict]:
    """The head-to-head cells of a tournament's game records (``run_chunk``'s dicts).

    Returns:
        one dict per (variant, agent, opponent) pair that met, with :data:`FIELDS`:
        ``games`` (games of ``agent`` with ``opponent`` seated), ``deals`` (distinct deals),
        ``wins`` (``agent``'s win share summed), ``win_rate`` and its 95% Wilson interval.
    """
    cells: dict[tuple[str, str, str], dict[str, Any]] = {}
    for g in records:
        seats = g["seats"]
        for a in dict.fromkeys(seats):
            mine = [s for s, name in enumerate(seats) if name == a]
            share = sum(g["win_share"][s] for s in mine) / len(mine)  # an agent in two seats: their mean
            for b in dict.fromkeys(seats):
                if b == a:
                    continue
                c = cells.setdefault((g["variant"], a, b), {"games": 0, "wins": 0.0, "deals": set()})
                c["games"] += 1
                c["wins"] += share
                c["deals"].add(g["deal"])  # every lineup is dealt the same cards: one trial per deal
    # variants in the order the records have them (the summary table's order), agents sorted
    order = {v: i for i, v in enumerate(dict.fromkeys(g["variant"] for g in records))}
    rows = []
    for (variant, a, b), c in sorted(cells.items(), key=lambda item: (order[item[0][0]], item[0][1:])):
        rate = c["wins"] / c["games"]
        low, high = wilson_interval(rate, len(c["deals"]))
        rows.append(
            {
                "variant": variant,
                "agent": a,
                "opponent": b,
                "games": c["games"],
                "deals": len(c["deals"]),
                "wins": round(c["wins"], 3),
                "win_rate": rate,
                "win_rate_ci_low": low,
                "win_rate_ci_high": high,
            }
        )
    return rows


def _grid(rows: list[dict], variant: str) -> tuple[list[str], dict[tuple[str, str], dict]]:
    cells = {(r["agent"], r["opponent"]): r for r in rows if r["variant"] == variant}
    agents = sorted({a for a, _ in cells} | {b for _, b in cells})
    return agents, cells


def format_matrix(rows: list[dict]) -> str:
    """The head-to-head table as text, one block per variant: the row agent's win rate
    against the column agent (short names, :func:`~experiments.tournament.report.display_names`)."""
    out = []
    short = display_names(list(dict.fromkeys([r["agent"] for r in rows] + [r["opponent"] for r in rows])))
    for variant in dict.fromkeys(r["variant"] for r in rows):
        agents, cells = _grid(rows, variant)
        width = max([12, *(len(short[a]) for a in agents)])
        col = max(7, *(len(short[a]) for a in agents))
        out.append(f"\n{variant}: head to head (row's win rate against column)")
        out.append(f"  {'':<{width}} " + " ".join(f"{short[b]:>{col}}" for b in agents))
        for a in agents:
            line = [f"{cells[(a, b)]['win_rate']:>{col}.3f}" if (a, b) in cells else f"{'-':>{col}}" for b in agents]
            out.append(f"  {short[a]:<{width}} " + " ".join(line))
    return "\n".join(out)


def matrix_figure(rows: list[dict]) -> Any:
    """The head-to-head tables as heat maps, one per variant (a :class:`matplotlib.figure.Figure`,
    drawn without pyplot so a notebook's backend is left alone); each cell shows the win
    rate, pairs that never met are blank; long names are wrapped
    (:func:`~experiments.tournament.report.plot_label`) and the figure sized for them."""
    import numpy as np

    variants = list(dict.fromkeys(r["variant"] for r in rows))
    short = display_names(list(dict.fromkeys([r["agent"] for r in rows] + [r["opponent"] for r in rows])))
    sizes = [len(_grid(rows, v)[0]) for v in variants] or [1]
    fig = new_figure(figsize=(sum(max(3.2, 0.9 * n + 1.6) for n in sizes), max(3.0, 0.6 * max(sizes) + 1.6)))
    axes = fig.subplots(1, max(1, len(variants)), squeeze=False)[0]
    for ax, variant in zip(axes, variants, strict=False):
        agents, cells = _grid(rows, variant)
        grid = np.full((len(agents), len(agents)), np.nan)
        for (a, b), r in cells.items():
            grid[agents.index(a), agents.index(b)] = r["win_rate"]
        image = ax.imshow(grid, vmin=0.0, vmax=1.0, cmap="RdYlGn")
        for i in range(len(agents)):
            for j in range(len(agents)):
                if not np.isnan(grid[i, j]):
                    ax.text(j, i, f"{grid[i, j]:.2f}", ha="center", va="center", fontsize=8)
        labels = [plot_label(short[a]) for a in agents]
        ax.set_xticks(range(len(agents)), labels, rotation=45, ha="right", fontsize=8)
        ax.set_yticks(range(len(agents)), labels, fontsize=8)
        ax.set_xlabel("opponent")
        ax.set_title(variant, fontsize=9)
        fig.colorbar(image, ax=ax, fraction=0.046, pad=0.04, label="row's win rate")
    # room for the labels (wrapped by plot_label) beside and under the cells, as sized for short
    # names: the first column's slanted label reaches left of the grid as far as it is wide
    width = height = 0.0
    for ax, n in zip(axes, sizes, strict=False):
        beside = label_extent(fig, ax.get_yticklabels())[0]
        wide, tall = label_extent(fig, ax.get_xticklabels())
        width += 0.9 * n + max(beside, wide) + 1.0
        height = max(height, 0.6 * n + tall + 1.0)
    fig.set_size_inches(max(fig.get_size_inches()[0], width), max(fig.get_size_inches()[1], height))
    fig.tight_layout()
    return fig


def write_matrix(out_dir: Path, rows: list[dict]) -> None:
    """``head_to_head.csv`` (one row per pair, :data:`FIELDS`) and ``head_to_head.png`` (the heat
    maps) in ``out_dir``; nothing when no pair met."""
    if not rows:
        return
    with atomic_open(out_dir / "head_to_head.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(FIELDS))
        w.writeheader()
        w.writerows(rows)
    save_figure(matrix_figure(rows), out_dir / "head_to_head.png")


def matrix_by_variant(rows: list[dict]) -> dict[str, dict[str, dict[str, float]]]:
    """``{variant: {agent: {opponent: win_rate}}}``: the cells as nested dicts (``summary.json``)."""
    out: dict[str, dict[str, dict[str, float]]] = defaultdict(dict)
    for r in rows:
        out[r["variant"]].setdefault(r["agent"], {})[r["opponent"]] = r["win_rate"]
    return dict(out)
