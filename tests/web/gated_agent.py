"""An opponent that thinks until the test lets it move: a slow search agent (``pimc``) made
exact.  ``GatedAgent.started`` is set when it begins to choose, and it plays its lowest
legal action once ``GatedAgent.gate`` is set (the ``gated`` fixture of ``test_slow_agents``
makes both anew and sets the gate at the end, so no thread is left waiting)."""

import threading

import numpy as np

from agents import Agent

NAME = "tests.web.gated_agent:GatedAgent"


class GatedAgent(Agent):
    """Plays the legal action with the lowest id, after ``gate`` is set."""

    started = threading.Event()
    gate = threading.Event()

    def act(self, observation, info=None):
        GatedAgent.started.set()
        if not GatedAgent.gate.wait(60):
            raise TimeoutError("the test never let the agent move")
        return int(np.flatnonzero(observation["action_mask"])[0])
