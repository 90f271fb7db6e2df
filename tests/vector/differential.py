"""The differential check: a batch against one ``env()`` per game, step by step."""

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

    Returns:
        counts: ``decisions`` (actions compared), ``episodes`` (ended), ``resets``.
    """
    n = vec.num_envs
    batch = vec.reset()
    envs = [None] * n
    pending = np.ones(n, bool)  # env i must be (re)built from the batch's deal
    counts = {"decisions": 0, "episodes": 0, "resets": 0}

    def check_live(i):
        env = envs[i]
        agent = env.agent_selection
        view = env.observe(agent)
        assert batch.current_player[i] == env.agent_name_mapping[agent], i
        np.testing.assert_array_equal(batch.observation[i], view["observation"])
        np.testing.assert_array_equal(batch.action_mask[i], view["action_mask"])
        assert not batch.terminated[i] and not batch.truncated[i]

    for i in range(n):
        envs[i] = module.env(**options)
        envs[i].reset(seed=0, options=vec.deal_of(i))
        pending[i] = False
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
                envs[i] = module.env(**options)
                envs[i].reset(seed=0, options=vec.deal_of(i))
                pending[i] = False
                counts["resets"] += 1
                check_live(i)
                assert not batch.rewards[i].any()
                continue
            env = envs[i]
            agent = env.agent_selection
            env.step(int(actions[i]))
            counts["decisions"] += 1
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
                pending[i] = True
            else:
                check_live(i)
    return counts
