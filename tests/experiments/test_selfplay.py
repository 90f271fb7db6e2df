"""``experiments.selfplay``: the model file, a smoke run end to end, resuming from a
checkpoint, the trained model through ``PolicyAgent`` (per-seat GAE and masked sampling:
``test_selfplay_gae.py``)."""

import copy
import csv
import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
import torch

from agents.torch_policy import ActorCritic, load_model, save_model
from experiments import selfplay, train
from rummy_env import gin_rummy_v0, rummy_v0
from tests.experiments.selfplay_helpers import policy_episodes
from tests.helpers import usage_error, whole


def test_model_file_round_trip_keeps_weights_normalizer_and_config(tmp_path):
    net = ActorCritic(485, 108, (32, 16))
    net.update_normalizer(torch.arange(485.0).repeat(3, 1) * torch.tensor([[1.0], [2.0], [3.0]]))
    save_model(tmp_path / "m.pt", net, variant="gin_rummy_v0", env_options={})
    back = load_model(tmp_path / "m.pt")
    assert back.config() == {"obs_size": 485, "num_actions": 108, "hidden": [32, 16], "features": "none"}
    assert back.extra == {"variant": "gin_rummy_v0", "env_options": {}}
    for (k, a), (_, b) in zip(net.state_dict().items(), back.state_dict().items(), strict=True):
        assert torch.equal(a, b), k
    assert back.obs_mean[10].item() == pytest.approx(20.0) and back.obs_count.item() == 3
    (tmp_path / "bad.pt").write_bytes(b"not a model")
    said = (
        f"policy file '{tmp_path / 'bad.pt'}' is not a torch model file (torch.load: UnpicklingError: it holds "
        "objects, not only tensors and plain data)"
    )
    with pytest.raises(ValueError, match=whole(said)):
        load_model(tmp_path / "bad.pt")
    torch.save({"layer": torch.nn.Linear(2, 2)}, tmp_path / "objects.pt")  # a module, not a state dict
    with pytest.raises(ValueError) as err:
        load_model(tmp_path / "objects.pt")
    assert str(err.value) == (
        f"policy file {str(tmp_path / 'objects.pt')!r} is not a torch model file (torch.load: UnpicklingError: "
        "it holds objects, not only tensors and plain data)"
    )
    sb3 = Path(__file__).parents[2] / "docs/results/sb3-gin/model.zip"  # experiments.train's model
    with pytest.raises(ValueError) as err:
        load_model(sb3)
    assert str(err.value) == (
        f"policy file {str(sb3)!r} is not a torch model file (torch.load: RuntimeError: a zip archive of another "
        "kind (an SB3 model.zip?), not the model.pt of experiments.selfplay)"
    )
    with pytest.raises(ValueError, match=f"^policy file {str(tmp_path)!r} is a folder, not a model file$"):
        load_model(tmp_path)
    with pytest.raises(ValueError, match=f"^policy file {str(tmp_path / 'none.pt')!r} does not exist$"):
        load_model(tmp_path / "none.pt")


SMOKE = [
    "--variant", "gin_rummy", "--num-envs", "16", "--num-steps", "32", "--timesteps", "2400",
    "--hidden", "32,32", "--snapshot-every", "1", "--eval-deals", "2", "--final-eval-deals", "3",
    "--minibatch-size", "128", "--sim-threads", "1", "--no-progress",
]  # fmt: skip


@pytest.fixture(scope="module")
def smoke_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("selfplay")
    assert train.main(["--algo", "selfplay", *SMOKE, "--out", str(out)]) == 0
    return out


