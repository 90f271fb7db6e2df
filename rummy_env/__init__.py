"""rummy_env: PettingZoo environments for the Rummy family of games.

Import a variant module to get its environment, e.g. ``from rummy_env import rummy_v0``.
This package root stays light on purpose: importing it loads neither pettingzoo nor
gymnasium, so the rules engines can be used on their own.
"""

__version__ = "0.1.0"

#: Environment modules by name (``rummy_env.<name>``), in the order jobs list them.
VARIANTS: tuple[str, ...] = ("rummy_v0", "crazy_rummy_v0", "gin_rummy_v0", "rummikub_v0")
