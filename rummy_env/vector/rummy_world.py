"""Basic Rummy engine states in the batch kernel's arrays, for compiled search playouts.

``load_state`` writes a live ``RummyState`` (a true state, or a world from
``state.resample(seat, rng)``) into row ``i`` of ``rummy_kernel``'s struct-of-arrays
(the table as its three index bitmasks), so that ``rummy_kernel.apply`` /
``compute_legal`` continue the same hand (the differential test steps both).
``redeal_hidden`` deals again, inside the kernel, what one seat cannot see in a loaded
row: the cards of the other hands not publicly known to be there and, unless the stock
was rebuilt from the discard pile (R-RUMMY-12: then its order is public), the stock;
from a world uniform over the seat's information (``resample_rummy``) the result is
again such a world.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from rummy_env.vector import rummy_kernel as k
from rummy_env.vector.bits import U1, below, bit, ctz


def config_vector(config: Any, whole_games: bool = False) -> np.ndarray:
    """The kernel's config vector (int64 ``(rummy_kernel.NUM_CFG,)``) of a ``RummyConfig``.

    Args:
        whole_games: fill the ``episode="game"`` columns (the batch engine, ``RummyVec``);
            search playouts leave it False: they play out one hand.

    Raises:
        ValueError: ``config.episode`` is not ``"hand"`` and ``whole_games`` is False.
    """
    if config.episode != "hand" and not whole_games:
        raise ValueError(f"the Rummy kernel plays one hand: episode={config.episode!r}, use episode='hand'")
    cfg = np.zeros(k.NUM_CFG, np.int64)
    cfg[k.C_GAME] = config.episode == "game"
    cfg[k.C_TARGET] = config.target_score
    cfg[k.C_MAX_HANDS] = config.max_hands
    cfg[k.C_WINNER_DEALS] = config.two_player_winner_deals  # only with 2 players (RummyConfig)
    cfg[k.C_PLAYERS] = config.num_players
    cfg[k.C_HAND_SIZE] = config.hand_size
    cfg[k.C_ACE_HIGH] = config.ace_high
    cfg[k.C_KEEP_TOP] = config.reshuffle == "keep_top"
    cfg[k.C_MAX_TURNS] = config.max_turns
    cfg[k.C_SCORE_REWARD] = config.reward == "score"
    return cfg


def arrays(n: int, config: Any = None) -> tuple[np.ndarray, ...]:
    """Zeroed kernel state of ``n`` rows: ``(ints, masks, stock, pile, legal)``, the
    dtypes and shapes of ``rummy_kernel``'s module docstring (every player count fits)."""
    return (
        np.zeros((n, k.NUM_INTS), np.int32),
        np.zeros((n, k.NUM_MASKS), np.uint64),
        np.zeros((n, 52), np.int8),
        np.zeros((n, 52), np.int8),
        np.zeros((n, k.LEGAL_WORDS), np.uint64),
    )


def table_indexes(table: Any) -> tuple[int, int, int]:
    """``(SET3, LOW_ENDS, HIGH_ENDS)`` bitmasks of a ``core.table.Table``: the ranks with
    a 3-card set, and per suit (14 positions each, 13 = high ace) the run ends."""
    set3 = sum(1 << rank for rank, index in enumerate(table._set_at_rank) if index >= 0)
    low = sum(1 << slot for slot, index in enumerate(table._run_low_at) if index >= 0)
    high = sum(1 << slot for slot, index in enumerate(table._run_high_at) if index >= 0)
    return set3, low, high


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
    """Write the live hand of ``state`` (a ``RummyState``) into row ``i``.

    Raises:
        ValueError: the state is terminal (a finished hand has nothing to play out).
    """
    if state.is_terminal():
        raise ValueError("load_state needs a live hand: this state is terminal")
    n = state.num_players
    row = ints[i]
    row[:] = 0
    row[k.CUR] = state.current
    row[k.PHASE] = state.phase
    row[k.DEALER] = state.dealer
    row[k.TAKEN] = state.taken_discard
    row[k.TURN] = state.turn
    row[k.STOCK_LEN] = len(state.stock)
    row[k.PILE_LEN] = len(state.discard)
    row[k.MELDED_TURN] = state.melded_this_turn
    row[k.ENDED] = k.LIVE
    row[k.SCORE : k.SCORE + n] = state.scores
    row[k.MELDED : k.MELDED + n] = state.melded_before
    m = masks[i]
    m[:] = 0
    m[k.HAND : k.HAND + n] = state.hands
    m[k.KNOWN : k.KNOWN + n] = state.known
    m[k.PILE_MASK] = state.discard_mask
    m[k.TABLE] = state.table.mask
    m[k.SET3], m[k.LOW_ENDS], m[k.HIGH_ENDS] = table_indexes(state.table)
    stock[i, : len(state.stock)] = state.stock
    pile[i, : len(state.discard)] = state.discard
    k.compute_legal(i, ints, masks, legal, cfg)


@njit(cache=True)
def redeal_hidden(i, seat, ints, masks, stock, known, stock_public, cfg, rng, r):
    """Deal again, in row ``i``, what ``seat`` cannot see: each other hand's cards not in
    ``known[q]`` (the cards every player knows ``q`` holds, ``resample.rummy_public_holdings``)
    and, unless ``stock_public``, the stock's cards, shuffled together by generator
    ``rng[r]`` (``bits.below``); hand and stock sizes stay."""
    n = cfg[k.C_PLAYERS]
    pool = np.empty(52, np.int8)
    sizes = np.zeros(6, np.int64)
    size = 0
    for d in range(1, n):
        q = (seat + d) % n
        h = masks[i, k.HAND + q] & ~known[q]
        while h:
            pool[size] = ctz(h)
            size += 1
            sizes[q] += 1
            h &= h - U1
        masks[i, k.HAND + q] &= known[q]
    stock_len = ints[i, k.STOCK_LEN]
    if not stock_public:
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
    if not stock_public:
        for j in range(stock_len):
            stock[i, j] = pool[at]
            at += 1
