"""What the server keeps between requests: a replay keeps its moves compactly, not the
record's parsed lines, and the Results page reads a record's game line again only when its
file changed."""

import gc
from pathlib import Path

import pytest

from agents import make_agent
from experiments.common import load_variant
from experiments.common.records import play_recorded, read_record, write_record


def test_a_replay_keeps_its_moves_not_the_records_parsed_lines(tmp_path):
    # a replay kept the parsed lines: some 8 times the record's size (8.6 MB for a 1 MB
    # upload of 11,657 Gin steps), for each of the 16 replays kept.  What it keeps is checked
    # here (the memory itself is the benchmarks' to measure): compact arrays of the moves,
    # and no line but the game and end lines
    from array import array

    from experiments.serve.replays import Replay

    options = {"episode": "game", "target_score": 10**9, "max_hands": 20}
    env = load_variant("gin_rummy_v0").env(**options)
    agents = [make_agent("random", env, seed=1), make_agent("random", env, seed=2)]
    _, played = play_recorded(env, agents, 7, options, ["random", "random"])
    path = write_record(played, tmp_path / "long.jsonl")
    lines = read_record(path)
    actions = [x for x in lines if x["type"] == "action"]
    rep = Replay(lines, "long")
    assert len(actions) == 2245  # long enough that the moves are most of what a replay keeps
    kept = {k: v for k, v in vars(rep).items() if k != "_checkpoints"}  # state copies: bounded apart (another test)
    assert sorted(kept) == [
        "_actions", "_every", "_seats", "_text_ids", "_texts", "agents", "complete", "end", "game", "name",
        "players", "variant",
    ]  # fmt: skip
    assert [(type(rep._seats), rep._seats.typecode), (type(rep._actions), rep._actions.typecode)] == [
        (array, "B"),
        (array, "i"),
    ]
    assert (type(rep._text_ids), rep._text_ids.typecode, len(rep._texts)) == (array, "I", len(set(rep._texts)))
    assert rep.game is lines[0] and rep.end is lines[-1] and lines[-1]["type"] == "end"
    # no other parsed line, nor the list of them, is reachable from the replay
    let_go = {id(lines)} | {id(x) for x in lines[1:-1]}
    seen, todo = set(), [rep]
    while todo:
        obj = todo.pop()
        if id(obj) in seen or isinstance(obj, (type, type(gc), type(read_record))):
            continue
        seen.add(id(obj))
        assert id(obj) not in let_go, obj
        todo.extend(gc.get_referents(obj))
    meta = rep.meta()
    assert meta["steps"] == len(actions) and meta["moves"] == [
        {"step": i + 1, "agent": x["agent"], "text": x["text"]} for i, x in enumerate(actions)
    ]
    assert [rep.move(i) for i in (0, 1, len(actions) - 1)] == [
        {k: actions[i][k] for k in ("agent", "action", "text")} for i in (0, 1, len(actions) - 1)
    ]


