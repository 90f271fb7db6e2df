"""Game records (experiments/common/records.py), experiments.replay and the tournament's --record."""

import json
import os
import re
import signal
import time

import numpy as np
import pytest
from PIL import Image

from agents import make_agent
from experiments import replay as replay_job
from experiments import tournament
from experiments.common import load_variant, play_episode
from experiments.common.records import (
    GameRecorder,
    RecordError,
    RecordMismatch,
    _deck_strings,
    play_recorded,
    read_record,
    replay,
    write_record,
)
from tests.helpers import usage_error, whole

CASES = [
    ("rummy_v0", {"num_players": 3}),
    ("crazy_rummy_v0", {"num_players": 3}),
    ("gin_rummy_v0", {}),
    ("rummikub_v0", {}),
    ("rummy_v0", {"episode": "game", "target_score": 100}),
    ("gin_rummy_v0", {"episode": "game", "reward": "score"}),
]


def recorded_game(variant, options, seed=3):
    env = load_variant(variant).env(**options)
    names = ["heuristic"] + ["random"] * (len(env.possible_agents) - 1)
    agents = [make_agent(name, env, seed=seed + i) for i, name in enumerate(names)]
    return play_recorded(env, agents, seed, options, names)


@pytest.mark.parametrize("variant, options", CASES, ids=[f"{v}-{o}" for v, o in CASES])
def test_a_record_replays_with_the_same_rewards(variant, options, tmp_path):
    result, lines = recorded_game(variant, options)
    path = write_record(lines, tmp_path / "game.jsonl")
    back = read_record(path)
    assert back == json.loads(json.dumps(lines))
    game, end = back[0], back[-1]
    assert game["variant"] == variant and game["seed"] == 3 and game["options"] == options
    assert end["status"] == "complete" and end["returns"] == result["returns"]
    hands = [x for x in back if x["type"] == "hand"]
    assert len(hands) == len(end["hand_scores"]) >= 1
    assert len(hands[0]["deck"]) == (106 if variant == "rummikub_v0" else 52)
    if options.get("episode") == "game":
        assert len(hands) >= 2  # later hands are dealt by the seeded generator and checked
    steps = [x for x in back if x["type"] == "action"]
    assert len(steps) == result["steps"] and [x["step"] for x in steps] == list(range(len(steps)))
    env = replay(back)
    state = env.unwrapped.game_state
    assert state.is_terminal() and state.history == [x["action"] for x in steps]
    assert [_deck_strings(variant, d) for d in state.hand_decks] == [x["deck"] for x in hands]
    # recording does not change the game: the same seed and agents without recording
    env2 = load_variant(variant).env(**options)
    names = game["agents"]
    agents = [make_agent(name, env2, seed=3 + i) for i, name in enumerate(names)]
    assert play_episode(env2, agents, 3)["returns"] == result["returns"]


