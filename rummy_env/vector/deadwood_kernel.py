"""Gin Rummy deadwood, arrangements and the showdown, compiled: ``core.deadwood`` in numba.

Every function here is the numba twin of the function of the same name in
``rummy_env.core.deadwood`` (read that module for the method and the rule readings,
R-GIN-05, 06, 08) and must give the same result, tie-breaks included; hands are
``uint64`` card bitmasks.  An arrangement is a row of 4 ``int16`` meld ids
(``core.melds.MELDS``), ascending, padded with -1: comparing rows entry by entry is
then Python's comparison of the sorted tuples (a prefix sorts first, as -1 < any id).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rummy_env.core.deadwood import SUIT_DEADWOOD, SUIT_VALUE
from rummy_env.core.melds import MELDS, RUN, RUN_ID
from rummy_env.vector.bits import U0, U1, bit, ctz, has, suit_pattern

SUIT_DW = np.array(SUIT_DEADWOOD, dtype=np.int16)  #: deadwood of a 13-bit suit pattern (points)
SUIT_VAL = np.array(SUIT_VALUE, dtype=np.int16)  #: value of a 13-bit suit pattern (points)
MELD_MASK = np.array([m.mask for m in MELDS], dtype=np.uint64)
MELD_IS_RUN = np.array([m.kind == RUN for m in MELDS], dtype=np.bool_)
MELD_SIZE = np.array([len(m.cards) for m in MELDS], dtype=np.int8)
MELD_RANK = np.array([m.rank for m in MELDS], dtype=np.int8)
MELD_SUIT = np.array([m.suit for m in MELDS], dtype=np.int8)
MELD_LOW = np.array([m.low for m in MELDS], dtype=np.int8)
MELD_HIGH = np.array([m.high for m in MELDS], dtype=np.int8)
RUN_ID_TABLE = np.full((4, 14, 14), -1, dtype=np.int16)  #: meld id of the run (suit, low, high)
for (_suit, _low, _high), _id in RUN_ID.items():
    RUN_ID_TABLE[_suit, _low, _high] = _id
SET_PATTERNS = np.array([0b0111, 0b1011, 0b1101, 0b1110, 0b1111], dtype=np.int64)  #: suits of set 5r+j
MAX_ARRANGEMENTS = 128  # set choices of an 11-card hand: at most 6 * 6 * 2
MAX_CHAINS = 12
NO_MELDS = np.full(4, -1, dtype=np.int16)


@njit(inline="always", cache=True)
def hand_value(hand):
    """Total value (points) of the cards of a bitmask."""
    return (
        SUIT_VAL[suit_pattern(hand, 0)]
        + SUIT_VAL[suit_pattern(hand, 1)]
        + SUIT_VAL[suit_pattern(hand, 2)]
        + SUIT_VAL[suit_pattern(hand, 3)]
    )


@njit(cache=True)
def _with_sets(a, b, c, d, triples):
    if triples == 0:
        return SUIT_DW[a] + SUIT_DW[b] + SUIT_DW[c] + SUIT_DW[d]
    low = triples & -triples
    rest = triples ^ low
    na, nb, nc, nd = a & ~low, b & ~low, c & ~low, d & ~low
    best = _with_sets(a, b, c, d, rest)
    if a & b & c & d & low:
        best = min(best, _with_sets(na, nb, nc, nd, rest))
        best = min(best, _with_sets(a, nb, nc, nd, rest))
        best = min(best, _with_sets(na, b, nc, nd, rest))
        best = min(best, _with_sets(na, nb, c, nd, rest))
        best = min(best, _with_sets(na, nb, nc, d, rest))
    else:
        best = min(best, _with_sets(na, nb, nc, nd, rest))
    return best


@njit(cache=True)
def deadwood(hand):
    """Least deadwood (points) of ``hand`` over all its meld arrangements (R-GIN-05)."""
    a = suit_pattern(hand, 0)
    b = suit_pattern(hand, 1)
    c = suit_pattern(hand, 2)
    d = suit_pattern(hand, 3)
    triples = (a & b & (c | d)) | (c & d & (a | b))
    if triples == 0:
        return np.int64(SUIT_DW[a] + SUIT_DW[b] + SUIT_DW[c] + SUIT_DW[d])
    return np.int64(_with_sets(a, b, c, d, triples))


@njit(cache=True)
def knock_discards(hand, limit):
    """Cards of ``hand`` whose discard leaves deadwood <= ``limit`` (R-GIN-06)."""
    full = deadwood(hand)
    out = U0
    if full - 10 > limit:
        return out
    h = hand
    while h:
        c = ctz(h)
        h &= h - U1
        if full - min(c % 13 + 1, 10) <= limit and deadwood(hand ^ bit(c)) <= limit:
            out |= bit(c)
    return out


@njit(cache=True)
def _row_less(x, y):
    for k in range(4):
        if x[k] != y[k]:
            return x[k] < y[k]
    return False


@njit(cache=True)
def melds_mask(row):
    """The cards of an arrangement row (int16 ``(4,)`` meld ids, -1 unused) as a uint64 card mask."""
    m = U0
    for k in range(4):
        if row[k] >= 0:
            m |= MELD_MASK[row[k]]
    return m


@njit(cache=True)
def best_arrangements(hand, rows):
    """The canonical arrangements of ``hand`` with the least deadwood, in meld-table
    order, written to ``rows`` (int16 ``(MAX_ARRANGEMENTS, 4)``).

    Returns:
        (count, deadwood in points).
    """
    ranks = np.zeros(4, np.int64)  # ranks held 3 or 4 times
    num = 0
    for r in range(13):
        held = 0
        for s in range(4):
            if has(hand, 13 * s + r):
                held += 1
        if held >= 3:
            ranks[num] = r
            num += 1
    radix = np.zeros(4, np.int64)
    for k in range(num):
        radix[k] = 6 if (hand >> np.uint64(ranks[k])) & np.uint64(0x8004002001) == np.uint64(0x8004002001) else 2
    digits = np.zeros(4, np.int64)
    count = 0
    best = 1 << 30
    row = np.empty(4, np.int16)
    while True:
        used = U0
        size = 0
        for k in range(num):
            if digits[k] > 0:  # option 1: every card held; 2..5: the 3-card sets CDH, CDS, CHS, DHS
                r = ranks[k]
                j = 4 if digits[k] == 1 else digits[k] - 2
                if radix[k] == 2:  # three held: the one set they make
                    pattern = 0
                    for s in range(4):
                        if has(hand, 13 * s + r):
                            pattern |= 1 << s
                    j = 0
                    while SET_PATTERNS[j] != pattern:
                        j += 1
                row[size] = 5 * r + j
                size += 1
                used |= MELD_MASK[5 * r + j]
        rest = hand & ~used
        dead = 0
        for s in range(4):
            p = suit_pattern(rest, s)
            dead += SUIT_DW[p]
            r = 0
            while r < 13:
                if not (p >> r) & 1:
                    r += 1
                    continue
                end = r
                while end + 1 < 13 and (p >> (end + 1)) & 1:
                    end += 1
                if end - r >= 2:
                    row[size] = RUN_ID_TABLE[s, r, end]
                    size += 1
                r = end + 1
        for k in range(size, 4):
            row[k] = -1
        for k in range(1, size):  # insertion sort of the meld ids
            v = row[k]
            m = k - 1
            while m >= 0 and row[m] > v:
                row[m + 1] = row[m]
                m -= 1
            row[m + 1] = v
        if dead < best:
            best = dead
            count = 0
        if dead == best:
            at = count  # insert in meld-table order
            while at > 0 and _row_less(row, rows[at - 1]):
                rows[at] = rows[at - 1]
                at -= 1
            rows[at] = row
            count += 1
        k = num - 1  # next set choice (mixed radix)
        while k >= 0:
            digits[k] += 1
            if digits[k] < radix[k]:
                break
            digits[k] = 0
            k -= 1
        if k < 0:
            break
    return count, best


@njit(cache=True)
def defender_layout(defender, knocker_row, layoffs_allowed, rows):
    """The defender's lay-offs and melds that leave the least deadwood (R-GIN-08).

    Returns:
        (cards laid off, cards of the defender's melds, defender's deadwood in points).
    """
    chain_cards = np.zeros((MAX_CHAINS, 13), np.int64)
    chain_len = np.zeros(MAX_CHAINS, np.int64)
    chains = 0
    if layoffs_allowed:
        for k in range(4):
            m = knocker_row[k]
            if m < 0:
                continue
            if not MELD_IS_RUN[m]:
                if MELD_SIZE[m] == 3:
                    r = MELD_RANK[m]
                    s = 0
                    while has(MELD_MASK[m], 13 * s + r):
                        s += 1
                    if has(defender, 13 * s + r):
                        chain_cards[chains, 0] = 13 * s + r
                        chain_len[chains] = 1
                        chains += 1
                continue
            s = MELD_SUIT[m]
            r = MELD_LOW[m] - 1
            n = 0
            while r >= 0 and has(defender, 13 * s + r):
                chain_cards[chains, n] = 13 * s + r
                n += 1
                r -= 1
            if n:
                chain_len[chains] = n
                chains += 1
            r = MELD_HIGH[m] + 1
            n = 0
            while r < 13 and has(defender, 13 * s + r):
                chain_cards[chains, n] = 13 * s + r
                n += 1
                r += 1
            if n:
                chain_len[chains] = n
                chains += 1
    digits = np.zeros(MAX_CHAINS, np.int64)
    best_laid = U0
    best_dead = 1 << 30
    best_count = 1 << 30
    while True:
        laid = U0
        ok = True
        count = 0
        for j in range(chains):
            for t in range(digits[j]):
                b = bit(chain_cards[j, t])
                if laid & b:
                    ok = False
                    break
                laid |= b
            if not ok:
                break
            count += digits[j]
        if ok:
            dead = deadwood(defender & ~laid)
            if dead < best_dead or (dead == best_dead and count < best_count):
                best_dead, best_count, best_laid = dead, count, laid
        j = chains - 1  # the next combination, the last chain fastest (itertools.product)
        while j >= 0:
            digits[j] += 1
            if digits[j] <= chain_len[j]:
                break
            digits[j] = 0
            j -= 1
        if j < 0:
            break
    rest = defender & ~best_laid
    melds = U0
    if rest:
        best_arrangements(rest, rows)
        melds = melds_mask(rows[0])
    return best_laid, melds, hand_value(rest & ~melds)


@njit(cache=True)
def showdown(knocker, defender, out):
    """Lay out both hands after a knock, gin or big gin (R-GIN-06, 08).

    Writes ``out`` (uint64, 3): the knocker's meld cards, the cards laid off, the
    defender's meld cards.

    Returns:
        (knocker's deadwood, defender's deadwood after lay-offs), points.
    """
    candidates = np.empty((MAX_ARRANGEMENTS, 4), np.int16)
    scratch = np.empty((MAX_ARRANGEMENTS, 4), np.int16)
    count, _ = best_arrangements(knocker, candidates)
    kd = hand_value(knocker & ~melds_mask(candidates[0]))
    # no lay-offs on gin (R-GIN-08); a bool rather than the literals False/True, which numba
    # would compile defender_layout for twice
    layoffs = kd != 0
    if not layoffs:
        laid, dmelds, dd = defender_layout(defender, candidates[0], layoffs, scratch)
        out[0], out[1], out[2] = melds_mask(candidates[0]), laid, dmelds
        return kd, dd
    best = -1
    for k in range(count):  # meld-table order: a later arrangement must do strictly better
        laid, dmelds, dd = defender_layout(defender, candidates[k], layoffs, scratch)
        if best < 0 or dd > best:
            best = dd
            out[0], out[1], out[2] = melds_mask(candidates[k]), laid, dmelds
    return kd, best
