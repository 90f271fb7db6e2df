"""PettingZoo's classic wrapper chain, with direct attribute forwarding.

``env()`` of every variant wraps ``raw_env`` the way PettingZoo's classic games do:
``TerminateIllegalWrapper`` -> ``AssertOutOfBoundsWrapper`` -> ``OrderEnforcingWrapper``.
PettingZoo's ``BaseWrapper`` forwards every attribute read (``agent_selection``,
``terminations``, ...) through ``__getattr__``, one level per wrapper; in a card game
that bookkeeping cost more than the rules engine itself (measured by
``experiments.benchmark``).  The subclasses here behave exactly like PettingZoo's
(they *are* those classes, for ``isinstance``), but read the hot attributes straight
from the unwrapped env, which is where the wrappers read them anyway.

They rely on no PettingZoo internals that changed between 1.24.3 and 1.27 (1.24.0 to 1.24.2
assign ``agent_selection`` and the others on the wrapper in ``reset``/``step``, which these
read-only properties refuse: the pin's lower bound is 1.24.3): the illegal-move
ending and the action checks are written here on the unwrapped env's ``AECEnv`` methods,
and the order-enforcing iterator on the ``_has_reset``/``_has_updated`` flags every
version has.  Bad actions get ``raw_env``'s errors (which value, the range or the type)
instead of PettingZoo's ``"action is not in action space"`` assertion.
"""

from __future__ import annotations

from typing import Any

from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger
from pettingzoo.utils.wrappers.order_enforcing import AECOrderEnforcingIterable, AECOrderEnforcingIterator

from rummy_env.envs.driver import TurnBasedEnv
from rummy_env.games.errors import to_action_id

# attributes every wrapper only passes through; the unwrapped env owns them
_HOT = ("agent_selection", "agents", "rewards", "terminations", "truncations", "infos", "_cumulative_rewards")


# OrderEnforcingWrapper's methods carry TurnBasedEnv's docstrings (help() on env() shows
# them), plus this: PettingZoo answers a call out of order before raw_env sees it
_OUT_OF_ORDER = """

        Through ``env()`` (PettingZoo's ``OrderEnforcingWrapper``), before ``reset()``
        ``step``, ``observe`` and ``render`` raise ``AssertionError`` and ``last`` raises
        ``AttributeError``, not ``raw_env``'s ``RuntimeError``; ``step`` after the episode
        ended logs a warning and does nothing.
        """


