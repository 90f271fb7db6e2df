"""Helpers of the jobs: the intervals, option parsing, variant names."""

import re
from pathlib import Path

import numpy as np
import pytest

from experiments.common import (
    csv_number,
    mean_interval,
    output_folder,
    parse_env_options,
    resolve_variant,
    t_quantile_95,
    wilson_interval,
)
from experiments.common import jobs as common
from tests.helpers import whole


@pytest.mark.parametrize("n", range(1, 400))
def test_wilson_interval_contains_the_rate_even_at_0_and_1(n):
    for p in (0.0, 1.0, 0.5, 1 / n):
        low, high = wilson_interval(p, n)
        assert 0.0 <= low <= p <= high <= 1.0


def test_wilson_interval_values():
    low, high = wilson_interval(0.5, 100)
    assert (round(low, 4), round(high, 4)) == (0.4038, 0.5962)
    assert wilson_interval(0.3, 0) == (0.0, 1.0)


def test_wilson_interval_at_the_edges():
    z2 = 1.959964**2
    # no win in 1 trial: [0, z^2 / (1 + z^2)]; all won in 4: [4 / (4 + z^2), 1]
    assert wilson_interval(0.0, 1) == pytest.approx((0.0, z2 / (1 + z2)), abs=1e-12)
    assert wilson_interval(1.0, 4) == pytest.approx((4 / (4 + z2), 1.0), abs=1e-12)
    assert wilson_interval(1 + 1e-12, 4) == wilson_interval(1.0, 4)  # shared wins summed a hair past 1


@pytest.mark.parametrize(
    ("p", "n", "message"),
    [
        (0.5, -1, "n=-1 is out of range: n must be an int >= 0"),
        (0.5, 2.0, "n=2.0 is not an integer: n must be an int >= 0"),
        (0.5, True, "n=True is not an integer: n must be an int >= 0"),
        (1.5, 10, "a proportion must be a number in 0..1, got 1.5"),
        (-0.1, 10, "a proportion must be a number in 0..1, got -0.1"),
        (float("nan"), 10, "a proportion must be a number in 0..1, got nan"),
        ("0.5", 10, "a proportion must be a number in 0..1, got '0.5'"),
    ],
)
def test_wilson_interval_refuses_bad_input(p, n, message):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        wilson_interval(p, n)


def test_wilson_interval_takes_numpy_scalars():
    """A count summed with numpy is an np.int64, a rate an np.float32: numbers in range."""
    import numpy as np

    assert wilson_interval(np.float32(0.5), np.int64(100)) == wilson_interval(0.5, 100)
    with pytest.raises(ValueError, match=r"^n=np.True_ is not an integer: n must be an int >= 0$"):
        wilson_interval(0.5, np.bool_(True))
    with pytest.raises(ValueError, match=r"^a proportion must be a number in 0\.\.1, got np\.True_$"):
        wilson_interval(np.bool_(True), 10)


@pytest.mark.parametrize(
    ("df", "quantile"),
    # scipy.stats.t.ppf(0.975, df) (SciPy 1.17.1), on both sides of the switch to the expansion at 400
    [
        (1, 12.706204736174694),
        (2, 4.302652729749462),
        (9, 2.262157162798205),
        (10, 2.228138851986274),
        (30, 2.0422724563012378),
        (100, 1.9839715185235518),
        (400, 1.9659123432294627),
        (401, 1.965897465336516),
        (1000, 1.9623390808264083),
        (100_000, 1.9599877075346095),
    ],
)
def test_t_quantile_95_matches_scipy(df, quantile):
    assert t_quantile_95(df) == pytest.approx(quantile, abs=1e-12)


def test_t_quantile_95_rejects_no_degrees_of_freedom():
    for bad in (0, 2.5, True, "3"):
        with pytest.raises(ValueError, match=whole(f"degrees of freedom must be an int of at least 1, got {bad!r}")):
            t_quantile_95(bad)


def test_mean_interval_of_known_values():
    # mean 3, sample standard deviation sqrt(2.5), standard error sqrt(0.5), t at 4 degrees of freedom
    mean, low, high = mean_interval([1.0, 2.0, 3.0, 4.0, 5.0])
    assert (mean, low, high) == pytest.approx(
        (3.0, 3.0 - 2.7764451051977934 * 0.5**0.5, 3.0 + 2.7764451051977934 * 0.5**0.5)
    )
    assert mean_interval([7.0]) == (7.0, None, None)
    # no spread: zero width, the formula's answer (documented: exact for a self-match's margins)
    assert mean_interval([0.0] * 4) == (0.0, 0.0, 0.0) and mean_interval([1.0] * 3) == (1.0, 1.0, 1.0)


