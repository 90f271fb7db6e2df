"""Exact values of the ``rk_plan`` input features (``agents.policy_features``: ``rk_out`` plus the
next tile of the going-out play) on known positions, their agreement with the patient policy
on played hands, and a ``rk_out`` model widened to them."""

import numpy as np
import pytest
import torch

from agents import make_agent
from agents.policy_features import EXTENDS, FEATURES, Featurizer, rummikub_plan_features
from agents.torch_policy import ActorCritic, widen_inputs
from rummy_env import gin_rummy_v0, rummikub_v0
from rummy_env.core.tiles import parse_counts, parse_tile
from rummy_env.games.rummikub import COMMIT

LAYOUT = rummikub_v0.env().unwrapped.layout


def _obs(rack, play="", table="B5 B6 B7", melded=True):
    obs = np.zeros(LAYOUT.size, np.float32)
    obs[LAYOUT.slice("table")] = parse_counts(table)
    obs[LAYOUT.slice("rack")] = parse_counts(rack)
    if play:
        obs[LAYOUT.slice("play")] = parse_counts(play)
    obs[LAYOUT.offset("initial_meld")] = float(melded)
    return obs


def _plan(obs):
    """(the two rk_out flags, the types set in the one-hot) of one observation."""
    extra = Featurizer("rk_plan", "rummikub_v0", LAYOUT)(obs[None])[0, LAYOUT.size :]
    return extra[:2].tolist(), np.flatnonzero(extra[2:]).tolist()


def test_rk_plan_is_rk_out_then_the_lowest_tile_left_of_an_open_going_out_play():
    assert FEATURES["rk_plan"] == 55 and EXTENDS["rk_plan"] == "rk_out"
    r1, r2, b4, joker = (parse_tile(t) for t in ("R1", "R2", "B4", "JK"))
    # R1 R2 R3 go out as a run, B4 on the table's B5 B6 B7 (R-RK-08): R1 first, then R2
    assert _plan(_obs("R1 R2 R3 B4")) == ([1, 0], [r1])
    assert _plan(_obs("R1 R2 R3 B4", play="R1")) == ([1, 0], [r2])
    assert _plan(_obs("R1 R2 R3 B4", play="R1 R2 R3")) == ([1, 0], [b4])
    # the whole rack in the play: rk_out's second flag (COMMIT), no tile left
    assert _plan(_obs("R1 R2 R3 B4", play="R1 R2 R3 B4")) == ([1, 1], [])
    # R2 added before R1: the env closed R1 (types below the last added), so the play cannot go out
    assert _plan(_obs("R1 R2 R3 B4", play="R2")) == ([1, 0], [])
    assert _plan(_obs("R1 R2 R3 B4", play="R1 R3")) == ([1, 0], [])  # R2 closed by R3, the highest
    # a joker is the highest type: last of the play (R1 R2 JK, then B4 on the table's run)
    assert _plan(_obs("R1 R2 JK B4", play="R1 R2 B4")) == ([1, 0], [joker])
    # two copies of a type: the type stays next until both are in the play
    assert _plan(_obs("R1 R1 R2 R2 R3 R3", play="R1")) == ([1, 0], [r1])
    # no going out: K9 fits no meld; before the initial meld (R-RK-07) the flag is off
    assert _plan(_obs("R1 R2 R3 K9")) == ([0, 0], [])
    assert _plan(_obs("R1 R2 R3 B4", melded=False)) == ([0, 0], [])


def test_the_one_hot_alone_reads_only_rack_play_and_the_flag():
    rack = np.stack([parse_counts("R1 R2 R3"), parse_counts("R1 R2 R3"), parse_counts("B4 JK")])
    play = np.stack([parse_counts(""), parse_counts("R1"), parse_counts("B4 JK")])
    out = rummikub_plan_features(rack, play, np.array([1.0, 0.0, 1.0]))
    assert out.shape == (3, 53) and out.dtype == np.float32
    assert [np.flatnonzero(r).tolist() for r in out] == [[parse_tile("R1")], [], []]


def test_rk_plan_applies_to_rummikub_only():
    with pytest.raises(ValueError) as err:
        Featurizer("rk_plan", "gin_rummy_v0", gin_rummy_v0.env().unwrapped.layout)
    assert str(err.value) == (
        "features 'rk_plan' do not apply to gin_rummy_v0: its features are none, meld, gin, meld_opp, gin_opp, gin_read"
    )


def test_the_patient_policy_plays_the_one_hot_and_commits_the_whole_rack():
    # patient (player_0) against max-play on seeded hands: wherever the one-hot is set the
    # patient policy adds that tile, and with the whole rack in the play it commits
    env = rummikub_v0.env()
    featurize = Featurizer("rk_plan", "rummikub_v0", env.unwrapped.layout)
    size = env.unwrapped.layout.size
    tiles = commits = starts = 0
    for hand in range(6):
        env.reset(seed=100 + hand)
        agents = {
            "player_0": make_agent("heuristic:style=patient", env, seed=hand),
            "player_1": make_agent("heuristic", env, seed=hand),
        }
        for name in env.agent_iter():
            obs, _, term, trunc, _ = env.last()
            if term or trunc:
                env.step(None)
                continue
            action = agents[name].act(obs)
            if name == "player_0":
                extra = featurize(obs["observation"][None].astype(np.float32))[0, size:]
                if extra[2:].any():
                    assert action == int(np.argmax(extra[2:]))
                    tiles += 1
                    starts += int(not obs["observation"][LAYOUT.slice("play")].any())
                elif extra[0] and extra[1]:
                    assert action == COMMIT
                    commits += 1
            env.step(action)
    # the same on every run (seeded deals and agents)
    assert (tiles, commits, starts) == (232, 6, 6)  # six going-out plays, 232 tiles added


def test_a_rk_out_model_widened_to_rk_plan_computes_what_it_did():
    obs = np.stack([_obs("R1 R2 R3 B4"), _obs("R1 R2 R3 B4", play="R1"), _obs("R1 R2 R3 K9")])
    torch.manual_seed(0)
    model = ActorCritic(LAYOUT.size, 55, (16, 8), "rk_out")
    model.update_normalizer(torch.rand(64, LAYOUT.size + 2))
    wide = widen_inputs(model, "rk_plan")
    assert wide.features == "rk_plan" and wide.trunk[0].weight.shape == (16, LAYOUT.size + 55)
    assert not wide.trunk[0].weight[:, -53:].any()
    before = model(torch.from_numpy(Featurizer("rk_out", "rummikub_v0", LAYOUT)(obs)))
    after = wide(torch.from_numpy(Featurizer("rk_plan", "rummikub_v0", LAYOUT)(obs)))
    torch.testing.assert_close(after, before, rtol=0, atol=1e-6)
