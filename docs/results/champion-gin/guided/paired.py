"""Paired difference of two agents' win rates on the same duplicate deals.

    python docs/results/champion-gin/guided/paired.py RUN_A RUN_B [RUN_A2 RUN_B2 ...]

Each RUN is an ``experiments.evaluate`` folder (its ``games.csv``); A and B of a pair must
have played the same deals (same ``--seed``, ``--deals`` and opponent).  Prints each pair's
and the pooled mean difference A - B per game with a 95% normal interval over deals (a
deal's two games, seats swapped, are one sample: they share the cards).
"""

import csv
import sys
from pathlib import Path

import numpy as np


def per_deal(run: str) -> dict[str, float]:
    """Mean win share of the agent per deal of ``run``."""
    shares: dict[str, list[float]] = {}
    with open(Path(run) / "games.csv") as f:
        for row in csv.DictReader(f):
            shares.setdefault(row["deal"], []).append(float(row["win_share"]))
    return {deal: float(np.mean(s)) for deal, s in shares.items()}


def interval(diff: np.ndarray) -> str:
    """``mean [low, high]`` of ``diff`` with a 95% normal interval."""
    mean, half = diff.mean(), 1.96 * diff.std(ddof=1) / np.sqrt(diff.size)
    return f"{mean:+.4f} [{mean - half:+.4f}, {mean + half:+.4f}] over {diff.size} deals"


def main(runs: list[str]) -> None:
    if len(runs) < 2 or len(runs) % 2:
        raise SystemExit("give runs in pairs: RUN_A RUN_B [RUN_A2 RUN_B2 ...]")
    pooled = []
    for a, b in zip(runs[::2], runs[1::2], strict=True):
        da, db = per_deal(a), per_deal(b)
        if set(da) != set(db):
            raise SystemExit(f"{a} and {b} did not play the same deals")
        diff = np.array([da[d] - db[d] for d in sorted(da)])
        pooled.append(diff)
        print(f"{a} - {b}: {interval(diff)}")
    print(f"pooled: {interval(np.concatenate(pooled))}")


if __name__ == "__main__":
    main(sys.argv[1:])
