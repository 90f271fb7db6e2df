"""Compiled Crazy Rummy playouts: a rule-of-thumb player in numba, played in ``crazy_kernel`` rows.

:func:`heuristic_action` is :class:`agents.crazy_heuristic.CrazyRummyHeuristicAgent`
rule for rule (R-CRAZY-12 penalties), in each of its styles (``style``: the index in
``crazy_heuristic.STYLES``, 0 = default), its go-out planner included
(``agents.search.crazy_plan``), reading the kernel row instead of the encoded
observation: it sees the table as the observation shows it (represented cards and what
each wild card stands for; lay-off spots guessed as the Python agent guesses them
where the mask does not list them), and the differential test checks that both pick
the same action.

:func:`evaluate` is the ``pimc`` agent's ``rollout=fast`` inner loop, as
``rummy_fast.evaluate``: every root action in each of ``worlds`` worlds (the hidden
cards dealt again by ``crazy_world.redeal_hidden``), the round played out by the policy
for every seat (Tesauro and Galperin 1996), judged by who has the lowest penalty.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from agents.crazy_heuristic import SHED_VALUE, STYLES
from agents.search import crazy_plan as plan
from agents.styles import KNOWN_WEIGHT, REJECTED_WEIGHT
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
#: style ids (``crazy_heuristic.STYLES``)
DEFAULT, HOLD_WILDS, SHED_HIGH, DEFENSIVE, HOLD_WILDS_SAFE = 0, 1, 2, 3, 4
assert STYLES == ("default", "hold_wilds", "shed_high", "defensive", "hold_wilds_safe")
#: ``crazy_heuristic.HOLDS_WILDS`` / ``READS_NEXT``: the styles that keep their wild cards for
#: the go-out, and those whose discard reads the next player
HOLDS_WILDS = (HOLD_WILDS, HOLD_WILDS_SAFE)
READS_NEXT = (DEFENSIVE, HOLD_WILDS_SAFE)
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
    """``agents.crazy_planner.layoff_spots``, the Python agent's guess from what its
    observation shows: a card whose rank has its three other cards on the table, or with
    the two cards next to it on one side (same suit) there; never a card on the table."""
    return plan.guess_spots(masks[i, k.TABLE], k.on_table(i, ints, masks))


@njit(cache=True)
def _plan(i, ints, masks, hand, melded, keep_out, known, use_known, memo_keys, memo_results, gen):
    """``GoOutPlanner(wilds, table, known_spots).plan(...)``'s first move in row ``i``
    (``crazy_plan.first_move``), the table as the Python agent's observation shows it."""
    stands = np.empty(4, np.int64)
    for s in range(4):
        stands[s] = ints[i, k.STAND + s]
    gen[0] += 1
    return plan.first_move(
        hand, melded, keep_out, masks[i, k.WILDS], masks[i, k.TABLE], k.on_table(i, ints, masks), stands,
        known, use_known, memo_keys, memo_results, np.uint64(gen[0]),
    )  # fmt: skip


@njit(inline="always", cache=True)
def _legal(legal, i, a):
    return has(legal[i, a >> 6], a & 63)


@njit(cache=True)
def _planned_action(move, i, legal):
    """``crazy_heuristic._first_legal_move``: the action of a plan's first move when the
    mask has it, else -1."""
    if move == plan.NO_PLAN:
        return -1
    if move == plan.EMPTY_PLAN:
        return ctz(legal[i, 0] & np.uint64((1 << 52) - 1))  # one card left: discarding it goes out
    if move >= plan.MELD_MOVE:
        a = k.MELD + move - plan.MELD_MOVE
        return a if _legal(legal, i, a) else -1
    if move >= plan.SWAP_MOVE:
        a = k.SWAP + move - plan.SWAP_MOVE
        return a if _legal(legal, i, a) else -1
    c = move - (plan.WILD_MOVE if move >= plan.WILD_MOVE else plan.LAYOFF_MOVE)
    for side in range(3):
        if _legal(legal, i, k.LAYOFF + 3 * c + side):
            return k.LAYOFF + 3 * c + side
    return -1


