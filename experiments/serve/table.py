"""One seat's view of a game for the browser: the picture with clickable cards, the
legal moves, the moves made so far and the end of a hand explained.

Everything here is built from what that seat may know: the picture is the env's own
``render_svg(agent)`` (drawn from ``state.observation(seat)`` and the public table), the
click boxes come from the same picture's shapes and the seat's own hand, the moves are
the seat's legal actions, and another seat's Rummikub tile added to a play not yet
committed is shown as "adds a tile", as the picture's last-move line does.
``tests/web/test_views.py`` permutes the hidden cards (``state.resample``) and checks that
the view does not change.
"""

from __future__ import annotations

from typing import Any

from rummy_env.games.rummikub.actions import COMMIT as RUMMIKUB_COMMIT  # ids below it add a tile
from rummy_env.render import shapes as sh
from rummy_env.render.scene import HAND_Y, table_picture

RUMMIKUB = "rummikub_v0"


def _hand_items(state: Any, seat: int, variant: str) -> list[str]:
    """The seat's own cards (or rack tiles) as strings, in the order the picture lays them out."""
    view = state.observation(seat)
    if variant == RUMMIKUB:
        from rummy_env.core.tiles import counts_to_tiles, tile_str

        return [tile_str(t) for t in counts_to_tiles(view.rack)]
    from rummy_env.core.cards import card_str, cards_of

    return [card_str(c) for c in cards_of(view.hand)]


def hand_boxes(state: Any, seat: int, variant: str, last_move: tuple[int, int] | None) -> list[dict]:
    """Where the seat's own cards or tiles are in its picture: one dict per card, in the
    picture's order, ``{"card": "KD", "x", "y", "w", "h"}`` in SVG pixels (the visible
    part: a fanned card is covered by the next one beyond its strip).

    The boxes are the face rectangles of the picture's hand row (``scene.hand_row`` and
    the Rummikub rack: the face-up shapes below ``HAND_Y``), matched in order with the
    seat's hand, so they follow the picture's layout without repeating it.
    """
    items = _hand_items(state, seat, variant)
    fill = sh.TILE if variant == RUMMIKUB else sh.CARD
    faces = [
        s
        for s in table_picture(state, seat, last_move).shapes
        if isinstance(s, sh.Rect) and s.fill == fill and s.y >= HAND_Y
    ]
    if len(faces) != len(items):  # the layout changed: better no boxes than wrong ones
        return []
    boxes = []
    for i, (card, face) in enumerate(zip(items, faces, strict=True)):
        w = face.w
        nxt = faces[i + 1] if i + 1 < len(faces) else None
        if nxt is not None and nxt.y == face.y and face.x < nxt.x < face.x + face.w:
            w = nxt.x - face.x  # covered by the next card of the fan
        boxes.append({"card": card, "x": face.x, "y": face.y, "w": w, "h": face.h})
    return boxes


def svg_with_boxes(svg: str, boxes: list[dict]) -> str:
    """``svg`` with a transparent, clickable ``<rect class="hit" data-card=...>`` over each
    box (last in the document, so on top); the page's script listens to them."""
    from xml.sax.saxutils import quoteattr

    hits = [
        f'<rect class="hit" data-card={quoteattr(b["card"])} x="{b["x"]:.1f}" y="{b["y"]:.1f}" '
        f'width="{b["w"]:.1f}" height="{b["h"]:.1f}" fill="transparent" pointer-events="all"/>'
        for b in boxes
    ]
    head, end, _ = svg.rpartition("</svg>")
    return head + "\n".join(hits) + ("\n" if hits else "") + end


def move_entries(raw: Any, agent: str, hand: list[str]) -> list[dict]:
    """The legal moves of ``agent`` (none when it is not acting): ``{"action": id, "text":
    action_to_string(id), "cards": [the seat's cards or tiles the text names]}``."""
    seat = raw.agent_name_mapping[agent]
    state = raw.game_state
    if state.is_terminal() or state.current_player() != seat:
        return []
    own = set(hand)
    out = []
    for a in state.legal_actions(seat):
        text = raw.action_to_string(int(a))
        out.append({"action": int(a), "text": text, "cards": [w for w in text.split()[1:] if w in own]})
    return out


