"""Compiled Gin Rummy playouts: the Gin heuristic in numba, played in ``gin_kernel`` rows.

:func:`heuristic_action` is :class:`agents.gin_heuristic.GinHeuristicAgent` (its
defaults, ``wait_for_gin=0``) rule for rule, reading the kernel row instead of the
encoded observation; the differential test checks that both pick the same action.
:func:`evaluate` is the ``pimc`` agent's ``rollout=fast`` inner loop: for each of
``worlds`` worlds (the loaded one, then the cards hidden from the searching seat dealt
again by ``gin_world.redeal_hidden``), every root action is played and the hand is
played out by the heuristic for both seats (Tesauro and Galperin 1996's policy
improvement by rollouts).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from rummy_env.vector import gin_kernel as k
from rummy_env.vector.bits import U0, U1, bit, ctz, has
from rummy_env.vector.deadwood_kernel import deadwood
from rummy_env.vector.gin_world import redeal_hidden

CARD_VALUE = np.array([min(c % 13 + 1, 10) for c in range(52)], dtype=np.int64)
#: per card, the cards that make a partial meld with it (``rummy_heuristic.in_partial_meld``,
#: ace low): the same rank, or the same suit at most two ranks away
PARTNERS = np.zeros(52, dtype=np.uint64)
for _c in range(52):
    _m = 0
    for _o in range(52):
        if _o != _c and (_o % 13 == _c % 13 or (_o // 13 == _c // 13 and abs(_o % 13 - _c % 13) <= 2)):
            _m |= 1 << _o
    PARTNERS[_c] = _m
DISCARD_BITS = np.uint64((1 << 52) - 1)


@njit(cache=True)
def wants(card, hand):
    """``GinHeuristicAgent._wants``: some discard other than ``card`` from ``hand`` plus
    ``card`` leaves less deadwood than ``hand`` has now."""
    now = deadwood(hand)
    with_card = hand | bit(card)
    h = hand
    while h:
        low = h & (~h + U1)
        h ^= low
        if deadwood(with_card ^ low) < now:
            return True
    return False


@njit(cache=True)
def heuristic_action(i, ints, masks, pile, legal):
    """The Gin heuristic's action for the acting seat of live row ``i``."""
    p = ints[i, k.CUR]
    hand = masks[i, k.HAND + p]
    phase = ints[i, k.PHASE]
    if phase != k.DISCARD:  # the upcard offer or a draw: the upcard is legal
        n = ints[i, k.PILE_LEN]
        if n > 0 and wants(pile[i, n - 1], hand):
            return k.DRAW_UPCARD
        return k.DRAW_STOCK if phase == k.DRAW else k.PASS
    if has(legal[i, 1], k.BIG_GIN - 64):
        return k.BIG_GIN
    knocks = (legal[i, 0] >> np.uint64(k.KNOCK)) | (legal[i, 1] << np.uint64(64 - k.KNOCK))
    knocks &= DISCARD_BITS
    if knocks:  # knock as soon as legal: least deadwood left, then the highest card, then the lowest id
        best, best_left = -1, 1 << 30
        m = knocks
        while m:
            c = ctz(m)
            m &= m - U1
            left = deadwood(hand & ~bit(c))
            if left < best_left or (left == best_left and CARD_VALUE[c] > CARD_VALUE[best]):
                best, best_left = c, left
        return k.KNOCK + best
    discards = legal[i, 0] & DISCARD_BITS
    least = 1 << 30
    best_set = U0
    m = discards
    while m:
        c = ctz(m)
        m &= m - U1
        left = deadwood(hand & ~bit(c))
        if left < least:
            least, best_set = left, bit(c)
        elif left == least:
            best_set |= bit(c)
    loose = U0
    m = best_set
    while m:
        c = ctz(m)
        m &= m - U1
        if not hand & PARTNERS[c]:
            loose |= bit(c)
    pool = loose if loose else best_set
    best = -1
    m = pool
    while m:  # the highest value, then the highest id
        c = ctz(m)
        m &= m - U1
        if best < 0 or CARD_VALUE[c] >= CARD_VALUE[best]:
            best = c
    return best


@njit(cache=True)
def play_out(i, ints, masks, pile, legal, decks, rewards, cfg, max_steps):
    """Play live row ``i`` with the heuristic for both seats until the hand ends or
    ``max_steps`` actions; returns the actions played."""
    steps = 0
    while ints[i, k.ENDED] == k.LIVE and steps < max_steps:
        k.apply(i, heuristic_action(i, ints, masks, pile, legal), ints, masks, pile, decks, rewards, cfg)
        k.compute_legal(i, ints, masks, legal, cfg)
        steps += 1
    return steps


@njit(cache=True)
def seat_value(i, seat, ints, masks, rewards, temperature):
    """``seat``'s value (0..1) of row ``i``: 1 / 0 / 0.5 for a hand won / lost / with no
    winner; a hand still live is judged by a logistic of the deadwood difference over
    ``temperature`` points (``worlds.position_values`` for two seats)."""
    if ints[i, k.ENDED] != k.LIVE:
        r = rewards[i, seat]
        return 1.0 if r > 0 else (0.0 if r < 0 else 0.5)
    mine = deadwood(masks[i, k.HAND + seat])
    theirs = deadwood(masks[i, k.HAND + 1 - seat])
    return 1.0 / (1.0 + np.exp((mine - theirs) / temperature))


@njit(cache=True)
def evaluate(base, seat, actions, worlds, max_steps, temperature, discount, cfg, rng, totals):
    """Add to ``totals[a]`` the value for ``seat`` of root action ``actions[a]`` in each
    of ``worlds`` worlds; row 0 of ``base`` (the kernel arrays ``ints, masks, pile,
    legal, decks``) holds the first world, the next ones re-deal its hidden cards with
    generator ``rng[0]``.  Every action is played in the same worlds.  Values move
    towards 0.5 by ``discount`` per action played (``worlds.DISCOUNT``: the sooner of two
    wins is worth more)."""
    b_ints, b_masks, b_pile, b_legal, b_decks = base
    w_ints, w_masks, w_pile = b_ints.copy(), b_masks.copy(), b_pile.copy()
    w_legal, w_decks = b_legal.copy(), b_decks.copy()
    rewards = np.zeros((1, 2), np.float64)
    for w in range(worlds):
        if w > 0:
            redeal_hidden(0, seat, b_ints, b_masks, b_decks, rng, 0)
        for a in range(actions.shape[0]):
            w_ints[0] = b_ints[0]
            w_masks[0] = b_masks[0]
            w_pile[0] = b_pile[0]
            w_decks[0] = b_decks[0]
            rewards[0, 0] = 0.0
            rewards[0, 1] = 0.0
            k.apply(0, actions[a], w_ints, w_masks, w_pile, w_decks, rewards, cfg)
            k.compute_legal(0, w_ints, w_masks, w_legal, cfg)
            steps = play_out(0, w_ints, w_masks, w_pile, w_legal, w_decks, rewards, cfg, max_steps)
            value = seat_value(0, seat, w_ints, w_masks, rewards, temperature)
            totals[a] += 0.5 + (value - 0.5) * discount ** (steps + 1)
