"""``experiments.evaluate``: an agent against the opponent panel on duplicate deals."""

from __future__ import annotations

import csv
import json
import warnings
from collections import Counter

import pytest

from agents.panel import PANEL_VERSION, panel
from experiments import evaluate
from experiments.common.jobs import max_workers, usable_cpus
from tests.helpers import unknown_agent, usage_error, whole

T1 = 12.706204736174694  # Student's t two-sided 95% quantile at 1 degree of freedom (two deals)


def _record(deal, seats, win_share, points, agent="A"):
    """A game's record as the tournament writes it: rotation ``k`` seats the lineup's entry
    ``(i + k) % n`` (the agent is entry 0) at seat ``i``."""
    n = len(seats)
    rotation = -seats.index(agent) % n
    lineup = " vs ".join(seats[(j - rotation) % n] for j in range(n))
    return {
        "lineup": lineup, "deal": deal, "seats": seats, "rotation": rotation, "win_share": win_share,
        "points_per_hand": points,
    }  # fmt: skip


def test_rows_count_wins_draws_points_and_deals_of_scripted_games():
    records = [
        _record(0, ("A", "B"), [1.0, 0.0], [20.0, 0.0]),
        _record(0, ("B", "A"), [1.0, 0.0], [15.0, 0.0]),
        _record(1, ("A", "B"), [0.0, 0.0], [0.0, 0.0]),  # a hand without a winner
        _record(1, ("B", "A"), [0.0, 1.0], [0.0, 30.0]),
        _record(0, ("A", "C", "C"), [0.0, 0.5, 0.5], [0.0, 6.0, 3.0]),
        _record(0, ("C", "A", "C"), [0.0, 1.0, 0.0], [0.0, 9.0, 0.0]),
        _record(0, ("C", "C", "A"), [1.0, 0.0, 0.0], [12.0, 0.0, 0.0]),
    ]
    rows = evaluate.panel_rows("A", ["B", "C", "D"], records)  # D played no game: no row
    assert rows == [
        {
            "opponent": "B",
            "games": 4,
            "deals": 2,
            "wins": 2.0,
            "draws": 1,
            "win_rate": 0.5,
            "win_rate_ci_low": pytest.approx(0.09453120463920084),  # Wilson over the 2 deals
            "win_rate_ci_high": pytest.approx(0.9054687953607992),
            "points_per_hand": 12.5,
            "opponent_points_per_hand": 3.75,
            "deals_won_in_every_seat": 0,  # each deal split between the seats
            "deals_lost_in_every_seat": 0,
            # per deal: deal 0 (20 - 15) / 2 = 2.5, deal 1 (0 + 30) / 2 = 15; their standard
            # deviation 12.5 / sqrt(2), its standard error 6.25 over 2 deals
            "points_margin": 8.75,
            "points_margin_ci_low": pytest.approx(8.75 - T1 * 6.25),
            "points_margin_ci_high": pytest.approx(8.75 + T1 * 6.25),
        },
        {
            "opponent": "C",
            "games": 3,
            "deals": 1,
            "wins": 1.0,
            "draws": 0,
            "win_rate": pytest.approx(1 / 3),
            "win_rate_ci_low": pytest.approx(0.025336243295435323),  # one deal
            "win_rate_ci_high": pytest.approx(0.9058139861072971),
            "points_per_hand": 3.0,
            "opponent_points_per_hand": 3.5,  # the mean over the other seats: (4.5 + 0 + 6) / 3
            "deals_won_in_every_seat": 0,
            "deals_lost_in_every_seat": 0,
            "points_margin": -0.5,  # (-4.5 + 9 - 6) / 3: one deal, no interval
            "points_margin_ci_low": None,
            "points_margin_ci_high": None,
        },
    ]


