"""Gin Rummy engine states in the batch kernel's arrays, for compiled search playouts.

``load_state`` writes a live ``GinRummyState`` (a true state, or a world from
``state.resample(seat, rng)``) into row ``i`` of ``gin_kernel``'s struct-of-arrays, so
that ``gin_kernel.apply`` / ``compute_legal`` continue the same hand (the differential
test steps both).  ``redeal_hidden`` deals again, inside the kernel, what one seat
cannot see in a loaded row (the opponent's cards not known to it, and the stock order):
from a world that is itself uniform over the seat's information (``resample_gin``), the
result is again such a world (R-GIN-04: a card taken from the discard pile is known).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from rummy_env.vector import gin_kernel as k
from rummy_env.vector.bits import U1, below, bit, ctz


def config_vector(config: Any, whole_games: bool = False) -> np.ndarray:
    """The kernel's config vector (int64 ``(gin_kernel.NUM_CFG,)``) of a ``GinRummyConfig``.

    Args:
        whole_games: fill the ``episode="game"`` columns (the batch engine,
            ``GinRummyVec``); search playouts leave it False: they play out one hand.

    Raises:
        ValueError: ``config.episode`` is not ``"hand"`` and ``whole_games`` is False.
    """
    if config.episode != "hand" and not whole_games:
        raise ValueError(f"the Gin kernel plays one hand: episode={config.episode!r}, use episode='hand'")
    cfg = np.zeros(k.NUM_CFG, np.int64)
    cfg[k.C_GAME] = config.episode == "game"
    cfg[k.C_TARGET] = config.target_score
    cfg[k.C_GAME_BONUSES] = config.game_bonuses
    cfg[k.C_MAX_HANDS] = config.max_hands
    cfg[k.C_KNOCK_LIMIT] = config.knock_limit
    cfg[k.C_GIN_BONUS] = config.gin_bonus
    cfg[k.C_UNDERCUT_BONUS] = config.undercut_bonus
    cfg[k.C_BIG_GIN] = config.big_gin
    cfg[k.C_BIG_GIN_BONUS] = config.big_gin_bonus
    cfg[k.C_OKLAHOMA] = config.oklahoma
    cfg[k.C_MAX_TURNS] = config.max_turns
    cfg[k.C_SCORE_REWARD] = config.reward == "score"
    return cfg


def arrays(n: int, config: Any = None) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Zeroed kernel state of ``n`` rows: ``(ints, masks, pile, legal, decks)``, the
    dtypes and shapes of ``gin_kernel``'s module docstring (``config`` is unused: Gin
    has two seats whatever the options)."""
    return (
        np.zeros((n, k.NUM_INTS), np.int32),
        np.zeros((n, k.NUM_MASKS), np.uint64),
        np.zeros((n, 52), np.int8),
        np.zeros((n, 2), np.uint64),
        np.zeros((n, 52), np.int8),
    )


def load_state(
    state: Any,
    i: int,
    ints: np.ndarray,
    masks: np.ndarray,
    pile: np.ndarray,
    legal: np.ndarray,
    decks: np.ndarray,
    cfg: np.ndarray,
) -> None:
    """Write the live hand of ``state`` (a ``GinRummyState``) into row ``i``.

    The stock becomes ``decks[i, 52 - len(stock):]``, its top card first (the kernel
    draws ``decks[i, ints[i, STOCK]]``); the cards before it are the others, in any order
    (the kernel never reads them).  Scores are the game totals.

    Raises:
        ValueError: the state is terminal (a finished hand has nothing to play out).
    """
    if state.is_terminal():
        raise ValueError("load_state needs a live hand: this state is terminal")
    stock = state.stock
    start = 52 - len(stock)
    row = ints[i]
    row[:] = 0
    row[k.CUR] = state.current
    row[k.PHASE] = state.phase
    row[k.DEALER] = state.dealer
    row[k.TAKEN] = state.taken
    row[k.PASSES] = state.passes
    row[k.TURN] = state.turn
    row[k.STOCK] = start
    row[k.PILE_LEN] = len(state.discard)
    row[k.LIMIT] = state.knock_limit
    row[k.SCORE], row[k.SCORE + 1] = state.scores
    row[k.KNOCKER] = -1
    row[k.ENDED] = k.LIVE
    m = masks[i]
    m[:] = 0
    m[k.HAND], m[k.HAND + 1] = state.hands
    m[k.KNOWN], m[k.KNOWN + 1] = state.known
    m[k.DISCARDED], m[k.DISCARDED + 1] = state.discarded
    m[k.PILE_MASK] = state.discard_mask
    pile[i, : len(state.discard)] = state.discard
    decks[i, start:] = stock[::-1]
    others = sorted(set(range(52)) - set(stock))
    decks[i, :start] = others
    k.compute_legal(i, ints, masks, legal, cfg)


@njit(cache=True)
def redeal_hidden(i, seat, ints, masks, decks, rng, r):
    """Deal again, in row ``i``, what ``seat`` cannot see: the opponent's cards that are
    not known to it (``masks[i, KNOWN + other]``) and the order of the stock, shuffled
    together by generator ``rng[r]`` (``bits.below``); hand sizes stay."""
    other = 1 - seat
    hidden = masks[i, k.HAND + other] & ~masks[i, k.KNOWN + other]
    start = ints[i, k.STOCK]
    pool = np.empty(52, np.int8)
    n = 0
    h = hidden
    while h:
        pool[n] = ctz(h)
        n += 1
        h &= h - U1
    keep = n
    for j in range(start, 52):
        pool[n] = decks[i, j]
        n += 1
    for j in range(n - 1, 0, -1):
        t = below(rng, r, j + 1)
        pool[j], pool[t] = pool[t], pool[j]
    hand = masks[i, k.HAND + other] & ~hidden
    for j in range(keep):
        hand |= bit(pool[j])
    masks[i, k.HAND + other] = hand
    for j in range(keep, n):
        decks[i, start + j - keep] = pool[j]
