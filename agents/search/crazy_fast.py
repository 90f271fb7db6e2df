"""Compiled Crazy Rummy playouts: a rule-of-thumb player in numba, played in ``crazy_kernel`` rows.

:func:`heuristic_action` follows the rules of thumb of
:class:`agents.crazy_heuristic.CrazyRummyHeuristicAgent` (R-CRAZY-12 penalties), with
two simplifications that keep it cheap: it reads the exact table of the kernel row (the
Python agent guesses lay-off spots from its observation), and it goes out greedily
(melds, lay-offs, then wild cards laid off when at most one natural card is left)
instead of searching every order of moves (``agents.crazy_planner.GoOutPlanner``).
It is a playout policy, not a second heuristic: the tests check its legality and its
choices in stacked positions, not that it copies the Python agent move for move.

:func:`evaluate` is the ``pimc`` agent's ``rollout=fast`` inner loop, as
``rummy_fast.evaluate``: every root action in each of ``worlds`` worlds (the hidden
cards dealt again by ``crazy_world.redeal_hidden``), the round played out by the policy
for every seat (Tesauro and Galperin 1996), judged by who has the lowest penalty.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rummy_env.core.melds import MELDS
from rummy_env.vector import crazy_kernel as k
from rummy_env.vector.bits import U0, U1, bit, ctz, has, popcount
from rummy_env.vector.crazy_world import redeal_hidden
from rummy_env.vector.deadwood_kernel import MELD_MASK, MELD_SIZE


def _partners() -> np.ndarray:
    """Per card, the cards that make a partial meld with it (``in_partial_meld``, no high ace)."""
    out = np.zeros(52, dtype=np.uint64)
    for c in range(52):
        m = 0
        for o in range(52):
            same_suit_near = o // 13 == c // 13 and abs(o % 13 - c % 13) <= 2
            if o != c and (o % 13 == c % 13 or same_suit_near):
                m |= 1 << o
        out[c] = m
    return out


PARTNERS = _partners()
#: per card, the melds (ids) that hold it and need no high ace (R-CRAZY-01)
_HOLDERS = [[m for m, meld in enumerate(MELDS) if c in meld.cards and not meld.needs_ace_high] for c in range(52)]
HOLDERS = np.full((52, max(len(h) for h in _HOLDERS)), -1, np.int16)
for _c, _ids in enumerate(_HOLDERS):
    HOLDERS[_c, : len(_ids)] = _ids


@njit(inline="always", cache=True)
def card_penalty(c, wild_rank):
    """Penalty of one card (R-CRAZY-12)."""
    return k.WILD_PENALTY if c % 13 == wild_rank else k.CARD_VALUE[c]


@njit(cache=True)
def useful(card, hand, wilds, melded, spots):
    """``CrazyRummyHeuristicAgent._useful``: a wild card; a card that makes a meld with
    at least two natural cards of it (the drawn card included) and the hand's wild
    cards; or, once melded, a card that extends a table meld (``spots``)."""
    if has(wilds, card):
        return True
    held_wilds = popcount(hand & wilds)
    naturals = (hand & ~wilds) | bit(card)
    for j in range(HOLDERS.shape[1]):
        m = HOLDERS[card, j]
        if m < 0:
            break
        held = popcount(MELD_MASK[m] & naturals)
        if held >= 2 and held + held_wilds >= MELD_SIZE[m]:
            return True
    return melded and has(spots, card)


@njit(cache=True)
def layoff_spots(i, ints, masks):
    """Cards that extend a table meld of row ``i`` and are not on the table (exact)."""
    spots = U0
    table = masks[i, k.TABLE]
    set3, low_ends, high_ends = masks[i, k.SET3], masks[i, k.LOW_ENDS], masks[i, k.HIGH_ENDS]
    for rank in range(13):
        if has(set3, rank):
            for s in range(4):
                if not has(table, 13 * s + rank):
                    spots |= bit(13 * s + rank)
    for s in range(4):
        for pos in range(14):
            if pos >= 1 and has(low_ends, 14 * s + pos):
                spots |= bit(13 * s + pos - 1)
            if pos < 12 and has(high_ends, 14 * s + pos):
                spots |= bit(13 * s + pos + 1)
    return spots & ~k.on_table(i, ints, masks)


@njit(cache=True)
def heuristic_action(i, ints, masks, pile, legal):
    """The playout policy's action for the acting seat of live row ``i`` (see the module
    docstring): draw the top discard when useful; then swap, meld (most natural cards,
    then most penalty shed), lay off natural cards (highest penalty), lay off wild
    cards when at most one natural card is left (going out), and discard the
    highest-penalty card in no partial meld, never a wild card while another may go."""
    p = ints[i, k.CUR]
    hand = masks[i, k.HAND + p]
    wilds = masks[i, k.WILDS]
    wild_rank = ints[i, k.WILD_RANK]
    if ints[i, k.PHASE] == k.DRAW:
        if has(legal[i, 0], k.DRAW_DISCARD):
            top = pile[i, ints[i, k.PILE_LEN] - 1]
            melded = ints[i, k.MELDED + p] != 0
            spots = layoff_spots(i, ints, masks) if melded else U0
            if useful(top, hand, wilds, melded, spots):
                return k.DRAW_DISCARD
        return k.DRAW_STOCK
    for s in range(4):
        c = ints[i, k.STAND + s]
        if c >= 0 and has(legal[i, (k.SWAP + c) >> 6], (k.SWAP + c) & 63):
            return k.SWAP + c
    best, best_nat, best_shed = -1, -1, -1
    for m in range(k.NUM_MELDS):
        a = k.MELD + m
        if has(legal[i, a >> 6], a & 63):
            natural = MELD_MASK[m] & hand
            nat = popcount(natural)
            shed = 0
            h = natural
            while h:
                c = ctz(h)
                h &= h - U1
                shed += card_penalty(c, wild_rank)
            shed += k.WILD_PENALTY * (MELD_SIZE[m] - nat)
            if nat > best_nat or (nat == best_nat and shed > best_shed):
                best, best_nat, best_shed = a, nat, shed
    if best >= 0:
        return best
    going_out = popcount(hand & ~wilds) <= 1
    best_pen, wild_layoff = -1, -1
    for a in range(k.LAYOFF, k.SWAP):
        if has(legal[i, a >> 6], a & 63):
            c = (a - k.LAYOFF) // 3
            if has(hand, c):
                pen = card_penalty(c, wild_rank)
                if pen > best_pen:
                    best, best_pen = a, pen
            elif wild_layoff < 0:
                wild_layoff = a
    if best >= 0:
        return best
    if going_out and wild_layoff >= 0:
        return wild_layoff
    discards = legal[i, 0] & np.uint64((1 << 52) - 1)
    plain = discards & ~wilds
    if not plain:
        plain = discards
    naturals = hand & ~wilds
    loose = U0
    m = plain
    while m:
        c = ctz(m)
        m &= m - U1
        if not naturals & PARTNERS[c]:
            loose |= bit(c)
    pool = loose if loose else plain
    best = -1
    m = pool
    while m:  # the highest penalty, then the highest id
        c = ctz(m)
        m &= m - U1
        if best < 0 or card_penalty(c, wild_rank) >= card_penalty(best, wild_rank):
            best = c
    return best


@njit(cache=True)
def play_out(i, ints, masks, stock, pile, legal, cfg, max_steps):
    """Play live row ``i`` with the policy for every seat until the round ends or
    ``max_steps`` actions; returns the actions played."""
    steps = 0
    while ints[i, k.ENDED] == k.LIVE and steps < max_steps:
        k.apply(i, heuristic_action(i, ints, masks, pile, legal), ints, masks, stock, pile, cfg)
        k.compute_legal(i, ints, masks, legal, cfg)
        steps += 1
    return steps


@njit(cache=True)
def seat_value(i, seat, ints, masks, temperature, cfg):
    """``seat``'s value (0..1) of row ``i`` (``worlds.hand_values``): 1/k when it is one of
    the k lowest penalties of a finished round (R-CRAZY-12), 0 otherwise, 1/n for a
    round cut by ``max_turns``; a round still live is judged by a softmax of minus each
    hand's penalty over ``temperature`` points (``worlds.position_values``)."""
    n = cfg[k.C_PLAYERS]
    if ints[i, k.ENDED] == k.TRUNCATED:
        return 1.0 / n
    points = np.empty(n, np.float64)
    for q in range(n):
        if ints[i, k.ENDED] == k.LIVE:
            points[q] = k.penalty(masks[i, k.HAND + q], ints[i, k.WILD_RANK])
        else:
            points[q] = ints[i, k.PENALTY + q]
    low = points.min()
    if ints[i, k.ENDED] != k.LIVE:
        if points[seat] > low:
            return 0.0
        ties = 0
        for q in range(n):
            ties += points[q] == low
        return 1.0 / ties
    total = 0.0
    for q in range(n):
        total += np.exp((low - points[q]) / temperature)
    return np.exp((low - points[seat]) / temperature) / total


