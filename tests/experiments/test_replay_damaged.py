"""``experiments.replay`` on damaged records (issue 27, part 3): each damaged record
ends with exit code 3 and one line naming the line and field, no traceback; a record
that the game does not follow ends with 1; good records replay with 0."""

import json
import re
import subprocess
import sys

import pytest

from experiments import replay as replay_job
from experiments.common.records import MAX_LINE_BYTES, RecordError, replay, write_record
from tests.experiments.test_records import knock_record
from tests.helpers import Fragment, usage_error, whole

# The base record (tests/experiments/test_records.py::knock_record), one JSON object a line:
# 1 game, 2 hand (the stacked Gin deck, dealer 1), 3-5 actions (pass, pass, knock KH;
# step 2 has rewards [34, -34]), 6 end (returns [34, -34]).


def delete(line, key):
    return lambda lines: lines[line - 1].pop(key)


def put(line, key, value):
    return lambda lines: lines[line - 1].__setitem__(key, value)


def replace_line(line, text):
    """Replace a whole line by raw text (not a JSON object, not JSON at all)."""

    def change(lines):
        lines[line - 1] = RawLine(text)

    return change


class RawLine(str):
    """A line written as it is."""


NESTED = "[" * 100_000 + "]" * 100_000  # json.loads raises RecursionError


def key_twice(lines):
    """Line 3 (step 0's pass) given a second 'action': JSON keeps the last, an edit unseen."""
    lines[2] = RawLine(json.dumps(lines[2])[:-1] + ', "action": 0}')


