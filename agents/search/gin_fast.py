"""Compiled Gin Rummy playouts: the Gin heuristic in numba, played in ``gin_kernel`` rows.

:func:`heuristic_action` is :class:`agents.gin_heuristic.GinHeuristicAgent` (its
defaults, ``wait_for_gin=0``) rule for rule, in each of its styles (``style``: the index
in ``gin_heuristic.STYLES``, 0 = default), reading the kernel row instead of the
encoded observation (only what the acting seat's observation holds); the differential
tests check that both pick the same action.
:func:`evaluate` is the ``pimc`` agent's ``rollout=fast`` inner loop: for each of
``worlds`` worlds (the loaded one, then the cards hidden from the searching seat dealt
again by ``gin_world.redeal_hidden``), every root action is played and the hand is
played out by the heuristic for both seats (Tesauro and Galperin 1996's policy
improvement by rollouts).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.gin_heuristic import DEFENSIVE_SLACK, GIN_HUNTER_STOCK, STYLES
from agents.search.gin_records import bit_of, opponent_context, opponent_records  # noqa: F401 - re-exported
from agents.search.rummy_fast import completes_meld, highest
from agents.styles import KNOWN_WEIGHT, REJECTED_WEIGHT
from rummy_env.vector import gin_kernel as k
from rummy_env.vector.bits import U0, U1, below, bit, ctz, has, popcount
from rummy_env.vector.deadwood_kernel import deadwood, knock_discards
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
#: style ids (``gin_heuristic.STYLES``)
DEFAULT, GIN_HUNTER, DEFENSIVE, UPCARD_MELD_ONLY = 0, 1, 2, 3
assert STYLES == ("default", "gin_hunter", "defensive", "upcard_meld_only")


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
def heuristic_action(i, ints, masks, pile, legal, style=0):
    """The Gin heuristic's action (in style ``style``) for the acting seat of live row ``i``."""
    p = ints[i, k.CUR]
    hand = masks[i, k.HAND + p]
    phase = ints[i, k.PHASE]
    if phase != k.DISCARD:  # the upcard offer or a draw: the upcard is legal
        n = ints[i, k.PILE_LEN]
        if n > 0:
            up = pile[i, n - 1]
            if (style != UPCARD_MELD_ONLY or completes_meld(up, hand, False)) and wants(up, hand):
                return k.DRAW_UPCARD
        return k.DRAW_STOCK if phase == k.DRAW else k.PASS
    stock = 52 - ints[i, k.STOCK]
    known, rejected = masks[i, k.KNOWN + 1 - p], masks[i, k.PILE_MASK]
    return discard_choice(hand, legal[i, 0], legal[i, 1], style, stock, known, rejected)


@njit(cache=True)
def heuristic_actions(rows, ints, masks, pile, legal, out, style=0):
    """:func:`heuristic_action` of each live row of ``rows`` (int64) into ``out[row]``."""
    for i in rows:
        out[i] = heuristic_action(i, ints, masks, pile, legal, style)


@njit(cache=True)
def discard_choice(hand, legal0, legal1, style=0, stock=0, known=U0, rejected=U0):
    """The heuristic's big gin, knock or discard from an 11-card ``hand`` whose legal
    ids are the bits of the words ``legal0``, ``legal1``; for the styles, ``stock``: the
    stock's size, ``known``, ``rejected``: the cards the opponent picked and holds, and
    the discard pile (bitmasks)."""
    if has(legal1, k.BIG_GIN - 64):
        return k.BIG_GIN
    knocks = (legal0 >> np.uint64(k.KNOCK)) | (legal1 << np.uint64(64 - k.KNOCK))
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
        if style != GIN_HUNTER or best_left == 0 or stock <= GIN_HUNTER_STOCK:
            return k.KNOCK + best
    discards = legal0 & DISCARD_BITS
    if style == DEFENSIVE:
        return defensive_discard(hand, discards, known, rejected)
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
    if style == UPCARD_MELD_ONLY:
        pool = best_set
    return highest(pool)  # the highest value, then the highest id


@njit(cache=True)
def danger(c, known, rejected):
    """``agents.styles.danger`` of discarding card ``c`` (ace low)."""
    near = PARTNERS[c]
    return KNOWN_WEIGHT * popcount(near & known) - REJECTED_WEIGHT * popcount(near & rejected)


