"""experiments.serve's record and results API: names cannot leave their folders, damaged
runs and records are refused with a 4xx JSON error naming the problem, uploads are
size-limited, and recorded games replay step by step."""

import json
import os

from starlette.testclient import TestClient

import rummy_env
from experiments.common.records import read_record, replay
from tests.web.conftest import GIN_RECORD, refused, write_gin_record

#: the type the Replays page uploads a record with (others are refused)
OCTET = {"content-type": "application/octet-stream"}


# ---------------------------------------------------------------- records


def test_record_names_cannot_leave_the_records_folder(client, served_folders, tmp_path):
    records, _ = served_folders
    outside = tmp_path / "secret.jsonl"
    outside.write_text((records / GIN_RECORD).read_text())
    link = records / "games" / "link.jsonl"
    if not link.is_symlink():
        os.symlink(outside, link)
    dir_link = records / "outside_dir"
    if not dir_link.is_symlink():
        os.symlink(tmp_path, dir_link)
    cases = [
        ("../results/tour/summary.json", 400, "refused"),
        ("../x.jsonl", 400, "no .."),
        ("games/../../x.jsonl", 400, "no .."),
        (str(outside), 400, "relative paths"),
        ("/etc/passwd", 400, "relative paths"),
        ("games\\gin.jsonl", 400, "refused"),
        ("games/link.jsonl", 400, "leads out of the folder"),
        ("outside_dir/secret.jsonl", 400, "leads out of the folder"),
        ("games/gin.jsonl\x00.txt", 400, "refused"),
        ("games/none.jsonl", 404, "no record"),
        ("games", 400, "must be .jsonl"),
        ("", 400, "non-empty"),
    ]
    for name, status, words in cases:
        refused(client.get("/api/replays/meta", params={"record": name}), status, words)
        refused(client.get("/api/replays/frame", params={"record": name, "step": 0}), status, words)
    names = [r["name"] for r in client.get("/api/records").json()["records"]]
    assert "games/link.jsonl" not in names and not any(n.startswith("outside_dir") for n in names)
    assert GIN_RECORD in names


def test_a_fifo_named_like_a_record_or_a_run_is_skipped_not_opened(make_app, served_folders, tmp_path):
    # opening a FIFO blocks until a writer comes: the listings hung for good, each one a worker
    from experiments.serve.safety import walk_inside_stat

    records, results = tmp_path / "records", tmp_path / "results"
    write_gin_record(records / GIN_RECORD)
    os.mkfifo(records / "pipe.jsonl")
    (results / "tour").mkdir(parents=True)
    os.mkfifo(results / "tour" / "summary.json")
    assert [p for p, _ in walk_inside_stat(records, ".jsonl", 10)] == [(records / GIN_RECORD).resolve()]
    assert list(walk_inside_stat(results, ".json", 10)) == []
    with TestClient(make_app(records=records, results=results, save_games=False)) as c:
        assert [r["name"] for r in c.get("/api/records").json()["records"]] == [GIN_RECORD]
        assert c.get("/api/results").json() == {"runs": []}
        refused(
            c.get("/api/replays/meta", params={"record": "pipe.jsonl"}),
            404,
            "no record 'pipe.jsonl' in the folder (not a file)",
        )


def test_results_names_cannot_leave_the_results_folder(client, served_folders):
    _, results = served_folders
    cases = [
        ("../records/games/gin-heuristic-random.jsonl", 400),
        ("/etc/passwd", 400),
        ("tour/games.csv", 400),
        ("tour/evilsummary.json", 400),
        ("nothing/summary.json", 404),
    ]
    for name, status in cases:
        refused(client.get("/api/results/run", params={"name": name}), status)
    refused(client.get("/api/results/image", params={"name": "tour/../tour/win_rates.png"}), 400)
    refused(client.get("/api/results/image", params={"name": "tour/summary.json"}), 400)
    r = client.get("/api/results/image", params={"name": "tour/head_to_head.png"})
    assert r.status_code == 200 and r.content == (results / "tour" / "head_to_head.png").read_bytes()


