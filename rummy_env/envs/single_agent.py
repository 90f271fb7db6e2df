"""One seat of a rummy_env AEC game as a Gymnasium environment, for single-agent RL.

The learner plays one seat; the other seats are played by opponent policies (any object
with ``act(observation, info) -> int``, e.g. the agents of the ``agents`` package or a
frozen copy of the learner).  Each ``step`` applies the learner's action, then lets the
opponents move until it is the learner's turn again or the episode ends.  The action mask
of the learner's turn is exposed as ``action_masks()``, the method ``sb3_contrib``'s
``MaskablePPO`` calls.

Example::

    from rummy_env import gin_rummy_v0
    from rummy_env.envs.single_agent import SingleAgentEnv
    from agents import make_agent

    aec = gin_rummy_v0.env()
    env = SingleAgentEnv(aec, opponents=[make_agent("random", aec, seed=1)], seed=0)
    obs, info = env.reset()
"""

from __future__ import annotations

import copy
import inspect
from collections.abc import Sequence
from typing import Any, Protocol

import gymnasium
import numpy as np
from gymnasium import spaces

from rummy_env.games.errors import to_action_id
from rummy_env.games.options import check_seed


class Policy(Protocol):
    """What :class:`SingleAgentEnv` asks of an opponent: ``act`` (every agent of ``agents``
    has it)."""

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any] | None = None) -> int:
        """The action id to play from the opponent's own ``observation`` (the env's dict:
        ``"observation"`` float32 (layout size,), ``"action_mask"`` int8 (num_actions,)), a
        legal one."""
        ...


def check_policies(policies: Sequence[Any]) -> None:
    """Refuse, before any game, an opponent that cannot play.

    Raises:
        TypeError: ``policies`` is one name, or an entry without a callable
            ``act(observation, info)`` (a name says how to build the agent).
    """
    if isinstance(policies, str):
        raise TypeError(
            f"opponents={policies!r} is a name, not a list of policies: build the agents with "
            f"agents.make_agent({policies!r}, aec_env), or use single_agent_env(variant, opponents=...)"
        )
    for p in policies:
        if isinstance(p, str):
            raise TypeError(
                f"opponent {p!r} is a name, not a policy: build it with agents.make_agent({p!r}, aec_env) "
                f"(through gymnasium.make: opponents=lambda aec: [agents.make_agent({p!r}, aec, seed=1)])"
            )
        if not callable(getattr(p, "act", None)):
            raise TypeError(
                f"opponent {p!r} has no act(observation, info) method: an opponent is an object with one "
                "(an agents.Agent, e.g. agents.make_agent('heuristic', aec_env)) or the name 'random' "
                "(single_agent_env(variant, opponents=...))"
            )