def test_smoke_training_writes_model_curves_checkpoint_and_evaluation(smoke_run):
    assert {p.name for p in smoke_run.iterdir()} >= {
        "model.pt", "checkpoint.pt", "scalars.csv", "eval.csv", "curve.png", "summary.json", "recipe.toml",
    }  # fmt: skip
    summary = json.loads((smoke_run / "summary.json").read_text())
    # 16 games x 32 steps per update; steps counts the learner's decisions of the seeded rollouts
    assert summary["steps"] == 2518 and summary["updates"] == 5
    assert [r["opponent"] for r in summary["evaluation"]] == ["heuristic", "random"]
    assert all(r["games"] == 6 for r in summary["evaluation"])
    with open(smoke_run / "scalars.csv") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["updates"]) for r in rows] == [1, 2, 3, 4, 5]
    assert [int(r["steps"]) for r in rows] == [510, 1014, 1517, 2018, 2518]
    assert int(rows[-1]["pool"]) == 5 and 0 < float(rows[-1]["sim_share"]) < 1
    with open(smoke_run / "eval.csv") as f:
        evals = list(csv.DictReader(f))
    assert [(r["opponent"], r["final"]) for r in evals] == [
        ("heuristic", "0"), ("random", "0"), ("heuristic", "1"), ("random", "1"),
    ]  # fmt: skip
    assert (smoke_run / "curve.png").read_bytes()[:4] == b"\x89PNG"
    # every rule of the run's env, defaults included (agents.policy.check_trained_on reads it)
    assert load_model(smoke_run / "model.pt").extra["env_config"] == {
        "knock_limit": 10, "gin_bonus": 25, "undercut_bonus": 25, "big_gin": True, "big_gin_bonus": 31,
        "oklahoma": False, "target_score": 100, "game_bonuses": False, "max_turns": 1000, "max_hands": 1000,
        "episode": "hand", "reward": "win",
    }  # fmt: skip


@pytest.mark.parametrize(
    "run, module, episodes",
    [
        ("selfplay-gin", gin_rummy_v0, [([-1.0, 1.0], 36), ([1.0, -1.0], 9), ([1.0, -1.0], 18)]),
        ("selfplay-rummy", rummy_v0, [([1.0, -1.0], 28), ([-1.0, 1.0], 58), ([-1.0, 1.0], 37)]),
    ],
)
def test_the_committed_models_load_and_play_legal_games(run, module, episodes):
    # (returns, decisions) of seeds 0..2 with the model in both seats; policy_episodes checks
    # the observation size and that every action is legal
    path = Path(__file__).parents[2] / "docs" / "results" / run / "model.pt"
    assert policy_episodes(path, module.env(), range(3)) == episodes


def test_the_trained_model_plays_through_policy_agent_and_the_tournament(smoke_run):
    # the smoke model in both seats (every action checked legal): seed 3's hand reaches the
    # 1,000-turn limit (max_turns) with no score, 2,000 decisions
    assert policy_episodes(smoke_run / "model.pt", gin_rummy_v0.env(), [3]) == [([0.0, 0.0], 2000)]
    from experiments import tournament

    chunks = tournament.make_chunks(["gin_rummy_v0"], [f"policy:{smoke_run / 'model.pt'}", "random"], 2, {}, 0)
    records = tournament.run_local(chunks, 1, progress=False)
    assert [(r["returns"], r["steps"]) for r in records] == [
        ([0.0, 0.0], 236), ([-1.0, 1.0], 107), ([0.0, 0.0], 212), ([0.0, 0.0], 265),
    ]  # fmt: skip


def same(x, y) -> bool:
    """Equal nested dicts/lists of tensors and plain values."""
    if isinstance(x, torch.Tensor):
        return isinstance(y, torch.Tensor) and x.dtype == y.dtype and torch.equal(x, y)
    if isinstance(x, dict):
        return isinstance(y, dict) and x.keys() == y.keys() and all(same(x[k], y[k]) for k in x)
    if isinstance(x, (list, tuple)):
        return len(x) == len(y) and all(same(a, b) for a, b in zip(x, y, strict=True))
    return x == y


def test_a_checkpoint_resumes_to_the_same_state_and_the_same_next_update(smoke_run, tmp_path):
    from experiments.selfplay.update import ppo_update
    from tests.experiments.selfplay_helpers import first_rollout

    state = torch.load(smoke_run / "checkpoint.pt", weights_only=False)
    cfg = selfplay.Config(**{**state["config"], "hidden": tuple(state["config"]["hidden"])})
    a, b = selfplay.Learner(copy.deepcopy(cfg)), selfplay.Learner(copy.deepcopy(cfg))
    a.load_state(state)
    b.load_state(torch.load(smoke_run / "checkpoint.pt", weights_only=False))
    for key in ("net", "optimizer", "pool", "numpy_rng", "torch_rng"):
        assert same(a.state()[key], state[key]), key
    counters = {k: v for k, v in a.state()["counters"].items() if k != "elapsed"}
    assert counters == {k: v for k, v in state["counters"].items() if k != "elapsed"}
    assert a.updates == 5 and a.steps == state["counters"]["steps"] and len(a.pool) == 5
    for learner in (a, b):  # the next update of a resumed run depends on the checkpoint only
        _, _, vec, buf, last = first_rollout(cfg, learner)
        ppo_update(learner, vec, buf, last)
    for (k, x), (_, y) in zip(a.net.state_dict().items(), b.net.state_dict().items(), strict=True):
        assert torch.equal(x, y), k


