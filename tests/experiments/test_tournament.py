"""The main job: outputs, duplicate deals, determinism, argument errors."""

import csv
import json

import pytest

from experiments import tournament
from experiments.common.jobs import max_workers, usable_cpus
from tests.helpers import Fragment, unknown_agent, usage_error


def run(tmp_path, *extra, name="out"):
    out = tmp_path / name
    deals = [] if "--deals" in extra else ["--deals", "6"]
    code = tournament.main(
        ["--variants", "rummy_v0", *deals, "--workers", "1", "--no-progress", "--out", str(out), *extra]
    )
    assert code == 0
    return out


def test_tournament_writes_results_and_prints_a_table(tmp_path, capsys):
    out = run(tmp_path)
    printed = capsys.readouterr().out
    assert "rummy_v0" in printed and "heuristic" in printed and "95% CI" in printed
    assert {p.name for p in out.iterdir()} == {
        "games.csv", "summary.csv", "summary.json", "win_rates.png", "head_to_head.csv", "head_to_head.png",
    }  # fmt: skip
    summary = json.loads((out / "summary.json").read_text())
    rows = {r["agent"]: r for r in summary["summary"]}
    # 6 deals x 1 lineup (random vs heuristic) x 2 seat rotations = 12 games, one seat each
    assert rows["heuristic"]["games"] == rows["random"]["games"] == 12
    # the heuristic wins all 12 seeded games: Wilson interval of 12/12 and 0/12
    fields = ("wins", "draws", "win_rate", "win_rate_ci_low", "win_rate_ci_high", "rating")
    assert [rows["heuristic"][k] for k in fields] == pytest.approx(
        [12.0, 0, 1.0, 0.6096657083436265, 1.0, 17.753012299884695], rel=1e-6
    )
    assert [rows["random"][k] for k in fields] == pytest.approx(
        [0.0, 0, 0.0, 0.0, 0.39033429165637346, -7.530857701514499], rel=1e-6
    )
    assert (out / "win_rates.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_each_deal_is_replayed_with_the_seats_rotated(tmp_path):
    out = run(tmp_path)
    with open(out / "games.csv") as f:
        games = list(csv.DictReader(f))
    assert len(games) == 24  # 12 games x 2 seats
    by_deal = {}
    for g in games:
        by_deal.setdefault(g["deal"], set()).add((g["rotation"], g["seat"], g["agent"]))
    for seats in by_deal.values():
        assert seats == {("0", "0", "random"), ("0", "1", "heuristic"), ("1", "0", "heuristic"), ("1", "1", "random")}


def test_results_do_not_depend_on_the_number_of_workers(tmp_path):
    one = run(tmp_path, name="one")
    two = tmp_path / "two"
    assert (
        tournament.main(
            ["--variants", "rummy_v0", "--deals", "6", "--workers", "2", "--no-progress", "--out", str(two)]
        )
        == 0
    )
    assert (one / "games.csv").read_text() == (two / "games.csv").read_text()


def test_env_options_reach_the_games(tmp_path):
    out = run(tmp_path, "--env-option", "num_players=3")
    with open(out / "games.csv") as f:
        games = list(csv.DictReader(f))
    # lineups of 3 seats from 2 agents: (random random heuristic), (random heuristic heuristic)
    assert {g["lineup"] for g in games} == {"random vs random vs heuristic", "random vs heuristic vs heuristic"}
    assert len(games) == 2 * 6 * 3 * 3


@pytest.mark.parametrize(
    "args, message",
    [
        (
            ["--variants", "poker_v0"],
            "unknown variant 'poker_v0': known variants are rummy_v0, crazy_rummy_v0, gin_rummy_v0, rummikub_v0",
        ),
        (
            ["--variants", "poker"],
            "unknown variant 'poker': known variants are rummy_v0, crazy_rummy_v0, gin_rummy_v0, rummikub_v0",
        ),
        (
            ["--agents", "random", "oracle"],
            unknown_agent("oracle", "rummy_v0"),
        ),
        (["--agents", "heuristic"], "rummy_v0: a tournament needs at least two different agents, got heuristic"),
        (
            ["--agents", "random", "nowhere.module:Agent"],
            (
                "agent 'nowhere.module:Agent' cannot be imported (No module named 'nowhere'): write "
                "package.module:Name, with the module importable from the current directory or the "
                "environment"
            ),
        ),
        (["--deals", "0"], "--deals must be a positive integer, got 0"),
        (["--workers", "-2"], "argument --workers: must be positive, got -2"),
        # a typo of a count would start that many processes and exhaust the memory
        (
            ["--workers", "100000"],
            f"argument --workers: at most {max_workers()} local processes here ({usable_cpus()} CPUs; "
            "more would only wait), got 100000",
        ),
        (["--deals", "ten"], Fragment("invalid int value: 'ten'")),
        (["--env-option", "num_players"], "env option 'num_players' is not key=value (e.g. num_players=3)"),
        (
            ["--env-option", "num_players=9"],
            "option num_players=9 is out of range: num_players must be an int from 2 to 6",
        ),
        (
            ["--env-option", "reward=score"],
            "the tournament reads winners from reward='win'; do not pass the reward option",
        ),
        (
            ["--env-option", "render_mode=human"],
            "the tournament plays thousands of games: render_mode is not an option here",
        ),
        (["--seed", "-1"], "--seed must be an int >= 0, got -1"),
        (["--address", "auto"], "--address goes with --backend ray"),
        (["--record-games", "5"], "--record-games goes with --record DIR (the folder the records are written to)"),
        (["--backend", "spark"], Fragment("invalid choice: 'spark'")),
        (
            ["--deals", "10000001"],
            "--deals 10000001 is more than 10,000,000 deals per lineup (days of play on a cluster)",
        ),
        (["--out", ""], "argument --out: an empty path: give a file or folder name"),
        (
            ["--agents", "random", "policy:"],
            (
                "no policy file given: pass the model.zip that experiments.train wrote or the model.pt of "
                "experiments.selfplay"
            ),
        ),
        (["--record", " "], "argument --record: an empty path: give a file or folder name"),
    ],
)
def test_bad_arguments_exit_with_a_clear_message(args, message, capsys):
    with pytest.raises(SystemExit) as exit_info:
        tournament.main(["--no-progress", *args])
    assert exit_info.value.code == 2
    assert usage_error(capsys.readouterr().err, message)


def test_an_agent_can_be_entered_by_import_path(tmp_path):
    out = run(tmp_path, "--agents", "random", "tests.experiments.custom_agent:FirstLegalAgent")
    summary = json.loads((out / "summary.json").read_text())
    assert {r["agent"] for r in summary["summary"]} == {"random", "tests.experiments.custom_agent:FirstLegalAgent"}
    assert summary["meta"]["deals_per_lineup"] == {
        "rummy_v0: random vs tests.experiments.custom_agent:FirstLegalAgent": 6
    }


def test_perfect_and_zero_win_rates_are_plotted(tmp_path):
    # a handful of deals: the heuristic wins them all and the Wilson bounds touch 0 and 1
    out = run(tmp_path, "--deals", "5")
    rows = {r["agent"]: r for r in json.loads((out / "summary.json").read_text())["summary"]}
    assert rows["heuristic"]["win_rate"] == 1.0 and rows["random"]["win_rate"] == 0.0
    assert (out / "win_rates.png").exists()


def test_default_deals_spend_the_game_budget():
    # two agents on 2 seats: one lineup, two rotations
    assert tournament.default_deals("rummy_v0", 1, 2) == tournament.DEFAULT_GAMES["rummy_v0"] // 2
    assert tournament.default_deals("rummy_v0", 3, 4) == tournament.DEFAULT_GAMES["rummy_v0"] // 12


def test_ray_backend_gives_the_local_results(tmp_path):
    import ray

    args = ["--variants", "rummy_v0", "gin_rummy_v0", "--deals", "4", "--no-progress"]
    assert tournament.main([*args, "--workers", "1", "--out", str(tmp_path / "local")]) == 0
    # the job starts a local Ray cluster itself (this machine's CPUs) and shuts it down
    assert tournament.main([*args, "--backend", "ray", "--out", str(tmp_path / "ray")]) == 0
    assert not ray.is_initialized()
    assert (tmp_path / "ray" / "games.csv").read_text() == (tmp_path / "local" / "games.csv").read_text()
    assert json.loads((tmp_path / "ray" / "summary.json").read_text())["meta"]["backend"] == "ray"


def test_a_bad_out_or_record_path_fails_before_any_game(tmp_path, capsys, monkeypatch):
    (tmp_path / "afile").write_text("")
    (tmp_path / "records").mkdir()
    (tmp_path / "records" / "gin_rummy_v0-random-heuristic-deal0-rot0.jsonl").write_text("{}\n")
    played = []
    monkeypatch.setattr(tournament.cli, "run_local", lambda *a, **k: played.append(a) or [])
    for args, message in [
        (["--out", str(tmp_path / "afile")], f"--out '{tmp_path}/afile' is a file, not a folder"),
        (
            ["--record", str(tmp_path / "records"), "--agents", "random", "pimc"],
            f"--record '{tmp_path}/records' holds game records this run would not replace "
            "(gin_rummy_v0-random-heuristic-deal0-rot0.jsonl): give a new or empty folder",
        ),
        (
            ["--record", str(tmp_path / "afile" / "r")],
            f"--record '{tmp_path}/afile/r' cannot be made or written: '{tmp_path}/afile' is not a writable folder",
        ),
    ]:
        with pytest.raises(SystemExit) as exit_info:
            tournament.main(["--no-progress", "--variants", "gin_rummy", "--deals", "1", *args])
        assert exit_info.value.code == 2
        assert usage_error(capsys.readouterr().err, message)
    assert played == []


def test_rllib_checkpoints_are_shown_by_their_run_folder():
    from experiments.tournament.report import display_names

    names = ["rllib:results/gin-rllib/checkpoint", "rllib:results/other/checkpoint/", "rllib:ckpts/step-20"]
    assert list(display_names(names).values()) == ["rllib(gin-rllib)", "rllib(other)", "rllib(step-20)"]


def test_a_refused_folder_leaves_no_empty_other_folder(tmp_path, capsys):
    """--out and --record are both checked before either is made."""
    out, record, afile = tmp_path / "out", tmp_path / "record", tmp_path / "afile"
    afile.write_text("")
    with pytest.raises(SystemExit):
        tournament.main(["--no-progress", "--out", str(out), "--record", "/dev/null/x"])
    said = "--record '/dev/null/x' cannot be made or written: '/dev/null' is not a writable folder"
    assert usage_error(capsys.readouterr().err, said)
    assert not out.exists()
    with pytest.raises(SystemExit):
        tournament.main(["--no-progress", "--out", str(afile), "--record", str(record)])
    assert usage_error(capsys.readouterr().err, f"--out '{afile}' is a file, not a folder")
    assert not record.exists()


def test_a_stopped_run_counts_the_deals_it_finished(capsys, monkeypatch):
    """The progress line of a chunk cut short by a stop counts its finished deals (it said
    5/5 when 2 were kept)."""
    from experiments.tournament import deals
    from experiments.tournament.deals import deals_played

    games = []
    real_play = deals.play_episode
    monkeypatch.setattr(deals, "play_episode", lambda *a, **k: games.append(1) or real_play(*a, **k))

    class StopAfterTwoDeals:
        @property
        def requested(self):  # read before each deal: two deals are two games each
            return len(games) >= 4

    monkeypatch.setenv("RUMMY_ENV_PROGRESS_EVERY", "0")
    chunks = tournament.make_chunks(["rummy_v0"], ["random", "heuristic"], 5, {}, 0)
    records = tournament.run_local(chunks, workers=1, progress=True, stop=StopAfterTwoDeals())
    assert [r["deal"] for r in records] == [0, 0, 1, 1] and deals_played(chunks[0], records) == 2
    lines = capsys.readouterr().err.splitlines()
    # the chunk's line, then the closing one (without a time left)
    assert [line.split(",")[0] for line in lines] == ["tournament: 2/5 deals (40%)"] * 2


def test_the_pooled_interval_counts_each_deal_once_across_lineups():
    from experiments.tournament.report import summarize

    def g(lineup, deal, seats, share):
        return {"variant": "crazy_rummy_v0", "lineup": lineup, "deal": deal, "rotation": 0, "seats": seats,
                "win_share": share, "points_per_hand": [0.0] * 3}  # fmt: skip

    aab, abb = ["a", "a", "b"], ["a", "b", "b"]
    records = [
        g("a vs a vs b", 0, aab, [1.0, 0.0, 0.0]),
        g("a vs b vs b", 0, abb, [1.0, 0.0, 0.0]),
        g("a vs a vs b", 1, aab, [0.0, 1.0, 0.0]),
        g("a vs b vs b", 1, abb, [0.0, 1.0, 0.0]),
    ]
    rows = {r["agent"]: r for r in summarize(records)}
    # a: 6 seats played, 3 won; both lineups were dealt deals 0 and 1: 2 trials, not 4.
    # Wilson p = 0.5, n = 2: centre 0.5, half z * sqrt(0.125 + z^2/16) / (1 + z^2/2) = 0.405469
    assert (rows["a"]["games"], rows["a"]["wins"], rows["a"]["win_rate"]) == (6, 3.0, 0.5)
    assert (rows["a"]["win_rate_ci_low"], rows["a"]["win_rate_ci_high"]) == pytest.approx(
        (0.094531, 0.905469), abs=1e-6
    )
