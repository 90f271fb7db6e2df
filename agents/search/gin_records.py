"""What a Gin Rummy seat saw its opponent decide in the current hand, from the public
history only: the records the ``pimc`` opponent models (``model`` < 1, ``model=mix``)
weigh their worlds with (``agents.search.gin_fast.fit_weight``, ``style_weights``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from rummy_env.vector import gin_kernel as k


def bit_of(card: int) -> int:
    """The bitmask of ``card``, 0 for -1 (no card)."""
    return 0 if card < 0 else 1 << card


def _walk(state: Any, seat: int) -> list[tuple[int, int, int, int, int, int, int]]:
    """One tuple per opponent turn or upcard offer, oldest first: ``(up, took, discard,
    seen, stock_drawn, known, pile)`` (see :func:`opponent_records` and
    :func:`opponent_context`; ``stock_drawn``: cards drawn from the stock before the
    discard, its own draw included)."""
    from rummy_env.games.gin_rummy.state import DISCARD, DRAW, OFFER

    other, dealer = 1 - seat, state.dealer
    history = state.history[state.hand_start :]  # this hand's (a whole game's history holds every hand)
    # the first upcard is known to this replay unless someone took it in the offer (R-GIN-03)
    offer_taken = history[:1] == [k.DRAW_UPCARD] or history[:2] == [k.PASS, k.DRAW_UPCARD]
    first = -1 if offer_taken or not state.discard else state.discard[0]
    records: list[tuple[int, int, int, int, int, int, int]] = []
    shown = pile = bit_of(first)
    known = drawn = 0  # the cards `seat` took from the pile and holds; stock draws so far
    phase, cur, passes, top, pending = OFFER, 1 - dealer, 0, first, None
    for a in history:
        if phase == DISCARD:  # a discard (a knock ends the hand)
            if cur == other and pending is not None:
                records.append((pending[0], pending[1], a, pending[2], drawn, known, pile))
                pending = None
            if cur == seat:
                known &= ~bit_of(a)
            shown |= bit_of(a)
            pile |= bit_of(a)
            top, cur, phase = a, 1 - cur, DRAW
        elif a == k.PASS:
            if cur == other:
                pending = (first, 0, shown)
            passes += 1
            if passes == 1:
                cur = dealer
            else:  # both passed: the non-dealer draws from the stock
                cur, phase = 1 - dealer, DISCARD
                drawn += 1
                if cur != other and pending is not None:  # the opponent dealt: no draw of its own
                    records.append((first, 0, -1, shown, drawn, known, pile))
                    pending = None
        else:  # a draw, in the offer or after a discard
            up = top if phase == DRAW else first
            if cur == other:
                pending = (up, int(a == k.DRAW_UPCARD), shown)
            if a == k.DRAW_UPCARD:
                pile &= ~bit_of(up)
                if cur == seat:
                    known |= bit_of(up)
            else:
                drawn += 1
            phase = DISCARD
    if pending is not None and phase == OFFER:  # it passed the upcard and the seat is offered it now
        records.append((pending[0], 0, -1, pending[2], drawn, known, pile))
    if history[:1] == [k.DRAW_UPCARD] and dealer == other or history[:2] == [k.PASS, k.DRAW_UPCARD] and dealer == seat:
        # `seat` took the first upcard: if it still holds it, it is the one card it is known to hold
        # that the replay did not see it take, and it held it all along
        held = state.known[seat] & ~known
        if held.bit_count() == 1:
            records = [(*r[:5], r[5] | held, r[6]) for r in records]
    return records


def opponent_records(state: Any, seat: int) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """What ``seat`` saw the opponent decide in this hand: int64 arrays ``(ups, tooks,
    discards)`` and uint64 ``seen``, one entry per opponent turn or upcard offer, oldest
    first.  ``ups[j]``: the upcard it was offered or left (-1 when not known: the first
    upcard once someone took it); ``tooks[j]``: 1 if it took it; ``discards[j]``: the
    card it discarded after (-1: a pass with no draw of its own); ``seen[j]``: the cards
    seen face up before that draw (they cannot come from the stock).  Read from the
    public history only (R-GIN-03, 04)."""
    records = _walk(state, seat)
    columns = list(zip(*records, strict=True)) if records else [()] * 7
    return (
        np.asarray(columns[0], np.int64),
        np.asarray(columns[1], np.int64),
        np.asarray(columns[2], np.int64),
        np.asarray(columns[3], np.uint64),
    )


def opponent_context(state: Any, seat: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """What the opponent's styles of play read when it discarded, aligned with
    :func:`opponent_records`: int64 ``stocks`` (the stock's size after its draw: the
    ``gin_hunter`` style knocks without gin only when it is small) and uint64 ``knowns``,
    ``piles`` (the cards ``seat`` took from the discard pile and still held, and the
    discard pile, after its draw: what the ``defensive`` style's danger reads).  Public
    information only (R-GIN-03, 04)."""
    records = _walk(state, seat)
    # the stock's size at the start: what is left plus every card drawn from it
    total = len(state.stock) + _stock_draws(state)
    return (
        np.asarray([total - r[4] for r in records], np.int64),
        np.asarray([r[5] for r in records], np.uint64),
        np.asarray([r[6] for r in records], np.uint64),
    )


def _stock_draws(state: Any) -> int:
    """Cards drawn from the stock so far in this hand (the non-dealer's draw after two
    passes included, R-GIN-03)."""
    history = state.history[state.hand_start :]
    both_passed = history[:2] == [k.PASS, k.PASS]
    return sum(1 for a in history if a == k.DRAW_STOCK) + int(both_passed)
