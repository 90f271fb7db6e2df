"""A seat's view in the browser (experiments/serve/table.py, GameSession.view): no hidden
card reaches it (the hidden cards are permuted with ``state.resample`` and the view, JSON
and SVG, stays byte for byte the same), the click boxes sit on the picture's cards, and
the end of a hand is explained exactly."""

import numpy as np
import pytest
from starlette.testclient import TestClient

from experiments.serve.games import GameSession
from experiments.serve.table import event_text, hand_boxes, hand_result, seat_picture, svg_with_boxes
from rummy_env import gin_rummy_v0
from rummy_env.games.gin_rummy import stack_deck
from rummy_env.render.svg import render_svg
from tests.helpers import rummikub_shared_win

CASES = [
    ("gin_rummy_v0", {}, ["heuristic"], 5),
    ("rummy_v0", {"num_players": 3}, ["heuristic", "random"], 1),
    ("crazy_rummy_v0", {}, ["heuristic", "random"], 2),
    ("rummikub_v0", {}, ["heuristic"], 3),  # the opponent builds a play of three tiles first
]


def step(session):
    """One move: the human takes the heuristic's hint, or the next opponent moves."""
    if session.to_act() == session.seat:
        session.move(session.hint()["action"])
    else:
        session.advance()


def views_of_worlds(session, worlds=3):
    """The view with the true state and with ``worlds`` resampled states of the human's
    seat; and whether some world dealt the other seats other cards (their own pictures,
    which show their hands, differ)."""
    raw = session.raw
    true = raw.game_state
    others = [q for q in range(len(raw.possible_agents)) if q != session.human]
    views, differ = [], False
    try:
        for k in range(worlds):
            world = true.resample(session.human, np.random.default_rng(k))
            differ = differ or any(render_svg(world, q) != render_svg(true, q) for q in others)
            raw.game_state = world
            views.append(session.view())
    finally:
        raw.game_state = true
    return session.view(), views, differ


def test_each_view_is_drawn_from_the_state_it_is_asked_for():
    # the permutation tests below swap the state and ask again: a view kept from an earlier
    # request (as one is while an agent thinks) would make them compare a view with itself
    session = GameSession("gin_rummy_v0", {}, "player_0", ["heuristic"], 5, None)
    before = session.view()
    true = session.raw.game_state
    session.raw.game_state = true.resample(1, np.random.default_rng(7))  # as the opponent sees it: new cards for us
    try:
        after = session.view()
    finally:
        session.raw.game_state = true
    hand = seat_picture(session.raw, "player_0", clickable=False)[1]
    assert before["hand"] == hand and after["hand"] != hand and session.view() == before


@pytest.mark.parametrize("variant, options, opponents, seed", CASES, ids=[c[0] for c in CASES])
def test_the_view_does_not_change_when_hidden_cards_are_permuted(variant, options, opponents, seed):
    session = GameSession(variant, options, "player_0", opponents, seed, None)
    differed = 0
    for _ in range(12):
        if session.status != "playing":
            break
        view, world_views, differ = views_of_worlds(session)
        assert all(w == view for w in world_views)
        differed += differ
        step(session)
    assert differed >= 6  # the permutations did change the hidden cards
    if variant == "rummikub_v0":
        assert "adds a tile to the play being built" in [e["text"] for e in session.events]


def test_the_api_answers_the_same_bytes_for_permuted_hidden_cards(make_app):
    app = make_app(save_games=False)
    with TestClient(app) as client:
        made = client.post("/api/games", json={"variant": "rummikub", "opponents": ["heuristic"], "seed": 3}).json()
        headers = {"X-Game-Token": made["token"]}
        session = app.state.games._games[made["id"]]
        for _ in range(2):  # the opponent is adding tiles to a play it has not committed yet
            client.post(f"/api/games/{made['id']}/advance", headers=headers)
        assert session.events[-1]["text"] == "adds a tile to the play being built"
        before = client.get(f"/api/games/{made['id']}", headers=headers).content
        true = session.raw.game_state
        session.raw.game_state = true.resample(0, np.random.default_rng(7))
        assert render_svg(session.raw.game_state, 1) != render_svg(true, 1)
        assert client.get(f"/api/games/{made['id']}", headers=headers).content == before


