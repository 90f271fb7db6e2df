"""The Crazy Rummy batch kernel: one-round episodes or whole games of ``crazy_kernel``
rows, dealt, observed and rewarded as ``crazy_rummy_v0.env`` does.

The rules of a round are ``crazy_kernel``'s (``compute_legal`` with the R-CRAZY-08a
look-ahead, ``apply``), the very functions the search playouts run; this module adds
what an episode needs around them: the deal (``CrazyRummyState._deal``, R-CRAZY-02, 03),
the observation (``encoding.crazy_rummy.encode`` entry for entry), the rewards
(``CrazyRummyState._end_round``, ``reward="win"`` or ``"score"``) and the drivers of
``gin_vec.KernelVec`` (``reset`` / ``step`` / ``opponents``, each ``*_range`` and
``*_parallel``).

State (``n`` games): ``crazy_kernel``'s ``ints``, ``masks``, ``stock``, ``pile`` and
``legal`` rows, then ``decks`` int8 ``(n, 52)`` and ``dealers`` int8 ``(n,)``.  The wild
rank (``ints[:, WILD_RANK]``, the round being ``WILD_RANK + 1``), the dealer and the
penalty totals are state columns, so a game of 13 rounds is a loop of :func:`deal`
calls with the next rank and dealer.  Random draws of a deal, from the game's deal
stream (``vector.batch``): the shuffle, the dealer, then, in a one-round episode unless
the ``wild_rank`` option fixes it, the wild rank (``next() % 13`` is the rank index).

Whole games (``episode="game"``, ``cfg[C_GAME]``; ``vector.whole_games``): a game's first
round is round 1 (aces wild, R-CRAZY-02), no wild rank is drawn; when a round ends,
:func:`end_round` scores it into the game as ``CrazyRummyState._end_round`` does and,
unless it was round 13 or the ``max_hands``-th, deals the next round within the same
step (a deck shuffled from the deal stream, the next dealer to the left, the next wild
rank), so the rounds finished are ``WILD_RANK`` (``+ 1`` once the game is over).  A
round cut by ``max_turns`` scores no penalties and the game goes on.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from rummy_env.vector.bits import (
    PLAIN,
    U0,
    below,
    bit,
    count_bits_at,
    has,
    kth_set_bit_at,
    popcount,
    set_plane_at,
    shuffle_into,
    write_mask_at,
)
from rummy_env.vector.crazy_kernel import (
    C_GAME,
    C_MAX_HANDS,
    C_PLAYERS,
    C_SCORE_REWARD,
    C_WILD_RANK,
    CUR,
    DEALER,
    ENDED,
    HAND,
    KNOWN,
    LIVE,
    MELDED,
    MUST,
    NUM_INTS,
    NUM_MASKS,
    PENALTY,
    PHASE,
    PILE_LEN,
    PILE_MASK,
    PLAY,
    STAND,
    STOCK_LEN,
    TABLE,
    TAKEN,
    TERMINATED,
    TOTAL,
    TRUNCATED,
    TURN,
    WILD_RANK,
    WILDS,
    WINNER,
    apply,
    compute_legal,
)

HAND_SIZE = 7  # R-CRAZY-03: 7 cards each, an 8th to the dealer's left
NUM_ROUNDS = 13  # R-CRAZY-02
WILD_SUITS = np.uint64(0x0008004002001)  # bits 0, 13, 26, 39: the four cards of rank index 0


@njit(**PLAIN)
def deal(i, ints, masks, stock, pile, legal, decks, dealers, wild_rank, cfg):
    """Deal round ``wild_rank + 1`` of game ``i`` from ``decks[i]`` with ``dealers[i]``
    (``CrazyRummyState._deal``, R-CRAZY-02, 03): 7 cards each from the dealer's left, an
    8th to the dealer's left, who plays first without drawing; no upcard.  The totals
    (``TOTAL``) are left as they are."""
    n = cfg[C_PLAYERS]
    dealer = dealers[i]
    first = (dealer + 1) % n
    for c in range(NUM_MASKS):
        masks[i, c] = U0
    for c in range(NUM_INTS):
        if c < TOTAL or c >= TOTAL + 6:
            ints[i, c] = 0
    for j in range(HAND_SIZE * n):
        masks[i, HAND + (first + j) % n] |= bit(decks[i, j])
    masks[i, HAND + first] |= bit(decks[i, HAND_SIZE * n])
    size = 51 - HAND_SIZE * n
    for j in range(size):
        stock[i, j] = decks[i, 51 - j]  # top card last
    ints[i, STOCK_LEN] = size
    ints[i, DEALER] = dealer
    ints[i, WILD_RANK] = wild_rank
    masks[i, WILDS] = WILD_SUITS << np.uint64(wild_rank)
    ints[i, TAKEN] = -1
    ints[i, MUST] = -1
    ints[i, WINNER] = -1
    for s in range(4):
        ints[i, STAND + s] = -1
    ints[i, CUR] = first
    ints[i, PHASE] = PLAY  # R-CRAZY-06
    ints[i, ENDED] = LIVE
    compute_legal(i, ints, masks, legal, cfg)


@njit(**PLAIN)
def write_observation(i, viewer, ints, masks, pile, cfg, obs):
    """``encode(state.observation(viewer), layout)`` of game ``i`` into ``obs[i]``
    (float32 rows of ``52 * (n + 9) + 4 * n + 18``)."""
    n = cfg[C_PLAYERS]
    live = ints[i, ENDED] == LIVE
    for j in range(obs.shape[1]):
        obs[i, j] = 0.0
    hand = masks[i, HAND + viewer]
    set_plane_at(obs, i, 0, hand)
    pile_len = ints[i, PILE_LEN]
    if pile_len > 0:
        top = pile[i, pile_len - 1]
        obs[i, 52 + top] = 1.0
        set_plane_at(obs, i, 104, masks[i, PILE_MASK] & ~bit(top))
    natural = masks[i, TABLE]
    for s in range(4):
        c = ints[i, STAND + s]
        if c >= 0:
            natural &= ~bit(c)
            obs[i, 208 + 52 * s + c] = 1.0
    set_plane_at(obs, i, 156, natural)
    seat = viewer
    for k in range(1, n):
        seat = seat + 1 if seat + 1 < n else 0
        set_plane_at(obs, i, 364 + 52 * k, masks[i, KNOWN + seat])
    at = 52 * (n + 7)
    if live and ints[i, CUR] == viewer and ints[i, PHASE] == PLAY:
        taken, must = ints[i, TAKEN], ints[i, MUST]
        if taken >= 0 and has(hand, taken):
            obs[i, at + taken] = 1.0
        if must >= 0 and has(hand, must):
            obs[i, at + 52 + must] = 1.0
    at += 104
    obs[i, at + ints[i, WILD_RANK]] = 1.0
    obs[i, at + 13] = ints[i, WILD_RANK] + 1  # the round (R-CRAZY-02)
    at += 14
    if live:
        obs[i, at + ints[i, PHASE]] = 1.0
        acting = ints[i, CUR] - viewer
        obs[i, at + 2 + (acting + n if acting < 0 else acting)] = 1.0
    at += 2 + n
    obs[i, at] = ints[i, STOCK_LEN]
    seat = viewer
    for k in range(n):
        obs[i, at + 1 + k] = popcount(masks[i, HAND + seat])
        obs[i, at + 1 + n + k] = ints[i, MELDED + seat]
        obs[i, at + 1 + 2 * n + k] = ints[i, TOTAL + seat]
        seat = seat + 1 if seat + 1 < n else 0
    obs[i, at + 1 + 3 * n] = ints[i, TURN]


@njit(**PLAIN)
def win_rewards(i, ints, col, rewards, cfg):
    """Add ``reward="win"``'s rewards of the points in columns ``col .. col + n - 1`` of
    row ``i``: +1 shared by the lowest, -1 shared by the others, 0 to all when all tie
    (R-CRAZY-12, 13)."""
    n = cfg[C_PLAYERS]
    best = ints[i, col]
    for q in range(1, n):
        best = min(best, ints[i, col + q])
    winners = 0
    for q in range(n):
        winners += ints[i, col + q] == best
    if winners == n:
        return
    for q in range(n):
        rewards[i, q] += 1.0 / winners if ints[i, col + q] == best else -1.0 / (n - winners)


@njit(**PLAIN)
def score_rewards(i, ints, rewards, cfg):
    """Add ``reward="score"``'s rewards of the round that just ended: the mean penalty
    minus one's own (R-CRAZY-12)."""
    n = cfg[C_PLAYERS]
    total = 0
    for q in range(n):
        total += ints[i, PENALTY + q]
    mean = total / n
    for q in range(n):
        rewards[i, q] += mean - ints[i, PENALTY + q]


