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

import numpy as np
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable, AECOrderEnforcingIterator

from rummy_env.games.errors import ActionTypeError

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
        self._direct = env is self._raw  # innermost wrapper: its env is the raw env
        super().__init__(env, illegal_reward)

    def observe(self, agent: Any) -> Any:
        # PettingZoo's observe: remember the acting agent's observation (for its mask)
        obs = self.env.observe(agent)
        raw = self._raw
        if agent == raw.agent_selection:
            self._prev_obs = obs
            infos = raw.infos
            self._prev_info = infos.get(agent, {})
        return obs

    def step(self, action: Any) -> None:
        # the common case, a legal id for a live agent after observing it, without the
        # attribute hops; everything else goes through PettingZoo's code
        prev = self._prev_obs
        raw = self._raw
        if (
            self._direct
            and type(prev) is dict
            and not self._terminated
            and type(action) is int
            and "action_mask" in prev
        ):
            agent = raw.agent_selection
            if not raw.terminations[agent] and not raw.truncations[agent] and prev["action_mask"][action]:
                self._prev_obs = None
                self._prev_info = None
                raw.step(action)
                return
        super().step(action)


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
        elif isinstance(action, (bool, np.bool_)):
            # Discrete.contains takes True for 1; the mask lookup downstream would not
            raise ActionTypeError(
                f"action {action!r} has type {type(action).__name__}: actions are integer ids "
                f"0..{self._num_actions - 1}"
            )
        else:
            super().step(action)


class OrderEnforcingWrapper(_fast(wrappers.OrderEnforcingWrapper, check_reset=True)):  # type: ignore[misc]
    """PettingZoo's ``OrderEnforcingWrapper``: errors on use before ``reset``.

    Over this module's ``AssertOutOfBoundsWrapper(TerminateIllegalWrapper(raw))`` it
    skips the pass-through level: ``observe`` and ``last`` go straight to the
    ``TerminateIllegalWrapper``, and so does ``step`` for an int in the action space
    (which is all ``AssertOutOfBoundsWrapper`` checks).
    """

    def __init__(self, env: AECEnv):
        self._raw = env.unwrapped
        inner = getattr(env, "env", None)
        chain = isinstance(env, AssertOutOfBoundsWrapper) and isinstance(inner, TerminateIllegalWrapper)
        self._inner = inner if chain else None
        self._num_actions = self._raw.num_actions if chain else 0
        super().__init__(env)

    def observe(self, agent: Any) -> Any:
        inner = self._inner
        if inner is None or not self._has_reset:
            return super().observe(agent)
        return inner.observe(agent)

    def last(self, observe: bool = True) -> tuple:
        inner = self._inner
        if inner is None or not self._has_reset:
            return super().last(observe)
        raw = self._raw
        agent = raw.agent_selection
        obs = inner.observe(agent) if observe else None
        return obs, raw._cumulative_rewards[agent], raw.terminations[agent], raw.truncations[agent], raw.infos[agent]

    def step(self, action: Any) -> None:
        inner = self._inner
        if (
            inner is not None
            and self._has_reset
            and type(action) is int
            and 0 <= action < self._num_actions
            and self._raw.agents
        ):
            self._has_updated = True
            inner.step(action)
            return
        super().step(action)

    def reset(self, seed: Any = None, options: Any = None) -> None:
        # PettingZoo marks the env as reset before resetting it; a reset refused for a
        # bad option must leave the wrapper as it was (not reset, if it never was)
        was_reset, was_updated = self._has_reset, self._has_updated
        try:
            super().reset(seed=seed, options=options)
        except Exception:
            self._has_reset, self._has_updated = was_reset, was_updated
            raise

    def agent_iter(self, max_iter: int = 2**63) -> Any:
        if not self._has_reset:
            return super().agent_iter(max_iter)
        return _AgentIterable(self, max_iter)


class _AgentIterator(AECOrderEnforcingIterator):
    """PettingZoo's order-enforcing agent iterator, reading the unwrapped env directly."""

    def __next__(self) -> Any:
        raw = self.env._raw
        if not raw.agents or self.iters_til_term <= 0:
            raise StopIteration
        self.iters_til_term -= 1
        env = self.env
        assert env._has_updated, "need to call step() or reset() in a loop over `agent_iter`"
        env._has_updated = False
        return raw.agent_selection


class _AgentIterable(AECOrderEnforcingIterable):
    def __iter__(self) -> _AgentIterator:
        return _AgentIterator(self.env, self.max_iter)


def wrap(raw: AECEnv) -> AECEnv:
    """``raw`` in PettingZoo's classic chain: an illegal action ends the game with
    ``raw.illegal_reward`` for its player, action bounds asserted, call order enforced."""
    return OrderEnforcingWrapper(AssertOutOfBoundsWrapper(TerminateIllegalWrapper(raw, raw.illegal_reward)))