def test_a_replay_that_parts_from_its_record_stops_with_the_reason():
    _, lines = recorded_game("gin_rummy_v0", {"reward": "score"})
    rewarded = next(i for i, x in enumerate(lines) if x.get("rewards"))
    bad = [dict(x) for x in lines]
    bad[rewarded]["rewards"] = [0.0, 0.0]
    # the seeded game: player_0 knocks at step 41 (line 44) and wins 66; the end line is line 45
    assert (rewarded, lines[rewarded]["step"], len(lines)) == (43, 41, 45)
    knock = "line 44, step 41 (player_0 knock 5H): rewards [66.0, -66.0] in the replay"
    with pytest.raises(RecordMismatch, match=whole(f"{knock}, [0.0, 0.0] in the record")):
        replay(bad)
    bad = [dict(x) for x in lines]
    bad[0]["seed"] = 4
    with pytest.raises(
        RecordMismatch,
        match=whole(
            "line 2 (hand): hand 1 was not dealt as recorded (another deck): the seed or options differ from the game's"
        ),
    ):
        replay(bad)
    bad = [dict(x) for x in lines]
    first = next(i for i, x in enumerate(bad) if x["type"] == "action")
    bad[first]["action"] = 0  # a discard during the upcard offer
    with pytest.raises(
        RecordMismatch, match=whole("line 3, step 0 (player_0 draw upcard): the action is not legal in the replay")
    ):
        replay(bad)
    # damaged records (a wrong type, an unknown variant, options or a deck the env refuses)
    # raise RecordError: tests/experiments/test_replay_damaged.py
    bad = [dict(x) for x in lines]
    bad[first]["action"] = "pass"
    with pytest.raises(
        RecordError, match=whole("line 3 (action), field 'action': the string 'pass', expected an int >= 0")
    ):
        replay(bad)
    bad = [dict(x) for x in lines]
    bad[-1]["returns"] = [5.0, -5.0]
    with pytest.raises(
        RecordMismatch, match=whole("line 45 (end): returns [66.0, -66.0] in the replay, [5.0, -5.0] in the record")
    ):
        replay(bad)
    for huge in (10**30, -(10**20)):  # JSON integers beyond int64 (numpy's allclose raised TypeError)
        bad = [dict(x) for x in lines]
        bad[-1]["returns"] = [huge, 0]
        said = f"line 45 (end): returns [66.0, -66.0] in the replay, [{huge}, 0] in the record"
        with pytest.raises(RecordMismatch, match=whole(said)):
            replay(bad)
        bad = [dict(x) for x in lines]
        bad[rewarded]["rewards"] = [0, huge]
        with pytest.raises(RecordMismatch, match=whole(f"{knock}, [0, {huge}] in the record")):
            replay(bad)
    # the end line's scores and status (the web arena's table shows the scores)
    end = lines[-1]
    assert end["status"] == "complete" and len(end["hand_scores"]) == 1 and sorted(end["total_scores"])[0] == 0
    for field, value, message in [
        ("hand_scores", [end["hand_scores"][0][::-1]], "hand_scores [[66, 0]] in the replay, [[0, 66]] in the record"),
        ("hand_scores", [], "hand_scores [[66, 0]] in the replay, [] in the record"),
        ("total_scores", end["total_scores"][::-1], "total_scores [66, 0] in the replay, [0, 66] in the record"),
        ("status", "quit", "the record says the game was quit, but the replay played it to its end"),
    ]:
        bad = [dict(x) for x in lines]
        bad[-1][field] = value
        with pytest.raises(RecordMismatch, match=whole(f"line 45 (end): {message}")):
            replay(bad)


def test_without_a_seed_only_the_first_hand_replays():
    _, lines = recorded_game("gin_rummy_v0", {})
    lines[0]["seed"] = None
    assert replay(lines).unwrapped.game_state.is_terminal()  # one hand: from its deck and dealer
    _, lines = recorded_game("rummy_v0", {"episode": "game", "target_score": 100})
    lines[0]["seed"] = None
    with pytest.raises(
        RecordMismatch,
        match=whole(
            "line 37, step 34 (player_0 discard AD): hand 2 is dealt by the env's generator, but a record without "
            "a seed replays only its first hand"
        ),
    ):
        replay(lines)


def test_a_crazy_rummy_record_holds_each_rounds_wild_rank_and_replays_without_a_seed():
    # a one-round episode draws its wild rank from the seed: without the seed the hand
    # line's wild_rank is what replays it
    ranks = []
    for seed in range(5):
        _, lines = recorded_game("crazy_rummy_v0", {"num_players": 3}, seed=seed)
        hand = next(x for x in lines if x["type"] == "hand")
        ranks.append(hand["wild_rank"])
        lines[0]["seed"] = None
        state = replay(lines).unwrapped.game_state
        assert state.is_terminal() and state.wild_rank + 1 == hand["wild_rank"]
    assert ranks == [9, 7, 4, 2, 13]
    _, lines = recorded_game("crazy_rummy_v0", {"num_players": 3, "episode": "game", "max_hands": 2})
    assert [x["wild_rank"] for x in lines if x["type"] == "hand"] == [1, 2]  # R-CRAZY-02: rounds in order
    _, lines = recorded_game("crazy_rummy_v0", {"num_players": 3}, seed=0)
    bad = [dict(x) for x in lines]
    bad[1]["wild_rank"] = 8
    with pytest.raises(
        RecordMismatch,
        match=whole(
            "line 2 (hand): hand 1 was not dealt as recorded (wild rank 9 against 8): the seed or options differ "
            "from the game's"
        ),
    ):
        replay(bad)
    bad[1]["wild_rank"] = 14
    with pytest.raises(
        RecordError,
        match=whole("line 2 (hand), field 'wild_rank': the number 14, expected a wild rank 1..13 (1 = aces)"),
    ):
        replay(bad)
    old = [dict(x) for x in lines]  # a record written before the wild rank was recorded
    del old[1]["wild_rank"]
    assert replay(old).unwrapped.game_state.is_terminal()


