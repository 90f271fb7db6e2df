"""What several jobs share: the helpers of every job (:mod:`experiments.common.jobs`), game
records (:mod:`experiments.common.records`) and a clean stop on Ctrl-C
(:mod:`experiments.common.interrupt`)."""

from experiments.common.jobs import (
    atomic_open,
    batch_size,
    description,
    load_variant,
    max_workers,
    new_figure,
    nonnegative_int,
    output_folder,
    parse_env_options,
    play_episode,
    positive_float,
    positive_int,
    program_name,
    resolve_variant,
    usable_cpus,
    wilson_interval,
    worker_count,
)

__all__ = [
    "atomic_open",
    "batch_size",
    "description",
    "load_variant",
    "new_figure",
    "nonnegative_int",
    "output_folder",
    "parse_env_options",
    "play_episode",
    "positive_float",
    "max_workers",
    "positive_int",
    "program_name",
    "resolve_variant",
    "usable_cpus",
    "worker_count",
    "wilson_interval",
]
