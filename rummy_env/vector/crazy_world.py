"""Crazy Rummy engine states in ``crazy_kernel`` rows, for compiled search playouts.

``load_state`` writes the live round of a ``CrazyRummyState`` (a true state, or a world
from ``state.resample(seat, rng)``) into row ``i`` of ``crazy_kernel``'s arrays, so that
``crazy_kernel.apply`` / ``compute_legal`` continue the same round (the differential
test steps both).  ``redeal_hidden`` deals again, inside the kernel, what one seat
cannot see in a loaded row: the cards of the other hands not publicly known to be
there (taken from the discard pile or by a swap) and the stock, as
``resample_crazy`` does; from a world uniform over the seat's information the result
is again such a world.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from rummy_env.vector import crazy_kernel as k
from rummy_env.vector.bits import U1, below, bit, ctz
from rummy_env.vector.rummy_world import table_indexes


def config_vector(config: Any) -> np.ndarray:
    """The kernel's config vector (int64 ``(crazy_kernel.NUM_CFG,)``) of a
    ``CrazyRummyConfig``: the player count, ``max_turns``, the reward kind, the wild
    rank index the ``wild_rank`` option fixes (-1: none), whether an episode is a whole
    game and ``max_hands``.  ``crazy_kernel`` plays the current round of either
    ``episode``; ``crazy_batch_kernel`` deals the rounds of one-round episodes or of
    whole games."""
    cfg = np.zeros(k.NUM_CFG, np.int64)
    cfg[k.C_PLAYERS] = config.num_players
    cfg[k.C_MAX_TURNS] = config.max_turns
    cfg[k.C_SCORE_REWARD] = config.reward == "score"
    cfg[k.C_WILD_RANK] = -1 if config.wild_rank is None else config.wild_rank - 1
    cfg[k.C_GAME] = config.episode == "game"
    cfg[k.C_MAX_HANDS] = config.max_hands
    return cfg


def arrays(n: int) -> tuple[np.ndarray, ...]:
    """Zeroed kernel state of ``n`` rows: ``(ints, masks, stock, pile, legal)``, the
    dtypes and shapes of ``crazy_kernel``'s module docstring (every player count fits)."""
    return (
        np.zeros((n, k.NUM_INTS), np.int32),
        np.zeros((n, k.NUM_MASKS), np.uint64),
        np.zeros((n, 52), np.int8),
        np.zeros((n, 52), np.int8),
        np.zeros((n, k.LEGAL_WORDS), np.uint64),
    )


def load_state(
    state: Any,
    i: int,
    ints: np.ndarray,
    masks: np.ndarray,
    stock: np.ndarray,
    pile: np.ndarray,
    legal: np.ndarray,
    cfg: np.ndarray,
) -> None:
    """Write the live round of ``state`` (a ``CrazyRummyState``) into row ``i``.

    Raises:
        ValueError: the state is terminal (a finished round has nothing to play out).
    """
    if state.is_terminal():
        raise ValueError("load_state needs a live round: this state is terminal")
    n = state.num_players
    row = ints[i]
    row[:] = 0
    row[k.CUR] = state.current
    row[k.PHASE] = state.phase
    row[k.TAKEN] = state.taken_discard
    row[k.MUST] = state.must_discard
    row[k.TURN] = state.turn
    row[k.STOCK_LEN] = len(state.stock)
    row[k.PILE_LEN] = len(state.discard)
    row[k.ENDED] = k.LIVE
    row[k.LAST_TURN] = state.last_turn
    row[k.WILD_RANK] = state.wild_rank
    row[k.WINNER] = -1
    row[k.DEALER] = state.dealer
    row[k.TOTAL : k.TOTAL + n] = state.scores
    row[k.MELDED : k.MELDED + n] = state.melded
    row[k.STAND : k.STAND + 4] = -1
    for represented, (wild, _) in state.wild_for.items():
        row[k.STAND + wild // 13] = represented
    m = masks[i]
    m[:] = 0
    m[k.HAND : k.HAND + n] = state.hands
    m[k.KNOWN : k.KNOWN + n] = state.known
    m[k.PILE_MASK] = state.discard_mask
    m[k.TABLE] = state.table.mask
    m[k.SET3], m[k.LOW_ENDS], m[k.HIGH_ENDS] = table_indexes(state.table)
    m[k.WILDS] = state.wilds
    stock[i, : len(state.stock)] = state.stock
    pile[i, : len(state.discard)] = state.discard
    k.compute_legal(i, ints, masks, legal, cfg)


@njit(cache=True)
def redeal_hidden(i, seat, ints, masks, stock, cfg, rng, r):
    """Deal again, in row ``i``, what ``seat`` cannot see: each other hand's cards not in
    its ``KNOWN`` mask, and the stock, shuffled together by generator ``rng[r]``
    (``bits.below``); hand and stock sizes stay.  The acting seat must be ``seat``
    (its R-CRAZY-10 card, if any, is its own)."""
    n = cfg[k.C_PLAYERS]
    pool = np.empty(52, np.int8)
    sizes = np.zeros(6, np.int64)
    size = 0
    for d in range(1, n):
        q = (seat + d) % n
        known = masks[i, k.KNOWN + q]
        h = masks[i, k.HAND + q] & ~known
        while h:
            pool[size] = ctz(h)
            size += 1
            sizes[q] += 1
            h &= h - U1
        masks[i, k.HAND + q] &= known
    stock_len = ints[i, k.STOCK_LEN]
    for j in range(stock_len):
        pool[size] = stock[i, j]
        size += 1
    for j in range(size - 1, 0, -1):
        t = below(rng, r, j + 1)
        pool[j], pool[t] = pool[t], pool[j]
    at = 0
    for d in range(1, n):
        q = (seat + d) % n
        for _ in range(sizes[q]):
            masks[i, k.HAND + q] |= bit(pool[at])
            at += 1
    for j in range(stock_len):
        stock[i, j] = pool[at]
        at += 1
