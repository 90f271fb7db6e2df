"""The move limit in every engine (R-RUMMY-13, R-RK-13, Gin and Crazy Rummy alike).

``episode="hand"``: a hand reaching ``max_turns`` ends with no score and truncates the
episode.  ``episode="game"``: the hand ends with no winner and no score, the next hand
is dealt (Gin: as after a dead hand, R-GIN-02), and only ``max_hands`` hands without a
game winner truncate the episode (issue 10, item 8).
"""

import numpy as np
import pytest

from rummy_env import crazy_rummy_v0, gin_rummy_v0, rummikub_v0, rummy_v0
from rummy_env.games.crazy_rummy import CrazyRummyConfig, CrazyRummyGame
from rummy_env.games.gin_rummy import GinRummyConfig, GinRummyGame, stack_deck
from rummy_env.games.rummikub import RummikubConfig, RummikubGame
from rummy_env.games.rummy import RummyConfig, RummyGame
from tests.helpers import whole

GAMES = {
    "rummy": (RummyGame, RummyConfig, {"num_players": 3}),
    "gin_rummy": (GinRummyGame, GinRummyConfig, {}),
    "crazy_rummy": (CrazyRummyGame, CrazyRummyConfig, {"num_players": 4}),
    "rummikub": (RummikubGame, RummikubConfig, {"num_players": 3}),
}
#: moves that end a turn without going out, by preference
STALL = ("pass", "draw stock", "draw", "discard")


def new_state(variant, **options):
    game_class, config_class, defaults = GAMES[variant]
    return game_class(config_class(**{**defaults, **options})).new_initial_state(rng=np.random.default_rng(7))


def stalling_move(texts):
    """Of ``{action text: id}``, a move that cannot go out: the first of :data:`STALL`."""
    for prefix in STALL:
        for text, action in texts.items():
            if text == prefix or prefix == "discard" and text.startswith("discard "):
                return int(action)
    raise AssertionError(f"no stalling move among {sorted(texts)}")


def stall(state):
    state.apply_action(stalling_move({state.action_to_string(a): a for a in state.legal_actions()}))


def stall_until(state, hands):
    while state.hands_played < hands and not state.is_terminal():
        stall(state)


@pytest.mark.parametrize("variant", list(GAMES))
def test_a_one_hand_episode_reaching_max_turns_is_truncated(variant):
    state = new_state(variant, max_turns=1)
    stall_until(state, 1)
    assert state.is_terminal() and state.truncated and state.hands_played == 1
    assert state.last_hand["truncated"] is True and state.last_hand["winner"] == -1
    assert set(state.last_hand["hand_scores"]) == {0} and set(state.returns()) == {0.0}


@pytest.mark.parametrize("reward", ["win", "score"])
@pytest.mark.parametrize("variant", list(GAMES))
def test_in_a_game_a_hand_reaching_max_turns_ends_without_a_winner_and_the_next_is_dealt(variant, reward):
    state = new_state(variant, max_turns=1, episode="game", max_hands=3, reward=reward)
    n = state.game.num_players
    dealer = getattr(state, "dealer", None)
    stall_until(state, 1)
    assert not state.is_terminal() and not state.truncated and state.hands_played == 1
    assert state.last_hand["truncated"] is True and state.last_hand["winner"] == -1
    assert state.last_hand["hand_scores"] == [0] * n and state.scores == [0] * n
    assert state.turn == 0 and state.rewards() == [0.0] * n
    if variant == "gin_rummy":
        assert state.dealer == dealer  # as a dead hand: the same dealer deals again (R-GIN-02)
    elif variant == "crazy_rummy":
        assert state.dealer == (dealer + 1) % n and state.round == 2  # R-CRAZY-03, R-CRAZY-02
    elif variant == "rummy":
        assert state.dealer == (dealer + 1) % n  # R-RUMMY-04
    stall_until(state, 2)
    assert not state.is_terminal() and state.hands_played == 2
    # max_hands=3 hands without a game winner truncate the game, no one winning it
    stall_until(state, 3)
    assert state.is_terminal() and state.truncated and state.hands_played == 3
    assert state.returns() == [0.0] * n and getattr(state, "game_winner", -1) == -1