@njit(**PLAIN)
def round_rewards(i, ints, rewards, cfg):
    """Add every seat's reward for a round that just ended (``CrazyRummyState._end_round``,
    ``episode="hand"``): none for a round cut by ``max_turns``; ``reward="score"``: the
    mean penalty minus one's own; ``reward="win"``: +1 shared by the lowest penalties,
    -1 shared by the others, 0 to all when all tie (R-CRAZY-12, 13)."""
    if ints[i, ENDED] != TERMINATED:
        return
    if cfg[C_SCORE_REWARD]:
        score_rewards(i, ints, rewards, cfg)
    else:
        win_rewards(i, ints, PENALTY, rewards, cfg)


@njit(**PLAIN)
def end_round(i, ints, masks, stock, pile, legal, decks, dealers, deal_rng, rewards, cfg):
    """After the move that ended game ``i``'s round: add the rewards and, in a whole game,
    deal the next round or end the game (``CrazyRummyState._end_round``).

    ``episode="hand"``: :func:`round_rewards`.  ``episode="game"``: ``reward="score"``
    pays each round (not one cut by ``max_turns``); after round 13 the game is
    terminated and ``reward="win"`` pays the lowest totals (R-CRAZY-13); after the
    ``max_hands``-th round before it the game is truncated (no win reward); otherwise
    the next round is dealt (``ENDED`` is ``LIVE`` again)."""
    if not cfg[C_GAME]:
        round_rewards(i, ints, rewards, cfg)
        return
    n = cfg[C_PLAYERS]
    if cfg[C_SCORE_REWARD] and ints[i, ENDED] == TERMINATED:
        score_rewards(i, ints, rewards, cfg)
    finished = ints[i, WILD_RANK] + 1  # rounds finished in this game (round r has rank index r - 1)
    if finished < NUM_ROUNDS and finished >= cfg[C_MAX_HANDS]:
        ints[i, ENDED] = TRUNCATED  # the game cut short by max_hands
        return
    if finished < NUM_ROUNDS:
        shuffle_into(deal_rng, i, decks[i])
        dealers[i] = (ints[i, DEALER] + 1) % n
        deal(i, ints, masks, stock, pile, legal, decks, dealers, finished, cfg)
        return
    ints[i, ENDED] = TERMINATED  # also after a last round cut by max_turns
    if not cfg[C_SCORE_REWARD]:
        win_rewards(i, ints, TOTAL, rewards, cfg)