def _doc(method: Any) -> str:
    """``method``'s docstring and the note ``_OUT_OF_ORDER``."""
    return (method.__doc__ or "").rstrip() + _OUT_OF_ORDER  # None under python -OO


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
    gives its player ``illegal_reward``; ``infos[agent]["illegal_action"]`` then says
    which action it was and why it was illegal (the engine's message, e.g. ``"action 3
    (discard 4C) is not legal for player 0 now; legal: draw upcard, pass"``).

    ``observe``, ``reset`` and ``step`` are written here on the unwrapped env's
    ``AECEnv`` methods alone (``_accumulate_rewards``, ``_deads_step_first``,
    ``_was_dead_step``), not on PettingZoo's implementation, whose internals differ
    between 1.24 and 1.27 (1.24 steps dead agents and moves ``agent_selection`` on the
    wrapper itself); the behaviour is PettingZoo's.

    Raises (``step``, for a live agent):
        ActionTypeError: the action is not an integer (which value, which type, the ids).
        IllegalActionError: an integer outside the action ids (which value, the range).
        ValueError: the wrapped env gives no action mask (``observation["action_mask"]``
            or ``info["action_mask"]``).
    """

    def __init__(self, env: AECEnv, illegal_reward: float):
        self._raw = env.unwrapped
        self._direct = env is self._raw  # innermost wrapper: its env is the raw env
        super().__init__(env, illegal_reward)
        self._illegal_value = illegal_reward
        self._prev_obs: Any = None
        self._prev_info: Any = None
        self._terminated = False  # terminated by an illegal move

    def reset(self, seed: Any = None, options: Any = None) -> None:
        """Reset the wrapped env (its ``reset``: the same arguments and errors) and forget
        the last observation and an illegal-move termination."""
        self.env.reset(seed=seed, options=options)
        self._terminated = False
        self._prev_obs = None
        self._prev_info = None

    def observe(self, agent: Any) -> Any:
        """The wrapped env's observation of ``agent``; the acting agent's is kept, for the
        mask :meth:`step` checks."""
        # PettingZoo's observe: remember the acting agent's observation (for its mask)
        obs = self.env.observe(agent)
        raw = self._raw
        if agent == raw.agent_selection:
            self._prev_obs = obs
            self._prev_info = raw.infos.get(agent, {})
        return obs

    def step(self, action: Any) -> None:
        """Play ``action`` for the acting agent; an illegal one ends the game for its
        player instead (the class docstring, its errors too)."""
        raw = self._raw
        agent = raw.agent_selection
        prev = self._prev_obs
        # the common case, a legal id for a live agent after observing it, without the
        # attribute hops
        if (
            self._direct
            and type(prev) is dict
            and not self._terminated
            and type(action) is int
            and "action_mask" in prev
            and 0 <= action < len(prev["action_mask"])
            and not raw.terminations[agent]
            and not raw.truncations[agent]
            and prev["action_mask"][action]
        ):
            self._prev_obs = None
            self._prev_info = None
            raw.step(action)
            return
        if prev is None:
            prev = self.observe(agent)
        mask = prev["action_mask"] if isinstance(prev, dict) else (self._prev_info or {}).get("action_mask")
        if mask is None:
            raise ValueError(
                "TerminateIllegalWrapper needs an action mask in observation['action_mask'] or info['action_mask']"
            )
        self._prev_obs = None
        self._prev_info = None
        dead = raw.terminations[agent] or raw.truncations[agent]
        if dead:
            if self._terminated:
                raw._was_dead_step(action)
            else:
                self.env.step(action)
            return
        action = to_action_id(action, len(mask))
        if mask[action]:
            self.env.step(action)
        else:
            self._terminate(agent, action)

    def _terminate(self, agent: str, action: int) -> None:
        """End the game for an illegal ``action`` of ``agent`` (PettingZoo's ending)."""
        EnvLogger.warn_on_illegal_move()
        raw = self._raw
        raw._cumulative_rewards[agent] = 0.0
        raw.terminations = dict.fromkeys(raw.agents, True)
        raw.truncations = dict.fromkeys(raw.agents, True)
        raw.rewards = dict.fromkeys(raw.agents, 0.0)
        raw.rewards[agent] = float(self._illegal_value)
        raw.infos[agent] = {**raw.infos[agent], "illegal_action": self._illegal_reason(action)}
        raw._accumulate_rewards()
        raw._deads_step_first()
        self._terminated = True

    def _illegal_reason(self, action: int) -> str:
        """The engine's message for ``action`` (the state is not changed)."""
        state = getattr(self._raw, "game_state", None)
        text = f"action {action} is not legal now"
        if state is not None and hasattr(state, "clone"):
            try:
                state.clone().apply_action(action)
            except ValueError as err:
                text = str(err)
        return text


class AssertOutOfBoundsWrapper(_fast(wrappers.AssertOutOfBoundsWrapper)):  # type: ignore[misc]
    """PettingZoo's ``AssertOutOfBoundsWrapper``, with the errors of ``raw_env``: an action
    of a live agent must be an integer id of the action space; a finished agent steps with
    None.

    Raises (``step``, for a live agent):
        ActionTypeError: (a ``TypeError`` and ``ValueError``) not an integer: a float,
            string, bool or None (the value, its type, the ids allowed).
        IllegalActionError: (a ``ValueError``) an integer outside ``0..num_actions-1``.
    """

    def __init__(self, env: AECEnv):
        self._raw = env.unwrapped
        self._num_actions = env.unwrapped.num_actions
        super().__init__(env)

    def step(self, action: Any) -> None:
        """Step the wrapped env with ``action`` after checking it is an action id in
        range (the errors in the class docstring)."""
        # Discrete(n).contains for the common case of a plain int, without numpy
        if type(action) is int and 0 <= action < self._num_actions:
            self.env.step(action)
            return
        raw = self._raw
        agent = raw.agent_selection
        if not (raw.terminations[agent] or raw.truncations[agent]):
            # PettingZoo asserts "action is not in action space"; say which value and why
            action = to_action_id(action, self._num_actions)
        self.env.step(action)


class OrderEnforcingWrapper(_fast(wrappers.OrderEnforcingWrapper, check_reset=True)):  # type: ignore[misc]
    """PettingZoo's ``OrderEnforcingWrapper``: errors on use before ``reset``.

    Over this module's ``AssertOutOfBoundsWrapper(TerminateIllegalWrapper(raw))`` it
    skips the pass-through level: ``observe`` and ``last`` go straight to the
    ``TerminateIllegalWrapper``, and so does ``step`` for an int in the action space
    (which is all ``AssertOutOfBoundsWrapper`` checks).

    ``step``, ``observe``, ``last`` and ``reset`` carry ``TurnBasedEnv``'s docstrings (``help``
    shows them), except for calls out of order: before ``reset()``, ``step``, ``observe`` and ``render``
    raise ``AssertionError`` and ``last`` raises ``AttributeError`` (not ``RuntimeError``), and
    ``step`` after the episode ended logs a warning and does nothing.
    """

    def __init__(self, env: AECEnv):
        self._raw = env.unwrapped
        inner = getattr(env, "env", None)
        chain = isinstance(env, AssertOutOfBoundsWrapper) and isinstance(inner, TerminateIllegalWrapper)
        self._inner = inner if chain else None
        self._num_actions = self._raw.num_actions if chain else 0
        super().__init__(env)

    def observe(self, agent: Any) -> Any:
        """``agent``'s observation (as :meth:`rummy_env.envs.driver.TurnBasedEnv.observe`)."""
        inner = self._inner
        if inner is None or not self._has_reset:
            return super().observe(agent)
        return inner.observe(agent)

    observe.__doc__ = _doc(TurnBasedEnv.observe)

    def last(self, observe: bool = True) -> tuple:
        """The acting agent's ``(observation, reward, termination, truncation, info)`` (as
        :meth:`rummy_env.envs.driver.TurnBasedEnv.last`)."""
        inner = self._inner
        if self._has_reset and not self._raw.agents:
            return self._raw.last(observe)  # its error: the episode has ended, call reset()
        if inner is None or not self._has_reset:
            return super().last(observe)
        raw = self._raw
        agent = raw.agent_selection
        obs = inner.observe(agent) if observe else None
        return obs, raw._cumulative_rewards[agent], raw.terminations[agent], raw.truncations[agent], raw.infos[agent]

    last.__doc__ = _doc(TurnBasedEnv.last)

    def step(self, action: Any) -> None:
        """Play ``action`` for the acting agent (as :meth:`rummy_env.envs.driver.TurnBasedEnv.step`)."""
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

    step.__doc__ = _doc(TurnBasedEnv.step)

    def reset(self, seed: Any = None, options: Any = None) -> None:
        """Deal a new episode (as :meth:`rummy_env.envs.driver.TurnBasedEnv.reset`)."""
        # PettingZoo marks the env as reset before resetting it; a reset refused for a
        # bad option must leave the wrapper as it was (not reset, if it never was)
        was_reset, was_updated = self._has_reset, self._has_updated
        try:
            super().reset(seed=seed, options=options)
        except Exception:
            self._has_reset, self._has_updated = was_reset, was_updated
            raise

    reset.__doc__ = _doc(TurnBasedEnv.reset)

    def agent_iter(self, max_iter: int = 2**63) -> Any:
        """The acting agents, one per step, until the episode ends or ``max_iter`` steps
        (PettingZoo's ``agent_iter``).

        Raises:
            AssertionError: before the first ``reset`` (PettingZoo's order enforcing).
        """
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
