"""Two agents on the same duplicate deals: the difference of their results, paired by deal.

    python -m experiments.paired RUN_A RUN_B
    python -m experiments.paired RUN_A RUN_B RUN_A2 RUN_B2 --opponent pimc:model=1

Each RUN is an :mod:`experiments.evaluate` results folder (or its ``games.csv``, with the
run's ``evaluation.json`` beside it); A and B of a pair must have played the same deals
against the same opponents in the same env (the same ``--seed``, ``--deals``, opponents and
``--env-option``: checked on the games' seeds and the two ``evaluation.json``; with
``--opponent NAME`` only the games against that opponent are compared).  A deal's games
(one per seating, and one per opponent: the evaluation deals the same cards to every
opponent) share its cards, so the deal, not the game, is the sample: per deal, A's mean win
share minus B's and A's points margin a hand minus B's (the margin as ``evaluation.json``'s
``points_margin``: the agent's points a hand more than the other seats' mean, or on Crazy
Rummy the others' penalty a round minus the agent's; positive is better for A; left out
when a run wrote no ``opponent_points_per_hand``, or has no ``evaluation.json`` to say
which variant it played).  Printed per pair and, with several pairs, pooled over their
deals (a deal that several pairs played, the same cards by its seed, counts once, with the
mean of their differences: two pairs on the same ``--seed`` are not twice the deals; so
where pairs share only some deals, the shared deals weigh as one each and a pair's own
deals more than its shared ones), each as a mean with its 95% Student's t interval over the deals
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

from experiments.common import csv_number, csv_rows, csv_share, mean_interval
from experiments.tournament.report import POINTS_LABELS

#: the columns of ``games.csv`` read here (``opponent_points_per_hand`` too when present)
COLUMNS = ("opponent", "deal", "seed", "rotation", "win_share", "points_per_hand")
#: the settings of ``evaluation.json`` two paired runs must share
SAME_SETTINGS = ("variant", "env_options", "seats")


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


def settings(games: Path) -> dict | None:
    """The :data:`SAME_SETTINGS` of the run, from the ``evaluation.json`` beside its
    ``games.csv`` (None when there is none).

    Raises:
        ValueError: an ``evaluation.json`` that cannot be read or is not a JSON object.
    """
    summary = games.parent / "evaluation.json"
    if not summary.is_file():
        return None
    try:
        result = json.loads(summary.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as err:
        raise ValueError(f"{summary}: not a readable evaluation.json ({err})") from None
    if not isinstance(result, dict):
        raise ValueError(f"{summary}: not an evaluation.json of experiments.evaluate (a JSON {type(result).__name__})")
    return {key: result.get(key) for key in SAME_SETTINGS}


def per_deal(run: str | Path, opponent: str | None = None) -> dict:
    """One run's results per deal.

    Args:
        run: an :mod:`experiments.evaluate` folder or its ``games.csv``.
        opponent: only the games against this member (None: every opponent of the run,
            a deal's games against all of them averaged together).

    Returns:
        ``{"share": {deal: mean win share}, "margin": {deal: mean points margin a hand} or
        None (no ``opponent_points_per_hand`` column, or no ``evaluation.json`` to tell
        points from penalties), "seeds": {(opponent, deal, rotation): the game's seed},
        "settings": :func:`settings`}``.

    Raises:
        ValueError: no ``games.csv``, one without the columns of :data:`COLUMNS`, a line
            whose numbers are missing or not numbers (a win share outside 0..1), a game
            listed twice (the same opponent, deal and rotation), no game against
            ``opponent``, or an unreadable ``evaluation.json``; the message names the file
            (and the line).
    """
    games = games_file(run)
    found = settings(games)
    sign = -1.0 if found is not None and found["variant"] in POINTS_LABELS else 1.0
    shares, margins, seeds = defaultdict(list), defaultdict(list), {}
    try:
        with open(games, newline="") as f:
            reader = csv_rows(f, games, COLUMNS, "experiments.evaluate")
            with_margin = found is not None and "opponent_points_per_hand" in (reader.fieldnames or ())
            for row in reader:
                if opponent is not None and row["opponent"] != opponent:
                    continue
                line = reader.line_num
                deal = csv_number(games, line, row, "deal", int)
                game = row["opponent"], deal, csv_number(games, line, row, "rotation", int)
                if game in seeds:
                    raise ValueError(
                        f"{games}, line {line}: a second game against {game[0]!r}, deal {deal}, rotation {game[2]}"
                    )
                share = csv_share(games, line, row)
                shares[deal].append(share)
                if with_margin:
                    ours, theirs = (
                        csv_number(games, line, row, c) for c in ("points_per_hand", "opponent_points_per_hand")
                    )
                    margins[deal].append(sign * (ours - theirs))
                seeds[game] = row["seed"]
    except UnicodeDecodeError as err:
        raise ValueError(f"{games}: not a text games.csv ({err})") from None
    except csv.Error as err:  # a field past the csv module's limit, a NUL byte
        raise ValueError(f"{games}: not a games.csv of experiments.evaluate ({err})") from None
    if not shares:
        raise ValueError(f"{games}: no game" + ("" if opponent is None else f" against {opponent!r}"))
    return {
        "share": {d: fmean(v) for d, v in shares.items()},
        "margin": {d: fmean(v) for d, v in margins.items()} if with_margin else None,
        "seeds": seeds,
        "settings": found,
    }


def _check_pair(a: str | Path, b: str | Path, da: dict, db: dict) -> None:
    """Refuse two runs that did not play the same games (see :func:`paired`)."""
    # settings first: runs of two variants differ in opponents and deals too, and only this says why
    if da["settings"] is not None and db["settings"] is not None and da["settings"] != db["settings"]:
        raise ValueError(f"{a} and {b} were played in different settings: {da['settings']} and {db['settings']}")
    only_a = sorted({o for o, _, _ in da["seeds"]} - {o for o, _, _ in db["seeds"]})
    only_b = sorted({o for o, _, _ in db["seeds"]} - {o for o, _, _ in da["seeds"]})
    if only_a or only_b:
        raise ValueError(
            f"{a} and {b} played different opponents (only {a}: {', '.join(only_a) or 'none'}; "
            f"only {b}: {', '.join(only_b) or 'none'}): name one both played with --opponent"
        )
    if da["seeds"] != db["seeds"]:
        games_a, games_b = da["seeds"].items(), db["seeds"].items()
        for part, whole, n, m in ((a, b, len(games_a), len(games_b)), (b, a, len(games_b), len(games_a))):
            if n < m and (games_a <= games_b if part == a else games_b <= games_a):
                raise ValueError(
                    f"{a} and {b} did not play the same deals: {part} played {n:,} games, all of them among "
                    f"{whole}'s {m:,}, as a run stopped early (its evaluation.json says partial) or given fewer "
                    "--deals does: pair runs that played the same deals"
                )
        raise ValueError(f"{a} and {b} did not play the same deals (their games' seeds differ)")


def paired(runs: Sequence[str | Path], opponent: str | None = None) -> list[dict]:
    """A minus B, paired by deal, for each pair of ``runs`` (``A, B, A2, B2, ...``) and pooled.

    Returns:
        One dict per pair (``"pair": "A - B"``), then, with more than one pair, ``"pooled"``
        (per deal seed: the mean of the pairs' differences on that deal): ``deals`` (int),
        ``share`` and ``margin`` as ``(mean, low, high)`` of the per-deal differences with
        their 95% Student's t interval (``margin`` None when a run of the
        pair, or of any pair for the pooled row, has no margins: see :func:`per_deal`;
        ``low``/``high`` None below two deals), and ``unit`` (``"a round"`` on Crazy Rummy,
        else ``"a hand"``).

    Raises:
        ValueError: an odd number of runs or none; a run :func:`per_deal` refuses; a pair
            whose runs played different opponents, other deals (their games' seeds differ)
            or other settings (``evaluation.json``'s :data:`SAME_SETTINGS`).
    """
    if not runs or len(runs) % 2:
        raise ValueError(f"give runs in pairs, RUN_A RUN_B [RUN_A2 RUN_B2 ...]: got {len(runs)}")
    rows, pooled_share, pooled_margin = [], defaultdict(list), defaultdict(list)  # by deal seed
    for a, b in zip(runs[::2], runs[1::2], strict=True):
        da, db = per_deal(a, opponent), per_deal(b, opponent)
        _check_pair(a, b, da, db)
        deals = sorted(da["share"])
        share = [da["share"][d] - db["share"][d] for d in deals]
        margin = None
        if da["margin"] is not None and db["margin"] is not None:
            margin = [da["margin"][d] - db["margin"][d] for d in deals]
        # a deal another pair also played (the same seed: the same cards) is one sample, not two;
        # every game of a deal has the deal's reset seed
        deal_seeds = {deal: seed for (_, deal, _), seed in da["seeds"].items()}
        for i, d in enumerate(deals):
            pooled_share[deal_seeds[d]].append(share[i])
            pooled_margin[deal_seeds[d]].append(None if margin is None else margin[i])
        found = da["settings"] or db["settings"]
        unit = "a round" if found is not None and found["variant"] in POINTS_LABELS else "a hand"
        rows.append(_row(f"{a} - {b}", share, margin, unit))
    if len(rows) > 1:
        whole = all(r["margin"] is not None for r in rows)  # every pair has margins
        units = {r["unit"] for r in rows}
        share = [fmean(v) for v in pooled_share.values()]
        margin = [fmean(v) for v in pooled_margin.values()] if whole else None
        rows.append(_row("pooled", share, margin, " / ".join(sorted(units))))
    return rows


def _row(name: str, share: list[float], margin: list[float] | None, unit: str) -> dict:
    return {
        "pair": name,
        "deals": len(share),
        "share": mean_interval(share),
        "margin": None if margin is None else mean_interval(margin),
        "unit": unit,
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
        margin = "" if r["margin"] is None else f"; margin {r['unit']} {_fmt(r['margin'], 2)}"
        print(f"{r['pair']}: {r['deals']} deals; win share {_fmt(r['share'], 4)}{margin}")
    print("A minus B per deal, mean [95% Student's t interval over the deals]; + is better for A")
    return 0


if __name__ == "__main__":
    sys.exit(main())
