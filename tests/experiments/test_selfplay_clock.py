"""``experiments.selfplay``'s clock: the checkpoints' writing is no training time (the
evaluations' is tested in ``test_selfplay.py``)."""

import types

from experiments import selfplay
from experiments.selfplay import checkpoint, logs
from experiments.selfplay import learner as learner_module


def test_writing_a_checkpoint_is_neither_training_minutes_nor_training_seconds(monkeypatch, tmp_path):
    now = [1000.0]
    clock = types.SimpleNamespace(perf_counter=lambda: now[0])
    monkeypatch.setattr(learner_module, "time", clock)
    monkeypatch.setattr(checkpoint, "time", clock)
    learner = selfplay.Learner(selfplay.Config(num_envs=4, hidden=(8,)))
    learner._elapsed, learner._session_start = 60.0, 970.0  # 60 s in earlier sessions, 30 s in this one
    learner.timers |= {"sim": 50.0, "update": 20.0, "eval": 20.0}
    learner.steps = 7300
    state = learner.state

    def slow_state(seconds):  # torch.save of a large network and pool: seconds of wall time
        def write():
            saved = state()
            now[0] += seconds
            return saved

        return write

    learner.state = slow_state(7.0)
    checkpoint.save_checkpoint(learner, tmp_path)
    assert learner.timers["checkpoint"] == 7.0 and learner.elapsed() == 97.0
    assert learner.training_minutes() == 70.0 / 60  # not 77 s: the --minutes budget is training
    saved = checkpoint.load_checkpoint(tmp_path)["counters"]
    assert saved["elapsed"] == 90.0 and saved["timers"]["checkpoint"] == 0.0  # as the state was taken

    now[0] = 1010.0  # 3 s more of training (sim), then the last update ends
    learner.timers["sim"] += 3.0
    learner.stop_clock()
    learner.state = slow_state(5.0)
    checkpoint.save_checkpoint(learner, tmp_path)  # the last checkpoint, after the clock stopped
    assert learner.timers["checkpoint"] == 12.0 and learner.elapsed() == 105.0
    assert learner.training_minutes() == 73.0 / 60

    result = logs.summary(learner, [])
    assert result["minutes"] == 1.217 and result["timers_s"]["checkpoint"] == 12.0
    assert result["steps_per_s_training"] == 100  # 7300 steps / 73 s of sim and update, not / 85 s
    recent = dict.fromkeys(("heuristic_wins", "heuristic_games", "random_wins", "random_games"), 0)
    recent |= dict.fromkeys(("league_wins", "league_games", "duplicate_same"), 0)
    row = logs.scalars_row(learner, {}, recent)
    shares = {k: v for k, v in row.items() if k.endswith("_share")}  # the columns of before: no checkpoint_share
    assert shares == {
        "sim_share": 0.5699,  # 53 of the 93 s timed in sim, features, inference, heuristic, update and eval
        "inference_share": 0.0,
        "features_share": 0.0,
        "heuristic_share": 0.0,
        "update_share": 0.2151,
        "eval_share": 0.2151,
    }


def test_a_checkpoint_written_before_the_checkpoint_timer_resumes_with_it_at_zero(tmp_path):
    learner = selfplay.Learner(selfplay.Config(num_envs=4, hidden=(8,)))
    state = learner.state()
    del state["counters"]["timers"]["checkpoint"]  # as an earlier version wrote it
    state["counters"]["timers"]["eval"] = 4.0
    learner.load_state(state)
    assert learner.timers["checkpoint"] == 0.0 and learner.timers["eval"] == 4.0
