"""A slow opponent (a search agent thinking for seconds) holds no request but its own: the
game's view answers at once and says who is thinking, a quit ends the game at once, the
game's other requests are refused (409) rather than left waiting, and other games go on;
the page that asked for the move says who is choosing it (and no longer once the agent
failed), a second tab waits for it without an error (each time it meets one), and the store
keeps a game whose agent thinks past --max-idle.  The server runs in a thread (uvicorn), so
that requests really overlap; the browser's clock is Playwright's, so that the seconds the page counts are exact."""

import contextlib
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime

import pytest

from experiments.common.records import read_record
from tests.web.conftest import QUICK
from tests.web.gated_agent import NAME, GatedAgent


def start(client, **body):
    # seed 5 (Gin): player_1 deals, so player_0, the gated opponent, opens
    body = {"variant": "gin_rummy", "opponents": [NAME], "seed": 5, "seat": "player_1", **body}
    data = client.post("/api/games", json=body).json()
    return data["id"], {"X-Game-Token": data["token"]}, data["view"]


def advance_in_thread(client, gid, headers):
    """POST advance in a thread; returns (thread, answers): the response lands in answers."""
    answers = []

    def post():
        answers.append(client.post(f"/api/games/{gid}/advance", headers=headers, timeout=60))

    thread = threading.Thread(target=post)
    thread.start()
    assert GatedAgent.started.wait(QUICK)
    return thread, answers


def test_a_thinking_opponent_leaves_its_games_view_and_other_games_answering(served, gated):
    gid, headers, before = start(served)
    other, other_headers, _ = start(served, opponents=["random"], seat="player_0")
    asked = time.monotonic()
    thread, answers = advance_in_thread(served, gid, headers)
    # the game's view answered at once (it waited for the agent's move): the game as it was, and who thinks
    view = served.get(f"/api/games/{gid}", headers=headers).json()
    assert 0 <= view["thinking"]["seconds"] <= round(time.monotonic() - asked, 1)  # counted from the ask
    assert view == {**before, "thinking": {"agent": "player_0", "label": NAME, "seconds": view["thinking"]["seconds"]}}
    busy = (
        f"player_0 ({NAME}) is still choosing its move: ask again once it has moved (the game's view says so "
        "while it thinks: its 'thinking' is null once it has moved)"
    )
    for action, body in [("advance", None), ("hint", None), ("move", {"action": "pass"})]:
        r = served.post(f"/api/games/{gid}/{action}", headers=headers, json=body)
        assert (r.status_code, r.json()) == (409, {"error": busy}), action
    # 45 views at once (pages reloaded, retried: more than the server's 40 worker threads) all
    # answer, none waiting for the move; then the other game answers too
    with ThreadPoolExecutor(45) as pool:
        views = list(pool.map(lambda _: served.get(f"/api/games/{gid}", headers=headers), range(45)))
    assert [r.json() for r in views] == [{**view, "thinking": r.json()["thinking"]} for r in views]
    assert {r.json()["thinking"]["agent"] for r in views} == {"player_0"}
    r = served.post(f"/api/games/{other}/move", headers=other_headers, json={"action": "pass"})
    assert r.status_code == 200 and r.json()["thinking"] is None
    assert not answers  # all the while, the agent was thinking
    gated.gate.set()
    thread.join(QUICK)
    (moved,) = answers
    assert moved.status_code == 200, moved.text
    moved = moved.json()
    assert moved["thinking"] is None and [e["text"] for e in moved["events"]] == ["draw upcard"]
    assert served.get(f"/api/games/{gid}", headers=headers).json() == moved


@pytest.mark.parametrize("fails", [False, True], ids=["moves", "fails"])
def test_a_quit_while_the_opponent_thinks_ends_the_game_at_once(served, gated, tmp_path, capsys, fails):
    # an agent failing after the quit changes nothing of the game either: no 500 saying "the game
    # is as it was", and the log does not call it a failure of a game in play
    gid, headers, _ = start(served)
    thread, answers = advance_in_thread(served, gid, headers)
    quit_view = served.post(f"/api/games/{gid}/quit", headers=headers).json()
    assert (quit_view["status"], quit_view["events"], quit_view["thinking"]) == ("quit", [], None)
    lines = read_record(tmp_path / "play" / quit_view["record"])
    assert [x["type"] for x in lines[1:]] == ["hand", "end"] and lines[-1]["status"] == "quit"
    gated.fails = RuntimeError("no move") if fails else None
    gated.gate.set()
    thread.join(QUICK)
    (late,) = answers
    ended = f"game {gid} ended while player_0 ({NAME}) was choosing its move (it was quit): that move was not played"
    assert (late.status_code, late.json()) == (409, {"error": ended})
    assert served.get(f"/api/games/{gid}", headers=headers).json() == quit_view
    assert read_record(tmp_path / "play" / quit_view["record"]) == lines  # the late move is in no record
    log = [line for line in capsys.readouterr().err.splitlines() if line.startswith("serve:")]
    failed = (
        f"serve: game {gid}: agent {NAME!r} in seat 0 failed to move once the game had ended (it was quit), which "
        "the failure leaves as it was: RuntimeError: no move"
    )
    assert log == ([failed] if fails else [])