@njit(cache=True)
def evaluate(base, seat, actions, worlds, max_steps, temperature, discount, cfg, rng, totals):
    """Add to ``totals[a]`` the value for ``seat`` of root action ``actions[a]`` in each
    of ``worlds`` worlds and return ``worlds`` (the sum of the weights, all 1).  Row 0 of
    ``base`` (the kernel arrays ``ints, masks, stock, pile, legal``) holds a world of
    ``seat``'s information, its hidden cards dealt again for each world
    (``crazy_world.redeal_hidden``, generator ``rng[0]``).  Every action is played in
    the same worlds (common random numbers); values move towards 1/n by ``discount``
    per action played."""
    b_ints, b_masks, b_stock, b_pile, b_legal = base
    w_ints, w_masks, w_stock = b_ints.copy(), b_masks.copy(), b_stock.copy()
    w_pile, w_legal = b_pile.copy(), b_legal.copy()
    n = cfg[k.C_PLAYERS]
    even = 1.0 / n
    for _ in range(worlds):
        redeal_hidden(0, seat, b_ints, b_masks, b_stock, cfg, rng, 0)
        for a in range(actions.shape[0]):
            w_ints[0] = b_ints[0]
            w_masks[0] = b_masks[0]
            w_stock[0] = b_stock[0]
            w_pile[0] = b_pile[0]
            k.apply(0, actions[a], w_ints, w_masks, w_stock, w_pile, cfg)
            k.compute_legal(0, w_ints, w_masks, w_legal, cfg)
            steps = play_out(0, w_ints, w_masks, w_stock, w_pile, w_legal, cfg, max_steps)
            value = seat_value(0, seat, w_ints, w_masks, temperature, cfg)
            totals[a] += even + (value - even) * discount ** (steps + 1)
    return float(worlds)
