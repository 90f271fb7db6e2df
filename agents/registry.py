"""Agents by name, for jobs that take agent names on the command line."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agents.base import Agent
from agents.random_agent import RandomAgent
from agents.crazy_heuristic import CrazyRummyHeuristicAgent
from agents.rummy_heuristic import RummyHeuristicAgent


def _rummy_heuristic(env: Any, seed: int | None) -> Agent:
    raw = env.unwrapped
    return RummyHeuristicAgent(raw.layout, ace_high=raw.game.config.ace_high, seed=seed)


#: Heuristic factories per variant (env ``metadata["name"]``).
HEURISTICS: dict[str, Callable[[Any, int | None], Agent]] = {
    "rummy_v0": _rummy_heuristic,
    "crazy_rummy_v0": lambda env, seed: CrazyRummyHeuristicAgent(env.unwrapped.layout, seed=seed),
}


def agent_names(variant: str) -> list[str]:
    """Names of the agents that can play ``variant`` (e.g. ``"rummy_v0"``)."""
    return ["random"] + (["heuristic"] if variant in HEURISTICS else [])


def make_agent(name: str, env: Any, seed: int | None = None) -> Agent:
    """A new agent called ``name`` for the env ``env`` (wrapped or raw).

    Args:
        name: ``"random"`` or ``"heuristic"`` (the variant's heuristic).
        env: the environment the agent will play in (its layout and options are read).
        seed: seed of the agent's own generator.

    Raises:
        ValueError: an unknown name, or no heuristic for this variant.
    """
    variant = env.unwrapped.metadata["name"]
    if name == "random":
        return RandomAgent(seed)
    if name == "heuristic" and variant in HEURISTICS:
        return HEURISTICS[variant](env, seed)
    raise ValueError(f"unknown agent {name!r} for {variant}: known agents are {', '.join(agent_names(variant))}")
