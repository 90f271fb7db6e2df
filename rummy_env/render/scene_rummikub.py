"""The Rummikub table as one player sees it (see ``render/scene.py``).

From the viewer's view: its rack (the tiles of the play being built framed in green),
the table as one valid arrangement of its tiles (``core.rummikub_solver.partition``: the
table is a multiset of tiles, any arrangement is as good, R-RK-08), the other racks'
sizes face down, the pool's size, the scores and the last move.
"""

from __future__ import annotations

from typing import Any

from rummy_env.core.rummikub_solver import partition
from rummy_env.core.tiles import counts_str, counts_to_tiles
from rummy_env.games.rummikub.actions import COMMIT
from rummy_env.render import shapes as sh
from rummy_env.render.frame import (
    HAND_Y,
    HEIGHT,
    MARGIN,
    MID_H,
    MID_Y,
    TABLE_X,
    WIDTH,
    by_seat,
    count,
    footer,
    header,
    move_line,
    opponent_panels,
    seat_name,
)
from rummy_env.render.shapes import Picture


def rummikub_picture(state: Any, viewer: int, last_move: tuple[int, int] | None) -> Picture:
    """The picture of a ``RummikubState`` from seat ``viewer`` (see ``scene.table_picture``)."""
    view = state.observation(viewer)
    n = state.num_players
    pic = Picture(WIDTH, HEIGHT)
    over = state.is_terminal()
    who = "episode over" if over else f"{seat_name(state.current)} to play"
    header(pic, f"Rummikub · hand {state.hands_played + (0 if over else 1)} · turn {view.turn}", who)
    lines = []
    for k in range(1, n):
        made = " · initial meld made" if view.initial_meld[k] else ""
        lines.append(
            f"{seat_name((viewer + k) % n)} · {count(view.rack_sizes[k], 'tile')} · {view.scores[k]} pts{made}"
        )
    opponent_panels(pic, n, view.acting, lines, list(view.rack_sizes), tiles=True)
    # the pool: a stack of face-down tiles and its size
    size = sh.CardSize(46, 62, 0)
    for i in range(3 if view.pool_size else 0):
        pic.add(*sh.tile_back(MARGIN + 6 - 3 * i, MID_Y + 16 - 3 * i, size))
    pic.text(MARGIN + 29, MID_Y + 96, f"pool {view.pool_size}", 14, sh.INK, "m")
    if view.passes:
        pic.text(MARGIN + 29, MID_Y + 116, f"passes {view.passes}", 12, sh.MUTED, "m")
    melds = partition(view.table) or []
    pic.add(sh.Rect(TABLE_X, MID_Y, WIDTH - TABLE_X - MARGIN, MID_H, None, sh.MUTED, 1.0, radius=10))
    pic.text(TABLE_X + 10, MID_Y + 11, "table (one valid arrangement)" if melds else "table: empty", 12, sh.MUTED)
    tile = sh.CardSize(sh.TILE_SIZE.w, sh.TILE_SIZE.h, sh.TILE_SIZE.w + 2)
    s, places = sh.fit_groups([len(m) for m in melds], WIDTH - TABLE_X - MARGIN - 20, MID_H - 30, tile, 12)
    for meld, (dx, dy) in zip(melds, places, strict=True):
        for i, t in enumerate(meld):
            pic.add(*sh.tile_face(t, TABLE_X + 10 + dx + i * s.step, MID_Y + 22 + dy, s))
    # the rack, in up to two rows; the play being built framed in green
    rack = counts_to_tiles(view.rack)
    building = view.chosen.copy()
    own = f"{seat_name(viewer)}'s rack (this view) · {len(rack)} tiles · {view.scores[0]} pts"
    if view.initial_meld[0]:
        own += " · initial meld made"
    if view.chosen.any():
        own += f" · building a play: {counts_str(view.chosen)} (green)"
    pic.text(MARGIN, HAND_Y + 8, own, 16)
    avail = WIDTH - 2 * MARGIN
    per_row = max(1, int((avail - tile.w) // tile.step) + 1)
    rows = [rack[i : i + per_row] for i in range(0, len(rack), per_row)] or [[]]
    if len(rows) > 2:  # more than two rows of tiles: overlap them in two rows
        half = (len(rack) + 1) // 2
        rows = [rack[:half], rack[half:]]
    row_h = min(tile.h + 4, 48.0)
    for r, row in enumerate(rows):
        step = tile.step if len(row) <= per_row else (avail - tile.w) / max(1, len(row) - 1)
        for i, t in enumerate(row):
            mark = None
            if building[t] > 0:
                building[t] -= 1
                mark = sh.GREEN_MARK
            pic.add(*sh.tile_face(t, MARGIN + i * step, HAND_Y + 20 + r * row_h, tile, mark))
    hidden = last_move is not None and last_move[1] < COMMIT and last_move[0] != viewer
    foot = [
        "scores: " + by_seat(viewer, view.scores),
        move_line(state, viewer, last_move, hidden=hidden),
    ]
    last = state.last_hand
    if last is not None:
        won = ", ".join(seat_name(q) for q in last["winners"]) or "no one"
        foot.append(
            f"last hand: won by {won}; hand scores "
            + ", ".join(f"{seat_name(q)} {v}" for q, v in enumerate(last["hand_scores"]))
            + (" (cut by max_turns)" if last["truncated"] else "")
        )
    footer(pic, foot, y=HAND_Y + 20 + 2 * row_h + 16)
    return pic
