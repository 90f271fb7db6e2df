"""Compiled basic Rummy playouts: the Rummy heuristic in numba, played in ``rummy_kernel`` rows.

:func:`heuristic_action` is :class:`agents.rummy_heuristic.RummyHeuristicAgent` rule
for rule, in each of its styles (``style``: the index in ``rummy_heuristic.STYLES``, 0 =
default), reading the kernel row instead of the encoded observation (only what the
acting seat's observation holds; the differential tests check that both pick the same
action).  :func:`evaluate` is the ``pimc`` agent's
``rollout=fast`` inner loop, as ``gin_fast.evaluate``: every root action in each of
``worlds`` worlds (the hidden cards dealt again by ``rummy_world.redeal_hidden``), the
hand played out by the heuristic for every seat (Tesauro and Galperin 1996).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.rummy_heuristic import DONE, GO_RUMMY_ALARM, NO_PLAN, SHED_VALUE, STYLES
from agents.styles import KNOWN_WEIGHT, REJECTED_WEIGHT
from rummy_env.core.melds import MELD_ACE_HIGH_ARRAY, MELDS
from rummy_env.vector import rummy_kernel as k
from rummy_env.vector.bits import U0, U1, bit, ctz, has, popcount, suit_pattern
from rummy_env.vector.deadwood_kernel import MELD_MASK, MELD_SIZE, deadwood, hand_value
from rummy_env.vector.rummy_world import redeal_hidden

CARD_VALUE = np.array([min(c % 13 + 1, 10) for c in range(52)], dtype=np.int64)


def _partners(ace_high: bool) -> np.ndarray:
    """Per card, the cards that make a partial meld with it (``in_partial_meld``)."""
    out = np.zeros(52, dtype=np.uint64)
    for c in range(52):
        m = 0
        for o in range(52):
            if o == c:
                continue
            rank, other = c % 13, o % 13
            gap = abs(other - rank)
            suited = o // 13 == c // 13 and (gap <= 2 or (ace_high and 0 in (rank, other) and gap >= 11))
            if other == rank or suited:
                m |= 1 << o
        out[c] = m
    return out


#: ``PARTNERS[ace_high, card]``
PARTNERS = np.stack([_partners(False), _partners(True)])
#: style ids (``rummy_heuristic.STYLES``)
DEFAULT, GO_RUMMY, DEFENSIVE, SHED_HIGH = 0, 1, 2, 3
assert STYLES == ("default", "go_rummy", "defensive", "shed_high")
#: per card, the ids of the melds holding it, ascending (-1 pads); ``MELD_ACE_HIGH[m]``: meld ``m`` needs ``ace_high``
_HOLDERS = [[m.id for m in MELDS if c in m.cards] for c in range(52)]
HOLDERS = np.full((52, max(len(h) for h in _HOLDERS)), -1, np.int16)
for _c, _ids in enumerate(_HOLDERS):
    HOLDERS[_c, : len(_ids)] = _ids
MELD_ACE_HIGH = np.array(MELD_ACE_HIGH_ARRAY)
MELD_POINTS = np.array([sum(CARD_VALUE[c] for c in range(52) if int(m) >> c & 1) for m in MELD_MASK], np.int64)


@njit(cache=True)
def completes_meld(card, hand, ace_high):
    """Whether ``card`` makes a meld with cards of ``hand``: two more of its rank, or a
    run of three or more through it in its suit (a high ace with ``ace_high``)."""
    rank, suit = card % 13, card // 13
    same = 0
    for s in range(4):
        if s != suit and has(hand, 13 * s + rank):
            same += 1
    if same >= 2:
        return True
    pattern = suit_pattern(hand, suit) | (1 << rank)
    if ace_high and pattern & 1:
        pattern |= 1 << k.HIGH_ACE
    for pos in (rank, k.HIGH_ACE if rank == 0 and ace_high else rank):
        low, high = pos, pos
        while low - 1 >= 0 and (pattern >> (low - 1)) & 1:
            low -= 1
        while high + 1 <= k.HIGH_ACE and (pattern >> (high + 1)) & 1:
            high += 1
        if high - low >= 2:
            return True
    return False


@njit(cache=True)
def useful(card, hand, table, ace_high):
    """``RummyHeuristicAgent._useful``: ``card`` completes a meld with the hand, or sits
    next to table cards (the fourth of a rank, or two suited cards below or above)."""
    if completes_meld(card, hand, ace_high):
        return True
    rank, suit = card % 13, card // 13
    same = 0
    for s in range(4):
        if has(table, 13 * s + rank):
            same += 1
    if same == 3:
        return True
    below = rank >= 2 and has(table, 13 * suit + rank - 1) and has(table, 13 * suit + rank - 2)
    above = rank <= 10 and has(table, 13 * suit + rank + 1) and has(table, 13 * suit + rank + 2)
    return below or above


@njit(cache=True)
def way_out(hand, layoffs, forbidden, ace_high):
    """``rummy_heuristic.go_out_move``: the first move of a way to go out with ``hand``
    (melds of its cards, cards of ``layoffs``, one discard not ``forbidden``), or
    ``NO_PLAN`` / ``DONE``.  The same depth-first search as the Python one (lowest card
    first; its melds by ascending id, laying it off, discarding it), with an explicit
    stack: numba's cache cannot hold a recursive function (numba issue 6061)."""
    hands = np.empty(53, np.uint64)  # the hand left at each depth
    spares = np.empty(53, np.bool_)  # whether the discard is still free there
    options = np.zeros(53, np.int64)  # the next option to try there
    moves = np.empty(53, np.int64)  # the move taken there
    width = HOLDERS.shape[1]  # options 0..width-1: melds; width: lay off; width+1: discard
    hands[0], spares[0], options[0] = hand, True, 0
    depth = 0
    while depth >= 0:
        h = hands[depth]
        if h == U0:  # a way out: its first meld, else its first lay-off, else its discard
            if depth == 0:
                return DONE
            for j in range(depth):
                if k.MELD <= moves[j] < k.LAYOFF:
                    return moves[j]
            for j in range(depth):
                if moves[j] >= k.LAYOFF:
                    return moves[j]
            for j in range(depth):
                if moves[j] < 52:
                    return moves[j]
        card = ctz(h)
        low = bit(card)
        o = options[depth]
        options[depth] += 1
        rest, spare, move = U0, spares[depth], -1
        if o < width:
            m = HOLDERS[card, o]
            if m < 0:
                options[depth] = width
                continue
            mask = MELD_MASK[m]
            if (ace_high or not MELD_ACE_HIGH[m]) and mask & h == mask:
                rest, move = h & ~mask, k.MELD + m
        elif o == width:
            if layoffs & low:
                rest, move = h & ~low, k.LAYOFF + 3 * card
        elif o == width + 1:
            if spare and card != forbidden:
                rest, spare, move = h & ~low, False, card
        else:
            depth -= 1  # every option of this depth failed
            continue
        if move >= 0:
            moves[depth] = move
            depth += 1
            hands[depth], spares[depth], options[depth] = rest, spare, 0
    return NO_PLAN


