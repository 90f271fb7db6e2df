"""Baseline agents for rummy_env: they read observations only, never the engine state.

Each heuristic plays in several styles (``make_agent("heuristic:style=NAME", env)``,
``agents.registry.STYLES``); ``agents.panel`` lists each variant's opponent panel.

``PolicyAgent`` (a trained model) needs the ``train`` extra (torch, sb3-contrib) when it
loads a model; importing it does not.
"""

from agents.base import Agent, legal_ids
from agents.crazy_heuristic import CrazyRummyHeuristicAgent
from agents.gin_heuristic import GinHeuristicAgent
from agents.policy import PolicyAgent
from agents.random_agent import RandomAgent
from agents.registry import agent_names, make_agent, seat_seed
from agents.rummikub_heuristic import RummikubMaxPlayAgent
from agents.rummy_heuristic import RummyHeuristicAgent

__all__ = [
    "Agent",
    "CrazyRummyHeuristicAgent",
    "GinHeuristicAgent",
    "PolicyAgent",
    "RandomAgent",
    "RummikubMaxPlayAgent",
    "RummyHeuristicAgent",
    "agent_names",
    "legal_ids",
    "make_agent",
    "seat_seed",
]
