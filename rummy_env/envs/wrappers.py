"""PettingZoo's classic wrapper chain, with direct attribute forwarding.

``env()`` of every variant wraps ``raw_env`` the way PettingZoo's classic games do:
``TerminateIllegalWrapper`` -> ``AssertOutOfBoundsWrapper`` -> ``OrderEnforcingWrapper``.
PettingZoo's ``BaseWrapper`` forwards every attribute read (``agent_selection``,
``terminations``, ...) through ``__getattr__``, one level per wrapper; in a card game
that bookkeeping cost more than the rules engine itself (measured by
``experiments.benchmark``).  The subclasses here behave exactly like PettingZoo's
(they *are* those classes, for ``isinstance``), but read the hot attributes straight
from the unwrapped env, which is where the wrappers read them anyway.
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

# attributes every wrapper only passes through; the unwrapped env owns them
_HOT = ("agent_selection", "agents", "rewards", "terminations", "truncations", "infos", "_cumulative_rewards")


def _forward(name: str, check_reset: bool) -> property:
    def get(self: Any) -> Any:
        if check_reset and not self._has_reset:
            # the same error OrderEnforcingWrapper.__getattr__ raises
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._raw, name)

    return property(get, doc=f"``{name}`` of the unwrapped env.")


def _fast(cls: type, check_reset: bool = False) -> type:
    """``cls`` with the hot attributes as properties reading ``self._raw``."""
    namespace = {name: _forward(name, check_reset and name != "_cumulative_rewards") for name in _HOT}
    return type(cls.__name__, (cls,), namespace)


class TerminateIllegalWrapper(_fast(wrappers.TerminateIllegalWrapper)):  # type: ignore[misc]
    """PettingZoo's ``TerminateIllegalWrapper``: an illegal action ends the game and
    gives its player ``illegal_reward``."""

    def __init__(self, env: AECEnv, illegal_reward: float):
        self._raw = env.unwrapped
        super().__init__(env, illegal_reward)


class AssertOutOfBoundsWrapper(_fast(wrappers.AssertOutOfBoundsWrapper)):  # type: ignore[misc]
    """PettingZoo's ``AssertOutOfBoundsWrapper``: asserts that the action is in the
    action space (or None for a finished agent)."""

    def __init__(self, env: AECEnv):
        self._raw = env.unwrapped
        self._num_actions = env.unwrapped.num_actions
        super().__init__(env)

    def step(self, action: Any) -> None:
        # Discrete(n).contains for the common case of a plain int, without numpy
        if type(action) is int and 0 <= action < self._num_actions:
            self.env.step(action)
        else:
            super().step(action)


class OrderEnforcingWrapper(_fast(wrappers.OrderEnforcingWrapper, check_reset=True)):  # type: ignore[misc]
    """PettingZoo's ``OrderEnforcingWrapper``: errors on use before ``reset``."""

    def __init__(self, env: AECEnv):
        self._raw = env.unwrapped
        super().__init__(env)


def wrap(raw: AECEnv) -> AECEnv:
    """``raw`` in PettingZoo's classic chain: illegal action = loss (-1), action bounds
    asserted, call order enforced."""
    return OrderEnforcingWrapper(AssertOutOfBoundsWrapper(TerminateIllegalWrapper(raw, illegal_reward=-1)))
