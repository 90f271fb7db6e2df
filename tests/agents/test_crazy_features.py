"""Exact values of the ``crazy_out`` input features (agents.crazy_features) on known positions,
and a model widened to them (agents.torch_policy.widen_inputs)."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from agents.crazy_features import CRAZY_OUT_SIZE, crazy_out_features
from agents.policy_features import FEATURES, Featurizer
from agents.torch_policy import ActorCritic, widen_inputs
from rummy_env import crazy_rummy_v0
from rummy_env.core.cards import parse_card as card_id
from rummy_env.games.crazy_rummy import stack_deck
from tests.helpers import play, scripted_env

OTHERS = ["AC 2C 3C 9S TD JD 6H", "9C TC JC KC 2D 3D 4D"]
LAYOFF, OUT, CARDS = 3, 6, 7  # entries: lay off a held card, discard the last card, the move's cards


def deal(first_hand, stock=(), wild_rank=5):
    return scripted_env(
        crazy_rummy_v0, stack_deck([first_hand, *OTHERS], stock=stock, dealer=2), 2, wild_rank=wild_rank
    )


def features(env) -> np.ndarray:
    obs = env.observe(env.agent_selection)["observation"][None].astype(np.float32)
    return crazy_out_features(obs, env.unwrapped.layout)[0]


def expected(*entries: int) -> list[float]:
    x = np.zeros(CRAZY_OUT_SIZE, np.float32)
    x[list(entries)] = 1
    return x.tolist()


def test_the_first_move_of_a_go_out_plan_is_named_with_its_card():
    env = deal("7S 8S 5C 2H 3H 4H KD QC", stock=["4C"])
    play(env, "meld 7S 8S 9S", "meld 2H 3H 4H", "discard KD")  # 5C stands for 9S
    play(env, "draw stock", "meld AC 2C 3C")  # player_1: 4C TD JD 6H 9S
    # the heuristic goes out by "layoff 4C high", "swap 9S", "meld 9D TD JD", "discard 6H"
    # (tests/agents/test_crazy_heuristic.py; R-CRAZY-07 lay-offs and swaps, R-CRAZY-09 going out): go out (0),
    # lay off (3) the card 4C
    assert features(env).tolist() == expected(0, LAYOFF, CARDS + card_id("4C"))


def test_the_draw_phase_flags_a_top_discard_worth_taking():
    env = deal("6S 7S 8S 2H 3H 4H KD 5D")  # fives wild
    play(env, "meld 6S 7S 8S", "meld 2H 3H 4H", "discard 5D")
    # R-CRAZY-02 fives wild, R-CRAZY-07 a lay-off once melded in the same turn:
    # player_1 (AC 2C 3C 9S TD JD 6H, not melded) takes the wild 5D and goes out: meld AC 2C 3C,
    # lay off 9S on 6S 7S 8S, meld TD JD with 5D, discard 6H; the wild card is worth taking (1)
    assert features(env).tolist() == expected(0, 1)
    play(env, "draw discard", "meld AC 2C 3C")
    assert features(env).tolist() == expected(0, LAYOFF, CARDS + card_id("9S"))


def test_a_last_card_that_may_go_is_the_plan_and_a_forbidden_one_is_none():
    layout = crazy_rummy_v0.env().unwrapped.layout
    obs = np.zeros((2, layout.size), np.float32)
    obs[:, layout.offset("phase") + 1] = 1  # play phase
    obs[:, layout.offset("wild_rank") + 4] = 1  # fives wild
    obs[:, layout.offset("hand") + card_id("KD")] = 1
    obs[1, layout.offset("forbidden") + card_id("KD")] = 1  # R-CRAZY-08: taken from the pile this turn
    x = crazy_out_features(obs, layout)
    assert x[0].tolist() == expected(0, OUT, CARDS + card_id("KD"))
    assert x[1].tolist() == expected()
    obs[:, layout.offset("phase") + 1] = 0  # the episode is over: nothing
    assert not crazy_out_features(obs, layout).any()


def test_crazy_out_is_meld_opp_followed_by_the_look_ahead():
    env = deal("6S 7S 8S 2H 3H 4H KD 5D")
    obs = env.observe(env.agent_selection)["observation"][None].astype(np.float32)
    layout = env.unwrapped.layout
    wide = Featurizer("crazy_out", "crazy_rummy_v0", layout)(obs)
    base = Featurizer("meld_opp", "crazy_rummy_v0", layout)(obs)
    assert wide.shape == (1, layout.size + FEATURES["crazy_out"]) and FEATURES["crazy_out"] == 576 + CRAZY_OUT_SIZE
    assert np.array_equal(wide[:, : base.shape[1]], base)
    assert np.array_equal(wide[0, base.shape[1] :], crazy_out_features(obs, layout)[0])
    with pytest.raises(ValueError, match="features 'crazy_out' do not apply to gin_rummy_v0"):
        Featurizer("crazy_out", "gin_rummy_v0", layout)


def test_a_widened_model_computes_what_the_model_did():
    env = deal("6S 7S 8S 2H 3H 4H KD 5D")
    layout = env.unwrapped.layout
    obs = env.observe(env.agent_selection)["observation"][None].astype(np.float32)
    torch.manual_seed(0)
    model = ActorCritic(layout.size, 631, (16, 8), "meld_opp")
    model.update_normalizer(torch.rand(64, layout.size + FEATURES["meld_opp"]))
    wide = widen_inputs(model, "crazy_out")
    assert wide.features == "crazy_out" and wide.trunk[0].weight.shape == (16, layout.size + 635)
    assert not wide.trunk[0].weight[:, -CRAZY_OUT_SIZE:].any()
    before = model(torch.from_numpy(Featurizer("meld_opp", "crazy_rummy_v0", layout)(obs)))
    after = wide(torch.from_numpy(Featurizer("crazy_out", "crazy_rummy_v0", layout)(obs)))
    # the same sums but for the zero terms (float rounding of the longer dot products aside)
    torch.testing.assert_close(after, before, rtol=0, atol=1e-6)
    with pytest.raises(ValueError, match="features 'gin' do not extend the model's 'meld_opp'"):
        widen_inputs(model, "gin")
    with pytest.raises(ValueError, match="features 'meld_opp' do not extend the model's 'meld_opp'"):
        widen_inputs(model, "meld_opp")
