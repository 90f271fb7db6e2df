"""Exact Gin Rummy deadwood, meld arrangements and the showdown's lay-offs.

Rules: ``docs/rules/gin_rummy.md``.  Aces are low only (R-GIN-01): A-2-3 is a
run, Q-K-A is not.  A card's deadwood value is A = 1, 2..10 face value, J Q K = 10.

How deadwood is computed exactly (R-GIN-05), without any greedy shortcut
-------------------------------------------------------------------------
An *arrangement* of a hand is a set of disjoint melds; its deadwood is the value of
the cards in none of them.  Split an arrangement into its sets and its runs.  Once the
sets are chosen, the runs of one suit are independent of the other suits, and within
a suit the best runs cover exactly the maximal blocks of 3 or more consecutive ranks
that the sets left (any such block is one legal run; shorter blocks are no run).  So

    deadwood(hand) = min over set choices of  sum over suits  SUIT_DEADWOOD[pattern]

where ``pattern`` is the 13-bit rank pattern a suit keeps after the chosen sets and
``SUIT_DEADWOOD`` is a constant table (8192 entries, built once at import) of the
value of the cards outside blocks of length >= 3.  Set choices exist only for ranks
held 3 or 4 times (at most 3 such ranks in 11 cards): no set, the 3-card set, or for
4 cards the 4-card set or one of its four 3-card sets.  Hands without such a rank are
4 table look-ups.  The test suite checks this against an exhaustive search over all
meld packings on tens of thousands of hands.

Arrangements are *canonical*: the runs of one suit are its maximal blocks, so a
6-card run is one meld, never two 3-card runs (splitting a run changes neither the
deadwood nor where cards can be laid off).  Meld ids are those of
``rummy_env.core.melds.MELDS``; an arrangement is the ascending tuple of its meld ids,
and "first in meld-table order" means lexicographically smallest such tuple.

Cards are ids 0..51 (``core.cards``); hands are Python int bitmasks.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import product
from typing import NamedTuple

from rummy_env.core.cards import NUM_RANKS, card_id
from rummy_env.core.melds import MELD_ID_BY_MASK, MELDS, RUN, RUN_ID, SET

_M = (1 << NUM_RANKS) - 1  # the 13 rank bits of one suit
_RANK_VALUES = tuple(min(r + 1, 10) for r in range(NUM_RANKS))


def _build_tables() -> tuple[tuple[int, ...], tuple[int, ...], tuple[tuple[tuple[int, int], ...], ...]]:
    value = [0] * (1 << NUM_RANKS)
    dead = [0] * (1 << NUM_RANKS)
    blocks: list[tuple[tuple[int, int], ...]] = [()] * (1 << NUM_RANKS)
    for p in range(1, 1 << NUM_RANKS):
        low = p & -p
        r = low.bit_length() - 1
        value[p] = value[p ^ low] + _RANK_VALUES[r]
    for p in range(1 << NUM_RANKS):
        d = 0
        bl = []
        r = 0
        while r < NUM_RANKS:
            if not p >> r & 1:
                r += 1
                continue
            end = r
            while end + 1 < NUM_RANKS and p >> (end + 1) & 1:
                end += 1
            if end - r >= 2:
                bl.append((r, end))
            else:
                d += sum(_RANK_VALUES[x] for x in range(r, end + 1))
            r = end + 1
        dead[p] = d
        blocks[p] = tuple(bl)
    return tuple(value), tuple(dead), tuple(blocks)


#: ``SUIT_VALUE[p]``: total value (points) of the ranks in a 13-bit suit pattern ``p``.
#: ``SUIT_DEADWOOD[p]``: value of the ranks of ``p`` outside runs (blocks of >= 3).
#: ``SUIT_RUN_BLOCKS[p]``: the ``(low rank, high rank)`` of each block of >= 3 in ``p``.
SUIT_VALUE, SUIT_DEADWOOD, SUIT_RUN_BLOCKS = _build_tables()

_DW_CACHE: dict[int, int] = {}  # deadwood of hands that hold a rank 3 or 4 times
_DW_CACHE_LIMIT = 1 << 17


def hand_value(hand: int) -> int:
    """Total value (points) of the cards of a bitmask, melded or not (card values of R-GIN-01)."""
    return (
        SUIT_VALUE[hand & _M] + SUIT_VALUE[hand >> 13 & _M] + SUIT_VALUE[hand >> 26 & _M] + SUIT_VALUE[hand >> 39 & _M]
    )


def deadwood(hand: int) -> int:
    """Least deadwood (points) of ``hand`` over all its meld arrangements (R-GIN-05).

    Args:
        hand: card bitmask of any number of cards (10 or 11 in play).

    Returns:
        the smallest total value of the cards left out of melds, an int >= 0.
    """
    a = hand & _M
    b = hand >> 13 & _M
    c = hand >> 26 & _M
    d = hand >> 39 & _M
    if not ((a & b & (c | d)) | (c & d & (a | b))):
        return SUIT_DEADWOOD[a] + SUIT_DEADWOOD[b] + SUIT_DEADWOOD[c] + SUIT_DEADWOOD[d]
    cached = _DW_CACHE.get(hand)
    if cached is None:
        cached = _with_sets(a, b, c, d, (a & b & (c | d)) | (c & d & (a | b)))
        if len(_DW_CACHE) >= _DW_CACHE_LIMIT:
            _DW_CACHE.clear()
        _DW_CACHE[hand] = cached
    return cached


def _with_sets(a: int, b: int, c: int, d: int, triples: int) -> int:
    """Least deadwood of suit patterns ``a b c d`` when the ranks of ``triples`` (held 3
    or 4 times) may each form no set, a 3-card set or the 4-card set."""
    if not triples:
        return SUIT_DEADWOOD[a] + SUIT_DEADWOOD[b] + SUIT_DEADWOOD[c] + SUIT_DEADWOOD[d]
    bit = triples & -triples
    rest = triples ^ bit
    na, nb, nc, nd = a & ~bit, b & ~bit, c & ~bit, d & ~bit
    best = _with_sets(a, b, c, d, rest)  # no set of this rank
    if a & b & c & d & bit:  # four held: the 4-card set, or a 3-card set leaving one card for runs
        for option in ((na, nb, nc, nd), (a, nb, nc, nd), (na, b, nc, nd), (na, nb, c, nd), (na, nb, nc, d)):
            value = _with_sets(*option, rest)
            if value < best:
                best = value
    else:
        value = _with_sets(na, nb, nc, nd, rest)
        if value < best:
            best = value
    return best


def _set_options(hand: int) -> list[list[int]]:
    """Per rank held 3 or 4 times: the bitmasks of the set choices (0 = no set)."""
    options = []
    for rank in range(NUM_RANKS):
        held = [s for s in range(4) if hand >> (s * NUM_RANKS + rank) & 1]
        if len(held) < 3:
            continue
        cards = [1 << (s * NUM_RANKS + rank) for s in held]
        full = sum(cards)
        opts = [0, full]
        if len(held) == 4:
            opts += [full ^ x for x in reversed(cards)]  # the 3-card sets, in meld-table order
        options.append(opts)
    return options


def best_discard_deadwood(hand: int) -> int:
    """Least deadwood of the cards kept after discarding one card of ``hand`` (the
    exact minimum over every discard and every arrangement: no shortcut); R-GIN-06's knock
    test compares it with the knock limit.

    Raises:
        ValueError: ``hand`` is empty.
    """
    if not hand:
        raise ValueError("best_discard_deadwood needs at least one card")
    best = None
    h = hand
    while h:
        low = h & -h
        h ^= low
        d = deadwood(hand ^ low)
        if best is None or d < best:
            best = d
    return best


_CARD_VALUE = tuple(_RANK_VALUES[c % NUM_RANKS] for c in range(52))


def knock_discards(hand: int, limit: int) -> int:
    """Cards of ``hand`` whose discard leaves deadwood <= ``limit`` (R-GIN-06).

    Exact for any ``limit`` >= 0: ``deadwood(hand minus c)`` is computed for every card
    ``c`` that could qualify.  A card is skipped only when the bound
    ``deadwood(hand minus c) >= deadwood(hand) - value(c)`` (removing a card frees at
    most its own value) already exceeds ``limit``.

    Args:
        hand: card bitmask (11 cards after a draw).
        limit: the knock limit in points.

    Returns:
        bitmask of the qualifying cards (0 if none).
    """
    full = deadwood(hand)
    if full - 10 > limit:
        return 0
    out = 0
    h = hand
    while h:
        low = h & -h
        h ^= low
        if full - _CARD_VALUE[low.bit_length() - 1] <= limit and deadwood(hand ^ low) <= limit:
            out |= low
    return out


# ---------------------------------------------------------------- arrangements
def _arrangement_of(sets_mask_list: Sequence[int], rest: int) -> tuple[int, ...]:
    """Canonical arrangement: the given sets plus each maximal run block of ``rest``."""
    ids = [MELD_ID_BY_MASK[m] for m in sets_mask_list if m]
    for suit in range(4):
        for lo, hi in SUIT_RUN_BLOCKS[rest >> (13 * suit) & _M]:
            ids.append(RUN_ID[(suit, lo, hi)])
    return tuple(sorted(ids))


def arrangements(hand: int) -> list[tuple[tuple[int, ...], int]]:
    """Every canonical arrangement of ``hand`` that is best for some choice of sets
    (meld arrangements of R-GIN-05).

    Returns:
        list of ``(meld ids ascending, deadwood in points)``, without repeats, sorted
        by deadwood then meld-table order.  The first entry has the least deadwood.
    """
    seen = {}
    for choice in product(*_set_options(hand)):
        used = sum(choice)
        rest = hand & ~used
        arr = _arrangement_of(choice, rest)
        if arr not in seen:
            seen[arr] = (
                SUIT_DEADWOOD[rest & _M]
                + SUIT_DEADWOOD[rest >> 13 & _M]
                + SUIT_DEADWOOD[rest >> 26 & _M]
                + SUIT_DEADWOOD[rest >> 39 & _M]
            )
    return sorted(seen.items(), key=lambda item: (item[1], item[0]))


def best_arrangements(hand: int) -> list[tuple[int, ...]]:
    """The canonical arrangements of ``hand`` with the least deadwood (R-GIN-05), in meld-table
    order: a knocker's candidates of R-GIN-06, whose last tie-break is that order."""
    arrs = arrangements(hand)
    least = arrs[0][1]
    return [a for a, d in arrs if d == least]


