"""What the search agents share: the acting player's sampled worlds, rollouts in them,
and the value of a finished (or cut-off) rollout.

A search agent is built with the env (``agents.make_agent``) and reads its engine state
``env.unwrapped.game_state`` *only* through ``state.resample(seat, rng)``
(``rummy_env.games.resample``): every world it searches is one its player cannot tell
from the true state, so it cannot peek at hidden cards.

Rollout policies play every seat of a world from that seat's own observation of the
world: ``"heuristic"`` (the variant's baseline heuristic, fed the encoded observation
and mask, as in the env) or ``"random"`` (uniform over the legal actions).
"""

from __future__ import annotations

import math
import time
from typing import Any

import numpy as np

from agents.base import Agent, legal_ids
from agents.random_agent import RandomAgent
from rummy_env.core.deadwood import deadwood
from rummy_env.core.tiles import TILE_VALUES
from rummy_env.encoding.masks import mask_from_legal

ROLLOUT_POLICIES = ("heuristic", "random")


class RolloutPolicy:
    """Plays any seat of a world (an engine state) of one env's variant.

    Args:
        env: the env the search agent plays (wrapped or raw); its encoder and layout
            turn a world's ``observation(seat)`` into what the heuristic reads.
        kind: ``"heuristic"`` or ``"random"``.
        seed: seed of the policies' generators.

    Raises:
        ValueError: an unknown kind, or no heuristic for this variant.
    """

    def __init__(self, env: Any, kind: str = "heuristic", seed: int | None = None):
        from agents.heuristics import HEURISTICS

        raw = env.unwrapped
        self.variant = raw.metadata["name"]
        self.kind = kind
        self._encode = raw._encode
        self._num_actions = raw.num_actions
        n = raw.game.num_players
        if kind == "heuristic":
            if self.variant not in HEURISTICS:
                raise ValueError(f"no heuristic rollout policy for {self.variant}: use rollout=random")
            self._agents: list[Agent] = [HEURISTICS[self.variant](env, seed) for _ in range(n)]
        elif kind == "random":
            self._agents = []
        else:
            raise ValueError(
                f"rollout={kind!r} is not a rollout policy: use one of {', '.join(ROLLOUT_POLICIES)} "
                "(pimc also takes fast, its compiled playouts, on Gin Rummy, basic Rummy and Crazy Rummy)"
            )
        self._random = RandomAgent(seed)

    def reset(self, seed: int | None) -> None:
        """Start a new episode; with ``seed``, reseed the random fallback."""
        self._random.reset(seed)

    def observed_action(self, observation: dict[str, np.ndarray], seat: int) -> int | None:
        """The heuristic's action from the env's own observation of ``seat`` (None for the
        random policy): the search agents' prior."""
        if not self._agents:
            return None
        return int(self._agents[seat].act(observation))

    def action(self, state: Any) -> int:
        """The policy's action in ``state`` for its acting player."""
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        if not self._agents:
            return legal[int(self._random.rng.integers(len(legal)))]
        seat = state.current_player()
        obs = {
            "observation": self._encode(state.observation(seat)),
            "action_mask": mask_from_legal(legal, self._num_actions),
        }
        return int(self._agents[seat].act(obs))


def hand_over(state: Any, hands_at_start: int) -> bool:
    """Whether the hand the search started in has ended (or the whole episode)."""
    return state.is_terminal() or state.hands_played > hands_at_start


def _share(badness: list[float]) -> list[float]:
    """1/k for each of the k seats with the least ``badness``, 0 for the others."""
    best = min(badness)
    winners = [q for q, b in enumerate(badness) if b == best]
    return [1.0 / len(winners) if q in winners else 0.0 for q in range(len(badness))]


def hand_values(state: Any, variant: str) -> list[float]:
    """Per seat, in [0, 1], how well the hand that just ended went: 1 for its only
    winner, 1/k each for k joint winners, 1/n each when no one won.

    Winners: the player who went out or won the showdown (Rummy, Gin), the lowest
    penalty (Crazy Rummy, R-CRAZY-13), ``last_hand["winners"]`` (Rummikub).
    """
    last, n = state.last_hand, state.num_players
    if variant == "crazy_rummy_v0":
        return [1.0 / n] * n if last["truncated"] else _share(list(last["hand_scores"]))
    winners = last["winners"] if variant == "rummikub_v0" else ([last["winner"]] if last["winner"] >= 0 else [])
    if not winners:
        return [1.0 / n] * n
    return [1.0 / len(winners) if q in winners else 0.0 for q in range(n)]


#: Points of :func:`position_values`' softmax temperature: 10 points less deadwood (or
#: penalty, or rack value) than another seat is worth e (2.7) times its share.
TEMPERATURE = 10.0


def position_values(state: Any, variant: str) -> list[float]:
    """Per seat, in [0, 1] and summing to 1, a guess of who is ahead in a hand still
    being played: a softmax of minus the points left (deadwood in Rummy and Gin, R-GIN-05;
    penalty in Crazy Rummy, R-CRAZY-12; rack value in Rummikub, R-RK-10) over
    :data:`TEMPERATURE`."""
    if variant == "rummikub_v0":
        points = [int(TILE_VALUES @ r) for r in state.racks]
    elif variant == "crazy_rummy_v0":
        from rummy_env.games.crazy_rummy.hands import penalty

        points = [penalty(h, state.wild_rank) for h in state.hands]
    else:
        points = [deadwood(h) for h in state.hands]
    low = min(points)
    weights = [math.exp((low - x) / TEMPERATURE) for x in points]
    total = sum(weights)
    return [w / total for w in weights]