def test_only_tournaments_and_evaluations_are_runs_and_a_damaged_one_is_422(make_app, tmp_path):
    files = {
        "selfplay/summary.json": {"steps": 5, "evaluation": []},  # other jobs' files of the same names
        "train/evaluation.json": {"variant": "gin_rummy_v0", "rows": []},
        "cut/summary.json": {"meta": {"variants": ["gin_rummy_v0"]}, "summary": [], "head_to_head": [{"x": 1}]},
        "eval/evaluation.json": {"agent": "heuristic", "variant": "gin_rummy_v0", "rows": [], "games": 4},
    }
    for name, data in files.items():
        (tmp_path / name).parent.mkdir(parents=True)
        (tmp_path / name).write_text(json.dumps(data))
    with TestClient(make_app(results=tmp_path, save_games=False)) as c:
        runs = c.get("/api/results").json()["runs"]
        assert sorted((r["name"], r["kind"]) for r in runs) == [
            ("cut/summary.json", "tournament"),
            ("eval/evaluation.json", "evaluation"),
        ]
        for name in ("selfplay/summary.json", "train/evaluation.json"):
            refused(
                c.get("/api/results/run", params={"name": name}), 422, "not the summary.json of experiments.tournament"
            )
        said = "cut/summary.json cannot be read as results: field 'head_to_head', item 0, 'variant' is null"
        refused(c.get("/api/results/run", params={"name": "cut/summary.json"}), 422, said)
        assert c.get("/api/results/run", params={"name": "eval/evaluation.json"}).json()["kind"] == "evaluation"
    # files edited by hand: every field the page reads is checked, and the message names it
    tour = {"meta": {"variants": ["gin_rummy_v0"]}, "summary": [], "head_to_head": []}
    evaluation = files["eval/evaluation.json"]
    edits = [
        ("cut/summary.json", {**tour, "head_to_head": "abc"}, "field 'head_to_head' is the string 'abc', expected an"),
        ("cut/summary.json", {**tour, "head_to_head": {"gin_rummy_v0": 5}}, "field 'head_to_head' is an object"),
        (
            "cut/summary.json",
            {**tour, "summary": ["x"]},
            "field 'summary', item 0 is the string 'x', expected an object",
        ),
        (
            "cut/summary.json",
            {**tour, "summary": [{}]},
            "field 'summary', item 0, 'variant' is null, expected a string",
        ),
        ("cut/summary.json", {**tour, "meta": {"variants": 5}}, "field 'meta', 'variants' is the number 5, expected"),
        (
            "eval/evaluation.json",
            {**evaluation, "rows": [{"opponent": "random", "win_rate": "high"}]},
            "field 'rows', item 0, 'win_rate' is the string 'high', expected a number or null",
        ),
        (
            "eval/evaluation.json",
            {**evaluation, "rows": [{"opponent": "random", "win_rate": -1}]},
            "field 'rows', item 0, 'win_rate' is -1, expected a rate from 0 to 1",
        ),
        (
            "eval/evaluation.json",
            {**evaluation, "rows": [{"opponent": "random", "games": 2.5}]},
            "field 'rows', item 0, 'games' is 2.5, expected a count (an integer >= 0)",
        ),
        (
            "cut/summary.json",
            {**tour, "summary": [{"variant": "gin_rummy_v0", "agent": "random", "wins": -3}]},
            "field 'summary', item 0, 'wins' is -3, expected a number >= 0",
        ),
    ]
    for name, data, said in edits:
        (tmp_path / name).write_text(json.dumps(data))
        with TestClient(make_app(results=tmp_path, save_games=False)) as c:
            refused(c.get("/api/results/run", params={"name": name}), 422, f"{name} cannot be read as results: {said}")
    (tmp_path / "eval/evaluation.json").write_text(json.dumps(evaluation))
    # NaN and Infinity (Python's json writes them; the response's JSON cannot carry them)
    for value in ("NaN", "-Infinity"):
        text = json.dumps(files["eval/evaluation.json"])[:-1] + f', "x": {value}}}'
        (tmp_path / "eval" / "evaluation.json").write_text(text)
        with TestClient(make_app(results=tmp_path, save_games=False)) as c:
            refused(
                c.get("/api/results/run", params={"name": "eval/evaluation.json"}),
                422,
                f"eval/evaluation.json cannot be read as results: it holds {value}, which JSON has no value for",
            )
    # numbers no JSON response can carry from elsewhere: a float too large (read as an
    # infinity), nan / inf in the head-to-head CSV, and a CSV field past the csv module's limit
    non_finite = "cannot be read as results: it holds NaN or an infinity, which JSON has no value for"
    text = json.dumps({**evaluation, "rows": [{"opponent": "random", "points_per_hand": 1.0}]}).replace("1.0", "1e400")
    (tmp_path / "eval" / "evaluation.json").write_text(text)
    (tmp_path / "cut" / "summary.json").write_text(json.dumps({"meta": {"variants": ["gin_rummy_v0"]}, "summary": []}))
    header = "variant,agent,opponent,games,deals,wins,win_rate,win_rate_ci_low,win_rate_ci_high\n"
    for name, csv_text, said in [
        ("eval/evaluation.json", None, non_finite),
        # the CSV's cells are checked as the JSON's are (a win rate in 0..1)
        (
            "cut/summary.json",
            header + "gin_rummy_v0,a,b,2,1,1,nan,0.1,0.9\n",
            "head_to_head.csv, line 2, 'win_rate' is nan, expected a rate from 0 to 1",
        ),
        (
            "cut/summary.json",
            header + "gin_rummy_v0,a,b,2,1,1,0.5,-inf,0.9\n",
            "'win_rate_ci_low' is -inf, expected a rate",
        ),
        (
            "cut/summary.json",
            header + "gin_rummy_v0,a,b,2,1,1,7,0.1,0.9\n",
            "'win_rate' is 7.0, expected a rate from 0 to 1",
        ),
        # a line cut short: its missing cells named by the file's line
        (
            "cut/summary.json",
            header + "gin_rummy_v0,a,b,2,1,1,0.5,0.1,0.9\ngin_rummy_v0,a,b,2\n",
            "(ValueError: head_to_head.csv, line 3, 'wins' is missing (a cut line?), expected a number)",
        ),
        ("cut/summary.json", header + "gin_rummy_v0," + "a" * 140_000 + ",b,2,1,1,0.5,0.1,0.9\n", "field larger"),
    ]:
        if csv_text is not None:
            (tmp_path / "cut" / "head_to_head.csv").write_text(csv_text)
        with TestClient(make_app(results=tmp_path, save_games=False)) as c:
            refused(c.get("/api/results/run", params={"name": name}), 422, said)