def test_parse_env_options():
    assert parse_env_options(["num_players=3", "ace_high=true", "episode=game", "x=False"]) == {
        "num_players": 3,
        "ace_high": True,
        "episode": "game",
        "x": False,
    }
    with pytest.raises(ValueError, match=whole("env option '=3' is not key=value (e.g. num_players=3)")):
        parse_env_options(["=3"])
    message = "env option num_players is given twice (num_players=3 and 'num_players=4'): give it once"
    with pytest.raises(ValueError, match=whole(message)):
        parse_env_options(["num_players=3", "num_players=4"])


def test_output_folder_is_made_now_and_never_reuses_a_default_name(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(common.time, "strftime", lambda fmt: fmt.replace("%Y%m%d-%H%M%S", "20261202-010203"))
    first = output_folder(None, "tournament")
    second = output_folder(None, "tournament")  # a second run in the same second
    assert (first, second) == (Path("results/tournament-20261202-010203"), Path("results/tournament-20261202-010203-2"))
    assert first.is_dir() and second.is_dir()
    assert output_folder(tmp_path / "a" / "b", "x") == tmp_path / "a" / "b" and (tmp_path / "a" / "b").is_dir()
    (tmp_path / "f").write_text("")
    with pytest.raises(ValueError, match=f"^--out '{tmp_path}/f' is a file, not a folder$"):
        output_folder(tmp_path / "f", "x")
    said = f"^--record '{tmp_path}/f/g' cannot be made or written: '{tmp_path}/f' is not a writable folder$"
    with pytest.raises(ValueError, match=said):
        output_folder(tmp_path / "f" / "g", "x", what="--record")
    assert not (tmp_path / "f" / "g").exists()


def test_resolve_variant():
    assert resolve_variant("rummy") == resolve_variant("rummy_v0") == "rummy_v0"
    message = "unknown variant 'poker': known variants are rummy_v0, crazy_rummy_v0, gin_rummy_v0, rummikub_v0"
    with pytest.raises(ValueError, match=whole(message)):
        resolve_variant("poker")


def test_description_drops_rest_markup_for_help():
    doc = "Replay a game record through ``env()``; see :mod:`experiments.replay`.\n\nDetails."
    assert common.description(doc) == "Replay a game record through env(); see experiments.replay."
    assert common.description(None) == ""


@pytest.mark.parametrize(
    "module",
    [
        "replay",
        "pimc_labels",
        "vector_differential",
        "serve",
        "play",
        "search_budget",
        "tournament",
        "benchmark.vector",
        "dev.truncation_rates",
        "dev.heuristic_vs_random",
    ],
)
def test_job_help_shows_no_rest_markup(module):
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", f"experiments.{module}", "--help"], capture_output=True, text=True, check=True
    ).stdout
    assert "usage:" in out
    assert "``" not in out and ":mod:" not in out


def test_atomic_open_replaces_the_file_only_once_it_is_written(tmp_path):
    path = tmp_path / "games.csv"
    path.write_text("the previous run's games\n")
    with pytest.raises(KeyboardInterrupt), common.atomic_open(path, "w") as f:
        f.write("half a ro")
        raise KeyboardInterrupt  # quit in the middle of writing
    assert path.read_text() == "the previous run's games\n" and sorted(p.name for p in tmp_path.iterdir()) == [
        "games.csv"
    ]
    with common.atomic_open(path, "w", newline="") as f:
        f.write("a,b\r\n")
        assert path.read_text() == "the previous run's games\n"  # not yet replaced
    assert path.read_bytes() == b"a,b\r\n" and sorted(p.name for p in tmp_path.iterdir()) == ["games.csv"]


def test_worker_counts_are_bounded_by_the_cpus(monkeypatch):
    """``--workers`` of the jobs: 1 .. 4 per usable CPU (at least 8); ``--workers 100000``
    started 100,000 processes and filled the memory."""
    import argparse

    from experiments.common import jobs

    monkeypatch.setattr(jobs, "usable_cpus", lambda: 2)
    assert jobs.max_workers() == 8 and jobs.worker_count("8") == 8 and jobs.worker_count("1") == 1
    with pytest.raises(
        argparse.ArgumentTypeError, match=whole("at most 8 local processes here (2 CPUs; more would only wait), got 9")
    ):
        jobs.worker_count("9")
    with pytest.raises(argparse.ArgumentTypeError, match=whole("must be positive, got 0")):
        jobs.worker_count("0")
    monkeypatch.setattr(jobs, "usable_cpus", lambda: 16)
    assert jobs.max_workers() == 64