DAMAGED = [
    # a missing key
    ("no options", delete(1, "options"), "line 1 (game), field 'options': missing"),
    ("no players", delete(1, "players"), "line 1 (game), field 'players': missing"),
    ("no seed", delete(1, "seed"), "line 1 (game), field 'seed': missing"),
    ("no variant", delete(1, "variant"), "line 1 (game), field 'variant': missing"),
    ("no type", delete(3, "type"), "line 3, field 'type': missing, expected one of 'game', 'hand', 'action', 'end'"),
    ("no action", delete(3, "action"), "line 3 (action), field 'action': missing"),
    ("no agent", delete(4, "agent"), "line 4 (action), field 'agent': missing"),
    ("no step", delete(5, "step"), "line 5 (action), field 'step': missing"),
    ("no text", delete(3, "text"), "line 3 (action), field 'text': missing"),
    ("no deck", delete(2, "deck"), "line 2 (hand), field 'deck': missing"),
    ("no dealer", delete(2, "dealer"), "line 2 (hand), field 'dealer': missing"),
    ("no returns", delete(6, "returns"), "line 6 (end), field 'returns': missing"),
    ("no status", delete(6, "status"), "line 6 (end), field 'status': missing"),
    # a line that is JSON but not an object, or not JSON
    ("array line", replace_line(3, "[1, 2]"), "line 3: an array, a record line must be a JSON object"),
    ("number line", replace_line(4, "5"), "line 4: the number 5, a record line must be a JSON object"),
    ("null line", replace_line(6, "null"), "line 6: null, a record line must be a JSON object"),
    ("string line", replace_line(2, '"hand"'), "line 2: the string 'hand', a record line must be a JSON object"),
    ("not JSON", replace_line(3, "{nope"), Fragment(r"line 3: not JSON \(Expecting property name")),
    ("nested", replace_line(4, NESTED), "line 4: nested too deeply to be a record line"),
    (
        "huge int",
        replace_line(1, '{"seed": ' + "9" * 5000 + "}"),
        Fragment(r"line 1: a value no record holds \(Exceeds"),
    ),
    ("key twice", key_twice, "line 3: field 'action' is given twice"),
    # read no further than a line can be (a file of zeros or without line breaks filled the memory)
    (
        "long line",
        replace_line(4, " " * (MAX_LINE_BYTES + 1)),
        "line 4: longer than 1,000,000 bytes, which no record line is",
    ),
    (
        "no hand line",
        lambda lines: lines.pop(1),
        "line 1 (game): no hand line follows: a record holds the deck of every hand it deals",
    ),
    # a seed that is not a non-negative int
    ("seed string", put(1, "seed", "7"), "line 1 (game), field 'seed': the string '7', expected an int >= 0"),
    ("seed -1", put(1, "seed", -1), "line 1 (game), field 'seed': the number -1, expected an int >= 0"),
    ("seed 1.5", put(1, "seed", 1.5), "line 1 (game), field 'seed': the number 1.5, expected an int >= 0"),
    ("seed true", put(1, "seed", True), "line 1 (game), field 'seed': a boolean, expected an int >= 0"),
    # rewards and returns of the wrong type or length
    (
        "rewards string",
        put(5, "rewards", "34"),
        "line 5 (action), field 'rewards': the string '34', expected an array of one number per player",
    ),
    (
        "rewards one",
        put(5, "rewards", [34.0]),
        (
            "line 5 (action), field 'rewards': 1 item, expected 2 (one number per player, one "
            "per player of field 'players')"
        ),
    ),
    (
        "rewards three",
        put(5, "rewards", [34, -34, 0]),
        (
            "line 5 (action), field 'rewards': 3 items, expected 2 (one number per player, "
            "one per player of field 'players')"
        ),
    ),
    (
        "rewards null",
        put(5, "rewards", [None, 0]),
        "line 5 (action), field 'rewards': item 0 is null, expected a finite number",
    ),
    (
        "rewards nan",
        put(5, "rewards", [float("nan"), 0]),
        "line 5 (action), field 'rewards': item 0 is the number nan, expected a finite number",
    ),
    (
        "returns huge",
        put(6, "returns", [10**400, 0]),
        "line 6 (end), field 'returns': item 0 is a 401-digit number, expected a finite number",
    ),
    (
        "scores huge",
        put(6, "hand_scores", [[-(10**309), 0]]),
        "line 6 (end), field 'hand_scores': item 0, item 0 is a 310-digit number, expected a finite number",
    ),
    (
        "returns one",
        put(6, "returns", [34.0]),
        (
            "line 6 (end), field 'returns': 1 item, expected 2 (one number per player, one "
            "per player of field 'players')"
        ),
    ),
    (
        "returns object",
        put(6, "returns", {"a": 1}),
        "line 6 (end), field 'returns': an object, expected an array of one number per player",
    ),
    (
        "returns text",
        put(6, "returns", ["34", "-34"]),
        "line 6 (end), field 'returns': item 0 is the string '34', expected a finite number",
    ),
    (
        "hand scores",
        put(6, "hand_scores", [[34]]),
        (
            "line 6 (end), field 'hand_scores': item 0 is 1 item, expected 2 (one number per "
            "player, one per player of field 'players')"
        ),
    ),
    (
        "status",
        put(6, "status", "won"),
        "line 6 (end), field 'status': the string 'won', expected one of 'complete', 'quit'",
    ),
    # a deck or player list given as a number, or of the wrong size
    (
        "deck number",
        put(2, "deck", 52),
        "line 2 (hand), field 'deck': the number 52, expected an array of card or tile names",
    ),
    (
        "deck short",
        lambda lines: lines[1]["deck"].pop(),
        "line 2 (hand), field 'deck': 51 items, expected 52 (card or tile names)",
    ),
    (
        "deck ints",
        put(2, "deck", list(range(52))),
        "line 2 (hand), field 'deck': item 0 is the number 0, expected a string",
    ),
    (
        "deck name",
        lambda lines: lines[1]["deck"].__setitem__(3, "ZZ"),
        "line 2 (hand), field 'deck': item 3 is the string 'ZZ', expected a card name (AS, TD)",
    ),
    (
        "players number",
        put(1, "players", 2),
        "line 1 (game), field 'players': the number 2, expected an array of player names",
    ),
    (
        "players same",
        put(1, "players", ["a", "a"]),
        (
            "line 1 (game), field 'players': ['a', 'a'], expected the env's player names in "
            "seat order: 'player_0', 'player_1', ..."
        ),
    ),
    (
        "players other",
        put(1, "players", ["a", "b"]),
        (
            "line 1 (game), field 'players': ['a', 'b'], expected the env's player names in "
            "seat order: 'player_0', 'player_1', ..."
        ),
    ),
    (
        "players one",
        put(1, "players", ["player_0"]),
        "line 1 (game), field 'agents': 2 items, expected 1 (agent names, one per player of field 'players')",
    ),
    (
        "agents short",
        put(1, "agents", ["human"]),
        "line 1 (game), field 'agents': 1 item, expected 2 (agent names, one per player of field 'players')",
    ),
    # fields a line does not have, and a replay's render mode among the game's options
    (
        "extra",
        put(3, "extra", 1),
        (
            "line 3 (action), field 'extra': not a field of an action line (its fields: "
            "'type', 'step', 'agent', 'action', 'text', 'rewards')"
        ),
    ),
    (
        "seat key",
        put(2, "first_player", 0),
        (
            "line 2 (hand), field 'first_player': not a field of a hand line (its fields: "
            "'type', 'hand', 'deck', 'dealer')"
        ),
    ),
    (
        "render",
        put(1, "options", {"render_mode": "human"}),
        (
            "line 1 (game), field 'options': holds 'render_mode', which is how a replay is "
            "shown, not a game option (records leave it out)"
        ),
    ),
    (
        "reset key",
        put(1, "reset_options", {"cards": []}),
        (
            "line 1 (game), field 'reset_options': holds 'cards', not a reset option of "
            "gin_rummy_v0 (its reset options: deck, dealer, next_hands)"
        ),
    ),
    ("dealer string", put(2, "dealer", "1"), "line 2 (hand), field 'dealer': the string '1', expected a seat 0..1"),
    ("dealer 2", put(2, "dealer", 2), "line 2 (hand), field 'dealer': the number 2, expected a seat 0..1"),
    # values of the right type the game refuses, and lines out of order
    (
        "action string",
        put(3, "action", "pass"),
        "line 3 (action), field 'action': the string 'pass', expected an int >= 0",
    ),
    (
        "action range",
        put(3, "action", 500),
        "line 3 (action), field 'action': 500 is not an action id 0..107 (line 3, step 0 (player_0 pass))",
    ),
    (
        "variant",
        put(1, "variant", "poker_v0"),
        (
            "line 1 (game), field 'variant': the string 'poker_v0', expected one of "
            "'rummy_v0', 'crazy_rummy_v0', 'gin_rummy_v0', 'rummikub_v0'"
        ),
    ),
    (
        "options",
        put(1, "options", {"knock_limit": "high"}),
        (
            "line 1 (game), field 'options': the game cannot be set up: option "
            "knock_limit='high' is not an integer: knock_limit must be an int from 0 to "
            "1000000000"
        ),
    ),
    (
        "reset options",
        put(1, "reset_options", {"deck": ["AS"]}),
        (
            "line 1 (game), field 'reset_options': the game cannot be set up: deck has 1 "
            "cards: a stacked deck lists all 52 cards, top card first"
        ),
    ),
    ("options array", put(1, "options", []), "line 1 (game), field 'options': an array, expected an object"),
    ("format", put(1, "format", "x/2"), "record format 'x/2', this version reads 'rummy_env.record/1'"),
    ("step order", put(4, "step", 5), "line 4 (action), field 'step': 5, expected 1 (steps are numbered in order)"),
    ("hand number", put(2, "hand", 2), "line 2 (hand), field 'hand': 2, expected 1 (hands are numbered in order)"),
    (
        "type array",
        put(4, "type", ["action"]),
        "line 4, field 'type': an array, expected one of 'game', 'hand', 'action', 'end'",
    ),
    (
        "unknown type",
        put(4, "type", "bet"),
        "line 4, field 'type': the string 'bet', expected one of 'game', 'hand', 'action', 'end'",
    ),
    ("second game", put(3, "type", "game"), "line 3 (game): the game line must be the first line, and only the first"),
    ("after the end", lambda lines: lines.append(dict(lines[2])), "line 7 (action): a line after the end line"),
    (
        "hand late",
        lambda lines: lines.insert(3, lines.pop(1)),
        (
            "line 4 (hand): hand 1 is dealt by line 1 (after the reset), so its line belongs "
            "after that one and before line 2 (lines out of order)"
        ),
    ),
    (
        "deck twice",
        lambda lines: lines[1]["deck"].__setitem__(1, lines[1]["deck"][0]),
        "line 2 (hand), field 'deck': item 1 is '4D' again, expected each card once",
    ),
    (
        "action huge",
        put(3, "action", 10**400),
        (
            "line 3 (action), field 'action': a 401-digit number is not an action id 0..107 "
            "(line 3, step 0 (player_0 pass))"
        ),
    ),
    # valid JSON (written as \ud800) but no Unicode text: a page or terminal showing it fails
    (
        "surrogate agent",
        put(1, "agents", ["\ud800", "x"]),
        (
            "line 1 (game), field 'agents', item 0: a string with a lone surrogate (as "
            "\\ud800), which is no Unicode text"
        ),
    ),
    (
        "surrogate text",
        put(3, "text", "pa\udc00ss"),
        "line 3 (action), field 'text': a string with a lone surrogate (as \\ud800), which is no Unicode text",
    ),
    (
        "surrogate key",
        put(6, "\ud801", 1),
        "line 6 (end), a key: a string with a lone surrogate (as \\ud800), which is no Unicode text",
    ),
]


