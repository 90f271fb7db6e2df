"""experiments.play driven through a pseudo-terminal (pexpect), and its input parsing."""

import os
import signal
import subprocess
import sys
from pathlib import Path

import pexpect
import pytest

from experiments import play as play_job
from experiments.common.records import read_record, replay
from experiments.play import parse_move
from rummy_env import rummikub_v0
from tests.helpers import unknown_agent, usage_error

ROOT = Path(__file__).resolve().parents[2]
PROMPT = r"your move \(number or text; hint, moves, help, quit\)> "


def spawn(tmp_path, *args, variant="gin_rummy"):
    argv = ["-m", "experiments.play", "--variant", variant, "--opponents", "heuristic", "--record", str(tmp_path)]
    return pexpect.spawn(
        sys.executable,
        argv + list(args),
        cwd=ROOT,
        encoding="utf-8",
        timeout=60,  # generous: on a loaded CI machine a fresh venv's first imports are slow
        env=dict(os.environ),
        dimensions=(50, 200),
        preexec_fn=default_sigint,
    )


def default_sigint():
    # a terminal's program starts with Ctrl-C at its default; a pytest-xdist worker that ran
    # other jobs may pass on another disposition or a blocked SIGINT to the child
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT])


def record_at_exit(child):
    """The record a game names as the program ends (with exit code 0)."""
    child.expect(r"record: (\S+\.jsonl) ")
    path = child.match.group(1)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    return read_record(path)


def test_a_whole_game_with_bad_input_hints_and_a_record_that_replays(tmp_path):
    child = spawn(tmp_path, "--seed", "7")
    child.expect(r"gin_rummy_v0 default options, seed 7: player_0 you, player_1 heuristic")
    child.expect(r"player_0's hand: ")
    child.expect(r"1\. draw upcard +2\. pass")
    child.expect(PROMPT)
    for bad, message in [
        ("xyz", r"'xyz' is not a move: action text 'xyz' is not a Gin Rummy action"),
        ("99", r"there is no move 99: choose a number from 1 to 2"),
        ("0", r"there is no move 0: choose a number from 1 to 2"),
        (  # the engine's reason (its IllegalActionError message)
            "draw stock",
            r"'draw stock' is not legal now: action 104 \(draw stock\) is not legal for player 0 now; "
            r"legal: draw upcard, pass",
        ),
        ("discard 1S", r"'discard 1S' is not a move: .*card '1S' is not a card"),
        ("hint", r"hint: the heuristic would play (draw upcard \(1\)|pass \(2\))"),
        ("help", r"type the number of a move, or its text as listed"),
        ("moves", r"1\. draw upcard +2\. pass"),
        ("", ""),
    ]:
        child.sendline(bad)
        if message:
            child.expect(message)
        child.expect(PROMPT)
    child.sendline("pass")  # a move as text
    child.expect("you play: pass")
    moves = 1
    while child.expect([PROMPT, r"game over: returns ([^\r\n]*)\r\n"]) == 0:
        child.sendline("1")
        moves += 1
    returns = child.match.group(1)
    lines = record_at_exit(child)
    assert lines[0]["agents"] == ["human", "heuristic"] and lines[0]["seed"] == 7
    assert lines[-1]["status"] == "complete"
    human = [x for x in lines if x["type"] == "action" and x["agent"] == "player_0"]
    assert len(human) == moves and human[0]["text"] == "pass"
    want = ", ".join(
        f"player_{i} ({who}) {r:+g}"
        for i, (who, r) in enumerate(zip(["you", "heuristic"], lines[-1]["returns"], strict=True))
    )
    assert returns.strip() == want
    env = replay(lines)  # the same rewards step by step, the same returns
    assert env.unwrapped.game_state.is_terminal()


