"""experiments.serve's JSON API: every refusal (bad ids, tokens, path tricks, uploads,
records, moves, agents, options) answers a 4xx JSON error and changes nothing; games are
bounded, independent and replayable."""

import json
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from starlette.testclient import TestClient

import rummy_env
from experiments.common.records import read_record, replay
from experiments.serve.safety import builtin_agents
from tests.web.conftest import new_game, play_out, refused


# ------------------------------------------------------------------- games
def test_unknown_and_malformed_game_ids_are_404(client):
    _, headers, _ = new_game(client)
    for gid in ["AAAAAAAAAAAAAAAA", "x" * 200, "a b", "abc.defgh"]:
        refused(client.get(f"/api/games/{gid}", headers=headers), 404, "no game")
        refused(client.post(f"/api/games/{gid}/advance", headers=headers), 404, "no game")
    # an encoded path leaves the game routes: the router's own 404, as JSON
    refused(client.get("/api/games/..%2F..%2Fetc", headers=headers), 404, "Not Found")


def test_a_game_is_only_its_token_holders(client):
    gid, headers, view = new_game(client)
    refused(client.get(f"/api/games/{gid}"), 403, "not yours")
    refused(client.post(f"/api/games/{gid}/move", json={"action": 106}, headers={"X-Game-Token": "x" * 32}), 403)
    assert client.get(f"/api/games/{gid}", headers=headers).json() == view


def test_illegal_moves_are_refused_and_change_nothing(client):
    gid, headers, view = new_game(client)
    assert [m["text"] for m in view["moves"]] == ["draw upcard", "pass"]
    cases = [
        ({"action": 0}, 422, "'discard AC' is not legal now: legal moves are draw upcard, pass"),
        ({"action": "knock AC"}, 422, "not legal now"),
        ({"action": "fly away"}, 400, "not a move of gin_rummy_v0"),
        ({"action": 108}, 400, "not an action id 0..107"),
        ({"action": -1}, 400, "not an action id"),
        ({"action": True}, 400, "not an action id"),
        ({"action": [106]}, 400, "not an action id"),
        ({}, 400, "a move needs 'action'"),
    ]
    for body, status, words in cases:
        refused(client.post(f"/api/games/{gid}/move", json=body, headers=headers), status, words)
    refused(client.post(f"/api/games/{gid}/move", content=b"{not json", headers=headers), 400, "not JSON")
    refused(client.post(f"/api/games/{gid}/move", content=b"[106]", headers=headers), 400, "JSON object")
    assert client.get(f"/api/games/{gid}", headers=headers).json() == view


def test_moves_out_of_turn_and_after_the_end_are_409(client):
    gid, headers, view = new_game(client)
    refused(client.post(f"/api/games/{gid}/advance", headers=headers), 409, "it is your turn")
    view = client.post(f"/api/games/{gid}/move", json={"action": "pass"}, headers=headers).json()
    assert view["to_act"] == "player_1" and view["moves"] == []
    refused(client.post(f"/api/games/{gid}/move", json={"action": "pass"}, headers=headers), 409, "not your turn")
    refused(client.post(f"/api/games/{gid}/hint", headers=headers), 409, "not your turn")
    assert client.get(f"/api/games/{gid}", headers=headers).json() == view
    over = play_out(client, gid, headers, view)
    assert over["status"] == "over" and over["to_act"] is None
    for path, body in [("move", {"action": "pass"}), ("advance", None), ("hint", None), ("quit", None)]:
        said = refused(client.post(f"/api/games/{gid}/{path}", json=body, headers=headers), 409)
        assert said == f"game {gid} is over: no more moves"
    assert client.get(f"/api/games/{gid}", headers=headers).json() == over


def test_agents_are_the_servers_list_never_an_import_or_a_file(client, make_app):
    assert client.get("/api/config").json()["variants"]["gin_rummy_v0"]["agents"] == builtin_agents("gin_rummy_v0")
    for name in [
        "agents.random_agent:RandomAgent",
        "experiments.serve.app:create_app",
        "policy:/etc/passwd",
        "policy:docs/results/sb3-gin/model.zip",
        "rllib:/tmp",
        "pimc",
        "../heuristic",
        "",
        7,
        None,
    ]:
        refused(client.post("/api/games", json={"variant": "gin_rummy", "opponents": [name]}), 400, "is not offered")
    # the server's own --agents are offered, exactly as given
    with TestClient(make_app(agents=("agents.random_agent:RandomAgent",), save_games=False)) as c:
        assert "agents.random_agent:RandomAgent" in c.get("/api/config").json()["variants"]["rummy_v0"]["agents"]
        r = c.post("/api/games", json={"variant": "rummy", "opponents": ["agents.random_agent:RandomAgent"]})
        assert r.status_code == 200 and r.json()["view"]["labels"]["player_1"] == "agents.random_agent:RandomAgent"
        refused(c.post("/api/games", json={"variant": "rummy", "opponents": ["agents.random_agent:Other"]}), 400)
    with pytest.raises(
        ValueError, match="^--agents 'nowhere.module:Agent' plays no variant: rummy_v0: .*; rummikub_v0: "
    ):
        make_app(agents=("nowhere.module:Agent",))
    with pytest.raises(ValueError) as err:
        make_app(agents=("bogus",))
    assert str(err.value).startswith(
        "--agents 'bogus' plays no variant: unknown agent 'bogus' for rummy_v0: known agents are random, heuristic, "
        "champion, heuristic:style=NAME (go_rummy, defensive, shed_high), ismcts:... or pimc:..."
    )
    assert str(err.value).endswith(
        "(and likewise for crazy_rummy_v0, gin_rummy_v0, rummikub_v0, with their own heuristic styles)"
    )


