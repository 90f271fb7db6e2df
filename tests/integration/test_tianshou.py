"""Tianshou's PettingZooEnv and Collector run whole episodes of every variant (the infos
of every step stack into its buffers: no None-or-int values, no ragged lists)."""

import numpy as np
import pytest

from rummy_env import crazy_rummy_v0, gin_rummy_v0, rummikub_v0, rummy_v0
from tests.integration.conftest import require

require("tianshou")
from tianshou.algorithm.multiagent.marl import MultiAgentPolicy  # noqa: E402
from tianshou.algorithm.random import MARLRandomDiscreteMaskedOffPolicyAlgorithm  # noqa: E402
from tianshou.data import Collector, VectorReplayBuffer  # noqa: E402
from tianshou.env import DummyVectorEnv, PettingZooEnv  # noqa: E402

CASES = [
    (rummy_v0, {"max_turns": 40}),
    (gin_rummy_v0, {"max_turns": 40}),
    # whole games: a scored hand ends one (target 1); random play seldom knocks under the usual
    # limit of 10 (a game took hundreds of hands), under 40 within the first hands; max_hands bounds it
    (
        gin_rummy_v0,
        {"reward": "score", "episode": "game", "target_score": 1, "max_turns": 40, "max_hands": 8, "knock_limit": 40},
    ),
    (crazy_rummy_v0, {"max_turns": 40}),
    (rummikub_v0, {"max_turns": 20}),
]


@pytest.mark.parametrize("module, options", CASES, ids=lambda c: getattr(c, "__name__", str(c)))
def test_collector_runs_whole_episodes(module, options):
    seeds = iter(range(100))

    def make():
        # seeded once here; the Collector's resets (no seed) continue that generator, so that
        # every run plays the same deals
        raw = module.env(**options)
        raw.reset(seed=next(seeds))
        return PettingZooEnv(raw)

    env = make()
    policy = MultiAgentPolicy(
        {a: MARLRandomDiscreteMaskedOffPolicyAlgorithm.Policy(env.action_space) for a in env.agents}
    )
    np.random.seed(0)  # Tianshou's random policy draws from numpy's global generator
    # room for two whole episodes per env (max_turns and max_hands bound them): a full buffer
    # wraps and drops steps
    buffer = VectorReplayBuffer(20_000, 2)
    collector = Collector(policy, DummyVectorEnv([make, make]), buffer)
    collector.reset()
    stats = collector.collect(n_episode=2, reset_before_collect=True)
    assert stats.n_collected_episodes == 2 and stats.n_collected_steps == len(buffer)
    # every transition stored its infos; the hand-end keys came through with their type
    stored = buffer.sample_indices(0)
    done = stored[buffer.done[stored]]
    assert done.size == 2
    assert {str(w) for w in buffer.info.winner[done]} <= {"", *env.agents}
    # Rummikub's scores are floats (a shared win of R-RK-11 can split a part), the others' ints
    assert buffer.info.hand_score[done].dtype.kind == ("f" if module is rummikub_v0 else "i")
    if module is gin_rummy_v0:
        results = {str(r) for r in buffer.info.result[done]}
        assert results <= {"knock", "gin", "big gin", "undercut", "dead hand", "truncated"}
        if options.get("episode") == "game":  # the games ended by a scored hand, not by max_hands
            assert results & {"knock", "gin", "big gin", "undercut"}