def write_lines(lines, path):
    path.write_text("".join((x if isinstance(x, RawLine) else json.dumps(x)) + "\n" for x in lines))
    return path


@pytest.fixture(scope="module")
def good_lines(tmp_path_factory):
    _, lines, _ = knock_record(tmp_path_factory.mktemp("good"))
    return lines


@pytest.mark.parametrize("change, message", [c[1:] for c in DAMAGED], ids=[c[0] for c in DAMAGED])
def test_a_damaged_record_exits_3_with_one_line_naming_line_and_field(change, message, good_lines, tmp_path, capsys):
    lines = json.loads(json.dumps(good_lines))
    change(lines)
    path = write_lines(lines, tmp_path / "damaged.jsonl")
    assert replay_job.main([str(path), "--quiet"]) == 3
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"record is damaged: {path}"), err
    assert "Traceback" not in err
    if isinstance(message, Fragment):  # another library's words (json's, Python's int limit) left free
        assert re.search(message, err), err
    else:  # the format has no line to name: ": record format ..."
        sep = ": " if message.startswith("record format") else ", "
        assert err == f"record is damaged: {path}{sep}{message}\n"


def test_damaged_lines_in_memory_raise_record_error(good_lines):
    lines = json.loads(json.dumps(good_lines))
    lines[-1]["returns"] = [34.0]  # used to pass np.allclose by broadcasting
    with pytest.raises(
        RecordError,
        match=whole(
            "line 6 (end), field 'returns': 1 item, expected 2 (one number per player, one per player of field "
            "'players')"
        ),
    ):
        replay(lines)
    with pytest.raises(RecordError, match=whole("line 2: an array, a record line must be a JSON object")):
        replay([good_lines[0], [1]])


