"""Every open tab of a game follows it: a view's ``version`` counts the game's changes and is
its ``ETag`` (an unchanged game answers a poll 304, nothing drawn), a move, undo, hint, quit or
ask for an opponent's move made from an older view is refused (409) and changes nothing, and the
Play page polls the view while the game is live (no longer once it ended, nor while its tab
is hidden: at once when shown again), showing another
tab's moves without a reload, keeping a selection while nothing changed, and showing the
game as it is after a stale move's 409.  The browser tests run the server in a thread and
pause the page's clock, as ``test_slow_agents`` does, so that each poll is the test's."""

from datetime import datetime

import pytest

from tests.web.conftest import QUICK, new_game, refused
from tests.web.gated_agent import NAME
from tests.web.test_slow_agents import advance_in_thread, open_game, start, wait_for_status

#: the Play page's FOLLOW_MS: it asks for the game's view this often while it waits on nothing
FOLLOW_MS = 2000


def stale(gid, what, version, now):
    return (
        f"game {gid} has changed since the view this {what} was made from (that view's version {version}, the "
        f"game's {now}: another tab or window played on); nothing was done, the game's view shows it as it is now"
    )


def test_a_views_etag_is_its_version_and_an_unchanged_game_answers_304(client):
    gid, headers, view = new_game(client)  # seed 5: player_0, the human, opens
    assert view["version"] == 0
    r = client.get(f"/api/games/{gid}", headers=headers)
    assert (r.status_code, r.headers["etag"], r.headers["cache-control"], r.json()) == (200, '"0"', "no-store", view)
    for seen in ('"0"', 'W/"0"', '"7", "0"', "*"):
        r = client.get(f"/api/games/{gid}", headers={**headers, "If-None-Match": seen})
        assert (r.status_code, r.content, r.headers["etag"]) == (304, b"", '"0"'), seen
    moved = client.post(f"/api/games/{gid}/move", headers=headers, json={"action": "draw upcard", "version": 0})
    assert moved.json()["version"] == 1
    r = client.get(f"/api/games/{gid}", headers={**headers, "If-None-Match": '"0"'})
    assert (r.status_code, r.headers["etag"], r.json()) == (200, '"1"', moved.json())
    quit_view = client.post(f"/api/games/{gid}/quit", headers=headers).json()
    assert (quit_view["status"], quit_view["version"], len(quit_view["events"])) == ("quit", 2, 1)


def test_a_move_or_an_opponents_move_asked_from_an_older_view_is_refused_and_changes_nothing(client):
    gid, headers, view = new_game(client)
    client.post(f"/api/games/{gid}/move", headers=headers, json={"action": "draw upcard", "version": 0})
    now = client.get(f"/api/games/{gid}", headers=headers).json()
    # legal now, but chosen from the view before the draw (another tab's)
    said = refused(
        client.post(f"/api/games/{gid}/move", headers=headers, json={"action": "discard TC", "version": 0}), 409
    )
    assert said == stale(gid, "move", 0, 1)
    for bad in ("1", True, -1, 1.0):
        said = refused(
            client.post(f"/api/games/{gid}/move", headers=headers, json={"action": "discard TC", "version": bad}), 400
        )
        assert said == f"version {bad!r} is not a view's version (an int >= 0, the view's 'version'), or null"
    # a version the game never had is a client's bug, not another tab's move: no "another tab played on"
    said = refused(
        client.post(f"/api/games/{gid}/move", headers=headers, json={"action": "discard TC", "version": 2}), 400
    )
    assert said == (
        f"version 2 is later than game {gid}'s version 1: no view of the game had it (send the 'version' of "
        "the view the request was made from, or null)"
    )
    assert client.get(f"/api/games/{gid}", headers=headers).json() == now
    client.post(f"/api/games/{gid}/move", headers=headers, json={"action": "discard TC", "version": 1})
    said = refused(client.post(f"/api/games/{gid}/advance", headers=headers, json={"version": 1}), 409)
    assert said == stale(gid, "request for an opponent's move", 1, 2)
    assert client.get(f"/api/games/{gid}", headers=headers).json()["events"] == now["events"] + [
        {"step": 1, "agent": "player_0", "who": "you", "text": "discard TC"}
    ]
    advanced = client.post(f"/api/games/{gid}/advance", headers=headers, json={"version": 2}).json()
    assert (advanced["version"], len(advanced["events"])) == (3, 3)
    # no version: as before, whatever the game's
    assert client.post(f"/api/games/{gid}/advance", headers=headers).json()["version"] == 4