def test_the_table_gives_an_equal_agents_share_where_games_had_no_winner():
    records = [
        _record(0, ("A", "B"), [1.0, 0.0], [20.0, 0.0]),
        _record(0, ("B", "A"), [1.0, 0.0], [15.0, 0.0]),
        _record(1, ("A", "B"), [0.0, 0.0], [0.0, 0.0]),  # nobody won: 0 for both seats
        _record(1, ("B", "A"), [0.0, 1.0], [0.0, 30.0]),
    ]
    rows = [{**r, "same_as_agent": False} for r in evaluate.panel_rows("A", ["B"], records)]
    result = {
        "variant": "gin_rummy_v0", "agent": "A", "panel_version": None, "seats": 2, "fair_share": 0.5,
        "rows": rows, "opponents": ["B"], "panel_mean": 0.5, "panel_min": 0.5, "panel_min_opponent": "B",
    }  # fmt: skip
    lines = evaluate.format_rows(result).splitlines()
    # 3 of the 4 games had a winner: an agent as strong as B wins 3/4 of a half
    assert (
        lines[5] == "  games nobody won count 0 for every seat; an equally strong agent's share then: B 0.375 (1 drawn)"
    )
    rows[0]["draws"] = 0
    assert "nobody won" not in evaluate.format_rows(result)


def test_the_points_margin_is_positive_for_fewer_penalty_points_and_is_printed():
    # Crazy Rummy's points are the penalties of the cards left in hand (R-CRAZY-12): fewer is better
    records = [
        _record(d, seats, [0.0] * 3, points)
        for d, seats, points in [
            (0, ("A", "C", "C"), [10.0, 20.0, 30.0]),  # 15 fewer than the others' mean
            (0, ("C", "A", "C"), [12.0, 20.0, 16.0]),  # 6 more
            (1, ("A", "C", "C"), [0.0, 8.0, 4.0]),  # 6 fewer
        ]
    ]
    (row,) = evaluate.panel_rows("A", ["C"], records, penalty=True)
    # deal 0: (15 - 6) / 2 = 4.5, deal 1: 6; standard error |6 - 4.5| / 2 = 0.75
    assert (row["points_margin"], row["points_margin_ci_low"], row["points_margin_ci_high"]) == pytest.approx(
        (5.25, 5.25 - T1 * 0.75, 5.25 + T1 * 0.75)
    )
    result = {
        "variant": "crazy_rummy_v0", "agent": "A", "panel_version": None, "seats": 3, "fair_share": 1 / 3,
        "rows": [{**row, "same_as_agent": False}], "opponents": ["C"], "panel_mean": 0.0, "panel_min": 0.0,
        "panel_min_opponent": "C",
    }  # fmt: skip
    lines = evaluate.format_rows(result).splitlines()
    assert lines[2].split()[5:8] == ["10.00", "15.00", "+5.25±9.53"]  # penalties, theirs, margin
    # the footnote says which way the margin goes on penalties (theirs minus the agent's)
    assert lines[3] == (
        "  margin: the others' penalty a round minus the agent's, paired per deal, 95% half-width "
        "(Student's t; +: better)"
    )
    result["variant"] = "gin_rummy_v0"  # points scored: the agent's minus the others'
    assert evaluate.format_rows(result).splitlines()[3] == (
        "  margin: points a hand more than the others', paired per deal, 95% half-width (Student's t; +: better)"
    )


def test_rows_count_the_deals_won_or_lost_in_every_seat():
    def deal(d, a_first, a_second, seats=("A", "B")):
        first = [a_first, 1.0 - a_first]
        return [_record(d, seats, first, [0.0, 0.0]), _record(d, seats[::-1], [1.0 - a_second, a_second], [0.0, 0.0])]

    records = [
        *deal(0, 1.0, 1.0),  # won in both seats
        *deal(1, 1.0, 0.0),  # seat 0 won both games
        *deal(2, 0.0, 0.0),  # lost in both
        *deal(3, 0.0, 0.0),
        *deal(4, 0.5, 1.0),  # a shared win: not won in every seat
        _record(6, ("A", "B"), [0.0, 0.0], [0.0, 0.0]),  # no winner in either seat: a draw, not lost
        _record(6, ("B", "A"), [0.0, 0.0], [0.0, 0.0]),
        *deal(7, 0.0, 1.0)[:1],  # lost in one seat, drawn in the other: not lost in every seat
        _record(7, ("B", "A"), [0.0, 0.0], [0.0, 0.0]),
        _record(5, ("A", "B"), [1.0, 0.0], [0.0, 0.0]),  # one seat only (a stopped run): not counted
        _record(0, ("A", "C", "C"), [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]),
        _record(0, ("C", "A", "C"), [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]),
        _record(0, ("C", "C", "A"), [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]),
        _record(1, ("A", "C", "C"), [0.0, 1.0, 0.0], [0.0, 0.0, 0.0]),
        _record(1, ("C", "A", "C"), [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]),
        _record(1, ("C", "C", "A"), [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]),
    ]
    rows = evaluate.panel_rows("A", ["B", "C"], records)
    counts = [(r["opponent"], r["deals"], r["deals_won_in_every_seat"], r["deals_lost_in_every_seat"]) for r in rows]
    assert counts == [("B", 8, 1, 2), ("C", 2, 1, 1)]


