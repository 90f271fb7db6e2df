"""Observation encoding of Crazy Rummy: card planes, wild cards on the table, counts.

One float32 vector, blocks named by :func:`observation_layout`; for ``n`` players its
size is ``52 * (n + 9) + 4 * n + 18`` (654 for 3 players).  Per-player blocks are in
seat order relative to the observer (0 = observer).  The four ``wild_*`` planes say
which card each wild card on the table stands for (the wild card of suit C is the
round's wild rank in clubs, and so on), so the table is known exactly: the natural
cards plus the cards the wild cards stand for (R-CRAZY-05).
"""

from __future__ import annotations

import numpy as np

from rummy_env.encoding.layout import Field, Layout, bits_to_rows
from rummy_env.games.crazy_rummy.state import CrazyView

MAX_ROUND_PENALTY = 440  # a bound: 52 cards are worth 340 points, the wild cards at most 96 more (R-CRAZY-12)


def observation_layout(num_players: int, max_turns: int) -> Layout:
    """The observation layout of a Crazy Rummy game with these options."""
    n = num_players
    fields = [
        Field("hand", 52, 1, "1 for each card in the observer's hand"),
        Field("top_discard", 52, 1, "1 for the top card of the discard pile"),
        Field("discard_rest", 52, 1, "1 for each other card in the discard pile"),
        Field("table_natural", 52, 1, "1 for each card on the table as itself"),
    ]
    fields += [
        Field(f"wild_{suit}", 52, 1, f"1 for the card the wild card of suit {suit} stands for on the table (R-CRAZY-05)")
        for suit in "CDHS"
    ]
    fields += [
        Field(f"known_{k}", 52, 1,
              f"1 for each card the player {k} seat(s) to the left took from the discard pile or by a swap and still holds")
        for k in range(1, n)
    ]
    fields += [
        Field("forbidden", 52, 1, "1 for the card the observer took from the discard pile this turn (R-CRAZY-08)"),
        Field("must_discard", 52, 1, "1 for the card the observer must discard unless going out (R-CRAZY-10)"),
        Field("wild_rank", 13, 1, "one-hot wild rank of the round: A, 2, ..., K (R-CRAZY-02)"),
        Field("round", 1, 13, "round number 1..13"),
        Field("phase", 2, 1, "one-hot phase of the acting player: draw, play (all 0 when the episode is over)"),
        Field("acting", n, 1, "one-hot relative seat of the acting player (0 = observer)"),
        Field("stock_size", 1, 52, "cards in the stock"),
        Field("hand_sizes", n, 52, "cards in each hand, relative seats"),
        Field("melded", n, 1, "1 if that player has put down a meld this round, relative seats"),
        Field("totals", n, 13 * MAX_ROUND_PENALTY, "penalty totals of the game, relative seats (points)"),
        Field("turn", 1, max_turns, "turns completed in this round"),
    ]
    return Layout(fields)


def encode(view: CrazyView, layout: Layout) -> np.ndarray:
    """The observation vector (float32, shape ``(layout.size,)``) of a player's view."""
    n = len(view.hand_sizes)
    obs = np.zeros(layout.size, dtype=np.float32)
    masks = [
        view.hand,
        1 << view.top_discard if view.top_discard >= 0 else 0,
        view.discard_rest,
        view.table_natural,
        *(1 << c if c >= 0 else 0 for c in view.wild_stands_for),
        *view.known[1:],
        1 << view.forbidden if view.forbidden >= 0 else 0,
        1 << view.must_discard if view.must_discard >= 0 else 0,
    ]
    i = 52 * len(masks)
    obs[:i] = bits_to_rows(masks).ravel()
    obs[i + view.wild_rank] = 1
    i += 13
    obs[i] = view.round
    i += 1
    if view.phase >= 0:
        obs[i + view.phase] = 1
    i += 2
    if view.acting >= 0:
        obs[i + view.acting] = 1
    i += n
    obs[i] = view.stock_size
    i += 1
    obs[i:i + n] = view.hand_sizes
    i += n
    obs[i:i + n] = view.melded
    i += n
    obs[i:i + n] = view.totals
    i += n
    obs[i] = view.turn
    return obs