def melds_mask(meld_ids: Sequence[int]) -> int:
    """Bitmask of the cards of several melds."""
    out = 0
    for m in meld_ids:
        out |= MELDS[m].mask
    return out


# --------------------------------------------------------------------- lay-offs
class Layoff(NamedTuple):
    """One card laid off by the defender (R-GIN-08).

    Attributes:
        card: the card laid off.
        meld: index, in the knocker's arrangement, of the meld it extends (the meld
            may already have been extended by earlier lay-offs in the list).
    """

    card: int
    meld: int


class DefenderLayout(NamedTuple):
    """How the defender lays out (R-GIN-08).

    Attributes:
        melds: the defender's own melds (canonical arrangement, meld ids ascending).
        layoffs: the cards laid off on the knocker's melds, in the order they are laid
            (outward from each meld, so each card fits the meld as extended so far).
        deadwood: value (points) of the defender's cards left in neither.
        deadwood_cards: bitmask of those cards.
    """

    melds: tuple[int, ...]
    layoffs: tuple[Layoff, ...]
    deadwood: int
    deadwood_cards: int


def _attachment_chains(defender: int, knocker_melds: Sequence[int]) -> list[tuple[int, list[int]]]:
    """Per place a card can be laid off: ``(meld index, cards in laying order)``, each
    chain cut at the first card the defender lacks; only places with a card."""
    chains = []
    for index, m in enumerate(knocker_melds):
        meld = MELDS[m]
        if meld.kind == SET:
            if len(meld.cards) == 3:
                missing = next(s for s in range(4) if not meld.mask >> (s * NUM_RANKS + meld.rank) & 1)
                card = card_id(meld.rank, missing)
                if defender >> card & 1:
                    chains.append((index, [card]))
            continue
        assert meld.kind == RUN and not meld.needs_ace_high
        down = []
        r = meld.low - 1
        while r >= 0 and defender >> card_id(r, meld.suit) & 1:
            down.append(card_id(r, meld.suit))
            r -= 1
        if down:
            chains.append((index, down))
        up = []
        r = meld.high + 1
        while r < NUM_RANKS and defender >> card_id(r, meld.suit) & 1:
            up.append(card_id(r, meld.suit))
            r += 1
        if up:
            chains.append((index, up))
    return chains


