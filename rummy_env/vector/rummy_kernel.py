"""The basic Rummy batch kernel: ``games.rummy.state`` as numba over struct-of-arrays.

The rules are those of ``RummyState`` line for line (R-RUMMY-02..16; read its
``_compute_legal`` / ``_apply`` / ``_end_turn`` / ``_end_hand`` next to this file),
the table that of ``core.table.Table`` and the observation that of
``encoding.rummy.encode`` entry for entry.  2 to 6 players.

The table needs no list of melds: a card's lay-off targets (R-RUMMY-08) are known
from three bitmasks, the ranks holding a 3-card set (``SET3``) and, per suit, the run
positions (0..13, 13 = high ace; 14 bits a suit) where a run's low end (``LOW_ENDS``)
or high end (``HIGH_ENDS``) sits, kept up to date as ``Table`` keeps its indexes
(``vector.table_kernel``, shared with Crazy Rummy's kernel).

With ``episode="game"`` (``cfg[C_GAME]``) a row plays whole games: ``_end_hand`` scores
the hand into the game (``RummyState._end_hand``: totals, ``target_score``,
``max_hands``, R-RUMMY-04, 13, 17) and, when the game goes on, marks the row
``HAND_OVER``; the step drivers then deal the next hand from the deal stream within
the same step, as ``env()`` does.  ``apply`` never deals (search playouts keep it).

State (``n`` games): ``ints`` int32 ``(n, NUM_INTS)`` (columns ``CUR`` .. ``HANDS``;
``SCORE`` and ``HANDS`` are the game's totals and hands finished),
``masks`` uint64 ``(n, NUM_MASKS)`` (``HAND`` .. ``HIGH_ENDS``), ``stock`` and ``pile``
int8 ``(n, 52)`` (top card last, ``ints[:, STOCK_LEN]`` / ``ints[:, PILE_LEN]`` cards),
``legal`` uint64 ``(n, 10)`` (bits 0..578), ``decks`` int8 ``(n, 52)``, ``dealers``.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from rummy_env.vector.bits import (
    U0,
    U1,
    below,
    bit,
    count_bits,
    ctz,
    has,
    kth_set_bit,
    popcount,
    set_plane,
    shuffle_into,
    suit_pattern,
    write_mask,
)
from rummy_env.vector.deadwood_kernel import (
    MELD_MASK,
    RUN_ID_TABLE,
    SET_PATTERNS,
    hand_value,
)
from rummy_env.vector.table_kernel import (  # SIDE_*: where they were defined before, re-exported
    HIGH_ACE,
    SIDE_HIGH,  # noqa: F401
    SIDE_LOW,  # noqa: F401
    SIDE_SET,  # noqa: F401
    lay_off,
    layoff_sides,
    put_down,
)

# ints columns (SCORE and MELDED: six seats each)
CUR, PHASE, DEALER, TAKEN, TURN, STOCK_LEN, PILE_LEN, MELDED_TURN, ENDED = 0, 1, 2, 3, 4, 5, 6, 7, 8
SCORE, MELDED, HANDS, NUM_INTS = 9, 15, 21, 22
# masks columns (HAND and KNOWN: six seats each)
HAND, KNOWN, PILE_MASK, TABLE, SET3, LOW_ENDS, HIGH_ENDS, NUM_MASKS = 0, 6, 12, 13, 14, 15, 16, 17
# cfg columns
C_PLAYERS, C_HAND_SIZE, C_ACE_HIGH, C_KEEP_TOP, C_MAX_TURNS, C_SCORE_REWARD = 0, 1, 2, 3, 4, 5
C_GAME, C_TARGET, C_MAX_HANDS, C_WINNER_DEALS, NUM_CFG = 6, 7, 8, 9, 10  # whole games (0: one hand)

DRAW, PLAY = 0, 1  # phases (games.rummy.state)
LIVE, TERMINATED, TRUNCATED = 0, 1, 2  # ints[:, ENDED]
HAND_OVER = 3  # ints[:, ENDED]: the hand ended, the game goes on (the step deals the next hand)
DRAW_STOCK, DRAW_DISCARD, MELD, LAYOFF = 52, 53, 54, 423  # action ids (games.rummy.actions)
LEGAL_WORDS = 10  # 579 action bits


@njit(inline="always", cache=True)
def _set_legal(legal, i, a):
    legal[i, a >> 6] |= U1 << np.uint64(a & 63)


@njit(cache=True)
def deal(i, ints, masks, stock, pile, legal, decks, dealers, cfg):
    """Deal game ``i``'s hand from ``decks[i]`` with ``dealers[i]`` (R-RUMMY-02, 03, 05)."""
    n, k = cfg[C_PLAYERS], cfg[C_HAND_SIZE]
    dealer = dealers[i]
    for c in range(NUM_MASKS):
        masks[i, c] = U0
    for c in range(SCORE):  # the hand's columns; the game's (SCORE, HANDS) stay
        ints[i, c] = 0
    for c in range(MELDED, MELDED + 6):
        ints[i, c] = 0
    for j in range(n * k):
        masks[i, HAND + (dealer + 1 + j) % n] |= bit(decks[i, j])
    pile[i, 0] = decks[i, n * k]
    ints[i, PILE_LEN] = 1
    masks[i, PILE_MASK] = bit(decks[i, n * k])
    size = 51 - n * k
    for j in range(size):
        stock[i, j] = decks[i, 51 - j]
    ints[i, STOCK_LEN] = size
    ints[i, DEALER] = dealer
    ints[i, TAKEN] = -1
    ints[i, CUR] = (dealer + 1) % n
    ints[i, PHASE] = DRAW
    ints[i, ENDED] = LIVE
    compute_legal(i, ints, masks, legal, cfg)


