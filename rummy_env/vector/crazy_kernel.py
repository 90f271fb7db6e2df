"""One Crazy Rummy round in numba: ``games.crazy_rummy.state`` over struct-of-arrays rows.

The rules are those of ``CrazyRummyState`` line for line (R-CRAZY-04..12; read its
``_compute_legal`` / ``_apply`` / ``_end_turn`` / ``_end_round`` next to this file);
the differential tests step both on the same worlds.  One copy of the rules serves two
users: the search agents' playouts (a row loaded by ``crazy_world.load_state`` plays
its round to the end, R-CRAZY-12) and the batched engine ``CrazyRummyVec``, whose
``crazy_batch_kernel`` deals, observes and rewards the rounds around these functions.
The legal ids are the engine's exactly, R-CRAZY-08a included: a move is masked only
if no legal way to finish the turn remains (:func:`_finishable`).  The step functions
allocate nothing and compile without reference counting (``bits.PLAIN``).

The table is the basic Rummy kernel's three indexes of *represented* cards
(``rummy_kernel``: ``SET3``, ``LOW_ENDS``, ``HIGH_ENDS``, no high ace, R-CRAZY-01) plus,
per suit ``s``, the card the wild card of suit ``s`` stands for (``ints[:, STAND + s]``,
-1 when that wild card is not on the table; R-CRAZY-05).

State (``n`` rows): ``ints`` int32 ``(n, NUM_INTS)``, ``masks`` uint64 ``(n, NUM_MASKS)``,
``stock`` and ``pile`` int8 ``(n, 52)`` (top card last, ``ints[:, STOCK_LEN]`` /
``ints[:, PILE_LEN]`` cards), ``legal`` uint64 ``(n, LEGAL_WORDS)`` (bits 0..630).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rummy_env.vector.bits import PLAIN, U0, U1, bit, ctz, has, popcount, suit_pattern
from rummy_env.vector.deadwood_kernel import MELD_MASK, MELD_SIZE, RUN_ID_TABLE, SET_PATTERNS
from rummy_env.vector.table_kernel import SIDE_HIGH, SIDE_LOW, SIDE_SET, lay_off, put_down

# ints columns (MELDED, PENALTY, TOTAL: six seats each; STAND: four suits).  The round is
# WILD_RANK + 1 (R-CRAZY-02); DEALER and TOTAL carry a game from one round to the next.
CUR, PHASE, TAKEN, MUST, TURN, STOCK_LEN, PILE_LEN, ENDED, LAST_TURN, WILD_RANK, WINNER, DEALER = range(12)
MELDED, PENALTY, TOTAL, STAND, NUM_INTS = 12, 18, 24, 30, 34
# masks columns (HAND, KNOWN: six seats each)
HAND, KNOWN, PILE_MASK, TABLE, SET3, LOW_ENDS, HIGH_ENDS, WILDS, NUM_MASKS = 0, 6, 12, 13, 14, 15, 16, 17, 18
# cfg columns: players, max_turns, reward="score", the wild rank index the option fixes (-1: drawn),
# episode="game" (1) or "hand" (0), max_hands (whole games: crazy_batch_kernel)
C_PLAYERS, C_MAX_TURNS, C_SCORE_REWARD, C_WILD_RANK, C_GAME, C_MAX_HANDS, NUM_CFG = 0, 1, 2, 3, 4, 5, 6

DRAW, PLAY = 0, 1  # phases (games.crazy_rummy.state)
LIVE, TERMINATED, TRUNCATED = 0, 1, 2  # ints[:, ENDED]
DRAW_STOCK, DRAW_DISCARD, MELD, LAYOFF, SWAP = 52, 53, 54, 423, 579  # games.crazy_rummy.actions
NUM_MELDS = 369
LEGAL_WORDS = 10  # 631 action bits
WILD_PENALTY = 25  # R-CRAZY-12
CARD_VALUE = np.array([min(c % 13 + 1, 10) for c in range(52)], dtype=np.int64)
U2, U4, U8 = np.uint64(2), np.uint64(4), np.uint64(8)


@njit(inline="always", **PLAIN)
def _set_legal(legal, i, a):
    legal[i, a >> 6] |= U1 << np.uint64(a & 63)


@njit(inline="always", **PLAIN)
def wild_of_suit(ints, i, s):
    """The wild card of suit ``s`` in row ``i`` (R-CRAZY-02)."""
    return 13 * s + ints[i, WILD_RANK]


@njit(**PLAIN)
def on_table(i, ints, masks):
    """Cards on the table as themselves, through a wild card, or as a wild card
    standing for another card (R-CRAZY-05a)."""
    m = masks[i, TABLE]
    for s in range(4):
        if ints[i, STAND + s] >= 0:
            m |= bit(wild_of_suit(ints, i, s))
    return m


@njit(**PLAIN)
def penalty(hand, wild_rank):
    """Penalty points of a hand (R-CRAZY-12): wild card 25, ace 1, 2..10 face value, J Q K 10."""
    total = 0
    h = hand
    while h:
        c = ctz(h)
        h &= h - U1
        total += WILD_PENALTY if c % 13 == wild_rank else CARD_VALUE[c]
    return total


@njit(inline="always", **PLAIN)
def discard_ok(card, hand, taken, old):
    """``CrazyRummyState._discard_ok`` (R-CRAZY-08, 10)."""
    if card == taken:
        return False
    return old < 0 or card == old or not has(hand, old) or hand == bit(card)


@njit(inline="always", **PLAIN)
def next_wild(spare, taken):
    """The wild card of ``spare`` that fills next (``CrazyRummyState._fill_order``): the
    card taken from the discard pile this turn (``taken``, -1: none) if spare, else the
    lowest."""
    if taken >= 0 and has(spare, taken):
        return taken
    return ctz(spare)


@njit(inline="always", **PLAIN)
def meld_used(m, hand, wilds, taken):
    """Cards meld ``m`` takes from ``hand`` (``CrazyRummyState._fill``): its natural
    cards, and a spare wild card (``next_wild``) for each missing card."""
    natural = MELD_MASK[m] & hand
    spare = hand & wilds & ~natural
    used = natural
    for _ in range(MELD_SIZE[m] - popcount(natural)):
        w = next_wild(spare, taken)
        used |= bit(w)
        spare &= ~bit(w)
    return used


@njit(inline="always", **PLAIN)
def rank_pattern(m, rank):
    """The 4-bit suit pattern (bit ``s`` = suit ``s``) of ``rank``'s cards in bitmask ``m``."""
    x = m >> np.uint64(rank)
    return np.int64((x & U1) | ((x >> np.uint64(12)) & U2) | ((x >> np.uint64(24)) & U4) | ((x >> np.uint64(36)) & U8))