@njit(cache=True)
def defensive_discard(hand, discards, known, rejected):
    """The ``defensive`` style's discard: among the ``discards`` leaving at most
    ``DEFENSIVE_SLACK`` points over the least deadwood, the least :func:`danger`, then
    the least deadwood, the highest value, the highest id."""
    least = 1 << 30
    m = discards
    while m:
        c = ctz(m)
        m &= m - U1
        least = min(least, deadwood(hand & ~bit(c)))
    best, best_danger, best_left = -1, 0, 0
    m = discards
    while m:
        c = ctz(m)
        m &= m - U1
        left = deadwood(hand & ~bit(c))
        if left > least + DEFENSIVE_SLACK:
            continue
        d = danger(c, known, rejected)
        if (
            best < 0
            or d < best_danger
            or (d == best_danger and (left < best_left or (left == best_left and CARD_VALUE[c] >= CARD_VALUE[best])))
        ):
            best, best_danger, best_left = c, d, left
    return best


@njit(cache=True)
def discard_phase_choice(hand, forbidden, limit, big_gin, style=0, stock=0, known=U0, rejected=U0):
    """The heuristic's choice (in style ``style``; ``stock``, ``known``, ``rejected`` as
    :func:`discard_choice` reads them) with the 11 cards ``hand`` after a draw
    (``forbidden``: the card taken from the pile this turn, or -1), the legal ids as
    ``gin_kernel.compute_legal`` makes them (R-GIN-04, 06, 07)."""
    keep = hand
    if forbidden >= 0:
        keep &= ~bit(forbidden)
    legal0 = keep
    legal1 = U0
    full = deadwood(hand)
    if full - 10 <= limit:
        knocks = knock_discards(hand, limit) & keep
        legal0 |= knocks << np.uint64(k.KNOCK)
        legal1 |= knocks >> np.uint64(64 - k.KNOCK)
    if full == 0 and big_gin:
        legal1 |= U1 << np.uint64(k.BIG_GIN - 64)
    return discard_choice(hand, legal0, legal1, style, stock, known, rejected)


@njit(cache=True)
def takes(up, hand, style=0):
    """Whether the heuristic in style ``style`` takes the upcard ``up`` into ``hand``
    (:func:`heuristic_action`'s draw rule)."""
    return (style != UPCARD_MELD_ONLY or completes_meld(up, hand, False)) and wants(up, hand)


@njit(cache=True)
def play_out(i, ints, masks, pile, legal, decks, rewards, cfg, max_steps, opp=-1, opp_style=0):
    """Play live row ``i`` with the heuristic for both seats (seat ``opp`` in style
    ``opp_style``, the other in the default style) until the hand ends or ``max_steps``
    actions; returns the actions played."""
    steps = 0
    while ints[i, k.ENDED] == k.LIVE and steps < max_steps:
        style = opp_style if ints[i, k.CUR] == opp else 0
        k.apply(i, heuristic_action(i, ints, masks, pile, legal, style), ints, masks, pile, decks, rewards, cfg)
        k.compute_legal(i, ints, masks, legal, cfg)
        steps += 1
    return steps


@njit(cache=True)
def seat_value(i, seat, ints, masks, rewards, temperature, margin_scale, before):
    """``seat``'s value (0..1) of row ``i``: 1 / 0 / 0.5 for a hand won / lost / with no
    winner; a hand still live is judged by a logistic of the deadwood difference over
    ``temperature`` points (``worlds.position_values`` for two seats).

    ``margin_scale`` > 0 (whole games, won by the first to the target, R-GIN-13): 0.5 plus
    the hand's points (R-GIN-10, 11, 12: the score added since the playout's start, whose
    scores are ``before``) for the seat that won it, minus them for the other, over
    ``margin_scale`` points; 0.5 for a hand with no winner; a live hand by the deadwood
    difference, the points a knock would score now, over ``margin_scale``."""
    if ints[i, k.ENDED] != k.LIVE:
        r = rewards[i, seat]
        if margin_scale > 0.0:
            winner = seat if r > 0 else (1 - seat if r < 0 else -1)
            if winner < 0:
                return 0.5
            points = ints[i, k.SCORE + winner] - before[winner]
            return 0.5 + (points if winner == seat else -points) / margin_scale
        return 1.0 if r > 0 else (0.0 if r < 0 else 0.5)
    mine = deadwood(masks[i, k.HAND + seat])
    theirs = deadwood(masks[i, k.HAND + 1 - seat])
    if margin_scale > 0.0:
        return 0.5 + (theirs - mine) / margin_scale
    return 1.0 / (1.0 + np.exp((mine - theirs) / temperature))