@njit(cache=True)
def new_game(i, ints):
    """Zero game ``i``'s totals and hands finished (before its first deal)."""
    for c in range(SCORE, SCORE + 6):
        ints[i, c] = 0
    ints[i, HANDS] = 0


@njit(cache=True)
def next_hand(i, ints, masks, stock, pile, legal, decks, dealers, deal_rng, cfg):
    """Deal the next hand of game ``i`` after ``HAND_OVER``: a deck shuffled from
    ``deal_rng``, the dealer ``_end_game_hand`` chose."""
    shuffle_into(deal_rng, i, decks[i])
    dealers[i] = ints[i, DEALER]
    deal(i, ints, masks, stock, pile, legal, decks, dealers, cfg)


@njit(inline="always", cache=True)
def _can_draw_stock(i, ints, cfg):
    # R-RUMMY-12: an empty stock is rebuilt from the discard pile, if that leaves a card
    return ints[i, STOCK_LEN] > 0 or ints[i, PILE_LEN] >= (2 if cfg[C_KEEP_TOP] else 1)


@njit(inline="always", cache=True)
def _finishable(rest, forbidden, set3, low_ends, high_ends, ace_high):
    """Whether the turn can still end after a move leaves ``rest`` and these table
    indexes (R-RUMMY-10, ``RummyState._finishable``)."""
    if rest == U0 or forbidden < 0 or rest != bit(forbidden):
        return True
    return layoff_sides(forbidden, set3, low_ends, high_ends, ace_high) != 0


@njit(cache=True)
def compute_legal(i, ints, masks, legal, cfg):
    """The acting seat's legal ids into ``legal[i]`` (``RummyState._compute_legal``)."""
    for w in range(LEGAL_WORDS):
        legal[i, w] = U0
    if ints[i, ENDED] != LIVE:
        return
    if ints[i, PHASE] == DRAW:
        if _can_draw_stock(i, ints, cfg):
            _set_legal(legal, i, DRAW_STOCK)
        if ints[i, PILE_LEN] > 0:
            _set_legal(legal, i, DRAW_DISCARD)
        return
    ace_high = cfg[C_ACE_HIGH] != 0
    hand = masks[i, HAND + ints[i, CUR]]
    taken = ints[i, TAKEN]
    forbidden = taken if taken >= 0 and has(hand, taken) else -1
    legal[i, 0] = hand & ~bit(forbidden) if forbidden >= 0 else hand  # discards (R-RUMMY-09)
    set3, low_ends, high_ends = masks[i, SET3], masks[i, LOW_ENDS], masks[i, HIGH_ENDS]
    for rank in range(13):  # sets in hand (core.melds.melds_in_hand)
        pattern = 0
        for s in range(4):
            if has(hand, 13 * s + rank):
                pattern |= 1 << s
        if pattern == 7 or pattern == 11 or pattern == 13 or pattern == 14 or pattern == 15:
            for j in range(5):
                if pattern & SET_PATTERNS[j] == SET_PATTERNS[j]:
                    m = 5 * rank + j
                    t3, tl, th = put_down(m, set3, low_ends, high_ends)
                    if _finishable(hand & ~MELD_MASK[m], forbidden, t3, tl, th, ace_high):
                        _set_legal(legal, i, MELD + m)
    for s in range(4):  # runs in hand
        pattern = suit_pattern(hand, s)
        if ace_high and pattern & 1:
            pattern |= 1 << HIGH_ACE
        p = 0
        while p <= HIGH_ACE:
            if not (pattern >> p) & 1:
                p += 1
                continue
            end = p
            while end + 1 <= HIGH_ACE and (pattern >> (end + 1)) & 1:
                end += 1
            for low in range(p, end + 1):
                for high in range(low + 2, end + 1):
                    m = RUN_ID_TABLE[s, low, high]
                    if m >= 0:
                        t3, tl, th = put_down(m, set3, low_ends, high_ends)
                        if _finishable(hand & ~MELD_MASK[m], forbidden, t3, tl, th, ace_high):
                            _set_legal(legal, i, MELD + m)
            p = end + 1
    h = hand
    while h:  # lay-offs
        c = ctz(h)
        h &= h - U1
        sides = layoff_sides(c, set3, low_ends, high_ends, ace_high)
        for side in range(3):
            if (sides >> side) & 1:
                t3, tl, th = lay_off(c, side, set3, low_ends, high_ends)
                if _finishable(hand & ~bit(c), forbidden, t3, tl, th, ace_high):
                    _set_legal(legal, i, LAYOFF + 3 * c + side)


