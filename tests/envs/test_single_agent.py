"""The single-agent Gymnasium view of one seat."""

import re

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from agents import make_agent
from rummy_env import crazy_rummy_v0, gin_rummy_v0, rummy_v0
from rummy_env.envs.single_agent import SingleAgentEnv, single_agent_env
from rummy_env.games.errors import ActionTypeError, IllegalActionError
from tests.helpers import whole


def single(module=gin_rummy_v0, seat=None, **options):
    aec = module.env(**options)
    return SingleAgentEnv(aec, [make_agent("random", aec, seed=1)], learner_seat=seat, seed=0)


def test_gymnasium_checker_passes():
    check_env(single(), skip_render_check=True)


@pytest.mark.parametrize(
    "module, options",
    [
        (rummy_v0, {"reward": "score"}),
        (gin_rummy_v0, {"episode": "game", "target_score": 30, "reward": "score"}),
        (crazy_rummy_v0, {}),
        (crazy_rummy_v0, {"reward": "score", "num_players": 4}),
    ],
)
def test_the_learners_rewards_add_up_to_its_returns(module, options):
    rng = np.random.default_rng(1)
    for episode in range(3):
        env = single(module, **options)
        env.reset(seed=episode)
        seat = env.aec.possible_agents.index(env._learner)
        total, done = 0.0, False
        while not done:
            obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
            total += reward
            done = terminated or truncated
        assert total == pytest.approx(env.aec.unwrapped.game_state.returns()[seat])


def play_out(env, rng):
    """Random legal learner actions to the end: (observations, rewards, terminated, truncated, last info)."""
    observations, rewards, done = [], [], False
    while not done:
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(np.flatnonzero(env.action_masks()))))
        observations.append(obs)
        rewards.append(reward)
        done = terminated or truncated
    return observations, rewards, terminated, truncated, info


@pytest.mark.parametrize("opponent", ["random", "pimc:worlds=4", "ismcts:simulations=10"])
def test_the_same_seed_replays_the_episode_with_agents_that_draw_random_numbers(opponent):
    aec = rummy_v0.env()
    env = SingleAgentEnv(aec, [make_agent(opponent, aec, seed=1)], learner_seat=0, seed=0)
    runs = []
    for _ in range(2):
        first, _ = env.reset(seed=4)
        observations, rewards, *_ = play_out(env, np.random.default_rng(0))
        runs.append((first, observations, rewards))
    (a0, a, ra), (b0, b, rb) = runs
    assert np.array_equal(a0, b0) and ra == rb and len(a) == len(b)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))


def test_opponents_are_reseeded_per_deal_by_the_jobs_seat_rule():
    from agents import RandomAgent, seat_seed

    class Recording(RandomAgent):
        def reset(self, seed=None):
            seeds.append(seed)
            super().reset(seed)

    seeds = []
    aec = crazy_rummy_v0.env(num_players=3)
    env = SingleAgentEnv(aec, [Recording(seed=1), Recording(seed=2)], learner_seat=0, seed=0)
    env.reset(seed=40)  # the deal's reset seed, drawn from the env's generator: 1205969331
    assert seeds == [1205969331 + 7919, 1205969331 + 2 * 7919] == [seat_seed(1205969331, k) for k in (1, 2)]


@pytest.mark.parametrize(
    ("module", "options"),
    [
        (rummy_v0, {"max_turns": 3}),
        (gin_rummy_v0, {"max_turns": 3}),
        (crazy_rummy_v0, {"max_turns": 4}),
        (gin_rummy_v0, {"episode": "game", "max_hands": 1, "max_turns": 3}),
    ],
)
def test_a_turn_or_hand_limit_is_a_truncation_not_a_termination(module, options):
    env = single(module, seat=0, **options)
    env.reset(seed=0)
    *_, terminated, truncated, info = play_out(env, np.random.default_rng(0))
    assert (terminated, truncated, info["hand"], info["winner"]) == (False, True, 1, "")  # no winner
    assert info.get("result", "truncated") == "truncated"  # Gin Rummy's infos say how the hand ended


