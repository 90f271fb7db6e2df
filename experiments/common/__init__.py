"""What several jobs share: the helpers of every job (:mod:`experiments.common.jobs`), the
intervals they report (:mod:`experiments.common.intervals`), game records
(:mod:`experiments.common.records`), the numbers of CSV rows read back
(:mod:`experiments.common.csv_rows`) and a clean stop on Ctrl-C
(:mod:`experiments.common.interrupt`)."""

from experiments.common.csv_rows import csv_number, csv_rows, csv_share
from experiments.common.intervals import mean_interval, t_quantile_95, wilson_interval
from experiments.common.jobs import (
    MAX_DEALS,
    MAX_ROLLOUT_STEPS,
    atomic_open,
    batch_size,
    check_deals,
    check_folder,
    deal_count,
    deal_count_or_zero,
    description,
    load_variant,
    max_workers,
    new_figure,
    output_folder,
    parse_env_options,
    path_arg,
    play_episode,
    positive_float,
    positive_int,
    program_name,
    resolve_variant,
    save_figure,
    take_back_empty,
    usable_cpus,
    worker_count,
)

__all__ = [
    "MAX_DEALS",
    "MAX_ROLLOUT_STEPS",
    "atomic_open",
    "batch_size",
    "check_deals",
    "check_folder",
    "csv_number",
    "csv_rows",
    "csv_share",
    "deal_count",
    "deal_count_or_zero",
    "description",
    "load_variant",
    "max_workers",
    "mean_interval",
    "new_figure",
    "output_folder",
    "parse_env_options",
    "path_arg",
    "play_episode",
    "positive_float",
    "positive_int",
    "program_name",
    "resolve_variant",
    "save_figure",
    "t_quantile_95",
    "take_back_empty",
    "usable_cpus",
    "wilson_interval",
    "worker_count",
]
