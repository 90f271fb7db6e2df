"""Helpers shared by the tests: scripted deals, scripted moves, random play, for envs
(``env``) and for engine states (``state``)."""

import re
from functools import cache
from pathlib import Path

import numpy as np


def whole(message):
    """A ``match=`` pattern (pytest.raises, pytest.warns) for exactly ``message``."""
    return f"^{re.escape(message)}$"


class Fragment(str):
    """A part of a message that is another library's own wording (argparse's "invalid int value",
    torch's): :func:`usage_error` checks it with ``in``, not as the whole message."""


def usage_error(err, message):
    """Whether stderr ``err`` ends with the job's usage error ``error: <message>``, ``message``
    whole; a :class:`Fragment` only has to appear in ``err``."""
    return message in err if isinstance(message, Fragment) else err.endswith(f"error: {message}\n")


#: the agents make_agent lists before the search, policy and import specs, per variant
KNOWN_AGENTS = {
    "rummy_v0": "random, heuristic, champion, heuristic:style=NAME (go_rummy, defensive, shed_high)",
    "gin_rummy_v0": (
        "random, heuristic, champion, heuristic:style=NAME (gin_hunter, defensive, upcard_meld_only), openspiel_gin_bot"
    ),
}


def unknown_agent(name, variant):
    """make_agent's whole refusal of the unknown agent ``name`` for ``variant``."""
    return (
        f"unknown agent {name!r} for {variant}: known agents are {KNOWN_AGENTS[variant]}, ismcts:... or pimc:... "
        "with search options, policy:PATH of a trained model, rllib:PATH of an RLlib checkpoint, or "
        "package.module:Name of your own Agent class"
    )


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


# what each of three Rummikub players holds once all 106 tiles are drawn (rack totals 249, 249, 290)
_SHARED_WIN_HOLDINGS = [
    "R4 R5 R6 R8 R11 R13 B1 B3 B3 B4 B5 B5 B7 B7 B9 B9 B11 B12 B13 K1 K2 K4 K5 K6 K8 K10 K11 Y1 Y2 Y4 Y7 Y8 Y9 "
    "Y11 Y11 Y13",
    "R1 R2 R3 R7 R8 R9 R10 R11 R12 R13 B1 B2 B2 B4 B6 B8 K1 K3 K5 K7 K7 K9 K11 Y1 Y3 Y5 Y5 Y6 Y6 Y7 Y10 Y10 Y12 Y12 JK",
    "R1 R2 R3 R4 R5 R6 R7 R9 R10 R12 B6 B8 B10 B10 B11 B12 B13 K2 K3 K4 K6 K8 K9 K10 K12 K12 K13 K13 Y2 Y3 Y4 Y8 "
    "Y9 Y13 JK",
]


def rummikub_shared_win():
    """A 3-player ``rummikub_v0`` env (``reward="score"``) whose hand ended as R-RK-11's
    shared win: every player drew until the pool was empty, then all three passed;
    players 0 and 1 hold 249 points, player 2 290."""
    from rummy_env import rummikub_v0
    from rummy_env.games.rummikub import DRAW, stack_pool

    held = [h.split() for h in _SHARED_WIN_HOLDINGS]
    rest = [h[14:] for h in held]  # drawn in turn: player 0 first, 22 / 21 / 21 draws
    pool = [r[i] for i in range(22) for r in rest if i < len(r)]
    env = rummikub_v0.env(num_players=3, reward="score")
    env.reset(options={"deck": stack_pool([h[:14] for h in held], pool_top=pool), "first_player": 0})
    for _ in range(64 + 3):
        env.step(DRAW)
    return env


class TouchWhenUnpickled:
    """Unpickling this creates ``marker``: what a file made to run code when loaded does
    (the tests of model and checkpoint loading check that it is never unpickled)."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))
