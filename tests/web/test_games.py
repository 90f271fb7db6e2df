"""Games that end otherwise than played out: dropped by the store before their end (saved
as quit, and a link to them says so), and a Rummikub tile taken back before the commit."""

import time

from starlette.testclient import TestClient

from experiments.common.records import read_record, replay
from tests.web.test_api import new_game, play_out, refused


def test_a_game_dropped_before_its_end_is_saved_as_quit(make_app, tmp_path):
    app = make_app(records=tmp_path, max_games=1)
    with TestClient(app) as c:
        gid, headers, _ = new_game(c, seed=1)
        view = c.post(f"/api/games/{gid}/move", json={"action": "pass"}, headers=headers).json()
        view = c.post(f"/api/games/{gid}/advance", headers=headers).json()
        app.state.games._games[gid].touched = time.monotonic() - 7201.0  # left idle past --max-idle
        said = refused(c.get(f"/api/games/{gid}", headers=headers), 404)
        (idle,) = (tmp_path / "play").iterdir()
        assert said == (
            f"game {gid} was dropped after 7200 s without a request, before it ended; "
            f"its moves so far were saved as a quit game, play/{idle.name} on the Replays page"
        )
        lines = read_record(idle)
        assert lines[0]["agents"] == ["human", "heuristic"]
        assert [(x["agent"], x["text"]) for x in lines if x["type"] == "action"] == [
            (e["agent"], e["text"]) for e in view["events"]
        ]
        assert lines[-1]["type"] == "end" and lines[-1]["status"] == "quit"
        replay(lines)  # a quit game replays (the replay checks that it had not ended)
        pushed, pushed_headers, _ = new_game(c, seed=2)
        new_game(c, seed=3)  # max_games=1: the game of seed 2 makes room, unplayed
        said = refused(c.get(f"/api/games/{pushed}", headers=pushed_headers), 404)
        assert said.startswith(f"game {pushed} was dropped to make room for a newer game (1 kept at once), before")
        assert sorted(read_record(p)[-1]["status"] for p in (tmp_path / "play").iterdir()) == ["quit", "quit"]


def test_a_dropped_game_that_cannot_be_saved_fails_no_other_request(make_app, tmp_path):
    (tmp_path / "play").write_text("a file where the records' folder should be")
    app = make_app(records=tmp_path, max_games=1)
    with TestClient(app) as c:
        gid, headers, _ = new_game(c, seed=1)
        newer, newer_headers, _ = new_game(c, seed=2)  # drops the first game, whose record cannot be written
        assert c.get(f"/api/games/{newer}", headers=newer_headers).status_code == 200
        said = refused(c.get(f"/api/games/{gid}", headers=headers), 404)
        assert said == (
            f"game {gid} was dropped to make room for a newer game (1 kept at once), before it ended; "
            "its record could not be saved (File exists)"
        )


def test_a_game_whose_record_cannot_be_written_still_ends_with_a_json_answer(make_app, tmp_path, capsys):
    # the save failed inside the request that ended the game: Starlette's plain-text 500,
    # though the game had ended, and no word of why there was no record
    app = make_app(records=tmp_path)
    with TestClient(app) as c:
        quitter, headers, _ = new_game(c, seed=1)
        finisher, finisher_headers, view = new_game(c, seed=4)
        (tmp_path / "play").write_text("a file where the records' folder should be")
        r = c.post(f"/api/games/{quitter}/quit", headers=headers)
        assert r.status_code == 200
        assert (r.json()["status"], r.json()["record"]) == ("quit", None)
        assert r.json()["record_error"] == "its record could not be saved (File exists)"
        assert c.get(f"/api/games/{quitter}", headers=headers).json() == r.json()
        over = play_out(c, finisher, finisher_headers, view)  # the last move ends the game: the same
        assert (over["status"], over["record"], over["record_error"]) == (
            "over",
            None,
            "its record could not be saved (File exists)",
        )
        err = capsys.readouterr().err.splitlines()
        assert [line.split(": its record play/")[0] for line in err] == [
            f"serve: game {quitter}",
            f"serve: game {finisher}",
        ]
        assert all(
            line.endswith("could not be saved: [Errno 17] File exists: " + repr(str(tmp_path / "play"))) for line in err
        ), err
        app.state.games.max_games = 1
        new_game(c, seed=6)  # drops both: their 404 says the record could not be saved
        said = refused(c.get(f"/api/games/{quitter}", headers=headers), 404)
        assert said == (
            f"game {quitter} was dropped to make room for a newer game (1 kept at once); "
            "its record could not be saved (File exists)"
        )


