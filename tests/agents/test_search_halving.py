"""``pimc:...,halving=R``: sequential halving over the legal actions (Karnin et al. 2013): the
decision's playouts split over rounds, each dropping the worse half of the actions."""

import numpy as np
import pytest

from agents import make_agent
from agents.search.fast import CompiledRollouts
from agents.search.pimc import PIMCAgent
from rummy_env import crazy_rummy_v0
from tests.games.resample_helpers import swap_hidden
from tests.helpers import whole

LEGAL = [6, 9, 12, 24, 26, 29, 34, 38]


def _eight_moves():
    """Crazy Rummy, 3 players, seed 5, every seat the heuristic, stopped at the first
    decision with eight legal moves: player_0 discards one of 7C TC KC QD AH 4H 9H KH: ``(env, obs, seat)``."""
    env = crazy_rummy_v0.env(num_players=3)
    env.reset(seed=5)
    heuristic = make_agent("heuristic", env)
    while True:
        obs = env.observe(env.agent_selection)
        if obs["action_mask"].sum() >= 8:
            return env, obs, env.possible_agents.index(env.agent_selection)
        env.step(heuristic.act(obs))


def _calls(monkeypatch):
    """Record (actions, worlds) of every compiled evaluation."""
    calls = []
    original = CompiledRollouts.action_values

    def record(self, state, seat, legal, worlds, *args):
        calls.append((list(legal), worlds))
        return original(self, state, seat, legal, worlds, *args)

    monkeypatch.setattr(CompiledRollouts, "action_values", record)
    return calls


def test_each_round_drops_the_worse_half_and_splits_the_playouts_equally(monkeypatch):
    env, obs, seat = _eight_moves()
    assert (np.flatnonzero(obs["action_mask"]).tolist(), seat) == (LEGAL, 0)
    calls = _calls(monkeypatch)
    agent = make_agent("pimc:worlds=40,halving=8", env, seed=3)
    values = agent.action_values(env.unwrapped.game_state, seat, LEGAL)
    # 40 worlds x 8 actions = 320 playouts over ceil(log2 8) = 3 rounds of 106
    assert [(len(a), w) for a, w in calls] == [(8, 13), (4, 26), (2, 53)]
    assert set(calls[1][0]) <= set(calls[0][0]) and set(calls[2][0]) <= set(calls[1][0])
    # the means over each action's worlds; the four dropped after round 1 two rounds before
    # the last, the two after round 2 one round before
    # (pinned 2026-12-05, after R-CRAZY-05a: a held wild card whose card is on the table fills nothing)
    assert np.round(values, 3).tolist() == [0.161, 0.223, 0.191, 0.09, 0.136, 0.134, 0.093, 0.203]
    assert agent.dropped.tolist() == [1, 1, 0, 2, 2, 2, 2, 0]
    assert calls[2][0] == [12, 38]  # KC and KH, the high cards, played in the last round
    # TC's 0.223 over 39 worlds is above both: it ranked below them after round 2, and the
    # best of the last round is played
    assert make_agent("pimc:worlds=40,halving=8", env, seed=3).act(obs) == 38

    calls.clear()
    make_agent("pimc:worlds=40,halving=2", env, seed=3).action_values(env.unwrapped.game_state, seat, LEGAL)
    assert [(len(a), w) for a, w in calls] == [(8, 20), (4, 40)]  # two rounds of 160 playouts
    calls.clear()
    make_agent("pimc:worlds=40", env, seed=3).action_values(env.unwrapped.game_state, seat, LEGAL)
    assert calls == [(LEGAL, 40)]  # halving=1, the default: every action on every world

    # fewer worlds than rounds: fewer rounds, never more playouts than worlds x actions
    calls.clear()
    make_agent("pimc:worlds=2,halving=8", env, seed=3).action_values(env.unwrapped.game_state, seat, LEGAL)
    assert [(len(a), w) for a, w in calls] == [(8, 1), (4, 2)]  # 16 playouts
    calls.clear()
    make_agent("pimc:worlds=1,halving=8", env, seed=3).action_values(env.unwrapped.game_state, seat, LEGAL[:3])
    assert calls == [(LEGAL[:3], 1)]


def test_the_priors_action_is_dropped_only_if_worse_by_more_than_the_prior():
    env, obs, seat = _eight_moves()
    assert make_agent("heuristic", env).act(obs) == 24  # QD: 0.09, dropped after round 1 without a prior
    agent = make_agent("pimc:worlds=40,halving=8,prior=0.02", env, seed=3)
    assert agent.act(obs) == 38 and agent.dropped[LEGAL.index(24)] == 2
    agent = make_agent("pimc:worlds=40,halving=8,prior=1", env, seed=3)
    assert agent.act(obs) == 24 and agent.dropped.tolist() == [1, 2, 0, 0, 2, 2, 2, 1]


def test_halving_does_not_peek():
    env, obs, seat = _eight_moves()
    raw = env.unwrapped
    before = make_agent("pimc:worlds=40,halving=8", env, seed=3).action_values(raw.game_state, seat, LEGAL)
    for k in range(3):
        raw.game_state = swap_hidden(raw.game_state, seat, np.random.default_rng(k))
        after = make_agent("pimc:worlds=40,halving=8", env, seed=3).action_values(raw.game_state, seat, LEGAL)
        np.testing.assert_array_equal(after, before)


def test_halving_needs_compiled_playouts_and_a_count_of_worlds():
    env, _, _ = _eight_moves()
    with pytest.raises(ValueError, match=whole("halving=2 splits a count of worlds, not a time: drop time or halving")):
        make_agent("pimc:halving=2,time=0.1", env)
    with pytest.raises(ValueError, match=whole("halving=2 splits the playouts of rollout=fast, not rollout=heuristic")):
        make_agent("pimc:halving=2,rollout=heuristic", env)
    with pytest.raises(ValueError, match=whole("halving=0: rounds of sequential halving, at least 1 (1: none)")):
        PIMCAgent(env, rollout="fast", halving=0)
    with pytest.raises(
        ValueError,
        match=whole(
            "agent 'pimc:halving=0': halving=0 is out of range (counts 1..10,000,000, c >= 0, "
            "time in (0, 86400] s, model 0..1)"
        ),
    ):
        make_agent("pimc:halving=0", env)
