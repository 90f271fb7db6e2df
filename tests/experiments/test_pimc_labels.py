"""``experiments.pimc_labels`` and ``experiments.selfplay.teacher``: the search's labelled
decisions, the targets they give, and a self-play run taught by them."""

import csv
import warnings

import numpy as np
import pytest
import torch

from agents import make_agent
from agents.policy_features import Featurizer
from experiments import pimc_labels, selfplay, train
from experiments.selfplay.teacher import TeacherLabels, teacher_targets
from rummy_env import gin_rummy_v0
from tests.experiments.selfplay_helpers import first_rollout
from tests.helpers import usage_error, whole

AGENT = "pimc:worlds=4"


@pytest.fixture(scope="module")
def label_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("labels") / "gin.npz"
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(pimc_labels, "CHUNK_GAMES", 2)  # two chunks of two games, one per worker
        args = ["--agent", AGENT, "--games", "4", "--workers", "2", "--seed", "5", "--out", str(path), "--no-progress"]
        assert pimc_labels.main(args) == 0
    return path


def test_labels_are_the_search_seats_decisions_with_their_values_and_the_heuristics_choice():
    d = pimc_labels.label_games("gin_rummy_v0", {}, AGENT, seed=7, games=3)
    n = len(d["search"])
    assert n > 10 and len(d["result"]) == 3 and sorted(set(d["game"])) == [0, 1, 2]
    env = gin_rummy_v0.env()
    env.reset(seed=0)
    heuristic = make_agent("heuristic", env, seed=0)
    row = 0
    for g in range(3):  # replay: the labels are the search seat's decisions, in order, and its result
        env.reset(seed=7 + g)
        searcher = env.possible_agents[g % 2]
        for agent in env.agent_iter():
            obs, reward, term, trunc, _ = env.last()
            if term or trunc:
                if agent == searcher:
                    assert reward == d["result"][g]
                env.step(None)
                continue
            action = heuristic.act(obs)
            if agent == searcher and obs["action_mask"].sum() > 1:
                assert d["game"][row] == g
                assert np.array_equal(d["observation"][row], obs["observation"].astype(np.float16))
                assert np.array_equal(d["mask"][row], obs["action_mask"].astype(bool))
                action = d["search"][row]
                row += 1
            env.step(int(action))
    assert row == n and d["result"].shape == (3,)
    assert d["observation"].shape == (n, 485) and d["observation"].dtype == np.float16
    assert d["mask"].shape == d["values"].shape == (n, 108)
    for i in range(n):
        mask = d["mask"][i]
        legal = np.flatnonzero(mask)
        assert len(legal) > 1  # forced moves are not labelled
        assert np.array_equal(np.isnan(d["values"][i]), ~mask)  # a value for every legal action, none else
        assert d["search"][i] == legal[np.argmax(d["values"][i][legal])]  # the best value, lowest id on ties
        obs = {"observation": d["observation"][i].astype(np.float32), "action_mask": mask.astype(np.int8)}
        assert d["heuristic"][i] == heuristic.act(obs)  # the heuristic's choice from what the player sees
    again = pimc_labels.label_games("gin_rummy_v0", {}, AGENT, seed=7, games=3)
    for k in ("observation", "mask", "values", "heuristic", "search", "game", "result"):  # same seed, same labels
        assert np.array_equal(d[k], again[k], equal_nan=True), k


def test_label_games_needs_a_stop_and_a_search_with_action_values():
    with pytest.raises(ValueError, match=whole("label_games needs games or seconds (or both) to know when to stop")):
        pimc_labels.label_games("gin_rummy_v0", {}, AGENT, seed=0)
    with pytest.raises(
        ValueError,
        match=whole(
            "'heuristic' is a GinHeuristicAgent in gin_rummy_v0, which has no value per "
            "action to label decisions with: use pimc in gin_rummy, rummy or crazy_rummy "
            "(Rummikub's pimc plans whole plays)"
        ),
    ):
        pimc_labels.label_games("gin_rummy_v0", {}, "heuristic", seed=0, games=1)