def event_text(variant: str, actor: int, viewer: int | None, action: int, text: str, hidden_before: int) -> str:
    """The text of a move as ``viewer`` (a seat, or None for an open view) may see it:
    another seat's Rummikub ``add`` before its commit is ``adds a tile``, and its
    commit says how many tiles it played (``hidden_before``: the adds just before it)."""
    if variant != RUMMIKUB or viewer is None or actor == viewer:
        return text
    if action < RUMMIKUB_COMMIT:
        return "adds a tile to the play being built"
    if action == RUMMIKUB_COMMIT and hidden_before:
        return f"commit ({hidden_before} tile{'s' if hidden_before != 1 else ''} played)"
    return text


def _points(x: Any) -> int | float:
    """A score as JSON shows it: an int when whole, else the fraction (a shared win of
    R-RK-11 can split a part: 20.5)."""
    return int(x) if float(x).is_integer() else float(x)


def hand_result(raw: Any) -> dict | None:
    """The last finished hand explained (public facts only), or None before the first:
    ``{"hand", "title", "lines": [str], "scores": {agent: hand score}, "totals": {...}}``.

    The lines are the winner and how the hand ended, and for Gin Rummy the showdown of
    ``infos`` (R-GIN-11): the knocker's melds and deadwood, the defender's melds,
    lay-offs and deadwood."""
    state = raw.game_state
    last = state.last_hand
    if last is None:
        return None
    players = raw.possible_agents
    winners = last.get("winners", [last["winner"]] if last["winner"] >= 0 else [])
    won = ", ".join(players[q] for q in winners) or "no one"
    how = f" ({last['result']})" if "result" in last else ""
    lines = [f"won by {won}{how}" + (" - cut short by max_turns" if last.get("truncated") else "")]
    info = raw.infos.get(players[0], {}) if raw.infos else {}
    if raw.metadata["name"] == "gin_rummy_v0" and info.get("knocker"):
        lines.append(
            f"{info['knocker']} knocked: melds {info['knocker_melds'] or '-'}, "
            f"deadwood {info['knocker_deadwood']} ({info['knocker_deadwood_cards'] or 'none'})"
        )
        defender = next(a for a in players if a != info["knocker"])
        lines.append(
            f"{defender} lays out: melds {info['defender_melds'] or '-'}, lay-offs {info['layoffs'] or 'none'}, "
            f"deadwood {info['defender_deadwood']} ({info['defender_deadwood_cards'] or 'none'})"
        )
    if last.get("rummy"):
        lines.append("rummy: the whole hand went down in one turn, the score is doubled")
    if "rack_values" in last:
        lines.append("racks left: " + ", ".join(f"{p} {v}" for p, v in zip(players, last["rack_values"], strict=True)))
    return {
        "hand": state.hands_played,
        "title": f"hand {state.hands_played} over",
        "lines": lines,
        "scores": dict(zip(players, [_points(x) for x in last["hand_scores"]], strict=True)),
        "totals": dict(zip(players, [_points(x) for x in last["total_scores"]], strict=True)),
    }


def seat_picture(raw: Any, agent: str, clickable: bool) -> tuple[str, list[str]]:
    """The SVG of ``agent``'s view (``raw.render_svg(agent)``), with click boxes over its
    own cards when ``clickable``, and its hand as strings."""
    seat = raw.agent_name_mapping[agent]
    variant = raw.metadata["name"]
    state = raw.game_state
    svg = str(raw.render_svg(agent))
    hand = _hand_items(state, seat, variant)
    if clickable:
        svg = svg_with_boxes(svg, hand_boxes(state, seat, variant, raw.last_move))
    return svg, hand