def test_every_deal_is_played_once_with_the_agent_in_each_seat(tmp_path, capsys):
    out = tmp_path / "eval"
    args = ["--variant", "gin_rummy", "--agent", "heuristic", "--opponents", "random", "heuristic:style=gin_hunter"]
    assert evaluate.main([*args, "--deals", "3", "--seed", "4", "--workers", "1", "--out", str(out)]) == 0
    result = json.loads((out / "evaluation.json").read_text())
    assert result["opponents"] == ["random", "heuristic:style=gin_hunter"]
    assert (result["seats"], result["fair_share"], result["deals"], result["games"]) == (2, 0.5, 3, 12)
    assert result["partial"] is False and result["panel_version"] is None
    assert [(r["opponent"], r["games"], r["deals"], r["same_as_agent"]) for r in result["rows"]] == [
        ("random", 6, 3, False),
        ("heuristic:style=gin_hunter", 6, 3, False),
    ]
    # the heuristic wins all 6 games against random, 4 of 6 against the gin hunter
    assert [(r["wins"], r["draws"]) for r in result["rows"]] == [(6.0, 0), (4.0, 0)]
    assert [r["win_rate"] for r in result["rows"]] == pytest.approx([1.0, 2 / 3], rel=1e-6)
    assert result["panel_min"] == pytest.approx(2 / 3, rel=1e-6)
    assert result["panel_min_opponent"] == "heuristic:style=gin_hunter"
    assert result["panel_mean"] == pytest.approx(5 / 6, rel=1e-6)
    with open(out / "games.csv") as f:
        games = list(csv.DictReader(f))
    seats = Counter((g["opponent"], g["deal"], g["agent_seat"]) for g in games)
    assert sorted(seats) == sorted((o, str(d), str(s)) for o in result["opponents"] for d in range(3) for s in (0, 1))
    assert set(seats.values()) == {1}
    # the same deals for every member: each deal's seed is shared across opponents
    by_deal = {(g["deal"], g["rotation"]): set() for g in games}
    for g in games:
        by_deal[(g["deal"], g["rotation"])].add(g["seed"])
    assert all(len(s) == 1 for s in by_deal.values())
    with open(out / "evaluation.csv") as f:
        assert [r["opponent"] for r in csv.DictReader(f)] == result["opponents"]
    assert (out / "evaluation.png").stat().st_size > 0
    printed, progress = capsys.readouterr()
    # named opponents are not the panel: the printed figures say so
    assert "  opponents' mean 0.833, opponents' min 0.667 (against " in printed and "12 games" in printed
    # stderr is not a terminal here: the progress is a plain line, not a bar
    assert progress.strip().splitlines()[-1].startswith("evaluate: 6/6 deals (100%), ")


def test_results_do_not_depend_on_the_workers(tmp_path):
    rows = []
    for workers in (1, 2):
        out = tmp_path / f"w{workers}"
        args = ["--variant", "rummy", "--agent", "heuristic", "--opponents", "random", "--deals", "4"]
        assert evaluate.main([*args, "--workers", str(workers), "--out", str(out), "--no-progress"]) == 0
        rows.append(json.loads((out / "evaluation.json").read_text())["rows"])
    assert rows[0] == rows[1]


