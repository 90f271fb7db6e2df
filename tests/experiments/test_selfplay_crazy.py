"""``experiments.selfplay`` on Crazy Rummy and 3-6 seats (issue 26): per-seat returns of a
scripted round (R-CRAZY-12), the seating of the learner among heuristic seats, the compiled
heuristic on the batch's rows, the penalty potential, and a smoke run end to end."""

import csv
import json

import numpy as np
import pytest

from agents import make_agent
from experiments import selfplay
from experiments.common import load_variant
from experiments.selfplay.opponents import HEURISTIC, POOL, SELF, Opponents, compiled_heuristic
from experiments.selfplay.returns import per_seat_gae, potential_fn
from rummy_env import crazy_rummy_v0
from rummy_env.games.crazy_rummy import stack_deck, string_to_action
from rummy_env.vector import CrazyRummyVec
from tests.experiments.selfplay_helpers import committed_model_returns, one_game_gae

# round 1 (aces wild), dealer player_2: player_0 (8 cards) plays first, melds twice and
# discards 9C, which player_1 takes to go out (meld TD JD QD KD, meld 9C 9D 9S, discard 4S);
# penalties (R-CRAZY-12): player_0 keeps 8H (8), player_1 0, player_2 3D..8D TC (43)
ROUND = stack_deck(["2C 3C 4C 5H 6H 7H 8H 9C", "9D 9S TD JD QD KD 4S", "3D 4D 5D 6D 7D 8D TC"], dealer=2)
MOVES = [
    (0, "meld 2C 3C 4C"),
    (0, "meld 5H 6H 7H"),
    (0, "discard 9C"),
    (1, "draw discard"),
    (1, "meld TD JD QD KD"),
    (1, "meld 9C 9D 9S"),
    (1, "discard 4S"),
]


def _scripted(reward):
    """The scripted round in a ``CrazyRummyVec`` of one game: per step the acting seat, the
    rewards of every seat and the end; then the batch after it."""
    vec = CrazyRummyVec(1, seed=0, reward=reward)
    vec.reset(decks=[ROUND], dealers=np.array([2]))
    players, rewards, dones = [], [], []
    for seat, move in MOVES:
        players.append(seat)
        batch = vec.step(np.array([string_to_action(move)]))
        rewards.append(batch.rewards[0].copy())
        dones.append(bool(batch.terminated[0]))
    return vec, np.array(players), np.array(rewards), np.array(dones)


def test_the_scripted_round_ends_with_player_1_out_and_the_penalties_of_r_crazy_12():
    vec, _, rewards, dones = _scripted("score")
    assert dones.tolist() == [False] * 6 + [True]
    assert vec.scores.tolist() == [[8, 0, 43]]
    np.testing.assert_allclose(rewards[-1], [17 - 8, 17, 17 - 43], atol=1e-5)  # the mean penalty 17 minus one's own
    assert abs(rewards.sum()) < 1e-5  # +1 and -1: the rewards sum to 0 over the seats (R-RK-13)


def test_per_seat_returns_of_the_scripted_round_give_every_seat_its_share_of_the_win():
    _, players, rewards, dones = _scripted("win")
    # +1 to the lowest penalty (player_1), -1 shared by the two others (R-CRAZY-12, 13)
    assert rewards[-1].tolist() == [-0.5, 1.0, -0.5] and rewards[:-1].sum() == 0
    adv, valid = one_game_gae(players, rewards, dones)
    # gamma = lambda = 1: each decision's advantage is its seat's return minus the value;
    # player_2 never moved (its -0.5 is in no decision of this rollout)
    np.testing.assert_allclose(adv[:, 0], [-0.75] * 3 + [0.75] * 4, atol=1e-6)
    assert valid.all()


def test_per_seat_gae_with_three_seats_follows_each_seats_chain():
    # seats 0, 1, 2, 0, 1, 2 then the game ends: +1 seat 2, -0.5 the others; gamma 0.5, lambda 1
    players = np.array([[0], [1], [2], [0], [1], [2]])
    rewards = np.zeros((6, 1, 3))
    rewards[5, 0] = [-0.5, -0.5, 1.0]
    dones = np.zeros((6, 1), bool)
    dones[5, 0] = True
    values = np.zeros((6, 1))
    adv, valid = per_seat_gae(
        values, rewards, dones, players, np.ones((6, 1), bool), np.zeros((6, 1)),
        np.zeros(1), np.zeros(1, np.int64), np.zeros(1, bool), np.zeros(1), 0.5, 1.0, 0.0,
    )  # fmt: skip
    # each seat's last decision gets the final reward, its earlier one half of it (one decision of its own back)
    np.testing.assert_allclose(adv[:, 0], [-0.25, -0.25, 0.5, -0.5, -0.5, 1.0], atol=1e-6)
    assert valid.all()