def test_resume_continues_the_step_count_and_the_logs(smoke_run, tmp_path, capsys):
    import shutil

    out = tmp_path / "run"
    shutil.copytree(smoke_run, out)
    before = json.loads((out / "summary.json").read_text())["steps"]
    args = ["--out", str(out), "--resume", "--timesteps", str(before + 900), "--no-progress"]
    assert selfplay.main(["--variant", "gin_rummy", *args]) == 0
    assert "evaluate: " not in capsys.readouterr().err  # --no-progress: no progress line of the final evaluation
    summary = json.loads((out / "summary.json").read_text())
    assert before == 2518 and summary["steps"] == 3530 and summary["updates"] == 7  # update 7 passes 2518 + 900
    with open(out / "scalars.csv") as f:
        rows = list(csv.DictReader(f))
    assert [int(r["updates"]) for r in rows] == [1, 2, 3, 4, 5, 6, 7]
    assert [int(r["steps"]) for r in rows] == [510, 1014, 1517, 2018, 2518, 3026, 3530]


def test_a_run_logged_to_a_file_prints_progress_lines(smoke_run, tmp_path, capsys, monkeypatch):
    """stderr not a terminal (a log file): a line per update here (every 0 s), counted from the
    resumed step, with the update's figures; the final evaluation's own lines follow."""
    import shutil

    monkeypatch.setenv("RUMMY_ENV_PROGRESS_EVERY", "0")
    out = tmp_path / "run"
    shutil.copytree(smoke_run, out)
    assert selfplay.main(["--variant", "gin_rummy", "--out", str(out), "--resume", "--timesteps", "3418"]) == 0
    lines = [line for line in capsys.readouterr().err.splitlines() if line.startswith("gin_rummy_v0: ")]
    assert [line.split(",")[0] for line in lines] == [
        "gin_rummy_v0: 3026/3418 steps (88%)",
        "gin_rummy_v0: 3530/3418 steps (103%)",  # the last update passes the budget
    ]
    assert lines[0].split(", ")[3] == "steps=3026" and lines[1].split(", ")[2] == "steps=3530"
    assert [line.split(", ")[-3].split("=")[0] for line in lines] == ["ent", "ent"]


def test_a_resume_with_the_budget_spent_says_there_is_nothing_to_train(smoke_run, tmp_path, capsys):
    import shutil

    out = tmp_path / "run"
    shutil.copytree(smoke_run, out)
    evals = (out / "eval.csv").read_text()
    assert selfplay.main(["--out", str(out), "--resume", "--no-progress"]) == 0
    said = capsys.readouterr().out
    assert "gin_rummy_v0: the run has spent its budget (2518 steps, " in said
    assert "--timesteps 2400, --minutes None): nothing to train; give a larger --minutes or --timesteps" in said
    assert (out / "eval.csv").read_text() == evals  # no second final evaluation
    assert json.loads((out / "summary.json").read_text())["steps"] == 2518


def test_a_resume_makes_the_final_evaluation_a_stop_skipped(smoke_run, tmp_path, capsys):
    import shutil

    out = tmp_path / "run"
    shutil.copytree(smoke_run, out)
    done = json.loads((out / "summary.json").read_text())
    # as a Ctrl-C during the final evaluation leaves it: the budget spent, no evaluation
    (out / "summary.json").write_text(json.dumps({**done, "stopped_early": True, "evaluation": []}))

    def final_rows():
        with open(out / "eval.csv") as f:
            return [r for r in csv.DictReader(f) if r["final"] == "1"]

    before = final_rows()
    assert selfplay.main(["--out", str(out), "--resume", "--no-progress"]) == 0
    said = capsys.readouterr().out
    assert "gin_rummy_v0: the run has spent its budget; its final evaluation is missing: making it now" in said
    summary = json.loads((out / "summary.json").read_text())
    assert summary["stopped_early"] is False and summary["steps"] == 2518
    assert summary["evaluation"] == done["evaluation"]  # the same model on the same deals
    assert len(final_rows()) == len(before) + 2 == 4  # the smoke run's own final rows, then this one's