class SingleAgentEnv(gymnasium.Env):
    """A Gymnasium view of one seat of an AEC env, the other seats played by ``opponents``.

    Args:
        aec_env: a wrapped env of this package (``<variant>.env(...)``).
        opponents: one policy per other seat, in seat order after the learner's (the
            list is cycled if shorter); each needs ``act(observation, info) -> int``.
        learner_seat: the learner's seat, or None for a seat drawn from the seeded
            generator at every reset (so the learner plays every position).
        seed: seed of the env's generator (deal seeds and seat draws).

    Spaces: ``observation_space`` is the AEC env's ``observation`` Box (float32);
    ``action_space`` its ``Discrete``.  Rewards are the learner's AEC rewards, summed over
    the opponents' moves in between.  ``info`` carries the AEC ``infos`` of the learner
    (``hand_score``, ``total_score`` at a hand's end) and ``"action_mask"``; ``reset``'s
    also ``"skipped_episodes"``: deals that ended before the learner's first decision
    and were dealt again.

    The learner's actions go through the AEC env's wrappers: an illegal one ends the
    episode with the env's ``illegal_reward`` (use ``action_masks()``).  One opponent
    object may sit in several seats (the list is cycled), so opponents that keep state
    between moves should be given once per seat.  An opponent whose ``reset`` takes a
    ``seed`` (``agents.Agent``) is reseeded at every deal from the deal's seed, one seed per
    seat (an object in several seats keeps its last seat's), so the same
    ``reset(seed=...)`` and the same learner actions give the same episode; others get
    ``reset()``.  A turn or hand limit (``max_turns``, ``max_hands``) ends an episode as
    ``truncated``, everything else as ``terminated``.

    Raises:
        ValueError: no opponent given, a learner seat outside the table, or a seed that is
            neither None nor an int >= 0.
        TypeError: ``aec_env`` is not an AEC env, or an opponent without an ``act`` method
            (e.g. the name ``"random"``: :func:`single_agent_env` takes it).
    """

    metadata = {"render_modes": ["ansi", "rgb_array"], "render_fps": 4}
    MAX_SKIPPED = 100  # consecutive deals that end before the learner acts, before giving up

    def __init__(
        self, aec_env: Any, opponents: Sequence[Policy], learner_seat: int | None = None, seed: int | None = None
    ):
        super().__init__()
        if not hasattr(aec_env, "possible_agents") or not hasattr(aec_env, "agent_iter"):
            raise TypeError(
                f"aec_env must be an AEC env of this package (<variant>.env()), got {type(aec_env).__name__}"
            )
        if not opponents:
            raise ValueError("SingleAgentEnv needs at least one opponent policy for the other seats")
        check_policies(opponents)  # a name ("random") gets its own message
        check_seed("seed", seed)
        n = len(aec_env.possible_agents)
        if learner_seat is not None and (
            isinstance(learner_seat, bool)
            or not isinstance(learner_seat, (int, np.integer))
            or not 0 <= learner_seat < n
        ):
            raise ValueError(f"learner_seat {learner_seat!r} is not a seat: use 0..{n - 1} or None")
        self.aec = aec_env
        self.opponents = list(opponents)
        self.learner_seat = learner_seat
        agent = aec_env.possible_agents[0]
        self.observation_space = aec_env.observation_space(agent)["observation"]
        self.action_space = spaces.Discrete(aec_env.action_space(agent).n)
        self._rng = np.random.default_rng(seed)
        self._learner = agent
        self._mask = np.zeros(self.action_space.n, dtype=np.int8)
        self._started = False  # step() before any reset() is refused as such
        # rendering is the AEC env's (its render_mode; "human" would print every opponent move too)
        mode = getattr(aec_env, "render_mode", None)
        self.render_mode = mode if mode in self.metadata["render_modes"] else None

    def render(self) -> str | np.ndarray | None:
        """The AEC env's picture of the table as the acting player (the learner, during its
        turn) sees it: text (``"ansi"``) or a uint8 image ``(H, W, 3)`` (``"rgb_array"``)."""
        return self.aec.render() if self.render_mode is not None else None

    def reset(self, *, seed: int | None = None, options: dict | None = None) -> tuple[np.ndarray, dict]:
        """Deal a new episode and play the opponents up to the learner's first turn.

        ``seed`` reseeds the env's generator (Gymnasium's contract); ``options`` go to
        the AEC env's ``reset`` (a stacked deck, a dealer).

        Returns:
            ``(observation, info)``: the learner's float32 ``(layout size,)`` observation;
            ``info["action_mask"]`` int8 ``(num_actions,)`` (a copy) and
            ``info["skipped_episodes"]``, the deals dealt again because they ended before
            the learner's first decision.

        Raises:
            ValueError: a seed that is neither None nor an int >= 0 (a NumPy integer is an
                int, ``True`` is not), as the constructor's, or ``options`` the AEC env refuses
                (its message); nothing changes then: the running episode, the seat, the
                opponents and the generators stay as they were.
            RuntimeError: a stacked episode (``options``) ends before the learner acts (the
                env has played it then: reset again), or ``MAX_SKIPPED`` (100) deals in a row
                ended before the learner's first decision.
        """
        # Gymnasium's seeding takes Python ints alone (np.int64(3) was its gymnasium.error.Error)
        # and True as 1: checked as the constructor, the AEC env and SeatVectorEnv check seeds
        seed = check_seed("seed", seed)
        # refused options must leave everything as it was (the seat draw and the deal
        # seed come from the generator first): keep what this call changes until the
        # AEC env has accepted them
        saved = (copy.deepcopy(self._rng), self._learner, getattr(self, "_policies", None), self._np_random)
        saved_seed = getattr(self, "_np_random_seed", None)
        super().reset(seed=seed)
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        agents = self.aec.possible_agents
        seat = self.learner_seat if self.learner_seat is not None else int(self._rng.integers(len(agents)))
        self._learner = agents[seat]
        others = [agents[(seat + k) % len(agents)] for k in range(1, len(agents))]
        self._policies = {a: self.opponents[i % len(self.opponents)] for i, a in enumerate(others)}
        # An episode can end before the learner's first decision (in Gin Rummy the
        # opponent may take the upcard and knock at once): the learner had no choice in
        # it, so it is dealt again, and counted in info["skipped_episodes"].
        for skipped in range(self.MAX_SKIPPED):
            deal_seed = int(self._rng.integers(2**31))
            try:
                self.aec.reset(seed=deal_seed, options=options)
            except Exception:
                if skipped == 0:
                    self._rng, self._learner, policies, self._np_random = saved
                    self._np_random_seed = saved_seed
                    if policies is not None:
                        self._policies = policies
                raise
            # opponents with generators of their own (agents.Agent) are reseeded from the
            # deal's seed, one seed per seat as the tournament does (agents.seat_seed, which
            # rummy_env cannot import): the same reset(seed=...) then plays the same episode
            for k, policy in enumerate(self._policies.values(), start=1):
                reset = getattr(policy, "reset", None)
                if reset is None:
                    continue
                try:
                    takes_seed = "seed" in inspect.signature(reset).parameters
                except (TypeError, ValueError):  # a callable without a signature Python can read
                    takes_seed = False
                if takes_seed:
                    reset(seed=deal_seed + 7919 * k)
                else:
                    reset()
            self._started = True
            obs, _, terminated, truncated, info = self._advance()
            if not (terminated or truncated):
                return obs, {**info, "skipped_episodes": skipped}
            if options:  # a stacked deal cannot be dealt again; None or {} deals from the seed
                raise RuntimeError("the stacked episode ended before the learner's first decision")
        raise RuntimeError(
            f"{self.MAX_SKIPPED} deals in a row ended before the learner's first decision: "
            "is max_turns smaller than the number of seats?"
        )

    def step(self, action: int) -> tuple[np.ndarray, float, bool, bool, dict]:
        """The learner's action, then the opponents' moves until the learner's next turn.

        Returns:
            (observation float32 ``observation_space.shape``, reward float: the learner's, summed
            over the opponents' moves, terminated bool, truncated bool, info dict: the learner's
            AEC ``infos`` and ``"action_mask"`` int8 ``(num_actions,)`` (as ``env()``'s; Gymnasium's
            ``action_space.sample(mask=...)`` takes it), all 0 at the end).

        Raises:
            ActionTypeError: an action that is not an integer id (a float, bool, string).
            IllegalActionError: an id out of range (an illegal id in range ends the episode,
                as in ``env()``).
            RuntimeError: no episode is running (call ``reset()``).
        """
        if not self._started or not self.aec.agents or self.aec.agent_selection != self._learner:
            raise RuntimeError(
                "no episode is running (it ended, or reset() was never called): call reset() before step()"
            )
        self.aec.step(to_action_id(action, self.action_space.n))
        return self._advance()

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions now, int8 ``(num_actions,)``, a copy (``MaskablePPO`` reads this).

        Raises:
            RuntimeError: before :meth:`reset` (as ``SeatVectorEnv.action_masks``).
        """
        if not self._started:
            raise RuntimeError("call reset() before action_masks()")
        return self._mask.copy()

    def _advance(self) -> tuple[np.ndarray, float, bool, bool, dict]:
        """Play opponents until the learner must act or the episode ends.

        Returns the learner's observation, its reward since its last action, whether the
        episode ended (terminated), whether it was cut short instead (truncated: a turn or
        hand limit; an illegal action, which PettingZoo's wrapper marks both, terminates),
        and its info.
        """
        aec, learner = self.aec, self._learner
        reward = 0.0
        while aec.agents:
            agent = aec.agent_selection
            obs, r, termination, truncation, info = aec.last()
            if agent == learner:
                reward += r
                if termination or truncation:
                    final = aec.observe(learner)["observation"]
                    self._mask = np.zeros(self.action_space.n, dtype=np.int8)
                    info = {**info, "action_mask": self._mask.copy()}
                    while aec.agents:  # finish the episode for every agent
                        aec.step(None)
                    return np.array(final), reward, bool(termination), bool(truncation and not termination), info
                self._mask = obs["action_mask"].astype(np.int8)  # a copy: the caller may write to info's
                return np.array(obs["observation"]), reward, False, False, {**info, "action_mask": self._mask.copy()}
            if termination or truncation:
                aec.step(None)
            else:
                aec.step(self._policies[agent].act(obs, info))
        raise RuntimeError("the AEC env has no agents left before the learner's last step")


class RandomOpponent:
    """A uniform random opponent over the legal actions of the mask.

    Its choices come from a generator of its own, which :class:`SingleAgentEnv` reseeds at
    every deal from the deal's seed (:meth:`reset`, as it reseeds ``agents.Agent``
    opponents): the same ``reset(seed=...)`` gives the same episode.  It never draws from
    the AEC env's generator, which deals the later hands of an ``episode="game"`` game: the
    deals of a seeded game are then the same whatever the learner plays.

    Args:
        aec_env: the AEC env it plays in (not read; kept so that ``RandomOpponent(aec)``
            still builds one).
        seed: seed of its generator until :meth:`reset` reseeds it (None: fresh entropy).
    """

    def __init__(self, aec_env: Any = None, seed: int | None = None):
        check_seed("seed", seed)
        self._rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Reseed its generator from ``seed`` (None: keep drawing from the current one).

        Raises:
            ValueError: a seed that is neither None nor an int >= 0.
        """
        if check_seed("seed", seed) is not None:
            self._rng = np.random.default_rng(seed)

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any] | None = None) -> int:
        """A uniformly random legal id of ``observation["action_mask"]`` (int8 ``(num_actions,)``).

        Raises:
            ValueError: the mask has no legal action.
        """
        legal = np.flatnonzero(observation["action_mask"])
        if legal.size == 0:
            raise ValueError("the action mask has no legal action: this opponent is not acting now")
        return int(legal[self._rng.integers(legal.size)])