def test_an_undo_asked_from_an_older_view_is_refused(client):
    gid, headers, view = new_game(client, seed=2, variant="rummikub")
    while not view["your_turn"]:
        view = client.post(f"/api/games/{gid}/advance", headers=headers).json()
    hint = client.post(f"/api/games/{gid}/hint", headers=headers).json()
    added = client.post(f"/api/games/{gid}/move", json={"action": hint["action"]}, headers=headers).json()
    said = refused(client.post(f"/api/games/{gid}/undo", headers=headers, json={"version": view["version"]}), 409)
    assert said == stale(gid, "undo", view["version"], added["version"])
    assert client.get(f"/api/games/{gid}", headers=headers).json() == added
    undone = client.post(f"/api/games/{gid}/undo", headers=headers, json={"version": added["version"]}).json()
    assert (undone["can_undo"], undone["version"]) == (False, added["version"] + 1)


def test_a_thinking_games_view_has_no_etag_its_seconds_count(served, gated):
    gid, headers, before = start(served)
    thread, answers = advance_in_thread(served, gid, headers)
    r = served.get(f"/api/games/{gid}", headers={**headers, "If-None-Match": f'"{before["version"]}"'})
    # no-store all the same: it holds the seat's hand as any view does (was sent without it)
    assert (r.status_code, "etag" in r.headers, r.headers.get("cache-control")) == (200, False, "no-store")
    thinking = {"agent": "player_0", "label": NAME, "seconds": r.json()["thinking"]["seconds"]}
    assert r.json() == {**before, "thinking": thinking}
    gated.gate.set()
    thread.join(QUICK)
    assert answers[0].json()["version"] == before["version"] + 1


# ------------------------------------------------------------------ the page
@pytest.fixture
def tabs(served):
    """``open(n, **body)``: a game against ``random`` in which the human (player_0) opens (Gin,
    seed 5, unless ``body`` says otherwise), shown in ``n`` pages of one Chromium context
    whose clock is paused; yields ``open``, which returns ``(context, [(page, its script
    errors)], the game's id, its token headers)``."""
    from experiments.serve.testing import chromium

    url = str(served.base_url).rstrip("/")
    with chromium() as context:
        context.set_default_timeout(20_000)
        context.clock.install(time=datetime(2030, 1, 1))
        context.clock.pause_at(datetime(2030, 1, 2))

        def open_tabs(n, **body):
            gid, headers, _ = start(served, **{"opponents": ["random"], "seat": "player_0", **body})
            pages = [open_game(context, url, gid, headers) for _ in range(n)]
            for page, _ in pages:
                wait_for_status(page, "your turn (player_0)")
            return context, pages, gid, headers

        yield open_tabs


def texts(page, selector):
    return page.eval_on_selector_all(selector, "nodes => nodes.map(n => n.textContent)")


def asks(page, path, method="GET"):
    """``page.expect_response`` of the page's request ``method path`` (a URL's end)."""
    return page.expect_response(lambda r: r.url.endswith(path) and r.request.method == method)


def polled(page, gid, context, ms=FOLLOW_MS):
    """Run the pages' clock ``ms`` and return the status of the view ``page`` asked for."""
    with asks(page, f"/api/games/{gid}") as info:
        context.clock.run_for(ms)
    return info.value.status


def test_a_move_in_one_tab_shows_in_the_other_without_a_reload(tabs, served):
    context, [(a, a_errors), (b, b_errors)], gid, headers = tabs(2)
    b.evaluate("() => { window.notReloaded = true; }")
    b.click('rect.hit[data-card="TC"]')  # a selection being made: a poll of the unchanged game keeps it
    assert b.text_content("#selection") == "selected TC: 0 move(s) use them"
    assert polled(b, gid, context) == 304
    assert b.text_content("#selection") == "selected TC: 0 move(s) use them"
    a.click('#moves button.move:text-is("draw upcard")')
    wait_for_status(a, "your turn (player_0)")
    a.wait_for_function("() => document.querySelectorAll('#events li').length === 1")
    with asks(a, f"/api/games/{gid}") as in_a, asks(b, f"/api/games/{gid}") as in_b:
        context.clock.run_for(FOLLOW_MS)
    # a's own move gave it the game's version; b is behind
    assert (in_a.value.status, in_b.value.status) == (304, 200)
    b.wait_for_function("() => document.querySelectorAll('#events li').length === 1")
    view = served.get(f"/api/games/{gid}", headers=headers).json()
    assert texts(b, "#events li") == ["player_0 (you): draw upcard"]
    assert texts(b, "#moves button.move") == [m["text"] for m in view["moves"]]
    assert b.text_content("#status") == "your turn (player_0)"
    assert b.text_content("#selection") == ""  # the game changed under it
    assert b.evaluate("() => window.notReloaded") is True
    assert b.text_content("#error") == "" and a_errors == [] and b_errors == []