@njit(cache=True)
def _discard_fits(after, records, context, style, j, limit, big_gin):
    """Whether the heuristic in style ``style`` would have discarded record ``j``'s card
    from the hand ``after`` that discard plus the card (True for a record without a
    discard, or with the unknown first upcard); ``context``: :func:`opponent_context`."""
    ups, tooks, discards, _ = records
    disc = discards[j]
    if disc < 0 or (tooks[j] and ups[j] < 0):
        return True
    forbidden = ups[j] if tooks[j] else -1
    stocks, knowns, piles = context
    choice = discard_phase_choice(after | bit(disc), forbidden, limit, big_gin, style, stocks[j], knowns[j], piles[j])
    return choice == disc


@njit(cache=True)
def fit_weight(hand, records, limit, big_gin, eps, rng, r, share=True):
    """:func:`style_fit` of the default style (no context needed)."""
    n = records[0].shape[0]
    context = (np.zeros(n, np.int64), np.zeros(n, np.uint64), np.zeros(n, np.uint64))
    return style_fit(hand, records, context, 0, limit, big_gin, eps, rng, r, share)


@njit(cache=True)
def style_fit(hand, records, context, style, limit, big_gin, eps, rng, r, share=True):
    """How well ``hand`` (the opponent's cards now) fits its recorded decisions
    (:func:`opponent_records`; ``context``: :func:`opponent_context`) if it plays the
    heuristic in style ``style`` (an index of ``gin_heuristic.STYLES``): a product over its decisions,
    latest first, of ``eps`` for each the heuristic would not have made, times, for each
    stock draw, the share of the cards it may have drawn (the hand's cards not seen
    before) with which its draw decision and the discard before it fit; the card drawn
    is then one of those, drawn by ``rng[r]`` (sequential importance sampling), and the
    walk goes on with the hand it held before.  The walk stops at the first upcard when
    someone took it (that card is not known to the replay)."""
    ups, tooks, discards, seen = records
    h = hand
    weight = 1.0
    n = ups.shape[0]
    checked = False  # whether record j's discard was checked by the step after it
    for j in range(n - 1, -1, -1):
        up, took, disc = ups[j], tooks[j], discards[j]
        if disc < 0:  # a pass without a draw of its own: the hand is the same before
            if up >= 0 and takes(up, h, style):
                weight *= eps
            checked = False
            continue
        h11 = h | bit(disc)
        if took:
            if up < 0 or not has(h11, up):
                break
            if not checked and not _discard_fits(h, records, context, style, j, limit, big_gin):
                weight *= eps
            h = h11 & ~bit(up)
            if not takes(up, h, style):
                weight *= eps
            checked = False
            continue
        if not checked and not _discard_fits(h, records, context, style, j, limit, big_gin):
            weight *= eps
        cand = h11 & ~seen[j]
        total = popcount(cand)
        if total == 0:
            return 0.0
        ok = U0
        m = cand
        while m:
            c = ctz(m)
            m &= m - U1
            before = h11 & ~bit(c)
            if up >= 0 and takes(up, before, style):
                continue
            if j > 0 and not _discard_fits(before, records, context, style, j - 1, limit, big_gin):
                continue
            ok |= bit(c)
        fits = popcount(ok)
        checked = fits > 0  # the card drawn makes the discard before fit
        if fits == 0:
            weight *= eps
            ok = cand
            fits = total
        elif share:
            weight *= fits / total
        t = below(rng, r, fits)
        for _ in range(t):
            ok &= ok - U1
        h = h11 & ~bit(ctz(ok))
        if weight == 0.0:
            return 0.0
    return weight


