"""The pages in a real browser: headless Debian chromium driven by Playwright
(``experiments.serve.testing``), against the server run by uvicorn in a thread.

A whole Gin game is played by clicking (cards in the picture for discards and knocks,
the move buttons otherwise, the heuristic's hint choosing), a Rummikub turn of several
tiles is built by clicking tiles, a replay is stepped to its end with the keys, and the
results page shows the head-to-head heat map of a tournament."""

import csv
import json
import shutil

import pytest

from experiments.common.records import read_record, replay
from experiments.serve.testing import chromium, serve_in_thread
from tests.web.conftest import GIN_RECORD

#: how long a page may take to answer one click (generous: the machine is shared)
WAIT_MS = 20_000


@pytest.fixture(scope="module")
def site(served_folders):
    """``(base URL, browser context, records folder)`` of a server over the test folders."""
    from experiments.serve.app import ServeConfig, create_app

    records, results = served_folders
    app = create_app(ServeConfig(records=records, results=results))
    with serve_in_thread(app) as url, chromium() as context:
        context.set_default_timeout(WAIT_MS)
        yield url, context, records


@pytest.fixture
def page(site):
    url, context, _ = site
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda err: errors.append(str(err)))
    yield page
    page.close()
    assert errors == []


def start_game(page, url, variant, seed):
    page.goto(f"{url}/play?speed=0&variant={variant}")
    page.wait_for_selector("#variant option", state="attached")
    page.fill("#seed", str(seed))
    page.click("#start")
    page.wait_for_selector("#game:not([hidden])")


def wait_for_turn_or_end(page):
    page.wait_for_function(
        "() => document.querySelector('#status').textContent.startsWith('your turn')"
        " || document.querySelector('#game-over') !== null"
    )
    return page.query_selector("#game-over") is None


def events(page):
    return page.eval_on_selector_all("#events li", "items => items.map(li => li.textContent)")


def click_and_wait(page, selector, count):
    """Click ``selector`` and wait until the move list has more than ``count`` moves."""
    page.click(selector)
    page.wait_for_function(f"() => document.querySelectorAll('#events li').length > {count}")


def test_a_whole_gin_game_played_by_clicking(page, site):
    url, _, records = site
    start_game(page, url, "gin_rummy_v0", seed=5)
    mine, clicked_cards = [], 0
    while wait_for_turn_or_end(page):
        page.click("#hint")
        hinted = page.wait_for_selector("#moves button.hinted").text_content()
        count = len(events(page))
        verb, _, card = hinted.partition(" ")
        if verb in ("discard", "knock"):
            buttons = page.eval_on_selector_all("#moves button.move", "b => b.map(x => x.textContent)")
            naming = [b for b in buttons if b.split()[1:] == [card]]
            page.click(f'#table rect.hit[data-card="{card}"]')
            clicked_cards += 1
            if len(naming) > 1:  # "discard X" and "knock X": the click selects X, the button plays
                assert page.get_attribute(f'#table rect.hit[data-card="{card}"]', "class") == "hit selected"
                assert page.locator("#moves button.match").count() == 2
                page.click("#moves button.hinted")
        else:
            page.click("#moves button.hinted")
        page.wait_for_function(f"() => document.querySelectorAll('#events li').length > {count}")
        mine.append(hinted)
    assert clicked_cards >= 3
    over = page.text_content("#game-over")
    assert over.startswith("game over, ")
    assert page.text_content("#result h3") == "hand 1 over"
    name = page.text_content("#record-link")
    lines = read_record(records / name)
    moves = [(x["agent"], x["text"]) for x in lines if x["type"] == "action"]
    assert [t for a, t in moves if a == "player_0"] == mine
    assert [f"{a} ({'you' if a == 'player_0' else 'heuristic'}): {t}" for a, t in moves] == [
        e.split(" — ")[0] for e in events(page)
    ]
    replay(lines)  # the saved game replays (raises RecordMismatch otherwise)
    r0, r1 = lines[-1]["returns"]
    won = "no winner" if r0 == r1 else f"won by {'player_0 (you)' if r0 > r1 else 'player_1 (heuristic)'}"
    assert over == f"game over, {won}: player_0 (you) {r0:+g}, player_1 (heuristic) {r1:+g}"
    assert (r0, r1) in [(1, -1), (-1, 1)]  # a hand won on the stacked deal of seed 5: no "+0"


