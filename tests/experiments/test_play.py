"""experiments.play driven through a pseudo-terminal (pexpect), and its input parsing."""

import os
import sys
from pathlib import Path

import pexpect
import pytest

from experiments import play as play_job
from experiments.common.records import read_record, replay
from experiments.play import parse_move
from rummy_env import rummikub_v0

ROOT = Path(__file__).resolve().parents[2]
PROMPT = r"your move \(number or text; hint, moves, help, quit\)> "


def spawn(tmp_path, *args):
    argv = ["-m", "experiments.play", "--variant", "gin_rummy", "--opponents", "heuristic", "--record", str(tmp_path)]
    return pexpect.spawn(
        sys.executable,
        argv + list(args),
        cwd=ROOT,
        encoding="utf-8",
        timeout=20,
        env=dict(os.environ),
        dimensions=(50, 200),
    )


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
        ("draw stock", r"'draw stock' is not legal now: choose one of the moves listed"),
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
    child.expect(r"record: (\S+\.jsonl) ")
    path = child.match.group(1)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    lines = read_record(path)
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
    child.expect(r"record: (\S+\.jsonl) ")
    path = child.match.group(1)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0
    lines = read_record(path)
    assert lines[-1]["status"] == "quit"
    assert not replay(lines).unwrapped.game_state.is_terminal()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--opponents", "nobody"], "unknown agent 'nobody' for gin_rummy_v0"),
        (["--seat", "player_3"], "--seat 'player_3' is not a seat of this game: player_0, player_1"),
        (["--variant", "rummy", "--env-option", "num_players=4", "--opponents", "random", "heuristic"], "2 opponents"),
        (["--variant", "poker"], "unknown variant 'poker'"),
        (["--env-option", "knock_limit=-2"], "knock_limit=-2 is out of range"),
        (["--env-option", "render_mode=human"], "render_mode is not an option here"),
    ],
)
def test_bad_arguments_are_usage_errors(args, message, capsys):
    with pytest.raises(SystemExit) as exit_:
        play_job.main(["--no-record", *args])
    assert exit_.value.code == 2 and message in capsys.readouterr().err


def test_rummikub_moves_are_read_as_numbers_or_text():
    raw = rummikub_v0.raw_env()
    legal = [0, 6, 19, 54]  # add R1, add R7, add B7, draw
    assert parse_move("add R7", legal, raw) == (6, "")
    assert parse_move("  ADD   b7 ", legal, raw) == (19, "")
    assert parse_move("4", legal, raw) == (54, "")
    assert parse_move("pass", legal, raw) == (54, "")  # 'pass' is read as the draw id
    assert parse_move("commit", legal, raw) == (None, "'commit' is not legal now: choose one of the moves listed")
    action, why = parse_move("add R14", legal, raw)
    assert action is None and why.startswith("'add R14' is not a move: ") and "Type a number from 1 to 4" in why
