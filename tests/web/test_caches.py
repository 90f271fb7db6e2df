"""What the server keeps between requests: a replay keeps its moves compactly, not the
record's parsed lines, and the Results page reads a record's game line again only when its
file changed."""

import gc
import tracemalloc

from agents import make_agent
from experiments.common import load_variant
from experiments.common.records import play_recorded, read_record, write_record


def test_a_replay_keeps_its_moves_not_the_records_parsed_lines(tmp_path):
    # a replay kept the parsed lines: some 8 times the record's size (8.6 MB for a 1 MB
    # upload of 11,657 Gin steps), for each of the 16 replays kept
    from experiments.serve.replays import Replay

    options = {"episode": "game", "target_score": 10**9, "max_hands": 20}
    env = load_variant("gin_rummy_v0").env(**options)
    agents = [make_agent("random", env, seed=1), make_agent("random", env, seed=2)]
    _, played = play_recorded(env, agents, 7, options, ["random", "random"])
    path = write_record(played, tmp_path / "long.jsonl")
    size = path.stat().st_size
    Replay(read_record(path), "warm-up")  # what the first replay imports is not the replay's
    gc.collect()
    actions = [x for x in played if x["type"] == "action"]  # made before the count starts
    tracemalloc.start()
    try:
        lines = read_record(path)
        parsed = tracemalloc.get_traced_memory()[0]
        rep = Replay(lines, "long")
        del lines
        rep._checkpoints.clear()  # the state copies are bounded apart (another test): the rest is the moves
        gc.collect()
        kept = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    assert (len(actions), size // 1000) == (2245, 210)
    assert parsed > 5 * size  # the parsed lines, let go
    assert kept < size // 2, (kept, size)  # 72 kB: the moves, and the engine caches the replay filled
    meta = rep.meta()
    assert meta["steps"] == len(actions) and meta["moves"] == [
        {"step": i + 1, "agent": x["agent"], "text": x["text"]} for i, x in enumerate(actions)
    ]
    assert [rep.move(i) for i in (0, 1, len(actions) - 1)] == [
        {k: actions[i][k] for k in ("agent", "action", "text")} for i in (0, 1, len(actions) - 1)
    ]