def test_a_move_from_a_stale_tab_gets_the_409_and_the_tab_shows_the_game_as_it_is(tabs, served):
    context, [(b, errors)], gid, headers = tabs(1)
    # another tab (its requests) plays on to the human's next turn, before b's next poll
    for action in ("draw upcard", "discard TC"):
        served.post(f"/api/games/{gid}/move", headers=headers, json={"action": action})
    view = served.get(f"/api/games/{gid}", headers=headers).json()
    while not view["your_turn"]:
        view = served.post(f"/api/games/{gid}/advance", headers=headers).json()
    assert "draw upcard" in [m["text"] for m in view["moves"]]  # legal now too: only the version refuses it
    b.click('#moves button.move:text-is("draw upcard")')
    b.wait_for_function("() => document.querySelectorAll('#events li').length === 4")
    assert b.text_content("#error") == stale(gid, "move", 0, view["version"])
    assert served.get(f"/api/games/{gid}", headers=headers).json() == view  # not played
    assert texts(b, "#events li") == [f"{e['agent']} ({e['who']}): {e['text']}" for e in view["events"]]
    assert texts(b, "#moves button.move") == [m["text"] for m in view["moves"]]
    assert b.text_content("#status") == "your turn (player_0)" and errors == []


def test_a_tab_follows_the_opponents_moves_another_tab_asks_for_and_stops_when_the_game_ends(tabs, served):
    context, [(b, errors)], gid, headers = tabs(1)
    for action in ("draw upcard", "discard TC"):  # another tab's moves; b asks for the opponent's
        served.post(f"/api/games/{gid}/move", headers=headers, json={"action": action})
    assert polled(b, gid, context) == 200
    b.wait_for_function("() => document.querySelectorAll('#events li').length === 2")
    # b now drives the opponent too; the other tab asks first, from the same view: b's ask
    # is a 409 that shows no error, and b goes on from the view after it
    served.post(f"/api/games/{gid}/advance", headers=headers, json={"version": 2})
    with asks(b, f"/api/games/{gid}/advance", "POST") as ask:
        context.clock.run_for(1)  # b's pause between opponents' moves (speed 0): it asks
    assert ask.value.status == 409
    b.wait_for_function("() => document.querySelectorAll('#events li').length === 3")
    assert b.text_content("#error") == ""  # not "game ... has changed since the view ..."
    with asks(b, f"/api/games/{gid}/advance", "POST") as ask:
        context.clock.run_for(1)  # and asks for the opponent's next move, from the view after it
    assert ask.value.status == 200
    wait_for_status(b, "your turn (player_0)")
    view = served.get(f"/api/games/{gid}", headers=headers).json()
    assert texts(b, "#events li") == [f"{e['agent']} ({e['who']}): {e['text']}" for e in view["events"]]
    assert len(view["events"]) == 4 and b.text_content("#error") == ""
    quit_view = served.post(f"/api/games/{gid}/quit", headers=headers).json()
    assert polled(b, gid, context) == 200
    b.wait_for_function("() => document.querySelector('#status').textContent.startsWith('game abandoned: ')")
    asked = []
    b.on("request", lambda r: asked.append(r.url) if r.url.endswith(f"/api/games/{gid}") else None)
    context.clock.run_for(5 * FOLLOW_MS)
    b.wait_for_timeout(200)  # a request the ticks made would be on its way by now
    assert asked == [] and quit_view["status"] == "quit" and errors == []