@njit(cache=True)
def _legal(legal, i, a):
    return has(legal[i, a >> 6], a & 63)


@njit(cache=True)
def go_rummy_move(i, ints, masks, legal, cfg, hand, ace_high):
    """``RummyHeuristicAgent._go_rummy``: the ``go_rummy`` style's play-phase move of
    row ``i``, or -1 to play as the default."""
    p = ints[i, k.CUR]
    layoffs = U0
    for a in range(k.LAYOFF, k.LAYOFF + 156):
        if _legal(legal, i, a):
            layoffs |= bit((a - k.LAYOFF) // 3)
    taken = ints[i, k.TAKEN]
    forbidden = taken if taken >= 0 and has(hand, taken) else -1
    move = way_out(hand, layoffs, forbidden, ace_high)
    if move >= k.LAYOFF:
        card = (move - k.LAYOFF) // 3
        for a in range(k.LAYOFF + 3 * card, k.LAYOFF + 3 * card + 3):
            if _legal(legal, i, a):
                return a
    if move >= 0:
        return move
    if ints[i, k.MELDED + p] or ints[i, k.MELDED_TURN]:
        return -1
    n = cfg[k.C_PLAYERS]
    for q in range(1, n):
        if popcount(masks[i, k.HAND + (p + q) % n]) <= GO_RUMMY_ALARM:
            return -1
    in_melds = U0
    for m in range(MELD_MASK.shape[0]):
        if (ace_high or not MELD_ACE_HIGH[m]) and MELD_MASK[m] & hand == MELD_MASK[m]:
            in_melds |= MELD_MASK[m]
    discards = legal[i, 0] & np.uint64((1 << 52) - 1)
    pool = discards & ~in_melds
    if not pool:
        pool = discards
    return highest_loose(pool, hand, ace_high)


@njit(cache=True)
def highest_loose(pool, hand, ace_high, shed=99):
    """The highest-value card of ``pool`` in no partial meld of ``hand`` or worth
    ``shed`` points or more, else of all ``pool``; then the highest id."""
    loose = U0
    m = pool
    while m:
        c = ctz(m)
        m &= m - U1
        if CARD_VALUE[c] >= shed or not hand & PARTNERS[1 if ace_high else 0, c]:
            loose |= bit(c)
    return highest(loose if loose else pool)


@njit(cache=True)
def highest(pool):
    """The highest-value card of ``pool``, then the highest id (-1 for none)."""
    best = -1
    m = pool
    while m:
        c = ctz(m)
        m &= m - U1
        if best < 0 or CARD_VALUE[c] >= CARD_VALUE[best]:
            best = c
    return best


@njit(cache=True)
def heuristic_action(i, ints, masks, pile, legal, cfg, style=0):
    """The Rummy heuristic's action (in style ``style``) for the acting seat of live row ``i``."""
    ace_high = cfg[k.C_ACE_HIGH] != 0
    p = ints[i, k.CUR]
    hand = masks[i, k.HAND + p]
    can_stock = has(legal[i, 0], k.DRAW_STOCK)
    can_pile = has(legal[i, 0], k.DRAW_DISCARD)
    if can_stock or can_pile:
        n = ints[i, k.PILE_LEN]
        if can_pile and n > 0 and useful(pile[i, n - 1], hand, masks[i, k.TABLE], ace_high):
            return k.DRAW_DISCARD
        return k.DRAW_STOCK if can_stock else k.DRAW_DISCARD
    if style == GO_RUMMY:
        move = go_rummy_move(i, ints, masks, legal, cfg, hand, ace_high)
        if move >= 0:
            return move
    best, best_size, best_points = -1, -1, -1
    for a in range(k.MELD, k.LAYOFF):  # the biggest meld, then the most points, then the lowest id
        if has(legal[i, a >> 6], a & 63):
            m = a - k.MELD
            size, points = MELD_SIZE[m], MELD_POINTS[m]
            if style == SHED_HIGH:  # the most points, then the biggest
                if points > best_points or (points == best_points and size > best_size):
                    best, best_size, best_points = a, size, points
            elif size > best_size or (size == best_size and points > best_points):
                best, best_size, best_points = a, size, points
    if best >= 0:
        return best
    best_value = -1
    for a in range(k.LAYOFF, k.LAYOFF + 156):  # the highest card laid off, then the lowest id
        if has(legal[i, a >> 6], a & 63):
            value = CARD_VALUE[(a - k.LAYOFF) // 3]
            if value > best_value:
                best, best_value = a, value
    if best >= 0:
        return best
    discards = legal[i, 0] & np.uint64((1 << 52) - 1)
    if style == SHED_HIGH:  # its ten-point cards even from a partial meld, then the loose ones
        return highest_loose(discards, hand, ace_high, SHED_VALUE)
    if style == DEFENSIVE:
        n = cfg[k.C_PLAYERS]
        return defensive_discard(discards, hand, masks[i, k.KNOWN + (p + 1) % n], masks[i, k.PILE_MASK], ace_high)
    return highest_loose(discards, hand, ace_high)


@njit(cache=True)
def defensive_discard(discards, hand, known, rejected, ace_high):
    """The ``defensive`` style's discard: of the loose cards (else all), the least
    ``agents.styles.danger`` for the next player (``known``: the cards it picked and
    holds, ``rejected``: the discard pile), then the highest value, the highest id."""
    partners = PARTNERS[1 if ace_high else 0]
    loose = U0
    m = discards
    while m:
        c = ctz(m)
        m &= m - U1
        if not hand & partners[c]:
            loose |= bit(c)
    pool = loose if loose else discards
    best, best_danger = -1, 0
    m = pool
    while m:
        c = ctz(m)
        m &= m - U1
        d = KNOWN_WEIGHT * popcount(partners[c] & known) - REJECTED_WEIGHT * popcount(partners[c] & rejected)
        if best < 0 or d < best_danger or (d == best_danger and CARD_VALUE[c] >= CARD_VALUE[best]):
            best, best_danger = c, d
    return best


@njit(cache=True)
def heuristic_actions(rows, ints, masks, pile, legal, cfg, out, style=0):
    """:func:`heuristic_action` (in style ``style``) of each live row of ``rows`` (int64) into ``out[row]``."""
    for i in rows:
        out[i] = heuristic_action(i, ints, masks, pile, legal, cfg, style)


@njit(cache=True)
def play_out(i, ints, masks, stock, pile, legal, rewards, cfg, max_steps):
    """Play live row ``i`` with the heuristic for every seat until the hand ends or
    ``max_steps`` actions; returns the actions played."""
    steps = 0
    while ints[i, k.ENDED] == k.LIVE and steps < max_steps:
        # the default style as an int64: a call leaving it out would be another compiled version
        action = heuristic_action(i, ints, masks, pile, legal, cfg, np.int64(0))
        k.apply(i, action, ints, masks, stock, pile, rewards, cfg)
        k.compute_legal(i, ints, masks, legal, cfg)
        steps += 1
    return steps


@njit(cache=True)
def seat_value(i, seat, ints, masks, rewards, temperature, cfg, margin_scale=0.0):
    """``seat``'s value (0..1) of row ``i``: 1 / 0 for a hand it won / another won, 1/n
    with no winner; a hand still live is judged by a softmax of minus the deadwood of
    each hand over ``temperature`` points (``worlds.position_values``).

    ``margin_scale`` > 0 (whole games, won by the first to reach the target, R-RUMMY-17):
    1/n plus ``seat``'s points margin over ``margin_scale`` points, the margin being what
    ``seat`` scores minus the other seats' mean: the winner scores the others' hand values
    (doubled for going rummy, R-RUMMY-15/16), so winning brings that sum and another's win
    costs its sum over n - 1; 1/n for a hand with no winner.  A live hand weighs each
    seat's win by the softmax above, its sum by the hands' values now."""
    n = cfg[k.C_PLAYERS]
    if ints[i, k.ENDED] != k.LIVE:
        winner = -1
        for q in range(n):
            if rewards[i, q] > 0:
                winner = q
        if margin_scale > 0.0:
            if winner < 0:
                return 1.0 / n
            total = 0.0
            for q in range(n):
                total += hand_value(masks[i, k.HAND + q])
            gain = total if ints[i, k.MELDED + winner] else 2.0 * total
            return 1.0 / n + (gain if winner == seat else -gain / (n - 1)) / margin_scale
        return 1.0 if winner == seat else (1.0 / n if winner < 0 else 0.0)
    low = 1e9
    points = np.empty(n, np.float64)
    for q in range(n):
        points[q] = deadwood(masks[i, k.HAND + q])
        low = min(low, points[q])
    total = 0.0
    for q in range(n):
        total += np.exp((low - points[q]) / temperature)
    if margin_scale <= 0.0:
        return np.exp((low - points[seat]) / temperature) / total
    values = np.empty(n, np.float64)
    all_values = 0.0
    for q in range(n):
        values[q] = hand_value(masks[i, k.HAND + q])
        all_values += values[q]
    margin = 0.0
    for q in range(n):
        chance = np.exp((low - points[q]) / temperature) / total
        gain = all_values - values[q]
        margin += chance * (gain if q == seat else -gain / (n - 1))
    return 1.0 / n + margin / margin_scale


@njit(cache=True)
def evaluate(
    base, seat, actions, worlds, max_steps, temperature, discount, known, stock_public, cfg, rng, totals, margin_scale
):
    """Add to ``totals[a]`` the value for ``seat`` of root action ``actions[a]`` in each
    of ``worlds`` worlds and return ``worlds`` (the sum of the weights, all 1).  Row 0 of
    ``base`` (the kernel arrays ``ints, masks, stock, pile, legal``) holds a world of
    ``seat``'s information, dealt again for each world (``known``, ``stock_public``: see
    ``rummy_world.redeal_hidden``; generator ``rng[0]``).  Every action is played in the
    same worlds; values move towards 1/n by ``discount`` per action played;
    ``margin_scale``: as :func:`seat_value`."""
    b_ints, b_masks, b_stock, b_pile, b_legal = base
    w_ints, w_masks, w_stock = b_ints.copy(), b_masks.copy(), b_stock.copy()
    w_pile, w_legal = b_pile.copy(), b_legal.copy()
    n = cfg[k.C_PLAYERS]
    # float32 as the batched engine's: the kernel functions compiled for it serve (only the
    # rewards' signs are read, and the points are whole numbers, exact in float32)
    rewards = np.zeros((1, n), np.float32)
    even = 1.0 / n
    # the world's row as an int64, not the literal 0: numba compiles a kernel function once per
    # argument type, and a literal is a type of its own
    row = np.int64(0)
    for _ in range(worlds):
        redeal_hidden(row, seat, b_ints, b_masks, b_stock, known, stock_public, cfg, rng, row)
        for a in range(actions.shape[0]):
            w_ints[0] = b_ints[0]
            w_masks[0] = b_masks[0]
            w_stock[0] = b_stock[0]
            w_pile[0] = b_pile[0]
            rewards[0, :] = 0.0
            k.apply(row, actions[a], w_ints, w_masks, w_stock, w_pile, rewards, cfg)
            k.compute_legal(row, w_ints, w_masks, w_legal, cfg)
            steps = play_out(row, w_ints, w_masks, w_stock, w_pile, w_legal, rewards, cfg, max_steps)
            value = seat_value(row, seat, w_ints, w_masks, rewards, temperature, cfg, margin_scale)
            totals[a] += even + (value - even) * discount ** (steps + 1)
    return float(worlds)
