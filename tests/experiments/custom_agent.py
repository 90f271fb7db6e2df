"""An agent defined outside the package, entered in the tournament by import path."""

import numpy as np

from agents import Agent


class FirstLegalAgent(Agent):
    """Plays the legal action with the lowest id."""

    def act(self, observation, info=None):
        return int(np.flatnonzero(observation["action_mask"])[0])
