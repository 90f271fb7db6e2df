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