def test_bad_variants_options_seats_and_seeds_are_400(client):
    cases = [
        ({"variant": "poker"}, "variant 'poker' is unknown"),
        ({"options": {"render_mode": "human"}}, "'render_mode' is not an option of gin_rummy_v0"),
        ({"options": {"knock_limit": {"x": 1}}}, "values are integers, true/false, strings or null"),
        ({"options": {"max_turns": 5.0}}, "option max_turns=5.0: values are integers"),
        ({"opponents": [7]}, "agent of type int is not offered"),
        ({"options": {"knock_limit": -1}}, "options refused by gin_rummy_v0"),
        ({"options": {"max_turns": 10**400}}, "max_turns must be an int from 1 to 1000000000"),
        ({"options": [1]}, "options must be an object"),
        ({"seat": "player_7"}, "seat 'player_7' is not a seat"),
        ({"opponents": ["heuristic", "random"]}, "2 opponent(s) for 1 other seat(s)"),
        ({"opponents": "heuristic"}, "opponents must be a list"),
        ({"opponents": []}, "0 opponent(s) for 1 other seat(s)"),
        ({"variant": "rummikub", "options": {"num_players": 1}, "opponents": []}, "options refused by rummikub_v0"),
        ({"seed": -1}, "seed -1 is not an int"),
        ({"seed": "7"}, "is not an int"),
    ]
    base = {"variant": "gin_rummy", "opponents": ["heuristic"]}
    for body, words in cases:
        refused(client.post("/api/games", json={**base, **body}), 400, words)
    digits = b'{"variant": "gin_rummy", "opponents": ["random"], "seed": ' + b"9" * 5000 + b"}"  # valid JSON
    json_type = {"Content-Type": "application/json"}
    refused(
        client.post("/api/games", content=digits, headers=json_type),
        400,
        "an integer of over 4,300 digits, which no field takes",
    )
    said = refused(client.post("/api/games", content=b"x" * 70_000), 413)
    assert said == "the request body is larger than 64,000 bytes (got at least 70,000)"  # a move, not a record


def test_a_random_seed_is_too_large_to_find_from_the_hand(client, monkeypatch):
    # the hand and the upcard single out a seed among 2**31 in some core-hours of trying
    # deals, and the seed gives the opponent's hand and the stock: seeds go up to 2**53 - 1
    from experiments.serve import app as app_module

    bounds = []
    monkeypatch.setattr(app_module.secrets, "randbelow", lambda n: bounds.append(n) or n - 1)
    gid, headers, view = new_game(client, seed=None)
    assert bounds == [2**53]
    assert client.app.state.games._games[gid].seed == 2**53 - 1
    assert play_out(client, gid, headers, view)["status"] == "over"  # the agents take such seeds
    gid, headers, view = new_game(client, seed=2**53 - 1)  # as the form sends it: a JavaScript number
    refused(
        client.post("/api/games", json={"variant": "gin_rummy", "opponents": ["random"], "seed": 2**53}),
        400,
        "seed 9007199254740992 is not an int in 0..2**53-1 (or null for a random one)",
    )


def test_a_new_game_is_json_so_another_website_cannot_start_games_here(client):
    # a form or text/plain POST needs no CORS preflight: any page the user visits could start
    # games on this server (127.0.0.1 is the user's own), pushing the user's game out
    body = json.dumps({"variant": "gin_rummy", "opponents": ["random"], "seed": 1})
    for media, named in [
        ("text/plain", "'text/plain'"),
        ("application/x-www-form-urlencoded", "'application/x-www-form-urlencoded'"),
        ("multipart/form-data; boundary=x", "'multipart/form-data'"),
        (None, "none"),
    ]:
        headers = {} if media is None else {"Content-Type": media}
        said = refused(client.post("/api/games", content=body, headers=headers), 415)
        assert said == (
            "a new game's request body must be sent as Content-Type: application/json (as the Play page sends it), "
            f"got {named}"
        )
    assert len(client.app.state.games) == 0
    made = client.post("/api/games", content=body, headers={"Content-Type": "Application/JSON; charset=utf-8"})
    assert made.status_code == 200 and len(client.app.state.games) == 1


