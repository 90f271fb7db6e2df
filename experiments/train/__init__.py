"""``python -m experiments.train``: masked PPO (sb3-contrib) on one seat against named
opponents (:mod:`~experiments.train.sb3`), or one shared policy trained with RLlib on a Ray
cluster (:mod:`~experiments.train.rllib`, ``--backend rllib``); ``--algo selfplay`` runs
``experiments.selfplay``; ``--resume`` continues a stopped run (:mod:`~experiments.train.resume`).
The command line is :mod:`~experiments.train.cli`."""

from experiments.train.cli import main, parse_args
from experiments.train.sb3 import SELF, evaluate, format_summary, train

__all__ = ["SELF", "evaluate", "format_summary", "main", "parse_args", "train"]
