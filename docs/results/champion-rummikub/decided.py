"""The deals the agent won / lost in every seat, recounted from committed ``games.csv`` files.

    PYTHONPATH=. python docs/results/champion-rummikub/decided.py \
        docs/results/champion-rummikub/model1-s12/games.csv docs/results/champion-rummikub/model1-s13/games.csv

``experiments.evaluate`` prints and writes these counts (``deals_won_in_every_seat``,
``deals_lost_in_every_seat``) since 2026-12-05; the files committed before hold the games
they come from.  Each file's games are turned back into records for ``panel_rows``: the
file holds the agent's win share and points only, so a game where the agent has neither
(share 0, 0 points: a hand with no winner) is a draw, and otherwise the other seats share
what the agent did not win.  That reading holds for Rummikub, whose hand scores are
zero-sum (a loser scores below 0), not for Gin or basic Rummy, where a loser scores 0 as
in a hand without a winner.

It also counts the deals whose games all lasted the same number of steps (``steps``), which
is what the two agents playing the same moves in every seating gives (a hint, not a proof:
the file holds no moves).
"""

import csv
import sys
from collections import defaultdict

from experiments.evaluate import panel_rows

for path in sys.argv[1:]:
    with open(path) as f:
        games = list(csv.DictReader(f))
    seats = len({g["rotation"] for g in games})
    records = []
    for g in games:
        names = [g["opponent"]] * seats
        names[int(g["agent_seat"])] = "agent"
        won, points = float(g["win_share"]), float(g["points_per_hand"])
        share = [0.0 if won == 0 and points == 0 else (1 - won) / (seats - 1)] * seats
        share[int(g["agent_seat"])] = won
        rotation = -int(g["agent_seat"]) % seats  # the tournament's: the agent sits at -rotation
        record = {"deal": g["deal"], "seats": names, "rotation": rotation, "win_share": share}
        records.append({**record, "points_per_hand": [0.0] * seats})
    for row in panel_rows("agent", list(dict.fromkeys(g["opponent"] for g in games)), records):
        print(
            f"{path}: against {row['opponent']}: {row['deals']} deals, won in every seat "
            f"{row['deals_won_in_every_seat']}, lost in every seat {row['deals_lost_in_every_seat']}"
        )
    lengths = defaultdict(set)
    for g in games:
        lengths[g["opponent"], g["deal"]].add(g["steps"])
    for opponent in dict.fromkeys(g["opponent"] for g in games):
        deals = [steps for (name, _), steps in lengths.items() if name == opponent]
        same = sum(len(steps) == 1 for steps in deals)
        print(f"{path}: against {opponent}: {same} of {len(deals)} deals lasted as long in every seating")
