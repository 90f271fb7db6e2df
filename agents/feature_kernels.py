"""The compiled loops of the policy input features: the Gin deadwood entries of
``agents.policy_features`` and the ``crazy_out`` / ``crazy_discard`` entries of
``agents.crazy_features`` (their docstrings say what the entries mean).  Those modules
import this one on first use, so that a policy without these inputs never loads numba.

The loops are top-level functions because numba's on-disk cache keys a closure by the
values it captures, which differ from process to process: built as closures on first use,
they compiled again in every process (about 1 s for the Gin loop, 3 s for the Crazy Rummy
ones, in every worker of a job) and left one more cache file each time.  The price of the
cache: numba checks only this file's time stamp, so after an edit of the code compiled in
here (``agents.search.crazy_plan``, ``crazy_fast``, ``rummy_env.vector.bits``,
``deadwood_kernel``) delete ``agents/__pycache__/feature_kernels.*.nb[ic]`` (or touch this
file): a stale loop would feed old features to a trained policy (``docs/vector.md``: the
rule of every cached kernel here).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.search import crazy_fast
from agents.search import crazy_plan as plan
from rummy_env.vector.bits import U0, U1, bit, ctz, popcount
from rummy_env.vector.deadwood_kernel import MELD_MASK, deadwood

# crazy_out's entries (crazy_features' docstring): the plan's move kind, then its cards
_KIND_MELD, _KIND_LAYOFF, _KIND_WILD, _KIND_SWAP, _KIND_OUT = 2, 3, 4, 5, 6
_CARDS = 7


@njit(cache=True)
def gin_deadwood(masks, ups, out):
    """``policy_features.gin_deadwood_features``' loop: uint64 ``masks`` (n,) hands as card
    bitmasks, int64 ``ups`` (n,) the upcard's id or -1, float32 ``out`` (n, 53), zeroed:
    the deadwood (R-GIN-05) without each held card, then the least after taking the upcard
    and discarding a held card, all over 100."""
    one = np.uint64(1)
    for i in range(masks.shape[0]):
        h = masks[i]
        for c in range(52):
            if h >> np.uint64(c) & one:
                out[i, c] = deadwood(h ^ (one << np.uint64(c))) / 100.0
        u = ups[i]
        if u >= 0 and h != 0 and not h >> np.uint64(u) & one:
            with_up = h | one << np.uint64(u)
            best = 1000
            for c in range(52):
                if h >> np.uint64(c) & one:
                    best = min(best, deadwood(with_up ^ (one << np.uint64(c))))
            out[i, 52] = best / 100.0


@njit(cache=True)
def _plane(row, start):
    """The 52-card plane of ``row`` at ``start`` as a bitmask."""
    m = U0
    for c in range(52):
        if row[start + c] > 0:
            m |= bit(c)
    return m


@njit(cache=True)
def _wild_cards(row, rank_at):
    """``(wild_rank, the four wild cards)`` from the one-hot ``wild_rank`` plane."""
    wild_rank = 0
    for r in range(13):
        if row[rank_at + r] > 0:
            wild_rank = r
    wilds = U0
    for s in range(4):
        wilds |= bit(13 * s + wild_rank)
    return wild_rank, wilds


@njit(cache=True)
def _table(row, natural_at, wild_at, wild_rank, stands):
    """``(rep, occupied)``: the cards the table represents (as themselves or by a wild
    card) and the cards on it; ``stands[s]``: the card suit ``s``'s wild card stands
    for, -1 for none."""
    rep = _plane(row, natural_at)
    occupied = rep
    for s in range(4):
        stands[s] = -1
        for c in range(52):
            if row[wild_at + 52 * s + c] > 0:
                stands[s] = c
                rep |= bit(c)
                occupied |= bit(c) | bit(13 * s + wild_rank)
                break
    return rep, occupied


@njit(cache=True)
def crazy_out(obs, at, out):
    """``crazy_features.crazy_out_features``'s loop: float32 ``obs`` (n, size), the offsets
    ``at`` of its planes, float32 ``out`` (n, 59), zeroed."""
    keys, results = plan.memo_arrays()
    gen = np.uint64(0)
    stands = np.empty(4, np.int64)
    hand_at, top_at, natural_at, wild_at, forbidden_at, rank_at, phase_at, melded_at = at
    for i in range(obs.shape[0]):
        row = obs[i]
        draw, play = row[phase_at] > 0, row[phase_at + 1] > 0
        if not (draw or play):
            continue
        hand = _plane(row, hand_at)
        wild_rank, wilds = _wild_cards(row, rank_at)
        rep, occupied = _table(row, natural_at, wild_at, wild_rank, stands)
        melded = row[melded_at] > 0
        gen += np.uint64(1)
        if draw:
            top = _plane(row, top_at)
            if top == U0:
                continue
            move = plan.first_move(
                hand | top, melded, top, wilds, rep, occupied, stands, U0, plan.NO_KNOWN, keys, results, gen
            )
            out[i, 0] = 1.0 if move != plan.NO_PLAN else 0.0
            spots = plan.guess_spots(rep, occupied)
            out[i, 1] = 1.0 if crazy_fast.useful(ctz(top), hand, wilds, melded, spots) else 0.0
            continue
        keep_out = _plane(row, forbidden_at)
        move = plan.first_move(
            hand, melded, keep_out, wilds, rep, occupied, stands, U0, plan.NO_KNOWN, keys, results, gen
        )
        if move == plan.NO_PLAN:
            continue
        out[i, 0] = 1
        if move == plan.EMPTY_PLAN:
            out[i, _KIND_OUT] = 1
            cards = hand
        elif move >= plan.MELD_MOVE:
            out[i, _KIND_MELD] = 1
            cards = MELD_MASK[move - plan.MELD_MOVE]
        elif move >= plan.SWAP_MOVE:
            out[i, _KIND_SWAP] = 1
            cards = bit(move - plan.SWAP_MOVE)
        elif move >= plan.WILD_MOVE:
            out[i, _KIND_WILD] = 1
            cards = bit(move - plan.WILD_MOVE)
        else:
            out[i, _KIND_LAYOFF] = 1
            cards = bit(move - plan.LAYOFF_MOVE)
        while cards:
            c = ctz(cards)
            out[i, _CARDS + c] = 1
            cards &= cards - np.uint64(1)


@njit(cache=True)
def crazy_discard(obs, at, out):
    """``crazy_features.crazy_discard_features``'s loop: float32 ``obs`` (n, size), the
    offsets ``at`` of its planes, float32 ``out`` (n, 156), zeroed."""
    stands = np.empty(4, np.int64)
    (
        hand_at,
        top_at,
        rest_at,
        natural_at,
        wild_at,
        next_at,
        forbidden_at,
        must_at,
        rank_at,
        phase_at,
        melded_at,
    ) = at
    for i in range(obs.shape[0]):
        row = obs[i]
        if row[phase_at + 1] <= 0:
            continue
        hand = _plane(row, hand_at)
        wild_rank, wilds = _wild_cards(row, rank_at)
        naturals = hand & ~wilds
        known = _plane(row, next_at)
        pile = _plane(row, top_at) | _plane(row, rest_at)
        spots = U0
        if row[melded_at + 1] > 0:  # the next player has melded: it may lay off
            rep, occupied = _table(row, natural_at, wild_at, wild_rank, stands)
            spots = plan.guess_spots(rep, occupied)
        m = hand
        while m:
            c = ctz(m)
            m &= m - U1
            out[i, c] = popcount(crazy_fast.PARTNERS[c] & naturals) / 7.0
            out[i, 52 + c] = crazy_fast.discard_risk(c, known, pile, spots) / 8.0
        discards = hand & ~_plane(row, forbidden_at)
        must = _plane(row, must_at) & hand
        if must:
            discards = must
        pool = crazy_fast.discard_pool(discards, wilds, naturals, wild_rank)
        if pool:
            pick = crazy_fast.defensive_discard(pool, known, pile, spots, wild_rank, naturals)
            out[i, 104 + pick] = 1.0