def test_a_tab_whose_game_was_dropped_says_so_at_its_next_poll(tabs, served):
    context, [(b, errors)], gid, headers = tabs(1)
    for _ in range(2):  # max_games=2: b's game is pushed out
        start(served, opponents=["random"])
    fate = served.get(f"/api/games/{gid}", headers=headers).json()["error"]
    assert polled(b, gid, context) == 404
    b.wait_for_function("text => document.querySelector('#error').textContent.startsWith(text)", arg=fate)
    assert b.is_disabled('#moves button.move:text-is("pass")') and errors == []


def test_a_tab_left_on_a_thinking_view_asks_for_the_whole_view_again(served, gated):
    # the view of an opponent thinking has no ETag: a tab whose poll of it failed (the network)
    # asked with that view's version, and an agent that failed meanwhile left the game at that
    # version: the 304 kept "is choosing its move… (0.5 s)" for good
    from tests.web.test_slow_agents import paused_game

    with paused_game(served) as (context, page, errors, gid, headers):
        wait_for_status(page, f"player_0 ({NAME}) is to move…")
        thread, answers = advance_in_thread(served, gid, headers)  # the other tab asks for the move
        with asks(page, f"/api/games/{gid}/advance", "POST") as ask:
            context.clock.run_for(1)  # this tab asks too: a 409, the opponent still choosing
        assert ask.value.status == 409
        page.wait_for_function(
            f"() => document.querySelector('#status').textContent.startsWith('player_0 ({NAME}) is choosing')"
        )
        page.route(f"**/api/games/{gid}", lambda route: route.abort())
        with page.expect_event("requestfailed", lambda r: r.url.endswith(f"/api/games/{gid}")) as failed:
            context.clock.run_for(500)  # its poll of the thinking view fails: the loop stops
        assert failed.value.failure == "net::ERR_FAILED"
        page.wait_for_function("() => document.querySelector('#error').textContent === 'Failed to fetch'")
        page.unroute(f"**/api/games/{gid}")
        gated.fails = RuntimeError("no move")
        gated.gate.set()
        thread.join(QUICK)
        assert answers[0].status_code == 500  # the game is as it was, its version too
        assert polled(page, gid, context) == 200
        wait_for_status(page, f"player_0 ({NAME}) is to move…")
        assert errors == []


def test_a_change_is_answered_with_the_view_whatever_its_if_none_match(client):
    # an advance's answer went through the GET's ETag check: "If-None-Match: *" (or the new
    # version's tag) got a 304 with no body, the opponent's move made all the same
    gid, headers, view = new_game(client)
    client.post(f"/api/games/{gid}/move", headers=headers, json={"action": "draw upcard", "version": 0})
    client.post(f"/api/games/{gid}/move", headers=headers, json={"action": "discard TC", "version": 1})
    r = client.post(f"/api/games/{gid}/advance", headers={**headers, "If-None-Match": "*"}, json={"version": 2})
    assert (r.status_code, "etag" in r.headers, r.json()["version"]) == (200, False, 3)
    assert r.json() == client.get(f"/api/games/{gid}", headers=headers).json()


def test_a_tab_whose_hint_finds_the_game_moved_on_asks_for_the_opponents_moves(tabs, served):
    # the hint's 409 showed the view in which an opponent is to move, and nothing asked for
    # that move: each poll then answered 304, "player_1 (random) is to move…" for good
    # (another tab played the human's move and was closed before asking for the opponent's)
    context, [(b, errors)], gid, headers = tabs(1)
    for action in ("draw upcard", "discard TC"):
        served.post(f"/api/games/{gid}/move", headers=headers, json={"action": action})
    with asks(b, f"/api/games/{gid}/hint", "POST") as hint:
        b.click("#hint")
    assert hint.value.status == 409
    wait_for_status(b, "player_1 (random) is to move…")
    for made in (3, 4):  # the opponent's draw, then its discard (speed 0: a clock tick each)
        with b.expect_response(lambda r: r.url.endswith(f"/api/games/{gid}/advance"), timeout=5000) as ask:
            context.clock.run_for(1)
        assert ask.value.status == 200
        b.wait_for_function(f"() => document.querySelectorAll('#events li').length === {made}")
    wait_for_status(b, "your turn (player_0)")
    view = served.get(f"/api/games/{gid}", headers=headers).json()
    assert texts(b, "#events li") == [f"{e['agent']} ({e['who']}): {e['text']}" for e in view["events"]]
    assert len(view["events"]) == 4 and b.text_content("#error") == "" and errors == []