def test_a_new_run_in_an_earlier_runs_folder_starts_its_logs_afresh(smoke_run, tmp_path, capsys):
    import shutil

    out = tmp_path / "run"
    shutil.copytree(smoke_run, out)
    assert [p.name for p in (out / "snapshots").glob("model-*.pt")] == ["model-00000000000.pt"]
    args = ["--variant", "gin_rummy", "--num-envs", "16", "--num-steps", "32", "--timesteps", "500"]
    args += ["--hidden", "32,32", "--final-eval-deals", "2", "--initial-eval", "false", "--out", str(out)]
    assert selfplay.main([*args, "--no-progress"]) == 0
    said = capsys.readouterr().out
    assert (
        f"gin_rummy_v0: {out}/ held an earlier run: removed its checkpoint.pt, model.pt, summary.json, curve.png, "
        "scalars.csv, eval.csv, snapshots/ (--resume continues one)"
    ) in said
    assert said.rstrip().endswith(f"model, curves and evaluation in {out}/")
    with open(out / "scalars.csv") as f:
        assert [int(r["steps"]) for r in csv.DictReader(f)] == [510]  # this run's one update, not the smoke run's
    with open(out / "eval.csv") as f:
        assert [(r["steps"], r["final"]) for r in csv.DictReader(f)] == [("510", "1"), ("510", "1")]
    assert list((out / "snapshots").iterdir()) == []  # the earlier run's snapshot went (this run evaluated once, final)


def test_features_flag_melds_and_give_the_exact_deadwood_of_each_discard():
    from agents.policy_features import Featurizer
    from rummy_env.core.cards import parse_card as card_id

    layout = gin_rummy_v0.env().unwrapped.layout
    obs = np.zeros((1, layout.size), np.float32)
    hand = ["7C", "8C", "9C", "5D", "5H", "5S", "KH", "2D", "3D"]
    for c in hand:
        obs[0, layout.slice("hand").start + card_id(c)] = 1
    obs[0, layout.slice("upcard").start + card_id("6C")] = 1
    x = Featurizer("gin", "gin_rummy_v0", layout)(obs)[0, layout.size :]
    flags = x[:208].reshape(4, 52)  # set3, run3, pair, near-suited
    held = {c: flags[:, card_id(c)].tolist() for c in hand}
    assert held["7C"] == [0, 1, 0, 1] and held["5D"] == [1, 0, 1, 1] and held["5H"] == [1, 0, 1, 0]
    assert held["KH"] == [0, 0, 0, 0] and held["2D"] == [0, 0, 0, 1]
    assert flags[:, card_id("6C")].tolist() == [0, 0, 0, 0] and x[208:212].tolist() == [0, 1, 0, 1]
    dw = x[212:264]
    # deadwood now: KH 2D 3D = 15; without 7C the run breaks (8C 9C join the deadwood)
    expected = {"7C": 32, "8C": 31, "9C": 30, "5D": 25, "5H": 25, "5S": 25, "KH": 5, "2D": 13, "3D": 12}
    assert {c: round(float(dw[card_id(c)]) * 100) for c in hand} == expected
    assert np.count_nonzero(dw) == len(hand)
    assert round(float(x[264]) * 100) == 5  # take 6C (run 6-9C), discard KH


def test_a_checkpoint_taken_during_a_session_counts_its_training_time(monkeypatch):
    import types

    from experiments.selfplay import learner as learner_module

    learner = selfplay.Learner(selfplay.Config(num_envs=4, hidden=(8,)))
    # a still clock for the learner module only (the time module itself is left alone)
    monkeypatch.setattr(learner_module, "time", types.SimpleNamespace(perf_counter=lambda: 1000.0))
    learner._elapsed = 60.0  # from earlier sessions
    learner._session_start = 970.0  # this session: 30 s so far
    learner.timers["eval"] = 20.0  # evaluations are not training time
    assert learner.state()["counters"]["elapsed"] == 90.0
    assert learner.training_minutes() == 70.0 / 60