@njit(**PLAIN)
def _write_step(i, viewer, ints, masks, pile, legal, cfg, obs, mask, current, terminated, truncated):
    write_observation(i, viewer, ints, masks, pile, cfg, obs)
    write_mask_at(legal, i, mask)
    current[i] = viewer
    terminated[i] = ints[i, ENDED] == TERMINATED
    truncated[i] = ints[i, ENDED] == TRUNCATED


@njit(**PLAIN)
def _deal_episode(i, ints, masks, stock, pile, legal, decks, dealers, deal_rng, cfg, wild):
    """A new episode of game ``i`` from ``decks[i]`` and ``dealers[i]``, the totals 0: a
    whole game's round 1, or a one-round episode's round of wild rank index ``wild``
    (0..12, given at reset; -1: the one the option fixes, else drawn from ``deal_rng``)."""
    if cfg[C_GAME]:
        wild_rank = 0
    elif wild >= 0:
        wild_rank = wild
    elif cfg[C_WILD_RANK] >= 0:
        wild_rank = cfg[C_WILD_RANK]
    else:
        wild_rank = below(deal_rng, i, 13)
    for q in range(6):
        ints[i, TOTAL + q] = 0
    deal(i, ints, masks, stock, pile, legal, decks, dealers, wild_rank, cfg)


@njit(**PLAIN)
def reset_one(
    i, ints, masks, stock, pile, legal, decks, dealers, given, wilds, deal_rng, cfg, obs, mask, current, rewards,
    term, trunc,
):  # fmt: skip
    """Deal game ``i`` (``decks[i]`` as given if ``given[i]``, else shuffled from
    ``deal_rng``; a dealer ``< 0`` drawn; the wild rank index ``wilds[i]`` if >= 0, else
    fixed by the option or drawn) and write its first step."""
    if not given[i]:
        shuffle_into(deal_rng, i, decks[i])
    if dealers[i] < 0:
        dealers[i] = below(deal_rng, i, cfg[C_PLAYERS])
    _deal_episode(i, ints, masks, stock, pile, legal, decks, dealers, deal_rng, cfg, wilds[i])
    for q in range(rewards.shape[1]):
        rewards[i, q] = 0.0
    _write_step(i, np.int64(ints[i, CUR]), ints, masks, pile, legal, cfg, obs, mask, current, term, trunc)


