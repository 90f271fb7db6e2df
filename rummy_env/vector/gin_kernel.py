"""The Gin Rummy batch kernel: ``games.gin_rummy.state`` as numba over struct-of-arrays.

One game is one row of each state array (names below); the kernels loop over games
with ``prange``.  The rules are those of ``GinRummyState`` line for line (R-GIN-02..12;
read its ``_apply`` / ``_compute_legal`` / ``_show_down`` next to this file), the
observation that of ``encoding.gin_rummy.encode_with_mask`` entry for entry, and the
deadwood that of ``core.deadwood`` (``vector.deadwood_kernel``).

With ``episode="game"`` (``cfg[C_GAME]``) a row plays whole games: ``_end_hand`` scores
the hand into the game (``GinRummyState._end_hand``: totals, hands won, the game
bonuses of R-GIN-13, ``max_hands``) and, when the game goes on, marks the row
``HAND_OVER``; the step drivers then deal the next hand from the deal stream (the
winner deals, the same dealer after a dead hand, R-GIN-02) within the same step, as
``env()`` does.  ``apply`` never deals, so search playouts (``agents.search.gin_fast``,
one hand) keep their signature.

State (``n`` games):
    ints    int32 ``(n, NUM_INTS)``: the columns ``CUR`` .. ``HANDS`` below (``SCORE``,
            ``WON`` and ``HANDS`` are the game's: totals, hands won, hands finished).
    masks   uint64 ``(n, NUM_MASKS)``: card bitmasks, columns ``HAND`` .. ``DMELDS``.
    pile    int8 ``(n, 52)``: the discard pile, bottom first (``ints[:, PILE_LEN]`` cards).
    legal   uint64 ``(n, 2)``: the acting seat's legal action ids (bits 0..107).
    decks   int8 ``(n, 52)``: each hand's deck, top first; the stock is ``decks[STOCK:]``.
    dealers int8 ``(n,)``.
Config: ``cfg`` int64, the columns ``C_KNOCK_LIMIT`` .. ``C_SCORE_REWARD``.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from rummy_env.vector.bits import U0, U1, below, bit, count_bits, kth_set_bit, set_plane, shuffle_into, write_mask
from rummy_env.vector.deadwood_kernel import deadwood, knock_discards, showdown

# ints columns
CUR, PHASE, DEALER, TAKEN, PASSES, TURN, STOCK, PILE_LEN, LIMIT = 0, 1, 2, 3, 4, 5, 6, 7, 8
SCORE, KNOCKER, SD_KNOCKER, SD_DEFENDER, ENDED, WON, HANDS, NUM_INTS = 9, 11, 12, 13, 14, 15, 17, 18
# masks columns (HAND, KNOWN, DISCARDED: two seats each)
HAND, KNOWN, DISCARDED, PILE_MASK, KMELDS, LAYOFFS, DMELDS, NUM_MASKS = 0, 2, 4, 6, 7, 8, 9, 10
# cfg columns
C_KNOCK_LIMIT, C_GIN_BONUS, C_UNDERCUT_BONUS, C_BIG_GIN, C_BIG_GIN_BONUS = 0, 1, 2, 3, 4
C_OKLAHOMA, C_MAX_TURNS, C_SCORE_REWARD = 5, 6, 7
C_GAME, C_TARGET, C_GAME_BONUSES, C_MAX_HANDS, NUM_CFG = 8, 9, 10, 11, 12  # whole games (0: one hand)

OFFER, DRAW, DISCARD = 0, 1, 2  # phases (games.gin_rummy.state)
LIVE, TERMINATED, TRUNCATED = 0, 1, 2  # ints[:, ENDED]
HAND_OVER = 3  # ints[:, ENDED]: the hand ended, the game goes on (the step deals the next hand)
GAME_BONUS, BOX_BONUS = 100, 25  # R-GIN-13
KNOCK, DRAW_STOCK, DRAW_UPCARD, PASS, BIG_GIN = 52, 104, 105, 106, 107  # action ids
HAND_SIZE, WALL, OBS_SIZE = 10, 2, 485
TAIL = 468  # the observation's numbers start after the nine card planes


@njit(inline="always", cache=True)
def _set_legal(legal, i, a):
    legal[i, a >> 6] |= U1 << np.uint64(a & 63)


@njit(cache=True)
def deal(i, ints, masks, pile, legal, decks, dealers, cfg):
    """Deal game ``i``'s hand from ``decks[i]`` with ``dealers[i]`` (R-GIN-02, 03, 14)."""
    dealer = dealers[i]
    first = U0
    second = U0
    for k in range(0, 2 * HAND_SIZE, 2):
        first |= bit(decks[i, k])
        second |= bit(decks[i, k + 1])
    for c in range(NUM_MASKS):
        masks[i, c] = U0
    masks[i, HAND + 1 - dealer] = first  # the non-dealer is dealt first
    masks[i, HAND + dealer] = second
    up = decks[i, 2 * HAND_SIZE]
    pile[i, 0] = up
    masks[i, PILE_MASK] = bit(up)
    ints[i, PILE_LEN] = 1
    ints[i, STOCK] = 2 * HAND_SIZE + 1
    ints[i, DEALER] = dealer
    ints[i, TAKEN] = -1
    ints[i, PASSES] = 0
    ints[i, TURN] = 0
    ints[i, KNOCKER] = -1
    ints[i, SD_KNOCKER] = 0
    ints[i, SD_DEFENDER] = 0
    ints[i, ENDED] = LIVE
    if cfg[C_OKLAHOMA]:
        value = min(up % 13 + 1, 10)
        ints[i, LIMIT] = 0 if value == 1 else value
    else:
        ints[i, LIMIT] = cfg[C_KNOCK_LIMIT]
    ints[i, CUR] = 1 - dealer
    ints[i, PHASE] = OFFER
    compute_legal(i, ints, masks, legal, cfg)


