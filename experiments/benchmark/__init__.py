"""``python -m experiments.benchmark``: the speed of the environments.

:mod:`~experiments.benchmark.envs` times random legal play through ``env()`` (and, with
``--compare``, OpenSpiel's and RLCard's Gin Rummy), :mod:`~experiments.benchmark.vector`
the batched engines (``--vector``), :mod:`~experiments.benchmark.rummikub` the Rummikub
solver in real hands (``--variant rummikub``); :mod:`~experiments.benchmark.cli` is the
command line.
"""

from experiments.benchmark.cli import main
from experiments.benchmark.envs import measure_env

__all__ = ["main", "measure_env"]