def test_the_results_page_reads_a_record_again_only_when_it_changed(make_app, served_folders, tmp_path, monkeypatch):
    # each request for a tournament read the game line of every record under --records again
    import os
    import shutil

    from starlette.testclient import TestClient

    from experiments.serve import replays, results
    from tests.web.conftest import GIN_RECORD, write_gin_record

    # copies at new paths: the server's caches are the module's, kept across tests, and
    # the reads counted below are of files no earlier test read
    records, runs = tmp_path / "records", tmp_path / "results"

    # without what other tests added to the shared folders: the games they played (play/),
    # the links leading out of it (test_records_api), which a copy would make files
    def added(folder, names):
        return [n for n in names if n == "play" or os.path.islink(os.path.join(folder, n))]

    shutil.copytree(served_folders[0], records, ignore=added)
    shutil.copytree(served_folders[1], runs)
    every = sorted(p.relative_to(records).as_posix() for p in records.rglob("*.jsonl"))
    assert len(every) == 3 and GIN_RECORD in every
    reads, run_reads = [], []  # the record files opened, the run files read

    def counted_open(path, *args, **kwargs):
        reads.append(Path(path).relative_to(records).as_posix())
        return open(path, *args, **kwargs)

    real_read_text = Path.read_text

    def counted_read_text(self, *args, **kwargs):
        if self.name in results.RUN_FILES:
            run_reads.append(self.relative_to(runs).as_posix())
        return real_read_text(self, *args, **kwargs)

    monkeypatch.setattr(replays, "open", counted_open, raising=False)  # the game lines are read with open()
    monkeypatch.setattr(Path, "read_text", counted_read_text)
    run = {"name": "tour/summary.json"}
    with TestClient(make_app(records=records, results=runs, save_games=False)) as c:
        listed = c.get("/api/results").json()
        assert [r["name"] for r in listed["runs"]] == ["tour/summary.json"]
        assert run_reads == ["tour/summary.json"]
        first = c.get("/api/results/run", params=run)
        assert first.status_code == 200 and first.json()["games"]
        assert sorted(reads) == every
        reads.clear()
        run_reads.clear()
        for _ in range(3):
            assert c.get("/api/results").json() == listed
        assert run_reads == []
        for _ in range(3):
            assert c.get("/api/results/run", params=run).json() == first.json()
            assert len(c.get("/api/records").json()["records"]) == 3
        assert reads == []
        assert run_reads == ["tour/summary.json"] * 3  # the run asked for is read: only the listing is kept
        # a record replaced by another of the same size and time, and a new one: those two are read
        path = records / GIN_RECORD
        st = path.stat()
        copy = path.with_suffix(".tmp")
        copy.write_bytes(path.read_bytes())
        os.utime(copy, ns=(st.st_atime_ns, st.st_mtime_ns))
        copy.replace(path)
        write_gin_record(records / "games" / "more.jsonl", seed=4)
        assert c.get("/api/results/run", params=run).json() == first.json()
        assert sorted(reads) == [GIN_RECORD, "games/more.jsonl"]
        assert len(c.get("/api/records").json()["records"]) == 4 and len(reads) == 2


def test_the_file_cache_keeps_at_most_its_bound(tmp_path):
    from experiments.serve.filecache import FileCache

    cache, reads = FileCache(2), []
    paths = [tmp_path / n for n in "abc"]
    for p in paths:
        p.write_text(p.name)

    def read(p):
        reads.append(p.name)
        return p.read_text().upper()

    assert [cache.get(p, read) for p in [*paths, paths[2], paths[0]]] == ["A", "B", "C", "C", "A"]
    assert (reads, len(cache)) == (["a", "b", "c", "a"], 2)  # a was dropped for c, the least recently used
    with pytest.raises(ValueError) as err:
        FileCache(0)
    assert str(err.value) == "max_files must be an int >= 1, got 0"


