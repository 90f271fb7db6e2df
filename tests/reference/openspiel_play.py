"""Helpers of the OpenSpiel game tests: random play through the pyspiel API, and the
options of each variant's games in the tests."""

import numpy as np
import pyspiel

import rummy_env.openspiel  # noqa: F401 - registers the games
from rummy_env import crazy_rummy_v0, gin_rummy_v0, rummikub_v0, rummy_v0

NAMES = {
    "rummy": "python_rummy_env_rummy",
    "gin_rummy": "python_rummy_env_gin_rummy",
    "crazy_rummy": "python_rummy_env_crazy_rummy",
    "rummikub": "python_rummy_env_rummikub",
}
ENVS = {"rummy": rummy_v0, "gin_rummy": gin_rummy_v0, "crazy_rummy": crazy_rummy_v0, "rummikub": rummikub_v0}


def load(variant, **params):
    return pyspiel.load_game(NAMES[variant], params)


def sample_chance(state, rng):
    outcomes, probs = zip(*state.chance_outcomes(), strict=True)
    return int(rng.choice(outcomes, p=probs))


def random_play(state, rng, on_decision=None, until=None):
    """Play chance outcomes and uniform legal decisions (from ``rng``) to the end, or
    until ``until(state)``; ``on_decision(state, action)`` is called before each decision."""
    while not state.is_terminal() and not (until and until(state)):
        if state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
            continue
        legal = state.legal_actions()
        action = int(legal[rng.integers(len(legal))])
        if on_decision is not None:
            on_decision(state, action)
        state.apply_action(action)
    return state


def play_bot(game, bot, seed, bot_seat=0):
    """A whole game: ``bot`` in ``bot_seat``, uniform random legal play in the others.

    Returns (terminal state, the bot's decisions)."""
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    decisions = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(sample_chance(state, rng))
        elif state.current_player() == bot_seat:
            action = bot.step(state)
            assert action in state.legal_actions(), state.action_to_string(bot_seat, action)
            state.apply_action(action)
            decisions += 1
        else:
            legal = state.legal_actions()
            state.apply_action(int(legal[rng.integers(len(legal))]))
    return state, decisions