def single_agent_env(
    variant: str,
    opponents: Any = None,
    learner_seat: int | None = None,
    seed: int | None = None,
    render_mode: str | None = None,
    **options: Any,
) -> SingleAgentEnv:
    """The entry point of the Gymnasium ids ``rummy_env/GinRummy-v0`` etc.

    ``gymnasium.make("rummy_env/GinRummy-v0", opponents=..., knock_limit=5)`` calls
    ``single_agent_env("gin_rummy_v0", opponents=..., knock_limit=5)``.

    Args:
        variant: the env module's name, e.g. ``"gin_rummy_v0"`` (``rummy_env.VARIANTS``).
        opponents: None (default) or ``"random"``: a :class:`RandomOpponent` in every
            other seat; a sequence of policies (``act(observation, info) -> int``, e.g.
            ``agents`` objects), cycled over the other seats; or a callable
            ``opponents(aec_env) -> sequence of policies``, for agents that are built
            from the env, e.g. ``lambda aec: [agents.make_agent("heuristic", aec, seed=1)]``.
        learner_seat, seed: as :class:`SingleAgentEnv`.
        render_mode: None, ``"ansi"`` or ``"rgb_array"`` (``render()`` returns the AEC
            env's text or image; ``"human"``, which would print every opponent move too, is
            refused).
        options: options of ``<variant>.env()`` (e.g. ``knock_limit=5``).

    Raises:
        ValueError: an unknown variant, a bad option or render mode, no opponent.
        TypeError: ``opponents`` of another kind.
    """
    import importlib

    from rummy_env import VARIANTS

    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}: use one of {', '.join(VARIANTS)}")
    if render_mode not in (None, *SingleAgentEnv.metadata["render_modes"]):
        raise ValueError(
            f"render_mode={render_mode!r} is not supported by the single-agent view: use 'ansi', 'rgb_array' or None"
        )
    aec = importlib.import_module(f"rummy_env.{variant}").env(render_mode=render_mode, **options)
    if opponents is None or (isinstance(opponents, str) and opponents == "random"):
        policies: Sequence[Policy] = [RandomOpponent(aec)]
    elif isinstance(opponents, str):
        raise ValueError(
            f"opponents={opponents!r}: the only name known here is 'random'; for the agents package's, "
            "pass opponents=lambda aec: [agents.make_agent(name, aec, seed=1)]"
        )
    elif callable(opponents) and not hasattr(opponents, "act"):
        policies = list(opponents(aec))
    elif hasattr(opponents, "act"):
        policies = [opponents]
    elif isinstance(opponents, Sequence):
        policies = [RandomOpponent(aec) if p == "random" else p for p in opponents]
    else:
        raise TypeError(
            f"opponents of type {type(opponents).__name__}: pass None, 'random', a list of policies "
            "(act(observation, info) -> int) or a callable aec_env -> list of policies"
        )
    check_policies(policies)
    return SingleAgentEnv(aec, policies, learner_seat=learner_seat, seed=seed)
