"""The per-game random streams of the batched engines (:mod:`rummy_env.vector.batch`'s
module docstring describes them): splitmix64 generators held in ``uint64`` arrays, one
deal and one action stream per game, seeded from ``(seed, game index)``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from rummy_env.core.cards import NUM_CARDS
from rummy_env.games.options import check_int

MASK64 = (1 << 64) - 1
GOLDEN = 0x9E3779B97F4A7C15  #: splitmix64 increment
#: the largest seed of a batched engine: the streams mix the seed in 64-bit arithmetic
#: (``seed_streams``), which would fold larger ones onto smaller
MAX_SEED = 2**64 - 1
#: what a batched engine's ``reset(seed=...)`` takes: an int 0..MAX_SEED, None, or one seed
#: per game (a list or tuple of ints and None, or a 1-D integer or object array)
SeedArg = int | Sequence[int | None] | np.ndarray | None
#: the forms of :data:`SeedArg`, as the refusals name them
SEED_FORMS = (
    "a seed is an int from 0 to {max}, None (continue every game's streams), or a list or tuple of "
    "num_envs={n} such ints or None (one per game; a 1-D array too)"
)


def mix64(z: int) -> int:
    """The splitmix64 finaliser of a 64-bit int (Python ints, reference arithmetic)."""
    z &= MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def next64(state: np.ndarray, i: int) -> int:
    """Advance generator ``state[i]`` (``state``: uint64 ``(num_envs,)``, one splitmix64
    generator per game, updated in place) and return its next output (a 64-bit int)."""
    s = (int(state[i]) + GOLDEN) & MASK64
    state[i] = s
    return mix64(s)


def draw_deck(state: np.ndarray, i: int) -> list[int]:
    """A shuffled deck from generator ``state[i]`` (uint64 ``(num_envs,)``, as
    :func:`next64`): 52 card ids, top first (Fisher-Yates,
    ``j = next() % (k + 1)`` for ``k = 51 .. 1``)."""
    deck = list(range(NUM_CARDS))
    for k in range(NUM_CARDS - 1, 0, -1):
        j = next64(state, i) % (k + 1)
        deck[k], deck[j] = deck[j], deck[k]
    return deck


def draw_dealer(state: np.ndarray, i: int, num_players: int) -> int:
    """A dealer seat ``0..num_players-1`` from generator ``state[i]`` (uint64
    ``(num_envs,)``, as :func:`next64`; drawn after the deck)."""
    return next64(state, i) % num_players


def draw_wild_rank(state: np.ndarray, i: int) -> int:
    """A Crazy Rummy round's wild rank 1..13 (R-CRAZY-02) from generator ``state[i]``
    (uint64 ``(num_envs,)``, as :func:`next64`; drawn after the dealer when the
    ``wild_rank`` option does not fix it)."""
    return next64(state, i) % 13 + 1


def mix64_array(z: np.ndarray) -> np.ndarray:
    """:func:`mix64` of every entry of a ``uint64`` array (numpy's uint64 arithmetic wraps
    modulo 2**64, as :func:`mix64` masks)."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def seed_streams(seed: int | np.ndarray, num_envs: int) -> tuple[np.ndarray, np.ndarray]:
    """The initial (deal, action) generator states of ``num_envs`` games, ``uint64``
    ``(num_envs,)`` each: game ``i``'s are ``mix64(seed + mix64(2 * i + 1))`` and
    ``mix64(seed + mix64(2 * i + 2))`` (modulo 2**64), computed on arrays; ``seed`` may
    also be a ``uint64`` array ``(num_envs,)``, game ``i`` then taking ``seed[i]``."""
    base = np.arange(num_envs, dtype=np.uint64) * np.uint64(2)
    with np.errstate(over="ignore"):
        offset = seed if isinstance(seed, np.ndarray) else np.uint64(seed & MASK64)
        deal = mix64_array(offset + mix64_array(base + np.uint64(1)))
        act = mix64_array(offset + mix64_array(base + np.uint64(2)))
    return deal, act


def check_game_seeds(seed: Any, num_envs: int) -> np.ndarray:
    """A reset's list of per-game seeds (list, tuple or 1-D array of ``num_envs`` entries,
    each an int 0..2**64-1 or None) as an object array, None where a game keeps its streams.

    Raises:
        ValueError: another length, or an entry that is neither; the message names it.
    """
    allowed = SEED_FORMS.format(max=MAX_SEED, n=num_envs)
    if isinstance(seed, np.ndarray) and seed.ndim != 1:
        raise ValueError(f"seed: an array of shape {seed.shape}; {allowed}")
    if len(seed) != num_envs:
        raise ValueError(f"seed: a list of {len(seed)} seeds for {num_envs} games; {allowed}")
    seeds = [None if s is None else check_int(f"seed[{i}]", s, 0, MAX_SEED, "", allowed) for i, s in enumerate(seed)]
    return np.array(seeds, dtype=object)
