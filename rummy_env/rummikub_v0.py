"""Rummikub, version 0: ``env()`` and ``raw_env`` (documentation: ``rummy_env.envs.rummikub``)."""

from rummy_env.envs.rummikub import __doc__, env, raw_env  # noqa: F401

__all__ = ["env", "raw_env"]