def test_the_clock_stops_with_training_and_counts_only_evaluations_after(monkeypatch):
    import types

    from experiments.selfplay import learner as learner_module

    learner = selfplay.Learner(selfplay.Config(num_envs=4, hidden=(8,)))
    now = [1000.0]
    monkeypatch.setattr(learner_module, "time", types.SimpleNamespace(perf_counter=lambda: now[0]))
    learner._elapsed, learner._session_start, learner.timers["eval"] = 60.0, 970.0, 20.0
    learner.stop_clock()  # the last update ended: 70 s of training
    now[0] = 1005.0  # 5 s of saving the checkpoint, the model and the curve: not training
    assert learner.training_minutes() == 70.0 / 60 and learner.state()["counters"]["elapsed"] == 90.0
    learner.timers["eval"] += 12.0  # the final evaluation: its time counts in elapsed, not in training
    assert learner.elapsed() == 102.0 and learner.training_minutes() == 70.0 / 60


def test_the_summary_gives_the_training_minutes_to_the_decimals_of_the_csv_files(monkeypatch, tmp_path):
    # summary.json rounded them to 2 decimals (1.17), eval.csv and scalars.csv to 3 (1.167)
    import types

    from experiments.selfplay import learner as learner_module
    from experiments.selfplay import logs

    learner = selfplay.Learner(selfplay.Config(num_envs=4, hidden=(8,)))
    monkeypatch.setattr(learner_module, "time", types.SimpleNamespace(perf_counter=lambda: 1000.0))
    learner._elapsed, learner._session_start = 70.0, 1000.0  # 70 s of training: 1.1666... minutes
    row = {"opponent": "random", "games": 2, "win_rate": 0.5, "win_rate_ci_low": 0.1, "win_rate_ci_high": 0.9}
    logs.append_eval(tmp_path, [row], learner.training_minutes(), 0, 0, final=True)
    recent = dict.fromkeys(("heuristic_wins", "heuristic_games", "random_wins", "random_games"), 0)
    recent |= dict.fromkeys(("league_wins", "league_games", "duplicate_same"), 0)
    assert logs.summary(learner, [])["minutes"] == logs.read_eval(tmp_path)[0]["minutes"] == 1.167
    assert logs.scalars_row(learner, {}, recent)["minutes"] == 1.167


def test_a_run_stops_its_clock_before_it_saves_the_checkpoint_and_the_model(monkeypatch, tmp_path):
    """run.py calls stop_clock after the last update: what follows is not training time."""
    from experiments.selfplay import checkpoint, run
    from experiments.selfplay.learner import Learner

    events = []
    stop_clock, save_model, save_checkpoint = Learner.stop_clock, Learner.save_model, checkpoint.save_checkpoint
    monkeypatch.setattr(Learner, "stop_clock", lambda self: events.append("stop") or stop_clock(self))

    def saving(self, path):  # the snapshots (snapshots/model-*.pt) are saved during training
        events.append(path.name if path.name == "model.pt" else "snapshot")
        return save_model(self, path)

    monkeypatch.setattr(Learner, "save_model", saving)
    monkeypatch.setattr(run, "save_checkpoint", lambda lr, out: events.append("checkpoint") or save_checkpoint(lr, out))
    args = [*SMOKE, "--out", str(tmp_path)]
    assert train.main(["--algo", "selfplay", *args]) == 0
    assert events[-3:] == ["stop", "checkpoint", "model.pt"] and events.count("stop") == 1
    assert set(events[:-3]) == {"snapshot"}


@pytest.mark.parametrize("variant", ["gin_rummy", "rummy"])
def test_whole_games_are_accepted_on_the_batched_engines(variant):
    cfg = selfplay.parse_args(["--variant", variant, "--env-option", "episode=game"])[0]
    assert cfg.env_options == {"episode": "game"} and cfg.variant == f"{variant}_v0"