@njit(**PLAIN)
def step_one(
    i, ints, masks, stock, pile, legal, decks, dealers, actions, random, deal_rng, action_rng, cfg,
    obs, mask, current, rewards, term, trunc,
):  # fmt: skip
    """One step of game ``i``: if its episode ended at the last step it deals the next
    one; otherwise it applies ``actions[i]``, or with ``random`` a legal id drawn from
    ``action_rng`` (and, in a whole game, deals the next round if that ended one)."""
    for q in range(rewards.shape[1]):
        rewards[i, q] = 0.0
    if ints[i, ENDED] != LIVE:
        shuffle_into(deal_rng, i, decks[i])
        dealers[i] = below(deal_rng, i, cfg[C_PLAYERS])
        _deal_episode(i, ints, masks, stock, pile, legal, decks, dealers, deal_rng, cfg, -1)
        _write_step(i, np.int64(ints[i, CUR]), ints, masks, pile, legal, cfg, obs, mask, current, term, trunc)
        return
    action = actions[i]
    if random:
        action = kth_set_bit_at(legal, i, below(action_rng, i, count_bits_at(legal, i)))
    actor = ints[i, CUR]
    apply(i, action, ints, masks, stock, pile, cfg)
    compute_legal(i, ints, masks, legal, cfg)
    if ints[i, ENDED] != LIVE:
        end_round(i, ints, masks, stock, pile, legal, decks, dealers, deal_rng, rewards, cfg)
    viewer = np.int64(ints[i, CUR] if ints[i, ENDED] == LIVE else actor)  # one compiled _write_step
    _write_step(i, viewer, ints, masks, pile, legal, cfg, obs, mask, current, term, trunc)


@njit(**PLAIN)
def opponents_one(
    i, seat, ints, masks, stock, pile, legal, decks, dealers, deal_rng, action_rng, cfg, obs, mask, current, rewards,
    term, trunc,
):  # fmt: skip
    """Random legal moves (``action_rng``) in live game ``i`` until ``seat`` is to act or
    the episode ends; then the step is rewritten from ``seat``'s view, the opponents'
    rewards added (``VecBase.step_opponents``); a whole game's next rounds are dealt
    from ``deal_rng`` on the way."""
    if ints[i, ENDED] != LIVE or ints[i, CUR] == seat:
        return
    while ints[i, ENDED] == LIVE and ints[i, CUR] != seat:
        action = kth_set_bit_at(legal, i, below(action_rng, i, count_bits_at(legal, i)))
        apply(i, action, ints, masks, stock, pile, cfg)
        compute_legal(i, ints, masks, legal, cfg)
        if ints[i, ENDED] != LIVE:
            end_round(i, ints, masks, stock, pile, legal, decks, dealers, deal_rng, rewards, cfg)
    _write_step(i, seat, ints, masks, pile, legal, cfg, obs, mask, current, term, trunc)


@njit(nogil=True, **PLAIN)
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


@njit(nogil=True, **PLAIN)
def step_range(lo, hi, *args):
    """``step_one`` for the games ``lo .. hi - 1``: one worker thread's slice (``nogil``)."""
    for i in range(lo, hi):
        step_one(i, *args)


@njit(parallel=True, cache=True)
def step_parallel(*args):
    """``step_one`` for every game, spread over numba's ``prange`` threads."""
    for i in prange(args[0].shape[0]):
        step_one(np.int64(i), *args)


@njit(nogil=True, **PLAIN)
def opponents_range(lo, hi, seats, *args):
    """``opponents_one`` for the games ``lo .. hi - 1``: one worker thread's slice (``nogil``)."""
    for i in range(lo, hi):
        opponents_one(i, seats[i], *args)


@njit(parallel=True, cache=True)
def opponents_parallel(seats, *args):
    """``opponents_one`` for every game, spread over numba's ``prange`` threads."""
    for i in prange(seats.shape[0]):
        opponents_one(np.int64(i), seats[i], *args)