@njit(cache=True)
def heuristic_action(i, ints, masks, pile, legal, memo_keys, memo_results, gen, style=0, players=0):
    """``CrazyRummyHeuristicAgent.act`` for the acting seat of live row ``i`` (see its
    docstring and the module's): go out when the planner finds how (taking the top
    discard when it lets the hand go out); draw the top discard when useful; then swap,
    meld (most natural cards, then most penalty shed), lay off natural cards (highest
    penalty), and discard the highest-penalty card in no partial meld, never a wild card
    while another may go; the styles change the melds, lay-offs and discards as the
    Python agent's docstring says.  ``memo_keys, memo_results``: a
    ``crazy_plan.memo()``; ``gen``: int64 ``(1,)``, the memo's generation counter;
    ``players``: the number of players (``cfg[C_PLAYERS]``), which the ``defensive`` and
    ``hold_wilds_safe`` styles need to find the next player (ValueError without it)."""
    if style in READS_NEXT and players < 3:
        raise ValueError("the defensive and hold_wilds_safe styles need players (cfg[C_PLAYERS], 3..6)")
    holds_wilds = style in HOLDS_WILDS
    p = ints[i, k.CUR]
    hand = masks[i, k.HAND + p]
    wilds = masks[i, k.WILDS]
    wild_rank = ints[i, k.WILD_RANK]
    melded = ints[i, k.MELDED + p] != 0
    if ints[i, k.PHASE] == k.DRAW:
        if _legal(legal, i, k.DRAW_DISCARD):
            top = pile[i, ints[i, k.PILE_LEN] - 1]
            b = bit(top)
            move = _plan(i, ints, masks, hand | b, melded, b, U0, plan.NO_KNOWN, memo_keys, memo_results, gen)
            spots = layoff_spots(i, ints, masks) if melded else U0
            if move != plan.NO_PLAN or useful(top, hand, wilds, melded, spots):
                return k.DRAW_DISCARD
        return k.DRAW_STOCK
    taken = ints[i, k.TAKEN]
    forbidden = bit(taken) if taken >= 0 and has(hand, taken) else U0
    known = U0
    if melded:
        for a in range(k.LAYOFF, k.SWAP):
            if _legal(legal, i, a):
                known |= bit((a - k.LAYOFF) // 3)
    move = _plan(i, ints, masks, hand, melded, forbidden, known, melded, memo_keys, memo_results, gen)
    best = _planned_action(move, i, legal)
    if best >= 0:
        return best
    for a in range(k.SWAP, k.SWAP + 52):
        if _legal(legal, i, a):
            return a
    best_nat, best_shed = -1, -1
    for m in range(k.NUM_MELDS):
        a = k.MELD + m
        if holds_wilds and MELD_MASK[m] & (wilds | ~hand):
            continue  # natural cards only, none of the wild rank
        if _legal(legal, i, a):
            natural = MELD_MASK[m] & hand
            nat = popcount(natural)
            shed = 0
            h = natural
            while h:
                c = ctz(h)
                h &= h - U1
                shed += card_penalty(c, wild_rank)
            shed += k.WILD_PENALTY * (MELD_SIZE[m] - nat)
            if style == SHED_HIGH:
                if shed > best_shed or (shed == best_shed and nat > best_nat):
                    best, best_nat, best_shed = a, nat, shed
            elif nat > best_nat or (nat == best_nat and shed > best_shed):
                best, best_nat, best_shed = a, nat, shed
    if best >= 0:
        return best
    best_pen = -1
    for a in range(k.LAYOFF, k.SWAP):
        c = (a - k.LAYOFF) // 3
        if not _legal(legal, i, a):
            continue
        if style == SHED_HIGH:  # any card; one not held is laid off by a wild card
            pen = card_penalty(c, wild_rank) if has(hand, c) else k.WILD_PENALTY
        elif has(hand, c) and not (holds_wilds and has(wilds, c)):
            pen = card_penalty(c, wild_rank)
        else:
            continue
        if pen > best_pen:
            best, best_pen = a, pen
    if best >= 0:
        return best
    discards = legal[i, 0] & np.uint64((1 << 52) - 1)
    naturals = hand & ~wilds
    pool = discard_pool(discards, wilds, naturals, wild_rank, style == SHED_HIGH)
    if style in READS_NEXT:
        q = (p + 1) % players
        spots = layoff_spots(i, ints, masks) if ints[i, k.MELDED + q] else U0
        linked = naturals if style == HOLD_WILDS_SAFE else U0
        return defensive_discard(pool, masks[i, k.KNOWN + q], masks[i, k.PILE_MASK], spots, wild_rank, linked)
    return highest_penalty(pool, wild_rank)


@njit(cache=True)
def heuristic_actions(rows, ints, masks, pile, legal, memo_keys, memo_results, gen, out, style=0, players=0):
    """:func:`heuristic_action` (in style ``style``; ``players``: ``cfg[C_PLAYERS]``) of each
    live row of ``rows`` (int64) into ``out[row]`` (int64 ``(num_rows,)``), with one memo for
    all of them (``crazy_plan.memo_arrays()`` and its int64 ``(1,)`` generation counter)."""
    for i in rows:
        if ints[i, k.ENDED] == k.LIVE:
            out[i] = heuristic_action(i, ints, masks, pile, legal, memo_keys, memo_results, gen, style, players)


@njit(cache=True)
def highest_penalty(pool, wild_rank):
    """The card of ``pool`` with the highest penalty, then the highest id."""
    best = -1
    m = pool
    while m:
        c = ctz(m)
        m &= m - U1
        if best < 0 or card_penalty(c, wild_rank) >= card_penalty(best, wild_rank):
            best = c
    return best


@njit(cache=True)
def discard_pool(discards, wilds, naturals, wild_rank, shed_high=False):
    """The cards the heuristic's discard chooses among, of the legal ``discards``: never a
    wild card while another may go; of those, the cards in no partial meld with
    ``naturals`` (the hand's natural cards), or all of them when every one is (with
    ``shed_high``, cards of ``SHED_VALUE`` points or more count as in none)."""
    plain = discards & ~wilds
    if not plain:
        plain = discards
    loose = U0
    m = plain
    while m:
        c = ctz(m)
        m &= m - U1
        if not naturals & PARTNERS[c] or (shed_high and card_penalty(c, wild_rank) >= SHED_VALUE):
            loose |= bit(c)
    return loose if loose else plain


@njit(inline="always", cache=True)
def discard_risk(c, known, rejected, spots):
    """``agents.styles.danger`` of discarding card ``c`` for the next player (``known``: the
    cards it took and holds, ``rejected``: the discard pile) plus ``KNOWN_WEIGHT`` when ``c``
    is one of its lay-off ``spots``."""
    near = PARTNERS[c]
    risk = KNOWN_WEIGHT * popcount(near & known) - REJECTED_WEIGHT * popcount(near & rejected)
    return risk + KNOWN_WEIGHT if has(spots, c) else risk


@njit(cache=True)
def defensive_discard(pool, known, rejected, spots, wild_rank, linked=U0):
    """The ``defensive`` and ``hold_wilds_safe`` styles' discard of ``pool``, by this key in
    order: the fewest partial-meld partners among ``linked`` (the hand's natural cards for
    ``hold_wilds_safe``; ``U0``, the default, for ``defensive``: every card 0); the least
    ``agents.styles.danger`` for the next player (``known``: the cards it took and holds,
    ``rejected``: the discard pile) plus ``KNOWN_WEIGHT`` on its lay-off ``spots``; the
    highest penalty (R-CRAZY-12); the highest id."""
    best, best_links, best_risk = -1, 0, 0
    m = pool
    while m:
        c = ctz(m)
        m &= m - U1
        links = popcount(PARTNERS[c] & linked)
        risk = discard_risk(c, known, rejected, spots)
        if (
            best < 0
            or links < best_links
            or (links == best_links and risk < best_risk)
            or (
                links == best_links
                and risk == best_risk
                and card_penalty(c, wild_rank) >= card_penalty(best, wild_rank)
            )
        ):
            best, best_links, best_risk = c, links, risk
    return best


@njit(cache=True)
def play_out(i, ints, masks, stock, pile, legal, cfg, max_steps, memo_keys, memo_results, gen, seat, style):
    """Play live row ``i`` with the policy until the round ends or ``max_steps``
    actions: ``seat`` in style ``style`` (``crazy_heuristic.STYLES`` index), every other
    seat in the default style; returns the actions played."""
    steps = 0
    players = cfg[k.C_PLAYERS]
    while ints[i, k.ENDED] == k.LIVE and steps < max_steps:
        own = style if ints[i, k.CUR] == seat else 0
        action = heuristic_action(i, ints, masks, pile, legal, memo_keys, memo_results, gen, own, players)
        k.apply(i, action, ints, masks, stock, pile, cfg)
        k.compute_legal(i, ints, masks, legal, cfg)
        steps += 1
    return steps


@njit(cache=True)
def seat_value(i, seat, ints, masks, temperature, cfg, margin_scale=0.0):
    """``seat``'s value of row ``i`` (``worlds.hand_values``): 1/k when it is one of
    the k lowest penalties of a finished round (R-CRAZY-12), 0 otherwise, 1/n for a
    round cut by ``max_turns``; a round still live is judged by a softmax of minus each
    hand's penalty over ``temperature`` points (``worlds.position_values``).

    ``margin_scale`` > 0 (whole games, which the 13 rounds' total decides, R-CRAZY-13):
    1/n plus the other seats' mean penalty minus ``seat``'s, over ``margin_scale`` points,
    for a finished or a live round (1/n for one cut by ``max_turns``): the search then
    maximizes the expected penalty margin, not the chance of the round's lowest."""
    n = cfg[k.C_PLAYERS]
    if ints[i, k.ENDED] == k.TRUNCATED:
        return 1.0 / n
    points = np.empty(n, np.float64)
    for q in range(n):
        if ints[i, k.ENDED] == k.LIVE:
            points[q] = k.penalty(masks[i, k.HAND + q], ints[i, k.WILD_RANK])
        else:
            points[q] = ints[i, k.PENALTY + q]
    if margin_scale > 0.0:
        others = (points.sum() - points[seat]) / (n - 1)
        return 1.0 / n + (others - points[seat]) / margin_scale
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
def evaluate(base, seat, actions, worlds, max_steps, temperature, discount, cfg, rng, totals, style, margin_scale=0.0):
    """Add to ``totals[a]`` the value for ``seat`` of root action ``actions[a]`` in each
    of ``worlds`` worlds and return ``worlds`` (the sum of the weights, all 1); ``seat``
    plays its playouts in style ``style`` (``crazy_heuristic.STYLES`` index, 0 = default),
    the other seats in the default style.  Row 0 of
    ``base`` (the kernel arrays ``ints, masks, stock, pile, legal``) holds a world of
    ``seat``'s information, its hidden cards dealt again for each world
    (``crazy_world.redeal_hidden``, generator ``rng[0]``).  Every action is played in
    the same worlds (common random numbers); values move towards 1/n by ``discount``
    per action played; ``margin_scale``: as :func:`seat_value`."""
    b_ints, b_masks, b_stock, b_pile, b_legal = base
    w_ints, w_masks, w_stock = b_ints.copy(), b_masks.copy(), b_stock.copy()
    w_pile, w_legal = b_pile.copy(), b_legal.copy()
    n = cfg[k.C_PLAYERS]
    even = 1.0 / n
    memo_keys, memo_results = plan.memo_arrays()
    gen = np.zeros(1, np.int64)
    # the world's row as an int64, not the literal 0: numba compiles a kernel function once per
    # argument type, and a literal is a type of its own
    row = np.int64(0)
    for _ in range(worlds):
        redeal_hidden(row, seat, b_ints, b_masks, b_stock, cfg, rng, row)
        for a in range(actions.shape[0]):
            w_ints[0] = b_ints[0]
            w_masks[0] = b_masks[0]
            w_stock[0] = b_stock[0]
            w_pile[0] = b_pile[0]
            k.apply(row, actions[a], w_ints, w_masks, w_stock, w_pile, cfg)
            k.compute_legal(row, w_ints, w_masks, w_legal, cfg)
            steps = play_out(
                row,
                w_ints,
                w_masks,
                w_stock,
                w_pile,
                w_legal,
                cfg,
                max_steps,
                memo_keys,
                memo_results,
                gen,
                seat,
                style,
            )
            value = seat_value(row, seat, w_ints, w_masks, temperature, cfg, margin_scale)
            totals[a] += even + (value - even) * discount ** (steps + 1)
    return float(worlds)
