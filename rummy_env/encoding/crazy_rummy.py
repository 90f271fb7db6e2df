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
from rummy_env.encoding.table_counts import count_fields, fill_counts, single
from rummy_env.games.crazy_rummy.config import CrazyRummyConfig
from rummy_env.games.crazy_rummy.state import CrazyView

MAX_ROUND_PENALTY = 440  # a bound: 52 cards are worth 340 points, the wild cards at most 96 more (R-CRAZY-12)


def layout_of(cfg: CrazyRummyConfig) -> Layout:
    """The observation layout of a game with the options ``cfg`` (:func:`observation_layout`)."""
    return observation_layout(cfg.num_players, cfg.max_turns)


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
        Field(
            f"wild_{suit}", 52, 1, f"1 for the card the wild card of suit {suit} stands for on the table (R-CRAZY-05)"
        )
        for suit in "CDHS"
    ]
    fields += [
        Field(
            f"known_{k}",
            52,
            1,
            f"1 for each card the player {k} seat(s) to the left took from the discard pile or by a swap "
            "and still holds",
        )
        for k in range(1, n)
    ]
    fields += [
        Field("forbidden", 52, 1, "1 for the card the observer took from the discard pile this turn (R-CRAZY-08)"),
        Field("must_discard", 52, 1, "1 for the card the observer must discard unless going out (R-CRAZY-10)"),
        Field("wild_rank", 13, 1, "one-hot wild rank of the round: A, 2, ..., K (R-CRAZY-02)"),
        Field("round", 1, 13, "round number 1..13"),
    ]
    fields += count_fields(
        n,
        "1 if that player has put down a meld this round, relative seats",
        Field("totals", n, 13 * MAX_ROUND_PENALTY, "penalty totals of the game, relative seats (points)"),
        "turns completed in this round",
        max_turns,
    )
    return Layout(fields)


def encode(view: CrazyView, layout: Layout) -> np.ndarray:
    """The observation vector (float32, shape ``(layout.size,)``) of a player's view."""
    obs = np.zeros(layout.size, dtype=np.float32)
    masks = [
        view.hand,
        single(view.top_discard),
        view.discard_rest,
        view.table_natural,
        *(single(c) for c in view.wild_stands_for),
        *view.known[1:],
        single(view.forbidden),
        single(view.must_discard),
    ]
    i = 52 * len(masks)
    obs[:i] = bits_to_rows(masks).ravel()
    obs[i + view.wild_rank] = 1
    obs[i + 13] = view.round
    fill_counts(obs, i + 14, view, view.totals)
    return obs