@pytest.mark.parametrize(
    "module, options",
    [
        (rummy_v0, {}),
        (gin_rummy_v0, {}),
        (crazy_rummy_v0, {}),
        (rummikub_v0, {}),
    ],
    ids=["rummy", "gin_rummy", "crazy_rummy", "rummikub"],
)
def test_the_env_truncates_a_game_only_at_max_hands(module, options):
    env = module.env(episode="game", max_turns=1, max_hands=2, **options)
    env.reset(seed=3)
    raw = env.unwrapped
    hands = []
    while env.agents:
        agent = env.agent_selection
        if env.truncations[agent] or env.terminations[agent]:
            env.step(None)
            continue
        legal = np.flatnonzero(env.observe(agent)["action_mask"])
        env.step(stalling_move({raw.action_to_string(int(a)): a for a in legal}))
        if raw.game_state.hands_played > len(hands):
            hands.append((dict(env.truncations), dict(env.terminations), dict(env.infos[agent]), dict(env.rewards)))
    (trunc1, term1, info1, _), (trunc2, term2, info2, rewards) = hands
    assert not any(trunc1.values()) and not any(term1.values())  # the game went on after hand 1
    assert info1["hand"] == 1 and info1["hand_score"] == 0 and info1["winner"] == ""
    assert all(trunc2.values()) and not any(term2.values())  # max_hands=2: truncated
    assert info2["hand"] == 2 and info2["total_score"] == 0
    assert set(rewards.values()) == {0.0} and len(rewards) == len(env.possible_agents)


def test_the_default_max_hands_and_its_range():
    # random play averages 10 (Rummy), 130 (Gin) and 86 (Rummikub) hands a 2-player game
    assert RummyConfig().max_hands == GinRummyConfig().max_hands == RummikubConfig().max_hands == 1000
    assert CrazyRummyConfig().max_hands == 13  # the whole game of 13 rounds
    for config_class in (RummyConfig, GinRummyConfig, RummikubConfig):
        for bad in (0, 10**9 + 1, 2**63):  # the batched engines keep it in fixed-width ints
            message = f"option max_hands={bad} is out of range: max_hands must be an int from 1 to 1000000000"
            with pytest.raises(ValueError, match=whole(message)):
                config_class(max_hands=bad)
        assert config_class(max_hands=10**9).max_hands == 10**9
    with pytest.raises(
        ValueError, match=whole("option max_hands=14 is out of range: max_hands must be an int from 1 to 13")
    ):
        CrazyRummyConfig(max_hands=14)


def _gin_knock_deal(**options):
    """README's deal: both pass the upcard, player_0 draws KH and knocks (4 deadwood
    against 33 after lay-offs: 34 points), its first turn."""
    deck = stack_deck(
        ["4D 5D 6D 2C 3C 4C JS QS KS 3H", "7C 7D 7H 7S 8D QH JH 9C 6S 2H"], upcard="AS", stock=["KH"], dealer=1
    )
    env = gin_rummy_v0.env(**options)
    env.reset(seed=0, options={"deck": deck, "dealer": 1})
    for move in ["pass", "pass", "knock KH"]:
        env.step(env.unwrapped.string_to_action(move))
    return env


def test_gin_a_knock_on_the_turn_that_reaches_max_turns_is_scored():
    env = _gin_knock_deal(max_turns=1)  # the passes are not turns; the knock is the first
    assert all(env.terminations.values()) and not any(env.truncations.values())
    assert env.infos["player_0"]["hand_score"] == 34 and env._cumulative_rewards["player_0"] == 1.0


def test_gin_a_game_truncated_at_max_hands_has_no_winner_and_no_game_bonuses_r_gin_13():
    env = _gin_knock_deal(episode="game", game_bonuses=True, max_turns=1, max_hands=2)
    assert env.unwrapped.game_state.scores == [34, 0] and not any(env.truncations.values())
    while not all(env.truncations.values()):  # hand 2 ends at its first plain discard
        texts = {env.unwrapped.action_to_string(int(a)): a for a in env.unwrapped.game_state.legal_actions()}
        env.step(stalling_move(texts))
    state = env.unwrapped.game_state
    assert state.hands_played == 2 and state.game_winner == -1 and state.scores == [34, 0]
    assert env.infos["player_0"]["game_bonus"] == 0 and env.infos["player_0"]["total_score"] == 34
    assert env._cumulative_rewards == {"player_0": 0.0, "player_1": 0.0}