@njit(cache=True)
def _end_game_hand(i, winner, ints, masks, rewards, cfg):
    """Score the hand into the game, then end the game or mark ``HAND_OVER``
    (``RummyState._end_hand``, episode="game"; R-RUMMY-04, 13, 15-17).  Rewards add up:
    the opponents' moves of ``opponents_one`` may end a hand after the learner's did."""
    n = cfg[C_PLAYERS]
    if winner >= 0:
        factor = 1 if ints[i, MELDED + winner] else 2  # R-RUMMY-16: going rummy doubles
        total = 0
        for q in range(n):
            total += hand_value(masks[i, HAND + q])
        ints[i, SCORE + winner] += factor * total
        if cfg[C_SCORE_REWARD]:
            for q in range(n):
                rewards[i, q] += factor * total if q == winner else -factor * hand_value(masks[i, HAND + q])
    ints[i, HANDS] += 1
    best = 0  # the game's winner: the first seat with the highest total (R-RUMMY-17)
    for q in range(1, n):
        if ints[i, SCORE + q] > ints[i, SCORE + best]:
            best = q
    if ints[i, SCORE + best] >= cfg[C_TARGET]:
        ints[i, ENDED] = TERMINATED
        if not cfg[C_SCORE_REWARD]:
            for q in range(n):
                rewards[i, q] += 1.0 if q == best else -1.0 / (n - 1)
    elif ints[i, HANDS] >= cfg[C_MAX_HANDS]:
        ints[i, ENDED] = TRUNCATED  # the game-level limit; a hand's max_turns deals the next hand
    else:
        ints[i, ENDED] = HAND_OVER
        dealer = ints[i, DEALER]
        if cfg[C_WINNER_DEALS]:  # R-RUMMY-04, 2 players: the winner deals (after no winner, the same dealer)
            ints[i, DEALER] = winner if winner >= 0 else dealer
        else:
            ints[i, DEALER] = (dealer + 1) % n  # the deal passes left


@njit(cache=True)
def _end_hand(i, winner, ended, ints, masks, rewards, cfg):
    """Score the hand and end the episode (``RummyState._end_hand``, episode="hand");
    with ``cfg[C_GAME]``, :func:`_end_game_hand`."""
    if cfg[C_GAME]:
        _end_game_hand(i, winner, ints, masks, rewards, cfg)
        return
    n = cfg[C_PLAYERS]
    ints[i, ENDED] = ended
    ints[i, HANDS] += 1
    if winner < 0:
        return
    factor = 1 if ints[i, MELDED + winner] else 2  # R-RUMMY-16: going rummy doubles
    total = 0
    for q in range(n):
        total += hand_value(masks[i, HAND + q])
    ints[i, SCORE + winner] += factor * total
    for q in range(n):
        if cfg[C_SCORE_REWARD]:
            rewards[i, q] = factor * total if q == winner else -factor * hand_value(masks[i, HAND + q])
        else:
            rewards[i, q] = 1.0 if q == winner else -1.0 / (n - 1)