def test_kickstart_weight_decays_linearly_to_the_floor_and_is_off_without_anneal():
    # Schmitt et al. 2018: weight 1 at the start, 0.1 from 40% of the run on (steps 0..1000)
    cfg = selfplay.Config(num_envs=4, hidden=(8,), timesteps=1000, kickstart_anneal=0.4, kickstart_floor=0.1)
    learner = selfplay.Learner(cfg)
    weights = []
    for steps in (0, 100, 200, 400, 900):
        learner.steps = steps
        weights.append(learner.kickstart_weight())
    assert weights == pytest.approx([1.0, 0.75, 0.5, 0.1, 0.1])
    learner.cfg.kickstart_anneal, learner.steps = 0.0, 0
    assert learner.kickstart_weight() == 0.0  # off: the reason check_config refuses a floor then


def test_device_auto_is_the_cpu_without_a_gpu_and_cuda_without_one_is_refused(monkeypatch):
    from experiments.selfplay.learner import resolve_device

    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert resolve_device("auto") == "cpu" and resolve_device("cpu") == "cpu"
    with pytest.raises(
        ValueError,
        match=whole("device='cuda', but torch sees no GPU (torch.cuda.is_available() is False): use cpu or auto"),
    ):
        resolve_device("cuda")
    with pytest.raises(ValueError, match=whole("device='tpu': use auto, cpu or cuda")):
        resolve_device("tpu")
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert resolve_device("auto") == "cuda"
    learner = selfplay.Learner(selfplay.Config(num_envs=4, hidden=(8,), device="cpu"))
    assert learner.device == "cpu" and {p.device.type for p in learner.net.parameters()} == {"cpu"}


def test_a_resumed_run_takes_the_device_given_now():
    from experiments.selfplay.checkpoint import resumed_config

    saved = dataclasses.asdict(selfplay.Config(num_envs=4, hidden=(8,), device="cuda", seed=3))
    now = resumed_config(saved, selfplay.Config(device="cpu", num_envs=64, seed=9), set())
    assert (now.device, now.num_envs, now.seed, now.hidden) == ("cpu", 4, 3, (8,))


def test_init_model_with_extending_features_starts_from_the_widened_model():
    from agents.policy_features import Featurizer
    from rummy_env import crazy_rummy_v0

    path = "docs/results/selfplay-crazy/model.pt"
    cfg = selfplay.Config(
        variant="crazy_rummy_v0", env_options={"num_players": 3}, num_envs=4, init_model=path, features="crazy_out"
    )
    learner = selfplay.Learner(cfg)
    assert cfg.features == "crazy_out" and learner.net.features == "crazy_out"
    assert learner.origin == (
        "starting from docs/results/selfplay-crazy/model.pt (meld_opp features, widened to crazy_out: "
        "zero weights on the new inputs)"
    )
    assert selfplay.Learner(selfplay.Config(num_envs=4)).origin == "starting from scratch"
    env = crazy_rummy_v0.env(num_players=3)
    env.reset(seed=4)
    layout = env.unwrapped.layout
    obs = env.observe(env.agent_selection)["observation"][None].astype(np.float32)
    old = load_model(path)
    with torch.no_grad():
        before = old(torch.from_numpy(Featurizer("meld_opp", "crazy_rummy_v0", layout)(obs)))[0]
        after = learner.net(torch.from_numpy(Featurizer("crazy_out", "crazy_rummy_v0", layout)(obs)))[0]
    torch.testing.assert_close(after, before, rtol=0, atol=1e-5)
    cfg = selfplay.Config(
        variant="crazy_rummy_v0", env_options={"num_players": 3}, num_envs=4, init_model=path, features="meld"
    )
    said = (
        "features 'meld' do not extend the model's 'meld_opp' (extensions: gin of meld, gin_opp of gin, gin_read of "
        "gin_opp, crazy_out of meld_opp, crazy_discard of crazy_out, rk_plan of rk_out)"
    )
    with pytest.raises(ValueError, match=whole(said)):
        selfplay.Learner(cfg)