@njit(cache=True)
def new_game(i, ints):
    """Zero game ``i``'s totals, hands won and hands finished (before its first deal)."""
    ints[i, SCORE] = 0
    ints[i, SCORE + 1] = 0
    ints[i, WON] = 0
    ints[i, WON + 1] = 0
    ints[i, HANDS] = 0


@njit(cache=True)
def next_hand(i, ints, masks, pile, legal, decks, dealers, deal_rng, cfg):
    """Deal the next hand of game ``i`` after ``HAND_OVER``: a deck shuffled from
    ``deal_rng``, the dealer ``_end_game_hand`` chose."""
    shuffle_into(deal_rng, i, decks[i])
    dealers[i] = ints[i, DEALER]
    deal(i, ints, masks, pile, legal, decks, dealers, cfg)


@njit(cache=True)
def compute_legal(i, ints, masks, legal, cfg):
    """The acting seat's legal ids into ``legal[i]`` (``GinRummyState._compute_legal``)."""
    legal[i, 0] = U0
    legal[i, 1] = U0
    if ints[i, ENDED] != LIVE:
        return
    phase = ints[i, PHASE]
    if phase == DRAW:
        _set_legal(legal, i, DRAW_STOCK)
        _set_legal(legal, i, DRAW_UPCARD)
        return
    if phase == OFFER:
        _set_legal(legal, i, DRAW_UPCARD)
        _set_legal(legal, i, PASS)
        return
    hand = masks[i, HAND + ints[i, CUR]]
    keep = hand
    if ints[i, TAKEN] >= 0:
        keep &= ~bit(ints[i, TAKEN])  # R-GIN-04
    legal[i, 0] = keep
    limit = ints[i, LIMIT]
    full = deadwood(hand)
    if full - 10 <= limit:
        knocks = knock_discards(hand, limit) & keep
        legal[i, 0] |= knocks << np.uint64(KNOCK)
        legal[i, 1] |= knocks >> np.uint64(64 - KNOCK)
    if full == 0 and cfg[C_BIG_GIN]:
        _set_legal(legal, i, BIG_GIN)


@njit(cache=True)
def _discard(i, p, card, ints, masks, pile):
    b = bit(card)
    masks[i, HAND + p] ^= b
    masks[i, KNOWN + p] &= ~b
    masks[i, DISCARDED + p] |= b
    pile[i, ints[i, PILE_LEN]] = card
    ints[i, PILE_LEN] += 1
    masks[i, PILE_MASK] |= b
    ints[i, TURN] += 1


