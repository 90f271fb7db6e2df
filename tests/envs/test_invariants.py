"""Invariants of random play for every variant: cards conserved, a legal move in every
live state, hands end within ``max_turns``, zero-sum rewards.  Hypothesis explores; a fixed
list of games pins how many live states were checked and how each game ended, so a change
that stops reaching a truncation (whose checks sit under an ``if``) fails."""

import random

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.envs.variants import VARIANTS
from tests.helpers import random_playthrough


def assert_every_card_in_one_place(variant, state):
    places = variant.places(state)
    everything = [c for place in places for c in place]
    assert sorted(everything) == variant.deck_ids()


def play_and_check(variant, seed, options, max_turns, episode, reward):
    """Play one random game checking the invariants; returns ``(live states checked, how it
    ended)``, the end one of "played out", "hand cut" (at ``max_turns``) or "game cut" (after
    ``max_hands`` hands), so that a caller can pin how much was checked."""
    options = {
        k: v
        for k, v in variant.api_options[options % len(variant.api_options)].items()
        if k not in ("max_turns", "episode", "reward", "wild_rank", "target_score")
    }
    env = variant.module.env(max_turns=max_turns, episode=episode, reward=reward, **options)
    env.reset(seed=seed)
    state = env.unwrapped.game_state
    n = state.num_players
    live = 0
    for _, obs, done in random_playthrough(env, np.random.default_rng(seed)):
        state = env.unwrapped.game_state
        assert abs(sum(env.rewards.values())) < 1e-9  # zero-sum after every step
        assert state.turn <= max_turns  # turns of the current hand
        if not done:
            assert_every_card_in_one_place(variant, state)
            legal = np.flatnonzero(obs["action_mask"])
            assert legal.size > 0 and legal.tolist() == state.legal_actions()
            live += 1
    assert state.is_terminal()
    assert abs(sum(state.returns())) < 1e-9
    end = "played out"
    if state.truncated:
        if state.last_hand["truncated"]:  # the last hand reached max_turns: no score
            assert state.turn == max_turns and state.last_hand["hand_scores"] == [0] * n
            end = "hand cut"
        else:  # a whole game cut after max_hands hands, the last one played out
            assert episode == "game" and state.hands_played == state.config.max_hands
            end = "game cut"
        if episode == "hand" or reward == "win":
            assert state.returns() == [0.0] * n
    return live, end


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
    play_and_check(variant, seed, options, max_turns, episode, reward)


def fixed_games(per_variant=4):
    """``per_variant`` games of each variant drawn once from a fixed seed (not by hypothesis,
    whose draws change with its version), over the property test's ranges but for
    shorter hands (``max_turns`` up to 60), so that some are cut."""
    rng = random.Random(2026)
    return [
        dict(
            variant=variant,
            seed=rng.randrange(2**31),
            options=rng.randint(0, 3),
            max_turns=rng.randint(1, 60),
            # whole Rummikub games of random play take some 15 s each: hands only
            episode=rng.choice(["hand"] if variant.tiles else ["hand", "game"]),
            reward=rng.choice(["win", "score"]),
        )
        for variant in VARIANTS
        for _ in range(per_variant)
    ]


def test_fixed_games_reach_every_checked_situation():
    # pinned once: a change that stops games reaching a truncated hand (or changes the play)
    # changes these
    results = [(game["variant"].name, *play_and_check(**game)) for game in fixed_games()]
    assert results == [
        ("rummy_v0", 71, "hand cut"),
        ("rummy_v0", 21216, "played out"),
        ("rummy_v0", 16519, "hand cut"),
        ("rummy_v0", 33605, "played out"),
        ("crazy_rummy_v0", 458, "played out"),
        ("crazy_rummy_v0", 1037, "played out"),
        ("crazy_rummy_v0", 62, "hand cut"),
        ("crazy_rummy_v0", 650, "played out"),
        ("gin_rummy_v0", 8423, "played out"),
        ("gin_rummy_v0", 36017, "played out"),
        ("gin_rummy_v0", 74, "hand cut"),
        ("gin_rummy_v0", 5248, "played out"),
        ("rummikub_v0", 103, "hand cut"),
        ("rummikub_v0", 83, "hand cut"),
        ("rummikub_v0", 101, "hand cut"),
        ("rummikub_v0", 110, "hand cut"),
    ]


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
    # the same game through the checker above reaches its "game cut" branch
    gin = next(v for v in VARIANTS if v.module is gin_rummy_v0)
    assert play_and_check(gin, 110, 0, 3, "game", "win") == (6481, "game cut")