def test_a_game_dropped_while_its_opponent_thinks_is_saved_at_once(served, gated, tmp_path):
    gid, headers, _ = start(served)
    second, second_headers, _ = start(served, opponents=["random"])
    thread, answers = advance_in_thread(served, gid, headers)
    assert served.get(f"/api/games/{second}", headers=second_headers).status_code == 200  # the thinking game is older
    # max_games=2: a third game pushes out the thinking one (least recently used) without waiting for its move
    start(served, opponents=["random"])
    said = served.get(f"/api/games/{gid}", headers=headers)
    assert said.status_code == 404
    (saved,) = (tmp_path / "play").iterdir()
    assert said.json()["error"] == (
        f"game {gid} was dropped to make room for a newer game (2 kept at once), before it ended; "
        f"its moves so far were saved as a quit game, play/{saved.name} on the Replays page"
    )
    gated.gate.set()
    thread.join(QUICK)
    (late,) = answers
    dropped = (
        f"game {gid} was dropped to make room for a newer game (2 kept at once) while player_0 "
        f"({NAME}) was choosing its move: that move was not played"
    )
    assert (late.status_code, late.json()) == (409, {"error": dropped})


def test_a_page_reloaded_while_the_opponent_thinks_says_so_and_goes_on_after_its_move(served, gated):
    from experiments.serve.testing import chromium

    url = str(served.base_url).rstrip("/")
    gid, headers, _ = start(served)
    with chromium() as context:
        context.set_default_timeout(20_000)
        page = context.new_page()
        errors = []
        page.on("pageerror", lambda err: errors.append(str(err)))
        page.goto(f"{url}/play")
        page.evaluate("([id, token]) => sessionStorage.setItem(`game:${id}`, token)", [gid, headers["X-Game-Token"]])
        page.goto(f"{url}/play?game={gid}&speed=0")  # the page asks for the opponent's move
        assert gated.started.wait(QUICK)
        page.reload()  # while it thinks: the reloaded page shows who, and asks for no second move
        page.wait_for_function(
            "() => document.querySelector('#status').textContent.startsWith("
            f"'player_0 ({NAME}) is choosing its move… (')"
        )
        assert page.text_content("#error") == ""
        gated.gate.set()  # the move asked before the reload is made; the page goes on from it
        page.wait_for_function("() => document.querySelector('#status').textContent === 'your turn (player_1)'")
        view = served.get(f"/api/games/{gid}", headers=headers).json()
        texts = page.eval_on_selector_all("#events li", "items => items.map(li => li.textContent)")
        assert [e["text"] for e in view["events"]][:1] == ["draw upcard"] and len(view["events"]) == 2
        assert texts == [f"{e['agent']} ({e['who']}): {e['text']}" for e in view["events"]]
        assert page.text_content("#error") == "" and errors == []


def open_game(context, url, gid, headers):
    """A page of the game ``gid`` (its token put in the page's sessionStorage, as the tab that
    started it holds it), at speed 0; returns (page, its script errors)."""
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    page.goto(f"{url}/play")
    page.evaluate("([id, token]) => sessionStorage.setItem(`game:${id}`, token)", [gid, headers["X-Game-Token"]])
    page.goto(f"{url}/play?game={gid}&speed=0")
    return page, errors


def wait_for_status(page, text):
    page.wait_for_function("text => document.querySelector('#status').textContent === text", arg=text)


@contextlib.contextmanager
def paused_game(served):
    """A new game against the gated agent, open in a Chromium page at speed 0 whose clock is
    paused (the page's timers fire when the test runs them): yields ``(context, page, its
    script errors, the game's id, its token headers)``."""
    from experiments.serve.testing import chromium

    url = str(served.base_url).rstrip("/")
    gid, headers, _ = start(served)
    with chromium() as context:
        context.set_default_timeout(20_000)
        context.clock.install(time=datetime(2030, 1, 1))
        context.clock.pause_at(datetime(2030, 1, 2))
        page, errors = open_game(context, url, gid, headers)
        yield context, page, errors, gid, headers