def test_every_choice_the_play_form_offers_is_accepted(client):
    choices = client.get("/api/config").json()["choices"]
    assert choices["reshuffle"] == ["keep_top", "whole_pile"]  # R-RUMMY-12's readings
    for key, values in choices.items():
        for value in values:
            body = {"variant": "rummy", "opponents": ["random"], "seed": 1, "options": {key: value}}
            response = client.post("/api/games", json=body)
            assert response.status_code == 200 and response.json()["view"]["options"] == {key: value}, response.text


def test_options_and_seats_are_used(client):
    body = {"variant": "rummy", "options": {"num_players": 3}, "opponents": ["random", "heuristic"], "seat": "player_2"}
    view = client.post("/api/games", json={**body, "seed": 1}).json()["view"]
    assert view["players"] == ["player_0", "player_1", "player_2"]
    assert view["labels"] == {"player_2": "you", "player_0": "random", "player_1": "heuristic"}
    assert view["options"] == {"num_players": 3}


# ------------------------------------------------------- several games
def test_the_store_is_bounded_in_count_and_age(make_app):
    app = make_app(max_games=2, save_games=False)
    with TestClient(app) as c:
        first = new_game(c, seed=1)
        second = new_game(c, seed=2)
        third = new_game(c, seed=3)
        refused(c.get(f"/api/games/{first[0]}", headers=first[1]), 404, "dropped")
        for gid, headers, view in (second, third):
            assert c.get(f"/api/games/{gid}", headers=headers).json() == view
        assert len(app.state.games) == 2
        app.state.games.max_idle = 60.0
        app.state.games._games[second[0]].touched = time.monotonic() - 61.0
        refused(c.get(f"/api/games/{second[0]}", headers=second[1]), 404, "dropped after 60 s without a request")
        assert c.get(f"/api/games/{third[0]}", headers=third[1]).status_code == 200


def test_the_games_still_played_when_the_server_stops_are_saved_as_quit(make_app, tmp_path, capsys):
    app = make_app(records=tmp_path)
    with TestClient(app) as c:
        gid, headers, view = new_game(c, seed=7)
        moves = []
        while len(moves) < 3:
            if view["your_turn"]:
                hint = c.post(f"/api/games/{gid}/hint", headers=headers).json()
                view = c.post(f"/api/games/{gid}/move", headers=headers, json={"action": hint["action"]}).json()
            else:
                view = c.post(f"/api/games/{gid}/advance", headers=headers).json()
            moves = view["events"]
        quit_id, quit_headers, _ = new_game(c, seed=8)
        assert c.post(f"/api/games/{quit_id}/quit", headers=quit_headers).status_code == 200
        (quit_record,) = [p.name for p in (tmp_path / "play").iterdir()]  # the quit game's, saved at once
    # the stop (the lifespan's end, as uvicorn's on Ctrl-C) saved the game in play, not the quit one again
    saved = sorted(p.name for p in (tmp_path / "play").iterdir())
    assert len(saved) == 2 and quit_record in saved
    name = next(n for n in saved if n != quit_record)
    lines = read_record(tmp_path / "play" / name)
    assert lines[-1]["type"] == "end" and lines[-1]["status"] == "quit"
    assert [x["text"] for x in lines if x["type"] == "action"] == [e["text"] for e in moves]
    replay(lines)
    assert capsys.readouterr().err == (
        f"serve: game {gid} was dropped when the server stopped, before it ended; "
        f"its moves so far were saved as a quit game, play/{name} on the Replays page\n"
    )


def test_concurrent_games_are_independent_and_replayable(make_app, served_folders):
    records, _ = served_folders
    app = make_app()
    seeds = [11, 12, 13, 14]
    with TestClient(app) as c:  # one server (its stop saves the games still open), four players at once

        def one(seed):
            gid, headers, view = new_game(c, seed=seed)
            return play_out(c, gid, headers, view)

        with ThreadPoolExecutor(4) as pool:
            together = list(pool.map(one, seeds))
        alone = [one(seed) for seed in seeds]
    assert [v["events"] for v in together] == [v["events"] for v in alone]
    for view in together:
        lines = read_record(records / "play" / view["record"])
        assert lines[0]["agents"] == ["human", "heuristic"]
        replay(lines)  # raises RecordMismatch if the record does not replay
        assert [x["text"] for x in lines if x["type"] == "action"] == [e["text"] for e in view["events"]]