def test_read_record_refuses_other_files(tmp_path):
    path = tmp_path / "x.jsonl"
    path.write_text('{"type": "action"}\n')
    with pytest.raises(ValueError, match=whole(f"{path} is not a game record: its first line must be the game line")):
        read_record(path)
    path.write_text("{nope\n")
    # after "not JSON": the json module's own words
    with pytest.raises(ValueError, match=f"^{re.escape(f'{path}, line 1: not JSON (')}.+\\)$"):
        read_record(path)


def test_tournament_records_the_chosen_number_of_games_and_they_replay(tmp_path, capsys):
    out, rec = tmp_path / "out", tmp_path / "rec"
    argv = ["--variants", "gin_rummy", "--agents", "random", "heuristic", "--deals", "3", "--workers", "1"]
    assert (
        tournament.main(argv + ["--out", str(out), "--no-progress", "--record", str(rec), "--record-games", "3"]) == 0
    )
    files = sorted(p.name for p in rec.iterdir())
    # one lineup, two seat rotations per deal: the first three games are deal 0 (both) and deal 1 rotation 0
    assert files == [
        "gin_rummy_v0-random-heuristic-deal0-rot0.jsonl",
        "gin_rummy_v0-random-heuristic-deal0-rot1.jsonl",
        "gin_rummy_v0-random-heuristic-deal1-rot0.jsonl",
    ]
    games = {}
    for line in (out / "games.csv").read_text().splitlines()[1:]:
        _, _, deal, seed, rotation, seat, _, ret, *_ = line.split(",")
        games[(int(deal), int(rotation), int(seat))] = (int(seed), float(ret))
    for name in files:
        lines = read_record(rec / name)
        deal, rotation = int(name.split("deal")[1].split("-")[0]), int(name.split("rot")[1].split(".")[0])
        assert lines[0]["seed"] == games[(deal, rotation, 0)][0]
        assert lines[-1]["returns"] == [games[(deal, rotation, s)][1] for s in (0, 1)]
        capsys.readouterr()
        assert replay_job.main([str(rec / name), "--quiet"]) == 0
        assert "record checked" in capsys.readouterr().out
    # the same run again replaces its own records (another run's would be refused)
    before = {name: (rec / name).read_bytes() for name in files}
    again = argv + ["--out", str(tmp_path / "out2"), "--no-progress", "--record", str(rec), "--record-games", "3"]
    assert tournament.main(again) == 0
    assert {p.name: p.read_bytes() for p in rec.iterdir()} == before


def knock_record(tmp_path):
    """The README's stacked Gin hand: both pass the upcard, player_0 draws KH and knocks."""
    from rummy_env import gin_rummy_v0
    from rummy_env.games.gin_rummy import stack_deck

    deck = stack_deck(
        ["4D 5D 6D 2C 3C 4C JS QS KS 3H", "7C 7D 7H 7S 8D QH JH 9C 6S 2H"], upcard="AS", stock=["KH"], dealer=1
    )
    env = gin_rummy_v0.env(reward="score")
    reset_options = {"deck": deck, "dealer": 1}
    env.reset(seed=0, options=reset_options)
    rec = GameRecorder(env, {"reward": "score"}, 0, reset_options, ["human", "heuristic"])
    rec.start()
    for move in ["pass", "pass", "knock KH"]:
        agent, action = env.agent_selection, env.unwrapped.string_to_action(move)
        env.step(action)
        rec.step(agent, action)
    return rec.lines[:2], rec.finish(), rec.write(tmp_path / "knock.jsonl")


def test_numpy_option_values_are_recorded_as_json_and_replay(tmp_path):
    from rummy_env import gin_rummy_v0

    options = {"oklahoma": np.True_, "max_turns": np.int64(40), "reward": "score"}  # env() takes them
    env = gin_rummy_v0.env(**options)
    env.reset(seed=np.int64(5))
    rec = GameRecorder(env, options, np.int64(5))
    rec.start()
    agent = make_agent("heuristic", env)
    for name in env.agent_iter(6):
        action = agent.act(*env.last()[::4])
        env.step(action)
        rec.step(name, action)
    rec.finish("quit")
    back = read_record(rec.write(tmp_path / "numpy.jsonl"))
    assert back[0]["options"] == {"oklahoma": True, "max_turns": 40, "reward": "score"}
    assert type(back[0]["options"]["oklahoma"]) is bool
    assert type(back[0]["seed"]) is int and back[0]["seed"] == 5
    assert replay(back).unwrapped.game_state.history == env.unwrapped.game_state.history