def test_a_recorded_game_replays_step_by_step(client, served_folders):
    records, _ = served_folders
    lines = read_record(records / GIN_RECORD)
    meta = client.get("/api/replays/meta", params={"record": GIN_RECORD}).json()
    actions = [x for x in lines if x["type"] == "action"]
    assert meta["steps"] == len(actions) and meta["agents"] == ["heuristic", "random"]
    assert [m["text"] for m in meta["moves"]] == [x["text"] for x in actions]
    env = replay(lines)
    last = client.get("/api/replays/frame", params={"record": GIN_RECORD, "step": len(actions), "seat": "player_1"})
    assert last.json()["svgs"] == {"player_1": str(env.unwrapped.render_svg("player_1"))}
    assert last.json()["over"] is True
    cases = [(len(actions) + 1, "all", "outside"), ("x", "all", "outside"), ("\u00b2", "all", "outside")]
    for step, seat, words in [*cases, (0, "player_9", "seat")]:
        refused(client.get("/api/replays/frame", params={"record": GIN_RECORD, "step": step, "seat": seat}), 400, words)


def test_a_long_records_state_copies_are_bounded_and_its_frames_exact():
    # a copy of the state holds the episode's history: one every 16 steps of a 12,000-step
    # record (a 1 MB upload) kept 47 MB per replay, in the square of its length
    from agents import make_agent
    from experiments.common import load_variant
    from experiments.common.records import play_recorded
    from experiments.serve.replays import Replay
    from rummy_env.render.svg import render_svg

    options = {"episode": "game", "target_score": 10**9, "max_hands": 40}
    env = load_variant("gin_rummy_v0").env(**options)
    agents = [make_agent("random", env, seed=1), make_agent("random", env, seed=2)]
    _, lines = play_recorded(env, agents, 7, options, ["random", "random"])
    n = sum(x["type"] == "action" for x in lines)
    assert n == 4665  # 40 hands of random play: copies every 16 steps would be 292
    rep = Replay(lines, "long")
    every = 73  # ceil(4665 / 64): at most MAX_CHECKPOINTS = 64 copies
    assert len(rep._checkpoints) == n // every + 1 == 64
    # the copies leave out the history of actions (2.9 of a 1 MB record's 3.2 MB of copies),
    # which a state rebuilt from one has back
    assert [len(c.history) for c in rep._checkpoints] == [0] * 64
    played = [x["action"] for x in lines if x["type"] == "action"]
    wanted = {0, 1, every - 1, every, every + 1, 5 * every + 7, n - 1, n}
    truth = {}  # step -> player_0's picture, from a replay of its own

    def draw(env, line):
        step = len(truth)
        truth[step] = render_svg(env.unwrapped.game_state, 0, env.unwrapped.last_move) if step in wanted else None

    replay(lines, on_step=draw)
    assert len(truth) == n + 1
    for k in sorted(wanted):
        state, last = rep.state_at(k)
        assert render_svg(state, 0, last) == truth[k], k
        assert state.history == played[:k], k


