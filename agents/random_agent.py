"""The uniform random baseline."""

from __future__ import annotations

from typing import Any

import numpy as np

from agents.base import Agent, legal_ids


class RandomAgent(Agent):
    """Plays uniformly at random among the legal actions of the mask (any variant)."""

    name = "random"

    def act(self, observation: dict[str, np.ndarray], info: dict[str, Any] | None = None) -> int:
        """A uniformly random legal action id (the agent's generator).

        Raises:
            TypeError, ValueError: not an observation dict with a usable ``action_mask``
                (:func:`agents.base.legal_ids`).
        """
        legal = legal_ids(observation)
        return int(legal[self.rng.integers(legal.size)])
