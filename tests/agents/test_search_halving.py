"""``pimc:...,halving=R``: sequential halving over the legal actions (Karnin et al. 2013): the
decision's playouts split over rounds, each dropping the worse half of the actions."""

import numpy as np
import pytest

from agents import make_agent
from agents.search.fast import CompiledRollouts
from rummy_env import crazy_rummy_v0
from tests.games.resample_helpers import swap_hidden

LEGAL = [6, 9, 12, 24, 26, 29, 34, 38]


def _eight_moves():
    """Crazy Rummy, 3 players, seed 5, every seat the heuristic, stopped at the first
    decision with eight legal moves: player_0 discards one of 7C TC KC QD AH 4H 9H KH: ``(env, obs, seat)``."""
    env = crazy_rummy_v0.env(num_players=3)
    env.reset(seed=5)
    heuristic = make_agent("heuristic", env)
    while True:
        obs = env.observe(env.agent_selection)
        if obs["action_mask"].sum() >= 6:
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
    # dropped in round 1: mean - 2; in round 2: mean - 1; the last two: their means
    assert sorted(np.floor(values).astype(int).tolist()) == [-2, -2, -2, -2, -1, -1, 0, 0]
    last = [LEGAL.index(a) for a in calls[2][0]]
    assert all(0 <= values[i] <= 1 for i in last)
    assert calls[2][0] == [12, 38]  # KC and KH, the high cards: 0.191 and 0.203
    assert [round(values[i], 3) for i in last] == [0.191, 0.203]
    assert make_agent("pimc:worlds=40,halving=8", env, seed=3).act(obs) == LEGAL[int(np.argmax(values))] == 38

    calls.clear()
    make_agent("pimc:worlds=40,halving=2", env, seed=3).action_values(env.unwrapped.game_state, seat, LEGAL)
    assert [(len(a), w) for a, w in calls] == [(8, 20), (4, 40)]  # two rounds of 160 playouts
    calls.clear()
    make_agent("pimc:worlds=40", env, seed=3).action_values(env.unwrapped.game_state, seat, LEGAL)
    assert calls == [(LEGAL, 40)]  # halving=1, the default: every action on every world


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
    with pytest.raises(ValueError, match="halving=2 splits the playouts of rollout=fast with worlds, not time"):
        make_agent("pimc:halving=2,time=0.1", env)
    with pytest.raises(ValueError, match="halving=2 splits the playouts of rollout=fast"):
        make_agent("pimc:halving=2,rollout=heuristic", env)
    with pytest.raises(ValueError, match="halving=0 is out of range"):
        make_agent("pimc:halving=0", env)
