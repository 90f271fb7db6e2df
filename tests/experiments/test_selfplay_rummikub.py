"""``experiments.selfplay`` on Rummikub (issue 26): per-seat returns of a scripted hand
(R-RK-10), the rack-points potential, the ``rk_out`` features, the Python agents' plans kept
per game row, and smoke runs at 2 and 4 seats."""

import csv
import json
from pathlib import Path

import numpy as np
import pytest

from agents import make_agent
from agents.policy_features import Featurizer
from experiments import selfplay
from experiments.selfplay.config import vector_class
from experiments.selfplay.opponents import FrozenAgent
from experiments.selfplay.returns import potential_fn
from rummy_env import rummikub_v0
from rummy_env.core.tiles import parse_counts, parse_tile
from rummy_env.games.rummikub import COMMIT, DRAW, stack_pool
from rummy_env.vector import RummikubVec
from tests.experiments.selfplay_helpers import committed_model_returns, one_game_gae, policy_episodes

RUN = "R1 R2 R3 R4 R5 R6 R7 R8 R9 R10 R11 R12 R13 JK"  # a 14-tile run: the first play goes out
OTHER = "B1 B2 B5 K7 K9 Y3 Y4 Y8 Y11 B13 K2 K4 K13 Y13"  # no meld


def _scripted():
    """player_0 draws, then player_1 plays its whole rack (RUN) and goes out (R-RK-10):
    per step the acting seat, every seat's rewards and the end; the observations before each step."""
    vec = RummikubVec(1, seed=0, num_threads=1)
    batch = vec.reset(decks=[stack_pool([OTHER, RUN], first_player=0)], dealers=np.array([0]))
    moves = [DRAW] + [parse_tile(t) for t in RUN.split()] + [COMMIT]
    players, rewards, dones, obs = [], [], [], []
    for move in moves:
        players.append(int(batch.current_player[0]))
        obs.append(batch.observation[0].copy())
        batch = vec.step(np.array([move]))
        rewards.append(batch.rewards[0].copy())
        dones.append(bool(batch.terminated[0]))
    return np.array(players), np.array(rewards), np.array(dones), np.array(obs)


def test_the_selfplay_engine_of_rummikub_is_rummikub_vec():
    assert vector_class("rummikub_v0") is RummikubVec


def test_per_seat_returns_of_a_scripted_hand_give_the_win_to_the_player_who_went_out():
    players, rewards, dones, _ = _scripted()
    assert players.tolist() == [0] + [1] * 15
    assert dones.tolist() == [False] * 15 + [True]
    assert rewards[-1].tolist() == [-1.0, 1.0] and not rewards[:-1].any()  # reward="win": +1 / -1 (2 seats)
    adv, valid = one_game_gae(players, rewards, dones)
    # gamma = lambda = 1: each decision's advantage is its seat's return minus the value
    np.testing.assert_allclose(adv[:, 0], [-1.25] + [0.75] * 15, atol=1e-6)
    assert valid.all()


def test_the_rack_points_potential_counts_a_joker_30():
    phi = potential_fn("rummikub_v0", {})
    _, _, _, obs = _scripted()
    # player_0's OTHER (95 points), player_1's RUN before and after adding R1..R3 to its play:
    # the rack still holds the play's tiles until the commit (1 + ... + 13 + 30 = 121)
    np.testing.assert_allclose(phi(obs[[0, 1, 4]]), [-0.95, -1.21, -1.21], atol=1e-6)


def test_rk_out_flags_going_out_and_a_play_that_holds_the_whole_rack():
    layout = rummikub_v0.env().unwrapped.layout
    featurize = Featurizer("rk_out", "rummikub_v0", layout)
    assert featurize.extra == 2
    rack, table, play, melded = (layout.slice(f) for f in ("rack", "table", "play", "initial_meld"))
    obs = np.zeros((5, layout.size), np.float32)
    obs[:, table] = parse_counts("B5 B6 B7")
    obs[0, rack] = obs[1, rack] = obs[2, rack] = parse_counts("R1 R2 R3")
    obs[3, rack] = parse_counts("R1 R2 R3 K9")  # K9 fits no meld
    obs[4, rack] = parse_counts("B4 K8")  # B4 extends the table's run, K8 fits nothing
    obs[[0, 1, 3, 4], melded.start] = 1  # player_2 (row 2) has not made its initial meld (R-RK-07)
    obs[1, play] = parse_counts("R1 R2 R3")
    obs[3, play] = parse_counts("R1 R2 R3")
    out = featurize(obs)
    assert out.shape == (5, layout.size + 2) and out.dtype == np.float32
    np.testing.assert_array_equal(out[:, : layout.size], obs)
    assert out[:, layout.size :].tolist() == [[1, 0], [1, 1], [0, 0], [0, 0], [0, 0]]


def test_a_python_agent_keeps_its_turn_plan_per_game_row():
    # max-play builds a play over several steps: one agent shared by the batch's games would
    # mistake another game's play for its own; per row it plays as one agent per game does
    env = rummikub_v0.env()
    vec = RummikubVec(6, seed=3, num_threads=1)
    frozen = FrozenAgent("heuristic", env, np.random.default_rng(0), seed=0)
    frozen.bind(vec)
    alone = [make_agent("heuristic", env, seed=i) for i in range(6)]  # FrozenAgent seeds row i with seed + i
    batch, built = vec.reset(), 0
    for _ in range(150):
        rows = np.flatnonzero(batch.action_mask.any(1))
        actions = np.zeros(6, np.int64)
        actions[rows] = frozen.act(rows, batch.observation, batch.action_mask.astype(bool))
        for i in rows:
            obs = {"observation": batch.observation[i], "action_mask": batch.action_mask[i]}
            assert actions[i] == alone[i].act(obs)
        built += int(((actions[rows] < COMMIT) & (batch.observation[rows, 53 * 2 : 53 * 3].sum(1) > 0)).sum())
        batch = vec.step(actions)
    assert built == 290  # tiles added to plays already started (the same on every run): the plans mattered


