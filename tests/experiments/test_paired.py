"""``experiments.paired``: two evaluations on the same deals, A minus B paired by deal."""

from __future__ import annotations

import json
import re

import pytest

from experiments import paired

T2 = 4.302652729911275  # Student's t two-sided 95% quantile at 2 degrees of freedom (three deals)
T1 = 12.706204736174694  # at 1 degree of freedom (two deals)
T3 = 3.1824463052837078  # at 3 degrees of freedom (four deals)
HEADER = "opponent,deal,seed,rotation,agent_seat,win_share,points_per_hand,steps,opponent_points_per_hand\n"


def _run(folder, variant, games, margin=True, seed=100):
    """An evaluation folder: ``evaluation.json`` naming the variant and ``games.csv`` with
    one line per ``(opponent, deal, rotation, win_share, points, their_points)``; the games'
    seeds from ``seed`` (runs of another ``seed`` played other deals)."""
    folder.mkdir()
    (folder / "evaluation.json").write_text(json.dumps({"variant": variant}))
    header = HEADER if margin else HEADER.replace(",opponent_points_per_hand", "")
    lines = [
        f"{opp},{deal},{seed + 10 * deal + rot},{rot},{rot},{share},{pts},30" + (f",{theirs}" if margin else "")
        for opp, deal, rot, share, pts, theirs in games
    ]
    (folder / "games.csv").write_text(header + "\n".join(lines) + "\n")
    return folder


def _gin_pair(tmp_path):
    # per deal, A's win shares 0.5, 1.0, 0.0 and B's 0.0, 0.5, 0.5: differences +0.5, +0.5, -0.5;
    # A's margins (points - theirs) +5, +10, -10 and B's -5, +2, -4: differences +10, +8, -6
    a = _run(
        tmp_path / "a",
        "gin_rummy_v0",
        [("bot", 0, 0, 1.0, 10, 0), ("bot", 0, 1, 0.0, 0, 0), ("bot", 1, 0, 1.0, 12, 2), ("bot", 1, 1, 1.0, 10, 0)]
        + [("bot", 2, 0, 0.0, 0, 20), ("bot", 2, 1, 0.0, 0, 0)],
    )
    b = _run(
        tmp_path / "b",
        "gin_rummy_v0",
        [("bot", 0, 0, 0.0, 0, 10), ("bot", 0, 1, 0.0, 0, 0), ("bot", 1, 0, 1.0, 4, 0), ("bot", 1, 1, 0.0, 0, 0)]
        + [("bot", 2, 0, 0.0, 0, 8), ("bot", 2, 1, 1.0, 0, 0)],
    )
    return a, b


def test_a_pair_gives_the_per_deal_differences_with_their_t_intervals(tmp_path):
    a, b = _gin_pair(tmp_path)
    (row,) = paired.paired([a, b])
    assert row["pair"] == f"{a} - {b}" and row["deals"] == 3
    share_half = T2 * (1 / 3) ** 0.5 / 3**0.5  # the differences' standard deviation is sqrt(1/3)
    assert row["share"] == pytest.approx((1 / 6, 1 / 6 - share_half, 1 / 6 + share_half))
    margin_sd = ((10 - 4) ** 2 + (8 - 4) ** 2 + (-6 - 4) ** 2) ** 0.5 / 2**0.5  # mean +4
    assert row["margin"] == pytest.approx((4.0, 4.0 - T2 * margin_sd / 3**0.5, 4.0 + T2 * margin_sd / 3**0.5))
    assert row["unit"] == "a hand"
    *_, pooled = paired.paired([a, b, a, b])  # the same pair twice: the same three deals, not six
    assert pooled["deals"] == 3 and pooled["share"] == row["share"] and pooled["margin"] == row["margin"]


def test_pooled_pairs_count_a_deal_they_share_once(tmp_path):
    a, b = _gin_pair(tmp_path)  # deals 0, 1, 2: share differences +0.5, +0.5, -0.5; margins +10, +8, -6
    # e and f on the same seed (the same cards) for deals 0 and 1, and deal 3: differences
    # +1.0, 0.0, +0.5 and margins 0
    e = _run(tmp_path / "e", "gin_rummy_v0", [("bot", d, r, s, 0, 0) for d, r, s in E_GAMES])
    f = _run(tmp_path / "f", "gin_rummy_v0", [("bot", d, r, 0.0, 0, 0) for d, r, _ in E_GAMES])
    *_, pooled = paired.paired([a, b, e, f])
    # per deal: (0.5 + 1.0) / 2, (0.5 + 0.0) / 2, -0.5, +0.5 = 0.75, 0.25, -0.5, 0.5: mean 0.25,
    # squared deviations 0.25 + 0 + 0.5625 + 0.0625 = 0.875, sd sqrt(0.875 / 3)
    half = T3 * (0.875 / 3) ** 0.5 / 2
    assert pooled["deals"] == 4 and pooled["share"] == pytest.approx((0.25, 0.25 - half, 0.25 + half))
    assert pooled["margin"][0] == pytest.approx((5 + 4 - 6 + 0) / 4)  # deals 0 and 1: (10 + 0) / 2, (8 + 0) / 2