def test_episode_runs_to_the_end_with_the_mask_and_rewards_of_the_learner():
    env = single(rummy_v0, seat=1)
    obs, info = env.reset(seed=4)
    assert obs.shape == env.observation_space.shape and obs.dtype == np.float32
    assert env.aec.agent_selection == "player_1" and env.action_masks().any()
    total, steps, done = 0.0, 0, False
    rng = np.random.default_rng(0)
    while not done:
        legal = np.flatnonzero(env.action_masks())
        obs, reward, terminated, truncated, info = env.step(int(rng.choice(legal)))
        total += reward
        steps += 1
        done = terminated or truncated
    # seed 4's deal under the seeded random learner: the learner goes out on its 88th decision
    assert (total, steps, terminated, truncated) == (1.0, 88, True, False)
    assert (info["hand_score"], info["winner"]) == (47, "player_1")
    assert not env.action_masks().any()
    assert env.aec.agents == []  # every agent's episode is finished


def test_the_learner_seat_is_drawn_from_the_seed_and_opponents_fill_the_other_seats():
    env = single(crazy_rummy_v0, num_players=4)
    seats = set()
    for seed in range(12):
        env.reset(seed=seed)
        seats.add(env._learner)
        assert env.aec.agent_selection == env._learner
    assert seats == {"player_0", "player_1", "player_2", "player_3"}
    a, b = single(crazy_rummy_v0), single(crazy_rummy_v0)
    assert np.array_equal(a.reset(seed=5)[0], b.reset(seed=5)[0])


def test_bad_arguments():
    aec = gin_rummy_v0.env()
    with pytest.raises(
        ValueError, match=whole("SingleAgentEnv needs at least one opponent policy for the other seats")
    ):
        SingleAgentEnv(aec, [])
    with pytest.raises(ValueError, match=whole("learner_seat 2 is not a seat: use 0..1 or None")):
        SingleAgentEnv(aec, [make_agent("random", aec)], learner_seat=2)
    with pytest.raises(ValueError, match=whole("learner_seat 'player_1' is not a seat: use 0..1 or None")):
        SingleAgentEnv(aec, [make_agent("random", aec)], learner_seat="player_1")
    # refused when built, not at the first opponent move (after the learner's)
    with pytest.raises(TypeError) as err:
        SingleAgentEnv(aec, [make_agent("random", aec), 7])
    assert str(err.value) == (
        "opponent 7 has no act(observation, info) method: an opponent is an object with one (an agents.Agent, "
        "e.g. agents.make_agent('heuristic', aec_env)) or the name 'random' (single_agent_env(variant, opponents=...))"
    )
    with pytest.raises(TypeError) as err:
        SingleAgentEnv(aec, [make_agent("random", aec), "heuristic"])
    assert str(err.value) == (
        "opponent 'heuristic' is a name, not a policy: build it with agents.make_agent('heuristic', aec_env) "
        "(through gymnasium.make: opponents=lambda aec: [agents.make_agent('heuristic', aec, seed=1)])"
    )
    with pytest.raises(TypeError) as err:  # a string is no list of one-letter opponents
        SingleAgentEnv(aec, "random")
    assert str(err.value) == (
        "opponents='random' is a name, not a list of policies: build the agents with "
        "agents.make_agent('random', aec_env), or use single_agent_env(variant, opponents=...)"
    )
    with pytest.raises(
        TypeError, match="^aec_env must be an AEC env of this package \\(<variant>.env\\(\\)\\), got NoneType$"
    ):
        SingleAgentEnv(None, [make_agent("random", aec)])
    for seed in (-1, 1.5, True, "0"):
        with pytest.raises(ValueError, match=f"^seed={seed!r} is not a seed: seed must be None or an int >= 0$"):
            SingleAgentEnv(aec, [make_agent("random", aec)], seed=seed)
    with pytest.raises(RuntimeError, match="^call reset\\(\\) before action_masks\\(\\)$"):
        SingleAgentEnv(aec, [make_agent("random", aec)], seed=np.int64(0)).action_masks()


def test_reset_takes_numpy_seeds_and_refuses_bools_as_the_constructor_does():
    # np.int64 reached Gymnasium's seeding, which takes Python ints alone (gymnasium.error.Error),
    # and True was taken as seed 1
    env = single_agent_env("gin_rummy_v0", seed=0)
    first = env.reset(seed=np.int64(7))
    again = env.reset(seed=7)
    assert np.array_equal(first[0], again[0]) and first[1]["action_mask"].tolist() == again[1]["action_mask"].tolist()
    running = env.step(int(np.flatnonzero(again[1]["action_mask"])[0]))
    for seed in (True, np.True_, -1, np.int8(-1), 1.0, "7"):
        with pytest.raises(
            ValueError, match=f"^seed={re.escape(repr(seed))} is not a seed: seed must be None or an int >= 0$"
        ):
            env.reset(seed=seed)
    replay = single_agent_env("gin_rummy_v0", seed=0)
    replay.reset(seed=7)
    replay.step(int(np.flatnonzero(again[1]["action_mask"])[0]))
    action = int(np.flatnonzero(running[4]["action_mask"])[0])
    got, want = env.step(action), replay.step(action)  # the refused resets changed nothing
    assert np.array_equal(got[0], want[0]) and got[1:4] == want[1:4]