@pytest.mark.parametrize(
    ("deals", "opponents", "workers", "size"),
    [(20, 1, 2, 10), (300, 1, 2, 25), (20, 7, 2, 20), (80, 7, 2, 25), (5, 1, 8, 1), (7, 2, 8, 2), (1, 1, 1, 1)],
)
def test_chunks_are_small_enough_for_every_worker_to_play(deals, opponents, workers, size):
    assert evaluate.chunk_deals(deals, opponents, workers) == size


def test_one_opponents_deals_are_split_over_the_workers(monkeypatch):
    # 20 deals of one opponent on 2 workers: two chunks of 10 (one chunk of 25 left a worker idle)
    seen = []
    monkeypatch.setattr(evaluate, "run_tasks", lambda fn, chunks, **kwargs: seen.extend(chunks) or [])
    evaluate.evaluate("heuristic", "rummy_v0", deals=20, seed=3, opponents=["random"], workers=2)
    assert [(c.first, c.count) for c in seen] == [(0, 10), (10, 10)]
    seen.clear()
    evaluate.evaluate("heuristic", "rummy_v0", deals=20, seed=3, opponents=["random"], workers=2, backend="ray")
    assert [(c.first, c.count) for c in seen] == [(0, 20)]


def test_search_members_are_started_first_and_the_games_keep_the_panels_order(monkeypatch):
    """The chunks of members that search go to the workers first (so no worker is left alone
    with one at the end); the records come back in the panel's order, deal and rotation."""
    from experiments.tournament.deals import run_chunk

    seen = []

    def reversed_run(fn, chunks, **kwargs):  # play every chunk, hand the parts back in another order
        seen.extend(chunks)
        return [run_chunk(c) for c in reversed(chunks)]

    monkeypatch.setattr(evaluate, "run_tasks", reversed_run)
    opponents = ["random", "pimc:worlds=1,depth=2", "heuristic", "champion"]
    _, records = evaluate.evaluate("heuristic", "rummy_v0", deals=2, seed=3, opponents=opponents, workers=2)
    assert [c.lineup[1] for c in seen] == ["pimc:worlds=1,depth=2", "champion", "random", "heuristic"]
    assert [(r["lineup"].split(" vs ")[1], r["deal"], r["rotation"]) for r in records] == [
        (member, deal, rotation) for member in opponents for deal in (0, 1) for rotation in (0, 1)
    ]
    assert [evaluate.slow_member(n) for n in ["ismcts", "pimc", "champion", "random", "policy:x.pt"]] == [
        True, True, True, False, False,
    ]  # fmt: skip


def test_three_seats_put_the_opponent_in_every_other_seat(tmp_path):
    out = tmp_path / "crazy"
    args = ["--variant", "crazy_rummy", "--agent", "heuristic", "--opponents", "random", "--deals", "2"]
    assert evaluate.main([*args, "--workers", "1", "--out", str(out), "--no-progress"]) == 0
    result = json.loads((out / "evaluation.json").read_text())
    assert (result["seats"], result["fair_share"], result["games"]) == (3, pytest.approx(1 / 3), 6)
    with open(out / "games.csv") as f:
        assert Counter(g["agent_seat"] for g in csv.DictReader(f)) == {"0": 2, "1": 2, "2": 2}


def test_the_default_opponents_are_the_whole_panel_the_agent_included(monkeypatch):
    monkeypatch.setattr(evaluate, "run_tasks", lambda *args, **kwargs: [])  # no games: only who would play
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # members without their extra are dropped with a warning
        members = panel("rummy_v0", available_only=True)
        result, records = evaluate.evaluate("heuristic", "rummy_v0", deals=1)
    assert result["panel_version"] == PANEL_VERSION
    assert result["opponents"] == members and "heuristic" in members  # a member plays itself too
    assert records == [] and result["rows"] == [] and result["panel_min"] is None