@pytest.mark.parametrize("how", ["quit", "eof"])
def test_quit_and_end_of_input_end_cleanly_and_keep_the_record(tmp_path, how):
    child = spawn(tmp_path, "--seed", "2")
    child.expect(PROMPT)
    child.sendline("1")
    child.expect("you play: ")
    child.expect(PROMPT)
    if how == "quit":
        child.sendline("quit")
    else:
        child.sendeof()
    child.expect(r"game abandoned \(quit\)")
    lines = record_at_exit(child)
    assert lines[-1]["status"] == "quit"
    assert not replay(lines).unwrapped.game_state.is_terminal()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--opponents", "nobody"], unknown_agent("nobody", "gin_rummy_v0")),
        (["--seat", "player_3"], "--seat 'player_3' is not a seat of this game: player_0, player_1"),
        (
            ["--variant", "rummy", "--env-option", "num_players=4", "--opponents", "random", "heuristic"],
            (
                "2 opponents given for 3 other seat(s): give one name for all, or one per seat (player_1, "
                "player_2, player_3)"
            ),
        ),
        (
            ["--variant", "poker"],
            "unknown variant 'poker': known variants are rummy_v0, crazy_rummy_v0, gin_rummy_v0, rummikub_v0",
        ),
        (
            ["--env-option", "knock_limit=-2"],
            "option knock_limit=-2 is out of range: knock_limit must be an int from 0 to 1000000000",
        ),
        (["--env-option", "render_mode=human"], "the game is shown as text: render_mode is not an option here"),
        # the record's folder is checked before the game (it used to fail after it, record lost)
        (
            ["--record", "/dev/null/x"],
            "--record '/dev/null/x' cannot be made or written: '/dev/null' is not a writable folder",
        ),
        (["--record", ""], "argument --record: an empty path: give a file or folder name"),
        (["--seed", "-1"], "--seed must be an int from 0 to 18446744073709551615, got -1"),
        # the record's name holds the seed: a 300-digit one failed to be written after the game
        (
            ["--seed", "9" * 300, "--record", "REC"],
            f"--seed must be an int from 0 to {2**64 - 1}, got {'9' * 300}",
        ),
    ],
)
def test_bad_arguments_are_usage_errors(args, message, capsys, tmp_path):
    args = [str(tmp_path / "rec") if a == "REC" else a for a in args]
    with pytest.raises(SystemExit) as exit_:
        play_job.main([*([] if "--record" in args else ["--no-record"]), *args])
    assert exit_.value.code == 2 and usage_error(capsys.readouterr().err, message)
    assert not (tmp_path / "rec").exists()


def test_rummikub_moves_are_read_as_numbers_or_text():
    raw = rummikub_v0.raw_env()
    legal = [0, 6, 19, 54]  # add R1, add R7, add B7, draw
    assert parse_move("add R7", legal, raw) == (6, "")
    assert parse_move("  ADD   b7 ", legal, raw) == (19, "")
    assert parse_move("4", legal, raw) == (54, "")
    assert parse_move("pass", legal, raw) == (54, "")  # 'pass' is read as the draw id
    assert parse_move("commit", legal, raw) == (None, "'commit' is not legal now: choose one of the moves listed")
    raw.reset(seed=6)  # player_0 may add R3 or R13, or draw
    assert parse_move("add R7", [2, 12, 54], raw) == (
        None,
        "'add R7' is not legal now: action 6 (add R7) is not legal for player 0 now; legal: add R3, add R13, draw",
    )
    action, why = parse_move("add R14", legal, raw)
    assert action is None and why.startswith("'add R14' is not a move: ") and "Type a number from 1 to 4" in why


@pytest.mark.parametrize(
    "variant, examples",
    [
        ("gin_rummy", "'draw upcard', 'pass', 'discard KD', 'knock 4H'"),
        ("rummy", "'draw stock', 'meld 3S 4S 5S', 'layoff 6S high', 'discard KD'"),
        ("crazy_rummy", "'draw discard', 'meld 7C 7D 7H', 'swap 9S', 'discard KD'"),
        ("rummikub", "'add R7' (a play's tiles in non-decreasing order), 'commit', 'draw'"),
    ],
)
def test_each_variant_gives_its_own_examples(tmp_path, variant, examples):
    child = spawn(tmp_path, "--seed", "1", "--no-record", variant=variant)
    child.expect(r"seed 1: [^\r\n]*\r\n")
    child.expect(r"type the number of a move, or its text as listed \(e\.g\. ([^;]*)\); ([^\r\n]*)\r\n")
    assert child.match.group(1) == examples
    undo = ", 'undo' takes back the last tile added to your play" if variant == "rummikub" else ""
    assert (
        child.match.group(2) == f"'hint' asks the heuristic, 'moves' lists the moves again{undo}, 'quit' ends the game"
    )
    child.sendeof()
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0


RUMMIKUB_PROMPT = r"your move \(number or text; hint, moves, undo, help, quit\)> "


