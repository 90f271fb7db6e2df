"""Worlds sampled from one player's information: ``state.resample(player, rng)`` of every
engine (OpenSpiel's ``resample_from_infostate``), for search agents (IS-MCTS, PIMC).

A player's *information* is its own hand or rack, the table, the discard pile, the cards
other players are known to hold (taken from the discard pile and not played since, or
otherwise seen: see each variant below), every hand size, the history of action ids
(every action is public: a draw says which pile, not which card), the scores, the round
and its wild rank.  Everything else is dealt again, uniformly: the unknown part of each
other hand (Rummikub: the other racks) and the order of the stock (Rummikub: the pool).

Uniform means as a shuffle deals: the unknown cards (Rummikub: the unknown physical
tiles, two tiles of one type being two tiles) are listed in a canonical order that
depends only on the player's information (ascending ids), permuted by ``rng``, and cut
into the other hands (relative seat order from the player's left) and the stock (its
list order).  Two true states with the same information therefore give the *same*
resampled state for the same generator state, and a search agent that sees only
resampled worlds cannot peek.

The future is sampled too: a resampled state gets its own generator, seeded from
``rng``, so the later hands of an ``episode="game"`` game are dealt from decks the true
state's generator cannot predict.  A resampled state is not a replay record: its
``initial_deck``, ``hand_decks`` and ``deck`` are emptied (they would tell the true deal),
and a later deal in it starts a new record.  Stacked deals of later hands
(``next_hands``) are dropped: no player knows them, so a world deals its later hands
from its own generator.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from rummy_env.core.cards import NUM_CARDS, cards_of, mask_of
from rummy_env.core.melds import MELDS

_ALL_CARDS = (1 << NUM_CARDS) - 1


def check_resample_args(state: Any, player: Any, rng: Any) -> int:
    """``player`` as a seat of ``state``, after checking ``rng``.

    Raises:
        ValueError: ``player`` is not an int seat ``0..num_players-1`` (bools refused).
        TypeError: ``rng`` is not a ``numpy.random.Generator``.
    """
    n = state.num_players
    if isinstance(player, (bool, np.bool_)) or not isinstance(player, (int, np.integer)) or not 0 <= player < n:
        raise ValueError(f"player {player!r} is not a seat: resample needs an int seat from 0 to {n - 1}")
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy.random.Generator (np.random.default_rng(seed)), got {type(rng).__name__}")
    return int(player)


def deal_unknown(pool: list[int], sizes: list[int], rng: np.random.Generator) -> list[list[int]]:
    """``pool`` shuffled by ``rng`` and cut into consecutive parts of ``sizes``.

    Every assignment of the pool's items to the parts' positions is equally likely.

    Raises:
        RuntimeError: the sizes do not add up to the pool (the engine's bookkeeping is
            broken: cards would be created or lost).
    """
    if sum(sizes) != len(pool):
        raise RuntimeError(f"{len(pool)} unknown cards or tiles for {sum(sizes)} places {sizes}: state is inconsistent")
    shuffled = [pool[i] for i in rng.permutation(len(pool)).tolist()]
    parts, start = [], 0
    for size in sizes:
        parts.append(shuffled[start : start + size])
        start += size
    return parts


def _finish(new: Any, rng: np.random.Generator) -> Any:
    """Give a resampled state its own future and no replay record of the true deal."""
    new.rng = np.random.default_rng(int(rng.integers(2**63)))
    new.initial_deck = []
    new.hand_decks = []
    new.deck = []
    new.next_hands = []  # stacked future deals are hidden from every player
    new._legal = None
    return new


def _others(player: int, n: int) -> list[int]:
    return [(player + k) % n for k in range(1, n)]


# --------------------------------------------------------------------------- Rummy
def rummy_public_holdings(state: Any) -> tuple[list[int], bool, int]:
    """What every player of a basic Rummy state knows of the hands and the stock.

    Before the stock is first rebuilt in a hand only the cards taken from the discard
    pile are known (``state.known``); once the discard pile is turned into the stock
    without shuffling (R-RUMMY-12) the stock's order is public, and so is every card
    drawn from it.  The current hand's actions are replayed from its upcard to find
    them (only when a rebuild happened: stock draws outnumber the dealt stock).

    Returns:
        (known: per seat, card bitmask of the cards every player knows it holds;
        stock_public: whether the stock's order is public; upcard: the hand's first upcard).
    """
    from rummy_env.games.rummy.actions import DRAW_DISCARD, DRAW_STOCK, LAYOFF, MELD, PLAY

    n, k = state.num_players, state.config.hand_size
    upcard = state.hand_decks[-1][n * k] if state.hand_decks else state._resampled_upcard
    draws = state.turn + (1 if state.phase == PLAY and not state.truncated else 0)
    history, start, stock_draws = state.history, len(state.history), 0
    while draws > 0:
        start -= 1
        action = history[start]
        if action in (DRAW_STOCK, DRAW_DISCARD):
            draws -= 1
            stock_draws += action == DRAW_STOCK
    if stock_draws <= NUM_CARDS - n * k - 1:
        return list(state.known), False, upcard
    discard, unknown_stock, stock = [upcard], NUM_CARDS - n * k - 1, None
    known, seat = [0] * n, (state.dealer + 1) % n
    for action in history[start:]:
        if action == DRAW_STOCK:
            if stock is None and unknown_stock:
                unknown_stock -= 1
                continue
            if not stock:  # R-RUMMY-12: the pile is turned over, its bottom card on top
                top = discard.pop() if state.config.reshuffle == "keep_top" else None
                stock, discard = discard[::-1], [] if top is None else [top]
            known[seat] |= 1 << stock.pop()
        elif action == DRAW_DISCARD:
            known[seat] |= 1 << discard.pop()
        elif action < DRAW_STOCK:
            discard.append(action)
            known[seat] &= ~(1 << action)
            seat = (seat + 1) % n
        elif action < LAYOFF:
            known[seat] &= ~MELDS[action - MELD].mask
        else:
            known[seat] &= ~(1 << (action - LAYOFF) // 3)
    return known, True, upcard


def resample_rummy(state: Any, player: Any, rng: Any) -> Any:
    """``RummyState.resample`` (see the module docstring and :func:`rummy_public_holdings`):
    the cards every player knows another holds stay with it, and the stock too once it is
    public (R-RUMMY-12); the rest of the other hands and the stock are dealt again.

    Raises:
        ValueError: ``player`` is not an int seat ``0..num_players-1`` (bools refused).
        TypeError: ``rng`` is not a ``numpy.random.Generator``.
        RuntimeError: the state's cards do not add up (``deal_unknown``).
    """
    player = check_resample_args(state, player, rng)
    known, stock_public, upcard = rummy_public_holdings(state)
    others = _others(player, state.num_players)
    unknown = _ALL_CARDS & ~state.hands[player] & ~state.table.mask & ~state.discard_mask
    for q in others:
        unknown &= ~known[q]
    if stock_public:
        unknown &= ~mask_of(state.stock)
    sizes = [state.hands[q].bit_count() - known[q].bit_count() for q in others]
    parts = deal_unknown(cards_of(unknown), sizes + ([] if stock_public else [len(state.stock)]), rng)
    new = state.clone()
    for q, part in zip(others, parts, strict=False):
        new.hands[q] = known[q] | mask_of(part)
    if not stock_public:
        new.stock = parts[-1]
    new._resampled_upcard = upcard
    return _finish(new, rng)


# ----------------------------------------------------------------------- Gin Rummy
def resample_gin(state: Any, player: Any, rng: Any) -> Any:
    """``GinRummyState.resample``: the opponent's cards taken from the discard pile stay
    (after a showdown its whole hand, laid out by R-GIN-08); its other cards and the
    stock's order are dealt again.

    Raises:
        ValueError: ``player`` is not an int seat ``0..num_players-1`` (bools refused).
        TypeError: ``rng`` is not a ``numpy.random.Generator``.
        RuntimeError: the state's cards do not add up (``deal_unknown``).
    """
    player = check_resample_args(state, player, rng)
    other = 1 - player
    known = state.hands[other] if state.showdown is not None else state.known[other]
    unknown = _ALL_CARDS & ~state.hands[player] & ~state.discard_mask & ~known
    hidden, stock = deal_unknown(
        cards_of(unknown), [state.hands[other].bit_count() - known.bit_count(), len(state.stock)], rng
    )
    new = state.clone()
    new.hands[other] = known | mask_of(hidden)
    new.stock = stock
    return _finish(new, rng)


# --------------------------------------------------------------------- Crazy Rummy
def resample_crazy(state: Any, player: Any, rng: Any) -> Any:
    """``CrazyRummyState.resample``: cards taken from the discard pile or by a swap stay
    with their holder; the rest of the other hands and the stock are dealt again.

    A wild card on the table is physically there, the card it stands for is not
    (R-CRAZY-05).  When another player must discard the card it held before drawing
    (R-CRAZY-10) and that card is unknown, it becomes the first card dealt to that
    player (any of its unknown cards, equally likely); when its only card is known, the
    old card was played and the obligation is void (-1: the same legal moves).

    Raises:
        ValueError: ``player`` is not an int seat ``0..num_players-1`` (bools refused).
        TypeError: ``rng`` is not a ``numpy.random.Generator``.
        RuntimeError: the state's cards do not add up (``deal_unknown``).
    """
    player = check_resample_args(state, player, rng)
    n = state.num_players
    others = _others(player, n)
    on_table = state.table.mask
    for represented, (wild, _) in state.wild_for.items():
        on_table = on_table & ~(1 << represented) | 1 << wild
    unknown = _ALL_CARDS & ~state.hands[player] & ~on_table & ~state.discard_mask
    for q in others:
        unknown &= ~state.known[q]
    sizes = [state.hands[q].bit_count() - state.known[q].bit_count() for q in others]
    parts = deal_unknown(cards_of(unknown), sizes + [len(state.stock)], rng)
    new = state.clone()
    for q, part in zip(others, parts, strict=False):
        new.hands[q] = state.known[q] | mask_of(part)
    new.stock = parts[-1]
    acting = state.current
    old = state.must_discard
    if not state.is_terminal() and acting != player and old >= 0 and not state.known[acting] >> old & 1:
        part = parts[others.index(acting)]
        new.must_discard = part[0] if part else -1
    return _finish(new, rng)


# ------------------------------------------------------------------------ Rummikub
def resample_rummikub(state: Any, player: Any, rng: Any) -> Any:
    """``RummikubState.resample``: the other racks and the pool are dealt again from the
    tiles not on the viewer's rack or the table.

    The play another acting player is building stays on its rack (its ``add`` actions are
    in the public history); its other tiles are dealt again, and only deals from which
    that play can still be finished count: each ``add`` was legal, i.e. left a play the
    rack could complete (R-RK-08; the engine's ``ordered_extension_mask``), so every world
    the viewer cannot rule out has a legal action.  Such deals are drawn by rejection (the
    whole deal again until the builder's new rack can finish the play), which keeps them
    uniform among those worlds; a play that can be committed as it is needs none.

    Raises:
        RuntimeError: no finishing deal among :data:`RUMMIKUB_DEAL_TRIES` (the true rack
            is one; random play needed at most a few thousand, see the constant).
    """
    from rummy_env.core.rummikub_solver import is_legal_play, ordered_extension_mask
    from rummy_env.core.tiles import FULL_POOL_COUNTS, NUM_TILE_TYPES

    player = check_resample_args(state, player, rng)
    others = _others(player, state.num_players)
    acting = -1 if state.is_terminal() else state.current
    unknown = FULL_POOL_COUNTS - state.racks[player] - state.table
    sizes = []
    for q in others:
        size = int(state.racks[q].sum())
        if q == acting:
            unknown = unknown - state.chosen
            size -= int(state.chosen.sum())
        sizes.append(size)
    pool = np.repeat(np.arange(NUM_TILE_TYPES), unknown).tolist()
    chosen, cfg = state.chosen, state.config
    args = (state.initial_meld[acting], cfg.initial_meld_points, cfg.initial_meld_table_play)
    # whether the play can be committed as it is does not depend on the rest of the rack
    building = acting in others and chosen.any() and not is_legal_play(state.table, chosen, chosen, *args)
    for _ in range(RUMMIKUB_DEAL_TRIES):
        parts = deal_unknown(pool, sizes + [len(state.pool)], rng)
        racks = {}
        for q, part in zip(others, parts, strict=False):
            racks[q] = np.bincount(np.asarray(part, dtype=np.int64), minlength=NUM_TILE_TYPES).astype(np.int64)
            if q == acting:
                racks[q] += chosen
        if not building or ordered_extension_mask(state.table, racks[acting], chosen, *args).any():
            new = state.clone()
            for q, rack in racks.items():
                new.racks[q] = rack
            new.pool = parts[-1]
            return _finish(new, rng)
    raise RuntimeError(
        f"no deal of the {len(pool)} unknown tiles in {RUMMIKUB_DEAL_TRIES} tries lets seat {acting} finish "
        "the play it is building"
    )


#: Deals :func:`resample_rummikub` draws at most for a world in which the acting player can
#: finish its play (each costs a solver sweep, about 0.3-1 ms).  Over 30,000 resamples of
#: random play (2-4 players) the most any needed was 3,345; the median was 1.
RUMMIKUB_DEAL_TRIES = 20_000