@njit(cache=True)
def evaluate(
    base,
    seat,
    actions,
    worlds,
    max_steps,
    temperature,
    discount,
    records,
    context,
    prior,
    eps,
    tries,
    cfg,
    rng,
    totals,
    evidence,
    margin_scale,
):
    """Add to ``totals[a]`` the weighted value for ``seat`` of root action ``actions[a]``
    in ``worlds`` worlds, and return the sum of the weights.

    Row 0 of ``base`` (the kernel arrays ``ints, masks, pile, legal, decks``) holds a
    world of ``seat``'s information; each world deals its hidden cards again
    (``gin_world.redeal_hidden``, generator ``rng[0]``) and, with ``eps < 1``, weighs it
    by how well the opponent's recorded decisions fit it under a mixture of styles:
    ``sum_s prior[s] * style_fit(style s)`` (:func:`style_fit`; ``prior``: float64, one
    weight per style of ``gin_heuristic.STYLES``, 0 for a style left out; with ``eps >= 1``
    weight 1: uniform worlds).  ``evidence[s]`` gains ``prior[s] * style_fit`` of every
    world dealt (normalized, the posterior over the styles).  Each world played draws
    the opponent's playout style from its posterior in that world (the only style with
    a nonzero prior without a draw); the default style plays without a model.  A world
    of weight 0, or under 1% of the best weight so far, is not played, and dealing stops
    after ``tries * worlds`` deals.  Every action is played in the same worlds.  Values
    move towards 0.5 by ``discount`` per action played (``worlds.DISCOUNT``: the sooner of
    two wins is worth more); ``margin_scale``: as :func:`seat_value`."""
    b_ints, b_masks, b_pile, b_legal, b_decks = base
    w_ints, w_masks, w_pile = b_ints.copy(), b_masks.copy(), b_pile.copy()
    w_legal, w_decks = b_legal.copy(), b_decks.copy()
    # float32 as the batched engine's: the kernel functions compiled for it serve (only the
    # rewards' signs are read, and the points are whole numbers, exact in float32)
    rewards = np.zeros((1, 2), np.float32)
    before = b_ints[0, k.SCORE : k.SCORE + 2].copy()
    other = 1 - seat
    limit = b_ints[0, k.LIMIT]
    big_gin = cfg[k.C_BIG_GIN]
    n_styles = prior.shape[0]
    likes = np.zeros(n_styles)
    mixed = 0
    for s in range(n_styles):
        if prior[s] > 0.0:
            mixed += 1
    played, dealt = 0, 0
    total_weight, best = 0.0, 0.0
    # the world's row as an int64, not the literal 0: numba compiles a kernel function once per
    # argument type, and a literal is a type of its own
    row = np.int64(0)
    while played < worlds and dealt < tries * worlds:
        redeal_hidden(row, seat, b_ints, b_masks, b_decks, rng, row)
        dealt += 1
        weight = 1.0
        style = 0
        if eps < 1.0:
            weight = 0.0
            hand = b_masks[0, k.HAND + other]
            for s in range(n_styles):
                likes[s] = 0.0
                if prior[s] > 0.0:
                    likes[s] = prior[s] * style_fit(hand, records, context, s, limit, big_gin, eps, rng, row)
                    evidence[s] += likes[s]
                    weight += likes[s]
                    if mixed == 1:
                        style = s
            if weight <= 0.0 or weight < 0.01 * best:
                continue
            best = max(best, weight)
            if mixed > 1:  # the playout style, drawn from this world's posterior
                u = below(rng, row, 1 << 30) / float(1 << 30) * weight
                style = -1
                for s in range(n_styles):
                    if likes[s] > 0.0:
                        style = s
                        u -= likes[s]
                        if u < 0.0:
                            break
        played += 1
        total_weight += weight
        for a in range(actions.shape[0]):
            w_ints[0] = b_ints[0]
            w_masks[0] = b_masks[0]
            w_pile[0] = b_pile[0]
            w_decks[0] = b_decks[0]
            rewards[0, 0] = 0.0
            rewards[0, 1] = 0.0
            k.apply(row, actions[a], w_ints, w_masks, w_pile, w_decks, rewards, cfg)
            k.compute_legal(row, w_ints, w_masks, w_legal, cfg)
            steps = play_out(row, w_ints, w_masks, w_pile, w_legal, w_decks, rewards, cfg, max_steps, other, style)
            value = seat_value(row, seat, w_ints, w_masks, rewards, temperature, margin_scale, before)
            totals[a] += weight * (0.5 + (value - 0.5) * discount ** (steps + 1))
    return total_weight