def test_a_tournaments_links_lead_to_its_own_records(make_app, tmp_path):
    from experiments.tournament.cli import main as tournament

    records, results = tmp_path / "records", tmp_path / "results"
    for name, seed in (("a", 1), ("b", 2)):  # the same record names, other games
        argv = ["--variants", "gin_rummy", "--agents", "random", "heuristic", "--deals", "1", "--workers", "1"]
        argv += ["--seed", str(seed), "--out", str(results / name), "--record", str(records / name), "--no-progress"]
        assert tournament([*argv, "--record-games", "2"]) == 0
    write_gin_record(records / "play" / "web.jsonl")  # a game of the same pair elsewhere
    names = [f"gin_rummy_v0-random-heuristic-deal0-rot{r}.jsonl" for r in (0, 1)]
    with TestClient(make_app(records=records, results=results, save_games=False)) as c:
        for run in ("a", "b"):
            data = c.get("/api/results/run", params={"name": f"{run}/summary.json"}).json()
            assert [g["record"] for g in data["games"]] == [f"{run}/{n}" for n in names]
            assert data["records_folder"] == run
            for g in data["games"]:
                assert read_record(records / g["record"])[0]["agents"] == g["seats"]
        query = {"variant": "gin_rummy_v0", "agent": ["heuristic", "random"]}
        listed = c.get("/api/records", params={**query, "folder": "a"}).json()["records"]
        assert sorted(r["name"] for r in listed) == [f"a/{n}" for n in names]
        assert c.get("/api/records", params={**query, "folder": ""}).json()["records"] == []
        assert len(c.get("/api/records", params=query).json()["records"]) == 5
        for folder in ("../b", "/a", "a/./b"):
            said = refused(c.get("/api/records", params={**query, "folder": folder}), 400)
            assert said == f"folder {folder!r} is refused: a relative path under --records, no .."
        said = refused(c.get("/api/records", params={**query, "folder": "a" * 1025}), 400)
        assert said == f"folder {'a' * 1025!r}"[:87] + "... (a str of length 1025) is refused: at most 1024 characters"
        said = refused(c.get("/api/records", params={"variant": "nope"}), 400)
        assert said == "variant 'nope' is unknown: variants are " + ", ".join(rummy_env.VARIANTS)
        assert len(c.get("/api/records", params={**query, "variant": "gin_rummy"}).json()["records"]) == 5
    # tournament a's records overwritten by b's (one --record folder for both): a links none of them
    for n in names:
        (records / "a" / n).write_bytes((records / "b" / n).read_bytes())
    with TestClient(make_app(records=records, results=results, save_games=False)) as c:
        data = c.get("/api/results/run", params={"name": "a/summary.json"}).json()
        assert data["games"] == [] and data["records_folder"] is None


