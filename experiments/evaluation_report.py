"""The text table and bar chart of an evaluation (:mod:`experiments.evaluate`'s ``result``
dict: ``rows`` as ``evaluate.ROW_FIELDS``, ``panel_mean``, ``panel_min``, ``fair_share``...)."""

from __future__ import annotations

from typing import Any

from experiments.common import new_figure
from experiments.tournament.report import DEFAULT_POINTS_LABEL, POINTS_LABELS, display_names


def _margin(row: dict) -> str:
    """``points_margin`` and its interval's half-width as ``+2.71±0.85`` (a row written
    before the field: empty)."""
    margin, low, high = (row.get(k) for k in ("points_margin", "points_margin_ci_low", "points_margin_ci_high"))
    if margin is None:
        return ""
    return f"{margin:+.2f}" + ("" if low is None or high is None else f"±{(high - low) / 2:.2f}")


def format_rows(result: dict) -> str:
    """The evaluation as a text table."""
    short = display_names([r["opponent"] for r in result["rows"]])
    width = max([20, *(len(v) for v in short.values())])
    against = (
        f"the panel (version {result['panel_version']}"
        if result["panel_version"] is not None
        else "the opponents named (not the panel"
    )
    points = POINTS_LABELS.get(result["variant"], DEFAULT_POINTS_LABEL)  # Crazy Rummy: penalties
    pw = max(9, len(points))
    lines = [
        f"{result['variant']}: {result['agent']} against {against}, "
        f"{result['seats']} seats, fair share {result['fair_share']:.3f})",
        f"  {'opponent':<{width}} {'games':>6} {'win rate':>9} {'95% CI':>17} {points:>{pw}} {'theirs':>8} "
        f"{'margin':>15} {'every-seat W/L':>15}",
    ]
    for r in result["rows"]:
        ci = f"[{r['win_rate_ci_low']:.3f}, {r['win_rate_ci_high']:.3f}]"
        lines.append(
            f"  {short[r['opponent']]:<{width}} {r['games']:>6} {r['win_rate']:>9.3f} {ci:>17} "
            f"{r['points_per_hand']:>{pw}.2f} {r['opponent_points_per_hand']:>8.2f} {_margin(r):>15} "
            f"{str(r['deals_won_in_every_seat']) + '/' + str(r['deals_lost_in_every_seat']):>15}"
            + (" *" if r.get("same_as_agent") else "")
        )
    # on penalty points (Crazy Rummy) the margin is the others' minus the agent's: "points
    # more than the others'" would read as the opposite sign of the figure printed
    margin = (
        "the others' penalty a round minus the agent's"
        if result["variant"] in POINTS_LABELS
        else "points a hand more than the others'"
    )
    lines.append(f"  margin: {margin}, paired per deal, 95% half-width (Student's t; +: better)")
    lines.append("  every-seat W/L: the deals won / lost in every seat (the others: the seat decided, shared or drawn)")
    drawn = [r for r in result["rows"] if r["draws"]]
    if drawn:  # a game nobody won counts 0 for every seat: an equal agent wins less than the fair share
        shares = ", ".join(
            f"{short[r['opponent']]} {(1 - r['draws'] / r['games']) / result['seats']:.3f} ({r['draws']} drawn)"
            for r in drawn
        )
        lines.append(f"  games nobody won count 0 for every seat; an equally strong agent's share then: {shares}")
    if result["variant"] in POINTS_LABELS:
        lines.append(f"  {points} and theirs: penalty points, lower is better")
    if any(r.get("same_as_agent") for r in result["rows"]):
        lines.append("  * the same agent as the one evaluated (the same settings): a self-match")
    if result["rows"]:
        played = {r["opponent"] for r in result["rows"]}
        missing = [m for m in result.get("opponents", []) if m not in played]
        # a stopped run's figures are over the members it played, and must say so
        names = ", ".join(display_names(missing).values())
        members = f"{len(played)} member{'' if len(played) == 1 else 's'}"
        over = f" over the {members} played; not played: {names}" if missing else ""
        # named opponents are no panel: the same figures (evaluation.json's panel_mean /
        # panel_min) under a name that does not claim one
        what = "panel " if result["panel_version"] is not None else "opponents' "
        lines.append(
            f"  {what}mean {result['panel_mean']:.3f}, {what}min {result['panel_min']:.3f} "
            f"(against {short[result['panel_min_opponent']]}){over}"
        )
    if result.get("left_out"):
        lines.append(f"  left out, cannot play here: {', '.join(display_names(list(result['left_out'])).values())}")
    return "\n".join(lines)


def evaluation_figure(result: dict) -> Any:
    """The win rate against each member with its 95% interval, and the fair share (a
    :class:`matplotlib.figure.Figure`, drawn without pyplot)."""
    rows = result["rows"]
    short = display_names([r["opponent"] for r in rows])
    fig = new_figure(figsize=(max(5.0, 0.8 * len(rows) + 2.0), 4.0))
    ax = fig.subplots()
    x = range(len(rows))
    rates = [r["win_rate"] for r in rows]
    err = [[r["win_rate"] - r["win_rate_ci_low"] for r in rows], [r["win_rate_ci_high"] - r["win_rate"] for r in rows]]
    ax.bar(x, rates, yerr=err, capsize=3, color="tab:blue")
    ax.axhline(result["fair_share"], color="grey", lw=0.8, ls="--", label=f"fair share {result['fair_share']:.2f}")
    ax.set_xticks(list(x), [short[r["opponent"]] for r in rows], rotation=40, ha="right", fontsize=8)
    ax.set_ylim(0, 1)
    ax.set_ylabel("win rate (95% CI, duplicate deals)")
    ax.set_title(
        f"{result['variant']}: {display_names([result['agent']])[result['agent']]} vs panel v{result['panel_version']}"
    )
    ax.legend(fontsize=8)
    fig.tight_layout()
    return fig