def test_a_tab_whose_undo_finds_the_game_moved_on_asks_for_the_opponents_moves(tabs, served):
    # as a hint's 409: a refused undo showed an opponent to move, and nothing asked for its move
    context, [(b, errors)], gid, headers = tabs(1, variant="rummikub", seed=6)
    b.click('#moves button.move:text-is("add R3")')
    b.wait_for_function("() => !document.querySelector('#undo').disabled")
    for path, body in (("undo", {}), ("move", {"action": "draw"})):  # another tab's
        served.post(f"/api/games/{gid}/{path}", headers=headers, json=body)
    with asks(b, f"/api/games/{gid}/undo", "POST") as undo:
        b.click("#undo")
    assert undo.value.status == 409
    wait_for_status(b, "player_1 (random) is to move…")
    for _ in range(200):  # the opponent's moves, a clock tick each (speed 0)
        if b.text_content("#status") == "your turn (player_0)":
            break
        context.clock.run_for(1)
        b.wait_for_timeout(20)
    view = served.get(f"/api/games/{gid}", headers=headers).json()
    assert (b.text_content("#status"), view["your_turn"]) == ("your turn (player_0)", True)
    assert texts(b, "#events li") == [f"{e['agent']} ({e['who']}): {e['text']}" for e in view["events"]]
    assert b.text_content("#error") == "" and errors == []


def test_a_hint_asked_from_an_older_view_is_refused(client):
    # a hint answered for the game as it is, not for the view it was asked from: in Rummikub
    # (another tab added R3) the page showed "the heuristic would play: add R13" beside a view
    # in which it would play add R3
    gid, headers, view = new_game(client, seed=6, variant="rummikub", opponents=["random"])
    assert client.post(f"/api/games/{gid}/hint", headers=headers, json={"version": 0}).json() == {
        "action": 2,
        "text": "add R3",
    }
    added = client.post(f"/api/games/{gid}/move", headers=headers, json={"action": "add R3", "version": 0}).json()
    said = refused(client.post(f"/api/games/{gid}/hint", headers=headers, json={"version": 0}), 409)
    assert said == stale(gid, "hint", 0, 1)
    said = refused(client.post(f"/api/games/{gid}/hint", headers=headers, json={"version": "1"}), 400)
    assert said == "version '1' is not a view's version (an int >= 0, the view's 'version'), or null"
    assert client.post(f"/api/games/{gid}/hint", headers=headers, json={"version": 1}).json()["text"] == "add R13"
    assert client.get(f"/api/games/{gid}", headers=headers).json() == added


def test_a_tab_asks_its_hint_from_its_view(tabs, served):
    context, [(b, errors)], gid, headers = tabs(1, variant="rummikub", seed=6)
    served.post(f"/api/games/{gid}/move", headers=headers, json={"action": "add R3"})  # another tab's
    with asks(b, f"/api/games/{gid}/hint", "POST") as hint:
        b.click("#hint")
    assert hint.value.status == 409
    b.wait_for_function("() => document.querySelectorAll('#events li').length === 1")
    view = served.get(f"/api/games/{gid}", headers=headers).json()
    assert b.text_content("#error") == stale(gid, "hint", 0, 1)
    assert (b.text_content("#hint-text"), texts(b, "#moves button.move")) == ("", ["add R13"])
    assert texts(b, "#moves button.move") == [m["text"] for m in view["moves"]] and errors == []