@pytest.mark.parametrize(
    "action, error, message",
    [
        (105.9, ActionTypeError, "action 105.9 has type float: actions are integer ids 0..107"),
        ("105", ActionTypeError, "action '105' has type str: actions are integer ids 0..107"),
        (True, ActionTypeError, "action True has type bool: actions are integer ids 0..107"),
        (None, ActionTypeError, "action None has type NoneType: actions are integer ids 0..107"),
        (108, IllegalActionError, "action 108 is out of range: action ids are 0..107"),
    ],
)
def test_an_action_that_is_not_an_id_is_refused_and_changes_nothing(action, error, message):
    env = single(seat=0)
    env.reset(seed=3)
    before = (env.aec.unwrapped.game_state.history.copy(), env.action_masks().copy())
    with pytest.raises(error, match=whole(message)):
        env.step(action)
    assert (env.aec.unwrapped.game_state.history, env.action_masks().tolist()) == (before[0], before[1].tolist())
    legal = int(np.flatnonzero(env.action_masks())[0])
    env.step(np.int64(legal))  # NumPy integers, as the RL libraries pass them, are ids
    assert env.aec.unwrapped.game_state.history[: len(before[0]) + 1] == [*before[0], legal]


def test_step_after_the_end_asks_for_a_reset():
    env = single(rummy_v0, seat=1)
    env.reset(seed=3)
    done = False
    while not done:
        _, _, terminated, truncated, _ = env.step(int(np.flatnonzero(env.action_masks())[0]))
        done = terminated or truncated
    with pytest.raises(
        RuntimeError,
        match=whole("no episode is running (it ended, or reset() was never called): call reset() before step()"),
    ):
        env.step(0)


def test_a_deal_that_ends_before_the_learner_acts_is_dealt_again():
    from rummy_env.games.gin_rummy import stack_deck

    # player_1 (non-dealer, the opponent) takes the upcard 3H and knocks at once
    deck = stack_deck(["4D 5D 6D 2C 3C 4C JS QS KS 9H", "7C 7D 7H 7S 8D 8H 8C AC 2D KD"], upcard="AD", dealer=0)
    aec = gin_rummy_v0.env()

    class TakeAndKnock:
        def act(self, obs, info=None):
            legal = np.flatnonzero(obs["action_mask"])
            knocks = legal[(legal >= 52) & (legal < 104)]
            return 105 if 105 in legal else int(knocks[0] if knocks.size else legal[0])  # take the upcard; knock

    env = SingleAgentEnv(aec, [TakeAndKnock()], learner_seat=0, seed=0)
    with pytest.raises(RuntimeError, match=whole("the stacked episode ended before the learner's first decision")):
        env.reset(options={"deck": deck, "dealer": 0})
    assert env.reset(seed=1)[1]["skipped_episodes"] == 0  # random deals: the learner acts first here
    # with a 1-turn limit, seed 8's first two deals end with the opponent's first turn,
    # before seat 1 acts: they are dealt again, and the third gives the learner its first
    # decision (draw upcard or pass)
    short = single(gin_rummy_v0, seat=1, max_turns=1)
    _, info = short.reset(seed=8)
    assert info["skipped_episodes"] == 2
    assert np.flatnonzero(short.action_masks()).tolist() == np.flatnonzero(info["action_mask"]).tolist() == [105, 106]


def test_refused_reset_options_change_nothing():
    # the seat draw and the deal seed come from the env's generator: a refused reset must not draw them
    env, twin = single(rummy_v0, num_players=3), single(rummy_v0, num_players=3)
    env.reset(seed=1)
    twin.reset(seed=1)
    learner, history = env._learner, list(env.aec.unwrapped.game_state.history)
    with pytest.raises(ValueError, match=whole("dealer 7 is not a seat: the dealer must be an int from 0 to 2")):
        env.reset(options={"dealer": 7})
    assert (env._learner, env.aec.unwrapped.game_state.history) == (learner, history)
    legal = int(np.flatnonzero(env.action_masks())[0])
    assert env.step(legal)[0].tolist() == twin.step(legal)[0].tolist()  # the episode goes on as in the twin
    obs, info = env.reset()
    twin_obs, twin_info = twin.reset()
    assert (env._learner, obs.tolist()) == (twin._learner, twin_obs.tolist())  # and the next deal is the same


