"""The differential check: a batch against one ``env()`` per game, step by step."""

import copy

import numpy as np

IGNORED = 10**6  # the action passed to a game that resets at this step (any value is ignored)


def uniform(legal, rng):
    """A uniformly random id of ``legal`` (ascending legal ids)."""
    return legal[rng.integers(legal.size)]


def play_against_env(vec, module, options, steps, rng, choose=uniform):
    """Step ``vec`` and one ``module.env(**options)`` per game with the same actions
    (``choose(legal ids, rng)``, uniformly random by default), asserting at every step that the batch's
    observation, mask, acting seat, rewards, terminations and truncations are env()'s;
    a finished game's env is rebuilt from ``vec.deal_of(i)`` when the batch resets it.

    With ``episode="game"`` the env learns each later hand when the batch deals it: at a
    hand boundary the env is taken back to the start of the hand that just ended, the
    batch's new deal (``deal_of(i)["next_hands"][-1]``) is stacked in its engine
    (``stack_next_hands``) and the hand's actions are played again; the hands played so
    far must agree at every step.  When a game ends, a fresh env reset with
    ``deal_of(i)`` (the first hand and every later one) replays the whole game's actions
    to the same returns, totals and decks.

    Returns:
        counts: ``decisions`` (actions compared), ``episodes`` (ended), ``resets``, and
        with ``episode="game"`` ``hands`` (hand boundaries inside games) and ``replays``
        (whole games replayed from ``deal_of``).
    """
    n = vec.num_envs
    game = options.get("episode") == "game"
    batch = vec.reset()
    envs = [None] * n
    starts = [None] * n  # game mode: a copy of env i at the start of its current hand
    hand_actions = [[] for _ in range(n)]  # actions of the current hand / of the whole game
    game_actions = [[] for _ in range(n)]
    pending = np.ones(n, bool)  # env i must be (re)built from the batch's deal
    counts = {"decisions": 0, "episodes": 0, "resets": 0, "hands": 0, "replays": 0}

    def check_live(i):
        env = envs[i]
        agent = env.agent_selection
        view = env.observe(agent)
        assert batch.current_player[i] == env.agent_name_mapping[agent], i
        np.testing.assert_array_equal(batch.observation[i], view["observation"])
        np.testing.assert_array_equal(batch.action_mask[i], view["action_mask"])
        assert not batch.terminated[i] and not batch.truncated[i]

    def build(i):
        envs[i] = module.env(**options)
        envs[i].reset(seed=0, options=vec.deal_of(i))
        pending[i] = False
        hand_actions[i], game_actions[i] = [], []
        if game:
            starts[i] = copy.deepcopy(envs[i])

    def next_hand(i):
        """Env ``i`` plays its current hand again with the batch's deal of the next one."""
        env = copy.deepcopy(starts[i])
        env.unwrapped.game_state.stack_next_hands(vec.deal_of(i)["next_hands"][-1:])
        for a in hand_actions[i]:
            env.step(a)
        envs[i], starts[i], hand_actions[i] = env, copy.deepcopy(env), []
        counts["hands"] += 1

    def replay_game(i):
        """A fresh env from ``deal_of(i)`` replays game ``i`` to env ``i``'s end."""
        played = envs[i].unwrapped
        env = module.env(**options)
        env.reset(seed=0, options=vec.deal_of(i))
        for a in game_actions[i]:
            env.step(a)
        state = env.unwrapped.game_state
        assert state.is_terminal() and state.returns() == played.game_state.returns()
        assert state.scores == played.game_state.scores and state.hand_decks == played.game_state.hand_decks
        counts["replays"] += 1

    for i in range(n):
        build(i)
        check_live(i)
        assert not batch.rewards[i].any()
    for _ in range(steps):
        actions = np.full(n, IGNORED, np.int64)
        for i in range(n):
            if not pending[i]:
                actions[i] = choose(np.flatnonzero(batch.action_mask[i]), rng)
        batch = vec.step(actions)
        for i in range(n):
            if pending[i]:
                build(i)
                counts["resets"] += 1
                check_live(i)
                assert not batch.rewards[i].any()
                continue
            env = envs[i]
            agent = env.agent_selection
            hands = env.unwrapped.game_state.hands_played
            env.step(int(actions[i]))
            hand_actions[i].append(int(actions[i]))
            game_actions[i].append(int(actions[i]))
            state = env.unwrapped.game_state
            if game and state.hands_played != hands and not state.is_terminal():
                next_hand(i)
                env = envs[i]
            counts["decisions"] += 1
            if hasattr(vec, "hands_played"):
                assert vec.hands_played[i] == env.unwrapped.game_state.hands_played, i
            want = np.array([env.rewards[a] for a in env.possible_agents], np.float32)  # Batch.rewards is float32
            np.testing.assert_array_equal(batch.rewards[i], want)
            if env.terminations[agent] or env.truncations[agent]:
                counts["episodes"] += 1
                assert batch.terminated[i] == env.terminations[agent]
                assert batch.truncated[i] == env.truncations[agent]
                assert batch.current_player[i] == env.agent_name_mapping[agent]
                np.testing.assert_array_equal(batch.observation[i], env.observe(agent)["observation"])
                assert not batch.action_mask[i].any()
                if hasattr(vec, "scores"):
                    assert vec.scores[i].tolist() == list(env.unwrapped.game_state.scores)
                if game:
                    replay_game(i)
                pending[i] = True
            else:
                check_live(i)
    return counts