def test_a_view_answered_late_never_replaces_a_newer_one(tabs, served):
    # the view a refused hint asks for came after a poll's newer one (the other tab had played
    # on meanwhile): the page went back to "player_1 (random) is to move…", a view the game had
    # passed, until a request of its own was refused for it
    context, [(b, errors)], gid, headers = tabs(1)
    for action in ("draw upcard", "discard TC"):  # another tab's: player_1 to move (version 2)
        served.post(f"/api/games/{gid}/move", headers=headers, json={"action": action})
    held = []

    def hold_once(route):  # the hint's 409 asks for the view (no If-None-Match): answered late
        if held or "if-none-match" in route.request.headers:
            route.continue_()
        else:
            held.append((route, route.fetch()))

    b.route(f"**/api/games/{gid}", hold_once)
    with asks(b, f"/api/games/{gid}/hint", "POST") as hint:
        b.click("#hint")
    assert hint.value.status == 409
    for _ in range(250):  # the page's request for the view reaches the route
        if held:
            break
        b.wait_for_timeout(20)
    assert len(held) == 1
    for _ in range(2):  # the other tab asks for the opponent's draw and discard
        view = served.post(f"/api/games/{gid}/advance", headers=headers).json()
    assert (view["version"], view["your_turn"]) == (4, True)
    assert polled(b, gid, context) == 200  # b's poll shows the game as it is
    wait_for_status(b, "your turn (player_0)")
    b.evaluate(
        """() => { window.statuses = [];
        new MutationObserver(() => window.statuses.push(document.querySelector('#status').textContent))
          .observe(document.querySelector('#status'), { childList: true, characterData: true, subtree: true }); }"""
    )
    route, response = held[0]
    with b.expect_response(lambda r: r.url.endswith(f"/api/games/{gid}")):
        route.fulfill(response=response)  # the view of version 2, answered now
    b.wait_for_timeout(300)  # what it would set off (an ask for the opponent's move, refused) is over
    assert b.evaluate("() => window.statuses") == []
    assert texts(b, "#events li") == [f"{e['agent']} ({e['who']}): {e['text']}" for e in view["events"]]
    assert b.text_content("#status") == "your turn (player_0)" and errors == []


# ------------------------------------------------------------- quit and hidden tabs
def test_a_quit_asked_from_an_older_view_is_refused_and_changes_nothing(client):
    gid, headers, view = new_game(client)
    now = client.post(f"/api/games/{gid}/move", headers=headers, json={"action": "draw upcard", "version": 0}).json()
    said = refused(client.post(f"/api/games/{gid}/quit", headers=headers, json={"version": 0}), 409)
    assert said == stale(gid, "quit", 0, 1)
    said = refused(client.post(f"/api/games/{gid}/quit", headers=headers, json={"version": "1"}), 400)
    assert said == "version '1' is not a view's version (an int >= 0, the view's 'version'), or null"
    assert client.get(f"/api/games/{gid}", headers=headers).json() == now  # still played, not quit
    quit_view = client.post(f"/api/games/{gid}/quit", headers=headers, json={"version": 1}).json()
    assert (quit_view["status"], quit_view["version"], len(quit_view["events"])) == ("quit", 2, 1)
    # over already: said so first, whatever the version
    said = refused(client.post(f"/api/games/{gid}/quit", headers=headers, json={"version": 0}), 409)
    assert said == f"game {gid} is over (quit): no more moves"
    # no version: as before, whatever the game's
    other, other_headers, _ = new_game(client)
    client.post(f"/api/games/{other}/move", headers=other_headers, json={"action": "draw upcard"})
    assert client.post(f"/api/games/{other}/quit", headers=other_headers).json()["status"] == "quit"


def test_a_tab_whose_quit_finds_the_game_moved_on_says_so_and_the_game_goes_on(tabs, served):
    context, [(b, errors)], gid, headers = tabs(1)
    served.post(f"/api/games/{gid}/move", headers=headers, json={"action": "draw upcard"})  # another tab's
    with asks(b, f"/api/games/{gid}/quit", "POST") as quit:
        b.click("#quit")
    assert (quit.value.status, quit.value.request.post_data_json) == (409, {"version": 0})
    b.wait_for_function("() => document.querySelectorAll('#events li').length === 1")
    assert b.text_content("#error") == stale(gid, "quit", 0, 1)
    assert (b.text_content("#status"), b.is_enabled("#quit"), b.query_selector("#game-over")) == (
        "your turn (player_0)",
        True,
        None,
    )
    assert served.get(f"/api/games/{gid}", headers=headers).json()["status"] == "playing"
    with asks(b, f"/api/games/{gid}/quit", "POST") as quit:
        b.click("#quit")  # from the view it shows now
    assert (quit.value.status, quit.value.request.post_data_json) == (200, {"version": 1})
    b.wait_for_selector("#game-over")
    assert b.text_content("#status").startswith("game abandoned: ") and b.text_content("#error") == ""
    assert errors == []


