"""An agent defined outside the package, entered in the tournament by import path."""

import numpy as np

from agents import Agent


class FirstLegalAgent(Agent):
    """Plays the legal action with the lowest id."""

    def act(self, observation, info=None):
        return int(np.flatnonzero(observation["action_mask"])[0])


class FirstIllegalAgent(Agent):
    """Plays the illegal action with the lowest id (a broken agent, for the jobs' check)."""

    def act(self, observation, info=None):
        return int(np.flatnonzero(observation["action_mask"] == 0)[0])


class ReturnsAnything(Agent):
    """Returns whatever it was made with, whatever the observation (``make(value)``)."""

    def __init__(self, value):
        self.value = value

    def act(self, observation, info=None):
        return self.value


class IllegalLater(Agent):
    """Plays the lowest legal id for its process's first ``LEGAL_MOVES`` moves (over every game
    it is made for), then the lowest illegal one: a broken agent that fails mid-tournament."""

    LEGAL_MOVES = 200
    moves = 0

    def act(self, observation, info=None):
        IllegalLater.moves += 1
        wanted = 1 if IllegalLater.moves <= self.LEGAL_MOVES else 0
        return int(np.flatnonzero(observation["action_mask"] == wanted)[0])


class FailingAgent(Agent):
    """Raises from ``act``: an agent's own failure, not an illegal choice."""

    def act(self, observation, info=None):
        raise ValueError("no model for this table")
