"""Readable text tables of card-game states, from one player's point of view.

The renderers show what the viewing player may see: their own hand, the table,
the discard pile, the stock's size, every hand's size, and the scores.
"""

from __future__ import annotations

from rummy_env.core.cards import cards_of, cards_str


def hand_text(mask: int) -> str:
    """Cards of a bitmask sorted by suit then rank, e.g. ``"AC 5C | 9H | 2S 3S"``."""
    by_suit: dict[int, list[int]] = {}
    for c in cards_of(mask):
        by_suit.setdefault(c // 13, []).append(c)
    return " | ".join(cards_str(cs) for _, cs in sorted(by_suit.items())) or "(empty)"


def render_rummy(state, viewer: int) -> str:
    """Text table of a basic Rummy state as ``viewer`` sees it.

    Args:
        state: a ``games.rummy.RummyState``.
        viewer: seat whose hand is shown.

    Returns:
        a multi-line string.

    Raises:
        ValueError: ``viewer`` is not an int seat ``0..num_players-1`` (the state's
            ``observation``).
    """
    view = state.observation(viewer)
    n = state.num_players
    phase = {0: "draw", 1: "play"}.get(view.phase, "over")
    lines = [
        f"Rummy: hand {state.hands_played + (0 if state.is_terminal() else 1)}, turn {view.turn}, "
        f"dealer player_{state.dealer}, "
        + (f"player_{state.current} to {phase}" if not state.is_terminal() else "episode over"),
        f"  player_{viewer}'s hand: {hand_text(view.hand)}",
    ]
    if view.forbidden >= 0:
        lines.append(f"  may not discard: {cards_str([view.forbidden])} (taken from the discard pile)")
    lines.append("  table melds:" + ("" if len(state.table) else " none"))
    for m in state.table:
        lines.append(f"    {cards_str(m.cards()):<40} (player_{m.owner})")
    top = cards_str([view.top_discard]) if view.top_discard >= 0 else "empty"
    lines.append(f"  discard pile: top {top}, {len(state.discard)} card(s); stock: {view.stock_size} card(s)")
    lines.append(
        "  "
        + "  ".join(f"player_{(viewer + k) % n}: {view.hand_sizes[k]} cards, {view.scores[k]} pts" for k in range(n))
    )
    if state.last_hand is not None and state.is_terminal():
        h = state.last_hand
        who = f"player_{h['winner']}" if h["winner"] >= 0 else "no one"
        lines.append(
            f"  last hand: won by {who}{' (rummy, double)' if h['rummy'] else ''}; hand scores {h['hand_scores']}"
        )
    return "\n".join(lines)


def render_crazy_rummy(state, viewer: int) -> str:
    """Text table of a Crazy Rummy state as ``viewer`` sees it; a wild card on the table
    is shown as ``5C=9S`` (the five of clubs standing for the nine of spades).

    Args:
        state: a ``games.crazy_rummy.CrazyRummyState``.
        viewer: seat whose hand is shown.

    Returns:
        a multi-line string.

    Raises:
        ValueError: ``viewer`` is not an int seat ``0..num_players-1`` (the state's
            ``observation``).
    """
    view = state.observation(viewer)
    n = state.num_players
    phase = {0: "draw", 1: "play"}.get(view.phase, "over")
    ranks = "A23456789TJQK"
    lines = [
        f"Crazy Rummy: round {view.round}, wild rank {ranks[view.wild_rank]}, turn {view.turn}, "
        f"dealer player_{state.dealer}, "
        + (f"player_{state.current} to {phase}" if not state.is_terminal() else "episode over"),
        f"  player_{viewer}'s hand: {hand_text(view.hand)}",
    ]
    if view.forbidden >= 0:
        lines.append(f"  may not discard: {cards_str([view.forbidden])} (taken from the discard pile)")
    if view.must_discard >= 0:
        lines.append(f"  must discard {cards_str([view.must_discard])} unless going out (one-card rule)")
    lines.append("  table melds:" + ("" if len(state.table) else " none"))
    for m in state.table:
        shown = [
            cards_str([w]) + "=" + cards_str([c]) if c in m.wilds else cards_str([c])
            for c, w in ((c, m.wilds.get(c)) for c in m.cards())
        ]
        lines.append(f"    {' '.join(shown):<40} (player_{m.owner})")
    top = cards_str([view.top_discard]) if view.top_discard >= 0 else "empty"
    lines.append(f"  discard pile: top {top}, {len(state.discard)} card(s); stock: {view.stock_size} card(s)")
    lines.append(
        "  "
        + "  ".join(
            f"player_{(viewer + k) % n}: {view.hand_sizes[k]} cards, {view.totals[k]} penalty" for k in range(n)
        )
    )
    if state.last_hand is not None and state.is_terminal():
        lines.append(
            f"  last round's penalties: {_by_seat(state.last_hand['hand_scores'])}"
            + (" (truncated by max_turns)" if state.truncated else "")
        )
    return "\n".join(lines)


def render_gin(state, viewer: int) -> str:
    """Text table of a Gin Rummy state as ``viewer`` sees it.

    Shows the viewer's hand and deadwood, the upcard, the sizes of the discard pile and
    the stock, the cards the opponent is known to hold, the scores and, after a
    showdown, both hands as laid out (R-GIN-06, 08).  Never the opponent's hidden cards.

    Args:
        state: a ``games.gin_rummy.GinRummyState``.
        viewer: seat whose hand is shown.

    Returns:
        a multi-line string.

    Raises:
        ValueError: ``viewer`` is not an int seat ``0..num_players-1`` (the state's
            ``observation``).
    """
    from rummy_env.core.melds import MELDS

    view = state.observation(viewer)
    other = 1 - viewer
    phase = {0: "take or pass the upcard", 1: "draw", 2: "discard"}.get(view.phase, "")
    head = (
        f"Gin Rummy: hand {state.hands_played + (0 if state.is_terminal() else 1)}, turn {view.turn}, "
        f"dealer player_{state.dealer}, knock limit {view.knock_limit}, "
    )
    head += f"player_{state.current} to {phase}" if not state.is_terminal() else "episode over"
    last = state.last_hand
    sd = last["showdown"] if last is not None and state.is_terminal() else None
    # the defender's showdown line counts its deadwood after its lay-offs, the hand's before them
    before = " before laying off" if sd is not None and viewer != last["knocker"] and sd.defender.layoffs else ""
    lines = [head, f"  player_{viewer}'s hand: {hand_text(view.hand)} (deadwood {view.deadwood}{before})"]
    if view.forbidden >= 0:
        lines.append(f"  may not discard: {cards_str([view.forbidden])} (taken from the discard pile)")
    top = cards_str([view.upcard]) if view.upcard >= 0 else "none"
    lines.append(f"  upcard: {top}; discard pile: {len(state.discard)} card(s); stock: {view.stock_size} card(s)")
    if view.opponent_known:
        lines.append(f"  player_{other} is known to hold: {hand_text(view.opponent_known)}")
    lines.append(f"  scores: player_{viewer} {view.scores[0]}, player_{other} {view.scores[1]}")
    if last is not None and state.is_terminal():
        if sd is not None:
            k = last["knocker"]
            melds = " | ".join(cards_str(MELDS[m].cards) for m in sd.knocker_melds) or "none"
            lines.append(
                f"  player_{k} knocked: melds {melds}; deadwood {sd.knocker_deadwood}"
                + (f" ({hand_text(sd.knocker_deadwood_cards)})" if sd.knocker_deadwood_cards else "")
            )
            d = sd.defender
            melds = " | ".join(cards_str(MELDS[m].cards) for m in d.melds) or "none"
            lays = " ".join(cards_str([x.card]) for x in d.layoffs) or "none"
            lines.append(
                f"  player_{1 - k} lays out: melds {melds}; lays off {lays}; deadwood {d.deadwood}"
                + (f" ({hand_text(d.deadwood_cards)})" if d.deadwood_cards else "")
            )
        who = f"player_{last['winner']}" if last["winner"] >= 0 else "no one"
        lines.append(f"  last hand: {last['result']}, won by {who}; hand scores {last['hand_scores']}")
    return "\n".join(lines)


def render_rummikub(state, viewer: int) -> str:
    """Text table of a Rummikub state as ``viewer`` sees it: the table shown as one valid
    arrangement (``core.rummikub_solver.partition``), the viewer's rack and play.

    Args:
        state: a ``games.rummikub.RummikubState``.
        viewer: seat whose rack is shown.

    Returns:
        a multi-line string.

    Raises:
        ValueError: ``viewer`` is not an int seat ``0..num_players-1`` (the state's
            ``observation``).
    """
    from rummy_env.core.rummikub_solver import partition
    from rummy_env.core.tiles import counts_str, tile_str

    view = state.observation(viewer)
    n = state.num_players
    lines = [
        f"Rummikub: turn {view.turn}, "
        + (f"player_{state.current} to play" if not state.is_terminal() else "episode over"),
        f"  player_{viewer}'s rack: {counts_str(view.rack) or '(empty)'}",
    ]
    if view.chosen.any():
        lines.append(f"  play being built: {counts_str(view.chosen)}")
    melds = partition(view.table) or []
    lines.append("  table:" + ("" if melds else " empty"))
    for meld in melds:
        lines.append("    " + " ".join(tile_str(t) for t in meld))
    lines.append(f"  pool: {view.pool_size} tile(s)")
    lines.append(
        "  "
        + "  ".join(
            f"player_{(viewer + k) % n}: {view.rack_sizes[k]} tiles, {view.scores[k]} pts"
            + (", initial meld made" if view.initial_meld[k] else "")
            for k in range(n)
        )
    )
    if state.last_hand is not None and state.is_terminal():
        lines.append(
            f"  last hand's scores: {_by_seat(state.last_hand['hand_scores'])}"
            + (" (truncated by max_turns)" if state.truncated else "")
        )
    return "\n".join(lines)


def _by_seat(values) -> str:
    """``player_0 3, player_1 -3``: per-seat values labelled with the agent names."""
    return ", ".join(f"player_{seat} {value}" for seat, value in enumerate(values))
