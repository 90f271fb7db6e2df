"""What ``experiments.selfplay`` reads from the batched engine's rows: the privileged
critic's input and the heuristic seats compiled.

**Privileged critic** (``--critic privileged``): an asymmetric actor-critic (Pinto et al.
2018), the "perfect-training, imperfect-execution" of PerfectDou (Yang et al. 2022).  The
policy still reads only its player's observation (what ``PolicyAgent`` plays); the value
function that gives PPO its baseline reads that input plus what the player cannot see:
the other hands (their cards, the meld flags of ``agents.policy_features`` and their least
deadwood, which an MLP would otherwise have to learn to compute) and the next cards of the
stock.  Who wins a hand depends on those
cards more than on any one decision, so a baseline that knows them leaves advantages with
far less luck in them.  The critic is used in training only and is not saved in
``model.pt``.

**Compiled heuristic**: the variant's heuristic (``agents.search.gin_fast`` /
``rummy_fast``, the same action as the Python agent, checked by the differential tests)
run on the engine's rows, instead of one Python call per row and step.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numba import njit

from agents.policy_features import meld_features
from rummy_env.vector.deadwood_kernel import deadwood

#: cards of the stock, from its top, in the privileged input
PRIVILEGED_STOCK = 4
_BIT = np.uint64(1) << np.arange(52, dtype=np.uint64)


#: entries per other hand: its cards, their meld flags (4 x 52), its least deadwood
HAND_ENTRIES = 52 + 208 + 1


def privileged_size(num_players: int) -> int:
    """Width of :func:`privileged_features`: :data:`HAND_ENTRIES` per other hand, 52 per stock card."""
    return HAND_ENTRIES * (num_players - 1) + 52 * PRIVILEGED_STOCK


def privileged_features(vec: Any, players: np.ndarray) -> np.ndarray:
    """The hidden cards of every game, relative to ``players`` (the seat each row's value is for).

    Args:
        vec: a ``GinRummyVec`` or ``RummyVec`` (read through ``kernel_arrays``).
        players: int ``(num_envs,)``: the seat of each row (the acting one).

    Returns:
        float32 ``(num_envs, privileged_size(P))``: for ``r = 1..P-1``, the hand of seat
        ``(player + r) % P`` as 52 bits, the four meld flags of each of its cards
        (``agents.policy_features.meld_features``'s first 208 entries: in a set of 3+, in a
        run of 3+, in a pair, next to a suited card) and its least deadwood over 100
        (``rummy_env.vector.deadwood_kernel``, R-GIN-05; for basic Rummy the points its
        melds leave, aces low); then the next :data:`PRIVILEGED_STOCK` stock cards as
        one-hot 52-planes (all 0 past the stock's end).

    Raises:
        ValueError: a batch of another variant.
    """
    kind = vec.variant
    if not hasattr(vec, "kernel_arrays"):
        raise ValueError(f"the privileged critic reads the compiled batch's rows, not {type(vec).__name__}")
    arrays = vec.kernel_arrays()
    n, P = vec.num_envs, vec.num_players
    rows = np.arange(n)
    if kind == "gin_rummy_v0":
        from rummy_env.vector import gin_kernel as k

        ints, masks, decks = arrays[0], arrays[1], arrays[4]
        top = ints[:, k.STOCK].astype(np.int64)
        cards = [np.where(top + j < 52, decks[rows, np.minimum(top + j, 51)], -1) for j in range(PRIVILEGED_STOCK)]
    elif kind == "rummy_v0":
        from rummy_env.vector import rummy_kernel as k

        ints, masks, stock = arrays[0], arrays[1], arrays[2]
        size = ints[:, k.STOCK_LEN].astype(np.int64)  # the top card is stock[size - 1]
        cards = [
            np.where(size - 1 - j >= 0, stock[rows, np.maximum(size - 1 - j, 0)], -1) for j in range(PRIVILEGED_STOCK)
        ]
    else:
        raise ValueError(f"no privileged critic input for {kind}: use gin_rummy_v0 or rummy_v0")
    out = np.zeros((n, privileged_size(P)), np.float32)
    p = np.asarray(players, np.int64)
    for r in range(1, P):
        hand = masks[rows, k.HAND + (p + r) % P]
        at = HAND_ENTRIES * (r - 1)
        planes = ((hand[:, None] & _BIT) != 0).astype(np.float32)
        out[:, at : at + 52] = planes
        out[:, at + 52 : at + 260] = meld_features(planes, np.zeros_like(planes))[:, :208]
        out[:, at + 260] = _deadwoods(np.ascontiguousarray(hand)) / 100.0
    base = HAND_ENTRIES * (P - 1)
    for j, c in enumerate(cards):
        live = c >= 0
        out[rows[live], base + 52 * j + c[live].astype(np.int64)] = 1.0
    return out


@njit(cache=True)
def _deadwoods_into(hands, out):
    for i in range(hands.shape[0]):
        out[i] = deadwood(hands[i])


def _deadwoods(hands: np.ndarray) -> np.ndarray:
    """Least deadwood of each uint64 hand mask: float32 ``(n,)``."""
    out = np.zeros(len(hands), np.float32)
    _deadwoods_into(hands, out)
    return out


def compiled_heuristic(vec: Any, style: int = 0):
    """``actions(rows) -> int64 (num_envs,)``: the variant's heuristic action of each row
    of ``rows`` (int64 indices of games awaiting a decision; other entries -1), or None
    without a compiled heuristic for the batch's variant (numba missing, or another
    variant).  ``style``: the heuristic's style of play, its index in the variant's
    ``STYLES`` (``agents.gin_heuristic`` / ``agents.rummy_heuristic``; 0 = default;
    ``agents.registry.style_id`` turns a name into it).

    Raises:
        ValueError: ``style`` is not a style id of the variant's heuristic.
    """
    if not hasattr(vec, "kernel_arrays"):  # the pure-Python reference batch
        return None
    from agents.registry import STYLES

    styles = STYLES.get(vec.variant, ("default",))
    if not (isinstance(style, int | np.integer) and 0 <= style < len(styles)):
        raise ValueError(
            f"style {style!r} is not a style id of {vec.variant}: 0..{len(styles) - 1} ({', '.join(styles)})"
        )
    try:
        if vec.variant == "gin_rummy_v0":
            from agents.search.gin_fast import heuristic_actions

            def actions(rows: np.ndarray) -> np.ndarray:
                out = np.full(vec.num_envs, -1, np.int64)
                ints, masks, pile, legal = vec.kernel_arrays()[:4]
                heuristic_actions(np.asarray(rows, np.int64), ints, masks, pile, legal, out, int(style))
                return out

            return actions
        if vec.variant == "rummy_v0":
            from agents.search.rummy_fast import heuristic_actions

            def actions(rows: np.ndarray) -> np.ndarray:
                out = np.full(vec.num_envs, -1, np.int64)
                ints, masks, _, pile, legal = vec.kernel_arrays()[:5]
                heuristic_actions(
                    np.asarray(rows, np.int64), ints, masks, pile, legal, vec.kernel_config(), out, int(style)
                )
                return out

            return actions
    except ImportError:
        return None
    return None
