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
        if state.last_hand["truncated"]:  # the last hand reached max_turns: no score
            assert state.turn == max_turns and state.last_hand["hand_scores"] == [0] * n
        else:  # a whole game cut after max_hands hands, the last one played out
            assert episode == "game" and state.hands_played == state.config.max_hands
        if episode == "hand" or reward == "win":
            assert state.returns() == [0.0] * n


def test_a_game_cut_after_max_hands_whose_last_hand_was_played_out():
    # found by the property test above: Gin Rummy, turns cut at 3, the 1,000th hand ends in a
    # knock (42 points) with no game winner, so the game is truncated by max_hands
    from rummy_env import gin_rummy_v0

    env = gin_rummy_v0.env(max_turns=3, episode="game", reward="win")
    env.reset(seed=110)
    for _ in random_playthrough(env, np.random.default_rng(110)):
        pass
    state = env.unwrapped.game_state
    assert (state.truncated, state.turn, state.hands_played) == (True, 2, 1000)
    assert (state.last_hand["truncated"], state.last_hand["result"], state.last_hand["hand_scores"]) == (
        False,
        "knock",
        [42, 0],
    )
    assert state.last_hand["total_scores"] == [69, 47] and state.returns() == [0.0, 0.0]
