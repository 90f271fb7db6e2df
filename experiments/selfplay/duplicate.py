"""The duplicate baseline of self-play training: each hand the learner played against the
heuristic, replayed with the heuristic in both seats.

In Gin Rummy and Rummy most of a hand's result is the deal.  Duplicate bridge and
duplicate poker take the deal's luck out of a comparison by playing the same cards
twice; AIVAT (Burch et al. 2018) does it for evaluation with control variates.  Here the
learner's final reward in a game against the heuristic is offset by the reward its seat
gets when the heuristic plays that seat on the same deck (same stock order, same dealer):
a hand the learner plays as the heuristic would scores exactly 0, and only its departures
from the heuristic's play move the return, one way or the other.

The offset is a valid policy-gradient baseline: it depends on the deck only, which the
learner's actions do not change and its policy does not see, so ``E[b * grad log pi(a|s)]``
is 0 and the gradient stays unbiased; only its variance falls.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def heuristic_rewards(
    vec_class: Any, env_options: dict, decks: np.ndarray, dealers: np.ndarray, seats: np.ndarray, chunk: int = 512
) -> np.ndarray:
    """Each seat's final reward when the heuristic plays every seat of these hands.

    Args:
        vec_class: the batched engine (``GinRummyVec`` or ``RummyVec``) with the options below.
        env_options: its options (those of the training run).
        decks: int8 (m, 52) card ids, top first (``vec.decks()`` rows).
        dealers: int (m,) dealer seats.
        seats: int (m,) the seat whose reward is returned.
        chunk: games replayed together.

    Returns:
        float32 (m,): the reward of ``seats[k]`` at the end of hand ``k``.

    Raises:
        ValueError: the engine has no compiled heuristic (numba missing; the pure-Python
            reference engine), or decks, dealers and seats of different lengths.
    """
    from experiments.selfplay.opponents import compiled_heuristic

    m = len(decks)
    if not len(dealers) == len(seats) == m:
        raise ValueError(f"decks, dealers and seats must have one row per hand: {m}, {len(dealers)}, {len(seats)}")
    out = np.zeros(m, np.float32)
    if m == 0:
        return out
    vec = vec_class(min(chunk, m), seed=0, num_threads=1, **env_options)
    heuristic = compiled_heuristic(vec)
    if heuristic is None:
        raise ValueError(f"the duplicate baseline needs the compiled heuristic of {vec.variant} (install numba)")
    for start in range(0, m, vec.num_envs):
        rows = np.arange(start, min(start + vec.num_envs, m))
        pad = np.resize(rows, vec.num_envs)  # a short last chunk replays its first hands again
        batch = vec.reset(decks=np.asarray(decks)[pad], dealers=np.asarray(dealers)[pad])
        ended = np.zeros(vec.num_envs, bool)
        while not ended.all():
            # games that ended play on into their next hand (ignored): their moves must be legal too
            live = np.flatnonzero(batch.action_mask.any(1))
            actions = np.zeros(vec.num_envs, np.int64)
            actions[live] = heuristic(live)[live]
            batch = vec.step(actions)
            done = (batch.terminated | batch.truncated) & ~ended
            k = np.flatnonzero(done)
            out[pad[k]] = batch.rewards[k, np.asarray(seats)[pad[k]]]
            ended |= done
    vec.close()
    return out