def test_the_page_that_asked_for_the_move_says_who_is_choosing_it_and_for_how_long(served, gated):
    with paused_game(served) as (context, page, errors, _, _):
        wait_for_status(page, f"player_0 ({NAME}) is to move…")
        context.clock.run_for(1)  # the page's pause between moves (speed 0): it asks for the move
        assert gated.started.wait(QUICK)
        context.clock.run_for(400)  # a move that comes within the moment is not said to be chosen
        assert page.text_content("#status") == f"player_0 ({NAME}) is to move…"
        context.clock.run_for(1600)
        assert page.text_content("#status") == f"player_0 ({NAME}) is choosing its move… (2 s)"
        context.clock.run_for(1500)
        assert page.text_content("#status") == f"player_0 ({NAME}) is choosing its move… (3.5 s)"
        gated.gate.set()
        context.clock.resume()
        wait_for_status(page, "your turn (player_1)")
        texts = page.eval_on_selector_all("#events li", "items => items.map(li => li.textContent)")
        assert texts[:1] == [f"player_0 ({NAME}): draw upcard"] and len(texts) == 2
        assert page.text_content("#error") == "" and errors == []


def test_a_second_tab_asking_for_the_move_the_first_asked_for_waits_for_it_without_an_error(served, gated):
    with paused_game(served) as (context, page, errors, gid, headers):
        wait_for_status(page, f"player_0 ({NAME}) is to move…")  # this tab will ask for the move next
        thread, answers = advance_in_thread(served, gid, headers)  # the first tab asks for it before
        context.clock.run_for(1)  # this tab asks: a 409, the opponent still choosing; its view says so
        page.wait_for_function(
            "() => document.querySelector('#status').textContent.startsWith("
            f"'player_0 ({NAME}) is choosing its move… (')"
        )
        assert page.text_content("#error") == ""
        gated.gate.set()
        thread.join(QUICK)
        assert answers[0].status_code == 200
        context.clock.resume()
        wait_for_status(page, "your turn (player_1)")
        assert page.text_content("#error") == "" and errors == []


def test_a_second_tab_meeting_the_first_tabs_move_twice_in_a_row_still_waits_for_it(served, gated):
    # each call of the opponents' loop allowed one stale retry: a second "still choosing" 409
    # in one run of opponent moves (Gin's draw, then its discard) ended the loop without a
    # word, the page left on "is choosing its move… (0.3 s)" with nothing asking again
    choosing = f"'player_0 ({NAME}) is choosing its move… ('"  # the seconds the server counts
    with paused_game(served) as (context, page, errors, gid, headers):
        for move in ("draw upcard", "discard"):
            wait_for_status(page, f"player_0 ({NAME}) is to move…")  # this tab will ask for the move next
            gated.started.clear()
            gated.gate.clear()
            thread, answers = advance_in_thread(served, gid, headers)  # the first tab asks for it before
            context.clock.run_for(1)  # this tab asks: a 409, the opponent still choosing; its view says so
            page.wait_for_function(f"() => document.querySelector('#status').textContent.startsWith({choosing})")
            assert page.text_content("#error") == "", move
            gated.gate.set()
            thread.join(QUICK)
            assert answers[0].status_code == 200, move
            context.clock.run_for(500)  # this tab polls the view: the move is made
        wait_for_status(page, "your turn (player_1)")
        texts = page.eval_on_selector_all("#events li", "items => items.map(li => li.textContent)")
        view = served.get(f"/api/games/{gid}", headers=headers).json()
        assert texts == [f"{e['agent']} ({e['who']}): {e['text']}" for e in view["events"]] and len(texts) == 2
        assert page.text_content("#error") == "" and errors == []


def test_the_page_whose_opponent_fails_says_so_and_no_longer_that_it_is_choosing(served, gated):
    # the page that asked kept "is choosing its move… (2 s)" beside the 500 saying it had failed
    with paused_game(served) as (context, page, errors, gid, headers):
        wait_for_status(page, f"player_0 ({NAME}) is to move…")
        context.clock.run_for(1)  # the page asks for the opponent's move
        assert gated.started.wait(QUICK)
        context.clock.run_for(2000)
        assert page.text_content("#status") == f"player_0 ({NAME}) is choosing its move… (2 s)"
        gated.fails = RuntimeError("no move")
        gated.gate.set()
        failure = (
            f"the server's agent {NAME!r} in seat 0 (player_0) failed to move (RuntimeError); the game is as it was "
            "(the server's log has the agent's message: not shown here, as it may quote that seat's cards)"
        )
        page.wait_for_function("text => document.querySelector('#error').textContent === text", arg=failure)
        assert page.text_content("#status") == f"player_0 ({NAME}) is to move…"
        assert errors == []