E_GAMES = [(0, 0, 1.0), (0, 1, 1.0), (1, 0, 0.0), (1, 1, 0.0), (3, 0, 1.0), (3, 1, 0.0)]


def test_crazy_rummy_margins_are_the_others_penalty_minus_the_agents(tmp_path):
    a = _run(tmp_path / "a", "crazy_rummy_v0", [("h", 0, 0, 1.0, 2, 12), ("h", 1, 0, 0.0, 30, 10)])
    b = _run(tmp_path / "b", "crazy_rummy_v0", [("h", 0, 0, 0.0, 9, 7), ("h", 1, 0, 0.0, 20, 10)])
    (row,) = paired.paired([a / "games.csv", b / "games.csv"])  # the files work as the folders
    # A: +10 and -20 a round; B: -2 and -10: differences +12 and -10
    assert row["margin"] == pytest.approx((1.0, 1.0 - T1 * 11.0, 1.0 + T1 * 11.0))
    assert row["share"] == pytest.approx((0.5, 0.5 - T1 * 0.5, 0.5 + T1 * 0.5))
    assert row["unit"] == "a round"
    (a / "evaluation.json").unlink()  # which variant it was is then unknown: no margins
    (row,) = paired.paired([a, b])
    assert row["margin"] is None and row["share"] == pytest.approx((0.5, 0.5 - T1 * 0.5, 0.5 + T1 * 0.5))


def test_an_opponent_filter_and_pooled_pairs(tmp_path):
    a = _run(tmp_path / "a", "rummy_v0", [("x", 0, 0, 1.0, 5, 0), ("y", 0, 0, 0.0, 0, 9)])
    b = _run(tmp_path / "b", "rummy_v0", [("x", 0, 0, 0.0, 0, 5), ("y", 0, 0, 1.0, 9, 0)])
    # c and d played another deal (another --seed): pooled with a and b's, two deals
    c = _run(tmp_path / "c", "rummy_v0", [("x", 0, 0, 1.0, 3, 0)], margin=False, seed=200)
    d = _run(tmp_path / "d", "rummy_v0", [("x", 0, 0, 1.0, 1, 0)], margin=False, seed=200)
    rows = paired.paired([a, b, c, d], opponent="x")
    assert [r["pair"] for r in rows] == [f"{a} - {b}", f"{c} - {d}", "pooled"]
    assert rows[0]["share"] == (1.0, None, None) and rows[0]["margin"] == (10.0, None, None)
    assert rows[1]["share"] == (0.0, None, None) and rows[1]["margin"] is None  # written before the column
    assert rows[2]["deals"] == 2 and rows[2]["share"] == pytest.approx((0.5, 0.5 - T1 * 0.5, 0.5 + T1 * 0.5))
    assert rows[2]["margin"] is None  # one pair has no margins: no pooled margin
    # without --opponent a deal's games against every opponent make one sample
    (row,) = paired.paired([a, b])
    assert row["deals"] == 1 and row["share"] == (0.0, None, None)
    assert row["margin"] == (-4.0, None, None)  # A: (5 - 9) / 2, B: (-5 + 9) / 2
    said = f"{a} and {c} played different opponents (only {a}: y; only {c}: none): name one both played with --opponent"
    with pytest.raises(ValueError, match=f"^{re.escape(said)}$"):
        paired.paired([a, c])