def test_the_default_search_fits_the_variant(tmp_path):
    assert pimc_labels.default_agent("gin_rummy_v0") == "pimc:worlds=200,model=0"
    assert pimc_labels.default_agent("rummy_v0") == "pimc:worlds=200"  # the opponent model is Gin's only
    path = tmp_path / "rummy.npz"
    assert pimc_labels.main(["--variant", "rummy", "--games", "1", "--out", str(path)]) == 0
    assert pimc_labels.load_labels(path)["meta"]["agent"] == "pimc:worlds=200"


@pytest.mark.parametrize(
    "out, message",
    [
        ("labels.txt", "--out '{tmp}/labels.txt' must end in .npz"),
        (".npz", "--out '{tmp}/.npz' names no file: put a name before .npz (labels.npz)"),
        ("afile/x.npz", "--out's folder '{tmp}/afile' is a file, not a folder"),
        ("adir.npz", "--out '{tmp}/adir.npz' is a folder: name the .npz file to write"),
    ],
)
def test_a_bad_out_path_is_refused_before_any_game(tmp_path, out, message, capsys):
    (tmp_path / "afile").write_text("")
    (tmp_path / "adir.npz").mkdir()
    with pytest.raises(SystemExit) as exit_info:
        pimc_labels.main(["--games", "1", "--out", str(tmp_path / out)])
    assert exit_info.value.code == 2
    assert usage_error(capsys.readouterr().err, message.format(tmp=tmp_path))


def test_a_negative_seed_is_refused_as_the_other_jobs_refuse_it(tmp_path, capsys):
    # worded by experiments.common.argv.seed_refusal, as the six main jobs word it (was argparse's
    # "argument --seed: must be >= 0, got -1")
    with pytest.raises(SystemExit) as exit_info:
        pimc_labels.main(["--games", "1", "--seed", "-1", "--out", str(tmp_path / "x.npz")])
    assert exit_info.value.code == 2
    assert usage_error(capsys.readouterr().err, "--seed must be an int >= 0, got -1")
    assert not (tmp_path / "x.npz").exists()


def test_rummikub_is_refused_with_the_reason(capsys, tmp_path):
    with pytest.raises(SystemExit):
        pimc_labels.main(["--variant", "rummikub", "--games", "1", "--out", str(tmp_path / "k.npz")])
    assert "'pimc:worlds=200' is a RummikubPlanAgent in rummikub_v0, which has no value per action" in (
        capsys.readouterr().err
    )
    assert not (tmp_path / "k.npz").exists()


def test_the_chunks_merge_with_distinct_game_numbers(label_file):
    d = pimc_labels.load_labels(label_file)
    assert d["meta"]["games"] == 4 and d["meta"]["seed"] == 5 and d["meta"]["agent"] == AGENT
    assert d["meta"]["stopped_early"] is False and d["observation"].dtype == np.float32
    first = pimc_labels.label_games("gin_rummy_v0", {}, AGENT, seed=5, games=2)  # games 0, 1 of the stream
    second = pimc_labels.label_games("gin_rummy_v0", {}, AGENT, seed=7, games=2)  # games 2, 3
    merged = pimc_labels.merge([first, second])
    assert np.array_equal(merged["game"], np.concatenate([first["game"], second["game"] + 2]))
    assert np.array_equal(d["game"], merged["game"]) and np.array_equal(d["search"], merged["search"])
    assert d["deal"].tolist() == [0, 1, 2, 3]


