"""Two agents' runs against the same opponent on the same deals, paired by deal.

    PYTHONPATH=. python docs/results/champion-crazy/paired.py A/games.csv B/games.csv pimc:model=1

Prints, per deal averaged over its seatings, A's penalty margin a round minus B's (the
opponents' mean penalty minus the agent's: + is better for A) and A's share of games with the
lowest total minus B's, each with its 95% Student's t interval over the deals
(``experiments.common.mean_interval``).  Raises ValueError when the two runs did not play the
same deals (the games' seeds differ).  ``docs/results/champion-gin/guided/paired.py`` pairs
win shares only, over every opponent of a run, with a normal interval; its logged Gin figures
were made with it, so it is kept as it is rather than folded into this one.
"""

import csv
import sys
from collections import defaultdict
from statistics import fmean

from experiments.common import mean_interval


def per_deal(path: str, opponent: str) -> tuple[dict, dict, dict]:
    """Per deal: mean margin, mean win share, and the games' seeds by seating, from ``games.csv``."""
    margins, shares, seeds = defaultdict(list), defaultdict(list), {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row["opponent"] != opponent:
                continue
            deal = int(row["deal"])
            margins[deal].append(float(row["opponent_points_per_hand"]) - float(row["points_per_hand"]))
            shares[deal].append(float(row["win_share"]))
            seeds[deal, row["rotation"]] = row["seed"]
    return {d: fmean(v) for d, v in margins.items()}, {d: fmean(v) for d, v in shares.items()}, seeds


def main(a: str, b: str, opponent: str) -> None:
    margin_a, share_a, seeds_a = per_deal(a, opponent)
    margin_b, share_b, seeds_b = per_deal(b, opponent)
    if not seeds_a or seeds_a != seeds_b:
        raise ValueError(f"{a} and {b} did not play the same deals against {opponent!r}")
    for name, x, y in (("margin a round", margin_a, margin_b), ("share", share_a, share_b)):
        m, low, high = mean_interval([x[d] - y[d] for d in sorted(x)])
        print(f"{name}, A - B over {len(x)} deals: {m:+.3f} [{low:+.3f}, {high:+.3f}]")


if __name__ == "__main__":
    main(*sys.argv[1:4])