def test_an_agent_of_the_panel_plays_itself_as_a_marked_self_match(tmp_path):
    args = ["--variant", "rummy", "--agent", "heuristic", "--opponents", "random", "heuristic", "--deals", "3"]
    assert evaluate.main([*args, "--workers", "1", "--out", str(tmp_path), "--no-progress"]) == 0
    result = json.loads((tmp_path / "evaluation.json").read_text())
    rows = [(r["opponent"], r["games"], r["win_rate"], r["same_as_agent"]) for r in result["rows"]]
    assert rows == [("random", 6, 1.0, False), ("heuristic", 6, 0.5, True)]
    # the deterministic heuristic plays each deal's two games alike from either seat: every
    # deal's margin is its points minus the same points
    self_match = result["rows"][1]
    assert [self_match[k] for k in ("points_margin", "points_margin_ci_low", "points_margin_ci_high")] == [0, 0, 0]
    with open(tmp_path / "games.csv") as f:
        games = list(csv.DictReader(f))
    seats = [(g["opponent"], g["rotation"], g["agent_seat"]) for g in games]
    assert seats[-2:] == [("heuristic", "0", "0"), ("heuristic", "1", "1")]
    mine = [(g["points_per_hand"], g["opponent_points_per_hand"]) for g in games[-2:]]
    assert mine[0] == mine[1][::-1] and mine[0] != ("0.0", "0.0")


def test_the_panels_models_that_cannot_play_this_many_seats_are_left_out_with_a_warning(monkeypatch):
    monkeypatch.setattr(evaluate, "run_tasks", lambda *args, **kwargs: [])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result, _ = evaluate.evaluate("heuristic", "rummy_v0", {"num_players": 3}, deals=1)
    left_out = [str(w.message) for w in caught if "left out" in str(w.message)]
    models = [m for m in panel("rummy_v0") if m.startswith("policy:")]
    assert len(left_out) == len(models) >= 1 and not any(m in result["opponents"] for m in models)
    assert "was trained on observations of shape" in left_out[0]
    assert result["opponents"][:2] == ["random", "heuristic"] and list(result["left_out"]) == models
    assert evaluate.format_rows(result).splitlines()[-1].startswith("  left out, cannot play here: ")
    message = (
        f"policy '{models[0]}' was trained on observations of shape (324,) (rummy_v0, options {{}}), this env's are "
        "(380,) (rummy_v0, 3 players): a model plays the variant and number of players it was trained on"
    )
    with pytest.raises(ValueError, match=whole(message)):  # named: an error
        evaluate.evaluate("heuristic", "rummy_v0", {"num_players": 3}, deals=1, opponents=models[:1])


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (
            ["--agent", "nobody"],
            unknown_agent("nobody", "gin_rummy_v0"),
        ),
        (
            ["--agent", "heuristic", "--opponents", "pimc:worlds=0"],
            (
                "agent 'pimc:worlds=0': worlds=0 is out of range (counts 1..10,000,000, c >= 0, time in "
                "(0, 86400] s, model 0..1)"
            ),
        ),
        (["--agent", "heuristic", "--deals", "0"], "argument --deals: must be positive, got 0"),
        (["--agent", "heuristic", "--seed", "-1"], "--seed must be an int >= 0, got -1"),
        # every deal's work is listed before the first: 10**14 filled the memory
        (
            ["--agent", "heuristic", "--deals", "99999999999999"],
            "argument --deals: at most 10,000,000 deals (days of play on a cluster), got 99,999,999,999,999",
        ),
        (
            ["--agent", "heuristic", "--workers", "100000"],
            f"argument --workers: at most {max_workers()} local processes here ({usable_cpus()} CPUs; "
            "more would only wait), got 100000",
        ),
        (
            ["--agent", "heuristic", "--env-option", "reward=score"],
            "--env-option reward='score': the evaluation sets these itself (it reads winners from reward='win' and "
            "plays without rendering); drop the option",
        ),
        (["--agent", "heuristic", "--address", "auto"], "--address goes with --backend ray"),
        (
            ["--agent", "heuristic", "--env-option", "render_mode=ansi"],
            "--env-option render_mode='ansi': the evaluation sets these itself (it reads winners from reward='win' and "
            "plays without rendering); drop the option",
        ),
        (
            ["--agent", "random", "--opponents", "heuristic", "random", "heuristic"],
            "--opponents lists heuristic more than once",
        ),
    ],
)
def test_bad_arguments_exit_with_a_clear_message_before_any_game(extra, message, tmp_path, capsys):
    out = tmp_path / "never"
    with pytest.raises(SystemExit) as stop:
        evaluate.main(["--variant", "gin_rummy", *extra, "--out", str(out)])
    assert stop.value.code == 2
    assert usage_error(capsys.readouterr().err, message)
    assert not out.exists()  # refused before the folder is made


