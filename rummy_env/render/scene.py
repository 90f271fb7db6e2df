"""The table as one player sees it, as a :class:`~rummy_env.render.shapes.Picture`.

:func:`table_picture` builds the picture of any variant's state from one seat.  The
private part comes only from the engine's view of that seat (``state.observation(
viewer)``: its own hand, the sizes of the other hands, the cards known to be held); the
rest is what every player sees on the table: the melds with their owners and wild cards
(``state.table``), the size of the discard pile, the dealer, and the finished hand's
public facts (``state.last_hand``).  Nothing else of the state is read, so the picture
shows no hidden card (tests/render/test_image.py replays hands with the hidden cards
shuffled and compares the pictures).

The size depends only on the variant and the number of players, so that the frames of
a whole game make a video.  Standard library only (the shapes are rasterised by
``render/image.py`` and written as SVG by ``render/svg.py``).
"""

from __future__ import annotations

from typing import Any

from rummy_env.core.cards import RANKS, card_str, cards_of
from rummy_env.render import shapes as sh
from rummy_env.render.frame import (  # noqa: F401 - the frame's pieces, used here and re-exported
    FOOT_Y,
    HAND_Y,
    HEADER_H,
    HEIGHT,
    MARGIN,
    MID_H,
    MID_Y,
    OPP_H,
    OPP_Y,
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


def table_picture(state: Any, viewer: int, last_move: tuple[int, int] | None = None) -> Picture:
    """The picture of ``state`` as seen by seat ``viewer``.

    Args:
        state: an engine state of any variant (``games.<variant>`` state classes).
        viewer: seat whose view is drawn (its hand face up, other hands face down).
        last_move: ``(seat, action id)`` of the last action applied, or None; shown as
            text (a Rummikub tile another player is adding to an unfinished play stays
            hidden).

    Returns:
        a :class:`Picture` of ``WIDTH`` x ``HEIGHT`` pixels.

    Raises:
        TypeError: ``state`` is not a state of this package's engines.
        ValueError: ``viewer`` is not a seat of the game.
    """
    from rummy_env.games.crazy_rummy import CrazyRummyState
    from rummy_env.games.gin_rummy import GinRummyState
    from rummy_env.games.rummikub import RummikubState
    from rummy_env.games.rummy import RummyState

    if not isinstance(state, (RummikubState, GinRummyState, CrazyRummyState, RummyState)):
        raise TypeError(f"no picture for a {type(state).__name__}: pass an engine state of rummy_env.games")
    if not isinstance(viewer, int) or isinstance(viewer, bool) or not 0 <= viewer < state.num_players:
        raise ValueError(f"viewer={viewer!r} is not a seat: use 0..{state.num_players - 1}")
    if isinstance(state, RummikubState):
        from rummy_env.render.scene_rummikub import rummikub_picture

        return rummikub_picture(state, viewer, last_move)
    if isinstance(state, GinRummyState):
        return _gin_picture(state, viewer, last_move)
    if isinstance(state, CrazyRummyState):
        return _rummy_picture(state, viewer, last_move, crazy=True)
    return _rummy_picture(state, viewer, last_move, crazy=False)


def fan(pic: Picture, cards: list[int], x: float, y: float, size: sh.CardSize, marks: dict | None = None) -> float:
    """Cards in a fan from (x, y); ``marks`` maps a card to a border colour.  Returns the width."""
    marks = marks or {}
    for i, c in enumerate(cards):
        pic.add(*sh.card_face(c, x + i * size.step, y, size, marks.get(c)))
    return size.fan_width(len(cards))


def hand_row(pic: Picture, label: str, cards: list[int], marks: dict, tags: dict | None = None) -> None:
    """The viewer's hand at the bottom, face up; ``tags`` maps a card to a label under it."""
    pic.text(MARGIN, HAND_Y + 8, label, 16)
    size = sh.HAND_CARD
    avail = pic.width - 2 * MARGIN
    if size.fan_width(len(cards)) > avail and len(cards) > 1:
        size = sh.CardSize(size.w, size.h, (avail - size.w) / (len(cards) - 1))
    y = HAND_Y + 22
    fan(pic, cards, MARGIN, y, size, marks)
    for i, c in enumerate(cards):
        tag = (tags or {}).get(c)
        if tag:
            text, colour = tag
            x = MARGIN + i * size.step
            pic.add(sh.Rect(x + 2, y + size.h - 15, min(size.step, size.w) - 4, 13, colour, None, radius=3))
            pic.text(x + min(size.step, size.w) / 2, y + size.h - 8.5, text, 10, sh.BLACK, "m")


def piles(pic: Picture, stock: int, top: int, discard_count: int, y: float = MID_Y) -> None:
    """The stock (face down, its size) and the discard pile (its top card face up)."""
    size = sh.CardSize(50, 70, 0)
    x = MARGIN
    if stock:
        pic.add(*sh.card_back(x + 3, y + 13, size), *sh.card_back(x, y + 10, size))
    else:
        pic.add(sh.Rect(x, y + 10, size.w, size.h, None, sh.MUTED, 1.5, radius=5))
    pic.text(x + size.w / 2, y + size.h + 24, f"stock {stock}", 13, sh.INK, "m")
    x += size.w + 26
    if top >= 0:
        pic.add(*sh.card_face(top, x, y + 10, size))
    else:
        pic.add(sh.Rect(x, y + 10, size.w, size.h, None, sh.MUTED, 1.5, radius=5))
    pic.text(x + size.w / 2, y + size.h + 24, f"discard {discard_count}", 13, sh.INK, "m")


def meld_groups(
    pic: Picture,
    groups: list[tuple[list[int], str, dict, dict]],
    x0: float,
    y0: float,
    width: float,
    height: float,
    size: sh.CardSize = sh.TABLE_CARD,
) -> None:
    """Fans of cards in rows inside a box, each with a small label under it.

    ``groups``: (cards, label, {card: border colour}, {card: card a wild stands for}).
    """
    label_h = 14
    s, places = sh.fit_groups([len(g[0]) for g in groups], width, height, size, 12, label_h)
    for (cards, label, marks, wilds), (dx, dy) in zip(groups, places, strict=True):
        x, y = x0 + dx, y0 + dy
        fan(pic, cards, x, y, s, marks)
        for i, c in enumerate(cards):
            if c in wilds:
                pic.add(*sh.wild_tag(wilds[c], x + i * s.step, y, s))
        if label:
            pic.text(x + 2, y + s.h + 8, label, 11, sh.MUTED)


# -------------------------------------------------------- Rummy, Crazy Rummy
def _rummy_picture(state: Any, viewer: int, last_move: tuple[int, int] | None, crazy: bool) -> Picture:
    view = state.observation(viewer)
    n = state.num_players
    pic = Picture(WIDTH, HEIGHT)
    over = state.is_terminal()
    phase = {0: "draw", 1: "play"}.get(view.phase, "")
    who = "episode over" if over else f"{seat_name(state.current)} to {phase}"
    if crazy:
        wild = RANKS[view.wild_rank]
        title = f"Crazy Rummy · round {view.round} · wild rank {'10' if wild == 'T' else wild}"
        points = view.totals
    else:
        title = f"Rummy · hand {state.hands_played + (0 if over else 1)}"
        points = view.scores
    header(pic, f"{title} · turn {view.turn} · dealer {seat_name(state.dealer)}", who)
    unit = "penalty" if crazy else "pts"
    lines = []
    for k in range(1, n):
        seat = (viewer + k) % n
        melded = " · melded" if view.melded[k] else ""
        lines.append(f"{seat_name(seat)} · {count(view.hand_sizes[k], 'card')} · {points[k]} {unit}{melded}")
    opponent_panels(pic, n, view.acting, lines, list(view.hand_sizes), [cards_of(m) for m in view.known])
    piles(pic, view.stock_size, view.top_discard, len(state.discard))
    groups = []
    for meld in state.table:
        physical = meld.physical()
        wilds = {w: c for c, w in meld.wilds.items()}
        groups.append((physical, seat_name(meld.owner), {w: sh.GOLD for w in wilds}, wilds))
    if crazy:
        pic.text(MARGIN, MID_Y + 128, f"wild: every {'10' if wild == 'T' else wild}", 13, sh.GOLD)
        pic.text(MARGIN, MID_Y + 146, "gold tag: the card", 11, sh.MUTED)
        pic.text(MARGIN, MID_Y + 160, "a wild stands for", 11, sh.MUTED)
    _table_box(pic, "table melds" if groups else "table: no melds yet")
    meld_groups(pic, groups, TABLE_X + 10, MID_Y + 22, WIDTH - TABLE_X - MARGIN - 20, MID_H - 30)
    marks: dict[int, str] = {}
    tags: dict[int, tuple[str, str]] = {}
    notes = []
    if crazy:
        for c in cards_of(view.hand):
            if c % 13 == view.wild_rank:
                marks[c] = sh.GOLD
                tags[c] = ("WILD", sh.GOLD)
    if view.forbidden >= 0:
        marks[view.forbidden] = sh.ALERT
        tags[view.forbidden] = ("taken", sh.ALERT)
        notes.append(f"may not discard {card_str(view.forbidden)}")
    if crazy and view.must_discard >= 0:
        marks[view.must_discard] = sh.ALERT
        tags[view.must_discard] = ("discard", sh.ALERT)
        notes.append(f"must discard {card_str(view.must_discard)} unless going out")
    own = f"{seat_name(viewer)} (this view) · {count(view.hand_sizes[0], 'card')} · {points[0]} {unit}"
    hand_row(pic, own + "".join(f" · {x}" for x in notes), cards_of(view.hand), marks, tags)
    foot = [
        ("penalty totals: " if crazy else "scores: ") + by_seat(viewer, points),
        move_line(state, viewer, last_move),
    ]
    last = state.last_hand
    if last is not None:
        if crazy:
            foot.append(
                f"last round ({last['round']}): penalties "
                + ", ".join(f"{seat_name(q)} {v}" for q, v in enumerate(last["hand_scores"]))
                + (" (cut by max_turns)" if last["truncated"] else "")
            )
        else:
            won = seat_name(last["winner"]) if last["winner"] >= 0 else "no one"
            foot.append(
                f"last hand: won by {won}{' (rummy, double)' if last['rummy'] else ''}; hand scores "
                + ", ".join(f"{seat_name(q)} {v}" for q, v in enumerate(last["hand_scores"]))
            )
    footer(pic, foot)
    return pic


def _table_box(pic: Picture, title: str) -> None:
    pic.add(sh.Rect(TABLE_X, MID_Y, WIDTH - TABLE_X - MARGIN, MID_H, None, sh.MUTED, 1.0, radius=10))
    pic.text(TABLE_X + 10, MID_Y + 11, title, 12, sh.MUTED)


# --------------------------------------------------------------- Gin Rummy
def _gin_picture(state: Any, viewer: int, last_move: tuple[int, int] | None) -> Picture:
    from rummy_env.core.melds import MELDS, RUN

    view = state.observation(viewer)
    other = 1 - viewer
    pic = Picture(WIDTH, HEIGHT)
    over = state.is_terminal()
    phase = {0: "take or pass the upcard", 1: "draw", 2: "discard"}.get(view.phase, "")
    who = "episode over" if over else f"{seat_name(state.current)} to {phase}"
    header(
        pic,
        f"Gin Rummy · hand {state.hands_played + (0 if over else 1)} · turn {view.turn} · "
        f"dealer {seat_name(state.dealer)} · knock limit {view.knock_limit}",
        who,
    )
    showdown = state.showdown if view.knocker >= 0 else None  # public once both hands are laid out
    opp_size = 11 if view.acting == 1 and view.phase == 2 else 10  # 11 between a draw and a discard
    if showdown is not None:
        opp_size = view.opponent_known.bit_count()
    known = [[], cards_of(view.opponent_known)] if showdown is None else [[], []]
    opponent_panels(
        pic,
        2,
        view.acting,
        [
            f"{seat_name(other)} · {count(opp_size, 'card')} · {view.scores[1]} pts"
            + (" · laid out below" if showdown else "")
        ],
        [10, opp_size if showdown is None else 0],
        known,
    )
    piles(pic, view.stock_size, view.upcard, len(state.discard))
    before = ""  # the seat line's deadwood counts before lay-offs; said when the showdown row's does not
    if showdown is None:
        _table_box(pic, "no melds on the table in Gin: they are laid out after a knock")
        if view.opponent_discarded:
            pic.text(TABLE_X + 10, MID_Y + 40, f"{seat_name(other)} discarded this hand:", 13, sh.MUTED)
            meld_groups(pic, [(cards_of(view.opponent_discarded), "", {}, {})], TABLE_X + 10, MID_Y + 56, 760, 90)
    else:
        knocker, sd = showdown
        melds = [list(MELDS[m].cards) for m in sd.knocker_melds]
        laid = {}
        for x in sd.defender.layoffs:
            melds[x.meld].append(x.card)
            laid[x.card] = sh.GREEN_MARK
        for i, m in enumerate(sd.knocker_melds):
            key = (lambda c: c % 13) if MELDS[m].kind == RUN else (lambda c: c // 13)
            melds[i].sort(key=key)
        _table_box(pic, "showdown: both hands laid out (green: laid off on the knocker's melds)")
        dead_k = cards_of(sd.knocker_deadwood_cards)
        dead_d = cards_of(sd.defender.deadwood_cards)
        n_laid = len(sd.defender.layoffs)
        laid_off = f", lays off {n_laid}" if n_laid else ""
        if n_laid and viewer != knocker:
            before = " before laying off"
        rows = [
            (f"{seat_name(knocker)} knocked · deadwood {sd.knocker_deadwood}", melds, dead_k, laid),
            (
                f"{seat_name(1 - knocker)} lays out{laid_off} · deadwood {sd.defender.deadwood}",
                [list(MELDS[m].cards) for m in sd.defender.melds],
                dead_d,
                {},
            ),
        ]
        for r, (label, groups, dead, marks) in enumerate(rows):
            y = MID_Y + 22 + r * 100
            pic.text(TABLE_X + 10, y + 4, label, 13, sh.INK)
            g = [(cards, "meld", marks, {}) for cards in groups]
            if dead:
                g.append((dead, "deadwood", {}, {}))
            meld_groups(pic, g, TABLE_X + 10, y + 14, WIDTH - TABLE_X - MARGIN - 20, 80)
    marks, tags = {}, {}
    if view.forbidden >= 0:
        marks[view.forbidden] = sh.ALERT
        tags[view.forbidden] = ("taken", sh.ALERT)
    own = f"{seat_name(viewer)} (this view) · deadwood {view.deadwood}{before} · {view.scores[0]} pts"
    if view.forbidden >= 0:
        own += f" · may not discard {card_str(view.forbidden)}"
    hand_row(pic, own, cards_of(view.hand), marks, tags)
    foot = [
        "scores: " + by_seat(viewer, view.scores),
        move_line(state, viewer, last_move),
    ]
    last = state.last_hand
    if last is not None:
        won = seat_name(last["winner"]) if last["winner"] >= 0 else "no one"
        foot.append(
            f"last hand: {last['result']}, won by {won}; hand scores "
            + ", ".join(f"{seat_name(q)} {v}" for q, v in enumerate(last["hand_scores"]))
        )
    footer(pic, foot)
    return pic