def test_batch_sizes_are_bounded_by_the_engines_limit():
    import argparse

    from experiments.common import batch_size

    assert batch_size("1") == 1 and batch_size(str(2**24)) == 2**24
    with pytest.raises(argparse.ArgumentTypeError, match=r"^at most 16,777,216 games in a batch, got 20,000,000$"):
        batch_size("20000000")
    with pytest.raises(argparse.ArgumentTypeError, match=whole("must be positive, got 0")):
        batch_size("0")


def test_deal_counts_and_paths_of_the_jobs_flags(tmp_path):
    """The argparse types every job shares: deal counts 1 (or 0) .. 10,000,000, and paths
    that are not empty (``Path('')`` would be the current folder)."""
    import argparse

    from experiments.common import MAX_DEALS, deal_count, deal_count_or_zero, path_arg

    assert (deal_count("1"), deal_count(str(MAX_DEALS)), deal_count_or_zero("0")) == (1, 10_000_000, 0)
    for check, text, said in [
        (deal_count, "0", "must be positive, got 0"),
        (deal_count, "10000001", "at most 10,000,000 deals (days of play on a cluster), got 10,000,001"),
        (deal_count_or_zero, "-1", "must be >= 0, got -1"),
        (
            deal_count_or_zero,
            "99999999999999",
            "at most 10,000,000 deals (days of play on a cluster), got 99,999,999,999,999",
        ),
        (path_arg, "", "an empty path: give a file or folder name"),
        (path_arg, "  ", "an empty path: give a file or folder name"),
    ]:
        with pytest.raises(argparse.ArgumentTypeError) as err:
            check(text)
        assert str(err.value) == said
    assert path_arg("results/x") == Path("results/x") and path_arg(".") == Path(".")


def test_the_jobs_python_functions_refuse_a_deal_count_before_any_game():
    """``make_chunks(deals=-1)`` listed no work and ``evaluate(deals=0)`` returned empty rows."""
    import numpy as np

    from experiments.common import check_deals
    from experiments.evaluate import evaluate
    from experiments.search_budget import measure
    from experiments.tournament import evaluate_against_baselines, make_chunks

    assert (check_deals(np.int64(7)), check_deals(0, least=0)) == (7, 0)
    for bad in (-1, 0, True, 2.0, "5", 10_000_001):
        with pytest.raises(ValueError, match=whole(f"deals={bad!r}: the number of deals is an int 1..10,000,000")):
            check_deals(bad)
    calls = [  # each with the count it passes
        (-1, lambda: make_chunks(["rummy"], ["random", "heuristic"], -1, {}, 0)),
        (0, lambda: evaluate("random", "rummy_v0", deals=0, opponents=["heuristic"])),
        (0, lambda: evaluate_against_baselines("random", "rummy_v0", {}, 0, 1, 0)),
        (-3, lambda: measure("rummy_v0", "random", "heuristic", -3)),
    ]
    for bad, call in calls:
        with pytest.raises(ValueError, match=whole(f"deals={bad}: the number of deals is an int 1..10,000,000")):
            call()


def test_save_figure_replaces_the_picture_only_once_it_is_drawn(tmp_path, monkeypatch):
    from experiments.common import new_figure, save_figure

    fig = new_figure(figsize=(2, 2))
    fig.add_subplot().plot([0, 1])
    path = tmp_path / "x.png"
    save_figure(fig, path)
    first = path.read_bytes()
    assert first[:8] == b"\x89PNG\r\n\x1a\n"

    def cut(f, **kwargs):
        f.write(b"\x89PNG")  # a second Ctrl-C while the picture is written
        raise KeyboardInterrupt

    monkeypatch.setattr(fig, "savefig", cut)
    with pytest.raises(KeyboardInterrupt):
        save_figure(fig, path)
    assert path.read_bytes() == first and not (tmp_path / "x.png.part").exists()


def test_a_folder_is_checked_without_being_made(tmp_path):
    from experiments.common import check_folder

    check_folder(tmp_path / "new" / "deeper")  # its nearest existing folder is writable
    assert not (tmp_path / "new").exists()
    (tmp_path / "afile").write_text("")
    with pytest.raises(ValueError, match=f"^--out '{tmp_path / 'afile'}' is a file, not a folder$"):
        check_folder(tmp_path / "afile")
    afile = tmp_path / "afile"
    said = f"--record '{afile / 'x'}' cannot be made or written: '{afile}' is not a writable folder"
    with pytest.raises(ValueError, match=whole(said)):
        check_folder(tmp_path / "afile" / "x", "--record")