@njit(cache=True)
def _end_game_hand(i, winner, points, ints, rewards, cfg):
    """Score the hand into the game, then end the game or mark ``HAND_OVER``
    (``GinRummyState._end_hand``, episode="game"; R-GIN-02, 13)."""
    if winner >= 0:
        ints[i, SCORE + winner] += points
        ints[i, WON + winner] += 1
        if cfg[C_SCORE_REWARD]:
            rewards[i, winner] += points
            rewards[i, 1 - winner] -= points
    ints[i, HANDS] += 1
    if winner >= 0 and ints[i, SCORE + winner] >= cfg[C_TARGET]:
        loser = 1 - winner
        if cfg[C_GAME_BONUSES]:  # game and line (box) bonuses; a shutout doubles the winner's total
            won = GAME_BONUS + BOX_BONUS * ints[i, WON + winner]
            lost = BOX_BONUS * ints[i, WON + loser]
            if ints[i, WON + loser] == 0:
                won += ints[i, SCORE + winner] + won
            ints[i, SCORE + winner] += won
            ints[i, SCORE + loser] += lost
            if cfg[C_SCORE_REWARD]:
                rewards[i, winner] += won - lost
                rewards[i, loser] += lost - won
        if not cfg[C_SCORE_REWARD]:
            rewards[i, winner] += 1.0
            rewards[i, loser] -= 1.0
        ints[i, ENDED] = TERMINATED
    elif ints[i, HANDS] >= cfg[C_MAX_HANDS]:
        ints[i, ENDED] = TRUNCATED  # the game-level limit; a hand's max_turns is a dead hand
    else:
        ints[i, ENDED] = HAND_OVER
        if winner >= 0:
            ints[i, DEALER] = winner  # the winner deals next; after a dead hand the same dealer


@njit(cache=True)
def _end_hand(i, winner, points, ended, ints, rewards, cfg):
    """Score the hand and end the episode (``GinRummyState._end_hand``, episode="hand");
    with ``cfg[C_GAME]``, :func:`_end_game_hand`."""
    if cfg[C_GAME]:
        _end_game_hand(i, winner, points, ints, rewards, cfg)
        return
    ints[i, ENDED] = ended
    ints[i, HANDS] += 1
    if winner < 0:
        return
    ints[i, SCORE + winner] += points
    if cfg[C_SCORE_REWARD]:
        rewards[i, winner] += points
        rewards[i, 1 - winner] -= points
    else:
        rewards[i, winner] += 1.0
        rewards[i, 1 - winner] -= 1.0


@njit(cache=True)
def _show_down(i, knocker, big_gin, ints, masks, rewards, cfg):
    """Lay out both hands and score the knock (R-GIN-06, 08, 10, 11, 12)."""
    out = np.zeros(3, np.uint64)
    k, d = showdown(masks[i, HAND + knocker], masks[i, HAND + 1 - knocker], out)
    masks[i, KMELDS], masks[i, LAYOFFS], masks[i, DMELDS] = out[0], out[1], out[2]
    ints[i, KNOCKER] = knocker
    ints[i, SD_KNOCKER] = k
    ints[i, SD_DEFENDER] = d
    if big_gin:
        _end_hand(i, knocker, d + cfg[C_BIG_GIN_BONUS], TERMINATED, ints, rewards, cfg)
    elif k == 0:
        _end_hand(i, knocker, d + cfg[C_GIN_BONUS], TERMINATED, ints, rewards, cfg)
    elif k < d:
        _end_hand(i, knocker, d - k, TERMINATED, ints, rewards, cfg)
    else:
        _end_hand(i, 1 - knocker, k - d + cfg[C_UNDERCUT_BONUS], TERMINATED, ints, rewards, cfg)


@njit(cache=True)
def apply(i, action, ints, masks, pile, decks, rewards, cfg):
    """Apply a legal ``action`` in game ``i`` (``GinRummyState._apply``)."""
    p = ints[i, CUR]
    if action < KNOCK:  # discard (R-GIN-04)
        _discard(i, p, action, ints, masks, pile)
        if 52 - ints[i, STOCK] <= WALL:
            _end_hand(i, -1, 0, TERMINATED, ints, rewards, cfg)  # R-GIN-09: a dead hand
        elif ints[i, TURN] >= cfg[C_MAX_TURNS]:
            _end_hand(i, -1, 0, TRUNCATED, ints, rewards, cfg)
        else:
            ints[i, CUR] = 1 - p
            ints[i, PHASE] = DRAW
            ints[i, TAKEN] = -1
    elif action == DRAW_STOCK:
        masks[i, HAND + p] |= bit(decks[i, ints[i, STOCK]])
        ints[i, STOCK] += 1
        ints[i, PHASE] = DISCARD
    elif action == DRAW_UPCARD:  # R-GIN-03 (first offer) or R-GIN-04
        ints[i, PILE_LEN] -= 1
        card = pile[i, ints[i, PILE_LEN]]
        b = bit(card)
        masks[i, PILE_MASK] ^= b
        masks[i, HAND + p] |= b
        masks[i, KNOWN + p] |= b
        ints[i, TAKEN] = card
        ints[i, PHASE] = DISCARD
    elif action < DRAW_STOCK:  # knock, discarding a card (R-GIN-06)
        _discard(i, p, action - KNOCK, ints, masks, pile)
        # always False here; a runtime bool, not a literal, so that numba compiles _show_down once
        _show_down(i, p, action == BIG_GIN, ints, masks, rewards, cfg)
    elif action == PASS:  # R-GIN-03
        if ints[i, PASSES] == 0:
            ints[i, PASSES] = 1
            ints[i, CUR] = ints[i, DEALER]
        else:  # both passed: the non-dealer draws from the stock (not a decision)
            q = 1 - ints[i, DEALER]
            ints[i, CUR] = q
            masks[i, HAND + q] |= bit(decks[i, ints[i, STOCK]])
            ints[i, STOCK] += 1
            ints[i, PHASE] = DISCARD
    else:  # big gin (R-GIN-07)
        ints[i, TURN] += 1
        _show_down(i, p, action == BIG_GIN, ints, masks, rewards, cfg)  # always True here (see the knock)