def test_an_opponent_that_chooses_an_illegal_move_gets_a_json_error_and_the_game_stays_as_it_was(make_app, capsys):
    # seed 5 (Gin): player_1 deals, so the opponent, player_0, opens: its legal moves are
    # drawing the upcard or passing (R-GIN-03), and the broken agent picks 0, discard AC
    broken = "tests.experiments.custom_agent:FirstIllegalAgent"
    with TestClient(make_app(save_games=False, agents=(broken,))) as c:
        gid, headers, view = new_game(c, seed=5, opponents=[broken], seat="player_1")
        assert view["to_act"] == "player_0" and view["events"] == []
        for _ in range(2):  # asked again, the same answer: the game did not move
            r = c.post(f"/api/games/{gid}/advance", headers=headers)
            assert r.status_code == 500
            # neither the seed (the whole deal) nor the agent's legal moves (its cards) reach the browser
            assert r.json() == {
                "error": f"the server's agent {broken!r} in seat 0 (player_0) chose no legal move; the game is as "
                "it was (the server's log says what it chose: not shown here, as it names that seat's legal moves "
                "and the game's seed)"
            }
            assert capsys.readouterr().err == (
                f"serve: game {gid}: agent {broken!r} in seat 0 (player_0), game seed 5, chose action 0 "
                "(discard AC) which is not legal here: the legal actions are 105 (draw upcard), 106 (pass)\n"
            )
        after = c.get(f"/api/games/{gid}", headers=headers).json()
        assert after["status"] == "playing" and after["to_act"] == "player_0" and after["events"] == []


def test_an_oversized_value_is_named_not_echoed_whole(client):
    huge = "x" * 60_000
    cut = f"{huge!r}"[:80] + "... (a str of length 60000)"
    for body, message in [
        ({"variant": huge}, f"variant {cut} is unknown: variants are " + ", ".join(rummy_env.VARIANTS)),
        ({"seat": huge}, f"seat {cut} is not a seat of this game: seats are player_0, player_1"),
    ]:
        r = client.post("/api/games", json={"variant": "gin_rummy", "opponents": ["heuristic"], "seed": 1, **body})
        assert r.status_code == 400 and r.json()["error"] == message
    # the env's own message echoes the value: its middle is cut, its start and end kept
    r = client.post(
        "/api/games", json={"variant": "gin_rummy", "opponents": ["heuristic"], "options": {"knock_limit": huge}}
    )
    env_says = f"option knock_limit={huge!r} is not an integer: knock_limit must be an int from 0 to 1000000000"
    whole = f"options refused by gin_rummy_v0: {env_says}"
    assert r.status_code == 400 and r.json()["error"] == (
        f"{whole[:470]} [... {len(whole) - 940} characters ...] {whole[-470:]}"
    )
    assert len(r.json()["error"]) <= 1_000
    from experiments.serve.safety import ApiError

    just_over = ApiError(400, "x" * 1_001).message  # the marker fits in the limit too
    assert just_over == "x" * 470 + " [... 61 characters ...] " + "x" * 470 and len(just_over) < 1_000
    gid, headers, _ = new_game(client)
    # compact JSON, 60 kB, under the 64 kB body limit: httpx < 0.28 spaces its json= bodies (90 kB: 413)
    body = json.dumps({"action": [0] * 30_000}, separators=(",", ":"))
    r = client.post(f"/api/games/{gid}/move", headers=headers, content=body)
    assert r.status_code == 400 and r.json()["error"] == (
        f"action {[0] * 30_000!r}"[:87] + "... (a list of length 30000) is not an action id 0..107 or a move's text"
    )


def test_an_opponent_whose_act_fails_gets_a_json_error_naming_it(make_app, capsys):
    """The browser gets the agent and the error's type; its message (which may quote the
    agent's cards) goes to the server's log only."""
    failing = "tests.experiments.custom_agent:FailingAgent"
    with TestClient(make_app(save_games=False, agents=(failing,))) as c:
        gid, headers, _ = new_game(c, seed=5, opponents=[failing], seat="player_1")  # player_0 opens
        r = c.post(f"/api/games/{gid}/advance", headers=headers)
        assert r.status_code == 500 and r.json() == {
            "error": f"the server's agent {failing!r} in seat 0 (player_0) failed to move (ValueError); the game is "
            "as it was (the server's log has the agent's message: not shown here, as it may quote that seat's cards)"
        }
        log = capsys.readouterr().err  # the operator matches the 500 to its game and agent
        assert f"serve: game {gid}: agent {failing!r} in seat 0 failed to move:\nTraceback" in log
        assert "ValueError: no model for this table" in log
        assert c.get(f"/api/games/{gid}", headers=headers).json()["events"] == []
