"""The tournament's head-to-head table: exact cells from hand-made game records, the text
table, the files, and the heat map drawn without switching matplotlib's backend."""

import csv
import json

import pytest

from experiments import tournament
from experiments.tournament.matrix import format_matrix, head_to_head, matrix_by_variant, write_matrix


def game(lineup, deal, rotation, seats, win_share, variant="gin_rummy_v0"):
    return {
        "variant": variant,
        "lineup": lineup,
        "deal": deal,
        "rotation": rotation,
        "seats": seats,
        "win_share": win_share,
    }


RECORDS = [
    # a vs b: deal 0 a wins both seats, deal 1 b wins one and the other is a dead hand
    game("a vs b", 0, 0, ["a", "b"], [1.0, 0.0]),
    game("a vs b", 0, 1, ["b", "a"], [0.0, 1.0]),
    game("a vs b", 1, 0, ["a", "b"], [0.0, 1.0]),
    game("a vs b", 1, 1, ["b", "a"], [0.0, 0.0]),
    # a vs c: c wins one of two
    game("a vs c", 0, 0, ["a", "c"], [1.0, 0.0]),
    game("a vs c", 0, 1, ["c", "a"], [1.0, 0.0]),
    # three seats: a, a, b; a's seats share a win, b wins the other game
    game("a vs a vs b", 0, 0, ["a", "a", "b"], [0.5, 0.5, 0.0], "crazy_rummy_v0"),
    game("a vs a vs b", 0, 1, ["a", "b", "a"], [0.0, 1.0, 0.0], "crazy_rummy_v0"),
]


def test_cells_are_the_row_agents_win_share_in_games_with_the_column_agent():
    cells = {(r["variant"], r["agent"], r["opponent"]): r for r in head_to_head(RECORDS)}
    ab, ba = cells["gin_rummy_v0", "a", "b"], cells["gin_rummy_v0", "b", "a"]
    assert (ab["games"], ab["deals"], ab["wins"], ab["win_rate"]) == (4, 2, 2.0, 0.5)
    assert (ba["wins"], ba["win_rate"]) == (1.0, 0.25)  # with the dead hand, 0.5 + 0.25 < 1
    assert cells["gin_rummy_v0", "a", "c"]["win_rate"] == 0.5 and cells["gin_rummy_v0", "c", "a"]["win_rate"] == 0.5
    assert ("gin_rummy_v0", "b", "c") not in cells  # they never met
    # an agent in two seats counts the mean of its seats: 0.5 in game 1, 0 in game 2
    assert cells["crazy_rummy_v0", "a", "b"]["win_rate"] == 0.25
    assert cells["crazy_rummy_v0", "b", "a"]["win_rate"] == 0.5
    low, high = ab["win_rate_ci_low"], ab["win_rate_ci_high"]
    assert low == pytest.approx(0.0945, abs=1e-4) and high == pytest.approx(0.9055, abs=1e-4)  # Wilson, 2 deals
    assert matrix_by_variant(head_to_head(RECORDS))["gin_rummy_v0"]["a"] == {"b": 0.5, "c": 0.5}


def test_the_text_table_and_the_files(tmp_path):
    rows = head_to_head(RECORDS)
    text = format_matrix(rows)
    assert "gin_rummy_v0: head to head (row's win rate against column)" in text
    lines = text.splitlines()
    a_row = next(line for line in lines if line.strip().startswith("a ") and "0.500" in line)
    assert a_row.split()[1:] == ["-", "0.500", "0.500"]
    write_matrix(tmp_path, rows)
    with open(tmp_path / "head_to_head.csv") as f:
        written = list(csv.DictReader(f))
    assert len(written) == len(rows) == 6  # a-b both ways in both variants, a-c both ways
    assert (tmp_path / "head_to_head.png").read_bytes()[:4] == b"\x89PNG"


def test_the_tournament_writes_the_head_to_head_table(tmp_path, capsys):
    out = tmp_path / "t"
    args = ["--variants", "gin_rummy", "--agents", "random", "heuristic", "--deals", "3", "--workers", "1"]
    assert tournament.main([*args, "--out", str(out), "--no-progress"]) == 0
    summary = json.loads((out / "summary.json").read_text())
    cells = {(r["agent"], r["opponent"]): r for r in summary["head_to_head"]}
    pooled = {r["agent"]: r for r in summary["summary"]}
    # two agents: each cell is the agent's pooled win rate
    assert cells["heuristic", "random"]["win_rate"] == pooled["heuristic"]["win_rate"]
    assert cells["heuristic", "random"]["games"] == 6 and cells["heuristic", "random"]["deals"] == 3
    assert (out / "head_to_head.png").is_file() and "head to head" in capsys.readouterr().out


def test_the_heat_map_leaves_the_backend_alone():
    import matplotlib

    before = matplotlib.get_backend()
    tournament.matrix_figure(head_to_head(RECORDS))
    assert matplotlib.get_backend() == before


def test_variants_keep_the_records_order_as_in_the_summary():
    # gin_rummy_v0 was played first: its cells come before crazy_rummy_v0's (not alphabetical)
    keys = [(r["variant"], r["agent"], r["opponent"]) for r in head_to_head(RECORDS)]
    assert keys == [
        ("gin_rummy_v0", "a", "b"),
        ("gin_rummy_v0", "a", "c"),
        ("gin_rummy_v0", "b", "a"),
        ("gin_rummy_v0", "c", "a"),
        ("crazy_rummy_v0", "a", "b"),
        ("crazy_rummy_v0", "b", "a"),
    ]
    assert list(matrix_by_variant(head_to_head(RECORDS))) == ["gin_rummy_v0", "crazy_rummy_v0"]


def test_a_deal_counts_once_for_a_pair_that_meets_in_several_lineups():
    # three seats: a and b meet in both lineups, which are dealt the same cards (deal 0):
    # one deal, not two independent trials
    records = [
        game("a vs a vs b", 0, 0, ["a", "a", "b"], [1.0, 0.0, 0.0], "crazy_rummy_v0"),  # a's seats: mean 0.5
        game("a vs b vs b", 0, 0, ["a", "b", "b"], [1.0, 0.0, 0.0], "crazy_rummy_v0"),  # a: 1.0
    ]
    cells = {(r["agent"], r["opponent"]): r for r in head_to_head(records)}
    ab = cells["a", "b"]
    assert (ab["games"], ab["deals"], ab["wins"], ab["win_rate"]) == (2, 1, 1.5, 0.75)
    # Wilson, p = 0.75, n = 1, z = 1.959964: centre (0.75 + z^2/2) / (1 + z^2) = 0.551637,
    # half z * sqrt(0.1875 + z^2/4) / (1 + z^2) = 0.433727
    assert (ab["win_rate_ci_low"], ab["win_rate_ci_high"]) == pytest.approx((0.117910, 0.985365), abs=1e-6)
    assert (cells["b", "a"]["deals"], cells["b", "a"]["win_rate"]) == (1, 0.0)
