"""Invariants of random play (hypothesis) for every variant: cards conserved, a legal
move in every live state, hands end within ``max_turns``, zero-sum rewards."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.envs.variants import VARIANTS
from tests.helpers import random_playthrough


def assert_every_card_in_one_place(variant, state):
    places = variant.places(state)
    everything = [c for place in places for c in place]
    assert sorted(everything) == variant.deck_ids()


@settings(max_examples=25, deadline=None)
@given(
    variant=st.sampled_from(VARIANTS),
    seed=st.integers(0, 2**31 - 1),
    options=st.integers(0, 3),
    max_turns=st.integers(1, 250),
    episode=st.sampled_from(["hand", "game"]),
    reward=st.sampled_from(["win", "score"]),
)
def test_random_play_keeps_the_invariants(variant, seed, options, max_turns, episode, reward):
    options = {
        k: v
        for k, v in variant.api_options[options % len(variant.api_options)].items()
        if k not in ("max_turns", "episode", "reward", "wild_rank", "target_score")
    }
    env = variant.module.env(max_turns=max_turns, episode=episode, reward=reward, **options)
    env.reset(seed=seed)
    state = env.unwrapped.game_state
    n = state.num_players
    for _, obs, done in random_playthrough(env, np.random.default_rng(seed)):
        state = env.unwrapped.game_state
        assert abs(sum(env.rewards.values())) < 1e-9  # zero-sum after every step
        assert state.turn <= max_turns  # turns of the current hand
        if not done:
            assert_every_card_in_one_place(variant, state)
            legal = np.flatnonzero(obs["action_mask"])
            assert legal.size > 0 and legal.tolist() == state.legal_actions()
    assert state.is_terminal()
    assert abs(sum(state.returns())) < 1e-9
    if state.truncated:
        assert state.turn == max_turns and state.last_hand["hand_scores"] == [0] * n
        if episode == "hand" or reward == "win":
            assert state.returns() == [0.0] * n