def test_a_rummikub_turn_of_several_tiles_played_by_clicking(page, site):
    url, _, _ = site
    start_game(page, url, "rummikub_v0", seed=2)
    assert wait_for_turn_or_end(page)
    start = len(events(page))
    played = []
    while True:
        page.click("#hint")
        hinted = page.wait_for_selector("#moves button.hinted").text_content()
        count = len(events(page))
        if not hinted.startswith("add "):
            break
        tile = hinted.split()[1]
        click_and_wait(page, f'#table rect.hit[data-card="{tile}"]', count)
        played.append(tile)
        assert page.locator("#table rect.hit").count() == 14  # the tiles of the play stay on the rack, framed
    assert hinted == "commit" and len(played) >= 3
    assert page.is_visible("#undo") and page.is_enabled("#undo")
    page.click("#undo")  # the last tile goes back to the rack, then is added again
    page.wait_for_function(f"() => document.querySelectorAll('#events li').length === {count - 1}")
    assert events(page)[-1] == f"player_0 (you): add {played[-2]}"
    click_and_wait(page, f'#table rect.hit[data-card="{played[-1]}"]', count - 1)
    page.click("#hint")
    assert page.wait_for_selector("#moves button.hinted").text_content() == "commit"
    click_and_wait(page, "#moves button.hinted", count)
    assert events(page)[start : start + len(played) + 1] == [f"player_0 (you): add {t}" for t in played] + [
        "player_0 (you): commit"
    ]
    assert wait_for_turn_or_end(page)  # the opponent has moved: the rack is the 14 tiles less those played
    assert f"player_0's rack (this view) · {14 - len(played)} tiles" in page.text_content("#table svg")


def test_a_replay_stepped_to_its_end_with_the_keys(page, site):
    url, _, records = site
    lines = read_record(records / GIN_RECORD)
    actions = [x for x in lines if x["type"] == "action"]
    page.goto(f"{url}/replay")
    page.click(f'a.record:text-is("{GIN_RECORD}")')
    page.wait_for_selector("#frames svg")
    assert page.text_content("#step-label") == f"step 0 / {len(actions)}"
    assert page.locator("#frames svg").count() == 2  # all hands open: every seat's view
    page.select_option("#seat", "player_1")
    page.wait_for_function("() => document.querySelectorAll('#frames svg').length === 1")
    for k in range(1, 4):
        page.keyboard.press("ArrowRight")
        page.wait_for_function(f"() => document.querySelector('#step-label').dataset.step === '{k}'")
        assert page.text_content("#move-now") == f"move {k}: {actions[k - 1]['agent']} {actions[k - 1]['text']}"
    page.keyboard.press("End")
    page.wait_for_function(f"() => document.querySelector('#step-label').dataset.step === '{len(actions)}'")
    assert page.text_content("#step-label") == f"step {len(actions)} / {len(actions)} · game over"
    assert page.input_value("#slider") == str(len(actions))
    assert page.text_content("#movelist li.current") == f"{actions[-1]['agent']}: {actions[-1]['text']}"
    env = replay(lines)
    assert page.inner_html("#frames figure svg").count("<rect") == str(env.unwrapped.render_svg("player_1")).count(
        "<rect"
    )


def test_a_record_uploaded_from_the_replays_page_opens_its_replay(page, site):
    """The page sends the file as application/octet-stream, the one type the server takes
    for an upload (another site's page cannot send it without a CORS preflight)."""
    url, _, records = site
    actions = [x for x in read_record(records / GIN_RECORD) if x["type"] == "action"]
    page.goto(f"{url}/replay")
    page.set_input_files("#upload-file", str(records / GIN_RECORD))
    page.click("#upload")
    page.wait_for_selector("#frames svg")
    assert page.text_content("#title") == f"uploaded: {(records / GIN_RECORD).name}"
    assert page.text_content("#step-label") == f"step 0 / {len(actions)}"
    assert page.url.startswith(f"{url}/replay?upload=")


def test_the_results_page_shows_the_head_to_head_heat_map(page, site, served_folders):
    url, _, _ = site
    _, results = served_folders
    page.goto(f"{url}/results")
    page.click('a.run:has-text("tournament: gin_rummy_v0")')
    page.wait_for_selector('table.heat[data-variant="gin_rummy_v0"]')
    with open(results / "tour" / "head_to_head.csv", newline="") as f:
        cells = list(csv.DictReader(f))
    assert len(cells) == 2
    for c in cells:
        cell = page.locator(f'td.cell[data-agent="{c["agent"]}"][data-opponent="{c["opponent"]}"]')
        assert cell.text_content() == f"{float(c['win_rate']):.3f}"
        assert cell.get_attribute("style").startswith("background: rgb(")
    assert page.locator("table.heat td.empty").count() == 2  # an agent against itself
    link = page.locator('td.cell[data-agent="heuristic"][data-opponent="random"] a')
    # the tournament's own records only: not games/gin-heuristic-random.jsonl, a game of the same pair
    assert link.get_attribute("href") == "/replay?variant=gin_rummy_v0&agent=heuristic&agent=random&folder=tour"
    assert page.eval_on_selector_all("table.summary a", "a => a.map(x => x.getAttribute('href'))") == [
        f"/replay?variant=gin_rummy_v0&agent={a}&folder=tour" for a in ("heuristic", "random")
    ]
    assert page.eval_on_selector_all("table.games a.record", "a => a.map(x => x.textContent)") == [
        f"tour/gin_rummy_v0-random-heuristic-deal0-rot{r}.jsonl" for r in (0, 1)
    ]
    link.click()
    page.wait_for_selector("a.record")
    assert page.text_content("#filter") == "records of gin_rummy_v0, heuristic, random, in tour/ (all records)"
    assert sorted(page.eval_on_selector_all("a.record", "a => a.map(x => x.textContent)")) == [
        "tour/gin_rummy_v0-random-heuristic-deal0-rot0.jsonl",
        "tour/gin_rummy_v0-random-heuristic-deal0-rot1.jsonl",
    ]