@pytest.mark.parametrize("seed", [-1, 1.5, True, "three"])
def test_a_seed_a_record_cannot_hold_is_refused_before_the_game(seed):
    from rummy_env import gin_rummy_v0

    env = gin_rummy_v0.env()
    env.reset(seed=5)
    with pytest.raises(ValueError) as err:
        GameRecorder(env, {}, seed)
    assert str(err.value) == f"seed={seed!r} is not a seed: seed must be None or an int >= 0 (a record's seed)"


def test_a_stacked_deal_is_recorded_with_its_reset_options(tmp_path):
    _, lines, path = knock_record(tmp_path)
    back = read_record(path)
    assert back[0]["reset_options"]["deck"][:3] == ["4D", "7C", "5D"]  # dealt one at a time from the non-dealer
    assert back[1] == {"type": "hand", "hand": 1, "deck": back[0]["reset_options"]["deck"], "dealer": 1}
    assert [(x["agent"], x["text"]) for x in back if x["type"] == "action"] == [
        ("player_0", "pass"),
        ("player_1", "pass"),
        ("player_0", "knock KH"),
    ]
    assert back[-2]["rewards"] == [34.0, -34.0] and back[-1]["returns"] == [34.0, -34.0]
    assert back[-1]["hand_scores"] == [[34, 0]] and back[-1]["total_scores"] == [34, 0]
    assert replay(back).unwrapped.game_state.last_hand["result"] == "knock"
    # a quit asked for after the game's last move (Ctrl-C then) records the game as complete
    rec = GameRecorder(replay(back), {"reward": "score"}, 0, back[0]["reset_options"], ["human", "heuristic"])
    assert rec.finish("quit")[-1]["status"] == "complete"


def test_replay_job_shows_the_steps_and_writes_a_gif_and_images(tmp_path, capsys):
    _, lines, path = knock_record(tmp_path)
    assert replay_job.main([str(path), "--gif", str(tmp_path / "g.gif"), "--images", str(tmp_path / "frames")]) == 0
    out = capsys.readouterr().out
    assert "== deal" in out and "== step 2: player_0 knock KH" in out
    assert (
        "record checked: 3 steps, rewards as recorded (complete, game over); returns player_0 34, player_1 -34" in out
    )
    gif = Image.open(tmp_path / "g.gif")
    assert gif.n_frames == 4 and gif.size == (960, 560)
    assert sorted(p.name for p in (tmp_path / "frames").iterdir()) == [f"step000{i}.png" for i in range(4)]
    # a later replay into the same folder leaves none of an earlier, longer one's frames
    for i in range(4, 9):
        (tmp_path / "frames" / f"step000{i}.png").write_bytes(b"an earlier game's frame")
    (tmp_path / "frames" / "notes.txt").write_text("kept")
    assert replay_job.main([str(path), "--quiet", "--images", str(tmp_path / "frames")]) == 0
    assert "wrote 4 images to " + f"{tmp_path / 'frames'}/; removed 5 later step images of an earlier replay" in (
        capsys.readouterr().out
    )
    names = sorted(p.name for p in (tmp_path / "frames").iterdir())
    assert names == ["notes.txt"] + [f"step000{i}.png" for i in range(4)]
    lines[-1]["returns"] = [9.0, -9.0]
    write_record(lines, path)
    assert replay_job.main([str(path), "--quiet"]) == 1
    assert capsys.readouterr().err == (
        f"record does not replay: {path}, line 6 (end): returns [34.0, -34.0] in the replay, "
        "[9.0, -9.0] in the record\n"
    )
    with pytest.raises(SystemExit):
        replay_job.main([str(path), "--seat", "player_5"])
    assert usage_error(capsys.readouterr().err, "--seat 'player_5' is not a player of this game: player_0, player_1")


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_stop_while_the_gif_is_written_keeps_the_earlier_gif(tmp_path, capsys, monkeypatch, signum):
    _, _, path = knock_record(tmp_path)
    gif = tmp_path / "g.gif"
    assert replay_job.main([str(path), "--gif", str(gif), "--quiet"]) == 0
    before = gif.read_bytes()

    def cut(self, fp, *args, **kwargs):
        fp.write(b"GIF89a")  # the file begun, then the signal
        os.kill(os.getpid(), signum)
        time.sleep(5)  # its handler runs before this ends

    monkeypatch.setattr(Image.Image, "save", cut)
    assert replay_job.main([str(path), "--gif", str(gif), "--quiet"]) == 128 + int(signum)
    assert gif.read_bytes() == before and not (tmp_path / "g.gif.part").exists()
    assert capsys.readouterr().err == f"replay: stopped while writing {gif}; nothing written there\n"