@pytest.mark.parametrize(
    "change, message",
    [
        (
            put(5, "rewards", [0.0, 0.0]),
            "line 5, step 2 (player_0 knock KH): rewards [34.0, -34.0] in the replay, [0.0, 0.0] in the record",
        ),
        (
            put(6, "returns", [9.0, -9.0]),
            "line 6 (end): returns [34.0, -34.0] in the replay, [9.0, -9.0] in the record",
        ),
        # a record's text is shown quoted and cut: it cannot add a line or a terminal code
        (
            put(5, "text", "knock KH\nrecord checked\x1b[31m"),
            "line 5, step 2 (player_0 'knock KH\\nrecord checked\\x1b[31m'): action 90 is 'knock KH' in the replay",
        ),
        (
            put(5, "text", "x" * 200),
            f"line 5, step 2 (player_0 '{'x' * 79}... (a str of length 200)): action 90 is 'knock KH' in the replay",
        ),
        # an action after the game's last (the knock ended it)
        (
            lambda lines: lines.insert(5, {**lines[2], "step": 3, "agent": "player_1"}),
            "line 6, step 3 (player_1 pass): the game had ended with the action before, but the record goes on",
        ),
        (put(3, "action", 0), "line 3, step 0 (player_0 pass): the action is not legal in the replay"),
        (put(5, "text", "big gin"), "line 5, step 2 (player_0 big gin): action 90 is 'knock KH' in the replay"),
        (
            lambda lines: lines.insert(5, {**lines[1], "hand": 2}),
            "line 7 (end): the record has 2 hands, the replay dealt 1",
        ),
        (put(1, "seed", 4), None),  # the stacked deck is in reset_options: the seed changes nothing
        (
            put(2, "dealer", 0),
            (
                "line 2 (hand): hand 1 was not dealt as recorded (dealer 1 against 0): the seed "
                "or options differ from the game's"
            ),
        ),
    ],
)
def test_a_well_formed_record_the_game_does_not_follow_exits_1(change, message, good_lines, tmp_path, capsys):
    lines = json.loads(json.dumps(good_lines))
    change(lines)
    path = write_record(lines, tmp_path / "r.jsonl")
    code = replay_job.main([str(path), "--quiet"])
    err = capsys.readouterr().err
    if message is None:
        assert code == 0 and err == ""
    else:
        assert code == 1 and err == f"record does not replay: {path}, {message}\n", err