def test_a_chunk_cut_short_leaves_a_gap_in_the_deal_numbers():
    """After a stop, the file's game k is still known as the stream's game ``deal[k]``
    (dealt with seed + deal[k]; the search in seat deal[k] % players): a renumbering once made
    the games after a cut chunk look like the next deals."""
    checks = []

    def stop_after_one_game():
        checks.append(1)
        return len(checks) > 1  # label_games asks before each game

    cut = pimc_labels.label_chunk(("gin_rummy_v0", {}, AGENT, 5, 0, 2, None), stop_after_one_game)
    full = pimc_labels.label_chunk(("gin_rummy_v0", {}, AGENT, 5, 2, 2, None))
    merged = pimc_labels.merge([cut, full])
    assert merged["deal"].tolist() == [0, 2, 3] and len(merged["result"]) == 3
    alone = pimc_labels.label_games("gin_rummy_v0", {}, AGENT, seed=7, games=1)  # the stream's game 2
    rows = merged["game"] == 1  # the file's second game
    assert np.array_equal(merged["observation"][rows], alone["observation"])
    assert np.array_equal(merged["search"][rows], alone["search"])


def test_the_search_seat_follows_the_stream_number_with_five_players():
    """Chunks start at multiples of 12, which 5 does not divide: game ``g`` of a chunk from
    ``first`` has the search in seat ``(first + g) % 5`` (it was ``g % 5``)."""
    options = {"num_players": 5, "max_turns": 6}
    at = {f: pimc_labels.label_games("rummy_v0", options, AGENT, seed=40, games=1, first=f) for f in (0, 2, 12)}
    assert at[12]["deal"].tolist() == [12] and at[2]["deal"].tolist() == [2]
    for key in ("observation", "mask", "search", "heuristic"):  # 12 % 5 == 2: the same seat, the same labels
        assert np.array_equal(at[12][key], at[2][key]), key
    assert not np.array_equal(at[12]["observation"][:1], at[0]["observation"][:1])  # seat 0's view differs


def test_a_file_without_labels_is_refused(tmp_path):
    np.savez(tmp_path / "x.npz", observation=np.zeros((1, 3)))
    message = (
        f"{tmp_path / 'x.npz'}: not a pimc_labels file (missing heuristic, mask, meta, search, values; an .npz that "
        "python -m experiments.pimc_labels writes holds them)"
    )
    with pytest.raises(ValueError, match=whole(message)):
        pimc_labels.load_labels(tmp_path / "x.npz")
    (tmp_path / "text.npz").write_text("not an archive\n")
    np.save(tmp_path / "one.npy", np.zeros(3))
    (tmp_path / "empty.npz").write_bytes(b"")
    (tmp_path / "cut.npz").write_bytes((tmp_path / "x.npz").read_bytes()[:40])
    for path in (tmp_path / "text.npz", tmp_path / "one.npy", tmp_path / "empty.npz", tmp_path / "cut.npz"):
        said = f"{path}: not a pimc_labels file (an .npz that python -m experiments.pimc_labels writes)"
        with pytest.raises(ValueError, match=whole(said)):
            pimc_labels.load_labels(path)


def test_the_target_is_the_searchs_choice_only_where_it_leads_the_heuristics_by_the_margin():
    nan = np.nan
    values = np.array([[0.50, 0.70, nan], [0.60, 0.62, nan], [nan, 0.4, 0.4]], np.float32)
    search, heuristic = np.array([1, 1, 1]), np.array([0, 0, 2])
    assert teacher_targets(values, search, heuristic, 0.0).tolist() == [1, 1, 1]
    assert teacher_targets(values, search, heuristic, 0.05).tolist() == [1, 0, 2]
    assert teacher_targets(values, search, heuristic, 0.25).tolist() == [0, 0, 2]
    with pytest.raises(
        ValueError, match=whole("teacher_margin=1.5: a value lead in [0, 1] (0: always the search's choice)")
    ):
        teacher_targets(values, search, heuristic, 1.5)
    with pytest.raises(ValueError, match=whole("1 labels' heuristic choice has no value (an illegal action)")):
        teacher_targets(values, search, np.array([2, 0, 2]), 0.0)


