"""Gin Rummy, version 0: ``env()`` and ``raw_env`` (documentation: ``rummy_env.envs.gin_rummy``)."""

from rummy_env.envs.gin_rummy import __doc__, env, raw_env  # noqa: F401

__all__ = ["env", "raw_env"]