def defender_layout(defender: int, knocker_melds: Sequence[int], layoffs_allowed: bool = True) -> DefenderLayout:
    """The defender's melds and lay-offs that leave the least deadwood (R-GIN-08).

    Every way of laying off is searched: any prefix of each chain of cards that extends
    a knocker's meld outward (so a card may go onto a meld already extended by an
    earlier lay-off), the fourth card of each 3-card set, with each card laid off at
    most once; the rest is arranged with :func:`deadwood`.  A card may be laid off even
    if it belonged to a meld the defender could have kept.  Ties go to fewer cards laid
    off, then to the first combination (melds in arrangement order, shorter chains
    first); the defender's melds are then the first least-deadwood arrangement in
    meld-table order.

    Args:
        defender: the defender's cards (bitmask).
        knocker_melds: meld ids of the knocker's arrangement.
        layoffs_allowed: False against gin and big gin (R-GIN-08).

    Returns:
        a :class:`DefenderLayout`.
    """
    best_key = None
    best_chosen: tuple = ()
    chains = _attachment_chains(defender, knocker_melds) if layoffs_allowed else []
    for lengths in product(*[range(len(cards) + 1) for _, cards in chains]):
        laid = 0
        count = 0
        ok = True
        for (_, cards), n in zip(chains, lengths, strict=False):
            for card in cards[:n]:
                bit = 1 << card
                if laid & bit:
                    ok = False
                    break
                laid |= bit
            if not ok:
                break
            count += n
        if not ok:
            continue
        key = (deadwood(defender & ~laid), count)
        if best_key is None or key < best_key:
            best_key, best_chosen = key, lengths
    layoffs = []
    laid = 0
    for (index, cards), n in zip(chains, best_chosen, strict=False):
        for card in cards[:n]:
            layoffs.append(Layoff(card, index))
            laid |= 1 << card
    rest = defender & ~laid
    melds = best_arrangements(rest)[0] if rest else ()
    dead = rest & ~melds_mask(melds)
    return DefenderLayout(melds, tuple(layoffs), hand_value(dead), dead)


