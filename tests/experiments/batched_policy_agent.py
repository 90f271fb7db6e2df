"""A policy agent that evaluates its model on a batch, entered by import path.

Stands for agents that score many positions in one forward pass (search, ensembles):
with a batch, torch runs its linear layers on its OpenMP thread pool in the worker,
which is where a forked worker blocked (issue 10, item 1).
"""

import os

import numpy as np

from agents.policy import PolicyAgent

#: the model played, set by the test that enters this agent (spawned workers inherit it)
MODEL_VARIABLE = "RUMMY_TEST_POLICY_MODEL"


class BatchedPolicyAgent(PolicyAgent):
    """The policy's deterministic action, computed in a batch of 128 copies of the observation."""

    def act(self, observation, info=None):
        batch = np.repeat(observation["observation"][None], 128, axis=0)
        masks = np.repeat(observation["action_mask"].astype(bool)[None], 128, axis=0)
        actions, _ = self.model.predict(batch, action_masks=masks, deterministic=True)
        return int(actions[0])


def make(env, seed):
    """Factory for the tournament: ``tests.experiments.batched_policy_agent:make``."""
    return BatchedPolicyAgent(os.environ[MODEL_VARIABLE], seed=seed)
