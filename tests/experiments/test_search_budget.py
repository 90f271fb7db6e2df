"""``python -m experiments.search_budget``: win rate and decision time per budget."""

import csv

import pytest

from experiments import search_budget
from tests.helpers import usage_error


def test_writes_one_row_per_budget_and_the_curve(tmp_path, capsys):
    argv = ["--variant", "gin_rummy", "--agent", "pimc", "--budgets", "1", "2", "--options", "depth=3"]
    assert search_budget.main([*argv, "--deals", "2", "--out", str(tmp_path)]) == 0
    with open(tmp_path / "search_budget.csv") as f:
        rows = list(csv.DictReader(f))
    assert [r["agent"] for r in rows] == ["pimc:worlds=1,depth=3", "pimc:worlds=2,depth=3"]
    assert [r["games"] for r in rows] == ["4", "4"]  # 2 deals, the search agent in each seat
    assert [(r["planned_deals"], r["partial"]) for r in rows] == [("2", "False"), ("2", "False")]
    # the seeded games: 1 win in 4 with either budget (Wilson interval of 1/4), 51 and 49 decisions
    assert [(r["win_rate"], r["decisions"]) for r in rows] == [("0.25", "51"), ("0.25", "49")]
    assert [float(r[k]) for r in rows for k in ("ci_low", "ci_high")] == pytest.approx(
        [0.026677341661602516, 0.8021325463610728] * 2, rel=1e-6
    )
    for r in rows:
        assert float(r["median_ms"]) <= float(r["max_ms"])
    assert (tmp_path / "search_budget.png").stat().st_size > 0
    captured = capsys.readouterr()
    assert "pimc:worlds=1,depth=3" in captured.out
    # stderr is not a terminal: the progress counter's last line, over both budgets' deals
    assert captured.err.splitlines()[-1].startswith("search_budget: 4/4 deals (100%), ")


def test_the_same_seed_plays_the_same_games():
    for _ in range(2):  # the same figures on every call
        a = search_budget.measure("rummy_v0", "ismcts:simulations=2,depth=3", "random", deals=2, seed=4)
        assert (a["games"], a["win_rate"], a["decisions"]) == (4, 1.0, 101)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--variant", "poker", "--agent", "pimc", "--budgets", "1"],
            "unknown variant 'poker': known variants are rummy_v0, crazy_rummy_v0, gin_rummy_v0, rummikub_v0",
        ),
        (
            ["--variant", "gin_rummy", "--agent", "pimc", "--budgets", "0"],
            "argument --budgets: must be positive, got 0",
        ),
        (
            ["--variant", "gin_rummy", "--agent", "ismcts", "--budgets", "2", "--options", "worlds=3"],
            "agent 'ismcts:simulations=2,worlds=3': 'worlds=3' is not an option of ismcts; write"
            " ismcts:key=value,... with keys simulations, c, fpu, rollout, depth, prior, time",
        ),
        (
            ["--variant", "gin_rummy", "--agent", "pimc", "--budgets", "2", "4", "2"],
            "--budgets lists 2 more than once: each budget is one row",
        ),
        # worded as the six main jobs word it (experiments.common.argv.seed_refusal)
        (
            ["--variant", "gin_rummy", "--agent", "pimc", "--budgets", "2", "--seed", "-1"],
            "--seed must be an int >= 0, got -1",
        ),
    ],
)
def test_bad_use_is_a_usage_error(argv, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        search_budget.main(argv)
    assert exit_info.value.code == 2 and usage_error(capsys.readouterr().err, message)
