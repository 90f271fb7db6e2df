"""The deals the agent won / lost in every seat, recounted from committed ``games.csv`` files.

    PYTHONPATH=. python docs/results/champion-rummikub/decided.py \
        docs/results/champion-rummikub/model1-s12/games.csv docs/results/champion-rummikub/model1-s13/games.csv

``experiments.evaluate`` prints and writes these counts (``deals_won_in_every_seat``,
``deals_lost_in_every_seat``) since 2026-12-05; the files committed before hold the games
they come from.  Each file's games are turned back into records for ``panel_rows``.
"""

import csv
import sys

from experiments.evaluate import panel_rows

for path in sys.argv[1:]:
    with open(path) as f:
        games = list(csv.DictReader(f))
    seats = len({g["rotation"] for g in games})
    records = []
    for g in games:
        names = [g["opponent"]] * seats
        names[int(g["agent_seat"])] = "agent"
        share = [0.0] * seats
        share[int(g["agent_seat"])] = float(g["win_share"])
        records.append({"deal": g["deal"], "seats": names, "win_share": share, "points_per_hand": [0.0] * seats})
    for row in panel_rows("agent", list(dict.fromkeys(g["opponent"] for g in games)), records):
        print(
            f"{path}: against {row['opponent']}: {row['deals']} deals, won in every seat "
            f"{row['deals_won_in_every_seat']}, lost in every seat {row['deals_lost_in_every_seat']}"
        )