def test_a_bare_resume_keeps_the_runs_limits_and_refuses_a_changed_network():
    from experiments.selfplay.checkpoint import resumed_config

    saved = dataclasses.asdict(selfplay.Config(num_envs=4, hidden=(8,), minutes=0.5, timesteps=9000, seed=3))
    now = selfplay.Config()  # the command line's defaults: minutes None, timesteps 50M
    assert (resumed_config(saved, now, set()).minutes, resumed_config(saved, now, set()).timesteps) == (0.5, 9000)
    longer = resumed_config(saved, selfplay.Config(minutes=2.0), {"minutes"})
    assert (longer.minutes, longer.timesteps) == (2.0, 9000)
    assert resumed_config(saved, selfplay.Config(hidden=(8,), seed=3), {"hidden", "seed"}).hidden == (8,)  # the same
    with pytest.raises(ValueError) as err:
        resumed_config(saved, selfplay.Config(hidden=(16,), num_envs=4, seed=5), {"hidden", "num_envs", "seed"})
    assert str(err.value) == (
        "--resume continues the run as it was built: hidden=(16,) (the run's: (8,)), seed=5 (the run's: 3); "
        "drop them or start a new run"
    )
    # the same command again: "auto" features were resolved, and an init model set the hidden sizes
    resolved = {**saved, "features": "gin_read", "init_model": "start.pt"}
    again = selfplay.Config(features="auto", hidden=(256, 256), seed=3)
    assert resumed_config(resolved, again, {"features", "hidden", "seed"}).features == "gin_read"


def test_only_a_runs_folder_has_its_logs_cleared(tmp_path):
    from experiments.selfplay.checkpoint import clear_earlier_run

    (tmp_path / "eval.csv").write_text("someone else's file\n")
    (tmp_path / "snapshots").mkdir()
    (tmp_path / "snapshots" / "model-1.pt").write_bytes(b"x")
    assert clear_earlier_run(tmp_path) == []  # no recipe.toml, no checkpoint.pt: not a run's folder
    assert (tmp_path / "eval.csv").read_text() == "someone else's file\n"
    (tmp_path / "recipe.toml").write_text("")
    (tmp_path / "model.pt").write_bytes(b"the new run's --init-model")
    assert clear_earlier_run(tmp_path, {(tmp_path / "model.pt").resolve()}) == ["eval.csv", "snapshots/"]
    assert not (tmp_path / "eval.csv").exists() and list((tmp_path / "snapshots").iterdir()) == []
    assert (tmp_path / "model.pt").is_file()  # named by the new run's settings: kept


def test_the_files_a_runs_settings_name_are_listed():
    from experiments.selfplay.checkpoint import named_files

    cfg = selfplay.Config(
        init_model="a/init.pt",
        league="policy:b/member.pt@0.2",
        teacher_agent="policy:c/teacher.pt",
        eval_opponents="heuristic;pimc:guide=d/guide.pt,prior=0.05",
        teacher_labels="e/one.npz,f/two.npz",
    )
    names = ["a/init.pt", "b/member.pt", "c/teacher.pt", "d/guide.pt", "e/one.npz", "f/two.npz"]
    assert named_files(cfg) == {Path(p).resolve() for p in names}
    quoted = selfplay.Config(teacher_agent='pimc:guide="g,h/guide.pt",prior=0.05')  # a comma in the path
    assert named_files(quoted) == {Path("g,h/guide.pt").resolve()}


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (lambda s: s["counters"].clear(), "(KeyError: 'steps')"),
        (lambda s: s.update(net=None), "(TypeError: "),
        (lambda s: s.update(optimizer={"bad": 1}), "(KeyError: 'param_groups')"),
    ],
)
def test_a_checkpoint_that_loads_but_does_not_fit_is_refused_before_anything_changes(
    smoke_run, tmp_path, capsys, damage, reason
):
    import shutil

    out = tmp_path / "run"
    shutil.copytree(smoke_run, out)
    state = torch.load(out / "checkpoint.pt", map_location="cpu", weights_only=False)
    damage(state)
    torch.save(state, out / "checkpoint.pt")
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    assert selfplay.main(["--variant", "gin_rummy", "--out", str(out), "--resume", "--no-progress"]) == 2
    said = capsys.readouterr().err
    assert f"error: --resume: {out}/checkpoint.pt does not fit this run {reason}" in said
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == before


def test_resume_without_out_is_refused(capsys):
    with pytest.raises(SystemExit) as stop:
        selfplay.parse_args(["--variant", "rummy", "--resume"])
    assert stop.value.code == 2
    assert usage_error(capsys.readouterr().err, "--resume continues the run in --out: give the run's folder")
