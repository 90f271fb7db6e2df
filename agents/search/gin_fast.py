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
def discard_phase_choice(hand, forbidden, limit, big_gin):
    """The heuristic's choice with the 11 cards ``hand`` after a draw (``forbidden``: the
    card taken from the pile this turn, or -1), the legal ids as
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
    return discard_choice(hand, legal0, legal1)


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


def opponent_records(state, seat):
    """What ``seat`` saw the opponent decide in this hand, for :func:`mismatches`: int64
    arrays ``(ups, tooks, discards)`` and uint64 ``seen``, one entry per opponent turn
    or upcard offer, oldest first.  ``ups[j]``: the upcard it was offered or left (-1
    when not known: the first upcard once someone took it); ``tooks[j]``: 1 if it took
    it; ``discards[j]``: the card it discarded after (-1: a pass with no draw of its
    own); ``seen[j]``: the cards seen face up before that draw (they cannot come from
    the stock).  Read from the public history only (R-GIN-03, 04)."""
    from rummy_env.games.gin_rummy.state import DISCARD, DRAW, OFFER

    other, dealer = 1 - seat, state.dealer
    history = state.history
    # the first upcard is known to this replay unless someone took it in the offer (R-GIN-03)
    offer_taken = history[:1] == [k.DRAW_UPCARD] or history[:2] == [k.PASS, k.DRAW_UPCARD]
    first = -1 if offer_taken or not state.discard else state.discard[0]
    records: list[tuple[int, int, int, int]] = []
    shown = bit_of(first)
    phase, cur, passes, top, pending = OFFER, 1 - dealer, 0, first, None
    for a in history:
        if phase == DISCARD:  # a discard (a knock ends the hand)
            if cur == other and pending is not None:
                records.append((pending[0], pending[1], a, pending[2]))
                pending = None
            shown |= bit_of(a)
            top, cur, phase = a, 1 - cur, DRAW
        elif a == k.PASS:
            if cur == other:
                pending = (first, 0, shown)
            passes += 1
            if passes == 1:
                cur = dealer
            else:  # both passed: the non-dealer draws from the stock
                cur, phase = 1 - dealer, DISCARD
                if cur != other and pending is not None:  # the opponent dealt: no draw of its own
                    records.append((first, 0, -1, shown))
                    pending = None
        else:  # a draw, in the offer or after a discard
            if cur == other:
                pending = (top if phase == DRAW else first, int(a == k.DRAW_UPCARD), shown)
            phase = DISCARD
    if pending is not None and phase == OFFER:  # it passed the upcard and the seat is offered it now
        records.append((pending[0], 0, -1, pending[2]))
    columns = list(zip(*records, strict=True)) if records else [(), (), (), ()]
    return (
        np.asarray(columns[0], np.int64),
        np.asarray(columns[1], np.int64),
        np.asarray(columns[2], np.int64),
        np.asarray(columns[3], np.uint64),
    )


def bit_of(card: int) -> int:
    """The bitmask of ``card``, 0 for -1 (no card)."""
    return 0 if card < 0 else 1 << card


@njit(cache=True)
def _discard_fits(after, records, j, limit, big_gin):
    """Whether the heuristic would have discarded record ``j``'s card from the hand
    ``after`` that discard plus the card (True for a record without a discard, or with
    the unknown first upcard)."""
    ups, tooks, discards, _ = records
    disc = discards[j]
    if disc < 0 or (tooks[j] and ups[j] < 0):
        return True
    forbidden = ups[j] if tooks[j] else -1
    return discard_phase_choice(after | bit(disc), forbidden, limit, big_gin) == disc


@njit(cache=True)
def fit_weight(hand, records, limit, big_gin, eps, rng, r, share=True):
    """How well ``hand`` (the opponent's cards now) fits its recorded decisions
    (:func:`opponent_records`) if it plays the heuristic: a product over its decisions,
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
            if up >= 0 and wants(up, h):
                weight *= eps
            checked = False
            continue
        h11 = h | bit(disc)
        if took:
            if up < 0 or not has(h11, up):
                break
            if not checked and not _discard_fits(h, records, j, limit, big_gin):
                weight *= eps
            h = h11 & ~bit(up)
            if not wants(up, h):
                weight *= eps
            checked = False
            continue
        if not checked and not _discard_fits(h, records, j, limit, big_gin):
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
            if up >= 0 and wants(up, before):
                continue
            if j > 0 and not _discard_fits(before, records, j - 1, limit, big_gin):
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
def evaluate(base, seat, actions, worlds, max_steps, temperature, discount, records, eps, tries, cfg, rng, totals):
    """Add to ``totals[a]`` the weighted value for ``seat`` of root action ``actions[a]``
    in ``worlds`` worlds, and return the sum of the weights.

    Row 0 of ``base`` (the kernel arrays ``ints, masks, pile, legal, decks``) holds a
    world of ``seat``'s information; each world deals its hidden cards again
    (``gin_world.redeal_hidden``, generator ``rng[0]``) and weighs it by how well the
    opponent's recorded decisions fit it (:func:`fit_weight`; weight 1 with ``eps >= 1``:
    uniform worlds).  A world of weight 0, or under 1% of the best weight so far, is not
    played, and dealing stops after ``tries * worlds`` deals.  Every action is played in
    the same worlds.  Values move towards 0.5 by ``discount`` per action played
    (``worlds.DISCOUNT``: the sooner of two wins is worth more)."""
    b_ints, b_masks, b_pile, b_legal, b_decks = base
    w_ints, w_masks, w_pile = b_ints.copy(), b_masks.copy(), b_pile.copy()
    w_legal, w_decks = b_legal.copy(), b_decks.copy()
    rewards = np.zeros((1, 2), np.float64)
    other = 1 - seat
    limit = b_ints[0, k.LIMIT]
    big_gin = cfg[k.C_BIG_GIN]
    played, dealt = 0, 0
    total_weight, best = 0.0, 0.0
    while played < worlds and dealt < tries * worlds:
        redeal_hidden(0, seat, b_ints, b_masks, b_decks, rng, 0)
        dealt += 1
        weight = 1.0
        if eps < 1.0:
            weight = fit_weight(b_masks[0, k.HAND + other], records, limit, big_gin, eps, rng, 0)
            if weight <= 0.0 or weight < 0.01 * best:
                continue
            best = max(best, weight)
        played += 1
        total_weight += weight
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
            totals[a] += weight * (0.5 + (value - 0.5) * discount ** (steps + 1))
    return total_weight