def test_a_records_replay_is_kept_until_its_file_changes(tmp_path):
    # replays were kept by name and modification time: a record replaced by another game
    # with the same time replayed the old game
    import os

    from experiments.serve.replays import ReplayStore
    from tests.web.conftest import write_gin_record

    store = ReplayStore(tmp_path, 10**6)
    path = write_gin_record(tmp_path / "g.jsonl", seed=3)
    first = store.file("g.jsonl")
    assert store.file("g.jsonl") is first and first.name == "g.jsonl"
    st = path.stat()
    write_gin_record(tmp_path / "other.jsonl", seed=4).replace(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    again = store.file("g.jsonl")
    assert again is not first and again.meta()["moves"] != first.meta()["moves"]
    assert again.meta()["moves"] == ReplayStore(tmp_path, 10**6).file("g.jsonl").meta()["moves"]


def test_a_records_replay_reads_the_file_its_name_was_checked_to_lead_to(tmp_path, monkeypatch):
    # the name was checked (a link inside --records to a file inside it), then the link was
    # followed again to read it: retargeted out of the folder meanwhile, the outside file was read
    from experiments.serve import replays
    from tests.web.conftest import write_gin_record

    records = tmp_path / "records"
    inside = write_gin_record(records / "inside.jsonl", seed=3)
    outside = write_gin_record(tmp_path / "outside.jsonl", seed=4)
    (records / "link.jsonl").symlink_to(inside)
    checked = replays.resolve_inside

    def retargeted_after_the_check(root, name, *args):
        real = checked(root, name, *args)
        (records / "link.jsonl").unlink()
        (records / "link.jsonl").symlink_to(outside)
        return real

    monkeypatch.setattr(replays, "resolve_inside", retargeted_after_the_check)
    rep = replays.ReplayStore(records, 10**6).file("link.jsonl")
    assert (rep.name, rep.game) == ("link.jsonl", read_record(inside)[0])
    assert read_record(outside)[0] != rep.game


def test_the_cached_game_line_keeps_only_the_listed_fields(tmp_path):
    # the listings read five fields of a game line; the cache of thousands kept each line whole
    # (up to 64 KB: a stacked deck, long specs)
    from experiments.serve.replays import _game_line

    path = tmp_path / "one.jsonl"
    line = (
        '{"type": "game", "format": 1, "variant": "gin_rummy_v0", "seed": 5, "agents": ["a", "b"],'
        ' "players": ["player_0", "player_1"], "options": {"episode": "hand"}, "deck": ' + str(list(range(52))) + "}\n"
    )
    path.write_text(line)
    assert _game_line(path)[0] == {
        "variant": "gin_rummy_v0",
        "seed": 5,
        "agents": ["a", "b"],
        "players": ["player_0", "player_1"],
        "options": {"episode": "hand"},
    }


def test_a_listing_stats_each_file_it_walks_once(served_folders, tmp_path, monkeypatch):
    # the Replays and Results listings stat-ed each file listed again for its time, after the
    # file cache had stat-ed it to know whether it changed; and the walk stat-ed each file
    # twice itself (Path.is_file, Path.is_symlink) before the cache stat-ed it again
    import os
    import shutil
    from collections import Counter

    from experiments.serve import replays, results
    from experiments.serve.safety import RECORD_SUFFIX, walk_inside_stat
    from tests.web.conftest import write_gin_record

    records, runs = tmp_path / "records", tmp_path / "results"
    for seed in (3, 4):
        write_gin_record(records / f"g{seed}.jsonl", seed=seed)
    shutil.copytree(served_folders[1], runs)
    stats = []

    def counted(real):
        def stat(path, *args, **kwargs):
            if str(path).endswith((".json", ".jsonl")):
                stats.append(Path(path).name)
            return real(path, *args, **kwargs)

        return stat

    walked = {
        root: Counter(p.name for p, _ in walk_inside_stat(root, suffix, 10**4))
        for root, suffix in ((records, RECORD_SUFFIX), (runs, ".json"))
    }
    assert walked[records] == Counter(["g3.jsonl", "g4.jsonl"]) and walked[runs]["summary.json"] == 1
    monkeypatch.setattr(os, "stat", counted(os.stat))
    monkeypatch.setattr(os, "lstat", counted(os.lstat))
    for root, listing in ((records, replays.list_records), (runs, results.list_runs)):
        for _ in range(2):  # read, then kept
            listed = [Path(r["name"]).name for r in listing(root)]
            assert Counter(stats) == walked[root], root  # each file walked once, whether listed or not
            stats.clear()
        assert sorted(listed) == (["g3.jsonl", "g4.jsonl"] if root == records else ["summary.json"])
    assert replays.record_index(records).keys() == {"g3.jsonl", "g4.jsonl"}
    assert Counter(stats) == walked[records]


def test_the_walk_gives_each_regular_files_stat_and_skips_what_it_must(tmp_path):
    # the walk's own stat is the one the listings' cache keeps: a link's must be its target's
    import os

    from experiments.serve.safety import walk_inside_stat

    root, outside = tmp_path / "records", tmp_path / "secret.jsonl"
    (root / "sub").mkdir(parents=True)
    outside.write_text("{}\n")
    (root / "a.jsonl").write_text("{}\n")
    (root / "sub" / "b.jsonl").write_text('{"type": "game"}\n')
    (root / "in.jsonl").symlink_to(root / "sub" / "b.jsonl")
    (root / "out.jsonl").symlink_to(outside)
    (root / "broken.jsonl").symlink_to(root / "none.jsonl")
    (root / "loop.jsonl").symlink_to(root / "loop.jsonl")
    os.mkfifo(root / "pipe.jsonl")
    found = list(walk_inside_stat(root, ".jsonl", 10))
    base = root.resolve()
    assert [p for p, _ in found] == [base / "a.jsonl", base / "in.jsonl", base / "sub" / "b.jsonl"]
    assert [st for _, st in found] == [os.stat(p) for p, _ in found]
    assert found[1][1].st_ino == found[2][1].st_ino  # the link's target's