@njit(**PLAIN)
def _finishable(after, i, ints, taken, old):
    """R-CRAZY-08a (``_finishable_after``): the turn can still end with a legal discard
    after a move leaving ``after`` (``old``: the R-CRAZY-10 card after the move).

    Equal to the engine's search (``_can_finish``) without searching: ``old`` is set
    only when the turn began with one card, which forbids taking the discard
    (R-CRAZY-10), so ``taken`` and ``old`` are never both set; ``old``, if held, is a
    legal discard, else every card but ``taken`` is.  Only an empty hand (no move left)
    and the taken card alone have none, and a one-card hand can only swap (a meld leaves
    a card, a lay-off needs two): swapping the taken card for the wild card standing for
    it leaves the wild card to discard."""
    h = after
    while h:
        c = ctz(h)
        h &= h - U1
        if discard_ok(c, after, taken, old):
            return True
    if taken >= 0 and after == bit(taken):
        for s in range(4):
            if ints[i, STAND + s] == taken:
                return True
    return False


@njit(**PLAIN)
def compute_legal(i, ints, masks, legal, cfg):
    """The acting seat's legal ids into ``legal[i]`` (``CrazyRummyState._compute_legal``)."""
    for w in range(LEGAL_WORDS):
        legal[i, w] = U0
    if ints[i, ENDED] != LIVE:
        return
    p = ints[i, CUR]
    hand = masks[i, HAND + p]
    size = popcount(hand)
    if ints[i, PHASE] == DRAW:
        _set_legal(legal, i, DRAW_STOCK)
        if ints[i, PILE_LEN] > 0 and size != 1:  # R-CRAZY-10
            _set_legal(legal, i, DRAW_DISCARD)
        return
    taken, old = ints[i, TAKEN], ints[i, MUST]
    h = hand
    while h:
        c = ctz(h)
        h &= h - U1
        if discard_ok(c, hand, taken, old):
            _set_legal(legal, i, c)
    occupied = on_table(i, ints, masks)
    # R-CRAZY-05a: a held wild card whose natural card is on the table fills nothing
    wilds = masks[i, WILDS] & ~occupied
    if size >= 4:  # melds (melds_to_put_down): at most size - 1 cards, none on the table
        _melds(i, hand, size, wilds, occupied, ints, taken, old, legal)
    if not ints[i, MELDED + p]:
        return
    if size >= 2:  # lay-offs (Table.layoff_targets)
        set3, low_ends, high_ends = masks[i, SET3], masks[i, LOW_ENDS], masks[i, HIGH_ENDS]
        table = masks[i, TABLE]
        for rank in range(13):
            if has(set3, rank):
                for s in range(4):
                    c = 13 * s + rank
                    if not has(table, c):
                        _layoff_if_legal(i, c, SIDE_SET, hand, wilds, occupied, ints, taken, old, legal)
        for s in range(4):
            for pos in range(14):
                if pos >= 1 and has(low_ends, 14 * s + pos):
                    _layoff_if_legal(i, 13 * s + pos - 1, SIDE_LOW, hand, wilds, occupied, ints, taken, old, legal)
                if pos < 12 and has(high_ends, 14 * s + pos):
                    _layoff_if_legal(i, 13 * s + pos + 1, SIDE_HIGH, hand, wilds, occupied, ints, taken, old, legal)
    for s in range(4):  # swaps
        c = ints[i, STAND + s]
        if c >= 0 and has(hand, c):
            after = (hand & ~bit(c)) | bit(wild_of_suit(ints, i, s))
            o = wild_of_suit(ints, i, s) if c == old else old
            if _finishable(after, i, ints, taken, o):
                _set_legal(legal, i, SWAP + c)


