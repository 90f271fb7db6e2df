"""Two agents on the same duplicate deals: the difference of their results, paired by deal.

    python -m experiments.paired RUN_A RUN_B
    python -m experiments.paired RUN_A RUN_B RUN_A2 RUN_B2 --opponent pimc:model=1

Each RUN is an :mod:`experiments.evaluate` results folder (or its ``games.csv``); A and B of
a pair must have played the same deals against the same opponents (the same ``--seed``,
``--deals`` and opponents: checked on the games' seeds).  A deal's games (one per seating)
share its cards, so the deal, not the game, is the sample: per deal, A's mean win share
minus B's and, when both runs wrote ``opponent_points_per_hand``, A's points margin a hand
minus B's (the margin as ``evaluation.json``'s ``points_margin``: the agent's points a hand
more than the other seats' mean, or on Crazy Rummy the others' penalty minus the agent's;
positive is better for A).  Printed per pair and, with several pairs, pooled over their
deals, each as a mean with its 95% Student's t interval over the deals
(:func:`experiments.common.mean_interval`).  Pairing removes the luck of the cards that both
runs share, so it separates two close agents on far fewer deals than their two win rates.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from statistics import fmean

from experiments.common import mean_interval
from experiments.tournament.report import POINTS_LABELS

#: the columns of ``games.csv`` read here (``opponent_points_per_hand`` too when present)
COLUMNS = ("opponent", "deal", "seed", "rotation", "win_share", "points_per_hand")


def games_file(run: str | Path) -> Path:
    """``run``'s ``games.csv``: ``run`` itself or the file in the folder ``run``.

    Raises:
        ValueError: no such file.
    """
    path = Path(run)
    path = path / "games.csv" if path.is_dir() else path
    if not path.is_file():
        raise ValueError(f"{run}: no games.csv of experiments.evaluate there")
    return path


def _penalty(games: Path) -> bool:
    """Whether the run's points are penalties (lower is better: Crazy Rummy), from the
    ``evaluation.json`` beside its ``games.csv`` (absent: points, higher is better)."""
    summary = games.parent / "evaluation.json"
    if not summary.is_file():
        return False
    return json.loads(summary.read_text()).get("variant") in POINTS_LABELS


def per_deal(run: str | Path, opponent: str | None = None) -> dict:
    """One run's results per deal.

    Args:
        run: an :mod:`experiments.evaluate` folder or its ``games.csv``.
        opponent: only the games against this member (None: every opponent of the run).

    Returns:
        ``{"share": {(opponent, deal): mean win share}, "margin": {(opponent, deal): mean
        points margin a hand} or None when the run did not write the other seats' points,
        "seeds": {(opponent, deal, rotation): the game's seed}}``.

    Raises:
        ValueError: no ``games.csv``, one without the columns of :data:`COLUMNS`, or no game
            against ``opponent`` in it.
    """
    games = games_file(run)
    sign = -1.0 if _penalty(games) else 1.0
    shares, margins, seeds = defaultdict(list), defaultdict(list), {}
    with open(games, newline="") as f:
        reader = csv.DictReader(f)
        missing = [c for c in COLUMNS if c not in (reader.fieldnames or ())]
        if missing:
            raise ValueError(f"{games}: not a games.csv of experiments.evaluate (no column {', '.join(missing)})")
        with_margin = "opponent_points_per_hand" in (reader.fieldnames or ())
        for row in reader:
            if opponent is not None and row["opponent"] != opponent:
                continue
            key = (row["opponent"], int(row["deal"]))
            shares[key].append(float(row["win_share"]))
            if with_margin:
                margins[key].append(sign * (float(row["points_per_hand"]) - float(row["opponent_points_per_hand"])))
            seeds[key + (int(row["rotation"]),)] = row["seed"]
    if not shares:
        raise ValueError(f"{games}: no game" + ("" if opponent is None else f" against {opponent!r}"))
    return {
        "share": {k: fmean(v) for k, v in shares.items()},
        "margin": {k: fmean(v) for k, v in margins.items()} if with_margin else None,
        "seeds": seeds,
    }


def paired(
    runs: Sequence[str | Path], opponent: str | None = None
) -> list[dict[str, tuple[float, float | None, float | None] | int | str | None]]:
    """A minus B, paired by deal, for each pair of ``runs`` (``A, B, A2, B2, ...``) and pooled.

    Returns:
        One dict per pair (``"pair": "A - B"``), then, with more than one pair, ``"pooled"``:
        ``deals`` (int), ``share`` and ``margin`` as ``(mean, low, high)`` of the per-deal
        differences with their 95% Student's t interval (``margin`` None when a run lacks
        the other seats' points; ``low``/``high`` None below two deals).

    Raises:
        ValueError: an odd number of runs or none, or a pair that did not play the same deals
            (their games' seeds differ).
    """
    if not runs or len(runs) % 2:
        raise ValueError(f"give runs in pairs, RUN_A RUN_B [RUN_A2 RUN_B2 ...]: got {len(runs)}")
    pairs, pooled_share, pooled_margin = [], [], []
    for a, b in zip(runs[::2], runs[1::2], strict=True):
        da, db = per_deal(a, opponent), per_deal(b, opponent)
        if da["seeds"] != db["seeds"]:
            raise ValueError(f"{a} and {b} did not play the same deals (their games' seeds differ)")
        keys = sorted(da["share"])
        share = [da["share"][k] - db["share"][k] for k in keys]
        margin = None
        if da["margin"] is not None and db["margin"] is not None:
            margin = [da["margin"][k] - db["margin"][k] for k in keys]
            pooled_margin.append(margin)
        pooled_share.append(share)
        pairs.append(_row(f"{a} - {b}", share, margin))
    if len(pairs) > 1:
        whole = len(pooled_margin) == len(pooled_share)  # every pair has margins
        pairs.append(
            _row("pooled", sum(pooled_share, []), sum(pooled_margin, []) if whole else None),
        )
    return pairs


def _row(name: str, share: list[float], margin: list[float] | None) -> dict:
    return {
        "pair": name,
        "deals": len(share),
        "share": mean_interval(share),
        "margin": None if margin is None else mean_interval(margin),
    }


def _fmt(value: tuple[float, float | None, float | None], digits: int) -> str:
    mean, low, high = value
    if low is None:
        return f"{mean:+.{digits}f}"
    return f"{mean:+.{digits}f} [{low:+.{digits}f}, {high:+.{digits}f}]"


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m experiments.paired``: print A minus B per pair of runs and pooled."""
    p = argparse.ArgumentParser(
        prog="python -m experiments.paired",
        description="Two experiments.evaluate runs on the same deals: A minus B, paired by deal.",
    )
    p.add_argument("runs", nargs="+", metavar="RUN", help="evaluate folders or games.csv, in pairs: A B [A2 B2 ...]")
    p.add_argument("--opponent", default=None, help="only the games against this opponent (default: every one)")
    args = p.parse_args(argv)
    try:
        rows = paired(args.runs, args.opponent)
    except ValueError as err:
        p.error(str(err))
    for r in rows:
        margin = "" if r["margin"] is None else f"; margin a hand {_fmt(r['margin'], 2)}"
        print(f"{r['pair']}: {r['deals']} deals; win share {_fmt(r['share'], 4)}{margin}")
    print("A minus B per deal, mean [95% Student's t interval over the deals]; + is better for A")
    return 0


if __name__ == "__main__":
    sys.exit(main())