def test_the_mask_is_int8_as_gymnasium_samples_with_it_and_a_copy():
    env = single_agent_env("gin_rummy_v0", seed=0)
    with pytest.raises(
        RuntimeError,
        match=r"^no episode is running \(it ended, or reset\(\) was never called\): call reset\(\) before step\(\)$",
    ):
        env.step(0)  # before any reset: it named the AEC env's agents (AttributeError)
    _, info = env.reset(seed=0)
    assert info["action_mask"].dtype == env.action_masks().dtype == np.int8
    assert np.flatnonzero(info["action_mask"]).tolist() == [105, 106]  # pass or take the upcard
    assert env.action_space.sample(mask=info["action_mask"]) in (105, 106)
    info["action_mask"][:] = 1  # the caller's copy: the env's mask is its own
    assert env.action_masks().sum() == 2


def test_empty_reset_options_deal_again_as_none_does():
    """With one turn, seed 6 deals first an episode that ends before the learner (seat 1)
    acts; ``options={}`` holds no stacked deal, so it is dealt again as with None."""
    env = single_agent_env("gin_rummy_v0", learner_seat=1, seed=0, max_turns=1)
    assert env.reset(seed=6)[1]["skipped_episodes"] == 1
    assert env.reset(seed=6, options={})[1]["skipped_episodes"] == 1


def test_pettingzoos_max_cycles_is_pointed_to_max_turns():
    message = (
        "unknown gin_rummy_v0 option(s) 'max_cycles': known options are knock_limit, gin_bonus, undercut_bonus,"
        " big_gin, big_gin_bonus, oklahoma, target_score, game_bonuses, max_turns, max_hands, episode, reward,"
        " render_mode; there is no max_cycles: max_turns limits a hand's turns"
    )
    with pytest.raises(ValueError, match=whole(message)):
        gin_rummy_v0.env(max_cycles=100)


def test_rgb_array_renders_the_learners_seat_and_human_is_refused():
    from rummy_env.render.image import render_rgb

    for seat in (0, 1):
        env = single_agent_env("gin_rummy_v0", render_mode="rgb_array", learner_seat=seat)
        env.reset(seed=0)
        image = env.render()
        assert image.dtype == np.uint8 and image.shape == (560, 960, 3)
        raw = env.aec.unwrapped
        np.testing.assert_array_equal(image, render_rgb(raw.game_state, seat, raw.last_move))
        other = render_rgb(raw.game_state, 1 - seat, raw.last_move)  # the other hand face up
        assert not np.array_equal(image, other)
    with pytest.raises(
        ValueError,
        match="^render_mode='human' is not supported by the single-agent view: use 'ansi', 'rgb_array' or None$",
    ):
        single_agent_env("gin_rummy_v0", render_mode="human")


@pytest.mark.parametrize(("module", "options"), [(gin_rummy_v0, {}), (rummy_v0, {"num_players": 3})])
def test_the_deals_of_a_seeded_game_do_not_depend_on_the_play_against_random_opponents(module, options):
    """The random opponent draws from its own generator (reseeded per deal), not from the
    env's, which deals the later hands of ``episode="game"``: two learners, the same deals."""

    def deals(pick):
        env = single_agent_env(module.__name__.rsplit(".", 1)[1], learner_seat=0, episode="game", **options)
        _, info = env.reset(seed=5)
        state, seen = env.aec.unwrapped.game_state, []
        while True:
            if state.hands_played == len(seen):
                seen.append(list(state.deck))
            if len(seen) == 3:
                return seen, list(state.history)
            _, _, terminated, truncated, info = env.step(int(pick(np.flatnonzero(info["action_mask"]))))
            assert not (terminated or truncated)

    first, first_moves = deals(lambda legal: legal[0])
    last, last_moves = deals(lambda legal: legal[-1])
    assert first == last and first[1] != first[2]  # every hand's deck, though the play differed
    assert first_moves != last_moves
    assert deals(lambda legal: legal[0]) == (first, first_moves)  # the same seed and play replay