def test_the_page_waiting_for_a_move_when_another_tab_quits_shows_the_quit_not_an_error(served, gated):
    # the late move's 409 ("ended while ... was choosing its move (it was quit)") was shown as an
    # error beside "game abandoned", although nothing failed on this page
    with paused_game(served) as (context, page, errors, gid, headers):
        wait_for_status(page, f"player_0 ({NAME}) is to move…")
        context.clock.run_for(1)  # the page asks for the opponent's move
        assert gated.started.wait(QUICK)
        quit_view = served.post(f"/api/games/{gid}/quit", headers=headers).json()  # the other tab
        gated.gate.set()
        context.clock.resume()
        results = ", ".join(
            f"{a} ({quit_view['labels'][a]}) {'+' if r > 0 else ''}{round(r, 3):g}"
            for a, r in quit_view["returns"].items()
        )
        wait_for_status(page, f"game abandoned: {results}")
        assert page.text_content("#error") == "" and errors == []


def think_in_thread(session):
    """``session.advance()`` in a thread, its agent thinking once this returns; returns
    (thread, errors): the ApiError it raised, if any, lands in errors."""
    from experiments.serve.safety import ApiError

    errors = []

    def advance():
        try:
            session.advance()
        except ApiError as err:
            errors.append((err.status, err.message))

    thread = threading.Thread(target=advance)
    thread.start()
    assert GatedAgent.started.wait(QUICK)
    return thread, errors


def test_a_game_whose_agent_thinks_longer_than_max_idle_is_not_dropped_as_idle(gated, tmp_path):
    # its request is open all the while (the asking page polls nothing meanwhile): it was
    # dropped "after 60 s without a request", and its idle time counted from that request
    from experiments.serve.games import GameSession
    from experiments.serve.store import GameStore

    store = GameStore(4, 60)
    session, other = (GameSession("gin_rummy_v0", {}, "player_1", [agent], 5, tmp_path) for agent in (NAME, "random"))
    for s in (session, other):
        store.add(s)
    thread, errors = think_in_thread(session)
    session.touched -= 61  # asked more than --max-idle ago, the agent thinking since
    store.get(other.id, other.token)  # each request drops the idle games
    assert store.get(session.id, session.token) is session and session.status == "playing"
    session.touched -= 61
    gated.gate.set()
    thread.join(QUICK)
    assert errors == [] and [e["text"] for e in session.events] == ["draw upcard"]
    store.get(other.id, other.token)  # idle from the move's end, not from its request
    assert store.get(session.id, session.token) is session and list(tmp_path.iterdir()) == []  # none saved


def test_a_game_dropped_as_the_server_stops_while_its_agent_thinks_says_so(gated, tmp_path):
    from experiments.serve.games import GameSession
    from experiments.serve.store import GameStore

    store = GameStore(4, 60)
    session = GameSession("gin_rummy_v0", {}, "player_1", [NAME], 5, tmp_path)
    store.add(session)
    thread, errors = think_in_thread(session)
    (fate,) = store.close()
    assert fate == (
        f"game {session.id} was dropped when the server stopped, before it ended; its moves so far were saved "
        f"as a quit game, play/{session.record_name} on the Replays page"
    )
    gated.gate.set()
    thread.join(QUICK)
    assert errors == [
        (
            409,
            f"game {session.id} was dropped when the server stopped while player_0 ({NAME}) was choosing its "
            "move: that move was not played",
        )
    ]


def test_quit_clicked_while_the_pages_own_opponent_thinks_ends_the_game_at_once(served, gated):
    # the quit carries the view's version (a 409 from a view the game has passed): the game's
    # version is still that view's while the agent thinks, so the quit is taken at once
    with paused_game(served) as (context, page, errors, gid, headers):
        wait_for_status(page, f"player_0 ({NAME}) is to move…")
        context.clock.run_for(1)  # the page asks for the opponent's move (speed 0)
        assert gated.started.wait(QUICK)
        with page.expect_response(lambda r: r.url.endswith(f"/api/games/{gid}/quit")) as quit:
            page.click("#quit")
        assert (quit.value.status, quit.value.request.post_data_json) == (200, {"version": 0})
        page.wait_for_selector("#game-over")
        with page.expect_response(lambda r: r.url.endswith(f"/api/games/{gid}/advance")) as advanced:
            gated.gate.set()
        assert advanced.value.status == 409  # the move came after the quit: not played
        page.wait_for_timeout(200)
        view = served.get(f"/api/games/{gid}", headers=headers).json()
        assert (view["status"], view["events"]) == ("quit", [])
        assert page.text_content("#status").startswith("game abandoned: ") and page.text_content("#error") == ""
        assert errors == []