def test_teacher_labels_are_featurized_and_hold_out_whole_games(label_file):
    env = gin_rummy_v0.env()
    featurize = Featurizer("gin_read", "gin_rummy_v0", env.unwrapped.layout)
    d = pimc_labels.load_labels(label_file)
    t = TeacherLabels([str(label_file)] * 2, "gin_rummy_v0", featurize, 108, 0.0, np.random.default_rng(3))
    x = np.concatenate([featurize(d["observation"])] * 2)
    y = np.concatenate([d["search"]] * 2)
    game = np.concatenate([d["game"], d["game"] + 4])  # the second file's games come after the first's
    held = np.random.default_rng(3).random(8) < 0.05
    test = held[game]
    assert len(t) == (~test).sum() and len(t.test[2]) == test.sum()
    assert torch.equal(t.x, torch.from_numpy(x[~test])) and torch.equal(t.y, torch.from_numpy(y[~test]))
    obs, mask, act = t.sample(5)
    assert obs.shape == (5, 485 + 941) and mask.shape == (5, 108) and bool(mask[torch.arange(5), act].all())
    with pytest.raises(ValueError, match=whole(f"{label_file}: labels of gin_rummy_v0, but the run trains rummy_v0")):
        TeacherLabels([str(label_file)], "rummy_v0", featurize, 108, 0.0, np.random.default_rng(0))
    # labels of another number of players (here: an env whose observations are wider) are refused
    message = (
        f"{label_file}: observations of size 485 (labels made with env options {{}}), but the run's env has 541: "
        "make labels with the run's --env-option (num_players)"
    )
    with pytest.raises(ValueError, match=whole(message)):
        TeacherLabels([str(label_file)], "gin_rummy_v0", featurize, 108, 0.0, np.random.default_rng(0), 541)
    assert len(TeacherLabels([str(label_file)], "gin_rummy_v0", featurize, 108, 0.0, np.random.default_rng(3), 485))
    # labels made under other rules teach, with a warning naming both option sets
    said = (
        f"{label_file}: labels made with env options {{}}, the run uses {{'knock_limit': 5}}: the search "
        "chose its moves under the labels' rules"
    )
    with pytest.warns(UserWarning, match=whole(said)):
        TeacherLabels(
            [str(label_file)], "gin_rummy_v0", featurize, 108, 0.0, np.random.default_rng(3), 485, {"knock_limit": 5}
        )
    with warnings.catch_warnings():  # the default spelled out is the same rules: no warning
        warnings.simplefilter("error")
        TeacherLabels(
            [str(label_file)], "gin_rummy_v0", featurize, 108, 0.0, np.random.default_rng(3), 485, {"knock_limit": 10}
        )


def test_a_run_taught_by_labels_learns_them_and_uses_no_heuristic_teacher(label_file, tmp_path):
    out = tmp_path / "run"
    args = [
        "--variant", "gin_rummy", "--num-envs", "16", "--num-steps", "16", "--timesteps", "1200",
        "--hidden", "32", "--eval-deals", "1", "--final-eval-deals", "1", "--initial-eval", "false",
        "--minibatch-size", "64", "--features", "gin_read", "--teacher-labels", str(label_file),
        "--kickstart", "1", "--kickstart-anneal", "1", "--kickstart-floor", "1", "--ent-coef", "0",
        "--no-progress", "--out", str(out),
    ]  # fmt: skip
    assert train.main(["--algo", "selfplay", *args]) == 0
    with open(out / "scalars.csv") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["steps"]) for r in rows] == [256, 510, 760, 1014, 1265]
    assert all(float(r["kickstart"]) == 1.0 for r in rows)
    # the policy's cross-entropy on the labels per update: it moves towards them (seeded, one torch
    # thread, set by the learner; to 1e-4: torch's float sums may differ in the last bits on another CPU)
    teacher_ce = [1.48976, 1.41773, 1.41064, 1.34545, 1.31497]
    assert [float(r["teacher_ce"]) for r in rows] == pytest.approx(teacher_ce, abs=1e-4)
    assert all(float(r["kick_ce"]) == 0.0 for r in rows)  # no heuristic teacher without games against random
    assert "teacher_acc" in rows[0]
    cfg = selfplay.Config(num_envs=8, num_steps=4, hidden=(8,), features="gin_read", teacher_labels=str(label_file))
    buf = first_rollout(cfg)[3]
    assert (buf["teacher"] == -1).all()  # the heuristic teaches no decision: the labels do