@njit(cache=True)
def _end_turn(i, ints, masks, rewards, cfg):
    p = ints[i, CUR]
    if ints[i, MELDED_TURN]:
        ints[i, MELDED + p] = 1
    ints[i, MELDED_TURN] = 0
    ints[i, TAKEN] = -1
    ints[i, TURN] += 1
    if ints[i, TURN] >= cfg[C_MAX_TURNS]:
        _end_hand(i, -1, TRUNCATED, ints, masks, rewards, cfg)  # R-RUMMY-13
        return
    ints[i, CUR] = (p + 1) % cfg[C_PLAYERS]
    ints[i, PHASE] = DRAW
    if not _can_draw_stock(i, ints, cfg) and ints[i, PILE_LEN] == 0:
        _end_hand(i, -1, TERMINATED, ints, masks, rewards, cfg)  # R-RUMMY-12: no card left to draw


@njit(cache=True)
def apply(i, action, ints, masks, stock, pile, rewards, cfg):
    """Apply a legal ``action`` in game ``i`` (``RummyState._apply``)."""
    p = ints[i, CUR]
    if action == DRAW_STOCK:
        if ints[i, STOCK_LEN] == 0:  # R-RUMMY-12: the pile turned over, no shuffle
            keep = 1 if cfg[C_KEEP_TOP] else 0
            size = ints[i, PILE_LEN] - keep
            for j in range(size):
                stock[i, j] = pile[i, size - 1 - j]
            ints[i, STOCK_LEN] = size
            if keep:
                pile[i, 0] = pile[i, size]
                masks[i, PILE_MASK] = bit(pile[i, 0])
            else:
                masks[i, PILE_MASK] = U0
            ints[i, PILE_LEN] = keep
        ints[i, STOCK_LEN] -= 1
        masks[i, HAND + p] |= bit(stock[i, ints[i, STOCK_LEN]])
        ints[i, PHASE] = PLAY
    elif action == DRAW_DISCARD:
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
            _end_turn(i, ints, masks, rewards, cfg)
        else:
            _end_hand(i, p, TERMINATED, ints, masks, rewards, cfg)  # went out by discarding (R-RUMMY-11)
    else:
        set3, low_ends, high_ends = masks[i, SET3], masks[i, LOW_ENDS], masks[i, HIGH_ENDS]
        if action < LAYOFF:
            m = action - MELD
            set3, low_ends, high_ends = put_down(m, set3, low_ends, high_ends)
            cards = MELD_MASK[m]
        else:
            c, side = (action - LAYOFF) // 3, (action - LAYOFF) % 3
            set3, low_ends, high_ends = lay_off(c, side, set3, low_ends, high_ends)
            cards = bit(c)
        masks[i, SET3], masks[i, LOW_ENDS], masks[i, HIGH_ENDS] = set3, low_ends, high_ends
        masks[i, TABLE] |= cards
        masks[i, HAND + p] &= ~cards
        masks[i, KNOWN + p] &= ~cards
        ints[i, MELDED_TURN] = 1
        if masks[i, HAND + p] == U0:
            _end_hand(i, p, TERMINATED, ints, masks, rewards, cfg)  # went out by melding (R-RUMMY-11)


@njit(cache=True)
def write_observation(i, viewer, ints, masks, pile, cfg, row):
    """``encode(state.observation(viewer), layout)`` of game ``i`` into ``row``."""
    n = cfg[C_PLAYERS]
    live = ints[i, ENDED] == LIVE
    row[:] = 0.0
    hand = masks[i, HAND + viewer]
    set_plane(row, 0, hand)
    top = pile[i, ints[i, PILE_LEN] - 1] if ints[i, PILE_LEN] > 0 else -1
    if top >= 0:
        set_plane(row, 52, bit(top))
        set_plane(row, 104, masks[i, PILE_MASK] & ~bit(top))
    set_plane(row, 156, masks[i, TABLE])
    for k in range(1, n):
        set_plane(row, 156 + 52 * k, masks[i, KNOWN + (viewer + k) % n])
    taken = ints[i, TAKEN]
    if live and ints[i, CUR] == viewer and taken >= 0 and has(hand, taken):
        set_plane(row, 156 + 52 * n, bit(taken))
    at = 52 * (n + 4)
    if live:
        row[at + ints[i, PHASE]] = 1.0
        row[at + 2 + (ints[i, CUR] - viewer) % n] = 1.0
    at += 2 + n
    row[at] = ints[i, STOCK_LEN]
    for k in range(n):
        s = (viewer + k) % n
        row[at + 1 + k] = popcount(masks[i, HAND + s])
        row[at + 1 + n + k] = 1.0 if ints[i, MELDED + s] or (s == ints[i, CUR] and ints[i, MELDED_TURN]) else 0.0
        row[at + 1 + 2 * n + k] = ints[i, SCORE + s]
    row[at + 1 + 3 * n] = ints[i, TURN]


