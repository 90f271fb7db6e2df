"""Observation encoding of Rummikub: tile counts plus public counts.

One float32 vector, blocks named by :func:`observation_layout`; for ``n`` players its size
is ``4 * 53 + 4 * n + 3`` (223 for 2 players).  Tile blocks have one entry per tile type
(``core.tiles``: R1..R13, B1..B13, K1..K13, Y1..Y13, joker).  Per-player blocks are in
seat order relative to the observer.  The table is encoded as tile counts: its
arrangement does not matter for legality (R-RK-08), and renders show one arrangement.
"""

from __future__ import annotations

import numpy as np

from rummy_env.core.tiles import NUM_TILE_TYPES, TILE_VALUES
from rummy_env.encoding.layout import Field, Layout
from rummy_env.games.rummikub.config import RummikubConfig
from rummy_env.games.rummikub.state import RummikubView

ALL_TILES_VALUE = int(2 * TILE_VALUES.sum())  # 788: every tile on racks, jokers at 30


def layout_of(cfg: RummikubConfig) -> Layout:
    """The observation layout of a game with the options ``cfg`` (:func:`observation_layout`)."""
    return observation_layout(cfg.num_players, cfg.target_score, cfg.max_turns)


def observation_layout(num_players: int, target_score: int, max_turns: int) -> Layout:
    """The observation layout of a Rummikub game with these options.

    The score bounds hold because scores are zero-sum, every total is below the target
    before a game's last hand, and one hand moves at most 788 points.
    """
    n = num_players
    t = NUM_TILE_TYPES
    return Layout(
        [
            Field("rack", t, 2, "tiles of each type on the observer's rack"),
            Field("table", t, 2, "tiles of each type on the table"),
            Field("play", t, 2, "tiles of each type in the play the observer is building"),
            Field(
                "last_tile",
                t,
                1,
                "one-hot type of the last tile added to that play (tiles go in non-decreasing type order)",
            ),
            Field("initial_meld", n, 1, "1 if that player has made the initial meld (R-RK-07), relative seats"),
            Field("acting", n, 1, "one-hot relative seat of the acting player (0 = observer; all 0 when over)"),
            Field("rack_sizes", n, 106, "tiles on each rack, relative seats"),
            Field("pool_size", 1, 106, "tiles left in the pool"),
            Field(
                "scores",
                n,
                target_score + ALL_TILES_VALUE,
                "game totals in points (signed), relative seats",
                low=-((n - 1) * target_score + ALL_TILES_VALUE),
            ),
            Field("passes", 1, n, "passes in a row with the pool empty (R-RK-11)"),
            Field("turn", 1, max_turns, "turns completed in this hand"),
        ]
    )


def encode(view: RummikubView, layout: Layout) -> np.ndarray:
    """The observation vector (float32, shape ``(layout.size,)``) of a player's view."""
    n = len(view.rack_sizes)
    t = NUM_TILE_TYPES
    obs = np.zeros(layout.size, dtype=np.float32)
    obs[:t] = view.rack
    obs[t : 2 * t] = view.table
    obs[2 * t : 3 * t] = view.chosen
    if view.last_tile >= 0:
        obs[3 * t + view.last_tile] = 1
    i = 4 * t
    obs[i : i + n] = view.initial_meld
    i += n
    if view.acting >= 0:
        obs[i + view.acting] = 1
    i += n
    obs[i : i + n] = view.rack_sizes
    i += n
    obs[i] = view.pool_size
    i += 1
    obs[i : i + n] = view.scores
    i += n
    obs[i] = view.passes
    obs[i + 1] = view.turn
    return obs