def test_random_seats_play_legal_moves_and_the_heuristic_teaches_the_learner_against_them(label_file, tmp_path):
    cfg = selfplay.Config(
        num_envs=8, num_steps=24, hidden=(8,), features="gin_read", teacher_labels=str(label_file),
        random_share=0.25, heuristic_share=0.25, pool_share=0.0,
    )  # fmt: skip
    _, opponents, _, buf, _ = first_rollout(cfg)
    assert opponents.kind.tolist() == [3, 3, 0, 0, 0, 0, 2, 2]
    other = buf["decision"] & ~buf["learner"]  # the opponents' decisions: random seats and heuristic seats
    assert other[:, [0, 1, 6, 7]].any() and not other[:, 2:6].any()
    rows = np.nonzero(buf["decision"])
    assert buf["mask"][rows[0], rows[1], buf["action"][rows]].all()  # every action played is legal
    taught = buf["teacher"] >= 0
    assert taught[:, :2].any() and not taught[:, 2:].any()  # only the learner against random is taught
    assert (buf["learner"] | ~taught).all()
    env = gin_rummy_v0.env()
    env.reset(seed=0)
    heuristic = make_agent("heuristic", env, seed=0)
    for step, game in zip(*np.nonzero(taught), strict=True):
        raw = buf["obs"][step, game, :485]
        obs = {"observation": raw, "action_mask": buf["mask"][step, game].astype(np.int8)}
        assert buf["teacher"][step, game] == heuristic.act(obs)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--teacher-margin", "2"], "--teacher-margin must be in [0, 1] (a value lead), got 2.0"),
        (
            ["--teacher-labels", "no/such.npz"],
            "--teacher-labels: no file no/such.npz "
            "(make labels with: python -m experiments.pimc_labels --variant gin_rummy_v0 --out no/such.npz)",
        ),
        (
            ["--teacher-labels", "no/such.npz", "--variant", "rummy", "--env-option", "num_players=3"],
            (
                "--teacher-labels: no file no/such.npz (make labels with: python -m "
                "experiments.pimc_labels --variant rummy_v0 --env-option num_players=3 --out no/such.npz)"
            ),
        ),
        (["--teacher-margin", "0.1"], "--teacher-margin 0.1 needs --teacher-labels (it picks their targets)"),
        (
            ["--random-share", "0.3", "--heuristic-share", "0.8"],
            (
                "--pool-share 0.25, --heuristic-share 0.8 and --random-share 0.3 must be >= 0 and sum to "
                "at most 1 (the rest of the games are pure self-play)"
            ),
        ),
    ],
)
def test_bad_teacher_arguments_are_refused(args, message, capsys):
    with pytest.raises(SystemExit):
        selfplay.parse_args(args)
    assert usage_error(capsys.readouterr().err, message)


def test_the_trainer_refuses_shares_over_one_and_a_margin_without_labels(tmp_path):
    with pytest.raises(
        ValueError,
        match=whole(
            "pool_share, heuristic_share and random_share (0.0, 0.5, 0.6) and the league's "
            "shares () must be >= 0 and sum to at most 1"
        ),
    ):
        selfplay.Learner(selfplay.Config(num_envs=4, hidden=(8,), pool_share=0.0, random_share=0.6))
    with pytest.raises(
        ValueError,
        match=whole(
            "pool_share, heuristic_share and random_share (0.25, 0.5, 0.0) and the league's "
            "shares (0.3,) must be >= 0 and sum to at most 1"
        ),
    ):
        selfplay.Learner(selfplay.Config(num_envs=4, hidden=(8,), pool_share=0.25, league="random@0.3"))
    with pytest.raises(ValueError, match=whole("teacher_margin=0.1 picks labels, but no teacher_labels are given")):
        selfplay.Learner(selfplay.Config(num_envs=4, hidden=(8,), teacher_margin=0.1))
