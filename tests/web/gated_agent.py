"""An opponent that thinks until the test lets it move: a slow search agent (``pimc``) made
exact.  ``GatedAgent.started`` is set when it begins to choose, and it plays its lowest
legal action once ``GatedAgent.gate`` is set, or raises ``GatedAgent.fails`` then when it
is not None (the ``gated`` fixture of ``tests/web/conftest.py`` makes the events anew, clears
``fails``, and sets the gate at the end, so no thread is left waiting)."""

import threading

import numpy as np

from agents import Agent

NAME = "tests.web.gated_agent:GatedAgent"


class GatedAgent(Agent):
    """Plays the legal action with the lowest id (or raises ``fails``), after ``gate`` is set."""

    started = threading.Event()
    gate = threading.Event()
    fails: Exception | None = None

    def act(self, observation, info=None):
        GatedAgent.started.set()
        if not GatedAgent.gate.wait(60):
            raise TimeoutError("the test never let the agent move")
        if GatedAgent.fails is not None:
            raise GatedAgent.fails
        return int(np.flatnonzero(observation["action_mask"])[0])
