"""The one interface every agent shares: baselines, heuristics and trained policies."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from rummy_env.core.cards import mask_of

#: How to install what a ``policy:`` model needs (torch, sb3-contrib): the ``train`` extra,
#: torch pinned first so that pip does not fetch a CUDA build.
TRAIN_EXTRA = 'pip install torch==2.13.0 && pip install -e ".[train]"'


class Agent(ABC):
    """An agent picks an action id from what its player observes, nothing else.

    Subclasses implement :meth:`act`.  Agents that use randomness draw it from
    ``self.rng``, seeded by :meth:`reset`, so that a tournament replays exactly.
    """

    name = "agent"

    def __init__(self, seed: int | None = None):
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Start a new episode; with ``seed``, reseed the agent's generator."""
        if seed is not None:
            self.rng = np.random.default_rng(seed)

    @abstractmethod
    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any] | None = None) -> int:
        """The action id to play.

        Args:
            observation: the env's observation of this agent, ``{"observation": float32
                (layout size,), "action_mask": int8 (num_actions,)}``.
            info: the env's ``infos[agent]`` (optional; baselines ignore it).

        Returns:
            an action id whose mask entry is 1.
        """


def env_name(variant: object, names: object) -> object:
    """``"gin_rummy"`` -> ``"gin_rummy_v0"`` when the short name is not itself in ``names``
    (a container of env names); anything else unchanged, for the caller to refuse."""
    return f"{variant}_v0" if isinstance(variant, str) and variant not in names else variant


def legal_ids(observation: dict[str, np.ndarray]) -> np.ndarray:
    """Legal action ids of an observation, ascending (int64 array).

    Raises:
        TypeError: ``observation`` is not the env's observation dict.
        ValueError: the mask has no legal action (the agent is not acting).
    """
    if not isinstance(observation, dict) or "action_mask" not in observation:
        raise TypeError(
            f"agents act on the env's observation dict {{'observation', 'action_mask'}} "
            f"(env.observe(agent) or env.last()[0]), got {type(observation).__name__}"
        )
    legal = np.flatnonzero(observation["action_mask"])
    if legal.size == 0:
        raise ValueError("the action mask has no legal action: this agent is not acting now")
    return legal


def observation_vector(observation: dict[str, np.ndarray], size: int) -> np.ndarray:
    """The observation vector (float32, shape ``(size,)``) of an agent that reads fields
    by the layout of the env it was made for.

    Raises:
        ValueError: the vector has another shape (the agent was made for an env with other
            options, for example another number of players), is not an array, or holds NaN
            or an infinity (no env writes them).
    """
    vector = observation.get("observation")
    if not isinstance(vector, np.ndarray):
        raise ValueError(f"observation['observation'] is {type(vector).__name__}, not the env's float32 array")
    if vector.shape != (size,):
        raise ValueError(
            f"observation of shape {vector.shape}, but this agent was made for an env whose observation "
            f"has shape ({size},): make the agent from the env it plays, agents.make_agent(name, env)"
        )
    if not np.isfinite(vector).all():
        raise ValueError("the observation holds NaN or an infinity: it is not one an env wrote")
    return vector


def plane_mask(plane: np.ndarray) -> int:
    """Card bitmask (bit ``c`` for card id ``c``) of a 0/1 plane of 52 observation entries."""
    return mask_of(np.flatnonzero(plane).tolist())


def variant_env(variant: str, options: dict[str, Any]) -> Any:
    """A new env of ``variant`` (a module of rummy_env, ``"gin_rummy_v0"``) made with ``options``.

    Raises:
        TypeError, ValueError: an option the variant does not take, or a bad value.
    """
    import importlib

    return importlib.import_module(f"rummy_env.{variant}").env(**options)