#: Per action, values move this much closer to a draw (1/n): of two wins the sooner is
#: worth more, of two losses the later (a tie-break: it rarely changes a ranking otherwise).
DISCOUNT = 0.99


def rollout(
    state: Any, policy: RolloutPolicy, hands_at_start: int, max_steps: int, steps_before: int = 1
) -> list[float]:
    """Play ``state`` (changed in place) with ``policy`` to the end of the hand or for
    ``max_steps`` actions; the per-seat values of where it got (see :func:`hand_values`
    and :func:`position_values`), discounted towards 1/n by :data:`DISCOUNT` per action
    since the decision (``steps_before`` were played before the rollout)."""
    steps = 0
    while not hand_over(state, hands_at_start) and steps < max_steps:
        state.apply_action(policy.action(state))
        steps += 1
    values = value_of(state, policy.variant, hands_at_start)
    even, keep = 1.0 / len(values), DISCOUNT ** (steps + steps_before)
    return [even + (v - even) * keep for v in values]


def value_of(state: Any, variant: str, hands_at_start: int) -> list[float]:
    """Per-seat values of a world: exact once the hand is over, a guess before."""
    if hand_over(state, hands_at_start):
        return hand_values(state, variant)
    return position_values(state, variant)


class Budget:
    """A decision's budget: ``count`` iterations, or ``seconds`` of wall time if given
    (at least one iteration either way).  Time budgets make decisions depend on the
    machine's speed: use counts for replayable games."""

    def __init__(self, count: int, seconds: float | None):
        self.count, self.seconds = count, seconds
        self._start = time.perf_counter()
        self.used = 0

    def more(self) -> bool:
        """Whether to draw another world: always the first, then while ``seconds`` have
        not passed (a time budget) or ``used < count``."""
        if self.used == 0:
            return True
        if self.seconds is not None:
            return time.perf_counter() - self._start < self.seconds
        return self.used < self.count


def acting_state(env: Any, observation: dict[str, np.ndarray]) -> tuple[Any, int]:
    """The engine state of ``env`` and the acting seat, checked against the mask the
    agent was given (the agent must be asked on its own turn, in this env).

    Raises:
        ValueError: the episode is over, or the observation (its mask or its vector) is not
            the acting player's in this env (the agent was given another env's observation).
    """
    raw = env.unwrapped
    state = raw.game_state
    if state is None or state.is_terminal():
        raise ValueError("the search agent's env has no live episode: make the agent with the env it plays")
    seat = state.current_player()
    mask = np.asarray(observation["action_mask"])
    # the mask alone can agree across two deals (the same phase, the same legal ids): the
    # vector tells them apart, so a search never reads another deal than the one it is asked about
    own = raw._encode(state.observation(seat))  # from the state itself (a test may swap in another)
    if np.flatnonzero(mask).tolist() != state.legal_actions() or not np.array_equal(observation["observation"], own):
        raise ValueError(
            "the observation is not the acting player's in the agent's env: "
            "a search agent must be made with the env it plays (agents.make_agent(name, env))"
        )
    return state, seat


class SearchAgent(Agent):
    """What the search agents share: the env they read worlds from, the rollout policy,
    and the playout options; :meth:`act` plays a lone legal action at once and otherwise
    hands the acting seat's state to :meth:`choose`.

    Args:
        env: the env the agent plays in (its engine state is read only through
            ``resample`` of the acting seat, :func:`acting_state`).
        rollout: ``"heuristic"`` or ``"random"``.
        depth: most actions per playout before the position is judged.
        prior: the bonus of the heuristic's own choice (each agent says in what unit).
        time: seconds per decision instead of the agent's count budget, or None.
        seed: seed of the agent's generator and of the rollout policy.
    """

    def __init__(self, env: Any, rollout: str, depth: int, prior: float, time: float | None, seed: int | None):
        super().__init__(seed)
        self.env = env
        self.depth, self.prior, self.time = depth, prior, time
        self.policy = RolloutPolicy(env, rollout, seed)

    def reset(self, seed: int | None = None) -> None:
        """Start a new episode: the rollout policy too; with ``seed``, reseed both."""
        super().reset(seed)
        self.policy.reset(seed)

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any] | None = None) -> int:
        """The search's action id for ``observation`` (a lone legal action is played at once).

        Raises:
            ValueError: ``observation`` is not the acting seat's observation of the env the agent
                was made for (``acting_state``).
            TypeError: not an observation dict (``legal_ids``).
        """
        legal = [int(a) for a in legal_ids(observation)]
        state, seat = acting_state(self.env, observation)  # checked before a lone action is played too
        if len(legal) == 1:
            return legal[0]
        return self.choose(state, seat, legal, observation)

    def choose(self, state: Any, seat: int, legal: list[int], observation: dict[str, np.ndarray]) -> int:
        """The action among ``legal`` (ascending ids, at least two) for ``seat`` in ``state``."""
        raise NotImplementedError
