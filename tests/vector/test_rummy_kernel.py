"""RummyVec (2-6 players) against the judges: the pure-Python batch (the same seed
gives the same games) and env() with the same deals and actions."""

import numpy as np
import pytest

from rummy_env import rummy_v0
from rummy_env.vector import Batch, ReferenceRummyVec, RummyVec
from tests.vector.differential import play_against_env

OPTIONS = [
    {},
    {"num_players": 2, "two_player_winner_deals": True, "reward": "score", "max_turns": 60},
    {"num_players": 3, "ace_high": True},
    {"num_players": 4, "reshuffle": "whole_pile", "reward": "score"},
    {"num_players": 5, "ace_high": True, "reshuffle": "whole_pile"},
    {"num_players": 6, "max_turns": 40},
]


@pytest.mark.parametrize("options", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items()) or "default")
def test_the_kernel_plays_the_reference_games_step_for_step(options):
    n, steps = 12, 700
    vec, ref = RummyVec(n, seed=13, **options), ReferenceRummyVec(n, seed=13, **options)
    batch, expected = vec.reset(), ref.reset()
    ended = rebuilt = 0
    for step in range(steps):
        for name, got, want in zip(Batch._fields, batch, expected, strict=True):
            assert np.array_equal(got, want), (step, name, np.flatnonzero((got != want).reshape(n, -1).any(axis=1)))
        assert np.array_equal(vec.scores, ref.scores)
        ended += int((batch.terminated | batch.truncated).sum())
        rebuilt += sum(env.unwrapped.game_state.stock == [] for env in ref._envs)
        batch, expected = vec.step_random(), ref.step_random()
    assert ended >= 3 and rebuilt >= 1  # episode boundaries and stock rebuilds (R-RUMMY-12) were crossed


@pytest.mark.parametrize("players", [2, 4])
def test_the_kernel_replays_in_env_with_the_same_actions(players):
    options = {"num_players": players, "max_turns": 30}
    counts = play_against_env(RummyVec(6, seed=4, **options), rummy_v0, options, 250, np.random.default_rng(3))
    assert counts["episodes"] >= 6 and counts["resets"] >= 3