def test_a_quit_crossing_the_pages_own_opponents_move_is_asked_again_from_its_view(served, gated):
    # the page's ask for the opponent's move was played just before its quit came: the quit's
    # version was one the page itself had moved past, not another tab's doing, and "game ... has
    # changed since the view this quit was made from" was not what happened
    from tests.web.test_slow_agents import paused_game

    with paused_game(served) as (context, page, errors, gid, headers):
        wait_for_status(page, f"player_0 ({NAME}) is to move…")
        context.clock.run_for(1)  # the page asks for the opponent's move (speed 0)
        assert gated.started.wait(QUICK)
        held, answered = [], []
        page.on("response", lambda r: answered.append(r.status) if r.url.endswith("/quit") else None)
        page.route(f"**/api/games/{gid}/quit", lambda route: route.continue_() if held else held.append(route))
        page.click("#quit")
        for _ in range(250):  # the quit (version 0) reaches the route, and waits there
            if held:
                break
            page.wait_for_timeout(20)
        with asks(page, f"/api/games/{gid}/advance", "POST") as advanced:
            gated.gate.set()  # the opponent's move is played (version 1) before the quit comes
        assert advanced.value.status == 200
        held[0].continue_()
        page.wait_for_selector("#game-over")
        assert (answered, page.text_content("#error")) == ([409, 200], "")
        view = served.get(f"/api/games/{gid}", headers=headers).json()
        assert (view["status"], [e["text"] for e in view["events"]]) == ("quit", ["draw upcard"])
        assert errors == []


def test_a_quit_crossing_the_pages_own_move_is_asked_again_from_its_view(tabs, served):
    # the answer to the page's own move was on its way when Quit was clicked: the quit's version
    # was one the page itself had moved past, and the page said "another tab or window played
    # on", turned Quit back on and went on playing
    context, [(b, errors)], gid, headers = tabs(1)
    held = []
    b.route(f"**/api/games/{gid}/move", lambda route: held.append(route))
    b.click('#moves button.move:text-is("draw upcard")')
    for _ in range(250):  # the move reaches the route, and waits there
        if held:
            break
        b.wait_for_timeout(20)
    played = held[0].fetch()  # the server plays it (version 1); the page has not its answer yet
    assert played.json()["version"] == 1
    with asks(b, f"/api/games/{gid}/quit", "POST") as first:
        b.click("#quit")
    assert (first.value.status, first.value.request.post_data_json) == (409, {"version": 0})
    with asks(b, f"/api/games/{gid}/quit", "POST") as again:
        held[0].fulfill(response=played)
    assert (again.value.status, again.value.request.post_data_json) == (200, {"version": 1})
    b.wait_for_selector("#game-over")
    assert (b.text_content("#error"), b.is_enabled("#quit")) == ("", False)
    view = served.get(f"/api/games/{gid}", headers=headers).json()
    assert (view["status"], [e["text"] for e in view["events"]]) == ("quit", ["draw upcard"])
    assert errors == []


def set_visibility(page, state):
    """Make the page's tab ``state`` (``"hidden"``, ``"visible"``) as the browser would say it."""
    page.evaluate(
        """state => { Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => state });
        document.dispatchEvent(new Event('visibilitychange')); }""",
        state,
    )


def test_a_hidden_tab_does_not_poll_and_polls_at_once_when_shown_again(tabs, served):
    context, [(b, errors)], gid, headers = tabs(1)
    asked = []
    b.on("request", lambda r: asked.append(r.method) if r.url.endswith(f"/api/games/{gid}") else None)
    set_visibility(b, "hidden")
    served.post(f"/api/games/{gid}/move", headers=headers, json={"action": "draw upcard"})  # another tab's
    context.clock.run_for(5 * FOLLOW_MS)
    b.wait_for_timeout(200)  # a request the ticks made would be on its way by now
    assert asked == [] and texts(b, "#events li") == []
    with asks(b, f"/api/games/{gid}") as shown:
        set_visibility(b, "visible")  # no clock run: at once
    assert (shown.value.status, asked) == (200, ["GET"])
    b.wait_for_function("() => document.querySelectorAll('#events li').length === 1")
    context.clock.run_for(FOLLOW_MS - 1)  # the next poll: FOLLOW_MS after that one
    b.wait_for_timeout(200)
    assert asked == ["GET"]
    assert polled(b, gid, context, 1) == 304 and asked == ["GET", "GET"]
    assert b.text_content("#error") == "" and errors == []
