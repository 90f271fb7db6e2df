"""``python -m experiments.dev.heuristic_vs_random``: the report and bad use."""

import pytest

from experiments.dev import heuristic_vs_random
from tests.helpers import usage_error


def test_reports_the_win_share_and_for_crazy_rummy_the_mean_reading(capsys):
    assert heuristic_vs_random.main(["--variant", "crazy_rummy", "--episodes", "60"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("crazy_rummy_v0: heuristic against random agents, 60 episodes in ")
    # the same 60 rounds as tests/agents/test_crazy_heuristic.py: 52 and 58 of them
    assert lines[1].split() == ["won", "0.867", "[0.758,", "0.931]"]
    assert lines[2].split()[-3:] == ["0.967", "[0.886,", "0.991]"]
    assert lines[3] == "  mean score: heuristic 1.97, random 32.47"  # since R-CRAZY-05a's fix (2026-12-05)


def test_gin_reports_no_penalty_line(capsys):
    assert heuristic_vs_random.main(["--variant", "gin_rummy", "--episodes", "4"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("gin_rummy_v0: heuristic against random agents, 4 episodes in ")
    assert lines[1].split() == ["won", "1.000", "[0.510,", "1.000]"]  # 4 of 4 hands
    assert lines[2:] == ["  mean score: heuristic 39.50, random 0.00"]  # no penalty line


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--variant", "poker"],
            "unknown variant 'poker': known variants are rummy_v0, crazy_rummy_v0, gin_rummy_v0, rummikub_v0",
        ),
        (["--variant", "rummy", "--episodes", "0"], "--episodes 0: play at least one episode"),
        (
            ["--variant", "rummy", "--env-option", "num_players=9"],
            "option num_players=9 is out of range: num_players must be an int from 2 to 6",
        ),
    ],
)
def test_bad_use_is_a_usage_error(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        heuristic_vs_random.main(argv)
    assert exit_info.value.code == 2 and usage_error(capsys.readouterr().err, message)
