"""Self-play masked PPO on the batched simulator ``rummy_env.vector``."""

from experiments.selfplay.config import Config, check_config, parse_args, vector_class
from experiments.selfplay.trainer import Trainer, main

__all__ = ["Config", "Trainer", "check_config", "main", "parse_args", "vector_class"]
