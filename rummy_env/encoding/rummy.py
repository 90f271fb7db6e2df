"""Observation encoding of basic Rummy: card planes plus public counts.

The vector is float32, one flat array whose blocks are named by
:func:`observation_layout` (``Layout.table()`` prints the documentation table).
For ``n`` players its size is ``52 * (n + 4) + 4 * n + 4`` (324 for 2 players).
Per-player blocks are in seat order relative to the observer: entry 0 is the
observer, entry 1 the next player to the left, and so on.  Only what the observer
may know is encoded (rules ``rummy.md``, environment conventions): no other hand,
no stock order.
"""

from __future__ import annotations

import numpy as np

from rummy_env.encoding.layout import Field, Layout, bits_to_rows
from rummy_env.encoding.table_counts import count_fields, fill_counts, single
from rummy_env.games.rummy.config import RummyConfig
from rummy_env.games.rummy.state import RummyView

MAX_HAND_POINTS = 2 * 340  # all 52 cards are worth 340 points; going rummy doubles (R-RUMMY-16)


def layout_of(cfg: RummyConfig) -> Layout:
    """The observation layout of a game with the options ``cfg`` (:func:`observation_layout`)."""
    return observation_layout(cfg.num_players, cfg.target_score, cfg.max_turns)


def observation_layout(num_players: int, target_score: int, max_turns: int) -> Layout:
    """The observation layout of a Rummy game with these options."""
    n = num_players
    fields = [
        Field("hand", 52, 1, "1 for each card in the observer's hand"),
        Field("top_discard", 52, 1, "1 for the upcard (top of the discard pile)"),
        Field("discard_rest", 52, 1, "1 for each other card in the discard pile"),
        Field("table", 52, 1, "1 for each card in a meld on the table"),
    ]
    fields += [
        Field(
            f"known_{k}",
            52,
            1,
            f"1 for each card the player {k} seat(s) to the left took from the discard pile and still holds",
        )
        for k in range(1, n)
    ]
    fields += [
        Field(
            "forbidden",
            52,
            1,
            "1 for the card the observer took from the discard pile this turn and may not discard (R-RUMMY-09)",
        ),
    ]
    fields += count_fields(
        n,
        "1 if that player has melded or laid off in this hand, relative seats",
        Field("scores", n, target_score + MAX_HAND_POINTS, "game totals in points, relative seats"),
        "turns completed in this hand",
        max_turns,
    )
    return Layout(fields)


def encode(view: RummyView, layout: Layout) -> np.ndarray:
    """The observation vector of a player's view.

    Args:
        view: ``RummyState.observation(player)``.
        layout: ``observation_layout(...)`` of the same game.

    Returns:
        float32 array of shape ``(layout.size,)``.
    """
    obs = np.zeros(layout.size, dtype=np.float32)
    masks = [
        view.hand,
        single(view.top_discard),
        view.discard_rest,
        view.table,
        *view.known[1:],
        single(view.forbidden),
    ]
    planes = 52 * len(masks)
    obs[:planes] = bits_to_rows(masks).ravel()
    fill_counts(obs, planes, view, view.scores)
    return obs
