"""The Crazy Rummy heuristic's go-out look-ahead, compiled: ``agents.crazy_planner`` in numba.

:func:`first_move` is ``GoOutPlanner(wilds, table, known_spots).plan(hand, melded,
keep_out)`` reduced to the plan's first move: the same depth-first order (lay-offs of
held cards at the spots, then a wild card laid off at each spot, then swaps in suit
order of the wild cards, then melds by ascending id), the same lay-off guesses
(:func:`guess_spots`, ``crazy_planner.layoff_spots``), and a memo of the positions
already searched (an open-addressing table, :func:`memo_arrays`) so that a hand with many wild
cards is searched once per position, as the Python memo does.  Moves are encoded as
ints: :data:`NO_PLAN`, :data:`EMPTY_PLAN` (one discardable card left), or
``kind + x`` with ``kind`` one of :data:`LAYOFF_MOVE`, :data:`WILD_MOVE`,
:data:`SWAP_MOVE` (``x`` a card) or :data:`MELD_MOVE` (``x`` a meld id).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rummy_env.core.melds import MELD_ACE_HIGH_ARRAY
from rummy_env.vector.bits import U0, U1, bit, ctz, has, popcount
from rummy_env.vector.deadwood_kernel import MELD_MASK, MELD_SIZE

NO_PLAN, EMPTY_PLAN = -1, 0
#: ``first_move``'s ``use_known`` when no known cards count: a numpy bool, not the literal False,
#: which numba types as a type of its own and would compile ``first_move`` (and its callers) again
NO_KNOWN = np.bool_(False)
LAYOFF_MOVE, WILD_MOVE, SWAP_MOVE, MELD_MOVE = 100, 200, 300, 400
MEMO_BITS = 12
_MEMO_SIZE = 1 << MEMO_BITS
_MELD_OK = ~MELD_ACE_HIGH_ARRAY
_SUIT = np.uint64(0x1FFF)


@njit(inline="always", cache=True)
def _next_wild(held, keep_out):
    """The wild card of ``held`` that fills next in the engine's order
    (``CrazyRummyState._fill_order``): one in ``keep_out`` (the card taken from the discard
    pile, which may not go back this turn) first, then the lowest."""
    return ctz(held & keep_out) if held & keep_out else ctz(held)


@njit(cache=True)
def memo_arrays():
    """A fresh memo: keys uint64 ``(2**MEMO_BITS, 4)`` (hand, occupied, represented,
    generation) and results int8 ``(2**MEMO_BITS,)``; pass it to every call, and a new
    ``gen`` (uint64, > 0) per plan."""
    return np.zeros((_MEMO_SIZE, 4), np.uint64), np.zeros(_MEMO_SIZE, np.int8)


@njit(cache=True)
def guess_spots(rep, occupied):
    """``crazy_planner.layoff_spots`` of the table ``(rep, occupied)``: cards whose rank
    has its three other cards in ``rep``, or with the two cards next to it on one side
    (same suit) there; none of ``occupied``."""
    spots = U0
    for s in range(4):
        row = np.int64((rep >> np.uint64(13 * s)) & _SUIT)
        below_a_run = (row >> 1) & (row >> 2)
        above_a_run = (row << 1) & (row << 2) & 0x1FFF
        spots |= np.uint64(below_a_run | above_a_run) << np.uint64(13 * s)
    for rank in range(13):
        held = 0
        for s in range(4):
            held += has(rep, 13 * s + rank)
        if held == 3:
            for s in range(4):
                if not has(rep, 13 * s + rank):
                    spots |= bit(13 * s + rank)
    return spots & ~occupied


@njit(cache=True)
def near(cards):
    """``crazy_planner._near``: cards one rank away in the same suit, or of the same rank."""
    out = U0
    m = cards
    while m:
        c = ctz(m)
        m &= m - U1
        rank = c % 13
        if rank > 0:
            out |= bit(c - 1)
        if rank < 12:
            out |= bit(c + 1)
        for s in range(4):
            out |= bit(13 * s + rank)
    return out & ~cards


@njit(cache=True)
def _seen(keys, results, hand, occupied, rep, gen):
    """Whether the position was searched under plan ``gen``; records it if not (a full
    table records nothing: the position is then searched again if met again)."""
    h = (hand * np.uint64(0x9E3779B97F4A7C15)) ^ (occupied * np.uint64(0xBF58476D1CE4E5B9)) ^ rep
    slot = np.int64((h >> np.uint64(64 - MEMO_BITS)) & np.uint64(_MEMO_SIZE - 1))
    for _ in range(_MEMO_SIZE):
        if keys[slot, 3] != gen:
            keys[slot, 0], keys[slot, 1], keys[slot, 2], keys[slot, 3] = hand, occupied, rep, gen
            results[slot] = 0
            return False
        if keys[slot, 0] == hand and keys[slot, 1] == occupied and keys[slot, 2] == rep:
            return True
        slot = (slot + 1) & (_MEMO_SIZE - 1)
    return False


#: positions a plan searches at most (then it gives up: no plan); the Python planner has
#: no limit, and the differential test finds no position of real play that reaches it
MAX_NODES = 2000


@njit(inline="always", cache=True)
def _may_meld(hand, held_wilds, size):
    """A quick necessary condition of some meld to put down: three cards of a meld in
    hand, or two and a wild card, or two wild cards (a meld leaves a card: size >= 4)."""
    if size < 4:
        return False
    if held_wilds >= 2:
        return True
    need_pair = held_wilds == 1
    for s in range(4):
        row = np.int64((hand >> np.uint64(13 * s)) & _SUIT)
        if row & (row >> 1) & (row >> 2):
            return True
        if need_pair and row & ((row >> 1) | (row >> 2)):
            return True
    for rank in range(13):
        same = 0
        for s in range(4):
            same += has(hand, 13 * s + rank)
        if same >= 3 or (need_pair and same >= 2):
            return True
    return False


_DEPTH = 64  # every move lowers 2 * (cards in hand) + (wild cards on the table): at most 2 * 9 + 4 deep


@njit(cache=True)
def first_move(hand, melded, keep_out, wilds, table_rep, occupied, stands, known, use_known, keys, results, gen):
    """The first move of ``GoOutPlanner(...).plan(hand, melded, keep_out)`` (encoded; see
    the module docstring).

    The Python planner's recursion as a loop over an explicit stack: a success anywhere
    ends the whole search with the root's move that led there, so the memo only ever
    holds positions that failed (or are being searched: the Python memo's guard).

    Args:
        hand, keep_out, wilds: card bitmasks (uint64).
        melded: whether the player has put down a meld this round.
        table_rep, occupied: the table's represented cards, and those plus the wild
            cards on it (``TableView``).
        stands: int64 ``(4,)``: per suit, the card that suit's wild card stands for on
            the table, or -1 (``TableView.wild_for`` in suit order).
        known, use_known: the exact lay-off spots (``known_spots``) when ``use_known``.
        keys, results, gen: the memo (:func:`memo_arrays`) and this plan's generation
            (uint64 > 0, new for each plan).
    """
    if popcount(hand) == 1:
        return NO_PLAN if hand & keep_out else EMPTY_PLAN
    f_hand = np.zeros(_DEPTH, np.uint64)
    f_occ = np.zeros(_DEPTH, np.uint64)
    f_rep = np.zeros(_DEPTH, np.uint64)
    f_spots = np.zeros(_DEPTH, np.uint64)
    f_iter = np.zeros(_DEPTH, np.uint64)  # the stage's cards still to try
    f_stage = np.zeros(_DEPTH, np.int64)
    f_index = np.zeros(_DEPTH, np.int64)  # the stage's suit or meld id still to try
    f_melded = np.zeros(_DEPTH, np.bool_)
    root_move = NO_PLAN
    sp = 0
    child_hand, child_occ, child_rep, child_melded = hand, occupied, table_rep, melded
    push = True
    nodes = 0
    while True:
        if push:
            nodes += 1
            if nodes > MAX_NODES:
                return NO_PLAN
            f_hand[sp], f_occ[sp], f_rep[sp], f_melded[sp] = child_hand, child_occ, child_rep, child_melded
            spots = guess_spots(child_rep, child_occ)
            if use_known:
                spots = (known | spots & near(child_rep & ~table_rep)) & ~child_occ
            f_spots[sp] = spots
            f_stage[sp] = 0 if child_melded else 3
            f_iter[sp] = child_hand & spots
            f_index[sp] = 0
            sp += 1
            push = False
        if sp == 0:
            return NO_PLAN
        t = sp - 1
        h, occ, rep = f_hand[t], f_occ[t], f_rep[t]
        code = -1
        stage = f_stage[t]
        if stage == 0:  # lay off a held card at a spot
            if f_iter[t]:
                c = ctz(f_iter[t])
                f_iter[t] &= f_iter[t] - U1
                b = bit(c)
                child_hand, child_occ, child_rep, code = h & ~b, occ | b, rep | b, LAYOFF_MOVE + c
            else:
                f_stage[t] = 1
                f_iter[t] = (
                    f_spots[t] & ~h if h & wilds & ~occ else U0
                )  # R-CRAZY-05a: a held wild on the table fills nothing
                continue
        elif stage == 1:  # a wild card laid off at a spot, standing for the card there
            if f_iter[t]:
                c = ctz(f_iter[t])
                f_iter[t] &= f_iter[t] - U1
                b, w = bit(c), bit(_next_wild(h & wilds & ~occ, keep_out))
                child_hand, child_occ, child_rep, code = h & ~w, occ | b | w, rep | b, WILD_MOVE + c
            else:
                f_stage[t] = 2
                f_index[t] = 0
                continue
        elif stage == 2:  # swap a held card for the wild card standing for it
            s = f_index[t]
            if s < 4:
                f_index[t] = s + 1
                c = stands[s]
                if c < 0:
                    continue
                w = bit(ctz(wilds & (_SUIT << np.uint64(13 * s))))
                if not has(h, c) or not occ & w:
                    continue
                child_hand, child_occ, child_rep, code = (h & ~bit(c)) | w, (occ | bit(c)) & ~w, rep, SWAP_MOVE + c
            else:
                f_stage[t] = 3
                f_index[t] = 0
                continue
        else:  # put down a meld (crazy_rummy.hands.melds_to_put_down, ascending ids)
            size = popcount(h)
            held_wilds = popcount(h & wilds & ~occ)
            meld = f_index[t]
            if meld == 0 and not _may_meld(h, held_wilds, size):
                meld = MELD_MASK.shape[0]
            while meld < MELD_MASK.shape[0]:
                mm = MELD_MASK[meld]
                natural = mm & h
                if (
                    size >= 4
                    and _MELD_OK[meld]
                    and not mm & occ
                    and size - 1 >= MELD_SIZE[meld]
                    and MELD_SIZE[meld] - popcount(natural) <= held_wilds - popcount(natural & wilds)
                ):
                    break
                meld += 1
            if meld >= MELD_MASK.shape[0]:
                sp -= 1  # every move tried: this position fails (its memo entry says so)
                continue
            f_index[t] = meld + 1
            mm = MELD_MASK[meld]
            used = mm & h
            spare = h & wilds & ~mm & ~occ
            for _ in range(MELD_SIZE[meld] - popcount(used)):
                w = _next_wild(spare, keep_out)
                used |= bit(w)
                spare &= ~bit(w)
            child_hand, child_occ, child_rep, code = h & ~used, occ | mm | used, rep | mm, MELD_MOVE + meld
        if t == 0:
            root_move = code
        if popcount(child_hand) == 1:
            if not child_hand & keep_out:
                return root_move
            continue
        if _seen(keys, results, child_hand, child_occ, child_rep, gen):
            continue
        if sp >= _DEPTH:
            continue
        child_melded = True
        push = True