def test_the_same_tournament_recorded_twice_links_each_run_its_own_folder(make_app, tmp_path):
    from experiments.tournament.cli import main as tournament

    records, results = tmp_path / "records", tmp_path / "results"
    for name in ("a", "b"):  # the same command, seed 0: records nothing in them tells apart
        argv = ["--variants", "gin_rummy", "--agents", "random", "heuristic", "--deals", "1", "--workers", "1"]
        argv += ["--out", str(results / name), "--record", str(records / name), "--no-progress"]
        assert tournament(argv) == 0
    record = "gin_rummy_v0-random-heuristic-deal0-rot0.jsonl"
    assert (records / "a" / record).read_bytes() == (records / "b" / record).read_bytes()
    with TestClient(make_app(records=records, results=results, save_games=False)) as c:
        for run in ("a", "b"):  # summary.json's meta names the --record folder
            data = c.get("/api/results/run", params={"name": f"{run}/summary.json"}).json()
            assert [g["record"] for g in data["games"]] == [f"{run}/{record}"]
            assert data["records_folder"] == run and "record_dir" not in data["meta"]  # no server path sent
    for run in ("a", "b"):  # summaries written before that field: ambiguous, so neither is linked
        path = results / run / "summary.json"
        summary = json.loads(path.read_text())
        assert summary["meta"].pop("record_dir") == str((records / run).resolve())
        path.write_text(json.dumps(summary))
    with TestClient(make_app(records=records, results=results, save_games=False)) as c:
        data = c.get("/api/results/run", params={"name": "a/summary.json"}).json()
        assert data["games"] == [] and data["records_folder"] is None


def test_the_record_index_of_tournaments_leaves_the_web_games_out(tmp_path):
    from experiments.serve.replays import MAX_LISTED, record_index

    write_gin_record(tmp_path / "play" / "web.jsonl")
    write_gin_record(tmp_path / "t" / "x.jsonl", seed=5)
    write_gin_record(tmp_path / "t" / "play" / "y.jsonl", seed=6)  # only the top folder's play/ is the web's
    index = record_index(tmp_path)
    assert sorted(rec["name"] for recs in index.values() for rec in recs) == ["t/play/y.jsonl", "t/x.jsonl"]
    assert MAX_LISTED == 2000


# ---------------------------------------------------------------- uploads
def test_a_record_that_is_no_unicode_text_is_left_out_of_the_list_and_refused(make_app, served_folders, tmp_path):
    """A lone surrogate (``"\\ud800"`` in the file: valid JSON) cannot be sent as UTF-8:
    that record is not listed, the others are, and asking for it is a 422."""
    records, _ = served_folders
    lines = (records / GIN_RECORD).read_text().splitlines()
    game = json.loads(lines[0])
    game["agents"] = ["\ud800", "random"]
    (tmp_path / "sur.jsonl").write_text("\n".join([json.dumps(game), *lines[1:]]) + "\n")
    (tmp_path / "good.jsonl").write_text((records / GIN_RECORD).read_text())
    with TestClient(make_app(records=tmp_path)) as c:
        listed = c.get("/api/records")
        assert listed.status_code == 200 and [r["name"] for r in listed.json()["records"]] == ["good.jsonl"]
        refused(c.get("/api/replays/meta", params={"record": "sur.jsonl"}), 422, "line 1 (game), field 'agents'")


def test_uploads_are_size_limited(make_app, served_folders):
    records, _ = served_folders
    data = (records / GIN_RECORD).read_bytes()
    with TestClient(make_app(max_upload=len(data))) as c:
        assert c.post("/api/uploads", headers=OCTET, content=data).status_code == 200
        said = refused(c.post("/api/uploads", headers=OCTET, content=data + b"\n"), 413)
        assert (
            said
            == f"the upload is larger than {len(data):,} bytes (got at least {len(data) + 1:,}): records are smaller"
        )
        refused(c.post("/api/uploads", headers=OCTET, content=b"x" * 5_000_000), 413)
        # a form (curl -F) is not the record: the page sends the file itself as the body
        headers = {"content-type": "Multipart/Form-Data; boundary=x"}  # media types are case-insensitive
        refused(c.post("/api/uploads", content=b"--x--", headers=headers), 415)
        said = refused(c.post("/api/uploads", files={"file": ("r.jsonl", data)}), 415)
        assert said == "send the record file itself as the request body (as the page does), not a form"
        # what another site's page can send without a CORS preflight: text/plain, or no type
        for headers, got in [({"content-type": "text/plain;charset=UTF-8"}, "'text/plain'"), ({}, "none")]:
            said = refused(c.post("/api/uploads", content=data, headers=headers), 415)
            assert said == (
                "send the record file as the request body with Content-Type: application/octet-stream (as the "
                f"Replays page does), got {got}"
            )