@njit(cache=True)
def write_observation(i, viewer, ints, masks, pile, row):
    """``encode_with_mask(state.observation(viewer), ...)[0]`` of game ``i`` into ``row``."""
    other = 1 - viewer
    n = ints[i, PILE_LEN]
    top = pile[i, n - 1] if n > 0 else -1
    live = ints[i, ENDED] == LIVE
    shown = ints[i, KNOCKER] >= 0
    hand = masks[i, HAND + viewer]
    row[:] = 0.0
    set_plane(row, 0, hand)
    set_plane(row, 52, bit(top) if top >= 0 else U0)
    set_plane(row, 104, masks[i, PILE_MASK] & ~bit(top) if top >= 0 else U0)
    set_plane(row, 156, masks[i, HAND + other] if shown else masks[i, KNOWN + other])  # R-GIN-08
    set_plane(row, 208, masks[i, DISCARDED + other])
    acting = live and ints[i, CUR] == viewer
    forbidden = ints[i, TAKEN] if acting and ints[i, PHASE] == DISCARD else -1
    set_plane(row, 260, bit(forbidden) if forbidden >= 0 else U0)
    set_plane(row, 312, masks[i, KMELDS])
    set_plane(row, 364, masks[i, LAYOFFS])
    set_plane(row, 416, masks[i, DMELDS])
    if live:
        row[TAIL + ints[i, PHASE]] = 1.0
        row[TAIL + 3 + (0 if acting else 1)] = 1.0
    row[TAIL + 5 + (0 if ints[i, DEALER] == viewer else 1)] = 1.0
    if shown:
        row[TAIL + 7 + (0 if ints[i, KNOCKER] == viewer else 1)] = 1.0
    row[TAIL + 9] = 52 - ints[i, STOCK]
    row[TAIL + 10] = ints[i, LIMIT]
    row[TAIL + 11] = deadwood(hand)
    if ints[i, KNOCKER] == viewer:
        row[TAIL + 12], row[TAIL + 13] = ints[i, SD_KNOCKER], ints[i, SD_DEFENDER]
    elif shown:
        row[TAIL + 12], row[TAIL + 13] = ints[i, SD_DEFENDER], ints[i, SD_KNOCKER]
    row[TAIL + 14] = ints[i, SCORE + viewer]
    row[TAIL + 15] = ints[i, SCORE + other]
    row[TAIL + 16] = ints[i, TURN]


@njit(cache=True)
def _write_step(i, viewer, ints, masks, pile, legal, obs, mask, current, terminated, truncated):
    write_observation(i, viewer, ints, masks, pile, obs[i])
    write_mask(legal[i], mask[i])
    current[i] = viewer
    terminated[i] = ints[i, ENDED] == TERMINATED
    truncated[i] = ints[i, ENDED] == TRUNCATED


@njit(cache=True)
def reset_one(
    i, ints, masks, pile, legal, decks, dealers, given, deal_rng, cfg, obs, mask, current, rewards, term, trunc
):
    """Deal game ``i`` (``decks[i]`` as given if ``given[i]``, else shuffled from
    ``deal_rng``; a dealer ``< 0`` drawn) and write its first step."""
    if not given[i]:
        shuffle_into(deal_rng, i, decks[i])
    if dealers[i] < 0:
        dealers[i] = below(deal_rng, i, 2)
    new_game(i, ints)
    deal(i, ints, masks, pile, legal, decks, dealers, cfg)
    rewards[i, 0] = 0.0
    rewards[i, 1] = 0.0
    _write_step(i, np.int64(ints[i, CUR]), ints, masks, pile, legal, obs, mask, current, term, trunc)