def test_runs_on_other_deals_or_unpaired_runs_are_refused(tmp_path):
    a, b = _gin_pair(tmp_path)
    other = _run(tmp_path / "other", "gin_rummy_v0", [("bot", 5, 0, 1.0, 10, 0)])
    said = f"{a} and {other} did not play the same deals (their games' seeds differ)"
    with pytest.raises(ValueError, match=f"^{re.escape(said)}$"):
        paired.paired([a, other])
    # a run stopped early: its games are some of the other's, which the message says
    stopped = _run(tmp_path / "stopped", "gin_rummy_v0", [("bot", 0, 0, 1.0, 10, 0), ("bot", 0, 1, 0.0, 0, 0)])
    early = (
        "{} and {} did not play the same deals: {} played 2 games, all of them among {}'s 6, as a run stopped early "
        "(its evaluation.json says partial) or given fewer --deals does: pair runs that played the same deals"
    )
    with pytest.raises(ValueError, match=f"^{re.escape(early.format(b, stopped, stopped, b))}$"):
        paired.paired([b, stopped])
    with pytest.raises(ValueError, match=f"^{re.escape(early.format(stopped, b, stopped, b))}$"):
        paired.paired([stopped, b])
    crazy = _run(tmp_path / "crazy", "crazy_rummy_v0", [("bot", d, r, 0.0, 0, 0) for d in range(3) for r in range(2)])
    said = (
        f"{a} and {crazy} were played in different settings: {{'variant': 'gin_rummy_v0', 'env_options': None, "
        "'seats': None} and {'variant': 'crazy_rummy_v0', 'env_options': None, 'seats': None}"
    )
    with pytest.raises(ValueError, match=f"^{re.escape(said)}$"):
        paired.paired([a, crazy])
    # another variant with other opponents and other deals: the settings are what the message names
    far = _run(tmp_path / "far", "crazy_rummy_v0", [("heuristic", 0, 0, 1.0, 0, 9)], seed=300)
    said = said.replace(str(crazy), str(far))
    with pytest.raises(ValueError, match=f"^{re.escape(said)}$"):
        paired.paired([a, far])
    with pytest.raises(ValueError, match="^give runs in pairs, RUN_A RUN_B \\[RUN_A2 RUN_B2 ...\\]: got 3$"):
        paired.paired([a, b, a])
    with pytest.raises(ValueError, match=f"^{re.escape(str(a / 'games.csv'))}: no game against 'nobody'$"):
        paired.paired([a, b], opponent="nobody")
    with pytest.raises(
        ValueError, match=f"^{re.escape(str(tmp_path / 'missing'))}: no games.csv of experiments.evaluate there$"
    ):
        paired.paired([a, tmp_path / "missing"])
    (tmp_path / "tournament.csv").write_text("lineup,deal,seed\nx,0,1\n")  # another job's games
    said = (
        f"{tmp_path / 'tournament.csv'}: not a games.csv of experiments.evaluate (no column opponent, rotation, "
        "win_share, points_per_hand)"
    )
    with pytest.raises(ValueError, match=f"^{re.escape(said)}$"):
        paired.paired([a, tmp_path / "tournament.csv"])


def test_the_command_prints_each_pair_and_refuses_bad_runs(tmp_path, capsys):
    a, b = _gin_pair(tmp_path)
    assert paired.main([str(a), str(b)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"{a} - {b}: 3 deals; win share +0.1667 [-1.2676, +1.6009]; margin a hand +4.00 [-17.66, +25.66]"
    with pytest.raises(SystemExit) as stop:
        paired.main([str(a)])
    assert stop.value.code == 2
    assert capsys.readouterr().err.splitlines()[-1] == (
        "python -m experiments.paired: error: give runs in pairs, RUN_A RUN_B [RUN_A2 RUN_B2 ...]: got 1"
    )


def _damage(path, old, new):
    path.write_text(path.read_text().replace(old, new, 1))


@pytest.mark.parametrize(
    "damage, file, message",
    [
        (("bot,0,100,0,0,0.0", "bot,0,100,0,0,nan"), "games.csv", ", line 2: win_share is 'nan', not a finite number"),
        (("bot,0,100,0,0,0.0", "bot,0,100,0,0,1.5"), "games.csv", ", line 2: win_share 1.5 is outside 0..1"),
        (("bot,1,110,", "bot,abc,110,"), "games.csv", ", line 4: deal is 'abc', not an integer"),
        (
            ("bot,2,121,1,1,1.0,0,30,0\n", "bot,2,121,1"),
            "games.csv",
            ", line 7: win_share is missing (a cut line?), not a finite number",
        ),
        (("bot,0,101,1", "bot,0,101,0"), "games.csv", ", line 3: a second game against 'bot', deal 0, rotation 0"),
        (b"\xff\xfe", "games.csv", ": not a text games.csv ("),
        (
            ("bot,1,110,", "bot,1,110" + "0" * 140_000 + ","),
            "games.csv",
            ": not a games.csv of experiments.evaluate (",
        ),
        ("[1, 2]", "evaluation.json", ": not an evaluation.json of experiments.evaluate (a JSON list)"),
        ("{bad", "evaluation.json", ": not a readable evaluation.json ("),
    ],
)
def test_a_damaged_run_is_refused_naming_the_file_and_line(tmp_path, damage, file, message):
    a, b = _gin_pair(tmp_path)
    path = b / file
    if isinstance(damage, tuple):  # one line's text changed (B's games.csv, _gin_pair)
        assert damage[0] in path.read_text()
        path.write_text(path.read_text().replace(*damage, 1))
    elif isinstance(damage, bytes):  # bytes put before the text
        path.write_bytes(damage + path.read_bytes())
    else:
        path.write_text(damage)
    with pytest.raises(ValueError) as err:
        paired.paired([a, b])
    if message.endswith("("):  # the rest is the decoder's own words
        assert str(err.value).startswith(str(path) + message)
    else:
        assert str(err.value) == str(path) + message