def test_the_penalty_potential_counts_a_wild_card_25():
    phi = potential_fn("crazy_rummy_v0", {"num_players": 3})
    env = crazy_rummy_v0.env(num_players=3)
    layout = env.unwrapped.layout
    obs = np.zeros((2, layout.size), np.float32)
    hand, wild = layout.slice("hand"), layout.slice("wild_rank")
    for row, rank in ((0, 0), (1, 4)):  # aces wild, fives wild
        obs[row, wild.start + rank] = 1
    # AS (card 39), 5H (card 30), KC (card 12)
    obs[:, hand.start + 39] = obs[:, hand.start + 30] = obs[:, hand.start + 12] = 1
    np.testing.assert_allclose(phi(obs), [-(25 + 5 + 10) / 100, -(1 + 25 + 10) / 100], atol=1e-6)


def _learner(**kw):
    cfg = selfplay.Config(
        variant="crazy_rummy_v0", env_options={"num_players": 3}, num_envs=8, num_steps=8, hidden=(16,),
        heuristic_share=0.5, pool_share=0.25, **kw,
    )  # fmt: skip
    return selfplay.Learner(cfg)


def test_the_learner_sits_among_heuristic_seats_and_moves_one_seat_on_each_round():
    learner = _learner()
    opponents = Opponents(learner, load_variant("crazy_rummy_v0").env(num_players=3))
    assert opponents.kind.tolist() == [SELF, SELF, POOL, POOL, HEURISTIC, HEURISTIC, HEURISTIC, HEURISTIC]
    assert opponents.learner_seat.tolist() == [1, 2, 0, 1, 2, 0, 1, 2]
    player = np.array([0, 1, 2, 0, 1, 2, 0, 2])
    who = opponents.seats(player, np.ones(8, bool))
    # self-play games: the learner plays every seat; else only its own, the opponent the two others
    # (a pool game with an empty pool: the learner plays the seat)
    assert who["learner"].tolist() == [True, True, True, True, False, False, False, True]
    assert who["heuristic"].tolist() == [False] * 4 + [True, True, True, False]
    assert not who["pool"].any()  # no snapshot in the pool yet: the learner plays those seats
    opponents.hand_over(np.array([True, False] * 4))
    assert opponents.learner_seat.tolist() == [2, 2, 1, 1, 0, 0, 2, 2]


def test_the_compiled_crazy_heuristic_picks_the_python_agents_action_on_every_row():
    options = {"num_players": 4}
    vec = CrazyRummyVec(12, seed=5, num_threads=1, **options)
    agent = make_agent("heuristic", crazy_rummy_v0.env(**options), seed=0)
    actions = compiled_heuristic(vec)
    rng = np.random.default_rng(0)
    batch, checked = vec.reset(), 0
    for _ in range(120):
        rows = np.flatnonzero(batch.action_mask.any(1))
        fast = actions(rows)
        for i in rows:
            assert fast[i] == agent.act({"observation": batch.observation[i], "action_mask": batch.action_mask[i]})
        checked += len(rows)
        heuristic_moves = rng.random(12) < 0.7  # mostly its own moves (melds, swaps), some random
        step = np.array([rng.choice(np.flatnonzero(m)) if m.any() else 0 for m in batch.action_mask])
        batch = vec.step(np.where(heuristic_moves & (fast >= 0), fast, step))
    assert checked > 1000