@njit(cache=True)
def step_one(
    i,
    ints,
    masks,
    pile,
    legal,
    decks,
    dealers,
    actions,
    random,
    deal_rng,
    action_rng,
    cfg,
    obs,
    mask,
    current,
    rewards,
    term,
    trunc,
):
    """One step of game ``i``: if its episode ended at the last step it deals a new one
    (shuffled from ``deal_rng``); otherwise it applies ``actions[i]``, or with
    ``random`` a legal id drawn from ``action_rng`` (and deals the game's next hand if
    that ended a hand)."""
    rewards[i, 0] = 0.0
    rewards[i, 1] = 0.0
    if ints[i, ENDED] != LIVE:
        shuffle_into(deal_rng, i, decks[i])
        dealers[i] = below(deal_rng, i, 2)
        new_game(i, ints)
        deal(i, ints, masks, pile, legal, decks, dealers, cfg)
        _write_step(i, np.int64(ints[i, CUR]), ints, masks, pile, legal, obs, mask, current, term, trunc)
        return
    action = actions[i]
    if random:
        action = kth_set_bit(legal[i], below(action_rng, i, count_bits(legal[i])))
    actor = ints[i, CUR]
    apply(i, action, ints, masks, pile, decks, rewards, cfg)
    if ints[i, ENDED] == HAND_OVER:
        next_hand(i, ints, masks, pile, legal, decks, dealers, deal_rng, cfg)
    else:
        compute_legal(i, ints, masks, legal, cfg)
    viewer = np.int64(ints[i, CUR] if ints[i, ENDED] == LIVE else actor)  # one compiled _write_step
    _write_step(i, viewer, ints, masks, pile, legal, obs, mask, current, term, trunc)


@njit(nogil=True, cache=True)
def reset_range(lo, hi, *args):
    """``reset_one`` for the games ``lo .. hi - 1``: one worker thread's slice (``nogil``)."""
    for i in range(lo, hi):
        reset_one(i, *args)


@njit(parallel=True, cache=True)
def reset_parallel(*args):
    """``reset_one`` for every game, spread over numba's ``prange`` threads."""
    for i in prange(args[0].shape[0]):
        # int64 as in the *_range drivers: prange's index is unsigned, and numba would compile
        # every kernel function once more for it
        reset_one(np.int64(i), *args)


@njit(nogil=True, cache=True)
def step_range(lo, hi, *args):
    """``step_one`` for the games ``lo .. hi - 1``: one worker thread's slice (``nogil``)."""
    for i in range(lo, hi):
        step_one(i, *args)


@njit(parallel=True, cache=True)
def step_parallel(*args):
    """``step_one`` for every game, spread over numba's ``prange`` threads."""
    for i in prange(args[0].shape[0]):
        step_one(np.int64(i), *args)


@njit(cache=True)
def opponents_one(
    i,
    seat,
    ints,
    masks,
    pile,
    legal,
    decks,
    dealers,
    deal_rng,
    action_rng,
    cfg,
    obs,
    mask,
    current,
    rewards,
    term,
    trunc,
):
    """Random legal moves (``action_rng``) in live game ``i`` until ``seat`` is to act or
    the episode ends (a game's next hands dealt from ``deal_rng`` on the way); then the
    step is rewritten from ``seat``'s view, the opponents' rewards added
    (``VecBase.step_opponents``)."""
    if ints[i, ENDED] != LIVE or ints[i, CUR] == seat:
        return
    while ints[i, ENDED] == LIVE and ints[i, CUR] != seat:
        action = kth_set_bit(legal[i], below(action_rng, i, count_bits(legal[i])))
        apply(i, action, ints, masks, pile, decks, rewards, cfg)
        if ints[i, ENDED] == HAND_OVER:
            next_hand(i, ints, masks, pile, legal, decks, dealers, deal_rng, cfg)
        else:
            compute_legal(i, ints, masks, legal, cfg)
    _write_step(i, seat, ints, masks, pile, legal, obs, mask, current, term, trunc)


@njit(nogil=True, cache=True)
def opponents_range(lo, hi, seats, *args):
    """``opponents_one`` for the games ``lo .. hi - 1``: one worker thread's slice (``nogil``)."""
    for i in range(lo, hi):
        opponents_one(i, seats[i], *args)


@njit(parallel=True, cache=True)
def opponents_parallel(seats, *args):
    """``opponents_one`` for every game, spread over numba's ``prange`` threads."""
    for i in prange(seats.shape[0]):
        opponents_one(np.int64(i), seats[i], *args)