@njit(inline="always", **PLAIN)
def _meld_if_legal(i, m, hand, wilds, ints, taken, old, legal):
    if _finishable(hand & ~meld_used(m, hand, wilds, taken), i, ints, taken, old):
        _set_legal(legal, i, MELD + m)


@njit(**PLAIN)
def _melds(i, hand, size, wilds, occupied, ints, taken, old, legal):
    """The legal melds of a hand of ``size >= 4`` cards (``melds_to_put_down``, then
    R-CRAZY-08a).  A meld of ``k`` cards is possible if none is ``occupied`` (R-CRAZY-05a),
    ``k <= size - 1`` (R-CRAZY-09) and its missing cards are at most the held wild cards
    that are not its own natural cards (R-CRAZY-05).  Sets are read from the rank's suit
    pattern, runs grown from each low end while the missing cards fit: no loop over the
    369 melds."""
    held_wilds = popcount(hand & wilds)
    wild_rank = ints[i, WILD_RANK]
    for rank in range(13):
        nat = rank_pattern(hand, rank)
        if (held_wilds if rank == wild_rank else popcount(nat) + held_wilds) < 3:
            continue
        occ = rank_pattern(occupied, rank)
        for j in range(5):
            need = SET_PATTERNS[j]
            k = 4 if j == 4 else 3
            if need & occ or k > size - 1:
                continue
            naturals = popcount(need & nat)
            own_wilds = naturals if rank == wild_rank else 0
            if k - naturals <= held_wilds - own_wilds:
                _meld_if_legal(i, 5 * rank + j, hand, wilds, ints, taken, old, legal)
    for s in range(4):
        pattern, occ = suit_pattern(hand, s), suit_pattern(occupied, s)
        own_wild = (pattern >> wild_rank) & 1  # the suit's wild card is a natural card of runs through it
        for low in range(11):
            if (occ >> low) & 1 or (held_wilds == 0 and not (pattern >> low) & 1):
                continue
            missing = 0
            for high in range(low, 13):
                if (occ >> high) & 1 or high - low + 1 > size - 1:
                    break
                if not (pattern >> high) & 1:
                    missing += 1
                    if missing > held_wilds:
                        break
                spare = held_wilds - (own_wild if low <= wild_rank <= high else 0)
                if high - low >= 2 and missing <= spare:
                    _meld_if_legal(i, RUN_ID_TABLE[s, low, high], hand, wilds, ints, taken, old, legal)


@njit(**PLAIN)
def _layoff_if_legal(i, c, side, hand, wilds, occupied, ints, taken, old, legal):
    if has(occupied, c):
        return
    if has(hand, c):
        used = bit(c)
    elif hand & wilds:
        used = bit(next_wild(hand & wilds, taken))
    else:
        return
    if _finishable(hand & ~used, i, ints, taken, old):
        _set_legal(legal, i, LAYOFF + 3 * c + side)


@njit(**PLAIN)
def _end_round(i, winner, ended, ints, masks, cfg):
    """Penalties of the round, added to the totals (``CrazyRummyState._end_round``,
    R-CRAZY-12); a round cut by ``max_turns`` scores none."""
    ints[i, ENDED] = ended
    ints[i, WINNER] = winner
    for q in range(cfg[C_PLAYERS]):
        ints[i, PENALTY + q] = 0 if ended == TRUNCATED else penalty(masks[i, HAND + q], ints[i, WILD_RANK])
        ints[i, TOTAL + q] += ints[i, PENALTY + q]


