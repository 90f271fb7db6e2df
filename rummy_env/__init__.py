"""rummy_env: PettingZoo environments for the Rummy family of games.

Import a variant module to get its environment, e.g. ``from rummy_env import rummy_v0``.
This package root stays light on purpose: importing it loads neither pettingzoo nor
gymnasium, so the rules engines can be used on their own.  It does register the
variants' ids in PettingZoo's registry (``pettingzoo.make("aec", "rummy_env/gin_rummy-v0")``,
PettingZoo 1.27+) and the single-agent view in Gymnasium's
(``gymnasium.make("rummy_env/GinRummy-v0")``), as soon as either framework is imported
(``rummy_env.envs.registration``); :func:`make` makes the AEC ids on any PettingZoo.
"""

__version__ = "0.1.0"

#: Environment modules by name (``rummy_env.<name>``), in the order jobs list them.
VARIANTS: tuple[str, ...] = ("rummy_v0", "crazy_rummy_v0", "gin_rummy_v0", "rummikub_v0")


def make(env_id: str, **options):
    """``<variant>.env(**options)`` by its PettingZoo id (``"rummy_env/gin_rummy-v0"``), on
    every supported PettingZoo version (``pettingzoo.make`` exists from 1.27 on); see
    :mod:`rummy_env.envs.registration`.

    Raises:
        ValueError: an unknown id or a bad option.
    """
    from rummy_env.envs.registration import make as _make

    return _make(env_id, **options)


# the ids of PettingZoo's and Gymnasium's registries, without importing either here
from rummy_env.envs import registration as _registration  # noqa: E402

_registration.install()
