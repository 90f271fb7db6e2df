"""Helpers shared by the tests: scripted deals, scripted moves, random play, for envs
(``env``) and for engine states (``state``)."""

from functools import cache

import numpy as np


def scripted_env(module, deck, dealer, **options):
    """``module.env(**options)`` reset with a stacked deck and a fixed dealer."""
    env = module.env(**options)
    env.reset(seed=0, options={"deck": deck, "dealer": dealer})
    return env


def play(env, *moves):
    """Step the acting agent through ``moves`` (action text), checking each is legal.

    Returns the agents that moved, in order.
    """
    movers = []
    for move in moves:
        agent = env.agent_selection
        action = env.unwrapped.string_to_action(move)
        assert env.observe(agent)["action_mask"][action] == 1, f"{move!r} is not legal for {agent}"
        movers.append(agent)
        env.step(action)
    return movers


def legal_texts(env):
    """The acting agent's legal actions as text."""
    mask = env.observe(env.agent_selection)["action_mask"]
    return [env.unwrapped.action_to_string(int(a)) for a in mask.nonzero()[0]]


def random_playthrough(env, rng):
    """Play uniformly random legal moves (drawn from ``rng``) to the end of the episode.

    Yields ``(agent, observation, done)`` at every turn of ``env.agent_iter()``, before
    that agent moves; done agents are then stepped with ``None``.
    """
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        yield agent, obs, term or trunc
        if term or trunc:
            env.step(None)
        else:
            legal = np.flatnonzero(obs["action_mask"])
            env.step(int(legal[rng.integers(legal.size)]))


@cache
def _action_ids(state_class):
    """``{action text: id}`` of an engine state class, from its ``action_to_string``."""
    return {state_class.action_to_string(a): a for a in range(state_class.num_actions)}


def play_state(state, *moves):
    """Apply ``moves`` (action text, e.g. ``"draw stock"``) to an engine state; an
    illegal move raises the engine's ``IllegalActionError``.  Returns the state."""
    ids = _action_ids(type(state))
    for move in moves:
        state.apply_action(ids[move])
    return state


def state_legal_texts(state):
    """The acting player's legal actions of an engine state as text, in action-id order."""
    return [state.action_to_string(a) for a in state.legal_actions()]