@njit(**PLAIN)
def _end_turn(i, ints, masks, cfg):
    ints[i, TAKEN] = -1
    ints[i, MUST] = -1
    ints[i, TURN] += 1
    if ints[i, LAST_TURN]:
        _end_round(i, -1, TERMINATED, ints, masks, cfg)  # R-CRAZY-11: the stock was emptied
        return
    if ints[i, TURN] >= cfg[C_MAX_TURNS]:
        _end_round(i, -1, TRUNCATED, ints, masks, cfg)
        return
    ints[i, CUR] = (ints[i, CUR] + 1) % cfg[C_PLAYERS]
    ints[i, PHASE] = DRAW


@njit(**PLAIN)
def apply(i, action, ints, masks, stock, pile, cfg):
    """Apply a legal ``action`` in row ``i`` (``CrazyRummyState._apply``)."""
    p = ints[i, CUR]
    hand = masks[i, HAND + p]
    if action in (DRAW_STOCK, DRAW_DISCARD):
        if popcount(hand) == 1:
            ints[i, MUST] = ctz(hand)  # R-CRAZY-10
        if action == DRAW_STOCK:
            ints[i, STOCK_LEN] -= 1
            masks[i, HAND + p] |= bit(stock[i, ints[i, STOCK_LEN]])
            ints[i, LAST_TURN] = ints[i, STOCK_LEN] == 0  # R-CRAZY-11
        else:
            ints[i, PILE_LEN] -= 1
            card = pile[i, ints[i, PILE_LEN]]
            masks[i, PILE_MASK] &= ~bit(card)
            masks[i, HAND + p] |= bit(card)
            masks[i, KNOWN + p] |= bit(card)
            ints[i, TAKEN] = card
        ints[i, PHASE] = PLAY
    elif action < DRAW_STOCK:
        b = bit(action)
        masks[i, HAND + p] &= ~b
        masks[i, KNOWN + p] &= ~b
        pile[i, ints[i, PILE_LEN]] = action
        ints[i, PILE_LEN] += 1
        masks[i, PILE_MASK] |= b
        if masks[i, HAND + p]:
            _end_turn(i, ints, masks, cfg)
        else:
            _end_round(i, p, TERMINATED, ints, masks, cfg)  # R-CRAZY-09
    elif action >= SWAP:
        card = action - SWAP
        for s in range(4):
            if ints[i, STAND + s] == card:
                wild = wild_of_suit(ints, i, s)
                ints[i, STAND + s] = -1
                masks[i, HAND + p] = (hand & ~bit(card)) | bit(wild)
                masks[i, KNOWN + p] = (masks[i, KNOWN + p] & ~bit(card)) | bit(wild)
                if card == ints[i, MUST]:
                    ints[i, MUST] = wild  # R-CRAZY-10: the wild card takes its place
    else:
        wilds = masks[i, WILDS] & ~on_table(i, ints, masks)  # the wild cards that may fill (R-CRAZY-05a)
        set3, low_ends, high_ends = masks[i, SET3], masks[i, LOW_ENDS], masks[i, HIGH_ENDS]
        if action < LAYOFF:
            m = action - MELD
            used = MELD_MASK[m] & hand
            missing = MELD_MASK[m] & ~used
            spare = hand & wilds & ~used
            while missing:  # missing cards ascending get the spare wild cards in fill order (R-CRAZY-05)
                w = next_wild(spare, ints[i, TAKEN])
                ints[i, STAND + w // 13] = ctz(missing)
                used |= bit(w)
                missing &= missing - U1
                spare &= ~bit(w)
            set3, low_ends, high_ends = put_down(m, set3, low_ends, high_ends)
            masks[i, TABLE] |= MELD_MASK[m]
            ints[i, MELDED + p] = 1
        else:
            c, side = (action - LAYOFF) // 3, (action - LAYOFF) % 3
            if has(hand, c):
                used = bit(c)
            else:
                w = next_wild(hand & wilds, ints[i, TAKEN])
                used = bit(w)
                ints[i, STAND + w // 13] = c
            set3, low_ends, high_ends = lay_off(c, side, set3, low_ends, high_ends)
            masks[i, TABLE] |= bit(c)
        masks[i, SET3], masks[i, LOW_ENDS], masks[i, HIGH_ENDS] = set3, low_ends, high_ends
        masks[i, HAND + p] &= ~used
        masks[i, KNOWN + p] &= ~used