def test_bad_records_are_refused(client, served_folders):
    records, _ = served_folders
    good = [json.loads(x) for x in (records / GIN_RECORD).read_text().splitlines()]
    first_action = next(i for i, x in enumerate(good) if x["type"] == "action")

    def edited(i, **change):
        lines = [dict(x) for x in good]
        lines[i].update(change)
        return "\n".join(json.dumps(x) for x in lines).encode()

    # the reasons name the field (words shared with the records module's own schema check)
    cases = [
        (b"", "first line must be the game line"),
        (b"not json\n", "not JSON"),
        (b"[1, 2]\n", "upload"),
        (edited(0, format="other/9"), "record format"),
        (edited(0, variant="poker_v0"), "poker_v0"),
        (edited(0, players="p0"), "players"),
        (edited(first_action, action="x"), "action"),
        (edited(first_action, type="teleport"), "teleport"),
        (edited(first_action, action=0), "does not replay"),
        (edited(first_action, rewards=[5.0, 0.0]), "does not replay"),
        (edited(len(good) - 1, returns=[9.0, 9.0]), "does not replay"),
        (edited(0, options={"knock_limit": -1}), "does not replay"),
        (edited(0, agents=["\ud800", "x"]), "lone surrogate"),  # a JSON response cannot hold it as UTF-8
        (edited(first_action, text="pa\udc00ss"), "lone surrogate"),
    ]
    for data, words in cases:
        message = refused(client.post("/api/uploads", headers=OCTET, content=data), 422, words)
        assert "/tmp" not in message and "upload.jsonl" not in message, message  # the server's own file stays private
    assert refused(client.post("/api/uploads", headers=OCTET, content=b""), 422).startswith(
        "the upload is not a record this server reads"
    )
    ok = client.post("/api/uploads", headers=OCTET, content=(records / GIN_RECORD).read_bytes()).json()
    frame = client.get("/api/replays/frame", params={"upload": ok["upload"], "step": ok["steps"], "seat": "all"})
    assert frame.status_code == 200 and sorted(frame.json()["svgs"]) == ["player_0", "player_1"]
    refused(client.get("/api/replays/meta", params={"upload": "AAAAAAAAAAAAAAAA"}), 404, "no upload")
    refused(client.get("/api/replays/meta", params={"upload": "../etc"}), 404, "no upload")


def test_a_refused_upload_names_the_step_as_the_replay_page_counts(client, served_folders):
    records, _ = served_folders
    good = [json.loads(x) for x in (records / GIN_RECORD).read_text().splitlines()]
    at = [i for i, x in enumerate(good) if x["type"] == "action"]
    n = len(at)

    def upload(k, **change):
        lines = [dict(x) for x in good]
        lines[at[k]].update(change)
        return client.post("/api/uploads", headers=OCTET, content="\n".join(json.dumps(x) for x in lines).encode())

    def where(k):
        line = good[at[k]]
        return (
            f"line {at[k] + 1}, step {k + 1} of {n} ({line['agent']} {line['text']}; steps counted from 1 as on "
            "the Replay page, "
            f"the record's 'step' field says {k})"
        )

    # the page shows the first move as "step 1" (meta's moves, the slider): so does the error
    assert client.get("/api/replays/meta", params={"record": GIN_RECORD}).json()["moves"][0]["step"] == 1
    said = refused(upload(0, action=0), 422)
    assert said == f"the upload does not replay: {where(0)}: the action is not legal in the replay"
    said = refused(upload(3, rewards=[5.0, 0.0]), 422)
    assert said == f"the upload does not replay: {where(3)}: rewards [0.0, 0.0] in the replay, [5.0, 0.0] in the record"
    # a move text the replay quotes and cuts: the page's step number still replaces the record's
    said = refused(upload(2, text="x" * 200), 422)
    assert said.startswith(f"the upload does not replay: line {at[2] + 1}, step 3 of {n} (player_"), said
    assert "'xxxx" in said and "(a str of length 200); steps counted from 1 as on the Replay page" in said
    said = refused(upload(n - 1, action=10**6), 422)
    assert said == (
        f"the upload does not replay: line {at[-1] + 1} (action), field 'action': 1000000 is not an action id "
        f"0..107 ({where(n - 1)})"
    )