def test_the_process_exit_codes_and_no_traceback(good_lines, tmp_path):
    good = write_record(good_lines, tmp_path / "good.jsonl")
    damaged = json.loads(json.dumps(good_lines))
    damaged[0]["seed"] = "7"
    damaged = write_record(damaged, tmp_path / "damaged.jsonl")
    differs = json.loads(json.dumps(good_lines))
    differs[-1]["returns"] = [1.0, -1.0]
    differs = write_record(differs, tmp_path / "differs.jsonl")
    results = {}
    for name, path in [("good", good), ("damaged", damaged), ("differs", differs), ("missing", tmp_path / "no")]:
        run = subprocess.run(
            [sys.executable, "-m", "experiments.replay", str(path), "--quiet"], capture_output=True, text=True
        )
        results[name] = run.returncode
        assert "Traceback" not in run.stderr
    assert results == {"good": 0, "damaged": 3, "differs": 1, "missing": 2}


@pytest.mark.parametrize(
    "flags, message",
    [
        (["--fps", "nan"], "--fps must be between 0.01 and 100 (GIF frames of 10 ms to 100 s), got nan"),
        (["--fps", "inf"], "--fps must be between 0.01 and 100 (GIF frames of 10 ms to 100 s), got inf"),
        (["--fps", "1e-9"], "--fps must be between 0.01 and 100 (GIF frames of 10 ms to 100 s), got 1e-09"),
        (["--fps", "0"], "--fps must be between 0.01 and 100 (GIF frames of 10 ms to 100 s), got 0.0"),
        (
            ["--images", "/dev/null/frames"],
            Fragment("--images: cannot create the output folder: [Errno 20] Not a directory"),
        ),
        (["--gif", "game.txt"], "--gif game.txt: the file name must end in .gif (the animation is a GIF)"),
        (
            ["--gif", "/dev/null/x/game.gif"],
            Fragment("--gif: cannot create the output folder: [Errno 20] Not a directory"),
        ),
        (["--fps", "3"], "--fps 3 applies to --gif only: give --gif FILE.gif, or leave --fps out"),
        (["--pause"], "--pause waits after each step of the text, which --quiet turns off: give one of them"),
    ],
)
def test_bad_output_flags_are_usage_errors_before_the_replay(flags, message, good_lines, tmp_path, capsys):
    path = write_record(good_lines, tmp_path / "good.jsonl")
    with pytest.raises(SystemExit) as exit_:
        replay_job.main([str(path), "--quiet", *flags])
    out, err = capsys.readouterr()
    assert exit_.value.code == 2 and usage_error(err, message), err
    assert out == ""  # refused before the game line is printed or a step replayed


def test_pause_without_more_input_stops_with_130_and_no_traceback(good_lines, tmp_path):
    path = write_record(good_lines, tmp_path / "good.jsonl")
    run = subprocess.run(
        [sys.executable, "-m", "experiments.replay", str(path), "--pause"], input="\n", capture_output=True, text=True
    )
    assert run.returncode == 130 and "Traceback" not in run.stderr
    assert "replay: stopped before the end; the record was checked up to the step shown" in run.stderr