@pytest.mark.parametrize(
    ("job", "markers", "refused_by", "named"),
    [  # named: the files the refusal names, those that mark the job's folder
        ("tournament", ["summary.csv", "summary.json", "games.csv"], "evaluate", "summary.csv"),
        ("evaluate", ["evaluation.csv", "evaluation.json", "games.csv"], "tournament", "evaluation.csv"),
        ("evaluate", ["evaluation.csv"], "train", "evaluation.csv"),
        ("selfplay", ["scalars.csv", "checkpoint.pt", "summary.json"], "exploit", "scalars.csv, checkpoint.pt"),
        ("tournament", ["head_to_head.csv"], "selfplay", "head_to_head.csv"),
    ],
)
def test_a_folder_holding_another_jobs_outputs_is_refused(tmp_path, job, markers, refused_by, named):
    out = tmp_path / "run"
    out.mkdir()
    for name in markers:
        (out / name).write_text("x")
    before = sorted(p.name for p in out.iterdir())
    message = (
        f"--out '{out}' holds the outputs of experiments.{job} ({named}), some of whose files "
        f"experiments.{refused_by} would overwrite: give another folder"
    )
    with pytest.raises(ValueError, match=whole(message)):
        common.output_folder(out, "x", job=refused_by)
    assert sorted(p.name for p in out.iterdir()) == before
    assert common.output_folder(out, "x", job=job) == out  # its own job goes on (or resumes) there


def test_an_exploits_folder_is_its_own_and_a_mixed_one_names_what_it_holds(tmp_path):
    out = tmp_path / "run"
    out.mkdir()
    for name in ("exploit.json", "scalars.csv", "checkpoint.pt"):
        (out / name).write_text("x")
    assert common.folder_jobs(out) == {"exploit": ["exploit.json"]}
    assert common.output_folder(out, "x", job="exploit") == out
    message = (
        f"--out '{out}' holds the outputs of experiments.exploit (exploit.json), some of whose files "
        "experiments.selfplay would overwrite: give another folder"
    )
    with pytest.raises(ValueError, match=whole(message)):
        common.output_folder(out, "x", job="selfplay")
    assert common.folder_jobs(tmp_path / "none") == {}


def test_an_illegal_move_stops_the_episode_naming_the_agent():
    # Gin, seed 5: player_1 deals, player_0 takes the upcard and discards (the lowest
    # legal ids), then player_1 must draw (R-GIN-04); the first illegal id is 0, discarding AC
    from experiments.common.records import play_recorded
    from rummy_env import gin_rummy_v0
    from tests.experiments.custom_agent import FirstIllegalAgent, FirstLegalAgent

    env = gin_rummy_v0.env()
    agents = [FirstLegalAgent(), FirstIllegalAgent()]
    message = (
        "agent 'broken' in seat 1 (player_1), game seed 5, chose action 0 (discard AC) which is not "
        "legal here: the legal actions are 104 (draw stock), 105 (draw upcard)"
    )
    with pytest.raises(common.AgentActionError) as err:
        common.play_episode(env, agents, 5, names=["first", "broken"])
    assert str(err.value) == message
    with pytest.raises(common.AgentActionError) as err:
        play_recorded(env, agents, 5, {}, ["first", "broken"])
    assert str(err.value) == message


def test_a_tournament_stops_at_an_illegal_move_and_takes_back_its_records_and_folders(tmp_path, capsys):
    from experiments import tournament
    from tests.experiments.custom_agent import IllegalLater

    IllegalLater.moves = 0  # its first 200 moves are legal: the first games are played and recorded
    out, record = tmp_path / "out", tmp_path / "records"
    agent = "tests.experiments.custom_agent:IllegalLater"
    argv = ["--variants", "gin_rummy", "--agents", "random", agent, "--deals", "20", "--workers", "1"]
    argv += ["--no-progress", "--out", str(out), "--record", str(record), "--record-games", "40"]
    assert tournament.main(argv) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"python -m experiments.tournament: error: agent {agent!r} in seat ")
    assert err[0].endswith("which is not legal here: the legal actions are 105 (draw upcard), 106 (pass)")
    assert IllegalLater.moves > 200 and not out.exists() and not record.exists()