def test_an_evaluation_links_no_replays_it_never_recorded(page, site, served_folders):
    url, _, _ = site
    _, results = served_folders
    row = {"opponent": "random", "games": 4, "deals": 2, "wins": 3, "draws": 0, "win_rate": 0.75}
    row |= {"win_rate_ci_low": 0.3, "win_rate_ci_high": 0.95, "points_per_hand": 9.5, "opponent_points_per_hand": 2}
    older = {**row, "opponent": "heuristic"}  # written before the margin fields
    row |= {"points_margin": 7.5, "points_margin_ci_low": 6.3, "points_margin_ci_high": 8.7}
    evaluation = {"agent": "heuristic", "variant": "gin_rummy_v0", "games": 4, "deals": 2, "rows": [row, older]}
    (results / "eval").mkdir(exist_ok=True)
    (results / "eval" / "evaluation.json").write_text(json.dumps(evaluation))
    try:
        page.goto(f"{url}/results?run=eval/evaluation.json")
        page.wait_for_selector("table.evaluation")
        margins = page.locator("table.evaluation tr td:last-child").all_text_contents()
        assert margins == ["+7.50±1.20", "-"]
        assert page.locator("#run a[href^='/replay']").count() == 0  # the heuristic's games of other jobs, not these
        assert page.text_content("#run p.muted") == (
            "an evaluation records no games (python -m experiments.tournament --record DIR does)"
        )
    finally:  # the served folders are the session's: the other tests' run lists stay as they were
        shutil.rmtree(results / "eval")


def test_a_seed_past_javascripts_exact_integers_is_refused_as_typed(page, site):
    url, _, _ = site
    for typed in ["9007199254740993", "18446744073709551617"]:  # Number() would round them both
        page.goto(f"{url}/play?speed=0&variant=gin_rummy_v0")
        page.wait_for_selector("#variant option", state="attached")
        page.fill("#seed", typed)
        page.click("#start")
        page.wait_for_function("() => document.querySelector('#error').textContent !== ''")
        assert page.text_content("#error") == f"seed {typed} is not an int in 0..2**53-1 (or null for a random one)"
        assert page.is_visible("#setup") and not page.is_visible("#game")
    page.fill("#seed", "0005")  # leading zeros are no JSON number: the page sends 5
    page.click("#start")
    page.wait_for_selector("#game:not([hidden])")
    assert page.text_content("#error") == ""


def test_a_link_to_a_game_this_tab_cannot_show_says_why(page, site):
    url, _, _ = site
    page.goto(f"{url}/play?game=AAAAAAAAAAAAAAAA")  # no token in this tab: started elsewhere
    page.wait_for_function("() => document.querySelector('#error').textContent !== ''")
    assert page.text_content("#error") == (
        "game AAAAAAAAAAAAAAAA cannot be shown in this tab: it was started in another tab or browser session, "
        "which alone holds its key. Go back to that tab, or start a new game below "
        "(a game is saved on the Replays page when it ends or is dropped)."
    )
    assert page.is_visible("#setup") and not page.is_visible("#game")
    page.evaluate("sessionStorage.setItem('game:BBBBBBBBBBBBBBBB', 'x'.repeat(32))")  # a token of a game gone
    page.goto(f"{url}/play?game=BBBBBBBBBBBBBBBB")
    page.wait_for_function("() => document.querySelector('#error').textContent !== ''")
    assert page.text_content("#error") == (
        "no game 'BBBBBBBBBBBBBBBB': it was never started here, or it was dropped "
        "(idle over 7200 s, or 64 newer games). Start a new game below."
    )
    assert page.is_visible("#setup")