def test_a_member_that_is_the_agent_under_another_name_is_marked_as_a_self_match(monkeypatch):
    seats = [("pimc", "pimc:model=1", "pimc:model=1"), ("random", "pimc", "random")]
    fake = [[_record(0, s, [1 / 3, 1 / 3, 1 / 3], [5.0, 5.0, 5.0], "pimc") for s in seats]]
    monkeypatch.setattr(evaluate, "run_tasks", lambda *args, **kwargs: fake)
    result, _ = evaluate.evaluate("pimc", "crazy_rummy_v0", deals=1, opponents=["pimc:model=1", "random"])
    assert [(r["opponent"], r["same_as_agent"]) for r in result["rows"]] == [("pimc:model=1", True), ("random", False)]
    text = evaluate.format_rows(result)
    assert text.splitlines()[0] == (
        "crazy_rummy_v0: pimc against the opponents named (not the panel, 3 seats, fair share 0.333)"
    )
    assert text.splitlines()[2].endswith(" *") and not text.splitlines()[3].endswith(" *")
    assert "* the same agent as the one evaluated (the same settings): a self-match" in text
    # Crazy Rummy's points are penalties: named so, with which way is better
    header = text.splitlines()[1].split()
    assert header[header.index("CI") + 1 : header.index("CI") + 3] == ["penalty/round", "theirs"]
    assert "  penalty/round and theirs: penalty points, lower is better" in text.splitlines()


def test_a_stopped_run_says_which_members_its_panel_figures_leave_out(monkeypatch):
    # stopped after the games against random: the heuristic was never played
    fake = [[_record(0, s, w, [5.0, 0.0], "heuristic") for s, w in [(("heuristic", "random"), [1.0, 0.0])]]]
    monkeypatch.setattr(evaluate, "run_tasks", lambda *args, **kwargs: fake)
    result, _ = evaluate.evaluate(
        "heuristic", "gin_rummy_v0", deals=1, opponents=["random", "heuristic:style=defensive"]
    )
    assert [r["opponent"] for r in result["rows"]] == ["random"]
    assert evaluate.format_rows(result).splitlines()[-1] == (
        "  opponents' mean 1.000, opponents' min 1.000 (against random) over the 1 member played; "
        "not played: heuristic:style=defensive"
    )
    # the same figures of a panel's evaluation are the panel's
    panel = evaluate.format_rows({**result, "panel_version": 3}).splitlines()[-1]
    assert panel.startswith("  panel mean 1.000, panel min 1.000 (against random) over the 1 member played")


def test_a_tournaments_folder_is_refused_before_any_game(tmp_path, capsys):
    out = tmp_path / "tournament"
    out.mkdir()
    (out / "summary.csv").write_text("variant,agent\n")
    (out / "games.csv").write_text("variant,lineup\n")  # evaluate would replace it with its own columns
    with pytest.raises(SystemExit) as stop:
        evaluate.main(["--variant", "rummy", "--agent", "random", "--opponents", "heuristic", "--out", str(out)])
    assert stop.value.code == 2
    message = (
        f"--out '{out}' holds the outputs of experiments.tournament (summary.csv), some of whose files "
        "experiments.evaluate would overwrite: give another folder"
    )
    assert usage_error(capsys.readouterr().err, message)
    assert (out / "games.csv").read_text() == "variant,lineup\n"