def test_an_agent_name_of_bytes_that_are_not_utf8_is_recorded_escaped(tmp_path):
    """A ``policy:PATH`` from a command line of non-UTF-8 bytes reaches Python with lone
    surrogates, which a record may not hold: the recorder writes them escaped, and the
    record reads back and replays."""
    import os

    from rummy_env import gin_rummy_v0

    name = os.fsdecode(b"policy:/models/\xff.pt")
    env = gin_rummy_v0.env()
    players = [make_agent("random", env, seed=s) for s in (0, 1)]
    _, lines = play_recorded(env, players, 3, {}, [name, "random"])
    back = read_record(write_record(lines, tmp_path / "escaped.jsonl"))
    assert back[0]["agents"] == ["policy:/models/\\udcff.pt", "random"]
    replay(back)


def test_a_gif_that_cannot_be_written_is_refused_before_the_replay(tmp_path, capsys, monkeypatch):
    _, _, path = knock_record(tmp_path)
    # root writes to a folder without write permission; a read-only mount is what stops it
    frames = tmp_path / "frames"
    frames.mkdir()
    (frames / "step0007.png").write_bytes(b"an earlier game's frame")
    monkeypatch.setattr(replay_job.os, "access", lambda p, mode: p != tmp_path / "ro")
    with pytest.raises(SystemExit) as stop:
        replay_job.main([str(path), "--gif", str(tmp_path / "ro" / "g.gif"), "--images", str(frames)])
    said = capsys.readouterr()
    assert stop.value.code == 2
    assert usage_error(
        said.err,
        f"--gif: cannot create the output folder: {tmp_path / 'ro'} is not writable; give one that can be made and "
        "written",
    )
    assert "== deal" not in said.out  # nothing replayed or rendered first
    assert [f.name for f in frames.iterdir()] == ["step0007.png"]  # and nothing removed


def test_records_of_a_lineup_of_long_policy_paths_get_short_names_the_results_page_finds(tmp_path):
    # the name held the whole lineup: past 255 bytes writing the record failed (OSError: File
    # name too long) with a traceback, after the games were played
    import shutil
    from pathlib import Path

    from experiments.serve.results import record_file_name
    from experiments.tournament.deals import MAX_LINEUP_CHARS, lineup_slug

    deep = tmp_path.joinpath(*["d" * 60] * 4)
    deep.mkdir(parents=True)
    shutil.copy(Path(__file__).resolve().parents[2] / "docs/results/selfplay-gin/model.pt", deep / "model.pt")
    policy = f"policy:{deep / 'model.pt'}"
    slug = lineup_slug(["random", policy])
    assert len(slug) == MAX_LINEUP_CHARS == 160
    assert slug.startswith("random-policy_") and slug != lineup_slug(["heuristic", policy])
    assert lineup_slug(["random", "heuristic"]) == "random-heuristic"  # short names as before
    rec = tmp_path / "rec"
    argv = ["--variants", "gin_rummy", "--agents", "random", policy, "--deals", "1", "--workers", "1"]
    assert tournament.main([*argv, "--out", str(tmp_path / "out"), "--no-progress", "--record", str(rec)]) == 0
    name = f"gin_rummy_v0-{slug}-deal0-rot0.jsonl"
    assert [p.name for p in rec.iterdir()] == [name]
    assert record_file_name("gin_rummy_v0", f"random vs {policy}", 0, 0) == name
    assert replay_job.main([str(rec / name), "--quiet"]) == 0
