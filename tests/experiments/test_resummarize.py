"""``experiments.tournament --resummarize``: a committed games file summarized anew."""

import csv
import json

import pytest

from experiments import tournament
from experiments.tournament.resummarize import read_games, resummarize
from tests.helpers import whole

HEADER = "variant,lineup,deal,seed,rotation,seat,agent,return,win_share,points_per_hand,steps,truncated\n"


def stacked_games() -> str:
    """Three agents, two seats, three lineups, deals 0 and 1 (the same seeds in every lineup,
    as the tournament deals them), both rotations.  a beats b in all 4 games; against c and
    between b and c seat 0 wins.  So a wins 6 of 8 (0.75), b 2 of 8, c 4 of 8."""
    lines = []
    for lineup, (x, y), seat0_wins_only in (("a vs b", "ab", False), ("a vs c", "ac", True), ("b vs c", "bc", True)):
        for deal, seed in ((0, 11), (1, 22)):
            for rotation, seats in ((0, (x, y)), (1, (y, x))):
                winner = 0 if seat0_wins_only else seats.index("a")
                for seat, agent in enumerate(seats):
                    won = seat == winner
                    lines.append(
                        f"rummy_v0,{lineup},{deal},{seed},{rotation},{seat},{agent},"
                        f"{1.0 if won else -1.0},{1.0 if won else 0.0},{10.0 if won else -10.0},40,False\n"
                    )
    return HEADER + "".join(lines)


def test_a_stacked_games_file_is_summarized_with_each_deal_counted_once(tmp_path, capsys):
    games = tmp_path / "three-games.csv"
    games.write_text(stacked_games())
    assert tournament.main(["--resummarize", str(games)]) == 0
    with open(tmp_path / "three-summary.csv", newline="") as f:
        rows = {r["agent"]: r for r in csv.DictReader(f)}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["three-games.csv", "three-summary.csv"]
    got = {a: [float(rows[a][k]) for k in ("games", "wins", "win_rate", "points_per_hand")] for a in rows}
    assert got == {"a": [8, 6.0, 0.75, 5.0], "b": [8, 2.0, 0.25, -5.0], "c": [8, 4.0, 0.5, 0.0]}
    # each agent played 2 deals (in two lineups each): Wilson on n = 2, not on the 4
    # (lineup, deal) pairs the intervals counted before.  p = 0.75, n = 2: centre
    # (0.75 + z^2/4) / (1 + z^2/2) = 0.585595, half z * sqrt(0.09375 + z^2/16) / (1 + z^2/2) = 0.387728
    intervals = {a: (float(rows[a]["win_rate_ci_low"]), float(rows[a]["win_rate_ci_high"])) for a in rows}
    assert intervals["a"] == pytest.approx((0.197867, 0.973323), abs=1e-6)  # on n = 4: (0.300642, 0.954413)
    assert intervals["b"] == pytest.approx((0.026677, 0.802133), abs=1e-6)
    assert intervals["c"] == pytest.approx((0.094531, 0.905469), abs=1e-6)
    printed = capsys.readouterr().out
    assert "  a                  8     0.750    [0.198, 0.973]      5.00" in printed
    assert printed.rstrip().endswith(f"12 games of {games}; written: {tmp_path / 'three-summary.csv'}")


def test_a_run_folder_gets_its_summary_json_and_head_to_head_anew(tmp_path):
    out = tmp_path / "run"
    code = tournament.main(
        ["--variants", "rummy_v0", "--deals", "3", "--workers", "1", "--no-progress", "--out", str(out)]
    )
    assert code == 0
    before = json.loads((out / "summary.json").read_text())
    # an older summary: the intervals as a stale file would hold them
    stale = json.loads(json.dumps(before))
    for row in stale["summary"] + stale["head_to_head"]:
        row["win_rate_ci_low"] = row["win_rate_ci_high"] = 0.5
    (out / "summary.json").write_text(json.dumps(stale))
    (out / "summary.csv").write_text("old\n")
    (out / "head_to_head.csv").write_text("old\n")
    done = resummarize(out / "games.csv")
    assert [p.name for p in done["written"]] == [
        "summary.csv", "head_to_head.csv", "head_to_head.png", "win_rates.png", "summary.json",
    ]  # fmt: skip
    # the games read back are the games played: the same rows, ratings and cells, meta kept
    assert json.loads((out / "summary.json").read_text()) == before
    assert (out / "summary.csv").read_text().startswith("variant,agent,games,wins,draws,win_rate,")
    assert (out / "head_to_head.csv").read_text().startswith("variant,agent,opponent,games,deals,")


@pytest.mark.parametrize(
    ("name", "text", "message"),
    [
        ("x-games.csv", "variant,deal\nrummy_v0,0\n", "not a games.csv of experiments.tournament (no column lineup, "),
        ("x-games.csv", HEADER, "x-games.csv: no game, so no summary to write"),
        (
            "x-games.csv",
            HEADER + "rummy_v0,a vs b,zero,1,0,0,a,1,1,1,9,False\n",
            "line 2: deal is 'zero', not an integer",
        ),
        (
            "x-games.csv",
            HEADER + "rummy_v0,a vs b,0,1,0,0,a,1,1.5,1,9,False\n",
            "line 2: win_share 1.5 is outside 0..1",
        ),
        (
            "x-games.csv",
            HEADER + "rummy_v0,a vs b,0,1,0,0,a,1,1,1,9,False\n" * 2,
            "line 3: seat 0 of 'a vs b', deal 0, rotation 0 is given twice",
        ),
        (
            "x-games.csv",
            HEADER + "rummy_v0,a vs b,0,1,0,1,a,1,1,1,9,False\n",
            "'a vs b', deal 0, rotation 0 has seats [1], not 0..0",
        ),
        ("x-summary.csv", HEADER, "x-summary.csv: not named like a tournament's games file"),
    ],
)
def test_a_bad_games_file_is_refused_with_the_reason_and_nothing_written(tmp_path, capsys, name, text, message):
    (tmp_path / name).write_text(text)
    with pytest.raises(SystemExit) as exit_info:
        tournament.main(["--resummarize", str(tmp_path / name)])
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
    assert [p.name for p in tmp_path.iterdir()] == [name]


def test_a_summary_json_not_a_tournaments_is_refused_before_anything_is_written(tmp_path):
    (tmp_path / "games.csv").write_text(stacked_games())
    (tmp_path / "summary.json").write_text("[1, 2]")
    said = f"{tmp_path / 'summary.json'}: not a summary.json of experiments.tournament (no 'summary' in it)"
    with pytest.raises(ValueError, match=whole(said)):
        resummarize(tmp_path / "games.csv")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["games.csv", "summary.json"]


def test_resummarize_takes_no_option_of_a_run(tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_info:
        tournament.main(["--resummarize", str(tmp_path / "games.csv"), "--deals", "5", "--seed", "2"])
    assert exit_info.value.code == 2
    assert "--resummarize plays no game and takes no other option (got --deals, --seed)" in capsys.readouterr().err


def test_read_games_puts_the_seats_of_a_game_back_in_order(tmp_path):
    games = tmp_path / "games.csv"
    games.write_text(stacked_games())
    first = read_games(games)[1]  # a vs b, deal 0, rotation 1: b in seat 0, a in seat 1
    assert first == {
        "variant": "rummy_v0", "lineup": "a vs b", "deal": 0, "seed": "11", "rotation": 1, "steps": 40,
        "truncated": False, "seats": ["b", "a"], "returns": [-1.0, 1.0], "win_share": [0.0, 1.0],
        "points_per_hand": [-10.0, 10.0],
    }  # fmt: skip