def stacked_gin():
    env = gin_rummy_v0.env()
    deck = stack_deck(
        ["4D 5D 6D 2C 3C 4C JS QS KS 3H", "7C 7D 7H 7S 8D QH JH 9C 6S 2H"], upcard="AS", stock=["KH"], dealer=1
    )
    env.reset(options={"deck": deck, "dealer": 1})
    return env


def test_click_boxes_cover_the_hands_cards_in_the_picture():
    raw = stacked_gin().unwrapped
    boxes = hand_boxes(raw.game_state, 0, "gin_rummy_v0", None)
    assert [b["card"] for b in boxes] == ["2C", "3C", "4C", "4D", "5D", "6D", "3H", "JS", "QS", "KS"]
    assert [(b["x"], b["y"], b["w"], b["h"]) for b in boxes] == [(16 + 36 * i, 396, 36, 76) for i in range(9)] + [
        (340, 396, 54, 76)
    ]
    svg, hand = seat_picture(raw, "player_0", clickable=True)
    assert hand == [b["card"] for b in boxes]
    assert svg.count('<rect class="hit"') == 10
    assert '<rect class="hit" data-card="KS" x="340.0" y="396.0" width="54.0" height="76.0"' in svg
    plain = str(raw.render_svg("player_0"))
    assert svg_with_boxes(plain, []) == plain
    for b in boxes:  # each box starts at a card face the env drew
        assert f'<rect x="{b["x"]}" y="{b["y"]}" width="54" height="76" fill="#fdfdf8"' in plain


@pytest.mark.parametrize("variant, options, opponents, seed", CASES, ids=[c[0] for c in CASES])
def test_every_variant_has_a_box_per_card_of_the_hand(variant, options, opponents, seed):
    session = GameSession(variant, options, "player_0", opponents, seed, None)
    while session.to_act() != "player_0":
        session.advance()
    view = session.view()
    state = session.raw.game_state
    boxes = hand_boxes(state, 0, variant, session.raw.last_move)
    assert [b["card"] for b in boxes] == view["hand"] and len(view["hand"]) >= 7
    assert view["svg"].count('<rect class="hit"') == len(view["hand"])
    assert all(m["text"].split()[1:] == m["cards"] or set(m["cards"]) <= set(view["hand"]) for m in view["moves"])


def test_the_showdown_is_explained_from_infos():
    env = stacked_gin()
    raw = env.unwrapped
    assert hand_result(raw) is None
    for move in ["pass", "pass", "knock KH"]:
        env.step(raw.string_to_action(move))
    assert hand_result(raw) == {
        "hand": 1,
        "title": "hand 1 over",
        "lines": [
            "won by player_0 (knock)",
            "player_0 knocked: melds 2C 3C 4C | 4D 5D 6D | JS QS KS, deadwood 3 (3H)",
            "player_1 lays out: melds 7C 7H 7S, lay-offs 7D on 4D 5D 6D | 8D on 4D 5D 6D, deadwood 37 (9C 2H JH QH 6S)",
        ],
        "scores": {"player_0": 34, "player_1": 0},
        "totals": {"player_0": 34, "player_1": 0},
    }


def test_a_shared_rummikub_win_shows_its_fractional_scores():
    result = hand_result(rummikub_shared_win().unwrapped)
    assert result["scores"] == result["totals"] == {"player_0": 20.5, "player_1": 20.5, "player_2": -41}
    assert result["lines"][-1] == "racks left: player_0 249, player_1 249, player_2 290"


def test_another_seats_rummikub_tiles_stay_hidden_until_its_commit():
    assert event_text("rummikub_v0", 1, 0, 5, "add R6", 0) == "adds a tile to the play being built"
    assert event_text("rummikub_v0", 1, 0, 53, "commit", 3) == "commit (3 tiles played)"
    assert event_text("rummikub_v0", 1, 0, 54, "draw", 0) == "draw"
    assert event_text("rummikub_v0", 0, 0, 5, "add R6", 0) == "add R6"
    assert event_text("rummikub_v0", 1, None, 5, "add R6", 0) == "add R6"
    assert event_text("gin_rummy_v0", 1, 0, 5, "discard 6C", 0) == "discard 6C"