def test_a_narrow_window_stacks_the_page_and_the_cards_are_named_buttons(site):
    url, context, _ = site
    page = context.new_page()
    try:
        page.set_viewport_size({"width": 420, "height": 800})
        start_game(page, url, "gin_rummy_v0", seed=5)
        assert wait_for_turn_or_end(page)
        # one column below 900 px: the picture takes the window's width, not a 105 px sliver
        assert page.locator("#table svg").bounding_box()["width"] > 360
        view = page.evaluate("view")
        assert page.text_content("#hand-text") == "your hand: " + " ".join(view["hand"])
        attrs = "['role', 'tabindex', 'aria-label'].map(a => x.getAttribute(a)).concat([x.dataset.card])"
        cards = page.eval_on_selector_all("#table rect.hit", f"r => r.map(x => {attrs})")
        assert cards and all(c[:3] == ["button", "0", c[3]] for c in cards)
        page.focus("#moves button.move")
        for _ in range(2):  # a draw (still this seat's turn), then a discard (the opponent's turn between)
            count = len(events(page))
            page.keyboard.press("Enter")  # the first move, played from the keyboard
            page.wait_for_function(f"() => document.querySelectorAll('#events li').length > {count}")
            assert wait_for_turn_or_end(page)
            # after the redraws the focus is on the new moves, not lost to the page's body
            page.wait_for_function("() => document.activeElement.classList.contains('move')")
        assert events(page)[-1].startswith("player_1 (heuristic): ")
        assert page.get_attribute("#status", "aria-live") == "polite"
    finally:
        page.close()


def test_quit_clicked_twice_and_a_dropped_game_say_what_happened(page, site, served_folders):
    from experiments.serve.app import ServeConfig, create_app

    url, _, _ = site
    start_game(page, url, "gin_rummy_v0", seed=5)
    assert wait_for_turn_or_end(page)
    page.dblclick("#quit")
    page.wait_for_selector("#game-over")
    assert page.text_content("#game-over").startswith("game abandoned: player_0 (you) ")
    assert page.text_content("#error") == ""  # the second click sent nothing: no "game is over (quit)"
    # a game dropped while idle: its controls go off and the error links its record
    records, results = served_folders
    app = create_app(ServeConfig(records=records, results=results, max_idle=0.5))
    with serve_in_thread(app) as idle_url:
        start_game(page, idle_url, "gin_rummy_v0", seed=5)
        assert wait_for_turn_or_end(page)
        page.wait_for_timeout(1500)
        page.click("#moves button.move")
        page.wait_for_selector("#gone-record")
        assert " was dropped " in page.text_content("#error")
        record = page.get_attribute("#gone-record", "href")
        assert record.startswith("/replay?record=play%2F") and record.endswith(".jsonl")
        assert page.eval_on_selector_all("#moves button, #hint, #quit", "b => b.every(x => x.disabled)")


def test_a_tab_left_behind_by_another_reloads_its_view_after_a_refused_move(page, site):
    url, context, _ = site
    start_game(page, url, "gin_rummy_v0", seed=5)
    assert wait_for_turn_or_end(page)
    game_id = page.evaluate("game.id")
    token = page.evaluate(f"sessionStorage.getItem('game:{game_id}')")
    other = context.new_page()  # a duplicated tab: the same game key in its sessionStorage
    try:
        other.goto(f"{url}/play")
        other.evaluate(f"sessionStorage.setItem('game:{game_id}', '{token}')")
        other.goto(f"{url}/play?game={game_id}&speed=0")
        assert wait_for_turn_or_end(other)
        stale = other.eval_on_selector_all("#moves button.move", "b => b.map(x => x.textContent)")
        click_and_wait(page, "#moves button.move", len(events(page)))  # the first tab moves on
        assert wait_for_turn_or_end(page)
        # the second tab's buttons are stale: a click is refused (422) and its view reloaded
        other.click(f'#moves button.move:has-text("{stale[-1]}")')
        other.wait_for_function(f"() => document.querySelectorAll('#events li').length >= {len(events(page))}")
        assert other.text_content("#error") != "" and events(other) == events(page)
    finally:
        other.close()


def test_a_quit_that_fails_leaves_the_game_playable_and_a_late_hint_is_dropped(page, site):
    url, _, _ = site
    start_game(page, url, "gin_rummy_v0", seed=5)
    assert wait_for_turn_or_end(page)
    page.route("**/quit", lambda route: route.abort())  # the request never reaches the server
    page.click("#quit")
    page.wait_for_function("() => document.querySelector('#error').textContent !== ''")
    assert page.is_enabled("#quit") and page.query_selector("#game-over") is None
    page.unroute("**/quit")
    # a hint answered after a move was made belongs to the decision before: not shown
    page.evaluate(
        """() => { const fetch0 = window.fetch;
        window.fetch = async (url, init) => { const r = await fetch0(url, init);
          if (String(url).endsWith('/hint')) await new Promise((ok) => setTimeout(ok, 600));
          return r; }; }"""
    )
    page.click("#hint")
    click_and_wait(page, "#moves button.move", len(events(page)))  # the game goes on after the failed quit
    page.wait_for_timeout(1200)
    assert page.text_content("#hint-text") == ""