@njit(cache=True)
def _write_step(i, viewer, ints, masks, pile, legal, cfg, obs, mask, current, terminated, truncated):
    write_observation(i, viewer, ints, masks, pile, cfg, obs[i])
    write_mask(legal[i], mask[i])
    current[i] = viewer
    terminated[i] = ints[i, ENDED] == TERMINATED
    truncated[i] = ints[i, ENDED] == TRUNCATED


@njit(cache=True)
def reset_one(
    i, ints, masks, stock, pile, legal, decks, dealers, given, deal_rng, cfg, obs, mask, current, rewards, term, trunc
):
    """Deal game ``i`` (``decks[i]`` as given if ``given[i]``, else shuffled from
    ``deal_rng``; a dealer ``< 0`` drawn) and write its first step."""
    if not given[i]:
        shuffle_into(deal_rng, i, decks[i])
    if dealers[i] < 0:
        dealers[i] = below(deal_rng, i, cfg[C_PLAYERS])
    new_game(i, ints)
    deal(i, ints, masks, stock, pile, legal, decks, dealers, cfg)
    rewards[i, :] = 0.0
    _write_step(i, np.int64(ints[i, CUR]), ints, masks, pile, legal, cfg, obs, mask, current, term, trunc)


@njit(cache=True)
def step_one(
    i, ints, masks, stock, pile, legal, decks, dealers, actions, random, deal_rng, action_rng, cfg,
    obs, mask, current, rewards, term, trunc,
):  # fmt: skip
    """One step of game ``i``: if its episode ended at the last step it deals a new one;
    otherwise it applies ``actions[i]``, or with ``random`` a legal id drawn from
    ``action_rng`` (and deals the game's next hand if that ended a hand)."""
    rewards[i, :] = 0.0
    if ints[i, ENDED] != LIVE:
        shuffle_into(deal_rng, i, decks[i])
        dealers[i] = below(deal_rng, i, cfg[C_PLAYERS])
        new_game(i, ints)
        deal(i, ints, masks, stock, pile, legal, decks, dealers, cfg)
        _write_step(i, np.int64(ints[i, CUR]), ints, masks, pile, legal, cfg, obs, mask, current, term, trunc)
        return
    action = actions[i]
    if random:
        action = kth_set_bit(legal[i], below(action_rng, i, count_bits(legal[i])))
    actor = ints[i, CUR]
    apply(i, action, ints, masks, stock, pile, rewards, cfg)
    if ints[i, ENDED] == HAND_OVER:
        next_hand(i, ints, masks, stock, pile, legal, decks, dealers, deal_rng, cfg)
    else:
        compute_legal(i, ints, masks, legal, cfg)
    viewer = np.int64(ints[i, CUR] if ints[i, ENDED] == LIVE else actor)  # one compiled _write_step
    _write_step(i, viewer, ints, masks, pile, legal, cfg, obs, mask, current, term, trunc)


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
    i, seat, ints, masks, stock, pile, legal, decks, dealers, deal_rng, action_rng, cfg,
    obs, mask, current, rewards, term, trunc,
):  # fmt: skip
    """Random legal moves (``action_rng``) in live game ``i`` until ``seat`` is to act or
    the episode ends (a game's next hands dealt from ``deal_rng`` on the way); then the
    step is rewritten from ``seat``'s view, the opponents' rewards added
    (``VecBase.step_opponents``)."""
    if ints[i, ENDED] != LIVE or ints[i, CUR] == seat:
        return
    while ints[i, ENDED] == LIVE and ints[i, CUR] != seat:
        action = kth_set_bit(legal[i], below(action_rng, i, count_bits(legal[i])))
        apply(i, action, ints, masks, stock, pile, rewards, cfg)
        if ints[i, ENDED] == HAND_OVER:
            next_hand(i, ints, masks, stock, pile, legal, decks, dealers, deal_rng, cfg)
        else:
            compute_legal(i, ints, masks, legal, cfg)
    _write_step(i, seat, ints, masks, pile, legal, cfg, obs, mask, current, term, trunc)


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