class Showdown(NamedTuple):
    """Both hands laid out after a knock (R-GIN-06, 07, 08).

    Attributes:
        knocker_melds: meld ids of the knocker's arrangement (ascending).
        knocker_deadwood: its deadwood in points.
        knocker_deadwood_cards: bitmask of the knocker's unmelded cards.
        defender: the defender's :class:`DefenderLayout` (lay-offs refer to
            ``knocker_melds`` by index).
    """

    knocker_melds: tuple[int, ...]
    knocker_deadwood: int
    knocker_deadwood_cards: int
    defender: DefenderLayout


def showdown(knocker: int, defender: int) -> Showdown:
    """Lay out both hands after a knock or gin (R-GIN-06, 08).

    The knocker's arrangement has the least deadwood; among those, the one after which
    the defender's deadwood (after the defender's best lay-offs) is highest; remaining
    ties go to the first arrangement in meld-table order.  With zero knocker deadwood
    (gin, big gin) the defender may not lay off.

    Args:
        knocker: the knocker's cards after the discard (or all 11 for big gin).
        defender: the defender's 10 cards.

    Returns:
        a :class:`Showdown`.
    """
    candidates = best_arrangements(knocker)
    kd_cards = knocker & ~melds_mask(candidates[0])
    kd = hand_value(kd_cards)
    if kd == 0:
        return Showdown(candidates[0], 0, 0, defender_layout(defender, candidates[0], layoffs_allowed=False))
    best = None
    for arr in candidates:  # meld-table order: a later arrangement must do strictly better
        layout = defender_layout(defender, arr)
        if best is None or layout.deadwood > best[1].deadwood:
            best = (arr, layout)
    arr, layout = best
    return Showdown(arr, kd, knocker & ~melds_mask(arr), layout)