def test_a_frozen_heuristic_builds_row_i_agent_with_seed_plus_i_at_its_first_move():
    env = rummikub_v0.env()
    with pytest.raises(ValueError) as err:
        FrozenAgent("heuristic:style=nope", env, np.random.default_rng(0), seed=7)
    assert str(err.value) == (
        "agent 'heuristic:style=nope': style 'nope' is not a style of the rummikub_v0 heuristic: "
        "styles are default, hold_jokers, most_tiles, big_plays, patient"
    )
    frozen = FrozenAgent("heuristic", env, np.random.default_rng(0), seed=7)
    vec = RummikubVec(4, seed=3, num_threads=1)
    frozen.bind(vec)
    assert frozen.fast is None and frozen._agents == {}  # no agent before a row's first move
    batch = vec.reset()
    rows = np.array([1, 3])
    got = frozen.act(rows, batch.observation, batch.action_mask.astype(bool))
    assert sorted(frozen._agents) == [1, 3]
    for k, i in enumerate(rows):
        alone = make_agent("heuristic", env, seed=7 + i)
        assert got[k] == alone.act({"observation": batch.observation[i], "action_mask": batch.action_mask[i]})
        # the same seed: the same generator state after the same decision
        assert frozen._agents[i].rng.bit_generator.state == alone.rng.bit_generator.state


@pytest.mark.parametrize("players", [2, 4])
def test_a_smoke_run_kickstarted_by_the_patient_policy_trains_and_evaluates(players, tmp_path):
    out = tmp_path / "run"
    args = [
        "--variant", "rummikub", "--env-option", f"num_players={players}", "--num-envs", "8", "--num-steps",
        "16", "--timesteps", "300", "--hidden", "16", "--eval-deals", "1", "--final-eval-deals", "1",
        "--initial-eval", "false", "--minibatch-size", "64", "--heuristic-share", "0.5", "--kickstart-share", "1",
        "--teacher-agent", "heuristic:style=patient", "--shaping", "0", "--kickstart-floor", "0.5",
        "--eval-opponents", "heuristic;heuristic:style=patient", "--no-progress", "--out", str(out),
    ]  # fmt: skip
    assert selfplay.main(args) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert summary["config"]["features"] == "rk_out" and summary["config"]["teacher_agent"] == "heuristic:style=patient"
    assert [r["opponent"] for r in summary["evaluation"]] == ["heuristic", "heuristic:style=patient"]
    assert [r["games"] for r in summary["evaluation"]] == [players, players]  # one deal, the policy in every seat
    with open(out / "scalars.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    # the kickstart term ran on the teacher's labelled decisions: kick_ce is the policy's
    # cross-entropy on them per update (seeded, one torch thread: the same on every run;
    # 384 steps are too few to say the teacher's actions were learned)
    kick_ce = {2: [0.17409, 0.30064, 0.61299], 4: [0.24909, 0.40568, 0.50515]}[players]
    assert [int(r["steps"]) for r in rows] == [128, 256, 384]
    # to 1e-4: torch's float sums may differ in the last bits on another CPU's vector unit
    assert [float(r["kick_ce"]) for r in rows] == pytest.approx(kick_ce, abs=1e-4)
    assert (out / "model.pt").is_file() and (out / "checkpoint.pt").is_file()
    from agents.torch_policy import load_model

    model = load_model(out / "model.pt")
    assert model.features == "rk_out" and model.obs_size == rummikub_v0.env(num_players=players).unwrapped.layout.size


def test_the_committed_rummikub_model_plays_legal_hands_whose_rewards_sum_to_zero():
    # reward="win", 2 seats: +1 to the winner and -1 to the other (player_0 wins both deals,
    # the same on every run)
    assert committed_model_returns("selfplay-rummikub", rummikub_v0.env(), range(2)) == [[1.0, -1.0]] * 2


def test_the_committed_rk_plan_model_plays_legal_hands_whose_rewards_sum_to_zero():
    # the rummikub_plan recipe's model (rk_plan features) in both seats: the winner and the
    # number of decisions of each hand (the same on every run)
    from agents.torch_policy import load_model

    path = Path(__file__).parents[2] / "docs" / "results" / "selfplay-rummikub-plan" / "model.pt"
    assert load_model(path).features == "rk_plan"
    assert policy_episodes(path, rummikub_v0.env(), range(2)) == [([1.0, -1.0], 187), ([1.0, -1.0], 134)]


def test_a_two_player_model_at_three_seats_is_refused_with_both_player_counts():
    with pytest.raises(ValueError) as err:
        make_agent("policy:docs/results/selfplay-rummikub-plan/model.pt", rummikub_v0.env(num_players=3))
    assert str(err.value) == (
        "policy 'policy:docs/results/selfplay-rummikub-plan/model.pt' was trained on observations of shape (223,) "
        "(rummikub_v0, options {'num_players': 2}), this env's are (227,) (rummikub_v0, 3 players): a model plays "
        "the variant and number of players it was trained on"
    )