@pytest.mark.parametrize("unbuffered", ["", "1"])
def test_a_reader_that_stops_early_ends_the_replay_with_141_and_no_traceback(good_lines, tmp_path, unbuffered):
    """As ``python -m experiments.replay RECORD | head -1`` once head has gone: the pipe's
    read end is closed before the replay writes, so every write (its lines, or the last
    flush of a buffered stdout) meets a closed pipe."""
    import os

    path = write_record(good_lines, tmp_path / "good.jsonl")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    if unbuffered:
        env["PYTHONUNBUFFERED"] = unbuffered
    read_end, write_end = os.pipe()
    os.close(read_end)
    try:
        run = subprocess.run(
            [sys.executable, "-m", "experiments.replay", str(path)],
            stdout=write_end,
            stderr=subprocess.PIPE,
            env=env,
            timeout=120,
        )
    finally:
        os.close(write_end)
    assert run.returncode == 141 and run.stderr == b"", run.stderr.decode()


def test_a_rummikub_deck_holds_each_tile_twice():
    """Rummikub's 106 tiles are every coloured tile and the joker twice: a third copy is
    a damaged record even with the deck's length right."""
    from experiments.common.record_schema import FORMAT, TILE_NAMES, check_record

    game = {"type": "game", "format": FORMAT, "variant": "rummikub_v0", "options": {}, "seed": None}
    game["players"] = ["player_0", "player_1"]
    deck = sorted(TILE_NAMES) * 2
    check_record([game, {"type": "hand", "hand": 1, "deck": deck, "first_player": 0}])
    deck[1] = deck[0]  # 'B1' a third time, 'B10' once
    said = "line 2 (hand), field 'deck': item 53 is 'B1' again, expected each tile twice"
    with pytest.raises(RecordError, match=whole(said)):
        check_record([game, {"type": "hand", "hand": 1, "deck": deck, "first_player": 0}])


def test_messages_give_the_files_line_numbers_past_blank_lines(good_lines, tmp_path, capsys):
    """A record with blank lines (skipped) is cited by its file's line numbers, in the
    replay's checks as in the schema's."""
    lines = json.loads(json.dumps(good_lines))
    lines[2]["action"] = 500  # line 3 of the record, line 5 of the file below
    path = tmp_path / "blank.jsonl"
    path.write_text("\n".join([json.dumps(lines[0]), "", "", *map(json.dumps, lines[1:])]) + "\n")
    assert replay_job.main([str(path), "--quiet"]) == 3
    assert capsys.readouterr().err == (
        f"record is damaged: {path}, line 5 (action), field 'action': 500 is not an action id 0..107 "
        "(line 5, step 0 (player_0 pass))\n"
    )


def test_a_later_hand_line_out_of_place_is_refused(tmp_path):
    """Hand 2 of a whole game, dealt by the action that ended hand 1, belongs right after
    that action's line: one line earlier is a damaged record, naming both lines."""
    from agents import make_agent
    from experiments.common.records import play_recorded
    from rummy_env import gin_rummy_v0

    env = gin_rummy_v0.env(episode="game")
    players = [make_agent("heuristic", env, seed=s) for s in (0, 1)]
    _, lines = play_recorded(env, players, 0, {"episode": "game"}, ["a", "b"])
    second = next(i for i, x in enumerate(lines) if x["type"] == "hand" and x["hand"] == 2)
    assert lines[second - 1]["type"] == "action"  # the action that dealt it
    replay(lines)
    moved = lines[: second - 1] + [lines[second], lines[second - 1]] + lines[second + 1 :]
    dealer = lines[second - 1]["step"]
    said = (
        rf"^line {second} \(hand\): hand 2 is dealt by line {second + 1} \(step {dealer} .*\), so its line belongs "
        rf"after that one and before line {second + 2} \(lines out of order\)$"
    )
    with pytest.raises(RecordError, match=said):
        replay(moved)


def test_a_line_of_the_longest_length_is_read(good_lines, tmp_path, capsys):
    # the limit is the line's, without its line break: a blank line of exactly that many bytes
    # is read (and skipped, as blank lines are); one byte more is refused
    lines = json.loads(json.dumps(good_lines))
    lines.insert(3, RawLine(" " * MAX_LINE_BYTES))
    path = write_lines(lines, tmp_path / "long.jsonl")
    assert replay_job.main([str(path), "--quiet"]) == 0, capsys.readouterr().err