def test_an_evaluation_stops_at_an_illegal_move_without_a_usage_line_or_its_folder(tmp_path, capsys):
    from experiments import evaluate

    out, agent = tmp_path / "out", "tests.experiments.custom_agent:FirstIllegalAgent"
    argv = ["--variant", "gin_rummy", "--agent", agent, "--opponents", "random", "--deals", "1", "--workers", "1"]
    assert evaluate.main([*argv, "--no-progress", "--out", str(out)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and err[0].startswith(f"python -m experiments.evaluate: error: agent {agent!r} in seat ")
    assert " chose action 0 (discard AC) which is not legal here: the legal actions are " in err[0]
    assert not out.exists()


@pytest.mark.parametrize(
    "value, message",
    [
        (-1, "chose action -1, out of range 0..107, which is not legal here: "),
        (107, "chose action 107 (big gin) which is not legal here: "),
        (2**70, f"chose action {2**70}, out of range 0..107, which is not legal here: "),
        (105.0, "returned 105.0 (float), not an action id 0..107"),
        (True, "returned True (bool), not an action id 0..107"),
        (np.array([105]), "returned array([105]) (ndarray), not an action id 0..107"),
        ([[1], 2], "returned [[1], 2] (list), not an action id 0..107"),
    ],
)
def test_an_agent_returning_no_legal_action_id_stops_the_episode(value, message):
    from rummy_env import gin_rummy_v0
    from tests.experiments.custom_agent import FirstLegalAgent, ReturnsAnything

    if message.endswith(": "):  # player_1 must draw now (the test above)
        message += "the legal actions are 104 (draw stock), 105 (draw upcard)"
    with pytest.raises(common.AgentActionError) as err:
        common.play_episode(gin_rummy_v0.env(), [FirstLegalAgent(), ReturnsAnything(value)], 5)
    assert str(err.value) == "agent 'ReturnsAnything' in seat 1 (player_1), game seed 5, " + message


@pytest.mark.parametrize("value", [105, np.int64(105), np.array(105, dtype=np.int32)])
def test_integer_action_ids_of_any_integer_type_are_played_as_ints(value):
    from rummy_env import gin_rummy_v0
    from tests.experiments.custom_agent import ReturnsAnything

    env = gin_rummy_v0.env()
    env.reset(seed=5)
    obs, _, _, _, info = env.last()
    action = common.agent_action(env, [ReturnsAnything(value)] * 2, 0, obs, info, 5)  # player_0 opens
    assert type(action) is int and action == 105


def test_an_action_whose_repr_fails_is_still_named_as_no_action_id():
    from rummy_env import gin_rummy_v0
    from tests.experiments.custom_agent import FirstLegalAgent, ReturnsAnything

    class Odd:
        def __repr__(self):
            raise RuntimeError("no repr")

    with pytest.raises(common.AgentActionError) as err:
        common.play_episode(gin_rummy_v0.env(), [FirstLegalAgent(), ReturnsAnything(Odd())], 5)
    assert re.fullmatch(
        r"agent 'ReturnsAnything' in seat 1 \(player_1\), game seed 5, returned <Odd instance at 0x[0-9a-f]+> "
        r"\(Odd\), not an action id 0\.\.107",
        str(err.value),
    )


def test_a_csv_number_is_read_or_refused_naming_the_file_line_and_column():
    # one reader for the games.csv of --resummarize and of experiments.paired (they had a copy each)
    row = {"deal": "3", "win_share": "0.5", "steps": "nan", "seat": "1.5"}
    assert csv_number(Path("g.csv"), 2, row, "deal", int) == 3 and csv_number(Path("g.csv"), 2, row, "win_share") == 0.5
    for column, kind, said in [
        ("steps", float, "steps is 'nan', not a finite number"),
        ("seat", int, "seat is '1.5', not an integer"),
        ("rotation", int, "rotation is missing (a cut line?), not an integer"),
    ]:
        with pytest.raises(ValueError) as err:
            csv_number(Path("g.csv"), 7, row, column, kind)
        assert str(err.value) == f"g.csv, line 7: {said}"


def test_seed_refusal_names_the_flag_the_value_and_the_range():
    from experiments.common.argv import seed_refusal

    assert seed_refusal("--seed", 0) is None and seed_refusal("--seed", 10**300) is None
    assert seed_refusal("--seed", 7, 7) is None
    assert seed_refusal("--seed", -1) == "--seed must be an int >= 0, got -1"
    assert seed_refusal("--seed", 8, 7) == "--seed must be an int from 0 to 7, got 8"
    assert seed_refusal("seed", -2, 7, "who takes it") == "seed must be an int from 0 to 7 (who takes it), got -2"
