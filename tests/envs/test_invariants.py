"""Invariants of random play (hypothesis): cards conserved, a legal move in every live
state, hands end within ``max_turns``, zero-sum rewards."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from rummy_env import rummy_v0


def cards_accounted_for(state):
    """Every card is in exactly one place: a hand, the stock, the discard pile or the table."""
    places = list(state.hands) + [state.table.mask]
    seen = 0
    total = 0
    for mask in places:
        assert seen & mask == 0
        seen |= mask
        total += mask.bit_count()
    for c in state.stock + state.discard:
        assert not seen >> c & 1
        seen |= 1 << c
        total += 1
    return total == 52 and seen == (1 << 52) - 1


@settings(max_examples=30, deadline=None)
@given(
    seed=st.integers(0, 2**31 - 1),
    num_players=st.integers(2, 6),
    ace_high=st.booleans(),
    reshuffle=st.sampled_from(["keep_top", "whole_pile"]),
    max_turns=st.integers(1, 250),
    episode=st.sampled_from(["hand", "game"]),
    reward=st.sampled_from(["win", "score"]),
)
def test_random_play_keeps_the_invariants(seed, num_players, ace_high, reshuffle, max_turns, episode, reward):
    env = rummy_v0.env(num_players=num_players, ace_high=ace_high, reshuffle=reshuffle, max_turns=max_turns,
                       episode=episode, reward=reward, target_score=60)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    state = env.unwrapped.state
    for agent in env.agent_iter():
        obs, _, term, trunc, _ = env.last()
        if term or trunc:
            env.step(None)
            continue
        state = env.unwrapped.state
        assert cards_accounted_for(state)
        legal = np.flatnonzero(obs["action_mask"])
        assert legal.size > 0 and legal.tolist() == state.legal_actions()
        env.step(int(legal[rng.integers(legal.size)]))
        assert abs(sum(env.rewards.values())) < 1e-9  # zero-sum at every step
        assert state.turn <= max_turns  # turns of the current hand (R-RUMMY-13)
    assert state.is_terminal()
    assert abs(sum(state.returns())) < 1e-9
    if state.truncated:
        assert state.turn == max_turns and state.last_hand["hand_scores"] == [0] * num_players
        if episode == "hand" or reward == "win":
            assert state.returns() == [0.0] * num_players
