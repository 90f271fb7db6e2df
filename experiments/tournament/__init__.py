"""The main job: a round-robin tournament of named agents on real games.

    python -m experiments.tournament                      # every variant, baseline agents
    python -m experiments.tournament --variants rummy --agents random heuristic --deals 500

The parts: :mod:`~experiments.tournament.deals` (lineups, duplicate deals, the chunks a
worker plays), :mod:`~experiments.tournament.run` (local processes or Ray, and the
evaluation of an agent against baselines), :mod:`~experiments.tournament.report` (the
pooled summary, its files and figure), :mod:`~experiments.tournament.matrix` (the
head-to-head table and heat map), :mod:`~experiments.tournament.resummarize` (a
summary written anew from a committed ``games.csv``) and
:mod:`~experiments.tournament.cli` (the command line).
"""

from experiments.common import MAX_DEALS
from experiments.tournament.cli import main, parse_args
from experiments.tournament.deals import (
    DEFAULT_GAMES,
    Chunk,
    absolute_policy,
    deal_seed,
    default_deals,
    lineups,
    make_chunks,
    run_chunk,
)
from experiments.tournament.matrix import format_matrix, head_to_head, matrix_figure, write_matrix
from experiments.tournament.report import display_names, format_table, summarize, win_rates_figure, write_results
from experiments.tournament.resummarize import read_games, resummarize
from experiments.tournament.run import evaluate_against_baselines, run_local, run_ray

__all__ = [
    "DEFAULT_GAMES",
    "MAX_DEALS",
    "Chunk",
    "absolute_policy",
    "deal_seed",
    "default_deals",
    "display_names",
    "evaluate_against_baselines",
    "format_matrix",
    "format_table",
    "head_to_head",
    "lineups",
    "main",
    "make_chunks",
    "matrix_figure",
    "parse_args",
    "read_games",
    "resummarize",
    "run_chunk",
    "run_local",
    "run_ray",
    "summarize",
    "win_rates_figure",
    "write_matrix",
    "write_results",
]