def test_a_dropped_game_that_had_ended_names_its_record(make_app, tmp_path):
    app = make_app(records=tmp_path, max_games=1)
    with TestClient(app) as c:
        gid, headers, view = new_game(c, seed=4)
        over = play_out(c, gid, headers, view)
        new_game(c, seed=5)
        said = refused(c.get(f"/api/games/{gid}", headers=headers), 404)
        assert said == (
            f"game {gid} was dropped to make room for a newer game (1 kept at once); "
            f"it had ended; its record is play/{over['record']} on the Replays page"
        )
    with TestClient(make_app(max_games=1, save_games=False)) as c:
        gid, headers, _ = new_game(c, seed=4)
        new_game(c, seed=5)
        said = refused(c.get(f"/api/games/{gid}", headers=headers), 404)
        assert said.endswith("before it ended; it was not saved (the server runs with --no-save)")
        other, _, _ = new_game(c, seed=6)
        said = refused(c.get(f"/api/games/{other}", headers={"X-Game-Token": "\u00e9t\u00e9".encode("latin-1")}), 403)
        assert said == f"game {other} is not yours: the request lacks the game's token"


def test_a_rummikub_tile_is_taken_back_and_other_variants_moves_are_final(make_app, tmp_path):
    with TestClient(make_app(records=tmp_path)) as c:
        gid, headers, view = new_game(c, seed=2, variant="rummikub")
        while not view["your_turn"]:
            view = c.post(f"/api/games/{gid}/advance", headers=headers).json()
        assert view["can_undo"] is False
        said = refused(c.post(f"/api/games/{gid}/undo", headers=headers), 409)
        assert said == "nothing to undo: no tile has been added to your play this turn"
        before = view
        hint = c.post(f"/api/games/{gid}/hint", headers=headers).json()
        assert hint["text"].startswith("add ")
        added = c.post(f"/api/games/{gid}/move", json={"action": hint["action"]}, headers=headers).json()
        assert added["can_undo"] is True and added["events"][-1]["text"] == hint["text"]
        undone = c.post(f"/api/games/{gid}/undo", headers=headers).json()
        # the table, the moves, the events: as if the tile had never been added; the version goes
        # on (a tab that saw the tile added must see it taken back)
        assert undone == {**before, "version": before["version"] + 2} and added["version"] == before["version"] + 1
        said = refused(c.post(f"/api/games/{gid}/undo", headers=headers), 409)
        assert said == "nothing to undo: no tile has been added to your play this turn"
        c.post(f"/api/games/{gid}/move", json={"action": hint["action"]}, headers=headers)
        view = c.post(f"/api/games/{gid}/quit", headers=headers).json()
        refused(c.post(f"/api/games/{gid}/undo", headers=headers), 409, f"game {gid} is over")
        lines = read_record(tmp_path / "play" / view["record"])
        assert [x["text"] for x in lines if x["type"] == "action"] == [e["text"] for e in view["events"]]
        assert [x["step"] for x in lines if x["type"] == "action"] == list(range(len(view["events"])))
        replay(lines)  # the taken-back tile is not in the record
        gid, headers, view = new_game(c, seed=5)
        assert view["can_undo"] is False
        said = refused(c.post(f"/api/games/{gid}/undo", headers=headers), 400)
        assert said == "undo takes back a tile of a Rummikub play; in gin_rummy_v0 every move is final"
        assert c.get(f"/api/games/{gid}", headers=headers).json() == view


def test_a_save_that_fails_at_the_stop_is_said_and_the_other_games_are_saved(tmp_path):
    from experiments.serve.games import GameSession
    from experiments.serve.store import GameStore

    store = GameStore(4, 60)
    first, second = (GameSession("gin_rummy_v0", {}, "player_0", ["heuristic"], s, tmp_path) for s in (1, 2))
    for session in (first, second):
        store.add(session)

    def broken(path):
        raise ValueError("a bug in the recorder")

    first.recorder.write = broken
    fates = store.close()
    assert fates == [
        f"game {first.id} was dropped when the server stopped, before it ended; its record could not be saved "
        "(ValueError)",
        f"game {second.id} was dropped when the server stopped, before it ended; its moves so far were saved "
        f"as a quit game, play/{second.record_name} on the Replays page",
    ]
    assert [p.name for p in tmp_path.iterdir()] == [second.record_name] and len(store) == 0