# steps: the learner's decisions after each update of the seeded run (12 games x 16 steps an
# update; 4 updates reach 600), then after each update of the resumed run (3 more reach + 400)
@pytest.mark.parametrize(
    ("variant", "options", "steps"),
    [
        ("crazy_rummy", ["num_players=3"], ([192, 378, 569, 755], [944, 1135, 1322])),
        ("crazy_rummy", ["num_players=5", "episode=game"], ([192, 384, 576, 768], [960, 1152, 1344])),
        ("rummy", ["num_players=4"], ([192, 384, 576, 766], [958, 1150, 1340])),
    ],
    ids=["crazy3", "crazy5-game", "rummy4"],
)
def test_a_smoke_run_with_more_than_two_seats_trains_and_evaluates(variant, options, steps, tmp_path):
    out = tmp_path / "run"
    args = [
        "--variant", variant, "--num-envs", "12", "--num-steps", "16", "--timesteps", "600", "--hidden", "16",
        "--eval-deals", "1", "--final-eval-deals", "1", "--initial-eval", "false", "--minibatch-size", "64",
        "--heuristic-share", "0.5", "--eval-opponents", "heuristic", "--no-progress", "--out", str(out),
    ] + [a for o in options for a in ("--env-option", o)]  # fmt: skip
    assert selfplay.main(args) == 0
    players = int(options[0].split("=")[1])
    summary = json.loads((out / "summary.json").read_text())
    first, resumed = steps
    assert (summary["steps"], summary["updates"]) == (first[-1], 4)
    assert [r["opponent"] for r in summary["evaluation"]] == ["heuristic"]
    assert summary["evaluation"][0]["games"] == players  # one deal, the policy in every seat
    with open(out / "scalars.csv", newline="") as f:
        assert [int(r["steps"]) for r in csv.DictReader(f)] == first
    assert (out / "model.pt").is_file() and (out / "checkpoint.pt").is_file()
    # resumed: the step count and the logs go on from the checkpoint, with the seats it had
    before, updates = summary["steps"], summary["updates"]
    resume = ["--variant", variant, "--out", str(out), "--resume", "--timesteps", str(before + 400), "--no-progress"]
    assert selfplay.main(resume) == 0
    summary = json.loads((out / "summary.json").read_text())
    assert (summary["steps"], summary["updates"]) == (resumed[-1], updates + 3)
    assert summary["config"]["env_options"]["num_players"] == players
    with open(out / "scalars.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert [(int(r["updates"]), int(r["steps"])) for r in rows] == list(enumerate(first + resumed, start=1))


def test_the_committed_crazy_model_plays_legal_rounds_whose_rewards_sum_to_zero():
    # reward="win", 3 seats: +1 to the lowest penalty, -1 shared by the others (R-CRAZY-12);
    # the same rounds on every run
    episodes = committed_model_returns("selfplay-crazy", crazy_rummy_v0.env(num_players=3), range(3))
    assert episodes == [[-0.5, -0.5, 1.0], [-0.5, -0.5, 1.0], [1.0, -0.5, -0.5]]


def test_the_committed_crazy_out_model_plays_legal_rounds_from_its_look_ahead_features():
    # the model of docs/results/selfplay-crazy-out reads the crazy_out features; same rounds as above
    from agents.torch_policy import load_model

    assert load_model("docs/results/selfplay-crazy-out/model.pt").features == "crazy_out"
    episodes = committed_model_returns("selfplay-crazy-out", crazy_rummy_v0.env(num_players=3), range(3))
    assert episodes == [[1.0, -0.5, -0.5], [-0.5, -0.5, 1.0], [1.0, -0.5, -0.5]]


def test_the_committed_crazy_safe_model_plays_legal_rounds():
    # the model of docs/results/selfplay-crazy-safe (taught by hold_wilds_safe); same rounds as above
    from agents.torch_policy import load_model

    assert load_model("docs/results/selfplay-crazy-safe/model.pt").features == "crazy_out"
    episodes = committed_model_returns("selfplay-crazy-safe", crazy_rummy_v0.env(num_players=3), range(3))
    assert episodes == [[-0.5, 1.0, -0.5], [-0.5, -0.5, 1.0], [-0.5, 1.0, -0.5]]


def test_the_committed_crazy_discard_model_plays_legal_rounds():
    # the model of docs/results/selfplay-crazy-discard (hold_wilds_safe's discard terms as inputs)
    from agents.torch_policy import load_model

    assert load_model("docs/results/selfplay-crazy-discard/model.pt").features == "crazy_discard"
    episodes = committed_model_returns("selfplay-crazy-discard", crazy_rummy_v0.env(num_players=3), range(3))
    assert episodes == [[1.0, -0.5, -0.5], [-0.5, -0.5, 1.0], [-0.5, -0.5, 1.0]]