def test_rummikub_undo_takes_back_the_last_tile_of_the_play(tmp_path):
    child = spawn(tmp_path, "--seed", "6", variant="rummikub")  # player_0 opens: add R3 or R13, or draw
    child.expect(r"1\. add R3 +2\. add R13 +3\. draw")
    child.expect(RUMMIKUB_PROMPT)
    child.sendline("undo")
    child.expect(r"nothing to undo: no tile has been added to your play this turn")
    child.expect(RUMMIKUB_PROMPT)
    for move in ("add R3", "add R13"):
        child.sendline(move)
        child.expect(f"you play: {move}")
        child.expect(RUMMIKUB_PROMPT)
    child.sendline("undo")
    child.expect(r"undo: add R13 taken back")
    child.expect(r"play being built: R3\r\n")
    child.expect(r"1\. add R13\r\n")  # the moves after R3 alone, as before
    child.expect(RUMMIKUB_PROMPT)
    child.sendline("undo")
    child.expect(r"undo: add R3 taken back")
    child.expect(r"1\. add R3 +2\. add R13 +3\. draw")  # the turn's start again
    child.expect(RUMMIKUB_PROMPT)
    child.sendline("add R13")
    child.expect("you play: add R13")
    child.expect(RUMMIKUB_PROMPT)
    child.sendline("quit")
    lines = record_at_exit(child)
    assert [(x["step"], x["agent"], x["text"]) for x in lines if x["type"] == "action"] == [(0, "player_0", "add R13")]
    state = replay(lines).unwrapped.game_state
    assert state.chosen.nonzero()[0].tolist() == [12] and state.history == [12]


def test_ctrl_c_exits_130_with_one_line_and_keeps_the_record(tmp_path):
    child = spawn(tmp_path, "--seed", "2")
    child.expect(PROMPT)
    child.sendline("1")
    child.expect("you play: ")
    child.expect(PROMPT)
    child.kill(signal.SIGINT)  # what Ctrl-C sends, without the pty's line discipline in between
    child.expect(r"interrupted \(Ctrl-C\): game abandoned; record (\S+\.jsonl)\r\n")
    path, before = child.match.group(1), child.before
    child.expect(pexpect.EOF)
    after = child.before
    child.close()
    assert child.exitstatus == 130 and child.signalstatus is None
    assert before.strip() in ("", "^C") and after == ""  # one line, no traceback
    lines = read_record(path)
    assert lines[-1]["status"] == "quit" and lines[2]["agent"] == "player_0"
    assert not replay(lines).unwrapped.game_state.is_terminal()


def test_an_opponent_choosing_an_illegal_action_ends_the_game_with_its_message_and_record(tmp_path):
    # Gin, seed 5: player_1 deals, so the opponent in seat 0 opens (R-GIN-03) and the broken
    # agent picks the lowest illegal id, 0 (discard AC)
    broken = "tests.experiments.custom_agent:FirstIllegalAgent"
    child = spawn(tmp_path, "--seed", "5", "--seat", "player_1", "--opponents", broken)
    child.expect(r"game abandoned; the moves before it: record (\S+\.jsonl)\r\n")
    path, before = child.match.group(1), child.before
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 1
    assert before.splitlines()[-1] == (
        f"error: agent {broken!r} in seat 0 (player_0), game seed 5, chose action 0 (discard AC) which is not "
        "legal here: the legal actions are 105 (draw upcard), 106 (pass): "
    )
    lines = read_record(path)
    assert lines[-1]["status"] == "quit" and [x for x in lines if x["type"] == "action"] == []


def test_digits_int_refuses_and_long_numbers_are_not_moves():
    raw = rummikub_v0.raw_env()
    legal = [0, 6, 19, 54]
    # '²' is a digit to str.isdigit() but not to int(); 5,000 digits are past int()'s limit
    assert parse_move("²", legal, raw) == (
        None,
        "'²' is not a move: action text '²' is not a Rummikub action: use one of 'add <tile>' (e.g. 'add R7', "
        "'add JK'), 'commit', 'draw', 'pass'. Type a number from 1 to 4, a move as listed, or help",
    )
    long = (None, "there is no move 1111111111111111...: choose a number from 1 to 4")
    assert parse_move("1" * 5000, legal, raw) == long
    assert parse_move("000000003", legal, raw) == (None, "there is no move 000000003: choose a number from 1 to 4")
    assert parse_move("03", legal, raw) == (19, "")


def test_input_that_is_not_utf8_is_a_bad_move_not_a_crash(tmp_path):
    # a strict stdin decoder (PYTHONIOENCODING=utf-8) raised UnicodeDecodeError out of input()
    env = {**os.environ, "PYTHONIOENCODING": "utf-8"}
    argv = [sys.executable, "-m", "experiments.play", "--variant", "gin_rummy", "--seed", "5"]
    done = subprocess.run(
        [*argv, "--opponents", "heuristic", "--record", str(tmp_path)],
        input=b"\xff\xfe\nquit\n",
        capture_output=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )
    out = done.stdout.decode()
    assert done.returncode == 0 and "Traceback" not in done.stderr.decode(), done.stderr
    assert "'\\udcff\\udcfe' is not a move: action text '\\udcff\\udcfe' is not a Gin Rummy action" in out
    assert "game abandoned (quit)" in out
    (record,) = tmp_path.glob("*.jsonl")
    assert read_record(record)[-1]["status"] == "quit"
